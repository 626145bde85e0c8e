/*
 * kat_verdict: the verdicts a KAT gate can reach, each with its name (as
 * written in records, logs and the RESULT line) and the exit status of
 * `pqprof kat` (pqprof(1), EXIT STATUS).  The list below is the one place
 * a verdict is declared: the enum, the name lookup and the exit codes are
 * all generated from it, so adding a verdict is one row here plus the
 * man page.  Exit codes are written out, never derived from the position,
 * so inserting a row shifts no documented code.
 */
#ifndef PQ_KAT_VERDICT_H
#define PQ_KAT_VERDICT_H

/*  X(verdict,        name,         exit status)                            */
#define KAT_VERDICT_TABLE(X)                                                  \
	X(KAT_PASS,       "PASS",       0)                                     \
	X(KAT_MISMATCH,   "MISMATCH",   21)                                    \
	X(KAT_NOKAT,      "NOKAT",      22) /* ran fine, nothing to compare */ \
	X(KAT_TIMEOUT,    "TIMEOUT",    23)                                    \
	X(KAT_CRASH,      "CRASH",      24)                                    \
	/* non-zero return, own signature rejected, ss differ, unsound verify */ \
	X(KAT_CRYPTOFAIL, "CRYPTOFAIL", 25)                                    \
	/* wrote outside a buffer or claimed more than declared */            \
	X(KAT_OVERFLOW,   "OVERFLOW",   26)                                    \
	X(KAT_LOADFAIL,   "LOADFAIL",   27)

enum kat_verdict {
#define KAT_VERDICT_ENUM(verdict, name, code) verdict,
	KAT_VERDICT_TABLE(KAT_VERDICT_ENUM)
#undef KAT_VERDICT_ENUM
	KAT_VERDICT_COUNT
};

struct kat_verdict_info {
	enum kat_verdict verdict;
	const char *name;
	int exit_code;
};

/* Indexed by verdict; KAT_VERDICT_COUNT rows. */
extern const struct kat_verdict_info kat_verdicts[];

const char *kat_verdict_name(enum kat_verdict v);   /* "PASS", ...; "UNKNOWN" out of range */
int kat_verdict_parse(const char *name);            /* enum value or -1 */

/* Exit status of `pqprof kat` for a verdict (the table's column). */
int kat_verdict_exit_code(enum kat_verdict v);

#endif
