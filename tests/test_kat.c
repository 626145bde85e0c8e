/*
 * test_kat: Check suite for src/kat: the NIST CTR_DRBG and ICCS SM3 DRNG
 * against published draws, the KAT file reader (well-formed and hostile
 * input), writer round trips, kat_compare, kat.sha256 canonicalisation and
 * manifests, and the KAT engine driven by toy instances defined here
 * (honest ones and ones that overflow, lie about lengths, ignore the DRNG
 * or accept forgeries).  Not a test of real schemes (see tests/e2e).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "kat/ctr_drbg.h"
#include "kat/kat_engine.h"
#include "kat/kat_file.h"
#include "kat/kat_forensics.h"
#include "kat/kat_locate.h"
#include "kat/kat_verdict.h"
#include "kat/manifest.h"
#include "kat/sm3_drng.h"

/* ---- helpers ---------------------------------------------------------------- */

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static void sha256(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	EVP_DigestUpdate(c, a, alen);
	if (blen)
		EVP_DigestUpdate(c, b, blen);
	EVP_DigestFinal_ex(c, out, NULL);
	EVP_MD_CTX_free(c);
}

static void ck_bytes_hex(const uint8_t *b, size_t n, const char *hex)
{
	uint8_t want[512];
	size_t wn = unhex(hex, want);
	ck_assert_uint_eq(n, wn);
	ck_assert_mem_eq(b, want, n);
}

/* Published draws (shared/vectors/README.md). */
static const char *const NIST_SEED0 =
	"061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1";
static const char *const NIST_MSG0 = "D81C4D8D734FCBFBEADE3D3F8A039FAA2A2C9957E835AD55B22E75BF57BB556AC8";
static const char *const NIST_SEED1 =
	"64335BF29E5DE62842C941766BA129B0643B5E7121CA26CFC190EC7DC3543830557FDD5C03CF123A456D48EFEA43C868";
static const char *const NIST_MSG1 =
	"225D5CE2CEAC61930A07503FB59F7C2F936A3E075481DA3CA299A80F8C5DF9223A073E7B90E02EBF98CA2227EBA38C1A"
	"B2568209E46DBA961869C6F83983B17DCD49";
static const char *const NGCC_SEED0 =
	"927F06B594798A4DDFAA4F03F92AAAF04E1D453F6ED1DE19B86D3AADE048A654"
	"83DF4754049B5CD3F586406CF2C64875C51EDB576DF342B5A970F40EABC15D3C";
static const char *const NGCC_M0 =
	"EE402D1730D0117B9F51BE0672592FCEC438A2945A81F5D894B869DC863CCBF57E5C8E7766D74E27E965235CD91E5E30E5583167053E1014";
static const char *const NGCC_SEED1 =
	"58561187CBBF6CDC0ECFB2D25965F936BE05AA961542D0E23E4ADFA8B6D0E3FD"
	"C043ED72AC1C28F03CF831FBB6A8BC6DB9EE0475520EE8578B1970E407EE0352";
static const char *const NGCC_M1 =
	"6DF5638F60C9EAF3BCE1FD75D0A5393F6F39081F9144EB9FFE7C1CFF856F0D83"
	"7AA3875266C7DA4EDAAE698D03BCB00ED8135C427849A0FE07257A9E32E087E6";

/* ---- generators ------------------------------------------------------------ */

START_TEST(test_ctr_drbg_published)
{
	uint8_t ent[48], b[66];
	for (int i = 0; i < 48; i++)
		ent[i] = (uint8_t)i;
	ctr_drbg d;
	ck_assert_int_eq(ctr_drbg_init(&d, ent, NULL), 0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 48), 0);
	ck_bytes_hex(b, 48, NIST_SEED0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 33), 0);
	ck_bytes_hex(b, 33, NIST_MSG0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 48), 0);
	ck_bytes_hex(b, 48, NIST_SEED1);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 66), 0);
	ck_bytes_hex(b, 66, NIST_MSG1);

	/* A personalization string of zeros changes nothing; a non-zero one does. */
	uint8_t pers[48] = {0};
	ck_assert_int_eq(ctr_drbg_init(&d, ent, pers), 0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 48), 0);
	ck_bytes_hex(b, 48, NIST_SEED0);
	pers[0] = 1;
	ck_assert_int_eq(ctr_drbg_init(&d, ent, pers), 0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 48), 0);
	uint8_t s0[48];
	unhex(NIST_SEED0, s0);
	ck_assert(memcmp(b, s0, 48) != 0);

	ctr_drbg fresh;
	memset(&fresh, 0, sizeof fresh);
	ck_assert_int_lt(ctr_drbg_generate(&fresh, b, 1), 0);
	ck_assert_int_eq(ctr_drbg_generate(&d, b, 0), 0);
}
END_TEST

START_TEST(test_sm3_drng_published)
{
	uint8_t s[64], m[64], b[64];
	for (int i = 0; i < 64; i++) {
		s[i] = (uint8_t)"seed"[i % 4];
		m[i] = (uint8_t)"msg"[i % 3];
	}
	m[63] = 'm';
	sm3_drng ds, dm;
	ck_assert_int_eq(sm3_drng_init(&ds, s, 64), 0);
	ck_assert_int_eq(sm3_drng_init(&dm, m, 64), 0);
	ck_assert_int_eq(sm3_drng_generate_bits(&ds, b, 512), 0);
	ck_bytes_hex(b, 64, NGCC_SEED0);
	ck_assert_int_eq(sm3_drng_generate_bits(&dm, b, 56 * 8), 0);
	ck_bytes_hex(b, 56, NGCC_M0);
	ck_assert_int_eq(sm3_drng_generate_bits(&ds, b, 512), 0);
	ck_bytes_hex(b, 64, NGCC_SEED1);
	ck_assert_int_eq(sm3_drng_generate_bits(&dm, b, 64 * 8), 0);
	ck_bytes_hex(b, 64, NGCC_M1);
}
END_TEST

START_TEST(test_sm3_drng_bits)
{
	/* A 13-bit draw is the 16-bit draw with the low 3 bits cleared. */
	uint8_t seed[5] = {1, 2, 3, 4, 5}, a[2], b[2];
	sm3_drng d1, d2;
	sm3_drng_init(&d1, seed, 5);
	sm3_drng_init(&d2, seed, 5);
	ck_assert_int_eq(sm3_drng_generate_bits(&d1, a, 13), 0);
	ck_assert_int_eq(sm3_drng_generate_bits(&d2, b, 16), 0);
	ck_assert_uint_eq(a[0], b[0]);
	ck_assert_uint_eq(a[1], b[1] & 0xF8);
	/* Both advanced the state the same way. */
	ck_assert_mem_eq(d1.v, d2.v, SM3_DRNG_SEEDLEN);
	/* Multi-block output is prefix-consistent within one call. */
	uint8_t big[100], small[40];
	sm3_drng_init(&d1, seed, 5);
	sm3_drng_init(&d2, seed, 5);
	sm3_drng_generate_bits(&d1, big, 800);
	sm3_drng_generate_bits(&d2, small, 320);
	ck_assert_mem_eq(big, small, 40);
	sm3_drng fresh;
	memset(&fresh, 0, sizeof fresh);
	ck_assert_int_lt(sm3_drng_generate_bits(&fresh, big, 8), 0);
}
END_TEST

/* ---- kat_file: well-formed input --------------------------------------------- */

static const char NIST_OK[] =
	"# TOY-SIG\n"
	"\n"
	"count = 0\n"
	"seed = 00112233\n"
	"mlen = 3\n"
	"msg = ABCDEF\n"
	"pk = 0102\n"
	"sk = 0304\n"
	"smlen = 6\n"
	"sm = 0A0B0CABCDEF\n"
	"\n"
	"count = 1\n"
	"seed = 44556677\n"
	"mlen = 1\n"
	"msg = 99\n"
	"pk = 0102\n"
	"sk = 0304\n"
	"smlen = 2\n"
	"sm = 1199\n"
	"\n";

START_TEST(test_parse_nist_roundtrip)
{
	struct kat_file f;
	pq_error err;
	ck_assert_int_eq(kat_file_parse(NIST_OK, strlen(NIST_OK), "t.rsp", NULL, &f, &err), 0);
	ck_assert_int_eq(f.flavour, KAT_NIST_SIG);
	ck_assert_str_eq(f.name, "TOY-SIG");
	ck_assert_uint_eq(f.nrecords, 2);
	size_t n;
	const uint8_t *sm = kat_record_bytes(&f.records[0], "sm", &n);
	ck_assert_ptr_nonnull(sm);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(sm[5], 0xEF);
	uint64_t v;
	ck_assert_int_eq(kat_record_int(&f.records[1], "mlen", &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(kat_record_int(&f.records[1], "msg", &v), -1);
	ck_assert_ptr_null(kat_record_bytes(&f.records[1], "nosuch", &n));
	const struct kat_field *fd = kat_record_field(&f.records[1], "seed");
	ck_assert_str_eq(fd->text, "44556677");
	ck_assert_int_eq(fd->line, 13);

	char *out;
	size_t len;
	ck_assert_int_eq(kat_file_format(&f, &out, &len, &err), 0);
	ck_assert_uint_eq(len, strlen(NIST_OK));
	ck_assert_str_eq(out, NIST_OK);
	free(out);
	kat_file_free(&f);

	/* Lower-case hex in, upper-case hex out. */
	const char *lower = "count = 0\nseed = ab\npk = cd\nsk = ef\nct = 0a\nss = 0b\n\n";
	ck_assert_int_eq(kat_file_parse(lower, strlen(lower), "PQCkemKAT_1.rsp", NULL, &f, &err), 0);
	ck_assert_int_eq(f.flavour, KAT_NIST_KEM);
	ck_assert_ptr_null(f.name);
	ck_assert_int_eq(kat_file_format(&f, &out, &len, &err), 0);
	ck_assert_str_eq(out, "count = 0\nseed = AB\npk = CD\nsk = EF\nct = 0A\nss = 0B\n\n");
	free(out);
	kat_file_free(&f);
}
END_TEST

static const char NGCC_TEMPLATE[] =
	"Count = 0\r\n"
	"Seed_Len = \r\n"
	"Seed = 0011  \r\n"
	"PK_Len =\r\n"
	"PK = AA\r\n"
	"SK_Len = \t\r\n"
	"SK = BB\r\n"
	"M_Len = \r\n"
	"M = CC\r\n"
	"Sn_Len = \r\n"
	"Sn = DDEE\r\n"
	"\r\n";

START_TEST(test_parse_ngcc_template_crlf)
{
	struct kat_file f;
	pq_error err;
	ck_assert_int_eq(kat_file_parse(NGCC_TEMPLATE, strlen(NGCC_TEMPLATE), "x.txt", NULL, &f, &err), 0);
	ck_assert_int_eq(f.flavour, KAT_NGCC_SIG);
	ck_assert_uint_eq(f.nrecords, 1);
	const struct kat_field *fd = kat_record_field(&f.records[0], "PK_Len");
	ck_assert_int_eq(fd->kind, KAT_VALUE_BLANK);
	size_t n;
	const uint8_t *seed = kat_record_bytes(&f.records[0], "Seed", &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(seed[1], 0x11);
	char *out;
	ck_assert_int_eq(kat_file_format(&f, &out, NULL, &err), 0);
	ck_assert_str_eq(out, "Count = 0\nSeed_Len = \nSeed = 0011\nPK_Len = \nPK = AA\n"
	                      "SK_Len = \nSK = BB\nM_Len = \nM = CC\nSn_Len = \nSn = DDEE\n\n");
	free(out);
	kat_file_free(&f);
}
END_TEST

START_TEST(test_flavour_detect)
{
	ck_assert_int_eq(kat_flavour_detect("a/PQCsignKAT_64.rsp", NULL, 0), KAT_NIST_SIG);
	ck_assert_int_eq(kat_flavour_detect("PQCkemKAT_1632.rsp", NULL, 0), KAT_NIST_KEM);
	ck_assert_int_eq(kat_flavour_detect("x/KAT_SIG_Toy-1.txt", NULL, 0), KAT_NGCC_SIG);
	ck_assert_int_eq(kat_flavour_detect("KAT_KEM_Toy.txt", NULL, 0), KAT_NGCC_KEM);
	ck_assert_int_eq(kat_flavour_detect("notes.txt", NULL, 0), KAT_FLAVOUR_UNKNOWN);
	/* Content wins over a misleading name. */
	const char *kem = "Count = 0\nSeed_Len = 1\nSeed = 00\nPK_Len = 1\nPK = 00\nSK_Len = 1\nSK = 00\nCT_Len = 1\n";
	ck_assert_int_eq(kat_flavour_detect("PQCsignKAT_1.rsp", kem, strlen(kem)), KAT_NGCC_KEM);
	/* Content that does not decide falls back to the name. */
	const char *vague = "count = 0\nseed = 00\n";
	ck_assert_int_eq(kat_flavour_detect("PQCkemKAT_1.rsp", vague, strlen(vague)), KAT_NIST_KEM);
	ck_assert_str_eq(kat_flavour_name(KAT_NGCC_SIG), "ngcc-sig");
}
END_TEST

/* ---- kat_file: hostile input -------------------------------------------------- */

struct bad_case {
	const char *path;
	const char *text;
	const char *want;   /* substring of the error message */
};

static const struct bad_case bad_cases[] = {
	{"t.rsp", "# X\n\ncount = 0\nseed = 00\nmlen = 1\nmsg = 00\npk = 00\n",
	 "t.rsp:7: record 0 is truncated: no 'sk' line"},
	{"t.rsp", "count = 0\nseed = 001\nmlen = 1\n", "t.rsp:2: seed has an odd number of hex digits (3)"},
	{"t.rsp", "count = 0\nseed = 0g\nmlen = 1\n", "t.rsp:2: seed: 'g' at hex digit 2 is not a hex digit"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 99999999999999\nmsg = 000102\npk = 00\nsk = 00\nsmlen = 1\nsm = 00\n",
	 "t.rsp:3: mlen = 99999999999999 but msg has 3 bytes"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 99999999999999999999999\n", "t.rsp:3: mlen: number too large"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 1\npk = 00\n", "t.rsp:4: field 'pk' out of order: expected 'msg'"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 1\nmsg = 00\npk = 00\nsk = 00\nsmlen = 1\nsm = 00\n\n"
	          "count = 2\nseed = 00\nmlen = 1\nmsg = 00\npk = 00\nsk = 00\nsmlen = 1\nsm = 00\n",
	 "t.rsp:10: count = 2, expected 1"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 1\nmsg = 00\npk = 00\nsk = 00\nsmlen = 1\nsm = 00\nfoo = 1\n",
	 "t.rsp:9: unknown field 'foo'"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 1\nmsg = 00\npk = 00\nsk = 00\nsmlen = 1\nsm = 00\nsm = 00\n",
	 "t.rsp:9: 'sm' after the end of record 0"},
	{"PQCsignKAT_1.rsp", "seed = 00\ncount = 0\n", "PQCsignKAT_1.rsp:1: 'seed' outside a record"},
	{"PQCsignKAT_1.rsp", "count = 0\nseed = 00\nthis is not a field\n", "PQCsignKAT_1.rsp:3: expected 'name = value'"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = \n", "t.rsp:3: mlen has no value"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = 1x\n", "t.rsp:3: mlen: 'x' is not a decimal digit"},
	{"t.rsp", "count = 0\nseed = 00\nmlen = -1\n", "t.rsp:3: mlen: '-' is not a decimal digit"},
	{"PQCsignKAT_1.rsp", "count = 0\nseed = 00\n# late comment\n", "PQCsignKAT_1.rsp:3: comment line inside the records"},
	{"t.rsp", "", "t.rsp: not a KAT file pqprof knows"},
	{"PQCsignKAT_1.rsp", "\n\n\n", "PQCsignKAT_1.rsp:3: no records"},
	{"t.txt", "Count = 0\nSeed_Len = 2\nSeed = 0011\nPK_Len = 5\nPK = 00112233\nSK_Len = 1\nSK = 00\n"
	          "M_Len = 1\nM = 00\nSn_Len = 1\nSn = 00\n",
	 "t.txt:4: PK_Len = 5 but PK has 4 bytes"},
	{"t.txt", "Count = 0\nSeed_Len = 2\nSeed = 0011\nPK_Len = 1\nPK = 00\nSK_Len = 1\nSK = 00\nCT_Len = 1\n"
	          "CT = 00\nSS_Len = 1\nSS = 0\n", "t.txt:11: SS has an odd number of hex digits (1)"},
	{"t.txt", "Count = 0\nSeed_Len = 1\nSeed = 00\nPK_Len = 1\nPK = 00\nSK_Len = 1\nSK = 00\nM_Len = 1\nM = 00\n"
	          "Sn_Len = 1\nSn = 00\n\nCount = 1\nSeed_Len = 1\nSeed = 00\n",
	 "t.txt:15: record 1 is truncated: no 'PK_Len' line"},
	{"t.txt", "Count = 0\nSeed_Len = 1\nSeed = 00\nPK_Len = 1\nPK = 00\nSK_Len = 1\nSK = 00\nM_Len = 1\nM = 00\n"
	          "Sn_Len = 1\nSn = 00\nVeryLongFieldNameIndeed = 1\n",
	 "t.txt:12: unknown field 'VeryLongFieldNam...'"},
	{"PQCsignKAT_1.rsp", "count = 0\nseed = 0\x01\n", "PQCsignKAT_1.rsp:2: seed: 0x01 at hex digit 2 is not a hex digit"},
};

START_TEST(test_parse_bad)
{
	const struct bad_case *c = &bad_cases[_i];
	struct kat_file f;
	pq_error err;
	memset(&err, 0, sizeof err);
	int rc = kat_file_parse(c->text, strlen(c->text), c->path, NULL, &f, &err);
	ck_assert_int_lt(rc, 0);
	ck_assert_msg(strstr(err.msg, c->want) != NULL, "case %d: got '%s', want '%s'", _i, err.msg,
	              c->want);
	ck_assert_uint_eq(f.nrecords, 0);
	ck_assert_ptr_null(f.records);
}
END_TEST

START_TEST(test_parse_caps)
{
	struct kat_file f;
	pq_error err;
	struct kat_read_opts o = {.max_bytes = 16};
	ck_assert_int_lt(kat_file_parse(NIST_OK, strlen(NIST_OK), "big.rsp", &o, &f, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "big.rsp: larger than 16 bytes"));
	struct kat_read_opts o2 = {.max_records = 1};
	ck_assert_int_lt(kat_file_parse(NIST_OK, strlen(NIST_OK), "t.rsp", &o2, &f, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "t.rsp:12: more than 1 records"));
	/* A forced flavour overrides detection. */
	struct kat_read_opts o3 = {.flavour = KAT_NGCC_SIG};
	ck_assert_int_lt(kat_file_parse(NIST_OK, strlen(NIST_OK), "t.rsp", &o3, &f, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown field 'count' in a NGCC KAT_SIG file"));
	/* Missing file. */
	ck_assert_int_lt(kat_file_read("/nonexistent/PQCsignKAT_1.rsp", NULL, &f, &err), 0);
}
END_TEST

/* Mutate a valid file many ways: every result parses or fails cleanly. */
START_TEST(test_parse_mutations)
{
	size_t n = strlen(NIST_OK);
	char *buf = malloc(n + 1);
	unsigned seed = 12345;
	int ok = 0, bad = 0;
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(buf, NIST_OK, n);
		size_t len = n;
		int edits = 1 + iter % 4;
		for (int k = 0; k < edits; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			switch ((seed >> 4) % 4) {
			case 0: buf[at] = (char)(seed >> 16); break;
			case 1: len = at; break;                      /* truncate */
			case 2: buf[at] = '\n'; break;
			default: buf[at] = "0=9 \r#zF"[(seed >> 20) % 8]; break;
			}
			if (len == 0)
				len = 1;
		}
		struct kat_file f;
		pq_error err;
		err.msg[0] = '\0';
		if (kat_file_parse(buf, len, "m.rsp", NULL, &f, &err) == 0) {
			ok++;
			char *out;
			ck_assert_int_eq(kat_file_format(&f, &out, NULL, &err), 0);
			free(out);
			kat_file_free(&f);
		} else {
			bad++;
			ck_assert_msg(strncmp(err.msg, "m.rsp", 5) == 0, "message without file: %s", err.msg);
		}
	}
	ck_assert_int_gt(bad, 0);
	free(buf);
}
END_TEST

START_TEST(test_read_fixture_files)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	struct kat_file f;
	pq_error err;
	snprintf(path, sizeof path, "%s/tests/data/kat/KAT_SIG_Template-1.txt", top ? top : ".");
	ck_assert_msg(kat_file_read(path, NULL, &f, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(f.flavour, KAT_NGCC_SIG);
	ck_assert_uint_eq(f.nrecords, 2);
	ck_assert_int_eq(kat_record_field(&f.records[1], "Sn_Len")->kind, KAT_VALUE_BLANK);
	kat_file_free(&f);
	snprintf(path, sizeof path, "%s/tests/data/kat/PQCsignKAT_truncated.rsp", top ? top : ".");
	ck_assert_int_lt(kat_file_read(path, NULL, &f, &err), 0);
	ck_assert_msg(strstr(err.msg, "PQCsignKAT_truncated.rsp:14: record 1 is truncated: no 'msg' line"),
	              "%s", err.msg);
}
END_TEST

/* ---- kat_compare ----------------------------------------------------------------- */

static void build_sig_file(struct kat_file *f, size_t n)
{
	kat_file_init(f, KAT_NGCC_SIG, NULL);
	for (size_t i = 0; i < n; i++) {
		struct kat_record *r = kat_file_add_record(f);
		uint8_t b[40];
		for (int k = 0; k < 40; k++)
			b[k] = (uint8_t)(i * 7 + k);
		kat_record_add_int(r, "Count", i);
		kat_record_add_int(r, "Seed_Len", 8);
		kat_record_add_bytes(r, "Seed", b, 8);
		kat_record_add_int(r, "PK_Len", 32);
		kat_record_add_bytes(r, "PK", b, 32);
		kat_record_add_int(r, "SK_Len", 40);
		kat_record_add_bytes(r, "SK", b, 40);
		kat_record_add_int(r, "M_Len", 4);
		kat_record_add_bytes(r, "M", b, 4);
		kat_record_add_int(r, "Sn_Len", 16);
		kat_record_add_bytes(r, "Sn", b + 3, 16);
	}
}

static struct kat_field *field_mut(struct kat_file *f, size_t rec, const char *name)
{
	return (struct kat_field *)kat_record_field(&f->records[rec], name);
}

START_TEST(test_compare)
{
	struct kat_file a, b;
	struct kat_diff d;
	build_sig_file(&a, 5);
	build_sig_file(&b, 5);
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 1);

	field_mut(&b, 3, "PK")->bytes[17] ^= 0x40;
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 0);
	ck_assert_int_eq(d.record, 3);
	ck_assert_str_eq(d.field, "PK");
	ck_assert_ptr_nonnull(strstr(d.what, "PK differs at byte 17"));
	/* Only the first 3 records: the difference in record 3 is out of scope. */
	struct kat_compare_opts first3 = {.max_records = 3};
	ck_assert_int_eq(kat_compare(&a, &b, &first3, &d), 1);
	field_mut(&b, 3, "PK")->bytes[17] ^= 0x40;

	/* Blank vs numeric Len: strict sees it, nolen does not. */
	struct kat_field *len = field_mut(&b, 1, "SK_Len");
	len->kind = KAT_VALUE_BLANK;
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 0);
	ck_assert_int_eq(d.record, 1);
	ck_assert_str_eq(d.field, "SK_Len");
	ck_assert_ptr_nonnull(strstr(d.what, "expected 40, produced blank"));
	struct kat_compare_opts nolen = {.nolen = 1};
	ck_assert_int_eq(kat_compare(&a, &b, &nolen, &d), 1);
	len->kind = KAT_VALUE_INT;
	len->num = 41;
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 0);
	ck_assert_ptr_nonnull(strstr(d.what, "SK_Len expected 40, produced 41"));
	len->num = 40;

	/* Shorter value with equal prefix. */
	field_mut(&b, 2, "Sn")->len = 10;
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 0);
	ck_assert_int_eq(d.record, 2);
	ck_assert_ptr_nonnull(strstr(d.what, "Sn has 10 bytes, expected 16"));
	field_mut(&b, 2, "Sn")->len = 16;

	/* Missing and extra records. */
	struct kat_file c;
	build_sig_file(&c, 3);
	ck_assert_int_eq(kat_compare(&a, &c, NULL, &d), 0);
	ck_assert_int_eq(d.record, 3);
	ck_assert_ptr_nonnull(strstr(d.what, "record 3 missing"));
	ck_assert_int_eq(kat_compare(&a, &c, &first3, &d), 1);
	ck_assert_int_eq(kat_compare(&c, &a, NULL, &d), 0);
	ck_assert_ptr_nonnull(strstr(d.what, "produced 5 records, expected 3"));

	/* Flavour and name line. */
	c.flavour = KAT_NGCC_KEM;
	ck_assert_int_eq(kat_compare(&a, &c, NULL, &d), 0);
	ck_assert_int_eq(d.record, -1);
	kat_file_free(&c);
	a.name = strdup("A");
	ck_assert_int_eq(kat_compare(&a, &b, NULL, &d), 0);
	ck_assert_str_eq(d.field, "#");
	struct kat_compare_opts noname = {.ignore_name = 1};
	ck_assert_int_eq(kat_compare(&a, &b, &noname, &d), 1);
	kat_file_free(&a);
	kat_file_free(&b);
}
END_TEST

/* ---- kat_locate and the name line ------------------------------------------------ */

/* A NIST signature file of one record: the NIST seed 0, a public key of pklen bytes (byte pkfill), sk of sklen. */
static void nist_one(struct kat_file *f, const char *name, const char *seedhex, size_t pklen, uint8_t pkfill,
                     size_t sklen)
{
	uint8_t seed[48], pk[64], sk[128], msg[33] = { 1 };
	ck_assert_int_eq(kat_file_init(f, KAT_NIST_SIG, name), 0);
	unhex(seedhex, seed);
	memset(pk, pkfill, sizeof pk);
	memset(sk, 7, sizeof sk);
	struct kat_record *r = kat_file_add_record(f);
	ck_assert_ptr_nonnull(r);
	kat_record_add_int(r, "count", 0);
	kat_record_add_bytes(r, "seed", seed, 48);
	kat_record_add_int(r, "mlen", 33);
	kat_record_add_bytes(r, "msg", msg, 33);
	kat_record_add_bytes(r, "pk", pk, pklen);
	kat_record_add_bytes(r, "sk", sk, sklen);
	kat_record_add_int(r, "smlen", 33);
	kat_record_add_bytes(r, "sm", msg, 33);
}

static void write_at(const char *dir, const char *rel, const struct kat_file *f)
{
	char path[4096];
	pq_error err = { 0 };
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	*slash = '/';
	ck_assert_msg(kat_file_write(f, path, &err) == 0, "%s", err.msg);
}

START_TEST(test_locate_by_content)
{
	char dir[] = "/tmp/pqprof-locate.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct kat_file produced, f;
	nist_one(&produced, "Tern-L1", NIST_SEED0, 32, 0xa1, 64);
	/* Decoys: the right sizes after another seed; the right seed with other key sizes; no vectors at all. */
	nist_one(&f, "Tern-L1", NIST_SEED1, 32, 0xa1, 64);
	write_at(dir, "KAT/PQCsignKAT_64.rsp", &f);
	kat_file_free(&f);
	nist_one(&f, "Tern-L3", NIST_SEED0, 48, 0xa1, 96);
	write_at(dir, "KAT/PQCsignKAT_96_Tern_L3.rsp", &f);
	kat_file_free(&f);
	/* The right one under a name no generator writes, and a same-sized file from a broken build. */
	nist_one(&f, "Tern_L1", NIST_SEED0, 32, 0xa1, 64);
	write_at(dir, "Test_Vectors/level-one/vectors.txt", &f);
	kat_file_free(&f);
	nist_one(&f, "Tern-L1", NIST_SEED0, 32, 0x55, 64);
	write_at(dir, "old/kat_output.rsp", &f);
	kat_file_free(&f);
	struct kat_located loc;
	ck_assert_int_eq(kat_locate(dir, &produced, "Tern-L1", &loc), 1);
	ck_assert_msg(strstr(loc.path, "/Test_Vectors/level-one/vectors.txt") != NULL, "%s", loc.path);
	ck_assert_int_eq(loc.candidates, 2);
	ck_assert_int_eq(loc.holds_pk, 1);
	ck_assert_int_eq(loc.names_instance, 1);
	/* A produced key that no file holds (a wrong implementation): the file whose name line names it. */
	kat_file_free(&produced);
	nist_one(&produced, "Tern-L1", NIST_SEED0, 32, 0x33, 64);
	ck_assert_int_eq(kat_locate(dir, &produced, "Tern-L1", &loc), 1);
	ck_assert_int_eq(loc.holds_pk, 0);
	ck_assert_int_eq(loc.names_instance, 1);
	/* Sizes no file has: nothing. */
	kat_file_free(&produced);
	nist_one(&produced, "Tern-L5", NIST_SEED0, 64, 0xa1, 128);
	ck_assert_int_eq(kat_locate(dir, &produced, "Tern-L5", &loc), 0);
	ck_assert(kat_names_agree("Tern_L1", "tern-l1") && !kat_names_agree("Tern-L1", "Tern-L3"));

	/* The name lines alone differ: PASS, with a note quoting both. */
	nist_one(&f, "Tern_L5", NIST_SEED0, 64, 0xa1, 128);
	struct kat_outcome o;
	kat_outcome_init(&o);
	kat_judge(&f, &produced, NULL, &o);
	ck_assert_int_eq(o.verdict, KAT_PASS);
	ck_assert_int_eq(o.nnotes, 1);
	ck_assert_msg(strstr(o.notes[0], "'# Tern_L5' in the file, '# Tern-L5' produced") != NULL, "%s", o.notes[0]);
	/* ...but a record that differs too is a MISMATCH, named by the first difference. */
	kat_file_free(&f);
	nist_one(&f, "Tern_L5", NIST_SEED0, 64, 0xa2, 128);
	kat_outcome_init(&o);
	kat_judge(&f, &produced, NULL, &o);
	ck_assert_int_eq(o.verdict, KAT_MISMATCH);
	kat_file_free(&f);
	kat_file_free(&produced);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- kat_forensics ---------------------------------------------------------------- */

START_TEST(test_forensics_ranges)
{
	char buf[128];
	const long a[] = { 0, 1, 2, 3, 5, 7, 8, 9 };
	ck_assert_str_eq(kat_forensics_ranges(a, 8, buf, sizeof buf), "0\u20133, 5, 7\u20139");
	const long b[] = { 0, 1, 8, 9 };
	ck_assert_str_eq(kat_forensics_ranges(b, 4, buf, sizeof buf), "0, 1, 8, 9");
	ck_assert_str_eq(kat_forensics_ranges(b, 0, buf, sizeof buf), "");
	char small[12];
	const long c[] = { 0, 2, 4, 6, 8, 10, 12 };
	ck_assert_str_eq(kat_forensics_ranges(c, 7, small, sizeof small), "0, 2, \u2026");  /* whole ranges, then more */
}
END_TEST

/* Records 2-7 of the expected file carry a sibling's longer signatures; keys agree. */
START_TEST(test_forensics_splice)
{
	struct kat_file exp, prod;
	build_sig_file(&exp, 10);
	build_sig_file(&prod, 10);
	uint8_t sig[24] = { 1 };
	for (size_t i = 2; i <= 7; i++) {
		struct kat_record *r = &exp.records[i];
		field_mut(&exp, i, "Sn_Len")->num = 24;
		struct kat_field *f = field_mut(&exp, i, "Sn");
		free(f->bytes);
		f->bytes = malloc(24);
		memcpy(f->bytes, sig, 24);
		f->len = 24;
		(void)r;
	}
	struct kat_instance_sizes self = { .name = "L1", .pk = 32, .sk = 40, .sig = 16 };
	struct kat_instance_sizes sib[] = { { .name = "L0", .pk = 32, .sk = 40, .sig = 8 },
	                                    { .name = "L2", .pk = 32, .sk = 40, .sig = 24 } };
	json_t *j = NULL;
	pq_error err = { 0 };
	ck_assert_int_eq(kat_forensics(&exp, &prod, "dir/KAT_SIG_L1.txt", &self, sib, 2, &j, &err), 0);
	const char *t = json_string_value(json_object_get(j, "text"));
	ck_assert_ptr_nonnull(strstr(t, "KAT_SIG_L1.txt: records 2\u20137 (6 of 10) differ; records 0, 1, 8, 9 match."));
	ck_assert_ptr_nonnull(strstr(t, "Sn_Len in 6 records (expected 24; this instance declares 16)"));
	ck_assert_ptr_nonnull(strstr(t, "Records 2\u20137 are L2 records (Sn_Len 24, this instance declares 16)"));
	ck_assert_ptr_nonnull(strstr(t, "public keys and secret keys agree"));
	ck_assert_ptr_nonnull(strstr(t, "seeds follow the harness's seed sequence"));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "sibling"), "name")), "L2");
	ck_assert_int_eq((int)json_array_size(json_object_get(j, "differ")), 6);
	json_decref(j);

	/* Other seeds are named as such; no sibling fits sizes it does not declare. */
	field_mut(&exp, 9, "Seed")->bytes[0] ^= 1;
	ck_assert_int_eq(kat_forensics(&exp, &prod, NULL, &self, sib, 1, &j, &err), 0);
	t = json_string_value(json_object_get(j, "text"));
	ck_assert_ptr_nonnull(strstr(t, "seeds of record 9 do not follow"));
	ck_assert_ptr_null(strstr(t, "mixes two parameter sets"));
	ck_assert(json_is_null(json_object_get(j, "sibling")));
	json_decref(j);
	kat_file_free(&exp);
	kat_file_free(&prod);
}
END_TEST

/* NIST flavour: lengths come from the bytes (sk) and from smlen - mlen (signatures). */
START_TEST(test_forensics_nist)
{
	struct kat_file exp, prod;
	kat_file_init(&exp, KAT_NIST_SIG, NULL);
	kat_file_init(&prod, KAT_NIST_SIG, NULL);
	uint8_t b[64] = { 7 };
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < 4; i++) {
			struct kat_record *r = kat_file_add_record(f ? &exp : &prod);
			size_t sk = f && (i == 1 || i == 2) ? 50 : 40;
			kat_record_add_int(r, "count", i);
			kat_record_add_bytes(r, "seed", b, 48);
			kat_record_add_int(r, "mlen", 4);
			kat_record_add_bytes(r, "msg", b, 4);
			kat_record_add_bytes(r, "pk", b, 16);
			kat_record_add_bytes(r, "sk", b, sk);
			kat_record_add_int(r, "smlen", 24);
			kat_record_add_bytes(r, "sm", b, 24);
		}
	struct kat_instance_sizes self = { .name = "N3", .pk = 16, .sk = 40, .sig = 20 };
	struct kat_instance_sizes sib = { .name = "N2", .pk = 16, .sk = 50, .sig = 20 };
	json_t *j = NULL;
	pq_error err = { 0 };
	ck_assert_int_eq(kat_forensics(&exp, &prod, "PQCsignKAT_40.rsp", &self, &sib, 1, &j, &err), 0);
	const char *t = json_string_value(json_object_get(j, "text"));
	ck_assert_ptr_nonnull(strstr(t, "records 1, 2 (2 of 4) differ; records 0, 3 match."));
	ck_assert_ptr_nonnull(strstr(t, "sk in 2 records (expected 50; this instance declares 40)"));
	ck_assert_ptr_nonnull(strstr(t, "Records 1, 2 are N2 records (sk 50, this instance declares 40)"));
	ck_assert_ptr_nonnull(strstr(t, "public keys and signatures agree"));
	json_decref(j);
	kat_file_free(&exp);
	kat_file_free(&prod);
}
END_TEST

START_TEST(test_write_atomic)
{
	struct kat_file a, b;
	pq_error err;
	build_sig_file(&a, 2);
	char path[] = "/tmp/test_kat_XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	ck_assert_int_eq(kat_file_write(&a, path, &err), 0);
	ck_assert_int_eq(kat_file_read(path, NULL, &b, &err), 0);   /* flavour from content */
	ck_assert_int_eq(b.flavour, KAT_NGCC_SIG);
	ck_assert_int_eq(kat_compare(&a, &b, NULL, NULL), 1);
	unlink(path);
	kat_file_free(&a);
	kat_file_free(&b);
}
END_TEST

/* ---- manifests -------------------------------------------------------------------- */

static const char CANON_IN[] =
	"# TOY\r\n"
	"\r\n"
	"count = 0  \r\n"
	"seed = AB\t\n"
	"\n"
	"count = 1\n"
	"seed = CD\n"
	"\n";

static const char NGCC_IN[] =
	"Count = 0\n"
	"Seed_Len = 1\n"
	"Seed = AA\n"
	"PK_Len =   \n"
	"PK = BB\n"
	"\n"
	"Count = 1\n"
	"Seed_Len = 1\n"
	"Seed = CC\n"
	"PK_Len = 1\n"
	"PK = DD\n"
	"X_Lenx = 3\n"
	" Y_Len = 4\n";

START_TEST(test_canonical_text)
{
	char *t;
	size_t n;
	pq_error err;
	ck_assert_int_eq(manifest_canonical_text(CANON_IN, strlen(CANON_IN), MANIFEST_STRICT, 0, &t, &n, &err), 0);
	ck_assert_str_eq(t, "# TOY\ncount = 0\nseed = AB\ncount = 1\nseed = CD\n");
	ck_assert_uint_eq(n, strlen(t));
	free(t);
	ck_assert_int_eq(manifest_canonical_text(CANON_IN, strlen(CANON_IN), MANIFEST_STRICT, 1, &t, &n, &err), 0);
	ck_assert_str_eq(t, "# TOY\ncount = 0\nseed = AB\n");
	free(t);
	ck_assert_int_eq(manifest_canonical_text(NGCC_IN, strlen(NGCC_IN), MANIFEST_NOLEN, 0, &t, &n, &err), 0);
	ck_assert_str_eq(t, "Count = 0\nSeed = AA\nPK = BB\nCount = 1\nSeed = CC\nPK = DD\n"
	                    "X_Lenx = 3\n Y_Len = 4\n");
	free(t);
	ck_assert_int_eq(manifest_canonical_text("", 0, MANIFEST_STRICT, 0, &t, &n, &err), 0);
	ck_assert_str_eq(t, "");
	free(t);
}
END_TEST

START_TEST(test_canonical_digests)
{
	/* Digests checked by hand: printf '<canonical text>' | sha256sum */
	struct {
		const char *in;
		enum manifest_mode mode;
		size_t records;
		const char *hex;
	} cases[] = {
		/* "# TOY\ncount = 0\nseed = AB\ncount = 1\nseed = CD\n" */
		{CANON_IN, MANIFEST_STRICT, 0, "829d23e5335b08ad5912aee137d01d6599cf6154f082364c502d4a4432399056"},
		/* "# TOY\ncount = 0\nseed = AB\n" */
		{CANON_IN, MANIFEST_STRICT, 1, "e60d65add69929afd444bdb6b6802aa24c91c3fc5021dc05c7c229f10900d06a"},
		/* "Count = 0\nSeed = AA\nPK = BB\nCount = 1\nSeed = CC\nPK = DD\nX_Lenx = 3\n Y_Len = 4\n" */
		{NGCC_IN, MANIFEST_NOLEN, 0, "5898d9b1b9951e2a88caeb17241bdf8285c6e2d840c2478d31df7d4c88fed618"},
		/* "Count = 0\nSeed = AA\nPK = BB\n" */
		{NGCC_IN, MANIFEST_NOLEN, 1, "94abb1057e761e99c0f356ae59b32d437193884b410a7eb9b6def64029ffe760"},
		/* "" */
		{"\r\n \n", MANIFEST_STRICT, 0,
		 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t d[32];
		char hex[65];
		pq_error err;
		ck_assert_int_eq(manifest_digest(cases[i].in, strlen(cases[i].in), cases[i].mode,
		                                 cases[i].records, d, &err), 0);
		hex_encode(d, 32, hex);
		ck_assert_msg(strcmp(hex, cases[i].hex) == 0, "case %zu: %s", i, hex);
	}
}
END_TEST

START_TEST(test_manifest_parse)
{
	const char *text =
		"# published by someone\n"
		"\n"
		"0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789abcdef strict toy/PQCsignKAT_64.rsp\r\n"
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\tnolen:3   toy-2/KAT_SIG_Toy 2.txt  \n"
		"0000000000000000000000000000000000000000000000000000000000000000 strict:100 a/b/c.rsp";
	struct manifest m;
	pq_error err;
	ck_assert_int_eq(manifest_parse(text, strlen(text), "kat.sha256", &m, &err), 0);
	ck_assert_uint_eq(m.n, 3);
	ck_assert_int_eq(m.entries[0].mode, MANIFEST_STRICT);
	ck_assert_uint_eq(m.entries[0].records, 0);
	ck_assert_str_eq(m.entries[0].label, "toy");
	ck_assert_str_eq(m.entries[0].file, "PQCsignKAT_64.rsp");
	ck_assert_uint_eq(m.entries[0].digest[8], 0x01);
	ck_assert_int_eq(m.entries[0].line, 3);
	ck_assert_int_eq(m.entries[1].mode, MANIFEST_NOLEN);
	ck_assert_uint_eq(m.entries[1].records, 3);
	ck_assert_str_eq(m.entries[1].file, "KAT_SIG_Toy 2.txt");
	ck_assert_str_eq(m.entries[2].label, "a/b");
	ck_assert_uint_eq(m.entries[2].records, 100);
	ck_assert_ptr_eq(manifest_find(&m, "toy-2", "KAT_SIG_Toy 2.txt"), &m.entries[1]);
	ck_assert_ptr_eq(manifest_find(&m, NULL, "c.rsp"), &m.entries[2]);
	ck_assert_ptr_null(manifest_find(&m, "other", "c.rsp"));

	/* Format a line and read it back. */
	char line[512];
	int n = manifest_format_line(m.entries[1].digest, MANIFEST_NOLEN, 3, "toy-2", "KAT_SIG_Toy 2.txt",
	                             line, sizeof line, &err);
	ck_assert_int_gt(n, 0);
	ck_assert_str_eq(line, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff nolen:3 "
	                       "toy-2/KAT_SIG_Toy 2.txt\n");
	struct manifest m2;
	ck_assert_int_eq(manifest_parse(line, (size_t)n, NULL, &m2, &err), 0);
	ck_assert_mem_eq(m2.entries[0].digest, m.entries[1].digest, 32);
	ck_assert_int_lt(manifest_format_line(m.entries[0].digest, MANIFEST_STRICT, 0, "x", "a/b",
	                                      line, sizeof line, &err), 0);
	ck_assert_int_lt(manifest_format_line(m.entries[0].digest, MANIFEST_STRICT, 0, "x", "f\n",
	                                      line, sizeof line, &err), 0);
	ck_assert_int_lt(manifest_format_line(m.entries[0].digest, MANIFEST_STRICT, 0, "x", "f",
	                                      line, 20, &err), 0);
	manifest_free(&m2);
	manifest_free(&m);
}
END_TEST

static const struct bad_case bad_manifests[] = {
	{"k", "0123 strict a/b\n", "k:1: expected a 64-digit sha256, found 4 characters"},
	{"k", "\n0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg strict a/b\n",
	 "k:2: sha256 has a non-hex digit at 64"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef loose a/b\n",
	 "k:1: mode 'loose' is neither strict nor nolen"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict:0 a/b\n",
	 "k:1: record count must be at least 1"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict: a/b\n",
	 "k:1: no record count after ':'"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef nolen:1x a/b\n",
	 "k:1: record count is not a decimal number"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef nolen:99999999999999999999 a/b\n",
	 "k:1: record count larger than"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict\n",
	 "k:1: no <label>/<file> after the mode"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict file.rsp\n",
	 "k:1: expected <label>/<file>"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict label/\n",
	 "k:1: expected <label>/<file>"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
	 "k:1: no mode after the digest"},
	{"k", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef strict a/b\x01\n",
	 "k:1: control character in the file name"},
};

START_TEST(test_manifest_bad)
{
	const struct bad_case *c = &bad_manifests[_i];
	struct manifest m;
	pq_error err;
	ck_assert_int_lt(manifest_parse(c->text, strlen(c->text), c->path, &m, &err), 0);
	ck_assert_msg(strstr(err.msg, c->want) != NULL, "case %d: got '%s'", _i, err.msg);
	ck_assert_uint_eq(m.n, 0);
}
END_TEST

START_TEST(test_manifest_long_line)
{
	char *text = malloc(10000);
	memset(text, 'a', 9999);
	text[9999] = '\0';
	struct manifest m;
	pq_error err;
	ck_assert_int_lt(manifest_parse(text, 9999, "k", &m, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "k:1: line longer than"));
	free(text);
}
END_TEST

START_TEST(test_manifest_verify)
{
	uint8_t d[32];
	pq_error err;
	ck_assert_int_eq(manifest_digest(NIST_OK, strlen(NIST_OK), MANIFEST_STRICT, 1, d, &err), 0);
	char line[512];
	int n = manifest_format_line(d, MANIFEST_STRICT, 1, "toy", "PQCsignKAT_2.rsp", line,
	                             sizeof line, &err);
	struct manifest m;
	ck_assert_int_eq(manifest_parse(line, (size_t)n, "kat.sha256", &m, &err), 0);
	char hex[65];
	ck_assert_int_eq(manifest_verify_buffer(&m.entries[0], NIST_OK, strlen(NIST_OK), hex, &err), 1);
	/* Record 1 is outside :1, so changing it keeps the digest. */
	char *copy = strdup(NIST_OK);
	char *p = strstr(copy, "sm = 1199");
	p[5] = '2';
	ck_assert_int_eq(manifest_verify_buffer(&m.entries[0], copy, strlen(copy), hex, &err), 1);
	p = strstr(copy, "pk = 0102");
	p[6] = '9';
	ck_assert_int_eq(manifest_verify_buffer(&m.entries[0], copy, strlen(copy), hex, &err), 0);
	/* CRLF line ends and trailing blanks do not matter. */
	const char *crlf = "# TOY-SIG  \r\n\r\ncount = 0\r\nseed = 00112233\r\nmlen = 3\r\nmsg = ABCDEF\r\n"
	                   "pk = 0102 \r\nsk = 0304\r\nsmlen = 6\r\nsm = 0A0B0CABCDEF\r\n\r\ncount = 1\r\n";
	ck_assert_int_eq(manifest_verify_buffer(&m.entries[0], crlf, strlen(crlf), hex, &err), 1);
	free(copy);
	manifest_free(&m);

	const char *top = getenv("top_srcdir");
	char path[4096], kpath[4096];
	snprintf(kpath, sizeof kpath, "%s/tests/data/kat/kat.sha256", top ? top : ".");
	ck_assert_msg(manifest_read(kpath, &m, &err) == 0, "%s", err.msg);
	const struct manifest_entry *e = manifest_find(&m, "template", "KAT_SIG_Template-1.txt");
	ck_assert_ptr_nonnull(e);
	snprintf(path, sizeof path, "%s/tests/data/kat/KAT_SIG_Template-1.txt", top ? top : ".");
	ck_assert_int_eq(manifest_verify_file(e, path, hex, &err), 1);
	manifest_free(&m);
}
END_TEST

/* ---- toy instances for the engine ---------------------------------------------------- */

enum toy_mode {
	TOY_GOOD,
	TOY_OVERFLOW_SLACK,   /* sign writes one byte past the declared signature size */
	TOY_OVERFLOW_GUARD,   /* sign writes into the guard page */
	TOY_UNDERFLOW,        /* sign writes one byte before the signature buffer */
	TOY_LIE_LEN,          /* keygen claims a 70-byte sk (declared 64) */
	TOY_IGNORE_DRNG,      /* keygen uses a constant key */
	TOY_FORGE,            /* verify accepts anything */
	TOY_SIGN_FAIL,        /* sign returns -7 on record 2 */
	TOY_KEM_CT_IGNORED,   /* ss does not depend on ct */
	TOY_KEM_BAD_DEC,      /* dec derives a different ss */
	TOY_WILD_SEGV,        /* sign dereferences NULL: a crash, not an overflow */
};

#define TOY_PK 32
#define TOY_SK 64
#define TOY_SIG 36   /* declared; the toy writes 32 bytes: room for slack canaries */

static enum toy_mode toy_mode;
static volatile uintptr_t toy_wild_addr = 8;   /* volatile: the compiler cannot see it is NULL+8 */
static int toy_api;
static int toy_calls;
static sm3_drng toy_drng;   /* the toy's drng_algorithm */
static pqprof_rng_fn toy_rng;

static void toy_random(unsigned char *out, size_t n)
{
	if (toy_api == PQPROF_API_NIST)
		toy_rng(out, n);
	else
		sm3_drng_generate_bits(&toy_drng, out, (uint64_t)n * 8);
}

static void toy_sizes(struct pqprof_sizes *s)
{
	s->pk = TOY_PK;
	s->sk = TOY_SK;
	s->sig = toy_api == PQPROF_API_NIST ? 32 : TOY_SIG;
	s->ct = 32;
	s->ss = 32;
}

static pq_u64 toy_blob_max(pq_u64 mlen)
{
	return toy_api == PQPROF_API_NIST ? 32 + mlen : TOY_SIG;
}

static int toy_seed(const unsigned char *seed, pq_u64 len)
{
	return sm3_drng_init(&toy_drng, seed, (size_t)len);
}

static void toy_set_rng(pqprof_rng_fn fn)
{
	toy_rng = fn;
}

static int toy_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)
{
	if (toy_mode == TOY_IGNORE_DRNG)
		memset(sk, 0x42, 32);
	else
		toy_random(sk, 32);
	sha256(sk, 32, NULL, 0, pk);
	memcpy(sk + 32, pk, 32);
	*pklen = TOY_PK;
	*sklen = toy_mode == TOY_LIE_LEN ? 70 : TOY_SK;
	return 0;
}

static int toy_sign(unsigned char *sk, pq_u64 sklen, unsigned char *m, pq_u64 mlen,
                    unsigned char *blob, pq_u64 *bloblen)
{
	(void)sklen;
	toy_calls++;
	if (toy_mode == TOY_SIGN_FAIL && toy_calls == 3)
		return -7;
	sha256(sk + 32, 32, m, (size_t)mlen, blob);
	if (toy_api == PQPROF_API_NIST) {
		memcpy(blob + 32, m, (size_t)mlen);
		*bloblen = 32 + mlen;
		return 0;
	}
	*bloblen = 32;
	if (toy_mode == TOY_OVERFLOW_SLACK)
		blob[TOY_SIG] = 0xEE;
	if (toy_mode == TOY_OVERFLOW_GUARD)
		memset(blob, 0x77, 256);
	if (toy_mode == TOY_UNDERFLOW)
		blob[-1] = 0x11;
	if (toy_mode == TOY_WILD_SEGV)
		*(volatile unsigned char *)toy_wild_addr = 1;
	return 0;
}

static int toy_verify(unsigned char *pk, pq_u64 pklen, unsigned char *blob, pq_u64 bloblen,
                      unsigned char *m, pq_u64 mlen, unsigned char *scratch)
{
	(void)pklen;
	uint8_t h[32];
	if (toy_api == PQPROF_API_NIST) {
		if (bloblen < 32)
			return -1;
		memcpy(scratch, blob + 32, (size_t)(bloblen - 32));
		sha256(pk, 32, blob + 32, (size_t)(bloblen - 32), h);
		(void)m;
		(void)mlen;
		if (toy_mode == TOY_FORGE)
			return 0;
		return memcmp(h, blob, 32) == 0 ? 0 : -1;
	}
	if (toy_mode == TOY_FORGE)
		return 0;
	sha256(pk, 32, m, (size_t)mlen, h);
	return bloblen == 32 && memcmp(h, blob, 32) == 0 ? 0 : -1;
}

static int toy_enc(unsigned char *pk, pq_u64 pklen, unsigned char *ss, pq_u64 *sslen,
                   unsigned char *ct, pq_u64 *ctlen)
{
	(void)pklen;
	toy_random(ct, 32);
	if (toy_mode == TOY_KEM_CT_IGNORED)
		sha256(pk, 32, NULL, 0, ss);
	else
		sha256(pk, 32, ct, 32, ss);
	*sslen = 32;
	*ctlen = 32;
	return 0;
}

static int toy_dec(unsigned char *sk, pq_u64 sklen, unsigned char *ct, pq_u64 ctlen,
                   unsigned char *ss, pq_u64 *sslen)
{
	(void)sklen;
	(void)ctlen;
	if (toy_mode == TOY_KEM_CT_IGNORED)
		sha256(sk + 32, 32, NULL, 0, ss);
	else
		sha256(sk + 32, 32, ct, 32, ss);
	if (toy_mode == TOY_KEM_BAD_DEC)
		ss[0] ^= 1;
	*sslen = 32;
	return 0;
}

static struct pqprof_instance toy_instance(int api, int kind, enum toy_mode mode)
{
	toy_api = api;
	toy_mode = mode;
	toy_calls = 0;
	struct pqprof_instance in = {
		.magic = PQPROF_ABI_MAGIC, .abi_version = PQPROF_ABI_VERSION,
		.api = api, .kind = kind, .name = "Toy-1",
		.get_sizes = toy_sizes, .sig_blob_max = toy_blob_max,
		.seed = api == PQPROF_API_NGCC ? toy_seed : NULL,
		.set_rng = api == PQPROF_API_NIST ? toy_set_rng : NULL,
		.keygen = toy_keygen, .sign = toy_sign, .verify = toy_verify,
		.enc = toy_enc, .dec = toy_dec,
	};
	return in;
}

static void run_toy(int api, int kind, enum toy_mode mode, size_t records,
                    struct kat_outcome *out, struct kat_file *f)
{
	struct pqprof_instance in = toy_instance(api, kind, mode);
	struct kat_engine_opts o;
	kat_engine_opts_init(&o);
	o.records = records;
	pq_error err;
	ck_assert_msg(kat_engine_run(&in, &o, out, f, &err) == 0, "%s", err.msg);
}

/* ---- engine tests ------------------------------------------------------------------ */

START_TEST(test_engine_ngcc_sig_pass)
{
	struct pqprof_instance in = toy_instance(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_GOOD);
	char path[] = "/tmp/test_kat_emit_XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	struct kat_engine_opts o;
	kat_engine_opts_init(&o);
	o.emit_path = path;
	struct kat_outcome out;
	struct kat_file f, back;
	pq_error err;
	ck_assert_int_eq(kat_engine_run(&in, &o, &out, &f, &err), 0);
	ck_assert_msg(out.verdict == KAT_PASS, "%s", out.reason);
	ck_assert_int_eq(out.nnotes, 0);
	ck_assert_uint_eq(out.records_done, 10);
	ck_assert_int_eq(f.flavour, KAT_NGCC_SIG);
	ck_assert_uint_eq(f.nrecords, 10);
	size_t n;
	const uint8_t *b = kat_record_bytes(&f.records[0], "Seed", &n);
	ck_bytes_hex(b, n, NGCC_SEED0);
	b = kat_record_bytes(&f.records[0], "M", &n);
	ck_bytes_hex(b, n, NGCC_M0);
	b = kat_record_bytes(&f.records[1], "Seed", &n);
	ck_bytes_hex(b, n, NGCC_SEED1);
	b = kat_record_bytes(&f.records[1], "M", &n);
	ck_bytes_hex(b, n, NGCC_M1);
	uint64_t v;
	kat_record_int(&f.records[9], "M_Len", &v);
	ck_assert_uint_eq(v, 128);
	kat_record_int(&f.records[9], "Sn_Len", &v);
	ck_assert_uint_eq(v, 32);
	/* The toy's keys come from the record seed through the SM3 DRNG. */
	sm3_drng d;
	uint8_t seed[64], sk[32];
	memcpy(seed, kat_record_bytes(&f.records[4], "Seed", NULL), 64);
	sm3_drng_init(&d, seed, 64);
	sm3_drng_generate_bits(&d, sk, 256);
	ck_assert_mem_eq(kat_record_bytes(&f.records[4], "SK", NULL), sk, 32);

	/* The emitted file reads back equal, and matches itself as expected vectors. */
	ck_assert_int_eq(kat_file_read(path, NULL, &back, &err), 0);
	ck_assert_int_eq(kat_compare(&back, &f, NULL, NULL), 1);
	kat_judge(&back, &f, NULL, &out);
	ck_assert_int_eq(out.verdict, KAT_PASS);

	/* The committed fixture is this toy's output: the flow did not drift. */
	const char *top = getenv("top_srcdir");
	char fx[4096];
	struct kat_file fixture;
	snprintf(fx, sizeof fx, "%s/tests/data/kat/KAT_SIG_Toy-1.txt", top ? top : ".");
	ck_assert_msg(kat_file_read(fx, NULL, &fixture, &err) == 0, "%s", err.msg);
	struct kat_outcome j = out;
	kat_judge(&fixture, &f, NULL, &j);
	ck_assert_msg(j.verdict == KAT_PASS, "%s", j.reason);
	kat_file_free(&fixture);

	/* A changed byte is a MISMATCH naming record and field. */
	field_mut(&back, 6, "PK")->bytes[17] ^= 1;
	kat_judge(&back, &f, NULL, &out);
	ck_assert_int_eq(out.verdict, KAT_MISMATCH);
	ck_assert_int_eq(out.record, 6);
	ck_assert_str_eq(out.field, "PK");
	ck_assert_ptr_nonnull(strstr(out.reason, "PK differs at byte 17"));
	/* No expected vectors: NOKAT. */
	out.verdict = KAT_PASS;
	kat_judge(NULL, &f, NULL, &out);
	ck_assert_int_eq(out.verdict, KAT_NOKAT);

	/* Manifest judging on the emitted text. */
	char *text;
	size_t len;
	ck_assert_int_eq(kat_file_format(&f, &text, &len, &err), 0);
	struct manifest_entry e = {.mode = MANIFEST_NOLEN, .records = 0, .label = "toy", .file = "x"};
	manifest_digest(text, len, MANIFEST_NOLEN, 0, e.digest, &err);
	kat_outcome_init(&out);
	ck_assert_int_eq(kat_judge_manifest(&e, text, len, &out, &err), 0);
	ck_assert_int_eq(out.verdict, KAT_PASS);
	e.digest[0] ^= 1;
	ck_assert_int_eq(kat_judge_manifest(&e, text, len, &out, &err), 0);
	ck_assert_int_eq(out.verdict, KAT_MISMATCH);
	ck_assert_ptr_nonnull(strstr(out.reason, "toy/x: nolen digest"));
	free(text);
	kat_file_free(&back);
	kat_file_free(&f);
	unlink(path);
}
END_TEST

START_TEST(test_engine_nist_sig_pass)
{
	struct kat_outcome out;
	struct kat_file f;
	run_toy(PQPROF_API_NIST, PQPROF_KIND_SIG, TOY_GOOD, 0, &out, &f);
	ck_assert_msg(out.verdict == KAT_PASS, "%s", out.reason);
	ck_assert_int_eq(out.nnotes, 0);
	ck_assert_int_eq(f.flavour, KAT_NIST_SIG);
	ck_assert_str_eq(f.name, "Toy-1");
	ck_assert_uint_eq(f.nrecords, 100);
	size_t n;
	const uint8_t *b;
	b = kat_record_bytes(&f.records[0], "seed", &n);
	ck_bytes_hex(b, n, NIST_SEED0);
	b = kat_record_bytes(&f.records[0], "msg", &n);
	ck_bytes_hex(b, n, NIST_MSG0);
	b = kat_record_bytes(&f.records[1], "seed", &n);
	ck_bytes_hex(b, n, NIST_SEED1);
	b = kat_record_bytes(&f.records[1], "msg", &n);
	ck_bytes_hex(b, n, NIST_MSG1);
	uint64_t v;
	kat_record_int(&f.records[99], "mlen", &v);
	ck_assert_uint_eq(v, 3300);
	kat_record_int(&f.records[99], "smlen", &v);
	ck_assert_uint_eq(v, 3332);
	/* The toy's randombytes() is the CTR_DRBG seeded with the record's seed. */
	ctr_drbg d;
	uint8_t sk[32];
	ctr_drbg_init(&d, kat_record_bytes(&f.records[7], "seed", NULL), NULL);
	ctr_drbg_generate(&d, sk, 32);
	ck_assert_mem_eq(kat_record_bytes(&f.records[7], "sk", NULL), sk, 32);
	char name[64];
	struct pqprof_instance in = toy_instance(PQPROF_API_NIST, PQPROF_KIND_SIG, TOY_GOOD);
	ck_assert_int_eq(kat_engine_file_name(&in, name, sizeof name), 0);
	ck_assert_str_eq(name, "PQCsignKAT_64.rsp");
	kat_file_free(&f);
}
END_TEST

START_TEST(test_engine_kem)
{
	struct kat_outcome out;
	struct kat_file f;
	run_toy(PQPROF_API_NGCC, PQPROF_KIND_KEM, TOY_GOOD, 0, &out, &f);
	ck_assert_msg(out.verdict == KAT_PASS, "%s", out.reason);
	ck_assert_int_eq(out.nnotes, 0);
	ck_assert_int_eq(f.flavour, KAT_NGCC_KEM);
	ck_assert_uint_eq(f.nrecords, 10);
	size_t n;
	const uint8_t *b;
	b = kat_record_bytes(&f.records[1], "Seed", &n);
	ck_bytes_hex(b, n, NGCC_SEED1);
	ck_assert_ptr_nonnull(kat_record_bytes(&f.records[9], "SS", &n));
	ck_assert_uint_eq(n, 32);
	kat_file_free(&f);

	run_toy(PQPROF_API_NIST, PQPROF_KIND_KEM, TOY_GOOD, 5, &out, &f);
	ck_assert_msg(out.verdict == KAT_PASS, "%s", out.reason);
	ck_assert_int_eq(f.flavour, KAT_NIST_KEM);
	ck_assert_uint_eq(f.nrecords, 5);
	b = kat_record_bytes(&f.records[0], "seed", &n);
	ck_bytes_hex(b, n, NIST_SEED0);
	/* KEM draws no messages: record 1's seed is the master's second 48 bytes. */
	ctr_drbg d;
	uint8_t ent[48], s[48];
	for (int i = 0; i < 48; i++)
		ent[i] = (uint8_t)i;
	ctr_drbg_init(&d, ent, NULL);
	ctr_drbg_generate(&d, s, 48);
	ctr_drbg_generate(&d, s, 48);
	ck_assert_mem_eq(kat_record_bytes(&f.records[1], "seed", NULL), s, 48);
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_KEM, TOY_KEM_CT_IGNORED, 2, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_PASS);
	ck_assert_int_eq(out.nnotes, 1);
	ck_assert_ptr_nonnull(strstr(out.notes[0], "dec of a modified ciphertext yields the same"));
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_KEM, TOY_KEM_BAD_DEC, 2, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_CRYPTOFAIL);
	ck_assert_int_eq(out.record, 0);
	ck_assert_ptr_nonnull(strstr(out.reason, "decapsulated shared secret differs"));
	kat_file_free(&f);
}
END_TEST

START_TEST(test_engine_overflow_slack)
{
	struct kat_outcome out;
	struct kat_file f;
	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_OVERFLOW_SLACK, 0, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_OVERFLOW);
	ck_assert_int_eq(out.record, 0);
	ck_assert_str_eq(out.field, "Sn");
	ck_assert_msg(strstr(out.reason, "record 0 sign: wrote past the end of Sn (byte 36 of a 36-byte buffer)"),
	              "%s", out.reason);
	ck_assert_uint_eq(f.nrecords, 0);
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_UNDERFLOW, 0, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_OVERFLOW);
	ck_assert_msg(strstr(out.reason, "wrote 1 byte(s) before the start of Sn"), "%s", out.reason);
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_LIE_LEN, 0, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_OVERFLOW);
	ck_assert_str_eq(out.field, "SK");
	ck_assert_msg(strstr(out.reason, "record 0 keygen: produced SK of 70 bytes, declared 64"), "%s",
	              out.reason);
	kat_file_free(&f);
}
END_TEST

START_TEST(test_engine_overflow_guard_page)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		struct pqprof_instance in = toy_instance(PQPROF_API_NGCC, PQPROF_KIND_SIG,
		                                         TOY_OVERFLOW_GUARD);
		struct kat_engine_opts o;
		kat_engine_opts_init(&o);
		o.outcome_fd = fds[1];
		struct kat_outcome out;
		pq_error err;
		kat_engine_run(&in, &o, &out, NULL, &err);
		_exit(99);   /* not reached when the guard page works */
	}
	close(fds[1]);
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	while ((r = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)r;
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), KAT_ENGINE_OVERFLOW_EXIT);
	struct kat_outcome out;
	pq_error err;
	ck_assert_msg(kat_outcome_parse(buf, len, &out, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(out.verdict, KAT_OVERFLOW);
	ck_assert_int_eq(out.record, 0);
	ck_assert_str_eq(out.field, "Sn");
	ck_assert_msg(strstr(out.reason, "record 0 sign: wrote past the end of Sn (declared 36 bytes; guard page hit)"),
	              "%s", out.reason);
}
END_TEST

START_TEST(test_engine_wild_segv_is_crash)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pqprof_instance in = toy_instance(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_WILD_SEGV);
		struct kat_engine_opts o;
		kat_engine_opts_init(&o);
		struct kat_outcome out;
		pq_error err;
		/* The engine passes faults that are not its own to the handler that
		 * was there before; make that the default one (not ASan's). */
		signal(SIGSEGV, SIG_DFL);
		kat_engine_run(&in, &o, &out, NULL, &err);
		_exit(99);
	}
	int st;
	waitpid(pid, &st, 0);
	ck_assert(WIFSIGNALED(st));
	ck_assert_int_eq(WTERMSIG(st), SIGSEGV);
}
END_TEST

START_TEST(test_engine_deviations)
{
	struct kat_outcome out;
	struct kat_file f;
	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_IGNORE_DRNG, 3, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_PASS);
	ck_assert_int_eq(out.nnotes, 1);
	ck_assert_ptr_nonnull(strstr(out.notes[0], "keygen does not draw from the DRNG"));
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_FORGE, 3, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_CRYPTOFAIL);
	ck_assert_ptr_nonnull(strstr(out.reason, "soundness failure: verify accepts a signature with one bit flipped"));
	ck_assert_int_ge(out.nnotes, 1);
	ck_assert_uint_eq(out.records_done, 3);
	kat_file_free(&f);

	run_toy(PQPROF_API_NIST, PQPROF_KIND_SIG, TOY_FORGE, 3, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_CRYPTOFAIL);
	ck_assert_ptr_nonnull(strstr(out.reason, "soundness failure"));
	kat_file_free(&f);

	run_toy(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_SIGN_FAIL, 0, &out, &f);
	ck_assert_int_eq(out.verdict, KAT_CRYPTOFAIL);
	ck_assert_int_eq(out.record, 2);
	ck_assert_ptr_nonnull(strstr(out.reason, "record 2 sign returned -7"));
	ck_assert_uint_eq(f.nrecords, 2);
	kat_file_free(&f);

	/* A descriptor without the NGCC seed hook cannot run the flow. */
	struct pqprof_instance in = toy_instance(PQPROF_API_NGCC, PQPROF_KIND_SIG, TOY_GOOD);
	in.seed = NULL;
	pq_error err;
	ck_assert_int_eq(kat_engine_run(&in, NULL, &out, NULL, &err), 0);
	ck_assert_int_eq(out.verdict, KAT_LOADFAIL);
	ck_assert_ptr_nonnull(strstr(out.reason, "seed hook"));
}
END_TEST

/* What does not fit in the outcome is said: a long note ends in "…" (whole characters), extra notes are counted. */
START_TEST(test_outcome_cut_visible)
{
	struct kat_outcome o;
	kat_outcome_init(&o);
	char longer[KAT_NOTE_LEN * 2];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = 0;
	for (size_t i = KAT_NOTE_LEN - 8; i + 1 < KAT_NOTE_LEN + 4; i += 2)
		memcpy(longer + i, "\xc3\xa9", 2);   /* two-byte characters around the cut */
	kat_outcome_note(&o, "%s", longer);
	size_t n = strlen(o.notes[0]);
	ck_assert_uint_lt(n, KAT_NOTE_LEN);
	ck_assert_str_eq(o.notes[0] + n - strlen("…"), "…");
	ck_assert_int_ne((unsigned char)o.notes[0][n - strlen("…") - 1], 0xc3);  /* no half character */
	for (int i = 1; i < KAT_NOTES_MAX + 3; i++)
		kat_outcome_note(&o, "note %d", i);
	ck_assert_int_eq(o.nnotes, KAT_NOTES_MAX);
	ck_assert_str_eq(o.notes[KAT_NOTES_MAX - 2], "note 6");
	ck_assert_str_eq(o.notes[KAT_NOTES_MAX - 1], "and 4 further notes, not kept");
	kat_outcome_reason(&o, "%s", longer);
	n = strlen(o.reason);
	ck_assert_str_eq(o.reason + n - strlen("…"), "…");
}
END_TEST

START_TEST(test_outcome_text)
{
	struct kat_outcome o, back;
	kat_outcome_init(&o);
	o.verdict = KAT_MISMATCH;
	o.record = 3;
	snprintf(o.field, sizeof o.field, "pk");
	o.records_done = 10;
	snprintf(o.reason, sizeof o.reason, "record 3: pk differs at byte 17\nsecond line");
	kat_outcome_note(&o, "keygen does not draw from the DRNG");
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(kat_outcome_write_fd(fds[1], &o), 0);
	close(fds[1]);
	char buf[4096];
	ssize_t n = read(fds[0], buf, sizeof buf);
	close(fds[0]);
	pq_error err;
	ck_assert_int_eq(kat_outcome_parse(buf, (size_t)n, &back, &err), 0);
	ck_assert_int_eq(back.verdict, KAT_MISMATCH);
	ck_assert_int_eq(back.record, 3);
	ck_assert_str_eq(back.field, "pk");
	ck_assert_uint_eq(back.records_done, 10);
	ck_assert_str_eq(back.reason, "record 3: pk differs at byte 17 second line");
	ck_assert_int_eq(back.nnotes, 1);
	ck_assert_str_eq(back.notes[0], "keygen does not draw from the DRNG");
	ck_assert_int_lt(kat_outcome_parse("verdict MAYBE\n", 14, &back, &err), 0);
	ck_assert_int_lt(kat_outcome_parse("record 1\n", 9, &back, &err), 0);
	for (int v = 0; v < KAT_VERDICT_COUNT; v++)
		ck_assert_int_eq(kat_verdict_parse(kat_verdict_name((enum kat_verdict)v)), v);
	ck_assert_str_eq(kat_verdict_name(KAT_OVERFLOW), "OVERFLOW");
	ck_assert_int_eq(kat_verdict_parse("nope"), -1);
}
END_TEST

/* The verdict table: one row per verdict, names and exit statuses distinct. */
START_TEST(test_verdict_table)
{
	for (int v = 0; v < KAT_VERDICT_COUNT; v++) {
		const struct kat_verdict_info *row = &kat_verdicts[v];
		ck_assert_int_eq(row->verdict, v);
		ck_assert_msg(row->name && row->name[0], "verdict %d has no name", v);
		ck_assert_int_eq(kat_verdict_exit_code((enum kat_verdict)v), row->exit_code);
		/* PASS is success; every other verdict has a code of its own above
		 * the error codes (pq_exit_code) that a harness failure exits with. */
		if (v == KAT_PASS)
			ck_assert_int_eq(row->exit_code, 0);
		else
			ck_assert_int_gt(row->exit_code, PQ_EINTERNAL);
		for (int w = 0; w < v; w++) {
			ck_assert_str_ne(kat_verdicts[w].name, row->name);
			ck_assert_int_ne(kat_verdicts[w].exit_code, row->exit_code);
		}
	}
	/* The codes pqprof(1) documents never change (a new verdict gets a new one). */
	static const struct { enum kat_verdict v; const char *name; int code; } doc[] = {
		{ KAT_PASS, "PASS", 0 },          { KAT_MISMATCH, "MISMATCH", 21 },
		{ KAT_NOKAT, "NOKAT", 22 },        { KAT_TIMEOUT, "TIMEOUT", 23 },
		{ KAT_CRASH, "CRASH", 24 },        { KAT_CRYPTOFAIL, "CRYPTOFAIL", 25 },
		{ KAT_OVERFLOW, "OVERFLOW", 26 },  { KAT_LOADFAIL, "LOADFAIL", 27 },
	};
	for (size_t i = 0; i < sizeof doc / sizeof doc[0]; i++) {
		ck_assert_str_eq(kat_verdict_name(doc[i].v), doc[i].name);
		ck_assert_int_eq(kat_verdict_exit_code(doc[i].v), doc[i].code);
	}
	ck_assert_str_eq(kat_verdict_name((enum kat_verdict)KAT_VERDICT_COUNT), "UNKNOWN");
}
END_TEST

static Suite *kat_suite(void)
{
	Suite *s = suite_create("kat");
	TCase *gen = tcase_create("generators");
	tcase_add_test(gen, test_ctr_drbg_published);
	tcase_add_test(gen, test_sm3_drng_published);
	tcase_add_test(gen, test_sm3_drng_bits);
	suite_add_tcase(s, gen);

	TCase *file = tcase_create("kat_file");
	tcase_add_test(file, test_parse_nist_roundtrip);
	tcase_add_test(file, test_parse_ngcc_template_crlf);
	tcase_add_test(file, test_flavour_detect);
	tcase_add_loop_test(file, test_parse_bad, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(file, test_parse_caps);
	tcase_add_test(file, test_parse_mutations);
	tcase_add_test(file, test_read_fixture_files);
	tcase_add_test(file, test_compare);
	tcase_add_test(file, test_locate_by_content);
	tcase_add_test(file, test_forensics_ranges);
	tcase_add_test(file, test_forensics_splice);
	tcase_add_test(file, test_forensics_nist);
	tcase_add_test(file, test_write_atomic);
	suite_add_tcase(s, file);

	TCase *man = tcase_create("manifest");
	tcase_add_test(man, test_canonical_text);
	tcase_add_test(man, test_canonical_digests);
	tcase_add_test(man, test_manifest_parse);
	tcase_add_loop_test(man, test_manifest_bad, 0,
	                    (int)(sizeof bad_manifests / sizeof bad_manifests[0]));
	tcase_add_test(man, test_manifest_long_line);
	tcase_add_test(man, test_manifest_verify);
	suite_add_tcase(s, man);

	TCase *eng = tcase_create("engine");
	tcase_add_test(eng, test_engine_ngcc_sig_pass);
	tcase_add_test(eng, test_engine_nist_sig_pass);
	tcase_add_test(eng, test_engine_kem);
	tcase_add_test(eng, test_engine_overflow_slack);
	tcase_add_test(eng, test_engine_overflow_guard_page);
	tcase_add_test(eng, test_engine_wild_segv_is_crash);
	tcase_add_test(eng, test_engine_deviations);
	tcase_add_test(eng, test_outcome_text);
	tcase_add_test(eng, test_outcome_cut_visible);
	tcase_add_test(eng, test_verdict_table);
	suite_add_tcase(s, eng);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kat_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
