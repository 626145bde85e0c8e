/* command_table: name -> cmd_* function, in the order help lists them. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_export.h"

#include <stddef.h>

const struct command pq_commands[] = {
	{ "run", cmd_run, "the whole job: build, KAT, bench, memory, sizes, profile, report" },
	{ "build", cmd_build, "compile a submission tree into an instance library" },
	{ "info", cmd_info, "print an instance library's descriptor" },
	{ "kat", cmd_kat, "gate an instance on its known-answer tests" },
	{ "manifest", cmd_manifest, "write or check kat.sha256 manifest lines" },
	{ "bench", cmd_bench, "time keygen / sign / verify with counters" },
	{ "mem", cmd_mem, "static image, RSS, stack and heap per operation" },
	{ "sizes", cmd_sizes, "declared vs produced sizes, size audit, sections and symbols" },
	{ "leak", cmd_leak, "timing-leak smoke test: fixed-vs-random t-tests per operation" },
	{ "profile", cmd_profile, "sample operations into a .pqt trace and report hotspots" },
	{ "report", cmd_report, "hotspots, call tree, groups and calls per op from a trace" },
	{ "export", cmd_export, "a trace as folded, speedscope, callgrind or SVG flame graph" },
	{ "trace", cmd_trace, "inspect .pqt sample traces (info, dump, check)" },
	{ "compare", cmd_compare, "compare two record sets: ratios with intervals, per-function deltas" },
	{ "merge", cmd_merge, "combine campaign directories from shards or machines" },
	{ "env", cmd_env, "print the assessment environment and what makes figures unstable" },
	{ NULL, NULL, NULL },
};
