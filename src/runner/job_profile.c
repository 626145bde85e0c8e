/*
 * profile_job: the runner side of `pqprof profile` (job "profile": sampled
 * calls) and of exact call counting (job "count": uprobe counts).
 *
 * Both run one operation kind per child, after set-up, with their perf
 * events enabled only around op_ctx_call(), so every sample and every
 * counted call belongs to that operation.  The parent side is in
 * sampler.h (receive, drain) and the events below.
 *
 *   profile --op OP [--mode fp|dwarf] [--event auto|cycles|cpu-clock|task-clock]
 *           [--freq HZ | --period N] [--stack BYTES] [--pages N]
 *           [--iters N] [--seconds S] [--warmup N] [--mlen BYTES]
 *   count   --op OP --func GLOB [--func GLOB...] [--iters N] [--warmup N] [--mlen BYTES]
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "profile/sampler.h"
#include "profile/uprobe_count.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Same seed as the benchmark job (bytes 00..2f): profiles do the same work. */
static void job_seed(const struct pqprof_instance *inst)
{
	unsigned char seed[48];
	for (int i = 0; i < 48; i++)
		seed[i] = (unsigned char)i;
	runner_seed_instance(inst, seed, sizeof seed);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int prepare_op(struct runner_env *env, struct op_ctx *c, enum pq_op op, long mlen)
{
	pq_error err = { 0 };
	job_seed(env->inst);
	if (op_ctx_init(c, env->inst, (size_t)mlen, &err) < 0) {
		runner_emit_error("%s", err.msg);
		return PQ_ENOMEM;
	}
	runner_op_begin(op, 1);
	int r = op_ctx_prepare(c, op, &err);
	runner_op_end(op, 1);
	if (r < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
		op_ctx_free(c);
		return PQ_ESCHEME;
	}
	return 0;
}

static int call_failed(struct op_ctx *c, enum pq_op op, int rc, long i)
{
	pq_error err = { 0 };
	if (rc != 0)
		pq_fail(&err, PQ_ESCHEME, "%s returned %d in call %ld", pq_op_name(op), rc, i + 1);
	else if (op_ctx_check(c, op, &err) == 0)
		return 0;
	runner_op_end(op, 1);
	runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
	return PQ_ESCHEME;
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
	int r = prepare_op(env, &c, (enum pq_op)op, mlen);
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
	for (;;) {
		if (iters > 0 && calls >= iters)
			break;
		if (seconds > 0 && calls > 0 && mono_s() - start >= seconds)
			break;
		double t0 = mono_s();
		sampler_child_enable(&sc);
		int rc = op_ctx_call(&c, (enum pq_op)op);
		sampler_child_disable(&sc);
		in_calls += mono_s() - t0;
		/* Checking every output would double the run; the first call and
		 * every return code are enough to know the profile is of working code. */
		if (rc != 0 || calls == 0) {
			r = call_failed(&c, (enum pq_op)op, rc, calls);
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
	runner_emit(done);
	op_ctx_free(&c);
	return 0;
}

static json_t *count_result(const struct uprobe_targets *ts, uint64_t *const *per_call, long calls)
{
	json_t *funcs = json_array();
	for (size_t f = 0; f < ts->n; f++) {
		uint64_t total = 0, lo = UINT64_MAX, hi = 0;
		json_t *vals = json_array();
		for (long i = 0; i < calls; i++) {
			uint64_t v = per_call[f][i];
			total += v;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			json_array_append_new(vals, json_integer((json_int_t)v));
		}
		json_array_append_new(funcs, json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}",
		                                       "name", ts->t[f].name,
		                                       "offset", (json_int_t)ts->t[f].offset,
		                                       "total", (json_int_t)total,
		                                       "min", (json_int_t)(calls ? lo : 0),
		                                       "max", (json_int_t)hi, "per_call", vals));
	}
	return funcs;
}

int job_count(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL;
	struct opt_list globs = { 0 };
	long iters = 10, warmup = 1, mlen = 64;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "" },
		{ OPT_LIST, 0, "func", &globs, "GLOB", "" },
		{ OPT_INT, 0, "iters", &iters, "N", "" },
		{ OPT_INT, 0, "warmup", &warmup, "N", "" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname || !globs.n) {
		runner_emit_error("count job: %s", err.msg[0] ? err.msg : "--op and --func are required");
		opt_list_free(&globs);
		return PQ_EUSAGE;
	}
	int op = pq_op_parse(opname);
	if (op < 0 || iters < 1 || iters > 1000000 || warmup < 0 || mlen < 0 || mlen > (1 << 20)) {
		runner_emit_error("count job: bad arguments");
		opt_list_free(&globs);
		return PQ_EUSAGE;
	}
	struct uprobe_targets ts;
	int r = uprobe_resolve(env->lib_path, globs.items, (size_t)globs.n, &ts, &err);
	opt_list_free(&globs);
	if (r < 0) {
		runner_emit_error("%s", err.msg);
		return -r;
	}
	struct uprobe_counters uc;
	if (ts.n == 0 || uprobe_counters_open(&uc, env->lib_path, &ts, 0, &err) < 0) {
		/* Not a failure of the job: the record says counts are unavailable. */
		runner_emit(json_pack("{s:s, s:s, s:b, s:s}", "ev", "done", "op", opname,
		                      "available", 0, "reason",
		                      ts.n ? err.msg : "no function matches the --func globs"));
		uprobe_targets_free(&ts);
		return 0;
	}
	struct op_ctx c;
	r = prepare_op(env, &c, (enum pq_op)op, mlen);
	int prepared = r == 0;
	uint64_t **per_call = calloc(ts.n, sizeof *per_call);
	uint64_t *before = calloc(ts.n, sizeof *before), *after = calloc(ts.n, sizeof *after);
	for (size_t f = 0; per_call && f < ts.n; f++)
		if (!(per_call[f] = calloc((size_t)iters, sizeof **per_call)))
			r = r ? r : PQ_ENOMEM;
	if (!r && (!per_call || !before || !after))
		r = PQ_ENOMEM;
	if (r == PQ_ENOMEM)
		runner_emit_error("count job: out of memory");

	long calls = 0;
	if (!r) {
		runner_op_begin((enum pq_op)op, 1);
		for (long i = 0; i < warmup; i++)
			op_ctx_call(&c, (enum pq_op)op);
		for (; calls < iters && !r; calls++) {
			if (uprobe_counters_read(&uc, before, &err) < 0) {
				runner_emit_error("%s", err.msg);
				r = PQ_EPERF;
				break;
			}
			uprobe_counters_enable(&uc);
			int rc = op_ctx_call(&c, (enum pq_op)op);
			uprobe_counters_disable(&uc);
			if (uprobe_counters_read(&uc, after, &err) < 0) {
				runner_emit_error("%s", err.msg);
				r = PQ_EPERF;
				break;
			}
			for (size_t f = 0; f < ts.n; f++)
				per_call[f][calls] = after[f] - before[f];
			if (rc != 0 && (r = call_failed(&c, (enum pq_op)op, rc, calls)) != 0)
				break;
		}
		if (!r) {
			runner_op_end((enum pq_op)op, 1);
			json_t *done = json_pack("{s:s, s:s, s:b, s:I, s:o}", "ev", "done", "op", opname,
			                         "available", 1, "calls", (json_int_t)calls,
			                         "funcs", count_result(&ts, per_call, calls));
			runner_emit(done);
		}
	}
	if (prepared)
		op_ctx_free(&c);
	for (size_t f = 0; per_call && f < ts.n; f++)
		free(per_call[f]);
	free(per_call);
	free(before);
	free(after);
	uprobe_counters_close(&uc);
	uprobe_targets_free(&ts);
	return r;
}
