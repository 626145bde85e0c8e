/* report_leak: the timing-leak section of the report; see report_leak.h. */
#include "config.h"
#include "core/fixed_str.h"
#include "report/report_leak.h"
#include "report/jpath.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const ops[] = { "keygen", "sign", "verify", "enc", "dec" };

static json_t *load(const struct record_set *rs, const struct rs_instance *in, const char *op, char *rel,
                    size_t len)
{
	char path[8192];
	snprintf(rel, len, "leak/%s__%s.json", in->label, op);
	snprintf(path, sizeof path, "%s/%s", rs->dir, rel);
	json_t *r = json_load_file(path, 0, NULL);
	if (r && strcmp(jp_str(r, "schema", ""), "pqprof.leak/1") != 0) {
		json_decref(r);
		return NULL;
	}
	return r;
}

static int any_record(const struct record_set *rs)
{
	char rel[1200];
	for (size_t i = 0; i < rs->ninst; i++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			json_t *r = load(rs, &rs->inst[i], ops[k], rel, sizeof rel);
			if (r) {
				json_decref(r);
				return 1;
			}
		}
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
	char rel[1200];
	static const char *const sh[] = { "instance", "operation", "verdict", "measurements", "largest |t|" };
	struct rd_table *st = rdoc_table(d, 5, sh);
	for (size_t i = 0; i < rs->ninst; i++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			json_t *r = load(rs, &rs->inst[i], ops[k], rel, sizeof rel);
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
			const char *cells[] = { who, ops[k], ok ? jp_str(r, "verdict", "?") : "failed", ok ? n : NULL,
			                        ok ? tmax : NULL };
			rd_row(d, st, cells, 1u);
			json_decref(r);
		}
	static const char *const hdr[] = { "instance", "operation", "classes compared", "verdict", "counter",
	                                   "contention" };
	struct rd_table *t = rdoc_table(d, 6, hdr);
	for (size_t i = 0; i < rs->ninst; i++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			json_t *r = load(rs, &rs->inst[i], ops[k], rel, sizeof rel);
			if (!r)
				continue;
			char who[600];
			snprintf(who, sizeof who, "%s%s%s", rs->inst[i].name, rs->inst[i].profile[0] ? " / " : "",
			         rs->inst[i].profile);
			if (strcmp(jp_str(r, "status", ""), "complete") != 0) {
				const char *cells[] = { who, ops[k], NULL, "failed", jp_str(r, "failure.reason", NULL) ?
				                        jp_str(r, "failure.reason", NULL) : jp_str(r, "failure", NULL), NULL };
				rd_row(d, t, cells, 1u);
				json_decref(r);
				continue;
			}
			size_t p;
			json_t *pr;
			json_array_foreach(json_object_get(r, "pairs"), p, pr) {
				const char *cells[] = { who, ops[k], jp_str(pr, "what", NULL), jp_str(pr, "text", NULL),
				                        jp_str(pr, "counter.description", NULL), jp_str(pr, "contention.text", NULL) };
				rd_row(d, t, cells, 1u);
			}
			json_decref(r);
		}
	for (size_t i = 0; i < rs->ninst; i++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			char svg[8192], path[8192];
			if (path_fmt(svg, sizeof svg, NULL, "leak/%s__%s.svg", rs->inst[i].label, ops[k]) < 0 ||
			    path_fmt(path, sizeof path, NULL, "%s/%s", rs->dir, svg) < 0)
				continue; /* no plot can lie at a path that long */
			struct stat sb;
			if (stat(path, &sb) != 0)
				continue;
			char cap[700];
			snprintf(cap, sizeof cap, "Leak test of %s %s, |t| against measurements", rs->inst[i].name, ops[k]);
			rdoc_flame(d, cap, svg);
		}
}
