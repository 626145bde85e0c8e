/*
 * build_step: the build and KAT gate steps of one unit, and what its build
 * record says (built or not, its descriptor, its operations).  A build
 * failure the machine caused (disk full) stops the campaign; one the
 * sources caused is the unit's verdict.  The other library form's build
 * is interposition_step.c's.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "core/fixed_str.h"
#include "instance/builder.h"
#include "instance/observe.h"
#include "record/records.h"
#include "supervise/kat_gate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The unit's descriptor from its build record (NULL when not built). */
static json_t *unit_descriptor(struct campaign *c, const struct unit *u)
{
	char p[PATH_MAX];
	path_of(c, p, sizeof p, "build", u->label, NULL, ".json");
	json_t *b = read_json(p);
	if (!b)
		return NULL;
	json_t *d = json_incref(json_object_get(b, "instance"));
	json_decref(b);
	return d;
}

/* A build failure caused by the machine (disk full...), not by the sources. */
static int build_failed_on_machine(const char *msg)
{
	static const char *const why[] = { "No space left on device", "Disk quota exceeded", "Read-only file system",
	                                   "Input/output error", NULL };
	for (int i = 0; why[i]; i++)
		if (strstr(msg, why[i]))
			return 1;
	return 0;
}

/*
 * How a unit is built, for both library forms: the tree, profile and
 * flags, descriptor flags checked and its trees kept inside its directory
 * (see builder.h), compile_commands.json under <sub>/<label>/.
 */
void unit_build_options(const struct campaign *c, const struct unit *u, const char *out_path, const char *sub,
                               struct build_options *bo, char *origin, size_t olen, char *ccdb, size_t clen)
{
	memset(bo, 0, sizeof *bo);
	bo->src_dir = u->tree;
	bo->out_path = out_path;
	bo->profile = u->profile;
	bo->extra_cflags = u->cflags;
	bo->defines = (const char *const *)u->defines;
	bo->ndefines = u->ndefines;
	const char *env_root = getenv("PQPROF_SOURCE_ROOT");
	bo->source_root = c->o->source_root ? c->o->source_root : env_root && *env_root ? env_root
	                  : c->have_desc ? c->desc.dir : NULL;
	snprintf(origin, olen, "%s: cflags of instance %s", c->desc.path, u->instance);
	bo->flags_origin = c->have_desc ? origin : NULL;
	bo->trust_flags = c->o->trust_flags;
	bo->no_observe = c->o->no_observe;
	bo->context_hex = c->o->context_hex;
	bo->build_cmds = c->o->build_cmds;
	bo->nbuild_cmds = c->o->nbuild_cmds;
	bo->make_vars = c->o->make_vars;
	bo->nmake_vars = c->o->nmake_vars;
	bo->tree_inside_root = c->have_desc;
	if (u->base_from) {
		/* An added baseline is the in-tree scheme as shipped: its own descriptor's rules, none of the target's. */
		bo->source_root = u->base_from->dir;
		snprintf(origin, olen, "%s: cflags of instance %s", u->base_from->path, u->instance);
		bo->flags_origin = origin;
		bo->tree_inside_root = 1;
		bo->context_hex = NULL;
		bo->build_cmds = NULL;
		bo->nbuild_cmds = 0;
		bo->make_vars = NULL;
		bo->nmake_vars = 0;
	}
	path_of(c, ccdb, clen, sub, u->label, NULL, "/compile_commands.json");
	bo->compile_commands = ccdb;
	if (u->prof && u->prof->custom) {
		bo->profile_cflags = u->prof->cflags;
		bo->profile_origin = u->prof->origin;
	}
	if (u->prof && u->prof->cc[0])
		bo->cc = u->prof->cc;
	bo->instance = u->select[0] ? u->select : NULL;
	bo->instance_hint = c->have_desc ? u->instance : NULL;
	tree_api_parse(u->api, &bo->api);
}

/* Done: a complete build whose library is there, or sources that do not compile. */
static int build_done(struct campaign *c, const struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *old = read_json(rec);
	const char *ost = json_string_value(json_object_get(old, "status")) ?: "";
	const char *okind = json_string_value(json_object_get(old, "failure_kind")) ?: "";
	int done = old && (strcmp(ost, "complete") == 0 ? is_file(u->lib) : strcmp(okind, "scheme") == 0);
	json_decref(old);
	return done;
}

static int do_build(struct campaign *c, struct unit *u)
{
	if (build_done(c, u))
		return 1;
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	pq_error err = { 0 };
	struct build_options bo;
	char origin[PATH_MAX + 200], ccdb[PATH_MAX];
	unit_build_options(c, u, u->lib, "build", &bo, origin, sizeof origin, ccdb, sizeof ccdb);
	bo.plain_pic = c->o->plain_pic;
	char rel[PATH_MAX];
	snprintf(rel, sizeof rel, "lib/%s.so", u->label);
	json_t *r = NULL;
	int rc = record_build(u->prebuilt ? NULL : &bo, u->lib, u->prebuilt ? u->lib : rel, u->profile, u->label,
	                      &r, &err);
	if (rc < 0 && (err.code == PQ_EIO || build_failed_on_machine(err.msg))) {
		pq_error_prefix(&err, "building %s: ", u->label);
		err.code = PQ_EIO;
		stop_campaign(c, &err);
		json_decref(r);
		return 0;
	}
	if (rc < 0) {
		json_object_set_new(r, "failure_kind",
		                    json_string(err.code == PQ_EBUILD || err.code == PQ_ESCHEME ? "scheme" : "tool"));
		/* Sources or flags that do not compile, refused flags: a verdict on this unit (this profile) only. */
		if ((err.code == PQ_EBUILD || err.code == PQ_EINPUT || err.code == PQ_EUSAGE) &&
		    !json_object_get(r, "verdict"))
			json_object_set_new(r, "verdict", json_string("BUILD"));
	}
	/* The implementation version travels with the instance descriptor into every later record. */
	json_t *inst = json_object_get(r, "instance");
	if (u->implementation[0] && json_is_object(inst))
		json_object_set_new(inst, "implementation", json_string(u->implementation));
	tag_record(u, r);
	put_record(c, rec, r);
	json_decref(r);
	return rc == 0;
}

int built_ok(struct campaign *c, const struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *b = read_json(rec);
	int ok = b && strcmp(json_string_value(json_object_get(b, "status")) ?: "", "complete") == 0;
	json_decref(b);
	return ok && is_file(u->lib);
}

/* The tree's own KAT program, run again in its observed build (kat_gate_opts.run_own_kat). */
struct own_kat {
	const char *tree, *unit_name, *lib_name;
};

static int run_own_kat(void *ctx, double timeout_s, char *dir, size_t len, pq_error *err)
{
	const struct own_kat *k = ctx;
	/* The unit's name picks its program (instances of a tree may all report one name); else the library's. */
	int r = observe_run_kat_program(k->tree, k->unit_name, timeout_s, dir, len, err);
	if (r == -PQ_EINPUT && k->lib_name)
		r = observe_run_kat_program(k->tree, k->lib_name, timeout_s, dir, len, err);
	return r;
}

static void do_kat(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX], log[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	path_of(c, log, sizeof log, "kat", u->label, NULL, ".log");
	struct kat_gate_opts ko = {
		.lib = u->lib, .vectors = u->vectors[0] ? u->vectors : NULL,
		.manifest = u->manifest[0] ? u->manifest : NULL, .search_tree = 1,
		.observed_copy = u->prebuilt || !u->tree[0] ? NULL : observe_copy_of(u->tree),
		.timeout_s = c->o->kat_timeout_s > 0 ? c->o->kat_timeout_s : 900, .log_path = log,
		.instance = desc,
	};
	const char *env_root = getenv("PQPROF_SOURCE_ROOT");
	ko.source_root = c->o->source_root ? c->o->source_root : env_root && *env_root ? env_root
	                 : c->have_desc ? c->desc.dir : NULL;
	struct own_kat own = { .tree = u->tree, .unit_name = u->select[0] ? u->select : u->instance,
	                       .lib_name = json_string_value(json_object_get(desc, "name")) };
	if (ko.observed_copy) {
		ko.run_own_kat = run_own_kat;
		ko.own_kat_ctx = &own;
	}
	/* The package's other parameter sets, built the same way and already built: a MISMATCH
	 * then says whether the file holds their records (kat/kat_forensics.h). */
	const char **sib = calloc((size_t)c->nunits + 1, sizeof *sib);
	for (int i = 0, k = 0; sib && i < c->nunits; i++) {
		const struct unit *v = &c->units[i];
		if (v != u && strcmp(v->instance, u->instance) != 0 && strcmp(v->profile, u->profile) == 0 &&
		    access(v->lib, R_OK) == 0)
			sib[k++] = v->lib;
	}
	ko.siblings = sib;
	struct record_ctx ctx = { .instance = desc, .environment = env };
	struct kat_gate_result res;
	pq_error err = { 0 };
	int kr = record_kat(&ko, &ctx, &res, &err);
	free(sib);
	if (kr < 0) {
		step_error(c, u, "kat", &err);
		return;
	}
	tag_record(u, res.record);
	put_record(c, rec, res.record);
	kat_gate_result_free(&res);
}

/* The unit's operations, from its descriptor; *desc is a new reference or NULL. */
int unit_ops(struct campaign *c, const struct unit *u, json_t **desc, enum pq_op ops[PQ_OP_COUNT])
{
	*desc = built_ok(c, u) ? unit_descriptor(c, u) : NULL;
	int kind = *desc && strcmp(json_string_value(json_object_get(*desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	return pq_ops_for_kind(kind, ops);
}

void unit_build_and_kat(struct campaign *c, struct unit *u, json_t *env)
{
	if (c->stopped)
		return;
	int fresh_build = !is_file(u->lib);
	int build = (c->want[STEP_BUILD] || fresh_build) && !build_done(c, u);
	if (build || (interposition_selected(c, u) && built_ok(c, u) && !other_form_built(c, u)))
		campaign_progress(c, "build", u, NULL);
	double t = mono_s();
	if (c->want[STEP_BUILD] || fresh_build)
		do_build(c, u);
	step_done(c, t, !fresh_build);
	if (c->stopped)
		return;
	int ok = built_ok(c, u);
	/* The other library form, for the interposition check (a failure there leaves the unit measured). */
	if (ok && interposition_selected(c, u) && !c->stopped)
		build_other_form(c, u);
	set_unit_step(c, u, "build", ok ? "done" : "failed");
	save_state(c, "incomplete");
	json_t *desc = ok ? unit_descriptor(c, u) : NULL;
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	t = mono_s();
	int skip = c->stopped || !ok || !c->want[STEP_KAT] || record_done(rec);
	if (!skip) {
		campaign_progress(c, "kat", u, NULL);
		do_kat(c, u, desc, env);
	}
	if (c->want[STEP_KAT])
		step_done(c, t, skip);
	if (!ok)
		set_unit_step(c, u, "kat", "skipped");
	else if (!c->stopped && !skip && !is_file(rec))
		set_unit_step(c, u, "kat", records_state(c, 0, 1, 1));  /* failed without a record */
	else
		set_unit_step(c, u, "kat", record_state(c, rec));
	json_decref(desc);
}
