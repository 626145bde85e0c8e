/* kat_forensics: explain a KAT mismatch record by record; see kat_forensics.h. */
#include "config.h"
#include "kat/kat_forensics.h"
#include "core/path_name.h"
#include "core/text_buf.h"

#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum role { R_NONE = -1, R_PK, R_SK, R_SIG, R_CT, R_N };
static const char *const role_what[R_N] = { "public keys", "secret keys", "signatures", "ciphertexts" };

/* The role of a field, named by its length line (NGCC) or its bytes (both flavours). */
static enum role field_role(const char *name)
{
	static const struct { const char *name; enum role r; } map[] = {
		{ "PK_Len", R_PK }, { "PK", R_PK }, { "pk", R_PK },
		{ "SK_Len", R_SK }, { "SK", R_SK }, { "sk", R_SK },
		{ "Sn_Len", R_SIG }, { "Sn", R_SIG }, { "sm", R_SIG }, { "smlen", R_SIG },
		{ "CT_Len", R_CT }, { "CT", R_CT }, { "ct", R_CT },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].name, name) == 0)
			return map[i].r;
	return R_NONE;
}

static uint64_t declared(const struct kat_instance_sizes *s, enum role r)
{
	switch (r) {
	case R_PK: return s->pk;
	case R_SK: return s->sk;
	case R_SIG: return s->sig;
	case R_CT: return s->ct;
	default: return 0;
	}
}

/* The length field of a role in a record, its name in *name; 0 if the record does not say. */
static int role_len(const struct kat_record *rec, enum role r, uint64_t *len, const char **name)
{
	static const char *const ngcc[R_N] = { "PK_Len", "SK_Len", "Sn_Len", "CT_Len" };
	static const char *const nist[R_N] = { "pk", "sk", "sm", "ct" };
	const struct kat_field *f = kat_record_field(rec, ngcc[r]);
	if (f && f->kind == KAT_VALUE_INT) {
		*len = f->num;
		*name = ngcc[r];
		return 1;
	}
	f = kat_record_field(rec, nist[r]);
	if (!f || f->kind != KAT_VALUE_HEX)
		return 0;
	*len = f->len;
	*name = r == R_SIG ? "smlen - mlen" : nist[r];
	if (r == R_SIG) {
		uint64_t mlen;
		if (kat_record_int(rec, "mlen", &mlen) < 0 || mlen > f->len)
			return 0;
		*len = f->len - mlen;
	}
	return 1;
}

static int field_same(const struct kat_field *e, const struct kat_field *g)
{
	if (!g)
		return 0;
	if (e->kind == KAT_VALUE_BLANK && g->kind == KAT_VALUE_INT)
		return 1;
	if (e->kind != g->kind)
		return 0;
	if (e->kind == KAT_VALUE_INT)
		return e->num == g->num;
	if (e->kind == KAT_VALUE_HEX)
		return e->len == g->len && (e->len == 0 || memcmp(e->bytes, g->bytes, e->len) == 0);
	return 1;
}

static int record_same(const struct kat_record *e, const struct kat_record *g)
{
	if (!g)
		return 0;
	for (size_t j = 0; j < e->nfields; j++)
		if (!field_same(&e->fields[j], kat_record_field(g, e->fields[j].name)))
			return 0;
	return e->nfields == g->nfields;
}

char *kat_forensics_ranges(const long *recs, size_t n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && recs[j + 1] == recs[j] + 1)
			j++;
		char one[64];
		if (j - i >= 2)
			snprintf(one, sizeof one, "%ld\u2013%ld", recs[i], recs[j]);
		else if (j > i)
			snprintf(one, sizeof one, "%ld, %ld", recs[i], recs[j]);
		else
			snprintf(one, sizeof one, "%ld", recs[i]);
		/* Only whole ranges: a list too long for buf ends in ", …", never in a cut number. */
		if (text_add_item(buf, len, ", ", one, RANGES_MORE) < 0)
			break;
		i = j + 1;
	}
	return buf;
}

void kat_forensics_manifest_only(const char *file, char *buf, size_t len)
{
	snprintf(buf, len,
	         "Only the manifest digest of %s is at hand, so the difference cannot be localised to records "
	         "or fields; pass the submitted file itself too (pqprof kat LIB --manifest M --vectors FILE, or a "
	         "campaign unit's vectors) to have the differing records, fields and lengths named.",
	         file && *file ? file : "the vector file");
}

/* Per field: how many differing records have it differ, and the expected lengths seen. */
#define MAX_FIELDS 24
#define MAX_LENS 4
struct field_stat {
	char name[KAT_FIELD_NAME_MAX];
	size_t records;
	uint64_t lens[MAX_LENS];
	size_t nlens;
};

static struct field_stat *field_stat(struct field_stat *fs, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(fs[i].name, name) == 0)
			return &fs[i];
	if (*n == MAX_FIELDS)
		return NULL;
	struct field_stat *s = &fs[(*n)++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	return s;
}

static void add_len(struct field_stat *s, uint64_t v)
{
	for (size_t i = 0; i < s->nlens; i++)
		if (s->lens[i] == v)
			return;
	if (s->nlens < MAX_LENS)
		s->lens[s->nlens++] = v;
}

struct text {
	char buf[2048];
	size_t k;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	if (t->k >= sizeof t->buf)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->k, sizeof t->buf - t->k, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->k += (size_t)n;
}

/*
 * Are the records recs[0..n) of expected records of sibling s?  2: they
 * equal s's own vectors; 1: every length they carry is s's declared size
 * and at least one is not self's; 0: neither.
 */
static int sibling_fit(const struct kat_file *exp, const long *recs, size_t n,
                       const struct kat_instance_sizes *self, const struct kat_instance_sizes *s)
{
	if (s->produced) {
		size_t i = 0;
		for (; i < n; i++) {
			size_t r = (size_t)recs[i];
			if (r >= s->produced->nrecords || !record_same(&exp->records[r], &s->produced->records[r]))
				break;
		}
		if (i == n)
			return 2;
	}
	int other = 0;
	for (size_t i = 0; i < n; i++) {
		for (int r = 0; r < R_N; r++) {
			uint64_t len, want = declared(s, (enum role)r);
			const char *nm;
			if (!want || !role_len(&exp->records[recs[i]], (enum role)r, &len, &nm))
				continue;
			if (len != want)
				return 0;
			other |= len != declared(self, (enum role)r);
		}
	}
	return other;
}

int kat_forensics_lengths_fit(const struct kat_file *exp, const struct kat_file *prod,
                              const struct kat_instance_sizes *self, const struct kat_instance_sizes *sib)
{
	long *differ = calloc(exp->nrecords ? exp->nrecords : 1, sizeof *differ);
	if (!differ)
		return 0;
	size_t nd = 0;
	for (size_t i = 0; i < exp->nrecords; i++)
		if (i >= prod->nrecords || !record_same(&exp->records[i], &prod->records[i]))
			differ[nd++] = (long)i;
	struct kat_instance_sizes by_len = *sib;
	by_len.produced = NULL;
	int fit = nd && sibling_fit(exp, differ, nd, self, &by_len) == 1;
	free(differ);
	return fit;
}

/* What one comparison of the expected file with the produced one gathers, and the text it writes. */
struct forensics {
	const struct kat_file *exp, *prod;
	const struct kat_instance_sizes *self;
	size_t n;                            /* expected records */
	long *differ, *match, *seedoff;      /* record numbers: differing, matching, seeds off the sequence */
	size_t nd, nm, nseedoff, nseeds;
	struct field_stat fs[MAX_FIELDS];
	size_t nfs;
	int role_differs[R_N], role_present[R_N];
	char dr[512], mr[512];               /* differ and match as ranges */
	struct text t;
};

/* Record i field by field: which fields differ (and the lengths the file gives them), which roles, the seed. */
static void compare_record(struct forensics *f, size_t i)
{
	const struct kat_record *er = &f->exp->records[i];
	const struct kat_record *gr = i < f->prod->nrecords ? &f->prod->records[i] : NULL;
	int same = 1;
	for (size_t j = 0; j < er->nfields; j++) {
		const struct kat_field *ef = &er->fields[j];
		const struct kat_field *gf = gr ? kat_record_field(gr, ef->name) : NULL;
		enum role r = field_role(ef->name);
		if (r != R_NONE)
			f->role_present[r] = 1;
		if (strcasecmp(ef->name, "seed") == 0 && gf) {
			f->nseeds++;
			if (!field_same(ef, gf))
				f->seedoff[f->nseedoff++] = (long)i;
		}
		if (!gr || field_same(ef, gf))
			continue;
		same = 0;
		if (r != R_NONE)
			f->role_differs[r] = 1;
		struct field_stat *s = field_stat(f->fs, &f->nfs, ef->name);
		if (!s)
			continue;
		s->records++;
		/* The length the file gives this field's item (its _Len line, or its bytes). */
		uint64_t len;
		const char *lname;
		if (r != R_NONE && role_len(er, r, &len, &lname))
			add_len(s, len);
	}
	if (same)
		f->match[f->nm++] = (long)i;
	else
		f->differ[f->nd++] = (long)i;
}

/* The first sentence: which records differ and which match, as ranges. */
static void say_records(struct forensics *f, const char *expected_path)
{
	struct text *t = &f->t;
	size_t nd = f->nd, nm = f->nm;
	kat_forensics_ranges(f->differ, nd, f->dr, sizeof f->dr);
	kat_forensics_ranges(f->match, nm, f->mr, sizeof f->mr);
	const char *base = expected_path ? path_base(expected_path) : NULL;
	if (base)
		put(t, "The submitted %s: ", base);
	if (!nd)
		put(t, "all %zu records match field by field", f->n);
	else
		put(t, "record%s %s (%zu of %zu) differ%s", nd == 1 ? "" : "s", f->dr, nd, f->n, nd == 1 ? "s" : "");
	if (nd && nm)
		put(t, "; record%s %s match%s", nm == 1 ? "" : "s", f->mr, nm == 1 ? "es" : "");
	if (f->prod->nrecords < f->n)
		put(t, " (the instance produced only %zu records)", f->prod->nrecords);
	put(t, ".");
}

/* One differing field: in how many records, and its expected lengths against the declared size. */
static json_t *say_field(struct forensics *f, size_t i)
{
	struct text *t = &f->t;
	const struct field_stat *s = &f->fs[i];
	put(t, "%s %s in %zu record%s", i ? "," : "", s->name, s->records, s->records == 1 ? "" : "s");
	json_t *o = json_pack("{s:s, s:I}", "field", s->name, "records", (json_int_t)s->records);
	enum role r = field_role(s->name);
	uint64_t want = r == R_NONE ? 0 : declared(f->self, r);
	if (!s->nlens || !want)
		return o;
	json_t *lens = json_array();
	put(t, " (expected ");
	for (size_t k = 0; k < s->nlens; k++) {
		put(t, "%s%llu", k ? " or " : "", (unsigned long long)s->lens[k]);
		json_array_append_new(lens, json_integer((json_int_t)s->lens[k]));
	}
	int is_decl = s->nlens == 1 && s->lens[0] == want;
	if (is_decl)
		put(t, ", this instance's declared size)");
	else
		put(t, "; this instance declares %llu)", (unsigned long long)want);
	json_object_set_new(o, "expected_lengths", lens);
	json_object_set_new(o, "declared", json_integer((json_int_t)want));
	json_object_set_new(o, "length_is_declared", json_boolean(is_decl));
	return o;
}

/* The differing fields, one by one; the JSON array of them. */
static json_t *say_fields(struct forensics *f)
{
	json_t *jf = json_array();
	if (!f->nfs)
		return jf;
	put(&f->t, " Differing fields:");
	for (size_t i = 0; i < f->nfs; i++)
		json_array_append_new(jf, say_field(f, i));
	put(&f->t, ".");
	return jf;
}

/*
 * The differing records are sibling s's (fit 2: its own vectors, 1: its
 * sizes): say so, with the lengths that give them away (the first
 * differing record's), and whether the file mixes two parameter sets.
 */
static json_t *say_sibling(struct forensics *f, const struct kat_instance_sizes *s, int fit)
{
	struct text *t = &f->t;
	size_t nd = f->nd;
	put(t, " Record%s %s %s %s record%s", nd == 1 ? "" : "s", f->dr, nd == 1 ? "is a" : "are", s->name,
	    nd == 1 ? "" : "s");
	const struct kat_record *er = &f->exp->records[f->differ[0]];
	int first = 1;
	for (int r = 0; r < R_N; r++) {
		uint64_t len;
		const char *nm_;
		uint64_t mine = declared(f->self, (enum role)r);
		if (!role_len(er, (enum role)r, &len, &nm_) || !mine || len == mine)
			continue;
		put(t, "%s%s %llu, this instance declares %llu", first ? " (" : "; ", nm_, (unsigned long long)len,
		    (unsigned long long)mine);
		first = 0;
	}
	if (fit == 2)
		put(t, "%sthey equal %s's own vectors", first ? " (" : "; ", s->name);
	if (!first || fit == 2)
		put(t, ")");
	if (f->nm)
		put(t, ": the file mixes two parameter sets, so no %s build can reproduce it",
		    f->self->name ? f->self->name : "build of this instance");
	return json_pack("{s:s, s:s}", "name", s->name, "by", fit == 2 ? "vectors" : "lengths");
}

/* Which parameter set the differing records belong to, and what still agrees across the file (public keys, say). */
static json_t *say_parameter_set(struct forensics *f, const struct kat_instance_sizes *sibs, size_t nsib)
{
	json_t *jsib = json_null();
	if (!f->nd)
		return jsib;
	for (size_t i = 0; i < nsib; i++) {
		int fit = sibling_fit(f->exp, f->differ, f->nd, f->self, &sibs[i]);
		if (fit) {
			jsib = say_sibling(f, &sibs[i], fit);
			break;
		}
	}
	int agree = 0;
	for (int r = 0; r < R_N; r++) {
		if (!f->role_present[r] || f->role_differs[r])
			continue;
		put(&f->t, "%s%s", agree ? " and " : json_is_null(jsib) ? " The " : "; ", role_what[r]);
		agree = 1;
	}
	if (agree)
		put(&f->t, " agree");
	if (!json_is_null(jsib) || agree)
		put(&f->t, ".");
	return jsib;
}

/* Whether the file's seeds follow the harness's sequence: "absent", "harness" or "other". */
static const char *say_seeds(struct forensics *f)
{
	if (!f->nseeds)
		return "absent";
	if (!f->nseedoff) {
		put(&f->t, " The file's seeds follow the harness's seed sequence.");
		return "harness";
	}
	char seedtext[600];
	kat_forensics_ranges(f->seedoff, f->nseedoff, seedtext, sizeof seedtext);
	put(&f->t, " The seeds of record%s %s do not follow the harness's seed sequence (a different "
	    "DRNG or seeding), which alone changes every derived field.", f->nseedoff == 1 ? "" : "s", seedtext);
	return "other";
}

static json_t *json_longs(const long *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

int kat_forensics(const struct kat_file *exp, const struct kat_file *prod, const char *expected_path,
                  const struct kat_instance_sizes *self, const struct kat_instance_sizes *sibs, size_t nsib,
                  json_t **out, pq_error *err)
{
	*out = NULL;
	size_t n = exp->nrecords;
	struct forensics fo = { .exp = exp, .prod = prod, .self = self, .n = n }, *f = &fo;
	f->differ = calloc(n ? n : 1, sizeof *f->differ);
	f->match = calloc(n ? n : 1, sizeof *f->match);
	f->seedoff = calloc(n ? n : 1, sizeof *f->seedoff);
	if (!f->differ || !f->match || !f->seedoff) {
		free(f->differ);
		free(f->match);
		free(f->seedoff);
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		compare_record(f, i);
	say_records(f, expected_path);
	json_t *jf = say_fields(f);
	json_t *jsib = say_parameter_set(f, sibs, nsib);
	const char *seeds = say_seeds(f);
	*out = json_pack("{s:I, s:o, s:o, s:o, s:s, s:o, s:s}", "records", (json_int_t)n, "differ",
	                 json_longs(f->differ, f->nd), "match", json_longs(f->match, f->nm), "fields", jf, "seeds", seeds,
	                 "sibling", jsib, "text", f->t.buf);
	free(f->differ);
	free(f->match);
	free(f->seedoff);
	return *out ? 0 : pq_fail(err, PQ_ENOMEM, "out of memory");
}
