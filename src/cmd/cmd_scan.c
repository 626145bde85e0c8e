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
#include "core/options_help.h"
#include "core/path_name.h"
#include "instance/builder.h"
#include "instance/observe.h"
#include "instance/tree_scan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"pqprof scan PACKAGE_DIR|TREE\n"
	"Lists the instances of an NGCC or NIST submission package (reference, optimized and additional\n"
	"implementations), the API and KAT file of each, and why, and what each tree's own build links\n"
	"(the build is run, contained, as `pqprof build` runs it); FILE gets the scheme descriptor.\n"
	"On one implementation tree, what its observed build links: the instances build and run take.";

/*
 * The tree's plan (instance/observe.h): what its own build links, observed,
 * and which of its instances this directory builds; or why pqprof could
 * not observe it and what it compiles instead.
 */
static void print_build_plan(FILE *out, const char *tree, const char *name, const char *source_root)
{
	const struct build_plan *p = NULL;
	pq_error err = { 0 };
	if (instance_tree_plan(tree, source_root, NULL, &p, &err) < 0) {
		fprintf(out, "  build:   not planned: %s\n", err.msg);
		return;
	}
	if (!p->observed) {
		fprintf(out, "  build:   not observed: %s; pqprof compiles the sources beside the KAT driver\n", p->why);
		return;
	}
	fprintf(out, "  build:   observed: %s\n", p->how);
	if (p->attempts[0] && strchr(p->attempts, ';'))
		fprintf(out, "  tried:   %s\n", p->attempts);
	struct text_buf names = { 0 };
	plan_instance_list(p, &names);
	if (names.oom) {
		fprintf(out, "  links:   not listed: out of memory\n");
		text_free(&names);
		return;
	}
	const char *list = names.s ? names.s : "";
	const char *dir = path_base(tree);
	int pick = -1;
	for (int i = 0; i < p->ninst && pick < 0; i++)
		if (plan_instance_matches(&p->inst[i], dir) || (name && plan_instance_matches(&p->inst[i], name)))
			pick = i;
	if (p->ninst == 1)
		fprintf(out, "  links:   one KAT program: %s, built as %s\n", list, p->inst[0].program);
	else if (pick >= 0)
		fprintf(out, "  links:   %d KAT programs (%s); this directory builds %s\n", p->ninst, list,
		        p->inst[pick].name[0] ? p->inst[pick].name : p->inst[pick].label);
	else
		fprintf(out, "  links:   %d KAT programs (%s); each is an instance\n", p->ninst, list);
	text_free(&names);
}

void scan_print_plan(FILE *out, const struct pkg_scan *ps, const char *observe_root)
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
		if (observe_root)
			print_build_plan(out, in->tree, in->name, *observe_root ? observe_root : NULL);
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
	int no_observe = 0;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "no-observe", &no_observe, NULL,
		  "do not run the trees' own builds (the scan then only reads files)", NULL },
		{ OPT_STRING, 0, "write-descriptor", &write_to, "FILE",
		  "write the scheme descriptor to FILE (a directory: FILE/scheme.json)", NULL },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR",
		  "the trees' links may lie anywhere in DIR", "$PQPROF_SOURCE_ROOT, else the package" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
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
	/* One tree, not a package: its plan, the one `build` and `run` take their instances from. */
	struct tree_scan ts;
	pq_error terr = { 0 };
	int tree_r = package_is_package(pos[0]) ? 1 : tree_scan_dir_within(pos[0], source_root, 0, TREE_API_AUTO, &ts, &terr);
	if (tree_r < 0 && !strstr(terr.msg, "not a submission tree")) {
		free(ps);
		return cmd_fail("scan", &terr);  /* a tree, but one the build would refuse: say why */
	}
	if (tree_r == 0) {
		printf("tree %s: one implementation tree, %s %s (header %s)\n", ts.root, tree_api_name(ts.api),
		       ts.kind == TREE_KIND_SIG ? "signature" : "KEM", ts.header);
		if (no_observe || !observe_enabled())
			printf("  build:   not run (--no-observe)\n");
		else
			print_build_plan(stdout, ts.root, NULL, source_root);
		tree_scan_free(&ts);
		free(ps);
		return 0;
	}
	int r = package_scan(pos[0], source_root, ps, &err);
	if (r == 0) {
		scan_print_plan(stdout, ps, no_observe || !observe_enabled() ? NULL : source_root ? source_root : "");
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
