/*
 * tool_run: running build tools (compilers, the preprocessor, a tree's own
 * make or cmake) contained, under time and memory limits, with their
 * output in a log.  Compiler failures come back as an error naming the
 * unit and the compiler's first error lines, with what it said about
 * files outside the tree left out.  The argv type every build step uses
 * to assemble commands lives here too.
 */
#ifndef PQ_TOOL_RUN_H
#define PQ_TOOL_RUN_H

#include <sys/types.h>
#include "core/clock.h"
#include "core/contain.h"
#include "core/pq_error.h"

#define CC_DEFAULT_TIMEOUT_S 600.0
#define CC_DEFAULT_AS_LIMIT (4ull << 30)

/*
 * A growable, NULL-terminated argv.  A push that cannot allocate marks the
 * argv out of memory (oom) and every later push is dropped: a command is
 * assembled without checks after each argument, and av_check (run_units
 * does) refuses it before it runs, so no command ever runs short of an
 * argument.
 */
struct argv_buf {
	char **v;
	int n;
	size_t cap;
	int oom;
};

void av_push(struct argv_buf *a, const char *s);
/* printf-style argument, whatever its length. */
void av_pushf(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* PQ_ENOMEM, naming the command, when a push failed; else 0. */
int av_check(const struct argv_buf *a, pq_error *err);
void av_free(struct argv_buf *a);

/* How compilers run: contained, under these limits. */
struct cc_limits {
	double timeout_s;
	unsigned long long as_limit;
	int as_user;          /* compile as the unprivileged uid */
	const char *workdir;  /* its working directory when the tree is reached through it */
	const char *private_root; /* a tree's own build: only this stays writable (contain_opts) */
	const char *const *env;   /* environment for the tool (NULL: pqprof's) */
};

/* Start argv contained, its output to `log`; returns its pid or -1. */
pid_t spawn_logged(struct contained *ct, char **argv, const char *log, const struct cc_limits *lim);

/* Wait for a contained process, killing it at the wall-clock limit. */
int wait_limited(struct contained *ct, const struct cc_limits *lim, int *st, int *timed_out);

/* First few lines of a tool log that mention "error", else its head; files outside tree and tmpdir left out. */
void log_excerpt(const char *log, char *out, size_t len, const char *tree, const char *tmpdir);

/* First line of `cc --version` ("CC (version unknown)" when it fails); PQ_ENOMEM when memory runs out. */
int compiler_version(const char *cc, char *out, size_t len, const char *tmpdir, const struct cc_limits *lim,
                     pq_error *err);

/*
 * Run n commands, `jobs` at a time; stop at the first failure, named by
 * names[i] and `what`.  cwds[i], where cwds and it are not NULL, is
 * command i's working directory (where the tree's build ran it, so that
 * relative includes and an assembler's .include resolve as they did);
 * else lim->workdir.  A command a push failed on (av_check) or a NULL log
 * is PQ_ENOMEM before anything runs.
 */
int run_units(struct argv_buf *cmds, char **logs, const char **names, const char *const *cwds, int n, int jobs,
              const char *what, const struct cc_limits *lim, const char *tree, const char *tmpdir, pq_error *err);

#endif
