/* steps: campaign steps built on other modules; see steps.h. */
#include "config.h"
#include "campaign/steps.h"
#include "measure/elf_size.h"
#include "report/report.h"
#include "core/atomic_file.h"
#include "profile/analysis.h"
#include "profile/groups.h"
#include "profile/profile_run.h"
#include "runner/op_ctx.h"

#include <stdlib.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void steps_add_elf_sizes(json_t *record, const char *lib)
{
	struct elf_size es;
	pq_error err = { 0 };
	if (elf_size_analyze(lib, &es, &err) < 0) {
		json_object_set_new(record, "elf_error", json_string(err.msg));
		return;
	}
	json_object_set_new(record, "elf", elf_size_to_json(&es, 10));
	json_object_set_new(record, "static_image_bytes", json_integer((json_int_t)es.image_memsz));
	elf_size_free(&es);
}

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
}

void steps_forget(const char *dir)
{
	static const char *const subs[] = { "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", NULL };
	for (int i = 0; subs[i]; i++) {
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dir, subs[i]);
		empty_dir(p);
	}
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/campaign.json", dir);
	unlink(p);
}

static void rel_path(json_t *rec, const char *key, const char *dir)
{
	const char *v = json_string_value(json_object_get(rec, key));
	size_t n = strlen(dir);
	if (v && strncmp(v, dir, n) == 0 && v[n] == '/')
		json_object_set_new(rec, key, json_string(v + n + 1));
}

/* Groups for the hash profile: the defaults, then the scheme's own. */
static struct group_set *scheme_groups(const struct scheme_desc *scheme)
{
	struct group_set *gs = groups_new();
	pq_error err = { 0 };
	if (!gs || groups_add_defaults(gs, &err) < 0)
		return gs;
	for (int g = 0; scheme && g < scheme->ngroups; g++)
		for (int k = 0; k < scheme->groups[g].nglobs; k++)
			groups_add(gs, scheme->groups[g].name, scheme->groups[g].globs[k], &err);
	return gs;
}

int steps_profile(const char *dir, const char *label, const char *lib, json_t *desc, const char *opname,
                  const struct scheme_desc *scheme, double timeout_s, int quick)
{
	char trace[PATH_MAX], svg[PATH_MAX], fold[PATH_MAX], recp[PATH_MAX];
	snprintf(trace, sizeof trace, "%s/traces/%s__%s.pqt", dir, label, opname);
	snprintf(svg, sizeof svg, "%s/flame/%s__%s.svg", dir, label, opname);
	snprintf(fold, sizeof fold, "%s/flame/%s__%s.folded", dir, label, opname);
	snprintf(recp, sizeof recp, "%s/profile/%s__%s.json", dir, label, opname);
	int op = pq_op_parse(opname);
	if (op < 0)
		return -PQ_EUSAGE;
	enum pq_op ops[1] = { (enum pq_op)op };
	struct group_set *gs = scheme_groups(scheme);
	struct profile_opts po = {
		.lib = lib, .ops = ops, .nops = 1, .min_samples = quick ? 500 : 2000,
		.max_seconds = quick ? 5 : 30, .timeout_s = timeout_s, .groups = gs, .instance = desc,
		.count_iters = quick ? 1 : 3,
	};
	pq_error err = { 0 };
	json_t *rec = NULL;
	int r = profile_record_op(&po, (enum pq_op)op, trace, &err);
	if (r == 0) {
		struct analysis_opts ao = { .groups = gs, .flamegraph = svg, .folded = fold };
		r = profile_analyze_files(trace, opname, &ao, &rec, &err);
	}
	if (r < 0) {
		json_decref(rec);
		rec = json_pack("{s:s, s:s, s:s, s:s}", "schema", "pqprof.profile/1", "op", opname, "status", "failed",
		                "failure", err.msg);
		json_object_set(rec, "instance", desc);
	} else {
		json_object_set_new(rec, "status", json_string("complete"));
		rel_path(rec, "trace", dir);
		rel_path(rec, "flamegraph", dir);
		rel_path(rec, "folded", dir);
	}
	char *t = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (t)
		atomic_write(recp, t, strlen(t), NULL);
	free(t);
	json_decref(rec);
	groups_free(gs);
	return r;
}

int steps_report(const char *dir, pq_error *err)
{
	return report_write_all(dir, err);
}
