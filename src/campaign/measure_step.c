/*
 * measure_step: the steps of one unit after the bench: memory and profile
 * per operation, produced sizes once, then the leak step (leak_step.c).
 * The profiler itself is steps.c's.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "campaign/steps.h"
#include "record/records.h"
#include "supervise/mem_run.h"

#include <string.h>

/* Write a mem/sizes record; without one the step failed before measuring. */
static void put_measure(struct campaign *c, const struct unit *u, const char *step, const char *rec, json_t *r,
                        pq_error *err)
{
	if (!r) {
		step_error(c, u, step, err);
		return;
	}
	tag_record(u, r);
	put_record(c, rec, r);
	json_decref(r);
}

static void do_mem(struct campaign *c, const struct unit *u, json_t *desc, enum pq_op op, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "memory", u->label, pq_op_name(op), ".json");
	char log[PATH_MAX];
	path_of(c, log, sizeof log, "output", u->label, pq_op_name(op), ".mem.log");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu, .output_log = log };
	struct record_ctx ctx = { .instance = desc, .environment = env };
	json_t *r = NULL;
	pq_error err = { 0 };
	record_mem(&mo, op, &ctx, &r, &err);
	relative_log(c, r);
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
	/* An operation budget bounds the size sampling too: keygen may take seconds. */
	record_sizes(&mo, 20, op_budget_of(c), 10, &ctx, &r, &err);
	put_measure(c, u, "sizes", rec, r, &err);
}

void unit_rest(struct campaign *c, struct unit *u, json_t *env)
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
			t = mono_s();
			skip = !ok || !c->want[s] || record_done(rec);
			if (!skip) {
				campaign_progress(c, "sizes", u, NULL);
				do_sizes(c, u, desc, env);
			}
			if (c->want[s])
				step_done(c, t, skip);
			set_unit_step(c, u, "sizes", !ok ? "skipped" : record_state(c, rec));
			save_state(c, "incomplete");
			continue;
		}
		if (u->added_baseline) {  /* a baseline is timed and sized, not profiled */
			set_unit_step(c, u, step_names[s], "skipped");
			continue;
		}
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops && !c->stopped; i++) {
			const char *sub = s == STEP_MEM ? "memory" : "profile";
			path_of(c, rec, sizeof rec, sub, u->label, pq_op_name(ops[i]), ".json");
			t = mono_s();
			skip = !ok || !c->want[s] || record_done(rec);
			char why[400];
			if (!skip && op_timed_out(c, u, ops[i], why, sizeof why)) {
				/* A hung operation costs one time limit, not one per step: the record says why it did not run. */
				json_t *r = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:b}}", "op", pq_op_name(ops[i]), "status",
				                      "failed", "failure", "stage", sub, "kind", "TIMEOUT", "reason", why, "blame",
				                      "scheme", "not_run", 1);
				json_object_set_new(r, "schema", json_string(s == STEP_MEM ? "pqprof.memory/1" : "pqprof.profile/1"));
				tag_record(u, r);
				put_record(c, rec, r);
				json_decref(r);
				nfailed++;
				skip = 1;
			}
			if (!skip) {
				campaign_progress(c, step_names[s], u, pq_op_name(ops[i]));
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
					json_t *pr = c->stopped ? NULL : read_json(rec);
					if (pr) {
						tag_record(u, pr);
						put_record(c, rec, pr);
						json_decref(pr);
					}
				}
			}
			if (c->want[s])
				step_done(c, t, skip);
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, u, step_names[s], !ok ? "skipped" : records_state(c, ndone, nfailed, nops));
		save_state(c, "incomplete");
	}
	if (u->added_baseline)
		set_unit_step(c, u, "leak", "skipped");
	else
		unit_leak(c, u, desc, ops, nops, env);
	json_decref(desc);
}
