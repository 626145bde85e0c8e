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
 * Each frame is recovered by the first of these that works:
 *   - CFI (.eh_frame / .debug_frame) through libdwfl;
 *   - frame pointer, for a frame whose code has no CFI (assembly): rbp
 *     points into the stack copy at a saved rbp followed by a valid return
 *     address, and no valid return address lies below that slot;
 *   - stack scan: the first word in the 16 KiB above the frame's stack
 *     pointer that is a valid return address.
 * A valid return address lies in a mapped executable file, inside a
 * function its symbol table knows, right after a call instruction (call
 * rel32 whose target is mapped code, or call r/m64); every recovered frame
 * must also have a higher stack pointer than the one below it.  What
 * fails these checks ends the unwind rather than invent a frame.
 *
 * With an entry set (unwinder_set_entry: the stack pointer at the runner's
 * call into the scheme, and the runner's return addresses above that
 * call) the unwind goes exactly up to the frame at the entry stack
 * pointer, the runner's frame that called the scheme, and then appends
 * the runner's frames ("stitched").  Such a stack is complete when it
 * reached the entry, and incomplete otherwise.  Without an entry a stack
 * counts as complete when the unwind either reached the outermost frame
 * or, with a scope set, stepped from a frame inside the scope (the
 * instance library) to one outside it (the runner that called it).  It is
 * truncated when the unwind stopped earlier: the stack copy was too small
 * (raise the stack copy size), no recovery worked, or the frame limit was
 * hit.
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
	/* How the frames above the sampled one were recovered. */
	uint64_t frames_cfi, frames_fp, frames_scan, frames_stitched;
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
 * The stack pointer at the call into the scheme (0: unknown) and the
 * return addresses of the runner's frames above the caller, innermost
 * first (copied).  Samples whose stack pointer is not below entry_sp
 * (the runner's own code around the call) are unwound as without entry.
 */
void unwinder_set_entry(struct unwinder *u, uint64_t entry_sp, const uint64_t *frames, size_t n);

/*
 * Unwind one sample into pcs[0..*n).  Returns an enum unwind_status (>= 0)
 * or a negative PQ_E* code when libdwfl could not be set up at all.
 */
int unwinder_unwind(struct unwinder *u, const struct sampler_sample *s, uint64_t *pcs,
                    size_t max, size_t *n, pq_error *err);

const struct unwind_stats *unwinder_stats(const struct unwinder *u);

#endif
