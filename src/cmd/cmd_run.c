/* pqprof run: from a scheme, a submission tree or a library to a report. */
#include "config.h"
#include "kat/manifest.h"
#include "supervise/describe.h"
#include "cmd/commands.h"
#include "instance/builder.h"
#include "cmd/cmd_common.h"
#include "campaign/campaign.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/paths.h"
#include "core/fixed_str.h"
#include "cmd/cmd_outdir.h"
#include "cmd/cmd_scan.h"
#include "instance/package_scan.h"
#include "supervise/child.h"
#include "core/contain.h"
#include "core/path_name.h"
#include "core/safe_name.h"
#include "campaign/round.h"
#include "report/round_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"pqprof run TARGET...\n"
	"TARGET is a scheme descriptor (a path, or the NAME of one `pqprof schemes` lists), a submission\n"
	"package (a folder holding implementation trees, found by their build files and KAT drivers or API\n"
	"headers: see `pqprof scan`), a submission tree, or a built instance library.\n"
	"A round: a TARGET folder of submissions (packages, trees, descriptors; one holding a package or\n"
	"descriptor of its own is a round, else say --round), or several TARGETs with --out.  Each submission is\n"
	"its own campaign in ROOT/<package>/ (ROOT: --out, else reports/<system>/<folder>), one after another\n"
	"with the same options; a campaign that fails does not stop the round.  ROOT/index.{md,html,csv,json}\n"
	"list every instance of every package.  Exit status 0 when every package completed with its report\n"
	"(whatever its verdicts), else the status of the first that did not (2\n"
	"for a folder that is no submission).";

/* The round's root: --out, else reports/<system>/<the round's folder, or "round" for several>. */
static int round_root(const char *const *pos, int np, const char *system, char *buf, size_t len, pq_error *err)
{
	char name[256], sys[128];
	if (np == 1)
		str_copy(name, sizeof name, path_base(pos[0]));
	else
		str_copy(name, sizeof name, "round");
	safe_name(name, sizeof name, name);
	if (system)
		str_copy(sys, sizeof sys, system);
	else if (gethostname(sys, sizeof sys) != 0)
		str_copy(sys, sizeof sys, "local");
	sys[sizeof sys - 1] = '\0';
	safe_name(sys, sizeof sys, sys);
	return path_fmt(buf, len, err, "reports/%s/%s", sys, name);
}

/* pqprof run over a round: every package's campaign, then the index. */
static int run_round(const char *const *pos, int np, int force, const char *out, int dry, const struct campaign_opts *o)
{
	pq_error err = { 0 };
	char root[4096];
	struct round *r = calloc(1, sizeof *r);
	if (!r) {
		pq_fail(&err, PQ_ENOMEM, "out of memory");
		return cmd_fail("run", &err);
	}
	int k = out ? path_fmt(root, sizeof root, &err, "%s", out) : round_root(pos, np, o->system, root, sizeof root, &err);
	if (k == 0)
		k = round_find(pos, np, force, r, &err);
	if (k == 0 && r->n == 0)
		k = pq_fail(&err, PQ_EINPUT, "%s: no folder in the round", pos[0]);
	if (k == 0 && dry) {
		round_plan(r, root, stdout);
		free(r);
		return 0;
	}
	if (k == 0)
		k = cmd_out_dir("run", root, "the round", "--out", &err);
	int status = 0;
	if (k == 0 && (k = round_run(r, root, o, &err)) < 0) {
		fprintf(stderr, "pqprof run: %s\n", err.msg);
		status = pq_exit_code(err.code);
		k = err.code == PQ_EIO ? k : 0;
		pq_error_clear(&err);
	}
	if (k == 0 && !o->no_report && (k = round_index_write(root, &err)) == 0 && o->progress)
		fprintf(o->progress, "round: %d package%s, index in %s/index.md and index.html\n", r->n, r->n == 1 ? "" : "s",
		        root);
	free(r);
	if (k < 0)
		return cmd_fail("run", &err);
	return status;
}

/* --dry-run: the package's scan (for a package), then the units a run would measure. */
static int dry_run(const char *target, const struct campaign_opts *o, pq_error *err)
{
	struct stat sb;
	if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode) && package_is_package(target)) {
		char p[4096];
		if (path_fmt(p, sizeof p, err, "%s/scheme.json", target) < 0)
			return -PQ_EINPUT;
		if (stat(p, &sb) != 0) {
			const char *env_root = getenv("PQPROF_SOURCE_ROOT");
			struct pkg_scan *ps = calloc(1, sizeof *ps);
			if (!ps)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
			int r = package_scan(target, o->source_root ? o->source_root : env_root && *env_root ? env_root : NULL,
			                     ps, err);
			if (r == 0) {
				scan_print_plan(stdout, ps, NULL);
				putchar('\n');
			}
			free(ps);
			if (r < 0)
				return r;
		}
	}
	struct campaign_opts quiet = *o;
	quiet.progress = NULL;  /* the scan was printed in full above */
	return campaign_plan(target, &quiet, stdout, err);
}

static void free_lists(struct opt_list *const *l)
{
	for (; *l; l++)
		opt_list_free(*l);
}

/*
 * --category values: one bare N (every instance nothing else gives a
 * category), and NAME=N for one instance.  N is 1 to 5.
 */
static int parse_categories(const struct opt_list *l, int *bare, pq_error *err)
{
	for (int i = 0; i < l->n; i++) {
		const char *v = l->items[i], *eq = strrchr(v, '=');
		const char *num = eq ? eq + 1 : v;
		char *end;
		long n = strtol(num, &end, 10);
		if (!*num || *end || n < 1 || n > 5 || (eq && eq == v))
			return pq_fail(err, PQ_EUSAGE, "--category %s: say N or NAME=N, N a NIST security category from 1 "
			               "to 5", v);
		if (!eq && *bare && *bare != (int)n)
			return pq_fail(err, PQ_EUSAGE, "--category %d and --category %ld: one bare category at most (give "
			               "each instance its own with NAME=N)", *bare, n);
		if (!eq)
			*bare = (int)n;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	const char *profiles = NULL, *out = NULL, *system = NULL, *steps = NULL, *shard = NULL, *events = NULL;
	long cpu = -1, trials = 0;
	double timeout = 900, kat_timeout = -1, target = 0, leak_budget = 0, op_budget = 0, precision = 0, budget = 0;
	const char *pairing = "in-process";
	int quick = 0, fresh = 0, no_report = 0, trust_flags = 0, dry = 0, no_observe = 0;
	const char *source_root = NULL, *manifest = NULL, *context = NULL;
	struct opt_list pdefs = { 0 }, ccs = { 0 };
	struct opt_list build_cmds = { 0 }, make_vars = { 0 };
	int aa = 0, plain_pic = 0, no_ipc = 0, no_baseline = 0, round = 0;
	struct opt_list categories = { 0 }, baselines = { 0 };
	struct opt_list *const lists[] = { &pdefs, &ccs, &build_cmds, &make_vars, &categories, &baselines, NULL };
	struct opt_scope timeouts[] = {
		{ "", &timeout, NULL, NULL },
		{ "kat", &kat_timeout, "time limit of the KAT replay", "the unscoped limit" },
		{ NULL, NULL, NULL, NULL },
	};
	struct opt_scope budgets[] = {
		{ "", &budget, NULL, NULL },
		{ "paired", &budget, "the same", "30 per instance and operation; 20 with --quick" },
		{ "op", &op_budget, "bench: wall time for the trials of one operation (operations of seconds get fewer calls); "
		  "also bounds the sizes step's sampling", "900; 60 with --quick" },
		{ "leak", &leak_budget, "leak step: seconds per operation", "4; 2 with --quick" },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_LIST, 0, "profile", &pdefs, "NAME=FLAGS", "define a flag profile and run it (repeatable)", NULL },
		{ OPT_LIST, 0, "cc", &ccs, "[NAME=]CC", "compiler of every profile, or of profile NAME (repeatable)", NULL },
		{ OPT_STRING, 0, "profiles", &profiles, "LIST",
		  "flag profiles to run, the first is the baseline (built-in: harness-default,reference,performance,resource)",
		  "the --profile definitions, else the descriptor's, else harness-default" },
		{ OPT_FLAG, 0, "aa", &aa, NULL, "add an independent build of the first profile (<first>-aa), an A/A check", NULL },
		{ OPT_STRING, 0, "context", &context, "HEX",
		  "build NIST signatures with a context-string API (crypto_sign_ctx) to sign and verify with this context",
		  "empty; the plain crypto_sign where the header has both" },
		{ OPT_FLAG, 0, "plain-pic", &plain_pic, NULL, "measure plain -fPIC libraries (calls through the PLT), as reference reports' harness did", NULL },
		{ OPT_FLAG, 0, "no-interposition-check", &no_ipc, NULL, "do not build and time the other library form (halves the builds)", NULL },
		{ OPT_STRING, 0, "manifest", &manifest, "FILE", "kat.sha256 manifest for the KAT gate (prebuilt libraries too)", NULL },
		{ OPT_STRING, 'o', "out", &out, "DIR", "campaign directory", "reports/<system>/<scheme>" },
		{ OPT_STRING, 0, "system", &system, "NAME", "system name for the default directory", "host name" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin runners to CPU N", "not pinned" },
		{ OPT_STRING, 0, "steps", &steps, "LIST",
		  "build,kat,bench,paired,mem,sizes,profile,leak,report; interposition runs with bench "
		  "(--no-interposition-check: not); paired: flag studies", "all but leak" },
		{ OPT_SCOPED, 0, "timeout", timeouts, "S", "time limit per child", NULL },
		{ OPT_INT, 0, "trials", &trials, "N", "bench trials", "5; 3 with --quick" },
		{ OPT_DOUBLE, 0, "target", &target, "S", "bench trial target time", "1.0; 0.3 with --quick" },
		{ OPT_SCOPED, 0, "budget", budgets, "S",
		  "flag studies: seconds for all paired measurements", "30 per instance and operation; 20 with --quick" },
		{ OPT_FLAG, 0, "quick", &quick, NULL, "skip instances marked slow, shorter trials", NULL },
		{ OPT_FLAG, 0, "fresh", &fresh, NULL, "discard earlier results instead of resuming", NULL },
		{ OPT_STRING, 0, "shard", &shard, "K/N", "run the K-th of N deterministic shards", "1/1" },
		{ OPT_FLAG, 0, "no-report", &no_report, NULL, "do not write the report", NULL },
		{ OPT_STRING, 0, "events", &events, "LIST", "counter events", "cycles" },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR", "trees and their links may lie anywhere in DIR",
		  "the descriptor's directory" },
		{ OPT_FLAG, 0, "trust-flags", &trust_flags, NULL, "allow descriptor cflags that run programs or load code", NULL },
		{ OPT_LIST, 0, "build-cmd", &build_cmds, "CMD",
		  "build the tree with this shell command instead of its own make, cmake or meson, observed as a whole (repeatable)",
		  NULL },
		{ OPT_LIST, 0, "make-var", &make_vars, "NAME=V1,V2,...",
		  "make variable choosing parameter sets: each make goal runs once per combination of the values (repeatable)",
		  NULL },
		{ OPT_FLAG, 0, "no-observe", &no_observe, NULL, "do not run trees' own builds: compile the sources beside their KAT drivers with the profile's flags", NULL },
		{ OPT_DOUBLE, 0, "precision", &precision, "P",
		  "flag studies: target half-width of each ratio's 95% interval", "0.01, i.e. +-1%" },
		{ OPT_STRING, 0, "pairing", &pairing, "MODE",
		  "flag studies: in-process (every build in one runner, round by round) or per-process (trial by trial)",
		  NULL },
		{ OPT_LIST, 0, "category", &categories, "[NAME=]N",
		  "NIST security category (1-5) of instance NAME, or of every instance whose descriptor, api.h and name "
		  "state none; picks the baseline (repeatable)",
		  "none: those instances get no baseline" },
		{ OPT_LIST, 0, "baseline", &baselines, "[CATEGORY=]TREE|LIB",
		  "measure candidates of that category (else: the category TREE or LIB states) against this tree or built "
		  "library instead of the in-tree ML-DSA / ML-KEM; KAT-gated on the published digests (repeatable)",
		  "pqprof's in-tree ML-DSA and ML-KEM" },
		{ OPT_FLAG, 0, "no-baseline", &no_baseline, NULL,
		  "do not bench ML-DSA / ML-KEM of each candidate's security category beside it", NULL },
		{ OPT_FLAG, 0, "round", &round, NULL,
		  "the TARGET folders are rounds: every folder in them is a package, each run as its own campaign",
		  "a folder holding a package or descriptor of its own, and several TARGETs with --out" },
		{ OPT_FLAG, 0, "dry-run", &dry, NULL, "print what would be built and measured (for a package: its scan), do nothing", NULL },
		OPT_ALIAS("kat-timeout", "timeout", "kat"),
		OPT_ALIAS("op-budget", "budget", "op"),
		OPT_ALIAS("leak-budget", "budget", "leak"),
		OPT_ALIAS("output", "out", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[64];
	pq_error err = { 0 };
	int status, np = cmd_parse("run", argc, argv, usage, specs, pos, 64, &status);
	if (np < 0) {
		free_lists(lists);
		return status;
	}
	if (cmd_check_make_vars("run", (const char *const *)make_vars.items, make_vars.n) != 0) {
		free_lists(lists);
		return PQ_EUSAGE;
	}
	unsigned char ctx[BUILD_CONTEXT_MAX];
	size_t ctx_len;
	if ((manifest && (contain_check_input(manifest, "--manifest", &err) < 0 || manifest_check_file(manifest, &err) < 0)) ||
	    (context && build_context_parse(context, "--context", ctx, &ctx_len, &err) < 0)) {
		free_lists(lists);
		return cmd_fail("run", &err);
	}
	if (precision < 0 || precision >= 1 || budget < 0 ||
	    (strcmp(pairing, "in-process") != 0 && strcmp(pairing, "per-process") != 0)) {
		pq_fail(&err, PQ_EUSAGE, "--precision must lie in (0, 1), --budget be positive and --pairing be in-process "
		        "or per-process");
		free_lists(lists);
		return cmd_fail("run", &err);
	}
	int category = 0;
	if (parse_categories(&categories, &category, &err) < 0) {
		free_lists(lists);
		return cmd_fail("run", &err);
	}
	int k = 0, n = 0;
	if (shard && (sscanf(shard, "%d/%d", &k, &n) != 2 || n < 1 || k < 1 || k > n)) {
		pq_fail(&err, PQ_EUSAGE, "--shard must be K/N with 1 <= K <= N, not '%s'", shard);
		free_lists(lists);
		return cmd_fail("run", &err);
	}
	int is_round = round || (out && np > 1);
	for (int i = 0; i < np && !is_round; i++)
		is_round = round_is_round(pos[i]);
	if (is_round && shard) {
		fprintf(stderr, "pqprof run: --shard splits one campaign; a round is split by package (pqprof slurm)\n");
		is_round = -1;
	}
	if (np < 1 || is_round < 0) {
		options_usage(stderr, usage, specs);
		free_lists(lists);
		return PQ_EUSAGE;
	}
	/* One limit for every child unless a scope says otherwise: --timeout 5 holds the KAT replay to 5 s too. */
	if (kat_timeout < 0)
		kat_timeout = timeout;
	instance_describe_limit(timeout);
	char *command = cmd_join_argv("pqprof", argc, argv);
	struct campaign_opts o = {
		.out_dir = out, .system = system, .profiles = profiles, .steps = steps, .cpu = (int)cpu,
		.timeout_s = timeout, .kat_timeout_s = kat_timeout, .trials = (int)trials, .target_s = target,
		.op_budget_s = op_budget, .quick = quick, .fresh = fresh, .shard_k = k, .shard_n = n, .no_report = no_report,
		.events = events, .leak_budget_s = leak_budget, .command = command, .progress = stderr,
		.progress_tty = isatty(2), .summary = stdout, .source_root = source_root, .trust_flags = trust_flags,
		.no_observe = no_observe, .no_baseline = no_baseline, .category = category,
		.category_names = (const char *const *)categories.items, .ncategory_names = categories.n,
		.baselines = (const char *const *)baselines.items, .nbaselines = baselines.n,
		.build_cmds = (const char *const *)build_cmds.items, .nbuild_cmds = build_cmds.n,
		.make_vars = (const char *const *)make_vars.items, .nmake_vars = make_vars.n,
		.profile_defs = pdefs.items, .nprofile_defs = pdefs.n, .cc_defs = ccs.items, .ncc_defs = ccs.n,
		.manifest = manifest, .aa = aa, .plain_pic = plain_pic, .context_hex = context,
		.no_interposition_check = no_ipc, .precision = precision, .budget_s = budget,
		.per_process = strcmp(pairing, "per-process") == 0,
	};
	/* A shard, or one package of a round, holds only some of the instances --category NAME=N may name. */
	o.category_names_loose = is_round || n > 0 || getenv("PQPROF_IN_ROUND") != NULL;
	if (is_round) {
		status = run_round(pos, np, round, out, dry, &o);
		np = 0;
	} else {
		status = 0;
	}
	for (int i = 0; i < np; i++) {
		pq_error terr = { 0 };
		char target[4096];
		char dflt[4096];
		int r = paths_find_scheme(pos[i], target, sizeof target, &terr);
		if (dry) {
			if (r == 0)
				r = dry_run(target, &o, &terr);
			if (r < 0) {
				fprintf(stderr, "pqprof run: %s\n", terr.msg);
				status = pq_exit_code(terr.code);
			}
			continue;
		}
		if (r == 0 && !out && campaign_default_dir(target, &o, dflt, sizeof dflt, &terr) == 0)
			r = cmd_out_dir("run", dflt, "the campaign", "--out", &terr);
		if (r < 0 || campaign_run(target, &o, &terr) < 0) {
			fprintf(stderr, "pqprof run: %s\n", terr.msg);
			status = pq_exit_code(terr.code);
		}
	}
	free(command);
	free_lists(lists);
	return status;
}
