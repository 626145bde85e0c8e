/*
 * kat_file: known-answer vector files in memory, read and written in both
 * flavours pqprof meets:
 *  - NIST PQCgenKAT `.rsp` (`# NAME` line, then records of lower-case
 *    `key = value` lines: count seed mlen msg pk sk smlen sm for
 *    signatures, count seed pk sk ct ss for KEMs);
 *  - NGCC `KAT_SIG_*.txt` / `KAT_KEM_*.txt` (Count, Seed_Len, Seed, PK_Len,
 *    PK, ... with explicit `*_Len` lines that may be blank in template mode).
 * A file is an optional name line plus an array of records; a record is an
 * ordered array of fields (name, raw text, decoded integer or bytes).
 * The reader treats input as hostile: every problem is a `FILE:LINE:
 * problem` error, sizes are capped, nothing is trusted before it is
 * checked.  The writer reproduces the published layouts byte for byte.
 * Not here: digests of vector files (manifest.h), running schemes
 * (kat_engine.h).
 */
#ifndef PQ_KAT_FILE_H
#define PQ_KAT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"

enum kat_flavour {
	KAT_FLAVOUR_UNKNOWN = 0,
	KAT_NIST_SIG = 1,  /* PQCsignKAT_*.rsp */
	KAT_NIST_KEM = 2,  /* PQCkemKAT_*.rsp */
	KAT_NGCC_SIG = 3,  /* KAT_SIG_*.txt */
	KAT_NGCC_KEM = 4,  /* KAT_KEM_*.txt */
};

enum kat_value_kind {
	KAT_VALUE_BLANK = 0, /* "PK_Len = " in NGCC template mode */
	KAT_VALUE_INT = 1,   /* count, mlen, *_Len */
	KAT_VALUE_HEX = 2,   /* seed, pk, sm, Sn, ... */
};

#define KAT_FIELD_NAME_MAX 16

struct kat_field {
	char name[KAT_FIELD_NAME_MAX];
	enum kat_value_kind kind;
	char *text;       /* value as read (trimmed); NULL for fields built in memory */
	uint64_t num;     /* KAT_VALUE_INT */
	uint8_t *bytes;   /* KAT_VALUE_HEX (NULL when len is 0) */
	size_t len;
	long line;        /* line in the source file; 0 when built in memory */
};

struct kat_record {
	struct kat_field *fields;
	size_t nfields, cap;
	long line;        /* line of its count line; 0 when built */
};

struct kat_file {
	enum kat_flavour flavour;
	char *name;       /* text of the "# NAME" line without "# "; NULL if none */
	struct kat_record *records;
	size_t nrecords, cap;
};

/* Limits for reading untrusted files; zero members take the defaults. */
#define KAT_DEFAULT_MAX_BYTES ((size_t)512 << 20)
#define KAT_DEFAULT_MAX_RECORDS ((size_t)100000)

struct kat_read_opts {
	size_t max_bytes;          /* file size cap */
	size_t max_records;        /* record count cap */
	enum kat_flavour flavour;  /* force a flavour; UNKNOWN = detect */
};

const char *kat_flavour_name(enum kat_flavour fl);   /* "nist-sig", ... */

/*
 * Guess the flavour: from the field names of the first record when they
 * decide it, else from the file name (PQCsignKAT_, PQCkemKAT_, KAT_SIG_,
 * KAT_KEM_).  path may be NULL, buf may be NULL.  UNKNOWN if neither tells.
 */
enum kat_flavour kat_flavour_detect(const char *path, const char *buf, size_t len);

/* Empty file of a flavour; name may be NULL. Returns 0 or -PQ_ENOMEM. */
int kat_file_init(struct kat_file *f, enum kat_flavour fl, const char *name);
void kat_file_free(struct kat_file *f);

/*
 * Parse len bytes of buf (need not be NUL-terminated).  path names the
 * source in messages ("FILE:LINE: problem").  On failure *f is left empty.
 */
int kat_file_parse(const char *buf, size_t len, const char *path,
                   const struct kat_read_opts *opts, struct kat_file *f, pq_error *err);
int kat_file_read(const char *path, const struct kat_read_opts *opts,
                  struct kat_file *f, pq_error *err);

/* Builders (the engine's produced files).  Fields are appended in order. */
struct kat_record *kat_file_add_record(struct kat_file *f);   /* NULL: out of memory */
int kat_record_add_int(struct kat_record *r, const char *name, uint64_t v);
int kat_record_add_bytes(struct kat_record *r, const char *name, const uint8_t *b, size_t n);
int kat_record_add_blank(struct kat_record *r, const char *name);

/* Lookup by exact field name; NULL / -1 when absent or of another kind. */
const struct kat_field *kat_record_field(const struct kat_record *r, const char *name);
const uint8_t *kat_record_bytes(const struct kat_record *r, const char *name, size_t *len);
int kat_record_int(const struct kat_record *r, const char *name, uint64_t *v);

/*
 * Text in the published layout: NIST "# NAME\n\n" (when a name is set),
 * every record's lines then one empty line; uppercase hex; "\n" endings.
 * *out is malloc'd and NUL-terminated.
 */
int kat_file_format(const struct kat_file *f, char **out, size_t *len, pq_error *err);
/* Format and write atomically (temp + rename). */
int kat_file_write(const struct kat_file *f, const char *path, pq_error *err);

/* Comparison of an expected file with a produced one. */
struct kat_compare_opts {
	int nolen;            /* ignore fields whose name ends in "_Len" */
	size_t max_records;   /* compare only the first N records; 0 = all */
	int ignore_name;      /* do not compare the "# NAME" lines */
};

struct kat_diff {
	long record;                      /* first differing record; -1 = file level */
	char field[KAT_FIELD_NAME_MAX];   /* "" when the record as a whole differs */
	char what[256];                   /* "pk differs at byte 17", "record 3 missing" */
};

/* 1 when they match, 0 when not (and *d says where first). */
int kat_compare(const struct kat_file *expected, const struct kat_file *produced,
                const struct kat_compare_opts *opts, struct kat_diff *d);

#endif
