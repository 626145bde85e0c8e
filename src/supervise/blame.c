/* blame: the scheme's failure or the tool's; see blame.h. */
#include "config.h"
#include "supervise/blame.h"

#include <string.h>

/* The "kind" of the first error event, or NULL. */
static const char *error_kind(const struct child_result *res)
{
	size_t i;
	json_t *ev;
	json_array_foreach(res->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "error") == 0)
			return json_string_value(json_object_get(ev, "kind")) ?: "";
	}
	return NULL;
}

int child_blame(const struct child_result *res)
{
	const char *kind = error_kind(res);
	/* Processes a scheme leaves behind are its doing, even after a good run. */
	if (res->end == CHILD_OK)
		return res->orphans ? PQ_ESCHEME : 0;
	if (res->end == CHILD_SPAWN_FAILED)
		return PQ_EIO;
	/* A library that breaks the loader (a truncated file, SIGBUS in dlopen) did not run. */
	if (kind && strcmp(kind, "load") == 0)
		return PQ_ELOAD;
	if (kind && strcmp(kind, "exec") == 0)
		return PQ_EIO;
	switch (res->end) {
	case CHILD_TIMEOUT:
	case CHILD_SIGNALED:
	case CHILD_EXIT_IN_OP:
		return PQ_ESCHEME;
	case CHILD_FAILED:
		if (kind && (strcmp(kind, "cryptofail") == 0))
			return PQ_ESCHEME;
		if (kind && strcmp(kind, "perf") == 0)
			return PQ_EPERF;
		if (res->exit_code == PQ_ESCHEME || res->exit_code == PQ_EPERF || res->exit_code == PQ_ELOAD ||
		    res->exit_code == PQ_ENOMEM)
			return res->exit_code;
		return PQ_EINTERNAL;
	default:
		/* Exited without a result, outside any operation: the scheme's code (a
		 * constructor, an atexit handler) is all that runs there besides ours. */
		return PQ_ESCHEME;
	}
}

const char *blame_kind(int code)
{
	if (code < 0)
		code = -code;
	/* A library that does not load, or declares sizes no scheme has, is the submission's. */
	return code == PQ_ESCHEME || code == PQ_ELOAD ? "scheme" : "tool";
}
