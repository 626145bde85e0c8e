/*
 * test_instance: source-tree classification, flag handling and shim text.
 * Builds small trees in a temporary directory, so every rule of what is
 * kept and left out is pinned by a test that can fail.
 */
#include "config.h"
#include "instance/api_category.h"
#include "instance/builder.h"
#include "instance/flag_check.h"
#include "instance/kat_drivers.h"
#include "instance/shim.h"
#include "instance/tree_scan.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdir(p, 0755);
	*slash = '/';
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/pqprof-test-tree.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static const struct tree_file *find(const struct tree_scan *ts, const char *rel)
{
	for (int i = 0; i < ts->nfiles; i++)
		if (strcmp(ts->files[i].rel, rel) == 0)
			return &ts->files[i];
	return NULL;
}

START_TEST(main_detection)
{
	ck_assert(source_defines_main("int main(void) { return 0; }"));
	ck_assert(source_defines_main("int\nmain (int argc, char **argv)\n{\n}"));
	ck_assert(!source_defines_main("/* int main(void) { } */ int f(void) { return 0; }"));
	ck_assert(!source_defines_main("const char *s = \"main() {\";"));
	ck_assert(!source_defines_main("int main(void);"));
	ck_assert(!source_defines_main("int domain(void) { return 1; }"));
	ck_assert(!source_defines_main("#define main(x) foo(x) {"));
	ck_assert(source_defines_function("int randombytes(unsigned char *x, unsigned long long n) { return 0; }",
	                                  "randombytes"));
}
END_TEST

START_TEST(included_sources)
{
	char names[4][256];
	int n = source_included_sources("#include \"a.h\"\n#include \"sub/frag.c\"\n# include \"b.c\"\n", names, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(names[0], "frag.c");
	ck_assert_str_eq(names[1], "b.c");
}
END_TEST

START_TEST(nist_tree)
{
	put("api.h", "#define CRYPTO_BYTES 10\nint crypto_sign_keypair(unsigned char *pk, unsigned char *sk);\n");
	put("sign.c", "#include \"api.h\"\nint crypto_sign_keypair(unsigned char *pk, unsigned char *sk) { return 0; }\n");
	put("rng.c", "int randombytes(unsigned char *x, unsigned long long n) { return 0; }\n");
	put("PQCgenKAT_sign.c", "int main(void) { return 0; }\n");
	put("bench.c", "int main(void) { return 0; }\n");
	put("tests/t.c", "int helper(void) { return 0; }\n");
	put("params/p.h", "#define P 1\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_int_eq(ts.api, TREE_API_NIST);
	ck_assert_int_eq(ts.kind, TREE_KIND_SIG);
	ck_assert(ts.api_h_declares);
	ck_assert(find(&ts, "sign.c")->keep);
	ck_assert(!find(&ts, "rng.c")->keep);
	ck_assert(!find(&ts, "PQCgenKAT_sign.c")->keep);
	ck_assert(!find(&ts, "bench.c")->keep);
	ck_assert_ptr_nonnull(strstr(find(&ts, "bench.c")->reason, "main"));
	ck_assert_ptr_null(find(&ts, "tests/t.c"));
	int has_params = 0;
	for (int i = 0; i < ts.nincdirs; i++)
		has_params |= strcmp(ts.incdirs[i], "params") == 0;
	ck_assert(has_params);
	tree_scan_free(&ts);
}
END_TEST

START_TEST(ngcc_wins_over_nist)
{
	put("api.h", "#define CRYPTO_BYTES 10\n");
	put("SIG_AlgorithmInstance.h", "#define ALGORITHM_INSTANCE \"X\"\n");
	put("drng.h", "typedef struct { unsigned char V[55]; } DRNG_ctx;\n");
	put("drng.c", "#include \"drng.h\"\nint init_random_number(DRNG_ctx *d, const unsigned char *s, unsigned long long n) { return 0; }\n");
	put("KAT_SIG.c", "#include \"drng.h\"\nDRNG_ctx drng_algorithm;\nint main(void) { return 0; }\n");
	put("rng.c", "int randombytes(unsigned char *x, unsigned long long n) { return 0; }\n");
	put("wrap.c", "extern DRNG_ctx drng_algorithm;\nint w(void) { return 0; }\n");
	put("frag.c", "static int t[2];\n");
	put("user.c", "#include \"frag.c\"\nint u(void) { return t[0]; }\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_int_eq(ts.api, TREE_API_NGCC);
	ck_assert(ts.nist_in_ngcc);
	ck_assert_str_eq(ts.drng_header, "drng.h");
	ck_assert(ts.has_init_random_number);
	ck_assert(!ts.defines_drng_object);        /* only the left-out driver defines it */
	ck_assert(find(&ts, "rng.c")->keep);       /* in NGCC trees rng.c may be the scheme's */
	ck_assert(!find(&ts, "KAT_SIG.c")->keep);
	ck_assert(!find(&ts, "frag.c")->keep);
	ck_assert_ptr_nonnull(strstr(find(&ts, "frag.c")->reason, "user.c"));
	tree_scan_free(&ts);
	/* Forcing NIST on the same tree uses api.h */
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_NIST, &ts, &err), 0);
	ck_assert_int_eq(ts.api, TREE_API_NIST);
	ck_assert(!find(&ts, "rng.c")->keep);
	tree_scan_free(&ts);
}
END_TEST

START_TEST(not_a_tree)
{
	put("readme.txt", "nothing here\n");
	put("x.c", "int x;\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "not a submission tree"));
	ck_assert_int_lt(tree_scan_dir("/nonexistent/dir", TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/dir"));
	put("api.h", "#define CRYPTO_BYTES 1\n");
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_NGCC, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "--api ngcc"));
}
END_TEST

START_TEST(kem_detection)
{
	put("api.h", "#define CRYPTO_CIPHERTEXTBYTES 10\nint crypto_kem_keypair(unsigned char *pk, unsigned char *sk);\n");
	put("kem.c", "int crypto_kem_keypair(unsigned char *pk, unsigned char *sk) { return 0; }\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_int_eq(ts.kind, TREE_KIND_KEM);
	tree_scan_free(&ts);
}
END_TEST

START_TEST(words_and_profiles)
{
	char **w;
	int n;
	ck_assert_int_eq(split_words("  -O3 -DX='a b' \"-I/x y\"  ", &w, &n, NULL), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(w[0], "-O3");
	ck_assert_str_eq(w[1], "-DX=a b");
	ck_assert_str_eq(w[2], "-I/x y");
	free_words(w, n);
	/* As sh reads it: a backslash escapes (--cflags '-DNAME=\"x\"' means -DNAME="x"). */
	ck_assert_int_eq(split_words("-DNAME=\\\"x\\\" -DP=a\\ b", &w, &n, NULL), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(w[0], "-DNAME=\"x\"");
	ck_assert_str_eq(w[1], "-DP=a b");
	free_words(w, n);
	ck_assert_str_eq(flag_profile_find("reference")->cflags, "-std=c99 -O2");
	ck_assert_str_eq(flag_profile_find("performance")->cflags, "-O3 -march=native -flto");
	ck_assert_str_eq(flag_profile_find("resource")->cflags, "-Os");
	ck_assert_str_eq(flag_profile_find("harness-default")->cflags, "-O2");
	ck_assert_ptr_null(flag_profile_find("fast"));
}
END_TEST

START_TEST(shim_text)
{
	put("api.h", "#define CRYPTO_BYTES 10\n");
	put("s.c", "int f(void) { return 0; }\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct shim_meta meta = { "cc 1", "reference", "-O2 \"q\"", "kept: s.c\n", "fallback" };
	ck_assert_int_eq(shim_write(f, &ts, &meta, &err), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "#include \"api.h\""));
	ck_assert_ptr_nonnull(strstr(buf, "int randombytes("));
	ck_assert_ptr_nonnull(strstr(buf, "crypto_sign_open(scratch"));
	ck_assert_ptr_nonnull(strstr(buf, "-O2 \\\"q\\\""));
	ck_assert_ptr_nonnull(strstr(buf, "int crypto_sign_keypair(")); /* api.h lacks prototypes */
	ck_assert_ptr_nonnull(strstr(pq_abi_header_text, "struct pqprof_instance"));
	free(buf);
	tree_scan_free(&ts);
}
END_TEST

/* The signature functions an API header declares: prefix, plain and context forms (comments ignored). */
START_TEST(sig_decls)
{
	struct nist_sig_decls d;
	ck_assert_int_eq(tree_nist_sig_decls("#define CRYPTO_BYTES 10\n", &d), 0);
	ck_assert_int_eq(tree_nist_sig_decls("int crypto_sign_keypair(unsigned char *, unsigned char *);\n"
	                                     "int crypto_sign(void); int crypto_sign_open(void);\n", &d), 1);
	ck_assert_str_eq(d.prefix, "");
	ck_assert(d.plain && !d.context);
	ck_assert_int_eq(tree_nist_sig_decls("size_t P_X_crypto_sign_seed_keypair(void);\n"
	                                     "int P_X_crypto_sign_keypair(uint8_t *pk, uint8_t *sk);\n"
	                                     "int P_X_crypto_sign_ctx(void); int P_X_crypto_sign_open_ctx(void);\n"
	                                     "/* int P_X_crypto_sign(void); int P_X_crypto_sign_open(void); */\n", &d), 1);
	ck_assert_str_eq(d.prefix, "P_X_");
	ck_assert(!d.plain && d.context);
	/* The prefix must match: another namespace's plain functions do not count. */
	ck_assert_int_eq(tree_nist_sig_decls("int A_crypto_sign_keypair(void); int B_crypto_sign(void);\n"
	                                     "int B_crypto_sign_open(void); int A_crypto_sign_ctx(void);\n"
	                                     "int A_crypto_sign_open_ctx(void); int A_crypto_sign(void);\n", &d), 1);
	ck_assert(!d.plain && d.context && !d.in_plain);
	/* crypto_sign itself taking the context (a macro names it first, a comment has a comma). */
	ck_assert_int_eq(tree_nist_sig_decls("#define crypto_sign_keypair NS(keypair)\nint crypto_sign_keypair(uint8_t *pk, uint8_t *sk);\n"
	                                     "#define crypto_sign NS_TOP\n"
	                                     "int crypto_sign(uint8_t *sm, size_t *smlen,\n  const uint8_t *m, size_t mlen,\n"
	                                     "  const uint8_t *ctx, size_t ctxlen, /* a, b */ const uint8_t *sk);\n"
	                                     "int crypto_sign_open(uint8_t *m, size_t *mlen, const uint8_t *sm, size_t smlen,\n"
	                                     "  const uint8_t *ctx, size_t ctxlen, const uint8_t *pk);\n", &d), 1);
	ck_assert(!d.plain && d.context && d.in_plain);
	/* Five parameters: the plain API. */
	ck_assert_int_eq(tree_nist_sig_decls("int crypto_sign_keypair(uint8_t *pk, uint8_t *sk);\n"
	                                     "int crypto_sign(uint8_t *sm, size_t *smlen, const uint8_t *m, size_t mlen,"
	                                     " const uint8_t *sk);\nint crypto_sign_open(uint8_t *m, size_t *mlen,"
	                                     " const uint8_t *sm, size_t smlen, const uint8_t *pk);\n", &d), 1);
	ck_assert(d.plain && !d.context && !d.in_plain);
}
END_TEST

/* The shim of a context-only header: prefixed _ctx calls, the context bytes, sizes under the plain names. */
START_TEST(shim_context)
{
	put("api.h", "#define NS_CRYPTO_BYTES 10\nint NS_crypto_sign_keypair(void);\n"
	             "int NS_crypto_sign_ctx(void); int NS_crypto_sign_open_ctx(void);\n");
	put("s.c", "int f(void) { return 0; }\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_str_eq(ts.sig.prefix, "NS_");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const unsigned char ctx[] = { 0x0a, 0x0b };
	struct shim_meta meta = { "cc 1", "reference", "-O2", "", "fallback", .sig_context = 1, .context = ctx,
	                          .context_len = 2 };
	ck_assert_int_eq(shim_write(f, &ts, &meta, &err), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "#define CRYPTO_BYTES NS_CRYPTO_BYTES"));
	ck_assert_ptr_nonnull(strstr(buf, "pq_context[] = { 0x0a, 0x0b }"));
	ck_assert_ptr_nonnull(strstr(buf, "NS_crypto_sign_ctx(blob, (void *)bloblen, m, mlen, pq_context, PQ_CONTEXT_LEN, sk)"));
	ck_assert_ptr_nonnull(strstr(buf, "NS_crypto_sign_open_ctx(scratch"));
	ck_assert_ptr_nonnull(strstr(buf, "PQPROF_SIG_CONTEXT, 4u, pq_context, 2u"));
	free(buf);
	tree_scan_free(&ts);
}
END_TEST

/* --context: hex digits in pairs, at most 255 bytes; anything else is a usage error naming the option. */
START_TEST(context_parse)
{
	unsigned char out[BUILD_CONTEXT_MAX];
	size_t n = 99;
	pq_error err = { 0 };
	ck_assert_int_eq(build_context_parse("", "--context", out, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(build_context_parse("0aFf", "--context", out, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(out[0] == 0x0a && out[1] == 0xff);
	const char *bad[] = { "0", "zz", "0x0a", "0a 0b", NULL };
	for (int i = 0; bad[i]; i++) {
		ck_assert_int_eq(build_context_parse(bad[i], "--context", out, &n, &err), -PQ_EUSAGE);
		ck_assert_ptr_nonnull(strstr(err.msg, "--context"));
	}
	char big[2 * BUILD_CONTEXT_MAX + 3];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(build_context_parse(big, "--context", out, &n, &err), -PQ_EUSAGE);
}
END_TEST

/* Flags that run programs or load code are refused; ordinary ones pass. */
START_TEST(flag_refusals)
{
	const char *bad[] = {
		"-wrapper /bin/sh,-c,id", "-B/tmp/x", "-B /tmp/x", "-specs=/tmp/s", "--specs /tmp/s", "@/tmp/args",
		"-fplugin=/tmp/p.so", "-fplugin-arg-x-y=1", "-iplugindir=/tmp", "-fuse-ld=/tmp/ld", "--ld-path=/tmp/ld",
		"-Wl,-plugin,/tmp/p.so", "-Wl,@/tmp/args", "-Xlinker --plugin=/tmp/p.so", "-Wa,@/tmp/a",
		"-Wp,-fplugin=/tmp/p.so", "-Xclang -load", "-o /tmp/out", "-MF /tmp/d", "-fmodule-mapper=|sh",
		"-O2 -ccc-install-dir /tmp", NULL,
	};
	const char *good[] = {
		"-O3 -march=native -flto", "-DX=1 -I../common -include config.h", "-fuse-ld=gold", "-Wl,-z,defs",
		"-MMD -MT x.o", "-std=c99 -Wall -Wextra -fno-strict-aliasing -mavx2", "", NULL,
	};
	pq_error err = { 0 };
	for (int i = 0; bad[i]; i++) {
		ck_assert_msg(flag_check_string(bad[i], "d.json", &err) < 0, "accepted: %s", bad[i]);
		ck_assert_ptr_nonnull(strstr(err.msg, "d.json: compiler flag '"));
		ck_assert_int_eq(err.code, PQ_EINPUT);
	}
	for (int i = 0; good[i]; i++)
		ck_assert_msg(flag_check_string(good[i], "d.json", &err) == 0, "refused: %s: %s", good[i], err.msg);
	ck_assert_int_lt(flag_check_string("-O2 -wrapper /bin/sh,-c,id", "d.json", &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "'-wrapper /bin/sh,-c,id'"));
}
END_TEST

/* Links out of the tree, FIFOs, loops and absolute includes are refused by name. */
START_TEST(containment_refusals)
{
	put("api.h", "#define CRYPTO_BYTES 10\n");
	put("sign.c", "#include \"api.h\"\nint s(void) { return 0; }\n");
	struct tree_scan ts;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	tree_scan_free(&ts);
	char p[512], outside[512];
	snprintf(p, sizeof p, "%s/secret.h", root);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link secret.h leaves the tree (points to /etc/passwd"));
	/* ... unless the source root is widened to hold the target */
	ck_assert_int_eq(tree_scan_dir_within(root, "/", 0, TREE_API_AUTO, &ts, &err), 0);
	tree_scan_free(&ts);
	unlink(p);
	snprintf(p, sizeof p, "%s/pipe.h", root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "pipe.h is a FIFO"));
	unlink(p);
	snprintf(p, sizeof p, "%s/sub", root);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/sub/up", root);
	ck_assert_int_eq(symlink("..", p), 0);
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link loop: sub/up"));
	unlink(p);
	put("zero.c", "#include \"/dev/zero\"\n");
	ck_assert_int_lt(tree_scan_dir(root, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "zero.c includes \"/dev/zero\""));
	snprintf(p, sizeof p, "%s/zero.c", root);
	unlink(p);
	/* A descriptor's tree must lie inside the source root. */
	snprintf(outside, sizeof outside, "%s/sub", root);
	ck_assert_int_lt(tree_scan_dir_within(root, outside, 1, TREE_API_AUTO, &ts, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "outside the source root"));
}
END_TEST

static int category_of(const char *text, char *name, size_t nlen)
{
	return api_category_from_text(text, strlen(text), name, nlen);
}

/* The security category api.h states: the macro names it knows, integer values 1..5 only. */
START_TEST(api_header_category)
{
	char name[128] = "";
	ck_assert_int_eq(category_of("#define CRYPTO_BYTES 96\n#define NIST_SECURITY_LEVEL 3\n", name, sizeof name), 3);
	ck_assert_str_eq(name, "NIST_SECURITY_LEVEL");
	ck_assert_int_eq(category_of("  #  define   security_category (5U) /* level */\r\n", name, sizeof name), 5);
	ck_assert_str_eq(name, "security_category");
	ck_assert_int_eq(category_of("#define PQCLEAN_FOO_NIST_LEVEL 1\n", name, sizeof name), 1);
	ck_assert_int_eq(category_of("#define CRYPTO_SECURITY_CATEGORY 2 // two\n", name, sizeof name), 2);
	ck_assert_int_eq(category_of("#define SECURITY_LEVEL 4\n", name, sizeof name), 4);
	ck_assert_int_eq(category_of("#define NIST_LEVEL 1\n", name, sizeof name), 1);
	/* Not a category: out of range, not a literal, a function-like macro, another name, a bare suffix. */
	ck_assert_int_eq(category_of("#define NIST_SECURITY_LEVEL 6\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("#define NIST_SECURITY_LEVEL 128\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("#define NIST_SECURITY_LEVEL LEVEL\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("#define NIST_SECURITY_LEVEL(x) 3\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("#define CRYPTO_BYTES 3\n#define PARAMS_LEVEL 3\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("#define XNIST_LEVEL 3\n", name, sizeof name), 0);
	ck_assert_int_eq(category_of("// #define NIST_LEVEL 3 in a comment\n", name, sizeof name), 0);
	ck_assert(api_category_name_ok("CRYPTO_SECURITY_CATEGORY"));
	ck_assert(!api_category_name_ok("SECURITY_LEVELS"));
}
END_TEST

/* The levels names state plainly, and the numbers that are no level. */
START_TEST(category_from_names)
{
	static const struct { const char *name; int cat; const char *token; } yes[] = {
		{ "Wren128f", 1, "128f" }, { "wren_lvl1", 1, "lvl1" }, { "Wren-L3", 3, "L3" }, { "hqc-256", 5, "256" },
		{ "sphincs-sha2-192s-simple", 3, "192s" }, { "sphincs-shake-256f", 5, "256f" }, { "SQIsign_lvl5", 5, "lvl5" },
		{ "BIKE-L1", 1, "L1" }, { "cat1", 1, "cat1" }, { "Level-3", 3, "Level 3" }, { "x_level5", 5, "level5" },
		{ "Wren Category III", 3, "Category III" }, { "cross-rsdp-128-fast", 1, "128" }, { "kem-cat_5", 5, "cat 5" },
	};
	static const char *const no[] = {
		"Falcon-512", "FrodoKEM-640", "MAYO-2", "Kyber768", "Dilithium2", "ML-DSA-65", "ML-KEM-1024", "SHA3-256",
		"shake256", "aes128", "toy", "L7", "lvl6", "X-160F", "wren128-L3", "Wren-1280", "", "---",
	};
	char tok[32];
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		ck_assert_msg(category_from_name(yes[i].name, tok, sizeof tok) == yes[i].cat, "%s", yes[i].name);
		ck_assert_str_eq(tok, yes[i].token);
	}
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		ck_assert_msg(category_from_name(no[i], tok, sizeof tok) == 0, "%s gave a category", no[i]);
}
END_TEST

START_TEST(kat_driver_names_from_one_list)
{
	ck_assert(kat_driver_is("KAT_SIG.c"));
	ck_assert(kat_driver_is("PQCgenKAT_kem.cpp"));
	ck_assert(kat_driver_is("KAT_CryptHash.cxx"));
	ck_assert(!kat_driver_is("KAT_SIG.h"));
	ck_assert(!kat_driver_is("KAT_SIG"));
	ck_assert(!kat_driver_is("KAT_SIGN.c"));
	ck_assert(!kat_driver_is("sign.c"));
	char names[160];
	kat_driver_names(names, sizeof names);
	ck_assert_str_eq(names, "KAT_SIG.c, KAT_KEM.c, KAT_KEX.c, KAT_CryptHash.c, PQCgenKAT_sign.c, PQCgenKAT_kem.c");
	for (int i = 0; kat_driver_stems[i]; i++) {
		char file[64];
		snprintf(file, sizeof file, "%s.cc", kat_driver_stems[i]);
		ck_assert(kat_driver_is(file));
	}
	char small[12];
	kat_driver_names(small, sizeof small);
	ck_assert_str_eq(small, "KAT_SIG.\u2026");  /* too small: the cut shows */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("instance");
	TCase *tc = tcase_create("tree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, main_detection);
	tcase_add_test(tc, included_sources);
	tcase_add_test(tc, nist_tree);
	tcase_add_test(tc, ngcc_wins_over_nist);
	tcase_add_test(tc, not_a_tree);
	tcase_add_test(tc, kem_detection);
	tcase_add_test(tc, words_and_profiles);
	tcase_add_test(tc, shim_text);
	tcase_add_test(tc, sig_decls);
	tcase_add_test(tc, shim_context);
	tcase_add_test(tc, context_parse);
	tcase_add_test(tc, flag_refusals);
	tcase_add_test(tc, containment_refusals);
	tcase_add_test(tc, api_header_category);
	suite_add_tcase(s, tc);
	tc = tcase_create("kat_drivers");
	tcase_add_test(tc, kat_driver_names_from_one_list);
	tcase_add_test(tc, category_from_names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
