/* kat_verdict: the verdict table and its lookups; see kat_verdict.h. */
#include "config.h"
#include "kat/kat_verdict.h"
#include "core/pq_error.h"

#include <string.h>

const struct kat_verdict_info kat_verdicts[] = {
#define KAT_VERDICT_ROW(verdict, name, code) { verdict, name, code },
	KAT_VERDICT_TABLE(KAT_VERDICT_ROW)
#undef KAT_VERDICT_ROW
};

_Static_assert(sizeof kat_verdicts / sizeof kat_verdicts[0] == KAT_VERDICT_COUNT,
               "one row per verdict");

const char *kat_verdict_name(enum kat_verdict v)
{
	return (unsigned)v < KAT_VERDICT_COUNT ? kat_verdicts[v].name : "UNKNOWN";
}

int kat_verdict_parse(const char *name)
{
	for (int i = 0; i < KAT_VERDICT_COUNT; i++)
		if (strcmp(kat_verdicts[i].name, name) == 0)
			return (int)kat_verdicts[i].verdict;
	return -1;
}

int kat_verdict_exit_code(enum kat_verdict v)
{
	/* A verdict out of range is a harness bug, not a scheme's. */
	return (unsigned)v < KAT_VERDICT_COUNT ? kat_verdicts[v].exit_code : pq_exit_code(PQ_EINTERNAL);
}
