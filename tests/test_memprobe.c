/*
 * Check suite for memprobe and heap_hooks: a fake instance compiled into
 * the test whose sign allocates and touches 10 MiB, whose verify uses a
 * 64 KiB stack array, and whose keygen can be switched to recurse without
 * end.  Each measurement runs in a forked child, as the runner does, so
 * that one test's allocations cannot lower the next one's peak.
 */
#include "config.h"
#include "runner/heap_hooks.h"
#include "runner/memprobe.h"
#include "runner/op_ctx.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_HOOKS_EXPECTED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_HOOKS_EXPECTED 0
#endif
#endif
#ifndef HEAP_HOOKS_EXPECTED
#define HEAP_HOOKS_EXPECTED 1
#endif

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define SIGN_HEAP (10 * MiB)
#define VERIFY_STACK (64 * KiB)
#define RSS_SLACK (1 * MiB)

/* ---- the fake instance ---- */

enum fake_mode { FAKE_NORMAL, FAKE_KEYGEN_RECURSES, FAKE_SIGN_OOM };
static volatile int fake_mode = FAKE_NORMAL;
static volatile int never; /* keeps the recursion from being provably endless */
static volatile size_t huge_request = (size_t)1 << 60;
static void *volatile sink; /* keeps the compiler from eliding malloc/free pairs */

/* A 32-byte keyed mix; enough to make signatures depend on key and message. */
__attribute__((noinline)) static void mix(unsigned char out[32], const unsigned char *a, size_t alen,
                                          const unsigned char *b, size_t blen)
{
	uint64_t s[4] = { 0x6a09e667f3bcc908u, 0xbb67ae8584caa73bu, 0x3c6ef372fe94f82bu, 0xa54ff53a5f1d36f1u };
	for (size_t i = 0; i < alen + blen; i++) {
		uint64_t x = i < alen ? a[i] : b[i - alen];
		s[i & 3] = (s[i & 3] ^ (x + i)) * 0x9e3779b97f4a7c15u;
		s[(i + 1) & 3] ^= s[i & 3] >> 29;
	}
	for (int i = 0; i < 32; i++)
		out[i] = (unsigned char)(s[i & 3] >> (8 * (i >> 2)));
}

__attribute__((noinline)) static int recurse(volatile unsigned char *up, int depth)
{
	volatile unsigned char frame[256];
	frame[0] = (unsigned char)(up ? up[0] + depth : depth);
	if (never)
		return frame[0];
	return recurse(frame, depth + 1) + frame[depth & 255];
}

static void fake_sizes(struct pqprof_sizes *s)
{
	memset(s, 0, sizeof *s);
	s->pk = 32;
	s->sk = 32;
	s->sig = 32;
}

static pq_u64 fake_blob_max(pq_u64 mlen)
{
	(void)mlen;
	return 32;
}

static int fake_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)
{
	if (fake_mode == FAKE_KEYGEN_RECURSES)
		return recurse(NULL, 0);
	for (int i = 0; i < 32; i++)
		sk[i] = (unsigned char)(i * 3 + 1);
	mix(pk, sk, 32, NULL, 0);
	*pklen = 32;
	*sklen = 32;
	return 0;
}

static int fake_sign(unsigned char *sk, pq_u64 sklen, unsigned char *m, pq_u64 mlen,
                     unsigned char *blob, pq_u64 *bloblen)
{
	size_t want = fake_mode == FAKE_SIGN_OOM ? huge_request : SIGN_HEAP;
	volatile unsigned char *work = malloc(want);
	if (fake_mode == FAKE_SIGN_OOM)
		work[0] = 1; /* a scheme that does not check malloc: crash on NULL */
	if (!work)
		return -1;
	for (size_t i = 0; i < SIGN_HEAP; i += 512)
		work[i] = sk[i % sklen];
	unsigned char pk[32];
	mix(pk, sk, 32, NULL, 0);
	mix(blob, pk, 32, m, (size_t)mlen);
	blob[0] ^= (unsigned char)(work[SIGN_HEAP / 2] ^ sk[(SIGN_HEAP / 2) % sklen]); /* 0 */
	free((void *)work);
	*bloblen = 32;
	return 0;
}

static int fake_verify(unsigned char *pk, pq_u64 pklen, unsigned char *blob, pq_u64 bloblen,
                       unsigned char *m, pq_u64 mlen, unsigned char *scratch)
{
	(void)pklen;
	(void)scratch;
	volatile unsigned char table[VERIFY_STACK];
	for (size_t i = 0; i < sizeof table; i++)
		table[i] = (unsigned char)(i + 1);
	unsigned char want[32];
	mix(want, pk, 32, m, (size_t)mlen);
	want[0] ^= (unsigned char)(table[0] - 1);
	return bloblen == 32 && memcmp(want, blob, 32) == 0 ? 0 : -1;
}

static int fake_seed(const unsigned char *seed, pq_u64 len)
{
	(void)seed;
	(void)len;
	return 0;
}

static const struct pqprof_instance fake = {
	.magic = PQPROF_ABI_MAGIC,
	.abi_version = PQPROF_ABI_VERSION,
	.api = PQPROF_API_NGCC,
	.kind = PQPROF_KIND_SIG,
	.name = "fake-mem",
	.get_sizes = fake_sizes,
	.sig_blob_max = fake_blob_max,
	.seed = fake_seed,
	.keygen = fake_keygen,
	.sign = fake_sign,
	.verify = fake_verify,
};

/* ---- measuring in a child ---- */

struct measured {
	int status;                  /* waitpid status */
	int probe_rc;                /* memprobe_run's return; -1000 if it never returned */
	struct memprobe_result res;
	char err[sizeof ((pq_error *)0)->msg];
	char diag[512];              /* what the fault handler wrote */
};

static void write_full(int fd, const void *p, size_t len)
{
	const char *s = p;
	while (len > 0) {
		ssize_t n = write(fd, s, len);
		if (n <= 0)
			_exit(99);
		s += n;
		len -= (size_t)n;
	}
}

static size_t read_full(int fd, void *p, size_t cap)
{
	char *s = p;
	size_t got = 0;
	while (got < cap) {
		ssize_t n = read(fd, s + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void child_measure(enum pq_op op, int mode, struct memprobe_config *cfg, int res_fd)
{
	struct measured m;
	memset(&m, 0, sizeof m);
	pq_error err = { 0 };
	struct op_ctx c;
	m.probe_rc = -1000;
	if (op_ctx_init(&c, &fake, 64, &err) < 0 || op_ctx_prepare(&c, op, &err) < 0) {
		snprintf(m.err, sizeof m.err, "%s", err.msg);
		write_full(res_fd, &m, sizeof m);
		_exit(2);
	}
	fake_mode = mode;
	m.probe_rc = memprobe_run(&c, op, cfg, &m.res, &err);
	snprintf(m.err, sizeof m.err, "%s", err.msg);
	write_full(res_fd, &m, sizeof m);
	_exit(0);
}

static void measure(enum pq_op op, int mode, const struct memprobe_config *cfg_in, struct measured *out)
{
	int res_pipe[2], diag_pipe[2];
	ck_assert_int_eq(pipe(res_pipe), 0);
	ck_assert_int_eq(pipe(diag_pipe), 0);
	struct memprobe_config cfg;
	if (cfg_in)
		cfg = *cfg_in;
	else
		memprobe_config_init(&cfg);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(res_pipe[0]);
		close(diag_pipe[0]);
		/* No core files from the crashes these tests provoke. */
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		signal(SIGSEGV, SIG_DFL);
		cfg.fault_fd = diag_pipe[1];
		child_measure(op, mode, &cfg, res_pipe[1]);
	}
	close(res_pipe[1]);
	close(diag_pipe[1]);
	memset(out, 0, sizeof *out);
	out->probe_rc = -1000;
	struct measured got;
	if (read_full(res_pipe[0], &got, sizeof got) == sizeof got)
		*out = got;
	size_t n = read_full(diag_pipe[0], out->diag, sizeof out->diag - 1);
	out->diag[n] = '\0';
	close(res_pipe[0]);
	close(diag_pipe[0]);
	ck_assert_int_eq(waitpid(pid, &out->status, 0), pid);
}

static void assert_measured(const struct measured *m)
{
	ck_assert_msg(WIFEXITED(m->status) && WEXITSTATUS(m->status) == 0,
	              "child ended with status %#x: %s", m->status, m->err);
	ck_assert_msg(m->probe_rc == 0, "memprobe_run: %d %s", m->probe_rc, m->err);
	ck_assert_int_eq(m->res.rc, 0);
	ck_assert_msg(m->res.baseline_rss > 0, "no baseline RSS");
}

/* ---- tests ---- */

START_TEST(test_sign_heap_and_peak)
{
	struct measured m;
	measure(PQ_OP_SIGN, FAKE_NORMAL, NULL, &m);
	assert_measured(&m);
	const struct memprobe_result *r = &m.res;
	/*
	 * VmRSS/VmHWM come from counters the kernel keeps per CPU (Linux >= 6.2)
	 * and can lag by a few hundred KiB; doc/memory.md.  Hence the slack.
	 */
	ck_assert_msg(r->peak_rss + RSS_SLACK >= r->baseline_rss + SIGN_HEAP,
	              "peak %llu - baseline %llu < 10 MiB - slack", (unsigned long long)r->peak_rss,
	              (unsigned long long)r->baseline_rss);
	/* Nothing near 64 MiB of probe stack may leak into the figure. */
	ck_assert_msg(r->peak_rss < r->baseline_rss + SIGN_HEAP + 8 * MiB,
	              "peak %llu too far above baseline %llu", (unsigned long long)r->peak_rss,
	              (unsigned long long)r->baseline_rss);
	ck_assert_uint_ge(r->probe_stack_resident, MEMPROBE_DEFAULT_STACK - 64 * KiB);
	ck_assert_uint_eq(r->stack_size, MEMPROBE_DEFAULT_STACK);
	ck_assert_int_eq(r->heap_available, HEAP_HOOKS_EXPECTED);
	if (r->heap_available) {
		ck_assert_uint_ge(r->heap.allocs, 1);
		ck_assert_uint_ge(r->heap.frees, 1);
		ck_assert_uint_ge(r->heap.bytes_requested, SIGN_HEAP);
		ck_assert_int_ge(r->heap.peak_live_bytes, (int64_t)SIGN_HEAP);
		ck_assert_int_eq(r->heap.live_bytes, 0);
		ck_assert_uint_eq(r->heap.failed, 0);
	}
}
END_TEST

START_TEST(test_verify_stack)
{
	struct measured m;
	measure(PQ_OP_VERIFY, FAKE_NORMAL, NULL, &m);
	assert_measured(&m);
	const struct memprobe_result *r = &m.res;
	ck_assert_msg(r->stack_used >= VERIFY_STACK && r->stack_used < VERIFY_STACK + 16 * KiB,
	              "stack used %llu", (unsigned long long)r->stack_used);
	ck_assert_msg(r->stack_overhead > 0 && r->stack_overhead < 2 * KiB,
	              "trampoline overhead %llu", (unsigned long long)r->stack_overhead);
	if (r->heap_available)
		ck_assert_uint_eq(r->heap.allocs, 0);
	/* The stack pages count towards the peak, as a normal stack's would. */
	ck_assert_uint_ge(r->peak_rss, r->hwm_raw - r->probe_stack_resident + VERIFY_STACK);
}
END_TEST

START_TEST(test_keygen_small)
{
	struct measured m;
	measure(PQ_OP_KEYGEN, FAKE_NORMAL, NULL, &m);
	assert_measured(&m);
	const struct memprobe_result *r = &m.res;
	ck_assert_msg(r->peak_rss < r->baseline_rss + 1 * MiB, "keygen grew RSS from %llu to %llu",
	              (unsigned long long)r->baseline_rss, (unsigned long long)r->peak_rss);
	ck_assert_uint_lt(r->stack_used, 16 * KiB);
	ck_assert_uint_gt(r->stack_used, r->stack_overhead);
}
END_TEST

START_TEST(test_stack_overflow_reported)
{
	struct memprobe_config cfg;
	memprobe_config_init(&cfg);
	cfg.stack_size = 1 * MiB;
	struct measured m;
	measure(PQ_OP_KEYGEN, FAKE_KEYGEN_RECURSES, &cfg, &m);
	ck_assert_msg(WIFSIGNALED(m.status) && WTERMSIG(m.status) == SIGSEGV,
	              "expected death by SIGSEGV, status %#x", m.status);
	ck_assert_msg(strstr(m.diag, "\"ev\":\"diagnosis\"") && strstr(m.diag, "\"op\":\"keygen\"") &&
	              strstr(m.diag, "stack overflow (more than 1048576 bytes of stack)"),
	              "diagnosis: %s", m.diag);
	ck_assert_msg(strchr(m.diag, '\n') == m.diag + strlen(m.diag) - 1, "not one line: %s", m.diag);
}
END_TEST

START_TEST(test_stack_overflow_exit_code)
{
	struct memprobe_config cfg;
	memprobe_config_init(&cfg);
	cfg.stack_size = 256 * KiB;
	cfg.overflow_exit_code = 42;
	struct measured m;
	measure(PQ_OP_KEYGEN, FAKE_KEYGEN_RECURSES, &cfg, &m);
	ck_assert_msg(WIFEXITED(m.status) && WEXITSTATUS(m.status) == 42, "status %#x", m.status);
	ck_assert_ptr_nonnull(strstr(m.diag, "more than 262144 bytes of stack"));
}
END_TEST

START_TEST(test_oom_crash_diagnosed)
{
	if (!HEAP_HOOKS_EXPECTED)
		return;
	struct measured m;
	measure(PQ_OP_SIGN, FAKE_SIGN_OOM, NULL, &m);
	ck_assert_msg(WIFSIGNALED(m.status) && WTERMSIG(m.status) == SIGSEGV, "status %#x", m.status);
	ck_assert_msg(strstr(m.diag, "\"kind\":\"out_of_memory\"") && strstr(m.diag, "\"op\":\"sign\"") &&
	              strstr(m.diag, "out of memory (1 failed allocations"), "diagnosis: %s", m.diag);
}
END_TEST

static void marker_handler(int sig)
{
	(void)sig;
}

START_TEST(test_handlers_restored)
{
	/* Runs in Check's own forked child (or not): put everything back after. */
	struct sigaction mine, before, after;
	memset(&mine, 0, sizeof mine);
	mine.sa_handler = marker_handler;
	ck_assert_int_eq(sigaction(SIGSEGV, &mine, &before), 0);
	stack_t alt_before, alt_after;
	ck_assert_int_eq(sigaltstack(NULL, &alt_before), 0);

	pq_error err = { 0 };
	struct op_ctx c;
	ck_assert_int_eq(op_ctx_init(&c, &fake, 64, &err), 0);
	ck_assert_int_eq(op_ctx_prepare(&c, PQ_OP_KEYGEN, &err), 0);
	struct memprobe_config cfg;
	memprobe_config_init(&cfg);
	cfg.stack_size = 1 * MiB;
	struct memprobe_result r;
	ck_assert_int_eq(memprobe_run(&c, PQ_OP_KEYGEN, &cfg, &r, &err), 0);
	ck_assert_int_eq(r.rc, 0);
	op_ctx_free(&c);

	ck_assert_int_eq(sigaction(SIGSEGV, &before, &after), 0);
	ck_assert_ptr_eq((void *)after.sa_handler, (void *)marker_handler);
	ck_assert_int_eq(sigaltstack(NULL, &alt_after), 0);
	ck_assert_ptr_eq(alt_after.ss_sp, alt_before.ss_sp);
	ck_assert_int_eq(alt_after.ss_flags, alt_before.ss_flags);
}
END_TEST

START_TEST(test_bad_stack_size)
{
	pq_error err = { 0 };
	struct op_ctx c;
	ck_assert_int_eq(op_ctx_init(&c, &fake, 64, &err), 0);
	struct memprobe_config cfg;
	memprobe_config_init(&cfg);
	cfg.stack_size = 1000;
	struct memprobe_result r;
	ck_assert_int_eq(memprobe_run(&c, PQ_OP_KEYGEN, &cfg, &r, &err), -PQ_EUSAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "stack size"));
	op_ctx_free(&c);
}
END_TEST

START_TEST(test_read_status)
{
	uint64_t rss = 0, hwm = 0;
	pq_error err = { 0 };
	ck_assert_int_eq(memprobe_read_status(&rss, &hwm, &err), 0);
	ck_assert_uint_gt(rss, 0);
	ck_assert_uint_ge(hwm, rss);
	ck_assert_uint_eq(rss % 1024, 0);
}
END_TEST

START_TEST(test_json_shape)
{
	struct memprobe_result r;
	memset(&r, 0, sizeof r);
	r.baseline_rss = 2 * MiB;
	r.peak_rss = 13 * MiB;
	r.peak_reset = 1;
	r.stack_used = 70000;
	r.stack_overhead = 200;
	r.stack_size = MEMPROBE_DEFAULT_STACK;
	r.heap_available = 1;
	r.heap.allocs = 3;
	r.heap.peak_live_bytes = (int64_t)SIGN_HEAP;
	json_t *o = memprobe_result_to_json(&r);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "baseline_rss")), 2 * MiB);
	ck_assert_int_eq(json_integer_value(json_object_get(o, "peak_rss")), 13 * MiB);
	ck_assert(json_is_true(json_object_get(o, "peak_rss_reset")));
	ck_assert_ptr_null(json_object_get(o, "peak_rss_note"));
	json_t *st = json_object_get(o, "stack");
	ck_assert_int_eq(json_integer_value(json_object_get(st, "used")), 70000);
	ck_assert_int_eq(json_integer_value(json_object_get(st, "overhead")), 200);
	json_t *h = json_object_get(o, "heap");
	ck_assert(json_is_true(json_object_get(h, "available")));
	ck_assert_int_eq(json_integer_value(json_object_get(h, "allocs")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(h, "peak_live_bytes")), (json_int_t)SIGN_HEAP);
	json_decref(o);

	r.heap_available = 0;
	r.peak_reset = 0;
	snprintf(r.peak_note, sizeof r.peak_note, "clear_refs: Permission denied");
	o = memprobe_result_to_json(&r);
	ck_assert(json_is_false(json_object_get(o, "peak_rss_reset")));
	ck_assert_str_eq(json_string_value(json_object_get(o, "peak_rss_note")), "clear_refs: Permission denied");
	h = json_object_get(o, "heap");
	ck_assert(json_is_false(json_object_get(h, "available")));
	ck_assert_str_eq(json_string_value(json_object_get(h, "note")), "unavailable (no interposition)");
	ck_assert_ptr_null(json_object_get(h, "allocs"));
	json_decref(o);
}
END_TEST

#if HEAP_HOOKS_EXPECTED
START_TEST(test_heap_hooks_counts)
{
	struct heap_stats s;
	void *before = malloc(1000); /* allocated outside the window: not counted */
	sink = before;
	heap_hooks_start();
	void *a = malloc(100);
	sink = a;
	void *b = calloc(10, 100);
	sink = b;
	a = realloc(a, 5000);
	sink = a;
	void *c = NULL;
	/* No ck_assert inside the window: Check allocates as it records progress. */
	int pm_ok = posix_memalign(&c, 64, 300);
	int pm_bad = posix_memalign(&c, 3, 300);
	sink = c;
	void *d = aligned_alloc(256, 512);
	sink = d;
	void *e = malloc(huge_request);
	sink = e;
	free(a);
	free(b);
	free(c);
	free(d);
	free(before);
	heap_hooks_stop(&s);
	ck_assert_int_eq(pm_ok, 0);
	ck_assert_int_eq(pm_bad, EINVAL);
	ck_assert_ptr_null(e);
	ck_assert_uint_eq(s.allocs, 4);     /* malloc, calloc, posix_memalign, aligned_alloc */
	ck_assert_uint_eq(s.reallocs, 1);
	ck_assert_uint_eq(s.frees, 5);
	ck_assert_uint_eq(s.bytes_requested, 100 + 1000 + 5000 + 300 + 512);
	ck_assert_uint_eq(s.failed, 1);
	ck_assert_uint_eq(s.failed_largest, huge_request);
	/* Freeing the older block takes live below zero; the peak saw all four at once. */
	ck_assert_int_lt(s.live_bytes, 0);
	ck_assert_int_ge(s.peak_live_bytes, 5000 + 1000 + 300 + 512);

	/* Outside the window nothing moves. */
	void *f = malloc(4096);
	sink = f;
	free(f);
	struct heap_stats t;
	heap_hooks_stop(&t);
	ck_assert_uint_eq(t.allocs, s.allocs);
	ck_assert_uint_eq(heap_hooks_failed(), 1);
}
END_TEST
#endif

static Suite *memprobe_suite(void)
{
	Suite *s = suite_create("memprobe");
	TCase *tc = tcase_create("probe");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sign_heap_and_peak);
	tcase_add_test(tc, test_verify_stack);
	tcase_add_test(tc, test_keygen_small);
	tcase_add_test(tc, test_stack_overflow_reported);
	tcase_add_test(tc, test_stack_overflow_exit_code);
	tcase_add_test(tc, test_oom_crash_diagnosed);
	tcase_add_test(tc, test_handlers_restored);
	tcase_add_test(tc, test_bad_stack_size);
	tcase_add_test(tc, test_read_status);
	tcase_add_test(tc, test_json_shape);
	suite_add_tcase(s, tc);
#if HEAP_HOOKS_EXPECTED
	TCase *th = tcase_create("heap_hooks");
	tcase_add_test(th, test_heap_hooks_counts);
	suite_add_tcase(s, th);
#endif
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(memprobe_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
