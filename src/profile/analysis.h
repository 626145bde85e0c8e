/*
 * analysis: the offline half of profiling, from a .pqt trace to
 * symbolized aggregates: the pqprof.profile/1 record of one operation
 * (top functions by self and inclusive share, source lines, call tree,
 * function groups, exact calls per operation), and the folded model the
 * exporters and flame graphs draw from (profile/profile_export.h writes
 * them).
 *
 * The trace is read once.  Samples are merged by (address space,
 * operation, stack) first, then every distinct address is symbolized
 * once per address space, so a million samples resolve in seconds.
 * Each runner child is its own address space (the MMAP records after an
 * OP_BEGIN); children whose mappings are identical share one symbolizer.
 * Modules are registered by the path recorded in the trace and checked
 * against the recorded build id; a file that is missing or was rebuilt is
 * named in the record ("modules_unverified") and its addresses fall back
 * to "[lib+0xoffset]".
 *
 * Attribution rules (doc/profile-report.md):
 *   - a sample's stack is expanded into the inline chains of its
 *     addresses; self goes to the innermost function (an inlined helper
 *     if that is where the sample landed), inclusive to every distinct
 *     function on the expanded stack (its inline parents included);
 *   - shares are sample counts / the op's samples with 95% Wilson
 *     intervals; units per op = the op's summed sample weights / the
 *     number of calls sampled, and a function's units per op = share x
 *     units per op.  The unit is the event's: cycles for cycles, ns of
 *     CPU time for cpu-clock and task-clock;
 *   - a stack is truncated when its outermost frame is still inside the
 *     instance library (the unwind never got back to the runner);
 *   - the call tree and the folded stacks start at the outermost frame
 *     of the instance library (the runner's frames above it are dropped).
 */
#ifndef PQ_ANALYSIS_H
#define PQ_ANALYSIS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "profile/groups.h"
#include "trace/folded.h"

struct analysis_opts {
	int top;                        /* functions per table, 0: 15 */
	int lines;                      /* hottest source lines, 0: 10, < 0: none */
	const struct group_set *groups; /* NULL: the groups in the trace header, else defaults */
	double tree_min_share;          /* prune the call tree below this, 0: 0.01 */
	int tree_depth;                 /* 0: 24 */
	const char *flamegraph;         /* SVG path named in the record ("flamegraph"), or NULL */
	const char *folded;             /* folded-stacks path named in the record ("folded"), or NULL */
	int annotate;                   /* functions annotated in the record, 0: 3, < 0: none */
};

struct analysis_stats {
	uint64_t samples;
	uint64_t stacks;                /* distinct (space, op, stack) */
	uint64_t addresses;             /* distinct addresses symbolized */
	size_t spaces, symbolizers;     /* address spaces seen, symbolizers made */
	double read_s, symbolize_s;
};

struct analysis;

/* Read and symbolize trace_path.  An incomplete trace (no END record) is
 * analysed up to its end with a warning in the records. */
struct reader_view;
/*
 * Add what analysing the trace at path reads to a reader view
 * (core/reader_view.h): the trace, every file its mappings name, the
 * instance's source tree and $PQPROF_SOURCE_ROOT.  A trace that cannot be
 * read adds only its path (the analysis then says why).
 */
void analysis_view_add(struct reader_view *v, const char *trace_path);

int analysis_open(struct analysis **out, const char *trace_path, const struct analysis_opts *opts,
                  pq_error *err);
void analysis_close(struct analysis *a);

/* Operations present in the trace, in the order they first appear. */
size_t analysis_op_count(const struct analysis *a);
const char *analysis_op_name(const struct analysis *a, size_t i);

/* The trace's JSON header (borrowed). */
const json_t *analysis_header(const struct analysis *a);
void analysis_get_stats(const struct analysis *a, struct analysis_stats *st);

/* The pqprof.profile/1 record of one operation (new reference).
 * PQ_EUSAGE when the trace has no such operation. */
int analysis_record(struct analysis *a, const char *op, json_t **record, pq_error *err);

/* The folded model of all operations, weights in event units: built on
 * the first call, owned by a (valid until analysis_close). */
int analysis_folded(struct analysis *a, const folded **out, pq_error *err);

/* The trace's path, and the sampled event and its unit as its header names them. */
const char *analysis_trace_path(const struct analysis *a);
const char *analysis_event(const struct analysis *a);
const char *analysis_unit(const struct analysis *a);

#endif
