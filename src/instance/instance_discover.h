/*
 * instance_discover: the parameter sets one submission tree can build.
 * Many trees serve several instances from one source set, chosen by
 * preprocessor switches: the Makefile loops over -DXXX_INSTANCE=... and
 * -DXXX_INSTANCE_NAME="...", and the instance header falls back to a
 * default with #ifndef XXX / #define XXX default.  Building such a tree
 * without the switches silently builds the header's default, which is
 * often not the instance the directory is named after.
 *
 * instance_discover reads the tree's build files (tree_flags.h) and its
 * instance header and lists the instances with the switches that select
 * each; instance_select picks the one a build is for (asked by name, or
 * named by the directory) or refuses to guess, naming the choices.
 */
#ifndef PQ_INSTANCE_DISCOVER_H
#define PQ_INSTANCE_DISCOVER_H

#include "core/pq_error.h"
#include "instance/tree_flags.h"

/* A #ifndef X / #define X value default of the instance header. */
struct header_default {
	char macro[128];
	char value[256];
	char origin[300];   /* "SIG_AlgorithmInstance.h:12" */
};

struct instance_set {
	struct tree_flags tf;          /* the tree's flags; tf.variants are the instances */
	char header[256];              /* the instance header read, relative ("" when none) */
	char default_name[128];        /* the instance the header builds without switches ("" unknown) */
	char default_origin[300];
	struct header_default *defaults;
	int ndefaults;
	int default_variant;           /* index of the variant that is the header default, or -1 */
};

/*
 * Read `tree`'s build files and its instance header (`header`, relative to
 * the tree; NULL: SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h or
 * api.h at the top of the tree).
 */
int instance_discover(const char *tree, const char *header, struct instance_set *out, pq_error *err);
void instance_set_free(struct instance_set *s);

/* A variant's instance name: its NAME switch, else the loop value. */
const char *instance_variant_name(const struct tree_variant *v);

/* "A, B (header default), C" into out. */
void instance_choices(const struct instance_set *s, char *out, size_t len);

/*
 * Pick the variant to build.  `want` (--instance, or NULL), the tree's
 * directory name, and the -D switches already given (NAME=VALUE, no -D).
 * *chosen is the variant index, or -1 when there is nothing to add (the
 * tree has no variants, or the given switches already select one).
 * dir_instance gets the directory name when it names one of the tree's
 * instances ("" otherwise), for the check against the built library.
 * Refusals are PQ_EUSAGE with a message naming the choices.
 */
int instance_select(const struct instance_set *s, const char *tree, const char *want, const char *const *defines,
                    int ndefines, int *chosen, char *dir_instance, size_t dlen, pq_error *err);

/*
 * The name the built library reports against the one the directory names
 * (dir_instance) and the one asked for (expected; both may be NULL or "").
 * A mismatch is PQ_EINPUT naming both.
 */
int instance_name_check(const char *tree, const char *reported, const char *expected, const char *dir_instance,
                        pq_error *err);

#endif
