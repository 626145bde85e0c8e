/*
 * tree_scan: look at a submission's source tree and decide what it is and
 * what to compile.  It finds the API flavour (NGCC wins over NIST when a
 * tree ships both), the headers the shim must include, the C and assembly
 * sources to build, and the files to leave out with the reason for each:
 * files defining main(), the official KAT generators, NIST rng.c, files
 * that are only #included by other sources, test/bench directories.
 *
 * It only reads files; building is builder.c's job.  It is also the first
 * line of containment: what it refuses never reaches a compiler.
 */
#ifndef PQ_TREE_SCAN_H
#define PQ_TREE_SCAN_H

#include "core/pq_error.h"

enum tree_api { TREE_API_AUTO = 0, TREE_API_NGCC, TREE_API_NIST };
enum tree_kind { TREE_KIND_SIG = 1, TREE_KIND_KEM = 2 };

struct tree_file {
	char *rel;          /* path relative to the tree root */
	int keep;           /* 1 = compile */
	int is_asm;
	char reason[160];   /* why left out (or empty) */
};

struct tree_scan {
	char root[4096];            /* absolute */
	char within[4096];          /* the source root the tree's links stay in (absolute) */
	enum tree_api api;
	enum tree_kind kind;
	char header[256];           /* SIG_AlgorithmInstance.h / api.h, relative */
	char drng_header[256];      /* NGCC drng.h relative, or "" */
	int defines_drng_object;    /* a kept file defines drng_algorithm */
	int has_init_random_number; /* kept sources define init_random_number */
	int api_h_declares;         /* NIST api.h already declares crypto_* prototypes */
	int nist_in_ngcc;           /* NGCC tree that also ships api.h */
	struct tree_file *files;
	int nfiles;
	char **incdirs;             /* directories holding headers, relative */
	int nincdirs;
};

/* Scan `dir`; `want` forces a flavour (TREE_API_AUTO detects it). */
int tree_scan_dir(const char *dir, enum tree_api want, struct tree_scan *out, pq_error *err);

/*
 * The same, with every file, symbolic link and quoted #include required to
 * resolve inside `within` (the source root; NULL: the tree itself).  A
 * tree outside `within` is refused when `tree_inside` is set (a tree named
 * by a descriptor), else its links must stay inside the tree itself.  Entries that are not regular files or
 * directories (FIFOs, devices, sockets), links that leave the source root,
 * symlinked directory loops and #include of absolute paths are refused
 * with an error naming the file.
 */
int tree_scan_dir_within(const char *dir, const char *within, int tree_inside, enum tree_api want,
                         struct tree_scan *out, pq_error *err);
void tree_scan_free(struct tree_scan *ts);

const char *tree_api_name(enum tree_api api);
/* Is this file name (no directory) one of the official KAT drivers (KAT_SIG.c, PQCgenKAT_sign.c, ...)? */
int tree_is_kat_driver(const char *base);
/*
 * Whether a NIST-API tree is a KEM: the KAT driver it ships says so
 * (PQCgenKAT_kem.c without PQCgenKAT_sign.c in dir, or the other way
 * round); else api.h's text (api_text, NULL: unread) names crypto_kem_
 * functions or a CIPHERTEXTBYTES size, namespaced ones included
 * (pqcrystals_kyber512_CIPHERTEXTBYTES).  *why gets the evidence.
 */
int tree_nist_is_kem(const char *dir, const char *api_text, const char **why);
int tree_api_parse(const char *s, enum tree_api *out);

/*
 * Source-text predicates, exposed for the unit tests.  `text` is the whole
 * file; comments and string literals are ignored.
 */
int source_defines_main(const char *text);
int source_defines_function(const char *text, const char *name);
/* Fill `names` with the basenames of files this source #includes as "x.c"-like sources. */
int source_included_sources(const char *text, char names[][256], int max);

#endif
