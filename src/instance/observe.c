/* observe: run the tree's own build contained and plan from it; see observe.h. */
#include "config.h"
#include "instance/observe.h"
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OBSERVE_DEFAULT_TIMEOUT_S 600.0
#define MAX_CANDIDATE_TARGETS 48

/* The names the wrapper is installed under. */
static const char *const wrapped_tools[] = {
	"cc", "gcc", "clang", "c++", "g++", "clang++", "ar", "gcc-ar", "gcc-ranlib", "as", "ld", "ranlib", NULL,
};

/* ---- one observed build ---- */

/* A tool invocation the wrapper recorded. */
struct rec {
	int status;
	char *tool;
	char *cwd;
	char **argv;
	int argc;
};

/* An output of the build (object, archive, shared library) and the units in it. */
struct made {
	char *path;
	int *units;
	int n;
	size_t cap;
	char **libs;          /* external libraries a shared library was linked with */
	int nlibs;
};

struct made_list {
	struct made *v;
	int n;
	size_t cap;
};

struct obs {
	const struct observe_options *o;
	char root[PATH_MAX];      /* scratch: copy/, bin/, .tmp/, logs */
	char copy[PATH_MAX];
	char bin[PATH_MAX];
	char wraplog[PATH_MAX];
	char **env;
	double deadline;
	struct plan_unit *units;  /* every unit the build compiled, in order */
	int nunits;
	size_t ucap;
	struct made_list objs, archives, shlibs;
	char target_desc[512];    /* "make kat_all" */
	struct build_plan *plan;
};

static void note_add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 3 >= len)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, len - used, "; ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *base_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

static int is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Absolute, normalised path of `p` seen from `cwd` (no symlinks resolved). */
static void abs_path(const char *cwd, const char *p, char *out, size_t len)
{
	char buf[PATH_MAX * 2];
	if (p[0] == '/')
		snprintf(buf, sizeof buf, "%s", p);
	else
		snprintf(buf, sizeof buf, "%s/%s", cwd, p);
	/* Collapse //, /./ and /../ */
	char *parts[512];
	int np = 0;
	for (char *save = NULL, *t = strtok_r(buf, "/", &save); t && np < 512; t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0) {
			if (np > 0)
				np--;
			continue;
		}
		parts[np++] = t;
	}
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < np && k + 1 < len; i++)
		k += (size_t)snprintf(out + k, len - k, "/%s", parts[i]);
	if (np == 0)
		snprintf(out, len, "/");
}

/* ---- the scratch copy ---- */

/* Copy the tree (files and directories, links followed); version-control directories stay behind. */
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
			r = copy_file_mode(a, b, sb.st_mode, err);
			if (r == 0 && give && lchown(b, uid, gid) != 0)
				r = pq_fail_errno(err, PQ_EIO, "%s: cannot hand over", b);
		}
		/* FIFOs, devices and sockets: the tree scan has refused them already. */
	}
	closedir(d);
	return r;
}

/* ---- plans kept for the process ---- */

static struct build_plan **cache;
static int ncache;
static size_t cache_cap;
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
	if (pq_grow(&roots, &roots_cap, (size_t)nroots + 1, sizeof *roots, 8) < 0)
		return -1;
	roots[nroots++] = strdup(root);
	interrupt_track_tmp(root, 1);
	return 0;
}

/* ---- running the build's steps ---- */

static int find_in_path(const char *name, char *out, size_t len)
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

/* Run one step of the build contained; its output goes to <root>/<log>.  Returns its exit status (-1: did not run). */
static int run_step(struct obs *ob, struct argv_buf *av, const char *log, int *timed_out)
{
	double left = ob->deadline - mono_s();
	*timed_out = 0;
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

static void push_tool_vars(struct obs *ob, struct argv_buf *av)
{
	av_pushf(av, "CC=%s/cc", ob->bin);
	av_pushf(av, "CXX=%s/c++", ob->bin);
	av_pushf(av, "AS=%s/as", ob->bin);
	av_pushf(av, "AR=%s/ar", ob->bin);
	av_pushf(av, "LD=%s/ld", ob->bin);
}

/* How many command lines of a dry run mention a KAT driver (its source or object)? */
static int driver_lines(const char *text)
{
	static const char *const stems[] = { "KAT_SIG", "KAT_KEM", "PQCgenKAT_sign", "PQCgenKAT_kem", NULL };
	int n = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int hit = 0;
		for (int i = 0; stems[i] && !hit; i++) {
			size_t sl = strlen(stems[i]);
			for (const char *p = line; !hit && (p = memmem(p, len - (size_t)(p - line), stems[i], sl)); p += sl)
				hit = p + sl + 1 < line + len && p[sl] == '.' && (p[sl + 1] == 'c' || p[sl + 1] == 'o');
		}
		n += hit;
		line += len + (nl ? 1 : 0);
	}
	return n;
}

/*
 * The outputs (-o NAME) of the dry run's command lines that mention a KAT
 * driver, as one string " a b c " (each name between spaces), so that
 * what another target adds can be told.
 */
static char *driver_outputs(const char *text)
{
	static const char *const stems[] = { "KAT_SIG", "KAT_KEM", "PQCgenKAT_sign", "PQCgenKAT_kem", NULL };
	size_t cap = 256, n = 1;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	strcpy(out, " ");
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int hit = 0;
		for (int i = 0; stems[i] && !hit; i++)
			hit = memmem(line, len, stems[i], strlen(stems[i])) != NULL;
		const char *o = hit ? memmem(line, len, " -o ", 4) : NULL;
		if (o) {
			o += 4;
			size_t k = 0;
			while (o + k < line + len && o[k] != ' ' && o[k] != '\t')
				k++;
			if (k > 0 && n + k + 2 < 65536) {
				if (n + k + 2 > cap) {
					char *t = realloc(out, cap = (n + k + 2) * 2);
					if (!t) {
						free(out);
						return NULL;
					}
					out = t;
				}
				memcpy(out + n, o, k);
				n += k;
				out[n++] = ' ';
				out[n] = '\0';
			}
		}
		line += len + (nl ? 1 : 0);
	}
	return out;
}

/* Whether every name of the set a (" x y ") is in the set b. */
static int outputs_within(const char *a, const char *b)
{
	for (const char *p = a + 1; *p;) {
		const char *e = strchr(p, ' ');
		if (!e)
			break;
		char name[PATH_MAX + 2];
		snprintf(name, sizeof name, " %.*s ", (int)(e - p), p);
		if (!strstr(b, name))
			return 0;
		p = e + 1;
	}
	return 1;
}

static int count_lines(const char *text)
{
	int n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* 2: named for the KATs; 1: the default goal; 0: another target. */
static int target_class(const char *t)
{
	if (!t[0])
		return 1;
	for (const char *p = t; *p; p++)
		if (strncasecmp(p, "kat", 3) == 0)
			return 2;
	return 0;
}

static int skip_target(const char *t)
{
	static const char *const skip[] = { "clean", "distclean", "mrproper", "realclean", "install", "uninstall",
		                                "Makefile", "makefile", "GNUmakefile", "dist", "help", NULL };
	for (int i = 0; skip[i]; i++)
		if (strcmp(t, skip[i]) == 0)
			return 1;
	static const char *const words[] = { "test", "check", "bench", "speed", "fuzz", "debug", "asan", "ubsan", "msan",
		                                 "tsan", "sanit", "valgrind", "cover", "gcov", "profil", NULL };
	for (int i = 0; words[i]; i++)
		if (strcasestr(t, words[i]))
			return 1;
	static const char *const ext[] = { ".o", ".c", ".h", ".d", ".S", ".s", ".a", ".so", ".mk", ".in", ".txt", NULL };
	size_t n = strlen(t);
	for (int i = 0; ext[i]; i++) {
		size_t e = strlen(ext[i]);
		if (n > e && strcmp(t + n - e, ext[i]) == 0)
			return 1;
	}
	return t[0] == '.' || strpbrk(t, "%$ \t") != NULL;
}

/*
 * The make targets to observe, from a dry run of each explicit target of
 * the make database (test, debug and sanitizer targets aside: they may
 * link the driver with switches of their own): first the one whose
 * commands link the most KAT drivers (every instance a loop or a group
 * target builds); among those, a target named for the KATs, then the
 * default goal, then any other; then the fewest commands (no convenience
 * rule beside them).  Then, in the same order, every other target that
 * links a KAT program none chosen so far links (a Makefile with one
 * target per level: PQCgenKAT_kem512, PQCgenKAT_kem768...).  Space-
 * separated into target; "" for the default goal alone.
 */
struct cand_score {
	int i, links, cls, lines;
	char *outputs;
};

static int by_score(const void *x, const void *y)
{
	const struct cand_score *a = x, *b = y;
	if (a->links != b->links)
		return b->links - a->links;
	if (a->cls != b->cls)
		return b->cls - a->cls;
	if (a->lines != b->lines)
		return a->lines - b->lines;
	return a->i - b->i;
}

static void choose_make_target(struct obs *ob, char *target, size_t len)
{
	target[0] = '\0';
	char default_goal[256] = "";
	struct argv_buf av = { 0 };
	av_push(&av, "make");
	av_push(&av, "-qp");
	push_tool_vars(ob, &av);
	int to = 0;
	run_step(ob, &av, "make-database.log", &to);
	av_free(&av);
	char path[PATH_MAX], *db = NULL;
	snprintf(path, sizeof path, "%s/make-database.log", ob->root);
	if (read_whole_file(path, &db, NULL, 64u << 20, NULL) < 0)
		return;
	char *cands[MAX_CANDIDATE_TARGETS];
	int nc = 0;
	cands[nc++] = strdup(""); /* the default goal first: it wins ties */
	int not_target = 0;
	for (char *save = NULL, *line = strtok_r(db, "\n", &save); line && nc < MAX_CANDIDATE_TARGETS;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "# Not a target:") == 0) {
			not_target = 1;
			continue;
		}
		if (strncmp(line, ".DEFAULT_GOAL := ", 17) == 0) {
			snprintf(default_goal, sizeof default_goal, "%s", line + 17);
			continue;
		}
		int was_not = not_target;
		not_target = 0;
		if (was_not || line[0] == '#' || line[0] == '\t' || line[0] == ' ')
			continue;
		char *colon = strchr(line, ':');
		if (!colon || colon == line || colon[1] == '=' || (colon[1] == ':' && colon[2] == '='))
			continue;
		*colon = '\0';
		if (skip_target(line) || strchr(line, '='))
			continue;
		int dup = 0;
		for (int i = 0; i < nc && !dup; i++)
			dup = strcmp(cands[i], line) == 0;
		if (!dup)
			cands[nc++] = strdup(line);
	}
	free(db);
	struct cand_score sc[MAX_CANDIDATE_TARGETS];
	int ns = 0;
	for (int i = 0; i < nc && mono_s() < ob->deadline; i++) {
		struct argv_buf dry = { 0 };
		av_push(&dry, "make");
		av_push(&dry, "-n");
		av_push(&dry, "-B");
		if (cands[i][0])
			av_push(&dry, cands[i]);
		push_tool_vars(ob, &dry);
		int st = run_step(ob, &dry, "make-dry-run.log", &to);
		av_free(&dry);
		char *text = NULL;
		snprintf(path, sizeof path, "%s/make-dry-run.log", ob->root);
		if (st != 0 || read_whole_file(path, &text, NULL, 16u << 20, NULL) < 0) {
			free(text);
			continue;
		}
		int links = driver_lines(text);
		if (links > 0)
			sc[ns++] = (struct cand_score){ .i = i, .links = links, .cls = target_class(cands[i]),
				                        .lines = count_lines(text), .outputs = driver_outputs(text) };
		free(text);
	}
	qsort(sc, (size_t)ns, sizeof *sc, by_score);
	/* What the chosen targets link so far, as " a b c ". */
	char *covered = ns > 0 && sc[0].outputs ? strdup(sc[0].outputs) : NULL;
	for (int k = 0; k < ns; k++) {
		const char *name = cands[sc[k].i][0] ? cands[sc[k].i] : default_goal;
		int add = k == 0;
		if (!add && covered && sc[k].outputs && name[0] && !outputs_within(sc[k].outputs, covered)) {
			size_t a = strlen(covered), b = strlen(sc[k].outputs);
			char *t = realloc(covered, a + b + 1);
			if (t) {
				covered = t;
				memcpy(covered + a, sc[k].outputs + 1, b);  /* keeps the separating spaces */
				add = 1;
			}
		}
		if (!add)
			continue;
		size_t used = strlen(target);
		if (k > 0 && !target[0] && default_goal[0])
			used = (size_t)snprintf(target, len, "%s", default_goal);  /* the default goal, now by its name */
		if (used + strlen(name) + 2 < len)
			snprintf(target + used, len - used, "%s%s", used ? " " : "", k == 0 ? cands[sc[k].i] : name);
	}
	free(covered);
	for (int k = 0; k < ns; k++)
		free(sc[k].outputs);
	for (int i = 0; i < nc; i++)
		free(cands[i]);
}

/* The first line of a log that contains `what`, trimmed, into out. */
static int log_line_with(const char *log, const char *what, char *out, size_t len)
{
	char *text = NULL;
	if (read_whole_file(log, &text, NULL, 16u << 20, NULL) < 0)
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

static void tail_excerpt(const char *log, char *out, size_t len)
{
	char *text = NULL;
	out[0] = '\0';
	if (read_whole_file(log, &text, NULL, 16u << 20, NULL) < 0)
		return;
	/* the first line that reports an error, else the last lines */
	const char *p = strstr(text, "rror");
	if (p) {
		while (p > text && p[-1] != '\n')
			p--;
	} else {
		size_t n = strlen(text);
		p = text + (n > 300 ? n - 300 : 0);
	}
	size_t k = 0;
	for (; *p && k + 1 < len && k < 300; p++)
		out[k++] = *p == '\n' ? ' ' : *p;
	out[k] = '\0';
	free(text);
}

/*
 * A level chosen by a cache variable the top CMakeLists.txt lists the
 * values of (set_property(CACHE VAR PROPERTY STRINGS 1 3 5)): the
 * variable and its values; 0 when there is none.
 */
static int cmake_level_values(const char *copy, char *var, size_t vlen, char values[][64], int max)
{
	char path[PATH_MAX], *text = NULL;
	snprintf(path, sizeof path, "%s/CMakeLists.txt", copy);
	if (read_whole_file(path, &text, NULL, 4u << 20, NULL) < 0)
		return 0;
	int n = 0;
	for (char *p = text; n == 0 && (p = strcasestr(p, "set_property")); p++) {
		char *open = strchr(p, '('), *close = open ? strchr(open, ')') : NULL;
		if (!close)
			break;
		char args[1024];
		snprintf(args, sizeof args, "%.*s", (int)(close - open - 1), open + 1);
		char **w = NULL;
		int nw = 0;
		if (shell_split(args, &w, &nw) < 0)
			continue;
		if (nw >= 5 && strcmp(w[0], "CACHE") == 0 && strcmp(w[2], "PROPERTY") == 0 && strcmp(w[3], "STRINGS") == 0 &&
		    !strchr(w[1], '$')) {
			snprintf(var, vlen, "%s", w[1]);
			for (int i = 4; i < nw && n < max; i++) {
				/* "1;3;5" is one argument holding a list */
				char *save = NULL;
				for (char *v = strtok_r(w[i], ";", &save); v && n < max; v = strtok_r(NULL, ";", &save))
					if (!strchr(v, '$'))
						snprintf(values[n++], 64, "%s", v);
			}
		}
		for (int i = 0; i < nw; i++)
			free(w[i]);
		free(w);
	}
	free(text);
	return n;
}

/*
 * Configure the tree into its own build directory (one per level value
 * when `var` is set) and build its KAT targets, else all.  Returns the
 * build's exit status, -2 when configuring failed (plan->why says why).
 */
static int cmake_build_one(struct obs *ob, const char *var, const char *value, int *to)
{
	struct build_plan *p = ob->plan;
	char log[PATH_MAX];
	char bdir[PATH_MAX + 100];
	if (var)
		snprintf(bdir, sizeof bdir, "%s/.pqprof-cmake-%s", ob->copy, value);
	else
		snprintf(bdir, sizeof bdir, "%s/.pqprof-cmake", ob->copy);

	struct argv_buf av = { 0 };
	av_push(&av, "cmake");
	av_push(&av, "-S");
	av_push(&av, ob->copy);
	av_push(&av, "-B");
	av_push(&av, bdir);
	av_push(&av, "-G");
	av_push(&av, "Unix Makefiles");
	av_push(&av, "-DCMAKE_BUILD_TYPE=Release");
	if (var)
		av_pushf(&av, "-D%s=%s", var, value);
	av_pushf(&av, "-DCMAKE_C_COMPILER=%s/cc", ob->bin);
	av_pushf(&av, "-DCMAKE_CXX_COMPILER=%s/c++", ob->bin);
	av_pushf(&av, "-DCMAKE_AR=%s/ar", ob->bin);
	av_pushf(&av, "-DCMAKE_LINKER=%s/ld", ob->bin);
	int st = run_step(ob, &av, "cmake-configure.log", to);
	av_free(&av);
	if (st != 0) {
		char ex[400];
		snprintf(log, sizeof log, "%s/cmake-configure.log", ob->root);
		tail_excerpt(log, ex, sizeof ex);
		note_add(p->why, sizeof p->why, "cmake could not configure the tree (%s): %s",
		         *to ? "stopped at the time limit" : "exit status", ex);
		return -2;
	}
	/* The KAT targets of each level, else everything. */
	struct argv_buf help = { 0 };
	av_push(&help, "cmake");
	av_push(&help, "--build");
	av_push(&help, bdir);
	av_push(&help, "--target");
	av_push(&help, "help");
	run_step(ob, &help, "cmake-targets.log", to);
	av_free(&help);
	char *text = NULL;
	struct argv_buf bd = { 0 };
	av_push(&bd, "cmake");
	av_push(&bd, "--build");
	av_push(&bd, bdir);
	char targets[512] = "";
	snprintf(log, sizeof log, "%s/cmake-targets.log", ob->root);
	if (read_whole_file(log, &text, NULL, 4u << 20, NULL) == 0) {
		int first = 1;
		for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "... ", 4) != 0)
				continue;
			char name[256];
			if (sscanf(line + 4, "%255s", name) != 1)
				continue;
			char low[256];
			size_t k = 0;
			for (; name[k] && k + 1 < sizeof low; k++)
				low[k] = (char)tolower((unsigned char)name[k]);
			low[k] = '\0';
			/* object-file targets (dir/x.c.o) and test programs are not KAT targets */
			if (!strstr(low, "kat") || strchr(name, '/') || strchr(name, '.') || skip_target(name))
				continue;
			if (first)
				av_push(&bd, "--target");
			first = 0;
			av_push(&bd, name);
			size_t tl = strlen(targets);
			snprintf(targets + tl, sizeof targets - tl, "%s%s", tl ? ", " : "", name);
		}
		free(text);
	}
	av_push(&bd, "--");
	av_push(&bd, "-k");
	snprintf(p->how, sizeof p->how, "cmake -DCMAKE_BUILD_TYPE=Release (C compiler: the pqprof compiler wrapper); "
	         "cmake --build, target%s %s", strchr(targets, ',') ? "s" : "", targets[0] ? targets : "all");
	snprintf(ob->target_desc, sizeof ob->target_desc, "cmake%s%s%s%s --build %s", var ? " -D" : "", var ? var : "",
	         var ? "=" : "", var ? value : "", targets[0] ? targets : "all");
	int st2 = run_step(ob, &bd, "build.log", to);
	av_free(&bd);
	return st2;

}

/* Run the build: make or cmake.  Fills plan->how and plan->why. */
static void run_build(struct obs *ob, int cmake)
{
	struct build_plan *p = ob->plan;
	int to = 0, st;
	char log[PATH_MAX];
	if (!cmake) {
		char target[1024];
		choose_make_target(ob, target, sizeof target);
		struct argv_buf av = { 0 };
		av_push(&av, "make");
		av_push(&av, "-k");
		av_push(&av, "-B");
		char words[1024];
		snprintf(words, sizeof words, "%s", target);
		for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
			av_push(&av, w);
		push_tool_vars(ob, &av);
		snprintf(p->how, sizeof p->how, "make -B %s, with CC, CXX, AS, AR and LD set to the pqprof compiler wrapper",
		         target[0] ? target : "(default goal)");
		snprintf(ob->target_desc, sizeof ob->target_desc, "make %s", target[0] ? target : "(default goal)");
		st = run_step(ob, &av, "build.log", &to);
		av_free(&av);
	} else {
		/* One configuration, or one per value of a level cache variable the tree lists. */
		char var[128] = "", values[16][64];
		int nval = cmake_level_values(ob->copy, var, sizeof var, values, 16);
		for (int i = 0; i < (nval > 0 ? nval : 1); i++) {
			st = cmake_build_one(ob, nval > 0 ? var : NULL, nval > 0 ? values[i] : NULL, &to);
			if (st == -2)
				return;
		}
		if (nval > 0) {
			char what[512] = "";
			for (int i = 0; i < nval; i++) {
				size_t n = strlen(what);
				snprintf(what + n, sizeof what - n, "%s%s", i ? ", " : "", values[i]);
			}
			size_t n = strlen(p->how);
			snprintf(p->how + n, sizeof p->how - n, "; configured once per %s (%s)", var, what);
		}
	}
	snprintf(log, sizeof log, "%s/build.log", ob->root);
	if (st < 0)
		note_add(p->why, sizeof p->why, "the tree's build could not be started");
	else if (to)
		note_add(p->why, sizeof p->why, "the tree's build was stopped at the time limit");
	else if (st != 0) {
		char ex[400];
		tail_excerpt(log, ex, sizeof ex);
		note_add(p->why, sizeof p->why, "the tree's build failed (exit %d): %s", st, ex);
	}
}

/* What the build did outside its copy: files in its private /tmp, refused writes, network attempts. */
static void check_outside(struct obs *ob)
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
		if (is_below(ob->root, mine))
			continue; /* where pqprof bound the copy itself */
		if (nt++ < 5)
			note_add(names, sizeof names, "/tmp/%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (nt)
		note_add(p->outside, sizeof p->outside, "wrote %d entr%s to /tmp (%s), kept in its private /tmp and discarded",
		         nt, nt == 1 ? "y" : "ies", names);
	static const char *const logs[] = { "build.log", "cmake-configure.log", NULL };
	for (int i = 0; logs[i]; i++) {
		char log[PATH_MAX], line[256];
		snprintf(log, sizeof log, "%s/%s", ob->root, logs[i]);
		if (log_line_with(log, "Read-only file system", line, sizeof line))
			note_add(p->outside, sizeof p->outside, "tried to write outside its copy and was refused (\"%s\")", line);
		static const char *const net[] = { "Network is unreachable", "Temporary failure in name resolution",
			                               "Could not resolve host", NULL };
		for (int k = 0; net[k]; k++)
			if (log_line_with(log, net[k], line, sizeof line)) {
				note_add(p->outside, sizeof p->outside, "tried to reach the network and could not (\"%s\")", line);
				break;
			}
	}
}

/* ---- reading the wrapper's log ---- */

static char *unescape_field(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			o[k++] = c == 't' ? '\t' : c == 'n' ? '\n' : c;
		} else {
			o[k++] = s[i];
		}
	}
	o[k] = '\0';
	return o;
}

static void rec_free(struct rec *r)
{
	free(r->tool);
	free(r->cwd);
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
}

/* One log line into a record; -1 when malformed. */
static int parse_rec(char *line, struct rec *r)
{
	memset(r, 0, sizeof *r);
	char *fields[4096];
	int nf = 0;
	char *p = line;
	fields[nf++] = p;
	for (; *p && nf < 4096; p++)
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '\t') {
			*p = '\0';
			fields[nf++] = p + 1;
		}
	if (nf < 3)
		return -1;
	r->status = atoi(fields[0]);
	r->tool = unescape_field(fields[1], strlen(fields[1]));
	r->cwd = unescape_field(fields[2], strlen(fields[2]));
	r->argc = nf - 3;
	r->argv = calloc((size_t)r->argc + 1, sizeof *r->argv);
	for (int i = 0; i < r->argc && r->argv; i++)
		r->argv[i] = unescape_field(fields[3 + i], strlen(fields[3 + i]));
	return r->tool && r->cwd && r->argv ? 0 : -1;
}

static int is_compiler(const char *tool)
{
	if (strstr(tool, "-ar") || strstr(tool, "-nm") || strstr(tool, "-ranlib"))
		return 0;
	return strcmp(tool, "cc") == 0 || strcmp(tool, "c++") == 0 || strstr(tool, "gcc") || strstr(tool, "g++") ||
	       strstr(tool, "clang");
}

static int is_archiver(const char *tool)
{
	return strcmp(tool, "ar") == 0 || strstr(tool, "-ar") != NULL;
}

static int has_ext(const char *p, const char *const *exts)
{
	const char *dot = strrchr(base_of(p), '.');
	if (!dot)
		return 0;
	for (int i = 0; exts[i]; i++)
		if (strcmp(dot, exts[i]) == 0)
			return 1;
	return 0;
}

static const char *const c_exts[] = { ".c", ".S", ".s", ".sx", NULL };
static const char *const cxx_exts[] = { ".cc", ".cpp", ".cxx", ".C", ".c++", NULL };

/* Options whose value is the next argument. */
static int takes_value(const char *a)
{
	static const char *const two[] = { "-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote",
		                               "-idirafter", "-MF", "-MT", "-MQ", "-x", "-L", "-l", "-Xlinker",
		                               "-Xassembler", "-Xpreprocessor", "-T", "-u", "-e", "--param",
		                               "-aux-info", "-isysroot", "--sysroot", "-arch", NULL };
	for (int i = 0; two[i]; i++)
		if (strcmp(a, two[i]) == 0)
			return 1;
	return 0;
}

struct cmdline {
	int compile;          /* -c */
	int other;            /* -E, -S, -M without -c: neither compile nor link */
	int shared;
	char out[PATH_MAX];
	char **inputs;        /* sources, objects, archives, libraries, in order (absolute) */
	int ninputs;
	size_t icap;
	char **libs;          /* -lNAME as written */
	int nlibs;
	size_t lcap;
	char **libdirs;       /* -L, absolute */
	int nlibdirs;
	size_t dcap;
	struct flag_list flags, info;
};

static void cmdline_free(struct cmdline *c)
{
	for (int i = 0; i < c->ninputs; i++)
		free(c->inputs[i]);
	free(c->inputs);
	for (int i = 0; i < c->nlibs; i++)
		free(c->libs[i]);
	free(c->libs);
	for (int i = 0; i < c->nlibdirs; i++)
		free(c->libdirs[i]);
	free(c->libdirs);
	flag_list_free(&c->flags);
	flag_list_free(&c->info);
}

static void push_str(char ***v, int *n, size_t *cap, const char *s)
{
	if (pq_grow(v, cap, (size_t)*n + 1, sizeof **v, 8) == 0)
		(*v)[(*n)++] = strdup(s);
}

/* Classify one compiler flag the way the reader does, with -I made absolute and checked against the copy. */
static void keep_flag(struct cmdline *c, const struct obs *ob, const char *flag, const char *cwd, const char *origin)
{
	if (strncmp(flag, "-I", 2) == 0 && flag[2]) {
		char a[PATH_MAX], f[PATH_MAX + 4];
		abs_path(cwd, flag + 2, a, sizeof a);
		snprintf(f, sizeof f, "-I%s", a);
		flag_list_add(is_below(a, ob->copy) ? &c->flags : &c->info, f, origin);
		return;
	}
	int k = tree_flag_kind(flag);
	if (k == 1)
		flag_list_add(&c->flags, flag, origin);
	else if (k == 2)
		flag_list_add(&c->info, flag, origin);
}

static void parse_cmdline(const struct obs *ob, const struct rec *r, struct cmdline *c, const char *origin)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < r->argc; i++) {
		const char *a = r->argv[i];
		const char *next = i + 1 < r->argc ? r->argv[i + 1] : NULL;
		if (a[0] != '-' || !a[1]) {
			char p[PATH_MAX];
			abs_path(r->cwd, a, p, sizeof p);
			push_str(&c->inputs, &c->ninputs, &c->icap, p);
			continue;
		}
		if (strcmp(a, "-c") == 0)
			c->compile = 1;
		else if (strcmp(a, "-E") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-M") == 0 || strcmp(a, "-MM") == 0)
			c->other = 1;
		else if (strcmp(a, "-shared") == 0)
			c->shared = 1;
		if (takes_value(a) && next) {
			if (strcmp(a, "-o") == 0)
				abs_path(r->cwd, next, c->out, sizeof c->out);
			else if (strcmp(a, "-I") == 0 || strcmp(a, "-isystem") == 0 || strcmp(a, "-iquote") == 0 ||
			         strcmp(a, "-idirafter") == 0) {
				char f[PATH_MAX + 4];
				snprintf(f, sizeof f, "-I%s", next);
				keep_flag(c, ob, f, r->cwd, origin);
			} else if (strcmp(a, "-D") == 0 || strcmp(a, "-U") == 0) {
				char f[PATH_MAX + 4];
				snprintf(f, sizeof f, "%s%s", a, next);
				keep_flag(c, ob, f, r->cwd, origin);
			} else if (strcmp(a, "-L") == 0) {
				char p[PATH_MAX];
				abs_path(r->cwd, next, p, sizeof p);
				push_str(&c->libdirs, &c->nlibdirs, &c->dcap, p);
			} else if (strcmp(a, "-l") == 0) {
				char f[300];
				snprintf(f, sizeof f, "-l%s", next);
				push_str(&c->libs, &c->nlibs, &c->lcap, f);
			}
			i++;
			continue;
		}
		if (strncmp(a, "-o", 2) == 0)
			abs_path(r->cwd, a + 2, c->out, sizeof c->out);
		else if (strncmp(a, "-L", 2) == 0) {
			char p[PATH_MAX];
			abs_path(r->cwd, a + 2, p, sizeof p);
			push_str(&c->libdirs, &c->nlibdirs, &c->dcap, p);
		} else if (strncmp(a, "-l", 2) == 0)
			push_str(&c->libs, &c->nlibs, &c->lcap, a);
		else if (strncmp(a, "-isystem", 8) == 0 || strncmp(a, "-iquote", 7) == 0) {
			char f[PATH_MAX + 4];
			snprintf(f, sizeof f, "-I%s", a + (a[2] == 's' ? 8 : 7));
			keep_flag(c, ob, f, r->cwd, origin);
		} else if (strcmp(a, "-fPIC") == 0 || strcmp(a, "-fpic") == 0 || strcmp(a, "-fPIE") == 0 ||
		           strcmp(a, "-fpie") == 0)
			; /* pqprof decides position independence */
		else
			keep_flag(c, ob, a, r->cwd, origin);
	}
	if (c->compile && c->other)
		c->other = 0;
}

static struct made *made_find(struct made_list *l, const char *path)
{
	for (int i = l->n - 1; i >= 0; i--)
		if (strcmp(l->v[i].path, path) == 0)
			return &l->v[i];
	return NULL;
}

/* The entry for `path`, emptied (a rebuilt output replaces the old one). */
static struct made *made_reset(struct made_list *l, const char *path)
{
	struct made *m = made_find(l, path);
	if (m) {
		m->n = 0;
		for (int i = 0; i < m->nlibs; i++)
			free(m->libs[i]);
		m->nlibs = 0;
		return m;
	}
	if (pq_grow(&l->v, &l->cap, (size_t)l->n + 1, sizeof *l->v, 16) < 0)
		return NULL;
	m = &l->v[l->n++];
	memset(m, 0, sizeof *m);
	m->path = strdup(path);
	return m;
}

static void made_add(struct made *m, int unit)
{
	for (int i = 0; i < m->n; i++)
		if (m->units[i] == unit)
			return;
	if (pq_grow(&m->units, &m->cap, (size_t)m->n + 1, sizeof *m->units, 16) == 0)
		m->units[m->n++] = unit;
}

static void made_add_all(struct made *m, const struct made *from)
{
	for (int i = 0; i < from->n; i++)
		made_add(m, from->units[i]);
}

static int add_unit(struct obs *ob, const char *src, const char *cwd, const struct cmdline *c)
{
	if (pq_grow(&ob->units, &ob->ucap, (size_t)ob->nunits + 1, sizeof *ob->units, 32) < 0)
		return -1;
	struct plan_unit *u = &ob->units[ob->nunits];
	memset(u, 0, sizeof *u);
	u->src = strdup(src);
	u->rel = strdup(is_below(src, ob->copy) ? src + strlen(ob->copy) + 1 : src);
	u->cwd = strdup(cwd);
	u->is_asm = has_ext(src, (const char *const[]){ ".S", ".s", ".sx", NULL });
	for (int i = 0; i < c->flags.n; i++)
		flag_list_add(&u->flags, c->flags.v[i].flag, c->flags.v[i].origin);
	for (int i = 0; i < c->info.n; i++)
		flag_list_add(&u->info, c->info.v[i].flag, c->info.v[i].origin);
	return ob->nunits++;
}

/* Units a link (or an archive of it) holds; external libraries into `libs`. */
static void resolve_link(struct obs *ob, const struct rec *r, const struct cmdline *c, struct made *into)
{
	char origin[PATH_MAX + 300];
	for (int i = 0; i < c->ninputs; i++) {
		const char *in = c->inputs[i];
		struct made *m;
		if (has_ext(in, c_exts)) {
			/* compiled and linked at once: these flags are the unit's */
			snprintf(origin, sizeof origin, "observed: `%s`, compile of %s", ob->target_desc,
			         is_below(in, ob->copy) ? in + strlen(ob->copy) + 1 : in);
			struct cmdline cu;
			parse_cmdline(ob, r, &cu, origin);
			int u = add_unit(ob, in, r->cwd, &cu);
			cmdline_free(&cu);
			if (u >= 0)
				made_add(into, u);
		} else if ((m = made_find(&ob->objs, in)) || (m = made_find(&ob->archives, in)) ||
		           (m = made_find(&ob->shlibs, in))) {
			made_add_all(into, m);
			for (int k = 0; k < m->nlibs; k++)
				push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, m->libs[k]);
		} else if (!is_below(in, ob->copy) && (strstr(in, ".so") || has_ext(in, (const char *const[]){ ".a", NULL }))) {
			push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, in);
		}
	}
	/* -lNAME: an archive or library the build made in a -L directory, else an external library. */
	for (int i = 0; i < c->nlibs; i++) {
		const char *name = c->libs[i] + 2;
		struct made *m = NULL;
		for (int d = 0; d < c->nlibdirs && !m; d++) {
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%s/lib%s.a", c->libdirs[d], name);
			if (!(m = made_find(&ob->archives, p))) {
				snprintf(p, sizeof p, "%s/lib%s.so", c->libdirs[d], name);
				m = made_find(&ob->shlibs, p);
			}
		}
		if (m)
			made_add_all(into, m);
		else
			push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, c->libs[i]);
	}
}

static void copy_flags(struct flag_list *to, const struct flag_list *from)
{
	for (int i = 0; i < from->n; i++)
		flag_list_add(to, from->v[i].flag, from->v[i].origin);
}

static void unit_copy(struct plan_unit *to, const struct plan_unit *from)
{
	memset(to, 0, sizeof *to);
	to->src = strdup(from->src);
	to->rel = strdup(from->rel);
	to->cwd = strdup(from->cwd);
	to->is_asm = from->is_asm;
	copy_flags(&to->flags, &from->flags);
	copy_flags(&to->info, &from->info);
}

/*
 * The headers the driver includes with quotes, found beside it or on its
 * -I path: the shim and the name probe include them too, since a tree's
 * sizes and name may be defined there rather than in api.h.  The
 * driver's random generator header (rng.h) is left out: the harness
 * supplies randombytes().
 */
static void driver_includes(const struct plan_unit *du, struct plan_instance *pi)
{
	char *text = NULL;
	if (read_whole_file(du->src, &text, NULL, 16u << 20, NULL) < 0)
		return;
	char dir[PATH_MAX];
	str_copy(dir, sizeof dir, du->src);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line != '#')
			continue;
		line++;
		while (*line == ' ' || *line == '\t')
			line++;
		char name[PATH_MAX];
		if (strncmp(line, "include", 7) != 0 || sscanf(line + 7, " \"%4095[^\"]\"", name) != 1)
			continue;
		const char *b = base_of(name);
		if (strcmp(b, "rng.h") == 0 || strcmp(b, "randombytes.h") == 0)
			continue;
		char found[PATH_MAX];
		struct stat sb;
		abs_path(dir, name, found, sizeof found);
		for (int i = 0; stat(found, &sb) != 0 && i < du->flags.n; i++)
			if (strncmp(du->flags.v[i].flag, "-I", 2) == 0)
				abs_path(du->flags.v[i].flag + 2, name, found, sizeof found);
		if (stat(found, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		char **nv = realloc(pi->includes, ((size_t)pi->nincludes + 1) * sizeof *nv);
		if (!nv)
			break;
		pi->includes = nv;
		pi->includes[pi->nincludes++] = strdup(found);
	}
	free(text);
}

/*
 * NIST trees: the KAT generator's random source (rng.c, or a file by
 * another name that defines randombytes(), e.g. randombytes_ctrdrbg.c) is
 * the harness's to supply, through the shim.
 */
static int defines_randombytes(const char *src)
{
	char *text = NULL;
	if (!has_ext(src, (const char *const[]){ ".c", NULL }) || read_whole_file(src, &text, NULL, 64u << 20, NULL) < 0)
		return 0;
	int r = source_defines_function(text, "randombytes");
	free(text);
	return r;
}

/* A link of a KAT driver: one instance of the plan. */
static void add_instance(struct obs *ob, const struct cmdline *c, const struct made *linked)
{
	struct build_plan *p = ob->plan;
	int driver = -1;
	for (int i = 0; i < linked->n && driver < 0; i++)
		if (tree_is_kat_driver(base_of(ob->units[linked->units[i]].src)))
			driver = linked->units[i];
	if (driver < 0)
		return;
	char program[256];
	snprintf(program, sizeof program, "%s", is_below(c->out, ob->copy) ? c->out + strlen(ob->copy) + 1 : c->out);
	struct plan_instance *pi = NULL;
	for (int i = 0; i < p->ninst && !pi; i++)
		if (strcmp(p->inst[i].program, program) == 0)
			pi = &p->inst[i]; /* linked again: the last link counts */
	if (pi) {
		for (int i = 0; i < pi->nunits; i++) {
			free(pi->units[i].src);
			free(pi->units[i].rel);
			free(pi->units[i].cwd);
			flag_list_free(&pi->units[i].flags);
			flag_list_free(&pi->units[i].info);
		}
		free(pi->units);
		flag_list_free(&pi->driver_flags);
		flag_list_free(&pi->link_flags);
		for (int i = 0; i < pi->nlibs; i++)
			free(pi->libs[i]);
		free(pi->libs);
		for (int i = 0; i < pi->nincludes; i++)
			free(pi->includes[i]);
		free(pi->includes);
	} else {
		struct plan_instance *nv = realloc(p->inst, ((size_t)p->ninst + 1) * sizeof *nv);
		if (!nv)
			return;
		p->inst = nv;
		pi = &p->inst[p->ninst++];
	}
	memset(pi, 0, sizeof *pi);
	str_copy(pi->program, sizeof pi->program, program);
	const struct plan_unit *du = &ob->units[driver];
	str_copy(pi->driver, sizeof pi->driver, du->rel);
	copy_flags(&pi->driver_flags, &du->flags);
	driver_includes(du, pi);
	for (int i = 0; i < ob->objs.n; i++)
		for (int k = 0; k < ob->objs.v[i].n; k++)
			if (ob->objs.v[i].units[k] == driver)
				str_copy(pi->driver_obj, sizeof pi->driver_obj, ob->objs.v[i].path);
	pi->units = calloc((size_t)linked->n, sizeof *pi->units);
	for (int i = 0; i < linked->n && pi->units; i++) {
		const struct plan_unit *u = &ob->units[linked->units[i]];
		const char *b = base_of(u->src);
		if (tree_is_kat_driver(b))
			continue;
		if (has_ext(u->src, cxx_exts)) {
			note_add(pi->left_out, sizeof pi->left_out, "%s: C++ (pqprof builds C and assembly)", u->rel);
			continue;
		}
		if (ob->o->api == TREE_API_NIST && (strcmp(b, "rng.c") == 0 || defines_randombytes(u->src))) {
			note_add(pi->left_out, sizeof pi->left_out, "%s: defines randombytes() (the harness supplies it)", u->rel);
			continue;
		}
		unit_copy(&pi->units[pi->nunits++], u);
	}
	for (int i = 0; i < c->flags.n; i++) {
		const char *f = c->flags.v[i].flag;
		if ((strncmp(f, "-f", 2) == 0 || strncmp(f, "-m", 2) == 0))
			flag_list_add(&pi->link_flags, f, c->flags.v[i].origin);
	}
	pi->libs = calloc((size_t)linked->nlibs + 1, sizeof *pi->libs);
	for (int i = 0; i < linked->nlibs && pi->libs; i++) {
		int dup = 0;
		for (int k = 0; k < pi->nlibs && !dup; k++)
			dup = strcmp(pi->libs[k], linked->libs[i]) == 0;
		if (!dup)
			pi->libs[pi->nlibs++] = strdup(linked->libs[i]);
	}
}

static void read_records(struct obs *ob)
{
	char *text = NULL;
	if (read_whole_file(ob->wraplog, &text, NULL, 256u << 20, NULL) < 0)
		return;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct rec r;
		/* Failed compiles made nothing; a failed link of a KAT driver still says what it needs (-lntl). */
		if (parse_rec(line, &r) < 0 || r.argc == 0 || (r.status != 0 && !is_compiler(r.tool))) {
			rec_free(&r);
			continue;
		}
		if (is_archiver(r.tool)) {
			/* ar [-]OPS [--plugin P] ARCHIVE MEMBER... */
			int i = 0;
			const char *ops = r.argv[i++];
			while (i < r.argc && strcmp(r.argv[i], "--plugin") == 0)
				i += 2;
			if (i < r.argc && (strchr(ops, 'r') || strchr(ops, 'q'))) {
				char a[PATH_MAX];
				abs_path(r.cwd, r.argv[i++], a, sizeof a);
				struct made *m = made_find(&ob->archives, a);
				if (!m)
					m = made_reset(&ob->archives, a);
				for (; m && i < r.argc; i++) {
					char obj[PATH_MAX];
					abs_path(r.cwd, r.argv[i], obj, sizeof obj);
					struct made *o = made_find(&ob->objs, obj);
					if (o)
						made_add_all(m, o);
				}
			}
		} else if (is_compiler(r.tool)) {
			char origin[PATH_MAX + 300];
			struct cmdline c;
			parse_cmdline(ob, &r, &c, "");
			if (c.compile && r.status != 0) {
				/* nothing was made */
			} else if (c.compile) {
				for (int i = 0; i < c.ninputs; i++) {
					if (!has_ext(c.inputs[i], c_exts) && !has_ext(c.inputs[i], cxx_exts))
						continue;
					snprintf(origin, sizeof origin, "observed: `%s`, compile of %s", ob->target_desc,
					         is_below(c.inputs[i], ob->copy) ? c.inputs[i] + strlen(ob->copy) + 1 : c.inputs[i]);
					struct cmdline cu;
					parse_cmdline(ob, &r, &cu, origin);
					int u = add_unit(ob, c.inputs[i], r.cwd, &cu);
					cmdline_free(&cu);
					char obj[PATH_MAX];
					if (c.out[0] && c.ninputs == 1) {
						snprintf(obj, sizeof obj, "%s", c.out);
					} else {
						char b[PATH_MAX];
						snprintf(b, sizeof b, "%s", base_of(c.inputs[i]));
						char *dot = strrchr(b, '.');
						if (dot)
							*dot = '\0';
						snprintf(obj, sizeof obj, "%s/%s.o", r.cwd, b);
					}
					struct made *m = made_reset(&ob->objs, obj);
					if (m && u >= 0)
						made_add(m, u);
				}
			} else if (!c.other && c.ninputs > 0) {
				char out[PATH_MAX];
				snprintf(origin, sizeof origin, "observed: `%s`, link of %s", ob->target_desc,
				         c.out[0] && is_below(c.out, ob->copy) ? c.out + strlen(ob->copy) + 1 : "a.out");
				struct cmdline cl;
				parse_cmdline(ob, &r, &cl, origin);
				if (!cl.out[0])
					snprintf(cl.out, sizeof cl.out, "%s/a.out", r.cwd);
				snprintf(out, sizeof out, "%s", cl.out);
				struct made linked = { 0 };
				linked.path = out;
				resolve_link(ob, &r, &cl, &linked);
				if (cl.shared) {
					struct made *m = made_reset(&ob->shlibs, out);
					if (m) {
						made_add_all(m, &linked);
						for (int k = 0; k < linked.nlibs; k++)
							push_str(&m->libs, &m->nlibs, &(size_t){ (size_t)m->nlibs }, linked.libs[k]);
					}
				} else {
					add_instance(ob, &cl, &linked);
				}
				free(linked.units);
				for (int k = 0; k < linked.nlibs; k++)
					free(linked.libs[k]);
				free(linked.libs);
				cmdline_free(&cl);
			}
			cmdline_free(&c);
		}
		rec_free(&r);
	}
	free(text);
}

/* ---- naming the instances ---- */

/* The string literal(s) after `key` in preprocessed text, concatenated; 0 when absent or not a string. */
static int string_after(const char *text, const char *key, char *out, size_t len)
{
	const char *p = strstr(text, key);
	if (!p)
		return 0;
	p += strlen(key);
	size_t k = 0;
	int any = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '"')
			break;
		any = 1;
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (k + 1 < len)
				out[k++] = *p;
		}
		if (*p == '"')
			p++;
	}
	out[k] = '\0';
	return any && k > 0;
}

/* What the instance's library will report: its header's name macro, preprocessed with the driver's flags. */
static void name_instance(struct obs *ob, struct plan_instance *pi)
{
	if (!ob->o->header || !ob->o->header[0])
		return;
	char src[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
	snprintf(src, sizeof src, "%s/pqprof-name.c", ob->root);
	snprintf(out, sizeof out, "%s/pqprof-name.i", ob->root);
	snprintf(log, sizeof log, "%s/pqprof-name.log", ob->root);
	char text[PATH_MAX * 8];
	/* NIST: the driver's own includes name the API it was built against; NGCC: the instance header. */
	int n = ob->o->api == TREE_API_NIST && pi->nincludes ? 0
	        : snprintf(text, sizeof text, "#include \"%s/%s\"\n", ob->copy, ob->o->header);
	for (int i = 0; i < pi->nincludes && (size_t)n + PATH_MAX < sizeof text; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "#include \"%s\"\n", pi->includes[i]);
	n += snprintf(text + n, sizeof text - (size_t)n,
	              "pqprof_instance_name_is ALGORITHM_INSTANCE\npqprof_nist_name_is CRYPTO_ALGNAME\n");
	if (atomic_write(src, text, (size_t)n, NULL) < 0)
		return;
	chmod(src, 0644);
	struct argv_buf av = { 0 };
	av_push(&av, ob->o->cc && *ob->o->cc ? ob->o->cc : "cc");
	av_push(&av, "-E");
	av_push(&av, "-P");
	for (int i = 0; i < pi->driver_flags.n; i++)
		if (strncmp(pi->driver_flags.v[i].flag, "-D", 2) == 0 || strncmp(pi->driver_flags.v[i].flag, "-U", 2) == 0 ||
		    strncmp(pi->driver_flags.v[i].flag, "-I", 2) == 0 || strncmp(pi->driver_flags.v[i].flag, "-std=", 5) == 0)
			av_push(&av, pi->driver_flags.v[i].flag);
	av_pushf(&av, "-I%s", ob->copy);
	av_push(&av, src);
	struct cc_limits lim = { .timeout_s = 60, .as_limit = CC_DEFAULT_AS_LIMIT, .as_user = 0 };
	struct contained ct;
	pid_t pid = spawn_logged(&ct, av.v, log, &lim);
	av_free(&av);
	if (pid < 0)
		return;
	int st = 0, to = 0;
	wait_limited(&ct, &lim, &st, &to);
	interrupt_untrack_pid(pid);
	contain_finish(&ct);
	char *pre = NULL;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || read_whole_file(log, &pre, NULL, 64u << 20, NULL) < 0) {
		free(pre);
		return;
	}
	if (!string_after(pre, "pqprof_instance_name_is", pi->name, sizeof pi->name))
		string_after(pre, "pqprof_nist_name_is", pi->name, sizeof pi->name);
	free(pre);
}

/* The -D value that tells each instance from the others (XXX_INSTANCE=XXX_160F gives XXX_160F). */
static void label_instances(struct build_plan *p)
{
	if (p->ninst < 2)
		return;
	const struct flag_list *f0 = &p->inst[0].driver_flags;
	char best[128] = "";
	int best_score = -1;
	for (int i = 0; i < f0->n; i++) {
		char mac[128];
		define_macro_name(f0->v[i].flag, mac, sizeof mac);
		if (!mac[0] || strncmp(f0->v[i].flag, "-D", 2) != 0)
			continue;
		int differs = 0;
		for (int k = 1; k < p->ninst && !differs; k++) {
			int found = 0;
			const struct flag_list *fk = &p->inst[k].driver_flags;
			for (int j = 0; j < fk->n && !found; j++)
				found = strcmp(fk->v[j].flag, f0->v[i].flag) == 0;
			differs = !found;
		}
		if (!differs)
			continue;
		int score = strstr(mac, "NAME") ? 0 : (strstr(mac, "INSTANCE") || strstr(mac, "PARAM") || strstr(mac, "LEVEL")) ? 2 : 1;
		if (score > best_score) {
			best_score = score;
			str_copy(best, sizeof best, mac);
		}
	}
	for (int k = 0; k < p->ninst; k++) {
		struct plan_instance *pi = &p->inst[k];
		if (best[0]) {
			for (int j = 0; j < pi->driver_flags.n; j++) {
				char mac[128];
				define_macro_name(pi->driver_flags.v[j].flag, mac, sizeof mac);
				const char *eq = strchr(pi->driver_flags.v[j].flag, '=');
				if (strcmp(mac, best) == 0 && eq) {
					char v[128];
					str_copy(v, sizeof v, eq + 1);
					size_t n = strlen(v);
					if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
						memmove(v, v + 1, n - 2);
						v[n - 2] = '\0';
					}
					str_copy(pi->label, sizeof pi->label, v);
				}
			}
		}
		if (!pi->label[0])
			str_copy(pi->label, sizeof pi->label, base_of(pi->program));
	}
	/* A switch that does not tell every instance apart is no label: the programs' names do. */
	for (int a = 0; a < p->ninst; a++)
		for (int b = a + 1; b < p->ninst; b++)
			if (strcmp(p->inst[a].label, p->inst[b].label) == 0) {
				for (int k = 0; k < p->ninst; k++)
					str_copy(p->inst[k].label, sizeof p->inst[k].label, base_of(p->inst[k].program));
				return;
			}
}

/* ---- the whole observation ---- */

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

static int setup(struct obs *ob, const char *tree, pq_error *err)
{
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(ob->root, sizeof ob->root, "%s/pqprof-observe.XXXXXX", tmpdir);
	if (!mkdtemp(ob->root))
		return pq_fail_errno(err, PQ_EIO, "cannot create a scratch directory for the tree's build");
	keep_root(ob->root);
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

static void observe(struct build_plan *p, const struct observe_options *o, pq_error *err)
{
	int is_make = dir_has_file(p->tree, "Makefile") || dir_has_file(p->tree, "makefile") || dir_has_file(p->tree, "GNUmakefile");
	int is_cmake = !is_make && dir_has_file(p->tree, "CMakeLists.txt");
	if (!is_make && !is_cmake) {
		snprintf(p->why, sizeof p->why, "the tree has no build file (Makefile, CMakeLists.txt)");
		return;
	}
	char tool[PATH_MAX];
	if (find_in_path("make", tool, sizeof tool) < 0) {
		snprintf(p->why, sizeof p->why, "make not found (install the Debian package make)");
		snprintf(p->missing_tool, sizeof p->missing_tool, "make");
		return;
	}
	if (is_cmake && find_in_path("cmake", tool, sizeof tool) < 0) {
		snprintf(p->why, sizeof p->why, "cmake not found (install the Debian package cmake)");
		snprintf(p->missing_tool, sizeof p->missing_tool, "cmake");
		return;
	}
	struct obs ob = { .o = o, .plan = p };
	const char *tenv = getenv("PQPROF_OBSERVE_TIMEOUT");
	double timeout = o->timeout_s > 0 ? o->timeout_s : tenv && atof(tenv) > 0 ? atof(tenv) : OBSERVE_DEFAULT_TIMEOUT_S;
	ob.deadline = mono_s() + timeout;
	pq_error serr = { 0 };
	if (setup(&ob, p->tree, &serr) < 0) {
		snprintf(p->why, sizeof p->why, "the tree's build could not be prepared: %s", serr.msg);
		if (serr.code == PQ_ERUNNER)
			*err = serr;
		return;
	}
	str_copy(p->copy, sizeof p->copy, ob.copy);
	run_build(&ob, is_cmake);
	check_outside(&ob);
	if (!contain_fs_isolation())
		note_add(p->outside, sizeof p->outside, "no mount namespace here: the build ran in its copy as %s, "
		         "but the rest of the file system was not made read-only", contain_caps()->drop_uid ? contain_caps()->user : "the calling user");
	read_records(&ob);
	for (int i = 0; i < p->ninst; i++)
		name_instance(&ob, &p->inst[i]);
	label_instances(p);
	for (int i = 0; i < ob.nunits; i++) {
		free(ob.units[i].src);
		free(ob.units[i].rel);
		free(ob.units[i].cwd);
		flag_list_free(&ob.units[i].flags);
		flag_list_free(&ob.units[i].info);
	}
	free(ob.units);
	struct made_list *lists[] = { &ob.objs, &ob.archives, &ob.shlibs };
	for (int l = 0; l < 3; l++) {
		for (int i = 0; i < lists[l]->n; i++) {
			free(lists[l]->v[i].path);
			free(lists[l]->v[i].units);
			for (int k = 0; k < lists[l]->v[i].nlibs; k++)
				free(lists[l]->v[i].libs[k]);
			free(lists[l]->v[i].libs);
		}
		free(lists[l]->v);
	}
	if (p->ninst > 0) {
		p->observed = 1;
		p->why[0] = '\0'; /* a failure elsewhere in the build (-k) does not matter once the KAT links were seen */
	} else if (!p->why[0]) {
		snprintf(p->why, sizeof p->why, "the tree's build (%s) linked no KAT driver (KAT_SIG.c, KAT_KEM.c, "
		         "PQCgenKAT_sign.c, PQCgenKAT_kem.c)", ob.target_desc);
	}
}

int observe_tree(const char *tree, const struct observe_options *o, const struct build_plan **out, pq_error *err)
{
	char real[PATH_MAX];
	if (!realpath(tree, real))
		return pq_fail_errno(err, PQ_EINPUT, "%s", tree);
	for (int i = 0; i < ncache; i++)
		if (strcmp(cache[i]->tree, real) == 0 && cache[i]->observed >= 0) {
			*out = cache[i];
			return 0;
		}
	struct build_plan *p = calloc(1, sizeof *p);
	if (!p || pq_grow(&cache, &cache_cap, (size_t)ncache + 1, sizeof *cache, 8) < 0) {
		free(p);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	str_copy(p->tree, sizeof p->tree, real);
	pq_error oerr = { 0 };
	observe(p, o, &oerr);
	if (oerr.code) {
		*err = oerr;
		free(p);
		return -oerr.code;
	}
	cache[ncache++] = p;
	*out = p;
	return 0;
}

int observe_enabled(void)
{
	const char *e = getenv("PQPROF_OBSERVE");
	return !(e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0 || strcmp(e, "no") == 0));
}

/* Equal but for case, '-' and '_'. */
static int loose_equal(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == '-' || *a == '_')
			a++;
		while (*b == '-' || *b == '_')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (!*a)
			return 1;
	}
}

int plan_instance_matches(const struct plan_instance *pi, const char *want)
{
	return want && *want && ((pi->name[0] && loose_equal(pi->name, want)) || (pi->label[0] && loose_equal(pi->label, want)));
}

void plan_instance_list(const struct build_plan *p, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < p->ninst; i++) {
		const struct plan_instance *pi = &p->inst[i];
		if (pi->label[0] && pi->name[0] && strcmp(pi->label, pi->name) != 0)
			note_add(out, len, "%s (%s)", pi->name, pi->label);
		else
			note_add(out, len, "%s", pi->name[0] ? pi->name : pi->label);
	}
	for (char *s = out; (s = strstr(s, "; ")); s++)
		*s = ',';
}
