/* Unit tests: compiler flags with their origins (flag_list.h) and the instruction-set check (isa_check.h). */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "instance/flag_list.h"
#include "instance/isa_check.h"

START_TEST(flag_lists)
{
	struct flag_list l = { 0 };
	ck_assert_int_eq(flag_list_add(&l, "-DX=1", "compile of a.c"), 0);
	ck_assert_int_eq(flag_list_add(&l, "-mavx2", NULL), 0);
	ck_assert_int_eq(l.n, 2);
	ck_assert_str_eq(l.v[0].flag, "-DX=1");
	ck_assert_str_eq(l.v[0].origin, "compile of a.c");
	ck_assert_str_eq(l.v[1].origin, "");
	flag_list_free(&l);
	ck_assert_int_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
	char mac[64];
	define_macro_name("-DNAME=\"x\"", mac, sizeof mac);
	ck_assert_str_eq(mac, "NAME");
	define_macro_name("-UFOO", mac, sizeof mac);
	ck_assert_str_eq(mac, "FOO");
	define_macro_name("-DF(x)=x", mac, sizeof mac);
	ck_assert_str_eq(mac, "F");
	define_macro_name("-O2", mac, sizeof mac);
	ck_assert_str_eq(mac, "");
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
	Suite *s = suite_create("flag_list");
	TCase *tc = tcase_create("flags");
	tcase_add_test(tc, flag_lists);
	tcase_add_test(tc, shell_words);
	tcase_add_test(tc, instruction_sets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
