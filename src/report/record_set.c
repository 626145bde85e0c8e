/* record_set: load a campaign or plain records directory; see record_set.h. */
#include "config.h"
#include "report/record_set.h"
#include "core/grow.h"
#include "core/atomic_file.h"
#include "core/digest.h"
#include "core/fixed_str.h"
#include "core/jpath.h"
#include "core/path_name.h"
#include "core/safe_name.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Records with every per-call value can be large; anything beyond this is not a record. */
#define RS_MAX_RECORD_BYTES (512u << 20)

/* 1 when dir/rel is a regular file, 0 when absent, < 0 when it is something else. */
static int file_present(const char *dir, const char *rel, pq_error *err)
{
	char path[4096 + RS_PATH + 2];
	int r = path_fmt(path, sizeof path, err, "%s/%s", dir, rel);
	if (r < 0)
		return r;
	struct stat sb;
	if (stat(path, &sb) != 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : pq_fail_errno(err, PQ_EINPUT, "%s", path);
	if (!S_ISREG(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s: not a regular file", path);
	return 1;
}

/*
 * Parse dir/rel into *out.  Absent files leave *out NULL and succeed;
 * anything unreadable, invalid or of another schema is an error naming
 * the file.
 */
static int load_json(const char *dir, const char *rel, const char *schema, json_t **out, pq_error *err)
{
	*out = NULL;
	int present = file_present(dir, rel, err);
	if (present <= 0)
		return present;
	char path[4096 + RS_PATH + 2];
	char *text = NULL;
	size_t len = 0;
	int r = path_fmt(path, sizeof path, err, "%s/%s", dir, rel);
	if (r == 0)
		r = read_whole_file(path, &text, &len, RS_MAX_RECORD_BYTES, err);
	if (r < 0)
		return r;
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!j)
		return pq_fail(err, PQ_EINPUT, "%s: invalid JSON at line %d, column %d: %s", path, je.line,
		               je.column, je.text);
	if (!json_is_object(j)) {
		json_decref(j);
		return pq_fail(err, PQ_EINPUT, "%s: not a JSON object", path);
	}
	const char *s = jp_str(j, "schema", NULL);
	if (schema && (!s || strcmp(s, schema) != 0)) {
		r = pq_fail(err, PQ_EINPUT, "%s: schema is '%s', expected %s", path, s ? s : "(missing)", schema);
		json_decref(j);
		return r;
	}
	*out = j;
	return 0;
}

static int add_evidence(struct record_set *rs, const struct rs_instance *in, const char *item, const char *rel,
                        pq_error *err)
{
	if (!rel[0])
		return 0;
	if (pq_grow(&rs->ev, &rs->cap_ev, rs->nev + 1, sizeof *rs->ev, 16) < 0)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	struct rs_evidence *e = &rs->ev[rs->nev];
	memset(e, 0, sizeof *e);
	snprintf(e->instance, sizeof e->instance, "%s", in ? (in->shown[0] ? in->shown : in->name) : "");
	snprintf(e->profile, sizeof e->profile, "%s", in ? in->profile : "");
	snprintf(e->item, sizeof e->item, "%s", item);
	snprintf(e->file, sizeof e->file, "%s", rel);
	char path[4096 + RS_PATH + 2];
	int r = path_fmt(path, sizeof path, err, "%s/%s", rs->dir, rel);
	if (r == 0)
		r = sha256_file_hex(path, e->sha256, err);
	if (r < 0)
		return r;
	rs->nev++;
	return 0;
}

static int build_evidence(struct record_set *rs, pq_error *err)
{
	int r = 0;
	if (rs->is_campaign)
		r = add_evidence(rs, NULL, "campaign", "campaign.json", err);
	for (size_t i = 0; i < rs->ninst && r == 0; i++) {
		struct rs_instance *in = &rs->inst[i];
		r = add_evidence(rs, in, "build record", in->build_file, err);
		if (r == 0)
			r = add_evidence(rs, in, "KAT record", in->kat_file, err);
		if (r == 0)
			r = add_evidence(rs, in, "KAT log", in->kat_log_file, err);
		if (r == 0)
			r = add_evidence(rs, in, "sizes", in->sizes_file, err);
		if (r == 0)
			r = add_evidence(rs, in, "interposition check", in->interposition_file, err);
		for (int k = 0; k < in->nops && r == 0; k++) {
			struct rs_op *o = &in->ops[k];
			char item[128];
			static const char *const what[] = { "timing", "memory", "hash profile", "trace",
			                                    "flame graph", "folded stacks", "leak test", "leak plot" };
			const char *files[] = { o->bench_file, o->memory_file, o->profile_file, o->trace_file,
			                        o->flame_file, o->folded_file, o->leak_file, o->leak_plot_file };
			for (int w = 0; w < 8 && r == 0; w++) {
				snprintf(item, sizeof item, "%s %s", what[w], o->op);
				r = add_evidence(rs, in, item, files[w], err);
			}
		}
	}
	return r;
}

/* The op slot of inst, created in canonical order when missing. */
static struct rs_op *op_slot(struct rs_instance *in, const char *op)
{
	int want = pq_op_parse(op);
	if (want < 0)
		return NULL;
	int pos = 0;
	for (; pos < in->nops; pos++) {
		int have = pq_op_parse(in->ops[pos].op);
		if (have == want)
			return &in->ops[pos];
		if (have > want)
			break;
	}
	if (in->nops == RS_MAX_OPS)
		return NULL;
	memmove(&in->ops[pos + 1], &in->ops[pos], (size_t)(in->nops - pos) * sizeof in->ops[0]);
	in->nops++;
	struct rs_op *o = &in->ops[pos];
	memset(o, 0, sizeof *o);
	snprintf(o->op, sizeof o->op, "%s", op);
	return o;
}

const struct rs_op *rs_find_op(const struct rs_instance *inst, const char *op)
{
	for (int i = 0; i < inst->nops; i++)
		if (strcmp(inst->ops[i].op, op) == 0)
			return &inst->ops[i];
	return NULL;
}

const char *rs_step(const struct rs_instance *inst, const char *step)
{
	return jp_str(inst->steps, step, NULL);
}

int rs_validated(const struct rs_instance *inst)
{
	const char *v = jp_str(inst->kat, "outcome.verdict", NULL);
	return v && strcmp(v, "PASS") == 0;
}

int rs_build_failed(const struct rs_instance *inst)
{
	const char *step = rs_step(inst, "build");
	return (step && strcmp(step, "failed") == 0) || strcmp(jp_str(inst->build, "status", ""), "failed") == 0;
}

const char *rs_kat_verdict(const struct rs_instance *inst)
{
	if (inst->kat)
		return jp_str(inst->kat, "outcome.verdict", "unknown");
	return rs_build_failed(inst) ? "BUILD" : "not run";
}

const char *rs_kind(const struct rs_instance *inst)
{
	return jp_str(inst->descriptor, "kind", jp_str(inst->build, "instance.kind", NULL));
}

double rs_declared_size(const struct rs_instance *inst, const char *key)
{
	char path[32];
	snprintf(path, sizeof path, "%s.declared", key);
	double v = jp_num(inst->sizes, path, NAN);
	if (!isfinite(v)) {
		snprintf(path, sizeof path, "sizes.%s", key);
		v = jp_num(inst->descriptor, path, NAN);
	}
	return isfinite(v) && v > 0 ? v : -1;
}

/* The first descriptor any record carries. */
static void pick_descriptor(struct rs_instance *in)
{
	json_t *cands[3 + 3 * RS_MAX_OPS];
	int n = 0;
	cands[n++] = jp(in->build, "instance");
	cands[n++] = jp(in->kat, "instance");
	cands[n++] = jp(in->sizes, "instance");
	for (int k = 0; k < in->nops; k++) {
		cands[n++] = jp(in->ops[k].bench, "instance");
		cands[n++] = jp(in->ops[k].memory, "instance");
		cands[n++] = jp(in->ops[k].profile, "instance");
	}
	for (int i = 0; i < n; i++)
		if (json_is_object(cands[i])) {
			in->descriptor = json_incref(cands[i]);
			return;
		}
}

static void pick_environment(struct record_set *rs)
{
	json_t *env = jp(rs->campaign, "environment");
	for (size_t i = 0; !json_is_object(env) && i < rs->ninst; i++)
		for (int k = 0; !json_is_object(env) && k < rs->inst[i].nops; k++)
			env = jp(rs->inst[i].ops[k].bench, "environment");
	if (json_is_object(env))
		rs->environment = json_incref(env);
}

/* A relative path a record names, if it stays inside the directory and exists. */
static int named_file(const char *dir, const char *rel, char *out, pq_error *err)
{
	if (!rel || !rel[0] || rel[0] == '/' || strstr(rel, "..") || strlen(rel) >= RS_PATH)
		return 0;
	int p = file_present(dir, rel, err);
	if (p < 0)
		return p;
	if (p)
		snprintf(out, RS_PATH, "%s", rel);
	return 0;
}

/* Files of one operation in a campaign directory. */
static int load_campaign_op(struct record_set *rs, struct rs_instance *in, const char *op, int expected,
                            pq_error *err)
{
	char rel[3][RS_PATH];
	json_t *j[3] = { NULL, NULL, NULL };
	static const char *const dirs[3] = { "records", "memory", "profile" };
	static const char *const schemas[3] = { "pqprof.bench/1", "pqprof.memory/1", "pqprof.profile/1" };
	int r = 0;
	for (int i = 0; i < 3 && r == 0; i++) {
		snprintf(rel[i], RS_PATH, "%s/%s__%s.json", dirs[i], in->label, op);
		r = load_json(rs->dir, rel[i], schemas[i], &j[i], err);
	}
	char extra[3][RS_PATH];
	int have_extra[3] = { 0, 0, 0 };
	static const char *const fmt[3] = { "traces/%s__%s.pqt", "flame/%s__%s.svg", "flame/%s__%s.folded" };
	for (int i = 0; i < 3 && r == 0; i++) {
		snprintf(extra[i], RS_PATH, fmt[i], in->label, op);
		r = file_present(rs->dir, extra[i], err);
		have_extra[i] = r > 0;
		r = r < 0 ? r : 0;
	}
	if (r < 0 || (!expected && !j[0] && !j[1] && !j[2] && !have_extra[0] && !have_extra[1])) {
		for (int i = 0; i < 3; i++)
			json_decref(j[i]);
		return r;
	}
	struct rs_op *o = op_slot(in, op);
	o->bench = j[0];
	o->memory = j[1];
	o->profile = j[2];
	if (j[0])
		snprintf(o->bench_file, RS_PATH, "%s", rel[0]);
	if (j[1])
		snprintf(o->memory_file, RS_PATH, "%s", rel[1]);
	if (j[2])
		snprintf(o->profile_file, RS_PATH, "%s", rel[2]);
	if (have_extra[0])
		snprintf(o->trace_file, RS_PATH, "%s", extra[0]);
	if (have_extra[1])
		snprintf(o->flame_file, RS_PATH, "%s", extra[1]);
	if (have_extra[2])
		snprintf(o->folded_file, RS_PATH, "%s", extra[2]);
	/* A profile record may name its trace and flame graph elsewhere. */
	if (r == 0 && !o->trace_file[0])
		r = named_file(rs->dir, jp_str(o->profile, "trace", NULL), o->trace_file, err);
	if (r == 0 && !o->flame_file[0])
		r = named_file(rs->dir, jp_str(o->profile, "flamegraph", NULL), o->flame_file, err);
	if (r == 0 && !o->folded_file[0])
		r = named_file(rs->dir, jp_str(o->profile, "folded", NULL), o->folded_file, err);
	return r;
}

/* The timing-leak record and plot of each operation, where the leak step wrote them. */
static int load_leak(struct record_set *rs, struct rs_instance *in, pq_error *err)
{
	for (int k = 0; k < RS_MAX_OPS; k++) {
		char rel[RS_PATH], plot[RS_PATH];
		json_t *j;
		snprintf(rel, sizeof rel, "leak/%s__%s.json", in->label, pq_op_name(k));
		int r = load_json(rs->dir, rel, "pqprof.leak/1", &j, err);
		if (r < 0)
			return r;
		if (!j)
			continue;
		struct rs_op *o = op_slot(in, pq_op_name(k));
		o->leak = j;
		snprintf(o->leak_file, RS_PATH, "%s", rel);
		snprintf(plot, sizeof plot, "leak/%s__%s.svg", in->label, pq_op_name(k));
		if ((r = file_present(rs->dir, plot, err)) < 0)
			return r;
		if (r)
			snprintf(o->leak_plot_file, RS_PATH, "%s", plot);
	}
	return 0;
}

static int load_campaign_instance(struct record_set *rs, json_t *entry, size_t idx, pq_error *err)
{
	struct rs_instance *in = &rs->inst[rs->ninst];
	memset(in, 0, sizeof *in);
	if (!json_is_object(entry))
		return pq_fail(err, PQ_EINPUT, "%s/campaign.json: instances[%zu] is not an object", rs->dir, idx);
	const char *label = jp_str(entry, "label", NULL);
	if (!label || !safe_name_ok(label))
		return pq_fail(err, PQ_EINPUT, "%s/campaign.json: instances[%zu]: label %s%s%s is not a safe file name",
		               rs->dir, idx, label ? "'" : "", label ? label : "(missing)", label ? "'" : "");
	snprintf(in->label, sizeof in->label, "%s", label);
	snprintf(in->name, sizeof in->name, "%s", jp_str(entry, "instance", label));
	snprintf(in->profile, sizeof in->profile, "%s", jp_str(entry, "profile", ""));
	snprintf(in->implementation, sizeof in->implementation, "%s", jp_str(entry, "implementation", ""));
	snprintf(in->role, sizeof in->role, "%s", jp_str(entry, "role", ""));
	double cat = jp_num(entry, "category", 0);
	in->category = cat >= 1 && cat <= 5 ? (int)cat : 0;
	snprintf(in->category_from, sizeof in->category_from, "%s", jp_str(entry, "category_from", ""));
	snprintf(in->standard, sizeof in->standard, "%s", jp_str(entry, "standard", ""));
	snprintf(in->baseline, sizeof in->baseline, "%s", jp_str(entry, "baseline", ""));
	snprintf(in->baseline_note, sizeof in->baseline_note, "%s", jp_str(entry, "baseline_note", ""));
	snprintf(in->origin, sizeof in->origin, "%s", jp_str(entry, "baseline_origin", ""));
	rs->ninst++;  /* from here on record_set_free releases what is attached */
	json_t *steps = jp(entry, "steps");
	if (json_is_object(steps))
		in->steps = json_incref(steps);
	char rel[RS_PATH];
	int r;
	snprintf(rel, sizeof rel, "build/%s.json", label);
	if ((r = load_json(rs->dir, rel, "pqprof.build/1", &in->build, err)) < 0)
		return r;
	if (in->build)
		snprintf(in->build_file, RS_PATH, "%s", rel);
	snprintf(rel, sizeof rel, "kat/%s.json", label);
	if ((r = load_json(rs->dir, rel, "pqprof.kat/1", &in->kat, err)) < 0)
		return r;
	if (in->kat)
		snprintf(in->kat_file, RS_PATH, "%s", rel);
	snprintf(rel, sizeof rel, "kat/%s.log", label);
	if ((r = file_present(rs->dir, rel, err)) < 0)
		return r;
	if (r)
		snprintf(in->kat_log_file, RS_PATH, "%s", rel);
	snprintf(rel, sizeof rel, "sizes/%s.json", label);
	if ((r = load_json(rs->dir, rel, "pqprof.sizes/1", &in->sizes, err)) < 0)
		return r;
	if (in->sizes)
		snprintf(in->sizes_file, RS_PATH, "%s", rel);
	snprintf(rel, sizeof rel, "interposition/%s.json", label);
	if ((r = load_json(rs->dir, rel, "pqprof.interposition/1", &in->interposition, err)) < 0)
		return r;
	if (in->interposition)
		snprintf(in->interposition_file, RS_PATH, "%s", rel);
	/* The kind decides which operations are expected even when missing. */
	const char *kind = jp_str(in->build, "instance.kind", jp_str(in->kat, "instance.kind", NULL));
	for (int k = 0; k < RS_MAX_OPS; k++) {
		int expected = 0;
		if (kind && strcmp(kind, "kem") == 0)
			expected = k == 0 || k == 3 || k == 4;
		else if (kind)
			expected = k <= 2;
		if ((r = load_campaign_op(rs, in, pq_op_name(k), expected, err)) < 0)
			return r;
	}
	if ((r = load_leak(rs, in, err)) < 0)
		return r;
	pick_descriptor(in);
	return 0;
}

static int load_campaign(struct record_set *rs, pq_error *err)
{
	int r = load_json(rs->dir, "campaign.json", "pqprof.campaign/1", &rs->campaign, err);
	if (r < 0)
		return r;
	json_t *list = jp(rs->campaign, "instances");
	if (list && !json_is_array(list))
		return pq_fail(err, PQ_EINPUT, "%s/campaign.json: 'instances' is not a list", rs->dir);
	size_t n = json_array_size(list);
	rs->inst = calloc(n ? n : 1, sizeof *rs->inst);
	if (!rs->inst)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	rs->cap_inst = n ? n : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(list, i);
		const char *label = jp_str(e, "label", NULL);
		for (size_t k = 0; label && k < rs->ninst; k++)
			if (strcmp(rs->inst[k].label, label) == 0)
				return pq_fail(err, PQ_EINPUT, "%s/campaign.json: label '%s' listed twice", rs->dir, label);
		if ((r = load_campaign_instance(rs, e, i, err)) < 0)
			return r;
	}
	return 0;
}

/* ---- plain directories ---- */

static struct rs_instance *plain_instance(struct record_set *rs, const char *name, const char *profile,
                                          pq_error *err)
{
	for (size_t i = 0; i < rs->ninst; i++)
		if (strcmp(rs->inst[i].name, name) == 0 && strcmp(rs->inst[i].profile, profile) == 0)
			return &rs->inst[i];
	if (pq_grow(&rs->inst, &rs->cap_inst, rs->ninst + 1, sizeof *rs->inst, 8) < 0) {
		pq_fail(err, PQ_ENOMEM, "out of memory");
		return NULL;
	}
	struct rs_instance *in = &rs->inst[rs->ninst++];
	memset(in, 0, sizeof *in);
	snprintf(in->name, sizeof in->name, "%s", name);
	snprintf(in->profile, sizeof in->profile, "%s", profile);
	char a[RS_NAME], b[RS_NAME];
	safe_name(a, sizeof a, name);
	safe_name(b, sizeof b, profile);
	if (profile[0])
		snprintf(in->label, sizeof in->label, "%.120s__%.120s", a, b);
	else
		snprintf(in->label, sizeof in->label, "%s", a);
	return in;
}

static int is_json_name(const struct dirent *de)
{
	size_t n = strlen(de->d_name);
	return de->d_name[0] != '.' && n > 5 && strcmp(de->d_name + n - 5, ".json") == 0;
}

static int dup_error(const char *dir, const char *what, const char *a, const char *b, pq_error *err)
{
	return pq_fail(err, PQ_EINPUT, "%s: %s and %s are both the %s", dir, a, b, what);
}

/* Attach one parsed record (ownership passes) to its instance. */
static int plain_attach(struct record_set *rs, const char *file, json_t *rec, pq_error *err)
{
	const char *schema = jp_str(rec, "schema", "");
	static const char *const known[] = { "pqprof.bench/1", "pqprof.memory/1", "pqprof.profile/1",
	                                     "pqprof.kat/1", "pqprof.sizes/1", "pqprof.build/1" };
	int kind = -1;
	for (int i = 0; i < 6; i++)
		if (strcmp(schema, known[i]) == 0)
			kind = i;
	if (kind < 0) {  /* reports, comparisons and foreign files are not records */
		json_decref(rec);
		return 0;
	}
	char stem[RS_NAME];
	snprintf(stem, sizeof stem, "%s", file);
	char *cut = strstr(stem, "__");
	if (!cut)
		cut = strchr(stem, '.');
	if (cut)
		*cut = '\0';
	const char *name = jp_str(rec, "instance.name", stem), *profile = jp_str(rec, "instance.profile", NULL);
	if (!profile) {
		/* No descriptor: join the one instance of that name, whatever its profile. */
		const struct rs_instance *only = NULL;
		int count = 0;
		for (size_t i = 0; i < rs->ninst; i++)
			if (strcmp(rs->inst[i].name, name) == 0) {
				only = &rs->inst[i];
				count++;
			}
		profile = count == 1 ? only->profile : "";
	}
	struct rs_instance *in = plain_instance(rs, name, profile, err);
	if (!in) {
		json_decref(rec);
		return -PQ_ENOMEM;
	}
	if (kind <= 2) {
		const char *op = jp_str(rec, "op", NULL);
		struct rs_op *o = op_slot(in, op ? op : "");
		if (!o) {
			/* op and schema point into rec: format the message before letting it go. */
			int r = pq_fail(err, PQ_EINPUT, "%s/%s: unknown operation '%s'", rs->dir, file, op ? op : "(missing)");
			json_decref(rec);
			return r;
		}
		json_t **slot = kind == 0 ? &o->bench : kind == 1 ? &o->memory : &o->profile;
		char *fslot = kind == 0 ? o->bench_file : kind == 1 ? o->memory_file : o->profile_file;
		if (*slot) {
			int r = dup_error(rs->dir, schema, fslot, file, err);
			json_decref(rec);
			return r;
		}
		*slot = rec;
		snprintf(fslot, RS_PATH, "%s", file);
		if (kind == 2) {
			int r = named_file(rs->dir, jp_str(rec, "trace", NULL), o->trace_file, err);
			if (r == 0)
				r = named_file(rs->dir, jp_str(rec, "flamegraph", NULL), o->flame_file, err);
			if (r == 0)
				r = named_file(rs->dir, jp_str(rec, "folded", NULL), o->folded_file, err);
			return r;
		}
		return 0;
	}
	json_t **slot = kind == 3 ? &in->kat : kind == 4 ? &in->sizes : &in->build;
	char *fslot = kind == 3 ? in->kat_file : kind == 4 ? in->sizes_file : in->build_file;
	if (*slot) {
		int r = dup_error(rs->dir, schema, fslot, file, err);
		json_decref(rec);
		return r;
	}
	*slot = rec;
	snprintf(fslot, RS_PATH, "%s", file);
	if (kind == 3) {
		/* "X.kat.json" sits next to "X.kat.log"; otherwise the record names its log. */
		char logrel[RS_PATH];
		snprintf(logrel, sizeof logrel, "%s", file);
		size_t n = strlen(logrel);
		if (n > 9 && strcmp(logrel + n - 9, ".kat.json") == 0) {
			strcpy(logrel + n - 5, ".log");
			int p = file_present(rs->dir, logrel, err);
			if (p < 0)
				return p;
			if (p)
				snprintf(in->kat_log_file, RS_PATH, "%s", logrel);
		}
		const char *named = jp_str(rec, "log", NULL);
		if (!in->kat_log_file[0] && named) {
			return named_file(rs->dir, path_base(named), in->kat_log_file, err);
		}
	}
	return 0;
}

static int cmp_instance(const void *a, const void *b)
{
	const struct rs_instance *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->profile, y->profile);
}

static int load_plain(struct record_set *rs, pq_error *err)
{
	struct dirent **names = NULL;
	int n = scandir(rs->dir, &names, is_json_name, alphasort);
	if (n < 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot list", rs->dir);
	json_t **recs = calloc((size_t)n + 1, sizeof *recs);
	int r = recs ? 0 : pq_fail(err, PQ_ENOMEM, "out of memory");
	for (int i = 0; i < n && r == 0; i++)
		if (strlen(names[i]->d_name) < RS_PATH)
			r = load_json(rs->dir, names[i]->d_name, NULL, &recs[i], err);
	/* Records that name their instance first, so the others can join them. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n && r == 0; i++) {
			if (!recs[i] || json_is_object(jp(recs[i], "instance")) != (pass == 0))
				continue;
			json_t *rec = recs[i];
			recs[i] = NULL;
			r = plain_attach(rs, names[i]->d_name, rec, err);
		}
	for (int i = 0; i < n; i++) {
		if (recs)
			json_decref(recs[i]);
		free(names[i]);
	}
	free(recs);
	free(names);
	if (r < 0)
		return r;
	if (rs->ninst > 1)
		qsort(rs->inst, rs->ninst, sizeof *rs->inst, cmp_instance);
	for (size_t i = 0; i < rs->ninst && r == 0; i++)
		r = load_leak(rs, &rs->inst[i], err);
	for (size_t i = 0; i < rs->ninst; i++)
		pick_descriptor(&rs->inst[i]);
	return r;
}

/* Rows name the implementation version only where the set holds more than one. */
static void name_rows(struct record_set *rs)
{
	int several = 0;
	for (size_t i = 1; i < rs->ninst; i++)
		several |= strcmp(rs->inst[i].implementation, rs->inst[0].implementation) != 0;
	for (size_t i = 0; i < rs->ninst; i++) {
		struct rs_instance *in = &rs->inst[i];
		if (several && in->implementation[0])
			snprintf(in->shown, sizeof in->shown, "%s (%s)", in->name, in->implementation);
		else
			snprintf(in->shown, sizeof in->shown, "%s", in->name);
	}
}

int record_set_load(const char *dir, struct record_set **out, pq_error *err)
{
	*out = NULL;
	struct stat sb;
	if (stat(dir, &sb) != 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s", dir);
	if (!S_ISDIR(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s: not a directory", dir);
	if (strlen(dir) >= sizeof ((struct record_set *)0)->dir)
		return pq_fail(err, PQ_EINPUT, "%s: path too long", dir);
	struct record_set *rs = calloc(1, sizeof *rs);
	if (!rs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	snprintf(rs->dir, sizeof rs->dir, "%s", dir);
	int r = file_present(dir, "campaign.json", err);
	if (r > 0) {
		rs->is_campaign = 1;
		r = load_campaign(rs, err);
	} else if (r == 0) {
		r = load_plain(rs, err);
	}
	if (r == 0) {
		pick_environment(rs);
		name_rows(rs);
		r = build_evidence(rs, err);
	}
	if (r < 0) {
		record_set_free(rs);
		return r;
	}
	*out = rs;
	return 0;
}

void record_set_free(struct record_set *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->ninst; i++) {
		struct rs_instance *in = &rs->inst[i];
		json_decref(in->descriptor);
		json_decref(in->steps);
		json_decref(in->build);
		json_decref(in->kat);
		json_decref(in->sizes);
		json_decref(in->interposition);
		for (int k = 0; k < in->nops; k++) {
			json_decref(in->ops[k].bench);
			json_decref(in->ops[k].memory);
			json_decref(in->ops[k].profile);
			json_decref(in->ops[k].leak);
		}
	}
	free(rs->inst);
	free(rs->ev);
	json_decref(rs->campaign);
	json_decref(rs->environment);
	free(rs);
}
