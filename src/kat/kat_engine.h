/*
 * kat_engine: the known-answer flows, run inside the child runner process
 * against one loaded instance, and the verdicts they lead to.
 *  - NGCC KAT_SIG / KAT_KEM and NIST PQCgenKAT_sign / _kem record loops
 *    (kat_flow.h), one keygen/sign/verify or keygen/enc/dec round per
 *    record (kat_round.h).
 * Every buffer the scheme writes ends at a PROT_NONE guard page, with
 * canaries before it and in the slack after it, checked after every call
 * (guarded_buf.h; a write into a guard page is caught by fault_guard.h);
 * declared lengths are checked too.  After the records, API deviation
 * checks run (api_checks.h: keygen ignoring the DRNG, verify accepting
 * altered signatures or messages, KEM dec accepting an altered ciphertext).
 * The engine writes the produced vector file and returns an outcome; the
 * comparison with published vectors (kat_judge*, in kat_judge.c) is separate so the parent
 * can do it.  TIMEOUT, CRASH and LOADFAIL are mostly decided by the parent;
 * kat/kat_verdict.h names every verdict.
 *
 * Process-wide state, on purpose: randombytes() has no user pointer, so
 * the CTR_DRBG behind the NIST rng callback is the process's one
 * (kat/nist_rng.h), and the SIGSEGV/SIGBUS handler finds the guard pages
 * through a static table.  So one kat_engine_run at a time per process
 * (the runner runs one job).
 */
#ifndef PQ_KAT_ENGINE_H
#define PQ_KAT_ENGINE_H

#include <stdarg.h>
#include <stddef.h>

#include "core/pq_error.h"
#include "instance/pqprof_abi.h"
#include "kat/kat_file.h"
#include "kat/kat_verdict.h"
#include "kat/manifest.h"

#define KAT_NOTES_MAX 8
#define KAT_NOTE_LEN 600  /* room for a note naming a vector file by its full path */

struct kat_outcome {
	enum kat_verdict verdict;
	char reason[320];             /* one line; "" on PASS */
	long record;                  /* first failing/differing record, -1 = none */
	char field[KAT_FIELD_NAME_MAX]; /* field or buffer name, "" = none */
	size_t records_done;          /* records fully produced */
	int nnotes;
	char notes[KAT_NOTES_MAX][KAT_NOTE_LEN]; /* API deviations, one line each */
	int notes_dropped;                       /* past KAT_NOTES_MAX: the last note counts them */
};

void kat_outcome_init(struct kat_outcome *o);
/* Set the one-line reason; a reason longer than the field ends in "…". */
void kat_outcome_reason(struct kat_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kat_outcome_vreason(struct kat_outcome *o, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Append a note: cut with "…" at KAT_NOTE_LEN; past KAT_NOTES_MAX the last note says how many were not kept. */
void kat_outcome_note(struct kat_outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Text form, one "key value" per line: verdict, record, field,
 * records_done, reason, then one "note" line each.  kat_outcome_write_fd
 * is async-signal-safe (the guard-page handler uses it).
 */
int kat_outcome_write_fd(int fd, const struct kat_outcome *o);
int kat_outcome_parse(const char *buf, size_t len, struct kat_outcome *o, pq_error *err);

struct kat_engine_opts {
	size_t records;          /* 0 = 10 for NGCC, 100 for NIST */
	const char *emit_path;   /* write the produced vector file here (atomically); NULL = no */
	int outcome_fd;          /* fault path writes the outcome here; -1 = nowhere */
	int overflow_exit;       /* _exit status after a guard-page hit; 0 = KAT_ENGINE_OVERFLOW_EXIT */
	int no_deviation_checks;
	int no_fault_handler;    /* leave SIGSEGV/SIGBUS alone (guard hits then crash) */
	/* Called before each scheme call with its name and record; NULL = none. */
	void (*op_hook)(const char *op, long record);
};
#define KAT_ENGINE_OVERFLOW_EXIT 70

void kat_engine_opts_init(struct kat_engine_opts *o);   /* records 0, outcome_fd -1 */

/* Vector file name the official generator would write for this instance. */
int kat_engine_file_name(const struct pqprof_instance *inst, char *buf, size_t n);

/*
 * Run the flow that matches inst->api and inst->kind.  Fills *out with
 * PASS (nothing wrong seen yet: compare with kat_judge), CRYPTOFAIL,
 * OVERFLOW or LOADFAIL (unusable descriptor).  produced (may be NULL)
 * receives the vectors; it must be freed with kat_file_free.
 * Returns 0 when *out is meaningful, negative on harness errors (out of
 * memory, mmap failure, emit file not writable).
 * A write into a guard page does not return: the outcome goes to
 * opts->outcome_fd and the process _exits with opts->overflow_exit.
 */
int kat_engine_run(const struct pqprof_instance *inst, const struct kat_engine_opts *opts,
                   struct kat_outcome *out, struct kat_file *produced, pq_error *err);

/*
 * Judge an engine outcome against published vectors.  Only a PASS outcome
 * is re-judged: expected NULL -> NOKAT; differing -> MISMATCH with the
 * first differing record and field.
 */
void kat_judge(const struct kat_file *expected, const struct kat_file *produced,
               const struct kat_compare_opts *copts, struct kat_outcome *out);
/* Same against a manifest entry, with the produced file's text. */
int kat_judge_manifest(const struct manifest_entry *e, const char *produced_text, size_t len,
                       struct kat_outcome *out, pq_error *err);

#endif
