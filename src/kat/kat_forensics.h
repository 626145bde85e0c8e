/*
 * kat_forensics: why a KAT file does not match, when the file itself is at
 * hand.  A MISMATCH verdict names only the first differing record and
 * field; this explains the whole difference, the way an evaluator's
 * footnote does: which records differ and which match (counted, with
 * ranges: "records 2–7 (6 of 10) differ; records 0, 1, 8, 9 match"),
 * which fields differ in how many records, whether the expected lengths
 * are the sizes this instance declares, whether the differing records
 * are records of another parameter set of the same package (their
 * lengths are a sibling instance's declared sizes, or they equal that
 * sibling's own produced vectors), which fields still agree, and whether
 * the file's seeds follow the harness's seed sequence.
 * The result is a JSON object (kept in the KAT record as "forensics")
 * whose "text" member is the footnote.  Nothing here runs schemes: the
 * caller passes the siblings' sizes and, when it has them, their vectors.
 */
#ifndef PQ_KAT_FORENSICS_H
#define PQ_KAT_FORENSICS_H

#include <jansson.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "kat/kat_file.h"

/* Declared sizes of one instance (0 = not declared / not applicable). */
struct kat_instance_sizes {
	const char *name;
	uint64_t pk, sk, sig, ct;
	const struct kat_file *produced;   /* its own vectors (harness seeds), or NULL */
};

/*
 * Explain why expected (read from expected_path, may be NULL) differs from
 * produced, the vectors of the instance self.  siblings: the other
 * instances of the package (nsib of them, may be 0).  *out is a new
 * object: records, differ, match, fields[], seeds, sibling, text.
 * Returns 0, or -PQ_ENOMEM.
 */
int kat_forensics(const struct kat_file *expected, const struct kat_file *produced,
                  const char *expected_path, const struct kat_instance_sizes *self,
                  const struct kat_instance_sizes *siblings, size_t nsib, json_t **out, pq_error *err);

/*
 * 1 when the records of expected that differ from produced carry lengths
 * that are sibling's declared sizes (and not all self's): worth replaying
 * the sibling to see whether they are its own vectors.  0 otherwise.
 */
int kat_forensics_lengths_fit(const struct kat_file *expected, const struct kat_file *produced,
                              const struct kat_instance_sizes *self, const struct kat_instance_sizes *sibling);

/*
 * "2–7", "0, 1, 8, 9": a sorted list of record numbers as ranges (runs of
 * three or more joined with an en dash).  Returns buf.  Too many ranges
 * for buf: those that fit whole, then RANGES_MORE.
 */
#define RANGES_MORE ", \u2026"
char *kat_forensics_ranges(const long *recs, size_t n, char *buf, size_t len);

/* The footnote when only a manifest digest is at hand. */
void kat_forensics_manifest_only(const char *file, char *buf, size_t len);

#endif
