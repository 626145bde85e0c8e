/*
 * memprobe: the memory one operation needs, measured in a fresh runner
 * child around a single op_ctx_call().
 *
 *  - baseline RSS: VmRSS just before the operation, after loading the
 *    instance and op_ctx_prepare();
 *  - peak RSS: VmHWM after the operation, reset just before it by writing
 *    "5" to /proc/self/clear_refs (flagged when the reset is not possible);
 *  - stack high-water: the call runs on a painted stack of our own
 *    (makecontext/swapcontext), scanned afterwards for the deepest byte
 *    that changed; a PROT_NONE guard below it turns an overflow into a
 *    reported fault instead of silent corruption;
 *  - heap: allocation counts and live/peak bytes from heap_hooks, when the
 *    executable interposes malloc (the runner does), else "unavailable".
 *
 * What each figure includes is spelled out in doc/memory.md.  The probe
 * installs a SIGSEGV/SIGBUS handler and an alternate signal stack for the
 * duration of the call and restores the previous ones afterwards; only one
 * probe may run at a time in a process.
 */
#ifndef PQ_MEMPROBE_H
#define PQ_MEMPROBE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "runner/heap_hooks.h"
#include "runner/op_ctx.h"

#define MEMPROBE_DEFAULT_STACK ((size_t)64 << 20)
#define MEMPROBE_MIN_STACK ((size_t)64 << 10)
#define MEMPROBE_GUARD_BYTES ((size_t)256 << 10)

struct memprobe_config {
	size_t stack_size;   /* bytes of stack for the call; 0 = MEMPROBE_DEFAULT_STACK */
	/*
	 * Where the fault handler writes one NDJSON line when the call
	 * overflows the probe stack, or crashes after failed allocations:
	 * {"ev":"diagnosis","op":...,"kind":"stack_overflow"|"out_of_memory",
	 *  "msg":"stack overflow (more than N bytes of stack)"|...}; -1 = nowhere.
	 */
	int fault_fd;
	/*
	 * After a stack overflow: -1 = hand the SIGSEGV on to the handler that
	 * was installed before the probe (the runner's crash reporter) or the
	 * default action, so the parent sees a crash; else _exit() with this.
	 */
	int overflow_exit_code;
};

struct memprobe_result {
	int rc;                     /* the scheme's return code */

	uint64_t baseline_rss;      /* bytes, VmRSS before the call */
	uint64_t peak_rss;          /* bytes, VmHWM during the call, probe stack accounted (below) */
	int peak_reset;             /* 1 if clear_refs reset VmHWM before the call */
	char peak_note[160];        /* why not, when peak_reset == 0 */
	uint64_t hwm_raw;           /* VmHWM as read, including the whole painted probe stack */
	uint64_t probe_stack_resident; /* painted probe stack bytes subtracted from hwm_raw */

	uint64_t stack_size;        /* usable bytes of the probe stack */
	uint64_t stack_used;        /* bytes from the top to the deepest changed byte (raw) */
	uint64_t stack_overhead;    /* of which the trampoline's own frames, measured empty */

	int heap_available;         /* 0: no malloc interposition in this executable */
	struct heap_stats heap;
};

/* Defaults: 64 MiB stack, no fault fd, crash on overflow. */
void memprobe_config_init(struct memprobe_config *cfg);

/*
 * Perform op once on `c` (which op_ctx_prepare() has readied) and measure
 * it.  cfg may be NULL for the defaults.  Returns 0 when the measurement
 * was made (whatever the scheme returned: see out->rc), or a negative
 * PQ_E* code when the probe itself could not be set up.  A stack overflow
 * does not return: see memprobe_config.
 */
int memprobe_run(struct op_ctx *c, enum pq_op op, const struct memprobe_config *cfg,
                 struct memprobe_result *out, pq_error *err);

/*
 * The result as a JSON object (new reference); every size is in bytes:
 * {"rc", "baseline_rss", "peak_rss", "peak_rss_reset", ["peak_rss_note"],
 *  "raw": {"vmhwm", "probe_stack_resident"},
 *  "stack": {"used", "overhead", "size"},
 *  "heap": {"available": true, "allocs", ...} | {"available": false, "note"}}
 */
json_t *memprobe_result_to_json(const struct memprobe_result *r);

/* Read VmRSS / VmHWM of this process in bytes; 0 on success. */
int memprobe_read_status(uint64_t *vmrss, uint64_t *vmhwm, pq_error *err);

/* Under AddressSanitizer: make the process's first context switch now, before
 * the scheme's output is captured (ASan warns on it once).  Else nothing. */
void memprobe_prime_sanitizer(void);

#endif
