/* kat_gate: run, judge and record the KAT gate; see kat_gate.h. */
#include "config.h"
#include "supervise/kat_gate.h"
#include "supervise/key_origin.h"
#include "core/interrupt.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/digest.h"
#include "core/json_file.h"
#include "core/contain.h"
#include "core/path_name.h"
#include "kat/kat_file.h"
#include "kat/kat_forensics.h"
#include "kat/kat_locate.h"
#include "kat/manifest.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

json_t *kat_outcome_to_json(const struct kat_outcome *o)
{
	json_t *notes = json_array();
	for (int i = 0; i < o->nnotes; i++)
		json_array_append_new(notes, json_string(o->notes[i]));
	json_t *j = json_pack("{s:s, s:s, s:I, s:s, s:I, s:o}", "verdict", kat_verdict_name(o->verdict),
	                      "reason", o->reason, "record", (json_int_t)o->record, "field", o->field,
	                      "records_done", (json_int_t)o->records_done, "notes", notes);
	return j;
}

static void outcome_from_json(json_t *j, struct kat_outcome *o)
{
	kat_outcome_init(o);
	int v = kat_verdict_parse(json_string_value(json_object_get(j, "verdict")) ?: "");
	o->verdict = v < 0 ? KAT_CRASH : (enum kat_verdict)v;
	kat_outcome_reason(o, "%s", json_string_value(json_object_get(j, "reason")) ?: "");
	o->record = (long)json_integer_value(json_object_get(j, "record"));
	snprintf(o->field, sizeof o->field, "%s", json_string_value(json_object_get(j, "field")) ?: "");
	o->records_done = (size_t)json_integer_value(json_object_get(j, "records_done"));
	size_t i;
	json_t *n;
	json_array_foreach(json_object_get(j, "notes"), i, n)
		kat_outcome_note(o, "%s", json_string_value(n));
}

static void set_verdict(struct kat_outcome *o, enum kat_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_verdict(struct kat_outcome *o, enum kat_verdict v, const char *fmt, ...)
{
	o->verdict = v;
	va_list ap;
	va_start(ap, fmt);
	kat_outcome_vreason(o, fmt, ap);
	va_end(ap);
}

/* Depth-limited search of the submission tree (root) for the official file name; links out of it are passed over. */
static int find_file_in(const char *root, const char *dir, const char *name, int depth, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	char sub[PATH_MAX];
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
		struct stat sb;
		if (lstat(sub, &sb) != 0 || (S_ISLNK(sb.st_mode) && (!path_inside_tree(sub, root) || stat(sub, &sb) != 0)))
			continue;
		if (S_ISREG(sb.st_mode) && strcmp(de->d_name, name) == 0) {
			snprintf(out, len, "%s", sub);
			found = 1;
		} else if (S_ISDIR(sb.st_mode) && depth > 0) {
			found = find_file_in(root, sub, name, depth - 1, out, len);
		}
	}
	closedir(d);
	return found;
}

static int find_file(const char *dir, const char *name, int depth, char *out, size_t len)
{
	return find_file_in(dir, dir, name, depth, out, len);
}

/* Last op/record the runner reported, for reasons like "in sign, record 3". */
static void where_it_was(const struct child_result *cr, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *op = NULL;
	long rec = -1;
	size_t i;
	json_t *ev;
	json_array_foreach(cr->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "kat_at") == 0) {
			op = json_string_value(json_object_get(ev, "op"));
			rec = (long)json_integer_value(json_object_get(ev, "record"));
		}
	}
	if (op && rec >= 0)
		snprintf(buf, len, " in %s, record %ld", op, rec);
	else if (op)
		snprintf(buf, len, " in %s", op);
}

static const char *event_string(const struct child_result *cr, const char *ev_name, const char *key)
{
	size_t i;
	json_t *ev;
	json_array_foreach(cr->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, ev_name) == 0)
			return json_string_value(json_object_get(ev, key));
	}
	return NULL;
}

static void verdict_from_child(const struct child_result *cr, const char *outcome_path, double limit_s,
                               struct kat_outcome *o)
{
	char where[96];
	where_it_was(cr, where, sizeof where);
	const char *load = event_string(cr, "error", "kind");
	if (load && strcmp(load, "load") == 0) {
		set_verdict(o, KAT_LOADFAIL, "%s", event_string(cr, "error", "msg"));
		return;
	}
	switch (cr->end) {
	case CHILD_TIMEOUT:
		set_verdict(o, KAT_TIMEOUT, "no verdict within the %.0f s limit%s%s", limit_s, where,
		            cr->killed_hard ? " (SIGTERM ignored; killed)" : "");
		return;
	case CHILD_SIGNALED:
		/* The runner's own diagnosis ("stack overflow ...", "out of memory ...") first. */
		if (cr->fault[0])
			set_verdict(o, KAT_CRASH, "%s; killed by SIG%s%s", cr->fault, sigabbrev_np(cr->signo) ?: "?",
			            where);
		else
			set_verdict(o, KAT_CRASH, "killed by SIG%s%s", sigabbrev_np(cr->signo) ?: "?", where);
		return;
	case CHILD_EXIT_IN_OP:
	case CHILD_EXITED_EARLY:
		if (cr->exit_code == KAT_ENGINE_OVERFLOW_EXIT) {
			char *text = NULL;
			size_t len = 0;
			/* The fault path's outcome; only an overflow can come that way (scheme code could write a PASS). */
			if (read_whole_file(outcome_path, &text, &len, 1u << 20, NULL) == 0 &&
			    kat_outcome_parse(text, len, o, NULL) == 0 && o->verdict == KAT_OVERFLOW) {
				free(text);
				return;
			}
			free(text);
			set_verdict(o, KAT_OVERFLOW, "write into a guard page%s", where);
			return;
		}
		set_verdict(o, KAT_CRASH, "scheme called exit(%d)%s", cr->exit_code, where);
		return;
	case CHILD_FAILED:
		set_verdict(o, KAT_CRASH, "runner failed: %s", event_string(cr, "error", "msg") ?: "unknown error");
		return;
	case CHILD_FLOODED:
	case CHILD_TAMPERED:
	case CHILD_CHANNEL_LOST: {
		char why[320];
		child_describe(cr, why, sizeof why);
		set_verdict(o, KAT_CRASH, "%s", why);
		return;
	}
	default:
		set_verdict(o, KAT_CRASH, "runner could not start");
	}
}

/* Declared sizes of a descriptor; name borrowed from it. */
static void sizes_of(json_t *desc, struct kat_instance_sizes *s)
{
	json_t *z = json_object_get(desc, "sizes");
	memset(s, 0, sizeof *s);
	s->name = json_string_value(json_object_get(desc, "name")) ?: "?";
	s->pk = (uint64_t)json_integer_value(json_object_get(z, "pk"));
	s->sk = (uint64_t)json_integer_value(json_object_get(z, "sk"));
	s->sig = (uint64_t)json_integer_value(json_object_get(z, "sig"));
	s->ct = (uint64_t)json_integer_value(json_object_get(z, "ct"));
}

/*
 * Run the KAT job of lib in a child; 0 when the child finished.  The runner
 * writes its vectors and its fault-path outcome into its own scratch
 * directory; they are read back from there by descriptor (no link
 * followed, regular files of the job's own: contain_collect) and written
 * to produced and outcome, in the caller's directory, which the runner
 * never sees.  Why a file the runner should have written was refused is
 * in cr's files.
 */
static int replay(const char *lib, long records, double timeout_s, unsigned long long as_limit,
                  const char *const *hide, const char *produced, const char *outcome, struct child_result *cr,
                  pq_error *err)
{
	char recs[32];
	snprintf(recs, sizeof recs, "%ld", records);
	const char *args[] = { "--records", recs, "--emit", "produced", "--outcome", "outcome", NULL };
	static const char *const files[] = { "produced", "outcome", NULL };
	struct child_spec cs = {
		.job = "kat", .lib = lib, .args = args, .timeout_s = timeout_s > 0 ? timeout_s : 900,
		.cpu = -1, .as_limit = as_limit ? as_limit : child_default_as_limit(), .collect = files, .hidden = hide,
	};
	int r = child_run(&cs, cr, err);
	if (r < 0)
		return r;
	const char *paths[] = { produced, outcome };
	for (int i = 0; i < 2; i++) {
		const struct child_file *f = child_file(cr, files[i]);
		if (f && atomic_write(paths[i], f->data, f->len, err) < 0) {
			child_result_free(cr);
			return -PQ_EIO;
		}
	}
	return 0;
}

/*
 * What the replaying runner must not see: every place the expected vectors
 * can be (the tree, the folders of --vectors and --manifest, the observed
 * build's copy, where the verdict record and the kept reference go), so
 * that a scheme cannot read its vectors and echo them back.
 */
#define KAT_HIDDEN_MAX 7
static void hidden_dirs(const struct kat_gate_opts *o, json_t *desc, char dirs[][PATH_MAX], const char **hide)
{
	const char *src = desc ? json_string_value(json_object_get(desc, "source_dir")) : NULL;
	const char *files[] = { o->vectors, o->manifest, o->record_path, o->log_path };
	int n = 0;
	if (src && *src)
		snprintf(dirs[n++], PATH_MAX, "%s", src);
	if (o->observed_copy && *o->observed_copy)
		snprintf(dirs[n++], PATH_MAX, "%s", o->observed_copy);
	if (o->source_root && *o->source_root)
		snprintf(dirs[n++], PATH_MAX, "%s", o->source_root);
	for (size_t i = 0; i < sizeof files / sizeof files[0] && n < KAT_HIDDEN_MAX; i++) {
		if (!files[i] || !*files[i])
			continue;
		char abs[PATH_MAX];
		if (!realpath(files[i], abs) && snprintf(abs, sizeof abs, "%s", files[i]) >= (int)sizeof abs)
			continue;
		char *slash = strrchr(abs, '/');
		if (!slash || slash == abs)
			continue;
		*slash = '\0';
		snprintf(dirs[n++], PATH_MAX, "%s", abs);
	}
	for (int i = 0; i < n; i++)
		hide[i] = dirs[i];
	hide[n] = NULL;
}

/* Why the runner's vector file was not there to read ("" when it was, or was never asked for). */
static const char *produced_refused(const struct child_result *cr)
{
	for (int i = 0; i < cr->nfiles; i++)
		if (strcmp(cr->files[i].name, "produced") == 0 && !cr->files[i].data && !strstr(cr->files[i].why, "No such file"))
			return cr->files[i].why;
	return "";
}

/* One sibling: "NAME=PK,SK,SIG" sizes, or a library described and replayed for its vectors. */
struct sibling {
	struct kat_instance_sizes sz;
	json_t *desc;
	const char *lib;          /* a library to replay, NULL for declared sizes */
	struct kat_file vec;
	char name[128];
};

static int sibling_load(const char *spec, struct sibling *sb)
{
	memset(sb, 0, sizeof *sb);
	const char *eq = strchr(spec, '=');
	struct stat st;
	if (eq && !strchr(spec, '/') && stat(spec, &st) != 0) {
		unsigned long long pk = 0, sk = 0, sig = 0;
		if (sscanf(eq + 1, "%llu,%llu,%llu", &pk, &sk, &sig) < 2)
			return -1;
		snprintf(sb->name, sizeof sb->name, "%.*s", (int)(eq - spec), spec);
		sb->sz = (struct kat_instance_sizes){ .name = sb->name, .pk = pk, .sk = sk, .sig = sig };
		return 0;
	}
	pq_error e = { 0 };
	if (instance_describe(spec, &sb->desc, &e) < 0)
		return -1;
	sizes_of(sb->desc, &sb->sz);
	sb->lib = spec;
	return 0;
}

/* The sibling library's own vectors (one KAT replay), for "they equal its own vectors". */
static void sibling_replay(const struct kat_gate_opts *o, const char *tmpdir, struct sibling *sb)
{
	char produced[PATH_MAX], outcome[PATH_MAX];
	snprintf(produced, sizeof produced, "%s/sibling", tmpdir);
	snprintf(outcome, sizeof outcome, "%s/sibling-outcome", tmpdir);
	struct child_result cr;
	pq_error e = { 0 };
	char dirs[KAT_HIDDEN_MAX][PATH_MAX];
	const char *hide[KAT_HIDDEN_MAX + 1];
	hidden_dirs(o, sb->desc, dirs, hide);
	if (replay(sb->lib, o->records, o->timeout_s, o->as_limit, hide, produced, outcome, &cr, &e) == 0) {
		if (cr.end == CHILD_OK && kat_file_read(produced, NULL, &sb->vec, &e) == 0)
			sb->sz.produced = &sb->vec;
		child_result_free(&cr);
	}
	unlink(produced);
	unlink(outcome);
}

static void sibling_free(struct sibling *sb)
{
	kat_file_free(&sb->vec);
	json_decref(sb->desc);
}

/* A MISMATCH against a file at hand, explained record by record (res->forensics). */
static void explain_mismatch(const struct kat_gate_opts *o, const struct kat_file *exp, const struct kat_file *prod,
                             const char *vectors, json_t *desc, const char *tmpdir, struct kat_gate_result *res)
{
	struct kat_instance_sizes self;
	sizes_of(desc, &self);
	size_t n = 0;
	while (o->siblings && o->siblings[n])
		n++;
	struct sibling *sb = calloc(n ? n : 1, sizeof *sb);
	struct kat_instance_sizes *sz = calloc(n ? n : 1, sizeof *sz);
	size_t k = 0;
	for (size_t i = 0; sb && sz && i < n; i++) {
		if (sibling_load(o->siblings[i], &sb[k]) < 0) {
			kat_outcome_note(&res->outcome, "sibling %s unusable for the KAT forensics", o->siblings[i]);
			continue;
		}
		/* The instance itself among its siblings tells nothing. */
		if (self.name && strcmp(sb[k].sz.name, self.name) == 0) {
			sibling_free(&sb[k]);
			continue;
		}
		k++;
	}
	/*
	 * Replaying a sibling costs a KAT run of it (minutes for operations of
	 * seconds): replay those whose declared sizes the differing records
	 * carry, or every one when no sizes tell them apart.
	 */
	int any_fit = 0;
	for (size_t i = 0; i < k; i++)
		any_fit |= kat_forensics_lengths_fit(exp, prod, &self, &sb[i].sz);
	for (size_t i = 0; i < k; i++) {
		if (sb[i].lib && (!any_fit || kat_forensics_lengths_fit(exp, prod, &self, &sb[i].sz)))
			sibling_replay(o, tmpdir, &sb[i]);
		sz[i] = sb[i].sz;
	}
	pq_error e = { 0 };
	if (sb && sz)
		kat_forensics(exp, prod, vectors, &self, sz, k, &res->forensics, &e);
	for (size_t i = 0; sb && i < k; i++)
		sibling_free(&sb[i]);
	free(sb);
	free(sz);
}

/*
 * A manifest MISMATCH explained from the submitted file, when it is at hand
 * and is the file the manifest speaks for (its digest is the entry's):
 * the same footnote as without a manifest.  0 when the file could not be
 * used; the outcome then says why, when it is another file.
 */
static int explain_from_file(const struct kat_gate_opts *o, const struct manifest_entry *e, const char *vectors,
                             const char *text, size_t len, const char *produced_path, json_t *desc,
                             const char *tmpdir, struct kat_gate_result *res)
{
	pq_error err = { 0 };
	int same = manifest_verify_file(e, vectors, NULL, &err);
	if (same <= 0) {
		if (same == 0)
			kat_outcome_note(&res->outcome, "%s is not the file %s describes (another digest): the footnote "
			                 "cannot use it", vectors, o->manifest);
		return 0;
	}
	struct kat_file exp, prod;
	memset(&exp, 0, sizeof exp);
	memset(&prod, 0, sizeof prod);
	int ok = kat_file_read(vectors, NULL, &exp, &err) == 0 && kat_file_parse(text, len, produced_path, NULL, &prod, &err) == 0;
	if (ok) {
		/* The digest says that they differ; the records say where. */
		struct kat_outcome where = res->outcome;
		where.verdict = KAT_PASS;   /* kat_judge re-judges a PASS only */
		struct kat_compare_opts co = { .max_records = e->records };
		kat_judge(&exp, &prod, &co, &where);
		res->outcome.record = where.record;
		snprintf(res->outcome.field, sizeof res->outcome.field, "%s", where.field);
		explain_mismatch(o, &exp, &prod, vectors, desc, tmpdir, res);
		ok = res->forensics != NULL;
	}
	kat_file_free(&exp);
	kat_file_free(&prod);
	return ok;
}

/*
 * Keep a reference file from the build's scratch copy (which goes when
 * pqprof exits) beside the verdict record, else beside the log; its path
 * into out.  -1 when there is nowhere to keep it.
 */
static int keep_reference(const struct kat_gate_opts *o, const char *from, char *out, size_t len)
{
	const char *beside = o->record_path ? o->record_path : o->log_path;
	if (!beside)
		return -1;
	const char *dot = strrchr(beside, '.'), *slash = strrchr(beside, '/');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - beside) : strlen(beside);
	const char *ext = strrchr(from, '.');
	if ((size_t)snprintf(out, len, "%.*s.reference%s", (int)stem, beside, ext ? ext : ".rsp") >= len)
		return -1;
	pq_error err = { 0 };
	return copy_file_mode(from, out, 0644, &err) < 0 ? -1 : 0;
}

/* Is this text a list of SHA-256 digests: every line blank, a comment, or 64 hex digits and a blank? */
static int is_digest_list(const char *text)
{
	int lines = 0;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		size_t k = 0;
		while (k < n && (l[k] == ' ' || l[k] == '\t' || l[k] == '\r'))
			k++;
		if (k < n && l[k] != '#') {
			for (int h = 0; h < 64; h++)
				if (k + (size_t)h >= n || hex_value(l[k + (size_t)h]) < 0)
					return 0;
			if (k + 64 >= n || (l[k + 64] != ' ' && l[k + 64] != '\t'))
				return 0;
			lines++;
		}
		l += n + (nl ? 1 : 0);
	}
	return lines > 0;
}

/*
 * The reference is what the tree's own KAT program wrote, at `rel` in the
 * build's copy.  A digest list the tree ships (SHA256SUMS, kat.sha256 ...:
 * a SHA-256 per line, then words, the last a path, as sha256sum writes it
 * or with columns of the submitter's own between, such as the parameter
 * set) that names that file or its folder holds the digest the submitter
 * published for it: the file is checked against it.  1: it matches; 0:
 * it differs (why into note); -1: no list names it.  note says which line.
 */
static int digest_list_check(const char *tree, const char *rel, const char *file, char *note, size_t len)
{
	char dir_rel[PATH_MAX];
	snprintf(dir_rel, sizeof dir_rel, "%s", rel);
	char *sl = strrchr(dir_rel, '/');
	if (sl)
		*sl = '\0';
	else
		dir_rel[0] = '\0';
	char have[SHA256_HEX_LEN + 1];
	pq_error err = { 0 };
	if (!tree || sha256_file_hex(file, have, &err) < 0)
		return -1;
	DIR *d = opendir(tree);
	int result = -1;
	for (struct dirent *e; d && result < 0 && (e = readdir(d));) {
		char path[PATH_MAX];
		struct stat sb;
		if (e->d_name[0] == '.' || (size_t)snprintf(path, sizeof path, "%s/%s", tree, e->d_name) >= sizeof path ||
		    !path_inside_tree(path, tree) || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (1 << 20))
			continue;
		char *text = NULL;
		if (read_whole_file(path, &text, NULL, 1u << 20, NULL) < 0 || !is_digest_list(text)) {
			free(text);
			continue;
		}
		long lineno = 0;
		for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && result < 0; l = strtok_r(NULL, "\n", &save)) {
			lineno++;
			while (*l == ' ' || *l == '\t')
				l++;
			if (!*l || *l == '#' || strlen(l) < 65)
				continue;
			char *end = l + strlen(l);
			while (end > l && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
				*--end = '\0';
			char *last = strrchr(l, ' '), *tab = strrchr(l, '\t');
			if (tab > last)
				last = tab;
			if (!last || last < l + 64)
				continue;
			last++;
			if (*last == '*')
				last++;
			if (strncmp(last, "./", 2) == 0)
				last += 2;
			size_t ln = strlen(last);
			while (ln > 1 && last[ln - 1] == '/')
				last[--ln] = '\0';
			if (strcmp(last, rel) != 0 && !(dir_rel[0] && strcmp(last, dir_rel) == 0))
				continue;
			result = strncasecmp(l, have, 64) == 0;
			snprintf(note, len, "%s:%ld (the digest the tree publishes for %s)", e->d_name, lineno, last);
		}
		free(text);
	}
	if (d)
		closedir(d);
	return result;
}

/*
 * The tree ships no vectors and its build wrote none: run its own KAT
 * program, and the file it writes (its first record decides, as in the
 * tree) is the reference, kept beside the verdict.  found[0] is '\0' when
 * there is none; a note says what happened either way.
 */
static void own_kat_reference(const struct kat_gate_opts *o, const struct kat_file *prod, const char *iname,
                              double replay_s, char *found, size_t len, struct kat_outcome *out)
{
	char dir[PATH_MAX];
	pq_error err = { 0 };
	struct kat_located loc;
	found[0] = '\0';
	/* The same records as the replay, by the tree's build: a few times the replay's time is plenty. */
	double limit = o->timeout_s > 0 ? o->timeout_s : 900, want = 4 * replay_s > 60 ? 4 * replay_s : 60;
	if (o->run_own_kat(o->own_kat_ctx, want < limit ? want : limit, dir, sizeof dir, &err) < 0) {
		kat_outcome_note(out, "reference: the tree ships no vectors, and its own KAT program gave none: %s", err.msg);
		return;
	}
	if (!kat_locate(dir, prod, iname, &loc)) {
		kat_outcome_note(out, "reference: the tree ships no vectors, and what its own KAT program wrote does not "
		                 "start the seed sequence with this instance's key sizes");
		return;
	}
	if (keep_reference(o, loc.path, found, len) < 0) {
		found[0] = '\0';
		return;
	}
	kat_outcome_note(out, "reference: the tree ships no vectors; the file its own KAT program writes (%s, run "
	                 "again in its observed build), kept as %s", path_base(loc.path), found);
}

/*
 * pqprof's own failure (out of memory) is no verdict on the scheme: it is
 * kept in *own (the first one), and the gate ends with it as an error.
 */
static int own_failure(const pq_error *e, pq_error *own)
{
	if (e->code != PQ_ENOMEM)
		return 0;
	if (!own->code)
		*own = *e;
	return 1;
}

static void judge(const struct kat_gate_opts *o, const char *produced_path, const char *official,
                  json_t *desc, const char *tmpdir, double replay_s, struct kat_gate_result *res, pq_error *own)
{
	struct kat_outcome *out = &res->outcome;
	char *text = NULL;
	size_t len = 0;
	pq_error err = { 0 };
	if (read_whole_file(produced_path, &text, &len, 0, &err) < 0) {
		if (!own_failure(&err, own))
			set_verdict(out, KAT_CRASH, "produced vectors missing: %s", err.msg);
		return;
	}
	const char *source_dir = json_string_value(json_object_get(desc, "source_dir"));
	char digest_differs[600] = "";
	const char *vectors = o->vectors;
	char found[PATH_MAX];
	if (!vectors && !o->manifest && o->search_tree && source_dir && official &&
	    find_file(source_dir, official, 4, found, sizeof found))
		vectors = found;
	/* Generators that add the algorithm's name: PQCsignKAT_353_SQIsign_lvl1.rsp. */
	const char *iname0 = json_string_value(json_object_get(desc, "name"));
	const char *dot = official ? strrchr(official, '.') : NULL;
	if (!vectors && !o->manifest && o->search_tree && source_dir && dot && iname0 && *iname0) {
		char named[512];
		snprintf(named, sizeof named, "%.*s_%s%s", (int)(dot - official), official, iname0, dot);
		if (find_file(source_dir, named, 4, found, sizeof found))
			vectors = found;
	}
	/* Named otherwise: the file whose first record starts the produced vectors' seeds with their key sizes. */
	if (!vectors && !o->manifest && o->search_tree && source_dir) {
		struct kat_file prod;
		struct kat_located loc;
		memset(&prod, 0, sizeof prod);
		pq_error perr = { 0 };
		int got = kat_file_parse(text, len, produced_path, NULL, &prod, &perr) == 0 &&
		          kat_locate(source_dir, &prod, iname0, &loc);
		if (got && !loc.holds_pk && !loc.names_instance && loc.candidates > 1) {
			/* Same sizes, and nothing ties one of them to this instance (parameter sets of equal key sizes). */
			kat_outcome_note(out, "%d files in the tree start the seed sequence with this instance's key sizes, but "
			                 "none holds its public key or names it: none is used", loc.candidates);
			got = 0;
		}
		if (got) {
			snprintf(found, sizeof found, "%s", loc.path);
			vectors = found;
			kat_outcome_note(out, "vectors: %s, found by its first record (the seed sequence and the key sizes%s%s)%s",
			                 found, loc.holds_pk ? ", the public key" : "",
			                 loc.names_instance ? ", the name line" : "",
			                 loc.candidates > 1 ? "; other files qualified too" : "");
		} else if (prod.nrecords && o->observed_copy && kat_locate(o->observed_copy, &prod, iname0, &loc) &&
		           (loc.holds_pk || loc.names_instance) && keep_reference(o, loc.path, found, sizeof found) == 0) {
			/* The tree ships none: what its own KAT program wrote when its build ran is the reference. */
			vectors = found;
			const char *rel = loc.path + strlen(o->observed_copy) + 1;
			kat_outcome_note(out, "reference: the tree ships no vectors; its own KAT program wrote %s when its "
			                 "build ran (kept as %s)", rel, found);
			char where[600];
			int dl = digest_list_check(source_dir, rel, loc.path, where, sizeof where);
			if (dl == 1)
				kat_outcome_note(out, "reference: its SHA-256 matches %s", where);
			else if (dl == 0)
				snprintf(digest_differs, sizeof digest_differs, "%s", where);
		} else if (prod.nrecords && o->run_own_kat) {
			own_kat_reference(o, &prod, iname0, replay_s, found, sizeof found, out);
			if (found[0])
				vectors = found;
		}
		kat_file_free(&prod);
	}
	if (o->manifest) {
		snprintf(res->expected, sizeof res->expected, "%s", o->manifest);
		struct manifest m;
		if (manifest_read(o->manifest, &m, &err) < 0) {
			if (!own_failure(&err, own))
				set_verdict(out, KAT_NOKAT, "manifest unusable: %s", err.msg);
		} else {
			/* An entry labelled with the instance wins: NIST file names repeat across sets. */
			const char *iname = json_string_value(json_object_get(desc, "name"));
			const struct manifest_entry *e = official && iname ? manifest_find(&m, iname, official) : NULL;
			if (!e && official)
				e = manifest_find(&m, NULL, official);
			if (!e)
				set_verdict(out, KAT_NOKAT, "%s has no entry for %s", o->manifest, official ? official : "?");
			else if (kat_judge_manifest(e, text, len, out, &err) < 0) {
				if (!own_failure(&err, own))
					set_verdict(out, KAT_NOKAT, "manifest check failed: %s", err.msg);
			}
			else if (out->verdict == KAT_MISMATCH &&
			         !(vectors && explain_from_file(o, e, vectors, text, len, produced_path, desc, tmpdir, res))) {
				char why[600];
				kat_forensics_manifest_only(e->file, why, sizeof why);
				res->forensics = json_pack("{s:b, s:s}", "localised", 0, "text", why);
			}
			manifest_free(&m);
		}
	} else if (vectors) {
		snprintf(res->expected, sizeof res->expected, "%s", vectors);
		struct kat_file exp, prod;
		memset(&exp, 0, sizeof exp);
		memset(&prod, 0, sizeof prod);
		if (kat_file_read(vectors, NULL, &exp, &err) < 0) {
			/* Only a file found in the tree gets here (--vectors is checked first). */
			if (!own_failure(&err, own))
				set_verdict(out, KAT_NOKAT, "expected vectors unreadable: %s", err.msg);
		} else if (kat_file_parse(text, len, produced_path, NULL, &prod, &err) < 0) {
			if (!own_failure(&err, own))
				set_verdict(out, KAT_CRASH, "produced vectors unreadable: %s", err.msg);
		} else if (o->records > 0 && exp.nrecords < (size_t)o->records) {
			/* Fewer records than asked for: comparing them would pass records never checked. */
			pq_fail(own, PQ_EINPUT, "--first %ld: the reference %s holds only %zu record%s", o->records, vectors,
			        exp.nrecords, exp.nrecords == 1 ? "" : "s");
		} else {
			struct kat_compare_opts co = { .max_records = o->records > 0 ? (size_t)o->records : 0 };
			kat_judge(&exp, &prod, &co, out);
			if (out->verdict == KAT_MISMATCH)
				explain_mismatch(o, &exp, &prod, vectors, desc, tmpdir, res);
			else if (digest_differs[0])
				set_verdict(out, KAT_MISMATCH, "the instance agrees with what the tree's own KAT program writes "
				            "today, but that file's SHA-256 is not the one the tree publishes at %s: the published "
				            "vectors are not reproduced", digest_differs);
		}
		kat_file_free(&exp);
		kat_file_free(&prod);
	} else {
		kat_judge(NULL, NULL, NULL, out);
		if (official)
			kat_outcome_reason(out, "no vector file %s%s%s and no manifest given", official,
			         source_dir ? " in " : "", source_dir ? source_dir : "");
	}
	free(text);
}

static int write_log(const struct kat_gate_opts *o, struct kat_gate_result *res, json_t *desc,
                     const struct child_result *cr, pq_error *err)
{
	const struct kat_outcome *out = &res->outcome;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return pq_fail_errno(err, PQ_ENOMEM, "the KAT log");
	fprintf(f, "pqprof %s kat log\n", PACKAGE_VERSION);
	fprintf(f, "instance: %s\n", json_string_value(json_object_get(desc, "name")) ?: "?");
	fprintf(f, "library: %s\n", o->lib);
	fprintf(f, "api: %s %s\n", json_string_value(json_object_get(desc, "api")) ?: "?",
	        json_string_value(json_object_get(desc, "kind")) ?: "?");
	const char *sig_api = json_string_value(json_object_get(desc, "signature_api"));
	if (sig_api && strcmp(sig_api, "context") == 0)
		fprintf(f, "signature api: context (the context-string functions), context \"%s\" (%lld bytes)\n",
		        json_string_value(json_object_get(desc, "context")) ?: "",
		        (long long)json_integer_value(json_object_get(desc, "context_len")));
	else if (sig_api)
		fprintf(f, "signature api: plain (crypto_sign, crypto_sign_open)\n");
	fprintf(f, "build: %s / %s\n", json_string_value(json_object_get(desc, "profile")) ?: "?",
	        json_string_value(json_object_get(desc, "cflags")) ?: "?");
	fprintf(f, "expected: %s\n", res->expected[0] ? res->expected : "(none)");
	fprintf(f, "produced sha256: %s\n", res->produced_sha256[0] ? res->produced_sha256 : "(none)");
	fprintf(f, "records produced: %zu\n", out->records_done);
	if (cr) {
		char why[512];
		child_describe(cr, why, sizeof why);
		fprintf(f, "runner: %s (%.2f s)\n", why, cr->wall_s);
		if (cr->output_total)
			fprintf(f, "scheme output: %zu bytes, first %zu follow\n%.*s\n", cr->output_total, cr->output_len,
			        (int)cr->output_len, cr->output);
	}
	for (int i = 0; i < out->nnotes; i++)
		fprintf(f, "note: %s\n", out->notes[i]);
	if (out->record >= 0)
		fprintf(f, "first difference: record %ld%s%s\n", out->record, out->field[0] ? ", field " : "", out->field);
	if (res->forensics)
		fprintf(f, "forensics: %s\n", json_string_value(json_object_get(res->forensics, "text")) ?: "");
	fprintf(f, "RESULT %s %s %s\n", json_string_value(json_object_get(desc, "name")) ?: "?",
	        kat_verdict_name(out->verdict), out->reason);
	if (fclose(f) != 0) {
		free(buf);
		return pq_fail_errno(err, PQ_ENOMEM, "the KAT log");
	}
	sha256_hex(buf, len, res->log_sha256, NULL);
	int r = o->log_path ? atomic_write(o->log_path, buf, len, err) : 0;
	free(buf);
	return r;
}

/*
 * The expected-vectors file the user named: a bad one is bad input (the
 * command's exit 2), never a verdict on the scheme.  Checked before the
 * replay, so that a FIFO or a huge file cannot stall or mislead it.
 */
static int check_expected_vectors(const char *path, pq_error *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s: expected vectors unreadable", path);
	if (!S_ISREG(sb.st_mode))
		return pq_fail(err, PQ_EINPUT, "%s: expected vectors: not a regular file", path);
	struct kat_file exp;
	memset(&exp, 0, sizeof exp);
	pq_error e = { 0 };
	int r = kat_file_read(path, NULL, &exp, &e);
	size_t n = exp.nrecords;
	kat_file_free(&exp);
	if (r < 0)
		return pq_fail(err, e.code == PQ_ENOMEM ? PQ_ENOMEM : PQ_EINPUT, "expected vectors unusable: %s", e.msg);
	if (n == 0)
		return pq_fail(err, PQ_EINPUT, "%s: expected vectors: no KAT records in the file", path);
	return 0;
}

int kat_gate_run(const struct kat_gate_opts *o, struct kat_gate_result *res, pq_error *err)
{
	memset(res, 0, sizeof *res);
	kat_outcome_init(&res->outcome);
	if (o->vectors) {
		int vr = check_expected_vectors(o->vectors, err);
		if (vr < 0)
			return vr;
	}
	json_t *desc = o->instance ? json_incref(o->instance) : NULL;
	pq_error derr = { 0 }, own = { 0 };
	if (!desc && instance_describe(o->lib, &desc, &derr) < 0) {
		if (own_failure(&derr, err))
			return -PQ_ENOMEM;
		set_verdict(&res->outcome, KAT_LOADFAIL, "%s", derr.msg);
		desc = json_pack("{s:s}", "library", o->lib);
	}
	char tmpdir[] = "/tmp/pqprof-kat.XXXXXX";
	if (!mkdtemp(tmpdir)) {
		json_decref(desc);
		return pq_fail_errno(err, PQ_EIO, "cannot create a temporary directory");
	}
	/* pqprof's own (0700): the runner writes in its scratch directory, read back by replay(). */
	interrupt_track_tmp(tmpdir, 1);
	char produced[PATH_MAX], outcome[PATH_MAX];
	snprintf(produced, sizeof produced, "%s/produced", tmpdir);
	snprintf(outcome, sizeof outcome, "%s/outcome", tmpdir);
	struct child_result cr;
	int have_child = 0;
	json_t *keys = NULL;   /* the key-origin check (key_origin.h) */
	if (res->outcome.verdict != KAT_LOADFAIL) {
		double limit_s = o->timeout_s > 0 ? o->timeout_s : 900;
		double t0 = mono_s();
		char dirs[KAT_HIDDEN_MAX][PATH_MAX];
		const char *hide[KAT_HIDDEN_MAX + 1];
		hidden_dirs(o, desc, dirs, hide);
		int rr = replay(o->lib, o->records, limit_s, o->as_limit, hide, produced, outcome, &cr, err);
		if (rr < 0) {
			json_decref(desc);
			remove_tree(tmpdir);
			interrupt_untrack_tmp(tmpdir);
			return rr;
		}
		have_child = 1;
		double replay_s = mono_s() - t0;
		const char *official = event_string(&cr, "kat_file", "name");
		if (cr.end == CHILD_OK && produced_refused(&cr)[0]) {
			set_verdict(&res->outcome, KAT_CRASH, "the produced vectors were not read: %s (scheme code replaced "
			            "the runner's file)", produced_refused(&cr));
		} else if (cr.end == CHILD_OK) {
			outcome_from_json(json_object_get(cr.done, "outcome"), &res->outcome);
			sha256_file_hex(produced, res->produced_sha256, NULL);
			if (res->outcome.verdict == KAT_PASS)
				judge(o, produced, official, desc, tmpdir, replay_s, res, &own);
			if (o->emit) {
				char *text = NULL;
				size_t len = 0;
				if (read_whole_file(produced, &text, &len, 0, &res->emit_error) < 0 ||
				    atomic_write(o->emit, text, len, &res->emit_error) < 0)
					res->emit_failed = 1;
				free(text);
			}
		} else {
			verdict_from_child(&cr, outcome, limit_s, &res->outcome);
		}
		if (cr.orphans)
			kat_outcome_note(&res->outcome, "the scheme left processes behind after the run (killed)");
		if (cr.forged_lines)
			kat_outcome_note(&res->outcome, "the scheme wrote %zu line%s on the harness's result channel, without "
			                 "the job's key: ignored (the first: \"%s\")", cr.forged_lines,
			                 cr.forged_lines == 1 ? "" : "s", cr.forged_first);
		/* The flow signs with keys its own process generated; a key from elsewhere is asked here. */
		const char *kind = json_string_value(json_object_get(desc, "kind"));
		if (cr.end == CHILD_OK && kind && strcmp(kind, "signature") == 0) {
			char note[KAT_NOTE_LEN];
			pq_error kerr = { 0 };
			int kr = key_origin_check(o->lib, limit_s, o->as_limit, note, sizeof note, &keys, &kerr);
			if (kr < 0 && own_failure(&kerr, &own)) {
				json_decref(keys);
				keys = NULL;
			} else if (kr < 0) {
				json_decref(keys);
				keys = json_pack("{s:s, s:s}", "verdict", "not checked", "detail", kerr.msg);
			} else if (kr > 0)
				kat_outcome_note(&res->outcome, "%s", note);
		}
		if (cr.contain_note[0])
			kat_outcome_note(&res->outcome, "%s", cr.contain_note);
	}
	int wr = own.code ? 0 : write_log(o, res, desc, have_child ? &cr : NULL, err);
	res->record = json_pack("{s:s, s:O, s:o, s:s, s:s, s:s}", "schema", "pqprof.kat/1", "instance", desc,
	                        "outcome", kat_outcome_to_json(&res->outcome), "expected", res->expected,
	                        "log_sha256", res->log_sha256, "produced_sha256", res->produced_sha256);
	if (o->log_path)
		json_object_set_new(res->record, "log", json_string(o->log_path));
	if (res->forensics)
		json_object_set(res->record, "forensics", res->forensics);
	json_t *kj = json_pack("{s:s}", "flow", "every round signs with the key pair keygen produced in the same process");
	if (keys)
		json_object_set_new(kj, "from_another_process", keys);
	json_object_set_new(res->record, "keys", kj);
	if (o->record_path && wr == 0 && !own.code) {
		wr = json_file_write(o->record_path, res->record, err);
	}
	if (have_child)
		child_result_free(&cr);
	json_decref(desc);
	unlink(produced);
	unlink(outcome);
	rmdir(tmpdir);
	interrupt_untrack_tmp(tmpdir);
	if (wr == 0 && own.code) {
		/* pqprof itself failed: no verdict, and nothing written. */
		*err = own;
		wr = -own.code;
	}
	if (wr < 0) {
		/* No verdict stands that was not written. */
		kat_gate_result_free(res);
		return wr;
	}
	return 0;
}

void kat_gate_result_free(struct kat_gate_result *res)
{
	json_decref(res->record);
	res->record = NULL;
	json_decref(res->forensics);
	res->forensics = NULL;
}
