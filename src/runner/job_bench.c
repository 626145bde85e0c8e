/*
 * job_bench: the runner side of one benchmark trial.  Prepares the
 * operation, warms up, then times each call separately with the chosen
 * counter backend and checks each result outside the timed span (every
 * signature produced is verified).  Sends per-call values to the parent,
 * which does the statistics.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "measure/counter.h"
#include "measure/contention.h"
#include "runner/scheme_output.h"

#include <stdlib.h>
#include <time.h>
#include <string.h>

void bench_default_seed(unsigned char seed[48])
{
	for (int i = 0; i < 48; i++)
		seed[i] = (unsigned char)i;
}

static json_t *u64_array(const uint64_t *v, long n)
{
	json_t *a = json_array();
	for (long i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

int job_bench(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *events = "cycles", *backend = NULL;
	long iters = 1, warmup = 1, mlen = 64, overhead_reads = 0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "", NULL },
		{ OPT_INT, 0, "iters", &iters, "N", "", NULL },
		{ OPT_INT, 0, "warmup", &warmup, "N", "", NULL },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "", NULL },
		{ OPT_STRING, 0, "events", &events, "CSV", "", NULL },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "", NULL },
		{ OPT_INT, 0, "overhead-reads", &overhead_reads, "N", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname) {
		runner_emit_error("bench job: %s", err.msg[0] ? err.msg : "--op is required");
		return 1;
	}
	int op = pq_op_parse(opname);
	if (op < 0 || iters < 1 || iters > 10000000 || mlen < 0 || mlen > (1 << 20)) {
		runner_emit_error("bench job: bad arguments");
		return 1;
	}
	counter_set cs;
	if (counter_set_open(events, backend, &cs, &err) < 0) {
		runner_emit_error("counters: %s", err.msg);
		return PQ_EPERF;
	}
	unsigned char seed[48];
	bench_default_seed(seed);
	runner_seed_instance(env->inst, seed, sizeof seed);
	struct op_ctx c;
	if (op_ctx_init(&c, env->inst, (size_t)mlen, &err) < 0) {
		runner_emit_error("%s", err.msg);
		return PQ_ENOMEM;
	}
	c.mark = runner_mark_call;
	int r = op_ctx_prepare(&c, (enum pq_op)op, &err);
	if (r < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
		return PQ_ESCHEME;
	}
	uint64_t *vals = calloc((size_t)iters, sizeof *vals);
	uint64_t *ns = calloc((size_t)iters, sizeof *ns);
	/* CPU time of each call: blind to the time spent waiting for a CPU, so comparisons can use it. */
	uint64_t *cpu = calloc((size_t)iters, sizeof *cpu);
	uint64_t totals[COUNTER_MAX_EVENTS] = { 0 };
	if (!vals || !ns || !cpu) {
		runner_emit_error("out of memory for %ld iterations", iters);
		return PQ_ENOMEM;
	}
	/* What the scheme printed while preparing is not the timed operation's. */
	scheme_output_settle(-1, NULL, NULL);
	runner_op_begin((enum pq_op)op, 1);
	for (long i = 0; i < warmup; i++)
		op_ctx_call(&c, (enum pq_op)op);
	scheme_output_settle(op, NULL, NULL);
	size_t out_bytes = 0, err_bytes = 0;
	/* Contention evidence spans the measured loop, checks included. */
	struct contention_snap snap0, snap1;
	contention_snap_take(&snap0);
	for (long i = 0; i < iters; i++) {
		counter_sample s0, d = { 0 };
		struct timespec c0, c1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		counter_set_start(&cs, &s0);
		int rc = op_ctx_call(&c, (enum pq_op)op);
		counter_set_stop(&cs, &s0, &d);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		/* The scheme's output of this call leaves the pipe here, outside the timed span. */
		scheme_output_settle(op, &out_bytes, &err_bytes);
		vals[i] = d.v[0];
		ns[i] = d.ns;
		cpu[i] = (uint64_t)((c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec));
		for (int e = 0; e < cs.nevents; e++)
			totals[e] += d.v[e];
		if (rc != 0 || op_ctx_check(&c, (enum pq_op)op, &err) < 0) {
			runner_op_end((enum pq_op)op, 1);
			char words[64];
			if (rc != 0)
				pq_fail(&err, PQ_ESCHEME, "%s %s in call %ld", opname, op_ctx_rc_words(rc, words, sizeof words),
				        i + 1);
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
			return PQ_ESCHEME;
		}
	}
	contention_snap_take(&snap1);
	runner_op_end((enum pq_op)op, 1);

	char desc[256];
	counter_set_describe(&cs, desc, sizeof desc);
	json_t *done = json_pack("{s:s, s:s, s:I, s:s, s:s, s:s, s:b, s:f}",
	                         "ev", "done", "op", opname, "iters", (json_int_t)iters,
	                         "backend", counter_set_backend_name(&cs), "backend_desc", desc,
	                         "unit", counter_set_unit(&cs), "counts_cycles", counter_set_counts_cycles(&cs),
	                         "seconds_per_unit", counter_set_seconds_per_unit(&cs));
	json_t *names = json_array(), *tot = json_object(), *reasons = json_array();
	for (int e = 0; e < cs.nevents; e++) {
		json_array_append_new(names, json_string(cs.event_names[e]));
		json_object_set_new(tot, cs.event_names[e], json_integer((json_int_t)totals[e]));
	}
	for (int i = 0; i < counter_set_reason_count(&cs); i++)
		json_array_append_new(reasons, json_string(counter_set_reason(&cs, i)));
	json_object_set_new(done, "events", names);
	json_object_set_new(done, "totals", tot);
	json_object_set_new(done, "fallback_reasons", reasons);
	json_object_set_new(done, "contention", contention_evidence(&snap0, &snap1));
	json_object_set_new(done, "values", u64_array(vals, iters));
	json_object_set_new(done, "ns", u64_array(ns, iters));
	json_object_set_new(done, "cpu_ns", u64_array(cpu, iters));
	json_object_set_new(done, "scheme_output", json_pack("{s:I, s:I, s:I}", "timed_calls", (json_int_t)iters,
	                                                     "stdout_bytes", (json_int_t)out_bytes, "stderr_bytes",
	                                                     (json_int_t)err_bytes));
	json_object_set_new(done, "sizes", json_pack("{s:I, s:I, s:I}", "pk", (json_int_t)c.pklen,
	                                             "sk", (json_int_t)c.sklen, "blob", (json_int_t)c.bloblen));
	if (overhead_reads > 0) {
		counter_overhead ov;
		if (counter_measure_overhead(&cs, (int)overhead_reads, &ov, &err) == 0)
			json_object_set_new(done, "overhead", json_pack("{s:f, s:f}", "units", ov.units, "ns", ov.ns));
	}
	runner_emit(done);
	free(vals);
	free(ns);
	free(cpu);
	op_ctx_free(&c);
	counter_set_close(&cs);
	return 0;
}
