/*
 * pqprof-ccwrap: the compiler wrapper a submission's own build runs while
 * pqprof observes it (instance/observe.h).  It is installed under the
 * names of the build tools (cc, gcc, c++, ar, as, ld, ...) in a directory
 * put first in the build's PATH and named by CC, CXX, AS, AR and LD.  It
 * runs the real tool of the same name (the first one in PATH after its
 * own directory), so generated files and programs exist as in the
 * submitter's build, and appends one line per invocation to the log named
 * by $PQPROF_CCWRAP_LOG:
 *
 *   status <TAB> tool <TAB> working directory <TAB> arg1 <TAB> arg2 ...
 *
 * with backslash, tab and newline escaped as \\, \t and \n.  It records;
 * it decides nothing.  Not for use outside an observed build.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The real tool: the first executable `name` in PATH outside our own directory. */
static int find_real(const char *name, const char *self_dir, char *out, size_t len)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char dir[PATH_MAX];
		if (n > 0 && n < sizeof dir) {
			memcpy(dir, path, n);
			dir[n] = '\0';
			char rd[PATH_MAX];
			int self = self_dir && realpath(dir, rd) && strcmp(rd, self_dir) == 0;
			if (!self && (size_t)snprintf(out, len, "%s/%s", dir, name) < len && access(out, X_OK) == 0) {
				struct stat sb;
				if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
					return 0;
			}
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

/* Append s escaped to buf; returns the new length (capped). */
static size_t put_escaped(char *buf, size_t used, size_t cap, const char *s)
{
	for (; *s && used + 3 < cap; s++) {
		if (*s == '\\' || *s == '\t' || *s == '\n') {
			buf[used++] = '\\';
			buf[used++] = *s == '\\' ? '\\' : *s == '\t' ? 't' : 'n';
		} else {
			buf[used++] = *s;
		}
	}
	return used;
}

static void record(const char *log, int status, const char *tool, int argc, char **argv)
{
	size_t cap = 1 << 16;
	for (int i = 1; i < argc; i++)
		cap += 2 * strlen(argv[i]) + 2;
	char *buf = malloc(cap);
	if (!buf)
		return;
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, ".");
	size_t used = (size_t)snprintf(buf, cap, "%d\t", status);
	used = put_escaped(buf, used, cap, tool);
	buf[used++] = '\t';
	used = put_escaped(buf, used, cap, cwd);
	for (int i = 1; i < argc; i++) {
		buf[used++] = '\t';
		used = put_escaped(buf, used, cap, argv[i]);
	}
	buf[used++] = '\n';
	int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		flock(fd, LOCK_EX); /* parallel builds: one whole line at a time */
		ssize_t w = write(fd, buf, used);
		(void)w;
		close(fd);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	const char *tool = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *log = getenv("PQPROF_CCWRAP_LOG");
	char real[PATH_MAX];
	/* pqprof names the wrapper directory: the build may reach us through any path or link. */
	const char *own = getenv("PQPROF_CCWRAP_DIR");
	if (find_real(tool, own && *own ? own : NULL, real, sizeof real) < 0) {
		fprintf(stderr, "pqprof-ccwrap: %s: no such tool in PATH\n", tool);
		return 127;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("pqprof-ccwrap: fork");
		return 126;
	}
	if (pid == 0) {
		argv[0] = real;
		execve(real, argv, environ);
		fprintf(stderr, "pqprof-ccwrap: cannot run %s: %s\n", real, strerror(errno));
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 126;
	int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (log && *log)
		record(log, status, tool, argc, argv);
	if (WIFSIGNALED(st)) {
		signal(WTERMSIG(st), SIG_DFL);
		raise(WTERMSIG(st));
	}
	return status;
}
