/*
 * report_json: the record set merged into one JSON document
 * (pqprof.report/1): the summary (report_summary.h), the campaign, its
 * environment, and per instance the build, KAT and sizes records and per
 * operation the timing, memory, profile and timing-leak records, plus the
 * evidence index with full sha256 digests.
 * Timing records are copied without their per-call "values" and "ns"
 * arrays, which can run to millions of numbers; those stay in the
 * records the evidence index names and hashes.
 */
#include "config.h"
#include "report/report.h"
#include "report/report_summary.h"
#include "core/jpath.h"
#include "core/json_file.h"

#include <stdlib.h>
#include <string.h>

static json_t *or_null(json_t *j)
{
	return j ? json_incref(j) : json_null();
}

static json_t *bench_without_values(json_t *b)
{
	if (!b)
		return json_null();
	json_t *c = json_deep_copy(b);
	if (!c)
		return NULL;
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(c, "trials"), i, t) {
		json_object_del(t, "values");
		json_object_del(t, "ns");
	}
	return c;
}

static json_t *path_or_null(const char *rel)
{
	return rel[0] ? json_string(rel) : json_null();
}

json_t *report_json(const struct record_set *rs)
{
	json_t *doc = json_object(), *insts = json_array(), *ev = json_array();
	if (!doc || !insts || !ev) {
		json_decref(doc);
		json_decref(insts);
		json_decref(ev);
		return NULL;
	}
	json_object_set_new(doc, "schema", json_string("pqprof.report/1"));
	json_object_set_new(doc, "generator", json_string("pqprof " PACKAGE_VERSION));
	json_t *summary = report_summary(rs);
	if (!summary) {
		json_decref(doc);
		json_decref(insts);
		json_decref(ev);
		return NULL;
	}
	json_object_set_new(doc, "summary", summary);
	json_object_set_new(doc, "campaign", or_null(rs->campaign));
	json_object_set_new(doc, "environment", or_null(rs->environment));
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		json_t *ops = json_array();
		for (int k = 0; k < in->nops; k++) {
			const struct rs_op *o = &in->ops[k];
			const char *unit = report_bench_unit(o->bench);
			json_array_append_new(ops, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "op", o->op,
			                      "unit", unit ? json_string(unit) : json_null(),
			                      "bench", bench_without_values(o->bench), "memory", or_null(o->memory),
			                      "profile", or_null(o->profile), "trace", path_or_null(o->trace_file),
			                      "flamegraph", path_or_null(o->flame_file),
			                      "folded", path_or_null(o->folded_file), "leak", or_null(o->leak),
			                      "leak_plot", path_or_null(o->leak_plot_file)));
		}
		json_t *ij = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
		                       "instance", in->name, "profile", in->profile, "label", in->label,
		                       "validated", rs_validated(in), "descriptor", or_null(in->descriptor),
		                       "steps", or_null(in->steps), "build", or_null(in->build), "kat", or_null(in->kat),
		                       "sizes", or_null(in->sizes), "ops", ops);
		if (in->implementation[0])
			json_object_set_new(ij, "implementation", json_string(in->implementation));
		json_array_append_new(insts, ij);
	}
	json_object_set_new(doc, "instances", insts);
	for (size_t i = 0; i < rs->nev; i++)
		json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:s}", "instance", rs->ev[i].instance, "item",
		                                     rs->ev[i].item, "file", rs->ev[i].file, "sha256", rs->ev[i].sha256));
	json_object_set_new(doc, "evidence", ev);
	return doc;
}

int report_write_json(const struct record_set *rs, const char *path, pq_error *err)
{
	json_t *doc = report_json(rs);
	int r = json_file_write(path, doc, err);
	json_decref(doc);
	return r;
}
