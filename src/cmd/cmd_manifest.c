/* pqprof manifest: write kat.sha256 lines for vector files, or check files against one. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/path_name.h"
#include "kat/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"pqprof manifest FILE...\n"
	"With --check: pqprof manifest --check kat.sha256 FILE...";

static int check_files(const char *mpath, int n, const char **files, pq_error *err)
{
	struct manifest m;
	if (manifest_read(mpath, &m, err) < 0)
		return -1;
	int bad = 0;
	for (int i = 0; i < n; i++) {
		const struct manifest_entry *e = manifest_find(&m, NULL, path_base(files[i]));
		if (!e) {
			printf("%s: no entry in %s\n", files[i], mpath);
			bad = 1;
			continue;
		}
		char actual[65];
		pq_error ferr = { 0 };
		int r = manifest_verify_file(e, files[i], actual, &ferr);
		if (r < 0) {
			printf("%s: %s\n", files[i], ferr.msg);
			bad = 1;
		} else {
			printf("%s: %s (%s%s)\n", files[i], r ? "OK" : "DIFFERS", manifest_mode_name(e->mode),
			       e->records ? ", first records only" : "");
			bad |= !r;
		}
	}
	manifest_free(&m);
	return bad;
}

int cmd_manifest(int argc, char **argv)
{
	const char *label = NULL, *mode_s = "strict", *check = NULL;
	long records = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "label", &label, "LABEL", "label before the file name", "the file's directory name" },
		{ OPT_STRING, 0, "mode", &mode_s, "MODE", "strict, or nolen to ignore *_Len lines", NULL },
		{ OPT_INT, 0, "first", &records, "N", "cover only the first N records", "every record" },
		{ OPT_STRING, 0, "check", &check, "MANIFEST", "check the files against this manifest", NULL },
		OPT_ALIAS("records", "first", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[256];
	pq_error err = { 0 };
	int status, np = cmd_parse("manifest", argc, argv, usage, specs, pos, 256, &status);
	if (np < 0)
		return status;
	enum manifest_mode mode;
	if (strcmp(mode_s, "strict") == 0)
		mode = MANIFEST_STRICT;
	else if (strcmp(mode_s, "nolen") == 0)
		mode = MANIFEST_NOLEN;
	else {
		pq_fail(&err, PQ_EUSAGE, "--mode must be strict or nolen, not '%s'", mode_s);
		return cmd_fail("manifest", &err);
	}
	if (np < 1 || records < 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	if (check) {
		int r = check_files(check, np, pos, &err);
		if (r < 0)
			return cmd_fail("manifest", &err);
		return r ? PQ_ESCHEME : 0;
	}
	for (int i = 0; i < np; i++) {
		char *text = NULL;
		size_t len = 0;
		uint8_t d[32];
		char line[8192], dir[4096];
		if (read_whole_file(pos[i], &text, &len, 0, &err) < 0 ||
		    manifest_digest(text, len, mode, (size_t)records, d, &err) < 0) {
			free(text);
			return cmd_fail("manifest", &err);
		}
		free(text);
		const char *lab = label;
		if (!lab) {
			snprintf(dir, sizeof dir, "%s", pos[i]);
			char *slash = strrchr(dir, '/');
			if (slash) {
				*slash = '\0';
				lab = path_base(dir);
			} else {
				lab = ".";
			}
		}
		if (manifest_format_line(d, mode, (size_t)records, lab, path_base(pos[i]), line, sizeof line, &err) < 0)
			return cmd_fail("manifest", &err);
		fputs(line, stdout);
		if (!strchr(line, '\n'))
			putchar('\n');
	}
	return 0;
}
