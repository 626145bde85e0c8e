/* round_index: the index of a round's campaigns; see round_index.h. */
#include "config.h"
#include "report/round_index.h"
#include "report/escape.h"
#include "report/report.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/json_file.h"
#include "core/safe_name.h"
#include "core/units.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define STATE_FILE "round.json"
#define NOPS 3
#define DASH "\xe2\x80\x93"   /* "–": a figure the records do not hold */

static const char *const sig_ops[NOPS] = { "keygen", "sign", "verify" };
static const char *const kem_ops[NOPS] = { "keygen", "enc", "dec" };

struct ratio {
	int have;
	double ratio, lo, hi;
};

struct row {
	char package[128];
	char instance[160];
	char kind[16];              /* "signature", "kem", or "" */
	int baseline_role;          /* role "baseline" */
	int category;               /* -1: not known */
	char verdict[32];           /* PASS, BUILD FAILED, MISMATCH, NO REPORT ... */
	char reason[512];
	double median_ns[NOPS];     /* < 0: none */
	long size[3];               /* pk, sk, sig or ct; < 0: none */
	char baseline[160];         /* the baseline instance of the ratios, or "" */
	char yard[300];             /* where that baseline (a baseline row: it) comes from, or "" when not recorded */
	struct ratio ratio[NOPS];
	char report_md[300], report_html[300];  /* relative to ROOT, or "" */
	int order;                  /* position before sorting (the stable tie-break) */
};

struct rows {
	struct row *r;
	size_t n, cap;
	int oom;
};

static struct row *row_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 32;
		struct row *nr = realloc(rs->r, cap * sizeof *nr);
		if (!nr) {
			rs->oom = 1;
			return NULL;
		}
		rs->r = nr;
		rs->cap = cap;
	}
	struct row *w = &rs->r[rs->n];
	memset(w, 0, sizeof *w);
	w->category = -1;
	for (int i = 0; i < NOPS; i++)
		w->median_ns[i] = -1;
	for (int i = 0; i < 3; i++)
		w->size[i] = -1;
	w->order = (int)rs->n++;
	return w;
}

static int is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static json_t *load(const char *root, const char *pkg, const char *file)
{
	char p[4096];
	if (path_fmt(p, sizeof p, NULL, pkg ? "%s/%s/%s" : "%s/%s", root, pkg ? pkg : file, file) < 0)
		return NULL;
	return json_load_regular(p, 0, NULL);
}

/* The first line of s, at most len - 1 bytes (a compiler's message joined with " | ": its first part). */
static void first_line(char *out, size_t len, const char *s)
{
	size_t k = strcspn(s, "\n");
	const char *bar = strstr(s, " | ");
	if (bar && (size_t)(bar - s) < k)
		k = (size_t)(bar - s);
	snprintf(out, len, "%.*s", (int)(k < len ? k : len - 1), s);
}

static const char *const *ops_of(const struct row *w)
{
	return strcmp(w->kind, "kem") == 0 ? kem_ops : sig_ops;
}

/* Why instance label of pkg failed: its build record's failure, else its KAT record's reason. */
static void failure_reason(const char *root, const char *pkg, const char *label, struct row *w)
{
	char rel[600];
	snprintf(rel, sizeof rel, "build/%s.json", label);
	json_t *b = load(root, pkg, rel);
	const char *why = jstr(b, "failure");
	if (*why)
		first_line(w->reason, sizeof w->reason, why);
	json_decref(b);
	if (w->reason[0])
		return;
	snprintf(rel, sizeof rel, "kat/%s.json", label);
	json_t *k = load(root, pkg, rel);
	why = jstr(json_object_get(k, "outcome"), "reason");
	first_line(w->reason, sizeof w->reason, why);
	json_decref(k);
}

static void row_from_report(const char *root, const char *pkg, const json_t *jr, struct row *w)
{
	str_copy(w->package, sizeof w->package, pkg);
	str_copy(w->instance, sizeof w->instance, *jstr(jr, "shown") ? jstr(jr, "shown") : jstr(jr, "instance"));
	str_copy(w->kind, sizeof w->kind, jstr(jr, "kind"));
	w->baseline_role = strcmp(jstr(jr, "role"), "baseline") == 0;
	json_t *cat = json_object_get(jr, "category");
	if (json_is_integer(cat))
		w->category = (int)json_integer_value(cat);
	const char *kat = jstr(jr, "kat");
	if (strcmp(kat, "BUILD") == 0)
		str_copy(w->verdict, sizeof w->verdict, "BUILD FAILED");
	else if (strcmp(kat, "NOKAT") == 0 || !*kat)
		str_copy(w->verdict, sizeof w->verdict, "NO KAT");
	else
		str_copy(w->verdict, sizeof w->verdict, kat);
	const char *const *ops = ops_of(w);
	json_t *jops = json_object_get(jr, "ops");
	json_t *bl = json_object_get(jr, "baseline");
	str_copy(w->baseline, sizeof w->baseline, jstr(bl, "instance"));
	str_copy(w->yard, sizeof w->yard, w->baseline_role ? jstr(jr, "origin") : jstr(bl, "origin"));
	for (int i = 0; i < NOPS; i++) {
		json_t *m = json_object_get(json_object_get(jops, ops[i]), "median_ns");
		if (json_is_number(m))
			w->median_ns[i] = json_number_value(m);
		json_t *q = json_object_get(json_object_get(bl, "ops"), ops[i]);
		json_t *ra = json_object_get(q, "ratio"), *lo = json_object_get(q, "lo"), *hi = json_object_get(q, "hi");
		if (json_is_number(ra)) {
			w->ratio[i].have = 1;
			w->ratio[i].ratio = json_number_value(ra);
			w->ratio[i].lo = json_is_number(lo) ? json_number_value(lo) : NAN;
			w->ratio[i].hi = json_is_number(hi) ? json_number_value(hi) : NAN;
		}
	}
	static const char *const size_keys[3] = { "pk", "sk", NULL };
	json_t *sz = json_object_get(jr, "sizes");
	for (int i = 0; i < 3; i++) {
		json_t *v = json_object_get(sz, size_keys[i] ? size_keys[i] : strcmp(w->kind, "kem") == 0 ? "ct" : "sig");
		if (json_is_integer(v))
			w->size[i] = (long)json_integer_value(v);
	}
	if (strcmp(w->verdict, "PASS") != 0) {
		char label[400], inst[200];
		safe_name(inst, sizeof inst, jstr(jr, "instance"));
		snprintf(label, sizeof label, "%s__%s", inst, jstr(jr, "profile"));
		failure_reason(root, pkg, label, w);
	}
}

/* The package's rows: its report's, else one saying why there is none. */
static void package_rows(const char *root, const json_t *st, struct rows *rs)
{
	const char *pkg = jstr(st, "package");
	json_t *rep = load(root, pkg, "report.json");
	json_t *rows = json_object_get(json_object_get(rep, "summary"), "rows");
	char md[300], html[300], p[4096];
	snprintf(md, sizeof md, "%s/report.md", pkg);
	snprintf(html, sizeof html, "%s/report.html", pkg);
	int have_md = path_fmt(p, sizeof p, NULL, "%s/%s", root, md) == 0 && is_file(p);
	int have_html = path_fmt(p, sizeof p, NULL, "%s/%s", root, html) == 0 && is_file(p);
	size_t i;
	json_t *jr;
	json_array_foreach(rows, i, jr) {
		struct row *w = row_add(rs);
		if (!w)
			break;
		row_from_report(root, pkg, jr, w);
		if (have_md)
			str_copy(w->report_md, sizeof w->report_md, md);
		if (have_html)
			str_copy(w->report_html, sizeof w->report_html, html);
	}
	if (json_array_size(rows) == 0) {
		struct row *w = row_add(rs);
		if (w) {
			const char *status = jstr(st, "status"), *error = jstr(st, "error");
			json_t *camp = load(root, pkg, "campaign.json");
			str_copy(w->package, sizeof w->package, pkg);
			str_copy(w->verdict, sizeof w->verdict,
			         strcmp(status, "no submission") == 0 ? "NO SUBMISSION"
			         : strcmp(status, "failed") == 0 ? "FAILED"
			         : camp ? "NO REPORT" : "NOT RUN");
			if (*error)
				first_line(w->reason, sizeof w->reason, error);
			else if (camp)
				snprintf(w->reason, sizeof w->reason, "the campaign in %s/ is %s and wrote no report", pkg,
				         *jstr(camp, "status") ? jstr(camp, "status") : "incomplete");
			else
				snprintf(w->reason, sizeof w->reason, "no campaign in %s/ (status %s)", pkg, *status ? status : "unknown");
			json_decref(camp);
		}
	}
	json_decref(rep);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	unsigned cx = (unsigned)x->category, cy = (unsigned)y->category;   /* -1 (none) sorts last */
	if (cx != cy)
		return cx < cy ? -1 : 1;
	int c = strcmp(x->package, y->package);
	if (c == 0)
		c = strcmp(x->instance, y->instance);
	return c ? c : x->order - y->order;
}

/* The packages of the round: round.json's, else every folder of root holding a campaign. */
static json_t *packages_of(const char *root)
{
	json_t *st = load(root, NULL, STATE_FILE);
	json_t *pk = json_incref(json_object_get(st, "packages"));
	json_decref(st);
	if (json_is_array(pk))
		return pk;
	json_decref(pk);
	pk = json_array();
	struct dirent **l;
	int n = scandir(root, &l, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char p[4096];
		if (l[i]->d_name[0] != '.' && path_fmt(p, sizeof p, NULL, "%s/%s/campaign.json", root, l[i]->d_name) == 0 &&
		    is_file(p))
			json_array_append_new(pk, json_pack("{s:s, s:s}", "package", l[i]->d_name, "status", "unknown"));
		free(l[i]);
	}
	if (n >= 0)
		free(l);
	return pk;
}

/* ---------------- figures as text ---------------- */

static void fmt_median(char *b, size_t len, double ns)
{
	if (ns < 0)
		snprintf(b, len, DASH);
	else
		fmt_seconds(b, len, ns * 1e-9);
}

static void fmt_size(char *b, size_t len, long v)
{
	if (v < 0)
		snprintf(b, len, DASH);
	else
		fmt_bytes_binary(b, len, (double)v);
}

/* "1.93× (1.85–2.01)", as the campaign report's summary writes a ratio to the baseline. */
static void fmt_ratio(char *b, size_t len, const struct ratio *q)
{
	char v[32], lo[32], hi[32];
	fmt_multiple(v, sizeof v, q->ratio);
	fmt_multiple(lo, sizeof lo, q->lo);
	fmt_multiple(hi, sizeof hi, q->hi);
	if (!q->have)
		snprintf(b, len, DASH);
	else if (isfinite(q->lo) && isfinite(q->hi))
		snprintf(b, len, "%s× (%s–%s)", v, lo, hi);
	else
		snprintf(b, len, "%s×", v);
}

static void fmt_category(char *b, size_t len, int c)
{
	if (c < 0)
		snprintf(b, len, DASH);
	else
		snprintf(b, len, "%d", c);
}

static const char *kind_text(const struct row *w)
{
	return strcmp(w->kind, "kem") == 0 ? "KEM" : strcmp(w->kind, "signature") == 0 ? "signature" : DASH;
}

/* Column headers: the candidates' and baselines' tables alike. */
enum col { C_CAT, C_PKG, C_INST, C_KIND, C_KAT, C_T0, C_T1, C_T2, C_PK, C_SK, C_SIG, C_R0, C_R1, C_R2, C_BASE,
	   C_REPORT, C_REASON, C_COUNT };
static const char *const col_title[C_COUNT] = {
	"Category", "Package", "Instance", "Kind", "KAT", "keygen", "sign / enc", "verify / dec", "pk", "sk",
	"sig / ct", "keygen ratio", "sign / enc ratio", "verify / dec ratio", "Baseline", "Report", "Reason",
};

/* The text of one cell (links and reasons are the writers'). */
static void cell_text(const struct row *w, enum col c, char *b, size_t len)
{
	switch (c) {
	case C_CAT: fmt_category(b, len, w->category); break;
	case C_PKG: str_copy(b, len, w->package); break;
	case C_INST: str_copy(b, len, w->instance[0] ? w->instance : DASH); break;
	case C_KIND: str_copy(b, len, kind_text(w)); break;
	case C_KAT: str_copy(b, len, w->verdict); break;
	case C_T0: case C_T1: case C_T2: fmt_median(b, len, w->median_ns[c - C_T0]); break;
	case C_PK: case C_SK: case C_SIG: fmt_size(b, len, w->size[c - C_PK]); break;
	case C_R0: case C_R1: case C_R2: fmt_ratio(b, len, &w->ratio[c - C_R0]); break;
	case C_BASE: str_copy(b, len, w->baseline[0] ? w->baseline : DASH); break;
	case C_REASON: str_copy(b, len, w->reason[0] ? w->reason : ""); break;
	default: b[0] = '\0';
	}
}

/* The number a numeric column sorts by, or NAN for text columns and missing figures. */
static double cell_value(const struct row *w, enum col c)
{
	switch (c) {
	case C_CAT: return w->category < 0 ? NAN : w->category;
	case C_T0: case C_T1: case C_T2: return w->median_ns[c - C_T0] < 0 ? NAN : w->median_ns[c - C_T0];
	case C_PK: case C_SK: case C_SIG: return w->size[c - C_PK] < 0 ? NAN : (double)w->size[c - C_PK];
	case C_R0: case C_R1: case C_R2: return w->ratio[c - C_R0].have ? w->ratio[c - C_R0].ratio : NAN;
	default: return NAN;
	}
}

static int col_numeric(enum col c)
{
	return c == C_CAT || (c >= C_T0 && c <= C_SIG) || (c >= C_R0 && c <= C_R2);
}

/* ---------------- Markdown ---------------- */

/*
 * Whether row w belongs in a table of role `baselines` and yardstick yard
 * (NULL: any; "": candidates measured against no baseline).
 */
static int in_table(const struct row *w, int baselines, const char *yard)
{
	if (w->baseline_role != baselines)
		return 0;
	if (!yard)
		return 1;
	return yard[0] ? w->baseline[0] && strcmp(w->yard, yard) == 0 : !w->baseline[0];
}

/*
 * The yardsticks candidates' ratios were taken against (baselines of one
 * origin: pqprof's in-tree schemes, or a --baseline), each once, into
 * yards; their number.  Ratios against different ones never share a column:
 * with more than one, each gets a table of its own.
 */
#define MAX_YARDS 16
static int yardsticks(const struct rows *rs, const char *yards[MAX_YARDS])
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		if (w->baseline_role || !w->baseline[0])
			continue;
		int seen = 0;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(yards[k], w->yard) == 0;
		if (!seen && n < MAX_YARDS)
			yards[n++] = w->yard;
	}
	return n;
}

static int count_in(const struct rows *rs, int baselines, const char *yard)
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += in_table(&rs->r[i], baselines, yard);
	return n;
}

static void md_table(FILE *f, const struct rows *rs, int baselines, const char *yard)
{
	for (int c = 0; c < C_COUNT; c++)
		fprintf(f, "| %s ", col_title[c]);
	fputs("|\n", f);
	for (int c = 0; c < C_COUNT; c++)
		fputs(col_numeric(c) ? "| ---: " : "| --- ", f);
	fputs("|\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		if (!in_table(w, baselines, yard))
			continue;
		for (int c = 0; c < C_COUNT; c++) {
			char b[600];
			fputs("| ", f);
			if (c == C_REPORT) {
				if (w->report_md[0]) {
					fputs("[report](", f);
					esc_url(f, w->report_md);
					fputs(")", f);
				} else {
					fputs(DASH, f);
				}
			} else {
				cell_text(w, c, b, sizeof b);
				esc_md(f, b, 1);
			}
			fputc(' ', f);
		}
		fputs("|\n", f);
	}
}

static int count_role(const struct rows *rs, int baseline)
{
	int n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += rs->r[i].baseline_role == baseline;
	return n;
}

static int write_md(const char *root, const struct rows *rs, int npkg, pq_error *err)
{
	char path[4096];
	atomic_file af;
	int r = path_fmt(path, sizeof path, err, "%s/index.md", root);
	if (r == 0)
		r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	FILE *f = af.fp;
	fprintf(f, "# Round index\n\n%d package%s, %d candidate instance%s. Times are medians; ratios are to the "
	        "baseline instance, with their 95%% interval. Rows are sorted by NIST security category, then package "
	        "and instance; \"" DASH "\" is a figure the package's report does not hold.\n\n",
	        npkg, npkg == 1 ? "" : "s", count_role(rs, 0), count_role(rs, 0) == 1 ? "" : "s");
	const char *yards[MAX_YARDS];
	int ny = yardsticks(rs, yards);
	if (ny <= 1) {
		fputs("## Candidates\n\n", f);
		md_table(f, rs, 0, NULL);
	}
	for (int k = 0; ny > 1 && k < ny; k++) {
		fputs(k ? "\n## Candidates against " : "## Candidates against ", f);
		esc_md(f, yards[k][0] ? yards[k] : "baselines of unrecorded origin", 0);
		fputs("\n\n", f);
		md_table(f, rs, 0, yards[k]);
	}
	if (ny > 1 && count_in(rs, 0, "")) {
		fputs("\n## Candidates without a baseline\n\n", f);
		md_table(f, rs, 0, "");
	}
	if (count_role(rs, 1)) {
		fputs("\n## Baselines\n\nEach baseline instance once, with where it comes from; candidates are compared "
		      "with it.\n\n", f);
		md_table(f, rs, 1, NULL);
		for (size_t i = 0; i < rs->n; i++)
			if (rs->r[i].baseline_role && rs->r[i].yard[0]) {
				fputs("- ", f);
				esc_md(f, rs->r[i].instance, 0);
				fputs(": ", f);
				esc_md(f, rs->r[i].yard, 0);
				fputc('\n', f);
			}
	}
	return atomic_file_commit(&af, err);
}

/* ---------------- CSV ---------------- */

static void csv_num(FILE *f, double v, int integer)
{
	if (isfinite(v))
		fprintf(f, integer ? ",%.0f" : ",%.15g", v);
	else
		fputc(',', f);
}

static int write_csv(const char *root, const struct rows *rs, pq_error *err)
{
	char path[4096];
	atomic_file af;
	int r = path_fmt(path, sizeof path, err, "%s/index.csv", root);
	if (r == 0)
		r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	FILE *f = af.fp;
	fputs("package,instance,kind,role,category,verdict,reason,op1,op1_median_ns,op2,op2_median_ns,op3,op3_median_ns,"
	      "pk_bytes,sk_bytes,sig_or_ct,sig_or_ct_bytes,baseline,op1_ratio,op1_lo,op1_hi,op2_ratio,op2_lo,op2_hi,"
	      "op3_ratio,op3_lo,op3_hi,report_md,report_html\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		const char *const *ops = ops_of(w);
		esc_csv(f, w->package);
		fputc(',', f);
		esc_csv(f, w->instance);
		fprintf(f, ",%s,%s,", w->kind, w->baseline_role ? "baseline" : "candidate");
		if (w->category >= 0)
			fprintf(f, "%d", w->category);
		fputc(',', f);
		esc_csv(f, w->verdict);
		fputc(',', f);
		esc_csv(f, w->reason);
		for (int k = 0; k < NOPS; k++) {
			fprintf(f, ",%s", ops[k]);
			csv_num(f, w->median_ns[k] < 0 ? NAN : w->median_ns[k], 0);
		}
		for (int k = 0; k < 2; k++)
			csv_num(f, w->size[k] < 0 ? NAN : (double)w->size[k], 1);
		fprintf(f, ",%s", strcmp(w->kind, "kem") == 0 ? "ct" : "sig");
		csv_num(f, w->size[2] < 0 ? NAN : (double)w->size[2], 1);
		fputc(',', f);
		esc_csv(f, w->baseline);
		for (int k = 0; k < NOPS; k++) {
			csv_num(f, w->ratio[k].have ? w->ratio[k].ratio : NAN, 0);
			csv_num(f, w->ratio[k].have ? w->ratio[k].lo : NAN, 0);
			csv_num(f, w->ratio[k].have ? w->ratio[k].hi : NAN, 0);
		}
		fputc(',', f);
		esc_csv(f, w->report_md);
		fputc(',', f);
		esc_csv(f, w->report_html);
		fputc('\n', f);
	}
	return atomic_file_commit(&af, err);
}

/* ---------------- JSON ---------------- */

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const struct row *w)
{
	const char *const *ops = ops_of(w);
	json_t *jops = json_object(), *ratios = json_object(), *sizes = json_object();
	for (int k = 0; k < NOPS; k++) {
		json_object_set_new(jops, ops[k], json_pack("{s:o}", "median_ns",
		                                              num_or_null(w->median_ns[k] < 0 ? NAN : w->median_ns[k])));
		if (w->ratio[k].have)
			json_object_set_new(ratios, ops[k], json_pack("{s:o, s:o, s:o}", "ratio", num_or_null(w->ratio[k].ratio),
			                                              "lo", num_or_null(w->ratio[k].lo), "hi",
			                                              num_or_null(w->ratio[k].hi)));
	}
	const char *sk[3] = { "pk", "sk", strcmp(w->kind, "kem") == 0 ? "ct" : "sig" };
	for (int k = 0; k < 3; k++)
		json_object_set_new(sizes, sk[k], w->size[k] < 0 ? json_null() : json_integer(w->size[k]));
	json_t *bl = w->baseline[0] ? json_pack("{s:s, s:s, s:o}", "instance", w->baseline, "origin", w->yard, "ops", ratios)
	                            : (json_decref(ratios), json_null());
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:{s:o, s:o}}", "package", w->package,
	                 "instance", w->instance, "kind", w->kind, "role", w->baseline_role ? "baseline" : "candidate",
	                 "category", w->category < 0 ? json_null() : json_integer(w->category), "verdict", w->verdict,
	                 "reason", w->reason, "ops", jops, "sizes", sizes, "baseline", bl, "report", "md",
	                 w->report_md[0] ? json_string(w->report_md) : json_null(), "html",
	                 w->report_html[0] ? json_string(w->report_html) : json_null());
}

static int write_json(const char *root, const struct rows *rs, const json_t *pkgs, pq_error *err)
{
	char path[4096], now[64];
	time_t t = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	if (path_fmt(path, sizeof path, err, "%s/index.json", root) < 0)
		return -PQ_EIO;
	json_t *rows = json_array(), *bases = json_array(), *plist = json_array();
	for (size_t i = 0; i < rs->n; i++)
		json_array_append_new(rs->r[i].baseline_role ? bases : rows, row_json(&rs->r[i]));
	size_t i;
	json_t *p;
	json_array_foreach(pkgs, i, p)
		json_array_append_new(plist, json_pack("{s:s, s:s}", "package", jstr(p, "package"), "status",
		                                       jstr(p, "status")));
	json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "schema", ROUND_INDEX_SCHEMA, "generator",
	                        "pqprof " PACKAGE_VERSION, "generated_utc", now, "packages", plist, "rows", rows,
	                        "baselines", bases);
	if (!doc)
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
	int r = json_file_write(path, doc, err);
	json_decref(doc);
	return r;
}

/* ---------------- HTML ---------------- */

/*
 * Sorting by a column header: numbers by the value in data-v (missing
 * ones last either way), text by its words; ties keep the order the page
 * came in (by category), through each row's data-i.
 */
static const char sort_script[] =
	"(function(){\n"
	"function key(tr,c){var td=tr.cells[c];return td?td.getAttribute('data-v'):null;}\n"
	"function sortBy(btn){\n"
	" var th=btn.parentNode,table=th.closest('table'),tb=table.tBodies[0],c=th.cellIndex;\n"
	" var num=btn.getAttribute('data-type')==='num';\n"
	" var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;\n"
	" var ths=table.tHead.rows[0].cells;\n"
	" for(var i=0;i<ths.length;i++)ths[i].removeAttribute('aria-sort');\n"
	" th.setAttribute('aria-sort',dir>0?'ascending':'descending');\n"
	" var rows=Array.prototype.slice.call(tb.rows);\n"
	" rows.sort(function(a,b){\n"
	"  var x=key(a,c),y=key(b,c),d=0;\n"
	"  if(num){var p=x===''||x===null?NaN:parseFloat(x),q=y===''||y===null?NaN:parseFloat(y);\n"
	"   if(isNaN(p)!==isNaN(q))return isNaN(p)?1:-1;\n"
	"   if(!isNaN(p))d=p<q?-1:p>q?1:0;}\n"
	"  else{d=(a.cells[c].textContent).localeCompare(b.cells[c].textContent);}\n"
	"  if(d)return dir*d;\n"
	"  return parseInt(a.getAttribute('data-i'),10)-parseInt(b.getAttribute('data-i'),10);\n"
	" });\n"
	" for(var j=0;j<rows.length;j++)tb.appendChild(rows[j]);\n"
	"}\n"
	"var bs=document.querySelectorAll('th button.sort');\n"
	"for(var i=0;i<bs.length;i++)bs[i].addEventListener('click',function(){sortBy(this);});\n"
	"})();\n";

static const char index_css[] =
	"th button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;"
	"text-align:left;color:inherit}\n"
	"th button.sort:focus-visible{outline:2px solid #36c;outline-offset:2px}\n"
	"th[aria-sort=ascending] button.sort:after{content:' \\25B2'}th[aria-sort=descending] button.sort:after"
	"{content:' \\25BC'}\n"
	"td.num{text-align:right;white-space:nowrap}td.bad{color:#a00;font-weight:600}\n";

static void html_table(FILE *f, const struct rows *rs, int baselines, const char *yard, const char *id)
{
	fprintf(f, "<table id=\"%s\">\n<thead><tr>", id);
	for (int c = 0; c < C_COUNT; c++) {
		if (c == C_REPORT)
			fprintf(f, "<th scope=\"col\">%s</th>", col_title[c]);
		else
			fprintf(f, "<th scope=\"col\"><button type=\"button\" class=\"sort\" data-type=\"%s\">%s</button></th>",
			        col_numeric(c) ? "num" : "text", col_title[c]);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		if (!in_table(w, baselines, yard))
			continue;
		fprintf(f, "<tr data-i=\"%zu\">", i);
		for (int c = 0; c < C_COUNT; c++) {
			char b[600];
			if (c == C_REPORT) {
				fputs("<td>", f);
				if (w->report_html[0]) {
					fputs("<a href=\"", f);
					esc_url(f, w->report_html);
					fputs("\">report</a>", f);
				} else {
					fputs(DASH, f);
				}
				fputs("</td>", f);
				continue;
			}
			cell_text(w, c, b, sizeof b);
			double v = cell_value(w, c);
			const char *cls = col_numeric(c) ? " class=\"num\"" : c == C_KAT && strcmp(w->verdict, "PASS") != 0
			                                                       ? " class=\"bad\"" : "";
			if (col_numeric(c) && isfinite(v))
				fprintf(f, "<td%s data-v=\"%.9g\">", cls, v);
			else
				fprintf(f, "<td%s data-v=\"\">", cls);
			xml_escape(f, b);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static int write_html(const char *root, const struct rows *rs, int npkg, pq_error *err)
{
	char path[4096];
	atomic_file af;
	int r = path_fmt(path, sizeof path, err, "%s/index.html", root);
	if (r == 0)
		r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	FILE *f = af.fp;
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Round index</title>\n"
	        "<style>\n%s%s</style>\n</head>\n<body>\n<h1>Round index</h1>\n", report_html_style(), index_css);
	fprintf(f, "<p>%d package%s, %d candidate instance%s. Times are medians; ratios are to the baseline instance, "
	        "with their 95%% interval. Rows come sorted by NIST security category, then package and instance; a "
	        "column header's button sorts by that column (again: the other way). \"" DASH "\" is a figure the "
	        "package's report does not hold.</p>\n",
	        npkg, npkg == 1 ? "" : "s", count_role(rs, 0), count_role(rs, 0) == 1 ? "" : "s");
	const char *yards[MAX_YARDS];
	int ny = yardsticks(rs, yards);
	if (ny <= 1) {
		fputs("<h2>Candidates</h2>\n", f);
		html_table(f, rs, 0, NULL, "candidates");
	}
	for (int k = 0; ny > 1 && k < ny; k++) {
		char id[32];
		snprintf(id, sizeof id, "candidates-%d", k + 1);
		fputs("<h2>Candidates against ", f);
		xml_escape(f, yards[k][0] ? yards[k] : "baselines of unrecorded origin");
		fputs("</h2>\n", f);
		html_table(f, rs, 0, yards[k], id);
	}
	if (ny > 1 && count_in(rs, 0, "")) {
		fputs("<h2>Candidates without a baseline</h2>\n", f);
		html_table(f, rs, 0, "", "candidates-none");
	}
	if (count_role(rs, 1)) {
		fputs("<h2>Baselines</h2>\n<p>Each baseline instance once, with where it comes from; candidates are "
		      "compared with it.</p>\n", f);
		html_table(f, rs, 1, NULL, "baselines");
		fputs("<ul>\n", f);
		for (size_t i = 0; i < rs->n; i++)
			if (rs->r[i].baseline_role && rs->r[i].yard[0]) {
				fputs("<li>", f);
				xml_escape(f, rs->r[i].instance);
				fputs(": ", f);
				xml_escape(f, rs->r[i].yard);
				fputs("</li>\n", f);
			}
		fputs("</ul>\n", f);
	}
	fprintf(f, "<p><small>Generated by pqprof %s.</small></p>\n<script>\n%s</script>\n</body>\n</html>\n",
	        PACKAGE_VERSION, sort_script);
	return atomic_file_commit(&af, err);
}

/* ---------------- the index ---------------- */

int round_index_is_round(const char *dir)
{
	char p[4096];
	return path_fmt(p, sizeof p, NULL, "%s/%s", dir, STATE_FILE) == 0 && is_file(p);
}

/* Keep one row per baseline instance: the first (its package's name first). */
static void dedup_baselines(struct rows *rs)
{
	size_t k = 0;
	for (size_t i = 0; i < rs->n; i++) {
		int dup = 0;
		for (size_t j = 0; j < k && rs->r[i].baseline_role && !dup; j++)
			dup = rs->r[j].baseline_role && strcmp(rs->r[j].instance, rs->r[i].instance) == 0 &&
			      strcmp(rs->r[j].yard, rs->r[i].yard) == 0;
		if (!dup)
			rs->r[k++] = rs->r[i];
	}
	rs->n = k;
}

int round_index_write(const char *root, pq_error *err)
{
	json_t *pkgs = packages_of(root);
	if (!pkgs)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	struct rows rs = { 0 };
	size_t i;
	json_t *p;
	json_array_foreach(pkgs, i, p) {
		if (*jstr(p, "package"))
			package_rows(root, p, &rs);
	}
	int r = 0;
	if (rs.oom)
		r = pq_fail(err, PQ_ENOMEM, "%s: index: out of memory", root);
	if (r == 0) {
		qsort(rs.r, rs.n, sizeof *rs.r, row_cmp);
		dedup_baselines(&rs);
		for (size_t k = 0; k < rs.n; k++)
			rs.r[k].order = (int)k;
	}
	int npkg = (int)json_array_size(pkgs);
	if (r == 0)
		r = write_md(root, &rs, npkg, err);
	if (r == 0)
		r = write_csv(root, &rs, err);
	if (r == 0)
		r = write_json(root, &rs, pkgs, err);
	if (r == 0)
		r = write_html(root, &rs, npkg, err);
	free(rs.r);
	json_decref(pkgs);
	return r;
}
