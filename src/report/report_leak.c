/* report_leak: the timing-leak section of the report; see report_leak.h. */
#include "config.h"
#include "report/report_leak.h"
#include "report/jpath.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int any_record(const struct record_set *rs)
{
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++)
			if (rs->inst[i].ops[k].leak)
				return 1;
	return 0;
}

void report_section_leak(const struct record_set *rs, rdoc *d)
{
	if (!any_record(rs))
		return;
	rdoc_heading(d, 2, "leaks", "10. Timing leaks");
	rdoc_para(d, "Fixed-vs-random timing test: each operation called on two classes of inputs interleaved at "
	          "random (a fixed vs a random secret key, message or DRNG seed; valid vs invalid ciphertexts), "
	          "each call timed alone, Welch's t-test on the two classes, uncropped, at several upper-tail "
	          "crops and second order. A leak is likely when |t| stays above 4.5 over the second half of the "
	          "measurements. This is a smoke test, not a proof: \"no leak detected\" means no difference was "
	          "seen within the time budget, and \"inconclusive\" that the machine was too busy to say.");
	static const char *const sh[] = { "instance", "operation", "verdict", "measurements", "largest |t|" };
	struct rd_table *st = rdoc_table(d, 5, sh);
	for (size_t i = 0; i < rs->ninst; i++)
		for (int k = 0; k < rs->inst[i].nops; k++) {
			const struct rs_op *o = &rs->inst[i].ops[k];
			const json_t *r = o->leak;
			if (!r)
				continue;
			char who[600], n[32] = "", tmax[32] = "";
			snprintf(who, sizeof who, "%s%s%s", rs->inst[i].name, rs->inst[i].profile[0] ? " / " : "",
			         rs->inst[i].profile);
			double sum = 0, mx = 0;
			size_t p;
			json_t *pr;
			json_array_foreach(json_object_get(r, "pairs"), p, pr) {
				sum += jp_num(pr, "measurements", 0);
				if (jp_num(pr, "max_abs_t", 0) > mx)
					mx = jp_num(pr, "max_abs_t", 0);
			}
			int ok = strcmp(jp_str(r, "status", ""), "complete") == 0;
			if (ok) {
				snprintf(n, sizeof n, "%.0f", sum);
				snprintf(tmax, sizeof tmax, "%.1f", mx);
			}
			const char *cells[] = { who, o->op, ok ? jp_str(r, "verdict", "?") : "failed", ok ? n : NULL,
			                        ok ? tmax : NULL };
			rd_row(d, st, cells, 1u);
		}
	static const char *const hdr[] = { "instance", "operation", "classes compared", "verdict", "counter",
	                                   "contention" };
	struct rd_table *t = rdoc_table(d, 6, hdr);
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
				const char *cells[] = { who, o->op, NULL, "failed", jp_str(r, "failure.reason", NULL) ?
				                        jp_str(r, "failure.reason", NULL) : jp_str(r, "failure", NULL), NULL };
				rd_row(d, t, cells, 1u);
				continue;
			}
			size_t p;
			json_t *pr;
			json_array_foreach(json_object_get(r, "pairs"), p, pr) {
				const char *cells[] = { who, o->op, jp_str(pr, "what", NULL), jp_str(pr, "text", NULL),
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
