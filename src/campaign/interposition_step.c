/*
 * interposition_step: the campaign's side of the interposition check.  It
 * owns whether the check runs, the build of each unit in the other library
 * form (instance/link_scope.h) and the step that times the two forms
 * against each other (interpose_check.h does the timing) and files the
 * record under interposition/.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "campaign/interpose_check.h"
#include "core/fixed_str.h"
#include "instance/builder.h"
#include "instance/link_scope.h"
#include "record/records.h"

#include <stdlib.h>
#include <string.h>

/* The library of the other form (link_scope.h), for the interposition check. */
static void other_lib(const struct campaign *c, const struct unit *u, char *buf, size_t len)
{
	pq_error e;
	if (path_fmt(buf, len, &e, "%s/lib/%s.%s.so", c->dir, u->label,
	             link_scope_name(c->o->plain_pic ? LINK_SCOPE_LOCAL : LINK_SCOPE_PLAIN_PIC)) < 0)
		buf[0] = '\0';
}

/* The interposition check runs unless turned off (--no-interposition-check, $PQPROF_INTERPOSITION_CHECK=off). */
static int interposition_wanted(const struct campaign *c)
{
	const char *e = getenv("PQPROF_INTERPOSITION_CHECK");
	return !c->o->no_interposition_check && !(e && (strcmp(e, "off") == 0 || strcmp(e, "0") == 0));
}

/* The interposition check is a step of u: it is built from sources and benched. */
int interposition_selected(const struct campaign *c, const struct unit *u)
{
	return !u->prebuilt && !u->added_baseline && c->want[STEP_BENCH] && interposition_wanted(c);
}

/* The other library form of u and its build record are there. */
int other_form_built(const struct campaign *c, const struct unit *u)
{
	char lib[PATH_MAX], rec[PATH_MAX];
	other_lib(c, u, lib, sizeof lib);
	path_of(c, rec, sizeof rec, "interposition", u->label, NULL, ".build.json");
	return is_file(lib) && is_file(rec);
}

/*
 * Build the unit again in the other library form, with the same options;
 * its build record goes to interposition/<label>.build.json.  1 when the
 * library is there.
 */
int build_other_form(struct campaign *c, const struct unit *u)
{
	char lib[PATH_MAX], rec[PATH_MAX];
	other_lib(c, u, lib, sizeof lib);
	path_of(c, rec, sizeof rec, "interposition", u->label, NULL, ".build.json");
	if (other_form_built(c, u))
		return 1;
	int plain = !c->o->plain_pic;
	pq_error err = { 0 };
	json_t *r = NULL;
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "lib/%s.%s.so", u->label, link_scope_name(plain ? LINK_SCOPE_PLAIN_PIC : LINK_SCOPE_LOCAL));
	struct build_options bo;
	char origin[PATH_MAX + 200], ccdb[PATH_MAX];
	unit_build_options(c, u, lib, "interposition", &bo, origin, sizeof origin, ccdb, sizeof ccdb);
	bo.plain_pic = plain;
	int rc = record_build(&bo, lib, rel, u->profile, u->label, &r, &err);
	tag_record(u, r);
	put_record(c, rec, r);
	json_decref(r);
	return rc == 0 && is_file(lib);
}

/*
 * The interposition check of every unit built from sources: its library and
 * the other form, a paired in-process study per operation
 * (interpose_check.h), one record interposition/<label>.json.  A short
 * budget: it looks for factors, not for percent.
 */
void interposition_all(struct campaign *c, json_t *env)
{
	for (int k = 0; k < c->nunits && !c->stopped; k++) {
		struct unit *u = &c->units[k];
		if (!interposition_selected(c, u))
			continue;
		char rec[PATH_MAX], lib[PATH_MAX];
		path_of(c, rec, sizeof rec, "interposition", u->label, NULL, ".json");
		other_lib(c, u, lib, sizeof lib);
		double t = mono_s();
		json_t *desc;
		enum pq_op ops[PQ_OP_COUNT];
		int nops = unit_ops(c, u, &desc, ops);
		/* Operations that timed out already are not run again (the record names them). */
		json_t *skipped = json_object();
		int kept = 0;
		for (int i = 0; i < nops; i++) {
			char why[400];
			if (op_timed_out(c, u, ops[i], why, sizeof why))
				json_object_set_new(skipped, pq_op_name(ops[i]), json_string(why));
			else
				ops[kept++] = ops[i];
		}
		nops = kept;
		int skip = !desc || !is_file(lib) || record_done(rec);
		if (!skip && nops == 0) {
			json_t *r = json_pack("{s:s, s:s, s:O}", "schema", "pqprof.interposition/1", "status", "skipped",
			                      "skipped_ops", skipped);
			tag_record(u, r);
			put_record(c, rec, r);
			json_decref(r);
			skip = 1;
		}
		if (!skip) {
			campaign_progress(c, "interposition", u, NULL);
			struct interpose_check_opts io = {
				.local_lib = c->o->plain_pic ? lib : u->lib, .plain_lib = c->o->plain_pic ? u->lib : lib,
				.ops = ops, .nops = nops, .budget_s = c->o->quick ? INTERPOSE_QUICK_BUDGET_S : INTERPOSE_BUDGET_S,
				.events = c->o->events, .cpu = c->o->cpu,
				.timeout_s = c->o->timeout_s, .command = c->o->command, .instance = desc, .environment = env,
				.measured_plain = c->o->plain_pic,
			};
			json_t *r = NULL;
			pq_error err = { 0 };
			if (interpose_check_run(&io, &r, &err) < 0) {
				step_error(c, u, "interposition", &err);
			} else {
				json_object_set_new(r, "status", json_string("complete"));
				if (json_object_size(skipped))
					json_object_set(r, "skipped_ops", skipped);
				tag_record(u, r);
				put_record(c, rec, r);
				json_decref(r);
			}
		}
		json_decref(skipped);
		json_decref(desc);
		step_done(c, t, skip);
	}
	save_state(c, "incomplete");
}
