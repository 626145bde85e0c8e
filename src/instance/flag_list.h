/*
 * flag_list: compiler arguments, each with where it was seen ("Makefile:12",
 * "compile of poly.c (make -B)", "profile harness-default").  The observed
 * build (observe.h) and the build stages (build_stage.h) keep flags this way
 * so every flag a library was compiled with can be traced to its origin.
 */
#ifndef PQ_FLAG_LIST_H
#define PQ_FLAG_LIST_H

#include <stddef.h>

/* One compiler argument (unquoted, as the compiler gets it) and where it was seen. */
struct tree_flag {
	char *flag;
	char origin[256];
};

struct flag_list {
	struct tree_flag *v;
	int n;
	size_t cap;
};

/* -1 when memory runs out (the list is as it was); the caller must not go on with a list short of a flag. */
int flag_list_add(struct flag_list *l, const char *flag, const char *origin);
void flag_list_free(struct flag_list *l);

/*
 * Does this flag matter for compiling the library?  0: drop it; 1: pass it
 * on (-D, -U, -I, -std=, -m, -f); 2: information only (-O, another ABI's -m,
 * instrumentation and profiling -f).
 */
int tree_flag_kind(const char *flag);

/* The macro name of a -D/-U switch into out ("" when flag is neither). */
void define_macro_name(const char *flag, char *out, size_t len);

/*
 * Split shell text into words the way sh would pass them to a program:
 * quotes group and are removed, backslash escapes the next character.
 * -1, with no words, when memory runs out.
 */
int shell_split(const char *s, char ***words, int *n);

#endif
