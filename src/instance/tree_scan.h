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

/*
 * The NIST signature functions an API header declares.  Besides the plain
 * crypto_sign / crypto_sign_open, FIPS 204 / FIPS 205 style headers
 * declare variants that take a context string (crypto_sign_ctx,
 * crypto_sign_open_ctx, crypto_sign_signature_ctx, crypto_sign_verify_ctx),
 * sometimes only those.  Names may carry a namespace prefix
 * (PQCLEAN_MLDSA44_CLEAN_crypto_sign_keypair); the CRYPTO_* sizes then
 * carry the same one.  Some FIPS 204 trees (pq-crystals') give
 * crypto_sign and crypto_sign_open themselves the context arguments
 * (sm, smlen, m, mlen, ctx, ctxlen, sk): seven parameters, no _ctx names.
 */
struct nist_sig_decls {
	char prefix[96];    /* before crypto_sign_keypair ("" none) */
	int plain;          /* crypto_sign and crypto_sign_open, five parameters each */
	int context;        /* context-string functions: crypto_sign_ctx and crypto_sign_open_ctx, or see in_plain */
	int in_plain;       /* context: crypto_sign and crypto_sign_open themselves take (ctx, ctxlen) before the key */
};

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
	struct nist_sig_decls sig;  /* NIST signature: the functions api.h declares */
	int api_configured;         /* no api.h: header is the template the build configures it from (api.h.in) */
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
/*
 * Whether a NIST-API tree is a KEM: the KAT driver it ships says so
 * (PQCgenKAT_kem.c without PQCgenKAT_sign.c in dir, or the other way
 * round); else api.h's text (api_text, NULL: unread) names crypto_kem_
 * functions or a CIPHERTEXTBYTES size, namespaced ones included
 * (pqcrystals_kyber512_CIPHERTEXTBYTES).  *why gets the evidence.
 */
int tree_nist_is_kem(const char *dir, const char *api_text, const char **why);
int tree_api_parse(const char *s, enum tree_api *out);

/* What `text` (an API header, comments stripped or not) declares; 0 when it names no crypto_sign_keypair. */
int tree_nist_sig_decls(const char *text, struct nist_sig_decls *out);

/*
 * Source-text predicates, exposed for the unit tests.  `text` is the whole
 * file; comments and string literals are ignored.
 */
int source_defines_main(const char *text);
int source_defines_function(const char *text, const char *name);
/* Fill `names` with the basenames of files this source #includes as "x.c"-like sources. */
int source_included_sources(const char *text, char names[][256], int max);

#endif
