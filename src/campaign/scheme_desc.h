/*
 * scheme_desc: the scheme descriptor, schemes/<name>/scheme.json.  It says
 * which instances a scheme has, where each instance's submission tree is and
 * with which API and -D switches it builds, which flag profiles to measure,
 * where its KAT vectors or manifest are, which implementation version it
 * is ("reference", "optimized": one instance name may appear once per
 * version), and which function groups the hash profile should report.
 * Paths inside are relative to the descriptor.
 *
 * Parsing is strict: a descriptor written by hand gets "FILE: instances[2]:
 * 'tree' is missing" rather than a half-run campaign.
 */
#ifndef PQ_SCHEME_DESC_H
#define PQ_SCHEME_DESC_H

#include "core/pq_error.h"

#define DESC_MAX_INSTANCES 64
#define DESC_MAX_DEFINES 16
#define DESC_MAX_GROUPS 16
#define DESC_MAX_GLOBS 16
#define DESC_MAX_PROFILES 8

struct desc_instance {
	char name[128];
	char implementation[64];  /* implementation version ("reference", "optimized", ...), or "" */
	char tree[4096];          /* absolute path of the submission tree */
	char api[8];              /* "ngcc", "nist" or "auto" */
	char *defines[DESC_MAX_DEFINES];
	int ndefines;
	char cflags[512];
	char vectors[4096];       /* absolute path of a KAT file, or "" */
	char manifest[4096];      /* absolute path of a kat.sha256, or "" */
	int slow;                 /* marked slow: quick runs skip it */
	int security_category;    /* NIST security category 1..5 ("security_category"), 0 when not stated */
};

struct desc_group {
	char name[64];
	char *globs[DESC_MAX_GLOBS];
	int nglobs;
};

/* An entry of the "profiles" table: a flag profile defined by the scheme. */
struct desc_profile {
	char name[64];
	char cflags[512];
	int has_cflags;           /* 0: a built-in profile's name (its own flags) */
	char cc[128];             /* a compiler program name, "" for the default */
};

struct scheme_desc {
	char path[4096];          /* the descriptor file */
	char dir[4096];           /* its directory */
	char name[128];
	char title[256];
	char category[128];       /* "digital signature", "key encapsulation" */
	struct desc_instance instances[DESC_MAX_INSTANCES];
	int ninstances;
	/* "profiles": a list of built-in names, or a table name -> {cflags, cc}
	 * (run in the order written); profile_defs[i] belongs to profiles[i]. */
	char *profiles[DESC_MAX_PROFILES];
	int nprofiles;
	struct desc_profile profile_defs[DESC_MAX_PROFILES];
	struct desc_group groups[DESC_MAX_GROUPS];
	int ngroups;
	/* "leak": true, or {"time_budget": S, "classes": "...", "floor": "..."}: run the timing-leak step */
	int leak;
	double leak_budget_s;     /* per operation, 0 = the default */
	char leak_classes[128];   /* "" = each operation's default pairs */
	char leak_floor[64];      /* the practical floor as `pqprof leak --floor` takes it; "" = the default */
};

/* Read `path` (a scheme.json, or a directory holding one). */
int scheme_desc_read(const char *path, struct scheme_desc *d, pq_error *err);
/* Parse descriptor text; `path` names it in errors, `dir` resolves paths. */
int scheme_desc_parse(const char *text, size_t len, const char *path, const char *dir,
                      struct scheme_desc *d, pq_error *err);
void scheme_desc_free(struct scheme_desc *d);

/*
 * Whether a profile name can be used: 1-63 characters from [A-Za-z0-9._+-],
 * not starting with '.' or '-'.  why (may be NULL) gets the reason.
 */
int profile_name_ok(const char *name, char *why, size_t len);
/* Whether a compiler named in a descriptor is a plain program name (looked up in PATH). */
int compiler_name_ok(const char *cc);

#endif
