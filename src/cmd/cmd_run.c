/* pqprof run: from a scheme, a submission tree or a library to a report. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "campaign/campaign.h"
#include "core/options.h"
#include "core/paths.h"
#include "core/fixed_str.h"
#include "cmd/cmd_outdir.h"
#include "cmd/cmd_scan.h"
#include "instance/package_scan.h"
#include "supervise/child.h"
#include "core/contain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"pqprof run TARGET... [--profile NAME=FLAGS]... [--cc [NAME=]COMPILER]... [--profiles LIST] [--aa] [--plain-pic]\n"
	"                     [--manifest FILE] [--out DIR] [--system NAME] [--cpu N] [--steps LIST]\n"
	"                     [--timeout S] [--kat-timeout S] [--trials N] [--target S] [--op-budget S] [--quick] [--fresh]\n"
	"                     [--shard K/N] [--no-report] [--events LIST] [--leak-budget S] [--source-root DIR]\n"
	"                     [--trust-flags] [--dry-run] [--precision P] [--budget S] [--pairing in-process|per-process]\n"
	"TARGET is a scheme descriptor (a path, or the NAME of one `pqprof schemes` lists), a submission\n"
	"package (Reference_Implementation/, Optimized_Implementation/, KAT/: see `pqprof scan`), a submission\n"
	"tree, or a built instance library.";

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
				scan_print_plan(stdout, ps);
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

int cmd_run(int argc, char **argv)
{
	const char *profiles = NULL, *out = NULL, *system = NULL, *steps = NULL, *shard = NULL, *events = NULL;
	long cpu = -1, trials = 0;
	double timeout = 900, kat_timeout = 900, target = 0, leak_budget = 0, op_budget = 0, precision = 0, budget = 0;
	const char *pairing = "in-process";
	int quick = 0, fresh = 0, no_report = 0, trust_flags = 0, dry = 0, no_observe = 0;
	const char *source_root = NULL, *manifest = NULL;
	struct opt_list pdefs = { 0 }, ccs = { 0 };
	int aa = 0, plain_pic = 0, no_ipc = 0;
	const struct option_spec specs[] = {
		{ OPT_LIST, 0, "profile", &pdefs, "NAME=FLAGS", "define a flag profile and run it (repeatable)" },
		{ OPT_LIST, 0, "cc", &ccs, "[NAME=]CC", "compiler of every profile, or of profile NAME (repeatable)" },
		{ OPT_STRING, 0, "profiles", &profiles, "LIST",
		  "flag profiles to run, the first is the baseline (built-in: harness-default,reference,performance,resource)" },
		{ OPT_FLAG, 0, "aa", &aa, NULL, "add an independent build of the first profile (<first>-aa), an A/A check" },
		{ OPT_FLAG, 0, "plain-pic", &plain_pic, NULL, "measure plain -fPIC libraries (calls through the PLT), as reference reports' harness did" },
		{ OPT_FLAG, 0, "no-interposition-check", &no_ipc, NULL, "do not build and time the other library form (halves the builds)" },
		{ OPT_STRING, 0, "manifest", &manifest, "FILE", "kat.sha256 manifest for the KAT gate (prebuilt libraries too)" },
		{ OPT_STRING, 'o', "out", &out, "DIR", "campaign directory (default reports/<system>/<scheme>)" },
		{ OPT_STRING, 0, "system", &system, "NAME", "system name for the default directory (default: host name)" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin runners to CPU N" },
		{ OPT_STRING, 0, "steps", &steps, "LIST",
		  "build,kat,bench,paired,mem,sizes,profile,leak,report (default all but leak; paired: flag studies)" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child (default 900)" },
		{ OPT_DOUBLE, 0, "kat-timeout", &kat_timeout, "S", "time limit of the KAT replay (default 900)" },
		{ OPT_INT, 0, "trials", &trials, "N", "bench trials (default 5; 3 with --quick)" },
		{ OPT_DOUBLE, 0, "target", &target, "S", "bench trial target time (default 1.0; 0.3 with --quick)" },
		{ OPT_DOUBLE, 0, "op-budget", &op_budget, "S",
		  "bench: wall time for the trials of one operation (operations of seconds get fewer calls)" },
		{ OPT_FLAG, 0, "quick", &quick, NULL, "skip instances marked slow, shorter trials" },
		{ OPT_FLAG, 0, "fresh", &fresh, NULL, "discard earlier results instead of resuming" },
		{ OPT_STRING, 0, "shard", &shard, "K/N", "run the K-th of N deterministic shards" },
		{ OPT_FLAG, 0, "no-report", &no_report, NULL, "do not write the report" },
		{ OPT_STRING, 0, "events", &events, "LIST", "counter events (default cycles)" },
		{ OPT_STRING, 0, "source-root", &source_root, "DIR", "trees and their links may lie anywhere in DIR (default: the descriptor's directory)" },
		{ OPT_FLAG, 0, "trust-flags", &trust_flags, NULL, "allow descriptor cflags that run programs or load code" },
		{ OPT_FLAG, 0, "no-observe", &no_observe, NULL, "do not run trees' own builds: read their build files" },
		{ OPT_DOUBLE, 0, "leak-budget", &leak_budget, "S", "leak step: seconds per operation (default 4; 2 with --quick)" },
		{ OPT_DOUBLE, 0, "precision", &precision, "P",
		  "flag studies: target half-width of each ratio's 95% interval (default 0.01, i.e. \u00b11%)" },
		{ OPT_DOUBLE, 0, "budget", &budget, "S",
		  "flag studies: seconds for all paired measurements (default 30 per instance and operation; 20 with --quick)" },
		{ OPT_STRING, 0, "pairing", &pairing, "MODE",
		  "flag studies: in-process (default: every build in one runner, round by round) or per-process (trial by trial)" },
		{ OPT_FLAG, 0, "dry-run", &dry, NULL, "print what would be built and measured (for a package: its scan), do nothing" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[64];
	pq_error err = { 0 };
	int status, np = cmd_parse("run", argc, argv, usage, specs, pos, 64, &status);
	if (np < 0) {
		opt_list_free(&pdefs);
		opt_list_free(&ccs);
		return status;
	}
	if (manifest && contain_check_input(manifest, "--manifest", &err) < 0) {
		opt_list_free(&pdefs);
		opt_list_free(&ccs);
		return cmd_fail("run", &err);
	}
	if (precision < 0 || precision >= 1 || budget < 0 ||
	    (strcmp(pairing, "in-process") != 0 && strcmp(pairing, "per-process") != 0)) {
		pq_fail(&err, PQ_EUSAGE, "--precision must lie in (0, 1), --budget be positive and --pairing be in-process "
		        "or per-process");
		opt_list_free(&pdefs);
		opt_list_free(&ccs);
		return cmd_fail("run", &err);
	}
	int k = 0, n = 0;
	if (shard && (sscanf(shard, "%d/%d", &k, &n) != 2 || n < 1 || k < 1 || k > n)) {
		pq_fail(&err, PQ_EUSAGE, "--shard must be K/N with 1 <= K <= N, not '%s'", shard);
		opt_list_free(&pdefs);
		opt_list_free(&ccs);
		return cmd_fail("run", &err);
	}
	if (np < 1 || (out && np > 1)) {
		if (out && np > 1)
			fprintf(stderr, "pqprof run: --out takes one target; each target gets its own directory otherwise\n");
		options_usage(stderr, usage, specs);
		opt_list_free(&pdefs);
		opt_list_free(&ccs);
		return PQ_EUSAGE;
	}
	char *command = cmd_join_argv("pqprof", argc, argv);
	struct campaign_opts o = {
		.out_dir = out, .system = system, .profiles = profiles, .steps = steps, .cpu = (int)cpu,
		.timeout_s = timeout, .kat_timeout_s = kat_timeout, .trials = (int)trials, .target_s = target,
		.op_budget_s = op_budget, .quick = quick, .fresh = fresh, .shard_k = k, .shard_n = n, .no_report = no_report,
		.events = events, .leak_budget_s = leak_budget, .command = command, .progress = stderr,
		.progress_tty = isatty(2), .summary = stdout, .source_root = source_root, .trust_flags = trust_flags,
		.no_observe = no_observe,
		.profile_defs = pdefs.items, .nprofile_defs = pdefs.n, .cc_defs = ccs.items, .ncc_defs = ccs.n,
		.manifest = manifest, .aa = aa, .plain_pic = plain_pic,
		.no_interposition_check = no_ipc, .precision = precision, .budget_s = budget,
		.per_process = strcmp(pairing, "per-process") == 0,
	};
	status = 0;
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
	opt_list_free(&pdefs);
	opt_list_free(&ccs);
	return status;
}
