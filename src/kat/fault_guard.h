/*
 * fault_guard: the KAT engine's SIGSEGV/SIGBUS handler.  A fault in a
 * guard page of a registered buffer (guarded_buf.h) is an OVERFLOW: the
 * handler fills the armed outcome with the record, the call in progress
 * and the buffer, writes it to the outcome descriptor and _exits with the
 * armed status.  Any other fault goes to the handler installed before
 * (the runner's, which reports the crash; or the default).
 *
 * Process-wide state, on purpose: a signal handler has no user pointer.
 * The engine also keeps here where it is (record and call), which its
 * messages use as well.
 */
#ifndef PQ_KAT_FAULT_GUARD_H
#define PQ_KAT_FAULT_GUARD_H

#include <signal.h>
#include <stddef.h>

#include "kat/kat_engine.h"

struct fault_guard {
	int installed;
	struct sigaction old_segv, old_bus;
	stack_t old_stack;
	void *stack;
	size_t stack_len;
};

/* Install the handler on its own alternate stack; 0 or a negative PQ_* code. */
int fault_install(struct fault_guard *fg);
/* Restore the previous handlers and stack. */
void fault_remove(struct fault_guard *fg);

/* Guard-page hits fill *out, write it to outcome_fd (when >= 0), _exit(exit_code). */
void fault_guard_arm(struct kat_outcome *out, int outcome_fd, int exit_code);
/* Guard-page hits are no longer reported (the outcome is going away). */
void fault_guard_disarm(void);

/* The call in progress: record number (-1 = deviation checks) and name. */
void fault_guard_at(long record, const char *op);
long fault_guard_record(void);
const char *fault_guard_op(void);

#endif
