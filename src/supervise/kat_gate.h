/*
 * kat_gate: the parent side of `pqprof kat`.  Runs the KAT replay in a
 * runner child with a time limit, turns however the child ended into a
 * verdict (TIMEOUT, CRASH with the signal, OVERFLOW from a guard page,
 * LOADFAIL), judges the vectors the instance produced against the expected
 * file or manifest entry (PASS, MISMATCH with the first differing record
 * and field, NOKAT), and writes the KAT log and verdict record whatever
 * happened.  With both a manifest and a file, the manifest's digest
 * decides and the file, when it is the one the manifest describes,
 * explains a MISMATCH record by record (kat/kat_forensics.h), as a
 * harness that keeps digests of the submitted files does.  It prints
 * nothing: what the caller shows is in the result.
 */
#ifndef PQ_KAT_GATE_H
#define PQ_KAT_GATE_H

#include <jansson.h>

#include "core/pq_error.h"
#include "kat/kat_engine.h"

struct kat_gate_opts {
	const char *lib;
	const char *vectors;      /* expected KAT file, or NULL (with a manifest: the file it describes) */
	const char *manifest;     /* kat.sha256, or NULL; its digest decides when given */
	int search_tree;          /* look for the official file in the source tree when neither is given */
	/*
	 * Where the tree's own build ran (its scratch copy), or NULL: with
	 * search_tree, when the tree ships no vectors, the ones its own KAT
	 * program wrote there are the reference, and the verdict says so.
	 */
	const char *observed_copy;
	/*
	 * Where neither the tree nor its observed build holds vectors: run the
	 * tree's own KAT program again (into a directory it names in dir)
	 * within timeout_s; NULL when there is none.  0 when it ran.
	 */
	int (*run_own_kat)(void *ctx, double timeout_s, char *dir, size_t len, pq_error *err);
	void *own_kat_ctx;
	long records;             /* 0 = the flavour's default */
	double timeout_s;         /* default 900 */
	const char *emit;         /* copy the produced vectors here, or NULL */
	const char *log_path;     /* KAT log (text), or NULL */
	const char *record_path;  /* verdict record (JSON), or NULL */
	json_t *instance;         /* descriptor (borrowed) or NULL: described here */
	unsigned long long as_limit;
	/*
	 * The other parameter sets of the same package, to tell a MISMATCH
	 * whose file holds another set's records: each an instance library
	 * (described, and replayed for its own vectors only when needed) or
	 * "NAME=PK,SK,SIG" declared sizes.  NULL-terminated, or NULL.
	 */
	const char *const *siblings;
	/*
	 * The folder the tree's links may reach into (--source-root,
	 * $PQPROF_SOURCE_ROOT), or NULL: hidden from the replay with the tree.
	 */
	const char *source_root;
};

struct kat_gate_result {
	struct kat_outcome outcome;
	char expected[4096];      /* the file or manifest used, "" if none */
	char log_sha256[65];      /* of the KAT log written */
	char produced_sha256[65];
	json_t *record;           /* verdict record (new reference) */
	int emit_failed;          /* the produced vectors could not be copied to opts.emit */
	pq_error emit_error;      /* why, when emit_failed; the verdict stands regardless */
	json_t *forensics;        /* a MISMATCH explained (kat/kat_forensics.h), or NULL */
};

/* 0 when a verdict was reached (whatever it is); < 0 on harness errors. */
int kat_gate_run(const struct kat_gate_opts *o, struct kat_gate_result *res, pq_error *err);
void kat_gate_result_free(struct kat_gate_result *res);

json_t *kat_outcome_to_json(const struct kat_outcome *o);

#endif
