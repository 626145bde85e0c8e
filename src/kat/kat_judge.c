/*
 * kat_judge: an engine outcome judged against published vectors, a KAT
 * file or a kat.sha256 manifest entry (declared in kat_engine.h).  Only a
 * PASS is re-judged: nothing to compare with gives NOKAT, a difference
 * MISMATCH with the first differing record and field.
 */
#include "config.h"
#include "kat/kat_engine.h"
#include "core/digest.h"

#include <stdio.h>
#include <string.h>

void kat_judge(const struct kat_file *expected, const struct kat_file *produced,
               const struct kat_compare_opts *copts, struct kat_outcome *out)
{
	if (out->verdict != KAT_PASS)
		return;
	if (!expected) {
		out->verdict = KAT_NOKAT;
		kat_outcome_reason(out, "no published vectors to compare with");
		return;
	}
	struct kat_diff d;
	if (kat_compare(expected, produced, copts, &d))
		return;
	/* Only the name line differs: the records decide, and the note quotes both lines. */
	struct kat_compare_opts noname = copts ? *copts : (struct kat_compare_opts){ 0 };
	noname.ignore_name = 1;
	struct kat_diff d2;
	if (d.record == -1 && strcmp(d.field, "#") == 0 && kat_compare(expected, produced, &noname, &d2)) {
		kat_outcome_note(out, "the name lines differ ('# %.80s' in the file, '# %.80s' produced), every record "
		                 "matches: the records decide", expected->name ? expected->name : "",
		                 produced->name ? produced->name : "");
		return;
	}
	out->verdict = KAT_MISMATCH;
	out->record = d.record;
	snprintf(out->field, sizeof out->field, "%s", d.field);
	kat_outcome_reason(out, "%s", d.what);
}

int kat_judge_manifest(const struct manifest_entry *e, const char *produced_text, size_t len,
                       struct kat_outcome *out, pq_error *err)
{
	if (out->verdict != KAT_PASS)
		return 0;
	if (!e) {
		out->verdict = KAT_NOKAT;
		kat_outcome_reason(out, "no manifest entry to compare with");
		return 0;
	}
	char actual[65], want[65];
	int rc = manifest_verify_buffer(e, produced_text, len, actual, err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		hex_encode(e->digest, 32, want);
		out->verdict = KAT_MISMATCH;
		out->record = -1;
		out->field[0] = '\0';
		kat_outcome_reason(out, "%s/%s: %s digest %.16s... differs from the manifest's %.16s...", e->label,
		         e->file, manifest_mode_name(e->mode), actual, want);
	}
	return 0;
}
