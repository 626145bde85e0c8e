/*
 * job_profile: the runner side of `pqprof profile` (job "profile": sampled
 * calls).  Runs one operation kind per child, after set-up, with the perf
 * events enabled only around op_ctx_call(), so every sample belongs to
 * that operation.  Each sampled call is followed by one unsampled call,
 * and both are timed (CPU and wall clock): the difference is what
 * profiling itself costs the code it measures.  The parent side is profile/profile_run.c, with
 * sampler.h (receive, drain).
 *
 *   profile --op OP [--mode fp|dwarf] [--event auto|cycles|cpu-clock|task-clock]
 *           [--freq HZ | --period N] [--stack BYTES] [--pages N]
 *           [--iters N] [--seconds S] [--warmup N] [--mlen BYTES]
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "profile/sampler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The cost of calls with the sampler on and off, interleaved one by one: profiling's own perturbation. */
struct perturbation {
	double cpu[2], wall[2];   /* [0] sampler off, [1] on: sums in seconds */
	long n[2];
};

static int timed_call(struct op_ctx *c, int op, struct sampler_child *sc, int on, struct perturbation *p)
{
	double w0 = mono_s(), c0 = cpu_s();
	if (on)
		sampler_child_enable(sc);
	int rc = op_ctx_call(c, (enum pq_op)op);
	if (on)
		sampler_child_disable(sc);
	p->cpu[on] += cpu_s() - c0;
	p->wall[on] += mono_s() - w0;
	p->n[on]++;
	return rc;
}

int job_profile(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *mode = "fp", *event = "auto";
	long freq = 0, period = 0, stack = 16384, pages = 0, iters = 0, warmup = 1, mlen = 64;
	double seconds = 0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "" },
		{ OPT_STRING, 0, "mode", &mode, "fp|dwarf", "" },
		{ OPT_STRING, 0, "event", &event, "NAME", "" },
		{ OPT_INT, 0, "freq", &freq, "HZ", "" },
		{ OPT_INT, 0, "period", &period, "N", "" },
		{ OPT_INT, 0, "stack", &stack, "BYTES", "" },
		{ OPT_INT, 0, "pages", &pages, "N", "" },
		{ OPT_INT, 0, "iters", &iters, "N", "" },
		{ OPT_DOUBLE, 0, "seconds", &seconds, "S", "" },
		{ OPT_INT, 0, "warmup", &warmup, "N", "" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname) {
		runner_emit_error("profile job: %s", err.msg[0] ? err.msg : "--op is required");
		return PQ_EUSAGE;
	}
	int op = pq_op_parse(opname);
	struct sampler_config cfg;
	sampler_config_default(&cfg);
	int m = sampler_mode_parse(mode), ev = sampler_event_parse(event);
	if (op < 0 || m < 0 || ev < 0 || freq < 0 || period < 0 || stack < 0 || pages < 0 ||
	    iters < 0 || warmup < 0 || seconds < 0 || (iters == 0 && seconds <= 0) || mlen < 0 ||
	    mlen > (1 << 20)) {
		runner_emit_error("profile job: bad arguments (need --op, --iters or --seconds)");
		return PQ_EUSAGE;
	}
	if (env->ctrl_fd < 0) {
		runner_emit_error("profile job: no control socket to pass the sampling event on");
		return PQ_EINTERNAL;
	}
	cfg.mode = (enum sampler_mode)m;
	cfg.event = (enum sampler_event)ev;
	cfg.freq = (unsigned)freq;
	cfg.period = (unsigned long long)period;
	cfg.stack_bytes = (unsigned)stack;
	cfg.data_pages = (unsigned)pages;

	struct op_ctx c;
	int r = job_prepare_op(env, &c, (enum pq_op)op, mlen);
	if (r)
		return r;
	struct sampler_child sc;
	if (sampler_child_open(&cfg, &sc, &err) < 0 || sampler_child_send_fds(&sc, env->ctrl_fd, &err) < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "perf", "msg", err.msg));
		op_ctx_free(&c);
		return PQ_EPERF;
	}

	runner_op_begin((enum pq_op)op, 1);
	for (long i = 0; i < warmup; i++)
		op_ctx_call(&c, (enum pq_op)op);
	double start = mono_s(), in_calls = 0;
	long calls = 0;
	struct perturbation pt = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	for (;;) {
		if (iters > 0 && calls >= iters)
			break;
		if (seconds > 0 && calls > 0 && mono_s() - start >= seconds)
			break;
		double t0 = mono_s();
		int rc = timed_call(&c, op, &sc, 1, &pt);
		in_calls += mono_s() - t0;
		/* Then one call unsampled; its return code is checked like the others. */
		if (rc == 0)
			rc = timed_call(&c, op, &sc, 0, &pt);
		/* Checking every output would double the run; the first call and
		 * every return code are enough to know the profile is of working code. */
		if (rc != 0 || calls == 0) {
			r = job_call_failed(&c, (enum pq_op)op, rc, calls);
			if (r) {
				sampler_child_close(&sc);
				op_ctx_free(&c);
				return r;
			}
		}
		calls++;
	}
	runner_op_end((enum pq_op)op, 1);
	sampler_child_close(&sc);

	json_t *done = json_pack("{s:s, s:s, s:I, s:f, s:s, s:s, s:s, s:I, s:I, s:I}",
	                         "ev", "done", "op", opname, "calls", (json_int_t)calls,
	                         "seconds_in_calls", in_calls, "event", sc.event_name,
	                         "fallback", sc.fallback, "mode", sampler_mode_name(sc.mode),
	                         "freq", (json_int_t)sc.freq, "period", (json_int_t)sc.period,
	                         "stack_bytes", (json_int_t)sc.stack_bytes);
	json_object_set_new(done, "perturbation",
	                    json_pack("{s:f, s:f, s:f, s:f, s:I, s:I}", "on_cpu_s", pt.cpu[1], "off_cpu_s", pt.cpu[0],
	                              "on_wall_s", pt.wall[1], "off_wall_s", pt.wall[0], "on_calls",
	                              (json_int_t)pt.n[1], "off_calls", (json_int_t)pt.n[0]));
	runner_emit(done);
	op_ctx_free(&c);
	return 0;
}
