/*
 * export: writes a folded profile (trace/folded.h) in the formats other
 * tools read -- folded stacks text (FlameGraph, inferno), speedscope JSON
 * and callgrind (KCachegrind) -- atomically, through core/atomic_file.h.
 * The SVG flame graphs are in trace/flamegraph.h.  Nothing here reads
 * traces or symbolizes addresses.
 *
 * In every exporter op selects one operation; NULL takes all of them,
 * each stack rooted at a frame named after its operation.  path "-"
 * writes to standard output.
 */
#ifndef PQ_EXPORT_H
#define PQ_EXPORT_H

#include <stdio.h>
#include "core/atomic_file.h"
#include "core/pq_error.h"
#include "trace/folded.h"

/* "a;b;c 123" lines, sorted by stack. */
int export_folded(const folded *f, const char *op, const char *path, pq_error *err);

/*
 * speedscope file (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per operation (or just op), frames shared; name
 * is the profile group's title (NULL: "pqprof").
 */
int export_speedscope(const folded *f, const char *op, const char *name,
                      const char *path, pq_error *err);

/*
 * callgrind profile: one fn= block per function with its self cost, and
 * cfn=/calls= lines with the inclusive cost of a call edge where the call
 * count is exact: the callee's calls were counted (folded_set_calls, from
 * uprobes) and the edge is its only caller.  Sampling cannot count calls,
 * so other edges are left out (KCachegrind then shows self costs for
 * them).  fl= names the source file when known, "???" otherwise.
 */
int export_callgrind(const folded *f, const char *op, const char *path, pq_error *err);

/* An output file written atomically, or standard output for "-". */
struct export_out {
	FILE *fp;
	int is_stdout;
	atomic_file af;
};

int export_out_open(struct export_out *o, const char *path, pq_error *err);
/* Commit when ok (and the stream had no error), otherwise discard. */
int export_out_close(struct export_out *o, int ok, pq_error *err);

#endif
