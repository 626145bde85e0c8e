/*
 * test_campaign: scheme descriptor parsing (every error names the file and
 * the field), the descriptor shipped for the in-tree scheme, the file
 * label rule that campaign writers and record readers share, and whole
 * submission packages turned into descriptors.
 */
#include "config.h"
#include "campaign/scheme_desc.h"
#include "campaign/package_desc.h"
#include "instance/package_scan.h"
#include "kat/kat_flow.h"
#include "core/safe_name.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	ck_assert_int_eq(d.instances[0].security_category, 0);
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

/* "security_category": an integer 1..5 per instance, nothing else. */
START_TEST(security_category_key)
{
	struct scheme_desc d;
	pq_error err = { 0 };
	ck_assert_int_eq(parse("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\","
	                       "\"security_category\":3},{\"name\":\"j\",\"tree\":\"nist-toy\"}]}", &d, &err), 0);
	ck_assert_int_eq(d.instances[0].security_category, 3);
	ck_assert_int_eq(d.instances[1].security_category, 0);
	scheme_desc_free(&d);
	const char *bad[] = { "0", "6", "\"3\"", "2.5", "true", "-1" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char t[256];
		snprintf(t, sizeof t, "{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\","
		         "\"security_category\":%s}]}", bad[i]);
		expect_error(t, "instances[0].security_category must be an integer from 1 to 5");
	}
}
END_TEST

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

START_TEST(implementation_versions)
{
	struct scheme_desc d;
	pq_error err = { 0 };
	/* One name twice is fine when the implementation versions differ. */
	const char *t = "{\"name\":\"p\",\"instances\":["
	                "{\"name\":\"i\",\"tree\":\"nist-toy\",\"implementation\":\"reference\"},"
	                "{\"name\":\"i\",\"tree\":\"nist-toy\",\"implementation\":\"optimized\"}]}";
	ck_assert_msg(parse(t, &d, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(d.instances[1].implementation, "optimized");
	scheme_desc_free(&d);
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\",\"implementation\":\"o\"},"
	             "{\"name\":\"i\",\"tree\":\"nist-toy\",\"implementation\":\"o\"}]}",
	             "instance name 'i' with implementation o appears twice");
	expect_error("{\"name\":\"a\",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\",\"implementation\":\"a/b\"}]}",
	             "implementation may hold only letters");
}
END_TEST

/* The package fixtures as descriptors: names, versions, trees and KAT files. */
START_TEST(package_descriptors)
{
	char p[4096];
	struct scheme_desc d;
	pq_error err = { 0 };
	snprintf(p, sizeof p, "%s/tests/fixtures/pkg/ngcc", dir());
	ck_assert(package_is_package(p));
	ck_assert_msg(package_desc_load(p, dir(), &d, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(d.name, "ngcc");
	ck_assert_int_eq(d.ninstances, 3);
	ck_assert_str_eq(d.instances[0].name, "Toy-NGCC-64");
	ck_assert_str_eq(d.instances[0].implementation, "reference");
	ck_assert_str_eq(d.instances[1].name, "Toy-NGCC-96");
	ck_assert_str_eq(d.instances[2].name, "Toy-NGCC-64");
	ck_assert_str_eq(d.instances[2].implementation, "optimized");
	ck_assert_str_eq(d.instances[2].api, "ngcc");
	ck_assert_ptr_nonnull(strstr(d.instances[2].tree, "Optimized_Implementation/Toy-NGCC-64"));
	ck_assert_ptr_nonnull(strstr(d.instances[2].vectors, "KAT_SIG_Toy-NGCC-64.txt"));
	scheme_desc_free(&d);
	snprintf(p, sizeof p, "%s/tests/fixtures/pkg/nist", dir());
	ck_assert_msg(package_desc_load(p, dir(), &d, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(d.ninstances, 4);
	ck_assert_str_eq(d.instances[3].implementation, "additional-bad");
	ck_assert_str_eq(d.instances[3].api, "nist");
	scheme_desc_free(&d);
	/* A single tree is not a package. */
	snprintf(p, sizeof p, "%s/tests/fixtures/toy", dir());
	ck_assert(!package_is_package(p));
	ck_assert_int_eq(package_desc_load(p, dir(), &d, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a submission package"));
}
END_TEST

static void put(const char *root, const char *rel, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Names from headers (conditional defaults), KEMs, variant folders, a wrapper folder. */
START_TEST(package_rules)
{
	char root[] = "/tmp/pqprof-pkg-test.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	const char *src = "int f(void) { return 0; }\n";
	/* Inside a wrapper folder, as packages are often shipped. */
	put(root, "Sub/Reference_Implementation/X-256/SIG_AlgorithmInstance.h",
	    "#ifndef SIG_H\n#define SIG_H\n#ifndef ALGORITHM_INSTANCE\n#define ALGORITHM_INSTANCE \"X-128\"\n#endif\n#endif\n");
	put(root, "Sub/Reference_Implementation/X-256/x.c", src);
	put(root, "Sub/Reference_Implementation/Y/KEM_AlgorithmInstance.h",
	    "/* a KEM */\n#define ALGORITHM_INSTANCE \"Y-KEM-1\"\n");
	put(root, "Sub/Reference_Implementation/Y/y.c", src);
	put(root, "Sub/Optimized_Implementation/avx2/crypto_sign/z/api.h", "#define CRYPTO_SECRETKEYBYTES 12\n");
	put(root, "Sub/Optimized_Implementation/avx2/crypto_sign/z/z.c", src);
	put(root, "Sub/KAT_files/KAT_KEM_Y-KEM-1.txt", "Count = 0\n");
	put(root, "Sub/KAT_files/z/PQCsignKAT_12.rsp", "count = 0\n");
	put(root, "Sub/KAT_files/z/PQCsignKAT_99.rsp", "count = 1\n");
	struct pkg_scan *ps = calloc(1, sizeof *ps);
	pq_error err = { 0 };
	ck_assert(package_is_package(root));
	ck_assert_msg(package_scan(root, NULL, ps, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ps->ninst, 3);
	ck_assert_str_eq(ps->layout, "NGCC+NIST");
	/* A conditional default that differs from the directory: the directory, with a warning. */
	ck_assert_str_eq(ps->inst[0].name, "X-256");
	ck_assert_ptr_nonnull(strstr(ps->inst[0].warning, "-D switches"));
	ck_assert_int_eq(ps->inst[0].kat, PKG_KAT_MISSING);
	ck_assert_str_eq(ps->inst[1].name, "Y-KEM-1");
	ck_assert_str_eq(ps->inst[1].kind, "kem");
	ck_assert_int_eq(ps->inst[1].kat, PKG_KAT_MATCHED);
	ck_assert_str_eq(ps->inst[1].kat_rel, "Sub/KAT_files/KAT_KEM_Y-KEM-1.txt");
	ck_assert_str_eq(ps->inst[2].implementation, "optimized-avx2");
	ck_assert_str_eq(ps->inst[2].api, "nist");
	/* Of two files in its KAT folder, the one named after CRYPTO_SECRETKEYBYTES. */
	ck_assert_int_eq(ps->inst[2].kat, PKG_KAT_MATCHED);
	ck_assert_str_eq(ps->inst[2].kat_rel, "Sub/KAT_files/z/PQCsignKAT_12.rsp");
	ck_assert_ptr_nonnull(strstr(ps->inst[2].kat_why, "CRYPTO_SECRETKEYBYTES"));
	free(ps);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* One NGCC signature record that starts the official seed sequence; pk and the rest are made up. */
static void put_ngcc_vectors(const char *root, const char *rel, const char *pkhex)
{
	uint8_t seed[64];
	size_t n = 0;
	char text[1024], hex[129];
	ck_assert_int_eq(kat_flow_first_seed(0, seed, &n), 0);
	ck_assert_int_eq((int)n, 64);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02X", seed[i]);
	snprintf(text, sizeof text, "Count = 0\nSeed_Len = 64\nSeed = %s\nPK_Len = %zu\nPK = %s\nSK_Len = 2\nSK = 0102\n"
	         "M_Len = 1\nM = 00\nSn_Len = 1\nSn = 00\n\n", hex, strlen(pkhex) / 2, pkhex);
	put(root, rel, text);
}

/*
 * Trees found by what they hold, wherever they are: per-level CMake
 * projects (one keeping its header in include/ and a subdirectory piece
 * without project()), a makefile folder that defers to the trees below it,
 * a tree with its own header whose nested project stays part of it; vector
 * files found by their first record under names of their own.
 */
START_TEST(package_by_content)
{
	char root[] = "/tmp/pqprof-pkg-content.XXXXXX", p[4200];
	ck_assert_ptr_nonnull(mkdtemp(root));
	const char *src = "int f(void) { return 0; }\n", *sig = "#define ALGORITHM_INSTANCE \"%s\"\n";
	char h[128];
	put(root, "Pkg/Implementations/kite_lvl1/CMakeLists.txt", "cmake_minimum_required(VERSION 3.10)\nproject (k1 C)\n");
	snprintf(h, sizeof h, sig, "Kite-1");
	put(root, "Pkg/Implementations/kite_lvl1/SIG_AlgorithmInstance.h", h);
	put(root, "Pkg/Implementations/kite_lvl1/KAT_SIG.c", src);
	put(root, "Pkg/Implementations/kite_lvl3/CMakeLists.txt", "PROJECT(k3 C)\nadd_subdirectory(src)\n");
	snprintf(h, sizeof h, sig, "Kite-3");
	put(root, "Pkg/Implementations/kite_lvl3/include/SIG_AlgorithmInstance.h", h);
	put(root, "Pkg/Implementations/kite_lvl3/apps/KAT_SIG.c", src);
	put(root, "Pkg/Implementations/kite_lvl3/src/CMakeLists.txt", "add_library(k3 k.c)\n");
	put(root, "Pkg/Implementations/kite_lvl3/src/api.h", "#define CRYPTO_BYTES 1\n");
	put(root, "Pkg/Implementations/kite_lvl3/build/CMakeCache.txt", "");
	put(root, "Pkg/Implementations/kite_lvl3/build/api.h", "");
	put(root, "Pkg/nist/Makefile", "all:\n\t$(MAKE) -C crypto_sign/a\n");
	put(root, "Pkg/nist/crypto_sign/a/Makefile", "all:\n");
	put(root, "Pkg/nist/crypto_sign/a/api.h", "#define CRYPTO_SECRETKEYBYTES 2\n#define crypto_sign_keypair a_keypair\n");
	put(root, "Pkg/nist/crypto_sign/a/a.c", src);
	put(root, "Pkg/nist/crypto_sign/b/GNUmakefile", "all:\n");
	put(root, "Pkg/nist/crypto_sign/b/PQCgenKAT_sign.c", src);
	put(root, "Pkg/other/Makefile", "all:\n");
	put(root, "Pkg/other/api.h", "#define CRYPTO_SECRETKEYBYTES 2\n");
	put(root, "Pkg/other/x.c", src);
	put(root, "Pkg/other/sub/Makefile", "all:\n");
	put(root, "Pkg/other/sub/api.h", "#define CRYPTO_SECRETKEYBYTES 2\n");
	put(root, "Pkg/.git/HEAD/Makefile", "");
	put(root, "Pkg/.git/HEAD/api.h", "");
	put(root, "Pkg/Docs/notes.txt", "count = 0\n");
	put_ngcc_vectors(root, "Pkg/Test_Vectors/kite_lvl1.kat", "0A0B");
	put_ngcc_vectors(root, "Pkg/Test_Vectors/vectors-L3.txt", "0C0D0E");
	const char *old = getenv("PQPROF_OBSERVE");
	char saved[64];
	snprintf(saved, sizeof saved, "%s", old ? old : "");
	setenv("PQPROF_OBSERVE", "off", 1);
	snprintf(p, sizeof p, "%s/Pkg", root);
	ck_assert(package_is_package(p));
	snprintf(p, sizeof p, "%s/Pkg/Implementations/kite_lvl3", root);
	ck_assert(!package_is_package(p));
	snprintf(p, sizeof p, "%s/Pkg/other", root);
	ck_assert(!package_is_package(p));
	/* A makefile folder over two trees of its own: a package of them. */
	snprintf(p, sizeof p, "%s/Pkg/nist", root);
	ck_assert(package_is_package(p));
	struct pkg_scan *ps = calloc(1, sizeof *ps);
	pq_error err = { 0 };
	snprintf(p, sizeof p, "%s/Pkg", root);
	ck_assert_msg(package_scan(p, NULL, ps, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(ps->ninst, 5);
	ck_assert_str_eq(ps->inst[0].rel, "Implementations/kite_lvl1");
	ck_assert_str_eq(ps->inst[0].name, "Kite-1");
	ck_assert_str_eq(ps->inst[0].implementation, "implementations-kite_lvl1");
	ck_assert_int_eq(ps->inst[0].kat, PKG_KAT_MATCHED);
	ck_assert_str_eq(ps->inst[0].kat_rel, "Test_Vectors/kite_lvl1.kat");
	ck_assert_ptr_nonnull(strstr(ps->inst[0].kat_why, "found by content"));
	ck_assert_ptr_nonnull(strstr(ps->inst[0].kat_why, "its file name names the instance or its tree"));
	/* The header in include/, the piece of the build in src/ part of the tree. */
	ck_assert_str_eq(ps->inst[1].rel, "Implementations/kite_lvl3");
	ck_assert_str_eq(ps->inst[1].name, "Kite-3");
	ck_assert_str_eq(ps->inst[1].api, "ngcc");
	ck_assert_ptr_nonnull(strstr(ps->inst[1].api_why, "include/SIG_AlgorithmInstance.h"));
	ck_assert_int_eq(ps->inst[1].kat, PKG_KAT_MATCHED);
	ck_assert_str_eq(ps->inst[1].kat_rel, "Test_Vectors/vectors-L3.txt");
	ck_assert_str_eq(ps->inst[2].rel, "nist/crypto_sign/a");
	ck_assert_str_eq(ps->inst[2].implementation, "nist-a");
	ck_assert_str_eq(ps->inst[2].api, "nist");
	ck_assert_int_eq(ps->inst[2].kat, PKG_KAT_MISSING);
	ck_assert_str_eq(ps->inst[3].rel, "nist/crypto_sign/b");
	ck_assert_str_eq(ps->inst[4].rel, "other");
	int docs = 0;
	for (int i = 0; i < ps->nnotes; i++)
		docs += strstr(ps->notes[i], "skipped Docs: not an implementation or KAT folder") != NULL;
	ck_assert_int_eq(docs, 1);
	free(ps);
	/* One level alone is one tree. */
	snprintf(p, sizeof p, "%s/Pkg/Implementations/kite_lvl1", root);
	struct scheme_desc d;
	ck_assert_int_eq(package_desc_load(p, root, &d, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "it is itself one implementation tree"));
	if (saved[0])
		setenv("PQPROF_OBSERVE", saved, 1);
	else
		unsetenv("PQPROF_OBSERVE");
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(profile_table)
{
	struct scheme_desc d;
	pq_error err = { 0 };
	const char *t = "{\"name\":\"toy\",\"profiles\":{\"O3native\":{\"cflags\":\"-O3 -march=native\"},"
	                "\"clang-O2\":{\"cflags\":\"-O2\",\"cc\":\"clang\"},\"reference\":{\"cc\":\"gcc-12\"},"
	                "\"plain\":{\"cflags\":\"\"}},"
	                "\"instances\":[{\"name\":\"Toy-96\",\"tree\":\"nist-toy\"}]}";
	ck_assert_msg(parse(t, &d, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(d.nprofiles, 4);
	/* the order written is the order run: the first is the baseline */
	ck_assert_str_eq(d.profiles[0], "O3native");
	ck_assert_str_eq(d.profile_defs[0].cflags, "-O3 -march=native");
	ck_assert(d.profile_defs[0].has_cflags);
	ck_assert_str_eq(d.profile_defs[1].cc, "clang");
	ck_assert_str_eq(d.profiles[2], "reference");
	ck_assert(!d.profile_defs[2].has_cflags);
	ck_assert_str_eq(d.profile_defs[2].cc, "gcc-12");
	ck_assert(d.profile_defs[3].has_cflags);
	ck_assert_str_eq(d.profile_defs[3].cflags, "");
	scheme_desc_free(&d);
	/* the list form still names built-in profiles */
	ck_assert_int_eq(parse("{\"name\":\"a\",\"profiles\":[\"resource\"],\"instances\":[{\"name\":\"i\",\"tree\":"
	                       "\"nist-toy\"}]}", &d, &err), 0);
	ck_assert_str_eq(d.profile_defs[0].name, "resource");
	scheme_desc_free(&d);
}
END_TEST

START_TEST(bad_profile_tables)
{
#define INST ",\"instances\":[{\"name\":\"i\",\"tree\":\"nist-toy\"}]}"
	expect_error("{\"name\":\"a\",\"profiles\":{\"fast\":{}}" INST, "profiles.fast: 'cflags' is missing");
	expect_error("{\"name\":\"a\",\"profiles\":{\"reference\":{\"cflags\":\"-O1\"}}" INST,
	             "'reference' is a built-in profile");
	expect_error("{\"name\":\"a\",\"profiles\":{\"o3\":{\"cflags\":\"-O3\",\"cc\":\"/tmp/evil\"}}" INST,
	             "must be a program name");
	expect_error("{\"name\":\"a\",\"profiles\":{\"o3\":{\"cflags\":\"-O3\",\"flags\":\"x\"}}" INST,
	             "unknown key 'flags'");
	expect_error("{\"name\":\"a\",\"profiles\":{\"a b\":{\"cflags\":\"-O3\"}}" INST, "name 'a b' may only hold");
	expect_error("{\"name\":\"a\",\"profiles\":{\"o3\":\"-O3\"}" INST, "profiles.o3 must be an object");
	expect_error("{\"name\":\"a\",\"profiles\":{}" INST, "'profiles' must not be empty");
	expect_error("{\"name\":\"a\",\"profiles\":[\"fast\"]" INST, "built-in: harness-default, reference");
#undef INST
	char why[96];
	ck_assert(profile_name_ok("O3-native_2.x+", why, sizeof why));
	ck_assert(!profile_name_ok("-O3", why, sizeof why));
	ck_assert(!profile_name_ok("", why, sizeof why));
	ck_assert(!profile_name_ok("a/b", why, sizeof why));
	ck_assert(compiler_name_ok("clang-16"));
	ck_assert(!compiler_name_ok("/usr/bin/gcc"));
	ck_assert(!compiler_name_ok("gcc;rm"));
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
	tcase_add_test(tc, profile_table);
	tcase_add_test(tc, bad_profile_tables);
	tcase_add_test(tc, bad_descriptors);
	tcase_add_test(tc, security_category_key);
	tcase_add_test(tc, shipped_descriptor);
	tcase_add_test(tc, labels);
	tcase_add_test(tc, implementation_versions);
	tcase_add_test(tc, package_descriptors);
	tcase_add_test(tc, package_rules);
	tcase_add_test(tc, package_by_content);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
