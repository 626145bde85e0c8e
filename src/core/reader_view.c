/* reader_view: a child that sees only what it must read; see reader_view.h. */
#include "config.h"
#include "core/reader_view.h"
#include "core/contain.h"
#include "core/path_name.h"
#include "core/sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* LeakSanitizer's interface, in sanitizer builds only. */
void __lsan_do_leak_check(void) __attribute__((weak));

void reader_view_add(struct reader_view *v, const char *path, int writable)
{
	char real[PATH_MAX];
	if (!path || !*path || !realpath(path, real))
		return;
	for (int i = 0; i < v->n; i++)
		if (strcmp(v->path[i], real) == 0) {
			v->writable[i] |= writable;
			return;
		}
	if (v->n >= READER_VIEW_MAX) {
		v->dropped++;
		return;
	}
	snprintf(v->path[v->n], PATH_MAX, "%s", real);
	v->writable[v->n++] = writable;
}

void reader_view_add_dir_of(struct reader_view *v, const char *path, int writable)
{
	char dir[PATH_MAX];
	if (!path || !*path)
		return;
	if (!strchr(path, '/')) {
		reader_view_add(v, ".", writable);
		return;
	}
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	reader_view_add(v, dir, writable);
}

/* mkdir -p of rel (an absolute path) below the directory fd root; 0 or -1. */
static int make_below(int root, const char *abs, int last_is_file)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", abs + 1);
	char *p = buf;
	for (;;) {
		char *slash = strchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (mkdirat(root, buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*slash = '/';
		p = slash + 1;
	}
	if (!*buf)
		return 0;
	if (last_is_file) {
		int fd = openat(root, buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		return fd < 0 ? -1 : close(fd);
	}
	return mkdirat(root, buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Bind the file or folder open as fd at abs below the new root (mounted at top), read-only unless writable. */
static int bind_at(const char *top, int rootfd, int fd, const char *abs, int writable, int recursive)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0 || make_below(rootfd, abs, !S_ISDIR(sb.st_mode)) < 0)
		return -1;
	char from[64], to[PATH_MAX * 2];
	snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
	snprintf(to, sizeof to, "%s%s", top, abs);
	if (mount(from, to, NULL, MS_BIND | (recursive ? MS_REC : 0), NULL) != 0)
		return -1;
	if (!writable && mount(NULL, to, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
		return -1;
	return 0;
}

/* Keep only the capabilities that read and write files inside the view. */
static int drop_caps(void)
{
	const unsigned keep = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH) | (1u << CAP_FOWNER);
	for (int c = 0; c <= 63; c++)
		if (!(c < 32 && (keep & (1u << c))) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
			return -1;
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		unsigned m = i == 0 ? keep : 0;
		d[i].effective &= m;
		d[i].permitted &= m;
		d[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &h, d) != 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* In the child: build the new root on a tmpfs over `top` (an empty folder) and move into it.  0, or -1 with note set. */
static int enter(const struct reader_view *v, const char *top, char *note, size_t len)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	int flags = CLONE_NEWNS | CLONE_NEWNET | (uid != 0 ? CLONE_NEWUSER : 0);
	if (unshare(flags) != 0) {
		snprintf(note, len, "no namespace for the reader view (%s)", strerror(errno));
		return -1;
	}
	if (uid != 0 && contain_map_ids(uid, gid) < 0) {
		snprintf(note, len, "no user namespace mapping for the reader view (%s)", strerror(errno));
		return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(note, len, "the reader view could not be mounted (%s)", strerror(errno));
		return -1;
	}
	/* Everything the view holds is opened now, in the new namespace, before the tmpfs hides any of it. */
	static const char *const sys[] = { "/usr", "/dev/null" };
	int fds[READER_VIEW_MAX + 2], nf = 0;
	for (size_t i = 0; i < 2; i++)
		fds[nf++] = open(sys[i], O_PATH | O_CLOEXEC);
	for (int i = 0; i < v->n; i++)
		fds[nf++] = open(v->path[i], O_PATH | O_CLOEXEC);
	if (mount("pqprof-view", top, "tmpfs", MS_NOSUID, "size=1m,mode=0755") != 0) {
		snprintf(note, len, "the reader view could not be mounted (%s)", strerror(errno));
		return -1;
	}
	int rootfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int bad = rootfd < 0;
	for (size_t i = 0; !bad && i < 2; i++)
		bad = fds[i] >= 0 && bind_at(top, rootfd, fds[i], sys[i], i == 1, i == 0) < 0;
	const char *failed = bad ? "/usr" : NULL;
	for (int i = 0; !bad && i < v->n; i++) {
		/* Below /usr, or below another read-only path of the view: already in sight. */
		int covered = path_is_below(v->path[i], "/usr");
		for (int k = 0; !covered && k < v->n; k++)
			covered = k != i && !v->writable[k] && !v->writable[i] && strcmp(v->path[k], v->path[i]) != 0 &&
			          path_is_below(v->path[i], v->path[k]);
		if (!covered && fds[2 + i] >= 0 && bind_at(top, rootfd, fds[2 + i], v->path[i], v->writable[i], 0) < 0) {
			bad = 1;
			failed = v->path[i];
		}
	}
	/* /bin, /lib, /lib64 and /sbin as the host has them: links into /usr, or the folders themselves. */
	static const char *const merged[] = { "/bin", "/lib", "/lib64", "/sbin" };
	for (size_t i = 0; !bad && i < sizeof merged / sizeof merged[0]; i++) {
		char target[PATH_MAX];
		ssize_t n = readlink(merged[i], target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			bad = symlinkat(target, rootfd, merged[i] + 1) != 0 && errno != EEXIST;
		} else {
			int fd = open(merged[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
			bad = fd >= 0 && bind_at(top, rootfd, fd, merged[i], 0, 1) < 0;
			if (fd >= 0)
				close(fd);
		}
	}
	for (int i = 0; i < nf; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* The working directory, as an empty folder unless the view holds it: relative names still resolve. */
	if (!bad && cwd[0] == '/' && cwd[1])
		make_below(rootfd, cwd, 0);
	char bind_step[PATH_MAX + 16];
	snprintf(bind_step, sizeof bind_step, "binding %s", failed ? failed : "a system folder");
	const char *step = bad ? bind_step : NULL;
	if (!step && (mkdirat(rootfd, ".old", 0700) != 0 || fchdir(rootfd) != 0))
		step = "preparing its root";
	if (!step && syscall(SYS_pivot_root, ".", ".old") != 0)
		step = "pivot_root";
	if (!step && (chroot(".") != 0 || chdir("/") != 0 || umount2("/.old", MNT_DETACH) != 0 || rmdir("/.old") != 0))
		step = "leaving the old root";
	if (step) {
		snprintf(note, len, "the reader view could not be entered: %s (%s)", step, strerror(errno));
		if (rootfd >= 0)
			close(rootfd);
		return -2; /* half made: the child cannot go on */
	}
	close(rootfd);
	/* The new root itself is read-only too: only the writable binds take writes. */
	mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL);
	if (cwd[0] && chdir(cwd) != 0 && chdir("/") != 0)
		return -2;
	if (drop_caps() != 0) {
		snprintf(note, len, "the reader view could not drop its capabilities (%s)", strerror(errno));
		return -2;
	}
	return 0;
}

/* Read fd to its end into a growing buffer; 0, or -1 out of memory. */
static int drain(int fd, char **buf, size_t *len)
{
	size_t cap = 0;
	*buf = NULL;
	*len = 0;
	for (;;) {
		if (*len + 65536 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 131072;
			char *nb = realloc(*buf, nc);
			if (!nb)
				return -1;
			*buf = nb;
			cap = nc;
		}
		ssize_t n = read(fd, *buf + *len, cap - 1 - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	return 0;
}

/*
 * reader_view_split; with drain_fd >= 0 the parent closes its copy of the
 * write end (write_fd) and reads drain_fd to its end (into *out) before it
 * waits, so a child with much to say never blocks on a full pipe.
 */
static int split(const struct reader_view *v, int *status, char *note, size_t note_len, int drain_fd, int write_fd,
                 char **out, size_t *out_len)
{
	note[0] = '\0';
	*status = 0;
	if (contain_off())
		return -1;
	if (v->dropped) {
		snprintf(note, note_len, "more than %d paths for the reader view: read without it", READER_VIEW_MAX);
		return -1;
	}
	char top[64] = "/tmp/pqprof-view.XXXXXX";
	if (!mkdtemp(top)) {
		snprintf(note, note_len, "no folder for the reader view (%s)", strerror(errno));
		return -1;
	}
	fflush(NULL);
	/* The child reports whether the view holds: "V" (in it), "N" + why (not made, going on without). */
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(note, note_len, "no pipe for the reader view (%s)", strerror(errno));
		rmdir(top);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		snprintf(note, note_len, "no child for the reader view (%s)", strerror(errno));
		rmdir(top);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* LeakSanitizer's check at exit reads /proc, which the view does not hold: it runs now instead. */
		if (__lsan_do_leak_check)
			__lsan_do_leak_check();
		int r = enter(v, top, note, note_len);
		if (r == -2) {
			fprintf(stderr, "pqprof: %s\n", note);
			_exit(126);
		}
		ssize_t said = write(p[1], r == 0 ? "V" : "N", 1);
		close(p[1]);
		(void)said; /* the parent reads a missing word as "not made" */
		return 0;
	}
	close(p[1]);
	char c = 0;
	ssize_t got;
	while ((got = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	if (write_fd >= 0)
		close(write_fd);
	int oom = drain_fd >= 0 && drain(drain_fd, out, out_len) < 0;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	rmdir(top);
	if (oom)
		snprintf(note, note_len, "out of memory reading the reader view's result");
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (got == 1 && c == 'N')
		snprintf(note, note_len, "the reader view could not be made: read without it");
	else if (got != 1 && *status == 126)
		snprintf(note, note_len, "the reader view failed half made: nothing was read");
	return 1;
}

int reader_view_split(const struct reader_view *v, int *status, char *note, size_t note_len)
{
	return split(v, status, note, note_len, -1, -1, NULL, NULL);
}

int reader_view_call(const struct reader_view *v, reader_view_fn fn, void *ctx, json_t **out, char *note,
                     size_t note_len, pq_error *err)
{
	*out = NULL;
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return pq_fail_errno(err, PQ_EIO, "pipe");
	int status = 0;
	char *buf = NULL;
	size_t len = 0;
	int how = split(v, &status, note, note_len, p[0], p[1], &buf, &len);
	if (how != 1) {
		/* In the view (0) or with none possible (-1): fn here. */
		pq_error e = { 0 };
		json_t *res = fn(ctx, &e);
		if (how < 0) {
			close(p[0]);
			close(p[1]);
			*out = res;
			if (!res)
				*err = e;
			return res ? 0 : -(e.code ? e.code : PQ_EIO);
		}
		close(p[0]);
		json_t *msg = res ? json_pack("{s:o}", "result", res)
		                  : json_pack("{s:s, s:i}", "error", e.msg, "code", e.code ? e.code : PQ_EIO);
		char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
		int ok = text && write_all(p[1], text, strlen(text)) == 0;
		fflush(NULL);
		_exit(ok ? 0 : PQ_EIO);
	}
	close(p[0]); /* p[1] was closed by split */
	json_t *msg = buf ? json_loadb(buf, len, 0, NULL) : NULL;
	free(buf);
	json_t *res = json_object_get(msg, "result");
	if (res) {
		*out = json_incref(res);
		json_decref(msg);
		return 0;
	}
	int code = (int)json_integer_value(json_object_get(msg, "code"));
	const char *why = json_string_value(json_object_get(msg, "error"));
	pq_fail(err, code > 0 ? code : PQ_EIO, "%s", why ? why : "the reader view ended without a result");
	if (!why && note[0])
		pq_error_prefix(err, "%s: ", note);
	json_decref(msg);
	(void)status;
	return -(code > 0 ? code : PQ_EIO);
}
