/*
 * families: the symmetric-primitive families a scheme may carry in its
 * own code -- Keccak (SHA-3, SHAKE, cSHAKE, KMAC), SHA-2, SM3 and AES --
 * recognised without any descriptor, from function names and from the
 * source files the functions were compiled from (DWARF), so assembly
 * routines count too (by symbol name alone when they carry no DWARF).
 *
 * A name or a file matches a family when one of the family's keywords
 * starts a word of it, case-insensitively: at the start, after a
 * character that is not a letter, or at a lower-to-upper case change
 * ("KeccakF1600", "spx_shake256", "fips202.c", "aes256ctr_prf",
 * "br_aes_ct64", "crypto_hash_sha512"), but never inside a word
 * ("phases" is not AES, "thash" is not SHA).  For files only the last
 * path component is looked at.  Keywords:
 *   keccak: keccak, shake, cshake, turboshake, sha3 (not sha384), fips202,
 *           kmac, xkcp
 *   sha2:   sha2 (sha224, sha256), sha384, sha512
 *   sm3:    sm3
 *   aes:    aes, rijndael
 * The competition's placeholder functions (pseudohash, pseudoXOF,
 * sm3hash) and its DRNG are not the scheme's own: the profile record
 * leaves samples inside them out of every family (see analysis.h), and
 * the source files that define them (the competition's auxfunc.c and
 * drng.c, each with an SM3 of its own) can be left out of the search.
 */
#ifndef PQ_FAMILIES_H
#define PQ_FAMILIES_H

#include <stddef.h>

#include "core/pq_error.h"

enum { FAMILY_COUNT = 4 };

/* Short name ("keccak") and label for reports ("Keccak/SHAKE"). */
const char *family_name(int i);
const char *family_label(int i);

/* Bit i set when identifier `name` matches family i. */
unsigned family_match_name(const char *name);
/* Bit i set when the last component of source path `path` matches family i. */
unsigned family_match_file(const char *path);

/* What a library holds of each family. */
struct family_presence {
	unsigned by_symbol;             /* a code symbol's name matches */
	unsigned by_file;               /* a DWARF compile unit's file matches */
	int dwarf;                      /* the library has DWARF compile units */
	char example[FAMILY_COUNT][160]; /* a matching function or file, for records */
};

/*
 * Scan lib_path's symbol table and DWARF compile units.  Compile units
 * whose source file is one of skip[0 .. nskip) (absolute paths, as DWARF
 * names them), and the functions compiled in them, are left out; without
 * DWARF a function's file is unknown and it is kept.
 */
int families_in_library(const char *lib_path, const char *const *skip, size_t nskip, struct family_presence *out,
                        pq_error *err);

#endif
