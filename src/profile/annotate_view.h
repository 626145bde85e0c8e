/*
 * annotate_view: the text of pqprof annotate: one function's annotation
 * (pqprof.annotate/1, annotate.h) as a header with the skid note, the
 * per-line shares, the hottest loops and blocks and the disassembly
 * interleaved with its source lines; and the side-by-side view of two
 * builds (pqprof.annotate-diff/1).  Only renders: never reads traces.
 */
#ifndef PQ_ANNOTATE_VIEW_H
#define PQ_ANNOTATE_VIEW_H

#include <jansson.h>
#include <stdio.h>

struct annotate_view_opts {
	int no_asm;         /* leave the disassembly out */
	int top;            /* loops and blocks listed, 0: 5 */
};

void annotate_view_print(FILE *out, const json_t *ann, const struct annotate_view_opts *o);
void annotate_view_print_diff(FILE *out, const json_t *diff);

#endif
