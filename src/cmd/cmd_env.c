/*
 * cmd_env: "pqprof env" prints the assessment environment (section 2 of a
 * report) and the warnings that make figures less trustworthy, as an
 * aligned table or as JSON.  It only observes; it pins nothing.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/pq_error.h"
#include "measure/counter.h"
#include "measure/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PQPROF_DEFAULT_SCHEME_CC
#define PQPROF_DEFAULT_SCHEME_CC "cc"
#endif

static const char usage_line[] = "pqprof env";

static void print_table(const env_info *env, const counter_set *cs, int have_cs)
{
	env_row rows[ENV_MAX_ROWS + 1];
	int n = env_table(env, rows, ENV_MAX_ROWS);
	if (have_cs && n < ENV_MAX_ROWS + 1) {
		char desc[ENV_STR];
		counter_set_describe(cs, desc, sizeof desc);
		snprintf(rows[n].item, sizeof rows[n].item, "counter");
		snprintf(rows[n].value, sizeof rows[n].value, "%s", desc);
		n++;
	}
	size_t width = strlen("item");
	for (int i = 0; i < n; i++)
		if (strlen(rows[i].item) > width)
			width = strlen(rows[i].item);
	printf("%-*s  %s\n", (int)width, "item", "value");
	for (int i = 0; i < n; i++)
		printf("%-*s  %s\n", (int)width, rows[i].item, rows[i].value);
}

static json_t *counter_json(const counter_set *cs)
{
	json_t *c = json_object(), *r = json_array();
	for (int i = 0; i < counter_set_reason_count(cs); i++)
		json_array_append_new(r, json_string(counter_set_reason(cs, i)));
	json_object_set_new(c, "backend", json_string(counter_set_backend_name(cs)));
	json_object_set_new(c, "unit", json_string(counter_set_unit(cs)));
	json_object_set_new(c, "fallback_reasons", r);
	return c;
}

static int print_json(const env_info *env, const counter_set *cs, int have_cs,
                      char warnings[][ENV_WARNING_LEN], int nw)
{
	json_t *o = env_to_json(env), *w = json_array();
	for (int i = 0; i < nw; i++)
		json_array_append_new(w, json_string(warnings[i]));
	json_object_set_new(o, "warnings", w);
	if (have_cs)
		json_object_set_new(o, "counter", counter_json(cs));
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!s) {
		fprintf(stderr, "pqprof env: out of memory\n");
		return PQ_ENOMEM;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

int cmd_env(int argc, char **argv)
{
	int json = 0;
	long cpu = -1;
	const char *cc = NULL;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "json", &json, NULL, "print the environment as a JSON object", NULL },
		{ OPT_INT, 0, "cpu", &cpu, "N", "describe CPU N, the one measurements will be pinned to", "no one CPU" },
		{ OPT_STRING, 0, "cc", &cc, "COMPILER", "compiler whose version to record", PQPROF_DEFAULT_SCHEME_CC },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err;
	pq_error_clear(&err);
	int status;
	if (cmd_parse("env", argc, argv, usage_line, specs, NULL, 0, &status) < 0) {
		if (status)
			options_usage(stderr, usage_line, specs);
		return status;
	}
	if (cpu < -1) {
		pq_fail(&err, PQ_EUSAGE, "--cpu %ld is not a CPU number", cpu);
		return cmd_fail("env", &err);
	}

	env_info env;
	if (env_capture(&env, (int)cpu, cc, &err) < 0)
		return cmd_fail("env", &err);
	/* Which counter a bench run here would use, and why not a better one. */
	counter_set cs;
	int have_cs = counter_set_open(NULL, NULL, &cs, &err) == 0;
	env_mark_end(&env);

	char warnings[ENV_MAX_WARNINGS][ENV_WARNING_LEN];
	int nw = env_warnings(&env, warnings, ENV_MAX_WARNINGS);
	int rc = 0;
	if (json) {
		rc = print_json(&env, &cs, have_cs, warnings, nw);
	} else {
		print_table(&env, &cs, have_cs);
		for (int i = 0; have_cs && i < counter_set_reason_count(&cs); i++)
			printf("note: %s\n", counter_set_reason(&cs, i));
		for (int i = 0; i < nw; i++)
			printf("warning: %s\n", warnings[i]);
	}
	if (have_cs)
		counter_set_close(&cs);
	return rc;
}
