/*
 * campaign_baseline: every candidate instance is measured beside the
 * standard scheme of its NIST security category, so that its report can
 * say "1.93x ML-DSA-44" as well as "812 us".  Signatures get ML-DSA
 * (FIPS 204: 44 for categories 1 and 2, 65 for 3, 87 for 4 and 5), KEMs
 * ML-KEM (FIPS 203: 512, 768, 1024 likewise), built from the in-tree
 * schemes (schemes/mldsa, schemes/mlkem, found as `pqprof run mldsa`
 * finds them) with the campaign's first flag profile.
 *
 * A candidate's category comes from --category NAME=N, its descriptor
 * ("security_category"), its API header (instance/api_category.h), a level
 * its instance's or folder's name states (category_from_name), else a
 * bare --category N; the record says which.  A unit
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
#include "core/path_name.h"
#include "instance/api_category.h"
#include "core/atomic_file.h"
#include "supervise/describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <limits.h>
#include <sys/stat.h>

struct standard {
	const char *scheme;     /* in-tree scheme name */
	const char *standard;   /* "FIPS 204" */
	const char *inst[6];    /* instance per category 1..5 */
	/*
	 * How another implementation's instance names each category's set
	 * (matched inside the name, letters and digits only, any case): picks
	 * the instance of a --baseline tree that builds several.
	 */
	const char *alias[6][3];
};

static const struct standard standards[2] = {
	{ "mldsa", "FIPS 204", { NULL, "ML-DSA-44", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87", "ML-DSA-87" },
	  { { NULL }, { "dsa44", "dilithium2", NULL }, { "dsa44", "dilithium2", NULL }, { "dsa65", "dilithium3", NULL },
	    { "dsa87", "dilithium5", NULL }, { "dsa87", "dilithium5", NULL } } },
	{ "mlkem", "FIPS 203", { NULL, "ML-KEM-512", "ML-KEM-512", "ML-KEM-768", "ML-KEM-1024", "ML-KEM-1024" },
	  { { NULL }, { "kem512", "kyber512", NULL }, { "kem512", "kyber512", NULL }, { "kem768", "kyber768", NULL },
	    { "kem1024", "kyber1024", NULL }, { "kem1024", "kyber1024", NULL } } },
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

/* N of a --category NAME=N that names instance `name`; 0 when none does. */
static int named_category(const struct campaign *c, const char *name, int *matched)
{
	for (int i = 0; i < c->o->ncategory_names; i++) {
		const char *e = c->o->category_names[i], *eq = strrchr(e, '=');
		if (eq && strlen(name) == (size_t)(eq - e) && strncasecmp(e, name, (size_t)(eq - e)) == 0) {
			if (matched)
				matched[i] = 1;
			return atoi(eq + 1);
		}
	}
	return 0;
}

/* The category a folder's name states: the tree's folder, else the one above it. */
static int folder_category(const char *path, char *from, size_t len)
{
	char buf[PATH_MAX], tok[32];
	snprintf(buf, sizeof buf, "%s", path);
	for (int up = 0; up < 2; up++) {
		size_t n = strlen(buf);
		while (n > 1 && buf[n - 1] == '/')
			buf[--n] = '\0';
		char *slash = strrchr(buf, '/');
		const char *base = slash ? slash + 1 : buf;
		int v = base[0] ? category_from_name(base, tok, sizeof tok) : 0;
		if (v) {
			snprintf(from, len, "folder %.100s: token %s", base, tok);
			return v;
		}
		if (!slash || slash == buf)
			break;
		*slash = '\0';
	}
	return 0;
}

/*
 * u's category and kind.  The category, first found: --category NAME=N for
 * its instance name, its descriptor ("security_category", already set),
 * its API header, a level its instance name states (category_from_name),
 * one its folder's name states, else a bare --category N.
 */
static void unit_category(const struct campaign *c, struct unit *u, int *matched)
{
	u->kem = campaign_is_kem(c);
	char name[128] = "", tok[32];
	int kem = 0, v = !u->prebuilt && u->tree[0] ? api_category_of_tree(u->tree, name, sizeof name, &kem) : 0;
	if (!u->prebuilt && u->tree[0] && !c->have_desc)
		u->kem = kem;
	int named = named_category(c, u->instance, matched);
	if (named) {
		u->category = named;
		snprintf(u->category_from, sizeof u->category_from, "--category %.100s=%d", u->instance, named);
		return;
	}
	if (u->category)
		return;
	if (v) {
		u->category = v;
		snprintf(u->category_from, sizeof u->category_from, "api.h %s", name);
	} else if ((v = category_from_name(u->instance, tok, sizeof tok)) != 0) {
		u->category = v;
		snprintf(u->category_from, sizeof u->category_from, "name %.100s: token %s", u->instance, tok);
	} else if ((v = folder_category(u->prebuilt ? u->lib : u->tree, u->category_from,
	                                sizeof u->category_from)) != 0) {
		u->category = v;
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

/* "TREE" or "LIB" of a --baseline value, and its category (0: none given). */
static const char *user_base_path(const char *v, int *cat)
{
	*cat = 0;
	if (v[0] >= '1' && v[0] <= '5' && v[1] == '=') {
		*cat = v[0] - '0';
		return v + 2;
	}
	return v;
}

/*
 * The --baseline that serves category cat of kind k: one given for that
 * category, else one given without a category whose own category (its
 * API header, else its folder's name) is cat.  NULL when none.
 */
static const char *user_base_for(const struct campaign *c, int k, int cat)
{
	const char *any = NULL;
	for (int i = 0; i < c->o->nbaselines; i++) {
		int given;
		const char *path = user_base_path(c->o->baselines[i], &given);
		if (c->user_kind[i] != k)
			continue;
		if (given == cat)
			return path;
		if (!given && c->user_cat[i] == cat && !any)
			any = path;
	}
	return any;
}

/* Letters and digits of s, lower case. */
static void alnum_lower(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s && n + 1 < len; s++)
		if (isalnum((unsigned char)*s))
			out[n++] = (char)tolower((unsigned char)*s);
	out[n] = '\0';
}

/* The instance of a --baseline tree that builds several: the one whose name holds an alias of the set. */
static void pick_tree_instance(const struct campaign *c, struct unit *u, int k, int cat)
{
	char names[CAMPAIGN_TREE_MAX_INSTANCES][128];
	int n = campaign_tree_instances(c, u->tree, names, CAMPAIGN_TREE_MAX_INSTANCES);
	for (int v = 0; v < n && n > 1; v++) {
		char flat[128];
		alnum_lower(names[v], flat, sizeof flat);
		for (int a = 0; standards[k].alias[cat][a]; a++)
			if (strstr(flat, standards[k].alias[cat][a])) {
				str_copy(u->select, sizeof u->select, names[v]);
				str_copy(u->instance, sizeof u->instance, names[v]);
				return;
			}
	}
	if (n == 1)
		str_copy(u->instance, sizeof u->instance, names[0]);
}

/* A small regular file's text into buf (NUL-terminated, cut to len - 1); 0, or -1 when it cannot be read. */
static int read_small_text(const char *path, char *buf, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	pq_error ignore = { 0 };
	if (read_whole_file(path, &text, &n, 1 << 20, &ignore) < 0)
		return -1;
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), text);
	free(text);
	return 0;
}

/*
 * "commit 1a2b3c4d5e6f, branch main" for the git work tree holding dir,
 * read from its files (no git program is run on a submitter's tree);
 * "" when dir is in none.
 */
static void git_commit_of(const char *dir, char *out, size_t len)
{
	char d[PATH_MAX], p[PATH_MAX + 64], head[256] = "";
	out[0] = '\0';
	snprintf(d, sizeof d, "%s", dir);
	for (int up = 0; up < 16; up++) {
		snprintf(p, sizeof p, "%s/.git/HEAD", d);
		if (read_small_text(p, head, sizeof head) == 0)
			break;
		head[0] = '\0';
		char *slash = strrchr(d, '/');
		if (!slash || slash == d)
			return;
		*slash = '\0';
	}
	if (!head[0])
		return;
	head[strcspn(head, "\n")] = '\0';
	if (strncmp(head, "ref: ", 5) != 0) {
		snprintf(out, len, "commit %.12s, detached", head);
		return;
	}
	const char *ref = head + 5;
	char sha[256] = "";
	int cut = snprintf(p, sizeof p, "%s/.git/%s", d, ref) >= (int)sizeof p;
	if (cut || strstr(ref, "..") || read_small_text(p, sha, sizeof sha) < 0) {
		/* Packed: "<sha> <ref>" lines of .git/packed-refs. */
		char packed[1 << 16];
		snprintf(p, sizeof p, "%s/.git/packed-refs", d);
		if (read_small_text(p, packed, sizeof packed) == 0)
			for (char *line = strtok(packed, "\n"); line; line = strtok(NULL, "\n")) {
				char *sp = strchr(line, ' ');
				if (sp && strcmp(sp + 1, ref) == 0) {
					snprintf(sha, sizeof sha, "%.*s", (int)(sp - line), line);
					break;
				}
			}
	}
	const char *branch = strncmp(ref, "refs/heads/", 11) == 0 ? ref + 11 : ref;
	if (sha[0])
		snprintf(out, len, "commit %.12s, branch %.100s", sha, branch);
	else
		snprintf(out, len, "branch %.100s", branch);
}

/* Where a baseline unit comes from, as the report names it. */
static void set_origin(struct unit *u, const struct scheme_desc *bd, const char *user)
{
	if (!user) {
		/* Named as pqprof ships it (schemes/mldsa), not by where this machine keeps it. */
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", bd->path);
		char *slash = strrchr(dir, '/');
		if (slash && strcmp(slash, "/scheme.json") == 0)
			*slash = '\0';
		const char *shown = strstr(dir, "/schemes/") ? strstr(dir, "/schemes/") + 1 : path_base(dir);
		snprintf(u->base_origin, sizeof u->base_origin, "pqprof's in-tree %.200s, %.250s, pqprof %s", bd->title, shown,
		         PACKAGE_VERSION);
		return;
	}
	char git[200];
	git_commit_of(u->prebuilt ? "" : u->tree, git, sizeof git);
	snprintf(u->base_origin, sizeof u->base_origin, "--baseline %.300s%s%.150s%s", user, git[0] ? " (git " : "", git,
	         git[0] ? ")" : "");
}

/* A unit for a --baseline: the tree (built with the first profile) or library at path, for category cat. */
static struct unit *add_user_baseline(struct campaign *c, const char *path, int k, int cat,
                                      const struct scheme_desc *bd, pq_error *err)
{
	if (c->nunits >= MAX_UNITS) {
		pq_fail(err, PQ_EINPUT, "more than %d instances x profiles, baselines included", MAX_UNITS);
		return NULL;
	}
	struct unit *u = &c->units[c->nunits++];
	memset(u, 0, sizeof *u);
	struct stat st;
	if (stat(path, &st) < 0 || !realpath(path, S_ISDIR(st.st_mode) ? u->tree : u->lib)) {
		c->nunits--;
		pq_fail_errno(err, PQ_EINPUT, "--baseline %s", path);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		u->prof = &c->profs[0];
		str_copy(u->profile, sizeof u->profile, c->profs[0].name);
		snprintf(u->api, sizeof u->api, "auto");
		pick_tree_instance(c, u, k, cat);
		if (!u->instance[0])
			snprintf(u->instance, sizeof u->instance, "%s", path_base(u->tree));
	} else {
		json_t *d = NULL;
		pq_error derr = { 0 };
		const char *own = instance_describe(u->lib, &d, &derr) == 0 ? json_string_value(json_object_get(d, "name"))
		                                                           : NULL;
		str_copy(u->instance, sizeof u->instance, own && *own ? own : path_base(u->lib));
		json_decref(d);
		str_copy(u->profile, sizeof u->profile, "prebuilt");
		u->prebuilt = 1;
	}
	/* Gated on the published digests of the set it stands for. */
	for (int i = 0; i < bd->ninstances; i++)
		if (strcmp(bd->instances[i].name, standards[k].inst[cat]) == 0)
			snprintf(u->manifest, sizeof u->manifest, "%s", bd->instances[i].manifest);
	u->added_baseline = 1;
	u->category = cat;
	snprintf(u->category_from, sizeof u->category_from, "--baseline for category %d", cat);
	char full[sizeof u->instance + sizeof u->profile + 80];
	if (c->o->shard_n > 0)
		snprintf(full, sizeof full, "baseline%d__%s__%s__shard%dof%d", cat, u->instance, u->profile, c->o->shard_k,
		         c->o->shard_n);
	else
		snprintf(full, sizeof full, "baseline%d__%s__%s", cat, u->instance, u->profile);
	safe_name(u->label, sizeof u->label, full);
	set_origin(u, bd, path);
	return u;
}

/*
 * Each --baseline's kind (signature or KEM) and, when it is given without
 * a category, the category it serves: its API header's, else the one its
 * folder's or file's name states.  Bad input when neither says.
 */
static int classify_user_baselines(struct campaign *c, pq_error *err)
{
	if (c->o->nbaselines > CAMPAIGN_MAX_BASELINES)
		return pq_fail(err, PQ_EUSAGE, "more than %d --baseline options", CAMPAIGN_MAX_BASELINES);
	for (int i = 0; i < c->o->nbaselines; i++) {
		int given;
		const char *path = user_base_path(c->o->baselines[i], &given);
		struct stat st;
		if (stat(path, &st) < 0)
			return pq_fail_errno(err, PQ_EINPUT, "--baseline %s", path);
		char name[128], tok[32];
		int kem = 0, cat = 0;
		if (S_ISDIR(st.st_mode)) {
			cat = api_category_of_tree(path, name, sizeof name, &kem);
		} else if (S_ISREG(st.st_mode)) {
			json_t *d = NULL;
			pq_error derr = { 0 };
			if (instance_describe(path, &d, &derr) < 0)
				return pq_fail(err, PQ_EINPUT, "--baseline %s: %s", path, derr.msg);
			kem = strcmp(json_string_value(json_object_get(d, "kind")) ? json_string_value(json_object_get(d, "kind"))
			                                                           : "", "kem") == 0;
			json_decref(d);
		} else {
			return pq_fail(err, PQ_EINPUT, "--baseline %s: not a directory or a library", path);
		}
		if (!cat)
			cat = category_from_name(path_base(path), tok, sizeof tok);
		if (!given && !cat)
			return pq_fail(err, PQ_EUSAGE, "--baseline %s: nothing in it states its security category; say "
			               "--baseline N=%s", path, path);
		c->user_kind[i] = kem ? 1 : 0;
		c->user_cat[i] = given ? given : cat;
	}
	return 0;
}

int campaign_add_baselines(struct campaign *c, pq_error *err)
{
	int ncand = c->nunits;
	int matched[CAMPAIGN_MAX_CATEGORY_NAMES] = { 0 };
	for (int i = 0; i < ncand; i++)
		unit_category(c, &c->units[i], matched);
	for (int i = 0; i < c->o->ncategory_names && i < CAMPAIGN_MAX_CATEGORY_NAMES; i++)
		if (!matched[i] && strchr(c->o->category_names[i], '=') && !c->o->category_names_loose) {
			pq_fail(err, PQ_EINPUT, "--category %s: this campaign has no instance of that name",
			        c->o->category_names[i]);
			return -PQ_EINPUT;
		}
	if (c->o->no_baseline)
		return 0;
	int r = classify_user_baselines(c, err);
	if (r < 0)
		return r;
	for (int i = 0; i < ncand; i++) {
		struct unit *u = &c->units[i];
		if (!u->category)
			continue;
		int k = u->kem ? 1 : 0;
		const struct scheme_desc *bd = base_scheme(c, k);
		if (!bd)
			continue;
		const char *name = standards[k].inst[u->category];
		const char *user = user_base_for(c, k, u->category);
		struct unit *b = NULL;
		if (user) {
			/* One unit per --baseline and category it serves (categories 1 and 2 share a set and a unit). */
			for (int j = ncand; j < c->nunits && !b; j++)
				if (c->units[j].user_base == user && strcmp(standards[k].inst[c->units[j].category], name) == 0)
					b = &c->units[j];
			if (!b && !(b = add_user_baseline(c, user, k, u->category, bd, err)))
				return -PQ_EINPUT;
			b->user_base = user;
		} else {
			b = existing_baseline(c, bd, name, ncand);
			for (int j = ncand; j < c->nunits && !b; j++)
				if (!c->units[j].user_base && strcmp(c->units[j].instance, name) == 0)
					b = &c->units[j];
			if (!b && !(b = add_baseline_unit(c, bd, name, err)))
				return -PQ_EINPUT;
			if (!b->base_origin[0])
				set_origin(b, bd, NULL);
		}
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
