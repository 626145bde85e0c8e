/*
 * mem_run: the parent side of `pqprof mem` and `pqprof sizes`.  Each
 * operation's memory is measured in a fresh runner child (so its baseline
 * and peak belong to it alone); sizes are sampled in one child over many
 * seeds.  Both return records, and a one-line reason when the scheme
 * misbehaved (out of memory, stack overflow, crash).  Static memory comes
 * from the library file itself (elf_size); report/sizes_audit.h reads a
 * sizes record against the declared sizes.
 */
#ifndef PQ_MEM_RUN_H
#define PQ_MEM_RUN_H

#include <jansson.h>

#include "core/pq_error.h"
#include "runner/op_ctx.h"

struct mem_run_opts {
	const char *lib;
	long stack_size;           /* 0 = default (64 MiB) */
	double timeout_s;          /* default 300 */
	unsigned long long as_limit;  /* default 8 GiB */
	int cpu;
	const char *output_log;     /* the scheme's stdout/stderr go here (mem_run_op), or nowhere: NULL */
};

/* Measure one operation.  *record gets a record even when the scheme failed. */
int mem_run_op(const struct mem_run_opts *o, enum pq_op op, json_t **record, pq_error *err);

/*
 * Declared vs produced sizes over `runs` seeds (audit: report/sizes_audit.h),
 * fewer when `seconds` (> 0) are spent first (two runs at least).
 */
int sizes_run(const struct mem_run_opts *o, long runs, double seconds, json_t **record, pq_error *err);

#endif
