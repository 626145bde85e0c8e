/* contain: namespaces, scratch directory and uid for untrusted jobs; see contain.h. */
#include "config.h"
#include "core/contain.h"
#include "core/atomic_file.h"
#include "core/interrupt.h"
#include "core/path_name.h"
#include "core/sigsafe.h"
#include "core/text_buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* What the reaper sends once the job has ended. */
struct reaper_report {
	int status;   /* the job's wait status */
	int killed;   /* processes killed after it */
};

static struct contain_caps caps;
static int probed;

static int env_off(void)
{
	const char *e = getenv("PQPROF_CONTAIN");
	return e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0 || strcmp(e, "no") == 0);
}

/* clone(2) without a new stack: returns twice, like fork(). */
static pid_t clone_fork(int flags)
{
	return (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* In a fresh user namespace: map only our own uid and gid. */
static int map_self(uid_t uid, gid_t gid)
{
	char m[64];
	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_file("/proc/self/uid_map", m) < 0)
		return -1;
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_file("/proc/self/gid_map", m);
}

int contain_map_ids(uid_t uid, gid_t gid)
{
	return map_self(uid, gid);
}

int contain_off(void)
{
	return env_off();
}

static int ns_flags(void)
{
	int f = 0;
	if (caps.pid_ns)
		f |= CLONE_NEWPID;
	if (caps.net_ns)
		f |= CLONE_NEWNET;
	if (caps.user_ns)
		f |= CLONE_NEWUSER;
	return f;
}

/* Try the namespaces a job would get, in a child that exits at once. */
static int try_clone(int flags, uid_t uid, gid_t gid)
{
	pid_t p = clone_fork(flags);
	if (p < 0)
		return -1;
	if (p == 0) {
		if ((flags & CLONE_NEWUSER) && map_self(uid, gid) < 0)
			_exit(1);
		_exit(0);
	}
	int st = 0;
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void probe(void)
{
	if (probed)
		return;
	probed = 1;
	memset(&caps, 0, sizeof caps);
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (uid == 0) {
		struct passwd *pw = getpwnam("nobody");
		caps.uid = pw ? pw->pw_uid : 65534;
		caps.gid = pw ? pw->pw_gid : 65534;
		snprintf(caps.user, sizeof caps.user, "%s", pw ? "nobody" : "uid 65534");
	}
	if (env_off()) {
		snprintf(caps.missing, sizeof caps.missing, "turned off by PQPROF_CONTAIN=off");
	} else {
		int user = uid != 0;
		int base = (user ? CLONE_NEWUSER : 0);
		if (try_clone(base | CLONE_NEWPID, uid, gid) == 0) {
			caps.pid_ns = 1;
			caps.user_ns = user;
			caps.net_ns = try_clone(base | CLONE_NEWPID | CLONE_NEWNET, uid, gid) == 0;
			if (!caps.net_ns)
				snprintf(caps.missing, sizeof caps.missing, "no network namespace: %s", strerror(errno));
		} else {
			snprintf(caps.missing, sizeof caps.missing, "no PID namespace (%s%s): process groups only",
			         user ? "unprivileged, user namespaces not allowed: " : "", strerror(errno));
		}
		caps.drop_uid = uid == 0;
	}
	snprintf(caps.summary, sizeof caps.summary, "%s%s, scratch working directory, %s",
	         caps.pid_ns ? "PID namespace" : "process group",
	         caps.net_ns ? " + network namespace (no network)" : "",
	         caps.drop_uid ? "as the unprivileged user" : uid == 0 ? "as root" : "as the calling user");
	if (caps.drop_uid &&
	    text_appendf(caps.summary, sizeof caps.summary, " %s (uid %u)", caps.user, (unsigned)caps.uid) < 0)
		text_mark_cut(caps.summary, sizeof caps.summary);
}

const struct contain_caps *contain_caps(void)
{
	probe();
	return &caps;
}

const char *const contain_env_passed[] = {
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "GLIBC_TUNABLES", "LD_LIBRARY_PATH", NULL,
};
const char *const contain_env_fixed[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C", "LC_ALL=C", "TERM=dumb", NULL,
};

const char *contain_runner_line(void)
{
	return contain_fs_isolation()
	       ? "private /tmp, /var/tmp and /dev/shm, the rest read-only; the KAT replay blind to the vectors; "
	         "environment: PATH, HOME, TMPDIR, LANG, LC_ALL, TERM fixed (sanitizer options, LD_LIBRARY_PATH passed on)"
	       : "no private file system view (no mount namespace); environment: PATH, HOME, TMPDIR, LANG, LC_ALL, "
	         "TERM fixed (sanitizer options, LD_LIBRARY_PATH passed on)";
}

json_t *contain_to_json(void)
{
	probe();
	json_t *o = json_pack("{s:s, s:b, s:b, s:b, s:s}", "summary", caps.summary, "pid_namespace", caps.pid_ns,
	                      "network_namespace", caps.net_ns, "user_namespace", caps.user_ns, "fallback",
	                      caps.pid_ns ? "" : "process group (daemons that leave it are not contained)");
	if (!o)
		return NULL;
	json_t *env = json_array();
	for (int i = 0; env && contain_env_fixed[i]; i++)
		json_array_append_new(env, json_string(contain_env_fixed[i]));
	for (int i = 0; env && contain_env_passed[i]; i++) {
		char item[96];
		snprintf(item, sizeof item, "%s (passed on when set)", contain_env_passed[i]);
		json_array_append_new(env, json_string(item));
	}
	json_object_set_new(o, "runner_environment", env);
	json_object_set_new(o, "runner_view", json_string(contain_runner_line()));
	if (caps.drop_uid)
		json_object_set_new(o, "run_as", json_pack("{s:s, s:i, s:i}", "user", caps.user, "uid", (int)caps.uid,
		                                           "gid", (int)caps.gid));
	else
		json_object_set_new(o, "run_as", json_string(geteuid() == 0 ? "root" : "calling user"));
	if (caps.missing[0])
		json_object_set_new(o, "missing", json_string(caps.missing));
	return o;
}

int contain_check_input(const char *path, const char *what, pq_error *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s %s: cannot open", what, path);
	struct stat sb;
	int r = fstat(fd, &sb);
	close(fd);
	if (r != 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s %s", what, path);
	if (!S_ISREG(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s %s: not a regular file (%s)", what, path,
		               S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ? "a directory"
		               : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "a special file");
	return 0;
}

void contain_share_dir(const char *dir)
{
	probe();
	if (caps.drop_uid && chown(dir, caps.uid, caps.gid) != 0)
		chmod(dir, 0777);
}

static int access_by(const char *path, int mode, uid_t uid, gid_t gid);

/* Can the unprivileged uid read `path`?  Asked in a child that drops to it. */
static int readable_by(const char *path, uid_t uid, gid_t gid)
{
	return access_by(path, R_OK, uid, gid);
}

static int access_by(const char *path, int mode, uid_t uid, gid_t gid)
{
	pid_t p = fork();
	if (p < 0)
		return 0;
	if (p == 0) {
		if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
			_exit(1);
		_exit(access(path, mode) == 0 ? 0 : 1);
	}
	int st = 0;
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int contain_job_can_read(const char *path)
{
	probe();
	return !caps.drop_uid || readable_by(path, caps.uid, caps.gid);
}

/*
 * pid 1 of the job's namespace: wait for the job, then kill and reap
 * everything else, and report.  Uses only async-signal-safe calls (this
 * process was made by a raw clone).
 */
static void reaper(pid_t job, int report_fd)
{
	struct reaper_report rep = { 0, 0 };
	for (;;) {
		int st = 0;
		pid_t w = waitpid(-1, &st, 0);
		if (w == job) {
			rep.status = st;
			break;
		}
		if (w < 0 && errno != EINTR) {
			rep.status = 0x7f00; /* lost: exit 127 */
			break;
		}
	}
	if (kill(-1, SIGKILL) == 0) {
		for (;;) {
			pid_t w = waitpid(-1, NULL, 0);
			if (w > 0)
				rep.killed++;
			else if (errno != EINTR)
				break;
		}
	}
	ssize_t n = write(report_fd, &rep, sizeof rep);
	_exit(n == (ssize_t)sizeof rep ? 0 : 1);
}

/* The job's host pid: the reaper's only child. */
static pid_t child_of(pid_t parent)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)parent, (int)parent);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			long v = strtol(buf, NULL, 10);
			if (v > 0)
				return (pid_t)v;
		}
	}
	/* Kernels without the children file: look for the PPid. */
	DIR *d = opendir("/proc");
	pid_t found = 0;
	struct dirent *de;
	while (d && !found && (de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		if (*end || v <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", v);
		FILE *fp = fopen(path, "r");
		if (!fp)
			continue;
		int ppid = 0;
		if (fscanf(fp, "%*d (%*[^)]) %*c %d", &ppid) == 1 && ppid == parent)
			found = (pid_t)v;
		fclose(fp);
	}
	if (d)
		closedir(d);
	return found;
}

/* Write one input file into the scratch directory: root's, read-only to the job. */
static int put_input(int dirfd, const struct contain_file *f, pq_error *err)
{
	if (!f->name[0] || strchr(f->name, '/'))
		return pq_fail(err, PQ_EIO, "input file name '%s' is not a plain name", f->name);
	int fd = openat(dirfd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot write into the scratch directory", f->name);
	int r = write_all(fd, f->data, f->len);
	if (close(fd) != 0 || r < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot write into the scratch directory", f->name);
	return 0;
}

static int make_scratch(struct contained *c, const struct contain_opts *o, pq_error *err)
{
	snprintf(c->scratch, sizeof c->scratch, "%s/pqprof-job.XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(c->scratch)) {
		int e = errno;
		c->scratch[0] = '\0';
		errno = e;
		return pq_fail_errno(err, PQ_EIO, "cannot create a scratch directory");
	}
	interrupt_track_tmp(c->scratch, 1); /* an interrupted pqprof removes it too */
	c->scratch_fd = open(c->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->scratch_fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot open the scratch directory", c->scratch);
	for (int i = 0; o && i < o->nfiles; i++)
		if (put_input(c->scratch_fd, &o->files[i], err) < 0)
			return -PQ_EIO;
	if (o && o->private_scratch && !env_off()) {
		/* The job's /tmp, /var/tmp and /dev/shm: a directory in its scratch, gone with it. */
		if (mkdirat(c->scratch_fd, ".tmp", 01777) != 0 || fchmodat(c->scratch_fd, ".tmp", 01777, 0) != 0)
			return pq_fail_errno(err, PQ_EIO, "%s/.tmp: cannot make the job's private /tmp", c->scratch);
		snprintf(c->private_root, sizeof c->private_root, "%s", c->scratch);
	}
	if (c->as_user && chown(c->scratch, caps.uid, caps.gid) != 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot hand the scratch directory over", c->scratch);
	return 0;
}

int contain_collect(const struct contained *c, const char *name, size_t cap, char **data, size_t *len,
                    char *why, size_t why_len)
{
	*data = NULL;
	*len = 0;
	why[0] = '\0';
	if (c->scratch_fd < 0 || strchr(name, '/')) {
		snprintf(why, why_len, "no scratch directory to read %s from", name);
		return -1;
	}
	int fd = openat(c->scratch_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(why, why_len, "%s: a symbolic link: not read", name);
		else
			snprintf(why, why_len, "%s: %s", name, strerror(errno));
		return -1;
	}
	struct stat sb;
	uid_t owner = c->as_user ? caps.uid : geteuid();
	const char *bad = NULL;
	if (fstat(fd, &sb) != 0)
		bad = "cannot be examined";
	else if (!S_ISREG(sb.st_mode))
		bad = "not a regular file";
	else if (sb.st_nlink != 1)
		bad = "a hard link to another file";
	else if (sb.st_uid != owner && sb.st_uid != geteuid())
		bad = "not written by the job (another owner)";
	else if ((unsigned long long)sb.st_size > cap)
		bad = "larger than the limit";
	if (bad) {
		close(fd);
		snprintf(why, why_len, "%s: %s: not read", name, bad);
		return -1;
	}
	size_t want = (size_t)sb.st_size, got = 0;
	char *buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		snprintf(why, why_len, "%s: out of memory", name);
		return -PQ_ENOMEM;
	}
	while (got < want) {
		ssize_t n = read(fd, buf + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*data = buf;
	*len = got;
	return 0;
}

static void remove_scratch(struct contained *c)
{
	if (!c->scratch[0])
		return;
	if (c->scratch_fd >= 0)
		close(c->scratch_fd);
	c->scratch_fd = -1;
	remove_tree(c->scratch);
	interrupt_untrack_tmp(c->scratch);
	c->scratch[0] = '\0';
}

/* Let the job go on; 0 on success.  A job killed meanwhile must not take
 * pqprof down with SIGPIPE. */
static int release_job(int fd)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	ssize_t n = write(fd, "G", 1);
	sigaction(SIGPIPE, &old, NULL);
	return n == 1 ? 0 : -1;
}

pid_t contain_fork(struct contained *c, const struct contain_opts *o, pq_error *err)
{
	probe();
	memset(c, 0, sizeof *c);
	c->status_fd = -1;
	c->scratch_fd = -1;
	c->as_user = caps.drop_uid && !(o && o->no_user_change);
	struct stat rsb;
	if (c->as_user && o && o->readable && stat(o->readable, &rsb) != 0)
		c->as_user = 0; /* nothing there to run: let the job say "no such file" */
	else if (c->as_user && o && o->readable && !readable_by(o->readable, caps.uid, caps.gid))
		c->via_fd = 1;
	if (o && o->workdir)
		snprintf(c->workdir, sizeof c->workdir, "%s", o->workdir);
	if (o && o->private_root && !env_off())
		snprintf(c->private_root, sizeof c->private_root, "%s", o->private_root);
	for (int i = 0; o && i < o->nvisible && c->nvisible < CONTAIN_MAX_VISIBLE; i++)
		if (o->visible[i] && strlen(o->visible[i]) < PATH_MAX)
			snprintf(c->visible[c->nvisible++], PATH_MAX, "%s", o->visible[i]);
	for (int i = 0; o && i < o->nhidden && c->nhidden < CONTAIN_MAX_HIDDEN; i++) {
		char real[PATH_MAX];
		if (o->hidden[i] && realpath(o->hidden[i], real) && !path_is_system_dir(real))
			snprintf(c->hidden[c->nhidden++], PATH_MAX, "%s", real);
	}
	for (int i = 0; c->as_user && o && i < o->nsearch_dirs; i++) {
		struct stat sb;
		if (stat(o->search_dirs[i], &sb) == 0 && !access_by(o->search_dirs[i], X_OK, caps.uid, caps.gid)) {
			c->as_user = 0;
			snprintf(c->note, sizeof c->note, "ran with pqprof's uid: %s (the library's run path) is not searchable by %s",
			         o->search_dirs[i], caps.user);
		}
	}
	if (make_scratch(c, o, err) < 0) {
		remove_scratch(c);
		return -PQ_EIO;
	}
	if (!caps.pid_ns) {
		pid_t p = fork();
		if (p == 0) {
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			return 0;
		}
		if (p < 0) {
			remove_scratch(c);
			return pq_fail_errno(err, PQ_EIO, "fork");
		}
		setpgid(p, p);
		c->pid = p;
		return p;
	}
	/* rp: the reaper says "ready", later its report; go: the job waits on it
	 * until pqprof has found the job's host pid (a job that exits at once,
	 * e.g. a failed exec, would otherwise be reaped before it is seen). */
	int rp[2], go[2];
	if (pipe2(rp, O_CLOEXEC) != 0) {
		remove_scratch(c);
		return pq_fail_errno(err, PQ_EIO, "pipe");
	}
	if (pipe2(go, O_CLOEXEC) != 0) {
		close(rp[0]);
		close(rp[1]);
		remove_scratch(c);
		return pq_fail_errno(err, PQ_EIO, "pipe");
	}
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t r = clone_fork(ns_flags());
	if (r < 0) {
		int e = errno;
		close(rp[0]);
		close(rp[1]);
		close(go[0]);
		close(go[1]);
		remove_scratch(c);
		errno = e;
		return pq_fail_errno(err, PQ_EIO, "clone (PID namespace)");
	}
	if (r == 0) {
		close(rp[0]);
		close(go[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "pqprof-reaper");
		/* pqprof's own handlers make no sense in here: back to the defaults. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (caps.user_ns && map_self(uid, gid) < 0)
			_exit(126);
		pid_t job = fork();
		if (job == 0) {
			close(rp[1]);
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			char g = 0;
			ssize_t n;
			while ((n = read(go[0], &g, 1)) < 0 && errno == EINTR)
				;
			if (n != 1 || g != 'G')
				_exit(126);
			close(go[0]);
			return 0;
		}
		close(go[0]);
		if (job < 0)
			_exit(126);
		char ready = 'R';
		if (write(rp[1], &ready, 1) != 1)
			_exit(126);
		reaper(job, rp[1]);
	}
	close(rp[1]);
	close(go[0]);
	c->reaper = r;
	c->status_fd = rp[0];
	char ready = 0;
	const char *why = NULL;
	struct pollfd pf = { .fd = rp[0], .events = POLLIN };
	int pr;
	while ((pr = poll(&pf, 1, 30000)) < 0 && errno == EINTR)
		;
	ssize_t got;
	while (pr == 1 && (got = read(rp[0], &ready, 1)) < 0 && errno == EINTR)
		;
	if (pr != 1)
		why = pr == 0 ? "no word from it in 30 s" : "poll failed";
	else if (got != 1 || ready != 'R')
		why = "it exited before its job was made";
	else if (!(c->pid = child_of(r)))
		why = "its job's pid was not found";
	else if (release_job(go[1]) < 0)
		why = "its job was gone before it could start";
	if (why) {
		close(go[1]);
		kill(r, SIGKILL);
		waitpid(r, NULL, 0);
		close(rp[0]);
		remove_scratch(c);
		return pq_fail(err, PQ_EIO, "the contained process did not start: %s", why);
	}
	close(go[1]);
	return c->pid;
}

const char *contain_job_path(const struct contained *c, const char *path, char *buf, size_t len)
{
	if (!c->via_fd)
		return path;
	int fd0 = open_regular(path);
	if (fd0 >= 0)
		fcntl(fd0, F_SETFD, 0); /* the job opens it after exec */
	/* Above the numbers a runner gives meaning to (3 and 4). */
	int fd = fd0 >= 0 ? fcntl(fd0, F_DUPFD, 100) : -1;
	if (fd0 >= 0)
		close(fd0);
	if (fd < 0)
		return path;
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return buf;
}

/* The per-mount flags of a mountinfo options field that a read-only remount must keep. */
static unsigned long kept_mount_flags(const char *opts)
{
	static const struct { const char *name; unsigned long flag; } known[] = {
		{ "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
		{ "noatime", MS_NOATIME }, { "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
	};
	unsigned long f = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", opts);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			if (strcmp(t, known[i].name) == 0)
				f |= known[i].flag;
	return f;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}


/*
 * In the job, still privileged in its namespaces: a mount namespace where
 * `root` (bound at its own path) and the private temporary directory
 * (bound on /tmp, /var/tmp and /dev/shm) are the only writable places.
 */
static int isolate_fs(const char *root, const char (*visible)[PATH_MAX], int nvisible,
                      const char (*hidden)[PATH_MAX], int nhidden)
{
	char tmp[PATH_MAX + 8], fdpath[64];
	static const char *const tmps[] = { "/tmp", "/var/tmp", "/dev/shm" };
	snprintf(tmp, sizeof tmp, "%s/.tmp", root);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int tmpfd = open(tmp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || tmpfd < 0)
		return -1;
	/* What must stay visible under the temporary directories, opened before they are replaced. */
	int visfd[CONTAIN_MAX_VISIBLE], visdir[CONTAIN_MAX_VISIBLE];
	for (int i = 0; i < nvisible; i++) {
		int under = 0;
		struct stat vsb;
		for (size_t t = 0; t < sizeof tmps / sizeof tmps[0]; t++)
			under |= path_is_below(visible[i], tmps[t]) && strcmp(visible[i], tmps[t]) != 0;
		for (int h = 0; h < nhidden; h++)
			under |= path_is_below(visible[i], hidden[h]);
		visfd[i] = under ? open(visible[i], O_PATH | O_CLOEXEC) : -1;
		visdir[i] = visfd[i] >= 0 && fstat(visfd[i], &vsb) == 0 && S_ISDIR(vsb.st_mode);
	}
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", tmpfd);
	for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++) {
		struct stat sb;
		if (stat(tmps[i], &sb) == 0 && S_ISDIR(sb.st_mode) && mount(fdpath, tmps[i], NULL, MS_BIND, NULL) != 0)
			return -1;
	}
	/* Hidden directories: an empty tmpfs over each (made read-only with the rest below). */
	for (int h = 0; h < nhidden; h++) {
		struct stat hsb;
		if (stat(hidden[h], &hsb) == 0 && S_ISDIR(hsb.st_mode) &&
		    mount("pqprof-hidden", hidden[h], "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0)
			return -1;
	}
	for (int i = 0; i < nvisible; i++) {
		if (visfd[i] < 0)
			continue;
		/* A directory is made, a file is made empty, then the original is bound over it. */
		snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", visfd[i]);
		char parent[PATH_MAX];
		snprintf(parent, sizeof parent, "%s", visible[i]);
		char *slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		int made = visdir[i] ? make_dirs(visible[i], NULL) : make_dirs(parent, NULL);
		if (made == 0 && !visdir[i]) {
			int f = open(visible[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			made = f >= 0 ? close(f) : -1;
		}
		if (made != 0 || mount(fdpath, visible[i], NULL, MS_BIND, NULL) != 0)
			return -1;
		close(visfd[i]);
	}
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", rootfd);
	if (make_dirs(root, NULL) != 0 || mount(fdpath, root, NULL, MS_BIND, NULL) != 0)
		return -1;
	close(rootfd);
	close(tmpfd);
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	if (!mi)
		return -1;
	char line[4096];
	int root_ro = 0;
	while (fgets(line, sizeof line, mi)) {
		char mp[PATH_MAX], opts[256];
		if (sscanf(line, "%*s %*s %*s %*s %4095s %255s", mp, opts) != 2)
			continue;
		unescape_octal(mp);
		int keep_rw = strcmp(mp, root) == 0 || path_is_below(mp, "/proc") || path_is_below(mp, "/sys") ||
		              (path_is_below(mp, "/dev") && strcmp(mp, "/dev/shm") != 0);
		for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++)
			keep_rw |= strcmp(mp, tmps[i]) == 0;
		if (keep_rw)
			continue;
		int r = mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_mount_flags(opts), NULL);
		if (strcmp(mp, "/") == 0)
			root_ro = r == 0;
	}
	fclose(mi);
	return root_ro ? 0 : -1;
}

int contain_fs_isolation(void)
{
	static int known = -1;
	if (known >= 0)
		return known;
	probe();
	if (env_off())
		return known = 0;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t p = clone_fork(caps.user_ns ? CLONE_NEWUSER : 0);
	if (p == 0) {
		if (caps.user_ns && map_self(uid, gid) < 0)
			_exit(1);
		_exit(unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 ? 0 : 1);
	}
	int st = 0;
	while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	return known = p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int contain_enter(const struct contained *c)
{
	if (c->private_root[0] && isolate_fs(c->private_root, c->visible, c->nvisible, c->hidden, c->nhidden) < 0)
		fprintf(stderr, "pqprof: the private file system view could not be made: %s\n", strerror(errno));
	const char *wd = c->workdir[0] ? c->workdir : c->scratch;
	if (wd[0] && chdir(wd) != 0)
		return -1;
	if (c->as_user) {
		if (setgroups(0, NULL) != 0 || setgid(caps.gid) != 0 || setuid(caps.uid) != 0)
			return -1;
		if (setuid(0) == 0)
			return -1; /* the drop did not hold */
	}
	return 0;
}

void contain_exec(const struct contained *c, const char *path, char *const argv[])
{
	contain_exec_limited(c, path, argv, NULL);
}

void contain_exec_limited(const struct contained *c, const char *path, char *const argv[],
                          const struct contain_limit *limits)
{
	int fd = strchr(path, '/') ? open(path, O_PATH | O_CLOEXEC) : -1;
	if (contain_enter(c) < 0) {
		errno = EPERM;
		return;
	}
	for (int i = 0; limits && limits[i].resource >= 0; i++) {
		struct rlimit rl = { (rlim_t)limits[i].cur, (rlim_t)limits[i].max };
		setrlimit(limits[i].resource, &rl);
	}
	if (!strchr(path, '/')) {
		execvp(path, argv); /* a compiler found through PATH */
		return;
	}
	if (fd >= 0) {
		syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
		close(fd);
	}
	execv(path, argv);
}

pid_t contain_wait(struct contained *c, int *status, int flags)
{
	if (c->finished) {
		*status = c->wait_status;
		return c->pid;
	}
	pid_t waitee = c->reaper ? c->reaper : c->pid;
	int st = 0;
	pid_t w = waitpid(waitee, &st, flags);
	if (w <= 0)
		return w;
	if (c->reaper) {
		struct reaper_report rep;
		if (read(c->status_fd, &rep, sizeof rep) == (ssize_t)sizeof rep) {
			st = rep.status;
			c->left = rep.killed;
		}
		close(c->status_fd);
		c->status_fd = -1;
	}
	c->finished = 1;
	c->wait_status = st;
	*status = st;
	return c->pid;
}

int contain_finish(struct contained *c)
{
	int left = c->left;
	if (!c->reaper && c->pid > 0 && kill(-c->pid, 0) == 0) {
		kill(-c->pid, SIGKILL);
		left = left ? left : 1;
	}
	if (c->reaper && !c->finished) {
		kill(c->reaper, SIGKILL);
		waitpid(c->reaper, NULL, 0);
	}
	if (c->status_fd >= 0)
		close(c->status_fd);
	c->status_fd = -1;
	remove_scratch(c);
	return left;
}
