/* pqprof sizes: declared vs produced sizes, the size audit, and the library's sections. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "measure/elf_size.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "supervise/mem_run.h"
#include "report/sizes_audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof sizes LIB [--runs N] [--top N] [--records DIR] [--json]";

int cmd_sizes(int argc, char **argv)
{
	const char *dir = "records";
	long runs = 20, top = 10;
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "runs", &runs, "N", "keygen+sign runs under different seeds (default 20)" },
		{ OPT_INT, 0, "top", &top, "N", "largest symbols to list (default 10)" },
		{ OPT_STRING, 0, "records", &dir, "DIR", "write the sizes record here (default ./records)" },
		{ OPT_FLAG, 0, "json", &json, NULL, "print the record as JSON" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
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
	child_install_signal_forwarding();
	json_t *desc = NULL;
	if (instance_describe(pos[0], &desc, &err) < 0)
		return cmd_fail("sizes", &err);
	const char *name = json_string_value(json_object_get(desc, "name"));
	struct elf_size es;
	if (elf_size_analyze(pos[0], &es, &err) < 0) {
		json_decref(desc);
		return cmd_fail("sizes", &err);
	}
	struct mem_run_opts mo = { .lib = pos[0], .cpu = -1 };
	json_t *rec = NULL;
	pq_error serr = { 0 };
	int r = sizes_run(&mo, runs, &rec, &serr);
	json_object_set(rec, "instance", desc);
	json_object_set_new(rec, "elf", elf_size_to_json(&es, (size_t)top));
	char audit[8][256];
	int na = r == 0 ? sizes_audit(rec, audit, 8) : 0;
	json_t *aj = json_array();
	for (int i = 0; i < na; i++)
		json_array_append_new(aj, json_string(audit[i]));
	json_object_set_new(rec, "audit", aj);
	if (dir && *dir && make_dirs(dir, &err) == 0) {
		char path[4096];
		cmd_record_path(path, sizeof path, dir, name, "sizes", ".json");
		cmd_write_json(path, rec, NULL);
	}
	if (json) {
		char *s = json_dumps(rec, JSON_INDENT(2));
		printf("%s\n", s);
		free(s);
	} else {
		printf("instance %s: %s\n", name, pos[0]);
		printf("static ELF image (sum of PT_LOAD): %llu bytes\n", (unsigned long long)es.image_memsz);
		for (int k = 0; k < ELF_SIZE_NKINDS; k++)
			printf("  %-8s %12llu bytes\n", elf_size_kind_name((enum elf_size_kind)k),
			       (unsigned long long)es.kind_bytes[k]);
		if (es.ntop && top)
			printf("largest symbols:\n");
		for (size_t i = 0; i < es.ntop && i < (size_t)top; i++)
			printf("  %10llu  %-6s %s\n", (unsigned long long)es.top[i].size,
			       elf_size_kind_name(es.top[i].kind), es.top[i].name);
		if (r == 0) {
			printf("%-14s %10s %10s %10s   (over %ld runs)\n", "item", "declared", "min", "max", runs);
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
			for (int i = 0; i < na; i++)
				printf("size audit: %s\n", audit[i]);
		}
	}
	if (r < 0)
		fprintf(stderr, "pqprof sizes: %s: %s\n", pos[0], serr.msg);
	elf_size_free(&es);
	json_decref(rec);
	json_decref(desc);
	return r < 0 ? pq_exit_code(serr.code) : (na && strstr(audit[0], "error") ? PQ_ESCHEME : 0);
}
