/*
 * runner_faults: what the runner says when scheme code crashes or calls
 * exit().  A fatal signal sends a "fault" event naming the operation in
 * progress and, where it can tell, a "diagnosis" (the stack ran into its
 * limit; allocations failed before the crash), then dies of the same
 * signal so the parent sees it.  An exit() inside an operation sends
 * "exit_in_op".  The handlers run on their own stack and format into
 * stack buffers with write(2) only.
 */
#include "config.h"
#include "runner/runner.h"
#include "runner/heap_hooks.h"
#include "runner/scheme_output.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Defined by heap_hooks.c, which ASan builds leave out: then no OOM diagnosis. */
#pragma weak heap_hooks_failed

/* Set while the instance library is being loaded: a fault then is a load failure. */
static volatile sig_atomic_t loading;

/* The build whose calls are running, in a job that loads several (-1: one build). */
static volatile sig_atomic_t current_build = -1;

void runner_set_build(int b)
{
	current_build = b;
}

/* Async-signal-safe: {"ev":"in_build","build":N} when a job of several builds is in one. */
static void say_build(void)
{
	if (current_build < 0)
		return;
	char buf[64];
	int n = snprintf(buf, sizeof buf, "{\"ev\":\"in_build\",\"build\":%d}\n", (int)current_build);
	if (n > 0 && (size_t)n < sizeof buf)
		runner_emit_raw(buf, (size_t)n);
}

void runner_set_loading(int on)
{
	loading = on;
}

/*
 * The main thread's stack as the kernel set it up: its top (end of the
 * [stack] mapping) and RLIMIT_STACK.  A fault within a few MiB below
 * top - limit is the stack running into its limit.  0 when unknown.
 */
static uintptr_t stack_top, stack_limit;

static void note_main_stack(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
			stack_top = (uintptr_t)hi;
			stack_limit = (uintptr_t)rl.rlim_cur;
		}
	}
	fclose(f);
}

static int is_stack_overflow(int sig, const siginfo_t *si)
{
	if ((sig != SIGSEGV && sig != SIGBUS) || !si || !stack_top || stack_limit >= stack_top)
		return 0;
	uintptr_t addr = (uintptr_t)si->si_addr, floor = stack_top - stack_limit;
	/* Below the limit by less than the kernel's guard gap and a large frame,
	 * or within the last 64 KiB above it. */
	return addr < stack_top && addr + ((uintptr_t)16 << 20) >= floor && addr < floor + 65536;
}

/* Async-signal context: format with snprintf into a stack buffer, write(2) it. */
static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char buf[320];
	int op = runner_current_op();
	const char *opname = op >= 0 ? pq_op_name(op) : "";
	say_build();
	int n = snprintf(buf, sizeof buf, "{\"ev\":\"fault\",\"signal\":%d,\"op\":\"%s\",\"addr\":\"%p\"}\n",
	                 sig, opname, si ? si->si_addr : NULL);
	if (n > 0)
		runner_emit_raw(buf, (size_t)n);
	/* Say why, where we can tell: the parent shows this instead of the bare signal. */
	uint64_t failed = heap_hooks_failed ? heap_hooks_failed() : 0;
	n = 0;
	if (is_stack_overflow(sig, si))
		n = snprintf(buf, sizeof buf, "{\"ev\":\"diagnosis\",\"op\":\"%s\",\"kind\":\"stack_overflow\","
		             "\"msg\":\"stack overflow (the %lu-byte stack limit was reached)\"}\n",
		             opname, (unsigned long)stack_limit);
	else if (failed)
		n = snprintf(buf, sizeof buf, "{\"ev\":\"diagnosis\",\"op\":\"%s\",\"kind\":\"out_of_memory\","
		             "\"msg\":\"out of memory (%llu failed allocations before the crash)\","
		             "\"failed_allocations\":%llu}\n", opname, (unsigned long long)failed,
		             (unsigned long long)failed);
	if (n > 0 && (size_t)n < sizeof buf)
		runner_emit_raw(buf, (size_t)n);
	scheme_output_flush_raw();   /* what the scheme printed before it crashed goes to its log */
	if (loading) {
		n = snprintf(buf, sizeof buf, "{\"ev\":\"error\",\"kind\":\"load\",\"msg\":\"the library crashed the "
		             "loader (signal %d): a damaged or truncated file\"}\n", sig);
		if (n > 0 && (size_t)n < sizeof buf)
			runner_emit_raw(buf, (size_t)n);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * The parent's time limit sends SIGTERM: say which operation was running,
 * so that a hang is blamed on it (the parent only knows the operation a
 * job announced, not, say, the verify that checks a fresh signature).
 */
static void stop_handler(int sig)
{
	int op = runner_current_op();
	say_build();
	if (op >= 0) {
		char buf[96];
		int n = snprintf(buf, sizeof buf, "{\"ev\":\"stopped\",\"op\":\"%s\"}\n", pq_op_name(op));
		if (n > 0 && (size_t)n < sizeof buf)
			runner_emit_raw(buf, (size_t)n);
	}
	scheme_output_flush_raw();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void exit_watch(void)
{
	int op = runner_current_op();
	if (op >= 0) {
		say_build();
		char buf[128];
		int n = snprintf(buf, sizeof buf, "{\"ev\":\"exit_in_op\",\"op\":\"%s\"}\n", pq_op_name(op));
		if (n > 0)
			runner_emit_raw(buf, (size_t)n);
	}
}

void runner_install_fault_handlers(void)
{
	note_main_stack();
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fault_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	struct sigaction st;
	memset(&st, 0, sizeof st);
	st.sa_handler = stop_handler;
	st.sa_flags = SA_RESETHAND;
	sigemptyset(&st.sa_mask);
	sigaction(SIGTERM, &st, NULL);
	atexit(exit_watch);
}
