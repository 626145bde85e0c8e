/* pqprof mem: static image, baseline/peak RSS, stack and heap per operation. */
#include "config.h"
#include "core/json_file.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/jpath.h"
#include "core/options.h"
#include "core/options_help.h"
#include "cmd/cmd_outdir.h"
#include "measure/elf_size.h"
#include "core/units.h"
#include "supervise/bench.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "supervise/mem_run.h"
#include "core/units.h"
#include "record/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof mem LIB";

int cmd_mem(int argc, char **argv)
{
	const char *opname = "all", *dir = "records";
	long stack = 0, cpu = -1;
	double timeout = 300;
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "keygen, sign, verify, enc, dec, or all", NULL },
		{ OPT_INT, 0, "stack-size", &stack, "BYTES", "stack the call runs on", "64 MiB" },
		{ OPT_INT, 0, "cpu", &cpu, "N", "pin the runner to CPU N", "not pinned" },
		{ OPT_DOUBLE, 0, "timeout", &timeout, "S", "time limit per child", NULL },
		{ OPT_STRING, 0, "records-dir", &dir, "DIR", "write memory records here (\"\" for none)", NULL },
		{ OPT_FLAG, 0, "json", &json, NULL, "print records as JSON", NULL },
		OPT_ALIAS("records", "records-dir", NULL),
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("mem", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	json_t *desc = NULL;
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("mem", &err);
	const char *name = json_string_value(json_object_get(desc, "name"));
	enum pq_op ops[PQ_OP_COUNT];
	int nops = 0, kind = strcmp(json_string_value(json_object_get(desc, "kind")), "kem") == 0 ? 2 : 1;
	if (strcmp(opname, "all") == 0) {
		nops = pq_ops_for_kind(kind, ops);
	} else if (pq_op_parse(opname) >= 0) {
		ops[nops++] = (enum pq_op)pq_op_parse(opname);
	} else {
		json_decref(desc);
		pq_fail(&err, PQ_EUSAGE, "--op: unknown operation '%s'", opname);
		return cmd_fail("mem", &err);
	}
	if (dir && *dir && cmd_out_dir("mem", dir, "the memory records", "--records-dir", &err) < 0) {
		json_decref(desc);
		return cmd_fail("mem", &err);
	}
	if (!json)
		printf("%-28s %-8s %16s %14s %14s %12s %14s %8s\n", "instance", "op", "static ELF image", "baseline RSS",
		       "peak RSS", "stack", "heap peak", "allocs");
	status = 0;
	struct mem_run_opts mo = { .lib = pos[0], .stack_size = stack, .timeout_s = timeout, .cpu = (int)cpu };
	struct record_ctx ctx = { .instance = desc };
	for (int i = 0; i < nops; i++) {
		json_t *rec = NULL;
		pq_error merr = { 0 };
		int r = record_mem(&mo, ops[i], &ctx, &rec, &merr);
		if (rec && dir && *dir) {
			char path[4096];
			pq_error werr = { 0 };
			if (cmd_record_path(path, sizeof path, dir, name, pq_op_name(ops[i]), ".mem.json", &werr) < 0 ||
			    json_file_write(path, rec, &werr) < 0) {
				json_decref(rec);
				json_decref(desc);
				return cmd_fail("mem", &werr);
			}
		}
		if (r < 0) {
			fprintf(stderr, "pqprof mem: %s: %s\n", pos[0], merr.msg);
			status = pq_exit_code(merr.code);
		} else if (json) {
			char *s = json_dumps(rec, JSON_INDENT(2));
			printf("%s\n", s);
			free(s);
		} else {
			json_t *m = json_object_get(rec, "memory");
			char base[32], peak[32], st[32], heap[32], allocs[32], img[32];
			double image = jp_num(rec, "static_image_bytes", -1);
			snprintf(img, sizeof img, image >= 0 ? "%.0f" : "–", image);
			fmt_kib(base, sizeof base, jp_num(m, "baseline_rss", -1));
			fmt_kib(peak, sizeof peak, jp_num(m, "peak_rss", -1));
			snprintf(st, sizeof st, "%.0f B", jp_num(m, "stack.used", -1));
			json_t *h = json_object_get(m, "heap");
			if (json_is_true(json_object_get(h, "available"))) {
				fmt_kib(heap, sizeof heap, jp_num(m, "heap.peak_live_bytes", -1));
				snprintf(allocs, sizeof allocs, "%.0f", jp_num(m, "heap.allocs", -1));
			} else {
				snprintf(heap, sizeof heap, "n/a");
				snprintf(allocs, sizeof allocs, "n/a");
			}
			printf("%-28s %-8s %16s %14s %14s %12s %14s %8s\n", name, pq_op_name(ops[i]), img, base, peak, st,
			       heap, allocs);
			double live = jp_num(m, "heap.live_bytes", -1);
			if (json_is_true(json_object_get(h, "available")) && live > 0)
				printf("note: %s leaks %.0f bytes per call (allocated during the call and not freed)\n",
				       pq_op_name(ops[i]), live);
		}
		json_decref(rec);
	}
	if (!json)
		printf("peak RSS is the runner's VmHWM around one call (runner, libc and page granularity included);\n"
		       "stack is the high-water mark of the call on a painted stack; heap counts the call's own mallocs.\n");
	json_decref(desc);
	return status;
}
