/*
 * api_category: the NIST security category an instance's API header
 * states, when it states one as an integer macro (NIST_SECURITY_LEVEL,
 * CRYPTO_SECURITY_CATEGORY, PQCLEAN_X_NIST_LEVEL, ...).  It reads the
 * header as text, without preprocessing: a category chosen under #if or
 * computed from other macros is not seen, and then the category comes
 * from elsewhere (the descriptor, `pqprof run --category`).  Not for
 * sizes: those are the shim's (instance/shim.h).
 */
#ifndef PQ_API_CATEGORY_H
#define PQ_API_CATEGORY_H

#include <stddef.h>

/*
 * Whether a macro name says security level or category: case-insensitive,
 * it ends in SECURITY_LEVEL, SECURITY_CATEGORY or NIST_LEVEL (a namespace
 * prefix before it is allowed).
 */
int api_category_name_ok(const char *name);

/*
 * The first `#define NAME VALUE` of text whose name api_category_name_ok
 * accepts and whose value is an integer 1..5 (in parentheses, with a u/U
 * suffix, allowed): the value, with the macro's name in name; 0 when none.
 */
int api_category_from_text(const char *text, size_t len, char *name, size_t nlen);

/*
 * The same for a submission tree: its API header (instance/tree_scan.h),
 * then an api.h beside it.  0 when the tree cannot be read or states none.
 * *kem (may be NULL) is set to 1 when the tree is a KEM, 0 otherwise.
 */
int api_category_of_tree(const char *tree, char *name, size_t nlen, int *kem);

#endif
