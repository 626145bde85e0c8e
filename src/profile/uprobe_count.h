/*
 * uprobe_count: exact call counts of chosen functions per operation,
 * without touching the library.  Each function gets an entry uprobe
 * opened as a counting perf_event (uprobe PMU: config1 = path of the file,
 * config2 = file offset of the entry), enabled only around operations,
 * like the sampler.  Use it in its own run: a uprobe hit costs a trap, so
 * it must not share a child with timing or sampling.
 *
 * Counts are calls that enter the out-of-line function: copies inlined
 * into callers are not seen, recursive calls count once per entry.
 *
 * The uprobe PMU needs CAP_PERFMON (or root) whatever perf_event_paranoid
 * says; without it uprobe_available()/uprobe_counters_open() fail with
 * PQ_EPERF and a one-line reason that callers put in the record as
 * "counts unavailable: <reason>".
 */
#ifndef PQ_UPROBE_COUNT_H
#define PQ_UPROBE_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pq_error.h"

struct uprobe_target {
	char *name;
	uint64_t offset;        /* file offset of the entry */
	uint64_t size;          /* st_size (0 for untyped assembly labels) */
};

struct uprobe_targets {
	struct uprobe_target *t;
	size_t n;
};

/*
 * Functions of lib_path (.symtab, else .dynsym) whose names match any of
 * globs (fnmatch), in address order; aliases at one address appear once.
 * No match is not an error (out->n == 0).
 */
int uprobe_resolve(const char *lib_path, const char *const *globs, size_t nglobs,
                   struct uprobe_targets *out, pq_error *err);
void uprobe_targets_free(struct uprobe_targets *ts);

/* 0 when uprobe counters can be opened by this process, else PQ_EPERF. */
int uprobe_available(pq_error *why);

struct uprobe_counters {
	size_t n;
	int *fds;
};

/* One disabled counter per target in process pid (0 = the caller). */
int uprobe_counters_open(struct uprobe_counters *uc, const char *lib_path,
                         const struct uprobe_targets *ts, pid_t pid, pq_error *err);
/*
 * The same, with descriptors that stay open across exec: a privileged
 * process opens the counters on itself, then drops its uid and execs the
 * unprivileged job that uses them (counters survive both; the kernel
 * checks permission only when a counter is opened).
 */
int uprobe_counters_open_inheritable(struct uprobe_counters *uc, const char *lib_path,
                                     const struct uprobe_targets *ts, pq_error *err);
/* Take over n counter descriptors opened that way (one per target, in order). */
int uprobe_counters_adopt(struct uprobe_counters *uc, const int *fds, size_t n, pq_error *err);
void uprobe_counters_enable(struct uprobe_counters *uc);
void uprobe_counters_disable(struct uprobe_counters *uc);
void uprobe_counters_reset(struct uprobe_counters *uc);
/* counts[i] for target i since the last reset. */
int uprobe_counters_read(const struct uprobe_counters *uc, uint64_t *counts, pq_error *err);
void uprobe_counters_close(struct uprobe_counters *uc);

#endif
