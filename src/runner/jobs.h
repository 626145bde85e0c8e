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

#endif
