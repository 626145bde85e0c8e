/*
 * campaign_profiles: the flag profiles a campaign runs.  It owns their
 * definitions (built-in, the descriptor's "profiles" table, --profile,
 * --cc) and the choice (--profiles, else the definitions, else
 * harness-default, then --aa's copy of the baseline).  It builds nothing.
 */
#include "config.h"
#include "core/text_buf.h"
#include "campaign/campaign_int.h"
#include "core/fixed_str.h"
#include "instance/builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every profile name a campaign knows, for "unknown profile" messages. */
static void known_names(const struct prof *defs, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		text_appendf(buf, len, "%s%s", buf[0] ? ", " : "", defs[i].name);
}

static struct prof *find_prof(struct prof *defs, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
}

#define MAX_DEFS (8 + DESC_MAX_PROFILES + 32)

/*
 * The definitions a campaign can choose from: the built-in profiles, the
 * descriptor's "profiles" table, then --profile NAME=FLAGS (which may
 * redefine a descriptor's profile, not a built-in one), with --cc applied.
 */
static int profile_defs(const struct campaign *c, struct prof *defs, int *ndefs, pq_error *err)
{
	int n = 0;
	for (const struct flag_profile *p = flag_profiles(); p->name && n < MAX_DEFS; p++) {
		memset(&defs[n], 0, sizeof defs[n]);
		str_copy(defs[n].name, sizeof defs[n].name, p->name);
		str_copy(defs[n].cflags, sizeof defs[n].cflags, p->cflags);
		snprintf(defs[n++].origin, sizeof defs[0].origin, "%s", p->origin);
	}
	for (int i = 0; c->have_desc && i < c->desc.nprofiles; i++) {
		const struct desc_profile *dp = &c->desc.profile_defs[i];
		struct prof *d = find_prof(defs, n, dp->name);
		if (!d) {
			d = &defs[n++];
			memset(d, 0, sizeof *d);
			str_copy(d->name, sizeof d->name, dp->name);
		}
		if (dp->has_cflags) {
			d->custom = 1;
			str_copy(d->cflags, sizeof d->cflags, dp->cflags);
			snprintf(d->origin, sizeof d->origin, "%s: profiles.%s", c->desc.path, dp->name);
		}
		if (dp->cc[0])
			str_copy(d->cc, sizeof d->cc, dp->cc);
	}
	for (int i = 0; i < c->o->nprofile_defs; i++) {
		const char *def = c->o->profile_defs[i], *eq = strchr(def, '=');
		char name[64], why[96];
		if (!eq || eq == def || (size_t)(eq - def) >= sizeof name)
			return pq_fail(err, PQ_EUSAGE, "--profile takes NAME=FLAGS (e.g. o3=\"-O3 -march=native\"), not '%s'", def);
		snprintf(name, sizeof name, "%.*s", (int)(eq - def), def);
		if (!profile_name_ok(name, why, sizeof why))
			return pq_fail(err, PQ_EUSAGE, "--profile %s: the name %s", name, why);
		if (flag_profile_find(name))
			return pq_fail(err, PQ_EUSAGE, "--profile %s: '%s' is a built-in profile (%s); give yours another name",
			               name, name, flag_profile_find(name)->cflags);
		if (strlen(eq + 1) >= sizeof defs[0].cflags)
			return pq_fail(err, PQ_EUSAGE, "--profile %s: flags longer than %zu characters", name,
			               sizeof defs[0].cflags - 1);
		struct prof *d = find_prof(defs, n, name);
		if (!d) {
			if (n >= MAX_DEFS)
				return pq_fail(err, PQ_EUSAGE, "--profile: more than %d profiles", MAX_DEFS - 8);
			d = &defs[n++];
			memset(d, 0, sizeof *d);
			str_copy(d->name, sizeof d->name, name);
		}
		d->custom = 1;
		snprintf(d->cflags, sizeof d->cflags, "%s", eq + 1);
		snprintf(d->origin, sizeof d->origin, "--profile %s", name);
	}
	/* --cc: per profile first, then the default for every profile that names none. */
	const char *all_cc = NULL;
	for (int i = 0; i < c->o->ncc_defs; i++) {
		const char *def = c->o->cc_defs[i], *eq = strchr(def, '=');
		if (!eq) {
			all_cc = def;
			continue;
		}
		char name[64], known[1024];
		snprintf(name, sizeof name, "%.*s", (int)(eq - def), def);
		struct prof *d = find_prof(defs, n, name);
		if (!d) {
			known_names(defs, n, known, sizeof known);
			return pq_fail(err, PQ_EUSAGE, "--cc %s: unknown flag profile '%s' (valid: %s)", def, name, known);
		}
		str_copy(d->cc, sizeof d->cc, eq + 1);
	}
	for (int i = 0; all_cc && i < n; i++)
		if (!defs[i].cc[0])
			str_copy(defs[i].cc, sizeof defs[i].cc, all_cc);
	*ndefs = n;
	return 0;
}

/*
 * The profiles the campaign runs, into c->profs: --profiles, else the
 * --profile definitions in order, else the descriptor's, else
 * harness-default; --aa appends an independent copy of the first.
 */
int select_profiles(struct campaign *c, pq_error *err)
{
	struct prof *defs = calloc(MAX_DEFS, sizeof *defs);
	if (!defs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int ndefs = 0, r = profile_defs(c, defs, &ndefs, err);
	char names[CAMPAIGN_MAX_PROFILES + 32][64];
	int nn = 0;
	if (r == 0 && c->o->profiles) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", c->o->profiles);
		for (char *tok = strtok(buf, ","); tok && nn < (int)(sizeof names / sizeof names[0]); tok = strtok(NULL, ","))
			str_copy(names[nn++], sizeof names[0], tok);
	} else if (r == 0 && c->o->nprofile_defs) {
		for (int i = 0; i < c->o->nprofile_defs && nn < (int)(sizeof names / sizeof names[0]); i++)
			snprintf(names[nn++], sizeof names[0], "%.*s", (int)(strcspn(c->o->profile_defs[i], "=")),
			         c->o->profile_defs[i]);
	} else if (r == 0 && c->have_desc && c->desc.nprofiles) {
		for (int i = 0; i < c->desc.nprofiles; i++)
			str_copy(names[nn++], sizeof names[0], c->desc.profiles[i]);
	}
	if (r == 0 && nn == 0)
		snprintf(names[nn++], sizeof names[0], "harness-default");
	c->nprofs = 0;
	for (int i = 0; r == 0 && i < nn; i++) {
		struct prof *d = find_prof(defs, ndefs, names[i]);
		char known[1024];
		if (!d) {
			known_names(defs, ndefs, known, sizeof known);
			r = pq_fail(err, PQ_EUSAGE, "--profiles: unknown flag profile '%s' (valid: %s)", names[i], known);
		} else if (find_prof(c->profs, c->nprofs, names[i])) {
			r = pq_fail(err, PQ_EUSAGE, "--profiles: '%s' is listed twice", names[i]);
		} else if (c->nprofs + (c->o->aa ? 1 : 0) >= CAMPAIGN_MAX_PROFILES) {
			r = pq_fail(err, PQ_EUSAGE, "more than %d flag profiles in one campaign", CAMPAIGN_MAX_PROFILES - 1);
		} else {
			c->profs[c->nprofs++] = *d;
		}
	}
	if (r == 0 && c->o->aa) {
		struct prof *a = &c->profs[c->nprofs], *base = &c->profs[0];
		*a = *base;
		a->custom = 1;
		snprintf(a->name, sizeof a->name, "%.60s-aa", base->name);
		snprintf(a->aa_of, sizeof a->aa_of, "%s", base->name);
		snprintf(a->origin, sizeof a->origin, "A/A copy of profile %s", base->name);
		if (find_prof(c->profs, c->nprofs, a->name))
			r = pq_fail(err, PQ_EUSAGE, "--aa: a profile named '%s' is already in the campaign", a->name);
		else
			c->nprofs++;
	}
	free(defs);
	return r;
}
