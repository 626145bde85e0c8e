/*
 * counter: the counter backends and the selector that tries them in order
 * of precision; see counter.h.  The hot-path reads are inline in the
 * header; this file opens, probes, describes and closes.
 */
#include "config.h"
#include "core/text_buf.h"
#include "measure/counter.h"
#include "core/atomic_file.h"
#include "measure/stats.h"
#include "core/fixed_str.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

/* ---- helpers ---- */

static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EMFILE: return "EMFILE";
	case EBUSY: return "EBUSY";
	case E2BIG: return "E2BIG";
	default: return "errno";
	}
}

static int read_paranoid(void)
{
	long v;
	return read_long_file("/proc/sys/kernel/perf_event_paranoid", &v) == 0 ? (int)v : -100;
}

void counter_perf_failure_reason(int e, const struct perf_event_attr *attr, char *buf, size_t len)
{
	int hw = attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	         attr->type == PERF_TYPE_RAW || attr->type > PERF_TYPE_BREAKPOINT;
	switch (e) {
	case ENOENT:
		snprintf(buf, len, hw ? "no hardware PMU exposed (ENOENT)" : "event not available (ENOENT)");
		break;
	case EOPNOTSUPP:
		snprintf(buf, len, hw ? "not supported by this PMU (EOPNOTSUPP)" : "not supported (EOPNOTSUPP)");
		break;
	case EACCES:
	case EPERM: {
		int p = read_paranoid();
		if (p != -100)
			snprintf(buf, len, "not permitted (%s) with perf_event_paranoid=%d; needs <= 2 or CAP_PERFMON",
			         errno_name(e), p);
		else
			snprintf(buf, len, "not permitted (%s)", errno_name(e));
		break;
	}
	case ENODEV:
		snprintf(buf, len, "no such PMU (ENODEV)");
		break;
	case ENOSYS:
		snprintf(buf, len, "kernel has no perf_event_open (ENOSYS)");
		break;
	default:
		snprintf(buf, len, "perf_event_open: %s (%s)", strerror(e), errno_name(e));
	}
}

static void add_reason(counter_set *cs, const char *msg)
{
	if (cs->nreasons >= COUNTER_MAX_REASONS)
		return;
	str_copy(cs->reasons[cs->nreasons++], COUNTER_REASON_LEN, msg);
}

/* Split "a, b,c" into names; returns the count or a negative error. */
static int split_events(const char *csv, char names[][COUNTER_NAME_LEN], pq_error *err)
{
	if (!csv || !*csv)
		csv = "cycles";
	int n = 0;
	const char *p = csv;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0)
			return pq_fail(err, PQ_EUSAGE, "event list '%s' has an empty name", csv);
		if (len >= COUNTER_NAME_LEN)
			return pq_fail(err, PQ_EUSAGE, "event name '%.*s' is too long", (int)len, p);
		if (n >= COUNTER_MAX_EVENTS)
			return pq_fail(err, PQ_EUSAGE, "event list '%s' has more than %d events", csv, COUNTER_MAX_EVENTS);
		memcpy(names[n], p, len);
		names[n][len] = '\0';
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}

static void set_event_names(counter_set *cs, const char *const *events, int n)
{
	cs->nevents = n;
	for (int i = 0; i < n; i++)
		snprintf(cs->event_names[i], COUNTER_NAME_LEN, "%s", events[i]);
}

/* ---- perf backends ---- */

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static int is_cycles_attr(const struct perf_event_attr *a)
{
	/* Generic hardware cycles; the low 32 bits hold the event id. */
	return a->type == PERF_TYPE_HARDWARE && (a->config & 0xffffffffULL) == PERF_COUNT_HW_CPU_CYCLES;
}

static int encode_event(const char *name, struct perf_event_attr *attr, pq_error *err)
{
	int r = pfm_initialize();
	if (r != PFM_SUCCESS)
		return pq_fail(err, PQ_EPERF, "%s: libpfm4 cannot initialise (%s)", name, pfm_strerror(r));
	pfm_perf_encode_arg_t arg;
	memset(attr, 0, sizeof *attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = attr;
	arg.size = sizeof arg;
	r = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS)
		return pq_fail(err, PQ_EPERF, "%s: libpfm4 cannot encode the event (%s)", name, pfm_strerror(r));
	attr->size = sizeof *attr;
	return 0;
}

static void perf_close(counter_set *cs)
{
	for (int i = 0; i < COUNTER_MAX_EVENTS; i++) {
		if (cs->pages[i] && cs->page_size)
			munmap(cs->pages[i], cs->page_size);
		cs->pages[i] = NULL;
		if (cs->fds[i] >= 0)
			close(cs->fds[i]);
		cs->fds[i] = -1;
	}
}

/* Group layout with PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING. */
static int read_group_raw(counter_set *cs, uint64_t *buf, size_t words)
{
	ssize_t want = (ssize_t)((3 + (size_t)cs->nevents) * sizeof(uint64_t));
	if (words < 3 + (size_t)cs->nevents)
		return -PQ_EINTERNAL;
	ssize_t got = read(cs->fds[0], buf, (size_t)want);
	if (got != want || buf[0] != (uint64_t)cs->nevents)
		return -PQ_EPERF;
	return 0;
}

int counter_perf_read_group(counter_set *cs, uint64_t *vals)
{
	uint64_t buf[3 + COUNTER_MAX_EVENTS];
	int r = read_group_raw(cs, buf, sizeof buf / sizeof buf[0]);
	if (r < 0)
		return r;
	for (int i = 0; i < cs->nevents; i++)
		vals[i] = buf[3 + i];
	return 0;
}

static int perf_read(counter_set *cs, uint64_t *vals)
{
	return counter_perf_read_group(cs, vals);
}

/* A little work so a probe can see counters move. */
static void spin(void)
{
	volatile uint64_t x = 1;
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005ULL + 1;
}

static int perf_open_common(counter_set *cs, const char *const *events, int n, int want_rdpmc,
                            const char *bname, pq_error *err)
{
	struct perf_event_attr attrs[COUNTER_MAX_EVENTS];
	char why[COUNTER_REASON_LEN];
	for (int i = 0; i < n; i++) {
		pq_error e;
		if (encode_event(events[i], &attrs[i], &e) < 0)
			return pq_fail(err, PQ_EPERF, "%s %s", bname, e.msg);
	}
	for (int i = 0; i < n; i++) {
		struct perf_event_attr *a = &attrs[i];
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->inherit = 0;
		a->disabled = i == 0;  /* the group starts when the leader is enabled */
		a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		                 PERF_FORMAT_TOTAL_TIME_RUNNING;
		long fd = sys_perf_event_open(a, 0, -1, i == 0 ? -1 : cs->fds[0], PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			counter_perf_failure_reason(errno, a, why, sizeof why);
			perf_close(cs);
			return pq_fail(err, PQ_EPERF, "%s %s: %s", bname, events[i], why);
		}
		cs->fds[i] = (int)fd;
	}
	set_event_names(cs, events, n);
	snprintf(cs->unit, sizeof cs->unit, "%s", is_cycles_attr(&attrs[0]) ? "cycles" : events[0]);

	if (want_rdpmc) {
#if COUNTER_HAVE_TSC
		long ps = sysconf(_SC_PAGESIZE);
		cs->page_size = ps > 0 ? (size_t)ps : 4096;
		for (int i = 0; i < n; i++) {
			void *p = mmap(NULL, cs->page_size, PROT_READ, MAP_SHARED, cs->fds[i], 0);
			if (p == MAP_FAILED) {
				int e = errno;
				perf_close(cs);
				return pq_fail(err, PQ_EPERF, "%s %s: cannot map the event page (%s)",
				               bname, events[i], strerror(e));
			}
			cs->pages[i] = p;
		}
#else
		perf_close(cs);
		return pq_fail(err, PQ_EPERF, "%s: rdpmc is x86 only", bname);
#endif
	}

	if (ioctl(cs->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		int e = errno;
		perf_close(cs);
		return pq_fail(err, PQ_EPERF, "%s: cannot enable the event group (%s)", bname, strerror(e));
	}
	spin();
	uint64_t buf[3 + COUNTER_MAX_EVENTS];
	if (read_group_raw(cs, buf, sizeof buf / sizeof buf[0]) < 0) {
		perf_close(cs);
		return pq_fail(err, PQ_EPERF, "%s %s: reading the event group failed", bname, events[0]);
	}
	if (buf[2] == 0) {
		perf_close(cs);
		return pq_fail(err, PQ_EPERF, "%s %s: group never ran on the PMU (too many events, or counters taken)",
		               bname, events[0]);
	}
	if (want_rdpmc) {
#if COUNTER_HAVE_TSC
		for (int i = 0; i < n; i++) {
			volatile struct perf_event_mmap_page *pc = cs->pages[i];
			uint64_t v;
			if (!pc->cap_user_rdpmc) {
				perf_close(cs);
				return pq_fail(err, PQ_EPERF, "%s %s: rdpmc not allowed (cap_user_rdpmc=0)", bname, events[i]);
			}
			if (counter_rdpmc_page(pc, &v) < 0) {
				perf_close(cs);
				return pq_fail(err, PQ_EPERF, "%s %s: event has no hardware counter index for rdpmc",
				               bname, events[i]);
			}
		}
#endif
	}
	return 0;
}

static int perf_rdpmc_open(counter_set *cs, const char *const *events, int n, pq_error *err)
{
	return perf_open_common(cs, events, n, 1, "perf-rdpmc", err);
}

static int perf_read_open(counter_set *cs, const char *const *events, int n, pq_error *err)
{
	return perf_open_common(cs, events, n, 0, "perf-read", err);
}

static int perf_rdpmc_read(counter_set *cs, uint64_t *vals)
{
#if COUNTER_HAVE_TSC
	for (int i = 0; i < cs->nevents; i++)
		if (counter_rdpmc_page(cs->pages[i], &vals[i]) < 0)
			return counter_perf_read_group(cs, vals);
	return 0;
#else
	return counter_perf_read_group(cs, vals);
#endif
}

/* ---- tsc backend ---- */

#if COUNTER_HAVE_TSC
static void cpuinfo_tsc_flags(counter_set *cs)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *tok = strtok(strchr(line, ':') ? strchr(line, ':') + 1 : line, " \t\n"); tok;
		     tok = strtok(NULL, " \t\n")) {
			if (strcmp(tok, "constant_tsc") == 0)
				cs->constant_tsc = 1;
			else if (strcmp(tok, "nonstop_tsc") == 0)
				cs->nonstop_tsc = 1;
		}
		break;
	}
	fclose(f);
}

/* A (tsc, ns) pair taken as close together as we can manage. */
static void tsc_clock_pair(uint64_t *tsc, double *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 7; i++) {
		uint64_t t0 = counter_raw_clock_ns();
		uint64_t c = counter_rdtsc();
		uint64_t t1 = counter_raw_clock_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = c;
			*ns = (double)t0 + (double)(t1 - t0) / 2;
		}
	}
}

static double estimate_tsc_hz(void)
{
	uint64_t c0 = 0, c1 = 0;
	double n0 = 0, n1 = 0;
	tsc_clock_pair(&c0, &n0);
	struct timespec d = { 0, 20 * 1000 * 1000 };
	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
	tsc_clock_pair(&c1, &n1);
	if (n1 <= n0 || c1 <= c0)
		return 0;
	return (double)(c1 - c0) * 1e9 / (n1 - n0);
}
#endif

static void note_unmeasured_events(counter_set *cs, const char *bname, const char *unit,
                                   const char *const *events, int n)
{
	char msg[COUNTER_REASON_LEN];
	if (strcmp(events[0], "cycles") != 0 && strcmp(events[0], "cpu-cycles") != 0) {
		snprintf(msg, sizeof msg, "%s: counts %s, not '%s'", bname, unit, events[0]);
		add_reason(cs, msg);
	}
	for (int i = 1; i < n; i++) {
		snprintf(msg, sizeof msg, "%s: event '%s' not counted (needs a perf backend)", bname, events[i]);
		add_reason(cs, msg);
	}
}

static int tsc_open(counter_set *cs, const char *const *events, int n, pq_error *err)
{
#if COUNTER_HAVE_TSC
	cpuinfo_tsc_flags(cs);
	cs->tsc_hz = estimate_tsc_hz();
	(void)err;
	snprintf(cs->unit, sizeof cs->unit, "TSC ticks");
	set_event_names(cs, (const char *const[]){ "tsc" }, 1);
	note_unmeasured_events(cs, "tsc", "TSC ticks", events, n);
	return 0;
#else
	(void)cs;
	(void)events;
	(void)n;
	return pq_fail(err, PQ_EPERF, "tsc: not an x86 processor");
#endif
}

static int tsc_read(counter_set *cs, uint64_t *vals)
{
	(void)cs;
#if COUNTER_HAVE_TSC
	vals[0] = counter_rdtsc();
	return 0;
#else
	(void)vals;
	return -PQ_EPERF;
#endif
}

/* ---- clock backend ---- */

static int clock_open(counter_set *cs, const char *const *events, int n, pq_error *err)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) < 0)
		return pq_fail_errno(err, PQ_EPERF, "clock: CLOCK_MONOTONIC_RAW unavailable");
	snprintf(cs->unit, sizeof cs->unit, "ns");
	set_event_names(cs, (const char *const[]){ "clock" }, 1);
	note_unmeasured_events(cs, "clock", "ns", events, n);
	return 0;
}

static int clock_read(counter_set *cs, uint64_t *vals)
{
	(void)cs;
	vals[0] = counter_raw_clock_ns();
	return 0;
}

static void noop_close(counter_set *cs)
{
	(void)cs;
}

/* ---- selector ---- */

static const struct counter_backend backends[] = {
	{ "perf-rdpmc", COUNTER_PERF_RDPMC, perf_rdpmc_open, perf_rdpmc_read, perf_close },
	{ "perf-read", COUNTER_PERF_READ, perf_read_open, perf_read, perf_close },
	{ "tsc", COUNTER_TSC, tsc_open, tsc_read, noop_close },
	{ "clock", COUNTER_CLOCK, clock_open, clock_read, noop_close },
};
#define NBACKENDS (sizeof backends / sizeof backends[0])

const char *const *counter_backend_names(void)
{
	static const char *const names[] = { "perf-rdpmc", "perf-read", "tsc", "clock", NULL };
	return names;
}

static void reset_state(counter_set *cs)
{
	cs->backend = NULL;
	cs->kind = COUNTER_NONE;
	cs->nevents = 0;
	cs->unit[0] = '\0';
	cs->page_size = 0;
	cs->tsc_hz = 0;
	cs->constant_tsc = cs->nonstop_tsc = 0;
	for (int i = 0; i < COUNTER_MAX_EVENTS; i++) {
		cs->fds[i] = -1;
		cs->pages[i] = NULL;
		cs->event_names[i][0] = '\0';
	}
}

static int fail_with_reasons(const counter_set *cs, const char *what, pq_error *err)
{
	/* No longer than the message itself: reasons that do not fit end it in "…" (pq_fail). */
	char all[sizeof err->msg];
	all[0] = '\0';
	for (int i = 0; i < cs->nreasons; i++)
		text_appendf(all, sizeof all, "%s%s", i ? "; " : "", cs->reasons[i]);
	return pq_fail(err, PQ_EPERF, "%s: %s", what, all);
}

int counter_set_open(const char *events_csv, const char *force_backend,
                     counter_set *cs, pq_error *err)
{
	char names[COUNTER_MAX_EVENTS][COUNTER_NAME_LEN];
	const char *events[COUNTER_MAX_EVENTS];
	memset(cs, 0, sizeof *cs);
	reset_state(cs);
	int n = split_events(events_csv, names, err);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		events[i] = names[i];

	int forced = force_backend && *force_backend && strcmp(force_backend, "auto") != 0;
	int tried = 0;
	for (size_t b = 0; b < NBACKENDS; b++) {
		if (forced && strcmp(force_backend, backends[b].name) != 0)
			continue;
		tried++;
		pq_error e;
		pq_error_clear(&e);
		reset_state(cs);
		if (backends[b].open(cs, events, n, &e) == 0) {
			cs->backend = &backends[b];
			cs->kind = backends[b].kind;
			return 0;
		}
		add_reason(cs, e.msg);
	}
	reset_state(cs);
	if (forced && !tried)
		return pq_fail(err, PQ_EUSAGE,
		               "unknown counter backend '%s' (known: perf-rdpmc, perf-read, tsc, clock, auto)",
		               force_backend);
	return fail_with_reasons(cs, forced ? "counter backend unavailable" : "no counter backend works", err);
}

void counter_set_close(counter_set *cs)
{
	if (cs->backend)
		cs->backend->close(cs);
	reset_state(cs);
}

const char *counter_set_backend_name(const counter_set *cs)
{
	return cs->backend ? cs->backend->name : "none";
}

const char *counter_set_unit(const counter_set *cs)
{
	return cs->unit[0] ? cs->unit : "none";
}

int counter_set_counts_cycles(const counter_set *cs)
{
	return (cs->kind == COUNTER_PERF_RDPMC || cs->kind == COUNTER_PERF_READ) &&
	       strcmp(cs->unit, "cycles") == 0;
}

double counter_set_seconds_per_unit(const counter_set *cs)
{
	if (cs->kind == COUNTER_CLOCK)
		return 1e-9;
	if (cs->kind == COUNTER_TSC && cs->tsc_hz > 0)
		return 1.0 / cs->tsc_hz;
	return 0;
}

void counter_set_describe(const counter_set *cs, char *buf, size_t len)
{
	if (cs->kind == COUNTER_TSC) {
		snprintf(buf, len, "tsc (TSC ticks, ~%.3f GHz against CLOCK_MONOTONIC_RAW, %s, %s)",
		         cs->tsc_hz / 1e9, cs->constant_tsc ? "constant_tsc" : "no constant_tsc",
		         cs->nonstop_tsc ? "nonstop_tsc" : "no nonstop_tsc");
		return;
	}
	if (cs->kind == COUNTER_PERF_RDPMC || cs->kind == COUNTER_PERF_READ) {
		snprintf(buf, len, "%s (", counter_set_backend_name(cs));
		for (int i = 0; i < cs->nevents; i++)
			text_appendf(buf, len, "%s%s", i ? "," : "", cs->event_names[i]);
		text_appendf(buf, len, "; user space, this thread)");
		return;
	}
	snprintf(buf, len, "%s (%s)", counter_set_backend_name(cs), counter_set_unit(cs));
}

int counter_set_reason_count(const counter_set *cs)
{
	return cs->nreasons;
}

const char *counter_set_reason(const counter_set *cs, int i)
{
	return i >= 0 && i < cs->nreasons ? cs->reasons[i] : NULL;
}

/* ---- overhead ---- */

#define OVERHEAD_BATCH 100

int counter_measure_overhead(counter_set *cs, int reads, counter_overhead *out, pq_error *err)
{
	if (!cs->backend)
		return pq_fail(err, PQ_EINTERNAL, "counter overhead: counter set is not open");
	size_t n = reads > 0 ? (size_t)reads : 10000;
	size_t nb = n / OVERHEAD_BATCH < 11 ? 11 : n / OVERHEAD_BATCH;
	double *d = malloc((n > nb ? n : nb) * sizeof *d);
	if (!d)
		return pq_fail(err, PQ_ENOMEM, "counter overhead: out of memory");
	uint64_t a[COUNTER_MAX_EVENTS], b[COUNTER_MAX_EVENTS];
	for (size_t i = 0; i < n; i++) {
		if (counter_set_read(cs, a) < 0 || counter_set_read(cs, b) < 0) {
			free(d);
			return pq_fail(err, PQ_EPERF, "counter overhead: %s read failed", counter_set_backend_name(cs));
		}
		d[i] = (double)(b[0] - a[0]);
	}
	out->units = stats_median(d, n);
	for (size_t k = 0; k < nb; k++) {
		uint64_t t0 = counter_raw_clock_ns();
		for (int i = 0; i < OVERHEAD_BATCH; i++)
			counter_set_read(cs, a);
		uint64_t t1 = counter_raw_clock_ns();
		d[k] = (double)(t1 - t0) / OVERHEAD_BATCH;
	}
	out->ns = stats_median(d, nb);
	free(d);
	return 0;
}
