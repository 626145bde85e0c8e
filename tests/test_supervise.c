/*
 * test_supervise: the parent side of the runner (src/supervise/).
 *
 * child_run spawns the real pqprof-runner on instance libraries built from
 * the fixture trees (the well-behaved NIST toy and hostile trees that
 * loop, crash, exit, fork or flood), and must turn every way a child ends
 * into the right child_end and description: a hanging child becomes a
 * time-out, signals and exit() inside scheme code become verdicts, and no
 * process of the child's group survives.  The result channel is tested
 * with stand-in runners (shell scripts named by $PQPROF_RUNNER) that write
 * exactly the lines under test to descriptor 3.
 */
#include "config.h"
#include "core/contain.h"
#include "instance/builder.h"
#include "supervise/bench.h"
#include "supervise/child.h"
#include "supervise/describe.h"
#include "supervise/kat_gate.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work[] = "/tmp/pqprof-test-supervise.XXXXXX";

static const char *srcdir(void)
{
	const char *s = getenv("top_srcdir");
	return s ? s : ".";
}

/* The instance library built from tests/fixtures/<tree>, under the work dir. */
static const char *lib(const char *tree)
{
	static char path[8][4096];
	static int next;
	char *p = path[next++ % 8];
	char name[256];
	snprintf(name, sizeof name, "%s", tree);
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '_';
	snprintf(p, sizeof path[0], "%s/%s.so", work, name);
	return p;
}

static void build_fixture(const char *tree)
{
	char src[4096];
	snprintf(src, sizeof src, "%s/tests/fixtures/%s", srcdir(), tree);
	struct build_options bo = { .src_dir = src, .out_path = lib(tree), .api = TREE_API_AUTO };
	struct build_result br;
	pq_error err = { 0 };
	if (instance_build(&bo, &br, &err) < 0) {
		fprintf(stderr, "test_supervise: cannot build %s: %s\n", tree, err.msg);
		abort();
	}
	build_result_free(&br);
}

static const char *const trees[] = {
	"nist-toy", "hostile/endless-loop", "hostile/sleep-ignoring-signals", "hostile/segv-in-sign",
	"hostile/exit-in-keygen", "hostile/fork-child", "hostile/flood-output", NULL,
};

static void setup_libs(void)
{
	if (!mkdtemp(work))
		abort();
	for (int i = 0; trees[i]; i++)
		build_fixture(trees[i]);
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static void teardown_libs(void)
{
	remove_tree(work);
}

/* Processes still alive (not zombies) in process group pgid. */
static int group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char p[300], buf[1024];
		snprintf(p, sizeof p, "/proc/%s/stat", de->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		/* pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses. */
		char *rp = strrchr(buf, ')');
		char state;
		int ppid, pgrp;
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z')
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

struct seen {
	pid_t pid;
	int ticks;
};

static void on_spawned(void *user, pid_t pid, int ctrl_fd)
{
	(void)ctrl_fd;
	((struct seen *)user)->pid = pid;
}

static void on_tick(void *user)
{
	((struct seen *)user)->ticks++;
}

/* Run job on lib with the bench job's arguments for op; hooks record the pid. */
static void run_op(const char *tree, const char *op, double timeout_s, double grace_s, size_t cap,
                   struct child_result *res, struct seen *seen)
{
	const char *args[] = { "--op", op, "--iters", "1", "--warmup", "0", NULL };
	struct child_hooks hooks = { .user = seen, .spawned = on_spawned, .tick = on_tick, .wake_fd = -1 };
	struct child_spec cs = {
		.job = "bench", .lib = lib(tree), .args = args, .timeout_s = timeout_s, .grace_s = grace_s,
		.output_cap = cap, .cpu = -1, .as_limit = child_default_as_limit(), .hooks = &hooks,
	};
	pq_error err = { 0 };
	ck_assert_msg(child_run(&cs, res, &err) == 0, "%s", err.msg);
}

static void assert_describes(const struct child_result *res, const char *want)
{
	char line[512];
	child_describe(res, line, sizeof line);
	ck_assert_msg(strstr(line, want), "description \"%s\" lacks \"%s\"", line, want);
}

/* ---- real runner, fixture libraries ------------------------------------- */

START_TEST(info_job_completes)
{
	struct child_result res;
	struct seen seen = { 0 };
	struct child_hooks hooks = { .user = &seen, .spawned = on_spawned, .tick = on_tick, .wake_fd = -1 };
	struct child_spec cs = { .job = "info", .lib = lib("nist-toy"), .cpu = -1, .hooks = &hooks };
	pq_error err = { 0 };
	ck_assert_int_eq(child_run(&cs, &res, &err), 0);
	ck_assert_int_eq(res.end, CHILD_OK);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_int_eq(res.orphans, 0);
	ck_assert_ptr_nonnull(res.done);
	ck_assert_str_eq(json_string_value(json_object_get(res.done, "api")), "nist");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(res.done, "sizes"), "pk")), 32);
	/* The first event is the runner's start, carrying the pid the hook saw
	 * (inside a PID namespace the runner sees its own, small pid). */
	json_t *first = json_array_get(res.events, 0);
	ck_assert_str_eq(json_string_value(json_object_get(first, "ev")), "start");
	if (contain_caps()->pid_ns)
		ck_assert_int_gt(json_integer_value(json_object_get(first, "pid")), 0);
	else
		ck_assert_int_eq(json_integer_value(json_object_get(first, "pid")), seen.pid);
	ck_assert_int_gt(seen.ticks, 0);
	ck_assert_str_eq(res.in_op, "");
	assert_describes(&res, "completed");
	child_result_free(&res);
}
END_TEST

START_TEST(bench_job_brackets_the_operation)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("nist-toy", "sign", 60, 0, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_OK);
	ck_assert_str_eq(res.in_op, "");   /* begin sign ... end sign */
	ck_assert_str_eq(bench_failure_kind(&res), "OK");
	ck_assert_int_eq(group_alive(seen.pid), 0);
	child_result_free(&res);
}
END_TEST

START_TEST(describe_reads_the_descriptor_in_a_child)
{
	json_t *d = NULL;
	pq_error err = { 0 };
	ck_assert_msg(instance_describe(lib("nist-toy"), &d, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(json_string_value(json_object_get(d, "library")), lib("nist-toy"));
	ck_assert_str_eq(json_string_value(json_object_get(d, "kind")), "signature");
	ck_assert_ptr_null(json_object_get(d, "ev"));
	json_decref(d);
	char missing[4200];
	snprintf(missing, sizeof missing, "%s/absent.so", work);
	ck_assert_int_eq(instance_describe(missing, &d, &err), -PQ_ELOAD);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(strstr(err.msg, "absent.so"));
}
END_TEST

START_TEST(unknown_job_fails_with_its_reason)
{
	struct child_result res;
	struct child_spec cs = { .job = "no-such-job", .lib = lib("nist-toy"), .cpu = -1 };
	pq_error err = { 0 };
	ck_assert_int_eq(child_run(&cs, &res, &err), 0);
	ck_assert_int_eq(res.end, CHILD_FAILED);
	ck_assert_int_ne(res.exit_code, 0);
	ck_assert_ptr_null(res.done);
	assert_describes(&res, "unknown runner job 'no-such-job'");
	ck_assert_str_eq(bench_failure_kind(&res), "CRYPTOFAIL");
	child_result_free(&res);
}
END_TEST

START_TEST(missing_library_is_a_load_error)
{
	struct child_result res;
	char missing[4200];
	snprintf(missing, sizeof missing, "%s/absent.so", work);
	struct child_spec cs = { .job = "info", .lib = missing, .cpu = -1 };
	pq_error err = { 0 };
	ck_assert_int_eq(child_run(&cs, &res, &err), 0);
	ck_assert_int_eq(res.end, CHILD_FAILED);
	ck_assert_int_eq(res.exit_code, PQ_ELOAD);
	assert_describes(&res, "absent.so");
	child_result_free(&res);
}
END_TEST

START_TEST(hanging_child_times_out)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/endless-loop", "sign", 3.0, 2.0, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_TIMEOUT);
	ck_assert_str_eq(res.in_op, "sign");
	ck_assert_int_eq(res.killed_hard, 0);   /* SIGTERM was enough */
	ck_assert(res.wall_s >= 3.0 && res.wall_s < 30);
	ck_assert_str_eq(bench_failure_kind(&res), "TIMEOUT");
	assert_describes(&res, "timed out after ");
	assert_describes(&res, " s in sign");
	ck_assert_int_eq(group_alive(seen.pid), 0);
	child_result_free(&res);
}
END_TEST

START_TEST(child_ignoring_sigterm_is_killed_after_grace)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/sleep-ignoring-signals", "sign", 3.0, 0.5, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_TIMEOUT);
	ck_assert_int_eq(res.killed_hard, 1);
	ck_assert_str_eq(res.in_op, "sign");
	ck_assert(res.wall_s >= 3.5 && res.wall_s < 30);
	assert_describes(&res, "(ignored SIGTERM; killed)");
	ck_assert_int_eq(group_alive(seen.pid), 0);
	child_result_free(&res);
}
END_TEST

START_TEST(crash_becomes_signal_verdict)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/segv-in-sign", "sign", 60, 0, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_SIGNALED);
	ck_assert_int_eq(res.signo, SIGSEGV);
	ck_assert_str_eq(res.in_op, "sign");
	ck_assert_str_eq(bench_failure_kind(&res), "CRASH");
	assert_describes(&res, "crashed with SIGSEGV in sign");
	child_result_free(&res);
}
END_TEST

START_TEST(exit_inside_scheme_code)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/exit-in-keygen", "keygen", 60, 0, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_EXIT_IN_OP);
	ck_assert_int_eq(res.exit_code, 0);
	ck_assert_str_eq(res.in_op, "keygen");
	ck_assert_str_eq(bench_failure_kind(&res), "EXIT");
	assert_describes(&res, "scheme called exit(0) in keygen");
	child_result_free(&res);
}
END_TEST

START_TEST(processes_left_behind_are_killed)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/fork-child", "sign", 60, 0, 0, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_OK);
	ck_assert_int_eq(res.orphans, 1);
	ck_assert_str_eq(bench_failure_kind(&res), "PROCESSES_LEFT");
	assert_describes(&res, "left processes behind (killed)");
	/* SIGKILL was sent to the group; give the kernel a moment to finish it. */
	int alive = 1;
	for (int i = 0; i < 200 && (alive = group_alive(seen.pid)); i++)
		usleep(10000);
	ck_assert_int_eq(alive, 0);
	child_result_free(&res);
}
END_TEST

START_TEST(scheme_output_is_captured_and_capped)
{
	struct child_result res;
	struct seen seen = { 0 };
	run_op("hostile/flood-output", "sign", 120, 0, 4096, &res, &seen);
	ck_assert_int_eq(res.end, CHILD_OK);
	ck_assert_uint_eq(res.output_len, 4096);
	ck_assert_uint_eq(strlen(res.output), 4096);
	ck_assert_uint_gt(res.output_total, 1000000);   /* 4096 lines of ~1 KB */
	ck_assert_ptr_nonnull(strstr(res.output, "flood 0: "));
	child_result_free(&res);
}
END_TEST

/* ---- verdicts at the gate: kat_gate on hostile trees ---------------------- */

START_TEST(kat_gate_turns_a_hang_into_timeout)
{
	struct kat_gate_opts o = { .lib = lib("hostile/endless-loop"), .records = 1, .timeout_s = 1 };
	struct kat_gate_result r;
	pq_error err = { 0 };
	ck_assert_int_eq(kat_gate_run(&o, &r, &err), 0);
	ck_assert_int_eq(r.outcome.verdict, KAT_TIMEOUT);
	ck_assert_int_eq(r.emit_failed, 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r.record, "outcome"), "verdict")),
	                 "TIMEOUT");
	kat_gate_result_free(&r);
}
END_TEST

START_TEST(kat_gate_turns_a_crash_into_crash)
{
	struct kat_gate_opts o = { .lib = lib("hostile/segv-in-sign"), .records = 1, .timeout_s = 60 };
	struct kat_gate_result r;
	pq_error err = { 0 };
	ck_assert_int_eq(kat_gate_run(&o, &r, &err), 0);
	ck_assert_int_eq(r.outcome.verdict, KAT_CRASH);
	ck_assert_ptr_nonnull(strstr(r.outcome.reason, "SIGSEGV"));
	kat_gate_result_free(&r);
}
END_TEST

START_TEST(kat_gate_reports_an_unwritable_emit_path)
{
	char emit[4200];
	snprintf(emit, sizeof emit, "%s/no-such-dir/vectors.rsp", work);
	struct kat_gate_opts o = { .lib = lib("nist-toy"), .records = 1, .timeout_s = 60, .emit = emit };
	struct kat_gate_result r;
	pq_error err = { 0 };
	ck_assert_int_eq(kat_gate_run(&o, &r, &err), 0);
	ck_assert_int_eq(r.emit_failed, 1);
	ck_assert_ptr_nonnull(strstr(r.emit_error.msg, "no-such-dir"));
	ck_assert_int_ne(r.outcome.verdict, KAT_CRASH);
	kat_gate_result_free(&r);
}
END_TEST

/* ---- the result channel, through stand-in runners -------------------------- */

/* Make an executable script under the work dir and point $PQPROF_RUNNER at it
 * (each test runs in its own forked process, so the environment is its own). */
/*
 * Write body as a runner that speaks the keyed channel as pqprof-runner
 * does: the key is read from fd 5, and every line that a `printf '...' >&3`
 * starts gets it and a blank in front.
 */
static void write_keyed(FILE *f, const char *body)
{
	fputs("#!/bin/sh\nK=$(cat <&5)\n", f);
	int line_start = 1;
	for (const char *p = body; *p;) {
		const char *q = strncmp(p, "printf '", 8) == 0 ? strchr(p + 8, '\'') : NULL;
		if (!q || strncmp(q, "' >&3", 5) != 0) {
			fputc(*p++, f);
			continue;
		}
		fputs("printf ", f);
		const char *c = p + 8;
		while (c < q) {
			if (line_start)
				fputs("\"$K \"", f);
			const char *nl = strstr(c, "\\n");
			const char *end = nl && nl < q ? nl + 2 : q;
			fputc('\'', f);
			fwrite(c, 1, (size_t)(end - c), f);
			fputc('\'', f);
			line_start = nl && nl < q;
			c = end;
		}
		p = q + 1;
	}
	fputc('\n', f);
}

static void fake_runner(const char *name, const char *body)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s.sh", work, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	write_keyed(f, body);
	fclose(f);
	chmod(path, 0755);
	setenv("PQPROF_RUNNER", path, 1);
	/* A contained runner may run as an unprivileged user: let it reach the script. */
	chmod(work, 0711);
}

static void run_fake(struct child_result *res)
{
	struct child_spec cs = { .job = "any", .lib = "/dev/null", .timeout_s = 30, .cpu = -1 };
	pq_error err = { 0 };
	ck_assert_msg(child_run(&cs, res, &err) == 0, "%s", err.msg);
}

START_TEST(channel_keeps_objects_and_drops_the_rest)
{
	fake_runner("mixed",
	            "printf '{\"ev\":\"start\",\"pid\":1}\\nnot json at all\\n[1,2,3]\\n\\n' >&3\n"
	            "printf '{\"ev\":\"begin\",\"op\":\"sign\"}\\n\"a string\"\\n{\"ev\":\"end\",\"op\":\"sign\"}\\n' >&3\n"
	            "printf '{\"ev\":\"done\",\"answer\":42}\\n{\"ev\":\"unterminated\"' >&3\n"
	            "echo 'scheme says hello'\n"
	            "exit 0");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_OK);
	/* start, begin, end, done: the non-objects and the unterminated line are not events. */
	ck_assert_uint_eq(json_array_size(res.events), 4);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res.events, 1), "ev")), "begin");
	ck_assert_int_eq(json_integer_value(json_object_get(res.done, "answer")), 42);
	ck_assert_str_eq(res.in_op, "");
	ck_assert_str_eq(res.output, "scheme says hello\n");
	child_result_free(&res);
}
END_TEST

START_TEST(channel_joins_lines_split_across_writes)
{
	fake_runner("split",
	            "printf '{\"ev\":\"do' >&3\n"
	            "sleep 0.2\n"
	            "printf 'ne\",\"parts\"' >&3\n"
	            "sleep 0.2\n"
	            "printf ':2}\\n' >&3\n"
	            "exit 0");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_OK);
	ck_assert_uint_eq(json_array_size(res.events), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(res.done, "parts")), 2);
	child_result_free(&res);
}
END_TEST

START_TEST(exit_without_done_outside_an_operation)
{
	fake_runner("early", "printf '{\"ev\":\"start\"}\\n' >&3\nexit 0");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_EXITED_EARLY);
	assert_describes(&res, "runner exited with status 0 before finishing");
	child_result_free(&res);
}
END_TEST

START_TEST(error_event_and_nonzero_exit_fail)
{
	fake_runner("error", "printf '{\"ev\":\"error\",\"msg\":\"bench job: bad arguments\"}\\n' >&3\nexit 5");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_FAILED);
	ck_assert_int_eq(res.exit_code, 5);
	assert_describes(&res, "bench job: bad arguments");
	child_result_free(&res);
}
END_TEST

START_TEST(done_with_nonzero_exit_is_not_ok)
{
	fake_runner("done-then-fail", "printf '{\"ev\":\"done\"}\\n' >&3\nexit 3");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_EXITED_EARLY);
	ck_assert_int_eq(res.exit_code, 3);
	child_result_free(&res);
}
END_TEST

START_TEST(open_operation_at_exit_is_exit_in_op)
{
	fake_runner("open-op", "printf '{\"ev\":\"begin\",\"op\":\"dec\"}\\n' >&3\nexit 7");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_EXIT_IN_OP);
	ck_assert_str_eq(res.in_op, "dec");
	assert_describes(&res, "scheme called exit(7) in dec");
	child_result_free(&res);
}
END_TEST

START_TEST(exit_in_op_event_wins_over_done)
{
	fake_runner("exit-event", "printf '{\"ev\":\"done\"}\\n{\"ev\":\"exit_in_op\",\"op\":\"enc\"}\\n' >&3\nexit 0");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_EXIT_IN_OP);
	ck_assert_str_eq(res.in_op, "enc");
	child_result_free(&res);
}
END_TEST

START_TEST(fault_and_diagnosis_name_the_crash)
{
	fake_runner("diagnosed",
	            "printf '{\"ev\":\"begin\",\"op\":\"keygen\"}\\n' >&3\n"
	            "printf '{\"ev\":\"fault\",\"signal\":11,\"op\":\"sign\",\"addr\":\"0x0\"}\\n' >&3\n"
	            "printf '{\"ev\":\"diagnosis\",\"op\":\"sign\",\"kind\":\"stack_overflow\",\"msg\":\"stack overflow (test)\"}\\n' >&3\n"
	            "kill -SEGV $$");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_SIGNALED);
	ck_assert_int_eq(res.signo, SIGSEGV);
	ck_assert_str_eq(res.in_op, "sign");   /* the fault event names the call really running */
	ck_assert_str_eq(res.fault, "stack overflow (test)");
	assert_describes(&res, "stack overflow (test) in sign");
	child_result_free(&res);
}
END_TEST

START_TEST(other_signals_are_reported_by_name)
{
	fake_runner("aborts", "kill -ABRT $$");
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_SIGNALED);
	ck_assert_int_eq(res.signo, SIGABRT);
	assert_describes(&res, "crashed with SIGABRT");
	child_result_free(&res);
}
END_TEST

START_TEST(runner_that_cannot_start)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/no-runner-here", work);
	setenv("PQPROF_RUNNER", path, 1);
	ck_assert_str_eq(child_runner_path(), path);
	struct child_result res;
	run_fake(&res);
	ck_assert_int_eq(res.end, CHILD_FAILED);
	ck_assert_int_eq(res.exit_code, 126);
	assert_describes(&res, "cannot run");
	child_result_free(&res);
}
END_TEST

START_TEST(default_address_space_limit)
{
	unsetenv("PQPROF_AS_LIMIT_MB");
	ck_assert_uint_eq(child_default_as_limit(), CHILD_DEFAULT_AS_LIMIT);
	setenv("PQPROF_AS_LIMIT_MB", "100", 1);
	ck_assert_uint_eq(child_default_as_limit(), 100ull << 20);
	setenv("PQPROF_AS_LIMIT_MB", "12x", 1);
	ck_assert_uint_eq(child_default_as_limit(), CHILD_DEFAULT_AS_LIMIT);
	setenv("PQPROF_AS_LIMIT_MB", "0", 1);
	ck_assert_uint_eq(child_default_as_limit(), CHILD_DEFAULT_AS_LIMIT);
}
END_TEST

static Suite *supervise_suite(void)
{
	Suite *s = suite_create("supervise");
	TCase *real = tcase_create("runner");
	tcase_add_unchecked_fixture(real, setup_libs, teardown_libs);
	tcase_set_timeout(real, 120);
	tcase_add_test(real, info_job_completes);
	tcase_add_test(real, bench_job_brackets_the_operation);
	tcase_add_test(real, describe_reads_the_descriptor_in_a_child);
	tcase_add_test(real, unknown_job_fails_with_its_reason);
	tcase_add_test(real, missing_library_is_a_load_error);
	tcase_add_test(real, hanging_child_times_out);
	tcase_add_test(real, child_ignoring_sigterm_is_killed_after_grace);
	tcase_add_test(real, crash_becomes_signal_verdict);
	tcase_add_test(real, exit_inside_scheme_code);
	tcase_add_test(real, processes_left_behind_are_killed);
	tcase_add_test(real, scheme_output_is_captured_and_capped);
	tcase_add_test(real, kat_gate_turns_a_hang_into_timeout);
	tcase_add_test(real, kat_gate_turns_a_crash_into_crash);
	tcase_add_test(real, kat_gate_reports_an_unwritable_emit_path);
	tcase_add_test(real, channel_keeps_objects_and_drops_the_rest);
	tcase_add_test(real, channel_joins_lines_split_across_writes);
	tcase_add_test(real, exit_without_done_outside_an_operation);
	tcase_add_test(real, error_event_and_nonzero_exit_fail);
	tcase_add_test(real, done_with_nonzero_exit_is_not_ok);
	tcase_add_test(real, open_operation_at_exit_is_exit_in_op);
	tcase_add_test(real, exit_in_op_event_wins_over_done);
	tcase_add_test(real, fault_and_diagnosis_name_the_crash);
	tcase_add_test(real, other_signals_are_reported_by_name);
	tcase_add_test(real, runner_that_cannot_start);
	tcase_add_test(real, default_address_space_limit);
	suite_add_tcase(s, real);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(supervise_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
