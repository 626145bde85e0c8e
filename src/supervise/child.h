/*
 * child: the parent side of the runner.  Spawns pqprof-runner contained
 * (its own PID and network namespace, scratch directory, unprivileged uid
 * as root: see core/contain.h) in its own process group with resource limits, collects its NDJSON events and its
 * capped stdout/stderr, enforces the time limit (SIGTERM, a grace period,
 * then SIGKILL to the whole group), and turns however it ended into a
 * child_result: normal exit, exit inside an operation, signal, time-out,
 * processes left behind.  Nothing the child does can end the parent.
 */
#ifndef PQ_CHILD_H
#define PQ_CHILD_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/contain.h"
#include "core/pq_error.h"

struct child_hooks {
	void *user;
	/* After fork, with the parent's end of the control socket (or -1). */
	void (*spawned)(void *user, pid_t pid, int ctrl_fd);
	/* About every 10 ms while the child runs (profilers drain buffers here). */
	void (*tick)(void *user);
	/* Extra fd whose readability should wake the loop (or -1). */
	int wake_fd;
};

/*
 * Address-space limit (RLIMIT_AS) for runner children when the caller sets
 * none: a scheme that allocates without bound gets NULL from malloc (and
 * the runner reports "out of memory") instead of taking the machine's
 * memory.  In builds with AddressSanitizer the runner cannot live under
 * RLIMIT_AS (ASan reserves terabytes of shadow address space), so there
 * child_run leaves RLIMIT_AS alone and asks ASan's allocator for the same
 * cap instead (ASAN_OPTIONS soft_rss_limit_mb, allocator_may_return_null).
 */
#define CHILD_DEFAULT_AS_LIMIT (4ull << 30)

/* CHILD_DEFAULT_AS_LIMIT, or $PQPROF_AS_LIMIT_MB MiB when that is set (> 0). */
unsigned long long child_default_as_limit(void);

struct child_spec {
	const char *job;          /* runner job name */
	const char *lib;          /* instance library */
	const char *const *args;  /* extra job arguments, NULL-terminated (may be NULL) */
	double timeout_s;         /* 0 = none */
	double grace_s;           /* after SIGTERM, before SIGKILL (default 2) */
	size_t output_cap;        /* bytes of stdout+stderr kept (default 64 KiB) */
	int cpu;                  /* pin to this CPU, -1 = no pinning */
	unsigned long long as_limit; /* RLIMIT_AS bytes, 0 = none */
	int want_ctrl;            /* create the control socket (fd 4 in the child) */
	int namespaces;           /* link namespaces the runner will use (dlmopen), 0: the default */
	/* More libraries for the job, each passed as "--lib PATH" after args (by fd where lib goes by fd). */
	const char *const *extra_libs;
	int nextra_libs;
	int close_stdin;          /* give the child /dev/null as stdin (always) */
	/*
	 * Count job: uprobe counters on the functions of lib matching these
	 * globs, opened in the child before it drops to the unprivileged uid
	 * and handed to the runner ("--uprobe-fds"), or the reason they could
	 * not be ("--uprobe-error").  NULL: none.
	 */
	const char *const *uprobe_globs;
	size_t nuprobe_globs;
	const struct child_hooks *hooks;
	/*
	 * Files handed to the job: written into its scratch directory (its
	 * working directory) before it starts, read-only to it.
	 */
	const struct contain_file *inputs;
	int ninputs;
	/*
	 * Files the job writes into its working directory, NULL-terminated
	 * names: read back before the scratch directory goes, each through
	 * contain_collect (no link followed, regular files of the job's own,
	 * at most collect_cap bytes, default CHILD_COLLECT_CAP), into
	 * child_result.files in the same order.
	 */
	const char *const *collect;
	size_t collect_cap;
	/* Directories the runner must not see (contain_opts.hidden): NULL-terminated, or NULL. */
	const char *const *hidden;
};

#define CHILD_COLLECT_CAP (1ull << 30)
#define CHILD_MAX_FILES 4
/*
 * What one job may send on its result channel: past either, the job is
 * stopped and ends CHILD_FLOODED, so that pqprof's own memory stays bounded
 * (the events it keeps are at most these bytes, plus jansson's overhead).
 */
#define CHILD_EVENT_LINES_MAX 100000
#define CHILD_EVENT_BYTES_MAX (64u << 20)

/* A file read back from a job's scratch directory. */
struct child_file {
	const char *name;         /* borrowed from child_spec.collect */
	char *data;               /* NUL-terminated copy, NULL when refused or absent */
	size_t len;
	char why[160];            /* why data is NULL ("" when present) */
};

enum child_end {
	CHILD_OK = 0,        /* exited 0 and sent a "done" event */
	CHILD_FAILED,        /* exited non-zero after reporting an error */
	CHILD_EXIT_IN_OP,    /* exit() called inside scheme code */
	CHILD_EXITED_EARLY,  /* exited without "done" outside an operation */
	CHILD_SIGNALED,      /* killed by a signal (crash) */
	CHILD_TIMEOUT,       /* time limit hit */
	CHILD_SPAWN_FAILED,
	CHILD_FLOODED,       /* sent more on the result channel than any job does: stopped */
	CHILD_TAMPERED,      /* a second result under the job's key: the channel cannot be believed */
	CHILD_CHANNEL_LOST,  /* the scheme closed or replaced the runner's result channel */
};

struct child_result {
	enum child_end end;
	int exit_code;
	int signo;
	int killed_hard;          /* SIGKILL was needed after the grace period */
	int orphans;              /* processes left behind after the runner ended (killed) */
	char contain_note[256];   /* a part of the containment left out, and why ("" if none) */
	char in_op[16];           /* operation in progress at the end, "" if none */
	char fault[160];          /* the runner's own diagnosis (overflow, stack, oom) */
	json_t *events;           /* array of event objects */
	json_t *done;             /* the "done" event's object (borrowed from events) */
	char *output;             /* captured stdout+stderr (capped) */
	size_t output_len;
	size_t output_total;      /* bytes the child wrote in all */
	double wall_s;
	struct child_file files[CHILD_MAX_FILES]; /* child_spec.collect, in order */
	int nfiles;
	/* Lines on the channel without the job's key: written by scheme code, ignored. */
	size_t forged_lines;
	char forged_first[96];    /* the first of them, cut */
	size_t channel_lines, channel_bytes; /* all that arrived, keyed or not */
};

/* The collected file `name` of a finished job, or NULL (absent, refused or not asked for). */
const struct child_file *child_file(const struct child_result *res, const char *name);

/* Path of pqprof-runner, found as paths_runner() says (core/paths.h). */
const char *child_runner_path(void);

/*
 * Run the child to its end.  Negative (PQ_E*): it could not be run, or what
 * it reported could not be kept (PQ_ENOMEM); then res holds nothing to
 * free.  Else res describes how it ended; child_result_free releases it.
 */
int child_run(const struct child_spec *spec, struct child_result *res, pq_error *err);
void child_result_free(struct child_result *res);

/* One line: "crashed with SIGSEGV in sign", "timed out after 900 s in keygen"... */
void child_describe(const struct child_result *res, char *buf, size_t len);

/* On SIGINT/SIGTERM/SIGHUP, end running children first (see core/interrupt.h). */
void child_install_signal_forwarding(void);

#endif
