/*
 * heap_hooks: per-operation heap accounting in the runner child.
 *
 * heap_hooks.c defines malloc, free and their relatives in the runner
 * executable itself and forwards every call to glibc's own __libc_*
 * entry points.  The runner is linked with -rdynamic, so an instance
 * library loaded later binds to these definitions.  Calls are counted only
 * between heap_hooks_start() and heap_hooks_stop(); outside that window the
 * wrappers cost one relaxed atomic load.
 *
 * heap_hooks.c is linked into the runner (and into tests that want the
 * counts), never into libpqprof.a: the library reaches these functions
 * through weak references and treats their absence as "no interposition".
 * Builds with AddressSanitizer compile the wrappers out, because ASan owns
 * malloc there.
 */
#ifndef PQ_HEAP_HOOKS_H
#define PQ_HEAP_HOOKS_H

#include <stdint.h>

struct heap_stats {
	uint64_t allocs;          /* successful malloc/calloc/memalign-family calls */
	uint64_t reallocs;        /* successful realloc calls with a non-zero size */
	uint64_t frees;           /* free() of a non-NULL pointer (and realloc(p, 0)) */
	uint64_t bytes_requested; /* sum of the sizes asked for (realloc: the new size) */
	int64_t live_bytes;       /* usable bytes allocated minus freed, at stop */
	int64_t peak_live_bytes;  /* highest live_bytes while counting (>= 0) */
	uint64_t failed;          /* allocation calls that returned NULL */
	uint64_t failed_largest;  /* largest size among those failed calls */
};

/* Zero the counters and start counting. */
void heap_hooks_start(void);
/* Stop counting and copy the counters out. */
void heap_hooks_stop(struct heap_stats *out);
/*
 * Failed allocations since the last start (or since the process began);
 * failures are counted outside start/stop too, so that a crash after a
 * failed malloc reads as "out of memory" in every job.  Async-signal-safe.
 */
uint64_t heap_hooks_failed(void);

#endif
