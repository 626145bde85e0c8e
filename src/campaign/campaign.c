/* campaign: targets -> units -> steps, with resumable state; see campaign.h. */
#include "config.h"
#include "campaign/campaign.h"
#include "campaign/campaign_lock.h"
#include "core/interrupt.h"
#include "core/safe_name.h"
#include "core/atomic_file.h"
#include "core/json_file.h"
#include "core/fixed_str.h"
#include "core/safe_name.h"
#include "instance/builder.h"
#include "instance/instance_discover.h"
#include "instance/observe.h"
#include "measure/env.h"
#include "supervise/bench.h"
#include "supervise/paired.h"
#include "supervise/blame.h"
#include "supervise/describe.h"
#include "supervise/kat_gate.h"
#include "supervise/mem_run.h"
#include "runner/op_ctx.h"
#include "record/records.h"
#include "campaign/steps.h"
#include "campaign/leak_step.h"
#include "campaign/interpose_check.h"
#include "instance/link_scope.h"
#include "campaign/package_desc.h"
#include "instance/package_scan.h"
#include "report/bench_table.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_UNITS 512
/*
 * Most units whose bench trials interleave at once: every trial's per-call
 * values stay in memory until the round ends (about 80 bytes a call), so
 * larger campaigns interleave in rounds of this many units, the flag
 * profiles of one instance always in the same round.
 */
#define MAX_INTERLEAVE 32
/* Room a campaign directory leaves for "/<sub>/<label>__<op><ext>". */
#define DIR_SLACK 400

static const char *const step_names[STEP_COUNT_ALL] = { "build", "kat", "bench", "mem", "sizes", "profile",
	                                                               "leak", "paired" };

/* A flag profile as a campaign runs it. */
struct prof {
	char name[64];
	char cflags[512];           /* custom profiles: their flags */
	int custom;                 /* 0: a built-in profile (builder.h) */
	char cc[256];               /* compiler, "" for the default */
	char origin[4400];          /* where it was defined, for build notes and errors */
	char aa_of[64];             /* the A/A copy of this profile, or "" */
};

struct unit {
	char label[300];
	char instance[128];
	char implementation[64];    /* implementation version, "" when the descriptor names none */
	char profile[64];
	const struct prof *prof;    /* NULL for a prebuilt library */
	char tree[PATH_MAX];
	char api[8];
	const char *const *defines;
	int ndefines;
	char cflags[512];
	char select[128];       /* --instance for a tree serving several by -D switches */
	char lib[PATH_MAX];
	int prebuilt;
	char vectors[PATH_MAX];
	char manifest[PATH_MAX];
};

struct campaign {
	const struct campaign_opts *o;
	char dir[PATH_MAX];
	struct scheme_desc desc;
	int have_desc;
	char scheme[128], title[256], category[128];
	struct unit *units;
	int nunits;
	struct prof profs[CAMPAIGN_MAX_PROFILES];   /* the profiles run, in order; the first is the baseline */
	int nprofs;
	int want[STEP_COUNT_ALL];
	json_t *state;
	int done, total;
	double t0, step_time_sum;
	int steps_timed;
	int paired_said;            /* paired studies summarised on o->summary so far */
	/* A write failed (disk full, I/O error, read-only): stop, and say which file. */
	int stopped;
	pq_error stop_err;
	/* A step failed on bad input (an unreadable vectors file): finish, then exit with it. */
	pq_error input_err;
	int tool_failures;
};

/*
 * Wall time for everything one operation of one unit runs in a step
 * (bench trials, interposition trials, produced-size runs): --op-budget,
 * else 900 s (60 s with --quick).  Only operations of seconds ever reach
 * it: a 21 s keygen gets 5 x 8 calls, as the reference harness ran it, a
 * 2 s one 3 x 10 with --quick.
 */
#define CAMPAIGN_OP_BUDGET_S 900.0
#define CAMPAIGN_QUICK_OP_BUDGET_S 60.0
static double op_budget_of(const struct campaign *c)
{
	return c->o->op_budget_s > 0 ? c->o->op_budget_s : c->o->quick ? CAMPAIGN_QUICK_OP_BUDGET_S : CAMPAIGN_OP_BUDGET_S;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

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

/* Every profile name a campaign knows, for "unknown profile" messages. */
static void known_names(const struct prof *defs, int n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", defs[i].name);
	}
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
static int select_profiles(struct campaign *c, pq_error *err)
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

static int expand(struct campaign *c, const char *target, pq_error *err)
{
	enum target_kind k;
	int r = classify_target(target, &k, err);
	if (r < 0)
		return r;
	c->units = calloc(MAX_UNITS, sizeof *c->units);
	if (!c->units)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	if (k == TARGET_DESC || k == TARGET_PACKAGE) {
		/* A package becomes a descriptor in memory, and runs as one. */
		const char *env_root = getenv("PQPROF_SOURCE_ROOT");
		const char *within = c->o->source_root ? c->o->source_root : env_root && *env_root ? env_root : NULL;
		if ((r = k == TARGET_DESC ? scheme_desc_read(target, &c->desc, err)
		                          : package_desc(c, target, within, err)) < 0)
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
	if (k == TARGET_LIB && (c->o->profiles || c->o->nprofile_defs || c->o->aa))
		return pq_fail(err, PQ_EUSAGE, "%s: a built library is measured as it was built: --profiles, --profile and "
		               "--aa need a scheme descriptor or a submission tree", target);
	if ((r = select_profiles(c, err)) < 0)
		return r;
	int np = c->nprofs;
	if (k == TARGET_LIB) {
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
	} else if (k == TARGET_TREE) {
		/*
		 * A tree serving several instances by -D switches: the one its
		 * directory names, else every one of them.
		 */
		struct instance_set set;
		pq_error derr = { 0 };
		int nv = 0, dir_pick = -1;
		const struct build_plan *bp = NULL;
		if (!c->o->no_observe && observe_enabled() && instance_tree_plan(target, c->o->source_root, &bp, &derr) == 0 && bp->observed &&
		    bp->ninst > 1) {
			/* Observed: one instance per KAT program the tree's build links. */
			memset(&set, 0, sizeof set);
			nv = bp->ninst;
			const char *dir = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
			for (int v = 0; v < nv && dir_pick < 0; v++)
				if (plan_instance_matches(&bp->inst[v], dir))
					dir_pick = v;
		} else if (instance_discover(target, NULL, &set, &derr) == 0) {
			bp = NULL;
			nv = set.tf.nvariants;
			char dir_inst[128];
			int chosen = -1;
			pq_error serr = { 0 };
			if (nv > 1 && instance_select(&set, target, NULL, NULL, 0, &chosen, dir_inst, sizeof dir_inst, &serr) == 0)
				dir_pick = chosen;
		} else {
			memset(&set, 0, sizeof set);
		}
		int first = dir_pick >= 0 ? dir_pick : 0, last = nv > 1 && dir_pick < 0 ? nv : first + 1;
		for (int v = first; v < last; v++) {
			for (int p = 0; p < np; p++) {
				struct unit *u = add_unit(c, err);
				if (!u) {
					instance_set_free(&set);
					return -PQ_EINPUT;
				}
				if (nv > 1 && dir_pick < 0 && bp) {
					const struct plan_instance *pi = &bp->inst[v];
					str_copy(u->instance, sizeof u->instance, pi->name[0] ? pi->name : pi->label);
					str_copy(u->select, sizeof u->select, u->instance);
				} else if (nv > 1 && dir_pick < 0) {
					str_copy(u->instance, sizeof u->instance, instance_variant_name(&set.tf.variants[v]));
					str_copy(u->select, sizeof u->select, u->instance);
				} else {
					base_no_ext(target, u->instance, sizeof u->instance);
				}
				str_copy(u->profile, sizeof u->profile, c->profs[p].name);
				u->prof = &c->profs[p];
				if (!realpath(target, u->tree)) {
					instance_set_free(&set);
					return pq_fail_errno(err, PQ_EINPUT, "%s", target);
				}
				snprintf(u->api, sizeof u->api, "auto");
			}
		}
		instance_set_free(&set);
	} else {
		for (int i = 0; i < c->desc.ninstances; i++) {
			const struct desc_instance *in = &c->desc.instances[i];
			if (c->o->quick && in->slow)
				continue;
			for (int p = 0; p < np; p++) {
				struct unit *u = add_unit(c, err);
				if (!u)
					return -PQ_EINPUT;
				str_copy(u->instance, sizeof u->instance, in->name);
				str_copy(u->implementation, sizeof u->implementation, in->implementation);
				str_copy(u->profile, sizeof u->profile, c->profs[p].name);
				u->prof = &c->profs[p];
				snprintf(u->tree, sizeof u->tree, "%s", in->tree);
				snprintf(u->api, sizeof u->api, "%s", in->api);
				u->defines = (const char *const *)in->defines;
				u->ndefines = in->ndefines;
				snprintf(u->cflags, sizeof u->cflags, "%s", in->cflags);
				snprintf(u->vectors, sizeof u->vectors, "%s", in->vectors);
				snprintf(u->manifest, sizeof u->manifest, "%s", in->manifest);
			}
		}
	}
	for (int i = 0; i < c->nunits; i++) {
		struct unit *u = &c->units[i];
		if (c->o->manifest)
			snprintf(u->manifest, sizeof u->manifest, "%s", c->o->manifest);
		char full[sizeof u->instance + sizeof u->implementation + sizeof u->profile + 4];
		snprintf(full, sizeof full, "%s__%s%s%s", u->instance, u->implementation,
		         u->implementation[0] ? "__" : "", u->profile);
		safe_name(u->label, sizeof u->label, full);
		/* Two names that clean up to one label would share every file. */
		for (int j = 0; j < i; j++)
			if (strcmp(c->units[j].label, u->label) == 0)
				return pq_fail(err, PQ_EINPUT,
				               "%s: instances '%s' and '%s' (profile %s) both get the file label '%s'; "
				               "rename one of them", target, c->units[j].instance, u->instance, u->profile,
				               u->label);
	}
	/* Shards: a deterministic subset, by position in the sorted unit list. */
	if (c->o->shard_n > 0) {
		int kept = 0;
		for (int i = 0; i < c->nunits; i++)
			if (i % c->o->shard_n == c->o->shard_k - 1)
				c->units[kept++] = c->units[i];
		c->nunits = kept;
	}
	if (c->nunits == 0)
		return pq_fail(err, PQ_EINPUT, "%s: no instances to run%s", target,
		               c->o->quick ? " (all are marked slow; drop --quick)" : "");
	return 0;
}

/* The campaign's records: DIR/SUB/LABEL[__OP]EXT (record_path).  A path
 * that would not fit is "", which no step can mistake for a record. */
static int path_of(const struct campaign *c, char *buf, size_t len, const char *sub, const char *label,
                   const char *op, const char *ext)
{
	return record_path(buf, len, c->dir, sub, label, op, ext, NULL);
}

/*
 * Say which step is about to run.  Called only for steps that will do
 * work: one that is not selected (--steps, the interposition check turned
 * off), already done (resume) or without a library to run on gets no
 * line; the selected ones still count towards done=/total=.
 */
static void progress(struct campaign *c, const char *step, const struct unit *u, const char *op)
{
	char where[512];
	snprintf(where, sizeof where, "step %d of %d (%s %s%s%s)", c->done + 1, c->total, step, u->label,
	         op ? " " : "", op ? op : "");
	interrupt_set_where(where);
	FILE *f = c->o->progress;
	if (!f)
		return;
	double el = now_s() - c->t0;
	double eta = c->steps_timed ? c->step_time_sum / c->steps_timed * (c->total - c->done) : NAN;
	if (c->o->progress_tty) {
		char e[32] = "?";
		if (isfinite(eta))
			snprintf(e, sizeof e, "%dm%02ds", (int)eta / 60, (int)eta % 60);
		fprintf(f, "\r\033[K[%d/%d] %s %s%s%s  elapsed %dm%02ds  remaining ~%s", c->done, c->total, step,
		        u->label, op ? " " : "", op ? op : "", (int)el / 60, (int)el % 60, e);
	} else {
		fprintf(f, "progress done=%d total=%d step=%s unit=%s%s%s elapsed_s=%.0f", c->done, c->total, step,
		        u->label, op ? " op=" : "", op ? op : "", el);
		if (isfinite(eta))
			fprintf(f, " eta_s=%.0f", eta);
		fputc('\n', f);
	}
	fflush(f);
}

static void step_done(struct campaign *c, double started, int skipped)
{
	c->done++;
	if (!skipped) {
		c->step_time_sum += now_s() - started;
		c->steps_timed++;
	}
}

static json_t *read_json(const char *path)
{
	return json_load_file(path, 0, NULL);
}

/* Keep the first reason to stop; every later step is skipped. */
static void stop_campaign(struct campaign *c, const pq_error *why)
{
	if (c->stopped)
		return;
	c->stopped = 1;
	c->stop_err = *why;
	if (!c->stop_err.code)
		c->stop_err.code = PQ_EIO;
}

/* Write a record; a failure stops the campaign (nothing unwritten counts as done). */
static int put_record(struct campaign *c, const char *path, json_t *j)
{
	pq_error err = { 0 };
	int r = j ? json_file_write(path, j, &err) : pq_fail(&err, PQ_EINTERNAL, "%s: no record to write", path);
	if (r < 0)
		stop_campaign(c, &err);
	return r;
}

/* Every record of a unit names its flag profile, and an A/A copy its baseline ("aa_of"). */
static void tag_record(const struct unit *u, json_t *j)
{
	if (!j)
		return;
	if (!json_object_get(j, "profile"))
		json_object_set_new(j, "profile", json_string(u->profile));
	if (u->prof && u->prof->aa_of[0])
		json_object_set_new(j, "aa_of", json_string(u->prof->aa_of));
}

/*
 * Whether a step's record means the step is done.  A record is done when
 * it holds a result, including a verdict on the scheme (it crashed, hung,
 * failed its checks: deterministic, kept).  A record of a failure that was
 * not the scheme's (counters or uprobes unavailable, the runner or the
 * loader failed, a bad input file) is not: the step runs again on resume.
 * Records that predate failure_kind count as tool failures.
 */
static int record_done(const char *path)
{
	json_t *r = read_json(path);
	if (!r)
		return 0;
	int done = 1;
	if (strcmp(json_string_value(json_object_get(r, "status")) ?: "", "failed") == 0) {
		const char *kind = json_string_value(json_object_get(r, "failure_kind"));
		if (!kind)
			kind = json_string_value(json_object_get(json_object_get(r, "failure"), "blame"));
		done = kind && strcmp(kind, "scheme") == 0;
	}
	json_decref(r);
	return done;
}

/* The state word for a step over its records: done, failed (to retry) or pending. */
static const char *records_state(struct campaign *c, int ndone, int nfailed, int n)
{
	if (ndone == n)
		return "done";
	if (nfailed) {
		c->tool_failures += nfailed;
		return "failed";
	}
	return "pending";
}

static void save_state(struct campaign *c, const char *status)
{
	if (c->stopped && strcmp(status, "complete") == 0)
		status = "incomplete";
	json_object_set_new(c->state, "status", json_string(status));
	char p[PATH_MAX];
	pq_error err = { 0 };
	if (path_fmt(p, sizeof p, &err, "%s/campaign.json", c->dir) < 0 || json_file_write(p, c->state, &err) < 0)
		stop_campaign(c, &err);
}

static void set_unit_step(struct campaign *c, const struct unit *u, const char *step, const char *state)
{
	json_t *arr = json_object_get(c->state, "instances");
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "label")) ?: "", u->label) == 0) {
			json_object_set_new(json_object_get(e, "steps"), step, json_string(state));
			return;
		}
	}
}

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
static void unit_build_options(const struct campaign *c, const struct unit *u, const char *out_path, const char *sub,
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
	bo->tree_inside_root = c->have_desc;
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

static int built_ok(struct campaign *c, const struct unit *u)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "build", u->label, NULL, ".json");
	json_t *b = read_json(rec);
	int ok = b && strcmp(json_string_value(json_object_get(b, "status")) ?: "", "complete") == 0;
	json_decref(b);
	return ok && is_file(u->lib);
}

/* A step that failed without a record: bad input is kept for the exit status, write errors stop. */
static void step_error(struct campaign *c, const struct unit *u, const char *step, pq_error *err)
{
	pq_error_prefix(err, "%s %s: ", step, u->label);
	if (err->code == PQ_EIO) {
		stop_campaign(c, err);
		return;
	}
	if (err->code == PQ_EINPUT && !c->input_err.code)
		c->input_err = *err;
	if (c->o->progress)
		fprintf(c->o->progress, "%s%s (will be retried on the next run)\n", c->o->progress_tty ? "\n" : "warning: ",
		        err->msg);
}

static void do_kat(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX], log[PATH_MAX];
	path_of(c, rec, sizeof rec, "kat", u->label, NULL, ".json");
	path_of(c, log, sizeof log, "kat", u->label, NULL, ".log");
	struct kat_gate_opts ko = {
		.lib = u->lib, .vectors = u->vectors[0] ? u->vectors : NULL,
		.manifest = u->manifest[0] ? u->manifest : NULL, .search_tree = 1,
		.timeout_s = c->o->kat_timeout_s > 0 ? c->o->kat_timeout_s : 900, .log_path = log,
		.instance = desc,
	};
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

/* A record's scheme-output log as a path inside the campaign directory (records travel with it in merges). */
static void relative_log(const struct campaign *c, json_t *rec)
{
	json_t *so = json_object_get(rec, "scheme_output");
	const char *log = json_string_value(json_object_get(so, "log"));
	size_t n = strlen(c->dir);
	if (log && strncmp(log, c->dir, n) == 0 && log[n] == '/')
		json_object_set_new(so, "log", json_string(log + n + 1));
}

/* Write a mem/sizes record; without one the step failed before measuring. */
static void put_measure(struct campaign *c, const struct unit *u, const char *step, const char *rec, json_t *r,
                        pq_error *err)
{
	if (!r) {
		step_error(c, u, step, err);
		return;
	}
	tag_record(u, r);
	put_record(c, rec, r);
	json_decref(r);
}

static void do_mem(struct campaign *c, const struct unit *u, json_t *desc, enum pq_op op, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "memory", u->label, pq_op_name(op), ".json");
	char log[PATH_MAX];
	path_of(c, log, sizeof log, "output", u->label, pq_op_name(op), ".mem.log");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu, .output_log = log };
	struct record_ctx ctx = { .instance = desc, .environment = env };
	json_t *r = NULL;
	pq_error err = { 0 };
	record_mem(&mo, op, &ctx, &r, &err);
	relative_log(c, r);
	put_measure(c, u, "mem", rec, r, &err);
}

static void do_sizes(struct campaign *c, const struct unit *u, json_t *desc, json_t *env)
{
	char rec[PATH_MAX];
	path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
	struct mem_run_opts mo = { .lib = u->lib, .timeout_s = c->o->timeout_s, .cpu = c->o->cpu };
	struct record_ctx ctx = { .instance = desc, .environment = env };
	json_t *r = NULL;
	pq_error err = { 0 };
	/* An operation budget bounds the size sampling too: keygen may take seconds. */
	record_sizes(&mo, 20, op_budget_of(c), 10, &ctx, &r, &err);
	put_measure(c, u, "sizes", rec, r, &err);
}

/* The unit's operations, from its descriptor; *desc is a new reference or NULL. */
static int unit_ops(struct campaign *c, const struct unit *u, json_t **desc, enum pq_op ops[PQ_OP_COUNT])
{
	*desc = built_ok(c, u) ? unit_descriptor(c, u) : NULL;
	int kind = *desc && strcmp(json_string_value(json_object_get(*desc, "kind")) ?: "", "kem") == 0 ? 2 : 1;
	return pq_ops_for_kind(kind, ops);
}

/* State of a step with one record. */
static const char *record_state(struct campaign *c, const char *rec)
{
	int done = record_done(rec);
	return records_state(c, done, !done && is_file(rec), 1);
}

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
static int interposition_selected(const struct campaign *c, const struct unit *u)
{
	return !u->prebuilt && c->want[STEP_BENCH] && interposition_wanted(c);
}

/* The other library form of u and its build record are there. */
static int other_form_built(const struct campaign *c, const struct unit *u)
{
	char lib[PATH_MAX], rec[PATH_MAX];
	other_lib(c, u, lib, sizeof lib);
	path_of(c, rec, sizeof rec, "interposition", u->label, NULL, ".build.json");
	return is_file(lib) && is_file(rec);
}

/* Steps of u the selection runs, for the progress total: every unit has a
 * build step, and either kind three operations. */
static int unit_steps(const struct campaign *c, const struct unit *u)
{
	int per_op = c->want[STEP_BENCH] + c->want[STEP_MEM] + c->want[STEP_PROFILE] + c->want[STEP_LEAK];
	return 1 + c->want[STEP_KAT] + c->want[STEP_SIZES] + interposition_selected(c, u) + 3 * per_op;
}

/*
 * Build the unit again in the other library form, with the same options;
 * its build record goes to interposition/<label>.build.json.  1 when the
 * library is there.
 */
static int build_other_form(struct campaign *c, const struct unit *u)
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

static void unit_build_and_kat(struct campaign *c, struct unit *u, json_t *env)
{
	if (c->stopped)
		return;
	int fresh_build = !is_file(u->lib);
	int build = (c->want[STEP_BUILD] || fresh_build) && !build_done(c, u);
	if (build || (interposition_selected(c, u) && built_ok(c, u) && !other_form_built(c, u)))
		progress(c, "build", u, NULL);
	double t = now_s();
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
	t = now_s();
	int skip = c->stopped || !ok || !c->want[STEP_KAT] || record_done(rec);
	if (!skip) {
		progress(c, "kat", u, NULL);
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

/* One round of interleaved benches of one operation: m units, records written as they come back. */
static void bench_round(struct campaign *c, struct bench_config *cfgs, const char **profiles, const int *who, int m,
                        enum pq_op op, json_t **recs, pq_error *errs, double t)
{
	memset(recs, 0, (size_t)m * sizeof *recs);
	memset(errs, 0, (size_t)m * sizeof *errs);
	record_bench(cfgs, m, profiles, recs, errs);
	/* The round-robin order, so each record shows what it was interleaved with. */
	json_t *order = json_array();
	for (int j = 0; j < m; j++)
		json_array_append_new(order, json_string(c->units[who[j]].label));
	for (int j = 0; j < m; j++) {
		struct unit *u = &c->units[who[j]];
		char rec[PATH_MAX];
		path_of(c, rec, sizeof rec, "records", u->label, pq_op_name(op), ".json");
		if (!recs[j]) {
			step_error(c, u, "bench", &errs[j]);
		} else {
			if (strcmp(json_string_value(json_object_get(recs[j], "status")) ?: "", "failed") == 0)
				json_object_set_new(recs[j], "failure_kind", json_string(blame_kind(errs[j].code)));
			json_object_set_new(recs[j], "interleave", json_pack("{s:s, s:i, s:O}", "order", "round-robin",
			                                                     "position", j, "units", order));
			tag_record(u, recs[j]);
			relative_log(c, recs[j]);
			if (!c->stopped)
				put_record(c, rec, recs[j]);
			json_decref(recs[j]);
		}
		step_done(c, t, 0);
	}
	json_decref(order);
}

/*
 * Bench every unit of the campaign (instances x profiles) together: for
 * each operation the trials of all units that have it run round-robin
 * (A, B, C, A, B, C...), so a slow spell of the machine falls on every
 * unit alike and comparisons are paired in time as well as in seeds.
 */
static void bench_all(struct campaign *c, json_t *env)
{
	if (c->stopped)
		return;
	int n = c->nunits;
	json_t **desc = calloc((size_t)n, sizeof *desc);
	enum pq_op (*uops)[PQ_OP_COUNT] = calloc((size_t)n, sizeof *uops);
	int *nops = calloc((size_t)n, sizeof *nops), *who = calloc((size_t)n, sizeof *who);
	struct bench_config *cfgs = calloc((size_t)n, sizeof *cfgs);
	const char **profiles = calloc((size_t)n, sizeof *profiles);
	json_t **recs = calloc((size_t)n, sizeof *recs);
	pq_error *errs = calloc((size_t)n, sizeof *errs);
	char (*logs)[PATH_MAX] = calloc((size_t)n, sizeof *logs);   /* the scheme's output, per bench */
	if (!desc || !uops || !nops || !who || !cfgs || !profiles || !recs || !errs || !logs) {
		pq_error err;
		pq_fail(&err, PQ_ENOMEM, "out of memory for %d units", n);
		stop_campaign(c, &err);
		goto out;
	}
	for (int k = 0; k < n; k++)
		nops[k] = unit_ops(c, &c->units[k], &desc[k], uops[k]);
	for (int op = 0; op < PQ_OP_COUNT && !c->stopped; op++) {
		int m = 0;
		double t = now_s();
		for (int k = 0; k < n; k++) {
			int has = 0;
			for (int i = 0; i < nops[k]; i++)
				has |= uops[k][i] == (enum pq_op)op;
			if (!has || !c->want[STEP_BENCH])
				continue;
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", c->units[k].label, pq_op_name(op), ".json");
			if (!desc[k] || record_done(rec)) {
				step_done(c, t, 1);
				continue;
			}
			progress(c, "bench", &c->units[k], pq_op_name(op));
			cfgs[m] = (struct bench_config){
				.lib = c->units[k].lib, .op = (enum pq_op)op,
				.trials = c->o->trials > 0 ? c->o->trials : (c->o->quick ? 3 : 5),
				.target_s = c->o->target_s > 0 ? c->o->target_s : (c->o->quick ? 0.3 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.op_budget_s = op_budget_of(c), .op_budget_default = !(c->o->op_budget_s > 0),
				.command = c->o->command, .instance = desc[k], .environment = env,
			};
			path_of(c, logs[m], sizeof logs[m], "output", c->units[k].label, pq_op_name(op), ".bench.log");
			cfgs[m].output_log = logs[m];
			profiles[m] = c->units[k].profile;
			who[m++] = k;
		}
		/* Rounds of at most MAX_INTERLEAVE units, cut between instances. */
		for (int from = 0; from < m && !c->stopped;) {
			int to = from;
			while (to < m) {
				int end = to + 1;
				while (end < m && strcmp(c->units[who[end]].instance, c->units[who[to]].instance) == 0)
					end++;
				if (to > from && end - from > MAX_INTERLEAVE)
					break;
				to = end;
			}
			bench_round(c, cfgs + from, profiles + from, who + from, to - from, (enum pq_op)op, recs, errs, t);
			from = to;
		}
	}
	for (int k = 0; k < n; k++) {
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops[k]; i++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", c->units[k].label, pq_op_name(uops[k][i]), ".json");
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, &c->units[k], "bench", !desc[k] ? "skipped" : records_state(c, ndone, nfailed, nops[k]));
	}
	save_state(c, "incomplete");
out:
	for (int k = 0; desc && k < n; k++)
		json_decref(desc[k]);
	free(desc);
	free(uops);
	free(nops);
	free(who);
	free(cfgs);
	free(profiles);
	free(recs);
	free(errs);
	free(logs);
}

/* The paired step's progress line from inside a study. */
static void paired_progress(void *user, const char *line)
{
	struct campaign *c = user;
	FILE *f = c->o->progress;
	if (f && !c->o->progress_tty)
		fprintf(f, "progress paired %s\n", line);
}

/* The builds of one instance in profile order (baseline first); the A/A copy's index, or -1. */
static int instance_builds(struct campaign *c, const struct unit *first, int *who, int *aa)
{
	int n = 0;
	*aa = -1;
	for (int p = 0; p < c->nprofs && n < PAIRED_MAX_BUILDS; p++)
		for (int k = 0; k < c->nunits; k++) {
			const struct unit *u = &c->units[k];
			if (u->prof != &c->profs[p] || strcmp(u->instance, first->instance) != 0 ||
			    strcmp(u->implementation, first->implementation) != 0 || !built_ok(c, u))
				continue;
			if (n == 0 && p != 0)
				return 0;  /* no baseline build: nothing to compare with */
			if (c->profs[p].aa_of[0])
				*aa = n;
			who[n++] = k;
		}
	return n;
}

/* The closing lines of one paired study, on the summary stream. */
static void paired_summary(struct campaign *c, const struct unit *base, enum pq_op op, const json_t *r)
{
	FILE *f = c->o->summary;
	if (!f)
		return;
	if (!c->paired_said++)
		fprintf(f, "\npaired studies (ratio to the baseline profile %s, 95%% interval; every build in one runner, "
		        "round by round):\n", base->profile);
	const char *st = json_string_value(json_object_get(r, "status"));
	if (!st || strcmp(st, "ok") != 0) {
		fprintf(f, "  %-28s %-7s failed: %s\n", base->instance, pq_op_name(op),
		        json_string_value(json_object_get(json_object_get(r, "failure"), "reason")) ?: "?");
		return;
	}
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "comparisons"), i, e) {
		fprintf(f, "  %-28s %-7s %-14s %6.3f (%.3f-%.3f)  %s; %s\n", base->instance, pq_op_name(op),
		        json_string_value(json_object_get(e, "candidate")) ?: "?",
		        json_number_value(json_object_get(e, "ratio")), json_number_value(json_object_get(e, "lo")),
		        json_number_value(json_object_get(e, "hi")), json_string_value(json_object_get(e, "verdict")) ?: "?",
		        json_string_value(json_object_get(e, "detectable")) ?: "");
		/* The functions that changed most, from the same runs (cost per call, 95% interval). */
		size_t k;
		json_t *fn;
		json_array_foreach(json_object_get(e, "functions"), k, fn) {
			if (k >= 3)
				break;
			fprintf(f, "  %-28s %-7s %-14s   %s %+.0f (%+.0f..%+.0f) per call\n", "", "", k ? "" : "functions:",
			        json_string_value(json_object_get(fn, "function")) ?: "?",
			        json_number_value(json_object_get(fn, "delta")), json_number_value(json_object_get(fn, "delta_lo")),
			        json_number_value(json_object_get(fn, "delta_hi")));
		}
	}
	fprintf(f, "  %-28s %-7s %s\n", "", "", json_string_value(json_object_get(r, "stop_reason")) ?: "");
}

/* Progress steps of the paired step: one per baseline unit and operation of a flag study. */
static int paired_steps(const struct campaign *c)
{
	if (c->nprofs < 2 || c->o->per_process || !c->want[STEP_PAIRED])
		return 0;
	int n = 0;
	for (int k = 0; k < c->nunits; k++)
		n += c->units[k].prof == &c->profs[0] ? 3 : 0;
	return n;
}

/*
 * Flag studies: for each instance and operation, every build side by side
 * in one runner per process (supervise/paired.h), one record
 * paired/<baseline label>__<op>.json that the comparisons use.  The
 * budget: --budget for all studies, shared out over those still to run;
 * else PAIRED_DEFAULT_BUDGET_S per study (two thirds with --quick).
 */
static void paired_all(struct campaign *c, json_t *env)
{
	if (c->stopped || c->nprofs < 2 || c->o->per_process || !c->want[STEP_PAIRED])
		return;
	int nstudies = 0, ninst = 0;
	int first[MAX_UNITS];
	for (int k = 0; k < c->nunits; k++) {
		const struct unit *u = &c->units[k];
		if (u->prof != &c->profs[0])
			continue;
		first[ninst++] = k;
		enum pq_op ops[PQ_OP_COUNT];
		json_t *d = NULL;
		nstudies += unit_ops(c, u, &d, ops);
		json_decref(d);
	}
	double budget_left = c->o->budget_s;
	for (int i = 0; i < ninst && !c->stopped; i++) {
		int who[PAIRED_MAX_BUILDS], aa = -1;
		const struct unit *base = &c->units[first[i]];
		int nb = instance_builds(c, base, who, &aa);
		enum pq_op ops[PQ_OP_COUNT];
		json_t *desc = NULL;
		int nops = unit_ops(c, base, &desc, ops);
		for (int j = 0; j < nops && !c->stopped; j++, nstudies--) {
			char rec[PATH_MAX], log[PATH_MAX];
			path_of(c, rec, sizeof rec, "paired", base->label, pq_op_name(ops[j]), ".json");
			double t = now_s();
			if (nb < 2 || !desc || record_done(rec)) {
				step_done(c, t, 1);
				continue;
			}
			progress(c, "paired", base, pq_op_name(ops[j]));
			struct paired_config pc = {
				.nbuilds = nb, .aa = aa, .op = ops[j], .precision = c->o->precision,
				.budget_s = c->o->budget_s > 0 ? budget_left / (nstudies > 0 ? nstudies : 1)
				            : PAIRED_DEFAULT_BUDGET_S * (c->o->quick ? 2.0 / 3.0 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.command = c->o->command, .instance = desc, .environment = env, .progress = paired_progress,
				.progress_user = c,
			};
			for (int b = 0; b < nb; b++) {
				pc.builds[b].lib = c->units[who[b]].lib;
				pc.builds[b].label = c->units[who[b]].profile;
			}
			path_of(c, log, sizeof log, "output", base->label, pq_op_name(ops[j]), ".paired.log");
			pc.output_log = log;
			json_t *r = NULL;
			pq_error err = { 0 };
			int rc = paired_run(&pc, &r, &err);
			budget_left -= now_s() - t;
			if (!r) {
				step_error(c, base, "paired", &err);
			} else {
				if (rc < 0 && !json_object_get(r, "failure_kind"))
					json_object_set_new(r, "failure_kind", json_string(blame_kind(-rc)));
				json_object_set_new(r, "profile", json_string(base->profile));
				paired_summary(c, base, ops[j], r);
				relative_log(c, r);
				if (!c->stopped)
					put_record(c, rec, r);
				json_decref(r);
			}
			step_done(c, t, 0);
		}
		for (int b = 0; b < nb; b++)
			set_unit_step(c, &c->units[who[b]], "paired", desc ? "done" : "skipped");
		json_decref(desc);
	}
	save_state(c, "incomplete");
}

/*
 * The interposition check of every unit built from sources: its library and
 * the other form, a paired in-process study per operation
 * (interpose_check.h), one record interposition/<label>.json.  A short
 * budget: it looks for factors, not for percent.
 */
static void interposition_all(struct campaign *c, json_t *env)
{
	for (int k = 0; k < c->nunits && !c->stopped; k++) {
		struct unit *u = &c->units[k];
		if (!interposition_selected(c, u))
			continue;
		char rec[PATH_MAX], lib[PATH_MAX];
		path_of(c, rec, sizeof rec, "interposition", u->label, NULL, ".json");
		other_lib(c, u, lib, sizeof lib);
		double t = now_s();
		json_t *desc;
		enum pq_op ops[PQ_OP_COUNT];
		int nops = unit_ops(c, u, &desc, ops);
		int skip = !desc || !is_file(lib) || record_done(rec);
		if (!skip) {
			progress(c, "interposition", u, NULL);
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
				tag_record(u, r);
				put_record(c, rec, r);
				json_decref(r);
			}
		}
		json_decref(desc);
		step_done(c, t, skip);
	}
	save_state(c, "incomplete");
}

/* The optional timing-leak step (leak_step.c), one record per operation. */
static void unit_leak(struct campaign *c, struct unit *u, json_t *desc, const enum pq_op *ops, int nops, json_t *env)
{
	if (!c->want[STEP_LEAK]) {
		set_unit_step(c, u, "leak", "off");
		return;
	}
	struct leak_step_opts lo = {
		.dir = c->dir, .label = u->label, .lib = u->lib, .instance = desc, .environment = env,
		.command = c->o->command, .cpu = c->o->cpu, .events = c->o->events,
		.budget_s = c->o->leak_budget_s > 0 ? c->o->leak_budget_s :
		            c->have_desc && c->desc.leak_budget_s > 0 ? c->desc.leak_budget_s :
		            c->o->quick ? LEAK_STEP_QUICK_BUDGET_S : 0,
		.classes = c->have_desc && c->desc.leak_classes[0] ? c->desc.leak_classes : NULL,
	};
	int all = 1;
	for (int i = 0; i < nops; i++) {
		double t = now_s();
		int skip = !desc || c->stopped;
		if (!skip) {
			if (!leak_step_done(&lo, ops[i]))
				progress(c, "leak", u, pq_op_name(ops[i]));
			pq_error err = { 0 };
			int r = leak_step_op(&lo, ops[i], &err);
			if (r < 0)
				step_error(c, u, "leak", &err);
			all &= r == 1;
		}
		step_done(c, t, skip);
	}
	set_unit_step(c, u, "leak", !desc ? "skipped" : all ? "done" : "pending");
	save_state(c, "incomplete");
}

static void unit_rest(struct campaign *c, struct unit *u, json_t *env)
{
	if (c->stopped)
		return;
	json_t *desc;
	enum pq_op ops[PQ_OP_COUNT];
	int nops = unit_ops(c, u, &desc, ops);
	int ok = desc != NULL;
	char rec[PATH_MAX];
	for (int s = STEP_MEM; s <= STEP_PROFILE && !c->stopped; s++) {
		double t;
		int skip;
		if (s == STEP_SIZES) {
			path_of(c, rec, sizeof rec, "sizes", u->label, NULL, ".json");
			t = now_s();
			skip = !ok || !c->want[s] || record_done(rec);
			if (!skip) {
				progress(c, "sizes", u, NULL);
				do_sizes(c, u, desc, env);
			}
			if (c->want[s])
				step_done(c, t, skip);
			set_unit_step(c, u, "sizes", !ok ? "skipped" : record_state(c, rec));
			save_state(c, "incomplete");
			continue;
		}
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops && !c->stopped; i++) {
			const char *sub = s == STEP_MEM ? "memory" : "profile";
			path_of(c, rec, sizeof rec, sub, u->label, pq_op_name(ops[i]), ".json");
			t = now_s();
			skip = !ok || !c->want[s] || record_done(rec);
			if (!skip) {
				progress(c, step_names[s], u, pq_op_name(ops[i]));
				if (s == STEP_MEM) {
					do_mem(c, u, desc, ops[i], env);
				} else {
					pq_error err = { 0 };
					if (steps_profile(c->dir, u->label, u->lib, desc, pq_op_name(ops[i]),
					                  c->have_desc ? &c->desc : NULL, c->o->timeout_s, c->o->quick, &err) < 0 &&
					    err.code == PQ_EIO) {
						pq_error_prefix(&err, "profile %s %s: ", u->label, pq_op_name(ops[i]));
						stop_campaign(c, &err);
					}
					json_t *pr = c->stopped ? NULL : read_json(rec);
					if (pr) {
						tag_record(u, pr);
						put_record(c, rec, pr);
						json_decref(pr);
					}
				}
			}
			if (c->want[s])
				step_done(c, t, skip);
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, u, step_names[s], !ok ? "skipped" : records_state(c, ndone, nfailed, nops));
		save_state(c, "incomplete");
	}
	unit_leak(c, u, desc, ops, nops, env);
	json_decref(desc);
}

/* The performance table with each instance's KAT verdict, from the records. */
static void print_summary(struct campaign *c, FILE *out)
{
	const char *unit = NULL;
	int header = 0;
	for (int i = 0; i < c->nunits; i++) {
		const struct unit *u = &c->units[i];
		char p[PATH_MAX], verdict[96] = "KAT: not run", shown[300], name[200];
		snprintf(name, sizeof name, u->implementation[0] ? "%s (%s)" : "%s", u->instance, u->implementation);
		snprintf(shown, sizeof shown, c->nprofs > 1 ? "%s/%s" : "%s", name, u->profile);
		path_of(c, p, sizeof p, "kat", u->label, NULL, ".json");
		json_t *k = read_json(p);
		if (k) {
			const char *v = json_string_value(json_object_get(json_object_get(k, "outcome"), "verdict"));
			snprintf(verdict, sizeof verdict, "KAT %s%s", v ? v : "?",
			         v && strcmp(v, "PASS") != 0 ? " (output not validated)" : "");
			json_decref(k);
		}
		path_of(c, p, sizeof p, "interposition", u->label, NULL, ".json");
		json_t *ic = read_json(p);
		for (int o = 0; o < PQ_OP_COUNT; o++) {
			path_of(c, p, sizeof p, "records", u->label, pq_op_name(o), ".json");
			json_t *r = read_json(p);
			if (!r)
				continue;
			/* The interposition check's factor, where it is beyond the noise. */
			char shown_verdict[200];
			json_t *f = json_object_get(json_object_get(ic, "ops"), pq_op_name(o));
			if (json_is_true(json_object_get(f, "beyond_noise")))
				snprintf(shown_verdict, sizeof shown_verdict, "%s; plain -fPIC %.1fx %s", verdict,
				         json_number_value(json_object_get(f, "factor")),
				         json_number_value(json_object_get(f, "factor")) >= 1 ? "slower" : "faster");
			else
				snprintf(shown_verdict, sizeof shown_verdict, "%s", verdict);
			const char *ru = json_string_value(json_object_get(json_object_get(r, "backend"), "unit"));
			if (!header || (ru && unit && strcmp(ru, unit) != 0)) {
				bench_table_header(out, ru);
				header = 1;
				unit = ru ? strdup(ru) : NULL;
			}
			bench_table_row(out, r, shown, shown_verdict);
			json_decref(r);
		}
		json_decref(ic);
		if (!built_ok(c, u)) {
			path_of(c, p, sizeof p, "build", u->label, NULL, ".json");
			json_t *b = read_json(p);
			fprintf(out, "%-28s build failed: %s\n", shown,
			        b ? json_string_value(json_object_get(b, "failure")) : "?");
			json_decref(b);
		}
	}
	free((char *)unit);
	fflush(out);
}

static int make_subdirs(const char *dir, pq_error *err)
{
	static const char *const subs[] = { "", "lib", "build", "kat", "records", "memory", "sizes", "profile",
	                                    "traces", "flame", "interposition", "output", "paired", NULL }; /* leak/: made by the leak step */
	for (int i = 0; subs[i]; i++) {
		char p[PATH_MAX];
		int r = path_fmt(p, sizeof p, err, "%s%s%s", dir, subs[i][0] ? "/" : "", subs[i]);
		if (r == 0)
			r = make_dirs(p, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int init_state(struct campaign *c, json_t **env_out, pq_error *err)
{
	char p[PATH_MAX];
	int r = path_fmt(p, sizeof p, err, "%s/campaign.json", c->dir);
	if (r < 0)
		return r;
	json_t *old = c->o->fresh ? NULL : read_json(p);
	json_t *env = old ? json_incref(json_object_get(old, "environment")) : NULL;
	if (!env) {
		env_info ei;
		if (env_capture(&ei, c->o->cpu, NULL, err) < 0) {
			json_decref(old);
			return -PQ_EINPUT;
		}
		env = env_to_json(&ei);
	}
	const char *start = old ? json_string_value(json_object_get(old, "start_utc")) : NULL;
	char now[64];
	time_t tt = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
	c->state = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:O, s:s, s:s, s:s?}", "schema", "pqprof.campaign/1",
	                     "scheme", "name", c->scheme, "title", c->title, "category", c->category,
	                     "system", c->o->system ? c->o->system : "", "environment", env,
	                     "start_utc", start ? start : now, "pqprof_version", PACKAGE_VERSION,
	                     "command", c->o->command);
	if (!c->o->system) {
		char host[128] = "local";
		gethostname(host, sizeof host);
		host[sizeof host - 1] = '\0';
		json_object_set_new(c->state, "system", json_string(host));
	}
	json_t *arr = json_array();
	for (int i = 0; i < c->nunits; i++) {
		json_t *steps = json_object();
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			json_object_set_new(steps, step_names[s], json_string("pending"));
		json_t *e = json_pack("{s:s, s:s, s:s, s:o}", "instance", c->units[i].instance, "profile",
		                      c->units[i].profile, "label", c->units[i].label, "steps", steps);
		if (c->units[i].implementation[0])
			json_object_set_new(e, "implementation", json_string(c->units[i].implementation));
		json_array_append_new(arr, e);
	}
	json_object_set_new(c->state, "instances", arr);
	if (c->o->shard_n)
		json_object_set_new(c->state, "shard", json_pack("{s:i, s:i}", "k", c->o->shard_k, "n", c->o->shard_n));
	json_decref(old);
	*env_out = env;
	return 0;
}

static int parse_steps(struct campaign *c, pq_error *err)
{
	if (!c->o->steps) {
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			c->want[s] = s != STEP_LEAK;  /* the leak step is asked for (descriptor, --steps) */
		return 0;
	}
	char buf[256];
	snprintf(buf, sizeof buf, "%s", c->o->steps);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int found = 0;
		for (int s = 0; s < STEP_COUNT_ALL; s++)
			if (strcmp(tok, step_names[s]) == 0)
				c->want[s] = found = 1;
		if (!found && strcmp(tok, "report") != 0)
			return pq_fail(err, PQ_EUSAGE, "--steps: unknown step '%s' (build,kat,bench,paired,mem,sizes,profile,leak,report)",
			               tok);
	}
	return 0;
}

/*
 * In a campaign of several flag profiles, one that built for none of the
 * campaign's instances leaves it partial (its comparisons are missing): PQ_EBUILD, naming
 * it; the other profiles' results are complete.
 */
static int profile_built(struct campaign *c, const struct prof *p)
{
	for (int i = 0; i < c->nunits; i++)
		if (c->units[i].prof == p && built_ok(c, &c->units[i]))
			return 1;
	return 0;
}

static int check_profiles_built(struct campaign *c, pq_error *err)
{
	/* One profile: a build failure is a verdict like the others, there is no comparison to miss. */
	if (c->nprofs < 2)
		return 0;
	char bad[512] = "";
	for (int p = 0; p < c->nprofs; p++) {
		int any = 0, units = 0;
		const char *first = NULL;
		for (int i = 0; i < c->nunits; i++) {
			if (c->units[i].prof != &c->profs[p])
				continue;
			units++;
			if (built_ok(c, &c->units[i]))
				any = 1;
			else if (!first)
				first = c->units[i].label;
		}
		if (units && !any) {
			size_t n = strlen(bad);
			snprintf(bad + n, sizeof bad - n, "%s%s (see %s/build/%s.json)", n ? ", " : "", c->profs[p].name, c->dir,
			         first);
		}
	}
	if (!bad[0])
		return 0;
	return pq_fail(err, PQ_EBUILD, "campaign partial: flag profile %s did not build (BUILD); the other profiles' "
	               "results are complete", bad);
}

/* Closing lines: what failed and will be retried, and whether the campaign stopped. */
static int finish(struct campaign *c, int r, pq_error *err)
{
	FILE *f = c->o->progress;
	if (c->stopped) {
		*err = c->stop_err;
		pq_error_prefix(err, "stopped: ");
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n,
		         "; steps whose records were written are kept: fix the cause and run the same command again "
		         "to resume");
		return -(err->code ? err->code : PQ_EIO);
	}
	if (f && c->tool_failures)
		fprintf(f, "%s%d step%s failed for reasons that are not the scheme's (marked \"failed\" in "
		        "%s/campaign.json); they run again when the same command is repeated\n",
		        c->o->progress_tty ? "" : "warning: ", c->tool_failures, c->tool_failures == 1 ? "" : "s", c->dir);
	if (r == 0 && c->input_err.code) {
		*err = c->input_err;
		return -c->input_err.code;
	}
	return r;
}

int campaign_run(const char *target, const struct campaign_opts *o, pq_error *err)
{
	struct campaign c = { .o = o };
	struct campaign_lock lock = { .fd = -1 };
	int r = parse_steps(&c, err);
	if (r == 0)
		r = expand(&c, target, err);
	if (r == 0 && !o->out_dir)
		r = campaign_default_dir(target, o, c.dir, sizeof c.dir, err);
	else if (r == 0)
		r = path_fmt(c.dir, sizeof c.dir, err, "%s", o->out_dir);
	if (r == 0 && strlen(c.dir) + DIR_SLACK >= sizeof c.dir)
		r = pq_fail(err, PQ_EINPUT, "%s: campaign directory path too long (at most %zu bytes)", c.dir,
		            sizeof c.dir - DIR_SLACK - 1);
	if (r == 0 && !o->steps && c.have_desc && c.desc.leak)
		c.want[STEP_LEAK] = 1;
	if (r == 0)
		r = make_dirs(c.dir, err);
	/* One run per directory, before anything in it is touched. */
	char note[1600] = "";
	if (r == 0)
		r = campaign_lock_take(c.dir, o->command, &lock, note, sizeof note, err);
	if (r == 0 && note[0] && o->progress)
		fprintf(o->progress, "%s: %s\n", c.dir, note);
	if (r == 0 && o->fresh)
		steps_forget(c.dir);
	if (r == 0)
		r = make_subdirs(c.dir, err);
	for (int i = 0; i < c.nunits && r == 0; i++)
		if (!c.units[i].prebuilt)
			r = path_fmt(c.units[i].lib, sizeof c.units[i].lib, err, "%s/lib/%s.so", c.dir, c.units[i].label);
	json_t *env = NULL;
	if (r == 0)
		r = init_state(&c, &env, err);
	if (r < 0) {
		campaign_lock_release(&lock);
		if (c.have_desc)
			scheme_desc_free(&c.desc);
		free(c.units);
		return r;
	}
	char how[1200];
	snprintf(how, sizeof how, "finished steps are kept in %s; run the same command again to resume", c.dir);
	interrupt_set_resume(how);
	for (int i = 0; i < c.nunits; i++)
		c.total += unit_steps(&c, &c.units[i]);
	c.total += paired_steps(&c);
	c.t0 = now_s();
	save_state(&c, "incomplete");
	for (int i = 0; i < c.nunits; i++)
		unit_build_and_kat(&c, &c.units[i], env);
	bench_all(&c, env);
	paired_all(&c, env);
	interposition_all(&c, env);
	for (int i = 0; i < c.nunits; i++)
		unit_rest(&c, &c.units[i], env);
	if (!c.stopped) {
		char now[64];
		time_t tt = time(NULL);
		strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
		json_object_set_new(c.state, "end_utc", json_string(now));
		save_state(&c, c.tool_failures || c.input_err.code ? "incomplete" : "complete");
	}
	interrupt_set_where(c.stopped ? NULL : "the report");
	if (o->progress && !c.stopped) {
		if (o->progress_tty)
			fputc('\n', o->progress);
		fprintf(o->progress, "%scampaign %s: %d units done in %.0f s\n", o->progress_tty ? "" : "progress ",
		        c.dir, c.nunits, now_s() - c.t0);
	}
	if (o->summary && !c.stopped)
		print_summary(&c, o->summary);
	/* Comparisons with the baseline, for the profiles that built; before the
	 * report, which has a section for them. */
	char profiles[CAMPAIGN_MAX_PROFILES][64];
	int ncmp = 0;
	for (int p = 0; p < c.nprofs; p++)
		if (profile_built(&c, &c.profs[p]))
			str_copy(profiles[ncmp++], sizeof profiles[0], c.profs[p].name);
	if (r == 0 && !c.stopped && ncmp > 1 && profile_built(&c, &c.profs[0]) &&
	    (c.want[STEP_BENCH] || c.want[STEP_PROFILE]))
		r = steps_compare_profiles(c.dir, profiles, ncmp, o->summary, err);
	if (r == 0 && !o->no_report && !c.stopped)
		r = steps_report(c.dir, err);
	if (r == 0 && !c.stopped)
		r = check_profiles_built(&c, err);
	r = finish(&c, r, err);
	interrupt_set_where(NULL);
	interrupt_set_resume(NULL);
	campaign_lock_release(&lock);
	json_decref(env);
	json_decref(c.state);
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	free(c.units);
	return r;
}

int campaign_plan(const char *target, const struct campaign_opts *o, FILE *out, pq_error *err)
{
	struct campaign c = { .o = o };
	int r = parse_steps(&c, err);
	if (r == 0)
		r = expand(&c, target, err);
	if (r == 0 && !o->out_dir)
		r = campaign_default_dir(target, o, c.dir, sizeof c.dir, err);
	else if (r == 0)
		snprintf(c.dir, sizeof c.dir, "%s", o->out_dir);
	if (r == 0) {
		fprintf(out, "plan for %s: %d unit%s (instance x flag profile) into %s; nothing is built or written\n",
		        target, c.nunits, c.nunits == 1 ? "" : "s", c.dir);
		for (int i = 0; i < c.nunits; i++) {
			const struct unit *u = &c.units[i];
			fprintf(out, "  %s: instance %s%s%s%s, profile %s, ", u->label, u->instance,
			        u->implementation[0] ? " (" : "", u->implementation, u->implementation[0] ? ")" : "",
			        u->profile);
			if (u->prebuilt)
				fprintf(out, "library %s, KAT file searched in its source tree\n", u->lib);
			else
				fprintf(out, "tree %s, API %s, KAT %s\n", u->tree, u->api,
				        u->vectors[0] ? u->vectors : u->manifest[0] ? u->manifest : "searched in the tree");
		}
		fflush(out);
	}
	if (c.have_desc)
		scheme_desc_free(&c.desc);
	free(c.units);
	return r;
}
