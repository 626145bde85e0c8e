/*
 * flamegraph: self-contained interactive SVG flame graphs drawn from the
 * folded model (trace/folded.h): one per operation, and a differential
 * one between two profiles.  The SVG carries its own JavaScript
 * (click-to-zoom, search with matched percentage) and needs nothing else
 * to view.  Colours are a pure function of the frame name, so the same
 * function has the same colour in every graph.  Files are written
 * atomically; path "-" writes to standard output.
 */
#ifndef PQ_FLAMEGRAPH_H
#define PQ_FLAMEGRAPH_H

#include "core/pq_error.h"
#include "trace/folded.h"

struct flamegraph_opts {
	const char *title;     /* NULL: "Flame graph: <op>" */
	const char *subtitle;  /* NULL: none */
	unsigned width;        /* pixels, 0: 1200 */
};

/* Flame graph of op (NULL: all operations, each rooted at its name). */
int flamegraph_svg(const folded *f, const char *op, const struct flamegraph_opts *opts,
                   const char *path, pq_error *err);

/*
 * Differential flame graph: shapes and widths come from after; each frame
 * is coloured by the change of its inclusive share of the total from
 * before to after (red grew, blue shrank, white unchanged), and its
 * tooltip gives both counts and the delta.  Frames that exist only in
 * before have no width in after and are not drawn.  op selects the
 * operation in both profiles (NULL: all).
 */
int flamegraph_diff_svg(const folded *before, const folded *after, const char *op,
                        const struct flamegraph_opts *opts, const char *path, pq_error *err);

/* The fill colour used for a frame name, "rgb(r,g,b)" into out. */
void flamegraph_color(const char *name, char *out, size_t cap);

#endif
