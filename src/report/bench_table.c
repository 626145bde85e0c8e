/* bench_table: terminal performance table; see bench_table.h. */
#include "config.h"
#include "report/bench_table.h"
#include "core/units.h"

#include <string.h>

void bench_table_header(FILE *out, const char *unit)
{
	char u[64], m[64];
	snprintf(u, sizeof u, "median %s", unit ? unit : "?");
	snprintf(m, sizeof m, "mean %s", unit ? unit : "?");
	fprintf(out, "%-28s %-7s %16s %11s %10s %10s %16s %18s %7s %9s\n", "instance", "op", u, "median time", "min",
	        "ops/s", m, "n (trials x iters)", "cv", "contended");
}

void bench_table_row(FILE *out, json_t *rec, const char *name, const char *extra)
{
	json_t *s = json_object_get(rec, "summary");
	if (!name)
		name = json_string_value(json_object_get(json_object_get(rec, "instance"), "name"));
	const char *op = json_string_value(json_object_get(rec, "op"));
	if (!s) {
		const char *why = json_string_value(json_object_get(json_object_get(rec, "failure"), "reason"));
		fprintf(out, "%-28s %-7s failed: %s\n", name ? name : "?", op ? op : "?", why ? why : "no summary");
		return;
	}
	char med[32], t[32], mn[32], ops[32], mean[32], n[48], cv[16], cont[32] = "-";
	fmt_count(med, sizeof med, json_number_value(json_object_get(s, "median_units")));
	fmt_seconds(t, sizeof t, json_number_value(json_object_get(s, "median_ns")) * 1e-9);
	fmt_count(mn, sizeof mn, json_number_value(json_object_get(s, "min_units")));
	fmt_sig3(ops, sizeof ops, json_number_value(json_object_get(s, "ops_per_s")));
	fmt_count(mean, sizeof mean, json_number_value(json_object_get(s, "mean_units")));
	snprintf(n, sizeof n, "%lld (%lld x %lld)", (long long)json_integer_value(json_object_get(s, "n")),
	         (long long)json_integer_value(json_object_get(s, "trials")),
	         (long long)json_integer_value(json_object_get(s, "iters")));
	snprintf(cv, sizeof cv, "%.2f%%", 100.0 * json_number_value(json_object_get(s, "cv_trials")));
	json_t *c = json_object_get(rec, "contention");
	if (c)
		snprintf(cont, sizeof cont, "%lld/%lld", (long long)json_integer_value(json_object_get(c, "trials_flagged")),
		         (long long)json_integer_value(json_object_get(c, "trials")));
	fprintf(out, "%-28s %-7s %16s %11s %10s %10s %16s %18s %7s %9s%s%s\n", name ? name : "?", op ? op : "?", med, t,
	        mn, ops, mean, n, cv, cont, extra ? "  " : "", extra ? extra : "");
}
