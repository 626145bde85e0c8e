/*
 * counter: what an operation cost, read from the most precise counter this
 * machine offers, and labelled with what was really counted.
 *
 * Backends in the style of libcpucycles, tried in order of precision:
 *   perf-rdpmc  hardware events via perf_event_open, read in user space
 *               with rdpmc through the mmap'd perf_event_mmap_page;
 *   perf-read   the same events, read with read(2) as one group;
 *   tsc         rdtsc fenced with lfence (x86 only), unit "TSC ticks";
 *   clock       clock_gettime(CLOCK_MONOTONIC_RAW), unit "ns".
 * A failed backend leaves a one-line reason in the set, so a record can say
 * why it holds TSC ticks rather than cycles.  Event names go through
 * libpfm4, so "cycles,instructions,branch-misses" or PMU-specific names
 * work; the first event leads the group and names the unit.
 *
 * Use:
 *     counter_set cs; counter_sample s, d;
 *     if (counter_set_open(events, NULL, &cs, &err) < 0) ...
 *     counter_set_start(&cs, &s); op(); counter_set_stop(&cs, &s, &d);
 *     d.v[0] is in counter_set_unit(&cs); d.ns is always nanoseconds.
 *
 * Counting is per calling thread, user space only.  This file does not
 * sample (see profile/) and does not choose iteration counts (calibrate.h).
 * A counter_set belongs to the thread that opened it.
 */
#ifndef PQ_MEASURE_COUNTER_H
#define PQ_MEASURE_COUNTER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/perf_event.h>

#include "core/pq_error.h"

#define COUNTER_MAX_EVENTS 8
#define COUNTER_MAX_REASONS 16
#define COUNTER_NAME_LEN 64
#define COUNTER_REASON_LEN 256

enum counter_kind {
	COUNTER_NONE = 0,
	COUNTER_PERF_RDPMC,
	COUNTER_PERF_READ,
	COUNTER_TSC,
	COUNTER_CLOCK,
};

typedef struct counter_set counter_set;

/* One counter source: the same few functions for every backend. */
struct counter_backend {
	const char *name;   /* "perf-rdpmc", "perf-read", "tsc", "clock" */
	enum counter_kind kind;
	/* Probe and open; on failure fill err with the reason, return < 0. */
	int (*open)(counter_set *cs, const char *const *events, int nevents, pq_error *err);
	/* Read current values (one per event) into vals; < 0 on failure. */
	int (*read)(counter_set *cs, uint64_t *vals);
	void (*close)(counter_set *cs);
};

struct counter_set {
	const struct counter_backend *backend;
	enum counter_kind kind;
	int nevents;                                /* values per read */
	char event_names[COUNTER_MAX_EVENTS][COUNTER_NAME_LEN];
	char unit[COUNTER_NAME_LEN];                /* label of value 0 */
	/* perf backends */
	int fds[COUNTER_MAX_EVENTS];
	struct perf_event_mmap_page *pages[COUNTER_MAX_EVENTS];
	size_t page_size;
	/* tsc backend: frequency estimated against CLOCK_MONOTONIC_RAW (0: unknown) */
	double tsc_hz;
	int constant_tsc, nonstop_tsc;              /* from /proc/cpuinfo flags */
	/* why better backends (or extra events) were not used */
	int nreasons;
	char reasons[COUNTER_MAX_REASONS][COUNTER_REASON_LEN];
};

/* Values of all events plus CLOCK_MONOTONIC_RAW, at one moment or as a delta. */
typedef struct counter_sample {
	uint64_t v[COUNTER_MAX_EVENTS];
	uint64_t ns;
} counter_sample;

/* Read overhead of a counter set, as medians. */
typedef struct counter_overhead {
	double units;  /* per read, in the backend's unit (value 0) */
	double ns;     /* per read, wall time */
} counter_overhead;

/*
 * Open a counter set.  events_csv: comma-separated event names (NULL or ""
 * means "cycles").  force_backend: a backend name to use only that one, or
 * NULL / "auto" to try them in order.  Returns 0, or a negative PQ_E* code
 * when no backend (or the forced one) works; err then lists the reasons.
 * On success every skipped backend's reason is in cs->reasons; on failure
 * the set is closed but cs->reasons still says why.
 */
int counter_set_open(const char *events_csv, const char *force_backend,
                     counter_set *cs, pq_error *err);
void counter_set_close(counter_set *cs);

const char *counter_set_backend_name(const counter_set *cs);
/* "cycles", "TSC ticks", "ns", or the leading perf event's name. */
const char *counter_set_unit(const counter_set *cs);
/* 1 when value 0 counts CPU core cycles (a perf backend on a cycles event). */
int counter_set_counts_cycles(const counter_set *cs);
/* Seconds per unit of value 0 when fixed (tsc, clock); 0 when not (cycles). */
double counter_set_seconds_per_unit(const counter_set *cs);
/* One line for a record or report, e.g. "tsc (TSC ticks, ~2.45 GHz, constant_tsc nonstop_tsc)". */
void counter_set_describe(const counter_set *cs, char *buf, size_t len);
int counter_set_reason_count(const counter_set *cs);
const char *counter_set_reason(const counter_set *cs, int i);

/*
 * Why perf_event_open(attr) failed with errno e, in words a lab admin can
 * act on, e.g. "no hardware PMU exposed (ENOENT)".
 */
void counter_perf_failure_reason(int e, const struct perf_event_attr *attr, char *buf, size_t len);

/* NULL-terminated list of backend names, most precise first. */
const char *const *counter_backend_names(void);

/*
 * Median read overhead over `reads` back-to-back read pairs (0: a default
 * of 10000).  Returns 0 or a negative PQ_E* code.
 */
int counter_measure_overhead(counter_set *cs, int reads, counter_overhead *out, pq_error *err);

/* ---- hot path: inline so a measurement costs as little as possible ---- */

/* read(2) of the whole perf group; the inline path's fallback, not for callers. */
int counter_perf_read_group(counter_set *cs, uint64_t *vals);

static inline uint64_t counter_raw_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
#define COUNTER_HAVE_TSC 1
static inline uint64_t counter_rdtsc(void)
{
	uint32_t lo, hi;
	/* lfence on both sides: earlier work retires first, later work waits. */
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t counter_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * Read one event through its mmap page: the kernel's seqlock protocol
 * (see linux/perf_event.h).  Returns -1 when the event is not on a counter
 * right now (index 0), so the caller falls back to read(2).
 */
static inline int counter_rdpmc_page(volatile struct perf_event_mmap_page *pc, uint64_t *val)
{
	uint32_t seq, idx;
	uint64_t count;
	do {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		idx = pc->index;
		count = (uint64_t)pc->offset;
		if (!pc->cap_user_rdpmc || idx == 0)
			return -1;
		unsigned width = pc->pmc_width;
		uint64_t pmc = counter_rdpmc(idx - 1);
		/* sign-extend the pmc_width-bit hardware value before adding */
		if (width > 0 && width < 64) {
			unsigned shift = 64 - width;
			pmc = (uint64_t)((int64_t)(pmc << shift) >> shift);
		}
		count += pmc;
		__asm__ __volatile__("" ::: "memory");
	} while (pc->lock != seq);
	*val = count;
	return 0;
}
#else
#define COUNTER_HAVE_TSC 0
#endif

/* Current values of every event in the set (cs->nevents of them). */
static inline int counter_set_read(counter_set *cs, uint64_t *vals)
{
	switch (cs->kind) {
#if COUNTER_HAVE_TSC
	case COUNTER_TSC:
		vals[0] = counter_rdtsc();
		return 0;
	case COUNTER_PERF_RDPMC:
		for (int i = 0; i < cs->nevents; i++)
			if (counter_rdpmc_page(cs->pages[i], &vals[i]) < 0)
				return counter_perf_read_group(cs, vals);
		return 0;
#endif
	case COUNTER_CLOCK:
		vals[0] = counter_raw_clock_ns();
		return 0;
	case COUNTER_PERF_READ:
		return counter_perf_read_group(cs, vals);
	default:
		return cs->backend ? cs->backend->read(cs, vals) : -PQ_EINTERNAL;
	}
}

/* Begin a measurement: clock first, counters last, nearest the work. */
static inline int counter_set_start(counter_set *cs, counter_sample *start)
{
	start->ns = counter_raw_clock_ns();
	return counter_set_read(cs, start->v);
}

/* End a measurement: counters first, then clock; delta = now - start. */
static inline int counter_set_stop(counter_set *cs, const counter_sample *start, counter_sample *delta)
{
	uint64_t v[COUNTER_MAX_EVENTS];
	int r = counter_set_read(cs, v);
	uint64_t ns = counter_raw_clock_ns();
	if (r < 0)
		return r;
	for (int i = 0; i < cs->nevents; i++)
		delta->v[i] = v[i] - start->v[i];
	delta->ns = ns - start->ns;
	return 0;
}

#endif
