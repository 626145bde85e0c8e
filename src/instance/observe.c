/*
 * observe: run the tree's own build contained and plan from it; see
 * observe.h.  This file holds the entry points and the plans kept for the
 * process; the observation's parts are in observe_sandbox.c,
 * observe_steps.c, observe_model.c and observe_name.c (observe_int.h).
 */
#include "config.h"
#include "instance/observe.h"
#include "instance/observe_int.h"
#include "instance/kat_drivers.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "instance/tool_run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OBSERVE_DEFAULT_TIMEOUT_S 600.0

/* ---- helpers the observe_* files share ---- */

int obs_is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* ---- the whole observation ---- */

static void observe(struct build_plan *p, const struct observe_options *o, pq_error *err)
{
	int is_make = dir_has_file(p->tree, "Makefile") || dir_has_file(p->tree, "makefile") || dir_has_file(p->tree, "GNUmakefile");
	int is_cmake = !is_make && dir_has_file(p->tree, "CMakeLists.txt");
	int is_meson = !is_make && !is_cmake && dir_has_file(p->tree, "meson.build");
	if (!is_make && !is_cmake && !is_meson && o->nbuild_cmds == 0) {
		snprintf(p->why, sizeof p->why, "the tree has no build file (Makefile, CMakeLists.txt, meson.build)");
		return;
	}
	char tool[PATH_MAX];
	if (is_meson && (obs_find_in_path("meson", tool, sizeof tool) < 0 || obs_find_in_path("ninja", tool, sizeof tool) < 0)) {
		int no_meson = obs_find_in_path("meson", tool, sizeof tool) < 0;
		snprintf(p->why, sizeof p->why, "%s not found (install the Debian package%s)", no_meson ? "meson" : "ninja",
		         no_meson ? "s meson and ninja-build" : " ninja-build");
		snprintf(p->missing_tool, sizeof p->missing_tool, "%s", no_meson ? "meson" : "ninja");
		return;
	}
	if (!is_meson && obs_find_in_path("make", tool, sizeof tool) < 0) {
		snprintf(p->why, sizeof p->why, "make not found (install the Debian package make)");
		snprintf(p->missing_tool, sizeof p->missing_tool, "make");
		return;
	}
	if (is_cmake && obs_find_in_path("cmake", tool, sizeof tool) < 0) {
		snprintf(p->why, sizeof p->why, "cmake not found (install the Debian package cmake)");
		snprintf(p->missing_tool, sizeof p->missing_tool, "cmake");
		return;
	}
	struct obs ob = { .o = o, .plan = p };
	const char *tenv = getenv("PQPROF_OBSERVE_TIMEOUT");
	double timeout = o->timeout_s > 0 ? o->timeout_s : tenv && atof(tenv) > 0 ? atof(tenv) : OBSERVE_DEFAULT_TIMEOUT_S;
	ob.deadline = mono_s() + timeout;
	pq_error serr = { 0 };
	if (obs_setup(&ob, p->tree, &serr) < 0) {
		snprintf(p->why, sizeof p->why, "the tree's build could not be prepared: %s", serr.msg);
		if (serr.code == PQ_ERUNNER || serr.code == PQ_ENOMEM)
			*err = serr;
		return;
	}
	str_copy(p->copy, sizeof p->copy, ob.copy);
	obs_run_build(&ob, is_cmake, is_meson);
	obs_check_outside(&ob);
	if (!contain_fs_isolation())
		text_add_note(p->outside, sizeof p->outside, "no mount namespace here: the build ran in its copy as %s, "
		             "but the rest of the file system was not made read-only", contain_caps()->drop_uid ? contain_caps()->user : "the calling user");
	if (p->ninst == 0 && obs_unlinked_instance(&ob)) {
		text_appendf(p->how, sizeof p->how, "; it linked no KAT program, so the instance is what it compiled "
		             "beside the KAT driver, each unit with the flags of its compile");
		p->unlinked = 1;
	}
	int oom = obs_model_out_of_memory();
	for (int i = 0; i < p->ninst && !oom; i++)
		obs_name_instance(&ob, &p->inst[i]);
	oom = oom || obs_model_out_of_memory(); /* naming runs the preprocessor too */
	if (oom) {
		obs_forget(&ob);
		pq_fail(err, PQ_ENOMEM, "%s: out of memory while reading what the tree's build did: no plan is made from "
		        "part of it", p->tree);
		return;
	}
	obs_label_instances(p);
	obs_forget(&ob);
	if (p->ninst > 0) {
		p->observed = 1;
		p->why[0] = '\0'; /* a failure elsewhere in the build (-k) does not matter once the KAT links were seen */
	} else if (!p->why[0]) {
		char drivers[160];
		kat_driver_names(drivers, sizeof drivers);
		snprintf(p->why, sizeof p->why, "the tree's build (%s) linked no KAT driver (%s, or their C++ forms)",
		         ob.target_desc, drivers);
	}
}

/* ---- plans kept for the process ---- */

/* What a plan that is not kept holds (an observation that failed part way). */
static void plan_free(struct build_plan *p)
{
	for (int i = 0; i < p->ninst; i++) {
		struct plan_instance *pi = &p->inst[i];
		for (int u = 0; u < pi->nunits; u++) {
			free(pi->units[u].src);
			free(pi->units[u].rel);
			free(pi->units[u].cwd);
			flag_list_free(&pi->units[u].flags);
			flag_list_free(&pi->units[u].info);
		}
		free(pi->units);
		flag_list_free(&pi->driver_flags);
		flag_list_free(&pi->link_flags);
		for (int k = 0; k < pi->nlibs; k++)
			free(pi->libs[k]);
		free(pi->libs);
		for (int k = 0; k < pi->nincludes; k++)
			free(pi->includes[k]);
		free(pi->includes);
	}
	free(p->inst);
	free(p);
}

static struct build_plan **cache;
static int ncache;
static size_t cache_cap;

/* What the user said to run, as one string (the plan's key beside the tree). */
static void asked_of(const struct observe_options *o, char *out, size_t len)
{
	out[0] = '\0';
	for (int i = 0; i < o->nbuild_cmds; i++)
		text_add_note(out, len, "--build-cmd '%s'", o->build_cmds[i]);
	for (int i = 0; i < o->nmake_vars; i++)
		text_add_note(out, len, "--make-var %s", o->make_vars[i]);
}

int observe_tree(const char *tree, const struct observe_options *o, const struct build_plan **out, pq_error *err)
{
	char real[PATH_MAX], asked[1024];
	if (!realpath(tree, real))
		return pq_fail_errno(err, PQ_EINPUT, "%s", tree);
	asked_of(o, asked, sizeof asked);
	for (int i = 0; i < ncache; i++)
		if (strcmp(cache[i]->tree, real) == 0 && strcmp(cache[i]->asked, asked) == 0 && cache[i]->observed >= 0) {
			*out = cache[i];
			return 0;
		}
	struct build_plan *p = calloc(1, sizeof *p);
	if (!p || pq_grow(&cache, &cache_cap, (size_t)ncache + 1, sizeof *cache, 8) < 0) {
		free(p);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	str_copy(p->tree, sizeof p->tree, real);
	str_copy(p->asked, sizeof p->asked, asked);
	pq_error oerr = { 0 };
	observe(p, o, &oerr);
	if (oerr.code) {
		*err = oerr;
		plan_free(p);
		return -oerr.code;
	}
	cache[ncache++] = p;
	*out = p;
	return 0;
}

const char *observe_copy_of(const char *tree)
{
	char real[PATH_MAX];
	if (!tree || !realpath(tree, real))
		return NULL;
	for (int i = 0; i < ncache; i++)
		if (strcmp(cache[i]->tree, real) == 0 && cache[i]->copy[0])
			return cache[i]->copy;
	return NULL;
}

int observe_run_kat_program(const char *tree, const char *name, double timeout_s, char *dir, size_t len,
                            pq_error *err)
{
	char real[PATH_MAX];
	const struct build_plan *p = NULL;
	if (tree && realpath(tree, real))
		for (int i = 0; i < ncache && !p; i++)
			if (strcmp(cache[i]->tree, real) == 0 && cache[i]->observed > 0)
				p = cache[i];
	if (!p)
		return pq_fail(err, PQ_EINPUT, "%s: its build was not observed in this run", tree ? tree : "?");
	int k = -1;
	for (int i = 0; i < p->ninst && k < 0; i++)
		if (p->ninst == 1 || (name && plan_instance_matches(&p->inst[i], name)))
			k = i;
	if (k < 0)
		return pq_fail(err, PQ_EINPUT, "%s: no KAT program of the observed build is instance %s", tree, name ? name : "?");
	for (int i = 0; i < p->ninst; i++)
		if (i != k && strcmp(p->inst[i].program, p->inst[k].program) == 0)
			return pq_fail(err, PQ_EINPUT, "%s: the build linked %s again for another instance (%s): the program "
			               "of instance %s is gone", tree, p->inst[k].program, p->inst[i].name, p->inst[k].name);
	char prog[PATH_MAX * 2], root[PATH_MAX];
	snprintf(prog, sizeof prog, "%s/%s", p->copy, p->inst[k].program);
	if (access(prog, X_OK) != 0)
		return pq_fail(err, PQ_EINPUT, "%s: the KAT program %s is not in the build's copy", tree, p->inst[k].program);
	str_copy(root, sizeof root, p->copy);
	char *slash = strrchr(root, '/');
	if (slash)
		*slash = '\0';
	if ((size_t)snprintf(dir, len, "%s/.pqprof-kat-%d", p->copy, k) >= len)
		return pq_fail(err, PQ_EINPUT, "path too long");
	const struct contain_caps *caps = contain_caps();
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return pq_fail_errno(err, PQ_EIO, "%s", dir);
	if (caps->drop_uid && chown(dir, caps->uid, caps->gid) != 0)
		return pq_fail_errno(err, PQ_EIO, "%s", dir);
	static char *const env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C", NULL };
	struct cc_limits lim = { .timeout_s = timeout_s > 0 ? timeout_s : 900, .as_limit = CC_DEFAULT_AS_LIMIT,
	                         .as_user = caps->drop_uid, .workdir = dir, .private_root = root,
	                         .env = (const char *const *)env };
	char log[PATH_MAX * 2];
	snprintf(log, sizeof log, "%s/kat-program.log", dir);
	char *argv[] = { prog, NULL };
	struct contained ct;
	pid_t pid = spawn_logged(&ct, argv, log, &lim);
	if (pid < 0)
		return pq_fail(err, PQ_EIO, "%s: could not start", p->inst[k].program);
	int st = 0, to = 0;
	int r = wait_limited(&ct, &lim, &st, &to);
	interrupt_untrack_pid(pid);
	contain_finish(&ct);
	if (r < 0 || to || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		char ex[400];
		obs_tail_excerpt(log, ex, sizeof ex);
		return pq_fail(err, PQ_ESCHEME, "%s %s (%s)", p->inst[k].program,
		               to ? "did not finish within the time limit" : "failed", ex);
	}
	return 0;
}

int observe_enabled(void)
{
	const char *e = getenv("PQPROF_OBSERVE");
	return !(e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0 || strcmp(e, "no") == 0));
}
