/*
 * pprof_export: an analysed trace as the profile.proto
 * that `go tool pprof` and Grafana Pyroscope read.  Written from the
 * analysis model itself, not from the folded stacks, because pprof keeps
 * what folding throws away: addresses (Location), the mapped files with
 * their build ids (Mapping), and inline chains (a Location with several
 * Line entries, innermost inlined function first, the out-of-line caller
 * last).
 *  - sample types: "samples"/"count", then the trace's event in its unit
 *    (cycles/count, or cpu/nanoseconds for clock events); the event is
 *    the period type and the default sample type;
 *  - every sample has a string label "operation" (keygen, sign, ...), so
 *    `pprof -tagfocus operation=sign` and Pyroscope's label filter select
 *    one; with op given only that operation is written;
 *  - stacks are cut as in `pqprof report`: up to the outermost frame of
 *    the instance library; the harness's own stacks are left out, so the
 *    top functions are the report's.
 * protobuf-c packs the messages (src/profile/pprof_profile.proto, the
 * published schema's field numbers).  The file is not gzipped (that needs
 * zlib, not a pqprof dependency); pprof and Pyroscope read it either way.
 */
#ifndef PQ_PPROF_EXPORT_H
#define PQ_PPROF_EXPORT_H

#include "core/pq_error.h"
#include "core/text_buf.h"
#include "profile/analysis.h"

/*
 * Write op (NULL: all operations) of a to path ("-": standard output).
 * What the caller should tell the user (no gzip program, so the file is
 * not compressed) goes to note (NULL: dropped); nothing is printed here.
 */
int pprof_export(struct analysis *a, const char *op, const char *path, progress_fn note, void *user, pq_error *err);

#endif
