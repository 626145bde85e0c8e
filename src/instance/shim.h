/*
 * shim: the C source `pqprof build` adds to every submission.  It includes
 * the submission's own header, adapts its API (NGCC or NIST, signature or
 * KEM) to struct pqprof_instance, supplies the harness's randomness hooks
 * (NIST randombytes(), NGCC drng_algorithm) and records how the library was
 * built.  This file only produces text; builder.c compiles it.
 */
#ifndef PQ_SHIM_H
#define PQ_SHIM_H

#include <stdio.h>
#include "core/pq_error.h"
#include "instance/tree_scan.h"

struct shim_meta {
	const char *compiler;    /* first line of `cc --version` */
	const char *profile;
	const char *cflags;      /* full flags */
	const char *notes;       /* kept / left-out list and flag origins */
	const char *fallback_name; /* instance name when the header gives none */
	/* NIST: what the KAT driver includes (absolute paths), after the API header: the sizes may live there. */
	char *const *driver_includes;
	int ndriver_includes;
	/* NIST signature: sign and verify call the context variants (tree_scan sig.context) with this context. */
	int sig_context;
	int sig_context_in_plain;   /* the context functions are crypto_sign / crypto_sign_open themselves (no _ctx) */
	const unsigned char *context;
	size_t context_len;
};

/* The text of src/instance/pqprof_abi.h (generated abi_text.c). */
extern const char pq_abi_header_text[];

int shim_write(FILE *out, const struct tree_scan *ts, const struct shim_meta *meta, pq_error *err);

/* Write s as a C string literal body (escaped, no quotes). */
void shim_put_c_string(FILE *out, const char *s);

#endif
