/* profile_export: from an analysed trace to the export formats; see profile_export.h. */
#include "config.h"
#include "profile/profile_export.h"
#include "profile/pprof_export.h"
#include "trace/flamegraph.h"

#include <stdio.h>
#include <string.h>

static int has_op(const struct analysis *a, const char *op)
{
	for (size_t i = 0; i < analysis_op_count(a); i++)
		if (strcmp(analysis_op_name(a, i), op) == 0)
			return 1;
	return 0;
}

/* "<instance> <op> (<event>, <unit>)", the title of every export. */
static void export_title(const struct analysis *a, const char *op, char *buf, size_t len)
{
	const char *inst = json_string_value(json_object_get(json_object_get(analysis_header(a), "instance"), "name"));
	snprintf(buf, len, "%s %s (%s, %s)", inst ? inst : "?", op ? op : "all operations", analysis_event(a),
	         analysis_unit(a));
}

/* The folded model of a, after checking that op (if any) is in it. */
static int folded_of(struct analysis *a, const char *op, const folded **f, pq_error *err)
{
	if (op && !has_op(a, op))
		return pq_fail(err, PQ_EUSAGE, "%s: no operation '%s' in the trace", analysis_trace_path(a), op);
	return analysis_folded(a, f, err);
}

int analysis_export(struct analysis *a, const char *op, const struct export_format *fmt, const char *path,
                    progress_fn note, void *user, pq_error *err)
{
	const folded *f;
	int rc = folded_of(a, op, &f, err);
	if (rc < 0)
		return rc;
	if (!fmt->write)
		return pprof_export(a, op, path, note, user, err);
	char title[512];
	export_title(a, op, title, sizeof title);
	return fmt->write(f, op, title, path, err);
}

int profile_export(const char *trace_path, const char *op, const char *format,
                   const char *out_path, progress_fn note, void *user, pq_error *err)
{
	const struct export_format *fmt;
	int rc = export_format_lookup(format, &fmt, err);
	if (rc < 0)
		return rc;
	struct analysis *a;
	if ((rc = analysis_open(&a, trace_path, NULL, err)) < 0)
		return rc;
	rc = analysis_export(a, op, fmt, out_path, note, user, err);
	analysis_close(a);
	return rc;
}

int profile_flamegraph(const char *trace_path, const char *op, const char *svg_path, pq_error *err)
{
	return profile_export(trace_path, op, "svg", svg_path, NULL, NULL, err);
}

int profile_flamegraph_diff(const char *before_trace, const char *after_trace, const char *op,
                            const char *svg_path, pq_error *err)
{
	struct analysis *b = NULL, *a = NULL;
	const folded *fb, *fa;
	int rc = analysis_open(&b, before_trace, NULL, err);
	if (rc == 0)
		rc = folded_of(b, op, &fb, err);
	if (rc == 0)
		rc = analysis_open(&a, after_trace, NULL, err);
	if (rc == 0)
		rc = folded_of(a, op, &fa, err);
	if (rc == 0) {
		char title[512], t[600];
		export_title(a, op, title, sizeof title);
		snprintf(t, sizeof t, "Differential: %s", title);
		struct flamegraph_opts fo = { .title = t, .subtitle = "red: grew from before to after, blue: shrank" };
		rc = flamegraph_diff_svg(fb, fa, op, &fo, svg_path, err);
	}
	analysis_close(a);
	analysis_close(b);
	return rc;
}

int profile_analyze(const char *trace_path, const char *op, const struct analysis_opts *opts,
                    json_t **record, pq_error *err)
{
	struct analysis_opts record_only = { 0 };
	if (opts) {
		record_only = *opts;
		record_only.flamegraph = record_only.folded = NULL;
	}
	return profile_analyze_files(trace_path, op, &record_only, record, err);
}

int profile_analyze_files(const char *trace_path, const char *op, const struct analysis_opts *opts,
                          json_t **record, pq_error *err)
{
	struct analysis *a;
	*record = NULL;
	int rc = analysis_open(&a, trace_path, opts, err);
	if (rc < 0)
		return rc;
	rc = analysis_record(a, op, record, err);
	if (rc == 0 && opts && opts->flamegraph)
		rc = analysis_export(a, op, export_format_find("svg"), opts->flamegraph, NULL, NULL, err);
	if (rc == 0 && opts && opts->folded)
		rc = analysis_export(a, op, export_format_find("folded"), opts->folded, NULL, NULL, err);
	if (rc < 0) {
		json_decref(*record);
		*record = NULL;
	}
	analysis_close(a);
	return rc;
}
