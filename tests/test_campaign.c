/*
 * test_campaign: scheme descriptor parsing (every error names the file and
 * the field), the descriptor shipped for the in-tree scheme, and the file
 * label rule that campaign writers and record readers share.
 */
#include "config.h"
#include "campaign/scheme_desc.h"
#include "core/safe_name.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *dir(void)
{
	const char *s = getenv("top_srcdir");
	return s ? s : ".";
}

static int parse(const char *text, struct scheme_desc *d, pq_error *err)
{
	char base[4096];
	snprintf(base, sizeof base, "%s/tests/fixtures", dir());
	return scheme_desc_parse(text, strlen(text), "x/scheme.json", base, d, err);
}

START_TEST(good_descriptor)
{
	struct scheme_desc d;
	pq_error err = { 0 };
	const char *t = "{\"name\":\"toy\",\"title\":\"Toy\",\"profiles\":[\"reference\",\"resource\"],"
	                "\"instances\":[{\"name\":\"Toy-96\",\"tree\":\"nist-toy\",\"api\":\"nist\","
	                "\"defines\":[\"TOY_ROUNDS=10\"],\"vectors\":\"toy/KAT/PQCsignKAT_64.rsp\"},"
	                "{\"name\":\"Toy-NGCC\",\"tree\":\"ngcc-toy\",\"slow\":true}],"
	                "\"groups\":{\"hash\":[\"toy_hash*\"]}}";
	ck_assert_int_eq(parse(t, &d, &err), 0);
	ck_assert_str_eq(d.name, "toy");
	ck_assert_int_eq(d.ninstances, 2);
	ck_assert_int_eq(d.nprofiles, 2);
	ck_assert_str_eq(d.instances[0].defines[0], "TOY_ROUNDS=10");
	ck_assert_str_eq(d.instances[1].api, "auto");
	ck_assert(d.instances[1].slow);
	ck_assert_ptr_nonnull(strstr(d.instances[0].tree, "tests/fixtures/nist-toy"));
	ck_assert_ptr_nonnull(strstr(d.instances[0].vectors, "PQCsignKAT_64.rsp"));
	ck_assert_int_eq(d.ngroups, 1);
	ck_assert_str_eq(d.groups[0].globs[0], "toy_hash*");
	scheme_desc_free(&d);
}
END_TEST

static void expect_error(const char *text, const char *needle)
{
	struct scheme_desc d;
	pq_error err = { 0 };
	ck_assert_int_lt(parse(text, &d, &err), 0);
	if (!strstr(err.msg, needle))
		ck_abort_msg("error '%s' lacks '%s'", err.msg, needle);
	ck_assert_ptr_nonnull(strstr(err.msg, "x/scheme.json"));
}

START_TEST(bad_descriptors)
{
	expect_error("{", "x/scheme.json:");
	expect_error("[]", "must be a JSON object");
	expect_error("{\"instances\":[]}", "name is missing");
	expect_error("{\"name\":\"a\",\"instances\":[]}", "'instances' must be a non-empty array");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\"}]}", "instances[0].tree is missing");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nope\"}]}", "is not a directory");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\",\"api\":\"x\"}]}",
	             "api must be ngcc, nist or auto");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\",\"bogus\":1}]}",
	             "unknown key 'bogus'");
	expect_error("{\"name\":\"a\",\"profiles\":[\"fast\"],\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\"}]}",
	             "unknown flag profile 'fast'");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\"},{\"name\":\"i\",\"tree\":\"nist-toy\"}]}",
	             "appears twice");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\",\"defines\":[1]}]}",
	             "defines[0] must be a non-empty string");
	expect_error("{\"name\":\"a\",\"name\":\"b\",\"instances\":[]}", "x/scheme.json:");
	expect_error("{\"name\":\"a\",\"grups\":{},\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\"}]}",
	             "unknown key 'grups'");
}
END_TEST

START_TEST(shipped_descriptor)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/schemes/sphincsplus", dir());
	struct scheme_desc d;
	pq_error err = { 0 };
	ck_assert_msg(scheme_desc_read(p, &d, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(d.name, "sphincsplus");
	ck_assert_int_ge(d.ninstances, 2);
	int fast = 0;
	for (int i = 0; i < d.ninstances; i++) {
		fast += !d.instances[i].slow;
		ck_assert_msg(d.instances[i].manifest[0], "instance %s has no manifest", d.instances[i].name);
	}
	ck_assert_int_eq(fast, 2);
	scheme_desc_free(&d);
}
END_TEST

START_TEST(labels)
{
	static const char *const cases[][2] = {
		{ "Toy-96__harness-default", "Toy-96__harness-default" },
		{ "x y", "x_y" },
		{ "x_y", "x_y" },
		{ ".hidden", "_hidden" },
		{ "..", "_." },
		{ "a/b", "a_b" },
		{ "", "unnamed" },
		{ "SPHINCS+-SHAKE-128f", "SPHINCS+-SHAKE-128f" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[SAFE_NAME_MAX];
		safe_name(buf, sizeof buf, cases[i][0]);
		ck_assert_str_eq(buf, cases[i][1]);
		ck_assert_msg(safe_name_ok(buf), "label '%s' of '%s' refused by the reader's rule", buf, cases[i][0]);
	}
	char name[1000], buf[SAFE_NAME_MAX];
	memset(name, 'a', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	safe_name(buf, sizeof buf, name);
	ck_assert_uint_lt(strlen(buf), SAFE_NAME_MAX);
	ck_assert(safe_name_ok(buf));
	ck_assert(!safe_name_ok(".x"));
	ck_assert(!safe_name_ok(""));
	ck_assert(!safe_name_ok("a/b"));
	ck_assert(!safe_name_ok(name));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("campaign");
	TCase *tc = tcase_create("descriptor");
	tcase_add_test(tc, good_descriptor);
	tcase_add_test(tc, bad_descriptors);
	tcase_add_test(tc, shipped_descriptor);
	tcase_add_test(tc, labels);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
