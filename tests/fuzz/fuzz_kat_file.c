/*
 * fuzz_kat_file: libFuzzer harness for the KAT vector file reader
 * (src/kat/kat_file.c): NIST PQCsignKAT/PQCkemKAT .rsp and NGCC
 * KAT_SIG/KAT_KEM text.
 *
 * Each input is parsed five times: with the flavour detected from the
 * content, then forced to each of the four flavours, so one corpus reaches
 * every schema.  A file that parses must also compare equal to itself
 * (in every kat_compare mode) and survive a format -> parse round trip
 * unchanged.  Every failure must carry a message.
 *
 * Built with -DPQ_FUZZ_STANDALONE it has its own main() that replays the
 * files and directories named on the command line (default: the seed
 * corpus and the regression files under $top_srcdir/tests/fuzz/), which is
 * how "make check" runs it under gcc without libFuzzer.  Not a unit test of
 * the format's meaning (tests/test_kat.c is): it only asks that nothing
 * crashes, leaks, reads out of bounds or contradicts itself.
 */
#include "config.h"
#include "kat/kat_file.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_self_compare(const struct kat_file *f)
{
	struct kat_diff d;
	struct kat_compare_opts modes[] = {
		{ 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 2, 1 },
	};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (kat_compare(f, f, &modes[i], &d) != 1)
			abort();   /* a file must match itself */
}

/* format -> parse must give back a file equal to the one formatted. */
static void check_round_trip(const struct kat_file *f)
{
	char *text;
	size_t len;
	pq_error err;
	if (kat_file_format(f, &text, &len, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	struct kat_read_opts o = { 0, 0, f->flavour };
	struct kat_file g;
	if (kat_file_parse(text, len, "round-trip", &o, &g, &err) < 0)
		abort();   /* the writer produced text its own reader rejects */
	struct kat_diff d;
	if (kat_compare(f, &g, NULL, &d) != 1 || kat_compare(&g, f, NULL, &d) != 1)
		abort();
	kat_file_free(&g);
	free(text);
}

static void parse_as(const uint8_t *data, size_t size, enum kat_flavour fl, const char *path)
{
	struct kat_read_opts o = { 0, 64, fl };   /* few records: keeps runs fast */
	struct kat_file f;
	pq_error err;
	pq_error_clear(&err);
	if (kat_file_parse((const char *)data, size, path, &o, &f, &err) < 0) {
		if (!err.msg[0] || f.nrecords || f.records || f.name)
			abort();   /* failures need a message and leave *f empty */
		return;
	}
	if (fl != KAT_FLAVOUR_UNKNOWN && f.flavour != fl)
		abort();
	/* Touch every field the reader filled. */
	volatile size_t acc = f.name ? strlen(f.name) : 0;
	for (size_t i = 0; i < f.nrecords; i++) {
		const struct kat_record *r = &f.records[i];
		for (size_t j = 0; j < r->nfields; j++) {
			const struct kat_field *fd = &r->fields[j];
			acc += strlen(fd->name) + (fd->text ? strlen(fd->text) : 0);
			for (size_t k = 0; k < fd->len; k++)
				acc += fd->bytes[k];
			size_t blen;
			if (kat_record_bytes(r, fd->name, &blen) && fd->kind != KAT_VALUE_HEX)
				abort();
		}
	}
	(void)acc;
	check_self_compare(&f);
	check_round_trip(&f);
	kat_file_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_as(data, size, KAT_FLAVOUR_UNKNOWN, "fuzz.txt");
	parse_as(data, size, KAT_NIST_SIG, "PQCsignKAT_fuzz.rsp");
	parse_as(data, size, KAT_NIST_KEM, "PQCkemKAT_fuzz.rsp");
	parse_as(data, size, KAT_NGCC_SIG, "KAT_SIG_fuzz.txt");
	parse_as(data, size, KAT_NGCC_KEM, "KAT_KEM_fuzz.txt");
	(void)kat_flavour_detect("KAT_KEM_x.txt", (const char *)data, size);
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "kat_file"
#include "fuzz_replay.h"
#endif
