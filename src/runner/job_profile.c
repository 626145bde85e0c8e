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
 *
 * In dwarf mode the child also finds where the scheme is entered, for the
 * parent's unwinder: one probe call through the same path as the sampled
 * calls, with the operation's function replaced by a probe that records
 * its CFA (the stack pointer at the call into the scheme) and the runner's
 * return addresses above it; and, unless --stack is given, one call on a
 * painted stack that measures how deep below the entry the scheme goes,
 * which sizes the stack copy (sampler_stack_bytes_for).
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/clock.h"
#include "core/options.h"
#include "profile/sampler.h"

#include <execinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ---- where the scheme is entered ---- */

#define PROBE_FRAMES (SAMPLER_MAX_ENTRY_FRAMES + 4)

static struct {
	uintptr_t cfa, ret;
	void *frames[PROBE_FRAMES];
	int n;
} probe_seen;

/* In place of the operation's function: what the scheme would see. */
#define PROBE_BODY()                                                       \
	do {                                                               \
		probe_seen.cfa = (uintptr_t)__builtin_dwarf_cfa();         \
		probe_seen.ret = (uintptr_t)__builtin_return_address(0);   \
		probe_seen.n = backtrace(probe_seen.frames, PROBE_FRAMES); \
	} while (0)

static __attribute__((noinline)) int probe_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk,
                                                  pq_u64 *sklen)
{
	(void)pk, (void)pklen, (void)sk, (void)sklen;
	PROBE_BODY();
	return 0;
}

static __attribute__((noinline)) int probe_sign(unsigned char *sk, pq_u64 sklen, unsigned char *m,
                                                pq_u64 mlen, unsigned char *blob, pq_u64 *bloblen)
{
	(void)sk, (void)sklen, (void)m, (void)mlen, (void)blob, (void)bloblen;
	PROBE_BODY();
	return 0;
}

static __attribute__((noinline)) int probe_verify(unsigned char *pk, pq_u64 pklen, unsigned char *blob,
                                                  pq_u64 bloblen, unsigned char *m, pq_u64 mlen,
                                                  unsigned char *scratch)
{
	(void)pk, (void)pklen, (void)blob, (void)bloblen, (void)m, (void)mlen, (void)scratch;
	PROBE_BODY();
	return 0;
}

static __attribute__((noinline)) int probe_enc(unsigned char *pk, pq_u64 pklen, unsigned char *ss,
                                               pq_u64 *sslen, unsigned char *ct, pq_u64 *ctlen)
{
	(void)pk, (void)pklen, (void)ss, (void)sslen, (void)ct, (void)ctlen;
	PROBE_BODY();
	return 0;
}

static __attribute__((noinline)) int probe_dec(unsigned char *sk, pq_u64 sklen, unsigned char *ct,
                                               pq_u64 ctlen, unsigned char *ss, pq_u64 *sslen)
{
	(void)sk, (void)sklen, (void)ct, (void)ctlen, (void)ss, (void)sslen;
	PROBE_BODY();
	return 0;
}

/*
 * Every call of the operation, probe and measurement included, goes
 * through this one call site, so the scheme is always entered at the
 * same stack pointer.
 */
static __attribute__((noinline)) int sampled_call(struct sampler_child *sc, struct op_ctx *c,
                                                  enum pq_op op)
{
	if (sc)
		sampler_child_enable(sc);
	int rc = op_ctx_call(c, op);
	if (sc)
		sampler_child_disable(sc);
	__asm__ volatile("" ::: "memory");  /* not a tail call */
	return rc;
}

/* Inlined so that sampled_call is entered from job_profile's own frame,
 * as in the sampling loop, and the scheme at the same stack pointer. */
static inline __attribute__((always_inline)) void find_entry(struct op_ctx *c, enum pq_op op,
                                                            struct sampler_child *sc)
{
	const struct pqprof_instance *real = c->inst;
	struct pqprof_instance probe = *real;
	probe.keygen = probe_keygen;
	probe.sign = probe_sign;
	probe.verify = probe_verify;
	probe.enc = probe_enc;
	probe.dec = probe_dec;
	memset(&probe_seen, 0, sizeof probe_seen);
	c->inst = &probe;
	sampled_call(NULL, c, op);
	c->inst = real;
	sc->entry_sp = probe_seen.cfa;
	sc->nentry_frames = 0;
	/* frames[0] is in the probe (or in a sanitizer's backtrace wrapper), then
	 * comes the return into op_ctx_call: the runner's frames follow it. */
	int at = 0;
	while (at < probe_seen.n && (uintptr_t)probe_seen.frames[at] != probe_seen.ret)
		at++;
	if (at >= probe_seen.n)
		return;
	for (int i = at + 1; i < probe_seen.n && sc->nentry_frames < SAMPLER_MAX_ENTRY_FRAMES; i++)
		sc->entry_frames[sc->nentry_frames++] = (uint64_t)(uintptr_t)probe_seen.frames[i];
}

#define PAINT_BYTE 0x5a
#define PAINT_MAX ((size_t)256 << 10)

/* Fill n bytes of stack below the caller's frame; returns their start. */
static __attribute__((noinline)) uintptr_t paint_stack(size_t n)
{
	unsigned char *p = __builtin_alloca(n);
	memset(p, PAINT_BYTE, n);
	__asm__ volatile("" : : "r"(p) : "memory");
	return (uintptr_t)p;
}

/* The lowest byte of [lo, lo + n) that is no longer paint. */
static __attribute__((noinline, no_sanitize_address)) uintptr_t first_dirty(uintptr_t lo, size_t n)
{
	const volatile unsigned char *p = (const volatile unsigned char *)lo;
	for (size_t i = 0; i < n; i++)
		if (p[i] != PAINT_BYTE)
			return lo + i;
	return lo + n;
}

/* Bytes below the entry that one call of op writes; 0 when not measurable. */
static inline __attribute__((always_inline)) uint64_t measure_depth(struct op_ctx *c, enum pq_op op,
                                                                    uint64_t entry_sp)
{
	size_t n = PAINT_MAX;
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < n)
		n = (size_t)rl.rlim_cur / 4;
	uintptr_t lo = paint_stack(n);
	sampled_call(NULL, c, op);
	uintptr_t dirty = first_dirty(lo, n);
	if (!entry_sp || dirty >= entry_sp)
		return 0;
	/* All of the paint written: deeper than measured, so as deep as allowed. */
	if (dirty == lo)
		return SAMPLER_MAX_STACK_BYTES;
	return entry_sp - dirty;
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

/* One call through sampled_call, sampled or not, timed.  Inlined like
 * find_entry, so that sampled_call is entered from job_profile's own frame
 * and the scheme at the stack pointer the probe saw. */
static inline __attribute__((always_inline)) int timed_call(struct op_ctx *c, int op, struct sampler_child *sc, int on, struct perturbation *p)
{
	double w0 = mono_s(), c0 = cpu_s();
	int rc = sampled_call(on ? sc : NULL, c, (enum pq_op)op);
	p->cpu[on] += cpu_s() - c0;
	p->wall[on] += mono_s() - w0;
	p->n[on]++;
	return rc;
}
int job_profile(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *mode = "fp", *event = "auto";
	long freq = 0, period = 0, stack = 0, pages = 0, iters = 0, warmup = 1, mlen = 64;
	double seconds = 0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "", NULL },
		{ OPT_STRING, 0, "mode", &mode, "fp|dwarf", "", NULL },
		{ OPT_STRING, 0, "event", &event, "NAME", "", NULL },
		{ OPT_INT, 0, "freq", &freq, "HZ", "", NULL },
		{ OPT_INT, 0, "period", &period, "N", "", NULL },
		{ OPT_INT, 0, "stack", &stack, "BYTES", "", NULL },
		{ OPT_INT, 0, "pages", &pages, "N", "", NULL },
		{ OPT_INT, 0, "iters", &iters, "N", "", NULL },
		{ OPT_DOUBLE, 0, "seconds", &seconds, "S", "", NULL },
		{ OPT_INT, 0, "warmup", &warmup, "N", "", NULL },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
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
	/* Where the scheme is entered, and how deep it goes from there. */
	struct sampler_child entry;
	memset(&entry, 0, sizeof entry);
	uint64_t depth = 0;
	if (cfg.mode == SAMPLER_MODE_DWARF) {
		find_entry(&c, (enum pq_op)op, &entry);
		if (!stack) {
			depth = measure_depth(&c, (enum pq_op)op, entry.entry_sp);
			cfg.stack_bytes = sampler_stack_bytes_for(depth ? depth : 16384, cfg.data_pages);
		}
	} else if (!stack) {
		cfg.stack_bytes = 16384;
	}
	struct sampler_child sc;
	if (sampler_child_open(&cfg, &sc, &err) == 0) {
		sc.entry_sp = entry.entry_sp;
		sc.nentry_frames = entry.nentry_frames;
		memcpy(sc.entry_frames, entry.entry_frames, sizeof sc.entry_frames);
	}
	if (sc.fd < 0 || sampler_child_send_fds(&sc, env->ctrl_fd, &err) < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "perf", "msg", err.msg));
		op_ctx_free(&c);
		return PQ_EPERF;
	}

	runner_op_begin((enum pq_op)op, 1);
	for (long i = 0; i < warmup; i++)
		sampled_call(NULL, &c, (enum pq_op)op);
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

	json_t *done = json_pack("{s:s, s:s, s:I, s:f, s:s, s:s, s:s, s:I, s:I, s:I, s:I}",
	                         "ev", "done", "op", opname, "calls", (json_int_t)calls,
	                         "seconds_in_calls", in_calls, "event", sc.event_name,
	                         "fallback", sc.fallback, "mode", sampler_mode_name(sc.mode),
	                         "freq", (json_int_t)sc.freq, "period", (json_int_t)sc.period,
	                         "stack_bytes", (json_int_t)sc.stack_bytes, "stack_depth",
	                         (json_int_t)depth);
	json_object_set_new(done, "perturbation",
	                    json_pack("{s:f, s:f, s:f, s:f, s:I, s:I}", "on_cpu_s", pt.cpu[1], "off_cpu_s", pt.cpu[0],
	                              "on_wall_s", pt.wall[1], "off_wall_s", pt.wall[0], "on_calls",
	                              (json_int_t)pt.n[1], "off_calls", (json_int_t)pt.n[0]));
	runner_emit(done);
	op_ctx_free(&c);
	return 0;
}
