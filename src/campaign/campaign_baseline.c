/*
 * campaign_baseline: every candidate instance is measured beside the
 * standard scheme of its NIST security category, so that its report can
 * say "1.93x ML-DSA-44" as well as "812 us".  Signatures get ML-DSA
 * (FIPS 204: 44 for categories 1 and 2, 65 for 3, 87 for 4 and 5), KEMs
 * ML-KEM (FIPS 203: 512, 768, 1024 likewise), built from the in-tree
 * schemes (schemes/mldsa, schemes/mlkem, found as `pqprof run mldsa`
 * finds them) with the campaign's first flag profile.
 *
 * A candidate's category comes from its descriptor ("security_category"),
 * else its API header (instance/api_category.h), else --category.  A unit
 * of the in-tree scheme itself, built with the first profile, is its own
 * category's baseline: no unit is added for it.  Added baseline units run
 * the build, kat, bench and sizes steps only; each shard of a sharded
 * campaign adds and labels its own.  It runs and writes nothing.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "core/fixed_str.h"
#include "core/paths.h"
#include "core/safe_name.h"
#include "instance/api_category.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct standard {
	const char *scheme;     /* in-tree scheme name */
	const char *standard;   /* "FIPS 204" */
	const char *inst[6];    /* instance per category 1..5 */
};

static const struct standard standards[2] = {
	{ "mldsa", "FIPS 204", { NULL, "ML-DSA-44", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "ML-DSA-87" } },
	{ "mlkem", "FIPS 203", { NULL, "ML-KEM-512", "ML-KEM-512", "ML-KEM-768", "ML-KEM-1024", "ML-KEM-1024" } },
};

const struct unit *unit_by_label(const struct campaign *c, const char *label)
{
	for (int i = 0; label && label[0] && i < c->nunits; i++)
		if (strcmp(c->units[i].label, label) == 0)
			return &c->units[i];
	return NULL;
}

static int campaign_is_kem(const struct campaign *c)
{
	return strcasestr(c->category, "encapsulation") || strcasestr(c->category, "kem");
}

/* u's category and kind, from the descriptor (already set), its API header, else --category. */
static void unit_category(const struct campaign *c, struct unit *u)
{
	u->kem = campaign_is_kem(c);
	char name[128] = "";
	int kem = 0, v = !u->prebuilt && u->tree[0] ? api_category_of_tree(u->tree, name, sizeof name, &kem) : 0;
	if (!u->prebuilt && u->tree[0] && !c->have_desc)
		u->kem = kem;
	if (u->category)
		return;
	if (v) {
		u->category = v;
		snprintf(u->category_from, sizeof u->category_from, "api.h %s", name);
	} else if (c->o->category) {
		u->category = c->o->category;
		snprintf(u->category_from, sizeof u->category_from, "--category");
	}
}

/* The in-tree scheme of kind k, read once; NULL (with c->base_missing saying why) when it cannot be. */
static const struct scheme_desc *base_scheme(struct campaign *c, int k)
{
	if (c->base_desc[k])
		return c->base_desc[k];
	char path[PATH_MAX];
	pq_error e = { 0 };
	struct scheme_desc *d = calloc(1, sizeof *d);
	if (!d || paths_find_scheme(standards[k].scheme, path, sizeof path, &e) < 0 ||
	    scheme_desc_read(path, d, &e) < 0) {
		if (!c->base_missing[0])
			snprintf(c->base_missing, sizeof c->base_missing, "the in-tree scheme %s: %.400s", standards[k].scheme,
			         d ? e.msg : "out of memory");
		free(d);
		return NULL;
	}
	c->base_desc[k] = d;
	return d;
}

/* The unit already in the campaign that is instance `name` of the in-tree scheme bd, first profile; NULL if none. */
static struct unit *existing_baseline(struct campaign *c, const struct scheme_desc *bd, const char *name, int ncand)
{
	if (!c->have_desc || strcmp(c->desc.path, bd->path) != 0)
		return NULL;
	for (int i = 0; i < ncand; i++) {
		struct unit *u = &c->units[i];
		if (u->prof == &c->profs[0] && !u->implementation[0] && strcmp(u->instance, name) == 0)
			return u;
	}
	return NULL;
}

/* A unit for instance `name` of the in-tree scheme bd, built with the first profile. */
static struct unit *add_baseline_unit(struct campaign *c, const struct scheme_desc *bd, const char *name,
                                      pq_error *err)
{
	const struct desc_instance *in = NULL;
	for (int i = 0; i < bd->ninstances && !in; i++)
		if (strcmp(bd->instances[i].name, name) == 0)
			in = &bd->instances[i];
	if (!in) {
		pq_fail(err, PQ_EINPUT, "%s: no instance %s for the baseline", bd->path, name);
		return NULL;
	}
	if (c->nunits >= MAX_UNITS) {
		pq_fail(err, PQ_EINPUT, "more than %d instances x profiles, baselines included", MAX_UNITS);
		return NULL;
	}
	struct unit *u = &c->units[c->nunits++];
	memset(u, 0, sizeof *u);
	unit_from_instance(u, in, &c->profs[0]);
	u->added_baseline = 1;
	u->base_from = bd;
	/* Each shard benches its own copy beside its own candidates: a label of its own, so merged shards keep both. */
	char full[sizeof u->instance + sizeof u->profile + 64];
	if (c->o->shard_n > 0)
		snprintf(full, sizeof full, "baseline__%s__%s__shard%dof%d", u->instance, u->profile, c->o->shard_k,
		         c->o->shard_n);
	else
		snprintf(full, sizeof full, "baseline__%s__%s", u->instance, u->profile);
	safe_name(u->label, sizeof u->label, full);
	return u;
}

int campaign_add_baselines(struct campaign *c, pq_error *err)
{
	int ncand = c->nunits;
	for (int i = 0; i < ncand; i++)
		unit_category(c, &c->units[i]);
	if (c->o->no_baseline)
		return 0;
	for (int i = 0; i < ncand; i++) {
		struct unit *u = &c->units[i];
		if (!u->category)
			continue;
		int k = u->kem ? 1 : 0;
		const struct scheme_desc *bd = base_scheme(c, k);
		if (!bd)
			continue;
		const char *name = standards[k].inst[u->category];
		struct unit *b = existing_baseline(c, bd, name, ncand);
		if (!b)
			for (int j = ncand; j < c->nunits && !b; j++)
				if (strcmp(c->units[j].instance, name) == 0)
					b = &c->units[j];
		if (!b && !(b = add_baseline_unit(c, bd, name, err)))
			return -PQ_EINPUT;
		b->is_baseline = 1;
		str_copy(b->standard, sizeof b->standard, standards[k].standard);
		if (b == u)
			continue;
		str_copy(u->baseline_label, sizeof u->baseline_label, b->label);
		if (u->category == 4)
			snprintf(u->baseline_note, sizeof u->baseline_note,
			         "category 4 has no %s parameter set: the next stronger, %s", standards[k].standard, name);
	}
	return 0;
}

void campaign_free_baselines(struct campaign *c)
{
	for (int k = 0; k < 2; k++) {
		if (c->base_desc[k])
			scheme_desc_free(c->base_desc[k]);
		free(c->base_desc[k]);
		c->base_desc[k] = NULL;
	}
}
