/*
 * record_set: every record of one measurement run, loaded into memory for
 * the report writers and for `pqprof compare`.
 *
 * Two layouts are understood.  A campaign directory holds campaign.json
 * and the build/ kat/ records/ memory/ sizes/ profile/ traces/ flame/
 * leak/ folders named by instance label ("<instance>__<profile>"); instances
 * come from campaign.json, in its order.  A plain directory, as the
 * single-stage commands write it (`pqprof bench --records-dir DIR` ...), is
 * read file by file and each JSON file is sorted by its "schema".  In
 * both, an instance's timing-leak records are leak/<label>__<op>.json.
 *
 * Missing steps are normal (a failed build has no timings, a crashed
 * bench has a failed record, profiling may not have run): what is absent
 * is NULL.  What is present must parse: invalid JSON, a record with the
 * wrong schema or a label that would leave the directory is an error that
 * names the file.  Every file loaded is listed, with its sha256, as
 * evidence.  Nothing here prints.
 */
#ifndef PQ_REPORT_RECORD_SET_H
#define PQ_REPORT_RECORD_SET_H

#include <jansson.h>
#include <stddef.h>

#include "core/ops.h"
#include "core/pq_error.h"

#define RS_NAME 256
#define RS_PATH 1024
#define RS_MAX_OPS PQ_OP_COUNT   /* in core/ops.h order */

/* One operation of one instance; any part may be missing. */
struct rs_op {
	char op[16];
	json_t *bench;              /* pqprof.bench/1 */
	char bench_file[RS_PATH];   /* paths relative to the set's directory, "" if none */
	json_t *memory;             /* pqprof.memory/1 */
	char memory_file[RS_PATH];
	json_t *profile;            /* pqprof.profile/1 */
	char profile_file[RS_PATH];
	char trace_file[RS_PATH];   /* existing .pqt */
	char flame_file[RS_PATH];   /* existing flame graph .svg */
	char folded_file[RS_PATH];  /* existing folded stacks, for differential flame graphs */
	json_t *leak;               /* pqprof.leak/1 (leak/<label>__<op>.json) */
	char leak_file[RS_PATH];
	char leak_plot_file[RS_PATH]; /* existing |t| plot (leak/<label>__<op>.svg) */
};

/* One instance built with one flag profile. */
struct rs_instance {
	char name[RS_NAME];
	char profile[RS_NAME];      /* flag profile, "" if unknown */
	char implementation[64];    /* implementation version ("reference", "optimized", ...), "" if none */
	char shown[RS_NAME + 80];   /* name in report rows: "<name> (<implementation>)" when the set holds several */
	char label[RS_NAME];        /* file-name stem: "<name>__<profile>" in campaigns */
	/* A campaign's role for the unit (campaign.json; "" in plain directories). */
	char role[16];              /* "candidate", "baseline" or "" */
	int category;               /* NIST security category 1..5, 0 unknown */
	char category_from[160];    /* "descriptor", "api.h NAME", "--category", or "" */
	char standard[32];          /* a baseline's standard ("FIPS 204"), or "" */
	char baseline[RS_NAME];     /* a candidate's baseline label, or "" */
	char baseline_note[128];    /* why that baseline, or "" */
	char origin[600];           /* a baseline's origin ("pqprof's in-tree ...", "--baseline PATH (git ...)"), or "" */
	json_t *descriptor;         /* instance descriptor from any record, or NULL */
	json_t *steps;              /* campaign step states, or NULL */
	json_t *build;              /* pqprof.build/1 */
	char build_file[RS_PATH];
	json_t *kat;                /* pqprof.kat/1 */
	char kat_file[RS_PATH];
	char kat_log_file[RS_PATH];
	json_t *sizes;              /* pqprof.sizes/1 */
	char sizes_file[RS_PATH];
	json_t *interposition;      /* pqprof.interposition/1: plain -fPIC vs local binding, or NULL */
	char interposition_file[RS_PATH];
	struct rs_op ops[RS_MAX_OPS];
	int nops;
};

/* One file of raw evidence. */
struct rs_evidence {
	char instance[RS_NAME + 80]; /* instance name as shown in rows, "" for the campaign itself */
	char profile[RS_NAME];      /* its flag profile, "" if none */
	char item[128];             /* "timing sign", "KAT log", ... */
	char file[RS_PATH];         /* relative to the set's directory */
	char sha256[65];
};

struct record_set {
	char dir[4096];
	int is_campaign;
	json_t *campaign;           /* campaign.json, or NULL */
	json_t *environment;        /* campaign environment, or the first record's */
	struct rs_instance *inst;
	size_t ninst, cap_inst;
	struct rs_evidence *ev;
	size_t nev, cap_ev;
};

/* Load dir (a campaign directory or a plain records directory). */
int record_set_load(const char *dir, struct record_set **out, pq_error *err);
void record_set_free(struct record_set *rs);

/* The operation op of inst, or NULL. */
const struct rs_op *rs_find_op(const struct rs_instance *inst, const char *op);

/* A campaign step state ("done", "failed", "pending", "not asked" (left out of --steps), ...) or NULL. */
const char *rs_step(const struct rs_instance *inst, const char *step);

/*
 * 1 when the instance's output was validated (KAT verdict PASS), 0 when
 * it was not (other verdict, or no KAT record at all).
 */
int rs_validated(const struct rs_instance *inst);

/* 1 when the instance's build failed (campaign step state or build record). */
int rs_build_failed(const struct rs_instance *inst);

/*
 * The KAT verdict as reports print it: the KAT record's verdict ("PASS",
 * "MISMATCH", "NOKAT", ...), "BUILD" when there is none because the build
 * failed, else "not run".
 */
const char *rs_kat_verdict(const struct rs_instance *inst);

/* The instance kind its records name ("signature", "kem"), or NULL. */
const char *rs_kind(const struct rs_instance *inst);

/*
 * The size in bytes the instance declares for key ("pk", "sk", "sig",
 * "ct", "ss"): the sizes record's, else the descriptor's; -1 when neither
 * names a positive size.
 */
double rs_declared_size(const struct rs_instance *inst, const char *key);

#endif
