/* builder: compile a submission tree plus shim into an instance library. */
#include "config.h"
#include "instance/builder.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "instance/shim.h"
#include "instance/flag_check.h"
#include "instance/instance_discover.h"
#include "instance/isa_check.h"
#include "instance/link_scope.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CC_DEFAULT_TIMEOUT_S 600.0
#define CC_DEFAULT_AS_LIMIT (4ull << 30)

/*
 * The official self-assessment guide's profiles, plus the harness default.
 * -g is added to every profile whatever its optimisation level.
 */
static const struct flag_profile profiles[] = {
	{ "harness-default", "-O2", "pqprof default" },
	{ "reference", "-std=c99 -O2", "self-assessment guide: reference build" },
	{ "performance", "-O3 -march=native -flto", "self-assessment guide: performance build" },
	{ "resource", "-Os", "self-assessment guide: resource build" },
	{ "debug", "-O0", "unoptimised build, a baseline for flag studies" },
	{ NULL, NULL, NULL },
};

/* Newer compilers reject pre-C99 habits that many submissions still have. */
static const char *const downgrades[] = {
	"-Wno-error=implicit-function-declaration",
	"-Wno-error=incompatible-pointer-types",
	"-Wno-error=int-conversion",
	"-Wno-error=implicit-int",
	NULL,
};

const struct flag_profile *flag_profiles(void)
{
	return profiles;
}

const struct flag_profile *flag_profile_find(const char *name)
{
	for (const struct flag_profile *p = profiles; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

int split_words(const char *s, char ***words, int *n)
{
	*words = NULL;
	*n = 0;
	size_t cap = 0;
	while (s && *s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		char buf[4096];
		size_t k = 0;
		char q = 0;
		while (*s && (q || (*s != ' ' && *s != '\t' && *s != '\n'))) {
			if (!q && (*s == '"' || *s == '\''))
				q = *s;
			else if (q && *s == q)
				q = 0;
			else if (k + 1 < sizeof buf)
				buf[k++] = *s;
			s++;
		}
		buf[k] = '\0';
		if (pq_grow(words, &cap, (size_t)*n + 1, sizeof **words, 16) < 0)
			return -1;
		(*words)[(*n)++] = strdup(buf);
	}
	return 0;
}

void free_words(char **words, int n)
{
	for (int i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

/* A growable argv. */
struct argv_buf {
	char **v;
	int n;
	size_t cap;
};

static void av_push(struct argv_buf *a, const char *s)
{
	if (pq_grow(&a->v, &a->cap, (size_t)a->n + 2, sizeof *a->v, 32) < 0)
		return;
	a->v[a->n++] = strdup(s);
	a->v[a->n] = NULL;
}

static void av_pushf(struct argv_buf *a, const char *fmt, ...)
{
	char buf[PATH_MAX + 64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	av_push(a, buf);
}

static void av_free(struct argv_buf *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* How compilers run: contained, under these limits. */
struct cc_limits {
	double timeout_s;
	unsigned long long as_limit;
	int as_user;          /* compile as the unprivileged uid */
	const char *workdir;  /* its working directory when the tree is reached through it */
};

/* Start argv contained, its output to `log`; returns its pid or -1. */
static pid_t spawn_logged(struct contained *ct, char **argv, const char *log, const struct cc_limits *lim)
{
	struct contain_opts co = { .no_user_change = !lim->as_user, .workdir = lim->workdir };
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
	struct rlimit as = { lim->as_limit, lim->as_limit };
	rlim_t cpu_s = (rlim_t)lim->timeout_s;
	struct rlimit cpu = { cpu_s, cpu_s + 5 }, core = { 0, 0 };
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_CORE, &core);
	contain_exec(ct, argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait for a contained process, killing it at the wall-clock limit. */
static int wait_limited(struct contained *ct, const struct cc_limits *lim, int *st, int *timed_out)
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
static void log_excerpt(const char *log, char *out, size_t len, const char *tree, const char *tmpdir)
{
	char *text = NULL;
	out[0] = '\0';
	if (read_whole_file(log, &text, NULL, 1u << 20, NULL) < 0)
		return;
	drop_outside_lines(text, tree, tmpdir);
	const char *start = strstr(text, "error");
	if (start) {
		while (start > text && start[-1] != '\n')
			start--;
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

static void compiler_version(const char *cc, char *out, size_t len, const char *tmpdir, const struct cc_limits *lim)
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
		return;
	char *text = NULL;
	if (read_whole_file(log, &text, NULL, 1u << 16, NULL) < 0)
		return;
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	snprintf(out, len, "%s", text);
	free(text);
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
static int run_units(struct argv_buf *cmds, char **logs, const char **names, int n, int jobs,
                     const char *what, const struct cc_limits *lim, const char *tree, const char *tmpdir,
                     pq_error *err)
{
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
			if (spawn_logged(&jb->ct, cmds[next].v, logs[next], lim) < 0) {
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
		size_t k = 0;
		for (const char *p = why; *p && k + 1 < sizeof shown;) {
			if (lim->workdir && strncmp(p, "/proc/self/cwd", 14) == 0) {
				k += (size_t)snprintf(shown + k, sizeof shown - k, "%s", lim->workdir);
				p += 14;
			} else {
				shown[k++] = *p++;
			}
		}
		shown[k < sizeof shown ? k : sizeof shown - 1] = '\0';
		str_copy(why, sizeof why, shown); /* a message, cut where it must be */
		return pq_fail(err, PQ_EBUILD, "%s: %s failed: %s", names[failed], what, why);
	}
	return 0;
}

/* Copy the linked library out of the build directory (the compiler's uid cannot write beside the target). */
static int copy_file(const char *from, const char *to, pq_error *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", from);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return pq_fail_errno(err, PQ_EIO, "%s: cannot create", to);
	}
	char buf[65536];
	ssize_t n;
	int r = 0;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
			break;
		}
	if (n < 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: read failed", from);
	close(in);
	if (close(out) != 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
	return r;
}

static void remove_tree(const char *dir)
{
	remove_dir_files(dir);
	rmdir(dir);
}

static void notes_add(struct build_result *res, const char *fmt, ...)
{
	size_t used = strlen(res->notes);
	if (used + 2 >= sizeof res->notes)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->notes + used, sizeof res->notes - used, fmt, ap);
	va_end(ap);
	used = strlen(res->notes);
	if (used + 1 < sizeof res->notes) {
		res->notes[used] = '\n';
		res->notes[used + 1] = '\0';
	}
}

static void append_flag(char *buf, size_t len, const char *flag)
{
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? " " : "", flag);
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* Common compiler flags: the assembled list (profile, tree, user, -D), -g -fPIC, includes. */
static void push_common(struct argv_buf *a, const struct flag_list *fl, const struct tree_scan *ts, const char *base,
                        enum link_scope scope)
{
	for (int i = 0; i < fl->n; i++) {
		/* -I from the tree's build files are relative to the tree */
		if (strncmp(fl->v[i].flag, "-I", 2) == 0 && fl->v[i].flag[2] != '/' && strncmp(fl->v[i].origin, "tree ", 5) == 0)
			av_pushf(a, "-I%s/%s", base, fl->v[i].flag + 2);
		else
			av_push(a, fl->v[i].flag);
	}
	av_push(a, "-g");
	av_push(a, "-fPIC");
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		av_push(a, *f);
	for (int i = 0; downgrades[i]; i++)
		av_push(a, downgrades[i]);
	av_pushf(a, "-I%s", base);
	for (int i = 0; i < ts->nincdirs; i++)
		if (strcmp(ts->incdirs[i], ".") != 0)
			av_pushf(a, "-I%s/%s", base, ts->incdirs[i]);
	/* Reached through the working directory: debug info and __FILE__ keep the real paths. */
	if (strcmp(base, ts->root) != 0)
		av_pushf(a, "-ffile-prefix-map=/proc/self/cwd=%s", ts->within);
}

static int want_hint_used(const struct build_options *opt, const char *name)
{
	return opt->instance_hint && strcmp(opt->instance_hint, name) == 0;
}

/* Does the list already hold a -D/-U of this macro from an origin starting with `from`? */
static int sets_macro(const struct flag_list *fl, const char *mac, const char *from)
{
	for (int i = 0; i < fl->n; i++) {
		char m2[128];
		define_macro_name(fl->v[i].flag, m2, sizeof m2);
		if (m2[0] && strcmp(m2, mac) == 0 && strncmp(fl->v[i].origin, from, strlen(from)) == 0)
			return 1;
	}
	return 0;
}

/*
 * The flags every unit is compiled with, each with its origin: the
 * profile, the tree's build files, the descriptor or --cflags, -D
 * options, and the switches of the instance chosen from the tree.  Tree
 * flags go through the flag check like a descriptor's; -m flags are
 * checked against this CPU.
 */
static int assemble_flags(const struct build_options *opt, const struct flag_profile *prof, struct build_result *res,
                          pq_error *err)
{
	struct flag_list *fl = &res->flags;
	char **w = NULL;
	int n = 0, r = 0;
	char o[PATH_MAX + 300];
	split_words(prof->cflags, &w, &n);
	snprintf(o, sizeof o, "profile %s", prof->name);
	for (int i = 0; i < n && r == 0; i++)
		r = flag_list_add(fl, w[i], o);
	free_words(w, n);

	struct instance_set set = { .default_variant = -1 };
	int chosen = -1;
	if (!opt->no_tree_flags) {
		r = instance_discover(res->ts.root, res->ts.header, &set, err);
		if (r < 0)
			return r;
		const char *want = opt->instance;
		if (!want && opt->instance_hint)
			for (int i = 0; i < set.tf.nvariants; i++)
				if (strcmp(instance_variant_name(&set.tf.variants[i]), opt->instance_hint) == 0)
					want = opt->instance_hint;
		r = instance_select(&set, opt->src_dir, want, opt->defines, opt->ndefines, &chosen, res->dir_instance,
		                    sizeof res->dir_instance, err);
		if (r < 0) {
			instance_set_free(&set);
			return r;
		}
		if (set.tf.nvariants > 1)
			instance_choices(&set, res->instances, sizeof res->instances);
		/* Tree flags: refused ones stop the build unless trusted; a -D the user also gives is the user's. */
		for (int i = 0; i < set.tf.flags.n && r == 0; i++) {
			const struct tree_flag *f = &set.tf.flags.v[i];
			int consumed = 0;
			const char *why = opt->trust_flags ? NULL : flag_refusal(f->flag, NULL, &consumed);
			if (why) {
				r = pq_fail(err, PQ_EINPUT, "%s/%s: compiler flag '%s' refused: it %s", res->ts.root, f->origin,
				            f->flag, why);
				break;
			}
			char mac[128];
			define_macro_name(f->flag, mac, sizeof mac);
			int overridden = 0;
			for (int k = 0; mac[0] && k < opt->ndefines && !overridden; k++) {
				size_t ml = strlen(mac);
				overridden = strncmp(opt->defines[k], mac, ml) == 0 &&
				             (opt->defines[k][ml] == '=' || opt->defines[k][ml] == '\0');
			}
			if (overridden) {
				notes_add(res, "flags: %s <- %s: replaced by the -D option", f->flag, f->origin);
				continue;
			}
			snprintf(o, sizeof o, "tree %s", f->origin);
			r = flag_list_add(fl, f->flag, o);
		}
		for (int i = 0; i < set.tf.info.n; i++) {
			const struct tree_flag *f = &set.tf.info.v[i];
			notes_add(res, "flags: %s <- %s%s", f->flag, f->origin,
			          strncmp(f->flag, "-O", 2) == 0 ? ": information only (the flag profile decides optimisation)"
			          : strchr(f->origin, '(') ? ""
			          : ": information only (not passed on: it changes what is measured or the ABI)");
		}
	}
	if (r == 0 && opt->extra_cflags) {
		split_words(opt->extra_cflags, &w, &n);
		snprintf(o, sizeof o, "%s", opt->flags_origin ? opt->flags_origin : "--cflags");
		for (int i = 0; i < n && r == 0; i++)
			r = flag_list_add(fl, w[i], o);
		free_words(w, n);
	}
	for (int i = 0; i < opt->ndefines && r == 0; i++) {
		char d[1100];
		snprintf(d, sizeof d, "-D%s", opt->defines[i]);
		r = flag_list_add(fl, d, opt->flags_origin ? "descriptor defines" : "-D option");
	}
	if (r == 0 && chosen >= 0) {
		const struct tree_variant *v = &set.tf.variants[chosen];
		/* Only a name the switches spell out can be checked against the built library. */
		str_copy(res->instance, sizeof res->instance, v->name);
		snprintf(o, sizeof o, "tree %s (instance %s)", v->origin, instance_variant_name(v));
		for (int k = 0; k < v->defines.n && r == 0; k++) {
			char mac[128];
			define_macro_name(v->defines.v[k].flag, mac, sizeof mac);
			if (!sets_macro(fl, mac, "tree "))
				r = flag_list_add(fl, v->defines.v[k].flag, o);
		}
		const char *how = opt->instance ? "asked for with --instance"
		                  : res->dir_instance[0] ? "named by the directory"
		                  : want_hint_used(opt, instance_variant_name(v)) ? "named by the descriptor"
		                  : "the only one the tree builds";
		notes_add(res, "instance: %s (%s), selected by -D switches from %s", instance_variant_name(v), how, v->origin);
	}
	if (r == 0 && set.tf.files[0])
		notes_add(res, "tree build files read (not run): %s", set.tf.files);
	if (r == 0 && set.default_name[0] && set.tf.nvariants > 1)
		notes_add(res, "instances: %s; without switches the header (%s) builds %s", res->instances,
		          set.default_origin, set.default_name);
	instance_set_free(&set);
	if (r < 0)
		return err->code ? -err->code : -PQ_ENOMEM;

	/* Instruction sets: flags this CPU cannot run stop the build here, before any compiler runs. */
	char what[900] = "";
	const char *src = "/proc/cpuinfo";
	for (int i = 0; i < fl->n; i++) {
		char missing[256];
		const char *from;
		if (isa_missing(fl->v[i].flag, missing, sizeof missing, &from) > 0) {
			src = from;
			size_t used = strlen(what);
			snprintf(what + used, sizeof what - used, "%s%s (from %s) needs %s", used ? "; " : "", fl->v[i].flag,
			         fl->v[i].origin, missing);
		}
	}
	if (what[0]) {
		char cpu[256];
		isa_cpu_name(cpu, sizeof cpu);
		snprintf(res->verdict, sizeof res->verdict, "instruction set not available");
		return pq_fail(err, PQ_EBUILD, "instruction set not available: %s; this CPU%s%.200s%s lacks that (according to %s); "
		               "nothing was built or run", what, cpu[0] ? " (" : "", cpu, cpu[0] ? ")" : "", src);
	}
	return 0;
}

int instance_build(const struct build_options *opt, struct build_result *res, pq_error *err)
{
	memset(res, 0, sizeof *res);
	const char *pname = opt->profile ? opt->profile : "harness-default";
	struct flag_profile own = { pname, opt->profile_cflags, opt->profile_origin ? opt->profile_origin : "user profile" };
	const struct flag_profile *prof = opt->profile_cflags ? &own : flag_profile_find(pname);
	if (!prof)
		return pq_fail(err, PQ_EUSAGE, "unknown flag profile '%s' (reference, performance, resource, debug, harness-default)", pname);
	const char *cc = opt->cc ? opt->cc : getenv("PQPROF_CC") ? getenv("PQPROF_CC") : PQPROF_DEFAULT_SCHEME_CC;
	/* A profile's flags are checked wherever they were written: they are reusable names, not one-off flags. */
	if (opt->profile_cflags && !opt->trust_flags) {
		int fr = flag_check_string(opt->profile_cflags, own.origin, err);
		if (fr < 0)
			return fr;
	}
	/* Flags from a descriptor are the scheme authors'; the command line is the user's. */
	if (opt->flags_origin && !opt->trust_flags && opt->extra_cflags) {
		int fr = flag_check_string(opt->extra_cflags, opt->flags_origin, err);
		if (fr < 0)
			return fr;
	}
	const char *within = opt->source_root ? opt->source_root : getenv("PQPROF_SOURCE_ROOT");
	int r = tree_scan_dir_within(opt->src_dir, within && *within ? within : NULL, opt->tree_inside_root, opt->api,
	                             &res->ts, err);
	if (r < 0)
		return r;
	struct tree_scan *ts = &res->ts;
	r = assemble_flags(opt, prof, res, err);
	if (r < 0) {
		build_result_free(res);
		return r;
	}

	char tmpdir[] = "/tmp/pqprof-build.XXXXXX";
	if (!mkdtemp(tmpdir))
		return pq_fail_errno(err, PQ_EIO, "cannot create a temporary build directory");
	contain_share_dir(tmpdir); /* compilers write their objects here */
	interrupt_track_tmp(tmpdir, 1);
	struct cc_limits lim = { .timeout_s = opt->cc_timeout_s > 0 ? opt->cc_timeout_s : CC_DEFAULT_TIMEOUT_S,
	                         .as_limit = opt->cc_as_limit ? opt->cc_as_limit : CC_DEFAULT_AS_LIMIT };
	const char *mem_env = getenv("PQPROF_CC_MEMORY_MB");
	if (!opt->cc_as_limit && mem_env && atoll(mem_env) > 0)
		lim.as_limit = (unsigned long long)atoll(mem_env) << 20;
	{
		/* Compile as the unprivileged user when it can read the tree (it always can read the build directory). */
		const char *probe = ts->root;
		char first[PATH_MAX];
		for (int i = 0; i < ts->nfiles; i++)
			if (ts->files[i].keep) {
				snprintf(first, sizeof first, "%s/%s", ts->root, ts->files[i].rel);
				probe = first;
				break;
			}
		lim.as_user = contain_caps()->drop_uid;
		/*
		 * A tree below a private directory (mode 0700 on the way) is
		 * reached from a working directory entered before the uid change.
		 * A tree that is itself private to the caller is compiled with the
		 * caller's uid (still in the namespaces, under the limits); the
		 * tree scan has already refused includes that leave it.
		 */
		if (lim.as_user && !contain_job_can_read(probe)) {
			struct stat wsb, psb;
			if (stat(ts->within, &wsb) == 0 && (wsb.st_mode & 0005) == 0005 && stat(probe, &psb) == 0 &&
			    (psb.st_mode & 0004))
				lim.workdir = ts->within;
			else
				lim.as_user = 0;
		}
	}
	char base[PATH_MAX];
	if (lim.workdir)
		snprintf(base, sizeof base, "/proc/self/cwd%s", ts->root + strlen(ts->within));
	else
		snprintf(base, sizeof base, "%s", ts->root);
	compiler_version(cc, res->compiler, sizeof res->compiler, tmpdir, &lim);

	/* The flags string recorded in the descriptor: exactly what was passed. */
	for (int i = 0; i < res->flags.n; i++)
		append_flag(res->cflags, sizeof res->cflags, res->flags.v[i].flag);
	append_flag(res->cflags, sizeof res->cflags, "-g -fPIC");
	enum link_scope scope = opt->plain_pic ? LINK_SCOPE_PLAIN_PIC : LINK_SCOPE_LOCAL;
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		append_flag(res->cflags, sizeof res->cflags, *f);
	res->downgraded = 1;

	notes_add(res, "api: %s %s (header %s)", tree_api_name(ts->api),
	          ts->kind == TREE_KIND_SIG ? "signature" : "KEM", ts->header);
	if (ts->nist_in_ngcc)
		notes_add(res, "api: tree also ships api.h; the NGCC API wins");
	for (int i = 0; i < res->flags.n; i++)
		notes_add(res, "flags: %s <- %s", res->flags.v[i].flag, res->flags.v[i].origin);
	notes_add(res, "flags: -g -fPIC <- pqprof (symbols and debug info are always kept)");
	notes_add(res, "linkage: %s: %s <- pqprof", link_scope_name(scope), link_scope_summary(scope));
	notes_add(res, "flags: implicit declarations, incompatible pointer types, int conversions and implicit int downgraded to warnings <- pqprof");
	if (opt->flags_origin && opt->extra_cflags && *opt->extra_cflags)
		notes_add(res, "flags: %s <- %s (%s)", opt->extra_cflags, opt->flags_origin,
		          opt->trust_flags ? "trusted with --trust-flags" : "checked: no flag that runs programs or loads code");
	if (!opt->no_tree_flags && !opt->trust_flags)
		notes_add(res, "flags: the tree's build files' flags were checked: no flag that runs programs or loads code");
	notes_add(res, "containment: compilers %s; limits %.0f s and %llu MiB per compiler process",
	          contain_caps()->summary, lim.timeout_s, lim.as_limit >> 20);
	if (lim.workdir)
		notes_add(res, "containment: the tree is below a private directory: compilers reach it from %s", ts->within);
	else if (contain_caps()->drop_uid && !lim.as_user)
		notes_add(res, "containment: the tree is readable only by the caller: compilers keep the caller's uid");
	for (int i = 0; i < ts->nfiles; i++) {
		const struct tree_file *f = &ts->files[i];
		if (f->keep)
			notes_add(res, "kept: %s", f->rel);
		else
			notes_add(res, "left out: %s: %s", f->rel, f->reason);
	}
	if (ts->api == TREE_API_NGCC && ts->drng_header[0] && !ts->defines_drng_object)
		notes_add(res, "shim: defines drng_algorithm (normally in the left-out KAT driver)");
	if (ts->api == TREE_API_NGCC && !(ts->drng_header[0] && ts->has_init_random_number))
		notes_add(res, "shim: no drng.h/init_random_number in the tree: the harness cannot seed this instance");
	if (ts->api == TREE_API_NIST)
		notes_add(res, "shim: defines randombytes(), fed by the harness's AES-256 CTR_DRBG");

	/* Shim and the ABI header it includes. */
	char shim_path[PATH_MAX], abi_path[PATH_MAX];
	snprintf(shim_path, sizeof shim_path, "%s/pqprof_shim.c", tmpdir);
	snprintf(abi_path, sizeof abi_path, "%s/pqprof_abi.h", tmpdir);
	struct shim_meta meta = {
		.compiler = res->compiler, .profile = prof->name, .cflags = res->cflags,
		.notes = res->notes, .fallback_name = base_name(ts->root),
	};
	r = atomic_write(abi_path, pq_abi_header_text, strlen(pq_abi_header_text), err);
	FILE *sf = r == 0 ? fopen(shim_path, "w") : NULL;
	if (r == 0 && !sf)
		r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	if (sf) {
		r = shim_write(sf, ts, &meta, err);
		if (fclose(sf) != 0 && r == 0)
			r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	}

	/* One compile command per kept unit, the shim last. */
	int nunits = 0;
	for (int i = 0; i < ts->nfiles; i++)
		nunits += ts->files[i].keep;
	nunits++;
	struct argv_buf *cmds = calloc((size_t)nunits, sizeof *cmds);
	char **logs = calloc((size_t)nunits, sizeof *logs);
	const char **names = calloc((size_t)nunits, sizeof *names);
	struct argv_buf link = { 0 };
	av_push(&link, cc);
	/* Code generation flags matter at link time too (-flto, -m...); -D, -U, -I and -std do not. */
	for (int i = 0; i < res->flags.n; i++) {
		const char *f = res->flags.v[i].flag;
		if (strncmp(f, "-D", 2) != 0 && strncmp(f, "-U", 2) != 0 && strncmp(f, "-I", 2) != 0 &&
		    strncmp(f, "-std=", 5) != 0)
			av_push(&link, f);
	}
	av_push(&link, "-g");
	av_push(&link, "-shared");
	for (const char *const *f = link_scope_ldflags(scope); *f; f++)
		av_push(&link, *f);
	/*
	 * Linked in the build directory (the compiler's uid may not write beside
	 * the target), copied beside the target and renamed: a failed build
	 * leaves no half library.
	 */
	char tmp_out[PATH_MAX] = "", linked[PATH_MAX] = "";
	if (r == 0)
		r = path_fmt(tmp_out, sizeof tmp_out, err, "%s.tmp.%ld", opt->out_path, (long)getpid());
	if (r == 0)
		r = path_fmt(linked, sizeof linked, err, "%s/instance.so", tmpdir);
	if (r == 0)
		interrupt_track_tmp(tmp_out, 0);
	av_push(&link, "-o");
	av_push(&link, linked);
	int u = 0;
	for (int i = 0; i <= ts->nfiles && r == 0; i++) {
		int shim = i == ts->nfiles;
		if (!shim && !ts->files[i].keep)
			continue;
		char src[PATH_MAX], obj[PATH_MAX], log[PATH_MAX];
		r = shim ? path_fmt(src, sizeof src, err, "%s", shim_path)
		         : path_fmt(src, sizeof src, err, "%s/%s", base, ts->files[i].rel);
		if (r < 0)
			break;
		snprintf(obj, sizeof obj, "%s/u%04d.o", tmpdir, u);
		snprintf(log, sizeof log, "%s/u%04d.log", tmpdir, u);
		av_push(&cmds[u], cc);
		push_common(&cmds[u], &res->flags, ts, base, scope);
		if (shim)
			av_pushf(&cmds[u], "-I%s", tmpdir);
		av_push(&cmds[u], "-c");
		av_push(&cmds[u], src);
		av_push(&cmds[u], "-o");
		av_push(&cmds[u], obj);
		logs[u] = strdup(log);
		names[u] = shim ? "generated shim" : ts->files[i].rel;
		av_push(&link, obj);
		u++;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = opt->jobs > 0 ? opt->jobs : (ncpu > 0 ? (int)ncpu : 1);
	if (r == 0)
		r = run_units(cmds, logs, names, u, jobs, "compilation", &lim, base, tmpdir, err);
	if (r == 0) {
		char **lw = NULL;
		int ln = 0;
		split_words(opt->ldflags, &lw, &ln);
		/* Unresolved symbols are a build error here, not a load error later. */
		av_push(&link, "-Wl,-z,defs");
		for (int i = 0; i < ln; i++)
			av_push(&link, lw[i]);
		av_push(&link, "-lm");
		free_words(lw, ln);
		if (ln > 0)
			notes_add(res, "containment: linked as the calling user (libraries from --ldflags)");
		char log[PATH_MAX];
		snprintf(log, sizeof log, "%s/link.log", tmpdir);
		char *logp = log;
		const char *lname = opt->out_path;
		/*
		 * Libraries named with --ldflags are the user's own and may sit in
		 * directories only the user can read: then the link (contained,
		 * limited, reading only objects and those libraries) keeps the
		 * caller's uid.
		 */
		struct cc_limits link_lim = lim;
		if (ln > 0)
			link_lim.as_user = 0;
		r = run_units(&link, &logp, &lname, 1, 1, "linking", &link_lim, base, tmpdir, err);
		if (r == 0)
			r = copy_file(linked, tmp_out, err);
		if (r == 0 && rename(tmp_out, opt->out_path) != 0)
			r = pq_fail_errno(err, PQ_EIO, "%s: cannot move the library into place", opt->out_path);
		if (r < 0)
			unlink(tmp_out);
	}
	interrupt_untrack_tmp(tmp_out);
	for (int i = 0; i < nunits; i++) {
		av_free(&cmds[i]);
		free(logs[i]);
	}
	free(cmds);
	free(logs);
	free(names);
	av_free(&link);
	remove_tree(tmpdir);
	interrupt_untrack_tmp(tmpdir);
	if (r < 0)
		build_result_free(res);
	return r;
}

void build_result_free(struct build_result *res)
{
	tree_scan_free(&res->ts);
	flag_list_free(&res->flags);
}
