/*
 * leak_step: the campaign's timing-leak step; see leak_step.h.  It owns
 * one operation's leak record and plot (leak_step_op) and the step of one
 * unit over its operations (unit_leak, for campaign.c's loop).
 */
#include "config.h"
#include "campaign/leak_step.h"
#include "campaign/campaign_int.h"
#include <limits.h>
#include "supervise/blame.h"
#include "record/records.h"
#include "core/fixed_str.h"
#include "core/json_file.h"
#include "core/atomic_file.h"
#include "leak/leak_chart.h"
#include "leak/leak_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Done: a result, or a failure that was the scheme's (failures of the tool run again). */
static int leak_record_done(const char *path)
{
	json_t *r = json_load_regular(path, 0, NULL);
	if (!r)
		return 0;
	const char *st = json_string_value(json_object_get(r, "status")) ?: "";
	const char *kind = json_string_value(json_object_get(r, "failure_kind")) ?: "";
	int done = strcmp(st, "failed") != 0 || strcmp(kind, "scheme") == 0;
	json_decref(r);
	return done;
}

int leak_step_done(const struct leak_step_opts *o, enum pq_op op)
{
	char rec[4096];
	return record_path(rec, sizeof rec, o->dir, "leak", o->label, pq_op_name(op), ".json", NULL) == 0 &&
	       leak_record_done(rec);
}

int leak_step_op(const struct leak_step_opts *o, enum pq_op op, pq_error *werr)
{
	char rec[4096], svg[4096], sub[4096];
	const char *opname = pq_op_name(op);
	if (record_path(rec, sizeof rec, o->dir, "leak", o->label, opname, ".json", werr) < 0 ||
	    record_path(svg, sizeof svg, o->dir, "leak", o->label, opname, ".svg", werr) < 0 ||
	    path_fmt(sub, sizeof sub, werr, "%s/leak", o->dir) < 0)
		return -PQ_EINPUT;
	if (leak_record_done(rec))
		return 1;
	int w = make_dirs(sub, werr);
	if (w < 0)
		return w;
	pq_error err = { 0 };
	struct leak_config cfg = {
		.lib = o->lib, .op = op, .classes = o->classes, .budget_s = o->budget_s, .events = o->events,
		.cpu = o->cpu, .command = o->command, .instance = o->instance, .environment = o->environment,
	};
	char log[PATH_MAX];
	if (record_path(log, sizeof log, o->dir, "output", o->label, opname, ".leak.log", NULL) == 0)
		cfg.output_log = log;
	struct leak_floor floor = { LEAK_FLOOR_UNITS, LEAK_FLOOR_SHARE };
	char bad[64];
	if (o->floor && *o->floor && leak_floor_parse(o->floor, &floor, bad, sizeof bad) < 0)
		return pq_fail(werr, PQ_EINPUT, "leak floor: '%s' is not a floor", bad);
	cfg.floor = &floor;
	json_t *r = NULL;
	int rc = leak_run_op(&cfg, &r, &err);
	if (!r)  /* no pair applies, or the test could not run: say so rather than leave the step pending */
		r = json_pack("{s:s, s:s, s:s, s:s, s:s}", "schema", "pqprof.leak/1", "op", opname, "status", "failed",
		              "failure", err.msg, "failure_kind", blame_kind(err.code));
	/* Campaign records name their logs relative to the campaign directory (merge moves them). */
	json_t *so = json_object_get(r, "scheme_output");
	const char *lp = json_string_value(json_object_get(so, "log"));
	size_t dl = strlen(o->dir);
	if (lp && strncmp(lp, o->dir, dl) == 0 && lp[dl] == '/')
		json_object_set_new(so, "log", json_string(lp + dl + 1));
	w = rc == 0 ? leak_chart_write(r, svg, werr) : 0;
	if (w == 0)
		w = json_file_write(rec, r, werr);
	int done = w == 0 && leak_record_done(rec);
	json_decref(r);
	return w < 0 ? w : done;
}

/* The optional timing-leak step (leak_step.c), one record per operation. */
void unit_leak(struct campaign *c, struct unit *u, json_t *desc, const enum pq_op *ops, int nops, json_t *env)
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
		.floor = c->have_desc && c->desc.leak_floor[0] ? c->desc.leak_floor : NULL,
	};
	int all = 1;
	for (int i = 0; i < nops; i++) {
		double t = mono_s();
		int skip = !desc || c->stopped;
		if (!skip) {
			if (!leak_step_done(&lo, ops[i]))
				campaign_progress(c, "leak", u, pq_op_name(ops[i]));
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
