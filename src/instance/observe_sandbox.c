/*
 * observe_sandbox: where an observed build runs and how it is contained.
 * The tree is copied to a scratch directory (kept until pqprof exits),
 * bin/ holds the compiler wrapper under every tool name a build may call,
 * and each step runs in the scratch copy with the wrapper first in PATH,
 * contained like scheme code.  Afterwards, what the build tried outside
 * its copy is read from its private /tmp and its logs.  Which steps run
 * is observe_steps.c's business, not this file's.
 */
#include "config.h"
#include "instance/observe_int.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "core/paths.h"
#include "instance/tool_run.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the scratch copy ---- */

/* The names the wrapper is installed under. */
static const char *const wrapped_tools[] = {
	"cc", "gcc", "clang", "c++", "g++", "clang++", "ar", "gcc-ar", "gcc-ranlib", "as", "ld", "ranlib", NULL,
};

/* Copy the tree (files and directories, links followed); version-control directories stay behind.
 * Files keep their modes, with write permission for their owner added. */
static int copy_tree(const char *from, const char *to, uid_t uid, gid_t gid, int give, pq_error *err)
{
	if (mkdir(to, 0755) != 0 && errno != EEXIST)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot create", to);
	if (give && lchown(to, uid, gid) != 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot hand over", to);
	DIR *d = opendir(from);
	if (!d)
		return pq_fail_errno(err, PQ_EINPUT, "%s", from);
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || strcmp(de->d_name, ".git") == 0 ||
		    strcmp(de->d_name, ".svn") == 0 || strcmp(de->d_name, ".hg") == 0)
			continue;
		char a[PATH_MAX], b[PATH_MAX];
		if (path_fmt(a, sizeof a, err, "%s/%s", from, de->d_name) < 0 ||
		    path_fmt(b, sizeof b, err, "%s/%s", to, de->d_name) < 0) {
			r = -PQ_EINPUT;
			break;
		}
		/* Links are followed: their targets may sit elsewhere in the source root, out of the copy's reach. */
		struct stat sb;
		if (stat(a, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			r = copy_tree(a, b, uid, gid, give, err);
		} else if (S_ISREG(sb.st_mode)) {
			/* The copy is the build's own: writable by its owner even where the source is
			 * read-only (an unpacked release, make distcheck's tree, a read-only mount). */
			r = copy_file_mode(a, b, sb.st_mode | S_IWUSR, err);
			if (r == 0 && give && lchown(b, uid, gid) != 0)
				r = pq_fail_errno(err, PQ_EIO, "%s: cannot hand over", b);
		}
		/* FIFOs, devices and sockets: the tree scan has refused them already. */
	}
	closedir(d);
	return r;
}

/* The scratch directories of this process's observations, removed when it exits. */
static char **roots;
static int nroots;
static size_t roots_cap;

static void remove_roots(void)
{
	for (int i = 0; i < nroots; i++) {
		remove_tree(roots[i]);
		interrupt_untrack_tmp(roots[i]);
	}
	nroots = 0;
}

static int keep_root(const char *root)
{
	static int registered;
	if (!registered) {
		atexit(remove_roots);
		registered = 1;
	}
	if (pq_grow(&roots, &roots_cap, (size_t)nroots + 1, sizeof *roots, 8) < 0 || !(roots[nroots] = strdup(root)))
		return -1;
	nroots++;
	interrupt_track_tmp(root, 1);
	return 0;
}

/* gcc-12, g++-12, gcc-ar-12, gcc-ranlib-12, clang-14, x86_64-linux-gnu-gcc(-12): names a build may call tools by. */
static int tool_alias(const char *name)
{
	static const char *const bases[] = { "gcc-ranlib", "gcc-ar", "gcc", "g++", "clang++", "clang", NULL };
	const char *p = name;
	if (strncmp(p, "x86_64-linux-gnu-", 17) == 0 || strncmp(p, "aarch64-linux-gnu-", 18) == 0)
		p = strchr(p, '-') + 1, p = strchr(p, '-') + 1, p = strchr(p, '-') + 1;
	for (int i = 0; bases[i]; i++) {
		size_t n = strlen(bases[i]);
		if (strncmp(p, bases[i], n) != 0)
			continue;
		const char *v = p + n;
		if (*v == '\0')
			return p != name; /* the plain names are installed already */
		if (*v != '-' || !isdigit((unsigned char)v[1]))
			continue;
		for (v++; *v; v++)
			if (!isdigit((unsigned char)*v) && *v != '.')
				break;
		if (!*v)
			return 1;
	}
	return 0;
}

static int wrapper_path(char *out, size_t len, pq_error *err)
{
	const char *env = getenv("PQPROF_CCWRAP");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK) == 0 ? 0 : pq_fail(err, PQ_ERUNNER, "PQPROF_CCWRAP=%s: not an executable", env);
	}
	char runner[PATH_MAX];
	int r = paths_runner(runner, sizeof runner, err);
	if (r < 0)
		return r;
	char *slash = strrchr(runner, '/');
	if (slash)
		*slash = '\0';
	snprintf(out, len, "%s/pqprof-ccwrap", slash ? runner : ".");
	if (access(out, X_OK) != 0)
		return pq_fail(err, PQ_ERUNNER, "pqprof's compiler wrapper %s is missing (it is installed beside pqprof-runner)", out);
	return 0;
}

static int make_env(struct obs *ob)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX * 4];
	static char *env[16];
	int n = 0;
	/* One environment at a time: the previous observation's goes. */
	for (int i = 0; env[i]; i++) {
		free(env[i]);
		env[i] = NULL;
	}
	snprintf(buf, sizeof buf, "PATH=%s:%s", ob->bin, path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	env[n++] = strdup(buf);
	snprintf(buf, sizeof buf, "PQPROF_CCWRAP_LOG=%s", ob->wraplog);
	env[n++] = strdup(buf);
	snprintf(buf, sizeof buf, "PQPROF_CCWRAP_DIR=%s", ob->bin);
	env[n++] = strdup(buf);
	env[n++] = strdup("HOME=/tmp");
	env[n++] = strdup("TMPDIR=/tmp");
	env[n++] = strdup("LC_ALL=C");
	env[n++] = strdup("TERM=dumb");
	env[n] = NULL;
	for (int i = 0; i < n; i++)
		if (!env[i])
			return -1;
	ob->env = env;
	return 0;
}

int obs_setup(struct obs *ob, const char *tree, pq_error *err)
{
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(ob->root, sizeof ob->root, "%s/pqprof-observe.XXXXXX", tmpdir);
	if (!mkdtemp(ob->root))
		return pq_fail_errno(err, PQ_EIO, "cannot create a scratch directory for the tree's build");
	if (keep_root(ob->root) < 0) {
		rmdir(ob->root);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	/* Physical paths from here on: the build's tools see them so (getcwd), however TMPDIR was reached. */
	char phys[PATH_MAX];
	if (realpath(ob->root, phys))
		str_copy(ob->root, sizeof ob->root, phys);
	chmod(ob->root, 0755);
	const struct contain_caps *caps = contain_caps();
	snprintf(ob->copy, sizeof ob->copy, "%s/tree", ob->root);
	snprintf(ob->bin, sizeof ob->bin, "%s/bin", ob->root);
	snprintf(ob->wraplog, sizeof ob->wraplog, "%s/wrapper.log", ob->root);
	char tmp[PATH_MAX + 8], wrapper[PATH_MAX], w2[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s/.tmp", ob->root);
	int r = copy_tree(tree, ob->copy, caps->uid, caps->gid, caps->drop_uid, err);
	if (r < 0)
		return r;
	if (mkdir(tmp, 0700) != 0 || chmod(tmp, 01777) != 0 || mkdir(ob->bin, 0755) != 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot prepare", ob->root);
	if ((r = wrapper_path(wrapper, sizeof wrapper, err)) < 0)
		return r;
	snprintf(w2, sizeof w2, "%s/pqprof-ccwrap", ob->bin);
	if ((r = copy_file_mode(wrapper, w2, 0755, err)) < 0)
		return r;
	for (int i = 0; wrapped_tools[i]; i++) {
		char l[PATH_MAX + 32];
		snprintf(l, sizeof l, "%s/%s", ob->bin, wrapped_tools[i]);
		if (symlink("pqprof-ccwrap", l) != 0)
			return pq_fail_errno(err, PQ_EIO, "%s", l);
	}
	/*
	 * Versioned and target-prefixed names too (gcc-12, gcc-ar-12,
	 * x86_64-linux-gnu-gcc): CMake picks gcc-ar-12 for LTO archives, and
	 * Makefiles name compilers that way.
	 */
	const char *path = getenv("PATH");
	for (const char *d = path ? path : ""; *d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%.*s", (int)n, d);
		DIR *dd = n ? opendir(dir) : NULL;
		struct dirent *de;
		while (dd && (de = readdir(dd)))
			if (tool_alias(de->d_name)) {
				char l[PATH_MAX + 300];
				snprintf(l, sizeof l, "%s/%s", ob->bin, de->d_name);
				if (symlink("pqprof-ccwrap", l) != 0 && errno != EEXIST)
					break;
			}
		if (dd)
			closedir(dd);
		d += n;
		if (*d == ':')
			d++;
	}
	/* the wrapper log: written by the build's uid */
	int fd = open(ob->wraplog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", ob->wraplog);
	fchmod(fd, 0666);
	close(fd);
	if (make_env(ob) < 0)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	return 0;
}

/* ---- running the build's steps ---- */

int obs_find_in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		if (n > 0 && (size_t)snprintf(out, len, "%.*s/%s", (int)n, path, name) < len && access(out, X_OK) == 0)
			return 0;
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

/* Run one step of the build contained; its output goes to <root>/<log>.  Returns its exit status (-1: did not run). */
int obs_run_step(struct obs *ob, struct argv_buf *av, const char *log, int *timed_out)
{
	double left = ob->deadline - mono_s();
	*timed_out = 0;
	if (av->oom) {
		obs_model_note_out_of_memory();
		return -1;
	}
	if (left < 1)
		left = 1;
	struct cc_limits lim = { .timeout_s = left, .as_limit = CC_DEFAULT_AS_LIMIT, .as_user = contain_caps()->drop_uid,
	                         .workdir = ob->copy, .private_root = ob->root, .env = (const char *const *)ob->env };
	const char *mem = getenv("PQPROF_CC_MEMORY_MB");
	if (mem && atoll(mem) > 0)
		lim.as_limit = (unsigned long long)atoll(mem) << 20;
	char logpath[PATH_MAX];
	snprintf(logpath, sizeof logpath, "%s/%s", ob->root, log);
	struct contained ct;
	pid_t pid = spawn_logged(&ct, av->v, logpath, &lim);
	if (pid < 0)
		return -1;
	int st = 0;
	int r = wait_limited(&ct, &lim, &st, timed_out);
	interrupt_untrack_pid(pid);
	contain_finish(&ct);
	if (r < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

void obs_push_tool_vars(struct obs *ob, struct argv_buf *av)
{
	av_pushf(av, "CC=%s/cc", ob->bin);
	av_pushf(av, "CXX=%s/c++", ob->bin);
	av_pushf(av, "AS=%s/as", ob->bin);
	av_pushf(av, "AR=%s/ar", ob->bin);
	av_pushf(av, "LD=%s/ld", ob->bin);
}

/* ---- what the build did outside its copy ---- */

/* The first line of a log that contains `what`, trimmed, into out. */
static int log_line_with(const char *log, const char *what, char *out, size_t len)
{
	char *text = NULL;
	if (read_whole_file(log, &text, NULL, 16u << 20, NULL) == -PQ_ENOMEM)
		obs_model_note_out_of_memory(); /* what the build did outside would go unsaid */
	if (!text)
		return 0;
	char *hit = strstr(text, what);
	int found = hit != NULL;
	if (found) {
		char *start = hit;
		while (start > text && start[-1] != '\n')
			start--;
		char *end = strchr(hit, '\n');
		int n = end ? (int)(end - start) : (int)strlen(start);
		snprintf(out, len, "%.*s", n > 200 ? 200 : n, start);
	}
	free(text);
	return found;
}

/* What the build did outside its copy: files in its private /tmp, refused writes, network attempts. */
void obs_check_outside(struct obs *ob)
{
	struct build_plan *p = ob->plan;
	char tmp[PATH_MAX + 8], names[300] = "";
	snprintf(tmp, sizeof tmp, "%s/.tmp", ob->root);
	DIR *d = opendir(tmp);
	int nt = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || strncmp(de->d_name, "cc", 2) == 0)
			continue; /* the compiler's own temporaries */
		char mine[PATH_MAX + 8];
		snprintf(mine, sizeof mine, "/tmp/%s", de->d_name);
		if (obs_is_below(ob->root, mine))
			continue; /* where pqprof bound the copy itself */
		if (nt++ < 5)
			text_add_note(names, sizeof names, "/tmp/%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (nt)
		text_add_note(p->outside, sizeof p->outside, "wrote %d entr%s to /tmp (%s), kept in its private /tmp and discarded",
		             nt, nt == 1 ? "y" : "ies", names);
	static const char *const logs[] = { "build.log", "cmake-configure.log", "meson-setup.log", NULL };
	for (int i = 0; logs[i]; i++) {
		char log[PATH_MAX], line[256];
		snprintf(log, sizeof log, "%s/%s", ob->root, logs[i]);
		if (log_line_with(log, "Read-only file system", line, sizeof line))
			text_add_note(p->outside, sizeof p->outside, "tried to write outside its copy and was refused (\"%s\")", line);
		static const char *const net[] = { "Network is unreachable", "Temporary failure in name resolution",
			                               "Could not resolve host", NULL };
		for (int k = 0; net[k]; k++)
			if (log_line_with(log, net[k], line, sizeof line)) {
				text_add_note(p->outside, sizeof p->outside, "tried to reach the network and could not (\"%s\")", line);
				break;
			}
	}
}
