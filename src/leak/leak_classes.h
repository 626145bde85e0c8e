/*
 * leak_classes: the pairs of input classes the timing-leak test compares,
 * per operation.  Class 0 is the fixed (or valid) input, class 1 the
 * random (or invalid) one.  The runner child prepares the inputs of each
 * class (runner/job_leak.c); the parent names them in verdicts.  Shared by
 * both so the names cannot drift apart.
 */
#ifndef PQ_LEAK_CLASSES_H
#define PQ_LEAK_CLASSES_H

#include "runner/op_ctx.h"

enum leak_input {
	LEAK_IN_SEED = 1,      /* the DRNG seed before the call */
	LEAK_IN_KEY,           /* the secret key */
	LEAK_IN_MESSAGE,       /* the message (verify: with a valid signature of it) */
	LEAK_IN_VALIDITY,      /* a valid signature or ciphertext vs one with a flipped bit */
	LEAK_IN_CIPHERTEXT,    /* a fixed valid ciphertext vs fresh valid ones */
};

struct leak_pair {
	const char *name;      /* "fixed-vs-random-key" */
	const char *alias;     /* "key" */
	enum pq_op op;
	enum leak_input input;
	int by_default;        /* run when --classes is not given */
	const char *what;      /* what was compared, for verdicts */
};

/* Every pair, NULL-name terminated. */
extern const struct leak_pair leak_pairs[];

/* The pair `name` (or alias) for op, or NULL. */
const struct leak_pair *leak_pair_find(enum pq_op op, const char *name);

/*
 * Expand a --classes value for op into pairs: a comma list of names or
 * aliases, "fixed-vs-random" (every fixed-vs-random pair of the op), "all"
 * or "default" (NULL also means default).  Names that do not apply to op
 * are skipped; returns the count (0: none applies), -1 on an unknown name
 * (copied to bad).
 */
int leak_pairs_select(enum pq_op op, const char *spec, const struct leak_pair **out, int max, char *bad,
                      size_t badlen);

/* 1 when some pair of some operation has this name or alias (or a group name). */
int leak_pair_name_known(const char *name);

#endif
