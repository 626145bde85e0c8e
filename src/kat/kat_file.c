/*
 * kat_file: reader, writer and comparison of NIST .rsp and NGCC KAT_*.txt
 * vector files; see kat_file.h.  Each flavour has a fixed schema (field
 * names, order, which fields are decimal and which length field measures
 * which hex field); the reader checks input against it line by line.
 */
#include "config.h"
#include "kat/kat_file.h"
#include "core/grow.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomic_file.h"
#include "core/digest.h"
#include "core/path_name.h"

enum field_type { FT_INT, FT_LEN, FT_HEX };  /* FT_LEN: decimal, may be blank */

struct field_spec {
	const char *name;
	enum field_type type;
	int measures;   /* index of the hex field this length counts, or -1 */
};

struct schema {
	enum kat_flavour flavour;
	const char *label;
	const struct field_spec *fields;
	size_t n;
};

static const struct field_spec nist_sig_fields[] = {
	{"count", FT_INT, -1}, {"seed", FT_HEX, -1}, {"mlen", FT_INT, 3},
	{"msg", FT_HEX, -1}, {"pk", FT_HEX, -1}, {"sk", FT_HEX, -1},
	{"smlen", FT_INT, 7}, {"sm", FT_HEX, -1},
};
static const struct field_spec nist_kem_fields[] = {
	{"count", FT_INT, -1}, {"seed", FT_HEX, -1}, {"pk", FT_HEX, -1},
	{"sk", FT_HEX, -1}, {"ct", FT_HEX, -1}, {"ss", FT_HEX, -1},
};
static const struct field_spec ngcc_sig_fields[] = {
	{"Count", FT_INT, -1}, {"Seed_Len", FT_LEN, 2}, {"Seed", FT_HEX, -1},
	{"PK_Len", FT_LEN, 4}, {"PK", FT_HEX, -1}, {"SK_Len", FT_LEN, 6},
	{"SK", FT_HEX, -1}, {"M_Len", FT_LEN, 8}, {"M", FT_HEX, -1},
	{"Sn_Len", FT_LEN, 10}, {"Sn", FT_HEX, -1},
};
static const struct field_spec ngcc_kem_fields[] = {
	{"Count", FT_INT, -1}, {"Seed_Len", FT_LEN, 2}, {"Seed", FT_HEX, -1},
	{"PK_Len", FT_LEN, 4}, {"PK", FT_HEX, -1}, {"SK_Len", FT_LEN, 6},
	{"SK", FT_HEX, -1}, {"CT_Len", FT_LEN, 8}, {"CT", FT_HEX, -1},
	{"SS_Len", FT_LEN, 10}, {"SS", FT_HEX, -1},
};

#define NFIELDS(a) (sizeof a / sizeof a[0])
static const struct schema schemas[] = {
	{KAT_NIST_SIG, "NIST signature", nist_sig_fields, NFIELDS(nist_sig_fields)},
	{KAT_NIST_KEM, "NIST KEM", nist_kem_fields, NFIELDS(nist_kem_fields)},
	{KAT_NGCC_SIG, "NGCC KAT_SIG", ngcc_sig_fields, NFIELDS(ngcc_sig_fields)},
	{KAT_NGCC_KEM, "NGCC KAT_KEM", ngcc_kem_fields, NFIELDS(ngcc_kem_fields)},
};

static const struct schema *schema_of(enum kat_flavour fl)
{
	for (size_t i = 0; i < NFIELDS(schemas); i++)
		if (schemas[i].flavour == fl)
			return &schemas[i];
	return NULL;
}

static int schema_index(const struct schema *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->fields[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *kat_flavour_name(enum kat_flavour fl)
{
	switch (fl) {
	case KAT_NIST_SIG: return "nist-sig";
	case KAT_NIST_KEM: return "nist-kem";
	case KAT_NGCC_SIG: return "ngcc-sig";
	case KAT_NGCC_KEM: return "ngcc-kem";
	default: return "unknown";
	}
}

/* ---- line scanning ------------------------------------------------------ */

struct line {
	const char *s;
	size_t len;
	long no;
};

/* Next line of buf[*pos..len), without "\n", CR and trailing blanks. */
static int next_line(const char *buf, size_t len, size_t *pos, long *lineno, struct line *ln)
{
	if (*pos >= len)
		return 0;
	const char *s = buf + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += n + (nl != NULL);
	++*lineno;
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	ln->s = s;
	ln->len = n;
	ln->no = *lineno;
	return 1;
}

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/*
 * Split "key = value".  Returns 1 and fills key/value on success, 0 when
 * the line is not of that shape.
 */
static int split_kv(const struct line *ln, const char **key, size_t *klen,
                    const char **val, size_t *vlen)
{
	size_t i = 0;
	while (i < ln->len && is_key_char(ln->s[i]))
		i++;
	if (i == 0)
		return 0;
	*key = ln->s;
	*klen = i;
	while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
		i++;
	if (i >= ln->len || ln->s[i] != '=')
		return 0;
	i++;
	while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
		i++;
	*val = ln->s + i;
	*vlen = ln->len - i;
	return 1;
}

/* ---- flavour detection --------------------------------------------------- */

static enum kat_flavour flavour_from_name(const char *path)
{
	if (!path)
		return KAT_FLAVOUR_UNKNOWN;
	const char *base = path_base(path);
	if (strncmp(base, "PQCsignKAT", 10) == 0)
		return KAT_NIST_SIG;
	if (strncmp(base, "PQCkemKAT", 9) == 0)
		return KAT_NIST_KEM;
	if (strncmp(base, "KAT_SIG_", 8) == 0)
		return KAT_NGCC_SIG;
	if (strncmp(base, "KAT_KEM_", 8) == 0)
		return KAT_NGCC_KEM;
	return KAT_FLAVOUR_UNKNOWN;
}

static int key_is(const char *k, size_t kl, const char *want)
{
	return strlen(want) == kl && memcmp(k, want, kl) == 0;
}

static enum kat_flavour flavour_from_content(const char *buf, size_t len)
{
	size_t pos = 0;
	long no = 0;
	struct line ln;
	int family = 0;   /* 1 NIST, 2 NGCC */
	int lines = 0;
	while (next_line(buf, len, &pos, &no, &ln) && lines < 64) {
		const char *k, *v;
		size_t kl, vl;
		if (!split_kv(&ln, &k, &kl, &v, &vl))
			continue;
		lines++;
		if (key_is(k, kl, "count")) {
			if (family)
				break;
			family = 1;
		} else if (key_is(k, kl, "Count")) {
			if (family)
				break;
			family = 2;
		} else if (family == 1) {
			if (key_is(k, kl, "mlen") || key_is(k, kl, "msg") ||
			    key_is(k, kl, "smlen") || key_is(k, kl, "sm"))
				return KAT_NIST_SIG;
			if (key_is(k, kl, "ct") || key_is(k, kl, "ss"))
				return KAT_NIST_KEM;
		} else if (family == 2) {
			if (key_is(k, kl, "M_Len") || key_is(k, kl, "M") ||
			    key_is(k, kl, "Sn_Len") || key_is(k, kl, "Sn"))
				return KAT_NGCC_SIG;
			if (key_is(k, kl, "CT_Len") || key_is(k, kl, "CT") ||
			    key_is(k, kl, "SS_Len") || key_is(k, kl, "SS"))
				return KAT_NGCC_KEM;
		}
	}
	return KAT_FLAVOUR_UNKNOWN;
}

enum kat_flavour kat_flavour_detect(const char *path, const char *buf, size_t len)
{
	enum kat_flavour fl = buf ? flavour_from_content(buf, len) : KAT_FLAVOUR_UNKNOWN;
	return fl != KAT_FLAVOUR_UNKNOWN ? fl : flavour_from_name(path);
}

/* ---- building ------------------------------------------------------------ */

int kat_file_init(struct kat_file *f, enum kat_flavour fl, const char *name)
{
	memset(f, 0, sizeof *f);
	f->flavour = fl;
	if (name) {
		f->name = strdup(name);
		if (!f->name)
			return -PQ_ENOMEM;
	}
	return 0;
}

static void record_free(struct kat_record *r)
{
	for (size_t i = 0; i < r->nfields; i++) {
		free(r->fields[i].text);
		free(r->fields[i].bytes);
	}
	free(r->fields);
	memset(r, 0, sizeof *r);
}

void kat_file_free(struct kat_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nrecords; i++)
		record_free(&f->records[i]);
	free(f->records);
	free(f->name);
	memset(f, 0, sizeof *f);
}

struct kat_record *kat_file_add_record(struct kat_file *f)
{
	if (pq_grow(&f->records, &f->cap, f->nrecords + 1, sizeof *f->records, 16) < 0)
		return NULL;
	struct kat_record *r = &f->records[f->nrecords++];
	memset(r, 0, sizeof *r);
	return r;
}

static struct kat_field *record_push(struct kat_record *r, const char *name)
{
	if (strlen(name) >= KAT_FIELD_NAME_MAX)
		return NULL;
	if (pq_grow(&r->fields, &r->cap, r->nfields + 1, sizeof *r->fields, 12) < 0)
		return NULL;
	struct kat_field *fd = &r->fields[r->nfields++];
	memset(fd, 0, sizeof *fd);
	snprintf(fd->name, sizeof fd->name, "%s", name);
	return fd;
}

int kat_record_add_int(struct kat_record *r, const char *name, uint64_t v)
{
	struct kat_field *fd = record_push(r, name);
	if (!fd)
		return -PQ_ENOMEM;
	fd->kind = KAT_VALUE_INT;
	fd->num = v;
	return 0;
}

int kat_record_add_bytes(struct kat_record *r, const char *name, const uint8_t *b, size_t n)
{
	uint8_t *copy = NULL;
	if (n) {
		copy = malloc(n);
		if (!copy)
			return -PQ_ENOMEM;
		memcpy(copy, b, n);
	}
	struct kat_field *fd = record_push(r, name);
	if (!fd) {
		free(copy);
		return -PQ_ENOMEM;
	}
	fd->kind = KAT_VALUE_HEX;
	fd->bytes = copy;
	fd->len = n;
	return 0;
}

int kat_record_add_blank(struct kat_record *r, const char *name)
{
	struct kat_field *fd = record_push(r, name);
	if (!fd)
		return -PQ_ENOMEM;
	fd->kind = KAT_VALUE_BLANK;
	return 0;
}

const struct kat_field *kat_record_field(const struct kat_record *r, const char *name)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].name, name) == 0)
			return &r->fields[i];
	return NULL;
}

const uint8_t *kat_record_bytes(const struct kat_record *r, const char *name, size_t *len)
{
	const struct kat_field *fd = kat_record_field(r, name);
	if (!fd || fd->kind != KAT_VALUE_HEX)
		return NULL;
	if (len)
		*len = fd->len;
	/* A present but empty field still answers non-NULL. */
	return fd->bytes ? fd->bytes : (const uint8_t *)"";
}

int kat_record_int(const struct kat_record *r, const char *name, uint64_t *v)
{
	const struct kat_field *fd = kat_record_field(r, name);
	if (!fd || fd->kind != KAT_VALUE_INT)
		return -1;
	*v = fd->num;
	return 0;
}

/* ---- parsing ------------------------------------------------------------- */

struct parser {
	const char *path;
	const struct schema *sc;
	struct kat_file *f;
	size_t max_records;
	pq_error *err;
};

/* Show a possibly hostile byte in a message. */
static void show_char(char c, char out[8])
{
	unsigned char u = (unsigned char)c;
	if (u >= 0x21 && u < 0x7f)
		snprintf(out, 8, "'%c'", c);
	else
		snprintf(out, 8, "0x%02X", u);
}

static int decode_value(struct parser *p, const struct field_spec *fs, const struct line *ln,
                        const char *v, size_t vl, struct kat_field *fd)
{
	if (vl == 0) {
		if (fs->type == FT_LEN) {
			fd->kind = KAT_VALUE_BLANK;
			return 0;
		}
		if (fs->type == FT_INT)
			return pq_fail(p->err, PQ_EINPUT, "%s:%ld: %s has no value", p->path,
			               ln->no, fs->name);
		fd->kind = KAT_VALUE_HEX;
		return 0;
	}
	if (fs->type != FT_HEX) {
		uint64_t n = 0;
		for (size_t i = 0; i < vl; i++) {
			if (v[i] < '0' || v[i] > '9') {
				char c[8];
				show_char(v[i], c);
				return pq_fail(p->err, PQ_EINPUT,
				               "%s:%ld: %s: %s is not a decimal digit", p->path,
				               ln->no, fs->name, c);
			}
			unsigned d = (unsigned)(v[i] - '0');
			if (n > (UINT64_MAX - d) / 10)
				return pq_fail(p->err, PQ_EINPUT, "%s:%ld: %s: number too large",
				               p->path, ln->no, fs->name);
			n = n * 10 + d;
		}
		fd->kind = KAT_VALUE_INT;
		fd->num = n;
		return 0;
	}
	if (vl % 2)
		return pq_fail(p->err, PQ_EINPUT, "%s:%ld: %s has an odd number of hex digits (%zu)",
		               p->path, ln->no, fs->name, vl);
	uint8_t *b = malloc(vl / 2);
	if (!b)
		return pq_fail(p->err, PQ_ENOMEM, "%s:%ld: out of memory", p->path, ln->no);
	for (size_t i = 0; i < vl; i += 2) {
		int hi = hex_value(v[i]), lo = hex_value(v[i + 1]);
		if (hi < 0 || lo < 0) {
			size_t at = hi < 0 ? i : i + 1;
			char c[8];
			show_char(v[at], c);
			free(b);
			return pq_fail(p->err, PQ_EINPUT,
			               "%s:%ld: %s: %s at hex digit %zu is not a hex digit",
			               p->path, ln->no, fs->name, c, at + 1);
		}
		b[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	fd->kind = KAT_VALUE_HEX;
	fd->bytes = b;
	fd->len = vl / 2;
	return 0;
}

/* Check a finished record: complete, numbered, lengths agree with data. */
static int finish_record(struct parser *p, struct kat_record *r)
{
	const struct schema *sc = p->sc;
	size_t idx = (size_t)(r - p->f->records);
	long last_line = r->nfields ? r->fields[r->nfields - 1].line : r->line;
	if (r->nfields < sc->n)
		return pq_fail(p->err, PQ_EINPUT,
		               "%s:%ld: record %zu is truncated: no '%s' line", p->path, last_line,
		               idx, sc->fields[r->nfields].name);
	if (r->fields[0].num != idx)
		return pq_fail(p->err, PQ_EINPUT,
		               "%s:%ld: %s = %" PRIu64 ", expected %zu (records are numbered from 0)",
		               p->path, r->line, sc->fields[0].name, r->fields[0].num, idx);
	for (size_t i = 0; i < sc->n; i++) {
		const struct field_spec *fs = &sc->fields[i];
		const struct kat_field *fd = &r->fields[i];
		if (fs->measures < 0 || fd->kind != KAT_VALUE_INT)
			continue;
		const struct kat_field *data = &r->fields[fs->measures];
		if (fd->num != data->len)
			return pq_fail(p->err, PQ_EINPUT,
			               "%s:%ld: %s = %" PRIu64 " but %s has %zu bytes", p->path,
			               fd->line, fs->name, fd->num, data->name, data->len);
	}
	return 0;
}

static int parse_field(struct parser *p, struct kat_record **cur, const struct line *ln,
                       const char *k, size_t kl, const char *v, size_t vl)
{
	const struct schema *sc = p->sc;
	char key[KAT_FIELD_NAME_MAX];
	if (kl >= sizeof key)
		return pq_fail(p->err, PQ_EINPUT, "%s:%ld: unknown field '%.*s...' in a %s file",
		               p->path, ln->no, 16, k, sc->label);
	memcpy(key, k, kl);
	key[kl] = '\0';
	int at = schema_index(sc, key);
	if (at < 0)
		return pq_fail(p->err, PQ_EINPUT, "%s:%ld: unknown field '%s' in a %s file",
		               p->path, ln->no, key, sc->label);
	struct kat_record *r = *cur;
	if (at == 0) {
		if (r) {
			int rc = finish_record(p, r);
			if (rc < 0)
				return rc;
		}
		if (p->f->nrecords >= p->max_records)
			return pq_fail(p->err, PQ_EINPUT, "%s:%ld: more than %zu records", p->path,
			               ln->no, p->max_records);
		r = kat_file_add_record(p->f);
		if (!r)
			return pq_fail(p->err, PQ_ENOMEM, "%s:%ld: out of memory", p->path, ln->no);
		r->line = ln->no;
		*cur = r;
	} else if (!r) {
		return pq_fail(p->err, PQ_EINPUT, "%s:%ld: '%s' outside a record (expected '%s = 0')",
		               p->path, ln->no, key, sc->fields[0].name);
	} else if (r->nfields >= sc->n) {
		return pq_fail(p->err, PQ_EINPUT,
		               "%s:%ld: '%s' after the end of record %zu (expected '%s = %zu')",
		               p->path, ln->no, key, p->f->nrecords - 1, sc->fields[0].name,
		               p->f->nrecords);
	} else if ((size_t)at != r->nfields) {
		return pq_fail(p->err, PQ_EINPUT, "%s:%ld: field '%s' out of order: expected '%s'",
		               p->path, ln->no, key, sc->fields[r->nfields].name);
	}
	struct kat_field *fd = record_push(r, key);
	if (!fd)
		return pq_fail(p->err, PQ_ENOMEM, "%s:%ld: out of memory", p->path, ln->no);
	fd->line = ln->no;
	fd->text = malloc(vl + 1);
	if (!fd->text)
		return pq_fail(p->err, PQ_ENOMEM, "%s:%ld: out of memory", p->path, ln->no);
	memcpy(fd->text, v, vl);
	fd->text[vl] = '\0';
	return decode_value(p, &sc->fields[at], ln, v, vl, fd);
}

int kat_file_parse(const char *buf, size_t len, const char *path,
                   const struct kat_read_opts *opts, struct kat_file *f, pq_error *err)
{
	struct kat_read_opts o = {0};
	if (opts)
		o = *opts;
	if (!o.max_bytes)
		o.max_bytes = KAT_DEFAULT_MAX_BYTES;
	if (!o.max_records)
		o.max_records = KAT_DEFAULT_MAX_RECORDS;
	if (!path)
		path = "<buffer>";
	memset(f, 0, sizeof *f);
	if (len > o.max_bytes)
		return pq_fail(err, PQ_EINPUT, "%s: larger than %zu bytes", path, o.max_bytes);
	enum kat_flavour fl = o.flavour ? o.flavour : kat_flavour_detect(path, buf, len);
	const struct schema *sc = schema_of(fl);
	if (!sc)
		return pq_fail(err, PQ_EINPUT,
		               "%s: not a KAT file pqprof knows (neither NIST PQCsignKAT/PQCkemKAT "
		               "nor NGCC KAT_SIG/KAT_KEM fields)", path);
	f->flavour = fl;

	struct parser p = {path, sc, f, o.max_records, err};
	struct kat_record *cur = NULL;
	size_t pos = 0;
	long no = 0;
	struct line ln;
	int rc = 0;
	while (rc == 0 && next_line(buf, len, &pos, &no, &ln)) {
		if (ln.len == 0)
			continue;
		if (ln.s[0] == '#') {
			if (f->nrecords || f->name) {
				rc = pq_fail(err, PQ_EINPUT, "%s:%ld: comment line inside the records",
				             path, ln.no);
				break;
			}
			const char *s = ln.s + 1;
			size_t n = ln.len - 1;
			while (n && (*s == ' ' || *s == '\t')) {
				s++;
				n--;
			}
			if (n > 256 || memchr(s, '\0', n)) {
				rc = pq_fail(err, PQ_EINPUT, "%s:%ld: name line too long or not text",
				             path, ln.no);
				break;
			}
			f->name = strndup(s, n);
			if (!f->name)
				rc = pq_fail(err, PQ_ENOMEM, "%s:%ld: out of memory", path, ln.no);
			continue;
		}
		const char *k, *v;
		size_t kl, vl;
		if (!split_kv(&ln, &k, &kl, &v, &vl)) {
			rc = pq_fail(err, PQ_EINPUT, "%s:%ld: expected 'name = value'", path, ln.no);
			break;
		}
		rc = parse_field(&p, &cur, &ln, k, kl, v, vl);
	}
	if (rc == 0 && cur)
		rc = finish_record(&p, cur);
	if (rc == 0 && f->nrecords == 0)
		rc = pq_fail(err, PQ_EINPUT, "%s:%ld: no records", path, no);
	if (rc < 0)
		kat_file_free(f);
	return rc;
}

int kat_file_read(const char *path, const struct kat_read_opts *opts,
                  struct kat_file *f, pq_error *err)
{
	size_t max = opts && opts->max_bytes ? opts->max_bytes : KAT_DEFAULT_MAX_BYTES;
	char *buf;
	size_t len;
	memset(f, 0, sizeof *f);
	int rc = read_whole_file(path, &buf, &len, max, err);
	if (rc < 0)
		return rc;
	rc = kat_file_parse(buf, len, path, opts, f, err);
	free(buf);
	return rc;
}

/* ---- writing ------------------------------------------------------------- */

struct outbuf {
	char *s;
	size_t len, cap;
	int oom;
};

static void out_reserve(struct outbuf *o, size_t more)
{
	if (o->oom)
		return;
	if (more > SIZE_MAX - 1 - o->len || pq_grow(&o->s, &o->cap, o->len + more + 1, 1, 4096) < 0)
		o->oom = 1;
}

static void out_str(struct outbuf *o, const char *s, size_t n)
{
	out_reserve(o, n);
	if (o->oom)
		return;
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void out_hex(struct outbuf *o, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";
	if (n > SIZE_MAX / 2) {
		o->oom = 1;
		return;
	}
	out_reserve(o, 2 * n);
	if (o->oom)
		return;
	char *d = o->s + o->len;
	for (size_t i = 0; i < n; i++) {
		d[2 * i] = digits[b[i] >> 4];
		d[2 * i + 1] = digits[b[i] & 15];
	}
	o->len += 2 * n;
	o->s[o->len] = '\0';
}

int kat_file_format(const struct kat_file *f, char **out, size_t *len, pq_error *err)
{
	struct outbuf o = {0};
	out_reserve(&o, 0);
	if (f->name) {
		out_str(&o, "# ", 2);
		out_str(&o, f->name, strlen(f->name));
		out_str(&o, "\n\n", 2);
	}
	for (size_t i = 0; i < f->nrecords && !o.oom; i++) {
		const struct kat_record *r = &f->records[i];
		for (size_t j = 0; j < r->nfields; j++) {
			const struct kat_field *fd = &r->fields[j];
			out_str(&o, fd->name, strlen(fd->name));
			out_str(&o, " = ", 3);
			if (fd->kind == KAT_VALUE_INT) {
				char num[32];
				int n = snprintf(num, sizeof num, "%" PRIu64, fd->num);
				out_str(&o, num, (size_t)n);
			} else if (fd->kind == KAT_VALUE_HEX) {
				out_hex(&o, fd->bytes, fd->len);
			}
			out_str(&o, "\n", 1);
		}
		out_str(&o, "\n", 1);
	}
	if (o.oom) {
		free(o.s);
		*out = NULL;
		return pq_fail(err, PQ_ENOMEM, "KAT file text: out of memory");
	}
	*out = o.s;
	if (len)
		*len = o.len;
	return 0;
}

int kat_file_write(const struct kat_file *f, const char *path, pq_error *err)
{
	char *text;
	size_t len;
	int rc = kat_file_format(f, &text, &len, err);
	if (rc < 0)
		return rc;
	rc = atomic_write(path, text, len, err);
	free(text);
	return rc;
}

/* ---- comparison ---------------------------------------------------------- */

static int is_len_name(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && strcmp(name + n - 4, "_Len") == 0;
}

static void diff_set(struct kat_diff *d, long rec, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void diff_set(struct kat_diff *d, long rec, const char *field, const char *fmt, ...)
{
	if (!d)
		return;
	d->record = rec;
	snprintf(d->field, sizeof d->field, "%s", field ? field : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->what, sizeof d->what, fmt, ap);
	va_end(ap);
}

static void describe_value(const struct kat_field *fd, char *buf, size_t n)
{
	if (fd->kind == KAT_VALUE_BLANK)
		snprintf(buf, n, "blank");
	else if (fd->kind == KAT_VALUE_INT)
		snprintf(buf, n, "%" PRIu64, fd->num);
	else
		snprintf(buf, n, "%zu bytes of hex", fd->len);
}

/* 1 if equal; else fills d. */
static int field_equal(const struct kat_field *e, const struct kat_field *g, long rec,
                       struct kat_diff *d)
{
	/* Template-mode files (OUTPUT_BLANK_TEST_VECTORS) leave lengths blank:
	 * a blank expected length accepts whatever the instance produced. */
	if (e->kind == KAT_VALUE_BLANK && g->kind == KAT_VALUE_INT)
		return 1;
	if (e->kind != g->kind) {
		char a[40], b[40];
		describe_value(e, a, sizeof a);
		describe_value(g, b, sizeof b);
		diff_set(d, rec, e->name, "record %ld: %s expected %s, produced %s", rec, e->name, a, b);
		return 0;
	}
	if (e->kind == KAT_VALUE_INT && e->num != g->num) {
		diff_set(d, rec, e->name, "record %ld: %s expected %" PRIu64 ", produced %" PRIu64,
		         rec, e->name, e->num, g->num);
		return 0;
	}
	if (e->kind == KAT_VALUE_HEX) {
		size_t n = e->len < g->len ? e->len : g->len;
		for (size_t i = 0; i < n; i++) {
			if (e->bytes[i] != g->bytes[i]) {
				diff_set(d, rec, e->name, "record %ld: %s differs at byte %zu", rec,
				         e->name, i);
				return 0;
			}
		}
		if (e->len != g->len) {
			diff_set(d, rec, e->name, "record %ld: %s has %zu bytes, expected %zu", rec,
			         e->name, g->len, e->len);
			return 0;
		}
	}
	return 1;
}

int kat_compare(const struct kat_file *exp, const struct kat_file *got,
                const struct kat_compare_opts *opts, struct kat_diff *d)
{
	struct kat_compare_opts o = {0};
	if (opts)
		o = *opts;
	if (d)
		memset(d, 0, sizeof *d);
	if (exp->flavour != got->flavour) {
		diff_set(d, -1, NULL, "expected a %s file, produced %s",
		         kat_flavour_name(exp->flavour), kat_flavour_name(got->flavour));
		return 0;
	}
	if (!o.ignore_name) {
		const char *a = exp->name ? exp->name : "", *b = got->name ? got->name : "";
		if (strcmp(a, b) != 0) {
			diff_set(d, -1, "#", "name line differs: expected '%.80s', produced '%.80s'", a, b);
			return 0;
		}
	}
	size_t limit = exp->nrecords;
	if (o.max_records && o.max_records < limit)
		limit = o.max_records;
	for (size_t i = 0; i < limit; i++) {
		long rec = (long)i;
		if (i >= got->nrecords) {
			diff_set(d, rec, NULL, "record %ld missing (produced %zu records, expected %zu)",
			         rec, got->nrecords, exp->nrecords);
			return 0;
		}
		const struct kat_record *er = &exp->records[i], *gr = &got->records[i];
		for (size_t j = 0; j < er->nfields; j++) {
			const struct kat_field *ef = &er->fields[j];
			if (o.nolen && is_len_name(ef->name))
				continue;
			const struct kat_field *gf = kat_record_field(gr, ef->name);
			if (!gf) {
				diff_set(d, rec, ef->name, "record %ld: produced no %s", rec, ef->name);
				return 0;
			}
			if (!field_equal(ef, gf, rec, d))
				return 0;
		}
		for (size_t j = 0; j < gr->nfields; j++) {
			const struct kat_field *gf = &gr->fields[j];
			if (o.nolen && is_len_name(gf->name))
				continue;
			if (!kat_record_field(er, gf->name)) {
				diff_set(d, rec, gf->name, "record %ld: unexpected field %s", rec, gf->name);
				return 0;
			}
		}
	}
	if (!o.max_records && got->nrecords > exp->nrecords) {
		diff_set(d, (long)exp->nrecords, NULL, "produced %zu records, expected %zu",
		         got->nrecords, exp->nrecords);
		return 0;
	}
	return 1;
}
