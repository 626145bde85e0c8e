/*
 * tree_flags: the compile flags and -D switches a submission tree's own
 * build files ask for, read without running them.  From the tree's
 * Makefile (and the makefiles it includes) it takes variable assignments
 * (=, :=, ::=, +=, ?=), simple $(VAR) expansion and a few text functions,
 * the flag variables make's implicit rules use (CFLAGS, CPPFLAGS, ASFLAGS)
 * and the flags written on the compile lines of the library's rules; from
 * CMakeLists.txt add_compile_options, target_compile_options,
 * add_definitions, add_compile_definitions, include_directories and
 * set/string(APPEND) of CMAKE_C_FLAGS.  $(shell ...) and wildcards are
 * never run; rules of test, bench, KAT and clean targets are ignored.
 *
 * Only flags that matter for compiling the library are kept: -m*, -f*,
 * -D, -U, -I (inside the tree), -std= and -O (information only: the flag
 * profile decides optimisation).  Each keeps where it came from
 * ("Makefile:12").
 *
 * Where one source set serves several parameter sets chosen by
 * preprocessor switches (a shell `for` loop or $(foreach) in a rule
 * running the compiler with -DXXX_INSTANCE=$$p -DXXX_INSTANCE_NAME=...),
 * each loop value is a variant with its own switches.  instance_discover.h
 * turns those into instances.
 */
#ifndef PQ_TREE_FLAGS_H
#define PQ_TREE_FLAGS_H

#include <stddef.h>
#include "core/pq_error.h"

/* One compiler argument (unquoted, as the compiler gets it) and where it was written. */
struct tree_flag {
	char *flag;
	char origin[256];   /* "Makefile:12", "CMakeLists.txt:4", ... */
};

struct flag_list {
	struct tree_flag *v;
	int n;
	size_t cap;
};

/* One parameter set the build files select with -D switches. */
struct tree_variant {
	char name[128];            /* instance name a *NAME* string switch gives, or "" */
	char label[128];           /* the loop value that selects it */
	struct flag_list defines;  /* the -D/-U switches that select it */
	char origin[256];          /* the loop */
};

struct tree_flags {
	struct flag_list flags;    /* kept for compiling the library, in order */
	struct flag_list info;     /* seen but not passed on (-O, -I outside the tree...) */
	struct tree_variant *variants;
	int nvariants;
	size_t vcap;
	char files[512];           /* build files read, relative to the tree */
};

/* Read the tree's Makefile (or makefile, GNUmakefile) and CMakeLists.txt; none is not an error. */
int tree_flags_read(const char *root, struct tree_flags *out, pq_error *err);
/* Read one makefile (and what it includes inside `root`); origins are relative to `root`. */
int tree_flags_read_makefile(const char *root, const char *path, struct tree_flags *out, pq_error *err);
/* Read one CMakeLists.txt. */
int tree_flags_read_cmake(const char *root, const char *path, struct tree_flags *out, pq_error *err);
void tree_flags_free(struct tree_flags *tf);

/* Does this flag matter for compiling the library?  0: drop it; 1: pass it on; 2: information only. */
int tree_flag_kind(const char *flag);

int flag_list_add(struct flag_list *l, const char *flag, const char *origin);
void flag_list_free(struct flag_list *l);

/* The macro name of a -D/-U switch into out ("" when flag is neither). */
void define_macro_name(const char *flag, char *out, size_t len);

/*
 * Split shell text into words the way sh would pass them to a program:
 * quotes group and are removed, backslash escapes the next character.
 */
int shell_split(const char *s, char ***words, int *n);

#endif
