/* fault_guard: guard-page hits become OVERFLOW outcomes; see fault_guard.h. */
#include "config.h"
#include "kat/fault_guard.h"
#include "kat/guarded_buf.h"
#include "kat/safe_text.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Fault-handler context; see the header comment for why it is static. */
static struct {
	struct kat_outcome *out;
	volatile long record;
	const char *volatile op;
	int outcome_fd;
	int exit_code;
} fault_ctx;

void fault_guard_arm(struct kat_outcome *out, int outcome_fd, int exit_code)
{
	fault_ctx.out = out;
	fault_ctx.outcome_fd = outcome_fd;
	fault_ctx.exit_code = exit_code;
}

void fault_guard_disarm(void)
{
	fault_ctx.out = NULL;
}

void fault_guard_at(long record, const char *op)
{
	fault_ctx.record = record;
	fault_ctx.op = op;
}

long fault_guard_record(void)
{
	return fault_ctx.record;
}

const char *fault_guard_op(void)
{
	return fault_ctx.op;
}

/* What SIGSEGV/SIGBUS did before fault_install: faults that are not ours go there. */
static struct sigaction chained_segv, chained_bus;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int past;
	const char *name;
	size_t len;
	if (fault_ctx.out && gbuf_guard_hit((uintptr_t)si->si_addr, &past, &name, &len)) {
		struct kat_outcome *o = fault_ctx.out;
		o->verdict = KAT_OVERFLOW;
		o->record = fault_ctx.record;
		memcpy(o->field, name, sizeof o->field);
		struct sbuf s = {o->reason, 0, sizeof o->reason};
		o->reason[0] = '\0';
		if (fault_ctx.record >= 0) {
			sb_str(&s, "record ");
			sb_num(&s, (unsigned long long)fault_ctx.record);
			sb_str(&s, " ");
		} else {
			sb_str(&s, "deviation check ");
		}
		sb_str(&s, fault_ctx.op);
		sb_str(&s, past ? ": wrote past the end of " : ": wrote before the start of ");
		sb_str(&s, name);
		sb_str(&s, " (declared ");
		sb_num(&s, len);
		sb_str(&s, " bytes; guard page hit)");
		if (fault_ctx.outcome_fd >= 0)
			kat_outcome_write_fd(fault_ctx.outcome_fd, o);
		_exit(fault_ctx.exit_code);
	}
	/*
	 * Not ours: hand it to whoever handled it before (the runner's fault
	 * handler, which tells the parent the op and diagnoses stack overflow
	 * and out of memory; or SIG_DFL).  A real fault is re-raised by the
	 * faulting instruction itself on return, with its address intact.
	 */
	sigaction(sig, sig == SIGBUS ? &chained_bus : &chained_segv, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

int fault_install(struct fault_guard *fg)
{
	memset(fg, 0, sizeof *fg);
	fg->stack_len = 256 * 1024;
	fg->stack = mmap(NULL, fg->stack_len, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fg->stack == MAP_FAILED) {
		fg->stack = NULL;
		return -PQ_ENOMEM;
	}
	stack_t st = {.ss_sp = fg->stack, .ss_size = fg->stack_len, .ss_flags = 0};
	if (sigaltstack(&st, &fg->old_stack) != 0) {
		munmap(fg->stack, fg->stack_len);
		fg->stack = NULL;
		return -PQ_EINTERNAL;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &fg->old_segv);
	sigaction(SIGBUS, &sa, &fg->old_bus);
	chained_segv = fg->old_segv;
	chained_bus = fg->old_bus;
	fg->installed = 1;
	return 0;
}

void fault_remove(struct fault_guard *fg)
{
	if (!fg->installed)
		return;
	sigaction(SIGSEGV, &fg->old_segv, NULL);
	sigaction(SIGBUS, &fg->old_bus, NULL);
	/* The old stack may have been "disabled", which restores as such. */
	sigaltstack(&fg->old_stack, NULL);
	munmap(fg->stack, fg->stack_len);
	fg->installed = 0;
}
