/*
 * memprobe: baseline/peak RSS, stack high-water and heap counts of one
 * operation; see memprobe.h and doc/memory.md.
 *
 * The probe keeps its state in one static struct because the signal
 * handler and the makecontext trampoline can reach nothing else; it is not
 * reentrant and does not pretend to be.  Nothing here allocates between
 * the clear_refs reset and the read of VmHWM.
 */
#include "config.h"
#include "runner/memprobe.h"
#include "core/sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/*
 * The runner defines these (heap_hooks.c); libpqprof.a users that do not
 * link it see null addresses and get "heap: unavailable".
 */
#pragma weak heap_hooks_start
#pragma weak heap_hooks_stop
#pragma weak heap_hooks_failed

/* The runner's keyed channel writer (runner.h), absent where memprobe is linked alone (its tests). */
void runner_emit_raw(const char *buf, size_t len) __attribute__((weak));


#define PAINT_WORD 0xa55ac33c0ff0e11dULL
#define ALTSTACK_BYTES ((size_t)64 << 10)

static struct {
	struct op_ctx *c;
	enum pq_op op;
	int (*fn)(void);        /* what the trampoline calls */
	int rc;
	ucontext_t main_uc, op_uc;

	unsigned char *map;     /* guard + stack */
	size_t map_len;
	unsigned char *stack_lo, *stack_hi;  /* guard is [map, stack_lo) */

	int fault_fd;
	int overflow_exit_code;
	char overflow_line[320];
	size_t overflow_len;
	char op_name[16];
	struct sigaction old_segv, old_bus;
	volatile sig_atomic_t active;
} probe;

/* A line for the parent on fault_fd: through the runner's writer, which adds the job's key. */
static void fault_line(const char *buf, size_t len)
{
	if (runner_emit_raw)
		runner_emit_raw(buf, len);
	else
		write_all(probe.fault_fd, buf, len);
}

void memprobe_config_init(struct memprobe_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->stack_size = MEMPROBE_DEFAULT_STACK;
	cfg->fault_fd = -1;
	cfg->overflow_exit_code = -1;
}

/* ---- /proc/self ---- */

static int read_small_file(const char *path, char *buf, size_t cap, pq_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", path);
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = pq_fail_errno(err, PQ_EIO, "%s", path);
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return 0;
}

/* "Key:   1234 kB" -> bytes; 0 when found. */
static int status_field(const char *text, const char *key, uint64_t *bytes)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || p[klen] != ':')
			continue;
		char *end;
		unsigned long long kb = strtoull(p + klen + 1, &end, 10);
		if (end == p + klen + 1)
			return -1;
		*bytes = (uint64_t)kb * 1024;
		return 0;
	}
	return -1;
}

int memprobe_read_status(uint64_t *vmrss, uint64_t *vmhwm, pq_error *err)
{
	char buf[8192];
	int r = read_small_file("/proc/self/status", buf, sizeof buf, err);
	if (r < 0)
		return r;
	uint64_t rss = 0, hwm = 0;
	if (status_field(buf, "VmRSS", &rss) < 0 || status_field(buf, "VmHWM", &hwm) < 0)
		return pq_fail(err, PQ_EIO, "/proc/self/status: no VmRSS/VmHWM lines");
	if (vmrss)
		*vmrss = rss;
	if (vmhwm)
		*vmhwm = hwm;
	return 0;
}

/* Reset VmHWM to the current RSS; 0, or fills note with why not. */
static int reset_hwm(char *note, size_t cap)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(note, cap, "/proc/self/clear_refs: %s; VmHWM not reset", strerror(errno));
		return -1;
	}
	ssize_t n = write(fd, "5", 1);
	int saved = errno;
	close(fd);
	if (n != 1) {
		snprintf(note, cap, "writing 5 to /proc/self/clear_refs: %s; VmHWM not reset",
		         n < 0 ? strerror(saved) : "short write");
		return -1;
	}
	return 0;
}

/* ---- the painted stack ---- */

static void paint(unsigned char *lo, unsigned char *hi)
{
	uint64_t *w = (uint64_t *)(void *)lo, *end = (uint64_t *)(void *)hi;
	while (w < end)
		*w++ = PAINT_WORD;
}

/* Bytes from the top of the stack down to the deepest byte not holding the paint. */
static size_t scan_used(void)
{
	const uint64_t *w = (const uint64_t *)(void *)probe.stack_lo;
	const uint64_t *end = (const uint64_t *)(void *)probe.stack_hi;
	while (w < end && *w == PAINT_WORD)
		w++;
	if (w == end)
		return 0;
	const unsigned char *b = (const unsigned char *)w;
	uint64_t pat = PAINT_WORD;
	const unsigned char *pb = (const unsigned char *)&pat;
	size_t i = 0;
	while (i < 8 && b[i] == pb[i])
		i++;
	return (size_t)(probe.stack_hi - (b + i));
}

static uint64_t resident_bytes(unsigned char *lo, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = len / page;
	unsigned char vec[4096];
	uint64_t total = 0;
	for (size_t done = 0; done < pages;) {
		size_t n = pages - done < sizeof vec ? pages - done : sizeof vec;
		if (mincore(lo + done * page, n * page, vec) < 0)
			return (uint64_t)len; /* assume all of it: it was just painted */
		for (size_t i = 0; i < n; i++)
			total += vec[i] & 1;
		done += n;
	}
	return total * page;
}

static int call_op(void)
{
	return op_ctx_call(probe.c, probe.op);
}

/* The calibration call: costs a frame like call_op's, does nothing. */
__attribute__((noinline)) static int call_nothing(void)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

static void trampoline(void)
{
	probe.rc = probe.fn();
}

static int run_on_probe_stack(int (*fn)(void), pq_error *err)
{
	probe.fn = fn;
	if (getcontext(&probe.op_uc) < 0)
		return pq_fail_errno(err, PQ_EINTERNAL, "getcontext");
	probe.op_uc.uc_stack.ss_sp = probe.stack_lo;
	probe.op_uc.uc_stack.ss_size = (size_t)(probe.stack_hi - probe.stack_lo);
	probe.op_uc.uc_stack.ss_flags = 0;
	probe.op_uc.uc_link = &probe.main_uc;
	makecontext(&probe.op_uc, trampoline, 0);
	if (swapcontext(&probe.main_uc, &probe.op_uc) < 0)
		return pq_fail_errno(err, PQ_EINTERNAL, "swapcontext");
	return 0;
}

/*
 * AddressSanitizer prints a one-time warning on the first swapcontext of a
 * process ("may produce false positives").  Under ASan the runner makes
 * that first switch here, on a small stack of its own and with stderr on
 * /dev/null, before the scheme's output is captured: everything the runner
 * child writes to stderr is counted as the scheme's output (output_log.h),
 * and the probe's stack switch is one ASan handles.  Without ASan this does
 * nothing.
 */
#if defined(__SANITIZE_ADDRESS__)
#define PQ_MEMPROBE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PQ_MEMPROBE_ASAN 1
#endif
#endif

#ifdef PQ_MEMPROBE_ASAN
static void prime_nothing(void)
{
}
#endif

void memprobe_prime_sanitizer(void)
{
#ifdef PQ_MEMPROBE_ASAN
	static unsigned char stack[64 << 10] __attribute__((aligned(16)));
	ucontext_t here, there;
	if (getcontext(&there) < 0)
		return;
	there.uc_stack.ss_sp = stack;
	there.uc_stack.ss_size = sizeof stack;
	there.uc_stack.ss_flags = 0;
	there.uc_link = &here;
	makecontext(&there, prime_nothing, 0);
	int saved = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	(void)swapcontext(&here, &there);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
#endif
}

/* ---- faults during the call ---- */

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* A crash after failed allocations: say so, with async-signal-safe code only. */
static void report_oom(void)
{
	if (!heap_hooks_failed || probe.fault_fd < 0)
		return;
	uint64_t failed = heap_hooks_failed();
	if (failed == 0)
		return;
	char line[256], *p = line;
	p = put_str(p, "{\"ev\":\"diagnosis\",\"op\":\"");
	p = put_str(p, probe.op_name);
	p = put_str(p, "\",\"kind\":\"out_of_memory\",\"msg\":\"out of memory (");
	p = u64_dec(p, failed);
	p = put_str(p, " failed allocations before the crash)\",\"failed_allocations\":");
	p = u64_dec(p, failed);
	p = put_str(p, "}\n");
	fault_line(line, (size_t)(p - line));
}

/* The interrupted stack pointer, where we know how to find it; 0 elsewhere. */
static uintptr_t interrupted_sp(const void *uctx)
{
	const ucontext_t *uc = uctx;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.sp;
#else
	(void)uc;
	return 0;
#endif
}

/*
 * An overflow of the probe stack: the access hit the guard, or the stack
 * pointer itself has gone below the usable stack (a frame bigger than the
 * guard jumps over it).
 */
static int is_overflow(const siginfo_t *si, const void *uctx)
{
	const unsigned char *addr = si->si_addr;
	if (addr >= probe.map && addr < probe.stack_lo)
		return 1;
	uintptr_t sp = interrupted_sp(uctx), lo = (uintptr_t)probe.stack_lo;
	return sp && sp < lo && lo - sp < ((uintptr_t)1 << 30);
}

static void on_fault(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;
	if (probe.active && is_overflow(si, uctx)) {
		fault_line(probe.overflow_line, probe.overflow_len);
		if (probe.overflow_exit_code >= 0)
			_exit(probe.overflow_exit_code);
	} else if (probe.active) {
		report_oom();
	}
	/*
	 * Give the fault back to whoever handled it before (the runner's crash
	 * reporter, or the default action): the access faults again on return.
	 */
	sigaction(sig, sig == SIGSEGV ? &probe.old_segv : &probe.old_bus, NULL);
	errno = saved_errno;
}

struct handler_save {
	stack_t old_alt;
	void *alt;
	int installed;
};

static int install_handlers(struct handler_save *hs, pq_error *err)
{
	memset(hs, 0, sizeof *hs);
	hs->alt = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hs->alt == MAP_FAILED) {
		hs->alt = NULL;
		return pq_fail_errno(err, PQ_ENOMEM, "memprobe: signal stack");
	}
	stack_t ss = { .ss_sp = hs->alt, .ss_size = ALTSTACK_BYTES, .ss_flags = 0 };
	if (sigaltstack(&ss, &hs->old_alt) < 0)
		return pq_fail_errno(err, PQ_EINTERNAL, "memprobe: sigaltstack");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &probe.old_segv) < 0 || sigaction(SIGBUS, &sa, &probe.old_bus) < 0)
		return pq_fail_errno(err, PQ_EINTERNAL, "memprobe: sigaction");
	hs->installed = 1;
	return 0;
}

static void restore_handlers(struct handler_save *hs)
{
	if (hs->installed) {
		sigaction(SIGSEGV, &probe.old_segv, NULL);
		sigaction(SIGBUS, &probe.old_bus, NULL);
		sigaltstack(&hs->old_alt, NULL);
	}
	if (hs->alt)
		munmap(hs->alt, ALTSTACK_BYTES);
}

/* ---- the probe ---- */

static int map_probe_stack(size_t stack_size, pq_error *err)
{
	probe.map_len = MEMPROBE_GUARD_BYTES + stack_size;
	void *m = mmap(NULL, probe.map_len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (m == MAP_FAILED) {
		probe.map = NULL;
		return pq_fail_errno(err, PQ_ENOMEM, "memprobe: cannot map a %zu-byte stack", stack_size);
	}
	probe.map = m;
	probe.stack_lo = probe.map + MEMPROBE_GUARD_BYTES;
	probe.stack_hi = probe.map + probe.map_len;
	if (mprotect(probe.map, MEMPROBE_GUARD_BYTES, PROT_NONE) < 0) {
		int r = pq_fail_errno(err, PQ_EINTERNAL, "memprobe: guard page");
		munmap(probe.map, probe.map_len);
		probe.map = NULL;
		return r;
	}
	return 0;
}

static size_t page_round(size_t n, size_t page)
{
	return (n + page - 1) / page * page;
}

/* Run the empty call once to learn what the trampoline itself uses. */
static int calibrate(uint64_t *overhead, pq_error *err)
{
	int r = run_on_probe_stack(call_nothing, err);
	if (r < 0)
		return r;
	size_t used = scan_used();
	*overhead = used;
	size_t repaint = (used + 7) & ~(size_t)7;
	paint(probe.stack_hi - repaint, probe.stack_hi);
	return 0;
}

static void format_overflow_line(size_t stack_size)
{
	int n = snprintf(probe.overflow_line, sizeof probe.overflow_line,
	                 "{\"ev\":\"diagnosis\",\"op\":\"%s\",\"kind\":\"stack_overflow\","
	                 "\"msg\":\"stack overflow (more than %zu bytes of stack)\",\"stack_size\":%zu}\n",
	                 probe.op_name, stack_size, stack_size);
	probe.overflow_len = n > 0 && (size_t)n < sizeof probe.overflow_line ? (size_t)n : 0;
}

static void finish_peak(struct memprobe_result *out, uint64_t hwm_before, size_t page)
{
	uint64_t stack_pages = page_round(out->stack_used, page);
	uint64_t adj = out->hwm_raw > out->probe_stack_resident
		? out->hwm_raw - out->probe_stack_resident : 0;
	adj += stack_pages;
	/* Unreset VmHWM is the process's peak so far, which may predate the probe stack. */
	if (!out->peak_reset && hwm_before > adj)
		adj = hwm_before;
	out->peak_rss = adj;
}

int memprobe_run(struct op_ctx *c, enum pq_op op, const struct memprobe_config *cfg,
                 struct memprobe_result *out, pq_error *err)
{
	struct memprobe_config defaults;
	if (!cfg) {
		memprobe_config_init(&defaults);
		cfg = &defaults;
	}
	memset(out, 0, sizeof *out);
	if (probe.map)
		return pq_fail(err, PQ_EINTERNAL, "memprobe: a probe is already running");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stack_size = cfg->stack_size ? cfg->stack_size : MEMPROBE_DEFAULT_STACK;
	if (stack_size < MEMPROBE_MIN_STACK)
		return pq_fail(err, PQ_EUSAGE, "memprobe: stack size %zu is below the minimum %zu",
		               stack_size, MEMPROBE_MIN_STACK);
	stack_size = page_round(stack_size, page);

	/* The process's high-water so far, in case clear_refs cannot reset it. */
	uint64_t hwm_before = 0;
	int r = memprobe_read_status(NULL, &hwm_before, err);
	if (r < 0)
		return r;

	probe.c = c;
	probe.op = op;
	probe.fault_fd = cfg->fault_fd;
	probe.overflow_exit_code = cfg->overflow_exit_code;
	snprintf(probe.op_name, sizeof probe.op_name, "%s", pq_op_name(op));
	r = map_probe_stack(stack_size, err);
	if (r < 0)
		return r;
	out->stack_size = stack_size;
	paint(probe.stack_lo, probe.stack_hi);

	struct handler_save hs;
	memset(&hs, 0, sizeof hs);
	r = calibrate(&out->stack_overhead, err);
	if (r >= 0)
		r = install_handlers(&hs, err);
	if (r < 0)
		goto done;
	out->probe_stack_resident = resident_bytes(probe.stack_lo, stack_size);
	format_overflow_line(stack_size);

	int heap = heap_hooks_start && heap_hooks_stop;
	out->heap_available = heap;
	out->peak_reset = reset_hwm(out->peak_note, sizeof out->peak_note) == 0;
	/*
	 * Baseline after all of the probe's own set-up (its code and libc's
	 * pages are in by now), less the painted stack: what the process
	 * holds when the operation starts.
	 */
	uint64_t rss_now = 0;
	r = memprobe_read_status(&rss_now, NULL, err);
	if (r < 0)
		goto done;
	out->baseline_rss = rss_now > out->probe_stack_resident ? rss_now - out->probe_stack_resident : 0;
	if (heap)
		heap_hooks_start();
	probe.active = 1;
	r = run_on_probe_stack(call_op, err);
	probe.active = 0;
	if (heap)
		heap_hooks_stop(&out->heap);
	if (r < 0)
		goto done;
	out->rc = probe.rc;
	r = memprobe_read_status(NULL, &out->hwm_raw, err);
	if (r < 0)
		goto done;
	out->stack_used = scan_used();
	finish_peak(out, hwm_before, page);
done:
	restore_handlers(&hs);
	munmap(probe.map, probe.map_len);
	probe.map = NULL;
	probe.c = NULL;
	return r < 0 ? r : 0;
}

json_t *memprobe_result_to_json(const struct memprobe_result *r)
{
	json_t *o = json_pack("{s:i, s:I, s:I, s:b}", "rc", r->rc,
	                      "baseline_rss", (json_int_t)r->baseline_rss,
	                      "peak_rss", (json_int_t)r->peak_rss,
	                      "peak_rss_reset", r->peak_reset);
	if (!o)
		return NULL;
	if (!r->peak_reset)
		json_object_set_new(o, "peak_rss_note", json_string(r->peak_note));
	json_object_set_new(o, "raw", json_pack("{s:I, s:I}",
	                    "vmhwm", (json_int_t)r->hwm_raw,
	                    "probe_stack_resident", (json_int_t)r->probe_stack_resident));
	json_object_set_new(o, "stack", json_pack("{s:I, s:I, s:I}",
	                    "used", (json_int_t)r->stack_used,
	                    "overhead", (json_int_t)r->stack_overhead,
	                    "size", (json_int_t)r->stack_size));
	json_t *h;
	if (r->heap_available)
		h = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		              "available", 1,
		              "allocs", (json_int_t)r->heap.allocs,
		              "reallocs", (json_int_t)r->heap.reallocs,
		              "frees", (json_int_t)r->heap.frees,
		              "bytes_requested", (json_int_t)r->heap.bytes_requested,
		              "live_bytes", (json_int_t)r->heap.live_bytes,
		              "peak_live_bytes", (json_int_t)r->heap.peak_live_bytes,
		              "failed", (json_int_t)r->heap.failed,
		              "failed_largest", (json_int_t)r->heap.failed_largest);
	else
		h = json_pack("{s:b, s:s}", "available", 0, "note", "unavailable (no interposition)");
	json_object_set_new(o, "heap", h);
	return o;
}
