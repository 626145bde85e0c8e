/* report_leak: the timing-leak section of the report; see report_leak.h. */
#include "config.h"
#include "report/report_leak.h"
#include "core/jpath.h"
#include "core/text_buf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int report_leak_present(const struct record_set *rs)
{
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++)
			if (rs->inst[i].ops[k].leak)
				return 1;
	return 0;
}

/* "-3227 TSC ticks (-3235 to -3219), -1243 ns" and "2.14 TSC ticks"; empty for records without them. */
static void effect_cell(const json_t *pr, char *eff, size_t elen, char *flo, size_t flen)
{
	const char *unit = jp_str(pr, "effect.unit", NULL);
	if (!unit || !jp_str(pr, "effect.test", NULL))
		return;
	/* The unit comes from the record, of any length: a cell too long for eff ends in "…". */
	eff[0] = '\0';
	int cut = text_appendf(eff, elen, "%+.4g %s (%+.4g to %+.4g)", jp_num(pr, "effect.units", 0), unit,
	                       jp_num(pr, "effect.low", 0), jp_num(pr, "effect.high", 0));
	double ns = jp_num(pr, "effect.ns", NAN);
	if (isfinite(ns) && !cut)
		cut = text_appendf(eff, elen, ", %+.4g ns", ns);
	if (cut)
		text_mark_cut(eff, elen);
	if (snprintf(flo, flen, "%.3g %s", jp_num(pr, "floor.units", 0), unit) >= (int)flen)
		text_mark_cut(flo, flen);
}

void report_section_leak(const struct record_set *rs, rdoc *d)
{
	if (!report_leak_present(rs))
		return;
	rdoc_para(d, "Fixed-vs-random timing test: each operation called on two classes of inputs interleaved at "
	          "random (a fixed vs a random secret key, message or DRNG seed; valid vs invalid ciphertexts), "
	          "each call timed alone, Welch's t-test on the two classes, uncropped, at several upper-tail "
	          "crops and second order, beside an A/A control (the random class split in two, interleaved "
	          "with the pair). \"Leak likely\" means both statistically and practically significant: |t| "
	          "stayed above 4.5 and above the control's largest |t| over the second half of the measurements, "
	          "and the difference's 95%% interval lies beyond the floor (by default the larger of one counter "
	          "unit and 0.05%% of the mean). A significant difference within the floor is \"no leak above the "
	          "floor\". This is a smoke test, not a proof: \"no leak detected\" means no difference was seen "
	          "within the time budget, and \"inconclusive\" that the machine was too busy to say or that the "
	          "difference straddles the floor.");
	static const char *const sh[] = { "instance", "operation", "verdict", "measurements", "largest |t|",
	                                  "A/A control's largest |t|" };
	struct rd_table *st = rdoc_table(d, 6, sh);
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const struct rs_op *o = &rs->inst[i].ops[k];
			const json_t *r = o->leak;
			if (!r)
				continue;
			char who[600], n[32] = "", tmax[32] = "", cmax[32] = "";
			snprintf(who, sizeof who, "%s%s%s", rs->inst[i].name, rs->inst[i].profile[0] ? " / " : "",
			         rs->inst[i].profile);
			double sum = 0, mx = 0, cx = -1;
			size_t p;
			json_t *pr;
			json_array_foreach(json_object_get(r, "pairs"), p, pr) {
				sum += jp_num(pr, "measurements", 0);
				if (jp_num(pr, "max_abs_t", 0) > mx)
					mx = jp_num(pr, "max_abs_t", 0);
				if (jp_num(pr, "control.max_abs_t", -1) > cx)
					cx = jp_num(pr, "control.max_abs_t", -1);
			}
			int ok = strcmp(jp_str(r, "status", ""), "complete") == 0;
			if (ok) {
				snprintf(n, sizeof n, "%.0f", sum);
				snprintf(tmax, sizeof tmax, "%.1f", mx);
				if (cx >= 0)
					snprintf(cmax, sizeof cmax, "%.1f", cx);
			}
			const char *cells[] = { who, o->op, ok ? jp_str(r, "verdict", "?") : "failed", ok ? n : NULL,
			                        ok ? tmax : NULL, cmax[0] ? cmax : NULL };
			rd_row(d, st, cells, 1u);
		}
	static const char *const hdr[] = { "instance", "operation", "classes compared", "verdict",
	                                   "effect (95% interval)", "floor", "counter", "contention" };
	struct rd_table *t = rdoc_table(d, 8, hdr);
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const struct rs_op *o = &rs->inst[i].ops[k];
			const json_t *r = o->leak;
			if (!r)
				continue;
			char who[600];
			snprintf(who, sizeof who, "%s%s%s", rs->inst[i].name, rs->inst[i].profile[0] ? " / " : "",
			         rs->inst[i].profile);
			if (strcmp(jp_str(r, "status", ""), "complete") != 0) {
				const char *cells[] = { who, o->op, NULL, "failed", NULL, NULL, jp_str(r, "failure.reason", NULL) ?
				                        jp_str(r, "failure.reason", NULL) : jp_str(r, "failure", NULL), NULL };
				rd_row(d, t, cells, 1u);
				continue;
			}
			size_t p;
			json_t *pr;
			json_array_foreach(json_object_get(r, "pairs"), p, pr) {
				char eff[200] = "", flo[80] = "";
				effect_cell(pr, eff, sizeof eff, flo, sizeof flo);
				const char *cells[] = { who, o->op, jp_str(pr, "what", NULL), jp_str(pr, "text", NULL),
				                        eff[0] ? eff : NULL, flo[0] ? flo : NULL,
				                        jp_str(pr, "counter.description", NULL), jp_str(pr, "contention.text", NULL) };
				rd_row(d, t, cells, 1u);
			}
		}
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const struct rs_op *o = &rs->inst[i].ops[k];
			if (!o->leak_plot_file[0])
				continue;
			char cap[700];
			snprintf(cap, sizeof cap, "Leak test of %s %s, |t| against measurements", rs->inst[i].name, o->op);
			rdoc_flame(d, cap, o->leak_plot_file);
		}
}
