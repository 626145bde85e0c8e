/*
 * fuzz_records: libFuzzer harness for the JSON readers pqprof feeds with
 * files it did not write itself: the environment record
 * (env_from_json, src/measure/env.c) and the scheme descriptor
 * (scheme_desc_parse, src/campaign/scheme_desc.c).
 *
 * The input is loaded with jansson once; an object goes to env_from_json,
 * whose result must survive env_to_json -> env_from_json unchanged.  The
 * raw bytes go to scheme_desc_parse with a scratch directory that holds a
 * "tree" sub-directory, so descriptors whose instances name "tree" get
 * past the directory check and reach the later fields.  Every failure
 * must carry a message, and a parsed descriptor's counts must stay within
 * its array bounds.
 *
 * Built with -DPQ_FUZZ_STANDALONE it replays files instead (see
 * fuzz_replay.h); "make check" runs it over the seed corpus and the
 * regression files.
 */
#include "config.h"
#include "campaign/scheme_desc.h"
#include "measure/env.h"

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[PATH_MAX];

static void scratch_remove(void)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof p, "%s/tree", scratch);
	rmdir(p);
	rmdir(scratch);
}

/* Scratch dir with a "tree" sub-directory, made once and removed at exit. */
static const char *scratch_dir(void)
{
	if (scratch[0])
		return scratch;
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/pqprof-fuzz-records-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		abort();
	char p[PATH_MAX + 16];
	snprintf(p, sizeof p, "%s/tree", scratch);
	if (mkdir(p, 0700) != 0)
		abort();
	atexit(scratch_remove);
	return scratch;
}

static void check_env(const json_t *obj)
{
	static env_info a, b;   /* large: keep them off the fuzzer's stack */
	pq_error err;
	pq_error_clear(&err);
	if (env_from_json(obj, &a, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	json_t *back = env_to_json(&a);
	if (!back)
		return;   /* out of memory, or a string jansson refuses (not UTF-8) */
	if (env_from_json(back, &b, &err) < 0)
		abort();
	/* Integers that mean "unknown" or "not pinned" are written as strings
	 * and read back as the sentinels; apart from that nothing may change. */
	if (a.cpu < 0)
		a.cpu = -1;
	if (a.max_clock_khz <= 0)
		a.max_clock_khz = -1;
	if (a.memory_mib < 0)
		a.memory_mib = -1;
	if (memcmp(&a, &b, sizeof a) != 0)
		abort();
	json_decref(back);
}

static void check_desc(const char *text, size_t len)
{
	static struct scheme_desc d;   /* ~600 KiB */
	pq_error err;
	pq_error_clear(&err);
	const char *dir = scratch_dir();
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/scheme.json", dir);
	if (scheme_desc_parse(text, len, path, dir, &d, &err) < 0) {
		if (!err.msg[0] || d.ninstances || d.nprofiles || d.ngroups)
			abort();
		return;
	}
	if (d.ninstances < 1 || d.ninstances > DESC_MAX_INSTANCES || d.nprofiles > DESC_MAX_PROFILES ||
	    d.ngroups > DESC_MAX_GROUPS || !d.name[0])
		abort();
	volatile size_t acc = strlen(d.title) + strlen(d.category);
	for (int i = 0; i < d.ninstances; i++) {
		const struct desc_instance *in = &d.instances[i];
		if (in->ndefines > DESC_MAX_DEFINES)
			abort();
		for (int k = 0; k < in->ndefines; k++)
			acc += strlen(in->defines[k]);
		acc += strlen(in->tree) + strlen(in->vectors) + strlen(in->manifest);
	}
	for (int g = 0; g < d.ngroups; g++)
		for (int k = 0; k < d.groups[g].nglobs; k++)
			acc += strlen(d.groups[g].globs[k]);
	(void)acc;
	scheme_desc_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *root = json_loadb((const char *)data, size, 0, &je);
	if (root) {
		check_env(root);
		/* An environment is often nested in a record under "env". */
		if (json_is_object(root) && json_object_get(root, "env"))
			check_env(json_object_get(root, "env"));
		json_decref(root);
	}
	check_desc((const char *)data, size);
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "records"
#include "fuzz_replay.h"
#endif
