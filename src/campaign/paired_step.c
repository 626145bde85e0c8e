/*
 * paired_step: the flag studies of a campaign of several profiles, every
 * build of an instance side by side in one runner per process
 * (supervise/paired.h), one record per instance and operation, and their
 * lines on the summary stream.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "supervise/blame.h"
#include "supervise/paired.h"

#include <string.h>

/* The paired step's progress line from inside a study. */
static void paired_progress(void *user, const char *line)
{
	struct campaign *c = user;
	FILE *f = c->o->progress;
	if (f && !c->o->progress_tty)
		fprintf(f, "progress paired %s\n", line);
}

/* The builds of one instance in profile order (baseline first); the A/A copy's index, or -1. */
static int instance_builds(struct campaign *c, const struct unit *first, int *who, int *aa)
{
	int n = 0;
	*aa = -1;
	for (int p = 0; p < c->nprofs && n < PAIRED_MAX_BUILDS; p++)
		for (int k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			if (u->prof != &c->profs[p] || u->added_baseline || strcmp(u->instance, first->instance) != 0 ||
			    strcmp(u->implementation, first->implementation) != 0 || !built_ok(c, u))
				continue;
			if (n == 0 && p != 0)
				return 0;  /* no baseline build: nothing to compare with */
			if (c->profs[p].aa_of[0])
				*aa = n;
			who[n++] = k;
		}
	return n;
}

/* The closing lines of one paired study, on the summary stream. */
static void paired_summary(struct campaign *c, const struct unit *base, enum pq_op op, const json_t *r)
{
	FILE *f = c->o->summary;
	if (!f)
		return;
	if (!c->paired_said++)
		fprintf(f, "\npaired studies (ratio to the baseline profile %s, 95%% interval; every build in one runner, "
		        "round by round):\n", base->profile);
	const char *st = json_string_value(json_object_get(r, "status"));
	if (!st || strcmp(st, "ok") != 0) {
		fprintf(f, "  %-28s %-7s failed: %s\n", base->instance, pq_op_name(op),
		        json_string_value(json_object_get(json_object_get(r, "failure"), "reason")) ?: "?");
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "comparisons"), i, e) {
		fprintf(f, "  %-28s %-7s %-14s %6.3f (%.3f-%.3f)  %s; %s\n", base->instance, pq_op_name(op),
		        json_string_value(json_object_get(e, "candidate")) ?: "?",
		        json_number_value(json_object_get(e, "ratio")), json_number_value(json_object_get(e, "lo")),
		        json_number_value(json_object_get(e, "hi")), json_string_value(json_object_get(e, "verdict")) ?: "?",
		        json_string_value(json_object_get(e, "detectable")) ?: "");
		/* The functions that changed most, from the same runs (cost per call, 95% interval). */
		size_t k;
		json_t *fn;
		json_array_foreach(json_object_get(e, "functions"), k, fn) {
			if (k >= 3)
				break;
			fprintf(f, "  %-28s %-7s %-14s   %s %+.0f (%+.0f..%+.0f) per call\n", "", "", k ? "" : "functions:",
			        json_string_value(json_object_get(fn, "function")) ?: "?",
			        json_number_value(json_object_get(fn, "delta")), json_number_value(json_object_get(fn, "delta_lo")),
			        json_number_value(json_object_get(fn, "delta_hi")));
		}
	}
	fprintf(f, "  %-28s %-7s %s\n", "", "", json_string_value(json_object_get(r, "stop_reason")) ?: "");
}

/* Progress steps of the paired step: one per baseline unit and operation of a flag study. */
int paired_steps(const struct campaign *c)
{
	if (c->nprofs < 2 || c->o->per_process || !c->want[STEP_PAIRED])
		return 0;
	int n = 0;
	for (int k = 0; k < c->nunits; k++)
		n += c->units[k].prof == &c->profs[0] && !c->units[k].added_baseline ? 3 : 0;
	return n;
}

/*
 * Flag studies: for each instance and operation, every build side by side
 * in one runner per process (supervise/paired.h), one record
 * paired/<baseline label>__<op>.json that the comparisons use.  The
 * budget: --budget for all studies, shared out over those still to run;
 * else PAIRED_DEFAULT_BUDGET_S per study (two thirds with --quick).
 */
void paired_all(struct campaign *c, json_t *env)
{
	if (c->stopped || c->nprofs < 2 || c->o->per_process || !c->want[STEP_PAIRED])
		return;
	int nstudies = 0, ninst = 0;
	int first[MAX_UNITS];
	for (int k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];
		if (u->prof != &c->profs[0] || u->added_baseline)
			continue;
		first[ninst++] = k;
		enum pq_op ops[PQ_OP_COUNT];
		json_t *d = NULL;
		nstudies += unit_ops(c, u, &d, ops);
		json_decref(d);
	}
	double budget_left = c->o->budget_s;
	for (int i = 0; i < ninst && !c->stopped; i++) {
		int who[PAIRED_MAX_BUILDS], aa = -1;
		const struct unit *base = &c->units[first[i]];
		int nb = instance_builds(c, base, who, &aa);
		enum pq_op ops[PQ_OP_COUNT];
		json_t *desc = NULL;
		int nops = unit_ops(c, base, &desc, ops);
		for (int j = 0; j < nops && !c->stopped; j++, nstudies--) {
			char rec[PATH_MAX], log[PATH_MAX];
			path_of(c, rec, sizeof rec, "paired", base->label, pq_op_name(ops[j]), ".json");
			double t = mono_s();
			if (nb < 2 || !desc || record_done(rec)) {
				step_done(c, t, 1);
				continue;
			}
			campaign_progress(c, "paired", base, pq_op_name(ops[j]));
			struct paired_config pc = {
				.nbuilds = nb, .aa = aa, .op = ops[j], .precision = c->o->precision,
				.budget_s = c->o->budget_s > 0 ? budget_left / (nstudies > 0 ? nstudies : 1)
				            : PAIRED_DEFAULT_BUDGET_S * (c->o->quick ? 2.0 / 3.0 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.command = c->o->command, .instance = desc, .environment = env, .progress = paired_progress,
				.progress_user = c,
			};
			for (int b = 0; b < nb; b++) {
				pc.builds[b].lib = c->units[who[b]].lib;
				pc.builds[b].label = c->units[who[b]].profile;
			}
			path_of(c, log, sizeof log, "output", base->label, pq_op_name(ops[j]), ".paired.log");
			pc.output_log = log;
			json_t *r = NULL;
			pq_error err = { 0 };
			int rc = paired_run(&pc, &r, &err);
			budget_left -= mono_s() - t;
			if (!r) {
				step_error(c, base, "paired", &err);
			} else {
				if (rc < 0 && !json_object_get(r, "failure_kind"))
					json_object_set_new(r, "failure_kind", json_string(blame_kind(-rc)));
				json_object_set_new(r, "profile", json_string(base->profile));
				paired_summary(c, base, ops[j], r);
				relative_log(c, r);
				if (!c->stopped)
					put_record(c, rec, r);
				json_decref(r);
			}
			step_done(c, t, 0);
		}
		for (int b = 0; b < nb; b++)
			set_unit_step(c, &c->units[who[b]], "paired", desc ? "done" : "skipped");
		json_decref(desc);
	}
	save_state(c, "incomplete");
}
