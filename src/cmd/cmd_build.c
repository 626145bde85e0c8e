/* pqprof build: submission tree -> instance library. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "instance/builder.h"
#include "instance/tool_run.h"
#include "supervise/describe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] = "pqprof build SRC_DIR -o OUT.so";

int cmd_build(int argc, char **argv)
{
	const char *out = NULL, *api = "auto", *profile = "harness-default", *cc = NULL;
	const char *cflags = NULL, *ldflags = NULL;
	struct opt_list defines = { 0 };
	struct opt_list build_cmds = { 0 }, make_vars = { 0 };
	long jobs = 0, cc_memory = (long)(CC_DEFAULT_AS_LIMIT >> 20);
	double cc_timeout = CC_DEFAULT_TIMEOUT_S;
	const char *source_root = NULL, *instance = NULL, *context = NULL;
	int quiet = 0, no_tree_flags = 0, trust_flags = 0, no_observe = 0, plain_pic = 0;
	struct opt_scope timeouts[] = {
		{ "", &cc_timeout, NULL, NULL },
		{ "cc", &cc_timeout, "the same", NULL },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_STRING, 'o', "out", &out, "OUT.so", "instance library to write (required)", NULL },
		{ OPT_STRING, 0, "api", &api, "API", "ngcc, nist or auto (NGCC wins when both)", NULL },
		{ OPT_STRING, 0, "profile", &profile, "NAME", "reference, performance, resource, debug, harness-default",
		  NULL },
		{ OPT_STRING, 0, "cc", &cc, "CC", "compiler", "$PQPROF_CC or " PQPROF_DEFAULT_SCHEME_CC },
		{ OPT_STRING, 0, "cflags", &cflags, "FLAGS", "extra compiler flags", NULL },
		{ OPT_STRING, 0, "ldflags", &ldflags, "FLAGS", "extra link flags and libraries", NULL },
		{ OPT_LIST, 'D', "define", &defines, "NAME=VALUE", "preprocessor definition (repeatable)", NULL },
		{ OPT_INT, 'j', "jobs", &jobs, "N", "parallel compiler processes", "the number of online CPUs" },
		{ OPT_FLAG, 'q', "quiet", &quiet, NULL, "print only errors and the output path", NULL },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR", "links in the tree may point anywhere in DIR",
		  "the tree" },
		{ OPT_SCOPED, 0, "timeout", timeouts, "S", "wall-clock (and CPU) limit per compiler process", NULL },
		{ OPT_INT, 0, "cc-memory", &cc_memory, "MB", "address-space limit per compiler process", NULL },
		{ OPT_STRING, 0, "instance", &instance, "NAME", "the instance to build, where the tree serves several by -D switches",
		  "the one the directory names, else the only one" },
		{ OPT_LIST, 0, "build-cmd", &build_cmds, "CMD",
		  "build the tree with this shell command instead of its own make, cmake or meson, observed as a whole (repeatable)",
		  NULL },
		{ OPT_LIST, 0, "make-var", &make_vars, "NAME=V1,V2,...",
		  "make variable choosing parameter sets: each make goal runs once per combination of the values (repeatable)",
		  NULL },
		{ OPT_FLAG, 0, "no-observe", &no_observe, NULL, "do not run the tree's own build: compile the sources beside its KAT driver with the profile's flags", NULL },
		{ OPT_FLAG, 0, "no-tree-flags", &no_tree_flags, NULL, "the same as --no-observe", NULL },
		{ OPT_FLAG, 0, "trust-flags", &trust_flags, NULL, "allow tree flags that run programs or load code", NULL },
		{ OPT_FLAG, 0, "plain-pic", &plain_pic, NULL, "plain -fPIC library (calls to exported functions through the PLT), as reference harnesses built", NULL },
		{ OPT_STRING, 0, "context", &context, "HEX",
		  "NIST signatures with a context-string API (crypto_sign_ctx): sign and verify with this context",
		  "empty; the plain crypto_sign where the header has both" },
		OPT_ALIAS("output", "out", NULL),
		OPT_ALIAS("cc-timeout", "timeout", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("build", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0) {
		opt_list_free(&defines);
		opt_list_free(&build_cmds);
		opt_list_free(&make_vars);
		return status;
	}
	if (cmd_check_make_vars("build", (const char *const *)make_vars.items, make_vars.n) != 0) {
		opt_list_free(&defines);
		opt_list_free(&build_cmds);
		opt_list_free(&make_vars);
		return PQ_EUSAGE;
	}
	if (np != 1 || !out) {
		options_usage(stderr, usage, specs);
		opt_list_free(&defines);
		opt_list_free(&build_cmds);
		opt_list_free(&make_vars);
		return PQ_EUSAGE;
	}
	struct build_options bo = {
		.src_dir = pos[0], .out_path = out, .profile = profile, .cc = cc,
		.extra_cflags = cflags, .ldflags = ldflags, .defines = defines.items,
		.ndefines = defines.n, .jobs = (int)jobs, .source_root = source_root, .cc_timeout_s = cc_timeout,
		.cc_as_limit = cc_memory > 0 ? (unsigned long long)cc_memory << 20 : 0,
		.instance = instance, .no_tree_flags = no_tree_flags, .trust_flags = trust_flags, .plain_pic = plain_pic,
		.no_observe = no_observe, .context_hex = context,
		.build_cmds = (const char *const *)build_cmds.items, .nbuild_cmds = build_cmds.n,
		.make_vars = (const char *const *)make_vars.items, .nmake_vars = make_vars.n,
	};
	if (tree_api_parse(api, &bo.api) < 0) {
		opt_list_free(&defines);
		opt_list_free(&build_cmds);
		opt_list_free(&make_vars);
		pq_fail(&err, PQ_EUSAGE, "--api must be ngcc, nist or auto, not '%s'", api);
		return cmd_fail("build", &err);
	}
	unsigned char ctx[BUILD_CONTEXT_MAX];
	size_t ctx_len;
	if (context && build_context_parse(context, "--context", ctx, &ctx_len, &err) < 0) {
		opt_list_free(&defines);
		opt_list_free(&build_cmds);
		opt_list_free(&make_vars);
		return cmd_fail("build", &err);
	}
	struct build_result res;
	int r = instance_build(&bo, &res, &err);
	opt_list_free(&defines);
	opt_list_free(&build_cmds);
	opt_list_free(&make_vars);
	if (r < 0) {
		if (res.verdict[0])
			printf("verdict: %s\n", res.verdict);
		build_result_free(&res);
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
		printf("%s", res.notes.s);
		printf("compiler: %s\ncflags: %s\n", res.compiler, res.cflags.s);
	}
	printf("built %s\n", out);
	build_result_free(&res);
	return 0;
}
