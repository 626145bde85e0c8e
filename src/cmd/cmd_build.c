/* pqprof build: submission tree -> instance library. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "instance/builder.h"
#include "instance/instance_discover.h"
#include "supervise/describe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"pqprof build SRC_DIR -o OUT.so [--api ngcc|nist|auto] [--profile NAME] [--cc CC]\n"
	"                    [--cflags \"...\"] [--ldflags \"...\"] [-D NAME=VALUE]... [-q]\n"
	"                    [--source-root DIR] [--cc-timeout S] [--cc-memory MB] [--instance NAME]\n"
	"                    [--no-tree-flags] [--trust-flags] [--plain-pic]";

int cmd_build(int argc, char **argv)
{
	const char *out = NULL, *api = "auto", *profile = "harness-default", *cc = NULL;
	const char *cflags = NULL, *ldflags = NULL;
	struct opt_list defines = { 0 };
	long jobs = 0, cc_memory = 0;
	double cc_timeout = 0;
	const char *source_root = NULL, *instance = NULL;
	int quiet = 0, no_tree_flags = 0, trust_flags = 0, no_observe = 0, plain_pic = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 'o', "output", &out, "OUT.so", "instance library to write" },
		{ OPT_STRING, 0, "api", &api, "API", "ngcc, nist or auto (default: auto; NGCC wins when both)" },
		{ OPT_STRING, 0, "profile", &profile, "NAME", "reference, performance, resource, debug, harness-default" },
		{ OPT_STRING, 0, "cc", &cc, "CC", "compiler (default: $PQPROF_CC or " PQPROF_DEFAULT_SCHEME_CC ")" },
		{ OPT_STRING, 0, "cflags", &cflags, "FLAGS", "extra compiler flags" },
		{ OPT_STRING, 0, "ldflags", &ldflags, "FLAGS", "extra link flags and libraries" },
		{ OPT_LIST, 'D', "define", &defines, "NAME=VALUE", "preprocessor definition (repeatable)" },
		{ OPT_INT, 'j', "jobs", &jobs, "N", "parallel compiler processes" },
		{ OPT_FLAG, 'q', "quiet", &quiet, NULL, "print only errors and the output path" },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR", "links in the tree may point anywhere in DIR (default: the tree)" },
		{ OPT_DOUBLE, 0, "cc-timeout", &cc_timeout, "S", "wall-clock limit per compiler process (default 600)" },
		{ OPT_INT, 0, "cc-memory", &cc_memory, "MB", "address-space limit per compiler process (default 4096)" },
		{ OPT_STRING, 0, "instance", &instance, "NAME", "the instance to build, where the tree serves several by -D switches" },
		{ OPT_FLAG, 0, "no-observe", &no_observe, NULL, "do not run the tree's own build: read its Makefile or CMakeLists.txt" },
		{ OPT_FLAG, 0, "no-tree-flags", &no_tree_flags, NULL, "neither run nor read the tree's build files" },
		{ OPT_FLAG, 0, "trust-flags", &trust_flags, NULL, "allow tree flags that run programs or load code" },
		{ OPT_FLAG, 0, "plain-pic", &plain_pic, NULL, "plain -fPIC library (calls to exported functions through the PLT), as reference harnesses built" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("build", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0) {
		opt_list_free(&defines);
		return status;
	}
	if (np != 1 || !out) {
		options_usage(stderr, usage, specs);
		opt_list_free(&defines);
		return PQ_EUSAGE;
	}
	struct build_options bo = {
		.src_dir = pos[0], .out_path = out, .profile = profile, .cc = cc,
		.extra_cflags = cflags, .ldflags = ldflags, .defines = defines.items,
		.ndefines = defines.n, .jobs = (int)jobs, .source_root = source_root, .cc_timeout_s = cc_timeout,
		.cc_as_limit = cc_memory > 0 ? (unsigned long long)cc_memory << 20 : 0,
		.instance = instance, .no_tree_flags = no_tree_flags, .trust_flags = trust_flags, .plain_pic = plain_pic,
		.no_observe = no_observe,
	};
	if (tree_api_parse(api, &bo.api) < 0) {
		opt_list_free(&defines);
		pq_fail(&err, PQ_EUSAGE, "--api must be ngcc, nist or auto, not '%s'", api);
		return cmd_fail("build", &err);
	}
	struct build_result res;
	int r = instance_build(&bo, &res, &err);
	opt_list_free(&defines);
	if (r < 0) {
		if (res.verdict[0])
			printf("verdict: %s\n", res.verdict);
		return cmd_fail("build", &err);
	}
	/* The instance is the one the built library reports: it must be the one the directory names. */
	json_t *desc = NULL;
	if (res.instance[0] || res.dir_instance[0]) {
		r = instance_describe(out, &desc, &err);
		const char *name = r == 0 ? json_string_value(json_object_get(desc, "name")) : NULL;
		if (r == 0)
			r = instance_name_check(pos[0], name, res.instance, res.dir_instance, &err);
		json_decref(desc);
		if (r < 0) {
			unlink(out);
			build_result_free(&res);
			return cmd_fail("build", &err);
		}
	}
	if (!quiet) {
		printf("%s", res.notes);
		printf("compiler: %s\ncflags: %s\n", res.compiler, res.cflags);
	}
	printf("built %s\n", out);
	build_result_free(&res);
	return 0;
}
