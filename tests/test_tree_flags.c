/*
 * test_tree_flags: reading a tree's Makefile and CMakeLists.txt without
 * running them, the instances a -D-switched tree serves, the choice among
 * them, and the instruction-set check.  Each case writes a small tree in a
 * temporary directory.
 */
#include "config.h"
#include "instance/instance_discover.h"
#include "instance/isa_check.h"
#include "instance/tree_flags.h"

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
	snprintf(root, sizeof root, "/tmp/pqprof-test-flags.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* The origin of `flag` in l, or NULL when l lacks it. */
static const char *origin_of(const struct flag_list *l, const char *flag)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].flag, flag) == 0)
			return l->v[i].origin;
	return NULL;
}

START_TEST(makefile_assignments)
{
	put("Makefile", "# flags\n"
	                "ARCH ?= -mavx2\n"
	                "ARCH ?= -msse2\n"
	                "BASE := -O3 $(ARCH)\n"
	                "CFLAGS = $(BASE) -Wall \\\n"
	                "         -fno-strict-aliasing\n"
	                "CFLAGS += -DLEVEL=$(LEVEL) -Iinclude -I/usr/include -I../elsewhere\n"
	                "LEVEL = 3\n"
	                "include common.mk\n"
	                "ifeq ($(LEVEL),3)\n"
	                "CPPFLAGS += -DTHREE\n"
	                "else\n"
	                "CPPFLAGS += -DNOT_THREE\n"
	                "endif\n"
	                "SHELLY := $(shell echo -DRAN_A_SHELL)\n"
	                "CFLAGS += $(SHELLY)\n"
	                "lib.so: CFLAGS += -mbmi2\n"
	                "debug: CFLAGS += -DDEBUG_ONLY\n"
	                "lib.so: x.c\n"
	                "\t$(CC) $(CFLAGS) -mpopcnt -o $@ $^ -lm\n"
	                "test: lib.so\n"
	                "\t$(CC) -fsanitize=address -DTEST_ONLY t.c\n");
	put("common.mk", "ASFLAGS = -DASM_SIDE\n");
	put("include/x.h", "\n");
	struct tree_flags tf;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_flags_read(root, &tf, &err), 0);
	ck_assert_str_eq(origin_of(&tf.flags, "-mavx2"), "Makefile:2");
	ck_assert_ptr_null(origin_of(&tf.flags, "-msse2"));
	ck_assert_str_eq(origin_of(&tf.flags, "-fno-strict-aliasing"), "Makefile:5");
	ck_assert_str_eq(origin_of(&tf.flags, "-DLEVEL=3"), "Makefile:7");
	ck_assert_str_eq(origin_of(&tf.flags, "-Iinclude"), "Makefile:7");
	ck_assert_str_eq(origin_of(&tf.flags, "-DTHREE"), "Makefile:11");
	ck_assert_ptr_null(origin_of(&tf.flags, "-DNOT_THREE"));
	ck_assert_str_eq(origin_of(&tf.flags, "-DASM_SIDE"), "common.mk:1");
	ck_assert_str_eq(origin_of(&tf.flags, "-mbmi2"), "Makefile:17");
	ck_assert_str_eq(origin_of(&tf.flags, "-mpopcnt"), "Makefile:20");
	ck_assert_ptr_null(origin_of(&tf.flags, "-DDEBUG_ONLY"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-DTEST_ONLY"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-fsanitize=address"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-DRAN_A_SHELL"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-Wall"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-lm"));
	ck_assert_ptr_nonnull(origin_of(&tf.info, "-O3"));
	ck_assert_ptr_nonnull(strstr(origin_of(&tf.info, "-I/usr/include"), "outside the tree"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-I../elsewhere"));
	ck_assert_int_eq(tf.nvariants, 0);
	ck_assert_str_eq(tf.files, "Makefile, common.mk");
	tree_flags_free(&tf);
}
END_TEST

START_TEST(makefile_foreach_variants)
{
	put("Makefile", "SETS = 1 2 3\n"
	                "NAMES = Foo-128 Foo-192 Foo-256\n"
	                "all:\n"
	                "\t$(foreach i,$(SETS),$(CC) -O2 -mavx2 -DFOO_LEVEL=$(i) "
	                "-DFOO_INSTANCE_NAME='\"$(word $(i),$(NAMES))\"' -o libfoo$(i).so foo.c;)\n");
	put("api.h", "#ifndef FOO_LEVEL\n#define FOO_LEVEL 2\n#endif\n"
	             "#ifndef FOO_INSTANCE_NAME\n#define FOO_INSTANCE_NAME \"Foo-192\"\n#endif\n"
	             "#define CRYPTO_ALGNAME FOO_INSTANCE_NAME\n");
	struct instance_set s;
	pq_error err = { 0 };
	ck_assert_int_eq(instance_discover(root, NULL, &s, &err), 0);
	ck_assert_int_eq(s.tf.nvariants, 3);
	ck_assert_str_eq(s.tf.variants[0].name, "Foo-128");
	ck_assert_str_eq(s.tf.variants[2].name, "Foo-256");
	ck_assert_str_eq(s.tf.variants[1].defines.v[0].flag, "-DFOO_LEVEL=2");
	ck_assert_str_eq(s.tf.variants[1].defines.v[1].flag, "-DFOO_INSTANCE_NAME=\"Foo-192\"");
	ck_assert_str_eq(origin_of(&s.tf.flags, "-mavx2"), "Makefile:4");
	ck_assert_str_eq(s.default_name, "Foo-192");
	ck_assert_int_eq(s.default_variant, 1);
	ck_assert_int_eq(s.ndefaults, 2);
	ck_assert_str_eq(s.defaults[0].macro, "FOO_LEVEL");
	ck_assert_str_eq(s.defaults[0].origin, "api.h:2");

	/* Choosing: by name, by directory, never by guessing. */
	int chosen;
	char dir_inst[128];
	ck_assert_int_eq(instance_select(&s, "/x/Foo-256", NULL, NULL, 0, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_int_eq(chosen, 2);
	ck_assert_str_eq(dir_inst, "Foo-256");
	ck_assert_int_eq(instance_select(&s, "/x/foo", "Foo-128", NULL, 0, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_int_eq(chosen, 0);
	ck_assert_str_eq(dir_inst, "");
	ck_assert_int_lt(instance_select(&s, "/x/foo", NULL, NULL, 0, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_int_eq(err.code, PQ_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "Foo-128, Foo-192 (header default), Foo-256"));
	const char *hand[] = { "FOO_LEVEL=3" };
	ck_assert_int_eq(instance_select(&s, "/x/Foo-128", NULL, hand, 1, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_int_eq(chosen, -1);          /* the user's switches choose */
	ck_assert_str_eq(dir_inst, "Foo-128"); /* and are checked against the directory after the build */
	ck_assert_int_lt(instance_name_check("/x/Foo-128", "Foo-256", NULL, dir_inst, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "Foo-128"));
	ck_assert_ptr_nonnull(strstr(err.msg, "Foo-256"));
	ck_assert_int_eq(instance_name_check("/x/Foo-128", "Foo-128", "Foo-128", dir_inst, &err), 0);
	instance_set_free(&s);
}
END_TEST

START_TEST(makefile_recursive_loop_and_single_instance)
{
	/* A shell loop whose switches do not vary is no instance list. */
	put("Makefile", "all:\n\tfor f in a.c b.c; do $(CC) -c -DONE=1 $$f; done\n");
	put("SIG_AlgorithmInstance.h", "#define ALGORITHM_INSTANCE \"Only-1\"\n");
	struct instance_set s;
	pq_error err = { 0 };
	ck_assert_int_eq(instance_discover(root, NULL, &s, &err), 0);
	ck_assert_int_eq(s.tf.nvariants, 0);
	ck_assert_str_eq(origin_of(&s.tf.flags, "-DONE=1"), "Makefile:2");
	ck_assert_str_eq(s.default_name, "Only-1");
	int chosen;
	char dir_inst[128];
	ck_assert_int_eq(instance_select(&s, "/x/Only-1", NULL, NULL, 0, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_int_eq(chosen, -1);
	ck_assert_str_eq(dir_inst, "Only-1");
	ck_assert_int_lt(instance_select(&s, "/x/y", "Other", NULL, 0, &chosen, dir_inst, sizeof dir_inst, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "it builds Only-1"));
	instance_set_free(&s);
}
END_TEST

START_TEST(makefile_recursive_make)
{
	/* A loop that runs make again with a variable set, the switch written once in a rule. */
	put("Makefile", "LEVEL ?= 2\n"
	                "CFLAGS = -O2 -DLEVEL=$(LEVEL)\n"
	                "lib:\n\t$(CC) $(CFLAGS) -shared -o libx.so x.c\n"
	                "all-levels:\n"
	                "\tfor l in 1 2 3; do \\\n"
	                "\t\t$(MAKE) LEVEL=$$l lib || exit 1; \\\n"
	                "\tdone\n");
	put("api.h", "#ifndef LEVEL\n#define LEVEL 2\n#endif\n#define CRYPTO_ALGNAME \"X\"\n");
	struct instance_set s;
	pq_error err = { 0 };
	ck_assert_int_eq(instance_discover(root, NULL, &s, &err), 0);
	ck_assert_int_eq(s.tf.nvariants, 3);
	ck_assert_str_eq(s.tf.variants[0].label, "1");
	ck_assert_str_eq(s.tf.variants[0].defines.v[0].flag, "-DLEVEL=1");
	ck_assert_str_eq(s.tf.variants[2].defines.v[0].flag, "-DLEVEL=3");
	ck_assert_int_eq(s.default_variant, 1);
	ck_assert_ptr_null(origin_of(&s.tf.flags, "-DLEVEL=2")); /* the selecting macro is the variant's */
	instance_set_free(&s);
}
END_TEST

START_TEST(makefile_expansion_bomb)
{
	/* Each variable doubles the one before: 2^40 words if expanded in full. */
	char mk[4096] = "V0 = -DX\n";
	for (int i = 1; i <= 40; i++) {
		size_t n = strlen(mk);
		snprintf(mk + n, sizeof mk - n, "V%d = $(V%d) $(V%d)\n", i, i - 1, i - 1);
	}
	strcat(mk, "CFLAGS = -mavx2 $(V40)\n");
	put("Makefile", mk);
	struct tree_flags tf;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_flags_read(root, &tf, &err), 0);
	ck_assert_ptr_nonnull(origin_of(&tf.flags, "-mavx2"));
	ck_assert_ptr_nonnull(origin_of(&tf.info, "$(...)"));
	tree_flags_free(&tf);
}
END_TEST

START_TEST(cmake_flags)
{
	put("CMakeLists.txt", "cmake_minimum_required(VERSION 3.11)\n"
	                      "project(vexil C ASM)\n"
	                      "set(ARCH \"-mavx2\")\n"
	                      "set(CMAKE_C_FLAGS \"${CMAKE_C_FLAGS} -O3 ${ARCH}\")\n"
	                      "string(APPEND CMAKE_C_FLAGS \" -mbmi2\")\n"
	                      "add_compile_options(-fno-strict-aliasing -Wall)  # comment\n"
	                      "add_definitions(-DUSE_AVX2)\n"
	                      "add_compile_definitions(LEVEL=5)\n"
	                      "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc)\n"
	                      "add_library(vexil SHARED a.c)\n"
	                      "target_compile_options(vexil PRIVATE\n  -mpopcnt)\n"
	                      "add_executable(test_vexil t.c)\n"
	                      "target_compile_options(test_vexil PRIVATE -fsanitize=address -mavx512f)\n");
	put("inc/a.h", "\n");
	struct tree_flags tf;
	pq_error err = { 0 };
	ck_assert_int_eq(tree_flags_read(root, &tf, &err), 0);
	ck_assert_str_eq(origin_of(&tf.flags, "-mavx2"), "CMakeLists.txt:4");
	ck_assert_str_eq(origin_of(&tf.flags, "-mbmi2"), "CMakeLists.txt:5");
	ck_assert_str_eq(origin_of(&tf.flags, "-fno-strict-aliasing"), "CMakeLists.txt:6");
	ck_assert_str_eq(origin_of(&tf.flags, "-DUSE_AVX2"), "CMakeLists.txt:7");
	ck_assert_str_eq(origin_of(&tf.flags, "-DLEVEL=5"), "CMakeLists.txt:8");
	ck_assert_str_eq(origin_of(&tf.flags, "-Iinc"), "CMakeLists.txt:9");
	ck_assert_str_eq(origin_of(&tf.flags, "-mpopcnt"), "CMakeLists.txt:11");
	ck_assert_ptr_null(origin_of(&tf.flags, "-mavx512f"));
	ck_assert_ptr_null(origin_of(&tf.flags, "-Wall"));
	ck_assert_ptr_nonnull(origin_of(&tf.info, "-O3"));
	tree_flags_free(&tf);
}
END_TEST

START_TEST(shell_words)
{
	char **w;
	int n;
	ck_assert_int_eq(shell_split("-DA=\\\"x\\\" '-DB=\"y z\"' -DC=\"q\" plain", &w, &n), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(w[0], "-DA=\"x\"");
	ck_assert_str_eq(w[1], "-DB=\"y z\"");
	ck_assert_str_eq(w[2], "-DC=q");
	ck_assert_str_eq(w[3], "plain");
	for (int i = 0; i < n; i++)
		free(w[i]);
	free(w);
	ck_assert_int_eq(tree_flag_kind("-mavx2"), 1);
	ck_assert_int_eq(tree_flag_kind("-O3"), 2);
	ck_assert_int_eq(tree_flag_kind("-fsanitize=address"), 2);
	ck_assert_int_eq(tree_flag_kind("-Wall"), 0);
	ck_assert_int_eq(tree_flag_kind("-lcrypto"), 0);
	ck_assert_int_eq(tree_flag_kind("-std=gnu99"), 1);
	ck_assert_int_eq(tree_flag_kind("-m32"), 2);
}
END_TEST

START_TEST(instruction_sets)
{
	char needs[256], missing[256];
	const char *src;
	ck_assert_int_eq(isa_needs("-mavx2", needs, sizeof needs), 1);
	ck_assert_str_eq(needs, "avx2");
	ck_assert_int_eq(isa_needs("-mbmi", needs, sizeof needs), 1);
	ck_assert_str_eq(needs, "bmi1");
	ck_assert_int_eq(isa_needs("-O2", needs, sizeof needs), 0);
	setenv("PQPROF_CPU_FLAGS", "fpu sse2 avx2 popcnt", 1);
	ck_assert_int_eq(isa_missing("-mavx2", missing, sizeof missing, &src), 0);
	ck_assert_int_eq(isa_missing("-mavx512f", missing, sizeof missing, &src), 1);
	ck_assert_str_eq(missing, "avx512f");
	ck_assert_str_eq(src, "$PQPROF_CPU_FLAGS");
	ck_assert_int_eq(isa_missing("-march=x86-64-v3", missing, sizeof missing, &src), 13);
	unsetenv("PQPROF_CPU_FLAGS");
	/* The real CPU: whatever it has, sse2 is there on x86-64. */
#if defined(__x86_64__)
	ck_assert_int_eq(isa_missing("-march=x86-64-v2", missing, sizeof missing, &src) >= 0, 1);
	ck_assert_str_eq(src, "/proc/cpuinfo");
#endif
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree_flags");
	TCase *tc = tcase_create("flags");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, makefile_assignments);
	tcase_add_test(tc, makefile_foreach_variants);
	tcase_add_test(tc, makefile_recursive_loop_and_single_instance);
	tcase_add_test(tc, makefile_recursive_make);
	tcase_add_test(tc, makefile_expansion_bomb);
	tcase_add_test(tc, cmake_flags);
	tcase_add_test(tc, shell_words);
	tcase_add_test(tc, instruction_sets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
