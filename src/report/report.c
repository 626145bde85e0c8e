/* report: write report.md, report.html, report.csv and report.json; see report.h. */
#include "config.h"
#include "report/report.h"
#include "core/fixed_str.h"

#include <stdio.h>

int report_write_set(const struct record_set *rs, const char *out_dir, pq_error *err)
{
	const char *dir = out_dir ? out_dir : rs->dir;
	char path[4200];
	rdoc doc;
	rdoc_init(&doc);
	int r = report_build_doc(rs, &doc, err);
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/report.md", dir);
		if (r == 0)
			r = report_write_markdown(&doc, path, err);
	}
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/report.html", dir);
		if (r == 0)
			r = report_write_html(&doc, rs->dir, path, err);
	}
	rdoc_free(&doc);
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/report.csv", dir);
		if (r == 0)
			r = report_write_csv(rs, path, err);
	}
	if (r == 0) {
		r = path_fmt(path, sizeof path, err, "%s/report.json", dir);
		if (r == 0)
			r = report_write_json(rs, path, err);
	}
	return r;
}

int report_write_all(const char *campaign_dir, pq_error *err)
{
	struct record_set *rs = NULL;
	int r = record_set_load(campaign_dir, &rs, err);
	if (r < 0)
		return r;
	r = report_write_set(rs, NULL, err);
	record_set_free(rs);
	return r;
}
