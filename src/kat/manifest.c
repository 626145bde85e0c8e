/*
 * manifest: kat.sha256 parsing, canonical digests and manifest lines; see
 * manifest.h.  SHA-256 comes from libcrypto.
 */
#include "config.h"
#include "kat/manifest.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include "core/atomic_file.h"
#include "core/digest.h"

const char *manifest_mode_name(enum manifest_mode mode)
{
	return mode == MANIFEST_NOLEN ? "nolen" : "strict";
}

/* ---- canonical text ------------------------------------------------------ */

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static int is_space(char c)
{
	/* \s of the published regex: space, tab, and the rarer ones. */
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* ^\w+_Len\s*= : the word run at the start must end in "_Len" with one \w before it. */
static int is_len_line(const char *s, size_t n)
{
	size_t w = 0;
	while (w < n && is_word(s[w]))
		w++;
	if (w < 5 || memcmp(s + w - 4, "_Len", 4) != 0)
		return 0;
	while (w < n && is_space(s[w]))
		w++;
	return w < n && s[w] == '=';
}

/* ^[Cc]ount\s*= */
static int is_record_start(const char *s, size_t n)
{
	if (n < 5 || (s[0] != 'c' && s[0] != 'C') || memcmp(s + 1, "ount", 4) != 0)
		return 0;
	size_t w = 5;
	while (w < n && is_space(s[w]))
		w++;
	return w < n && s[w] == '=';
}

typedef int (*line_sink)(void *ctx, const char *s, size_t n);

/* Feed each kept canonical line (without its "\n") to sink. */
static int canonical_lines(const char *buf, size_t len, enum manifest_mode mode,
                           size_t records, line_sink sink, void *ctx)
{
	size_t pos = 0, seen = 0;
	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		/* "every line with CR removed": also CRs inside a line. */
		if (n == 0)
			continue;
		if (records && is_record_start(s, n) && ++seen > records)
			break;
		if (mode == MANIFEST_NOLEN && is_len_line(s, n))
			continue;
		int rc = sink(ctx, s, n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Copy s[0..n) without CR bytes into the sink's consumer, then "\n". */
struct text_ctx {
	char *s;
	size_t len, cap;
};

static int text_sink(void *vctx, const char *s, size_t n)
{
	struct text_ctx *t = vctx;
	if (pq_grow(&t->s, &t->cap, t->len + n + 2, 1, 4096) < 0)
		return -PQ_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '\r')
			t->s[t->len++] = s[i];
	t->s[t->len++] = '\n';
	t->s[t->len] = '\0';
	return 0;
}

static int digest_sink(void *vctx, const char *s, size_t n)
{
	EVP_MD_CTX *md = vctx;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || s[i] == '\r') {
			if (i > start && EVP_DigestUpdate(md, s + start, i - start) != 1)
				return -PQ_EINTERNAL;
			start = i + 1;
		}
	}
	return EVP_DigestUpdate(md, "\n", 1) == 1 ? 0 : -PQ_EINTERNAL;
}

int manifest_canonical_text(const char *buf, size_t len, enum manifest_mode mode,
                            size_t records, char **out, size_t *outlen, pq_error *err)
{
	struct text_ctx t = {0};
	int rc = canonical_lines(buf, len, mode, records, text_sink, &t);
	if (rc == 0 && !t.s) {
		t.s = calloc(1, 1);
		if (!t.s)
			rc = -PQ_ENOMEM;
	}
	if (rc < 0) {
		free(t.s);
		*out = NULL;
		return pq_fail(err, PQ_ENOMEM, "canonical KAT text: out of memory");
	}
	*out = t.s;
	if (outlen)
		*outlen = t.len;
	return 0;
}

int manifest_digest(const char *buf, size_t len, enum manifest_mode mode, size_t records,
                    uint8_t out[32], pq_error *err)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (!md)
		return pq_fail(err, PQ_ENOMEM, "sha256: out of memory");
	unsigned olen = 0;
	int rc = EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 ? 0 : -PQ_EINTERNAL;
	if (rc == 0)
		rc = canonical_lines(buf, len, mode, records, digest_sink, md);
	if (rc == 0 && (EVP_DigestFinal_ex(md, out, &olen) != 1 || olen != 32))
		rc = -PQ_EINTERNAL;
	EVP_MD_CTX_free(md);
	if (rc < 0)
		return pq_fail(err, PQ_EINTERNAL, "sha256: libcrypto failed");
	return 0;
}

int manifest_verify_buffer(const struct manifest_entry *e, const char *buf, size_t len,
                           char actual_hex[65], pq_error *err)
{
	uint8_t d[32];
	int rc = manifest_digest(buf, len, e->mode, e->records, d, err);
	if (rc < 0)
		return rc;
	if (actual_hex)
		hex_encode(d, 32, actual_hex);
	return memcmp(d, e->digest, 32) == 0;
}

int manifest_verify_file(const struct manifest_entry *e, const char *path,
                         char actual_hex[65], pq_error *err)
{
	char *buf;
	size_t len;
	int rc = read_whole_file(path, &buf, &len, 0, err);
	if (rc < 0)
		return rc;
	rc = manifest_verify_buffer(e, buf, len, actual_hex, err);
	free(buf);
	return rc;
}

/* ---- manifest files ------------------------------------------------------ */

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->entries[i].label);
		free(m->entries[i].file);
	}
	free(m->entries);
	memset(m, 0, sizeof *m);
}

static size_t skip_blanks(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t token_end(const char *s, size_t i, size_t n)
{
	while (i < n && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
}

static int parse_mode(const char *s, size_t n, struct manifest_entry *e, const char *path,
                      long no, pq_error *err)
{
	const char *colon = memchr(s, ':', n);
	size_t mlen = colon ? (size_t)(colon - s) : n;
	if (mlen == 6 && memcmp(s, "strict", 6) == 0)
		e->mode = MANIFEST_STRICT;
	else if (mlen == 5 && memcmp(s, "nolen", 5) == 0)
		e->mode = MANIFEST_NOLEN;
	else
		return pq_fail(err, PQ_EINPUT, "%s:%ld: mode '%.*s' is neither strict nor nolen",
		               path, no, (int)(mlen > 32 ? 32 : mlen), s);
	e->records = 0;
	if (!colon)
		return 0;
	size_t i = mlen + 1;
	if (i == n)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: no record count after ':'", path, no);
	size_t v = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return pq_fail(err, PQ_EINPUT, "%s:%ld: record count is not a decimal number",
			               path, no);
		v = v * 10 + (size_t)(s[i] - '0');
		if (v > MANIFEST_MAX_RECORDS)
			return pq_fail(err, PQ_EINPUT, "%s:%ld: record count larger than %zu", path,
			               no, MANIFEST_MAX_RECORDS);
	}
	if (v == 0)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: record count must be at least 1", path, no);
	e->records = v;
	return 0;
}

static int parse_entry(const char *s, size_t n, const char *path, long no,
                       struct manifest_entry *e, pq_error *err)
{
	size_t i = 0, j = token_end(s, 0, n);
	if (j != 64)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: expected a 64-digit sha256, found %zu characters",
		               path, no, j);
	for (size_t k = 0; k < 64; k += 2) {
		int hi = hex_value(s[k]), lo = hex_value(s[k + 1]);
		if (hi < 0 || lo < 0)
			return pq_fail(err, PQ_EINPUT, "%s:%ld: sha256 has a non-hex digit at %zu",
			               path, no, hi < 0 ? k + 1 : k + 2);
		e->digest[k / 2] = (uint8_t)(hi << 4 | lo);
	}
	i = skip_blanks(s, j, n);
	j = token_end(s, i, n);
	if (i == j)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: no mode after the digest", path, no);
	int rc = parse_mode(s + i, j - i, e, path, no, err);
	if (rc < 0)
		return rc;
	i = skip_blanks(s, j, n);
	if (i == n)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: no <label>/<file> after the mode", path, no);
	const char *p = s + i;
	size_t pn = n - i;
	for (size_t k = 0; k < pn; k++)
		if ((unsigned char)p[k] < 0x20 || p[k] == 0x7f)
			return pq_fail(err, PQ_EINPUT, "%s:%ld: control character in the file name",
			               path, no);
	const char *slash = NULL;
	for (size_t k = pn; k > 0; k--)
		if (p[k - 1] == '/') {
			slash = p + k - 1;
			break;
		}
	if (!slash || slash == p || slash == p + pn - 1)
		return pq_fail(err, PQ_EINPUT, "%s:%ld: expected <label>/<file>, found '%.*s'", path,
		               no, (int)(pn > 80 ? 80 : pn), p);
	e->label = strndup(p, (size_t)(slash - p));
	e->file = strndup(slash + 1, pn - (size_t)(slash - p) - 1);
	if (!e->label || !e->file) {
		free(e->label);
		free(e->file);
		e->label = e->file = NULL;
		return pq_fail(err, PQ_ENOMEM, "%s:%ld: out of memory", path, no);
	}
	return 0;
}

int manifest_parse(const char *buf, size_t len, const char *path, struct manifest *m,
                   pq_error *err)
{
	memset(m, 0, sizeof *m);
	if (!path)
		path = "<manifest>";
	if (len > MANIFEST_MAX_BYTES)
		return pq_fail(err, PQ_EINPUT, "%s: larger than %zu bytes", path, MANIFEST_MAX_BYTES);
	size_t pos = 0;
	long no = 0;
	int rc = 0;
	while (pos < len && rc == 0) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		no++;
		if (n > MANIFEST_MAX_LINE) {
			rc = pq_fail(err, PQ_EINPUT, "%s:%ld: line longer than %d bytes", path, no,
			             MANIFEST_MAX_LINE);
			break;
		}
		while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		size_t i = skip_blanks(s, 0, n);
		if (i == n || s[i] == '#')
			continue;
		if (m->n >= MANIFEST_MAX_ENTRIES) {
			rc = pq_fail(err, PQ_EINPUT, "%s:%ld: more than %zu entries", path, no,
			             MANIFEST_MAX_ENTRIES);
			break;
		}
		if (pq_grow(&m->entries, &m->cap, m->n + 1, sizeof *m->entries, 16) < 0) {
			rc = pq_fail(err, PQ_ENOMEM, "%s:%ld: out of memory", path, no);
			break;
		}
		struct manifest_entry *e = &m->entries[m->n];
		memset(e, 0, sizeof *e);
		e->line = no;
		rc = parse_entry(s + i, n - i, path, no, e, err);
		if (rc == 0)
			m->n++;
	}
	if (rc < 0)
		manifest_free(m);
	return rc;
}

int manifest_read(const char *path, struct manifest *m, pq_error *err)
{
	char *buf;
	size_t len;
	memset(m, 0, sizeof *m);
	int rc = read_whole_file(path, &buf, &len, MANIFEST_MAX_BYTES, err);
	if (rc < 0)
		return rc;
	rc = manifest_parse(buf, len, path, m, err);
	free(buf);
	return rc;
}

const struct manifest_entry *manifest_find(const struct manifest *m, const char *label,
                                           const char *file)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct manifest_entry *e = &m->entries[i];
		if ((!label || strcmp(e->label, label) == 0) && strcmp(e->file, file) == 0)
			return e;
	}
	return NULL;
}

static int name_ok(const char *s, int allow_slash)
{
	size_t n = strlen(s);
	if (n == 0 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || (!allow_slash && c == '/'))
			return 0;
	}
	return 1;
}

int manifest_format_line(const uint8_t digest[32], enum manifest_mode mode, size_t records,
                         const char *label, const char *file, char *out, size_t outsz,
                         pq_error *err)
{
	/* The label may hold '/' (the last one separates); the file may not. */
	if (!label || !file || !name_ok(label, 1) || !name_ok(file, 0) ||
	    label[strlen(label) - 1] == '/')
		return pq_fail(err, PQ_EINPUT, "manifest line: bad label or file name '%s/%s'",
		               label ? label : "", file ? file : "");
	char hex[65], count[32] = "";
	hex_encode(digest, 32, hex);
	if (records)
		snprintf(count, sizeof count, ":%zu", records);
	int n = snprintf(out, outsz, "%s %s%s %s/%s\n", hex, manifest_mode_name(mode), count,
	                 label, file);
	if (n < 0 || (size_t)n >= outsz)
		return pq_fail(err, PQ_EINPUT, "manifest line for %s/%s: too long", label, file);
	return n;
}

int manifest_check_file(const char *path, pq_error *err)
{
	struct manifest m;
	int r = manifest_read(path, &m, err);
	if (r < 0) {
		if (err && err->code != PQ_ENOMEM)
			err->code = PQ_EINPUT;
		return err && err->code ? -err->code : -PQ_EINPUT;
	}
	manifest_free(&m);
	return 0;
}
