/* build_plan_stage: the plan stage of instance_build; see build_stage.h. */
#include "config.h"
#include "instance/build_stage.h"
#include "core/fixed_str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The instance to build from an observed plan: asked for (--instance, by
 * its name or label), named by the descriptor or the directory, or the
 * only one.  *pi stays NULL when the plan is not observed (the reader
 * decides then); res->plan* say which path was taken and why.
 */
int stage_plan(struct build_ctx *b, pq_error *err)
{
	const struct build_options *opt = b->opt;
	struct build_result *res = b->res;
	const struct build_plan **plan = &b->plan;
	const struct plan_instance **pi = &b->pi;
	const struct tree_scan *ts = &res->ts;
	*pi = NULL;
	snprintf(res->plan, sizeof res->plan, "not observed");
	if (opt->no_observe || opt->no_tree_flags || !observe_enabled()) {
		text_printf(&res->plan_how, "the tree's own build was not run (%s)",
		         opt->no_observe ? "--no-observe" : opt->no_tree_flags ? "--no-tree-flags" : "PQPROF_OBSERVE=off");
		return 0;
	}
	struct observe_options oo = { .api = ts->api, .header = ts->header, .cc = b->cc, .build_cmds = opt->build_cmds,
		                          .nbuild_cmds = opt->nbuild_cmds, .make_vars = opt->make_vars,
		                          .nmake_vars = opt->nmake_vars };
	int r = observe_tree(ts->root, &oo, plan, err);
	if (r < 0)
		return r;
	const struct build_plan *p = *plan;
	text_printf(&res->plan_attempts, "%s", p->attempts);
	text_printf(&res->plan_outside, "%s", p->outside);
	if (!p->observed) {
		text_printf(&res->plan_how, "%s", p->why);
		return 0;
	}
	snprintf(res->plan, sizeof res->plan, "observed");
	text_printf(&res->plan_how, "%s", p->how);
	const char *dir = path_base(ts->root);
	int pick = -1;
	const char *how = "";
	for (int i = 0; i < p->ninst && pick < 0 && opt->instance; i++)
		if (plan_instance_matches(&p->inst[i], opt->instance))
			pick = i, how = "asked for with --instance";
	if (opt->instance && pick < 0) {
		struct text_buf list = { 0 };
		plan_instance_list(p, &list);
		r = list.oom ? pq_fail(err, PQ_ENOMEM, "%s: out of memory listing the tree's instances", ts->root)
		    : pq_fail(err, PQ_EUSAGE, "%s: no instance '%s' in the tree's observed build (%s); it builds: %s", ts->root,
		              opt->instance, p->how, list.s ? list.s : "");
		text_free(&list);
		return r;
	}
	for (int i = 0; i < p->ninst && pick < 0 && opt->instance_hint; i++)
		if (plan_instance_matches(&p->inst[i], opt->instance_hint))
			pick = i, how = "named by the descriptor";
	for (int i = 0; i < p->ninst; i++)
		if (plan_instance_matches(&p->inst[i], dir)) {
			/* checked against the built library whatever was asked for */
			str_copy(res->dir_instance, sizeof res->dir_instance, p->inst[i].name[0] ? p->inst[i].name : dir);
			if (pick < 0)
				pick = i, how = "named by the directory";
		}
	if (pick < 0 && p->ninst == 1)
		pick = 0, how = p->unlinked ? "the only one: nothing linked" : "the only one the tree's build links";
	if (pick < 0) {
		struct text_buf list = { 0 };
		plan_instance_list(p, &list);
		r = list.oom ? pq_fail(err, PQ_ENOMEM, "%s: out of memory listing the tree's instances", ts->root)
		    : pq_fail(err, PQ_EUSAGE, "%s: the tree's build links %d KAT programs (%s); choose one with --instance: %s",
		              ts->root, p->ninst, p->how, list.s ? list.s : "");
		text_free(&list);
		return r;
	}
	*pi = &p->inst[pick];
	if ((*pi)->outside[0]) {
		snprintf(res->verdict, sizeof res->verdict, "sources outside the tree");
		return pq_fail(err, PQ_EBUILD, "%s: the tree's build links %s from sources outside the tree, which pqprof does "
		               "not compile: %s (%s)", ts->root, (*pi)->program[0] ? (*pi)->program : "its instance",
		               (*pi)->outside, p->how);
	}
	if ((*pi)->missing[0]) {
		snprintf(res->verdict, sizeof res->verdict, "sources missing");
		return pq_fail(err, PQ_EBUILD, "%s: the tree's build links %s from sources the submission does not include: "
		               "%s (%s)", ts->root, (*pi)->program[0] ? (*pi)->program : "its instance", (*pi)->missing, p->how);
	}
	str_copy(res->instance, sizeof res->instance, (*pi)->name);
	str_copy(res->program, sizeof res->program, (*pi)->program);
	if (p->ninst > 1)
		plan_instance_list(p, &res->instances);
	for (int i = 0; i < (*pi)->nlibs; i++)
		text_printf(&res->libs, "%s%s", res->libs.n ? " " : "", (*pi)->libs[i]);
	build_note(res, "plan: observed the tree's own build: %s", p->how);
	if (strchr(p->attempts, ';'))
		build_note(res, "plan: builds tried: %s", p->attempts);
	if (p->record_only)
		build_note(res, "plan: the tree's build failed, so its KAT links were recorded without running them "
		           "(make -k, the wrapper recording only); pqprof builds the instance from what they name");
	if ((*pi)->program[0])
		build_note(res, "instance: %s (%s), linked by the build as %s", (*pi)->name[0] ? (*pi)->name : (*pi)->label,
		           how, (*pi)->program);
	else
		build_note(res, "instance: %s (%s), not linked by the build: the units it compiled beside the KAT driver "
		           "%s, each with the flags of its compile", (*pi)->name[0] ? (*pi)->name : (*pi)->label, how,
		           (*pi)->driver);
	if (res->instances.s && res->instances.s[0])
		build_note(res, "instances: the tree's build links %d KAT programs: %s", p->ninst, res->instances.s);
	if (p->outside[0])
		build_note(res, "containment: the tree's build %s", p->outside);
	return 0;
}

int instance_tree_plan(const char *tree, const char *source_root, const struct observe_options *asked,
                       const struct build_plan **plan, pq_error *err)
{
	const char *within = source_root ? source_root : getenv("PQPROF_SOURCE_ROOT");
	struct tree_scan ts;
	int r = tree_scan_dir_within(tree, within && *within ? within : NULL, 0, TREE_API_AUTO, &ts, err);
	if (r < 0)
		return r;
	const char *cc = getenv("PQPROF_CC") ? getenv("PQPROF_CC") : PQPROF_DEFAULT_SCHEME_CC;
	struct observe_options oo = { .api = ts.api, .header = ts.header, .cc = cc };
	if (asked) {
		oo.build_cmds = asked->build_cmds;
		oo.nbuild_cmds = asked->nbuild_cmds;
		oo.make_vars = asked->make_vars;
		oo.nmake_vars = asked->nmake_vars;
	}
	r = observe_tree(ts.root, &oo, plan, err);
	tree_scan_free(&ts);
	return r;
}
