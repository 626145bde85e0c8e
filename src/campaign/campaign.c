/* campaign: targets -> units -> steps, with resumable state; see campaign.h. */
#include "config.h"
#include "campaign/campaign.h"
#include "campaign/campaign_lock.h"
#include "core/interrupt.h"
#include "core/safe_name.h"
#include "core/atomic_file.h"
#include "core/json_file.h"
#include "core/fixed_str.h"
#include "core/safe_name.h"
#include "instance/builder.h"
#include "measure/env.h"
#include "supervise/bench.h"
#include "supervise/blame.h"
#include "supervise/describe.h"
#include "supervise/kat_gate.h"
#include "supervise/mem_run.h"
#include "runner/op_ctx.h"
#include "record/records.h"
#include "campaign/steps.h"
#include "campaign/leak_step.h"
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

static const char *const step_names[STEP_COUNT_ALL] = { "build", "kat", "bench", "mem", "sizes", "profile",
	                                                               "leak" };

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
	/* A write failed (disk full, I/O error, read-only): stop, and say which file. */
	int stopped;
	pq_error stop_err;
	/* A step failed on bad input (an unreadable vectors file): finish, then exit with it. */
	pq_error input_err;
	int tool_failures;
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
		char full[sizeof u->instance + sizeof u->profile + 2];
		snprintf(full, sizeof full, "%s__%s", u->instance, u->profile);
		safe_name(u->label, sizeof u->label, full);
		/* Two names that clean up to one label would share every file. */
		for (int j = 0; j < i; j++)
			if (strcmp(c->units[j].label, u->label) == 0)
				return pq_fail(err, PQ_EINPUT,
				               "%s: instances '%s' and '%s' (profile %s) both get the file label '%s'; "
				               "rename one of them", target, c->units[j].instance, u->instance, u->profile,
				               u->label);
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

/* The campaign's records: DIR/SUB/LABEL[__OP]EXT (record_path).  A path
 * that would not fit is "", which no step can mistake for a record. */
static int path_of(const struct campaign *c, char *buf, size_t len, const char *sub, const char *label,
                   const char *op, const char *ext)
{
	return record_path(buf, len, c->dir, sub, label, op, ext, NULL);
}

static void progress(struct campaign *c, const char *step, const struct unit *u, const char *op)
{
	char where[512];
	snprintf(where, sizeof where, "step %d of %d (%s %s%s%s)", c->done + 1, c->total, step, u->label,
	         op ? " " : "", op ? op : "");
	interrupt_set_where(where);
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

/* Keep the first reason to stop; every later step is skipped. */
static void stop_campaign(struct campaign *c, const pq_error *why)
{
	if (c->stopped)
		return;
	c->stopped = 1;
	c->stop_err = *why;
	if (!c->stop_err.code)
		c->stop_err.code = PQ_EIO;
}

/* Write a record; a failure stops the campaign (nothing unwritten counts as done). */
static int put_record(struct campaign *c, const char *path, json_t *j)
{
	pq_error err = { 0 };
	int r = j ? json_file_write(path, j, &err) : pq_fail(&err, PQ_EINTERNAL, "%s: no record to write", path);
	if (r < 0)
		stop_campaign(c, &err);
	return r;
}

/*
 * Whether a step's record means the step is done.  A record is done when
 * it holds a result, including a verdict on the scheme (it crashed, hung,
 * failed its checks: deterministic, kept).  A record of a failure that was
 * not the scheme's (counters or uprobes unavailable, the runner or the
 * loader failed, a bad input file) is not: the step runs again on resume.
 * Records that predate failure_kind count as tool failures.
 */
static int record_done(const char *path)
{
	json_t *r = read_json(path);
	if (!r)
		return 0;
	int done = 1;
	if (strcmp(json_string_value(json_object_get(r, "status")) ?: "", "failed") == 0) {
		const char *kind = json_string_value(json_object_get(r, "failure_kind"));
		if (!kind)
			kind = json_string_value(json_object_get(json_object_get(r, "failure"), "blame"));
		done = kind && strcmp(kind, "scheme") == 0;
	}
	json_decref(r);
	return done;
}

/* The state word for a step over its records: done, failed (to retry) or pending. */
static const char *records_state(struct campaign *c, int ndone, int nfailed, int n)
{
	if (ndone == n)
		return "done";
	if (nfailed) {
		c->tool_failures += nfailed;
		return "failed";
	}
	return "pending";
}

static void save_state(struct campaign *c, const char *status)
{
	if (c->stopped && strcmp(status, "complete") == 0)
		status = "incomplete";
	json_object_set_new(c->state, "status", json_string(status));
	char p[PATH_MAX];
	pq_error err = { 0 };
	if (path_fmt(p, sizeof p, &err, "%s/campaign.json", c->dir) < 0 || json_file_write(p, c->state, &err) < 0)
		stop_campaign(c, &err);
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

/* A build failure caused by the machine (disk full...), not by the sources. */
static int build_failed_on_machine(const char *msg)
{
	static const char *const why[] = { "No space left on device", "Disk quota exceeded", "Read-only file system",
	                                   "Input/output error", NULL };
	for (int i = 0; why[i]; i++)
		if (strstr(msg, why[i]))
			return 1;
	return 0;
}

static int do_build(struct campaign *c, struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *old = read_json(rec);
	const char *ost = json_string_value(json_object_get(old, "status")) ?: "";
	const char *okind = json_string_value(json_object_get(old, "failure_kind")) ?: "";
	/* Done: a complete build whose library is there, or sources that do not compile. */
	int done = old && (strcmp(ost, "complete") == 0 ? is_file(u->lib) : strcmp(okind, "scheme") == 0);
	json_decref(old);
	if (done)
		return 1;
	pq_error err = { 0 };
	struct build_options bo = {
		.src_dir = u->tree, .out_path = u->lib, .profile = u->profile, .extra_cflags = u->cflags,
		.defines = u->defines, .ndefines = u->ndefines,
	};
	/* Descriptor flags are checked; its trees stay inside its directory (see builder.h). */
	const char *env_root = getenv("PQPROF_SOURCE_ROOT");
	bo.source_root = c->o->source_root ? c->o->source_root : env_root && *env_root ? env_root
	                 : c->have_desc ? c->desc.dir : NULL;
	char origin[PATH_MAX + 200];
	snprintf(origin, sizeof origin, "%s: cflags of instance %s", c->desc.path, u->instance);
	bo.flags_origin = c->have_desc ? origin : NULL;
	bo.trust_flags = c->o->trust_flags;
	bo.tree_inside_root = c->have_desc;
	tree_api_parse(u->api, &bo.api);
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "lib/%s.so", u->label);
	json_t *r = NULL;
	int rc = record_build(u->prebuilt ? NULL : &bo, u->lib, u->prebuilt ? u->lib : rel, u->profile, u->label,
	                      &r, &err);
	if (rc < 0 && (err.code == PQ_EIO || build_failed_on_machine(err.msg))) {
		pq_error_prefix(&err, "building %s: ", u->label);
		err.code = PQ_EIO;
		stop_campaign(c, &err);
		json_decref(r);
		return 0;
	}
	if (rc < 0)
		json_object_set_new(r, "failure_kind",
		                    json_string(err.code == PQ_EBUILD || err.code == PQ_ESCHEME ? "scheme" : "tool"));
	put_record(c, rec, r);
	json_decref(r);
	return rc == 0;
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

/* A step that failed without a record: bad input is kept for the exit status, write errors stop. */
static void step_error(struct campaign *c, const struct unit *u, const char *step, pq_error *err)
{
	pq_error_prefix(err, "%s %s: ", step, u->label);
	if (err->code == PQ_EIO) {
		stop_campaign(c, err);
		return;
	}
	if (err->code == PQ_EINPUT && !c->input_err.code)
		c->input_err = *err;
	if (c->o->progress)
		fprintf(c->o->progress, "%s%s (will be retried on the next run)\n", c->o->progress_tty ? "\n" : "warning: ",
		        err->msg);
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
		.instance = desc,
	};
	struct record_ctx ctx = { .instance = desc, .environment = env };
	struct kat_gate_result res;
	pq_error err = { 0 };
	if (record_kat(&ko, &ctx, &res, &err) < 0) {
		step_error(c, u, "kat", &err);
		return;
	}
	put_record(c, rec, res.record);
	kat_gate_result_free(&res);
}

/* Write a mem/sizes record; without one the step failed before measuring. */
static void put_measure(struct campaign *c, const struct unit *u, const char *step, const char *rec, json_t *r,
                        pq_error *err)
{
	if (!r) {
		step_error(c, u, step, err);
		return;
	}
	put_record(c, rec, r);
	json_decref(r);
}

static void do_mem(struct campaign *c, const struct unit *u, json_t *desc, enum pq_op op, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "memory", u->label, pq_op_name(op), ".json");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu };
	struct record_ctx ctx = { .instance = desc, .environment = env };
	json_t *r = NULL;
	pq_error err = { 0 };
	record_mem(&mo, op, &ctx, &r, &err);
	put_measure(c, u, "mem", rec, r, &err);
}

static void do_sizes(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu };
	struct record_ctx ctx = { .instance = desc, .environment = env };
	json_t *r = NULL;
	pq_error err = { 0 };
	record_sizes(&mo, 20, 10, &ctx, &r, &err);
	put_measure(c, u, "sizes", rec, r, &err);
}

/* The unit's operations, from its descriptor; *desc is a new reference or NULL. */
static int unit_ops(struct campaign *c, const struct unit *u, json_t **desc, enum pq_op ops[PQ_OP_COUNT])
{
	*desc = built_ok(c, u) ? unit_descriptor(c, u) : NULL;
	int kind = *desc && strcmp(json_string_value(json_object_get(*desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	return pq_ops_for_kind(kind, ops);
}

/* State of a step with one record. */
static const char *record_state(struct campaign *c, const char *rec)
{
	int done = record_done(rec);
	return records_state(c, done, !done && is_file(rec), 1);
}

static void unit_build_and_kat(struct campaign *c, struct unit *u, json_t *env)
{
	if (c->stopped)
		return;
	progress(c, "build", u, NULL);
	double t = now_s();
	int fresh_build = !is_file(u->lib);
	if (c->want[STEP_BUILD] || !is_file(u->lib))
		do_build(c, u);
	step_done(c, t, !fresh_build);
	if (c->stopped)
		return;
	int ok = built_ok(c, u);
	set_unit_step(c, u, "build", ok ? "done" : "failed");
	save_state(c, "incomplete");
	json_t *desc = ok ? unit_descriptor(c, u) : NULL;
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	progress(c, "kat", u, NULL);
	t = now_s();
	int skip = c->stopped || !ok || !c->want[STEP_KAT] || record_done(rec);
	if (!skip)
		do_kat(c, u, desc, env);
	step_done(c, t, skip);
	if (!ok)
		set_unit_step(c, u, "kat", "skipped");
	else if (!c->stopped && !skip && !is_file(rec))
		set_unit_step(c, u, "kat", records_state(c, 0, 1, 1));  /* failed without a record */
	else
		set_unit_step(c, u, "kat", record_state(c, rec));
	json_decref(desc);
}

/*
 * Bench the units of one instance (its flag profiles) together: for each
 * operation the builds' trials are interleaved, so a comparison between
 * them is paired in time as well as in seeds.
 */
static void group_bench(struct campaign *c, struct unit *g, int n, json_t *env)
{
	if (c->stopped)
		return;
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
	for (int i = 0; i < nops && !c->stopped; i++) {
		struct bench_config cfgs[8];
		struct unit *who[8];
		const char *profiles[8];
		int m = 0;
		double t = now_s();
		for (int k = 0; k < n && k < 8; k++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", g[k].label, pq_op_name(ops[i]), ".json");
			progress(c, "bench", &g[k], pq_op_name(ops[i]));
			if (!desc[k] || !c->want[STEP_BENCH] || record_done(rec)) {
				step_done(c, t, 1);
				continue;
			}
			cfgs[m] = (struct bench_config){
				.lib = g[k].lib, .op = ops[i], .trials = c->o->trials > 0 ? c->o->trials : (c->o->quick ? 3 : 5),
				.target_s = c->o->target_s > 0 ? c->o->target_s : (c->o->quick ? 0.3 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.command = c->o->command, .instance = desc[k], .environment = env,
			};
			profiles[m] = g[k].profile;
			who[m++] = &g[k];
		}
		if (m) {
			json_t *recs[8] = { 0 };
			pq_error errs[8];
			memset(errs, 0, sizeof errs);
			record_bench(cfgs, m, profiles, recs, errs);
			for (int k = 0; k < m; k++) {
				char rec[PATH_MAX];
				path_of(c, rec, sizeof rec, "records", who[k]->label, pq_op_name(ops[i]), ".json");
				if (!recs[k]) {
					step_error(c, who[k], "bench", &errs[k]);
				} else {
					if (strcmp(json_string_value(json_object_get(recs[k], "status")) ?: "", "failed") == 0)
						json_object_set_new(recs[k], "failure_kind", json_string(blame_kind(errs[k].code)));
					if (!c->stopped)
						put_record(c, rec, recs[k]);
					json_decref(recs[k]);
				}
				step_done(c, t, 0);
			}
		}
	}
	for (int k = 0; k < n && k < 8; k++) {
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops; i++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", g[k].label, pq_op_name(ops[i]), ".json");
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, &g[k], "bench", !desc[k] ? "skipped" : records_state(c, ndone, nfailed, nops));
		json_decref(desc[k]);
	}
	save_state(c, "incomplete");
}

/* The optional timing-leak step (leak_step.c), one record per operation. */
static void unit_leak(struct campaign *c, struct unit *u, json_t *desc, const enum pq_op *ops, int nops, json_t *env)
{
	if (!c->want[STEP_LEAK]) {
		set_unit_step(c, u, "leak", "off");
		return;
	}
	struct leak_step_opts lo = {
		.dir = c->dir, .label = u->label, .lib = u->lib, .instance = desc, .environment = env,
		.command = c->o->command, .cpu = c->o->cpu, .events = c->o->events,
		.budget_s = c->o->leak_budget_s > 0 ? c->o->leak_budget_s :
		            c->have_desc && c->desc.leak_budget_s > 0 ? c->desc.leak_budget_s :
		            c->o->quick ? LEAK_STEP_QUICK_BUDGET_S : 0,
		.classes = c->have_desc && c->desc.leak_classes[0] ? c->desc.leak_classes : NULL,
	};
	int all = 1;
	for (int i = 0; i < nops; i++) {
		progress(c, "leak", u, pq_op_name(ops[i]));
		double t = now_s();
		int skip = !desc || c->stopped;
		if (!skip) {
			pq_error err = { 0 };
			int r = leak_step_op(&lo, ops[i], &err);
			if (r < 0)
				step_error(c, u, "leak", &err);
			all &= r == 1;
		}
		step_done(c, t, skip);
	}
	set_unit_step(c, u, "leak", !desc ? "skipped" : all ? "done" : "pending");
	save_state(c, "incomplete");
}

static void unit_rest(struct campaign *c, struct unit *u, json_t *env)
{
	if (c->stopped)
		return;
	json_t *desc;
	enum pq_op ops[PQ_OP_COUNT];
	int nops = unit_ops(c, u, &desc, ops);
	int ok = desc != NULL;
	char rec[PATH_MAX];
	for (int s = STEP_MEM; s <= STEP_PROFILE && !c->stopped; s++) {
		double t;
		int skip;
		if (s == STEP_SIZES) {
			path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
			progress(c, "sizes", u, NULL);
			t = now_s();
			skip = !ok || !c->want[s] || record_done(rec);
			if (!skip)
				do_sizes(c, u, desc, env);
			step_done(c, t, skip);
			set_unit_step(c, u, "sizes", !ok ? "skipped" : record_state(c, rec));
			save_state(c, "incomplete");
			continue;
		}
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops && !c->stopped; i++) {
			const char *sub = s == STEP_MEM ? "memory" : "profile";
			path_of(c, rec, sizeof rec, sub, u->label, pq_op_name(ops[i]), ".json");
			progress(c, step_names[s], u, pq_op_name(ops[i]));
			t = now_s();
			skip = !ok || !c->want[s] || record_done(rec);
			if (!skip) {
				if (s == STEP_MEM) {
					do_mem(c, u, desc, ops[i], env);
				} else {
					pq_error err = { 0 };
					if (steps_profile(c->dir, u->label, u->lib, desc, pq_op_name(ops[i]),
					                  c->have_desc ? &c->desc : NULL, c->o->timeout_s, c->o->quick, &err) < 0 &&
					    err.code == PQ_EIO) {
						pq_error_prefix(&err, "profile %s %s: ", u->label, pq_op_name(ops[i]));
						stop_campaign(c, &err);
					}
				}
			}
			step_done(c, t, skip);
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, u, step_names[s], !ok ? "skipped" : records_state(c, ndone, nfailed, nops));
		save_state(c, "incomplete");
	}
	unit_leak(c, u, desc, ops, nops, env);
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
	                                    "traces", "flame", NULL }; /* leak/: made by the leak step */
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
			c->want[s] = s != STEP_LEAK;  /* the leak step is asked for (descriptor, --steps) */
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
			return pq_fail(err, PQ_EUSAGE, "--steps: unknown step '%s' (build,kat,bench,mem,sizes,profile,leak,report)",
			               tok);
	}
	return 0;
}

/* Closing lines: what failed and will be retried, and whether the campaign stopped. */
static int finish(struct campaign *c, int r, pq_error *err)
{
	FILE *f = c->o->progress;
	if (c->stopped) {
		*err = c->stop_err;
		pq_error_prefix(err, "stopped: ");
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n,
		         "; steps whose records were written are kept: fix the cause and run the same command again "
		         "to resume");
		return -(err->code ? err->code : PQ_EIO);
	}
	if (f && c->tool_failures)
		fprintf(f, "%s%d step%s failed for reasons that are not the scheme's (marked \"failed\" in "
		        "%s/campaign.json); they run again when the same command is repeated\n",
		        c->o->progress_tty ? "" : "warning: ", c->tool_failures, c->tool_failures == 1 ? "" : "s", c->dir);
	if (r == 0 && c->input_err.code) {
		*err = c->input_err;
		return -c->input_err.code;
	}
	return r;
}

int campaign_run(const char *target, const struct campaign_opts *o, pq_error *err)
{
	struct campaign c = { .o = o };
	struct campaign_lock lock = { .fd = -1 };
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
	if (r == 0 && !o->steps && c.have_desc && c.desc.leak)
		c.want[STEP_LEAK] = 1;
	if (r == 0)
		r = make_dirs(c.dir, err);
	/* One run per directory, before anything in it is touched. */
	char note[1600] = "";
	if (r == 0)
		r = campaign_lock_take(c.dir, o->command, &lock, note, sizeof note, err);
	if (r == 0 && note[0] && o->progress)
		fprintf(o->progress, "%s: %s\n", c.dir, note);
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
		campaign_lock_release(&lock);
		if (c.have_desc)
			scheme_desc_free(&c.desc);
		free(c.units);
		return r;
	}
	char how[1200];
	snprintf(how, sizeof how, "finished steps are kept in %s; run the same command again to resume", c.dir);
	interrupt_set_resume(how);
	c.total = c.nunits * (3 + 3 * 3 + (c.want[STEP_LEAK] ? 3 : 0));
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
	if (!c.stopped) {
		char now[64];
		time_t tt = time(NULL);
		strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
		json_object_set_new(c.state, "end_utc", json_string(now));
		save_state(&c, c.tool_failures || c.input_err.code ? "incomplete" : "complete");
	}
	interrupt_set_where(c.stopped ? NULL : "the report");
	if (o->progress && !c.stopped) {
		if (o->progress_tty)
			fputc('\n', o->progress);
		fprintf(o->progress, "%scampaign %s: %d units done in %.0f s\n", o->progress_tty ? "" : "progress ",
		        c.dir, c.nunits, now_s() - c.t0);
	}
	if (o->summary && !c.stopped)
		print_summary(&c, o->summary);
	char profiles[8][64];
	int np = profile_list(&c, profiles, 8, NULL);
	/* Comparisons before the report: it has a section for them. */
	if (r == 0 && !c.stopped && np > 1 && (c.want[STEP_BENCH] || c.want[STEP_PROFILE]))
		r = steps_compare_profiles(c.dir, profiles, np, o->summary, err);
	if (r == 0 && !o->no_report && !c.stopped)
		r = steps_report(c.dir, err);
	r = finish(&c, r, err);
	interrupt_set_where(NULL);
	interrupt_set_resume(NULL);
	campaign_lock_release(&lock);
	json_decref(env);
	json_decref(c.state);
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	free(c.units);
	return r;
}
