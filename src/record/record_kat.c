/* record_kat: the pqprof.kat/1 record; see records.h. */
#include "config.h"
#include "record/records.h"

int record_kat(const struct kat_gate_opts *o, const struct record_ctx *ctx, struct kat_gate_result *res,
               pq_error *err)
{
	struct kat_gate_opts ko = *o;
	ko.record_path = NULL;
	if (ctx && ctx->instance)
		ko.instance = ctx->instance;
	int rc = kat_gate_run(&ko, res, err);
	if (rc == 0 && res->record && ctx && ctx->environment)
		json_object_set(res->record, "environment", ctx->environment);
	return rc;
}
