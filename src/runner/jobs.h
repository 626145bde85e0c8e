/*
 * jobs: the runner's job functions, one per kind of work, each in its own
 * file.  runner_main.c maps job names to these.
 */
#ifndef PQ_RUNNER_JOBS_H
#define PQ_RUNNER_JOBS_H

#include "runner/runner.h"

int job_info(struct runner_env *env, int argc, char **argv);
int job_bench(struct runner_env *env, int argc, char **argv);
int job_kat(struct runner_env *env, int argc, char **argv);
int job_mem(struct runner_env *env, int argc, char **argv);
int job_profile(struct runner_env *env, int argc, char **argv);
int job_count(struct runner_env *env, int argc, char **argv);
int job_sizes(struct runner_env *env, int argc, char **argv);
int job_leak(struct runner_env *env, int argc, char **argv);
int job_keys(struct runner_env *env, int argc, char **argv);
int job_paired(struct runner_env *env, int argc, char **argv);

/* The seed every benchmark child starts from: bytes 00..2f, as the
 * reference harness uses, so runs of two builds do the same work. */
void bench_default_seed(unsigned char seed[48]);

/*
 * Shared by the profile and count jobs (job_op.c): seed the instance with
 * the benchmark seed, allocate and prepare op (reported as its own span);
 * on failure the error event is sent and a PQ_* code returned.
 */
int job_prepare_op(struct runner_env *env, struct op_ctx *c, enum pq_op op, long mlen);
/* After call i of op returned rc: 0 if it succeeded and its output checks,
 * else the op span is closed, a "cryptofail" error sent and PQ_ESCHEME returned. */
int job_call_failed(struct op_ctx *c, enum pq_op op, int rc, long i);

#endif
