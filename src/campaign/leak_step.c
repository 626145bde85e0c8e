/* leak_step: the campaign's timing-leak step; see leak_step.h. */
#include "config.h"
#include "campaign/leak_step.h"
#include "core/atomic_file.h"
#include "leak/leak_chart.h"
#include "leak/leak_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void leak_step_record_path(const struct leak_step_opts *o, enum pq_op op, char *buf, size_t len)
{
	snprintf(buf, len, "%s/leak/%s__%s.json", o->dir, o->label, pq_op_name(op));
}

int leak_step_op(const struct leak_step_opts *o, enum pq_op op)
{
	char rec[4096], svg[4096], sub[4096];
	leak_step_record_path(o, op, rec, sizeof rec);
	struct stat sb;
	if (stat(rec, &sb) == 0)
		return 1;
	snprintf(sub, sizeof sub, "%s/leak", o->dir);
	snprintf(svg, sizeof svg, "%s/leak/%s__%s.svg", o->dir, o->label, pq_op_name(op));
	pq_error err = { 0 };
	if (make_dirs(sub, &err) < 0)
		return 0;
	struct leak_config cfg = {
		.lib = o->lib, .op = op, .classes = o->classes, .budget_s = o->budget_s, .events = o->events,
		.cpu = o->cpu, .command = o->command, .instance = o->instance, .environment = o->environment,
	};
	json_t *r = NULL;
	int rc = leak_run_op(&cfg, &r, &err);
	if (!r)  /* no pair applies: say so rather than leave the step pending */
		r = json_pack("{s:s, s:s, s:s, s:s}", "schema", "pqprof.leak/1", "op", pq_op_name(op), "status", "failed",
		              "failure", err.msg);
	if (rc == 0)
		leak_chart_write(r, svg, NULL);
	char *t = json_dumps(r, JSON_INDENT(2) | JSON_SORT_KEYS);
	int ok = t && atomic_write(rec, t, strlen(t), NULL) == 0;
	free(t);
	json_decref(r);
	return ok;
}
