/* pqprof sizes: declared vs produced sizes, the size audit, and the library's sections. */
#include "config.h"
#include "core/json_file.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
#include "cmd/cmd_outdir.h"
#include "measure/elf_size.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "supervise/mem_run.h"
#include "report/sizes_audit.h"
#include "record/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof sizes LIB";

int cmd_sizes(int argc, char **argv)
{
	const char *dir = "records";
	long runs = 20, top = 10;
	double seconds = 0;
	int json = 0;
	struct opt_scope budgets[] = {
		{ "", &seconds, NULL, NULL },
		{ "sizes", &seconds, "the same", "none" },
		{ NULL, NULL, NULL, NULL },
	};
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "runs", &runs, "N", "keygen+sign runs under different seeds", NULL },
		{ OPT_SCOPED, 0, "budget", budgets, "S", "stop sampling once S seconds are spent (two runs at least)",
		  "none" },
		{ OPT_INT, 0, "top", &top, "N", "largest symbols to list", NULL },
		{ OPT_STRING, 0, "records-dir", &dir, "DIR", "write the sizes record here (\"\" for none)", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the record as JSON", NULL },
		OPT_ALIAS("seconds", "budget", NULL),
		OPT_ALIAS("records", "records-dir", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("sizes", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1 || runs < 1 || top < 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	json_t *desc = NULL;
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("sizes", &err);
	const char *name = json_string_value(json_object_get(desc, "name"));
	struct mem_run_opts mo = { .lib = pos[0], .cpu = -1 };
	struct record_ctx ctx = { .instance = desc };
	json_t *rec = NULL;
	pq_error serr = { 0 };
	int r = record_sizes(&mo, runs, seconds, (size_t)top, &ctx, &rec, &serr);
	if (!rec) {
		json_decref(desc);
		return cmd_fail("sizes", &serr);
	}
	json_t *elf = json_object_get(rec, "elf");
	if (!elf) {
		pq_fail(&err, PQ_EINPUT, "%s", json_string_value(json_object_get(rec, "elf_error")) ?: pos[0]);
		json_decref(rec);
		json_decref(desc);
		return cmd_fail("sizes", &err);
	}
	json_t *audit = json_object_get(rec, "audit");
	size_t na = json_array_size(audit);
	int wstatus = 0;
	if (dir && *dir) {
		char path[4096];
		if (cmd_out_dir("sizes", dir, "the sizes record", "--records-dir", &err) < 0 ||
		    cmd_record_path(path, sizeof path, dir, name, "sizes", ".json", &err) < 0 ||
		    json_file_write(path, rec, &err) < 0)
			wstatus = cmd_fail("sizes", &err);
	}
	if (json) {
		char *s = json_dumps(rec, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
	} else {
		printf("instance %s: %s\n", name, pos[0]);
		printf("static ELF image (sum of PT_LOAD): %llu bytes\n",
		       (unsigned long long)json_integer_value(json_object_get(elf, "image_memsz")));
		json_t *kinds = json_object_get(elf, "sections");
		for (int k = 0; k < ELF_SIZE_NKINDS; k++) {
			const char *kn = elf_size_kind_name((enum elf_size_kind)k);
			printf("  %-8s %12llu bytes\n", kn,
			       (unsigned long long)json_integer_value(json_object_get(kinds, kn)));
		}
		json_t *syms = json_object_get(elf, "top_symbols"), *sym;
		size_t i;
		if (json_array_size(syms) && top)
			printf("largest symbols:\n");
		json_array_foreach(syms, i, sym)
			printf("  %10llu  %-6s %s\n", (unsigned long long)json_integer_value(json_object_get(sym, "size")),
			       json_string_value(json_object_get(sym, "kind")),
			       json_string_value(json_object_get(sym, "name")));
		if (r == 0) {
			json_int_t done = json_integer_value(json_object_get(rec, "runs"));
			if (json_object_get(rec, "runs_planned"))
				printf("%-14s %10s %10s %10s   (over %lld of %ld runs: the %g s budget ran out)\n", "item", "declared", "min",
				       "max", (long long)done, runs, seconds);
			else
				printf("%-14s %10s %10s %10s   (over %lld runs)\n", "item", "declared", "min", "max",
				       (long long)done);
			const char *keys[] = { "pk", "sk", "sig", "ct", "ss" };
			const char *labels[] = { "public key", "secret key", "signature", "ciphertext", "shared secret" };
			for (int i = 0; i < 5; i++) {
				json_t *e = json_object_get(rec, keys[i]);
				if (e)
					printf("%-14s %10lld %10lld %10lld\n", labels[i],
					       (long long)json_integer_value(json_object_get(e, "declared")),
					       (long long)json_integer_value(json_object_get(e, "min")),
					       (long long)json_integer_value(json_object_get(e, "max")));
			}
			for (size_t k = 0; k < na; k++)
				printf("size audit: %s\n", json_string_value(json_array_get(audit, k)));
		}
	}
	if (r < 0)
		fprintf(stderr, "pqprof sizes: %s: %s\n", pos[0], serr.msg);
	status = r < 0 ? pq_exit_code(serr.code)
	               : (na && strstr(json_string_value(json_array_get(audit, 0)), "error") ? PQ_ESCHEME : 0);
	json_decref(rec);
	json_decref(desc);
	if (wstatus)
		return wstatus;  /* the record could not be written */
	return status;
}
