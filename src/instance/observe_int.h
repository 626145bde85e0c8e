/*
 * observe_int: what the files of the observer share, and nothing more;
 * the public contract is observe.h.  One observation (struct obs) goes
 * through them in turn:
 *
 *   observe.c          the entry points and the plans kept for the process
 *   observe_sandbox.c  the scratch copy, the wrapper's bin/, and running a step contained
 *   observe_steps.c    which build to run (make targets, cmake levels, meson) and in what order
 *   observe_model.c    the wrapper's log read into units, outputs and instances
 *   observe_name.c     what each instance is called
 */
#ifndef PQ_OBSERVE_INT_H
#define PQ_OBSERVE_INT_H

#include <limits.h>
#include <stddef.h>
#include "core/path_name.h"
#include "core/pq_error.h"
#include "core/text_buf.h"
#include "instance/observe.h"
#include "instance/tool_run.h"

/* An output of the build (object, archive, shared library) and the units in it. */
struct made {
	char *path;
	int *units;
	int n;
	size_t cap;
	char **libs;          /* external libraries a shared library was linked with */
	int nlibs;
};

struct made_list {
	struct made *v;
	int n;
	size_t cap;
};

/* One observed build. */
struct obs {
	const struct observe_options *o;
	char root[PATH_MAX];      /* scratch: copy/, bin/, .tmp/, logs */
	char copy[PATH_MAX];
	char bin[PATH_MAX];
	char wraplog[PATH_MAX];
	char **env;
	double deadline;
	struct plan_unit *units;  /* every unit the build compiled, in order */
	int nunits;
	size_t ucap;
	struct made_list objs, archives, shlibs;
	char target_desc[512];    /* "make kat_all" */
	int record_only;          /* the log being read is of a record-only run (nothing was built) */
	struct build_plan *plan;
};

/* observe.c: small helpers every part uses (notes are appended with core/text_buf's text_add_note). */
int obs_is_below(const char *path, const char *dir);

/* observe_sandbox.c */
/* The scratch directory for `tree`: its copy, the wrapper in bin/ under every tool name, its log, the environment. */
int obs_setup(struct obs *ob, const char *tree, pq_error *err);
int obs_find_in_path(const char *name, char *out, size_t len);
/* Run one step of the build contained; its output goes to <root>/<log>.  Returns its exit status (-1: did not run). */
int obs_run_step(struct obs *ob, struct argv_buf *av, const char *log, int *timed_out);
/* CC, CXX, AS, AR and LD on a make command line: the wrapper. */
void obs_push_tool_vars(struct obs *ob, struct argv_buf *av);
/* What the build did outside its copy: files in its private /tmp, refused writes, network attempts. */
void obs_check_outside(struct obs *ob);

/* observe_steps.c */
/* Run the build: make, cmake or meson, and read what it did.  Fills plan->how, plan->attempts and plan->why. */
void obs_run_build(struct obs *ob, int cmake, int meson);
/* The first line of a log that reports an error, else its last lines, on one line. */
void obs_tail_excerpt(const char *log, char *out, size_t len);

/* observe_model.c */
/* Read the wrapper's log into ob's units and outputs, and each KAT driver link into an instance of the plan. */
void obs_read_records(struct obs *ob);
/* Did memory run out while the log was read (since the last call)?  The plan is then refused. */
int obs_model_out_of_memory(void);
/* Memory ran out elsewhere in the observation (a command short of an argument was not run): refuse the plan too. */
void obs_model_note_out_of_memory(void);
/*
 * read_whole_file for the observation: a file that cannot be read is
 * passed over, but one that could not be held for lack of memory makes
 * the whole observation fail (obs_model_note_out_of_memory), never a
 * plan made without it.
 */
int obs_read_file(const char *path, char **text, size_t *len, size_t max);
/* Nothing linked a KAT driver: one instance from the units the build compiled (the driver among them).  1 when made. */
int obs_unlinked_instance(struct obs *ob);
/* Forget what the wrapper log said (before the next attempt is read). */
void obs_forget(struct obs *ob);

/* observe_name.c */
/* What the instance's library will report: its header's name macro, preprocessed with the driver's flags. */
void obs_name_instance(struct obs *ob, struct plan_instance *pi);
/* The -D value that tells each instance from the others (XXX_INSTANCE=XXX_160F gives XXX_160F). */
void obs_label_instances(struct build_plan *p);

#endif
