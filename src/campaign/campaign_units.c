/*
 * campaign_units: a target (scheme descriptor, submission package, source
 * tree, built library) expanded into units, one instance built with one
 * flag profile each, labelled and sharded.  A tree's instances come from
 * its one build plan (instance/observe.h), when its build was observed;
 * otherwise the tree is one unit named after its directory.  It runs and
 * writes nothing.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "campaign/package_desc.h"
#include "core/fixed_str.h"
#include "core/safe_name.h"
#include "instance/builder.h"
#include "instance/observe.h"
#include "instance/package_scan.h"
#include "supervise/describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static void base_no_ext(const char *path, char *out, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", path);
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	const char *b = strrchr(tmp, '/');
	snprintf(out, len, "%s", b ? b + 1 : tmp);
	char *dot = strstr(out, ".so");
	if (dot && dot[3] == '\0')
		*dot = '\0';
}

enum target_kind { TARGET_DESC, TARGET_TREE, TARGET_LIB, TARGET_PACKAGE };

static int classify_target(const char *t, enum target_kind *k, pq_error *err)
{
	char p[PATH_MAX];
	if (is_dir(t)) {
		int r = path_fmt(p, sizeof p, err, "%s/scheme.json", t);
		*k = r == 0 && is_file(p) ? TARGET_DESC : package_is_package(t) ? TARGET_PACKAGE : TARGET_TREE;
		return r;
	}
	if (!is_file(t))
		return pq_fail_errno(err, PQ_EINPUT, "%s", t);
	size_t n = strlen(t);
	*k = n > 5 && strcmp(t + n - 5, ".json") == 0 ? TARGET_DESC : TARGET_LIB;
	return 0;
}

int campaign_default_dir(const char *target, const struct campaign_opts *o, char *buf, size_t len, pq_error *err)
{
	enum target_kind k;
	int r = classify_target(target, &k, err);
	if (r < 0)
		return r;
	char name[256], sys[128];
	if (k == TARGET_DESC) {
		struct scheme_desc d;
		if ((r = scheme_desc_read(target, &d, err)) < 0)
			return r;
		snprintf(name, sizeof name, "%s", d.name);
		scheme_desc_free(&d);
	} else {
		base_no_ext(target, name, sizeof name);
	}
	safe_name(name, sizeof name, name);
	if (o->system)
		snprintf(sys, sizeof sys, "%s", o->system);
	else if (gethostname(sys, sizeof sys) != 0)
		snprintf(sys, sizeof sys, "local");
	sys[sizeof sys - 1] = '\0';
	safe_name(sys, sizeof sys, sys);
	snprintf(buf, len, "reports/%s/%s", sys, name);
	return 0;
}

static struct unit *add_unit(struct campaign *c, pq_error *err)
{
	if (c->nunits >= MAX_UNITS) {
		pq_fail(err, PQ_EINPUT, "more than %d instances x profiles", MAX_UNITS);
		return NULL;
	}
	struct unit *u = &c->units[c->nunits++];
	memset(u, 0, sizeof *u);
	return u;
}

/* A package's descriptor, saying on the progress stream what the scan found that needs a look. */
static int package_desc(struct campaign *c, const char *target, const char *within, pq_error *err)
{
	struct pkg_scan *ps = calloc(1, sizeof *ps);
	if (!ps)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int r = package_scan(target, within, ps, err);
	FILE *f = c->o->progress;
	if (r == 0 && f) {
		fprintf(f, "package %s: %s layout, %d instance%s (`pqprof scan %s` says why)\n", ps->root, ps->layout,
		        ps->ninst, ps->ninst == 1 ? "" : "s", target);
		for (int i = 0; i < ps->ninst; i++) {
			const struct pkg_instance *in = &ps->inst[i];
			if (in->kat != PKG_KAT_MATCHED)
				fprintf(f, "package: %s (%s): KAT file %s\n", in->name, in->implementation, in->kat_why);
			if (in->warning[0])
				fprintf(f, "package: %s (%s): %s\n", in->name, in->implementation, in->warning);
		}
	}
	if (r == 0)
		r = package_desc_from_scan(ps, &c->desc, err);
	free(ps);
	return r;
}

/*
 * The scheme's name, title and category: a descriptor's (a package becomes
 * a descriptor in memory, and runs as one), else the target's file name.
 */
static int read_scheme(struct campaign *c, const char *target, enum target_kind k, pq_error *err)
{
	if (k == TARGET_DESC || k == TARGET_PACKAGE) {
		const char *env_root = getenv("PQPROF_SOURCE_ROOT");
		const char *within = c->o->source_root ? c->o->source_root : env_root && *env_root ? env_root : NULL;
		int r = k == TARGET_DESC ? scheme_desc_read(target, &c->desc, err) : package_desc(c, target, within, err);
		if (r < 0)
			return r;
		c->have_desc = 1;
		snprintf(c->scheme, sizeof c->scheme, "%s", c->desc.name);
		snprintf(c->title, sizeof c->title, "%s", c->desc.title);
		snprintf(c->category, sizeof c->category, "%s", c->desc.category);
	} else {
		base_no_ext(target, c->scheme, sizeof c->scheme);
		snprintf(c->title, sizeof c->title, "%s", c->scheme);
		snprintf(c->category, sizeof c->category, "digital signature");
	}
	return 0;
}

/* A built library: one unit, named by what the library reports, else by its file. */
static int library_unit(struct campaign *c, const char *target, pq_error *err)
{
	struct unit *u = add_unit(c, err);
	if (!u)
		return -PQ_EINPUT;
	if (!realpath(target, u->lib))
		return pq_fail_errno(err, PQ_EINPUT, "%s", target);
	/* The library's own instance name (a KAT manifest entry is labelled with it). */
	json_t *d = NULL;
	pq_error derr = { 0 };
	const char *own = instance_describe(u->lib, &d, &derr) == 0 ? json_string_value(json_object_get(d, "name"))
	                                                           : NULL;
	if (own && *own)
		str_copy(u->instance, sizeof u->instance, own);
	else
		base_no_ext(target, u->instance, sizeof u->instance);
	json_decref(d);
	snprintf(u->profile, sizeof u->profile, "prebuilt");
	u->prebuilt = 1;
	return 0;
}

/*
 * Which way of knowing a tree's instances wins: its one build plan
 * (instance/builder.h) when the build was observed and links at least one
 * KAT program; NULL otherwise (observation off or refused, nothing
 * observed), and the tree is then one unit named after its directory.
 */
static const struct build_plan *tree_build_plan(const struct campaign *c, const char *target)
{
	pq_error derr = { 0 };
	const struct build_plan *bp = NULL;
	struct observe_options asked = { .build_cmds = c->o->build_cmds, .nbuild_cmds = c->o->nbuild_cmds,
		                         .make_vars = c->o->make_vars, .nmake_vars = c->o->nmake_vars };
	if (c->o->no_observe || !observe_enabled() || instance_tree_plan(target, c->o->source_root, &asked, &bp, &derr) < 0 ||
	    !bp->observed || bp->ninst < 1)
		return NULL;
	return bp;
}

/* The plan's instance the tree's directory names, or -1 when it names none. */
static int tree_dir_pick(const struct build_plan *bp, const char *target)
{
	const char *dir = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	for (int v = 0; bp && v < bp->ninst; v++)
		if (plan_instance_matches(&bp->inst[v], dir))
			return v;
	return -1;
}

/* The name of the plan's instance v (bp NULL: the tree's directory). */
static void tree_instance_name(const struct build_plan *bp, int v, const char *target, struct unit *u)
{
	if (bp) {
		plan_instance_unique_name(bp, v, u->instance, sizeof u->instance);
		str_copy(u->select, sizeof u->select, u->instance);
		/* No name in its headers: the tree's name and the label ("bike-kem-3" for LEVEL=3). */
		if (!bp->inst[v].name[0] && bp->inst[v].label[0] && bp->ninst > 1) {
			char base[256], name[sizeof base + sizeof bp->inst[v].label + 1];
			base_no_ext(target, base, sizeof base);
			snprintf(name, sizeof name, "%s-%s", base, bp->inst[v].label);
			str_copy(u->instance, sizeof u->instance, name);
		}
	}
	if (!u->instance[0])
		base_no_ext(target, u->instance, sizeof u->instance);
}

int campaign_tree_instances(const struct campaign *c, const char *tree, char names[][128], int max)
{
	const struct build_plan *bp = tree_build_plan(c, tree);
	int n = 0;
	for (int v = 0; bp && v < bp->ninst && n < max; v++) {
		struct unit u;
		memset(&u, 0, sizeof u);
		tree_instance_name(bp, v, tree, &u);
		snprintf(names[n++], 128, "%s", u.instance);
	}
	return n;
}

/*
 * A source tree: one unit per KAT program its build plan links (the one
 * its directory names, when it names one) and profile, each named by what
 * its library reports.
 */
static int tree_units(struct campaign *c, const char *target, pq_error *err)
{
	const struct build_plan *bp = tree_build_plan(c, target);
	int nv = bp ? bp->ninst : 1, dir_pick = tree_dir_pick(bp, target);
	int first = dir_pick >= 0 ? dir_pick : 0, last = dir_pick >= 0 ? dir_pick + 1 : nv;
	for (int v = first; v < last; v++) {
		for (int p = 0; p < c->nprofs; p++) {
			struct unit *u = add_unit(c, err);
			if (!u)
				return -PQ_EINPUT;
			tree_instance_name(bp, v, target, u);
			str_copy(u->profile, sizeof u->profile, c->profs[p].name);
			u->prof = &c->profs[p];
			if (!realpath(target, u->tree))
				return pq_fail_errno(err, PQ_EINPUT, "%s", target);
			snprintf(u->api, sizeof u->api, "auto");
		}
	}
	return 0;
}

/* A descriptor: one unit per instance (slow ones left out with --quick) and profile. */
static int descriptor_units(struct campaign *c, pq_error *err)
{
	for (int i = 0; i < c->desc.ninstances; i++) {
		const struct desc_instance *in = &c->desc.instances[i];
		if (c->o->quick && in->slow)
			continue;
		for (int p = 0; p < c->nprofs; p++) {
			struct unit *u = add_unit(c, err);
			if (!u)
				return -PQ_EINPUT;
			unit_from_instance(u, in, &c->profs[p]);
			str_copy(u->implementation, sizeof u->implementation, in->implementation);
		}
	}
	return 0;
}

void unit_from_instance(struct unit *u, const struct desc_instance *in, struct prof *p)
{
	str_copy(u->instance, sizeof u->instance, in->name);
	str_copy(u->profile, sizeof u->profile, p->name);
	u->prof = p;
	snprintf(u->tree, sizeof u->tree, "%s", in->tree);
	snprintf(u->api, sizeof u->api, "%s", in->api);
	u->defines = (const char *const *)in->defines;
	u->ndefines = in->ndefines;
	snprintf(u->cflags, sizeof u->cflags, "%s", in->cflags);
	snprintf(u->vectors, sizeof u->vectors, "%s", in->vectors);
	snprintf(u->manifest, sizeof u->manifest, "%s", in->manifest);
	if (in->security_category) {
		u->category = in->security_category;
		snprintf(u->category_from, sizeof u->category_from, "descriptor");
	}
}

/*
 * Every unit's file label, "<instance>__[<implementation>__]<profile>"
 * made safe, and --manifest; two units with one label would share every
 * file, so that is an error.
 */
static int label_units(struct campaign *c, const char *target, pq_error *err)
{
	for (int i = 0; i < c->nunits; i++) {
		struct unit *u = &c->units[i];
		if (c->o->manifest)
			snprintf(u->manifest, sizeof u->manifest, "%s", c->o->manifest);
		char full[sizeof u->instance + sizeof u->implementation + sizeof u->profile + 4];
		snprintf(full, sizeof full, "%s__%s%s%s", u->instance, u->implementation,
		         u->implementation[0] ? "__" : "", u->profile);
		safe_name(u->label, sizeof u->label, full);
		for (int j = 0; j < i; j++)
			if (strcmp(c->units[j].label, u->label) == 0)
				return pq_fail(err, PQ_EINPUT,
				               "%s: instances '%s' and '%s' (profile %s) both get the file label '%s'; "
				               "rename one of them", target, c->units[j].instance, u->instance, u->profile,
				               u->label);
	}
	return 0;
}

/*
 * --shard K/N: the units at positions K-1, K-1+N, ... of the unit list.
 * Every shard of one command expands the same list in the same order
 * (see struct campaign), so the shards are disjoint and cover it.
 */
static void keep_shard(struct campaign *c)
{
	if (c->o->shard_n <= 0)
		return;
	int kept = 0;
	for (int i = 0; i < c->nunits; i++)
		if (i % c->o->shard_n == c->o->shard_k - 1)
			c->units[kept++] = c->units[i];
	c->nunits = kept;
}

int campaign_expand(struct campaign *c, const char *target, pq_error *err)
{
	enum target_kind k;
	int r = classify_target(target, &k, err);
	if (r < 0)
		return r;
	c->units = calloc(MAX_UNITS, sizeof *c->units);
	if (!c->units)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	if ((r = read_scheme(c, target, k, err)) < 0)
		return r;
	if (k == TARGET_LIB && (c->o->profiles || c->o->nprofile_defs || c->o->aa))
		return pq_fail(err, PQ_EUSAGE, "%s: a built library is measured as it was built: --profiles, --profile and "
		               "--aa need a scheme descriptor or a submission tree", target);
	if ((r = select_profiles(c, err)) < 0)
		return r;
	r = k == TARGET_LIB ? library_unit(c, target, err) : k == TARGET_TREE ? tree_units(c, target, err)
	                                                                      : descriptor_units(c, err);
	if (r == 0)
		r = label_units(c, target, err);
	if (r < 0)
		return r;
	keep_shard(c);
	if (c->nunits == 0)
		return pq_fail(err, PQ_EINPUT, "%s: no instances to run%s", target,
		               c->o->quick ? " (all are marked slow; drop --quick)" : "");
	return campaign_add_baselines(c, err);
}
