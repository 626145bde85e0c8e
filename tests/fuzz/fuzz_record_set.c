/*
 * fuzz_record_set: libFuzzer harness for the record readers behind
 * `pqprof report` and `pqprof compare` (src/report/record_set.c), and the
 * report builders that walk what they loaded (report_build_doc,
 * report_json).
 *
 * Records are files in a directory, so each input is written into a
 * scratch directory twice: as the only record of a plain records
 * directory (in.json) and as the campaign.json of a campaign directory.
 * Both are loaded; whatever loads is turned into a report document and
 * the JSON report, which must not crash whatever the records hold.
 * Failures must carry a message.
 *
 * Built with -DPQ_FUZZ_STANDALONE it replays files instead (see
 * fuzz_replay.h); "make check" runs it over the seed corpus and the
 * regression files.
 */
#include "config.h"
#include "report/record_set.h"
#include "report/report.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[PATH_MAX];

static void scratch_path(char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s/%s", scratch, rel);
}

static void scratch_remove(void)
{
	static const char *const rels[] = { "plain/in.json", "camp/campaign.json", "plain", "camp", NULL };
	char p[PATH_MAX + 32];
	for (int i = 0; rels[i]; i++) {
		scratch_path(p, sizeof p, rels[i]);
		if (unlink(p) != 0)
			rmdir(p);
	}
	rmdir(scratch);
}

static void scratch_make(void)
{
	if (scratch[0])
		return;
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/pqprof-fuzz-rs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		abort();
	char p[PATH_MAX + 32];
	scratch_path(p, sizeof p, "plain");
	if (mkdir(p, 0700) != 0)
		abort();
	scratch_path(p, sizeof p, "camp");
	if (mkdir(p, 0700) != 0)
		abort();
	atexit(scratch_remove);
}

static void put_file(const char *rel, const uint8_t *data, size_t size)
{
	char p[PATH_MAX + 32];
	scratch_path(p, sizeof p, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		abort();
	while (size > 0) {
		ssize_t n = write(fd, data, size);
		if (n <= 0)
			abort();
		data += n;
		size -= (size_t)n;
	}
	close(fd);
}

static void load_and_report(const char *rel)
{
	char dir[PATH_MAX + 32];
	scratch_path(dir, sizeof dir, rel);
	struct record_set *rs = NULL;
	pq_error err;
	pq_error_clear(&err);
	if (record_set_load(dir, &rs, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	for (size_t i = 0; i < rs->ninst; i++) {
		const struct rs_instance *in = &rs->inst[i];
		(void)rs_validated(in);
		(void)rs_step(in, "kat");
		(void)rs_find_op(in, "sign");
	}
	rdoc doc;
	rdoc_init(&doc);
	pq_error_clear(&err);
	if (report_build_doc(rs, &doc, &err) < 0 && !err.msg[0])
		abort();
	rdoc_free(&doc);
	json_decref(report_json(rs));
	record_set_free(rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	scratch_make();
	put_file("plain/in.json", data, size);
	load_and_report("plain");
	put_file("camp/campaign.json", data, size);
	load_and_report("camp");
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "record_set"
#include "fuzz_replay.h"
#endif
