/*
 * groups: function groups and their sample shares; see groups.h.
 */
#include "config.h"
#include "profile/groups.h"
#include "core/grow.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
	char *name;
	char **globs;
	size_t nglobs, cap_globs;
};

struct group_set {
	struct group *g;
	size_t n, cap;
};

struct group_set *groups_new(void)
{
	return calloc(1, sizeof(struct group_set));
}

void groups_free(struct group_set *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->n; i++) {
		for (size_t j = 0; j < gs->g[i].nglobs; j++)
			free(gs->g[i].globs[j]);
		free(gs->g[i].globs);
		free(gs->g[i].name);
	}
	free(gs->g);
	free(gs);
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

static struct group *find_or_add(struct group_set *gs, const char *name, pq_error *err)
{
	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].name, name))
			return &gs->g[i];
	if (pq_grow(&gs->g, &gs->cap, gs->n + 1, sizeof *gs->g, 8) < 0) {
		pq_fail(err, PQ_ENOMEM, "groups: out of memory");
		return NULL;
	}
	struct group *g = &gs->g[gs->n];
	memset(g, 0, sizeof *g);
	g->name = strdup(name);
	if (!g->name) {
		pq_fail(err, PQ_ENOMEM, "groups: out of memory");
		return NULL;
	}
	gs->n++;
	return g;
}

int groups_add(struct group_set *gs, const char *name, const char *glob, pq_error *err)
{
	if (!valid_name(name))
		return pq_fail(err, PQ_EUSAGE,
		               "group name '%s': use letters, digits, '_', '-' or '.'", name);
	if (!*glob)
		return pq_fail(err, PQ_EUSAGE, "group '%s': empty function glob", name);
	struct group *g = find_or_add(gs, name, err);
	if (!g)
		return -PQ_ENOMEM;
	for (size_t j = 0; j < g->nglobs; j++)
		if (!strcmp(g->globs[j], glob))
			return 0;
	if (pq_grow(&g->globs, &g->cap_globs, g->nglobs + 1, sizeof *g->globs, 8) < 0)
		return pq_fail(err, PQ_ENOMEM, "groups: out of memory");
	g->globs[g->nglobs] = strdup(glob);
	if (!g->globs[g->nglobs])
		return pq_fail(err, PQ_ENOMEM, "groups: out of memory");
	g->nglobs++;
	return 0;
}

int groups_add_defaults(struct group_set *gs, pq_error *err)
{
	static const char *const defs[][2] = {
		{ "hash", "pseudohash" }, { "hash", "pseudoXOF" }, { "hash", "sm3hash" },
		{ "drng", "get_random_number" }, { "drng", "randombytes" },
		/* the harness's own DRBG behind the shim's randombytes() (NIST API) */
		{ "drng", "nist_rng_randombytes" }, { "drng", "ctr_drbg_generate" },
	};
	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		int r = groups_add(gs, defs[i][0], defs[i][1], err);
		if (r < 0)
			return r;
	}
	return 0;
}

int groups_parse_spec(struct group_set *gs, const char *spec, pq_error *err)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1])
		return pq_fail(err, PQ_EUSAGE, "--group '%s': expected NAME=GLOB[,GLOB...]", spec);
	char name[128];
	size_t nl = (size_t)(eq - spec);
	if (nl >= sizeof name)
		return pq_fail(err, PQ_EUSAGE, "--group '%s': name too long", spec);
	memcpy(name, spec, nl);
	name[nl] = '\0';
	char *globs = strdup(eq + 1);
	if (!globs)
		return pq_fail(err, PQ_ENOMEM, "groups: out of memory");
	int rc = 0, any = 0;
	char *save = NULL;
	for (char *t = strtok_r(globs, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		size_t tl = strlen(t);
		while (tl && isspace((unsigned char)t[tl - 1]))
			t[--tl] = '\0';
		if (!tl)
			continue;
		rc = groups_add(gs, name, t, err);
		any = 1;
	}
	free(globs);
	if (rc == 0 && !any)
		rc = pq_fail(err, PQ_EUSAGE, "--group '%s': no function globs", spec);
	return rc;
}

size_t groups_count(const struct group_set *gs)
{
	return gs->n;
}

const char *groups_name(const struct group_set *gs, size_t i)
{
	return i < gs->n ? gs->g[i].name : NULL;
}

size_t groups_nglobs(const struct group_set *gs, size_t i)
{
	return i < gs->n ? gs->g[i].nglobs : 0;
}

const char *groups_glob(const struct group_set *gs, size_t i, size_t j)
{
	return j < groups_nglobs(gs, i) ? gs->g[i].globs[j] : NULL;
}

static int group_matches(const struct group *g, const char *fn)
{
	for (size_t j = 0; j < g->nglobs; j++)
		if (fnmatch(g->globs[j], fn, 0) == 0)
			return 1;
	return 0;
}

size_t groups_match_stack(const struct group_set *gs, const char *const *funcs, size_t n,
                          unsigned char *hits)
{
	size_t nhit = 0;
	for (size_t i = 0; i < gs->n; i++) {
		hits[i] = 0;
		for (size_t f = 0; f < n; f++) {
			if (funcs[f] && group_matches(&gs->g[i], funcs[f])) {
				hits[i] = 1;
				nhit++;
				break;
			}
		}
	}
	return nhit;
}

int group_tally_init(struct group_tally *t, const struct group_set *gs, pq_error *err)
{
	memset(t, 0, sizeof *t);
	t->ngroups = gs->n;
	size_t n = gs->n ? gs->n : 1;
	t->hits = calloc(n, sizeof *t->hits);
	t->hit_weight = calloc(n, sizeof *t->hit_weight);
	t->scratch = calloc(n, 1);
	if (!t->hits || !t->hit_weight || !t->scratch) {
		group_tally_free(t);
		return pq_fail(err, PQ_ENOMEM, "groups: out of memory");
	}
	return 0;
}

void group_tally_add(struct group_tally *t, const struct group_set *gs,
                     const char *const *funcs, size_t n, double weight)
{
	t->samples++;
	t->weight += weight;
	groups_match_stack(gs, funcs, n, t->scratch);
	for (size_t i = 0; i < t->ngroups && i < gs->n; i++) {
		if (t->scratch[i]) {
			t->hits[i]++;
			t->hit_weight[i] += weight;
		}
	}
}

void groups_wilson95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	if (n == 0) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	const double z = 1.959963984540054;
	double nn = (double)n, p = (double)k / nn, z2 = z * z;
	double denom = 1.0 + z2 / nn;
	double centre = (p + z2 / (2.0 * nn)) / denom;
	double half = z * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / denom;
	*lo = centre - half < 0.0 ? 0.0 : centre - half;
	*hi = centre + half > 1.0 ? 1.0 : centre + half;
	if (k == 0)
		*lo = 0.0;
	if (k == n)
		*hi = 1.0;
}

void group_tally_share(const struct group_tally *t, size_t i, struct group_share *out)
{
	memset(out, 0, sizeof *out);
	out->samples = t->samples;
	if (i >= t->ngroups) {
		out->hi = 1.0;
		return;
	}
	out->hits = t->hits[i];
	out->share = t->samples ? (double)t->hits[i] / (double)t->samples : 0.0;
	out->weight_share = t->weight > 0 ? t->hit_weight[i] / t->weight : 0.0;
	groups_wilson95(out->hits, out->samples, &out->lo, &out->hi);
}

void group_tally_free(struct group_tally *t)
{
	free(t->hits);
	free(t->hit_weight);
	free(t->scratch);
	t->hits = NULL;
	t->hit_weight = NULL;
	t->scratch = NULL;
}
