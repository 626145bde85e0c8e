/* describe: an instance's descriptor from a runner child; see describe.h. */
#include "config.h"
#include "supervise/describe.h"
#include "supervise/blame.h"
#include "supervise/child.h"

static double limit_s = DESCRIBE_LIMIT_S;

void instance_describe_limit(double timeout_s)
{
	limit_s = timeout_s > 0 && timeout_s < DESCRIBE_LIMIT_S ? timeout_s : DESCRIBE_LIMIT_S;
}

int instance_describe(const char *lib, json_t **desc, pq_error *err)
{
	*desc = NULL;
	struct child_spec cs = { .job = "info", .lib = lib, .timeout_s = limit_s, .cpu = -1 };
	struct child_result res;
	int r = child_run(&cs, &res, err);
	if (r < 0)
		return r;
	if (res.end != CHILD_OK) {
		char why[512];
		child_describe(&res, why, sizeof why);
		r = pq_fail(err, child_blame(&res), "%s", why);
		child_result_free(&res);
		return r;
	}
	json_t *d = json_deep_copy(res.done);
	json_object_del(d, "ev");
	json_object_set_new(d, "library", json_string(lib));
	*desc = d;
	child_result_free(&res);
	return 0;
}
