/*
 * profile_export: the one route from a trace to what other tools read --
 * flame graphs, folded stacks, speedscope, callgrind (the formats of
 * trace/export_format.h): analyse the trace (profile/analysis.h), take
 * its folded model, title it after the instance, operation and event,
 * and hand it to the format's writer.  `pqprof report`, `pqprof export`
 * and the campaign all come through here.
 */
#ifndef PQ_PROFILE_EXPORT_H
#define PQ_PROFILE_EXPORT_H

#include <jansson.h>

#include "core/pq_error.h"
#include "core/text_buf.h"
#include "profile/analysis.h"
#include "trace/export_format.h"

/*
 * Write op (NULL: every operation, each rooted at its name) of an
 * analysed trace in format fmt to path ("-": standard output).
 * PQ_EUSAGE when the trace has no operation op.  Notes for the user (an
 * uncompressed pprof file) go to note (NULL: dropped).
 */
int analysis_export(struct analysis *a, const char *op, const struct export_format *fmt, const char *path,
                    progress_fn note, void *user, pq_error *err);

/* Export trace_path as format (a name of the format table); op NULL: all; notes as analysis_export. */
int profile_export(const char *trace_path, const char *op, const char *format,
                   const char *out_path, progress_fn note, void *user, pq_error *err);

/* Flame graph of op (NULL: all operations) as SVG. */
int profile_flamegraph(const char *trace_path, const char *op, const char *svg_path, pq_error *err);

/* Differential flame graph from before to after, for op (NULL: all). */
int profile_flamegraph_diff(const char *before_trace, const char *after_trace, const char *op,
                            const char *svg_path, pq_error *err);

/* The pqprof.profile/1 record of op, in one call. */
int profile_analyze(const char *trace_path, const char *op, const struct analysis_opts *opts,
                    json_t **record, pq_error *err);

/*
 * profile_analyze, and also write the files opts names: the flame graph
 * (opts->flamegraph) and the folded stacks (opts->folded) of op, which
 * `pqprof compare` draws differential flame graphs from.  One read of
 * the trace.
 */
int profile_analyze_files(const char *trace_path, const char *op, const struct analysis_opts *opts,
                          json_t **record, pq_error *err);

#endif
