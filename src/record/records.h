/*
 * records: one producer per record kind (build, kat, bench, memory,
 * sizes).  Each returns the whole record -- schema, instance, environment,
 * measurements -- as a new JSON object, the same whether a single command
 * (`pqprof mem`, ...) prints it or the campaign stores it; callers only
 * print or write what they get.  Where a stored record goes is
 * record_path().  The profile record's producer is analysis_record()
 * (profile/analysis.h).
 *
 * Not here: running anything.  The producers call the runner, the builder
 * and the ELF reader and put their results together.
 */
#ifndef PQ_RECORDS_H
#define PQ_RECORDS_H

#include <jansson.h>
#include <stddef.h>

#include "core/pq_error.h"
#include "instance/builder.h"
#include "supervise/bench.h"
#include "supervise/kat_gate.h"
#include "supervise/mem_run.h"
#include "runner/op_ctx.h"

/* What every record of one measurement carries; both borrowed. */
struct record_ctx {
	json_t *instance;        /* descriptor from instance_describe(), or NULL */
	json_t *environment;     /* env_to_json(), or NULL when not captured */
};

/*
 * The file a record is stored in: DIR[/SUB]/NAME[__OP]EXT.  name must
 * already be file-safe (an instance or unit label).  PQ_EINPUT when the
 * path does not fit in len.
 */
int record_path(char *buf, size_t len, const char *dir, const char *sub, const char *name, const char *op,
                const char *ext, pq_error *err);

/*
 * pqprof.build/1: build (bo NULL: a prebuilt library), then describe the
 * library at lib.  library is what the record names as the library (a
 * path relative to the campaign directory, or the prebuilt one's).
 * Always sets *record; < 0 when the build or the description failed
 * (status "failed" and the reason in the record).
 */
int record_build(const struct build_options *bo, const char *lib, const char *library, const char *profile,
                 const char *label, json_t **record, pq_error *err);

/*
 * pqprof.kat/1: the KAT gate (kat_gate_run; o->record_path is ignored:
 * the caller stores res->record), with the environment added.
 */
int record_kat(const struct kat_gate_opts *o, const struct record_ctx *ctx, struct kat_gate_result *res,
               pq_error *err);

/*
 * pqprof.bench/1 of one operation for n builds, their trials interleaved
 * (n = 1: one build); each record's environment gets its end time, and
 * profiles[k] (when profiles and profiles[k] are not NULL) is recorded as
 * the build's flag profile.  records[k] is set even when its bench
 * failed (errs[k] says why) unless nothing could start.  Returns the
 * first failure's code, or 0.
 */
int record_bench(const struct bench_config *cfgs, int n, const char *const *profiles, json_t **records,
                 pq_error *errs);

/*
 * pqprof.memory/1 of one operation, with the library's static image
 * ("elf", "static_image_bytes"; "elf_error" when it cannot be read).
 * *record is set even when the scheme failed (status "failed").
 */
int record_mem(const struct mem_run_opts *mo, enum pq_op op, const struct record_ctx *ctx, json_t **record,
               pq_error *err);

/*
 * pqprof.sizes/1: declared vs produced sizes over runs seeds (fewer when
 * seconds > 0 run out first), the size audit ("audit", when the runs
 * completed), and the library's sections with its top largest symbols.
 * *record is set even when the scheme failed.
 */
int record_sizes(const struct mem_run_opts *mo, long runs, double seconds, size_t top, const struct record_ctx *ctx,
                 json_t **record, pq_error *err);

#endif
