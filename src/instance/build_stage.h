/*
 * build_stage: the stages of `pqprof build`, in the order instance_build
 * (builder.c) runs them, and the state one hands to the next:
 *
 *   plan     build_plan_stage.c  the tree's own build observed (observe.h),
 *                                else its build files read; the instance
 *   flags    build_flags.c       the profile, the observed (per unit) or read
 *                                tree flags, the user's; each with its origin;
 *                                instruction sets checked
 *   compile  build_compile.c     the shim, one contained compiler per unit,
 *                                compile_commands.json
 *   link     build_compile.c     one shared library with the libraries the
 *                                submitter's link took, moved into place
 *
 * The name check (the library reports the instance its directory names)
 * follows in record_build and cmd_build, once the library loads.  Internal
 * to src/instance: the public call is instance_build (builder.h).
 */
#ifndef PQ_BUILD_STAGE_H
#define PQ_BUILD_STAGE_H

#include <jansson.h>
#include <limits.h>
#include "instance/builder.h"
#include "core/path_name.h"
#include "instance/observe.h"
#include "instance/tool_run.h"
#include "instance/link_scope.h"

struct build_ctx {
	const struct build_options *opt;
	struct build_result *res;
	const struct flag_profile *prof;
	const char *cc;
	/* plan */
	const struct build_plan *plan;     /* the tree's observed plan (may be unobserved), or NULL */
	const struct plan_instance *pi;    /* the instance chosen from it; NULL: the build files were read */
	/* flags */
	struct flag_list *unit_flags;      /* observed: each unit's checked flags, [pi->nunits] the driver's (the shim's) */
	/* compile */
	char tmpdir[64];                   /* objects, logs, the shim ("" before the compile stage) */
	struct cc_limits lim;
	char base[PATH_MAX];               /* where sources are read: the tree, or the observed build's copy */
	struct argv_buf objects;           /* what the link takes */
	json_t *ccdb;                      /* compile_commands.json */
	/* NIST signatures: the context-string functions are called, with this context (--context). */
	int sig_context;
	unsigned char context[BUILD_CONTEXT_MAX];
	size_t context_len;
};

int stage_plan(struct build_ctx *b, pq_error *err);
int stage_flags(struct build_ctx *b, pq_error *err);
int stage_compile(struct build_ctx *b, pq_error *err);
int stage_link(struct build_ctx *b, pq_error *err);
/* What the stages leave behind: temporary files, per-unit flags. */
void stage_cleanup(struct build_ctx *b);

/* One line of the build notes (what was kept, left out, and where flags came from). */
void build_note(struct build_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* PQ_ENOMEM when a note or a flag could not be added to res->notes or res->cflags; else 0, both strings. */
int build_texts_check(struct build_result *res, pq_error *err);

/* The old-C diagnostics every unit gets downgraded to warnings (NULL-terminated). */
extern const char *const build_downgrades[];

/* How calls inside the library bind: locally (the default) or the plain -fPIC form (link_scope.h). */
#define build_link_scope(opt) ((opt)->plain_pic ? LINK_SCOPE_PLAIN_PIC : LINK_SCOPE_LOCAL)

#endif
