/* record_mem: the pqprof.memory/1 and pqprof.sizes/1 records; see records.h. */
#include "config.h"
#include "record/records.h"
#include "measure/elf_size.h"
#include "report/sizes_audit.h"

#include <stdio.h>

/* The library's static image: "elf" and "static_image_bytes", or "elf_error". */
static void add_elf(json_t *record, const char *lib, size_t top)
{
	struct elf_size es;
	pq_error err = { 0 };
	if (elf_size_analyze(lib, &es, &err) < 0) {
		json_object_set_new(record, "elf_error", json_string(err.msg));
		return;
	}
	json_object_set_new(record, "elf", elf_size_to_json(&es, top));
	json_object_set_new(record, "static_image_bytes", json_integer((json_int_t)es.image_memsz));
	elf_size_free(&es);
}

static void add_ctx(json_t *record, const struct record_ctx *ctx)
{
	if (ctx && ctx->instance)
		json_object_set(record, "instance", ctx->instance);
	if (ctx && ctx->environment)
		json_object_set(record, "environment", ctx->environment);
}

int record_mem(const struct mem_run_opts *mo, enum pq_op op, const struct record_ctx *ctx, json_t **record,
               pq_error *err)
{
	*record = NULL;
	int rc = mem_run_op(mo, op, record, err);
	if (*record) {
		add_ctx(*record, ctx);
		add_elf(*record, mo->lib, 10);
	}
	return rc;
}

int record_sizes(const struct mem_run_opts *mo, long runs, double seconds, size_t top, const struct record_ctx *ctx,
                 json_t **record, pq_error *err)
{
	*record = NULL;
	int rc = sizes_run(mo, runs, seconds, record, err);
	if (!*record)
		return rc;
	add_ctx(*record, ctx);
	add_elf(*record, mo->lib, top);
	if (rc == 0) {
		char audit[8][256];
		int na = sizes_audit(*record, audit, 8);
		json_t *aj = json_array();
		for (int i = 0; i < na; i++)
			json_array_append_new(aj, json_string(audit[i]));
		json_object_set_new(*record, "audit", aj);
	}
	return rc;
}
