/* leak_classes: the class pairs per operation; see leak_classes.h. */
#include "config.h"
#include "leak/leak_classes.h"

#include <stdio.h>
#include <string.h>

const struct leak_pair leak_pairs[] = {
	{ "fixed-vs-random-seed", "seed", PQ_OP_KEYGEN, LEAK_IN_SEED, 1, "keygen with a fixed vs a random DRNG seed" },
	{ "fixed-vs-random-key", "key", PQ_OP_SIGN, LEAK_IN_KEY, 1,
	  "sign with a fixed vs a random secret key, same message" },
	{ "fixed-vs-random-message", "message", PQ_OP_SIGN, LEAK_IN_MESSAGE, 1,
	  "sign of a fixed vs a random message under one key" },
	{ "fixed-vs-random-message", "message", PQ_OP_VERIFY, LEAK_IN_MESSAGE, 1,
	  "verify of valid signatures on a fixed vs a random message under one key" },
	{ "valid-vs-invalid", "validity", PQ_OP_VERIFY, LEAK_IN_VALIDITY, 0,
	  "verify of a valid vs an invalid signature (one bit flipped)" },
	{ "fixed-vs-random-seed", "seed", PQ_OP_ENC, LEAK_IN_SEED, 1,
	  "enc under one public key with a fixed vs a random DRNG seed" },
	{ "valid-vs-invalid", "validity", PQ_OP_DEC, LEAK_IN_VALIDITY, 1,
	  "dec of a valid vs an invalid ciphertext (one bit flipped) under one key" },
	{ "fixed-vs-random-ciphertext", "ciphertext", PQ_OP_DEC, LEAK_IN_CIPHERTEXT, 0,
	  "dec of a fixed vs a random valid ciphertext under one key" },
	{ NULL, NULL, 0, 0, 0, NULL },
};

const struct leak_pair *leak_pair_find(enum pq_op op, const char *name)
{
	for (const struct leak_pair *p = leak_pairs; p->name; p++)
		if (p->op == op && (strcmp(p->name, name) == 0 || strcmp(p->alias, name) == 0))
			return p;
	return NULL;
}

int leak_pair_name_known(const char *name)
{
	if (strcmp(name, "all") == 0 || strcmp(name, "default") == 0 || strcmp(name, "fixed-vs-random") == 0)
		return 1;
	for (const struct leak_pair *p = leak_pairs; p->name; p++)
		if (strcmp(p->name, name) == 0 || strcmp(p->alias, name) == 0)
			return 1;
	return 0;
}

static int add(const struct leak_pair **out, int n, int max, const struct leak_pair *p)
{
	for (int i = 0; i < n; i++)
		if (out[i] == p)
			return n;
	if (n < max)
		out[n++] = p;
	return n;
}

int leak_pairs_select(enum pq_op op, const char *spec, const struct leak_pair **out, int max, char *bad,
                      size_t badlen)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", spec && *spec ? spec : "default");
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!leak_pair_name_known(tok)) {
			if (bad)
				snprintf(bad, badlen, "%s", tok);
			return -1;
		}
		int all = strcmp(tok, "all") == 0, def = strcmp(tok, "default") == 0;
		int fvr = strcmp(tok, "fixed-vs-random") == 0;
		for (const struct leak_pair *p = leak_pairs; p->name; p++) {
			if (p->op != op)
				continue;
			if (all || (def && p->by_default) || (fvr && p->input != LEAK_IN_VALIDITY) ||
			    strcmp(p->name, tok) == 0 || strcmp(p->alias, tok) == 0)
				n = add(out, n, max, p);
		}
	}
	return n;
}
