/*
 * summary_step: how a campaign ends: the performance table on the summary
 * stream, which flag profiles built for some instance (a flag study with
 * one that built for none is partial), and the closing lines and error
 * that decide the exit status.  The report files are steps.c's.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "core/fixed_str.h"
#include "core/text_buf.h"
#include "report/bench_table.h"

#include <stdlib.h>
#include <string.h>

/* The performance table with each instance's KAT verdict, from the records. */
void print_summary(struct campaign *c, FILE *out)
{
	const char *unit = NULL;
	int header = 0;
	for (int i = 0; i < c->nunits; i++) {
		const struct unit *u = &c->units[i];
		char p[PATH_MAX], verdict[96] = "KAT: not run", shown[300], name[200];
		snprintf(name, sizeof name, u->implementation[0] ? "%s (%s)" : "%s", u->instance, u->implementation);
		snprintf(shown, sizeof shown, c->nprofs > 1 ? "%s/%s" : "%s", name, u->profile);
		path_of(c, p, sizeof p, "kat", u->label, NULL, ".json");
		json_t *k = read_json(p);
		if (k) {
			const char *v = json_string_value(json_object_get(json_object_get(k, "outcome"), "verdict"));
			snprintf(verdict, sizeof verdict, "KAT %s%s", v ? v : "?",
			         v && strcmp(v, "PASS") != 0 ? " (output not validated)" : "");
			json_decref(k);
		}
		path_of(c, p, sizeof p, "interposition", u->label, NULL, ".json");
		json_t *ic = read_json(p);
		for (int o = 0; o < PQ_OP_COUNT; o++) {
			path_of(c, p, sizeof p, "records", u->label, pq_op_name(o), ".json");
			json_t *r = read_json(p);
			if (!r)
				continue;
			/* The interposition check's factor, where it is beyond the noise. */
			char shown_verdict[200];
			json_t *f = json_object_get(json_object_get(ic, "ops"), pq_op_name(o));
			if (json_is_true(json_object_get(f, "beyond_noise")))
				snprintf(shown_verdict, sizeof shown_verdict, "%s; plain -fPIC %.1fx %s", verdict,
				         json_number_value(json_object_get(f, "factor")),
				         json_number_value(json_object_get(f, "factor")) >= 1 ? "slower" : "faster");
			else
				snprintf(shown_verdict, sizeof shown_verdict, "%s", verdict);
			const char *ru = json_string_value(json_object_get(json_object_get(r, "backend"), "unit"));
			if (!header || (ru && unit && strcmp(ru, unit) != 0)) {
				bench_table_header(out, ru);
				header = 1;
				unit = ru ? strdup(ru) : NULL;
			}
			bench_table_row(out, r, shown, shown_verdict);
			json_decref(r);
		}
		json_decref(ic);
		if (!built_ok(c, u)) {
			path_of(c, p, sizeof p, "build", u->label, NULL, ".json");
			json_t *b = read_json(p);
			fprintf(out, "%-28s build failed: %s\n", shown,
			        b ? json_string_value(json_object_get(b, "failure")) : "?");
			json_decref(b);
		}
	}
	free((char *)unit);
	fflush(out);
}

/* Whether profile p built for at least one of the campaign's instances. */
int profile_built(struct campaign *c, const struct prof *p)
{
	for (int i = 0; i < c->nunits; i++)
		if (c->units[i].prof == p && built_ok(c, &c->units[i]))
			return 1;
	return 0;
}

/*
 * In a campaign of several flag profiles, one that built for none of the
 * campaign's instances leaves it partial (its comparisons are missing): PQ_EBUILD, naming
 * it; the other profiles' results are complete.  When none built, there are none.
 */
int check_profiles_built(struct campaign *c, pq_error *err)
{
	/* One profile: a build failure is a verdict like the others, there is no comparison to miss. */
	if (c->nprofs < 2)
		return 0;
	char bad[512] = "";
	int nbad = 0;
	for (int p = 0; p < c->nprofs; p++) {
		int any = 0, units = 0;
		const char *first = NULL;
		for (int i = 0; i < c->nunits; i++) {
			if (c->units[i].prof != &c->profs[p])
				continue;
			units++;
			if (built_ok(c, &c->units[i]))
				any = 1;
			else if (!first)
				first = c->units[i].label;
		}
		if (units && !any) {
			nbad++;
			size_t n = strlen(bad);
			char one[sizeof c->profs[p].name + sizeof c->dir + sizeof c->units[0].label + 32];
			snprintf(one, sizeof one, "%s%s (see %s/build/%s.json)", n ? ", " : "", c->profs[p].name, c->dir, first);
			str_copy(bad + n, sizeof bad - n, one);
		}
	}
	if (!bad[0])
		return 0;
	if (nbad == c->nprofs)
		return pq_fail(err, PQ_EBUILD, "campaign failed: no flag profile built (BUILD): %s; no profile has results",
		               bad);
	return pq_fail(err, PQ_EBUILD, "campaign partial: flag profile %s did not build (BUILD); the other profiles' "
	               "results are complete", bad);
}

/* Closing lines: what failed and will be retried, and whether the campaign stopped. */
int campaign_finish(struct campaign *c, int r, pq_error *err)
{
	FILE *f = c->o->progress;
	if (c->stopped) {
		*err = c->stop_err;
		pq_error_prefix(err, "stopped: ");
		/* err->msg is fixed: a cause too long to leave room for the advice ends in "…". */
		if (text_appendf(err->msg, sizeof err->msg, "; steps whose records were written are kept: fix the cause and "
		                 "run the same command again to resume") < 0)
			text_mark_cut(err->msg, sizeof err->msg);
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
