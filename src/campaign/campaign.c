/* campaign: targets -> units -> steps, with resumable state; see campaign.h. */
#include "config.h"
#include "campaign/campaign.h"
#include "core/atomic_file.h"
#include "core/json_file.h"
#include "core/fixed_str.h"
#include "core/safe_name.h"
#include "instance/builder.h"
#include "measure/env.h"
#include "runner/bench.h"
#include "runner/kat_gate.h"
#include "runner/mem_run.h"
#include "runner/op_ctx.h"
#include "campaign/steps.h"
#include "report/bench_table.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_UNITS 512
/* Room a campaign directory leaves for "/<sub>/<label>__<op><ext>". */
#define DIR_SLACK 400

static const char *const step_names[STEP_COUNT_ALL] = { "build", "kat", "bench", "mem", "sizes", "profile" };

struct unit {
	char label[300];
	char instance[128];
	char profile[64];
	char tree[PATH_MAX];
	char api[8];
	const char *const *defines;
	int ndefines;
	char cflags[512];
	char lib[PATH_MAX];
	int prebuilt;
	char vectors[PATH_MAX];
	char manifest[PATH_MAX];
};

struct campaign {
	const struct campaign_opts *o;
	char dir[PATH_MAX];
	struct scheme_desc desc;
	int have_desc;
	char scheme[128], title[256], category[128];
	struct unit *units;
	int nunits;
	int want[STEP_COUNT_ALL];
	json_t *state;
	int done, total;
	double t0, step_time_sum;
	int steps_timed;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void base_no_ext(const char *path, char *out, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", path);
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	const char *b = strrchr(tmp, '/');
	snprintf(out, len, "%s", b ? b + 1 : tmp);
	char *dot = strstr(out, ".so");
	if (dot && dot[3] == '\0')
		*dot = '\0';
}

enum target_kind { TARGET_DESC, TARGET_TREE, TARGET_LIB };

static int classify_target(const char *t, enum target_kind *k, pq_error *err)
{
	char p[PATH_MAX];
	if (is_dir(t)) {
		int r = path_fmt(p, sizeof p, err, "%s/scheme.json", t);
		*k = r == 0 && is_file(p) ? TARGET_DESC : TARGET_TREE;
		return r;
	}
	if (!is_file(t))
		return pq_fail_errno(err, PQ_EINPUT, "%s", t);
	size_t n = strlen(t);
	*k = n > 5 && strcmp(t + n - 5, ".json") == 0 ? TARGET_DESC : TARGET_LIB;
	return 0;
}

int campaign_default_dir(const char *target, const struct campaign_opts *o, char *buf, size_t len, pq_error *err)
{
	enum target_kind k;
	int r = classify_target(target, &k, err);
	if (r < 0)
		return r;
	char name[256], sys[128];
	if (k == TARGET_DESC) {
		struct scheme_desc d;
		if ((r = scheme_desc_read(target, &d, err)) < 0)
			return r;
		snprintf(name, sizeof name, "%s", d.name);
		scheme_desc_free(&d);
	} else {
		base_no_ext(target, name, sizeof name);
	}
	safe_name(name, sizeof name, name);
	if (o->system)
		snprintf(sys, sizeof sys, "%s", o->system);
	else if (gethostname(sys, sizeof sys) != 0)
		snprintf(sys, sizeof sys, "local");
	sys[sizeof sys - 1] = '\0';
	safe_name(sys, sizeof sys, sys);
	snprintf(buf, len, "reports/%s/%s", sys, name);
	return 0;
}

/* Profiles for a unit: --profiles, else the descriptor's, else harness-default. */
static int profile_list(const struct campaign *c, char names[][64], int max, pq_error *err)
{
	int n = 0;
	if (c->o->profiles) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s", c->o->profiles);
		for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ",")) {
			if (!flag_profile_find(tok))
				return pq_fail(err, PQ_EUSAGE, "--profiles: unknown flag profile '%s'", tok);
			snprintf(names[n++], 64, "%s", tok);
		}
	} else if (c->have_desc && c->desc.nprofiles) {
		for (int i = 0; i < c->desc.nprofiles && n < max; i++)
			snprintf(names[n++], 64, "%s", c->desc.profiles[i]);
	}
	if (n == 0)
		snprintf(names[n++], 64, "harness-default");
	return n;
}

static struct unit *add_unit(struct campaign *c, pq_error *err)
{
	if (c->nunits >= MAX_UNITS) {
		pq_fail(err, PQ_EINPUT, "more than %d instances x profiles", MAX_UNITS);
		return NULL;
	}
	struct unit *u = &c->units[c->nunits++];
	memset(u, 0, sizeof *u);
	return u;
}

static int expand(struct campaign *c, const char *target, pq_error *err)
{
	enum target_kind k;
	int r = classify_target(target, &k, err);
	if (r < 0)
		return r;
	char profiles[8][64];
	c->units = calloc(MAX_UNITS, sizeof *c->units);
	if (!c->units)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	if (k == TARGET_DESC) {
		if ((r = scheme_desc_read(target, &c->desc, err)) < 0)
			return r;
		c->have_desc = 1;
		snprintf(c->scheme, sizeof c->scheme, "%s", c->desc.name);
		snprintf(c->title, sizeof c->title, "%s", c->desc.title);
		snprintf(c->category, sizeof c->category, "%s", c->desc.category);
	} else {
		base_no_ext(target, c->scheme, sizeof c->scheme);
		snprintf(c->title, sizeof c->title, "%s", c->scheme);
		snprintf(c->category, sizeof c->category, "digital signature");
	}
	int np = profile_list(c, profiles, 8, err);
	if (np < 0)
		return np;
	if (k == TARGET_LIB) {
		struct unit *u = add_unit(c, err);
		if (!u)
			return -PQ_EINPUT;
		base_no_ext(target, u->instance, sizeof u->instance);
		snprintf(u->profile, sizeof u->profile, "prebuilt");
		if (!realpath(target, u->lib))
			return pq_fail_errno(err, PQ_EINPUT, "%s", target);
		u->prebuilt = 1;
	} else if (k == TARGET_TREE) {
		for (int p = 0; p < np; p++) {
			struct unit *u = add_unit(c, err);
			if (!u)
				return -PQ_EINPUT;
			base_no_ext(target, u->instance, sizeof u->instance);
			str_copy(u->profile, sizeof u->profile, profiles[p]);
			if (!realpath(target, u->tree))
				return pq_fail_errno(err, PQ_EINPUT, "%s", target);
			snprintf(u->api, sizeof u->api, "auto");
		}
	} else {
		for (int i = 0; i < c->desc.ninstances; i++) {
			const struct desc_instance *in = &c->desc.instances[i];
			if (c->o->quick && in->slow)
				continue;
			for (int p = 0; p < np; p++) {
				struct unit *u = add_unit(c, err);
				if (!u)
					return -PQ_EINPUT;
				str_copy(u->instance, sizeof u->instance, in->name);
				str_copy(u->profile, sizeof u->profile, profiles[p]);
				snprintf(u->tree, sizeof u->tree, "%s", in->tree);
				snprintf(u->api, sizeof u->api, "%s", in->api);
				u->defines = (const char *const *)in->defines;
				u->ndefines = in->ndefines;
				snprintf(u->cflags, sizeof u->cflags, "%s", in->cflags);
				snprintf(u->vectors, sizeof u->vectors, "%s", in->vectors);
				snprintf(u->manifest, sizeof u->manifest, "%s", in->manifest);
			}
		}
	}
	for (int i = 0; i < c->nunits; i++) {
		struct unit *u = &c->units[i];
		snprintf(u->label, sizeof u->label, "%s__%s", u->instance, u->profile);
		safe_name(u->label, sizeof u->label, u->label);
	}
	/* Shards: a deterministic subset, by position in the sorted unit list. */
	if (c->o->shard_n > 0) {
		int kept = 0;
		for (int i = 0; i < c->nunits; i++)
			if (i % c->o->shard_n == c->o->shard_k - 1)
				c->units[kept++] = c->units[i];
		c->nunits = kept;
	}
	if (c->nunits == 0)
		return pq_fail(err, PQ_EINPUT, "%s: no instances to run%s", target,
		               c->o->quick ? " (all are marked slow; drop --quick)" : "");
	return 0;
}

/* Fits whenever c->dir leaves DIR_SLACK bytes (campaign_run checks); a
 * path that would not fit is "", which no step can mistake for a record. */
static int path_of(const struct campaign *c, char *buf, size_t len, const char *sub, const char *label,
                   const char *op, const char *ext)
{
	if (op)
		return path_fmt(buf, len, NULL, "%s/%s/%s__%s%s", c->dir, sub, label, op, ext);
	return path_fmt(buf, len, NULL, "%s/%s/%s%s", c->dir, sub, label, ext);
}

static void progress(struct campaign *c, const char *step, const struct unit *u, const char *op)
{
	FILE *f = c->o->progress;
	if (!f)
		return;
	double el = now_s() - c->t0;
	double eta = c->steps_timed ? c->step_time_sum / c->steps_timed * (c->total - c->done) : NAN;
	if (c->o->progress_tty) {
		char e[32] = "?";
		if (isfinite(eta))
			snprintf(e, sizeof e, "%dm%02ds", (int)eta / 60, (int)eta % 60);
		fprintf(f, "\r\033[K[%d/%d] %s %s%s%s  elapsed %dm%02ds  remaining ~%s", c->done, c->total, step,
		        u->label, op ? " " : "", op ? op : "", (int)el / 60, (int)el % 60, e);
	} else {
		fprintf(f, "progress done=%d total=%d step=%s unit=%s%s%s elapsed_s=%.0f", c->done, c->total, step,
		        u->label, op ? " op=" : "", op ? op : "", el);
		if (isfinite(eta))
			fprintf(f, " eta_s=%.0f", eta);
		fputc('\n', f);
	}
	fflush(f);
}

static void step_done(struct campaign *c, double started, int skipped)
{
	c->done++;
	if (!skipped) {
		c->step_time_sum += now_s() - started;
		c->steps_timed++;
	}
}

static json_t *read_json(const char *path)
{
	return json_load_file(path, 0, NULL);
}

static void save_state(struct campaign *c, const char *status)
{
	json_object_set_new(c->state, "status", json_string(status));
	char p[PATH_MAX];
	if (path_fmt(p, sizeof p, NULL, "%s/campaign.json", c->dir) == 0)
		json_file_write(p, c->state, NULL);
}

static void set_unit_step(struct campaign *c, const struct unit *u, const char *step, const char *state)
{
	json_t *arr = json_object_get(c->state, "instances");
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "label")) ?: "", u->label) == 0) {
			json_object_set_new(json_object_get(e, "steps"), step, json_string(state));
			return;
		}
	}
}

/* The unit's descriptor from its build record (NULL when not built). */
static json_t *unit_descriptor(struct campaign *c, const struct unit *u)
{
	char p[PATH_MAX];
	path_of(c, p, sizeof p, "build", u->label, NULL, ".json");
	json_t *b = read_json(p);
	if (!b)
		return NULL;
	json_t *d = json_incref(json_object_get(b, "instance"));
	json_decref(b);
	return d;
}

static int do_build(struct campaign *c, struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *old = read_json(rec);
	int done = old && (strcmp(json_string_value(json_object_get(old, "status")) ?: "", "complete") == 0 ?
	                   is_file(u->lib) : 1);
	json_decref(old);
	if (done)
		return 1;
	json_t *r = json_pack("{s:s, s:s, s:s}", "schema", "pqprof.build/1", "profile", u->profile, "label", u->label);
	pq_error err = { 0 };
	if (!u->prebuilt) {
		struct build_options bo = {
			.src_dir = u->tree, .out_path = u->lib, .profile = u->profile, .extra_cflags = u->cflags,
			.defines = u->defines, .ndefines = u->ndefines,
		};
		tree_api_parse(u->api, &bo.api);
		struct build_result br;
		if (instance_build(&bo, &br, &err) < 0) {
			json_object_set_new(r, "status", json_string("failed"));
			json_object_set_new(r, "failure", json_string(err.msg));
			json_object_set_new(r, "source_dir", json_string(u->tree));
			json_file_write(rec, r, NULL);
			json_decref(r);
			return 0;
		}
		json_object_set_new(r, "notes", json_string(br.notes));
		build_result_free(&br);
	}
	json_t *desc = NULL;
	if (instance_describe(u->lib, &desc, &err) < 0) {
		json_object_set_new(r, "status", json_string("failed"));
		json_object_set_new(r, "failure", json_string(err.msg));
	} else {
		json_object_set_new(r, "instance", desc);
		json_object_set_new(r, "status", json_string("complete"));
	}
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "lib/%s.so", u->label);
	json_object_set_new(r, "library", json_string(u->prebuilt ? u->lib : rel));
	json_file_write(rec, r, NULL);
	json_decref(r);
	return 1;
}

static int built_ok(struct campaign *c, const struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *b = read_json(rec);
	int ok = b && strcmp(json_string_value(json_object_get(b, "status")) ?: "", "complete") == 0;
	json_decref(b);
	return ok && is_file(u->lib);
}

static void do_kat(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX], log[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	path_of(c, log, sizeof log, "kat", u->label, NULL, ".log");
	struct kat_gate_opts ko = {
		.lib = u->lib, .vectors = u->vectors[0] ? u->vectors : NULL,
		.manifest = u->manifest[0] ? u->manifest : NULL, .search_tree = 1,
		.timeout_s = c->o->kat_timeout_s > 0 ? c->o->kat_timeout_s : 900, .log_path = log,
		.record_path = rec, .instance = desc,
	};
	struct kat_gate_result res;
	pq_error err = { 0 };
	if (kat_gate_run(&ko, &res, &err) == 0)
		kat_gate_result_free(&res);
	/* Every record carries the environment it was measured in. */
	json_t *r = read_json(rec);
	if (r) {
		json_object_set(r, "environment", env);
		json_file_write(rec, r, NULL);
		json_decref(r);
	}
}

static void do_mem(struct campaign *c, const struct unit *u, json_t *desc, enum pq_op op, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "memory", u->label, pq_op_name(op), ".json");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu };
	json_t *r = NULL;
	pq_error err = { 0 };
	mem_run_op(&mo, op, &r, &err);
	if (r) {
		json_object_set(r, "instance", desc);
		json_object_set(r, "environment", env);
		steps_add_elf_sizes(r, u->lib);
		json_file_write(rec, r, NULL);
		json_decref(r);
	}
}

static void do_sizes(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu };
	json_t *r = NULL;
	pq_error err = { 0 };
	sizes_run(&mo, 20, &r, &err);
	if (r) {
		json_object_set(r, "instance", desc);
		json_object_set(r, "environment", env);
		steps_add_elf_sizes(r, u->lib);
		json_file_write(rec, r, NULL);
		json_decref(r);
	}
}

/* The unit's operations, from its descriptor; *desc is a new reference or NULL. */
static int unit_ops(struct campaign *c, const struct unit *u, json_t **desc, enum pq_op ops[PQ_OP_COUNT])
{
	*desc = built_ok(c, u) ? unit_descriptor(c, u) : NULL;
	int kind = *desc && strcmp(json_string_value(json_object_get(*desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	return pq_ops_for_kind(kind, ops);
}

static void unit_build_and_kat(struct campaign *c, struct unit *u, json_t *env)
{
	progress(c, "build", u, NULL);
	double t = now_s();
	int fresh_build = !is_file(u->lib);
	if (c->want[STEP_BUILD] || !is_file(u->lib))
		do_build(c, u);
	step_done(c, t, !fresh_build);
	int ok = built_ok(c, u);
	set_unit_step(c, u, "build", ok ? "done" : "failed");
	save_state(c, "incomplete");
	json_t *desc = ok ? unit_descriptor(c, u) : NULL;
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	progress(c, "kat", u, NULL);
	t = now_s();
	int skip = !ok || !c->want[STEP_KAT] || is_file(rec);
	if (!skip)
		do_kat(c, u, desc, env);
	step_done(c, t, skip);
	set_unit_step(c, u, "kat", !ok ? "skipped" : is_file(rec) ? "done" : "pending");
	json_decref(desc);
}

/*
 * Bench the units of one instance (its flag profiles) together: for each
 * operation the builds' trials are interleaved, so a comparison between
 * them is paired in time as well as in seeds.
 */
static void group_bench(struct campaign *c, struct unit *g, int n, json_t *env)
{
	json_t *desc[8] = { 0 };
	enum pq_op ops[PQ_OP_COUNT];
	int nops = 0;
	for (int k = 0; k < n && k < 8; k++) {
		enum pq_op o[PQ_OP_COUNT];
		int m = unit_ops(c, &g[k], &desc[k], o);
		if (desc[k] && !nops) {
			nops = m;
			memcpy(ops, o, sizeof ops);
		}
	}
	for (int i = 0; i < nops; i++) {
		struct bench_config cfgs[8];
		struct unit *who[8];
		int m = 0;
		double t = now_s();
		for (int k = 0; k < n && k < 8; k++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", g[k].label, pq_op_name(ops[i]), ".json");
			progress(c, "bench", &g[k], pq_op_name(ops[i]));
			if (!desc[k] || !c->want[STEP_BENCH] || is_file(rec)) {
				step_done(c, t, 1);
				continue;
			}
			cfgs[m] = (struct bench_config){
				.lib = g[k].lib, .op = ops[i], .trials = c->o->trials > 0 ? c->o->trials : (c->o->quick ? 3 : 5),
				.target_s = c->o->target_s > 0 ? c->o->target_s : (c->o->quick ? 0.3 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.command = c->o->command, .instance = desc[k], .environment = env,
			};
			who[m++] = &g[k];
		}
		if (m) {
			json_t *recs[8] = { 0 };
			pq_error errs[8];
			memset(errs, 0, sizeof errs);
			bench_run_interleaved(cfgs, m, recs, errs);
			for (int k = 0; k < m; k++) {
				char rec[PATH_MAX];
				path_of(c, rec, sizeof rec, "records", who[k]->label, pq_op_name(ops[i]), ".json");
				json_object_set_new(recs[k], "profile", json_string(who[k]->profile));
				json_file_write(rec, recs[k], NULL);
				json_decref(recs[k]);
				step_done(c, t, 0);
			}
		}
	}
	for (int k = 0; k < n && k < 8; k++) {
		int all = 1;
		for (int i = 0; i < nops; i++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", g[k].label, pq_op_name(ops[i]), ".json");
			all &= is_file(rec);
		}
		set_unit_step(c, &g[k], "bench", !desc[k] ? "skipped" : all ? "done" : "pending");
		json_decref(desc[k]);
	}
	save_state(c, "incomplete");
}

static void unit_rest(struct campaign *c, struct unit *u, json_t *env)
{
	json_t *desc;
	enum pq_op ops[PQ_OP_COUNT];
	int nops = unit_ops(c, u, &desc, ops);
	int ok = desc != NULL;
	char rec[PATH_MAX];
	for (int s = STEP_MEM; s <= STEP_PROFILE; s++) {
		double t;
		int skip;
		if (s == STEP_SIZES) {
			path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
			progress(c, "sizes", u, NULL);
			t = now_s();
			skip = !ok || !c->want[s] || is_file(rec);
			if (!skip)
				do_sizes(c, u, desc, env);
			step_done(c, t, skip);
			set_unit_step(c, u, "sizes", !ok ? "skipped" : is_file(rec) ? "done" : "pending");
			save_state(c, "incomplete");
			continue;
		}
		int all = 1;
		for (int i = 0; i < nops; i++) {
			const char *sub = s == STEP_MEM ? "memory" : "profile";
			path_of(c, rec, sizeof rec, sub, u->label, pq_op_name(ops[i]), ".json");
			progress(c, step_names[s], u, pq_op_name(ops[i]));
			t = now_s();
			skip = !ok || !c->want[s] || is_file(rec);
			if (!skip) {
				if (s == STEP_MEM)
					do_mem(c, u, desc, ops[i], env);
				else
					steps_profile(c->dir, u->label, u->lib, desc, pq_op_name(ops[i]),
					              c->have_desc ? &c->desc : NULL, c->o->timeout_s, c->o->quick);
			}
			step_done(c, t, skip);
			all &= is_file(rec);
		}
		set_unit_step(c, u, step_names[s], !ok ? "skipped" : all ? "done" : "pending");
		save_state(c, "incomplete");
	}
	json_decref(desc);
}

/* The performance table with each instance's KAT verdict, from the records. */
static void print_summary(struct campaign *c, FILE *out)
{
	const char *unit = NULL;
	int header = 0;
	for (int i = 0; i < c->nunits; i++) {
		const struct unit *u = &c->units[i];
		char p[PATH_MAX], verdict[96] = "KAT: not run";
		path_of(c, p, sizeof p, "kat", u->label, NULL, ".json");
		json_t *k = read_json(p);
		if (k) {
			const char *v = json_string_value(json_object_get(json_object_get(k, "outcome"), "verdict"));
			snprintf(verdict, sizeof verdict, "KAT %s%s", v ? v : "?",
			         v && strcmp(v, "PASS") != 0 ? " (output not validated)" : "");
			json_decref(k);
		}
		for (int o = 0; o < PQ_OP_COUNT; o++) {
			path_of(c, p, sizeof p, "records", u->label, pq_op_name(o), ".json");
			json_t *r = read_json(p);
			if (!r)
				continue;
			const char *ru = json_string_value(json_object_get(json_object_get(r, "backend"), "unit"));
			if (!header || (ru && unit && strcmp(ru, unit) != 0)) {
				bench_table_header(out, ru);
				header = 1;
				unit = ru ? strdup(ru) : NULL;
			}
			char shown[200];
			int multi = c->nunits > 1 && strcmp(c->units[0].instance, c->units[1].instance) == 0;
			snprintf(shown, sizeof shown, multi ? "%s/%s" : "%s", u->instance, u->profile);
			bench_table_row(out, r, shown, verdict);
			json_decref(r);
		}
		if (!built_ok(c, u)) {
			path_of(c, p, sizeof p, "build", u->label, NULL, ".json");
			json_t *b = read_json(p);
			fprintf(out, "%-28s build failed: %s\n", u->instance,
			        b ? json_string_value(json_object_get(b, "failure")) : "?");
			json_decref(b);
		}
	}
	free((char *)unit);
	fflush(out);
}

static int make_subdirs(const char *dir, pq_error *err)
{
	static const char *const subs[] = { "", "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", NULL };
	for (int i = 0; subs[i]; i++) {
		char p[PATH_MAX];
		int r = path_fmt(p, sizeof p, err, "%s%s%s", dir, subs[i][0] ? "/" : "", subs[i]);
		if (r == 0)
			r = make_dirs(p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int init_state(struct campaign *c, json_t **env_out, pq_error *err)
{
	char p[PATH_MAX];
	int r = path_fmt(p, sizeof p, err, "%s/campaign.json", c->dir);
	if (r < 0)
		return r;
	json_t *old = c->o->fresh ? NULL : read_json(p);
	json_t *env = old ? json_incref(json_object_get(old, "environment")) : NULL;
	if (!env) {
		env_info ei;
		if (env_capture(&ei, c->o->cpu, NULL, err) < 0) {
			json_decref(old);
			return -PQ_EINPUT;
		}
		env = env_to_json(&ei);
	}
	const char *start = old ? json_string_value(json_object_get(old, "start_utc")) : NULL;
	char now[64];
	time_t tt = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	c->state = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:O, s:s, s:s, s:s?}", "schema", "pqprof.campaign/1",
	                     "scheme", "name", c->scheme, "title", c->title, "category", c->category,
	                     "system", c->o->system ? c->o->system : "", "environment", env,
	                     "start_utc", start ? start : now, "pqprof_version", PACKAGE_VERSION,
	                     "command", c->o->command);
	if (!c->o->system) {
		char host[128] = "local";
		gethostname(host, sizeof host);
		host[sizeof host - 1] = '\0';
		json_object_set_new(c->state, "system", json_string(host));
	}
	json_t *arr = json_array();
	for (int i = 0; i < c->nunits; i++) {
		json_t *steps = json_object();
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			json_object_set_new(steps, step_names[s], json_string("pending"));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o}", "instance", c->units[i].instance, "profile",
		                                     c->units[i].profile, "label", c->units[i].label, "steps", steps));
	}
	json_object_set_new(c->state, "instances", arr);
	if (c->o->shard_n)
		json_object_set_new(c->state, "shard", json_pack("{s:i, s:i}", "k", c->o->shard_k, "n", c->o->shard_n));
	json_decref(old);
	*env_out = env;
	return 0;
}

static int parse_steps(struct campaign *c, pq_error *err)
{
	if (!c->o->steps) {
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			c->want[s] = 1;
		return 0;
	}
	char buf[256];
	snprintf(buf, sizeof buf, "%s", c->o->steps);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int found = 0;
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			if (strcmp(tok, step_names[s]) == 0)
				c->want[s] = found = 1;
		if (!found && strcmp(tok, "report") != 0)
			return pq_fail(err, PQ_EUSAGE, "--steps: unknown step '%s' (build,kat,bench,mem,sizes,profile,report)", tok);
	}
	return 0;
}

int campaign_run(const char *target, const struct campaign_opts *o, pq_error *err)
{
	struct campaign c = { .o = o };
	int r = parse_steps(&c, err);
	if (r == 0)
		r = expand(&c, target, err);
	if (r == 0 && !o->out_dir)
		r = campaign_default_dir(target, o, c.dir, sizeof c.dir, err);
	else if (r == 0)
		r = path_fmt(c.dir, sizeof c.dir, err, "%s", o->out_dir);
	if (r == 0 && strlen(c.dir) + DIR_SLACK >= sizeof c.dir)
		r = pq_fail(err, PQ_EINPUT, "%s: campaign directory path too long (at most %zu bytes)", c.dir,
		            sizeof c.dir - DIR_SLACK - 1);
	if (r == 0 && o->fresh)
		steps_forget(c.dir);
	if (r == 0)
		r = make_subdirs(c.dir, err);
	for (int i = 0; i < c.nunits && r == 0; i++)
		if (!c.units[i].prebuilt)
			r = path_fmt(c.units[i].lib, sizeof c.units[i].lib, err, "%s/lib/%s.so", c.dir, c.units[i].label);
	json_t *env = NULL;
	if (r == 0)
		r = init_state(&c, &env, err);
	if (r < 0) {
		if (c.have_desc)
			scheme_desc_free(&c.desc);
		free(c.units);
		return r;
	}
	c.total = c.nunits * (3 + 3 * 3);
	c.t0 = now_s();
	save_state(&c, "incomplete");
	for (int i = 0; i < c.nunits; i++)
		unit_build_and_kat(&c, &c.units[i], env);
	/* Units of one instance are adjacent (instance-major order). */
	for (int i = 0; i < c.nunits;) {
		int n = 1;
		while (i + n < c.nunits && n < 8 && strcmp(c.units[i + n].instance, c.units[i].instance) == 0)
			n++;
		group_bench(&c, &c.units[i], n, env);
		i += n;
	}
	for (int i = 0; i < c.nunits; i++)
		unit_rest(&c, &c.units[i], env);
	char now[64];
	time_t tt = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	json_object_set_new(c.state, "end_utc", json_string(now));
	save_state(&c, "complete");
	if (o->progress) {
		if (o->progress_tty)
			fputc('\n', o->progress);
		fprintf(o->progress, "%scampaign %s: %d units done in %.0f s\n", o->progress_tty ? "" : "progress ",
		        c.dir, c.nunits, now_s() - c.t0);
	}
	if (o->summary)
		print_summary(&c, o->summary);
	if (!o->no_report)
		r = steps_report(c.dir, err);
	char profiles[8][64];
	int np = profile_list(&c, profiles, 8, NULL);
	if (r == 0 && np > 1 && (c.want[STEP_BENCH] || c.want[STEP_PROFILE]))
		r = steps_compare_profiles(c.dir, profiles, np, o->summary, err);
	json_decref(env);
	json_decref(c.state);
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	free(c.units);
	return r;
}
