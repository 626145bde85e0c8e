/*
 * unwind: turn a dwarf-mode sample (user registers + a copy of the top of
 * the user stack) into a list of PCs with libdwfl's CFI unwinder, in the
 * parent, after the fact.  The sampled process may be gone: modules come
 * from the mappings the sampler reported, registers and stack memory from
 * the sample itself (nothing reads the live process).
 *
 * Output convention (same as fp-mode callchains): pcs[0] is the sampled
 * IP, every later entry is a return address, so a symbolizer should look
 * up pcs[i] - 1 for i > 0 to land inside the call instruction.
 *
 * A stack counts as complete when the unwind either reached the outermost
 * frame or, with a scope set, stepped from a frame inside the scope (the
 * instance library) to one outside it (the runner that called it).  It is
 * truncated when the unwind stopped earlier: the stack copy was too small
 * (raise the stack copy size), CFI was missing, or the frame limit was hit.
 *
 * Only x86-64 register layouts are understood for now.
 */
#ifndef PQ_UNWIND_H
#define PQ_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/pq_error.h"
#include "profile/sampler.h"

enum unwind_status {
	UNWIND_COMPLETE = 0,
	UNWIND_TRUNCATED,     /* stopped before leaving the scope / the outermost frame */
	UNWIND_NO_REGS,       /* sample carried no user registers: only pcs[0] */
};

struct unwind_stats {
	uint64_t samples;
	uint64_t complete;
	uint64_t truncated;
	uint64_t truncated_stack;  /* of those: needed memory beyond the stack copy */
	uint64_t no_regs;
	uint64_t modules;          /* modules reported to libdwfl */
	uint64_t module_errors;    /* mappings libdwfl would not take */
};

struct unwinder;

/* pid: the sampled process (used only as libdwfl's thread id). */
struct unwinder *unwinder_new(pid_t pid, pq_error *err);
void unwinder_free(struct unwinder *u);

/*
 * A file mapping of the process (executable mappings are enough).  Call it
 * for every sampler_mmap; repeated mappings of one file are merged.
 */
int unwinder_add_module(struct unwinder *u, const char *path, uint64_t start, uint64_t len,
                        uint64_t pgoff, pq_error *err);

/* Frames in mappings of this file are "the scheme" (see above). */
void unwinder_set_scope(struct unwinder *u, const char *path);

/*
 * Unwind one sample into pcs[0..*n).  Returns an enum unwind_status (>= 0)
 * or a negative PQ_E* code when libdwfl could not be set up at all.
 */
int unwinder_unwind(struct unwinder *u, const struct sampler_sample *s, uint64_t *pcs,
                    size_t max, size_t *n, pq_error *err);

const struct unwind_stats *unwinder_stats(const struct unwinder *u);

#endif
