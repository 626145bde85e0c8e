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

/*
 * The category a name states plainly (an instance's, or its folder's), by
 * a small grammar over its tokens: the name is cut at every character that
 * is not a letter or digit, and matched without regard to case.
 *   - 128, 192, 256 as a token, or ending a token after letters, with at
 *     most two letters after it (128, 128f, Wren128f, 256s): 1, 3, 5;
 *     not after a hash or cipher name (sha, sha2, sha3, shake, aes,
 *     keccak, blake, haraka, as the token's letters or the token before):
 *     SHA3-256 and shake256 name a function, not a level;
 *   - L1 ... L5 as a token; lvl, level, cat, category followed by 1-5 in
 *     the same token or the next (lvl1, Level-3, cat_5), or by a Roman
 *     numeral I-V as the next token (Category III).
 * Other numbers never count: Falcon-512, FrodoKEM-640, MAYO-2 and
 * Kyber768 state no category here.  Tokens that disagree state none.
 * Returns 1-5 with the token in token (e.g. "128f"), else 0.
 */
int category_from_name(const char *name, char *token, size_t tlen);

#endif
