/*
 * test_annotate: Check suite for the parts of pqprof annotate that need
 * no samples: basic blocks and loops from made-up instruction lists
 * (code_flow.c: back edges, nesting, several back edges to one head,
 * forward branches that are not loops), capstone disassembly of a
 * function of this test executable (disasm.c), and lining up two builds
 * by source line (annotate_diff).  The sampled side is tested end to end
 * in tests/e2e/annotate.sh.
 */
#include "config.h"
#include "profile/annotate.h"
#include "profile/code_flow.h"
#include "profile/disasm.h"
#include "profile/profile_run.h"

#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long tan_sink;

__attribute__((noinline, used)) unsigned long tan_looping(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++) {
		x = x * 3 + i;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Instruction i at 0x100 + 4 i; b[i] = branch target index + 1 (0: none). */
static void make(struct flow_insn *in, size_t n, const int *kind, const int *tgt)
{
	for (size_t i = 0; i < n; i++) {
		in[i].addr = 0x100 + 4 * i;
		in[i].size = 4;
		in[i].kind = (enum flow_kind)kind[i];
		in[i].target = tgt[i] ? 0x100 + 4 * (uint64_t)(tgt[i] - 1) : 0;
	}
}

START_TEST(two_loops_in_a_row)
{
	/* 0 1 [2 3 4 jcc->2] 6 [7 8 jcc->7] ret */
	enum { N = 11 };
	int kind[N] = { 0, 0, 0, 0, 0, FLOW_COND, 0, 0, 0, FLOW_COND, FLOW_RET };
	int tgt[N] = { 0, 0, 0, 0, 0, 3, 0, 0, 0, 8, 0 };
	struct flow_insn in[N];
	make(in, N, kind, tgt);
	struct flow_loop *l;
	size_t nl;
	ck_assert_int_eq(flow_loops(in, N, &l, &nl), 0);
	ck_assert_uint_eq(nl, 2);
	ck_assert_uint_eq(l[0].head, 2);
	ck_assert_uint_eq(l[0].tail, 5);
	ck_assert_int_eq(l[0].depth, 1);
	ck_assert_uint_eq(l[1].head, 7);
	ck_assert_uint_eq(l[1].tail, 9);
	ck_assert_int_eq(l[1].depth, 1);
	free(l);
	struct flow_block *b;
	size_t nb;
	ck_assert_int_eq(flow_blocks(in, N, &b, &nb), 0);
	/* [0 1] [2..5] [6] [7..9] [10] */
	ck_assert_uint_eq(nb, 5);
	ck_assert_uint_eq(b[1].first, 2);
	ck_assert_uint_eq(b[1].n, 4);
	ck_assert_uint_eq(b[2].first, 6);
	ck_assert_uint_eq(b[3].first, 7);
	ck_assert_uint_eq(b[4].first, 10);
	free(b);
}
END_TEST

START_TEST(nested_and_shared_heads)
{
	/* [0 [1 2 jcc->1] 4 jcc->1 jmp->0] ret: the outer loop (head 0) holds
	 * one inner loop (head 1) with two back edges, up to the last (5). */
	enum { N = 8 };
	int kind[N] = { 0, 0, 0, FLOW_COND, 0, FLOW_COND, FLOW_JUMP, FLOW_RET };
	int tgt[N] = { 0, 0, 0, 2, 0, 2, 1, 0 };
	struct flow_insn in[N];
	make(in, N, kind, tgt);
	struct flow_loop *l;
	size_t nl;
	ck_assert_int_eq(flow_loops(in, N, &l, &nl), 0);
	ck_assert_uint_eq(nl, 2);
	ck_assert_uint_eq(l[0].head, 0);
	ck_assert_uint_eq(l[0].tail, 6);
	ck_assert_int_eq(l[0].depth, 1);
	ck_assert_uint_eq(l[1].head, 1);
	ck_assert_uint_eq(l[1].tail, 5);
	ck_assert_int_eq(l[1].depth, 2);
	free(l);
}
END_TEST

START_TEST(forward_branches_are_not_loops)
{
	/* jcc->3, jmp->4 (forward), a call back to 0 (not a branch), a
	 * branch into the middle of an instruction, an indirect jump. */
	enum { N = 6 };
	int kind[N] = { FLOW_COND, FLOW_JUMP, FLOW_CALL, 0, FLOW_JUMP, FLOW_RET };
	int tgt[N] = { 4, 5, 1, 0, 0, 0 };
	struct flow_insn in[N];
	make(in, N, kind, tgt);
	in[3].kind = FLOW_COND;
	in[3].target = 0x101;
	struct flow_loop *l;
	size_t nl;
	ck_assert_int_eq(flow_loops(in, N, &l, &nl), 0);
	ck_assert_uint_eq(nl, 0);
	free(l);
	ck_assert_uint_eq(flow_find(in, N, 0x100), 0);
	ck_assert_uint_eq(flow_find(in, N, 0x107), 1);
	ck_assert_uint_eq(flow_find(in, N, 0x100 + 4 * N), N);
	ck_assert_uint_eq(flow_find(in, N, 0xff), N);
}
END_TEST

START_TEST(disassembles_own_function)
{
	struct disasm_func f;
	pq_error err = { 0 };
	ck_assert_msg(disasm_function("/proc/self/exe", "tan_looping", 0, &f, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(f.name, "tan_looping");
	ck_assert_uint_gt(f.n, 3);
	ck_assert_uint_eq(f.flow[0].addr, f.start);
	ck_assert_uint_eq(f.flow[f.n - 1].addr + f.flow[f.n - 1].size, f.start + f.size);
	struct flow_loop *l;
	size_t nl;
	ck_assert_int_eq(flow_loops(f.flow, f.n, &l, &nl), 0);
	ck_assert_uint_ge(nl, 1);
	free(l);
	/* By address: the same function. */
	struct disasm_func g;
	ck_assert_int_eq(disasm_function("/proc/self/exe", NULL, f.start + 1, &g, &err), 0);
	ck_assert_str_eq(g.name, "tan_looping");
	uint64_t off, va;
	ck_assert_int_eq(disasm_offset_of(&g, g.start, &off), 0);
	ck_assert_int_eq(disasm_vaddr_of(&g, off, &va), 0);
	ck_assert_uint_eq(va, g.start);
	disasm_func_free(&g);
	disasm_func_free(&f);
	ck_assert_int_eq(disasm_function("/proc/self/exe", "no_such_function_here", 0, &f, &err), -PQ_EUSAGE);
	ck_assert_int_eq(disasm_function("/nonexistent/lib.so", "x", 0, &f, &err), -PQ_EIO);
	(void)tan_looping(tan_sink);
}
END_TEST

static json_t *ann(double units, const char *spec)
{
	/* spec: "line:units,line:units,..." in file a.c */
	json_t *lines = json_array();
	char *s = strdup(spec), *save = NULL;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_array_append_new(lines, json_pack("{s:s, s:i, s:n, s:n, s:f}", "file", "a.c", "line",
		                                       atoi(t), "inlined_from", "text", "units_per_op",
		                                       atof(strchr(t, ':') + 1)));
	free(s);
	return json_pack("{s:s, s:s, s:s, s:f, s:o, s:[]}", "function", "f", "op", "sign", "unit", "ns",
	                 "units_per_op", units, "lines", lines, "loops");
}

START_TEST(diff_lines_up_source_lines)
{
	json_t *b = ann(100, "10:60,11:40,12:0"), *a = ann(80, "10:50,11:30,13:0");
	json_t *d = annotate_diff(b, a);
	ck_assert_int_eq(json_integer_value(json_object_get(d, "lines_matched")), 2);
	json_t *l = json_object_get(d, "lines");
	ck_assert_uint_eq(json_array_size(l), 4);
	json_t *l10 = json_array_get(l, 0);
	ck_assert_int_eq(json_integer_value(json_object_get(l10, "line")), 10);
	ck_assert_double_eq_tol(json_real_value(json_object_get(l10, "change")), -10, 1e-9);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(l, 2), "in")), "before");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(l, 3), "in")), "after");
	ck_assert_double_eq_tol(json_real_value(json_object_get(d, "ratio")), 0.8, 1e-9);
	ck_assert_str_eq(json_string_value(json_object_get(d, "unit")), "ns");
	json_decref(d);
	json_decref(a);
	json_decref(b);
}
END_TEST

START_TEST(precise_cycles_are_cycles)
{
	/* A precise event is labelled cycles:p / cycles:pp; its unit stays cycles. */
	ck_assert_str_eq(profile_event_unit("cycles"), "cycles");
	ck_assert_str_eq(profile_event_unit("cycles:pp"), "cycles");
	ck_assert_str_eq(profile_event_unit("cycles:p"), "cycles");
	ck_assert_str_eq(profile_event_unit("cpu-clock"), "ns");
	ck_assert_str_eq(profile_event_unit("cyclesx"), "ns");
}
END_TEST

static Suite *annotate_suite(void)
{
	Suite *s = suite_create("annotate");
	TCase *tc = tcase_create("flow");
	tcase_add_test(tc, two_loops_in_a_row);
	tcase_add_test(tc, nested_and_shared_heads);
	tcase_add_test(tc, forward_branches_are_not_loops);
	tcase_add_test(tc, disassembles_own_function);
	tcase_add_test(tc, diff_lines_up_source_lines);
	tcase_add_test(tc, precise_cycles_are_cycles);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(annotate_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
