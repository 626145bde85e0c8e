/* child: spawn and supervise pqprof-runner; see child.h. */
#include "config.h"
#include "supervise/child.h"
#include "profile/uprobe_count.h"
#include "core/clock.h"
#include "core/fixed_str.h"
#include "core/grow.h"
#include "runner/runner.h"
#include "core/contain.h"
#include "core/paths.h"
#include "core/interrupt.h"
#include "core/text_buf.h"
#include "instance/runpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define RUNNER_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNER_HAS_ASAN 1
#endif
#endif

#define MAX_LIVE 16
#define EVENT_LINE_MAX (64u << 20)

/* Process groups of running children, for Ctrl-C / SIGTERM forwarding. */
static volatile pid_t live[MAX_LIVE];

static void live_add(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == 0) {
			live[i] = pid;
			return;
		}
}

static void live_remove(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

/* Interruption hook (signal context): end every running child's group. */
static void stop_live(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0) {
			kill(-live[i], SIGKILL);
			waitpid(live[i], NULL, 0);
		}
}

void child_install_signal_forwarding(void)
{
	interrupt_set_stop(stop_live);
}

const char *child_runner_path(void)
{
	static char path[PATH_MAX];
	if (paths_runner(path, sizeof path, NULL) == 0)
		return path;
	/* command_run checked first, saying where it looked; an explicit one is
	 * kept so that the failure to start names it. */
	const char *env = getenv("PQPROF_RUNNER");
	if (env && *env)
		return env;
	snprintf(path, sizeof path, "%s/pqprof-runner", PKGLIBEXECDIR);
	return path;
}

unsigned long long child_default_as_limit(void)
{
	const char *env = getenv("PQPROF_AS_LIMIT_MB");
	if (env && *env) {
		char *end;
		unsigned long long mb = strtoull(env, &end, 10);
		if (*end == '\0' && mb > 0 && mb < (1ull << 40))
			return mb << 20;
	}
	return CHILD_DEFAULT_AS_LIMIT;
}

/*
 * In the child, still with pqprof's uid: open the count job's uprobe
 * counters on this process, left open across exec, so that a runner that
 * then runs as the unprivileged user (root: containment) still counts.
 * Returns the runner option and fills arg: "--uprobe-fds" "5,6,7", or
 * "--uprobe-error" and the reason (an ordinary user: not permitted).
 */
static const char *uprobe_handover(const struct child_spec *spec, char *arg, size_t len)
{
	struct uprobe_targets ts;
	struct uprobe_counters uc;
	pq_error err = { 0 };
	if (uprobe_resolve(spec->lib, spec->uprobe_globs, spec->nuprobe_globs, &ts, &err) < 0) {
		snprintf(arg, len, "%s", err.msg);
		return "--uprobe-error";
	}
	if (ts.n == 0) {
		uprobe_targets_free(&ts);
		return NULL; /* the runner says no function matches */
	}
	int r = uprobe_counters_open_inheritable(&uc, spec->lib, &ts, &err);
	uprobe_targets_free(&ts);
	if (r < 0) {
		snprintf(arg, len, "%s", err.msg);
		return "--uprobe-error";
	}
	/* Clear of the numbers the runner gives meaning to (3, 4). */
	for (size_t i = 0; i < uc.n; i++) {
		int moved = fcntl(uc.fds[i], F_DUPFD, 200);
		if (moved >= 0) {
			close(uc.fds[i]);
			uc.fds[i] = moved;
		}
	}
	/* arg is fixed (the child is between fork and exec): descriptors that do not fit are an error, never cut. */
	int cut = 0;
	arg[0] = '\0';
	for (size_t i = 0; i < uc.n && !cut; i++)
		cut = text_appendf(arg, len, "%s%d", i ? "," : "", uc.fds[i]);
	if (cut) {
		size_t n = uc.n;
		uprobe_counters_close(&uc);
		snprintf(arg, len, "too many functions to count (%zu)", n);
		return "--uprobe-error";
	}
	free(uc.fds); /* the descriptors stay open for the runner */
	return "--uprobe-fds";
}

/* In the child, results on RUNNER_RESULT_FD: the runner is not started, and why (fixed text, JSON-safe). */
/* The key of the job being started: the forked child writes its own refusals with it. */
static char spawn_key[RUNNER_NONCE_LEN + 1];

static void exec_refused(const char *why)
{
	char msg[320];
	int n = snprintf(msg, sizeof msg, "%s {\"ev\":\"error\",\"kind\":\"exec\",\"msg\":\"%s\"}\n", spawn_key, why);
	if (n > 0 && (size_t)n < sizeof msg && write(RUNNER_RESULT_FD, msg, (size_t)n) < 0)
		_exit(126);
	_exit(126);
}

/* In the child, before exec: only the allowlisted environment is left ($PQPROF_CONTAIN=off: all of it, for debugging). */
static void scrub_environment(void)
{
	if (contain_off())
		return;
	char *keep[8];
	int nk = 0;
	for (int i = 0; contain_env_passed[i] && nk < 8; i++) {
		const char *v = getenv(contain_env_passed[i]);
		if (!v)
			continue;
		size_t n = strlen(contain_env_passed[i]) + strlen(v) + 2;
		char *kv = malloc(n);
		if (!kv)
			exec_refused("out of memory setting up the runner's environment");
		snprintf(kv, n, "%s=%s", contain_env_passed[i], v);
		keep[nk++] = kv;
	}
	clearenv();
	for (int i = 0; contain_env_fixed[i]; i++)
		putenv((char *)contain_env_fixed[i]);
	for (int i = 0; i < nk; i++)
		putenv(keep[i]);
}

static void exec_runner(const struct child_spec *spec, int res_w, int out_w, int ctrl_c, int nonce_r,
                        const struct contained *ct)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	int nul = open("/dev/null", O_RDONLY);
	/* Park the fds above the target numbers before placing them. */
	int r = fcntl(res_w, F_DUPFD, 20), o = fcntl(out_w, F_DUPFD, 20);
	int c = ctrl_c >= 0 ? fcntl(ctrl_c, F_DUPFD, 20) : -1;
	int kf = fcntl(nonce_r, F_DUPFD, 20);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(o, 1);
	dup2(o, 2);
	dup2(r, RUNNER_RESULT_FD);
	if (c >= 0)
		dup2(c, RUNNER_CTRL_FD);
	else
		close(RUNNER_CTRL_FD);
	if (kf < 0 || dup2(kf, RUNNER_NONCE_FD) < 0)
		exec_refused("the channel key could not be handed over");
	for (int fd = RUNNER_NONCE_FD + 1; fd < 1024; fd++)
		close(fd);
	struct rlimit core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &core);
#ifdef RUNNER_HAS_ASAN
	/*
	 * Same build, so the runner has ASan too: cap memory through ASan (see
	 * CHILD_DEFAULT_AS_LIMIT), and do not let LeakSanitizer turn a scheme's
	 * leaks into the runner's exit status (pqprof mem reports them).
	 */
	char opts[512] = "";
	const char *old = getenv("ASAN_OPTIONS");
	/* Fixed, between fork and exec: options too long to add ours are refused, never a runner without its cap. */
	int cut = text_appendf(opts, sizeof opts, "%s%sdetect_leaks=0", old && *old ? old : "", old && *old ? ":" : "");
	if (spec->as_limit && !cut)
		cut = text_appendf(opts, sizeof opts, ":soft_rss_limit_mb=%llu:allocator_may_return_null=1",
		                   spec->as_limit >> 20);
	if (cut)
		exec_refused("ASAN_OPTIONS is too long to add the runner's own options (detect_leaks, soft_rss_limit_mb)");
	setenv("ASAN_OPTIONS", opts, 1);
#else
	if (spec->as_limit) {
		struct rlimit as = { spec->as_limit, spec->as_limit };
		setrlimit(RLIMIT_AS, &as);
	}
#endif
	if (spec->namespaces > 0) {
		/* Static TLS for each extra libc copy is reserved at start, per namespace glibc expects. */
		char tun[512];
		const char *old = getenv("GLIBC_TUNABLES");
		if (snprintf(tun, sizeof tun, "%s%sglibc.rtld.nns=%d", old && *old ? old : "", old && *old ? ":" : "",
		             spec->namespaces > 16 ? 16 : spec->namespaces) >= (int)sizeof tun)
			exec_refused("GLIBC_TUNABLES is too long to add glibc.rtld.nns");
		setenv("GLIBC_TUNABLES", tun, 1);
	}
	if (spec->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(spec->cpu, &set);
		sched_setaffinity(0, sizeof set, &set);
	}
	signal(SIGPIPE, SIG_DFL);
	const char *runner = child_runner_path();
	scrub_environment();
	int nargs = 0;
	while (spec->args && spec->args[nargs])
		nargs++;
	char up_arg[4096];
	const char *up_opt = spec->uprobe_globs ? uprobe_handover(spec, up_arg, sizeof up_arg) : NULL;
	char **argv = calloc((size_t)nargs + 6 + 2 * (size_t)spec->nextra_libs, sizeof *argv);
	char lib_fd_path[32];
	argv[0] = (char *)runner;
	argv[1] = (char *)spec->job;
	argv[2] = (char *)contain_job_path(ct, spec->lib, lib_fd_path, sizeof lib_fd_path);
	/* Handed over as an fd: keep the library's path visible on the command line (ps, pgrep). */
	char name0[2 * PATH_MAX + 4];
	if (argv[2] != spec->lib) {
		snprintf(name0, sizeof name0, "%s[%s]", runner, spec->lib);
		argv[0] = name0;
	}
	for (int i = 0; i < nargs; i++)
		argv[3 + i] = (char *)spec->args[i];
	int k = 3 + nargs;
	if (up_opt) {
		argv[k++] = (char *)up_opt;
		argv[k++] = up_arg;
	}
	char (*extra_fd)[32] = spec->nextra_libs > 0 ? calloc((size_t)spec->nextra_libs, sizeof *extra_fd) : NULL;
	for (int i = 0; extra_fd && i < spec->nextra_libs; i++) {
		argv[k++] = "--lib";
		argv[k++] = (char *)contain_job_path(ct, spec->extra_libs[i], extra_fd[i], sizeof extra_fd[i]);
	}
	contain_exec(ct, runner, argv);
	char msg[PATH_MAX + 200];
	int n = snprintf(msg, sizeof msg, "%s {\"ev\":\"error\",\"kind\":\"exec\",\"msg\":\"cannot run %s: %s\"}\n",
	                 spawn_key, runner, strerror(errno));
	if (n >= (int)sizeof msg)
		n = (int)sizeof msg - 1;
	if (n > 0 && write(RUNNER_RESULT_FD, msg, (size_t)n) < 0)
		_exit(126);
	_exit(126);
}

struct linebuf {
	char *buf;
	size_t len, cap;
	int oom;    /* an event was lost for lack of memory: the run's outcome is not known */
	char key[RUNNER_NONCE_LEN + 1]; /* the job's channel key */
	int flooded; /* past CHILD_EVENT_LINES_MAX or CHILD_EVENT_BYTES_MAX */
	int tampered; /* a second result under the key */
};

static void handle_event(struct linebuf *lb, struct child_result *res, json_t *ev)
{
	const char *k0 = json_string_value(json_object_get(ev, "ev"));
	if (k0 && strcmp(k0, "done") == 0) {
		if (res->done)
			lb->tampered = 1; /* the runner sends one: the key is known to the scheme */
		else
			res->done = ev;
	}
	const char *kind = json_string_value(json_object_get(ev, "ev"));
	const char *op = json_string_value(json_object_get(ev, "op"));
	if (!kind)
		return;
	if (strcmp(kind, "begin") == 0 && op)
		snprintf(res->in_op, sizeof res->in_op, "%s", op);
	else if (strcmp(kind, "end") == 0)
		res->in_op[0] = '\0';
	else if ((strcmp(kind, "fault") == 0 || strcmp(kind, "exit_in_op") == 0 || strcmp(kind, "stopped") == 0) &&
	         op && *op)
		snprintf(res->in_op, sizeof res->in_op, "%s", op);
	else if (strcmp(kind, "diagnosis") == 0) {
		const char *m = json_string_value(json_object_get(ev, "msg"));
		if (m)
			snprintf(res->fault, sizeof res->fault, "%s", m);
	}
}

/*
 * A runner handed its library as /proc/self/fd/N (see contain_job_path)
 * names it so in its messages: put the library's path back.  Only for
 * paths that need no JSON escaping.  NULL: nothing to put back, or no
 * memory for it (*oom set).
 */
static char *unfd_line(const char *line, const char *lib, int *oom)
{
	const char *hit = lib && !strpbrk(lib, "\"\\") ? strstr(line, "/proc/self/fd/") : NULL;
	if (!hit)
		return NULL;
	size_t n = strlen(line), ll = strlen(lib), k = 0;
	char *out = malloc(n * (ll + 1) + 1);
	if (!out) {
		*oom = 1;
		return NULL;
	}
	for (const char *p = line; *p;) {
		if (strncmp(p, "/proc/self/fd/", 14) == 0 && p[14] >= '0' && p[14] <= '9') {
			p += 14;
			while (*p >= '0' && *p <= '9')
				p++;
			memcpy(out + k, lib, ll);
			k += ll;
		} else {
			out[k++] = *p++;
		}
	}
	out[k] = '\0';
	return out;
}

static const char *event_lib; /* the library of the running child, for unfd_line */

/* Split complete lines off the buffer into events. */
static void take_lines(struct linebuf *lb, struct child_result *res)
{
	size_t start = 0;
	for (size_t i = 0; i < lb->len; i++) {
		if (lb->buf[i] != '\n')
			continue;
		lb->buf[i] = '\0';
		char *line = lb->buf + start;
		start = i + 1;
		res->channel_lines++;
		if (res->channel_lines > CHILD_EVENT_LINES_MAX) {
			lb->flooded = 1;
			continue;
		}
		/* Only the runner knows the key: any other line is scheme code writing on a copy of the channel. */
		size_t kl = strlen(lb->key);
		if (strncmp(line, lb->key, kl) != 0 || line[kl] != ' ') {
			if (res->forged_lines++ == 0) {
				snprintf(res->forged_first, sizeof res->forged_first, "%.80s", line);
				for (char *c = res->forged_first; *c; c++)
					if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
						*c = '?';
			}
			continue;
		}
		line += kl + 1;
		char *fixed = unfd_line(line, event_lib, &lb->oom);
		json_t *ev = json_loads(fixed ? fixed : line, 0, NULL);
		free(fixed);
		if (ev && json_is_object(ev)) {
			json_array_append_new(res->events, ev);
			handle_event(lb, res, ev);
		} else if (ev) {
			json_decref(ev);
		}
	}
	memmove(lb->buf, lb->buf + start, lb->len - start);
	lb->len -= start;
}

static int read_events(int fd, struct linebuf *lb, struct child_result *res)
{
	char tmp[65536];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? 1 : 0;
	res->channel_bytes += (size_t)n;
	if (res->channel_bytes > CHILD_EVENT_BYTES_MAX || lb->len + (size_t)n > EVENT_LINE_MAX) {
		lb->flooded = 1; /* a runner never sends this much: stop listening */
		return 0;
	}
	if (pq_grow(&lb->buf, &lb->cap, lb->len + (size_t)n, 1, 4096) < 0) {
		lb->oom = 1;
		return 0;
	}
	memcpy(lb->buf + lb->len, tmp, (size_t)n);
	lb->len += (size_t)n;
	take_lines(lb, res);
	return 1;
}

static int read_output(int fd, struct child_result *res, size_t cap)
{
	char tmp[65536];
	ssize_t n = read(fd, tmp, sizeof tmp);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? 1 : 0;
	res->output_total += (size_t)n;
	size_t room = cap > res->output_len ? cap - res->output_len : 0;
	size_t take = (size_t)n < room ? (size_t)n : room;
	if (take) {
		memcpy(res->output + res->output_len, tmp, take);
		res->output_len += take;
		res->output[res->output_len] = '\0';
	}
	return 1;
}

static void classify_end(struct child_result *res, const struct linebuf *lb, int status, int timed_out)
{
	if (lb->flooded) {
		res->end = CHILD_FLOODED;
		return;
	}
	if (lb->tampered) {
		res->end = CHILD_TAMPERED;
		return;
	}
	if (timed_out) {
		res->end = CHILD_TIMEOUT;
		return;
	}
	if (WIFSIGNALED(status)) {
		res->end = CHILD_SIGNALED;
		res->signo = WTERMSIG(status);
		return;
	}
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int exit_in_op = 0, error = 0;
	size_t i;
	json_t *ev;
	json_array_foreach(res->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "exit_in_op") == 0)
			exit_in_op = 1;
		if (k && strcmp(k, "error") == 0)
			error = 1;
	}
	if (res->exit_code == RUNNER_EXIT_CHANNEL_LOST)
		res->end = CHILD_CHANNEL_LOST;
	else if (exit_in_op || (res->in_op[0] && !res->done))
		res->end = CHILD_EXIT_IN_OP;
	else if (res->exit_code == 0 && res->done)
		res->end = CHILD_OK;
	else if (error)
		res->end = CHILD_FAILED;
	else
		res->end = CHILD_EXITED_EARLY;
}

/* RUNNER_NONCE_LEN hex characters from the kernel's random source. */
static int make_key(char *key)
{
	unsigned char raw[RUNNER_NONCE_LEN / 2];
	size_t got = 0;
	while (got < sizeof raw) {
		ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(key + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

static int run_child(const struct child_spec *spec, struct child_result *res, pq_error *err)
{
	memset(res, 0, sizeof *res);
	res->events = json_array();
	size_t cap = spec->output_cap ? spec->output_cap : 65536;
	res->output = malloc(cap + 1);
	if (!res->events || !res->output)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	res->output[0] = '\0';
	int resp[2], outp[2], ctrl[2] = { -1, -1 };
	if (pipe2(resp, O_CLOEXEC) != 0)
		return pq_fail_errno(err, PQ_EIO, "pipe");
	if (pipe2(outp, O_CLOEXEC) != 0) {
		close(resp[0]);
		close(resp[1]);
		return pq_fail_errno(err, PQ_EIO, "pipe");
	}
	if (spec->want_ctrl && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctrl) != 0) {
		close(resp[0]); close(resp[1]); close(outp[0]); close(outp[1]);
		return pq_fail_errno(err, PQ_EIO, "socketpair");
	}
	fflush(NULL);
	double t0 = mono_s();
	/* Contained (see core/contain.h); the runner gets an absolute library path. */
	char abs_lib[PATH_MAX];
	struct child_spec spec_abs = *spec;
	if (spec->lib && realpath(spec->lib, abs_lib))
		spec_abs.lib = abs_lib;
	spec = &spec_abs;
	struct contained ct;
	char rp[8][PATH_MAX];
	const char *rpp[8];
	int nrp = spec->lib ? instance_runpath(spec->lib, rp, 8) : 0;
	for (int i = 0; i < nrp; i++)
		rpp[i] = rp[i];
	/* What the runner must still see in its private view: its libraries and their run paths. */
	const char *vis[CONTAIN_MAX_VISIBLE];
	int nvis = 0;
	vis[nvis++] = child_runner_path();
	if (spec->lib)
		vis[nvis++] = spec->lib;
	for (int i = 0; i < spec->nextra_libs && nvis < CONTAIN_MAX_VISIBLE; i++)
		vis[nvis++] = spec->extra_libs[i];
	for (int i = 0; i < nrp && nvis < CONTAIN_MAX_VISIBLE; i++)
		vis[nvis++] = rpp[i];
	struct contain_opts co = { .readable = spec->lib, .search_dirs = rpp, .nsearch_dirs = nrp,
	                           .private_scratch = 1, .files = spec->inputs, .nfiles = spec->ninputs,
	                           .visible = vis, .nvisible = nvis, .hidden = spec->hidden };
	while (spec->hidden && spec->hidden[co.nhidden])
		co.nhidden++;
	/* The job's channel key: a fresh random one, handed over on a pipe the runner reads before loading the scheme. */
	struct linebuf lb = { 0 };
	int keyp[2] = { -1, -1 };
	if (make_key(lb.key) < 0 || pipe2(keyp, O_CLOEXEC) != 0 ||
	    write(keyp[1], lb.key, RUNNER_NONCE_LEN) != RUNNER_NONCE_LEN) {
		int e = errno;
		close(resp[0]); close(resp[1]); close(outp[0]); close(outp[1]);
		if (keyp[0] >= 0) {
			close(keyp[0]);
			close(keyp[1]);
		}
		if (ctrl[0] >= 0) {
			close(ctrl[0]);
			close(ctrl[1]);
		}
		errno = e;
		return pq_fail_errno(err, PQ_EIO, "cannot make the runner's channel key");
	}
	close(keyp[1]);
	memcpy(spawn_key, lb.key, sizeof spawn_key);
	pid_t pid = contain_fork(&ct, &co, err);
	if (pid < 0) {
		close(resp[0]); close(resp[1]); close(outp[0]); close(outp[1]); close(keyp[0]);
		if (ctrl[0] >= 0) {
			close(ctrl[0]);
			close(ctrl[1]);
		}
		res->end = CHILD_SPAWN_FAILED;
		return -PQ_EIO;
	}
	if (pid == 0)
		exec_runner(spec, resp[1], outp[1], ctrl[1], keyp[0], &ct);
	close(keyp[0]);
	snprintf(res->contain_note, sizeof res->contain_note, "%s", ct.note);
	event_lib = ct.via_fd ? spec->lib : NULL;
	live_add(pid);
	close(resp[1]);
	close(outp[1]);
	if (ctrl[1] >= 0)
		close(ctrl[1]);
	fcntl(resp[0], F_SETFL, O_NONBLOCK);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	if (spec->hooks && spec->hooks->spawned)
		spec->hooks->spawned(spec->hooks->user, pid, ctrl[0]);

	int res_open = 1, out_open = 1, status = 0, exited = 0, timed_out = 0, termed = 0;
	double grace = spec->grace_s > 0 ? spec->grace_s : 2.0;
	double deadline = spec->timeout_s > 0 ? t0 + spec->timeout_s : 0;
	double kill_at = 0;
	while (!exited) {
		struct pollfd pf[3];
		int np = 0;
		if (res_open)
			pf[np++] = (struct pollfd){ .fd = resp[0], .events = POLLIN };
		if (out_open)
			pf[np++] = (struct pollfd){ .fd = outp[0], .events = POLLIN };
		if (spec->hooks && spec->hooks->wake_fd >= 0)
			pf[np++] = (struct pollfd){ .fd = spec->hooks->wake_fd, .events = POLLIN };
		int timeout_ms = spec->hooks && spec->hooks->tick ? 10 : 50;
		int pr = poll(pf, (nfds_t)np, timeout_ms);
		if (pr > 0) {
			for (int i = 0; i < np; i++) {
				if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				if (pf[i].fd == resp[0] && !read_events(resp[0], &lb, res))
					res_open = 0;
				else if (pf[i].fd == outp[0] && !read_output(outp[0], res, cap))
					out_open = 0;
			}
		}
		if (spec->hooks && spec->hooks->tick)
			spec->hooks->tick(spec->hooks->user);
		pid_t w = contain_wait(&ct, &status, WNOHANG);
		if (w == pid) {
			exited = 1;
			break;
		}
		double t = mono_s();
		if (lb.flooded && !termed) {
			/* Past what any job sends: stop it now, keep nothing more. */
			termed = 1;
			res_open = 0;
			kill(-pid, SIGKILL);
			res->killed_hard = 1;
		}
		if (deadline && t >= deadline && !termed) {
			timed_out = 1;
			termed = 1;
			kill(-pid, SIGTERM);
			kill_at = t + grace;
		}
		if (termed && kill_at && t >= kill_at) {
			kill(-pid, SIGKILL);
			res->killed_hard = 1;
			kill_at = 0;
		}
	}
	/* What the child wrote before it ended is still in the pipes. */
	while (res_open && read_events(resp[0], &lb, res) == 1) {
		struct pollfd pf = { .fd = resp[0], .events = POLLIN };
		if (poll(&pf, 1, 0) <= 0)
			break;
	}
	while (out_open && read_output(outp[0], res, cap) == 1) {
		struct pollfd pf = { .fd = outp[0], .events = POLLIN };
		if (poll(&pf, 1, 0) <= 0)
			break;
	}
	if (spec->hooks && spec->hooks->tick)
		spec->hooks->tick(spec->hooks->user);
	/* Its files, read back before the scratch directory goes. */
	int collect_oom = 0;
	for (int i = 0; spec->collect && spec->collect[i] && i < CHILD_MAX_FILES; i++) {
		struct child_file *f = &res->files[res->nfiles++];
		f->name = spec->collect[i];
		collect_oom |= contain_collect(&ct, f->name, spec->collect_cap ? spec->collect_cap : CHILD_COLLECT_CAP,
		                               &f->data, &f->len, f->why, sizeof f->why) == -PQ_ENOMEM;
	}
	/* Anything still in the namespace (or process group) outlived the runner. */
	res->orphans = contain_finish(&ct);
	live_remove(pid);
	close(resp[0]);
	close(outp[0]);
	if (ctrl[0] >= 0)
		close(ctrl[0]);
	free(lb.buf);
	res->wall_s = mono_s() - t0;
	classify_end(res, &lb, status, timed_out);
	/* The runner's own allocation failed: pqprof ran out of memory, not the scheme. */
	size_t i;
	json_t *ev;
	json_array_foreach(res->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "error") == 0 && json_integer_value(json_object_get(ev, "code")) == PQ_ENOMEM)
			return pq_fail(err, PQ_ENOMEM, "pqprof-runner (%s job): %s", spec->job,
			               json_string_value(json_object_get(ev, "msg")) ?: "out of memory");
	}
	if (lb.oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory reading what pqprof-runner reported: the run's outcome is not known");
	if (collect_oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory reading back the files pqprof-runner wrote: the run's outcome "
		               "is not known");
	return 0;
}

static void free_files(struct child_result *res)
{
	for (int i = 0; i < res->nfiles; i++)
		free(res->files[i].data);
	res->nfiles = 0;
}

int child_run(const struct child_spec *spec, struct child_result *res, pq_error *err)
{
	int r = run_child(spec, res, err);
	if (r < 0) {
		/* Nothing to free after a failure; how it ended (spawn failed) stays. */
		free_files(res);
		json_decref(res->events);
		free(res->output);
		res->events = NULL;
		res->done = NULL;
		res->output = NULL;
	}
	return r;
}

const struct child_file *child_file(const struct child_result *res, const char *name)
{
	for (int i = 0; i < res->nfiles; i++)
		if (strcmp(res->files[i].name, name) == 0)
			return res->files[i].data ? &res->files[i] : NULL;
	return NULL;
}

void child_result_free(struct child_result *res)
{
	free_files(res);
	json_decref(res->events);
	free(res->output);
	memset(res, 0, sizeof *res);
}

static const char *error_msg(const struct child_result *res)
{
	size_t i;
	json_t *ev;
	json_array_foreach(res->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "error") == 0)
			return json_string_value(json_object_get(ev, "msg"));
	}
	return NULL;
}

void child_describe(const struct child_result *res, char *buf, size_t len)
{
	char where[48] = "";
	if (res->in_op[0])
		snprintf(where, sizeof where, " in %s", res->in_op);
	const char *msg = error_msg(res);
	switch (res->end) {
	case CHILD_OK:
		snprintf(buf, len, "completed");
		break;
	case CHILD_FAILED:
		snprintf(buf, len, "%s", msg ? msg : "failed");
		break;
	case CHILD_EXIT_IN_OP:
		snprintf(buf, len, "scheme called exit(%d)%s", res->exit_code, where);
		break;
	case CHILD_EXITED_EARLY:
		snprintf(buf, len, "runner exited with status %d before finishing%s", res->exit_code, where);
		break;
	case CHILD_SIGNALED:
		if (res->fault[0])
			snprintf(buf, len, "%s%s", res->fault, where);
		else
			snprintf(buf, len, "crashed with SIG%s%s", sigabbrev_np(res->signo) ? sigabbrev_np(res->signo) : "?", where);
		break;
	case CHILD_TIMEOUT:
		snprintf(buf, len, "timed out after %.0f s%s%s", res->wall_s, where,
		         res->killed_hard ? " (ignored SIGTERM; killed)" : "");
		break;
	case CHILD_FLOODED:
		snprintf(buf, len, "flooded the harness's result channel (%zu lines, %zu bytes; the limit is %u lines or "
		         "%u MiB a job)%s: stopped", res->channel_lines, res->channel_bytes, CHILD_EVENT_LINES_MAX,
		         CHILD_EVENT_BYTES_MAX >> 20, where);
		break;
	case CHILD_TAMPERED:
		snprintf(buf, len, "a second result arrived on the harness's channel%s: scheme code wrote it, so no "
		         "result of this run is believed", where);
		break;
	case CHILD_CHANNEL_LOST:
		snprintf(buf, len, "the scheme closed or replaced the harness's result channel%s", where);
		break;
	default:
		snprintf(buf, len, "could not start the runner");
	}
	if (res->orphans)
		text_appendf(buf, len, "; left processes behind (killed)");
}
