/*
 * campaign: `pqprof run` as a library (see campaign.h).  This file owns
 * only the run itself: which steps were asked for, the campaign directory
 * and its lock, and the loop that takes every unit through the step
 * families in order (build_step.c, bench_step.c, paired_step.c,
 * interposition_step.c, measure_step.c with leak_step.c), then the
 * comparisons, the report and the closing lines (summary_step.c).  What
 * the units are is campaign_units.c's; what is done, campaign_state.c's.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "campaign/campaign_lock.h"
#include "campaign/steps.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Room a campaign directory leaves for "/<sub>/<label>__<op><ext>". */
#define DIR_SLACK 400

/* Steps of u the selection runs, for the progress total: every unit has a
 * build step, and either kind three operations. */
static int unit_steps(const struct campaign *c, const struct unit *u)
{
	int per_op = c->want[STEP_BENCH] + (u->added_baseline ? 0 : c->want[STEP_MEM] + c->want[STEP_PROFILE] +
	                                                          c->want[STEP_LEAK]);
	return 1 + c->want[STEP_KAT] + c->want[STEP_SIZES] + interposition_selected(c, u) + 3 * per_op;
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
			return pq_fail(err, PQ_EUSAGE, "--steps: unknown step '%s' (build,kat,bench,paired,mem,sizes,profile,leak,report; "
			               "interposition runs with bench)",
			               tok);
	}
	return 0;
}

int campaign_run(const char *target, const struct campaign_opts *o, pq_error *err)
{
	struct campaign c = { .o = o };
	struct campaign_lock lock = { .fd = -1 };
	int r = parse_steps(&c, err);
	if (r == 0)
		r = campaign_expand(&c, target, err);
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
		campaign_free_baselines(&c);
		free(c.units);
		return r;
	}
	char how[1200];
	snprintf(how, sizeof how, "finished steps are kept in %s; run the same command again to resume", c.dir);
	interrupt_set_resume(how);
	for (int i = 0; i < c.nunits; i++)
		c.total += unit_steps(&c, &c.units[i]);
	c.total += paired_steps(&c);
	c.t0 = mono_s();
	save_state(&c, "incomplete");
	for (int i = 0; i < c.nunits; i++)
		unit_build_and_kat(&c, &c.units[i], env);
	bench_all(&c, env);
	paired_all(&c, env);
	interposition_all(&c, env);
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
		        c.dir, c.nunits, mono_s() - c.t0);
	}
	if (o->summary && !c.stopped)
		print_summary(&c, o->summary);
	/* Comparisons with the baseline, for the profiles that built; before the
	 * report, which has a section for them. */
	char profiles[CAMPAIGN_MAX_PROFILES][64];
	int ncmp = 0;
	for (int p = 0; p < c.nprofs; p++)
		if (profile_built(&c, &c.profs[p]))
			str_copy(profiles[ncmp++], sizeof profiles[0], c.profs[p].name);
	if (r == 0 && !c.stopped && ncmp > 1 && profile_built(&c, &c.profs[0]) &&
	    (c.want[STEP_BENCH] || c.want[STEP_PROFILE]))
		r = steps_compare_profiles(c.dir, profiles, ncmp, o->summary, err);
	if (r == 0 && !o->no_report && !c.stopped)
		r = steps_report(c.dir, err);
	if (r == 0 && !c.stopped)
		r = check_profiles_built(&c, err);
	r = campaign_finish(&c, r, err);
	interrupt_set_where(NULL);
	interrupt_set_resume(NULL);
	campaign_lock_release(&lock);
	json_decref(env);
	json_decref(c.state);
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	campaign_free_baselines(&c);
	free(c.units);
	return r;
}

int campaign_plan(const char *target, const struct campaign_opts *o, FILE *out, pq_error *err)
{
	struct campaign c = { .o = o };
	int r = parse_steps(&c, err);
	if (r == 0)
		r = campaign_expand(&c, target, err);
	if (r == 0 && !o->out_dir)
		r = campaign_default_dir(target, o, c.dir, sizeof c.dir, err);
	else if (r == 0)
		snprintf(c.dir, sizeof c.dir, "%s", o->out_dir);
	if (r == 0) {
		fprintf(out, "plan for %s: %d unit%s (instance x flag profile) into %s; nothing is built or written\n",
		        target, c.nunits, c.nunits == 1 ? "" : "s", c.dir);
		for (int i = 0; i < c.nunits; i++) {
			const struct unit *u = &c.units[i];
			fprintf(out, "  %s: instance %s%s%s%s, profile %s, ", u->label, u->instance,
			        u->implementation[0] ? " (" : "", u->implementation, u->implementation[0] ? ")" : "",
			        u->profile);
			if (u->is_baseline)
				fprintf(out, "baseline (%s) of category %d, ", u->standard, u->category);
			else if (u->baseline_label[0])
				fprintf(out, "category %d (%s), baseline %s, ", u->category, u->category_from, u->baseline_label);
			else if (!o->no_baseline)
				fprintf(out, "no security category known (--category N), no baseline, ");
			if (u->prebuilt)
				fprintf(out, "library %s, KAT file searched in its source tree\n", u->lib);
			else
				fprintf(out, "tree %s, API %s, KAT %s\n", u->tree, u->api,
				        u->vectors[0] ? u->vectors : u->manifest[0] ? u->manifest : "searched in the tree");
		}
		fflush(out);
	}
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	campaign_free_baselines(&c);
	free(c.units);
	return r;
}
