/*
 * pqprof-runner: the child executable.  Loads exactly one instance and does
 * one job (see runner.h).  It is deliberately small and distrustful: the
 * event channel is moved to a high descriptor so a scheme that closes
 * 0/1/2 cannot cut it, crashes and exit() calls inside scheme code are
 * reported as events before the process ends (runner_faults.c), and the
 * parent decides the verdict from what arrives.
 */
#include "config.h"
#include "runner/runner.h"
#include "runner/jobs.h"
#include "instance/loader.h"
#include "runner/memprobe.h"
#include "runner/scheme_output.h"
#include "kat/kat_round.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct runner_job jobs[] = {
	{ "info", job_info, 0 },
	{ "bench", job_bench, 0 },
	{ "kat", job_kat, 0 },
	{ "mem", job_mem, 0 },
	{ "sizes", job_sizes, 0 },
	{ "leak", job_leak, 0 },
	{ "profile", job_profile, 0 },
	{ "count", job_count, 0 },
	{ "keys", job_keys, 0 },
	{ "paired", job_paired, 1 },
	{ NULL, NULL, 0 },
};

/* The job's channel key from the parent (RUNNER_NONCE_FD), read before any scheme code is loaded. */
static void read_nonce(char *key, size_t len)
{
	key[0] = '\0';
	if (fcntl(RUNNER_NONCE_FD, F_GETFD) == -1)
		return;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t n = read(RUNNER_NONCE_FD, key + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	key[got] = '\0';
	close(RUNNER_NONCE_FD);
}

/*
 * End the runner without running the scheme's destructors or atexit
 * handlers: nothing of the scheme's runs after the result.  A channel the
 * scheme closed or replaced is said with the exit status.
 */
/* A test build's last word before _exit (the allocation-failure test's counts: tests/alloc_fail.c). */
void runner_test_exit_hook(void) __attribute__((weak));

__attribute__((noreturn)) static void finish(int rc)
{
	if (runner_test_exit_hook)
		runner_test_exit_hook();
	fflush(stdout);
	fflush(stderr);
	_exit(runner_channel_intact() ? rc : RUNNER_EXIT_CHANNEL_LOST);
}

int main(int argc, char **argv)
{
	char key[RUNNER_NONCE_LEN + 2];
	read_nonce(key, sizeof key);
	/* Keep the event channel out of reach of schemes that close low fds. */
	if (fcntl(RUNNER_RESULT_FD, F_GETFD) != -1) {
		runner_events_open(fcntl(RUNNER_RESULT_FD, F_DUPFD_CLOEXEC, 900), key);
		close(RUNNER_RESULT_FD);
	}
	memset(key, 0, sizeof key);
	struct runner_env env = { .ctrl_fd = -1 };
	if (fcntl(RUNNER_CTRL_FD, F_GETFD) != -1) {
		env.ctrl_fd = fcntl(RUNNER_CTRL_FD, F_DUPFD_CLOEXEC, 910);
		close(RUNNER_CTRL_FD);
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pqprof-runner JOB LIB [ARGS...]\n"
		                "The child process of pqprof; not meant to be run by hand.\n");
		return 1;
	}
	const struct runner_job *job = NULL;
	for (const struct runner_job *j = jobs; j->name; j++)
		if (strcmp(j->name, argv[1]) == 0)
			job = j;
	if (!job) {
		runner_emit_error("unknown runner job '%s'", argv[1]);
		return 1;
	}
	runner_install_fault_handlers();
	pq_error err = { 0 };
	void *handle = NULL;
	env.lib_path = argv[2];
	runner_emit(json_pack("{s:s, s:i}", "ev", "start", "pid", (int)getpid()));
	runner_set_loading(1);
	/* A job that loads its libraries itself (in namespaces of their own) gets none here. */
	int lr = job->loads_own ? 0 : loader_open(argv[2], &env.inst, &handle, &err);
	runner_set_loading(0);
	if (lr < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "load", "msg", err.msg));
		finish(PQ_ELOAD);
	}
	/* Sizes no scheme has: every job would fail allocating them, so the library is refused as unusable. */
	struct pqprof_sizes sz = { 0 };
	if (env.inst && env.inst->get_sizes)
		env.inst->get_sizes(&sz);
	if (sz.pk > KAT_SIZE_SANITY_MAX || sz.sk > KAT_SIZE_SANITY_MAX || sz.sig > KAT_SIZE_SANITY_MAX ||
	    sz.ct > KAT_SIZE_SANITY_MAX || sz.ss > KAT_SIZE_SANITY_MAX) {
		char msg[320];
		snprintf(msg, sizeof msg, "instance declares absurd sizes (pk %llu, sk %llu, sig %llu, ct %llu, ss %llu; "
		         "at most %llu each)", (unsigned long long)sz.pk, (unsigned long long)sz.sk,
		         (unsigned long long)sz.sig, (unsigned long long)sz.ct, (unsigned long long)sz.ss,
		         (unsigned long long)KAT_SIZE_SANITY_MAX);
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "load", "msg", msg));
		finish(PQ_ELOAD);
	}
	if (strcmp(job->name, "mem") == 0)
		memprobe_prime_sanitizer();
	/* The scheme's stdout/stderr through the runner's pipes (scheme_output.h). */
	scheme_output_open();
	/* Jobs see argv[0] = job name, then their own arguments. */
	int rc = job->fn(&env, argc - 2, argv + 2);
	scheme_output_settle(runner_last_op(), NULL, NULL);
	json_t *out = scheme_output_json();
	if (out) {
		json_object_set_new(out, "ev", json_string("scheme_output"));
		runner_emit(out);
	}
	if (rc == 0 && !runner_done_sent())
		runner_emit_error("job %s finished without a result", job->name);
	finish(rc);
}
