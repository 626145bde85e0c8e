/*
 * folded: the symbolized profile model the exporters work on.  Per
 * operation (keygen, sign, ...) it maps a folded stack -- function names
 * root first, joined by ';' as in "main;sign;sha3_256;keccak_f" -- to a
 * weight (sum of sample periods) and a sample count.  The caller (the
 * symbolizer) builds it; it never sees addresses.  A side table keeps the
 * source file and line of each function when known, for the exporters
 * that can show them (callgrind, speedscope).
 */
#ifndef PQ_FOLDED_H
#define PQ_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include "core/pq_error.h"
#include "trace/strmap.h"

struct folded_frame {
	const char *func;   /* NULL or "" is shown as "[unknown]" */
	const char *file;   /* NULL if unknown */
	unsigned line;      /* 0 if unknown */
};

struct folded_stack {
	char *key;          /* "outer;inner;leaf" */
	uint64_t weight;
	uint64_t count;     /* samples merged into this stack */
};

/* Read-only for callers; change it through the functions below. */
struct folded_op {
	char *name;
	struct folded_stack *stacks;  /* insertion order */
	size_t n, cap;
	uint64_t total;               /* sum of weights */
	struct strmap index;          /* key -> position in stacks */
};

struct folded_func {
	char *file;
	unsigned line;
};

typedef struct folded {
	char *event;                  /* what weights count, e.g. "cycles" */
	struct folded_op *ops;
	size_t nops, cap;
	struct strmap funcs;          /* name -> position in func_info */
	struct folded_func *func_info;
	size_t nfunc_info, cap_func_info;
	struct strmap calls;          /* "op\x1ffunction" -> exact calls (uprobes) */
} folded;

/* event names the weight unit (NULL: "samples"); NULL when out of memory. */
folded *folded_new(const char *event);
void folded_free(folded *f);

/*
 * Add weight to the stack frames[0..n) (root first) of operation op.
 * Function names are cleaned for the folded syntax (';' and line breaks
 * become ':' and ' ').  The first file:line seen for a function is kept.
 */
int folded_add(folded *f, const char *op, const struct folded_frame *frames, size_t n,
               uint64_t weight, pq_error *err);

/* Same with bare function names. */
int folded_add_names(folded *f, const char *op, const char *const *names, size_t n,
                     uint64_t weight, pq_error *err);

/*
 * Parse folded text ("a;b;c 123" per line, as written by export_folded or
 * FlameGraph's stackcollapse tools) into operation op.  Blank lines are
 * ignored; a malformed line is an error naming its line number.
 */
int folded_parse(folded *f, const char *op, const char *text, pq_error *err);

/*
 * Exact number of calls of function func in the sampled calls of op, as
 * counted (uprobes), not estimated from samples.  The callgrind export
 * writes calls= only from these.  0, or -1 when out of memory.
 */
int folded_set_calls(folded *f, const char *op, const char *func, uint64_t calls);
/* 1 and *calls set when folded_set_calls gave func's count in op, else 0. */
int folded_get_calls(const folded *f, const char *op, const char *func, uint64_t *calls);

/* The operation called name, or NULL. */
const struct folded_op *folded_find_op(const folded *f, const char *name);

/* Source file of a function (NULL if unknown), line in *line. */
const char *folded_func_file(const folded *f, const char *func, unsigned *line);

/*
 * A sorted, read-only list of the stacks of one operation, or of all
 * operations when op is NULL (then each stack gets the operation name as
 * its root frame).  Used by every exporter so their output is
 * deterministic.
 */
struct folded_entry {
	const char *stack;
	uint64_t weight;
	uint64_t count;
};

struct folded_view {
	struct folded_entry *e;
	size_t n;
	uint64_t total;
	char **owned;
	size_t nowned;
};

int folded_view_make(const folded *f, const char *op, struct folded_view *v, pq_error *err);
void folded_view_free(struct folded_view *v);

#endif
