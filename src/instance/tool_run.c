/* tool_run: contained build tools under limits; see tool_run.h. */
#include "config.h"
#include "instance/tool_run.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/fixed_str.h"
#include "core/text_buf.h"
#include "core/grow.h"
#include "core/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Take s (malloc'ed, or NULL when its allocation failed) as the next argument. */
static void av_take(struct argv_buf *a, char *s)
{
	if (!s || a->oom || pq_grow(&a->v, &a->cap, (size_t)a->n + 2, sizeof *a->v, 32) < 0) {
		free(s);
		a->oom = 1;
		return;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void av_push(struct argv_buf *a, const char *s)
{
	av_take(a, a->oom ? NULL : strdup(s));
}

void av_pushf(struct argv_buf *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = need >= 0 && !a->oom ? malloc((size_t)need + 1) : NULL;
	if (s) {
		va_start(ap, fmt);
		vsnprintf(s, (size_t)need + 1, fmt, ap);
		va_end(ap);
	}
	av_take(a, s);
}

int av_check(const struct argv_buf *a, pq_error *err)
{
	if (a->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory assembling the command %s", a->n ? a->v[0] : "");
	return 0;
}

void av_free(struct argv_buf *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}


/* Start argv contained, its output to `log`; returns its pid or -1. */
pid_t spawn_logged(struct contained *ct, char **argv, const char *log, const struct cc_limits *lim)
{
	struct contain_opts co = { .no_user_change = !lim->as_user, .workdir = lim->workdir,
	                           .private_root = lim->private_root };
	pid_t pid = contain_fork(ct, &co, NULL);
	if (pid > 0)
		interrupt_track_pid(pid); /* an interrupted pqprof ends cc1, as and ld too */
	if (pid != 0)
		return pid < 0 ? -1 : pid;
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	int nul = open("/dev/null", O_RDONLY);
	if (nul >= 0)
		dup2(nul, 0);
	unsigned long long cpu_s = (unsigned long long)lim->timeout_s;
	/* Set just before the exec: pqprof's own set-up in this child may still map memory. */
	const struct contain_limit limits[] = { { RLIMIT_AS, lim->as_limit, lim->as_limit },
		                                    { RLIMIT_CPU, cpu_s, cpu_s + 5 },
		                                    { RLIMIT_CORE, 0, 0 },
		                                    { -1, 0, 0 } };
	if (lim->env)
		environ = (char **)lim->env;
	contain_exec_limited(ct, argv[0], argv, limits);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for a contained process, killing it at the wall-clock limit. */
int wait_limited(struct contained *ct, const struct cc_limits *lim, int *st, int *timed_out)
{
	double end = mono_s() + lim->timeout_s;
	*timed_out = 0;
	for (;;) {
		pid_t w = contain_wait(ct, st, WNOHANG);
		if (w != 0)
			return w < 0 ? -1 : 0;
		if (!*timed_out && mono_s() > end) {
			kill(-ct->pid, SIGKILL);
			*timed_out = 1;
		}
		poll(NULL, 0, 10);
	}
}

/*
 * Leave out the lines of a compiler log that are about a file outside `a`
 * and `b` (the tree and the build directory), with the source lines
 * echoed under them: the contents of files outside the tree never reach
 * notes, errors or records.  Filters `text` in place.
 */
static void drop_outside_lines(char *text, const char *a, const char *b)
{
	static const char marker[] = "(a diagnostic about a file outside the tree, left out)\n";
	size_t la = strlen(a), lb = strlen(b), out = 0;
	int dropping = 0;
	char *line = text;
	while (*line) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
		const char *colon = memchr(line, ':', n);
		int about_file = line[0] == '/' && colon && colon[1] >= '0' && colon[1] <= '9';
		int echo = line[0] == ' ' || line[0] == '\t';
		if (about_file)
			dropping = !((strncmp(line, a, la) == 0 && line[la] == '/') ||
			             (strncmp(line, b, lb) == 0 && line[lb] == '/'));
		else if (!echo)
			dropping = 0;
		if (!dropping) {
			memmove(text + out, line, n);
			out += n;
		} else if (about_file && sizeof marker - 1 <= n) {
			memcpy(text + out, marker, sizeof marker - 1); /* never longer than what it replaces */
			out += sizeof marker - 1;
		}
		line += n;
	}
	text[out] = '\0';
}

/* First few lines of a compiler log that mention "error", else its head. */
void log_excerpt(const char *log, char *out, size_t len, const char *tree, const char *tmpdir)
{
	char *text = NULL;
	out[0] = '\0';
	if (read_whole_file(log, &text, NULL, 1u << 20, NULL) == -PQ_ENOMEM)
		snprintf(out, len, "(its output could not be read: out of memory)");
	if (!text)
		return;
	drop_outside_lines(text, tree, tmpdir);
	/* The linker says what is wrong before collect2's closing "error". */
	const char *start = strstr(text, "undefined reference");
	if (!start)
		start = strstr(text, "cannot find -l");
	if (!start)
		start = strstr(text, "multiple definition");
	if (!start)
		start = strstr(text, "error");
	if (start) {
		while (start > text && start[-1] != '\n')
			start--;
		/* collect2 only closes: what the linker said is on the lines before. */
		for (int back = 0; back < 2 && strncmp(start, "collect2", 8) == 0 && start > text; back++) {
			start--;
			while (start > text && start[-1] != '\n')
				start--;
		}
	} else {
		start = text;
	}
	size_t k = 0;
	int lines = 0;
	for (const char *p = start; *p && k + 1 < len && lines < 3; p++) {
		if (*p == '\n') {
			lines++;
			if (lines < 3 && k + 3 < len) {
				out[k++] = ' ';
				out[k++] = '|';
				out[k++] = ' ';
			}
			continue;
		}
		out[k++] = *p;
	}
	out[k] = '\0';
	free(text);
}

int compiler_version(const char *cc, char *out, size_t len, const char *tmpdir, const struct cc_limits *lim,
                     pq_error *err)
{
	char log[PATH_MAX];
	snprintf(log, sizeof log, "%s/cc-version.log", tmpdir);
	char *argv[] = { (char *)cc, "--version", NULL };
	struct contained ct;
	pid_t pid = spawn_logged(&ct, argv, log, lim);
	int st = 0, timed_out = 0;
	snprintf(out, len, "%s (version unknown)", cc);
	int bad = pid < 0 || wait_limited(&ct, lim, &st, &timed_out) < 0;
	if (pid > 0) {
		interrupt_untrack_pid(pid);
		contain_finish(&ct);
	}
	if (bad || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 0;
	char *text = NULL;
	int r = read_whole_file(log, &text, NULL, 1u << 16, NULL);
	if (r == -PQ_ENOMEM)
		return pq_fail(err, PQ_ENOMEM, "out of memory reading what %s --version said", cc);
	if (r < 0)
		return 0;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	str_copy(out, len, text);
	free(text);
	return 0;
}

struct job {
	struct contained ct;
	int unit;
	int active;
	int timed_out;
	double end;
};

/* Why a compiler process failed: one of the limits, or its own error. */
static void unit_failure(const struct job *j, int st, const char *log, const struct cc_limits *lim,
                         const char *tree, const char *tmpdir, char *out, size_t len)
{
	char ex[1024];
	log_excerpt(log, ex, sizeof ex, tree, tmpdir);
	if (j->timed_out)
		snprintf(out, len, "stopped at the wall-clock limit of %.0f s (killed)", lim->timeout_s);
	else if ((WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU) || strstr(ex, "CPU time limit"))
		snprintf(out, len, "stopped at the CPU time limit of %.0f s", lim->timeout_s);
	else if (strstr(ex, "out of memory") || strstr(ex, "memory exhausted") || strstr(ex, "Cannot allocate memory"))
		snprintf(out, len, "stopped at the memory limit of %llu MiB: %s", lim->as_limit >> 20, ex);
	else if (WIFSIGNALED(st))
		snprintf(out, len, "killed by SIG%s: %s", sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?",
		         ex[0] ? ex : "(no output)");
	else
		snprintf(out, len, "%s", ex[0] ? ex : "(no output)");
}

/* Run the compile commands, `jobs` at a time; stop at the first failure. */
int run_units(struct argv_buf *cmds, char **logs, const char **names, const char *const *cwds, int n, int jobs,
              const char *what, const struct cc_limits *lim, const char *tree, const char *tmpdir, pq_error *err)
{
	for (int i = 0; i < n; i++) {
		if (av_check(&cmds[i], err) < 0)
			return -PQ_ENOMEM;
		if (!logs[i])
			return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	struct job *running = calloc((size_t)jobs, sizeof *running);
	if (!running)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int next = 0, active = 0, failed = -1, failed_st = 0;
	struct job failed_job = { 0 };
	while ((next < n && failed < 0) || active > 0) {
		for (int j = 0; j < jobs && next < n && failed < 0; j++) {
			if (running[j].active)
				continue;
			struct job *jb = &running[j];
			struct cc_limits here = *lim;
			if (cwds && cwds[next])
				here.workdir = cwds[next];
			if (spawn_logged(&jb->ct, cmds[next].v, logs[next], &here) < 0) {
				failed = next;
				failed_st = 127 << 8;
				break;
			}
			jb->active = 1;
			jb->unit = next++;
			jb->timed_out = 0;
			jb->end = mono_s() + lim->timeout_s;
			active++;
		}
		if (active == 0)
			break;
		poll(NULL, 0, 5);
		for (int j = 0; j < jobs; j++) {
			struct job *jb = &running[j];
			if (!jb->active)
				continue;
			int st = 0;
			pid_t w = contain_wait(&jb->ct, &st, WNOHANG);
			if (w == 0) {
				if (!jb->timed_out && mono_s() > jb->end) {
					kill(-jb->ct.pid, SIGKILL);
					jb->timed_out = 1;
				}
				continue;
			}
			interrupt_untrack_pid(jb->ct.pid);
			contain_finish(&jb->ct);
			jb->active = 0;
			active--;
			if ((w < 0 || jb->timed_out || !WIFEXITED(st) || WEXITSTATUS(st) != 0) && failed < 0) {
				failed = jb->unit;
				failed_st = st;
				failed_job = *jb;
			}
		}
	}
	free(running);
	if (failed >= 0) {
		char why[1400], shown[2800];
		unit_failure(&failed_job, failed_st, logs[failed], lim, tree, tmpdir, why, sizeof why);
		/* Paths reached through the working directory are shown as they are. */
		shown[0] = '\0';
		for (const char *p = why, *cwd; *p; p = cwd + 14) {
			cwd = lim->workdir ? strstr(p, "/proc/self/cwd") : NULL;
			if (!cwd) {
				text_appendf(shown, sizeof shown, "%s", p);
				break;
			}
			text_appendf(shown, sizeof shown, "%.*s%s", (int)(cwd - p), p, lim->workdir);
		}
		if (str_copy(why, sizeof why, shown)) /* a message, cut where it must be: visibly */
			text_mark_cut(why, sizeof why);
		return pq_fail(err, PQ_EBUILD, "%s: %s failed: %s", names[failed], what, why);
	}
	return 0;
}
