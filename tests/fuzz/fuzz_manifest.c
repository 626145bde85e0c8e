/*
 * fuzz_manifest: libFuzzer harness for kat.sha256 manifests and the
 * canonical KAT text they digest (src/kat/manifest.c).
 *
 * Each input is read twice over: as a manifest (manifest_parse, then every
 * entry looked up and written back with manifest_format_line, which must
 * parse to the same entry), and as a KAT file to digest (manifest_digest
 * in strict and nolen mode, whole and limited to 1 and 3 records).  The
 * digest must equal the SHA-256 of manifest_canonical_text, and
 * canonical text must be a fixed point (canonicalising it again in strict
 * mode changes nothing).
 *
 * Built with -DPQ_FUZZ_STANDALONE it replays files instead (see
 * fuzz_replay.h); "make check" runs it over the seed corpus and the
 * regression files.
 */
#include "config.h"
#include "kat/manifest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entries(const struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct manifest_entry *e = &m->entries[i];
		if (!manifest_find(m, e->label, e->file) || !manifest_find(m, NULL, e->file))
			abort();
		char line[MANIFEST_MAX_LINE + 256];
		pq_error err;
		int n = manifest_format_line(e->digest, e->mode, e->records, e->label, e->file, line,
		                             sizeof line, &err);
		if (n < 0) {
			/* The reader accepts a few names the writer refuses
			 * (e.g. a label ending in '/'); that is allowed. */
			if (!err.msg[0])
				abort();
			continue;
		}
		struct manifest back;
		if (manifest_parse(line, (size_t)n, "round-trip", &back, &err) < 0 || back.n != 1)
			abort();
		const struct manifest_entry *b = &back.entries[0];
		if (memcmp(b->digest, e->digest, 32) != 0 || b->mode != e->mode ||
		    b->records != e->records || strcmp(b->label, e->label) != 0 ||
		    strcmp(b->file, e->file) != 0)
			abort();
		manifest_free(&back);
	}
}

static void check_digests(const char *buf, size_t len)
{
	static const size_t limits[] = { 0, 1, 3 };
	for (int mode = MANIFEST_STRICT; mode <= MANIFEST_NOLEN; mode++) {
		for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
			uint8_t d[32], d2[32];
			pq_error err;
			if (manifest_digest(buf, len, mode, limits[l], d, &err) < 0) {
				if (!err.msg[0])
					abort();
				continue;
			}
			char *text;
			size_t tlen;
			if (manifest_canonical_text(buf, len, mode, limits[l], &text, &tlen, &err) < 0)
				continue;
			if (strlen(text) > tlen)
				abort();
			/* Canonical text is its own canonical form, with the same digest. */
			if (manifest_digest(text, tlen, MANIFEST_STRICT, 0, d2, &err) < 0 ||
			    memcmp(d, d2, 32) != 0)
				abort();
			struct manifest_entry e;
			memset(&e, 0, sizeof e);
			memcpy(e.digest, d, 32);
			e.mode = mode;
			e.records = limits[l];
			char hex[65];
			if (manifest_verify_buffer(&e, buf, len, hex, &err) != 1 || strlen(hex) != 64)
				abort();
			free(text);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct manifest m;
	pq_error err;
	pq_error_clear(&err);
	if (manifest_parse(buf, size, "fuzz.sha256", &m, &err) < 0) {
		if (!err.msg[0] || m.n || m.entries)
			abort();
	} else {
		check_entries(&m);
		manifest_free(&m);
	}
	check_digests(buf, size);
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "manifest"
#include "fuzz_replay.h"
#endif
