/*
 * observe_steps: what to run to build a tree as its submitter does, and in
 * which order.  make: the default goal, then the targets whose dry runs
 * link KAT drivers; cmake: configure (once per level the tree lists) and
 * build the KAT targets, else all; meson: setup and ninja.  Each attempt
 * and how it ended goes to the plan.  Running a step contained is
 * observe_sandbox.c's; reading what it did is observe_model.c's.
 */
#include "config.h"
#include "instance/observe_int.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "instance/tool_run.h"
#include "instance/flag_list.h"
#include "instance/kat_drivers.h"
#include "instance/tree_scan.h"
#include "core/text_buf.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CANDIDATE_TARGETS 48

/* ---- which make targets ---- */

/* How many command lines of a dry run mention a KAT driver (its source or object)? */
static int driver_lines(const char *text)
{
	const char *const *stems = kat_driver_stems;
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
	const char *const *stems = kat_driver_stems;
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

/* Push "NAME=V NAME2=V2" (make variable assignments, space-separated) onto a command line. */
/* Each space-separated word of `words` (any length; NULL: none) as one argument. */
static void push_words(struct argv_buf *av, const char *words)
{
	for (const char *w = words; w && *w;) {
		size_t n = strcspn(w, " ");
		if (n > 0)
			av_pushf(av, "%.*s", (int)n, w);
		w += n + (w[n] == ' ');
	}
}

/*
 * The targets to build when the default goal links no KAT driver: make's
 * own database (make -qp, with the make variables `vars` given) lists the
 * targets; each one's dry run says whether it links a KAT driver.
 */
static void choose_make_target_with(struct obs *ob, const char *vars, struct text_buf *target)
{
	char default_goal[256] = "";
	struct argv_buf av = { 0 };
	av_push(&av, "make");
	av_push(&av, "-qp");
	push_words(&av, vars);
	obs_push_tool_vars(ob, &av);
	int to = 0;
	obs_run_step(ob, &av, "make-database.log", &to);
	av_free(&av);
	char path[PATH_MAX], *db = NULL;
	snprintf(path, sizeof path, "%s/make-database.log", ob->root);
	if (obs_read_file(path, &db, NULL, 64u << 20) < 0)
		return;
	char *cands[MAX_CANDIDATE_TARGETS];
	int nc = 0;
	cands[nc++] = strdup(""); /* the default goal first: it wins ties */
	if (!cands[0]) {
		free(db);
		obs_model_note_out_of_memory();
		return;
	}
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
		if (!dup && !(cands[nc++] = strdup(line))) {
			nc--;
			obs_model_note_out_of_memory();
			break;
		}
	}
	free(db);
	struct cand_score sc[MAX_CANDIDATE_TARGETS];
	int ns = 0;
	for (int i = 0; i < nc && mono_s() < ob->deadline; i++) {
		struct argv_buf dry = { 0 };
		av_push(&dry, "make");
		av_push(&dry, "-n");
		av_push(&dry, "-B");
		push_words(&dry, vars);
		if (cands[i][0])
			av_push(&dry, cands[i]);
		obs_push_tool_vars(ob, &dry);
		int st = obs_run_step(ob, &dry, "make-dry-run.log", &to);
		av_free(&dry);
		char *text = NULL;
		snprintf(path, sizeof path, "%s/make-dry-run.log", ob->root);
		if (st != 0 || obs_read_file(path, &text, NULL, 16u << 20) < 0) {
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
		if (k > 0 && target->n == 0 && default_goal[0])
			text_printf(target, "%s", default_goal);  /* the default goal, now by its name */
		text_printf(target, "%s%s", target->n ? " " : "", k == 0 ? cands[sc[k].i] : name);
	}
	free(covered);
	for (int k = 0; k < ns; k++)
		free(sc[k].outputs);
	for (int i = 0; i < nc; i++)
		free(cands[i]);
}

static void choose_make_target(struct obs *ob, struct text_buf *target)
{
	choose_make_target_with(ob, NULL, target);
}

/* ---- running the build ---- */

void obs_tail_excerpt(const char *log, char *out, size_t len)
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
	if (obs_read_file(path, &text, NULL, 4u << 20) < 0)
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
		/* CMake's own variables (CMAKE_BUILD_TYPE's Debug;Release;...) are not parameter sets. */
		if (nw >= 5 && strcmp(w[0], "CACHE") == 0 && strcmp(w[2], "PROPERTY") == 0 && strcmp(w[3], "STRINGS") == 0 &&
		    !strchr(w[1], '$') && strncmp(w[1], "CMAKE_", 6) != 0) {
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

/* Run a configure step (and free av); when it fails, say why in the plan with the end of its log.  0 or -1. */
static int configure_step(struct obs *ob, struct argv_buf *av, const char *logname, const char *what, int *to)
{
	int st = obs_run_step(ob, av, logname, to);
	av_free(av);
	if (st == 0)
		return 0;
	char log[PATH_MAX], ex[400];
	snprintf(log, sizeof log, "%s/%s", ob->root, logname);
	obs_tail_excerpt(log, ex, sizeof ex);
	char end[48];
	if (*to)
		snprintf(end, sizeof end, "stopped at the time limit");
	else if (st < 0)
		snprintf(end, sizeof end, "could not be started");
	else
		snprintf(end, sizeof end, "exit %d", st);
	text_add_note(ob->plan->why, sizeof ob->plan->why, "%s (%s): %s", what, end, ex);
	return -1;
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
	if (configure_step(ob, &av, "cmake-configure.log", "cmake could not configure the tree", to) < 0)
		return -2;
	/* The KAT targets of each level, else everything. */
	struct argv_buf help = { 0 };
	av_push(&help, "cmake");
	av_push(&help, "--build");
	av_push(&help, bdir);
	av_push(&help, "--target");
	av_push(&help, "help");
	obs_run_step(ob, &help, "cmake-targets.log", to);
	av_free(&help);
	char *text = NULL;
	struct argv_buf bd = { 0 };
	av_push(&bd, "cmake");
	av_push(&bd, "--build");
	av_push(&bd, bdir);
	char targets[512] = "";
	snprintf(log, sizeof log, "%s/cmake-targets.log", ob->root);
	if (obs_read_file(log, &text, NULL, 4u << 20) == 0) {
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
			/* Shown in a message: whole names, then ", …" when there are more than it holds. */
			text_add_item(targets, sizeof targets, ", ", name, ", \u2026");
		}
		free(text);
	}
	av_push(&bd, "--");
	av_push(&bd, "-k");
	snprintf(p->how, sizeof p->how, "cmake -DCMAKE_BUILD_TYPE=Release (C compiler: the pqprof compiler wrapper); "
	         "cmake --build, target%s %s", strchr(targets, ',') ? "s" : "", targets[0] ? targets : "all");
	snprintf(ob->target_desc, sizeof ob->target_desc, "cmake%s%s%s%s --build %s", var ? " -D" : "", var ? var : "",
	         var ? "=" : "", var ? value : "", targets[0] ? targets : "all");
	int st2 = obs_run_step(ob, &bd, "build.log", to);
	av_free(&bd);
	return st2;

}

/* Run `make -k -B TARGETS` ("" for the default goal) and read what it did; returns make's status. */
static int make_attempt(struct obs *ob, const char *target, int *to)
{
	struct build_plan *p = ob->plan;
	struct argv_buf av = { 0 };
	av_push(&av, "make");
	av_push(&av, "-k");
	av_push(&av, "-B");
	push_words(&av, target);
	obs_push_tool_vars(ob, &av);
	snprintf(p->how, sizeof p->how, "make -B %s, with CC, CXX, AS, AR and LD set to the pqprof compiler wrapper",
	         target[0] ? target : "(default goal)");
	snprintf(ob->target_desc, sizeof ob->target_desc, "make %s", target[0] ? target : "(default goal)");
	int st = obs_run_step(ob, &av, "build.log", to);
	av_free(&av);
	obs_read_records(ob);
	return st;
}

/*
 * The same goals once more, record-only: make -k -B with the wrapper
 * recording each command without running it (pqprof-ccwrap's
 * PQPROF_CCWRAP_RECORD_ONLY), for a build that could not finish for real
 * (sources the submission left out, a recipe or tool that fails).  Names
 * and flags the recipes compute in shell are then seen as they are, and
 * every KAT link is known though none was built.  Returns make's status.
 */
static int record_only_attempt(struct obs *ob, const char *target, int *to)
{
	struct build_plan *p = ob->plan;
	obs_forget(ob);
	int fd = open(ob->wraplog, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	struct argv_buf av = { 0 };
	av_push(&av, "env");
	av_push(&av, "PQPROF_CCWRAP_RECORD_ONLY=1");
	av_push(&av, "make");
	av_push(&av, "-k");
	av_push(&av, "-B");
	push_words(&av, target);
	obs_push_tool_vars(ob, &av);
	snprintf(ob->target_desc, sizeof ob->target_desc, "make %s, record-only", target[0] ? target : "(default goal)");
	int st = obs_run_step(ob, &av, "record-only.log", to);
	av_free(&av);
	ob->record_only = 1;
	obs_read_records(ob);
	ob->record_only = 0;
	text_appendf(p->how, sizeof p->how, "; then, since it failed, record-only: make -k -B %s with the wrapper "
	             "recording each command without running it", target[0] ? target : "(default goal)");
	return st;
}

/* "make -B kat_all (why): exit 0, linked 4 KAT programs" appended to the plan's attempts. */
static void note_attempt(struct obs *ob, const char *why, int st, int to)
{
	struct build_plan *p = ob->plan;
	char end[64];
	if (to)
		snprintf(end, sizeof end, "stopped at the time limit");
	else if (st < 0)
		snprintf(end, sizeof end, "could not be started");
	else
		snprintf(end, sizeof end, "exit %d", st);
	char linked[48];
	if (p->ninst == 0)
		snprintf(linked, sizeof linked, "no KAT program");
	else
		snprintf(linked, sizeof linked, "%d KAT program%s", p->ninst, p->ninst == 1 ? "" : "s");
	text_add_note(p->attempts, sizeof p->attempts, "%s (%s): %s, linked %s", ob->target_desc, why, end, linked);
}

/*
 * A meson tree: `meson setup` (release, the wrapper as CC, CXX and AR in
 * its environment) into a build directory of the copy, then `ninja`, the
 * default goal, keeping going past failures.  Returns ninja's status, -2
 * when setup failed (plan->why says why).
 */
static int meson_build(struct obs *ob, int *to)
{
	struct build_plan *p = ob->plan;
	char bdir[PATH_MAX + 32];
	snprintf(bdir, sizeof bdir, "%s/.pqprof-meson", ob->copy);
	struct argv_buf av = { 0 };
	av_push(&av, "env");
	av_pushf(&av, "CC=%s/cc", ob->bin);
	av_pushf(&av, "CXX=%s/c++", ob->bin);
	av_pushf(&av, "AR=%s/ar", ob->bin);
	av_push(&av, "meson");
	av_push(&av, "setup");
	av_push(&av, "--buildtype=release");
	av_push(&av, bdir);
	av_push(&av, ob->copy);
	if (configure_step(ob, &av, "meson-setup.log", "meson could not set up the tree", to) < 0)
		return -2;
	struct argv_buf nj = { 0 };
	av_push(&nj, "ninja");
	av_push(&nj, "-C");
	av_push(&nj, bdir);
	av_push(&nj, "-k");
	av_push(&nj, "0");
	snprintf(p->how, sizeof p->how, "meson setup --buildtype=release (CC, CXX and AR: the pqprof compiler wrapper); "
	         "ninja (the default goal)");
	snprintf(ob->target_desc, sizeof ob->target_desc, "meson setup; ninja");
	int st = obs_run_step(ob, &nj, "build.log", to);
	av_free(&nj);
	return st;
}

/* Empty the wrapper's log and forget what it said: the next step is read on its own. */
static void fresh_log(struct obs *ob)
{
	obs_forget(ob);
	int fd = open(ob->wraplog, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
}

/* Run `sh -c CMD` in dir (absolute, in the copy), observed as a whole.  Returns its status. */
static int shell_attempt(struct obs *ob, const char *dir, const char *cmd, const char *desc, int *to)
{
	fresh_log(ob);
	struct argv_buf av = { 0 };
	av_push(&av, "sh");
	av_push(&av, "-c");
	av_pushf(&av, "cd '%s' && %s", dir, cmd);
	snprintf(ob->target_desc, sizeof ob->target_desc, "%s", desc);
	int st = obs_run_step(ob, &av, "build.log", to);
	av_free(&av);
	obs_read_records(ob);
	return st;
}

/*
 * Is this file one of the tree's KAT scripts: a shell script (a .sh name
 * or a #! line naming a shell) that names a KAT driver program
 * (PQCgenKAT_sign, KAT_SIG, ...) and builds (make, cmake or a compiler)?
 */
static int is_kat_script(const char *path)
{
	char *text = NULL;
	size_t n = 0;
	if (obs_read_file(path, &text, &n, 256u << 10) < 0)
		return 0;
	const char *base = path_base(path);
	size_t bl = strlen(base);
	int shell = (bl > 3 && strcmp(base + bl - 3, ".sh") == 0) ||
	            (strncmp(text, "#!", 2) == 0 && strstr(text, "sh") && strstr(text, "sh") < strchr(text, '\n'));
	int kat = 0, builds = 0;
	for (int i = 0; shell && kat_driver_stems[i] && !kat; i++)
		kat = strstr(text, kat_driver_stems[i]) != NULL;
	builds = strstr(text, "make") || strstr(text, "cmake") || strstr(text, "$CC") || strstr(text, "gcc") ||
	         strstr(text, "ninja");
	free(text);
	return shell && kat && builds;
}

/* The tree's KAT scripts (at most 4, the top two levels of the copy, sorted), relative to the copy. */
static int find_kat_scripts(const struct obs *ob, char out[][256], int max)
{
	int n = 0;
	char dir[PATH_MAX];
	for (int depth = 0; depth < 2 && n < max; depth++) {
		DIR *top = opendir(ob->copy);
		for (struct dirent *d; top && (d = readdir(top)) && n < max;) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof dir, "%s/%s", ob->copy, d->d_name);
			struct stat sb;
			if (stat(dir, &sb) != 0)
				continue;
			if (depth == 0 && S_ISREG(sb.st_mode) && is_kat_script(dir)) {
				snprintf(out[n++], 256, "%s", d->d_name);
			} else if (depth == 1 && S_ISDIR(sb.st_mode)) {
				DIR *sub = opendir(dir);
				for (struct dirent *e; sub && (e = readdir(sub)) && n < max;) {
					char f[PATH_MAX + 256];
					snprintf(f, sizeof f, "%s/%s", dir, e->d_name);
					if (e->d_name[0] != '.' && stat(f, &sb) == 0 && S_ISREG(sb.st_mode) && is_kat_script(f) &&
					    strlen(d->d_name) + strlen(e->d_name) + 2 <= 256)
						snprintf(out[n++], 256, "%s/%s", d->d_name, e->d_name);
				}
				if (sub)
					closedir(sub);
			}
		}
		if (top)
			closedir(top);
	}
	qsort(out, (size_t)n, sizeof out[0], (int (*)(const void *, const void *))strcmp);
	return n;
}

/* Step 3: the tree's own KAT scripts, each run and observed as a whole, until one links KAT programs. */
static int kat_scripts(struct obs *ob, int *to)
{
	struct build_plan *p = ob->plan;
	char scripts[4][256];
	int n = find_kat_scripts(ob, scripts, 4), st = 0;
	for (int i = 0; i < n && p->ninst == 0 && !*to && mono_s() < ob->deadline; i++) {
		char dir[PATH_MAX + 256], desc[300], cmd[300];
		snprintf(dir, sizeof dir, "%s/%s", ob->copy, scripts[i]);
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		snprintf(cmd, sizeof cmd, "sh ./%s", path_base(scripts[i]));
		snprintf(desc, sizeof desc, "sh %s", scripts[i]);
		p->why[0] = '\0';
		st = shell_attempt(ob, dir, cmd, desc, to);
		note_attempt(ob, "the tree's KAT script: it builds and runs a KAT program", st, *to);
		if (p->ninst > 0)
			snprintf(p->how, sizeof p->how, "sh %s (the tree's KAT script, run as a whole; CC, CXX, AS, AR and LD "
			         "in PATH: the pqprof compiler wrapper)", scripts[i]);
	}
	return n > 0 ? st : -3;
}

/* Step 4 as the user says: each --build-cmd run in the copy and observed as a whole. */
static int user_commands(struct obs *ob, int *to)
{
	struct build_plan *p = ob->plan;
	const struct observe_options *o = ob->o;
	int st = 0, before = 0;
	p->how[0] = '\0';
	for (int i = 0; i < o->nbuild_cmds && !*to; i++) {
		char desc[300];
		snprintf(desc, sizeof desc, "--build-cmd '%.280s'", o->build_cmds[i]);
		before = p->ninst;
		int s = shell_attempt(ob, ob->copy, o->build_cmds[i], desc, to);
		note_attempt(ob, "as the user said", s, *to);
		text_add_note(p->how, sizeof p->how, "%s: %d KAT program%s", desc, p->ninst - before, p->ninst - before == 1 ? "" : "s");
		if (s != 0)
			st = s;
	}
	return st;
}

/*
 * Keep a copy of each KAT program linked since instance `from`
 * (.pqprof-programs/<index>-<name> in the copy): the next combination
 * links the same program again with other switches, and its own KAT
 * program is what a tree without vectors is checked against.
 */
static void keep_programs(struct obs *ob, int from)
{
	struct build_plan *p = ob->plan;
	char dir[PATH_MAX + 32];
	snprintf(dir, sizeof dir, "%s/.pqprof-programs", ob->copy);
	mkdir(dir, 0755);
	for (int k = from; k < p->ninst; k++) {
		struct plan_instance *pi = &p->inst[k];
		char src[PATH_MAX * 2], dst[PATH_MAX * 2], rel[256];
		snprintf(src, sizeof src, "%s/%s", ob->copy, pi->program);
		snprintf(rel, sizeof rel, ".pqprof-programs/%d-%s", k, path_base(pi->program));
		snprintf(dst, sizeof dst, "%s/%s", ob->copy, rel);
		char *data = NULL;
		size_t n = 0;
		if (!pi->program[0] || access(src, X_OK) != 0 || obs_read_file(src, &data, &n, 512u << 20) < 0)
			continue;
		int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
		int ok = fd >= 0 && write(fd, data, n) == (ssize_t)n;
		if (fd >= 0)
			close(fd);
		free(data);
		if (ok)
			str_copy(pi->program, sizeof pi->program, rel);
	}
}

/*
 * --make-var NAME=V1,V2 ...: the cross product of the values, each
 * combination a make run of the default goal (then, when it links no KAT
 * program, the targets whose dry run link one) with NAME=V on the command
 * line.  Every combination's KAT links are instances.
 */
static int make_var_builds(struct obs *ob, int *to)
{
	struct build_plan *p = ob->plan;
	const struct observe_options *o = ob->o;
	/* within the limits cmd_check_make_vars holds the options to */
	int nv = o->nmake_vars < OBS_MAX_MAKE_VARS ? o->nmake_vars : OBS_MAX_MAKE_VARS;
	int idx[OBS_MAX_MAKE_VARS] = { 0 }, count[OBS_MAX_MAKE_VARS];
	char names[OBS_MAX_MAKE_VARS][OBS_MAKE_WORD], vals[OBS_MAX_MAKE_VARS][OBS_MAX_MAKE_VALUES][OBS_MAKE_WORD];
	for (int v = 0; v < nv; v++) {
		const char *eq = strchr(o->make_vars[v], '=');
		snprintf(names[v], sizeof names[v], "%.*s", eq ? (int)(eq - o->make_vars[v]) : 0, o->make_vars[v]);
		count[v] = 0;
		for (const char *w = eq ? eq + 1 : ""; *w && count[v] < OBS_MAX_MAKE_VALUES;) {
			size_t k = strcspn(w, ",");
			if (k > 0)
				snprintf(vals[v][count[v]++], sizeof vals[v][0], "%.*s", (int)k, w);
			w += k + (w[k] == ',');
		}
		if (count[v] == 0)
			count[v] = 1, vals[v][0][0] = '\0';
	}
	int st = 0, combos = 0;
	for (;;) {
		char assign[OBS_MAX_MAKE_VARS * (2 * OBS_MAKE_WORD + 2)] = "", desc[sizeof assign + 32];
		/* Sized for the most variables and the longest words --make-var accepts: cannot be cut. */
		for (int v = 0; v < nv; v++)
			text_appendf(assign, sizeof assign, "%s%s=%s", assign[0] ? " " : "", names[v], vals[v][idx[v]]);
		fresh_log(ob);
		int before = p->ninst;
		int s = make_attempt(ob, assign, to);
		snprintf(desc, sizeof desc, "with --make-var %s", assign);
		note_attempt(ob, desc, s, *to);
		if (p->ninst == before && !*to) {
			struct text_buf target = { 0 }, goals = { 0 };
			choose_make_target_with(ob, assign, &target);
			if (target.n) {
				fresh_log(ob);
				text_printf(&goals, "%s %s", assign, target.s);
				if (goals.oom)
					obs_model_note_out_of_memory();
				else
					s = make_attempt(ob, goals.s, to);
				note_attempt(ob, desc, s, *to);
			}
			if (target.oom)
				obs_model_note_out_of_memory();
			text_free(&target);
			text_free(&goals);
		}
		keep_programs(ob, before);
		if (s != 0)
			st = s;
		combos++;
		int v = nv - 1;
		while (v >= 0 && ++idx[v] == count[v])
			idx[v--] = 0;
		if (v < 0 || *to || mono_s() >= ob->deadline)
			break;
	}
	char all[1024] = "";
	for (int v = 0; v < nv; v++)
		text_add_note(all, sizeof all, "%s", o->make_vars[v]);
	snprintf(p->how, sizeof p->how, "make -B once per combination of --make-var %s (%d builds), with CC, CXX, AS, AR "
	         "and LD set to the pqprof compiler wrapper", all, combos);
	return st;
}

/* Run the build: make, cmake or meson, and read what it did.  Fills plan->how, plan->attempts and plan->why. */
void obs_run_build(struct obs *ob, int cmake, int meson)
{
	struct build_plan *p = ob->plan;
	int to = 0, st;
	char log[PATH_MAX];
	if (ob->o->nbuild_cmds > 0) {
		st = user_commands(ob, &to);
	} else if (ob->o->nmake_vars > 0 && !cmake && !meson) {
		st = make_var_builds(ob, &to);
	} else if (meson) {
		st = meson_build(ob, &to);
		if (st == -2)
			return;
		obs_read_records(ob);
		note_attempt(ob, "as the submitter runs meson and ninja", st, to);
	} else if (!cmake) {
		/* The default goal first, as the submitter runs it; then the targets that link KAT drivers. */
		struct text_buf target = { 0 };
		st = make_attempt(ob, "", &to);
		note_attempt(ob, "as the submitter runs `make`", st, to);
		if (p->ninst == 0 && !to && mono_s() < ob->deadline) {
			choose_make_target(ob, &target);
			if (target.oom)
				obs_model_note_out_of_memory();
			else if (target.n) {
				obs_forget(ob);
				int fd = open(ob->wraplog, O_WRONLY | O_TRUNC | O_CLOEXEC);
				if (fd >= 0)
					close(fd);
				p->why[0] = '\0';
				st = make_attempt(ob, target.s, &to);
				note_attempt(ob, "the targets whose dry run links a KAT driver", st, to);
			}
		}
		/* A build that failed may have stopped before its other KAT links: record the rest. */
		if (st > 0 && !to && mono_s() < ob->deadline) {
			int before = p->ninst, st2 = record_only_attempt(ob, target.n ? target.s : "", &to);
			note_attempt(ob, "the real build failed: its commands recorded, not run", st2, to);
			if (p->ninst > before)
				p->record_only = 1;
		}
		text_free(&target);
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
			for (int i = 0; i < nval; i++)
				text_appendf(what, sizeof what, "%s%s", i ? ", " : "", values[i]);
			text_appendf(p->how, sizeof p->how, "; configured once per %s (%s)", var, what);
		}
		obs_read_records(ob);
	}
	/* Step 3: nothing linked a KAT driver: the tree's own KAT scripts. */
	if (p->ninst == 0 && ob->o->nbuild_cmds == 0 && ob->o->nmake_vars == 0 && !to && mono_s() < ob->deadline) {
		int sst = kat_scripts(ob, &to);
		if (sst != -3 && p->ninst > 0)
			st = sst;
	}
	snprintf(log, sizeof log, "%s/build.log", ob->root);
	if (st < 0)
		text_add_note(p->why, sizeof p->why, "the tree's build could not be started");
	else if (to)
		text_add_note(p->why, sizeof p->why, "the tree's build was stopped at the time limit");
	else if (st != 0) {
		char ex[400];
		obs_tail_excerpt(log, ex, sizeof ex);
		text_add_note(p->why, sizeof p->why, "the tree's build failed (exit %d): %s", st, ex);
	}
}
