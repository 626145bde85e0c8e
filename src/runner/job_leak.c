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
 *
 * The A/A control rides along: every class-1 slot also gets a control
 * label drawn by its own coin, and the control's tests compare the two
 * halves of class 1, prepared the same way and interleaved with class 0,
 * so their |t| is what the harness and the machine reach without a
 * difference in the inputs.  Its trace is sent beside the pair's.
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
	int *ctl;                      /* control label of a class-1 slot (0 or 1) */
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
	j->ctl = calloc(ns, sizeof *j->ctl);
	j->opk = zalloc((size_t)sz->pk);
	j->osk = zalloc((size_t)sz->sk);
	j->oblob = zalloc((size_t)j->c.bloblen_max);
	j->scratch = zalloc((size_t)j->c.bloblen_max);
	j->oct = zalloc((size_t)sz->ct);
	j->oss = zalloc((size_t)sz->ss);
	if (!j->slots || !j->slot_len || !j->slot_seed || !j->slot_m || !j->cls || !j->ctl || !j->opk || !j->osk || !j->oblob ||
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
	free(j->ctl);
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

static double rusage_cpu_s(const struct rusage *ru)
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

/* A t trace: the t of every test at increasing numbers of measurements. */
struct trace {
	struct leak_point *pts;
	size_t npts;
};

struct run_state {
	double *calib;
	size_t ncalib, calib_want;
	struct leak_tests lt, ctl;     /* the pair, and the A/A control (the halves of class 1) */
	int tests_ready;
	struct trace pair, control;
	uint64_t next_point;
	uint64_t kept[2], dropped[2];
	double units, ns;              /* sums over kept calls, for ns per counter unit */
	long batches;
};

static void add_point(struct trace *tr, const struct leak_tests *lt, uint64_t n)
{
	if (tr->npts >= MAX_POINTS)
		return;
	struct leak_point *p = &tr->pts[tr->npts++];
	memset(p, 0, sizeof *p);
	p->n = n;
	for (int i = 0; i < leak_tests_count(lt) && i < LEAK_MAX_TESTS; i++)
		p->t[i] = leak_tests_t(lt, i);
}

/* Both traces at the pair's measurement count (the control's points name the same moment). */
static void add_points(struct run_state *st)
{
	add_point(&st->pair, &st->lt, st->lt.n);
	add_point(&st->control, &st->ctl, st->lt.n);
}

static void record(struct run_state *st, int cls, int ctl, double v)
{
	st->kept[cls]++;
	if (!st->tests_ready) {
		st->calib[st->ncalib++] = v;
		if (st->ncalib >= st->calib_want) {
			double pcts[LEAK_MAX_CROPS];
			int np = leak_default_crops(pcts, LEAK_MAX_CROPS);
			leak_tests_init(&st->lt, st->calib, st->ncalib, pcts, np);
			leak_tests_init(&st->ctl, st->calib, st->ncalib, pcts, np);
			st->tests_ready = 1;
			st->next_point = FIRST_POINT;
		}
		return;
	}
	leak_tests_add(&st->lt, cls, v);
	if (cls)
		leak_tests_add(&st->ctl, ctl, v);
	if (st->lt.n >= st->next_point) {
		add_points(st);
		uint64_t nx = (uint64_t)ceil((double)st->next_point * 1.25);
		st->next_point = nx > st->next_point ? nx : st->next_point + 1;
	}
}

static json_t *trace_json(const struct trace *tr, const struct leak_tests *lt)
{
	json_t *trace = json_array();
	for (size_t k = 0; k < tr->npts; k++) {
		json_t *t = json_array();
		for (int i = 0; i < leak_tests_count(lt); i++)
			json_array_append_new(t, json_real(round(tr->pts[k].t[i] * 1000) / 1000));
		json_array_append_new(trace, json_pack("{s:I, s:o}", "n", (json_int_t)tr->pts[k].n, "t", t));
	}
	return trace;
}

/* Each test's effect: the difference of class means (class 0 minus class 1) and its standard error. */
static json_t *effects_json(const struct leak_tests *lt)
{
	json_t *a = json_array();
	for (int i = 0; i < leak_tests_count(lt); i++) {
		struct leak_effect e = leak_tests_effect(lt, i);
		json_array_append_new(a, json_pack("{s:f, s:f}", "diff", e.diff, "se", e.se));
	}
	return a;
}

static double pooled_mean(const struct leak_welch *w)
{
	double n = w->n[0] + w->n[1];
	return n > 0 ? (w->n[0] * w->mean[0] + w->n[1] * w->mean[1]) / n : 0;
}

/* One leak job: its command line, the inputs, the counters, and the run's state and evidence. */
struct leak_session {
	const char *opname, *classes, *events, *backend, *seedarg;
	long mlen, max_meas;
	double budget;
	enum pq_op op;
	const struct leak_pair *pair;
	uint64_t iseed;                 /* the interleaving's seed: the parent's, else a random one */
	const struct pqprof_instance *in;
	counter_set cs;
	struct leak_job j;
	struct run_state st;
	uint64_t t0, t1, end, calib_end; /* the raw clock: start, stop, end of the budget, of calibration */
	struct rusage ru0, ru1;
	double l0, l1;                  /* load averages at the start and the end */
	int stop;
	pq_error err;
};

/* The command line the parent writes (leak/leak_run.c); 0, or -1 with the error sent. */
static int parse_args(struct leak_session *ls, int argc, char **argv)
{
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &ls->opname, "OP", "", NULL },
		{ OPT_STRING, 0, "classes", &ls->classes, "PAIR", "", NULL },
		{ OPT_DOUBLE, 0, "budget", &ls->budget, "S", "", NULL },
		{ OPT_INT, 0, "measurements", &ls->max_meas, "N", "", NULL },
		{ OPT_INT, 0, "mlen", &ls->mlen, "BYTES", "", NULL },
		{ OPT_STRING, 0, "events", &ls->events, "CSV", "", NULL },
		{ OPT_STRING, 0, "backend", &ls->backend, "NAME", "", NULL },
		{ OPT_STRING, 0, "seed", &ls->seedarg, "N", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	if (options_parse(argc, argv, specs, NULL, 0, &help, &ls->err) < 0 || !ls->opname || !ls->classes) {
		runner_emit_error("leak job: %s", ls->err.msg[0] ? ls->err.msg : "--op and --classes are required");
		return -1;
	}
	int op = pq_op_parse(ls->opname);
	ls->pair = op >= 0 ? leak_pair_find((enum pq_op)op, ls->classes) : NULL;
	if (!ls->pair || ls->budget <= 0 || ls->mlen < 1 || ls->mlen > (1 << 20) || ls->max_meas < 0) {
		runner_emit_error("leak job: bad arguments");
		return -1;
	}
	ls->op = (enum pq_op)op;
	/* No seed from the parent: a random one (the record names it). */
	ls->iseed = ls->seedarg ? strtoull(ls->seedarg, NULL, 0) : 0;
	if (!ls->iseed && getrandom(&ls->iseed, sizeof ls->iseed, 0) != (ssize_t)sizeof ls->iseed)
		ls->iseed = (uint64_t)counter_raw_clock_ns() ^ (uint64_t)getpid();
	return 0;
}

/* The calibration buffer and both traces; -1 when memory runs out. */
static int run_state_alloc(struct run_state *st)
{
	st->calib = calloc(CALIB_MAX, sizeof *st->calib);
	st->pair.pts = calloc(MAX_POINTS, sizeof *st->pair.pts);
	st->control.pts = calloc(MAX_POINTS, sizeof *st->control.pts);
	st->calib_want = CALIB_MAX;
	return st->calib && st->pair.pts && st->control.pts ? 0 : -1;
}

static void run_state_free(struct run_state *st)
{
	free(st->calib);
	free(st->pair.pts);
	free(st->control.pts);
}

/* Send a scheme failure during the measurements; returns PQ_ESCHEME. */
static int fail_measure(struct leak_session *ls)
{
	runner_op_end(ls->op, 1);
	runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "cryptofail", "msg", ls->err.msg));
	return PQ_ESCHEME;
}

/*
 * A batch of inputs, outside any timed region: each slot's class (and a
 * class-1 slot's control label) by a coin of the job's generator; fewer
 * slots when the budget runs out.  The number of slots, or -1.
 */
static int prepare_batch(struct leak_session *ls)
{
	struct leak_job *j = &ls->j;
	int ns = 0;
	for (; ns < j->nslots; ns++) {
		uint64_t coin = stats_rng_next(&j->rng);
		int cls = (int)(coin >> 63);
		j->ctl[ns] = (int)((coin >> 62) & 1);
		if (prepare_slot(j, ls->in, ns, cls, &ls->err) < 0)
			return -1;
		if (counter_raw_clock_ns() >= ls->end)
			break;
	}
	return ns;
}

/*
 * Slot s timed alone; kept for the tests unless the thread was switched
 * out during the call.  Calibration ends early for slow operations; the
 * budget or --measurements ends the run.  0, or PQ_ESCHEME (sent).
 */
static int measure_slot(struct leak_session *ls, int s)
{
	struct leak_job *j = &ls->j;
	struct run_state *st = &ls->st;
	if (j->pair->input == LEAK_IN_SEED)
		runner_seed_instance(ls->in, j->slot_seed + (size_t)s * 48, 48);
	long sw0 = switches();
	runner_mark_call(ls->op, 1);
	counter_sample s0, d = { 0 };
	counter_set_start(&ls->cs, &s0);
	int rc = call_slot(j, ls->in, s);
	counter_set_stop(&ls->cs, &s0, &d);
	runner_mark_call(ls->op, 0);
	long sw1 = switches();
	int cls = j->cls[s];
	if (!rc_ok(j, cls, rc)) {
		pq_fail(&ls->err, PQ_ESCHEME, "%s returned %d on a class-%d input (%s)", ls->opname, rc, cls,
		        ls->pair->what);
		return fail_measure(ls);
	}
	if (sw1 != sw0) {
		st->dropped[cls]++;
	} else {
		record(st, cls, j->ctl[s], (double)d.v[0]);
		st->units += (double)d.v[0];
		st->ns += (double)d.ns;
	}
	uint64_t now = counter_raw_clock_ns();
	if (!st->tests_ready && now >= ls->calib_end && st->ncalib >= 20)
		st->calib_want = st->ncalib;  /* the next kept value ends calibration */
	if (now >= ls->end || (ls->max_meas > 0 && st->lt.n >= (uint64_t)ls->max_meas))
		ls->stop = 1;
	return 0;
}

/* Batch after batch until the budget or --measurements, with the process's usage and load around it. */
static int measure(struct leak_session *ls)
{
	ls->t0 = counter_raw_clock_ns();
	ls->end = ls->t0 + (uint64_t)(ls->budget * 1e9);
	/* The crop thresholds come from the first measurements, or from what
	 * 15% of the budget gives for slow operations. */
	ls->calib_end = ls->t0 + (uint64_t)(ls->budget * 0.15e9);
	getrusage(RUSAGE_SELF, &ls->ru0);
	ls->l0 = load1();
	runner_op_begin(ls->op, 1);
	while (!ls->stop) {
		int ns = prepare_batch(ls);
		if (ns < 0)
			return fail_measure(ls);
		ls->st.batches++;
		for (int s = 0; s < ns && !ls->stop; s++) {
			int rc = measure_slot(ls, s);
			if (rc != 0)
				return rc;
		}
		if (counter_raw_clock_ns() >= ls->end)
			ls->stop = 1;
	}
	runner_op_end(ls->op, 1);
	ls->t1 = counter_raw_clock_ns();
	getrusage(RUSAGE_SELF, &ls->ru1);
	ls->l1 = load1();
	/* The traces end at the last measurement. */
	struct run_state *st = &ls->st;
	if (st->tests_ready && (st->pair.npts == 0 || st->pair.pts[st->pair.npts - 1].n != st->lt.n))
		add_points(st);
	return 0;
}

/* The tests' names, crop thresholds and resolutions into the done event. */
static void add_tests_json(json_t *done, const struct run_state *st)
{
	json_t *names = json_array(), *crops = json_array();
	for (int i = 0; st->tests_ready && i < leak_tests_count(&st->lt); i++) {
		char nm[32];
		leak_test_name(&st->lt, i, nm, sizeof nm);
		json_array_append_new(names, json_string(nm));
	}
	for (int i = 0; i < st->lt.ncrops; i++)
		json_array_append_new(crops, json_pack("{s:f, s:f}", "percentile", st->lt.crop_pct[i], "at", st->lt.crop_at[i]));
	json_t *res = json_array();
	for (int i = 0; st->tests_ready && i < leak_tests_count(&st->lt); i++)
		json_array_append_new(res, json_real(leak_tests_resolution(&st->lt, i)));
	json_object_set_new(done, "resolution", res);
	json_object_set_new(done, "tests", names);
	json_object_set_new(done, "crops", crops);
}

/* What the machine did meanwhile: wall and CPU time, context switches, kept and dropped calls, load. */
static json_t *contention_json(const struct leak_session *ls)
{
	const struct run_state *st = &ls->st;
	return json_pack("{s:f, s:f, s:I, s:I, s:[I,I], s:[I,I], s:f, s:f, s:I}",
	                 "wall_s", (double)(ls->t1 - ls->t0) * 1e-9,
	                 "cpu_s", rusage_cpu_s(&ls->ru1) - rusage_cpu_s(&ls->ru0),
	                 "nivcsw", (json_int_t)(ls->ru1.ru_nivcsw - ls->ru0.ru_nivcsw),
	                 "nvcsw", (json_int_t)(ls->ru1.ru_nvcsw - ls->ru0.ru_nvcsw),
	                 "kept", (json_int_t)st->kept[0], (json_int_t)st->kept[1],
	                 "dropped", (json_int_t)st->dropped[0], (json_int_t)st->dropped[1],
	                 "load_start", isfinite(ls->l0) ? ls->l0 : -1.0, "load_end", isfinite(ls->l1) ? ls->l1 : -1.0,
	                 "ncpu", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
}

/* The "done" event: the settings, the counter, the tests and their traces, the control, the contention. */
static json_t *done_event(struct leak_session *ls)
{
	const struct run_state *st = &ls->st;
	counter_set *cs = &ls->cs;
	char desc[256];
	counter_set_describe(cs, desc, sizeof desc);
	json_t *done = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:f, s:I}",
	                         "ev", "done", "op", ls->opname, "classes", ls->pair->name, "what", ls->pair->what,
	                         "backend", counter_set_backend_name(cs), "backend_desc", desc,
	                         "unit", counter_set_unit(cs), "counts_cycles", counter_set_counts_cycles(cs),
	                         "message_bytes", (json_int_t)ls->mlen, "budget_s", ls->budget,
	                         "max_measurements", (json_int_t)ls->max_meas);
	char seedhex[32];
	snprintf(seedhex, sizeof seedhex, "0x%016llx", (unsigned long long)ls->iseed);
	json_object_set_new(done, "interleave_seed", json_string(seedhex));
	json_t *reasons = json_array();
	for (int i = 0; i < counter_set_reason_count(cs); i++)
		json_array_append_new(reasons, json_string(counter_set_reason(cs, i)));
	json_object_set_new(done, "fallback_reasons", reasons);
	add_tests_json(done, st);
	json_object_set_new(done, "trace", trace_json(&st->pair, &st->lt));
	json_object_set_new(done, "classes_uncropped", welch_json(&st->lt.raw));
	json_object_set_new(done, "effects", effects_json(&st->lt));
	json_object_set_new(done, "mean", json_real(pooled_mean(&st->lt.raw)));
	/* ns per counter unit: fixed for tsc and clock, else what the kept calls took */
	double spu = counter_set_seconds_per_unit(cs);
	json_object_set_new(done, "ns_per_unit", json_real(spu > 0 ? spu * 1e9 : st->units > 0 ? st->ns / st->units : 0));
	json_object_set_new(done, "ns_per_unit_from", json_string(spu > 0 ? "counter" : "measured"));
	json_object_set_new(done, "control", json_pack("{s:o, s:o, s:I}", "trace", trace_json(&st->control, &st->ctl),
	                    "classes_uncropped", welch_json(&st->ctl.raw), "measurements", (json_int_t)st->ctl.n));
	json_object_set_new(done, "calibration_measurements", json_integer((json_int_t)st->ncalib));
	json_object_set_new(done, "measurements", json_integer((json_int_t)st->lt.n));
	json_object_set_new(done, "batches", json_integer(st->batches));
	json_object_set_new(done, "slots_per_batch", json_integer(ls->j.nslots));
	json_object_set_new(done, "contention", contention_json(ls));
	return done;
}

int job_leak(struct runner_env *env, int argc, char **argv)
{
	struct leak_session session = { .events = "cycles", .mlen = 64, .budget = 4.0, .in = env->inst };
	struct leak_session *ls = &session;
	if (parse_args(ls, argc, argv) < 0)
		return 1;
	if (counter_set_open(ls->events, ls->backend, &ls->cs, &ls->err) < 0) {
		runner_emit_error("counters: %s", ls->err.msg);
		return PQ_EPERF;
	}
	int r = job_init(&ls->j, env, ls->pair, ls->mlen, ls->iseed, &ls->err);
	if (r < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", r == -PQ_ESCHEME ? "cryptofail" : "setup",
		                      "msg", ls->err.msg));
		job_free(&ls->j);
		return r == -PQ_ESCHEME ? PQ_ESCHEME : PQ_ENOMEM;
	}
	if (run_state_alloc(&ls->st) < 0) {
		runner_emit_error("out of memory");
		return PQ_ENOMEM;
	}
	r = measure(ls);
	if (r != 0)
		return r;
	runner_emit(done_event(ls));
	run_state_free(&ls->st);
	job_free(&ls->j);
	counter_set_close(&ls->cs);
	return 0;
}
