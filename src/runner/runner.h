/*
 * runner: the child side.  `pqprof-runner JOB LIB [ARGS...]` loads exactly
 * one instance library and does one job on it, reporting to the parent on
 * fd RUNNER_RESULT_FD as newline-delimited JSON objects ("events").  The
 * scheme's own stdout/stderr go to a capped capture the parent reads, never
 * to pqprof's output.
 *
 * Jobs are functions in a table (runner_main.c), one file each (jobs.h);
 * the channel is runner_events.c, crash and exit() reports runner_faults.c.  A job marks the span of
 * every scheme call with runner_op_begin()/runner_op_end() so that an
 * exit(), crash or hang inside scheme code is attributed to that operation.
 */
#ifndef PQ_RUNNER_H
#define PQ_RUNNER_H

#include <jansson.h>

#include "instance/pqprof_abi.h"
#include "runner/op_ctx.h"

#define RUNNER_RESULT_FD 3   /* NDJSON events to the parent */
#define RUNNER_CTRL_FD 4     /* optional unix socket (perf fds via SCM_RIGHTS) */
#define RUNNER_NONCE_FD 5    /* the job's channel key: read once at start, then closed */
#define RUNNER_NONCE_LEN 32  /* hex characters */
/*
 * The runner's exit status when its result channel was taken from it (the
 * scheme closed or replaced the descriptor): the parent says so instead of
 * blaming an exit().
 */
#define RUNNER_EXIT_CHANNEL_LOST 87

struct runner_env {
	const struct pqprof_instance *inst;
	const char *lib_path;
	int ctrl_fd;             /* RUNNER_CTRL_FD when the parent gave one, else -1 */
};

struct runner_job {
	const char *name;
	int (*fn)(struct runner_env *env, int argc, char **argv);
	int loads_own;           /* the job loads LIB (and others) itself: env->inst is NULL */
};

/* Send one event object to the parent (steals the reference). */
void runner_emit(json_t *event);
/* Convenience: {"ev":"error","msg":...}. */
void runner_emit_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error event for a failure of the runner's own, with its PQ_E* code: the parent tells its out of memory from the scheme's misbehaviour. */
void runner_emit_pq_error(const char *what, const pq_error *err);

/* Bracket scheme calls; also emits begin/end events when `announce`. */
void runner_op_begin(enum pq_op op, int announce);
void runner_op_end(enum pq_op op, int announce);
/* An op_ctx mark hook: brackets each scheme call without announcing it. */
void runner_mark_call(enum pq_op op, int begin);

/* The raw event descriptor, for signal handlers that cannot use runner_emit. */
int runner_result_fd(void);
/* Async-signal-safe: write an already formatted event line (nothing without a channel). */
void runner_emit_raw(const char *buf, size_t len);
/*
 * Events go to fd from now on (main sets it up once); -1 = stderr.  Every
 * line the runner writes starts with the job's key (nonce, RUNNER_NONCE_LEN
 * characters) and a blank: the parent drops lines without it, so what scheme
 * code writes on a copy of the descriptor is never taken for the runner's.
 */
void runner_events_open(int fd, const char *nonce);
/* Is the channel still the descriptor main opened (not closed or replaced)? */
int runner_channel_intact(void);
/* Whether a "done" event was sent. */
int runner_done_sent(void);

/* Report fatal signals and exit() inside operations (runner_faults.c). */
void runner_install_fault_handlers(void);
/* While on, a fatal signal is reported as a load failure (a damaged library). */
void runner_set_loading(int on);
/* A job of several builds (paired): which one's calls run now, so that a crash, hang or exit() names it; -1: none. */
void runner_set_build(int b);

/* The operation in progress, or -1. */
int runner_current_op(void);
/* The operation begun last (in progress or not), or -1. */
int runner_last_op(void);

/* Seed the instance's randomness with a byte string (48 bytes 00..2f in benches). */
int runner_seed_instance(const struct pqprof_instance *inst, const unsigned char *seed, size_t len);

#endif
