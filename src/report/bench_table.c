/* bench_table: terminal performance table; see bench_table.h. */
#include "config.h"
#include "report/bench_table.h"
#include "core/units.h"

#include <string.h>

void bench_table_header(FILE *out, const char *unit)
{
	char u[64];
	snprintf(u, sizeof u, "mean %s", unit ? unit : "?");
	fprintf(out, "%-28s %-7s %14s %10s %10s %12s %18s %11s %11s %7s\n", "instance", "op", u, "mean time", "ops/s",
	        "median trial", "n (trials x iters)", "min", "p90", "cv");
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
	char mean[32], t[32], ops[32], med[32], n[48], mn[32], p90[32], cv[16];
	fmt_count(mean, sizeof mean, json_number_value(json_object_get(s, "mean_units")));
	fmt_seconds(t, sizeof t, json_number_value(json_object_get(s, "mean_ns")) * 1e-9);
	fmt_sig3(ops, sizeof ops, json_number_value(json_object_get(s, "ops_per_s")));
	fmt_seconds(med, sizeof med, json_number_value(json_object_get(s, "median_trial_ns")) * 1e-9);
	snprintf(n, sizeof n, "%lld (%lld x %lld)", (long long)json_integer_value(json_object_get(s, "n")),
	         (long long)json_integer_value(json_object_get(s, "trials")),
	         (long long)json_integer_value(json_object_get(s, "iters")));
	fmt_count(mn, sizeof mn, json_number_value(json_object_get(s, "min_units")));
	fmt_count(p90, sizeof p90, json_number_value(json_object_get(s, "p90_units")));
	snprintf(cv, sizeof cv, "%.2f%%", 100.0 * json_number_value(json_object_get(s, "cv_trials")));
	fprintf(out, "%-28s %-7s %14s %10s %10s %12s %18s %11s %11s %7s%s%s\n", name ? name : "?", op ? op : "?", mean, t,
	        ops, med, n, mn, p90, cv, extra ? "  " : "", extra ? extra : "");
}
