/*
 * heap_hooks: malloc and friends for the runner executable, forwarding to
 * glibc's __libc_* entry points and counting only while an operation runs.
 * See heap_hooks.h.  Not part of libpqprof.a: a library must not replace
 * malloc for whoever links it.
 *
 * Sizes are tracked with malloc_usable_size(), so no table of live blocks
 * is needed; live and peak bytes are therefore in glibc's usable sizes
 * (the request rounded up to the chunk size), while bytes_requested sums
 * what the caller asked for.  All counters are relaxed atomics: a scheme
 * that allocates from several threads is counted correctly, if not in a
 * single consistent snapshot.
 */
#include "config.h"
#include "runner/heap_hooks.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PQ_HEAP_HOOKS_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PQ_HEAP_HOOKS_OFF 1
#endif

#ifndef PQ_HEAP_HOOKS_OFF

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static atomic_int counting;
static atomic_uint_fast64_t n_allocs, n_reallocs, n_frees, n_bytes, n_failed, n_failed_largest;
static atomic_int_fast64_t live, peak;

static void add_live(int64_t delta)
{
	int64_t now = (int64_t)atomic_fetch_add_explicit(&live, delta, memory_order_relaxed) + delta;
	if (delta <= 0)
		return;
	int_fast64_t old = atomic_load_explicit(&peak, memory_order_relaxed);
	while (now > old &&
	       !atomic_compare_exchange_weak_explicit(&peak, &old, now, memory_order_relaxed,
	                                              memory_order_relaxed))
		;
}

static void note_failure(size_t size)
{
	atomic_fetch_add_explicit(&n_failed, 1, memory_order_relaxed);
	uint_fast64_t old = atomic_load_explicit(&n_failed_largest, memory_order_relaxed);
	while (size > old &&
	       !atomic_compare_exchange_weak_explicit(&n_failed_largest, &old, size,
	                                              memory_order_relaxed, memory_order_relaxed))
		;
}

static inline int is_counting(void)
{
	return atomic_load_explicit(&counting, memory_order_relaxed);
}

static void *note_alloc(void *p, size_t size)
{
	/* Failures count always: the runner's fault handler reports a crash
	 * after failed allocations as "out of memory" in every job. */
	if (!p) {
		note_failure(size);
		return p;
	}
	if (!is_counting())
		return p;
	atomic_fetch_add_explicit(&n_allocs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_bytes, size, memory_order_relaxed);
	add_live((int64_t)malloc_usable_size(p));
	return p;
}

void *malloc(size_t size)
{
	return note_alloc(__libc_malloc(size), size);
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);
	/* On overflow glibc fails; count the failure as SIZE_MAX bytes. */
	size_t total = n && size > (size_t)-1 / n ? (size_t)-1 : n * size;
	return note_alloc(p, total);
}

void free(void *p)
{
	if (p && is_counting()) {
		atomic_fetch_add_explicit(&n_frees, 1, memory_order_relaxed);
		add_live(-(int64_t)malloc_usable_size(p));
	}
	__libc_free(p);
}

void *realloc(void *p, size_t size)
{
	if (!is_counting()) {
		void *r = __libc_realloc(p, size);
		if (!r && size)
			note_failure(size);
		return r;
	}
	if (!p)
		return note_alloc(__libc_realloc(NULL, size), size);
	int64_t old = (int64_t)malloc_usable_size(p);
	void *r = __libc_realloc(p, size);
	if (size == 0) {
		/* glibc frees the block and returns NULL. */
		if (!r) {
			atomic_fetch_add_explicit(&n_frees, 1, memory_order_relaxed);
			add_live(-old);
		}
		return r;
	}
	if (!r) {
		note_failure(size);
		return r;
	}
	atomic_fetch_add_explicit(&n_reallocs, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_bytes, size, memory_order_relaxed);
	add_live((int64_t)malloc_usable_size(r) - old);
	return r;
}

void *memalign(size_t align, size_t size)
{
	return note_alloc(__libc_memalign(align, size), size);
}

void *aligned_alloc(size_t align, size_t size)
{
	return note_alloc(__libc_memalign(align, size), size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	if (align % sizeof(void *) != 0 || (align & (align - 1)) != 0 || align == 0)
		return EINVAL;
	void *p = note_alloc(__libc_memalign(align, size), size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t size)
{
	return note_alloc(__libc_valloc(size), size);
}

void *pvalloc(size_t size)
{
	return note_alloc(__libc_pvalloc(size), size);
}

void heap_hooks_start(void)
{
	atomic_store(&counting, 0);
	atomic_store(&n_allocs, 0);
	atomic_store(&n_reallocs, 0);
	atomic_store(&n_frees, 0);
	atomic_store(&n_bytes, 0);
	atomic_store(&n_failed, 0);
	atomic_store(&n_failed_largest, 0);
	atomic_store(&live, 0);
	atomic_store(&peak, 0);
	atomic_store(&counting, 1);
}

void heap_hooks_stop(struct heap_stats *out)
{
	atomic_store(&counting, 0);
	if (!out)
		return;
	memset(out, 0, sizeof *out);
	out->allocs = atomic_load(&n_allocs);
	out->reallocs = atomic_load(&n_reallocs);
	out->frees = atomic_load(&n_frees);
	out->bytes_requested = atomic_load(&n_bytes);
	out->live_bytes = atomic_load(&live);
	out->peak_live_bytes = atomic_load(&peak);
	out->failed = atomic_load(&n_failed);
	out->failed_largest = atomic_load(&n_failed_largest);
}

uint64_t heap_hooks_failed(void)
{
	return atomic_load_explicit(&n_failed, memory_order_relaxed);
}

#else /* PQ_HEAP_HOOKS_OFF */

/* AddressSanitizer replaces malloc itself; memprobe reports the heap as unavailable. */
typedef int pq_heap_hooks_disabled;

#endif
