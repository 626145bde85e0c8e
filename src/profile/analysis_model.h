/*
 * analysis_model: the in-memory model of an analysed trace, shared by the
 * two halves of the analysis and by nothing else: analysis.c builds it
 * (reading, merging stacks, symbolizing) and analysis_record.c turns it
 * into the record of one operation.  Everything is arrays indexed by
 * small integer ids; see analysis.h for what the numbers mean.  Private
 * to src/profile/analysis*.c.
 */
#ifndef PQ_ANALYSIS_MODEL_H
#define PQ_ANALYSIS_MODEL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "core/grow.h"
#include "core/pq_error.h"
#include "profile/analysis.h"
#include "trace/strmap.h"
#include "trace/trace_reader.h"
#include "trace/trace_format.h"

#define NONE ((size_t)-1)
#define NO_FUNC UINT32_MAX

struct mapping {
	char *path;
	uint64_t start, len, pgoff;
	uint8_t id[TRACE_MAX_BUILD_ID];
	size_t idlen;
};

/* One runner child's address space. */
struct space {
	struct mapping *maps;
	size_t nmaps, capmaps;
	int final;
	size_t canon;               /* the space whose symbolizer resolves this one */
	char *sig;                  /* the mappings as text, to find identical spaces */
	struct symbolizer *sym;     /* canonical spaces only */
	struct strmap addr;         /* address (int_key) -> index into a->res */
};

struct resolved {
	uint32_t first, n;          /* into a->af */
};

struct aframe {
	uint32_t func;
	unsigned line;
	const char *file;           /* as reports show it: relative to the source
	                             * tree, a suffix of file_abs (source_display) */
	const char *file_abs;       /* interned by the space's symbolizer */
	int inlined;
};

struct afunc {
	char *name;
	char *module;               /* NULL for "[unknown]" */
	int in_lib;
	int in_runner;              /* the pqprof-runner executable */
	int seen_inlined, seen_outline;  /* frames met as an inlined copy / out of line */
	char *iname;                /* "name_[i]", made when first needed */
};

struct stk {
	uint64_t hash;
	uint32_t space, op, n;
	size_t ipoff;
	uint64_t count, weight;
	size_t xoff;                /* expanded frames: a->xf[xoff .. xoff + xn) */
	uint32_t xn;
	uint32_t keep;              /* frames kept after dropping the runner's */
	int harness;                /* no instance frame, but runner frames: the
	                             * enable/disable ioctls and the call wrapper */
	int outer_in_lib;           /* the stack's outermost address is in the
	                             * instance: unwinding stopped inside it */
};

struct opinfo {
	uint64_t op;
	char *name;
	uint64_t samples, weight, lost, runs, ends, max_end;
	int has_unwind;              /* an UNWIND_STATS record was read */
	struct trace_unwind_stats unwind;
};

struct analysis {
	json_t *header;
	char *trace_path;
	struct analysis_opts opts;
	char lib_base[256];
	char runner_base[256];
	char source_root[4096];     /* the instance's source tree, "" when unknown */
	const char *event, *unit, *callgraph;
	struct group_set *own_groups;
	const struct group_set *groups;

	struct space *spaces;
	size_t nspaces, capspaces, cur_space;
	struct opinfo *ops;
	size_t nops, capops, cur_op;
	uint64_t lost_outside_ops;
	struct trace_read_stats trace_st;  /* the reader's totals, END record included */

	struct stk *stks;
	size_t nstks, capstks;
	uint32_t *slots;            /* stack index + 1 */
	size_t nslots;
	uint64_t *ips;
	size_t nips, capips;

	struct resolved *res;
	size_t nres, capres;
	struct aframe *af;
	size_t naf, capaf;
	uint32_t *xf;
	size_t nxf, capxf;
	struct afunc *funcs;
	size_t nfuncs, capfuncs;
	struct strmap funcidx;

	json_t *unverified;         /* module problems, one line each */
	struct strmap problem_paths;
	json_t *warnings;
	struct analysis_stats st;
	folded *folded;             /* built on first use */
};

/* A source path as reports show it: relative to the instance's source
 * tree, else its last component (a suffix of path; NULL for NULL). */
const char *analysis_source_display(const struct analysis *a, const char *path);

/* Calls of the operation the trace saw (its units per op divide by this). */
uint64_t analysis_op_calls(const struct analysis *a, const struct opinfo *o);

/* Grow *p (elements of size elem) so that it holds at least need. */
static inline int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	return pq_grow(pp, cap, need, elem, 16);
}

/* Integer keys of the string maps: 16 hex digits. */
static inline size_t int_key(char buf[17], uint64_t v)
{
	return (size_t)snprintf(buf, 17, "%016" PRIx64, v);
}

static inline int oom(pq_error *err)
{
	return pq_fail(err, PQ_ENOMEM, "out of memory");
}

#endif
