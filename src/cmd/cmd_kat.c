/* pqprof kat: gate an instance on its known-answer tests. */
#include "config.h"
#include "kat/manifest.h"
#include "core/path_name.h"
#include "core/json_file.h"
#include "core/safe_name.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/contain.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "supervise/kat_gate.h"
#include "record/records.h"
#include "cmd/cmd_outdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof kat LIB";

int cmd_kat(int argc, char **argv)
{
	const char *vectors = NULL, *manifest = NULL, *emit = NULL, *dir = "records";
	long records = 0;
	double timeout = 900;
	int no_search = 0;
	struct opt_list siblings = { 0 };
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "vectors", &vectors, "FILE", "expected KAT file (KAT_SIG_*.txt, PQCsignKAT_*.rsp, ...)",
		  "the official file, searched for in the source tree" },
		{ OPT_STRING, 0, "manifest", &manifest, "FILE",
		  "kat.sha256 manifest: its digest decides (--vectors, the file it describes, then explains a MISMATCH)", NULL },
		{ OPT_INT, 0, "first", &records, "N", "replay and compare only the first N records", "10 NGCC, 100 NIST" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit for the whole replay", NULL },
		{ OPT_STRING, 0, "emit", &emit, "FILE", "write the vectors the instance produces", NULL },
		{ OPT_STRING, 0, "records-dir", &dir, "DIR", "where the KAT log and verdict record go (\"\" for none)", NULL },
		{ OPT_FLAG, 0, "no-search", &no_search, NULL, "do not look for the official vector file in the source tree", NULL },
		{ OPT_LIST, 0, "sibling", &siblings, "LIB|NAME=PK,SK,SIG",
		  "another parameter set of the package (repeatable): a MISMATCH says whether the file holds its records", NULL },
		OPT_ALIAS("records", "first", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};

	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("kat", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1 || records < 0) {
		opt_list_free(&siblings);
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	/* The siblings as the gate takes them; the list itself is not needed after. */
	const char **sib = calloc((size_t)siblings.n + 1, sizeof *sib);
	for (int i = 0; sib && i < siblings.n; i++)
		sib[i] = siblings.items[i];
	opt_list_free(&siblings);
	if (!sib) {
		pq_fail(&err, PQ_ENOMEM, "out of memory");
		return cmd_fail("kat", &err);
	}
	if ((vectors && contain_check_input(vectors, "--vectors", &err) < 0) ||
	    (manifest && contain_check_input(manifest, "--manifest", &err) < 0)) {
		free(sib);
		return cmd_fail("kat", &err);
	}
	/* A manifest that cannot be read is bad input (exit 2), not a KAT verdict. */
	if (manifest && manifest_check_file(manifest, &err) < 0) {
		free(sib);
		return cmd_fail("kat", &err);
	}
	json_t *desc = NULL;
	pq_error derr = { 0 };
	/* A load failure becomes LOADFAIL below; pqprof's own (memory) is an error. */
	instance_describe_limit(timeout);
	if (instance_describe(pos[0], &desc, &derr) < 0 && derr.code == PQ_ENOMEM) {
		free(sib);
		return cmd_fail("kat", &derr);
	}
	const char *name = desc ? json_string_value(json_object_get(desc, "name")) : NULL;
	char log[4096] = "", rec[4096] = "";
	if (dir && *dir) {
		char base[256];
		safe_name(base, sizeof base, name ? name : path_base(pos[0]));
		if (cmd_out_dir("kat", dir, "the KAT log and verdict record", "--records-dir", &err) < 0 ||
		    record_path(log, sizeof log, dir, NULL, base, NULL, ".kat.log", &err) < 0 ||
		    record_path(rec, sizeof rec, dir, NULL, base, NULL, ".kat.json", &err) < 0) {
			json_decref(desc);
			free(sib);
			return cmd_fail("kat", &err);
		}
	}
	struct kat_gate_opts o = {
		.lib = pos[0], .vectors = vectors, .manifest = manifest, .search_tree = !no_search,
		.records = records, .timeout_s = timeout, .emit = emit, .log_path = log[0] ? log : NULL,
		.siblings = sib, .source_root = getenv("PQPROF_SOURCE_ROOT"),
	};
	struct record_ctx ctx = { .instance = desc };
	struct kat_gate_result res;
	int r = record_kat(&o, &ctx, &res, &err);
	json_decref(desc);
	free(sib);
	if (r < 0)
		return cmd_fail("kat", &err);
	if (res.emit_failed)
		fprintf(stderr, "pqprof kat: %s\n", res.emit_error.msg);
	if (rec[0] && res.record && json_file_write(rec, res.record, &err) < 0)
		fprintf(stderr, "pqprof kat: %s\n", err.msg);
	const struct kat_outcome *out = &res.outcome;
	printf("RESULT %s %s%s%s\n", name ? name : pos[0], kat_verdict_name(out->verdict),
	       out->reason[0] ? " " : "", out->reason);
	if (out->record >= 0)
		printf("first difference: record %ld%s%s\n", out->record, out->field[0] ? ", field " : "", out->field);
	if (res.forensics)
		printf("forensics: %s\n", json_string_value(json_object_get(res.forensics, "text")) ?: "");
	for (int i = 0; i < out->nnotes; i++)
		printf("api deviation: %s\n", out->notes[i]);
	if (res.expected[0])
		printf("expected: %s\n", res.expected);
	if (log[0])
		printf("log: %s (sha256 %s)\n", log, res.log_sha256);
	int code = kat_verdict_exit_code(out->verdict);
	kat_gate_result_free(&res);
	return code;
}
