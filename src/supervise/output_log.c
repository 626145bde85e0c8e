/* output_log: a child's scheme output to the job's log, and the record's note; see output_log.h. */
#include "config.h"
#include "supervise/output_log.h"
#include "core/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runner's count per stream and operation, from its "scheme_output" event. */
static json_t *per_op(const struct child_result *cr)
{
	size_t i;
	json_t *ev;
	json_array_foreach(cr->events, i, ev) {
		const char *name = json_string_value(json_object_get(ev, "ev"));
		if (name && strcmp(name, "scheme_output") == 0)
			return json_pack("{s:O?, s:O?}", "stdout", json_object_get(ev, "stdout"), "stderr",
			                 json_object_get(ev, "stderr"));
	}
	return NULL;
}

json_t *output_log_write(const struct child_result *cr, const char *path)
{
	if (!cr->output_total)
		return NULL;
	json_t *j = json_pack("{s:I}", "bytes", (json_int_t)cr->output_total);
	json_t *p = per_op(cr);
	if (p)
		json_object_set_new(j, "per_op", p);
	if (path) {
		char head[160];
		int n = snprintf(head, sizeof head, "== scheme output: %zu bytes, first %zu follow\n", cr->output_total,
		                 cr->output_len);
		size_t len = (size_t)n + cr->output_len;
		char *buf = malloc(len + 1);
		pq_error err = { 0 };
		if (buf) {
			memcpy(buf, head, (size_t)n);
			memcpy(buf + n, cr->output, cr->output_len);
			if (atomic_write(path, buf, len, &err) == 0)
				json_object_set_new(j, "log", json_string(path));
			else
				json_object_set_new(j, "log_error", json_string(err.msg));
			free(buf);
		}
	}
	return j;
}
