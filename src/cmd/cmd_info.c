/* pqprof info: load an instance in a runner child and print its descriptor. */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "supervise/child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_info(int argc, char **argv)
{
	int json = 0;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "json", &json, NULL, "print the descriptor as JSON", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	pq_error err = { 0 };
	int status, np = cmd_parse("info", argc, argv, "pqprof info LIB", specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 1) {
		options_usage(stderr, "pqprof info LIB", specs);
		return PQ_EUSAGE;
	}
	struct child_spec cs = { .job = "info", .lib = pos[0], .timeout_s = 60, .cpu = -1 };
	struct child_result res;
	if (child_run(&cs, &res, &err) < 0)
		return cmd_fail("info", &err);
	if (res.end != CHILD_OK) {
		char why[512];
		child_describe(&res, why, sizeof why);
		pq_fail(&err, res.exit_code == PQ_ELOAD ? PQ_ELOAD : PQ_ESCHEME, "%s", why);
		child_result_free(&res);
		return cmd_fail("info", &err);
	}
	json_t *d = res.done;
	json_object_del(d, "ev");
	if (json) {
		char *s = json_dumps(d, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("%s\n", s);
		free(s);
	} else {
		json_t *sz = json_object_get(d, "sizes");
		printf("instance   %s\napi        %s %s\ncompiler   %s\nprofile    %s\ncflags     %s\n",
		       json_string_value(json_object_get(d, "name")), json_string_value(json_object_get(d, "api")),
		       json_string_value(json_object_get(d, "kind")), json_string_value(json_object_get(d, "compiler")),
		       json_string_value(json_object_get(d, "profile")), json_string_value(json_object_get(d, "cflags")));
		const char *keys[] = { "pk", "sk", "sig", "ct", "ss" };
		for (int i = 0; i < 5; i++) {
			json_int_t v = json_integer_value(json_object_get(sz, keys[i]));
			if (v)
				printf("%-10s %lld bytes\n", keys[i], (long long)v);
		}
		printf("source     %s\n", json_string_value(json_object_get(d, "source_dir")));
	}
	child_result_free(&res);
	return 0;
}
