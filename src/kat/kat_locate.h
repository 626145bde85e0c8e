/*
 * kat_locate: find a tree's published vector file by what it holds, not by
 * its name.  Submitters name their files freely (PQCsignKAT_1234.rsp,
 * PQCsignKAT_1234_Alg_1.rsp, KAT/level1/kat.rsp, Test_Vectors/...), so a
 * file qualifies when its first record starts the same seed sequence as
 * the produced vectors (NIST generators and the harness both draw seeds
 * from the same DRBG) and carries keys (and a ciphertext) of the produced
 * sizes.  Among
 * qualifying files the one holding the produced public key wins, then one
 * whose name line names the instance, then one whose file name does (case,
 * '-', '_' and '.' aside); ties go to the first path in sorted order.
 * Only the first record of each file is read.  Not here: comparing the
 * whole files (kat_file.h, kat_judge).
 */
#ifndef PQ_KAT_LOCATE_H
#define PQ_KAT_LOCATE_H

#include <stddef.h>
#include <stdint.h>

#include "kat/kat_file.h"

/* How deep below the root the search goes, and the largest file it opens. */
#define KAT_LOCATE_DEPTH 6
#define KAT_LOCATE_MAX_BYTES ((size_t)512 << 20)

struct kat_located {
	char path[4096];
	int candidates;       /* files that qualified */
	int holds_pk;         /* the chosen file's first record has the produced public key */
	int names_instance;   /* its name line names the instance */
};

/*
 * Search root for the file of `produced` (its first record decides) for
 * the instance `name` (may be NULL).  Returns 1 with *out filled when one
 * qualifies, 0 when none does.
 */
int kat_locate(const char *root, const struct kat_file *produced, const char *name, struct kat_located *out);

/*
 * The same search when no vectors were produced yet (a package being
 * scanned): what is known of the first record.  A zero or NULL member is
 * not checked, except that a file always needs a count line and a public
 * key.
 */
struct kat_want {
	const uint8_t *seed;  /* the first seed of the generator's sequence (kat_flow_first_seed) */
	size_t seedlen;
	const uint8_t *pk;    /* the public key, or NULL: then only pklen, if any, is checked */
	size_t pklen, sklen, ctlen;
	int kem;              /* 1: the record has a ciphertext, 0: it has none, -1: either */
	const char *name;     /* the instance, or NULL */
};

struct kat_candidate {
	char path[4096];
	char name_line[256];  /* the file's "# NAME" line, or "" */
	size_t pklen, sklen;  /* of its first record (0 when absent) */
	int kem;              /* its first record has a ciphertext */
	int holds_pk, names_instance, file_names_instance;
	int score;            /* 4 holds_pk + 2 names_instance + file_names_instance */
};

/*
 * Every file below root whose first record qualifies, best first (then by
 * path); *out is malloc'd (NULL when none).  Returns the count, or -1 when
 * out of memory.
 */
int kat_locate_all(const char *root, const struct kat_want *w, struct kat_candidate **out);

/* Do two instance names agree, case, '-', '_', '.' and blanks aside? */
int kat_names_agree(const char *a, const char *b);

#endif
