/*
 * fuzz_replay: the main() every fuzz harness gets when built with
 * -DPQ_FUZZ_STANDALONE (plain gcc, no libFuzzer).  It feeds each file named
 * on the command line, or every file under each directory named, to
 * LLVMFuzzerTestOneInput once.  With no arguments it replays the harness's
 * seed corpus and its crash regressions:
 *     $top_srcdir/tests/fuzz/corpus/<harness>/
 *     $top_srcdir/tests/fuzz/regressions/<harness>/
 * A crash, sanitizer report or abort() in the harness fails the run; so
 * does an empty corpus (a wrong path must not pass silently).
 *
 * Include it once, at the end of a harness, after defining
 * FUZZ_HARNESS_NAME.  Not a library header: it defines functions.
 */
#ifndef PQ_FUZZ_REPLAY_H
#define PQ_FUZZ_REPLAY_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/atomic_file.h"

static int replay_one_file(const char *path)
{
	char *buf;
	size_t len;
	pq_error err;
	if (read_whole_file(path, &buf, &len, (size_t)64 << 20, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

/* Replay a file, or every regular file below a directory. */
static int replay_path(const char *path, int *count, int missing_ok)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		if (missing_ok && errno == ENOENT)
			return 0;
		perror(path);
		return 1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		++*count;
		return replay_one_file(path);
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	int bad = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		bad |= replay_path(sub, count, 0);
	}
	closedir(d);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0, count = 0;
	if (argc < 2) {
		const char *top = getenv("top_srcdir");
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", top ? top : ".",
		         FUZZ_HARNESS_NAME);
		bad |= replay_path(dir, &count, 0);
		snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/%s", top ? top : ".",
		         FUZZ_HARNESS_NAME);
		bad |= replay_path(dir, &count, 1);
	}
	for (int i = 1; i < argc; i++)
		bad |= replay_path(argv[i], &count, 0);
	printf("fuzz_%s: replayed %d inputs\n", FUZZ_HARNESS_NAME, count);
	return bad || count == 0;
}

#endif
