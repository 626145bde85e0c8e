/*
 * job_paired: the runner side of a paired study.  Every build of the
 * study is loaded side by side, each in a link namespace of its own
 * (loader_open_namespace), and the operation is called round by round:
 * in each round every build runs one slot of `iters` calls, in an order
 * shuffled per round.  Before its slot each build is reseeded with the
 * round's seed, so that in one round every build does the same work
 * (the same messages, the same randomness: schemes with rejection
 * sampling loop as often in each).  A slot is timed by the thread's CPU
 * time, and by the counter set (cycles where a PMU exists); outputs are
 * checked outside the timed span.  The parent gets, per round, the order
 * and every slot's per-call figures, and does the statistics.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "instance/loader.h"
#include "measure/counter.h"
#include "measure/contention.h"
#include "runner/scheme_output.h"
#include "runner/ip_sampler.h"
#include "supervise/paired.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


struct build {
	const char *path;
	uintptr_t base, bias;     /* where dladdr places the library; its load bias */
	const struct pqprof_instance *inst;
	struct op_ctx c;
};

static uint64_t cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* splitmix64: the shuffle's and the seeds' generator, seeded by the parent per process. */
static uint64_t mix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void round_seed(uint64_t base, long round, unsigned char seed[48])
{
	uint64_t s = base ^ ((uint64_t)round * 0xd1b54a32d192ed03ULL);
	for (int i = 0; i < 48; i += 8) {
		uint64_t v = mix_next(&s);
		memcpy(seed + i, &v, 8);
	}
}

static int fail_call(struct build *b, enum pq_op op, int rc, long round, pq_error *err)
{
	if (rc != 0)
		pq_fail(err, PQ_ESCHEME, "%s: %s returned %d in round %ld", b->path, pq_op_name(op), rc, round + 1);
	else
		pq_error_prefix(err, "%s: round %ld", b->path, round + 1);
	runner_op_end(op, 1);
	runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err->msg));
	return PQ_ESCHEME;
}

/* K calls of one build, timed as one slot; the last call's output is checked outside the span. */
static int slot(struct build *b, int index, enum pq_op op, long iters, counter_set *cs, struct ip_sampler *ips,
                uint64_t *cpu_ns, uint64_t *units, long round, pq_error *err)
{
	runner_set_build(index);
	counter_sample s0, d = { 0 };
	int rc = 0;
	ip_sampler_begin(ips, index);
	uint64_t c0 = cpu_now();
	counter_set_start(cs, &s0);
	for (long i = 0; i < iters && rc == 0; i++)
		rc = op_ctx_call(&b->c, op);
	counter_set_stop(cs, &s0, &d);
	uint64_t c1 = cpu_now();
	ip_sampler_end(ips);
	scheme_output_settle(op, NULL, NULL);
	if (rc != 0 || op_ctx_check(&b->c, op, err) < 0)
		return fail_call(b, op, rc, round, err);
	*cpu_ns = c1 - c0;
	*units = d.v[0];
	return 0;
}

int job_paired(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *events = "cycles", *backend = NULL;
	long rounds = 10, iters = 0, warmup = 2, mlen = 64, slot_us = 20000;
	double seed_d = 1, max_s = 0;
	long sample_hz = 0;
	struct opt_list libs = { 0 };
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "" },
		{ OPT_LIST, 0, "lib", &libs, "LIB", "" },
		{ OPT_INT, 0, "rounds", &rounds, "N", "" },
		{ OPT_INT, 0, "iters", &iters, "N", "" },
		{ OPT_INT, 0, "slot-us", &slot_us, "N", "" },
		{ OPT_INT, 0, "warmup", &warmup, "N", "" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "" },
		{ OPT_DOUBLE, 0, "seed", &seed_d, "N", "" },
		{ OPT_DOUBLE, 0, "max-seconds", &max_s, "S", "" },
		{ OPT_INT, 0, "sample-hz", &sample_hz, "HZ", "" },
		{ OPT_STRING, 0, "events", &events, "CSV", "" },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname) {
		runner_emit_error("paired job: %s", err.msg[0] ? err.msg : "--op is required");
		return 1;
	}
	int op = pq_op_parse(opname);
	int nb = 1 + libs.n;
	if (op < 0 || nb < 2 || nb > PAIRED_MAX_BUILDS || rounds < 1 || rounds > 100000 || iters < 0 ||
	    iters > 10000000 || mlen < 0 || mlen > (1 << 20) || slot_us < 1) {
		runner_emit_error("paired job: bad arguments (2 to %d builds)", PAIRED_MAX_BUILDS);
		return 1;
	}
	struct build b[PAIRED_MAX_BUILDS];
	memset(b, 0, sizeof b);
	b[0].path = env->lib_path;
	for (int i = 1; i < nb; i++)
		b[i].path = libs.items[i - 1];
	uint64_t t_start = wall_now();
	for (int i = 0; i < nb; i++) {
		void *h = NULL;
		runner_set_loading(1);
		int r = loader_open_namespace(b[i].path, &b[i].inst, &h, &err);
		runner_set_loading(0);
		if (r < 0) {
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "load", "msg", err.msg));
			return PQ_ELOAD;
		}
		Dl_info info;
		struct link_map *lm = NULL;
		if (dladdr(b[i].inst, &info))
			b[i].base = (uintptr_t)info.dli_fbase;
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
			b[i].bias = (uintptr_t)lm->l_addr;
	}
	/* Self samples per build, for the per-function deltas (off with --sample-hz 0). */
	uintptr_t bases[PAIRED_MAX_BUILDS], biases[PAIRED_MAX_BUILDS];
	for (int i = 0; i < nb; i++) {
		bases[i] = b[i].base;
		biases[i] = b[i].bias;
	}
	char sample_why[256] = "";
	struct ip_sampler *ips = sample_hz > 0 ? ip_sampler_open((int)sample_hz, nb, bases, biases, sample_why,
	                                                        sizeof sample_why) : NULL;
	counter_set cs;
	if (counter_set_open(events, backend, &cs, &err) < 0) {
		runner_emit_error("counters: %s", err.msg);
		return PQ_EPERF;
	}
	/* Keys from the benchmark seed, as every job makes them: the same key pair in every build. */
	unsigned char seed[48];
	for (int i = 0; i < nb; i++) {
		bench_default_seed(seed);
		runner_seed_instance(b[i].inst, seed, sizeof seed);
		if (op_ctx_init(&b[i].c, b[i].inst, (size_t)mlen, &err) < 0) {
			runner_emit_error("%s", err.msg);
			return PQ_ENOMEM;
		}
		b[i].c.mark = runner_mark_call;
		runner_set_build(i);
		if (op_ctx_prepare(&b[i].c, (enum pq_op)op, &err) < 0) {
			pq_error_prefix(&err, "%s", b[i].path);
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
			return PQ_ESCHEME;
		}
	}
	scheme_output_settle(-1, NULL, NULL);
	uint64_t mix = (uint64_t)seed_d;
	runner_op_begin((enum pq_op)op, 1);
	/*
	 * Warm-up: every build, a few calls each (one, for an operation of
	 * more than 0.2 s: there the first call is warm-up enough); the
	 * baseline's call time chooses the slot length.
	 */
	uint64_t call_ns = 0;
	for (int i = 0; i < nb; i++)
		for (long k = 0; k < (warmup > 0 ? warmup : 1) && !(k > 0 && call_ns > 200000000u); k++) {
			round_seed(mix, -1 - k, seed);
			runner_seed_instance(b[i].inst, seed, sizeof seed);
			runner_set_build(i);
			uint64_t c0 = cpu_now();
			int rc = op_ctx_call(&b[i].c, (enum pq_op)op);
			uint64_t c1 = cpu_now();
			if (rc != 0 || op_ctx_check(&b[i].c, (enum pq_op)op, &err) < 0)
				return fail_call(&b[i], (enum pq_op)op, rc, -1, &err);
			if (i == 0 && (call_ns == 0 || c1 - c0 < call_ns))
				call_ns = c1 - c0;
		}
	scheme_output_settle(op, NULL, NULL);
	if (iters == 0) {
		double k = (double)slot_us * 1000.0 / (double)(call_ns ? call_ns : 1);
		iters = k < 1 ? 1 : k > 100000 ? 100000 : (long)k;
	}
	uint64_t t_rounds = wall_now();
	json_t *jrounds = json_array();
	struct contention_snap snap0, snap1;
	contention_snap_take(&snap0);
	long done_rounds = 0;
	for (long r = 0; r < rounds; r++) {
		/* Past the parent's time share, the rounds so far are the result (two at least). */
		if (max_s > 0 && r >= 2 && (double)(wall_now() - t_rounds) * 1e-9 > max_s)
			break;
		int order[PAIRED_MAX_BUILDS];
		for (int i = 0; i < nb; i++)
			order[i] = i;
		for (int i = nb - 1; i > 0; i--) {
			int j = (int)(mix_next(&mix) % (uint64_t)(i + 1));
			int t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		uint64_t cpu[PAIRED_MAX_BUILDS], units[PAIRED_MAX_BUILDS];
		round_seed(mix, r, seed);
		for (int k = 0; k < nb; k++) {
			struct build *x = &b[order[k]];
			runner_seed_instance(x->inst, seed, sizeof seed);
			int rc = slot(x, order[k], (enum pq_op)op, iters, &cs, ips, &cpu[order[k]], &units[order[k]], r, &err);
			if (rc != 0)
				return rc;
		}
		json_t *jo = json_array(), *jc = json_array(), *ju = json_array();
		for (int i = 0; i < nb; i++) {
			json_array_append_new(jo, json_integer(order[i]));
			json_array_append_new(jc, json_real((double)cpu[i] / (double)iters));
			json_array_append_new(ju, json_real((double)units[i] / (double)iters));
		}
		json_array_append_new(jrounds, json_pack("{s:o, s:o, s:o}", "order", jo, "cpu_ns", jc, "units", ju));
		done_rounds++;
	}
	contention_snap_take(&snap1);
	runner_set_build(-1);
	runner_op_end((enum pq_op)op, 1);
	uint64_t t_end = wall_now();

	char desc[256];
	counter_set_describe(&cs, desc, sizeof desc);
	json_t *done = json_pack("{s:s, s:s, s:i, s:I, s:I, s:s, s:s, s:s, s:b, s:f, s:f, s:f, s:o, s:o}",
	                         "ev", "done", "op", opname, "builds", nb, "rounds", (json_int_t)done_rounds,
	                         "iters", (json_int_t)iters, "backend", counter_set_backend_name(&cs),
	                         "backend_desc", desc, "unit", counter_set_unit(&cs),
	                         "counts_cycles", counter_set_counts_cycles(&cs),
	                         "setup_s", (double)(t_rounds - t_start) * 1e-9,
	                         "rounds_s", (double)(t_end - t_rounds) * 1e-9,
	                         "warmup_call_ns", (double)call_ns,
	                         "contention", contention_evidence(&snap0, &snap1), "data", jrounds);
	if (ips)
		json_object_set_new(done, "samples", ip_sampler_json(ips));
	else if (sample_hz > 0)
		json_object_set_new(done, "samples_error", json_string(sample_why));
	ip_sampler_close(ips);
	runner_emit(done);
	for (int i = 0; i < nb; i++)
		op_ctx_free(&b[i].c);
	counter_set_close(&cs);
	free(libs.items);
	return 0;
}
