/* build_flags: the flags stage of instance_build; see build_stage.h. */
#include "config.h"
#include "instance/build_stage.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "instance/flag_check.h"
#include "instance/instance_discover.h"
#include "instance/isa_check.h"
#include "instance/link_scope.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append_flag(char *buf, size_t len, const char *flag)
{
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? " " : "", flag);
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

static int want_hint_used(const struct build_options *opt, const char *name)
{
	return opt->instance_hint && strcmp(opt->instance_hint, name) == 0;
}

/* Does the list already hold a -D/-U of this macro from an origin starting with `from`? */
static int sets_macro(const struct flag_list *fl, const char *mac, const char *from)
{
	for (int i = 0; i < fl->n; i++) {
		char m2[128];
		define_macro_name(fl->v[i].flag, m2, sizeof m2);
		if (m2[0] && strcmp(m2, mac) == 0 && strncmp(fl->v[i].origin, from, strlen(from)) == 0)
			return 1;
	}
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
	char **w = NULL;
	int n = 0, r = 0;
	char o[PATH_MAX + 300];
	split_words(prof->cflags, &w, &n);
	snprintf(o, sizeof o, "profile %s", prof->name);
	for (int i = 0; i < n && r == 0; i++)
		r = flag_list_add(fl, w[i], o);
	free_words(w, n);
	res->nprofile = fl->n;

	struct instance_set set = { .default_variant = -1 };
	int chosen = -1;
	if (pi) {
		r = observed_unit_flags(opt, pi, res, unit_flags, err);
	} else if (!opt->no_tree_flags) {
		r = instance_discover(res->ts.root, res->ts.header, &set, err);
		if (r < 0)
			return r;
		const char *want = opt->instance;
		if (!want && opt->instance_hint)
			for (int i = 0; i < set.tf.nvariants; i++)
				if (strcmp(instance_variant_name(&set.tf.variants[i]), opt->instance_hint) == 0)
					want = opt->instance_hint;
		r = instance_select(&set, opt->src_dir, want, opt->defines, opt->ndefines, &chosen, res->dir_instance,
		                    sizeof res->dir_instance, err);
		if (r < 0) {
			instance_set_free(&set);
			return r;
		}
		if (set.tf.nvariants > 1)
			instance_choices(&set, res->instances, sizeof res->instances);
		/* Tree flags: refused ones stop the build unless trusted; a -D the user also gives is the user's. */
		for (int i = 0; i < set.tf.flags.n && r == 0; i++) {
			const struct tree_flag *f = &set.tf.flags.v[i];
			int consumed = 0;
			const char *why = opt->trust_flags ? NULL : flag_refusal(f->flag, NULL, &consumed);
			if (why) {
				r = pq_fail(err, PQ_EINPUT, "%s/%s: compiler flag '%s' refused: it %s", res->ts.root, f->origin,
				            f->flag, why);
				break;
			}
			if (user_defines(opt, f->flag)) {
				build_note(res, "flags: %s <- %s: replaced by the -D option", f->flag, f->origin);
				continue;
			}
			snprintf(o, sizeof o, "tree %s", f->origin);
			r = flag_list_add(fl, f->flag, o);
		}
		for (int i = 0; i < set.tf.info.n; i++) {
			const struct tree_flag *f = &set.tf.info.v[i];
			build_note(res, "flags: %s <- %s%s", f->flag, f->origin,
			           strncmp(f->flag, "-O", 2) == 0 ? ": information only (the flag profile decides optimisation)"
			           : strchr(f->origin, '(') ? ""
			           : ": information only (not passed on: it changes what is measured or the ABI)");
		}
	}
	if (r == 0 && opt->extra_cflags) {
		split_words(opt->extra_cflags, &w, &n);
		snprintf(o, sizeof o, "%s", opt->flags_origin ? opt->flags_origin : "--cflags");
		for (int i = 0; i < n && r == 0; i++)
			r = flag_list_add(fl, w[i], o);
		free_words(w, n);
	}
	for (int i = 0; i < opt->ndefines && r == 0; i++) {
		char d[1100];
		snprintf(d, sizeof d, "-D%s", opt->defines[i]);
		r = flag_list_add(fl, d, opt->flags_origin ? "descriptor defines" : "-D option");
	}
	if (r == 0 && chosen >= 0) {
		const struct tree_variant *v = &set.tf.variants[chosen];
		/* Only a name the switches spell out can be checked against the built library. */
		str_copy(res->instance, sizeof res->instance, v->name);
		snprintf(o, sizeof o, "tree %s (instance %s)", v->origin, instance_variant_name(v));
		for (int k = 0; k < v->defines.n && r == 0; k++) {
			char mac[128];
			define_macro_name(v->defines.v[k].flag, mac, sizeof mac);
			if (!sets_macro(fl, mac, "tree "))
				r = flag_list_add(fl, v->defines.v[k].flag, o);
		}
		const char *how = opt->instance ? "asked for with --instance"
		                  : res->dir_instance[0] ? "named by the directory"
		                  : want_hint_used(opt, instance_variant_name(v)) ? "named by the descriptor"
		                  : "the only one the tree builds";
		build_note(res, "instance: %s (%s), selected by -D switches from %s", instance_variant_name(v), how, v->origin);
	}
	if (r == 0 && set.tf.files[0])
		build_note(res, "tree build files read (not run): %s", set.tf.files);
	if (r == 0 && set.default_name[0] && set.tf.nvariants > 1)
		build_note(res, "instances: %s; without switches the header (%s) builds %s", res->instances,
		           set.default_origin, set.default_name);
	instance_set_free(&set);
	if (r < 0)
		return err->code ? -err->code : -PQ_ENOMEM;

	/* Instruction sets: flags this CPU cannot run stop the build here, before any compiler runs. */
	char what[900] = "";
	const char *src = "/proc/cpuinfo";
	int nlists = 1 + (pi ? pi->nunits + 1 : 0);
	for (int l = 0; l < nlists; l++) {
		const struct flag_list *ul = l == 0 ? fl : &unit_flags[l - 1];
		for (int i = 0; i < ul->n; i++) {
			char missing[256];
			const char *from;
			if (isa_missing(ul->v[i].flag, missing, sizeof missing, &from) > 0 && !strstr(what, ul->v[i].flag)) {
				src = from;
				size_t used = strlen(what);
				snprintf(what + used, sizeof what - used, "%s%s (from %s) needs %s", used ? "; " : "", ul->v[i].flag,
				         ul->v[i].origin, missing);
			}
		}
	}
	if (what[0]) {
		char cpu[256];
		isa_cpu_name(cpu, sizeof cpu);
		snprintf(res->verdict, sizeof res->verdict, "instruction set not available");
		return pq_fail(err, PQ_EBUILD, "instruction set not available: %s; this CPU%s%.200s%s lacks that (according to %s); "
		               "nothing was built or run", what, cpu[0] ? " (" : "", cpu, cpu[0] ? ")" : "", src);
	}
	return 0;
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
				append_flag(res->cflags, sizeof res->cflags, unit_flags[pi->nunits].v[k].flag);
		append_flag(res->cflags, sizeof res->cflags, res->flags.v[i].flag);
	}
	if (pi && res->nprofile == res->flags.n)
		for (int k = 0; k < unit_flags[pi->nunits].n; k++)
			append_flag(res->cflags, sizeof res->cflags, unit_flags[pi->nunits].v[k].flag);
	/* Every observed flag once, with the first compile that had it, for the notes and the record. */
	for (int u = 0; pi && u <= pi->nunits; u++)
		for (int k = 0; k < unit_flags[u].n; k++) {
			int seen = 0;
			for (int j = 0; j < res->observed_flags.n && !seen; j++)
				seen = strcmp(res->observed_flags.v[j].flag, unit_flags[u].v[k].flag) == 0;
			if (!seen)
				flag_list_add(&res->observed_flags, unit_flags[u].v[k].flag, unit_flags[u].v[k].origin);
		}
	append_flag(res->cflags, sizeof res->cflags, "-g -fPIC");
	enum link_scope scope = build_link_scope(opt);
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		append_flag(res->cflags, sizeof res->cflags, *f);
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
	if (!opt->no_tree_flags && !opt->trust_flags)
		build_note(res, "flags: the tree's build files' flags were checked: no flag that runs programs or loads code");
	return 0;
}
