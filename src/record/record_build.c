/* record_build: the pqprof.build/1 record; see records.h. */
#include "config.h"
#include "supervise/describe.h"
#include "record/records.h"
#include "instance/link_scope.h"

#include <string.h>

/* Every flag the compiler got, with where it came from. */
static json_t *flags_json(const struct flag_list *fl, const struct flag_list *observed, enum link_scope scope)
{
	json_t *a = json_array();
	for (int i = 0; i < fl->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "flag", fl->v[i].flag, "origin", fl->v[i].origin));
	for (int i = 0; i < observed->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "flag", observed->v[i].flag, "origin", observed->v[i].origin));
	static const char *const own[] = { "-g", "-fPIC", NULL };
	for (int i = 0; own[i]; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "flag", own[i], "origin", "pqprof (always)"));
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "flag", *f, "origin", "pqprof (local binding)"));
	for (const char *const *f = link_scope_ldflags(scope); *f; f++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "flag", *f, "origin", "pqprof (local binding, link)"));
	return a;
}

/* A text of a failed build: any part of it may not have been written. */
static const char *text_or_empty(const struct text_buf *t)
{
	return t->s ? t->s : "";
}

int record_build(const struct build_options *bo, const char *lib, const char *library, const char *profile,
                 const char *label, json_t **record, pq_error *err)
{
	json_t *r = json_pack("{s:s, s:s, s:s}", "schema", "pqprof.build/1", "profile", profile, "label", label);
	*record = r;
	int rc = 0;
	char expected[128] = "", dir_instance[128] = "";
	if (bo) {
		struct build_result br;
		if ((rc = instance_build(bo, &br, err)) < 0) {
			json_object_set_new(r, "status", json_string("failed"));
			json_object_set_new(r, "failure", json_string(err->msg));
			json_object_set_new(r, "source_dir", json_string(bo->src_dir));
			if (br.verdict[0])
				json_object_set_new(r, "verdict", json_string(br.verdict));
			if (br.plan[0])
				json_object_set_new(r, "plan", json_pack("{s:s, s:s, s:s, s:s}", "path", br.plan,
				                                         br.plan[0] == 'o' ? "how" : "why", text_or_empty(&br.plan_how),
				                                         "outside", text_or_empty(&br.plan_outside), "attempts",
				                                         text_or_empty(&br.plan_attempts)));
			build_result_free(&br);
			return rc;
		}
		json_object_set_new(r, "notes", json_string(br.notes.s));
		enum link_scope scope = bo->plain_pic ? LINK_SCOPE_PLAIN_PIC : LINK_SCOPE_LOCAL;
		json_object_set_new(r, "flags", flags_json(&br.flags, &br.observed_flags, scope));
		json_t *plan = json_pack("{s:s, s:s}", "path", br.plan, br.plan[0] == 'o' ? "how" : "why", br.plan_how.s);
		if (br.plan_outside.s[0])
			json_object_set_new(plan, "outside", json_string(br.plan_outside.s));
		if (br.plan_attempts.s[0])
			json_object_set_new(plan, "attempts", json_string(br.plan_attempts.s));
		if (br.program[0])
			json_object_set_new(plan, "program", json_string(br.program));
		if (br.compile_commands[0])
			json_object_set_new(plan, "compile_commands", json_string(br.compile_commands));
		json_object_set_new(r, "plan", plan);
		if (br.libs.n)
			json_object_set_new(r, "libraries", json_string(br.libs.s));
		json_object_set_new(r, "linkage", json_pack("{s:s, s:s, s:s}", "form", link_scope_name(scope), "flags",
		                                            link_scope_flags(scope), "summary", link_scope_summary(scope)));
		if (br.instances.s[0])
			json_object_set_new(r, "tree_instances", json_string(br.instances.s));
		snprintf(expected, sizeof expected, "%s", br.instance);
		snprintf(dir_instance, sizeof dir_instance, "%s", br.dir_instance);
		build_result_free(&br);
	}
	json_t *desc = NULL;
	if ((rc = instance_describe(lib, &desc, err)) < 0) {
		json_object_set_new(r, "status", json_string("failed"));
		json_object_set_new(r, "failure", json_string(err->msg));
	} else if (bo && (rc = instance_name_check(bo->src_dir, json_string_value(json_object_get(desc, "name")), expected,
	                                           dir_instance, err)) < 0) {
		/* The instance is the one the library reports; one the directory contradicts is not measured. */
		json_object_set_new(r, "instance", desc);
		json_object_set_new(r, "status", json_string("failed"));
		json_object_set_new(r, "failure", json_string(err->msg));
	} else {
		json_object_set_new(r, "instance", desc);
		json_object_set_new(r, "status", json_string("complete"));
	}
	json_object_set_new(r, "library", json_string(library));
	return rc;
}
