/* steps: campaign steps built on other modules; see steps.h. */
#include "config.h"
#include "core/reader_view.h"
#include "campaign/steps.h"
#include "report/report.h"
#include "report/compare.h"
#include "report/record_set.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/json_file.h"
#include "profile/analysis.h"
#include "profile/profile_export.h"
#include "profile/groups.h"
#include "profile/profile_run.h"
#include "record/records.h"
#include "runner/op_ctx.h"
#include "supervise/blame.h"

#include <stdlib.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void steps_forget(const char *dir)
{
	static const char *const subs[] = { "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", "interposition", "output", "leak", "paired", NULL };
	for (int i = 0; subs[i]; i++) {
		char p[PATH_MAX];
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, subs[i]) == 0)
			remove_dir_files(p);
	}
	char p[PATH_MAX];
	if (path_fmt(p, sizeof p, NULL, "%s/campaign.json", dir) == 0)
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

struct analyze_call {
	const char *trace, *opname;
	const struct analysis_opts *ao;
};

static json_t *analyze_fn(void *ctx, pq_error *err)
{
	const struct analyze_call *a = ctx;
	json_t *rec = NULL;
	return profile_analyze_files(a->trace, a->opname, a->ao, &rec, err) < 0 ? NULL : rec;
}

/*
 * profile_analyze_files in a reader view (core/reader_view.h): the trace's
 * library, its DWARF and the source text it names are parsed by a child
 * that sees only them and the outputs' folders.
 */
static int analyze_in_view(const char *trace, const char *opname, const struct analysis_opts *ao, json_t **rec,
                           pq_error *err)
{
	struct reader_view *v = calloc(1, sizeof *v);
	if (!v)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	analysis_view_add(v, trace);
	reader_view_add_dir_of(v, ao->flamegraph, 1);
	reader_view_add_dir_of(v, ao->folded, 1);
	struct analyze_call call = { trace, opname, ao };
	char note[256];
	int r = reader_view_call(v, analyze_fn, &call, rec, note, sizeof note, err);
	free(v);
	return r;
}

int steps_profile(const char *dir, const char *label, const char *lib, json_t *desc, const char *opname,
                  const struct scheme_desc *scheme, double timeout_s, int quick, pq_error *errp)
{
	char trace[PATH_MAX], svg[PATH_MAX], fold[PATH_MAX], recp[PATH_MAX];
	int op = pq_op_parse(opname);
	if (op < 0)
		return pq_fail(errp, PQ_EUSAGE, "unknown operation '%s'", opname);
	if (record_path(trace, sizeof trace, dir, "traces", label, opname, ".pqt", errp) < 0 ||
	    record_path(svg, sizeof svg, dir, "flame", label, opname, ".svg", errp) < 0 ||
	    record_path(fold, sizeof fold, dir, "flame", label, opname, ".folded", errp) < 0 ||
	    record_path(recp, sizeof recp, dir, "profile", label, opname, ".json", errp) < 0)
		return -PQ_EINPUT;
	enum pq_op ops[1] = { (enum pq_op)op };
	struct group_set *gs = scheme_groups(scheme);
	struct profile_opts po = {
		.lib = lib, .ops = ops, .nops = 1, .min_samples = quick ? 500 : 2000,
		.max_seconds = quick ? 5 : 30, .timeout_s = timeout_s, .groups = gs, .instance = desc,
		.count_iters = quick ? 1 : 3,
	};
	pq_error err = { 0 };
	json_t *rec = NULL;
	struct profile_op_summary os = { 0 };
	po.op_out = &os;
	char log[PATH_MAX];
	if (record_path(log, sizeof log, dir, "output", label, opname, ".profile.log", NULL) == 0)
		po.output_log = log;
	int r = profile_record_op(&po, (enum pq_op)op, trace, &err);
	if (r == 0) {
		struct analysis_opts ao = { .groups = gs, .flamegraph = svg, .folded = fold };
		r = analyze_in_view(trace, opname, &ao, &rec, &err);
	}
	if (r < 0) {
		json_decref(rec);
		rec = json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema", "pqprof.profile/1", "op", opname, "status",
		                "failed", "failure", err.msg, "failure_kind", blame_kind(err.code));
		json_object_set(rec, "instance", desc);
	} else {
		rel_path(rec, "trace", dir);
		rel_path(rec, "flamegraph", dir);
		rel_path(rec, "folded", dir);
		json_t *pt = profile_perturbation_json(&os);
		if (pt)
			json_object_set_new(rec, "perturbation", pt);
		if (os.scheme_output) {
			json_object_set(rec, "scheme_output", os.scheme_output);
			rel_path(json_object_get(rec, "scheme_output"), "log", dir);
		}
	}
	json_decref(os.scheme_output);
	if (r < 0 && errp)
		*errp = err;
	pq_error werr = { 0 };
	int w = json_file_write(recp, rec, &werr);
	json_decref(rec);
	groups_free(gs);
	if (w < 0) {
		if (errp)
			*errp = werr;
		return w;
	}
	return r;
}

int steps_report(const char *dir, pq_error *err)
{
	return report_write_all(dir, err);
}

/* A view of a record set holding only the instances built with one profile. */
static struct record_set *profile_view(const struct record_set *rs, const char *profile)
{
	struct record_set *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	*v = *rs;
	v->inst = calloc(rs->ninst + 1, sizeof *v->inst);
	v->ninst = 0;
	v->cap_inst = v->inst ? rs->ninst + 1 : 0;
	v->ev = NULL;
	v->nev = v->cap_ev = 0;
	for (size_t i = 0; v->inst && i < rs->ninst; i++)
		if (strcmp(rs->inst[i].profile, profile) == 0)
			v->inst[v->ninst++] = rs->inst[i];
	return v;
}

int steps_compare_profiles(const char *dir, char profiles[][64], int n, FILE *out, pq_error *err)
{
	struct record_set *rs = NULL;
	int r = record_set_load(dir, &rs, err);
	if (r < 0)
		return r;
	struct record_set *base = profile_view(rs, profiles[0]);
	for (int p = 1; p < n && r == 0 && base; p++) {
		struct record_set *other = profile_view(rs, profiles[p]);
		if (!other)
			break;
		char sub[PATH_MAX];
		if ((r = path_fmt(sub, sizeof sub, err, "%s/compare/%s_vs_%s", dir, profiles[0], profiles[p])) < 0)
			break;
		/* A/A arms ("aa_of" records) are looked for in the whole campaign. */
		struct compare_opts co = { .out_dir = sub, .aa = rs, .paired_dir = dir };
		json_t *res = NULL;
		r = compare_sets(base, other, &co, &res, err);
		if (r == 0)
			r = compare_write(res, sub, err);
		if (r == 0 && out) {
			fprintf(out, "\n%s vs %s (ratio of typical per-call cost, 95%% interval):\n", profiles[p],
			        profiles[0]);
			size_t i;
			json_t *e;
			json_array_foreach(json_object_get(res, "timing"), i, e) {
				fprintf(out, "  %-28s %-7s %6.3f  (%.3f-%.3f)  %s, %s: %s\n",
				        json_string_value(json_object_get(e, "instance")) ?: "?",
				        json_string_value(json_object_get(e, "op")) ?: "?",
				        json_number_value(json_object_get(e, "ratio")), json_number_value(json_object_get(e, "lo")),
				        json_number_value(json_object_get(e, "hi")),
				        json_string_value(json_object_get(e, "measure")) ?: "?",
				        json_string_value(json_object_get(e, "runs")) ?: "?",
				        json_string_value(json_object_get(e, "verdict")) ?: "?");
				const char *why = json_string_value(json_object_get(e, "reason"));
				const char *see = json_string_value(json_object_get(e, "detectable"));
				if (why)
					fprintf(out, "      %s\n", why);
				if (see)
					fprintf(out, "      %s\n", see);
			}
			fprintf(out, "  details: %s/compare.md\n", sub);
		}
		json_decref(res);
		free(other->inst);
		free(other);
	}
	if (base) {
		free(base->inst);
		free(base);
	}
	record_set_free(rs);
	return r;
}
