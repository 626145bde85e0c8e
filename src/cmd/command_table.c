/*
 * command_table: the one list of subcommands: name -> cmd_* function, the
 * line help shows, and the shared setup each needs (commands.h).  In the
 * order help lists them, which is the order of the data flow.
 */
#include "config.h"
#include "cmd/commands.h"

#include <stddef.h>

const struct command pq_commands[] = {
	{ "run", cmd_run, "the whole job: build, KAT, bench, memory, sizes, profile, report", CMD_RUNS_CHILDREN },
	{ "schemes", cmd_schemes, "list the schemes run can find by name, and where pqprof's files are", 0 },
	{ "scan", cmd_scan, "list the instances, KAT files and implementation versions of a submission package", 0 },
	{ "build", cmd_build, "compile a submission tree into an instance library", 0 },
	{ "info", cmd_info, "print an instance library's descriptor", CMD_RUNS_CHILDREN },
	{ "kat", cmd_kat, "gate an instance on its known-answer tests", CMD_RUNS_CHILDREN },
	{ "manifest", cmd_manifest, "write or check kat.sha256 manifest lines", 0 },
	{ "bench", cmd_bench, "time keygen / sign / verify with counters", CMD_RUNS_CHILDREN },
	{ "mem", cmd_mem, "static image, RSS, stack and heap per operation", CMD_RUNS_CHILDREN },
	{ "sizes", cmd_sizes, "declared vs produced sizes, size audit, sections and symbols", CMD_RUNS_CHILDREN },
	{ "leak", cmd_leak, "timing-leak smoke test: fixed-vs-random t-tests per operation", CMD_RUNS_CHILDREN },
	{ "profile", cmd_profile, "sample operations into a .pqt trace and report hotspots", CMD_RUNS_CHILDREN },
	{ "report", cmd_report, "hotspots, call tree, groups and calls per op from a trace", 0 },
	{ "annotate", cmd_annotate, "one function's instructions, source lines and loops from a trace; two builds side by side", 0 },
	{ "export", cmd_export, "a trace in the formats flame graph and profile viewers read", 0 },
	{ "trace", cmd_trace, "inspect .pqt sample traces (info, dump, check)", 0 },
	{ "compare", cmd_compare, "compare two record sets: ratios with intervals, per-function deltas", 0 },
	{ "merge", cmd_merge, "combine campaign directories from shards or machines", 0 },
	{ "slurm", cmd_slurm, "submit a campaign to Slurm as a job array of shards, then merge", CMD_RUNS_CHILDREN },
	{ "env", cmd_env, "print the assessment environment and what makes figures unstable", 0 },
	{ NULL, NULL, NULL, 0 },
};
