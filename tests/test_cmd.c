/*
 * Check suite for the command layer (src/cmd/): the command table, the
 * setup command_run() does around every command (signal forwarding for
 * commands that run children, the standard output check), the dispatch
 * of pqprof's own command line, and cmd_parse(); and that every real
 * command's -h says what its option table holds: each option in the usage
 * line and in the list, each default stated, each old spelling named with
 * the option that replaces it.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/interrupt.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/pq_error.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_table_rows)
{
	int n = 0;
	for (const struct command *c = pq_commands; c->name; c++, n++) {
		ck_assert_msg(c->name[0] != '\0', "row %d has an empty name", n);
		ck_assert_msg(c->fn != NULL, "%s has no function", c->name);
		ck_assert_msg(c->summary && c->summary[0], "%s has no summary", c->name);
		ck_assert_msg(command_find(pq_commands, c->name) == c, "%s is listed twice", c->name);
	}
	ck_assert_int_ge(n, 15);
	ck_assert_ptr_null(command_find(pq_commands, "no-such-command"));
	ck_assert_uint_ne(command_find(pq_commands, "bench")->flags & CMD_RUNS_CHILDREN, 0);
	ck_assert_uint_eq(command_find(pq_commands, "trace")->flags & CMD_RUNS_CHILDREN, 0);
}
END_TEST

/* ---- a table of fake commands ---- */

static int seen_argc;
static char seen_name[32];
static int seen_forwarding;

static int handler_installed(int sig)
{
	struct sigaction sa;
	sigaction(sig, NULL, &sa);
	return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

static int fake_print(int argc, char **argv)
{
	seen_argc = argc;
	snprintf(seen_name, sizeof seen_name, "%s", argv[0]);
	/* Every command stops cleanly on a signal; only those running children end them first. */
	ck_assert(handler_installed(SIGTERM) && handler_installed(SIGINT));
	seen_forwarding = interrupt_stops_children();
	printf("some output\n");
	return 0;
}

static int fake_fail(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("partial output\n");
	return PQ_ELOAD;
}

static const struct command fakes[] = {
	{ "print", fake_print, "prints a line", 0 },
	{ "spawn", fake_print, "prints a line, runs children", CMD_RUNS_CHILDREN },
	{ "fail", fake_fail, "fails with status 5", 0 },
	{ NULL, NULL, NULL, 0 },
};

START_TEST(test_dispatch)
{
	/* Keep the fakes' output and the usage texts out of the test log. */
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
	char *a1[] = { "pqprof", "print", "x", "y", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 4, a1), 0);
	ck_assert_int_eq(seen_argc, 3);
	ck_assert_str_eq(seen_name, "print");
	char *a2[] = { "pqprof", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 1, a2), PQ_EUSAGE);
	char *a3[] = { "pqprof", "nope", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 2, a3), PQ_EUSAGE);
	char *a4[] = { "pqprof", "--help", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 2, a4), 0);
	char *a5[] = { "pqprof", "--version", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 2, a5), 0);
	char *a6[] = { "pqprof", "fail", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 2, a6), PQ_ELOAD);
}
END_TEST

/* Runs in its own process (Check forks), so the handlers stay there. */
START_TEST(test_signal_forwarding_by_flag)
{
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
	char *argv[] = { "print", NULL };
	seen_forwarding = -1;
	ck_assert_int_eq(command_run(&fakes[0], 1, argv), 0);
	ck_assert_int_eq(seen_forwarding, 0);
	char *argv2[] = { "spawn", NULL };
	ck_assert_int_eq(command_run(&fakes[1], 1, argv2), 0);
	ck_assert_int_eq(seen_forwarding, 1);
}
END_TEST

START_TEST(test_stdout_write_error)
{
	/* Output that cannot be written is an I/O error (exit status 3)... */
	if (!freopen("/dev/full", "w", stdout))
		return; /* no /dev/full here: nothing to test */
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
	setvbuf(stdout, NULL, _IOFBF, 4096);
	char *argv[] = { "print", NULL };
	ck_assert_int_eq(command_run(&fakes[0], 1, argv), pq_exit_code(PQ_EIO));
	ck_assert_int_eq(pq_exit_code(PQ_EIO), 3);
	/* ...unless the command already failed: its own status wins. */
	clearerr(stdout);
	char *argv2[] = { "fail", NULL };
	ck_assert_int_eq(command_run(&fakes[2], 1, argv2), PQ_ELOAD);
	clearerr(stdout);
	char *argv3[] = { "pqprof", "--version", NULL };
	ck_assert_int_eq(command_dispatch(fakes, 2, argv3), 3);
}
END_TEST

START_TEST(test_cmd_parse)
{
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
	int flag = 0;
	long n = 0;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "flag", &flag, NULL, "a flag", NULL },
		{ OPT_INT, 'n', "number", &n, "N", "a number", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[2];
	int status = -1;
	char *a1[] = { "x", "--flag", "-n", "7", "one", "two", NULL };
	ck_assert_int_eq(cmd_parse("x", 6, a1, "x [--flag] [-n N] A B", specs, pos, 2, &status), 2);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(n, 7);
	ck_assert_str_eq(pos[1], "two");
	char *a2[] = { "x", "-h", NULL };
	ck_assert_int_eq(cmd_parse("x", 2, a2, "x", specs, pos, 2, &status), -1);
	ck_assert_int_eq(status, 0);
	char *a3[] = { "x", "--bogus", NULL };
	ck_assert_int_eq(cmd_parse("x", 2, a3, "x", specs, pos, 2, &status), -1);
	ck_assert_int_eq(status, PQ_EUSAGE);
	char *a4[] = { "x", "a", "b", "c", NULL };
	ck_assert_int_eq(cmd_parse("x", 4, a4, "x", specs, pos, 2, &status), -1);
	ck_assert_int_eq(status, PQ_EUSAGE);
}
END_TEST

/* OPT_U64 takes every unsigned 64-bit decimal exactly and refuses anything else with a message. */
START_TEST(test_option_u64)
{
	uint64_t v = 0;
	const struct option_spec specs[] = {
		{ OPT_U64, 0, "seed", &v, "N", "a seed", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *good[][2] = { { "0", "0" }, { "9007199254740993", "9007199254740993" },
		                  { "18446744073709551615", "18446744073709551615" } };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char *a[] = { "x", "--seed", (char *)good[i][0], NULL };
		pq_error err = { 0 };
		int help = 0;
		ck_assert_int_eq(options_parse(3, a, specs, NULL, 0, &help, &err), 0);
		char back[32];
		snprintf(back, sizeof back, "%llu", (unsigned long long)v);
		ck_assert_str_eq(back, good[i][1]);
	}
	const char *bad[] = { "", "-1", " 5", "+5", "18446744073709551616", "1e3", "12x", "0x10", "3.0" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *a[] = { "x", "--seed", (char *)bad[i], NULL };
		pq_error err = { 0 };
		int help = 0;
		v = 7;
		ck_assert_msg(options_parse(3, a, specs, NULL, 0, &help, &err) < 0, "'%s' was taken", bad[i]);
		ck_assert_msg(strstr(err.msg, "not an unsigned 64-bit integer"), "'%s': %s", bad[i], err.msg);
		ck_assert_int_eq(v, 7);
	}
}
END_TEST

START_TEST(test_cmd_fail)
{
	ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
	pq_error err;
	pq_fail(&err, PQ_EINPUT, "file.txt: not a KAT file");
	ck_assert_int_eq(cmd_fail("kat", &err), 2);
	pq_error none = { 0 };
	ck_assert_int_eq(cmd_fail("kat", &none), pq_exit_code(PQ_EINTERNAL));
}
END_TEST

/* ---- every real command's -h against its option table ---- */

static int checked_commands;

static const char *entry_line(const char *help, const char *name)
{
	/* the list entry: a line starting "  -x, --name" or "  --name" */
	char a[96], b[96];
	snprintf(a, sizeof a, "\n  --%s", name);
	snprintf(b, sizeof b, ", --%s", name);
	const char *p = strstr(help, a);
	if (!p) {
		p = strstr(help, b);
		while (p && p[-5] != '\n')
			p = strstr(p + 1, b);
	}
	return p;
}

static void check_table(void *ctx, const char *cmd, const char *usage, const struct option_spec *specs)
{
	(void)ctx;
	char *help = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&help, &len);
	ck_assert_ptr_nonnull(f);
	options_usage(f, usage, specs);
	fclose(f);
	/* The usage line: everything up to the first blank line. */
	const char *blank = strstr(help, "\n\n");
	ck_assert_msg(blank, "%s: -h has no option list", cmd);
	size_t ulen = (size_t)(blank - help);
	for (const struct option_spec *s = specs; s->type != OPT_END; s++) {
		ck_assert_msg(s->long_name, "%s: an option without a long name", cmd);
		if (s->type == OPT_DEPRECATED) {
			const struct option_spec *t = options_alias_target(specs, s);
			ck_assert_msg(t, "%s: --%s replaces nothing in the table", cmd, s->long_name);
			char want[160];
			snprintf(want, sizeof want, "--%s (use --%s", s->long_name, opt_alias_of(s)->of);
			ck_assert_msg(strstr(blank, want), "%s: -h does not name the old spelling --%s", cmd, s->long_name);
			continue;
		}
		char word[96];
		if (s->short_name)
			snprintf(word, sizeof word, "-%c", s->short_name);
		else
			snprintf(word, sizeof word, "--%s", s->long_name);
		const char *u = strstr(help, word);
		ck_assert_msg(u && (size_t)(u - help) < ulen, "%s: the usage line leaves out %s", cmd, word);
		const char *e = entry_line(blank, s->long_name);
		ck_assert_msg(e, "%s: -h does not list --%s", cmd, s->long_name);
		const char *eol = strchr(e + 1, '\n');
		ck_assert_msg(!s->help || !strstr(s->help, "(default"),
		              "%s --%s: the default is written into the help text, not the table", cmd, s->long_name);
		char d[256] = "", want[300];
		if (options_default(s, -1, d, sizeof d)) {
			snprintf(want, sizeof want, "(default: %s)", d);
			const char *w = strstr(e, want);
			ck_assert_msg(w && (!eol || w < eol), "%s --%s: -h does not say %s", cmd, s->long_name, want);
		}
		/* A negative starting value is a sentinel ("not pinned"): its meaning must be in words. */
		ck_assert_msg(s->deflt || d[0] != '-', "%s --%s: the default shown is the sentinel %s", cmd, s->long_name, d);
		/* A number always has a value when it is not given: the table must say which. */
		int numeric = s->type == OPT_INT || s->type == OPT_DOUBLE || s->type == OPT_U64 || s->type == OPT_SCOPED;
		ck_assert_msg(!numeric || options_default(s, -1, d, sizeof d) || (s->help && strstr(s->help, "(required)")),
		              "%s --%s: no default stated", cmd, s->long_name);
		if (s->type == OPT_SCOPED) {
			const struct opt_scope *sc = s->value;
			for (int i = 1; sc[i].name; i++) {
				snprintf(want, sizeof want, "%s=%s: ", sc[i].name, s->arg_name);
				ck_assert_msg(strstr(e, want), "%s --%s: -h leaves out scope %s", cmd, s->long_name, sc[i].name);
				ck_assert_msg(options_default(s, i, d, sizeof d), "%s --%s %s=: no default stated", cmd,
				              s->long_name, sc[i].name);
			}
		}
	}
	free(help);
	checked_commands++;
}

START_TEST(test_help_says_the_table)
{
	checked_commands = 0;
	int n = 0;
	for (const struct command *c = pq_commands; c->name; c++, n++)
		ck_assert_int_eq(cmd_describe(c, check_table, NULL), 0);
	ck_assert_int_eq(checked_commands, n);
}
END_TEST

START_TEST(test_deprecated_alias)
{
	char *err = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&err, &len);
	ck_assert_ptr_nonnull(f);
	FILE *saved = stderr;
	stderr = f;
	double plain = 1, kat = 2;
	struct opt_scope timeouts[] = { { "", &plain, NULL, NULL }, { "kat", &kat, "the replay", NULL }, { NULL, NULL, NULL, NULL } };
	const struct option_spec specs[] = {
		{ OPT_SCOPED, 0, "timeout", timeouts, "S", "limit", NULL },
		OPT_ALIAS("kat-timeout", "timeout", "kat"),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	int status = -1;
	char *a[] = { "x", "--kat-timeout", "5", "--timeout", "7", "--kat-timeout=6", NULL };
	ck_assert_int_eq(cmd_parse("x", 6, a, "x", specs, pos, 1, &status), 0);
	stderr = saved;
	fclose(f);
	ck_assert_double_eq(kat, 6);
	ck_assert_double_eq(plain, 7);
	ck_assert_str_eq(err, "pqprof x: --kat-timeout is deprecated; use --timeout kat=S\n");
	free(err);
	char *b[] = { "x", "--timeout", "kat=3", NULL };
	ck_assert_int_eq(cmd_parse("x", 3, b, "x", specs, pos, 1, &status), 0);
	ck_assert_double_eq(kat, 3);
}
END_TEST

static Suite *cmd_suite(void)
{
	Suite *s = suite_create("cmd");
	TCase *t = tcase_create("table");
	tcase_add_test(t, test_table_rows);
	suite_add_tcase(s, t);
	TCase *r = tcase_create("run");
	tcase_add_test(r, test_dispatch);
	tcase_add_test(r, test_signal_forwarding_by_flag);
	tcase_add_test(r, test_stdout_write_error);
	tcase_add_test(r, test_cmd_parse);
	tcase_add_test(r, test_option_u64);
	tcase_add_test(r, test_cmd_fail);
	tcase_add_test(r, test_deprecated_alias);
	suite_add_tcase(s, r);
	TCase *h = tcase_create("help");
	tcase_add_test(h, test_help_says_the_table);
	suite_add_tcase(s, h);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cmd_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
