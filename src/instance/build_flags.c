/* build_flags: the flags stage of instance_build; see build_stage.h. */
#include "config.h"
#include "instance/build_stage.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "instance/flag_check.h"
#include "instance/isa_check.h"
#include "instance/link_scope.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append_flag(struct text_buf *t, const char *flag)
{
	text_printf(t, "%s%s", t->n ? " " : "", flag);
}

/* Add the words of `flags` (NULL: none) to fl, each from `origin`. */
static int add_words(struct flag_list *fl, const char *flags, const char *origin, pq_error *err)
{
	char **w = NULL;
	int n = 0;
	int r = split_words(flags, &w, &n, err);
	for (int i = 0; i < n && r == 0; i++)
		if (flag_list_add(fl, w[i], origin) < 0)
			r = pq_fail(err, PQ_ENOMEM, "out of memory");
	free_words(w, n);
	return r;
}

/* Does the user's -D (or the descriptor's defines) set the macro this -D/-U flag sets?  Then it is the user's. */
static int user_defines(const struct build_options *opt, const char *flag)
{
	char mac[128];
	define_macro_name(flag, mac, sizeof mac);
	size_t ml = strlen(mac);
	for (int k = 0; mac[0] && k < opt->ndefines; k++)
		if (strncmp(opt->defines[k], mac, ml) == 0 && (opt->defines[k][ml] == '=' || opt->defines[k][ml] == '\0'))
			return 1;
	return 0;
}

/*
 * The observed flags of each unit (unit_flags[0..nunits)) and of the
 * driver's compile, which the shim gets (unit_flags[nunits]): refused ones
 * stop the build unless trusted, a -D the user also gives is the user's.
 */
static int observed_unit_flags(const struct build_options *opt, const struct plan_instance *pi,
                               struct build_result *res, struct flag_list *unit_flags, pq_error *err)
{
	for (int u = 0; u <= pi->nunits; u++) {
		const struct flag_list *from = u < pi->nunits ? &pi->units[u].flags : &pi->driver_flags;
		for (int i = 0; i < from->n; i++) {
			const struct tree_flag *f = &from->v[i];
			int consumed = 0;
			const char *why = opt->trust_flags ? NULL : flag_refusal(f->flag, NULL, &consumed);
			if (why)
				return pq_fail(err, PQ_EINPUT, "%s: compiler flag '%s' refused: it %s (%s)", res->ts.root, f->flag, why,
				               f->origin);
			if (user_defines(opt, f->flag)) {
				if (u == pi->nunits)
					build_note(res, "flags: %s <- %s: replaced by the -D option", f->flag, f->origin);
				continue;
			}
			if (flag_list_add(&unit_flags[u], f->flag, f->origin) < 0)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
		}
	}
	return 0;
}

/*
 * The flags every unit is compiled with, each with its origin: the
 * profile, the tree's build files, the descriptor or --cflags, -D
 * options, and the switches of the instance chosen from the tree.  Tree
 * flags go through the flag check like a descriptor's; -m flags are
 * checked against this CPU.
 */
static int assemble_flags(const struct build_options *opt, const struct flag_profile *prof, struct build_result *res,
                          const struct plan_instance *pi, struct flag_list *unit_flags, pq_error *err)
{
	struct flag_list *fl = &res->flags;
	char o[300];
	snprintf(o, sizeof o, "profile %s", prof->name);
	int r = add_words(fl, prof->cflags, o, err);
	res->nprofile = fl->n;

	if (r == 0 && pi)
		r = observed_unit_flags(opt, pi, res, unit_flags, err);
	else if (r == 0)
		build_note(res, "flags: the tree's own build was not observed, so none of its flags are known: the sources "
		           "beside its KAT driver are compiled with the profile's flags%s",
		           opt->extra_cflags || opt->ndefines ? " and the ones given" : "");
	if (r == 0 && opt->extra_cflags)
		r = add_words(fl, opt->extra_cflags, opt->flags_origin ? opt->flags_origin : "--cflags", err);
	for (int i = 0; i < opt->ndefines && r == 0; i++) {
		struct text_buf d = { 0 };
		text_printf(&d, "-D%s", opt->defines[i]);
		if (d.oom || flag_list_add(fl, d.s, opt->flags_origin ? "descriptor defines" : "-D option") < 0)
			r = pq_fail(err, PQ_ENOMEM, "out of memory");
		text_free(&d);
	}
	if (r < 0)
		return r;

	/* Instruction sets: flags this CPU cannot run stop the build here, before any compiler runs. */
	struct text_buf what = { 0 };
	const char *src = "/proc/cpuinfo";
	int nlists = 1 + (pi ? pi->nunits + 1 : 0);
	for (int l = 0; l < nlists; l++) {
		const struct flag_list *ul = l == 0 ? fl : &unit_flags[l - 1];
		for (int i = 0; i < ul->n; i++) {
			char missing[256];
			const char *from;
			if (isa_missing(ul->v[i].flag, missing, sizeof missing, &from) > 0 &&
			    !(what.s && strstr(what.s, ul->v[i].flag))) {
				src = from;
				text_printf(&what, "%s%s (from %s) needs %s", what.n ? "; " : "", ul->v[i].flag, ul->v[i].origin,
				            missing);
			}
		}
	}
	if (what.oom)
		r = pq_fail(err, PQ_ENOMEM, "%s: out of memory listing the instruction sets the flags need", res->ts.root);
	else if (what.s) {
		char cpu[256];
		isa_cpu_name(cpu, sizeof cpu);
		snprintf(res->verdict, sizeof res->verdict, "instruction set not available");
		r = pq_fail(err, PQ_EBUILD, "instruction set not available: %s; this CPU%s%.200s%s lacks that (according to %s); "
		            "nothing was built or run", what.s, cpu[0] ? " (" : "", cpu, cpu[0] ? ")" : "", src);
	}
	text_free(&what);
	return r;
}

int stage_flags(struct build_ctx *b, pq_error *err)
{
	const struct build_options *opt = b->opt;
	struct build_result *res = b->res;
	const struct tree_scan *ts = &res->ts;
	const struct plan_instance *pi = b->pi;
	if (pi && !(b->unit_flags = calloc((size_t)pi->nunits + 1, sizeof *b->unit_flags)))
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	struct flag_list *unit_flags = b->unit_flags;
	int r = assemble_flags(opt, b->prof, res, pi, unit_flags, err);
	if (r < 0)
		return r;

	/* The flags string recorded in the descriptor: exactly what was passed (observed: what the shim got). */
	for (int i = 0; i < res->flags.n; i++) {
		if (pi && i == res->nprofile)
			for (int k = 0; k < unit_flags[pi->nunits].n; k++)
				append_flag(&res->cflags, unit_flags[pi->nunits].v[k].flag);
		append_flag(&res->cflags, res->flags.v[i].flag);
	}
	if (pi && res->nprofile == res->flags.n)
		for (int k = 0; k < unit_flags[pi->nunits].n; k++)
			append_flag(&res->cflags, unit_flags[pi->nunits].v[k].flag);
	/* Every observed flag once, with the first compile that had it, for the notes and the record. */
	for (int u = 0; pi && u <= pi->nunits; u++)
		for (int k = 0; k < unit_flags[u].n; k++) {
			int seen = 0;
			for (int j = 0; j < res->observed_flags.n && !seen; j++)
				seen = strcmp(res->observed_flags.v[j].flag, unit_flags[u].v[k].flag) == 0;
			if (!seen && flag_list_add(&res->observed_flags, unit_flags[u].v[k].flag, unit_flags[u].v[k].origin) < 0)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
		}
	append_flag(&res->cflags, "-g -fPIC");
	enum link_scope scope = build_link_scope(opt);
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		append_flag(&res->cflags, *f);
	res->downgraded = 1;

	build_note(res, "api: %s %s (header %s)", tree_api_name(ts->api),
	           ts->kind == TREE_KIND_SIG ? "signature" : "KEM", ts->header);
	if (ts->nist_in_ngcc)
		build_note(res, "api: tree also ships api.h; the NGCC API wins");
	for (int i = 0; i < res->flags.n; i++)
		build_note(res, "flags: %s <- %s", res->flags.v[i].flag, res->flags.v[i].origin);
	for (int i = 0; i < res->observed_flags.n; i++)
		build_note(res, "flags: %s <- %s", res->observed_flags.v[i].flag, res->observed_flags.v[i].origin);
	build_note(res, "flags: -g -fPIC <- pqprof (symbols and debug info are always kept)");
	build_note(res, "linkage: %s: %s <- pqprof", link_scope_name(scope), link_scope_summary(scope));
	build_note(res, "flags: implicit declarations, incompatible pointer types, int conversions and implicit int downgraded to warnings <- pqprof");
	if (opt->flags_origin && opt->extra_cflags && *opt->extra_cflags)
		build_note(res, "flags: %s <- %s (%s)", opt->extra_cflags, opt->flags_origin,
		           opt->trust_flags ? "trusted with --trust-flags" : "checked: no flag that runs programs or loads code");
	if (pi && !opt->trust_flags)
		build_note(res, "flags: the observed build's flags were checked: no flag that runs programs or loads code");
	return build_texts_check(res, err);
}
