/*
 * pqprof-runner: the child executable.  Loads exactly one instance and does
 * one job (see runner.h).  It is deliberately small and distrustful: the
 * event channel is moved to a high descriptor so a scheme that closes
 * 0/1/2 cannot cut it, crashes and exit() calls inside scheme code are
 * reported as events before the process ends, and the parent decides the
 * verdict from what arrives.
 */
#include "config.h"
#include "runner/runner.h"
#include "runner/jobs.h"
#include "instance/loader.h"
#include "kat/ctr_drbg.h"

#include "runner/heap_hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Defined by heap_hooks.c, which ASan builds leave out: then no OOM diagnosis. */
#pragma weak heap_hooks_failed

static int result_fd = -1;
static volatile sig_atomic_t current_op = -1;
static volatile sig_atomic_t done_sent;
/* Set while the instance library is being loaded: a fault then is a load failure. */
static volatile sig_atomic_t loading;

static const struct runner_job jobs[] = {
	{ "info", job_info },
	{ "bench", job_bench },
	{ "kat", job_kat },
	{ "mem", job_mem },
	{ "sizes", job_sizes },
	{ "profile", job_profile },
	{ "count", job_count },
	{ NULL, NULL },
};

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void runner_emit(json_t *event)
{
	if (!event)
		return;
	const char *ev = json_string_value(json_object_get(event, "ev"));
	if (ev && strcmp(ev, "done") == 0)
		done_sent = 1;
	char *text = json_dumps(event, JSON_COMPACT);
	json_decref(event);
	if (!text)
		return;
	int fd = result_fd >= 0 ? result_fd : 2;
	write_all(fd, text, strlen(text));
	write_all(fd, "\n", 1);
	free(text);
}

void runner_emit_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	runner_emit(json_pack("{s:s, s:s}", "ev", "error", "msg", msg));
}

void runner_op_begin(enum pq_op op, int announce)
{
	if (announce)
		runner_emit(json_pack("{s:s, s:s}", "ev", "begin", "op", pq_op_name(op)));
	current_op = op;
}

void runner_op_end(enum pq_op op, int announce)
{
	current_op = -1;
	if (announce)
		runner_emit(json_pack("{s:s, s:s}", "ev", "end", "op", pq_op_name(op)));
}

void runner_mark_call(enum pq_op op, int begin)
{
	current_op = begin ? (int)op : -1;
}

int runner_result_fd(void)
{
	return result_fd;
}

int runner_current_op(void)
{
	return current_op;
}

/* NIST randomness: one CTR_DRBG per process, as PQCgenKAT's rng.c has. */
static ctr_drbg nist_drbg;

static int nist_randombytes(unsigned char *out, pq_u64 len)
{
	ctr_drbg_generate(&nist_drbg, out, (size_t)len);
	return 0;
}

int runner_seed_instance(const struct pqprof_instance *inst, const unsigned char *seed, size_t len)
{
	if (inst->api == PQPROF_API_NIST) {
		unsigned char entropy[48] = { 0 };
		memcpy(entropy, seed, len < 48 ? len : 48);
		ctr_drbg_init(&nist_drbg, entropy, NULL);
		if (inst->set_rng)
			inst->set_rng(nist_randombytes);
		return 0;
	}
	if (!inst->seed)
		return -1;
	return inst->seed(seed, len);
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
	int op = current_op;
	const char *opname = op >= 0 ? pq_op_name(op) : "";
	int n = snprintf(buf, sizeof buf, "{\"ev\":\"fault\",\"signal\":%d,\"op\":\"%s\",\"addr\":\"%p\"}\n",
	                 sig, opname, si ? si->si_addr : NULL);
	if (n > 0 && result_fd >= 0)
		write_all(result_fd, buf, (size_t)n);
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
	if (n > 0 && (size_t)n < sizeof buf && result_fd >= 0)
		write_all(result_fd, buf, (size_t)n);
	if (loading && result_fd >= 0) {
		n = snprintf(buf, sizeof buf, "{\"ev\":\"error\",\"kind\":\"load\",\"msg\":\"the library crashed the "
		             "loader (signal %d): a damaged or truncated file\"}\n", sig);
		if (n > 0 && (size_t)n < sizeof buf)
			write_all(result_fd, buf, (size_t)n);
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
	int op = current_op;
	if (op >= 0 && result_fd >= 0) {
		char buf[96];
		int n = snprintf(buf, sizeof buf, "{\"ev\":\"stopped\",\"op\":\"%s\"}\n", pq_op_name(op));
		if (n > 0 && (size_t)n < sizeof buf)
			write_all(result_fd, buf, (size_t)n);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void exit_watch(void)
{
	int op = current_op;
	if (op >= 0 && result_fd >= 0) {
		char buf[128];
		int n = snprintf(buf, sizeof buf, "{\"ev\":\"exit_in_op\",\"op\":\"%s\"}\n", pq_op_name(op));
		if (n > 0)
			write_all(result_fd, buf, (size_t)n);
	}
}

static void install_fault_handlers(void)
{
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

int job_info(struct runner_env *env, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	const struct pqprof_instance *in = env->inst;
	struct pqprof_sizes sz;
	in->get_sizes(&sz);
	json_t *d = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:b, s:{s:I, s:I, s:I, s:I, s:I}}",
	                      "ev", "done", "api", loader_api_name(in->api), "kind", loader_kind_name(in->kind),
	                      "name", in->name, "compiler", in->compiler, "profile", in->profile,
	                      "cflags", in->cflags, "source_dir", in->source_dir,
	                      "seedable", in->seed != NULL || in->set_rng != NULL,
	                      "sizes", "pk", (json_int_t)sz.pk, "sk", (json_int_t)sz.sk,
	                      "sig", (json_int_t)sz.sig, "ct", (json_int_t)sz.ct, "ss", (json_int_t)sz.ss);
	if (d && in->build_notes)
		json_object_set_new(d, "build_notes", json_string(in->build_notes));
	runner_emit(d);
	return 0;
}

int main(int argc, char **argv)
{
	/* Keep the event channel out of reach of schemes that close low fds. */
	if (fcntl(RUNNER_RESULT_FD, F_GETFD) != -1) {
		result_fd = fcntl(RUNNER_RESULT_FD, F_DUPFD_CLOEXEC, 900);
		close(RUNNER_RESULT_FD);
	}
	struct runner_env env = { .ctrl_fd = -1 };
	if (fcntl(RUNNER_CTRL_FD, F_GETFD) != -1) {
		env.ctrl_fd = fcntl(RUNNER_CTRL_FD, F_DUPFD_CLOEXEC, 910);
		close(RUNNER_CTRL_FD);
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pqprof-runner JOB LIB [ARGS...]\n"
		                "The child process of pqprof; not meant to be run by hand.\n");
		return 1;
	}
	const struct runner_job *job = NULL;
	for (const struct runner_job *j = jobs; j->name; j++)
		if (strcmp(j->name, argv[1]) == 0)
			job = j;
	if (!job) {
		runner_emit_error("unknown runner job '%s'", argv[1]);
		return 1;
	}
	note_main_stack();
	install_fault_handlers();
	pq_error err = { 0 };
	void *handle = NULL;
	env.lib_path = argv[2];
	runner_emit(json_pack("{s:s, s:i}", "ev", "start", "pid", (int)getpid()));
	loading = 1;
	int lr = loader_open(argv[2], &env.inst, &handle, &err);
	loading = 0;
	if (lr < 0) {
		runner_emit(json_pack("{s:s, s:s, s:s}", "ev", "error", "kind", "load", "msg", err.msg));
		return PQ_ELOAD;
	}
	/* Jobs see argv[0] = job name, then their own arguments. */
	int rc = job->fn(&env, argc - 2, argv + 2);
	fflush(stdout);
	fflush(stderr);
	if (rc == 0 && !done_sent)
		runner_emit_error("job %s finished without a result", job->name);
	return rc;
}
