/*
 * manifest: `kat.sha256` manifests, the form in which independent
 * evaluators publish digests of KAT vector files, read and written as they
 * are so published manifests can be used unchanged.  One line per file:
 *     <sha256 hex> <strict|nolen>[:N] <label>/<file name>
 * The digest is over canonical text: each line without CR and trailing
 * spaces/tabs, empty lines dropped, each kept line + "\n"; `nolen` also
 * drops lines matching ^\w+_Len\s*= ; `:N` keeps only the first N records
 * (a record starts at a line matching ^[Cc]ount\s*= ; lines before the
 * first record, such as the NIST "# NAME" line, are kept).
 * Not here: parsing the vector files themselves (kat_file.h).
 */
#ifndef PQ_KAT_MANIFEST_H
#define PQ_KAT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/digest.h"
#include "core/pq_error.h"

enum manifest_mode { MANIFEST_STRICT = 0, MANIFEST_NOLEN = 1 };

#define MANIFEST_MAX_BYTES ((size_t)16 << 20)
#define MANIFEST_MAX_LINE 4096
#define MANIFEST_MAX_ENTRIES ((size_t)100000)
#define MANIFEST_MAX_RECORDS ((size_t)1000000000)

struct manifest_entry {
	uint8_t digest[32];
	enum manifest_mode mode;
	size_t records;      /* :N, 0 = the whole file */
	char *label;         /* part before the last '/' */
	char *file;          /* part after it */
	long line;           /* line in the manifest */
};

struct manifest {
	struct manifest_entry *entries;
	size_t n, cap;
};

const char *manifest_mode_name(enum manifest_mode mode);   /* "strict", "nolen" */

/*
 * Parse manifest text; '#' comment lines and blank lines are skipped.
 * Errors are "PATH:LINE: problem".  On failure *m is left empty.
 */
int manifest_parse(const char *buf, size_t len, const char *path, struct manifest *m,
                   pq_error *err);
int manifest_read(const char *path, struct manifest *m, pq_error *err);
void manifest_free(struct manifest *m);
/*
 * A manifest named by the user is read whole before anything runs: 0, or
 * PQ_EINPUT (bad input, exit 2) naming the file and line, PQ_ENOMEM.
 */
int manifest_check_file(const char *path, pq_error *err);

/* Entry for label/file; label NULL matches any label.  NULL if none. */
const struct manifest_entry *manifest_find(const struct manifest *m, const char *label,
                                           const char *file);

/* Canonical text of buf for a mode and record limit (0 = all); *out malloc'd. */
int manifest_canonical_text(const char *buf, size_t len, enum manifest_mode mode,
                            size_t records, char **out, size_t *outlen, pq_error *err);
/* SHA-256 of that canonical text (computed streaming). */
int manifest_digest(const char *buf, size_t len, enum manifest_mode mode, size_t records,
                    uint8_t out[32], pq_error *err);

/*
 * Check text (or a file) against an entry: 1 = digest matches, 0 = it does
 * not, negative = error.  actual_hex (may be NULL) gets the digest found.
 */
int manifest_verify_buffer(const struct manifest_entry *e, const char *buf, size_t len,
                           char actual_hex[65], pq_error *err);
int manifest_verify_file(const struct manifest_entry *e, const char *path,
                         char actual_hex[65], pq_error *err);

/*
 * One manifest line, "\n" included, into out (outsz bytes).  Returns its
 * length or a negative error (label/file empty or with '/', blanks at the
 * ends or control characters in the file name; buffer too small).
 */
int manifest_format_line(const uint8_t digest[32], enum manifest_mode mode, size_t records,
                         const char *label, const char *file, char *out, size_t outsz,
                         pq_error *err);

#endif
