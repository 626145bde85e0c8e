/*
 * alloc_fail: an allocator that fails on request, for the allocation-failure
 * test (tests/e2e/alloc_fail.sh).  Linked only into the test binaries
 * tests/pqprof-allocfail and tests/pqprof-runner-allocfail, with
 * -Wl,--wrap=malloc,--wrap=calloc,... so that pqprof's own calls come here
 * while the C library, other libraries and the scheme code keep the real
 * allocator.  Not for pqprof or pqprof-runner themselves.
 *
 *   PQPROF_FAIL_ALLOC_AT=N   the Nth allocation of this process fails
 *                            (0 or unset: none); in the runner the variable
 *                            is PQPROF_RUNNER_FAIL_ALLOC_AT
 *   PQPROF_ALLOC_LOG=FILE    appended to: "WHO fail N OFFSET" when the Nth
 *                            allocation is refused (WHO: pqprof or runner;
 *                            OFFSET: the caller's address in the executable,
 *                            for addr2line), and "WHO total N" at exit (the
 *                            runner runs as another user: make FILE writable)
 *
 * Only the process that read the variable fails: a child forked before an
 * exec (a contained compiler, the runner) counts nothing of its own.  The
 * log is written with write(2), never through an allocation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ALLOC_FAIL_WHO
#define ALLOC_FAIL_WHO "pqprof"
#define ALLOC_FAIL_ENV "PQPROF_FAIL_ALLOC_AT"
#endif

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **out, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);

extern const char __executable_start[];

static atomic_ullong calls;
static unsigned long long fail_at;
static pid_t owner;
static int ready;

__attribute__((format(printf, 1, 2))) static void log_line(const char *fmt, ...)
{
	const char *path = getenv("PQPROF_ALLOC_LOG");
	if (!path || !*path)
		return;
	char line[96];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || n <= 0)
		return;
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
	close(fd);
}

static void report_total(void)
{
	if (getpid() == owner)
		log_line(ALLOC_FAIL_WHO " total %llu\n", (unsigned long long)atomic_load(&calls));
}

/* The runner ends with _exit, past atexit: it calls this first (src/runner/runner_main.c). */
void runner_test_exit_hook(void);
void runner_test_exit_hook(void)
{
	if (ready)
		report_total();
}

static void setup(void)
{
	const char *e = getenv(ALLOC_FAIL_ENV);
	fail_at = e ? strtoull(e, NULL, 10) : 0;
	owner = getpid();
	ready = 1;
	atexit(report_total);
}

/* Where a refusal can be caught: gdb -ex 'break alloc_fail_refused' shows who asked. */
__attribute__((noinline)) void alloc_fail_refused(unsigned long long k);
__attribute__((noinline)) void alloc_fail_refused(unsigned long long k)
{
	__asm__ volatile("" : : "r"(k) : "memory");
}

/* Should this allocation, called from `caller`, fail? */
static int refuse(const void *caller)
{
	if (!ready)
		setup();
	if (getpid() != owner)
		return 0;
	unsigned long long k = atomic_fetch_add(&calls, 1) + 1;
	if (k != fail_at)
		return 0;
	log_line(ALLOC_FAIL_WHO " fail %llu 0x%llx\n", k, (unsigned long long)((uintptr_t)caller - (uintptr_t)__executable_start));
	alloc_fail_refused(k);
	errno = ENOMEM;
	return 1;
}

void *__wrap_malloc(size_t n)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return refuse(__builtin_return_address(0)) ? NULL : __real_strndup(s, n);
}

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (refuse(__builtin_return_address(0))) {
		*out = NULL;
		return -1;
	}
	return __real_vasprintf(out, fmt, ap);
}
