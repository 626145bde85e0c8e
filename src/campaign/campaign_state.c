/*
 * campaign_state: what a campaign has done and how it says so.  It owns
 * the record paths (DIR/SUB/LABEL[__OP]EXT), writing records (a failed
 * write stops the campaign), when a record means its step is done (the
 * resume rule), campaign.json (the state file: every unit's step states,
 * the environment, --quick kept across resumes) and the progress lines.
 * It runs no step.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/interrupt.h"
#include "core/json_file.h"
#include "measure/env.h"
#include "record/records.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *const step_names[STEP_COUNT_ALL] = { "build", "kat", "bench", "mem", "sizes", "profile",
	                                                               "leak", "paired" };

/* The campaign's records: DIR/SUB/LABEL[__OP]EXT (record_path).  A path
 * that would not fit is "", which no step can mistake for a record. */
int path_of(const struct campaign *c, char *buf, size_t len, const char *sub, const char *label,
                   const char *op, const char *ext)
{
	return record_path(buf, len, c->dir, sub, label, op, ext, NULL);
}

/*
 * Say which step is about to run.  Called only for steps that will do
 * work: one that is not selected (--steps, the interposition check turned
 * off), already done (resume) or without a library to run on gets no
 * line; the selected ones still count towards done=/total=.
 */
void campaign_progress(struct campaign *c, const char *step, const struct unit *u, const char *op)
{
	char where[512];
	snprintf(where, sizeof where, "step %d of %d (%s %s%s%s)", c->done + 1, c->total, step, u->label,
	         op ? " " : "", op ? op : "");
	interrupt_set_where(where);
	FILE *f = c->o->progress;
	if (!f)
		return;
	double el = mono_s() - c->t0;
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

void step_done(struct campaign *c, double started, int skipped)
{
	c->done++;
	if (!skipped) {
		c->step_time_sum += mono_s() - started;
		c->steps_timed++;
	}
}

/* Keep the first reason to stop; every later step is skipped. */
void stop_campaign(struct campaign *c, const pq_error *why)
{
	if (c->stopped)
		return;
	c->stopped = 1;
	c->stop_err = *why;
	if (!c->stop_err.code)
		c->stop_err.code = PQ_EIO;
}

/* Write a record; a failure stops the campaign (nothing unwritten counts as done). */
int put_record(struct campaign *c, const char *path, json_t *j)
{
	pq_error err = { 0 };
	int r = j ? json_file_write(path, j, &err) : pq_fail(&err, PQ_EINTERNAL, "%s: no record to write", path);
	if (r < 0)
		stop_campaign(c, &err);
	return r;
}

/* Every record of a unit names its flag profile, and an A/A copy its baseline ("aa_of"). */
/* A unit's role, security category and baseline, as campaign.json's instance entries hold them. */
static void unit_role_json(const struct unit *u, json_t *e)
{
	json_object_set_new(e, "role", json_string(u->is_baseline ? "baseline" : "candidate"));
	json_object_set_new(e, "category", u->category ? json_integer(u->category) : json_null());
	json_object_set_new(e, "category_from", u->category_from[0] ? json_string(u->category_from) : json_null());
	if (u->standard[0])
		json_object_set_new(e, "standard", json_string(u->standard));
	if (u->baseline_label[0])
		json_object_set_new(e, "baseline", json_string(u->baseline_label));
	if (u->baseline_note[0])
		json_object_set_new(e, "baseline_note", json_string(u->baseline_note));
	if (u->base_origin[0])
		json_object_set_new(e, "baseline_origin", json_string(u->base_origin));
}

void tag_record(const struct unit *u, json_t *j)
{
	if (!j)
		return;
	if (!json_object_get(j, "profile"))
		json_object_set_new(j, "profile", json_string(u->profile));
	if (u->prof && u->prof->aa_of[0])
		json_object_set_new(j, "aa_of", json_string(u->prof->aa_of));
	json_object_set_new(j, "role", json_string(u->is_baseline ? "baseline" : "candidate"));
}

/*
 * Whether a step's record means the step is done.  A record is done when
 * it holds a result, including a verdict on the scheme (it crashed, hung,
 * failed its checks: deterministic, kept).  A record of a failure that was
 * not the scheme's (counters or uprobes unavailable, the runner or the
 * loader failed, a bad input file) is not: the step runs again on resume.
 * Records that predate failure_kind count as tool failures.
 */
static int op_itself_timed_out(const struct campaign *c, const struct unit *u, enum pq_op op, char *why, size_t len)
{
	char rec[PATH_MAX];
	why[0] = '\0';
	/* Its bench trials ran out of time. */
	if (path_of(c, rec, sizeof rec, "records", u->label, pq_op_name(op), ".json") == 0) {
		json_t *r = read_json(rec);
		json_t *f = json_object_get(r, "failure");
		if (strcmp(json_string_value(json_object_get(f, "kind")) ?: "", "TIMEOUT") == 0 &&
		    !json_is_true(json_object_get(f, "not_run")))
			snprintf(why, len, "its bench timed out (%s)", json_string_value(json_object_get(f, "reason")) ?: "");
		json_decref(r);
		if (why[0])
			return 1;
	}
	/* The KAT replay timed out in it. */
	if (path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json") == 0) {
		json_t *r = read_json(rec);
		json_t *o = json_object_get(r, "outcome");
		const char *reason = json_string_value(json_object_get(o, "reason")) ?: "";
		char in_op[48];
		snprintf(in_op, sizeof in_op, " in %s", pq_op_name(op));
		const char *hit = strstr(reason, in_op);
		if (strcmp(json_string_value(json_object_get(o, "verdict")) ?: "", "TIMEOUT") == 0 && hit &&
		    (hit[strlen(in_op)] == '\0' || hit[strlen(in_op)] == ',' || hit[strlen(in_op)] == ' '))
			snprintf(why, len, "its KAT replay timed out (%s)", reason);
		json_decref(r);
	}
	return why[0] != '\0';
}

int op_timed_out(const struct campaign *c, const struct unit *u, enum pq_op op, char *why, size_t len)
{
	if (op_itself_timed_out(c, u, op, why, len))
		return 1;
	/* verify needs a signature, dec a ciphertext: made by the operation that hung. */
	enum pq_op need = op == PQ_OP_VERIFY ? PQ_OP_SIGN : op == PQ_OP_DEC ? PQ_OP_ENC : op;
	char w[360];
	if (need != op && op_itself_timed_out(c, u, need, w, sizeof w)) {
		snprintf(why, len, "it needs %s, and %s", pq_op_name(need), w);
		return 1;
	}
	return 0;
}

int record_done(const char *path)
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
const char *records_state(struct campaign *c, int ndone, int nfailed, int n)
{
	if (ndone == n)
		return "done";
	if (nfailed) {
		c->tool_failures += nfailed;
		return "failed";
	}
	return "pending";
}

void save_state(struct campaign *c, const char *status)
{
	if (c->stopped && strcmp(status, "complete") == 0)
		status = "incomplete";
	json_object_set_new(c->state, "status", json_string(status));
	char p[PATH_MAX];
	pq_error err = { 0 };
	if (path_fmt(p, sizeof p, &err, "%s/campaign.json", c->dir) < 0 || json_file_write(p, c->state, &err) < 0)
		stop_campaign(c, &err);
}

void set_unit_step(struct campaign *c, const struct unit *u, const char *step, const char *state)
{
	/* Nothing done of a step the selection (--steps) left out: it was not asked for, not pending. */
	for (int s = 0; s < STEP_COUNT_ALL && strcmp(state, "pending") == 0; s++)
		if (strcmp(step_names[s], step) == 0 && !c->want[s])
			state = "not asked";
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

/* A step that failed without a record: bad input is kept for the exit status, write errors stop. */
void step_error(struct campaign *c, const struct unit *u, const char *step, pq_error *err)
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

/* A record's scheme-output log as a path inside the campaign directory (records travel with it in merges). */
void relative_log(const struct campaign *c, json_t *rec)
{
	json_t *so = json_object_get(rec, "scheme_output");
	const char *log = json_string_value(json_object_get(so, "log"));
	size_t n = strlen(c->dir);
	if (log && strncmp(log, c->dir, n) == 0 && log[n] == '/')
		json_object_set_new(so, "log", json_string(log + n + 1));
}

/* State of a step with one record. */
const char *record_state(struct campaign *c, const char *rec)
{
	int done = record_done(rec);
	return records_state(c, done, !done && is_file(rec), 1);
}

int make_subdirs(const char *dir, pq_error *err)
{
	static const char *const subs[] = { "", "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", "interposition", "output", "paired", NULL }; /* leak/: made by the leak step */
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

int init_state(struct campaign *c, json_t **env_out, pq_error *err)
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
			json_object_set_new(steps, step_names[s], json_string(c->want[s] ? "pending" : "not asked"));
		json_t *e = json_pack("{s:s, s:s, s:s, s:o}", "instance", c->units[i].instance, "profile",
		                      c->units[i].profile, "label", c->units[i].label, "steps", steps);
		if (c->units[i].implementation[0])
			json_object_set_new(e, "implementation", json_string(c->units[i].implementation));
		unit_role_json(&c->units[i], e);
		json_array_append_new(arr, e);
	}
	json_object_set_new(c->state, "instances", arr);
	json_t *bl = json_pack("{s:b}", "enabled", !c->o->no_baseline);
	if (c->base_missing[0])
		json_object_set_new(bl, "missing", json_string(c->base_missing));
	json_object_set_new(c->state, "baselines", bl);
	if (c->o->shard_n)
		json_object_set_new(c->state, "shard", json_pack("{s:i, s:i}", "k", c->o->shard_k, "n", c->o->shard_n));
	/* Records a --quick run made stay quick when a later run resumes without it. */
	json_object_set_new(c->state, "quick", json_boolean(c->o->quick || json_is_true(json_object_get(old, "quick"))));
	json_decref(old);
	*env_out = env;
	return 0;
}
