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
#include "core/clock.h"
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

/* One paired job: its command line, the builds side by side, and what the rounds gathered. */
struct paired_job {
	const char *opname, *events, *backend;
	long rounds, iters, warmup, mlen, slot_us, sample_hz;
	uint64_t seed;                  /* the parent's, per process: shuffles and round seeds */
	double max_s;
	struct opt_list libs;
	enum pq_op op;
	int nb;                         /* the runner's library and every --lib */
	struct build b[PAIRED_MAX_BUILDS];
	struct ip_sampler *ips;         /* NULL: no samples (sample_why says why, when asked for) */
	char sample_why[256];
	counter_set cs;
	uint64_t mix;                   /* splitmix64 state: the shuffles, then the rounds' seeds */
	uint64_t call_ns;               /* the baseline's fastest warm-up call */
	uint64_t t_start, t_rounds, t_end;
	struct contention_snap snap0, snap1;
	json_t *jrounds;
	long done_rounds;
	pq_error err;
};

/* The command line the parent writes (supervise/paired.c); 0, or -1 with the error sent. */
static int parse_args(struct paired_job *pj, int argc, char **argv)
{
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &pj->opname, "OP", "", NULL },
		{ OPT_LIST, 0, "lib", &pj->libs, "LIB", "", NULL },
		{ OPT_INT, 0, "rounds", &pj->rounds, "N", "", NULL },
		{ OPT_INT, 0, "iters", &pj->iters, "N", "", NULL },
		{ OPT_INT, 0, "slot-us", &pj->slot_us, "N", "", NULL },
		{ OPT_INT, 0, "warmup", &pj->warmup, "N", "", NULL },
		{ OPT_INT, 0, "mlen", &pj->mlen, "BYTES", "", NULL },
		{ OPT_U64, 0, "seed", &pj->seed, "N", "", NULL },
		{ OPT_DOUBLE, 0, "max-seconds", &pj->max_s, "S", "", NULL },
		{ OPT_INT, 0, "sample-hz", &pj->sample_hz, "HZ", "", NULL },
		{ OPT_STRING, 0, "events", &pj->events, "CSV", "", NULL },
		{ OPT_STRING, 0, "backend", &pj->backend, "NAME", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	if (options_parse(argc, argv, specs, NULL, 0, &help, &pj->err) < 0 || !pj->opname) {
		runner_emit_error("paired job: %s", pj->err.msg[0] ? pj->err.msg : "--op is required");
		return -1;
	}
	int op = pq_op_parse(pj->opname);
	pj->nb = 1 + pj->libs.n;
	if (op < 0 || pj->nb < 2 || pj->nb > PAIRED_MAX_BUILDS || pj->rounds < 1 || pj->rounds > 100000 ||
	    pj->iters < 0 || pj->iters > 10000000 || pj->mlen < 0 || pj->mlen > (1 << 20) || pj->slot_us < 1) {
		runner_emit_error("paired job: bad arguments (2 to %d builds)", PAIRED_MAX_BUILDS);
		return -1;
	}
	pj->op = (enum pq_op)op;
	return 0;
}

/* Every build in a link namespace of its own, and where it sits (for the sampler); 0 or PQ_ELOAD. */
static int load_builds(struct paired_job *pj)
{
	for (int i = 0; i < pj->nb; i++) {
		struct build *b = &pj->b[i];
		void *h = NULL;
		runner_set_loading(1);
		int r = loader_open_namespace(b->path, &b->inst, &h, &pj->err);
		runner_set_loading(0);
		if (r < 0) {
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "load", "msg", pj->err.msg));
			return PQ_ELOAD;
		}
		Dl_info info;
		struct link_map *lm = NULL;
		if (dladdr(b->inst, &info))
			b->base = (uintptr_t)info.dli_fbase;
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
			b->bias = (uintptr_t)lm->l_addr;
	}
	return 0;
}

/* Self samples per build, for the per-function deltas (off with --sample-hz 0). */
static void open_sampler(struct paired_job *pj)
{
	uintptr_t bases[PAIRED_MAX_BUILDS], biases[PAIRED_MAX_BUILDS];
	for (int i = 0; i < pj->nb; i++) {
		bases[i] = pj->b[i].base;
		biases[i] = pj->b[i].bias;
	}
	pj->ips = pj->sample_hz > 0 ? ip_sampler_open((int)pj->sample_hz, pj->nb, bases, biases, pj->sample_why,
	                                              sizeof pj->sample_why) : NULL;
}

/* Keys from the benchmark seed, as every job makes them: the same key pair in every build.  0 or a PQ_* code. */
static int prepare_builds(struct paired_job *pj)
{
	unsigned char seed[48];
	for (int i = 0; i < pj->nb; i++) {
		struct build *b = &pj->b[i];
		bench_default_seed(seed);
		runner_seed_instance(b->inst, seed, sizeof seed);
		if (op_ctx_init(&b->c, b->inst, (size_t)pj->mlen, &pj->err) < 0) {
			runner_emit_error("%s", pj->err.msg);
			return PQ_ENOMEM;
		}
		b->c.mark = runner_mark_call;
		runner_set_build(i);
		if (op_ctx_prepare(&b->c, pj->op, &pj->err) < 0) {
			pq_error_prefix(&pj->err, "%s", b->path);
			runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", pj->err.msg));
			return PQ_ESCHEME;
		}
	}
	return 0;
}

/*
 * Warm-up: every build, a few calls each (one, for an operation of more
 * than 0.2 s: there the first call is warm-up enough); the baseline's
 * fastest call goes to call_ns, to choose the slot length.
 */
static int warm_up(struct paired_job *pj)
{
	unsigned char seed[48];
	for (int i = 0; i < pj->nb; i++)
		for (long k = 0; k < (pj->warmup > 0 ? pj->warmup : 1) && !(k > 0 && pj->call_ns > 200000000u); k++) {
			struct build *b = &pj->b[i];
			round_seed(pj->mix, -1 - k, seed);
			runner_seed_instance(b->inst, seed, sizeof seed);
			runner_set_build(i);
			uint64_t c0 = cpu_now();
			int rc = op_ctx_call(&b->c, pj->op);
			uint64_t c1 = cpu_now();
			if (rc != 0 || op_ctx_check(&b->c, pj->op, &pj->err) < 0)
				return fail_call(b, pj->op, rc, -1, &pj->err);
			if (i == 0 && (pj->call_ns == 0 || c1 - c0 < pj->call_ns))
				pj->call_ns = c1 - c0;
		}
	return 0;
}

/* Calls per slot when not given: what fills --slot-us at the warm-up's call time, 1 to 100000. */
static void choose_iters(struct paired_job *pj)
{
	if (pj->iters != 0)
		return;
	double k = (double)pj->slot_us * 1000.0 / (double)(pj->call_ns ? pj->call_ns : 1);
	pj->iters = k < 1 ? 1 : k > 100000 ? 100000 : (long)k;
}

/* Round r: the builds in a shuffled order, each reseeded with the round's seed and timed for one slot. */
static int run_round(struct paired_job *pj, long r)
{
	int order[PAIRED_MAX_BUILDS];
	for (int i = 0; i < pj->nb; i++)
		order[i] = i;
	for (int i = pj->nb - 1; i > 0; i--) {
		int j = (int)(mix_next(&pj->mix) % (uint64_t)(i + 1));
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	uint64_t cpu[PAIRED_MAX_BUILDS], units[PAIRED_MAX_BUILDS];
	unsigned char seed[48];
	round_seed(pj->mix, r, seed);
	for (int k = 0; k < pj->nb; k++) {
		struct build *x = &pj->b[order[k]];
		runner_seed_instance(x->inst, seed, sizeof seed);
		int rc = slot(x, order[k], pj->op, pj->iters, &pj->cs, pj->ips, &cpu[order[k]], &units[order[k]], r,
		              &pj->err);
		if (rc != 0)
			return rc;
	}
	/* Per round for the parent: the order, and every build's per-call CPU time and counter units. */
	json_t *jo = json_array(), *jc = json_array(), *ju = json_array();
	for (int i = 0; i < pj->nb; i++) {
		json_array_append_new(jo, json_integer(order[i]));
		json_array_append_new(jc, json_real((double)cpu[i] / (double)pj->iters));
		json_array_append_new(ju, json_real((double)units[i] / (double)pj->iters));
	}
	json_array_append_new(pj->jrounds, json_pack("{s:o, s:o, s:o}", "order", jo, "cpu_ns", jc, "units", ju));
	return 0;
}

/* The rounds, with the machine's contention before and after; past --max-seconds, those so far (two at least). */
static int run_rounds(struct paired_job *pj)
{
	pj->t_rounds = mono_ns();
	pj->jrounds = json_array();
	contention_snap_take(&pj->snap0);
	for (long r = 0; r < pj->rounds; r++) {
		if (pj->max_s > 0 && r >= 2 && (double)(mono_ns() - pj->t_rounds) * 1e-9 > pj->max_s)
			break;
		int rc = run_round(pj, r);
		if (rc != 0)
			return rc;
		pj->done_rounds++;
	}
	contention_snap_take(&pj->snap1);
	return 0;
}

/* The "done" event: the rounds' data, how they were counted and timed, and the samples. */
static json_t *done_event(struct paired_job *pj)
{
	char desc[256];
	counter_set_describe(&pj->cs, desc, sizeof desc);
	json_t *done = json_pack("{s:s, s:s, s:i, s:I, s:I, s:s, s:s, s:s, s:b, s:f, s:f, s:f, s:o, s:o}",
	                         "ev", "done", "op", pj->opname, "builds", pj->nb, "rounds", (json_int_t)pj->done_rounds,
	                         "iters", (json_int_t)pj->iters, "backend", counter_set_backend_name(&pj->cs),
	                         "backend_desc", desc, "unit", counter_set_unit(&pj->cs),
	                         "counts_cycles", counter_set_counts_cycles(&pj->cs),
	                         "setup_s", (double)(pj->t_rounds - pj->t_start) * 1e-9,
	                         "rounds_s", (double)(pj->t_end - pj->t_rounds) * 1e-9,
	                         "warmup_call_ns", (double)pj->call_ns,
	                         "contention", contention_evidence(&pj->snap0, &pj->snap1), "data", pj->jrounds);
	if (pj->ips)
		json_object_set_new(done, "samples", ip_sampler_json(pj->ips));
	else if (pj->sample_hz > 0)
		json_object_set_new(done, "samples_error", json_string(pj->sample_why));
	return done;
}

/* The job's steps in order; job_paired frees what parsing the arguments made, whatever the outcome. */
static int run_paired(struct paired_job *pj, struct runner_env *env, int argc, char **argv)
{
	if (parse_args(pj, argc, argv) < 0)
		return 1;
	pj->b[0].path = env->lib_path;
	for (int i = 1; i < pj->nb; i++)
		pj->b[i].path = pj->libs.items[i - 1];
	pj->t_start = mono_ns();
	int rc = load_builds(pj);
	if (rc != 0)
		return rc;
	open_sampler(pj);
	if (counter_set_open(pj->events, pj->backend, &pj->cs, &pj->err) < 0) {
		runner_emit_error("counters: %s", pj->err.msg);
		return PQ_EPERF;
	}
	rc = prepare_builds(pj);
	if (rc != 0)
		return rc;
	scheme_output_settle(-1, NULL, NULL);
	pj->mix = pj->seed;
	runner_op_begin(pj->op, 1);
	rc = warm_up(pj);
	if (rc != 0)
		return rc;
	scheme_output_settle(pj->op, NULL, NULL);
	choose_iters(pj);
	rc = run_rounds(pj);
	if (rc != 0)
		return rc;
	runner_set_build(-1);
	runner_op_end(pj->op, 1);
	pj->t_end = mono_ns();
	json_t *done = done_event(pj);
	ip_sampler_close(pj->ips);
	runner_emit(done);
	for (int i = 0; i < pj->nb; i++)
		op_ctx_free(&pj->b[i].c);
	counter_set_close(&pj->cs);
	return 0;
}

int job_paired(struct runner_env *env, int argc, char **argv)
{
	struct paired_job job = { .events = "cycles", .rounds = 10, .warmup = 2, .mlen = 64, .slot_us = 20000,
	                          .seed = 1 };
	int rc = run_paired(&job, env, argc, argv);
	free(job.libs.items);
	return rc;
}
