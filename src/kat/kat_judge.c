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

void kat_judge(const struct kat_file *expected, const struct kat_file *produced,
               const struct kat_compare_opts *copts, struct kat_outcome *out)
{
	if (out->verdict != KAT_PASS)
		return;
	if (!expected) {
		out->verdict = KAT_NOKAT;
		snprintf(out->reason, sizeof out->reason, "no published vectors to compare with");
		return;
	}
	struct kat_diff d;
	if (kat_compare(expected, produced, copts, &d))
		return;
	out->verdict = KAT_MISMATCH;
	out->record = d.record;
	snprintf(out->field, sizeof out->field, "%s", d.field);
	snprintf(out->reason, sizeof out->reason, "%s", d.what);
}

int kat_judge_manifest(const struct manifest_entry *e, const char *produced_text, size_t len,
                       struct kat_outcome *out, pq_error *err)
{
	if (out->verdict != KAT_PASS)
		return 0;
	if (!e) {
		out->verdict = KAT_NOKAT;
		snprintf(out->reason, sizeof out->reason, "no manifest entry to compare with");
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
		snprintf(out->reason, sizeof out->reason,
		         "%s/%s: %s digest %.16s... differs from the manifest's %.16s...", e->label,
		         e->file, manifest_mode_name(e->mode), actual, want);
	}
	return 0;
}
