/*
 * annotate: where inside one function an operation's time goes, from a
 * .pqt trace: each instruction's samples (the function's machine code
 * disassembled from the library file the trace names, disasm.h), the
 * source line and inlined function each instruction came from (DWARF,
 * through the analysis's symbolizer), the per-line totals, and the
 * hottest basic blocks and loops (code_flow.h), each with its share of
 * the operation and its source range.  Also lines up the annotations of
 * one function in two builds by source line (--diff).
 *
 * Only the leaf address of each sample counts (self time).  Samples of
 * code inlined into the function count for the function's code and are
 * marked with the function they came from; "self" is the part whose
 * innermost frame is the function itself, as in the report's tables.
 *
 * The result is JSON ("pqprof.annotate/1"): the profile record carries it
 * under "annotate" for its top functions, pqprof annotate prints it
 * (annotate_view.h), the HTML report renders it.
 */
#ifndef PQ_ANNOTATE_H
#define PQ_ANNOTATE_H

#include <jansson.h>

#include "core/pq_error.h"
#include "profile/analysis.h"

/* Instructions of each function the profile record keeps. */
#define ANNOTATE_RECORD_INSNS 4000

struct annotate_opts {
	int max_insns;      /* instructions kept in the JSON, 0: all */
	int with_text;      /* 1: include source text of each line */
};

/*
 * Annotate FUNCTION (NULL: the out-of-line function with the most samples
 * in the instance library, its inlined code included) for operation OP.
 * PQ_EUSAGE when the trace has no such operation, no samples to choose a
 * function from, or no function of that name in the sampled module;
 * PQ_EIO / PQ_EINPUT when the library file cannot be read.
 */
int analysis_annotate(struct analysis *a, const char *op, const char *function,
                      const struct annotate_opts *ao, json_t **out, pq_error *err);

/*
 * The names of up to n out-of-line functions of the instance library with
 * the most samples in OP, hottest first (a new array of strings).  PLT
 * stubs (memcpy@plt) are left out: the linker made them, and no function
 * symbol covers them to disassemble.
 */
json_t *analysis_annotate_hottest(struct analysis *a, const char *op, size_t n);

/*
 * BEFORE and AFTER annotations of one function lined up by source line
 * (file and line; code inlined from elsewhere keyed by its function too):
 * each line's units per operation in both, and the change.  New reference.
 */
json_t *annotate_diff(const json_t *before, const json_t *after);

#endif
