/* round: a campaign per submission of a round, and round.json; see round.h. */
#include "config.h"
#include "campaign/round.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/json_file.h"
#include "core/path_name.h"
#include "core/safe_name.h"
#include "instance/package_scan.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int has_descriptor(const char *dir)
{
	return dir_has_file(dir, "scheme.json");
}

static int visible(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

int round_is_round(const char *dir)
{
	static const char *const build_files[] = { "GNUmakefile", "makefile", "Makefile", "CMakeLists.txt", "meson.build",
		                                    NULL };
	if (!is_dir(dir) || has_descriptor(dir) || package_is_tree(dir))
		return 0;
	/* A build of its own builds what is below it: one submission. */
	for (int i = 0; build_files[i]; i++)
		if (dir_has_file(dir, build_files[i]))
			return 0;
	struct dirent **l;
	int n = scandir(dir, &l, visible, alphasort), own = 0;
	if (n < 0)
		return 0;
	int classic = 0;
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, l[i]->d_name) == 0 && is_dir(p) && path_inside_tree(p, dir)) {
			classic |= package_classic_folder(l[i]->d_name);
			own += !package_passed_over(p, l[i]->d_name) && (has_descriptor(p) || package_is_package(p));
		}
		free(l[i]);
	}
	free(l);
	return !classic && own > 0;
}

/* What dir is as a submission: the kind, or "" with why it is none. */
static void classify(const char *dir, struct round_package *p)
{
	if (has_descriptor(dir))
		str_copy(p->kind, sizeof p->kind, "descriptor");
	else if (package_is_tree(dir))
		str_copy(p->kind, sizeof p->kind, "tree");
	else if (package_is_package(dir))
		str_copy(p->kind, sizeof p->kind, "package");
	else
		snprintf(p->why, sizeof p->why, "no submission: no build file with a KAT driver or an API header "
		         "(SIG_AlgorithmInstance.h, KEM_AlgorithmInstance.h, api.h), nor an API header beside C sources, "
		         "in it or below");
}

static int add_package(struct round *r, const char *path, pq_error *err)
{
	if (r->n >= ROUND_MAX_PACKAGES)
		return pq_fail(err, PQ_EINPUT, "more than %d packages in the round", ROUND_MAX_PACKAGES);
	struct round_package *p = &r->pkg[r->n];
	memset(p, 0, sizeof *p);
	if (!realpath(path, p->path))
		return pq_fail_errno(err, PQ_EINPUT, "%s", path);
	char base[256];
	str_copy(base, sizeof base, path_base(p->path));
	safe_name(base, sizeof base, base);
	/* Two folders of one name (in two rounds): the second gets "-2". */
	str_copy(p->name, sizeof p->name, base);
	for (int k = 2, clash = 1; clash; k++) {
		clash = 0;
		for (int i = 0; i < r->n && !clash; i++)
			clash = strcmp(r->pkg[i].name, p->name) == 0;
		if (clash)
			snprintf(p->name, sizeof p->name, "%.100s-%d", base, k);
	}
	classify(p->path, p);
	r->n++;
	return 0;
}

int round_find(const char *const *targets, int n, int force_round, struct round *r, pq_error *err)
{
	r->n = 0;
	for (int t = 0; t < n; t++) {
		struct stat sb;
		if (stat(targets[t], &sb) != 0)
			return pq_fail_errno(err, PQ_EINPUT, "%s", targets[t]);
		if (!S_ISDIR(sb.st_mode) || (!(force_round && n == 1) && !round_is_round(targets[t]))) {
			int k = add_package(r, targets[t], err);
			if (k < 0)
				return k;
			continue;
		}
		struct dirent **l;
		int m = scandir(targets[t], &l, visible, alphasort), k = 0;
		if (m < 0)
			return pq_fail_errno(err, PQ_EINPUT, "%s", targets[t]);
		for (int i = 0; i < m; i++) {
			char p[PATH_MAX];
			/* A link out of the round (to /, to another tree) is passed over, never walked. */
			if (k == 0 && path_fmt(p, sizeof p, err, "%s/%s", targets[t], l[i]->d_name) == 0 && is_dir(p) &&
			    path_inside_tree(p, targets[t]) && !package_passed_over(p, l[i]->d_name))
				k = add_package(r, p, err);
			else if (k == 0 && err && err->code)
				k = -err->code;
			free(l[i]);
		}
		free(l);
		if (k < 0)
			return k;
	}
	return 0;
}

static json_t *state_entry(const struct round_package *p, const char *status, int code, const char *error)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "package", p->name, "path", p->path, "kind", p->kind,
	                 "why", p->why, "status", status, "exit", code, "error", error ? error : "");
}

static int state_write(const char *root, json_t *pkgs, pq_error *err)
{
	char path[4096];
	if (path_fmt(path, sizeof path, err, "%s/%s", root, ROUND_STATE_FILE) < 0)
		return -PQ_EIO;
	json_t *doc = json_pack("{s:s, s:O}", "schema", ROUND_STATE_SCHEMA, "packages", pkgs);
	if (!doc)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int r = json_file_write(path, doc, err);
	json_decref(doc);
	return r;
}

int round_state_init(const struct round *r, const char *root, pq_error *err)
{
	char path[4096];
	if (path_fmt(path, sizeof path, err, "%s/%s", root, ROUND_STATE_FILE) < 0)
		return -PQ_EIO;
	struct stat sb;
	if (stat(path, &sb) == 0)
		return 0;
	int k = make_dirs(root, err);
	json_t *pkgs = json_array();
	for (int i = 0; i < r->n && k == 0; i++)
		json_array_append_new(pkgs, state_entry(&r->pkg[i], r->pkg[i].kind[0] ? "submitted" : "no submission",
		                                        r->pkg[i].kind[0] ? 0 : PQ_EINPUT, r->pkg[i].why));
	if (k == 0)
		k = state_write(root, pkgs, err);
	json_decref(pkgs);
	return k;
}

void round_plan(const struct round *r, const char *root, FILE *out)
{
	fprintf(out, "round: %d package%s into %s; nothing is built or written\n", r->n, r->n == 1 ? "" : "s", root);
	for (int i = 0; i < r->n; i++) {
		const struct round_package *p = &r->pkg[i];
		if (p->kind[0])
			fprintf(out, "  %d/%d %s: %s %s -> %s/%s/\n", i + 1, r->n, p->name, p->kind, p->path, root, p->name);
		else
			fprintf(out, "  %d/%d %s: %s (%s)\n", i + 1, r->n, p->name, p->path, p->why);
	}
}

int round_run(const struct round *r, const char *root, const struct campaign_opts *o, pq_error *err)
{
	int first = 0, k = make_dirs(root, err);
	if (k < 0)
		return k;
	json_t *pkgs = json_array();
	if (!pkgs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	for (int i = 0; i < r->n; i++)
		json_array_append_new(pkgs, state_entry(&r->pkg[i], "pending", 0, r->pkg[i].why));
	if ((k = state_write(root, pkgs, err)) < 0) {
		json_decref(pkgs);
		return k;
	}
	for (int i = 0; i < r->n; i++) {
		const struct round_package *p = &r->pkg[i];
		char dir[4096];
		pq_error perr = { 0 };
		int c = path_fmt(dir, sizeof dir, &perr, "%s/%s", root, p->name);
		if (o->progress)
			fprintf(o->progress, "round: package %d of %d: %s (%s) -> %s/\n", i + 1, r->n, p->name,
			        p->kind[0] ? p->kind : "no submission", dir);
		if (c == 0 && !p->kind[0])
			c = pq_fail(&perr, PQ_EINPUT, "%s: %s", p->path, p->why);
		if (c == 0) {
			struct campaign_opts po = *o;
			po.out_dir = dir;
			c = campaign_run(p->path, &po, &perr);
		}
		const char *status = c == 0 ? "complete" : p->kind[0] ? "failed" : "no submission";
		if (o->progress)
			fprintf(o->progress, "round: package %d of %d: %s: %s%s%s\n", i + 1, r->n, p->name, status,
			        c ? ": " : "", c ? perr.msg : "");
		if (c < 0 && !first)
			first = c;
		json_array_set_new(pkgs, (size_t)i, state_entry(p, status, c ? pq_exit_code(perr.code) : 0,
		                                                 c ? perr.msg : p->why));
		/* (Ctrl-C ends the process in its handler, core/interrupt.h: the round stops with its campaign.) */
		if ((k = state_write(root, pkgs, err)) < 0)
			break;
	}
	json_decref(pkgs);
	if (k < 0)
		return k;
	if (first)
		return pq_fail(err, -first, "not every package of the round completed with its report (see %s/%s)", root,
		               ROUND_STATE_FILE);
	return 0;
}
