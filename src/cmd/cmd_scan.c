/*
 * pqprof scan: discover the instances of a submission package (NGCC or
 * NIST layout), say what was found and why, and optionally write the
 * scheme descriptor a campaign over the package would use, for the user
 * to edit.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "cmd/cmd_scan.h"
#include "campaign/package_desc.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/options.h"
#include "instance/instance_discover.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"pqprof scan PACKAGE_DIR [--write-descriptor FILE] [--source-root DIR]\n"
	"Lists the instances of an NGCC or NIST submission package (reference, optimized and additional\n"
	"implementations), the API and KAT file of each, and why; FILE gets the scheme descriptor.";

/* A tree that serves several instances by -D switches: which one this directory builds. */
static void print_switches(FILE *out, const struct pkg_instance *in)
{
	struct instance_set set;
	pq_error err = { 0 };
	if (instance_discover(in->tree, NULL, &set, &err) < 0)
		return;
	if (set.tf.nvariants > 1) {
		char choices[1024], dir[128] = "";
		int chosen = -1;
		instance_choices(&set, choices, sizeof choices);
		if (instance_select(&set, in->tree, NULL, NULL, 0, &chosen, dir, sizeof dir, &err) == 0 && chosen >= 0)
			fprintf(out, "  switches: one source set for %d instances (%s), chosen by -D switches in its build "
			        "files; this directory builds %s\n",
			        set.tf.nvariants, choices, instance_variant_name(&set.tf.variants[chosen]));
		else
			fprintf(out, "  warning: %s\n", err.msg[0] ? err.msg : "the tree serves several instances");
	}
	instance_set_free(&set);
}

void scan_print_plan(FILE *out, const struct pkg_scan *ps)
{
	fprintf(out, "package %s: %s layout, %d instance%s\n", ps->root, ps->layout, ps->ninst,
	        ps->ninst == 1 ? "" : "s");
	for (int i = 0; i < ps->nnotes; i++)
		fprintf(out, "  %s\n", ps->notes[i]);
	int matched = 0, missing = 0, ambiguous = 0, warned = 0;
	const char *versions[PKG_MAX_INSTANCES];
	int counts[PKG_MAX_INSTANCES], nv = 0;
	for (int i = 0; i < ps->ninst; i++) {
		const struct pkg_instance *in = &ps->inst[i];
		fprintf(out, "\ninstance %s (%s)\n", in->name, in->implementation);
		fprintf(out, "  tree:    %s\n", in->rel);
		fprintf(out, "  API:     %s\n", in->api_why);
		fprintf(out, "  name:    %s\n", in->name_why);
		print_switches(out, in);
		if (in->kat == PKG_KAT_MATCHED)
			fprintf(out, "  KAT:     %s (rule: %s)\n", in->kat_rel, in->kat_why);
		else
			fprintf(out, "  KAT:     %s\n", in->kat_why);
		if (in->warning[0])
			fprintf(out, "  warning: %s\n", in->warning);
		matched += in->kat == PKG_KAT_MATCHED;
		missing += in->kat == PKG_KAT_MISSING;
		ambiguous += in->kat == PKG_KAT_AMBIGUOUS;
		warned += in->warning[0] != 0;
		int k = 0;
		while (k < nv && strcmp(versions[k], in->implementation) != 0)
			k++;
		if (k == nv) {
			versions[nv] = in->implementation;
			counts[nv++] = 0;
		}
		counts[k]++;
	}
	fprintf(out, "\nsummary: %d instance%s (", ps->ninst, ps->ninst == 1 ? "" : "s");
	for (int k = 0; k < nv; k++)
		fprintf(out, "%s%d %s", k ? ", " : "", counts[k], versions[k]);
	fprintf(out, "); KAT files: %d matched, %d missing, %d ambiguous", matched, missing, ambiguous);
	if (warned)
		fprintf(out, "; %d with warnings", warned);
	fputc('\n', out);
}

/* Where the descriptor goes: FILE, or FILE/scheme.json for a directory. */
static int write_descriptor(const struct pkg_scan *ps, const char *file, pq_error *err)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct stat sb;
	int r = stat(file, &sb) == 0 && S_ISDIR(sb.st_mode) ? path_fmt(path, sizeof path, err, "%s/scheme.json", file)
	                                                     : path_fmt(path, sizeof path, err, "%s", file);
	if (r < 0)
		return r;
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	char *text = NULL;
	if ((r = package_desc_text(ps, dir, &text, err)) < 0)
		return r;
	r = atomic_write(path, text, strlen(text), err);
	free(text);
	if (r < 0)
		return r;
	char real[PATH_MAX];
	size_t n = realpath(dir, real) ? strlen(real) : 0;
	int inside = n && strncmp(ps->root, real, n) == 0 && (ps->root[n] == '/' || ps->root[n] == '\0');
	printf("\ndescriptor written to %s; edit it, then: pqprof run %s%s%s\n", path, path,
	       inside ? "" : " --source-root ", inside ? "" : ps->root);
	return 0;
}

int cmd_scan(int argc, char **argv)
{
	const char *write_to = NULL, *source_root = NULL;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "write-descriptor", &write_to, "FILE",
		  "write the scheme descriptor to FILE (a directory: FILE/scheme.json)" },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR",
		  "the trees' links may lie anywhere in DIR (default: $PQPROF_SOURCE_ROOT, else the package)" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[4];
	int status, np = cmd_parse("scan", argc, argv, usage, specs, pos, 4, &status);
	if (np < 0)
		return status;
	if (np != 1) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	const char *env_root = getenv("PQPROF_SOURCE_ROOT");
	if (!source_root && env_root && *env_root)
		source_root = env_root;
	pq_error err = { 0 };
	struct pkg_scan *ps = calloc(1, sizeof *ps);
	if (!ps) {
		pq_fail(&err, PQ_ENOMEM, "out of memory");
		return cmd_fail("scan", &err);
	}
	int r = package_scan(pos[0], source_root, ps, &err);
	if (r == 0) {
		scan_print_plan(stdout, ps);
		char own[PATH_MAX];
		struct stat sb;
		if (path_fmt(own, sizeof own, NULL, "%s/scheme.json", ps->root) == 0 && stat(own, &sb) == 0)
			printf("note: %s exists: `pqprof run %s` runs that descriptor, not this scan\n", own, pos[0]);
		if (write_to)
			r = write_descriptor(ps, write_to, &err);
	}
	free(ps);
	return r < 0 ? cmd_fail("scan", &err) : 0;
}
