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
 *
 * With $PQPROF_CCWRAP_RECORD_ONLY=1 (a build that cannot finish for real,
 * observed again with make -k: observe.h) it runs nothing.  It records the
 * command with status 0 and creates the outputs the command would have
 * made where they do not exist yet: an empty object or archive, an empty
 * dependency file naming its target, and for a link a program that exits
 * 0, so that recipes which run what they link go on.
 */
#include "config.h"
#include "core/path_name.h"

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

/*
 * The real tool: the first executable `name` in PATH outside our own
 * directory that is not this program itself.  Both are compared
 * physically (a TMPDIR reached through a symbolic link names the wrapper's
 * directory by another path), so the wrapper never runs itself.
 */
static int find_real(const char *name, const char *self_dir, char *out, size_t len)
{
	char self_real[PATH_MAX];
	if (self_dir && realpath(self_dir, self_real))
		self_dir = self_real;
	struct stat me;
	int know_me = stat("/proc/self/exe", &me) == 0;
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
				if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode) &&
				    !(know_me && sb.st_dev == me.st_dev && sb.st_ino == me.st_ino))
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

/* Create path (mode) holding text, unless something is already there. */
static void stand_in(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return;
	size_t n = strlen(text);
	ssize_t w = n ? write(fd, text, n) : 0;
	(void)w;
	close(fd);
}

static int has_suffix(const char *s, const char *const *sfx)
{
	const char *dot = strrchr(s, '.');
	for (int i = 0; dot && sfx[i]; i++)
		if (strcmp(dot, sfx[i]) == 0)
			return 1;
	return 0;
}

/* The outputs of one command, made as stand-ins (record-only mode). */
static void stand_in_outputs(const char *tool, int argc, char **argv)
{
	static const char *const srcs[] = { ".c", ".cc", ".cpp", ".cxx", ".C", ".s", ".S", ".sx", NULL };
	if (strstr(tool, "ranlib") || strcmp(tool, "strip") == 0)
		return;
	if (strcmp(tool, "ar") == 0 || strstr(tool, "-ar")) {
		/* ar OPS ARCHIVE MEMBER...: the first word after the operation letters */
		for (int i = 2; i < argc; i++)
			if (argv[i][0] != '-') {
				stand_in(argv[i], "!<arch>\n", 0644);
				return;
			}
		return;
	}
	int compile_only = 0, preprocess = 0;
	const char *out = NULL, *depfile = NULL;
	int md = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-c") == 0 || strcmp(a, "-S") == 0)
			compile_only = 1;
		else if (strcmp(a, "-E") == 0 || strcmp(a, "-M") == 0 || strcmp(a, "-MM") == 0)
			preprocess = 1;
		else if (strcmp(a, "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strncmp(a, "-o", 2) == 0 && a[2])
			out = a + 2;
		else if (strcmp(a, "-MF") == 0 && i + 1 < argc)
			depfile = argv[++i];
		else if (strcmp(a, "-MD") == 0 || strcmp(a, "-MMD") == 0)
			md = 1;
	}
	if (preprocess && !out)
		return;
	int is_ld = strcmp(tool, "ld") == 0 || strncmp(tool, "ld.", 3) == 0;
	int is_as = strcmp(tool, "as") == 0;
	char made[PATH_MAX] = "";
	if (out) {
		snprintf(made, sizeof made, "%s", out);
		stand_in(out, "", 0644);
		if (!compile_only && !preprocess && !is_as) {
			/* a linked program: runnable, and it succeeds */
			int fd = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC);
			struct stat sb;
			if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size == 0) {
				static const char prog[] = "#!/bin/sh\n# stand-in written by pqprof-ccwrap (record-only)\nexit 0\n";
				ssize_t w = write(fd, prog, sizeof prog - 1);
				(void)w;
				fchmod(fd, 0755);
			}
			if (fd >= 0)
				close(fd);
		}
	} else if (compile_only) {
		/* -c without -o: SRC.o for each source, in the working directory */
		for (int i = 1; i < argc; i++) {
			if (argv[i][0] == '-' || !has_suffix(argv[i], srcs))
				continue;
			const char *base = path_base(argv[i]);
			char o[PATH_MAX];
			snprintf(o, sizeof o, "%.*s.o", (int)(strrchr(base, '.') - base), base);
			stand_in(o, "", 0644);
			snprintf(made, sizeof made, "%s", o);
		}
	} else if (!preprocess && (is_ld || !is_as)) {
		stand_in("a.out", "#!/bin/sh\nexit 0\n", 0755);
	}
	if (depfile || (md && made[0])) {
		char d[PATH_MAX], text[PATH_MAX + 8];
		if (depfile)
			snprintf(d, sizeof d, "%s", depfile);
		else
			snprintf(d, sizeof d, "%.*s.d", (int)(strrchr(made, '.') ? strrchr(made, '.') - made : (long)strlen(made)), made);
		snprintf(text, sizeof text, "%s:\n", made[0] ? made : "out");
		stand_in(d, text, 0644);
	}
}

int main(int argc, char **argv)
{
	const char *tool = path_base(argv[0]);
	const char *log = getenv("PQPROF_CCWRAP_LOG");
	char real[PATH_MAX];
	/* pqprof names the wrapper directory: the build may reach us through any path or link. */
	const char *own = getenv("PQPROF_CCWRAP_DIR");
	const char *ro = getenv("PQPROF_CCWRAP_RECORD_ONLY");
	if (ro && strcmp(ro, "1") == 0) {
		stand_in_outputs(tool, argc, argv);
		if (log && *log)
			record(log, 0, tool, argc, argv);
		return 0;
	}
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
