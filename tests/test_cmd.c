/*
 * Check suite for the command layer (src/cmd/): the command table, the
 * setup command_run() does around every command (signal forwarding for
 * commands that run children, the standard output check), the dispatch
 * of pqprof's own command line, and cmd_parse().
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/interrupt.h"
#include "core/options.h"
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
		{ OPT_FLAG, 0, "flag", &flag, NULL, "a flag" },
		{ OPT_INT, 'n', "number", &n, "N", "a number" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
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
	tcase_add_test(r, test_cmd_fail);
	suite_add_tcase(s, r);
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
