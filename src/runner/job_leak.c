/*
 * job_leak: the runner side of the timing-leak test for one operation and
 * one pair of input classes.  Inputs are prepared in batches outside the
 * timed region, each slot of a batch drawn at random from class 0 (fixed
 * or valid) or class 1 (random or invalid) and stored in a buffer of the
 * same layout whatever its class, so the two classes differ only in their
 * data.  Each call is timed alone with the best counter; a call during
 * which the process was switched out is dropped.  The first measurements
 * set the crop thresholds; the rest feed the t-tests, whose values are
 * sent to the parent at increasing numbers of measurements together with
 * the contention evidence.  The parent judges (leak/leak_run.c).
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "leak/leak_classes.h"
#include "leak/leak_stats.h"
#include "measure/counter.h"
#include "measure/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#define SLOTS_MAX 256
#define SLOT_BYTES_MAX (64u << 20)  /* all slots of a batch together */
#define CALIB_MAX 1000
#define FIRST_POINT 500
#define MAX_POINTS 256

void bench_default_seed(unsigned char seed[48]);

/* One pair's inputs and outputs; slots hold the per-call inputs of a batch. */
struct leak_job {
	struct op_ctx c;               /* the fixed key pair, message, signature, ciphertext */
	const struct leak_pair *pair;
	stats_rng rng;
	unsigned char fixed_seed[48];
	size_t in_len;                 /* bytes of one slot's input */
	int nslots;
	unsigned char *slots;          /* nslots * in_len */
	pq_u64 *slot_len;              /* sklen / bloblen / ctlen of each slot */
	unsigned char *slot_seed;      /* nslots * 48: seeds for LEAK_IN_SEED */
	unsigned char *slot_m;         /* nslots * mlen: messages for LEAK_IN_MESSAGE */
	int *cls;
	/* outputs of timed calls (never the fixed inputs) */
	unsigned char *opk, *osk, *oblob, *oct, *oss, *scratch;
	pq_u64 opklen, osklen, obloblen, octlen, osslen;
};

static void fill_random(stats_rng *r, unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = stats_rng_next(r);
		for (size_t k = 0; k < 8 && i + k < n; k++)
			p[i + k] = (unsigned char)(v >> (8 * k));
	}
}

static unsigned char *zalloc(size_t n)
{
	return calloc(1, n + 64);
}

static int job_init(struct leak_job *j, struct runner_env *env, const struct leak_pair *pair, long mlen,
                    uint64_t iseed, pq_error *err)
{
	memset(j, 0, sizeof *j);
	j->pair = pair;
	stats_rng_seed(&j->rng, iseed);
	bench_default_seed(j->fixed_seed);
	runner_seed_instance(env->inst, j->fixed_seed, sizeof j->fixed_seed);
	if (op_ctx_init(&j->c, env->inst, (size_t)mlen, err) < 0)
		return -PQ_ENOMEM;
	j->c.mark = runner_mark_call;
	/* The fixed state: key pair from the fixed seed, a signature or ciphertext. */
	if (pair->op != PQ_OP_KEYGEN && op_ctx_prepare(&j->c, pair->op, err) < 0)
		return -PQ_ESCHEME;
	const struct pqprof_sizes *sz = &j->c.sz;
	switch (pair->input) {
	case LEAK_IN_SEED: j->in_len = 0; break;
	case LEAK_IN_KEY: j->in_len = (size_t)sz->sk; break;
	case LEAK_IN_MESSAGE: j->in_len = pair->op == PQ_OP_VERIFY ? (size_t)j->c.bloblen_max : 0; break;
	case LEAK_IN_VALIDITY:
		j->in_len = (size_t)(pair->op == PQ_OP_VERIFY ? j->c.bloblen_max : sz->ct);
		break;
	case LEAK_IN_CIPHERTEXT: j->in_len = (size_t)sz->ct; break;
	}
	size_t per = j->in_len + 48 + (size_t)mlen + 64;
	j->nslots = (int)(SLOT_BYTES_MAX / per);
	if (j->nslots > SLOTS_MAX)
		j->nslots = SLOTS_MAX;
	if (j->nslots < 1)
		j->nslots = 1;
	size_t ns = (size_t)j->nslots;
	j->slots = zalloc(ns * (j->in_len ? j->in_len : 1));
	j->slot_len = calloc(ns, sizeof *j->slot_len);
	j->slot_seed = zalloc(ns * 48);
	j->slot_m = zalloc(ns * ((size_t)mlen ? (size_t)mlen : 1));
	j->cls = calloc(ns, sizeof *j->cls);
	j->opk = zalloc((size_t)sz->pk);
	j->osk = zalloc((size_t)sz->sk);
	j->oblob = zalloc((size_t)j->c.bloblen_max);
	j->scratch = zalloc((size_t)j->c.bloblen_max);
	j->oct = zalloc((size_t)sz->ct);
	j->oss = zalloc((size_t)sz->ss);
	if (!j->slots || !j->slot_len || !j->slot_seed || !j->slot_m || !j->cls || !j->opk || !j->osk || !j->oblob ||
	    !j->scratch || !j->oct || !j->oss)
		return pq_fail(err, PQ_ENOMEM, "out of memory for %d input slots", j->nslots);
	return 0;
}

static void job_free(struct leak_job *j)
{
	op_ctx_free(&j->c);
	free(j->slots);
	free(j->slot_len);
	free(j->slot_seed);
	free(j->slot_m);
	free(j->cls);
	free(j->opk);
	free(j->osk);
	free(j->oblob);
	free(j->scratch);
	free(j->oct);
	free(j->oss);
}

static unsigned char *slot_in(struct leak_job *j, int s)
{
	return j->slots + (size_t)s * j->in_len;
}

/* Flip one random bit within the first len bytes. */
static void flip_bit(struct leak_job *j, unsigned char *p, pq_u64 len)
{
	if (len == 0)
		return;
	uint64_t bit = stats_rng_below(&j->rng, len * 8);
	p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
}

/* Prepare slot s for class cls, outside any timed region. */
static int prepare_slot(struct leak_job *j, const struct pqprof_instance *in, int s, int cls, pq_error *err)
{
	struct op_ctx *c = &j->c;
	unsigned char *seed = j->slot_seed + (size_t)s * 48;
	unsigned char *m = j->slot_m + (size_t)s * c->mlen;
	unsigned char *inp = slot_in(j, s);
	j->cls[s] = cls;
	memcpy(m, c->m, (size_t)c->mlen);
	switch (j->pair->input) {
	case LEAK_IN_SEED:
		if (cls)
			fill_random(&j->rng, seed, 48);
		else
			memcpy(seed, j->fixed_seed, 48);
		return 0;
	case LEAK_IN_KEY:
		if (!cls) {
			memcpy(inp, c->sk, (size_t)c->sklen);
			j->slot_len[s] = c->sklen;
			return 0;
		} else {
			unsigned char rs[48];
			fill_random(&j->rng, rs, sizeof rs);
			runner_seed_instance(in, rs, sizeof rs);
			pq_u64 pkl = c->sz.pk, skl = c->sz.sk;
			runner_mark_call(PQ_OP_KEYGEN, 1);
			int r = in->keygen(j->opk, &pkl, inp, &skl);
			runner_mark_call(PQ_OP_KEYGEN, 0);
			if (r != 0 || skl > c->sz.sk)
				return pq_fail(err, PQ_ESCHEME, "keygen of a random key returned %d (sk %llu bytes)", r, skl);
			j->slot_len[s] = skl;
			return 0;
		}
	case LEAK_IN_MESSAGE:
		if (cls)
			fill_random(&j->rng, m, (size_t)c->mlen);
		if (c->inst->kind == PQPROF_KIND_SIG && j->pair->op == PQ_OP_VERIFY) {
			if (!cls) {
				memcpy(inp, c->blob, (size_t)c->bloblen);
				j->slot_len[s] = c->bloblen;
				return 0;
			}
			pq_u64 bl = c->bloblen_max;
			runner_mark_call(PQ_OP_SIGN, 1);
			int r = in->sign(c->sk, c->sklen, m, c->mlen, inp, &bl);
			runner_mark_call(PQ_OP_SIGN, 0);
			if (r != 0 || bl > c->bloblen_max)
				return pq_fail(err, PQ_ESCHEME, "sign of a random message returned %d", r);
			j->slot_len[s] = bl;
		}
		return 0;
	case LEAK_IN_VALIDITY: {
		int sig = c->inst->kind == PQPROF_KIND_SIG;
		pq_u64 len = sig ? c->bloblen : c->ctlen;
		memcpy(inp, sig ? c->blob : c->ct, (size_t)len);
		j->slot_len[s] = len;
		if (cls)
			flip_bit(j, inp, len);
		return 0;
	}
	case LEAK_IN_CIPHERTEXT: {
		if (!cls) {
			memcpy(inp, c->ct, (size_t)c->ctlen);
			j->slot_len[s] = c->ctlen;
			return 0;
		}
		pq_u64 ssl = c->sz.ss, ctl = c->sz.ct;
		runner_mark_call(PQ_OP_ENC, 1);
		int r = in->enc(c->pk, c->pklen, j->oss, &ssl, inp, &ctl);
		runner_mark_call(PQ_OP_ENC, 0);
		if (r != 0 || ctl > c->sz.ct)
			return pq_fail(err, PQ_ESCHEME, "enc of a random ciphertext returned %d", r);
		j->slot_len[s] = ctl;
		return 0;
	}
	}
	return 0;
}

/* The timed call of slot s; returns the scheme's return code. */
static inline int call_slot(struct leak_job *j, const struct pqprof_instance *in, int s)
{
	struct op_ctx *c = &j->c;
	unsigned char *inp = slot_in(j, s);
	unsigned char *m = j->slot_m + (size_t)s * c->mlen;
	switch (j->pair->op) {
	case PQ_OP_KEYGEN:
		j->opklen = c->sz.pk;
		j->osklen = c->sz.sk;
		return in->keygen(j->opk, &j->opklen, j->osk, &j->osklen);
	case PQ_OP_SIGN:
		j->obloblen = c->bloblen_max;
		if (j->pair->input == LEAK_IN_KEY)
			return in->sign(inp, j->slot_len[s], m, c->mlen, j->oblob, &j->obloblen);
		return in->sign(c->sk, c->sklen, m, c->mlen, j->oblob, &j->obloblen);
	case PQ_OP_VERIFY:
		return in->verify(c->pk, c->pklen, inp, j->slot_len[s], m, c->mlen, j->scratch);
	case PQ_OP_ENC:
		j->osslen = c->sz.ss;
		j->octlen = c->sz.ct;
		return in->enc(c->pk, c->pklen, j->oss, &j->osslen, j->oct, &j->octlen);
	case PQ_OP_DEC:
		j->osslen = c->sz.ss;
		return in->dec(c->sk, c->sklen, inp, j->slot_len[s], j->oss, &j->osslen);
	default:
		return -99;
	}
}

/* A return code the class allows: invalid inputs may be rejected. */
static int rc_ok(const struct leak_job *j, int cls, int rc)
{
	if (j->pair->input == LEAK_IN_VALIDITY && cls)
		return 1;
	return rc == 0;
}

static long switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return ru.ru_nivcsw + ru.ru_nvcsw;
}

static double rusage_cpu_s(struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 + (double)ru->ru_stime.tv_sec +
	       (double)ru->ru_stime.tv_usec * 1e-6;
}

static double load1(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : NAN;
}

static json_t *welch_json(const struct leak_welch *w)
{
	json_t *a = json_array();
	for (int k = 0; k < 2; k++)
		json_array_append_new(a, json_pack("{s:I, s:f, s:f}", "n", (json_int_t)w->n[k], "mean", w->mean[k],
		                                   "sd", w->n[k] > 1 ? sqrt(w->m2[k] / (w->n[k] - 1)) : 0.0));
	return a;
}

struct run_state {
	double *calib;
	size_t ncalib, calib_want;
	struct leak_tests lt;
	int tests_ready;
	struct leak_point *pts;
	size_t npts;
	uint64_t next_point;
	uint64_t kept[2], dropped[2];
	long batches;
};

static void add_point(struct run_state *st)
{
	if (st->npts >= MAX_POINTS)
		return;
	struct leak_point *p = &st->pts[st->npts++];
	memset(p, 0, sizeof *p);
	p->n = st->lt.n;
	for (int i = 0; i < leak_tests_count(&st->lt) && i < LEAK_MAX_TESTS; i++)
		p->t[i] = leak_tests_t(&st->lt, i);
}

static void record(struct run_state *st, int cls, double v)
{
	st->kept[cls]++;
	if (!st->tests_ready) {
		st->calib[st->ncalib++] = v;
		if (st->ncalib >= st->calib_want) {
			double pcts[LEAK_MAX_CROPS];
			int np = leak_default_crops(pcts, LEAK_MAX_CROPS);
			leak_tests_init(&st->lt, st->calib, st->ncalib, pcts, np);
			st->tests_ready = 1;
			st->next_point = FIRST_POINT;
		}
		return;
	}
	leak_tests_add(&st->lt, cls, v);
	if (st->lt.n >= st->next_point) {
		add_point(st);
		uint64_t nx = (uint64_t)ceil((double)st->next_point * 1.25);
		st->next_point = nx > st->next_point ? nx : st->next_point + 1;
	}
}

int job_leak(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *classes = NULL, *events = "cycles", *backend = NULL, *seedarg = NULL;
	long mlen = 64, max_meas = 0;
	double budget = 4.0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "" },
		{ OPT_STRING, 0, "classes", &classes, "PAIR", "" },
		{ OPT_DOUBLE, 0, "budget", &budget, "S", "" },
		{ OPT_INT, 0, "measurements", &max_meas, "N", "" },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "" },
		{ OPT_STRING, 0, "events", &events, "CSV", "" },
		{ OPT_STRING, 0, "backend", &backend, "NAME", "" },
		{ OPT_STRING, 0, "seed", &seedarg, "N", "" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname || !classes) {
		runner_emit_error("leak job: %s", err.msg[0] ? err.msg : "--op and --classes are required");
		return 1;
	}
	int op = pq_op_parse(opname);
	const struct leak_pair *pair = op >= 0 ? leak_pair_find((enum pq_op)op, classes) : NULL;
	if (!pair || budget <= 0 || mlen < 1 || mlen > (1 << 20) || max_meas < 0) {
		runner_emit_error("leak job: bad arguments");
		return 1;
	}
	uint64_t iseed = seedarg ? strtoull(seedarg, NULL, 0) : 0;
	if (!iseed && getrandom(&iseed, sizeof iseed, 0) != (ssize_t)sizeof iseed)
		iseed = (uint64_t)counter_raw_clock_ns() ^ (uint64_t)getpid();
	counter_set cs;
	if (counter_set_open(events, backend, &cs, &err) < 0) {
		runner_emit_error("counters: %s", err.msg);
		return PQ_EPERF;
	}
	const struct pqprof_instance *in = env->inst;
	struct leak_job j;
	int r = job_init(&j, env, pair, mlen, iseed, &err);
	if (r < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", r == -PQ_ESCHEME ? "cryptofail" : "setup",
		                      "msg", err.msg));
		job_free(&j);
		return r == -PQ_ESCHEME ? PQ_ESCHEME : PQ_ENOMEM;
	}
	struct run_state st = { 0 };
	st.calib = calloc(CALIB_MAX, sizeof *st.calib);
	st.pts = calloc(MAX_POINTS, sizeof *st.pts);
	st.calib_want = CALIB_MAX;
	if (!st.calib || !st.pts) {
		runner_emit_error("out of memory");
		return PQ_ENOMEM;
	}
	uint64_t t0 = counter_raw_clock_ns();
	uint64_t end = t0 + (uint64_t)(budget * 1e9);
	/* The crop thresholds come from the first measurements, or from what
	 * 15% of the budget gives for slow operations. */
	uint64_t calib_end = t0 + (uint64_t)(budget * 0.15e9);
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	double l0 = load1();
	int stop = 0;
	runner_op_begin((enum pq_op)op, 1);
	while (!stop) {
		/* Prepare a batch. */
		int ns = 0;
		for (; ns < j.nslots; ns++) {
			int cls = (int)(stats_rng_next(&j.rng) >> 63);
			if (prepare_slot(&j, in, ns, cls, &err) < 0) {
				runner_op_end((enum pq_op)op, 1);
				runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
				return PQ_ESCHEME;
			}
			if (counter_raw_clock_ns() >= end)
				break;
		}
		st.batches++;
		/* Measure it. */
		for (int s = 0; s < ns && !stop; s++) {
			if (j.pair->input == LEAK_IN_SEED)
				runner_seed_instance(in, j.slot_seed + (size_t)s * 48, 48);
			long sw0 = switches();
			runner_mark_call((enum pq_op)op, 1);
			counter_sample s0, d = { 0 };
			counter_set_start(&cs, &s0);
			int rc = call_slot(&j, in, s);
			counter_set_stop(&cs, &s0, &d);
			runner_mark_call((enum pq_op)op, 0);
			long sw1 = switches();
			int cls = j.cls[s];
			if (!rc_ok(&j, cls, rc)) {
				runner_op_end((enum pq_op)op, 1);
				pq_fail(&err, PQ_ESCHEME, "%s returned %d on a class-%d input (%s)", opname, rc, cls,
				        pair->what);
				runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", err.msg));
				return PQ_ESCHEME;
			}
			if (sw1 != sw0)
				st.dropped[cls]++;
			else
				record(&st, cls, (double)d.v[0]);
			uint64_t now = counter_raw_clock_ns();
			if (!st.tests_ready && now >= calib_end && st.ncalib >= 20)
				st.calib_want = st.ncalib;  /* the next kept value ends calibration */
			if (now >= end || (max_meas > 0 && st.lt.n >= (uint64_t)max_meas))
				stop = 1;
		}
		if (counter_raw_clock_ns() >= end)
			stop = 1;
	}
	runner_op_end((enum pq_op)op, 1);
	uint64_t t1 = counter_raw_clock_ns();
	getrusage(RUSAGE_SELF, &ru1);
	double l1 = load1();
	if (st.tests_ready && (st.npts == 0 || st.pts[st.npts - 1].n != st.lt.n))
		add_point(&st);

	char desc[256];
	counter_set_describe(&cs, desc, sizeof desc);
	json_t *done = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:f, s:I}",
	                         "ev", "done", "op", opname, "classes", pair->name, "what", pair->what,
	                         "backend", counter_set_backend_name(&cs), "backend_desc", desc,
	                         "unit", counter_set_unit(&cs), "counts_cycles", counter_set_counts_cycles(&cs),
	                         "message_bytes", (json_int_t)mlen, "budget_s", budget,
	                         "max_measurements", (json_int_t)max_meas);
	char seedhex[32];
	snprintf(seedhex, sizeof seedhex, "0x%016llx", (unsigned long long)iseed);
	json_object_set_new(done, "interleave_seed", json_string(seedhex));
	json_t *reasons = json_array();
	for (int i = 0; i < counter_set_reason_count(&cs); i++)
		json_array_append_new(reasons, json_string(counter_set_reason(&cs, i)));
	json_object_set_new(done, "fallback_reasons", reasons);
	json_t *names = json_array(), *crops = json_array();
	for (int i = 0; st.tests_ready && i < leak_tests_count(&st.lt); i++) {
		char nm[32];
		leak_test_name(&st.lt, i, nm, sizeof nm);
		json_array_append_new(names, json_string(nm));
	}
	for (int i = 0; i < st.lt.ncrops; i++)
		json_array_append_new(crops, json_pack("{s:f, s:f}", "percentile", st.lt.crop_pct[i], "at", st.lt.crop_at[i]));
	json_t *res = json_array();
	for (int i = 0; st.tests_ready && i < leak_tests_count(&st.lt); i++)
		json_array_append_new(res, json_real(leak_tests_resolution(&st.lt, i)));
	json_object_set_new(done, "resolution", res);
	json_object_set_new(done, "tests", names);
	json_object_set_new(done, "crops", crops);
	json_t *trace = json_array();
	for (size_t k = 0; k < st.npts; k++) {
		json_t *t = json_array();
		for (int i = 0; i < leak_tests_count(&st.lt); i++)
			json_array_append_new(t, json_real(round(st.pts[k].t[i] * 1000) / 1000));
		json_array_append_new(trace, json_pack("{s:I, s:o}", "n", (json_int_t)st.pts[k].n, "t", t));
	}
	json_object_set_new(done, "trace", trace);
	json_object_set_new(done, "classes_uncropped", welch_json(&st.lt.raw));
	json_object_set_new(done, "calibration_measurements", json_integer((json_int_t)st.ncalib));
	json_object_set_new(done, "measurements", json_integer((json_int_t)st.lt.n));
	json_object_set_new(done, "batches", json_integer(st.batches));
	json_object_set_new(done, "slots_per_batch", json_integer(j.nslots));
	json_object_set_new(done, "contention", json_pack("{s:f, s:f, s:I, s:I, s:[I,I], s:[I,I], s:f, s:f, s:I}",
	                    "wall_s", (double)(t1 - t0) * 1e-9, "cpu_s", rusage_cpu_s(&ru1) - rusage_cpu_s(&ru0),
	                    "nivcsw", (json_int_t)(ru1.ru_nivcsw - ru0.ru_nivcsw),
	                    "nvcsw", (json_int_t)(ru1.ru_nvcsw - ru0.ru_nvcsw),
	                    "kept", (json_int_t)st.kept[0], (json_int_t)st.kept[1],
	                    "dropped", (json_int_t)st.dropped[0], (json_int_t)st.dropped[1],
	                    "load_start", isfinite(l0) ? l0 : -1.0, "load_end", isfinite(l1) ? l1 : -1.0,
	                    "ncpu", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN)));
	runner_emit(done);
	free(st.calib);
	free(st.pts);
	job_free(&j);
	counter_set_close(&cs);
	return 0;
}
