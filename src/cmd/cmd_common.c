/* cmd_common: helpers shared by commands; see cmd_common.h. */
#include "config.h"
#include "core/safe_name.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/safe_name.h"
#include "core/options.h"
#include "core/options_help.h"
#include "cmd/commands.h"
#include "record/records.h"
#include "core/reader_view.h"
#include "profile/analysis.h"
#include "instance/observe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cmd_join_argv(const char *prog, int argc, char **argv)
{
	size_t cap = strlen(prog) + 1;
	for (int i = 0; i < argc; i++)
		cap += strlen(argv[i]) * 4 + 3;
	char *s = malloc(cap + 1), *p = s;
	p += sprintf(p, "%s", prog);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int plain = *a != '\0';
		for (const char *c = a; *c; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *c))
				plain = 0;
		*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		*p++ = '\'';
		for (const char *c = a; *c; c++) {
			if (*c == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *c;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

int cmd_record_path(char *buf, size_t len, const char *dir, const char *instance, const char *op,
                    const char *ext, pq_error *err)
{
	char safe[256];
	safe_name(safe, sizeof safe, instance);
	return record_path(buf, len, dir, NULL, safe, op, ext, err);
}

int cmd_fail(const char *cmd, const struct pq_error *err)
{
	fprintf(stderr, "pqprof %s: %s\n", cmd, err->msg[0] ? err->msg : "failed");
	return pq_exit_code(err->code ? err->code : PQ_EINTERNAL);
}
/* Set by cmd_describe for the length of one call: -h hands the table here instead of printing it. */
static cmd_describe_fn describing;
static void *describing_ctx;

int cmd_describe(const struct command *c, cmd_describe_fn fn, void *ctx)
{
	char name[64], help[] = "--help";
	snprintf(name, sizeof name, "%s", c->name);
	char *argv[] = { name, help, NULL };
	describing = fn;
	describing_ctx = ctx;
	int r = c->fn(2, argv);
	describing = NULL;
	describing_ctx = NULL;
	return r;
}

int cmd_parse(const char *cmd, int argc, char **argv, const char *usage, const struct option_spec *specs,
              const char **pos, int max_pos, int *status)
{
	pq_error err = { 0 };
	int help = 0;
	struct opt_deprecations old = { 0 };
	int np = options_parse_noting(argc, argv, specs, pos, max_pos, &help, &old, &err);
	if (help) {
		if (describing)
			describing(describing_ctx, cmd, usage, specs);
		else
			options_usage(stdout, usage, specs);
		*status = 0;
		return -1;
	}
	for (int i = 0; i < old.n; i++) {
		char use[160];
		options_replacement(use, sizeof use, specs, old.used[i]);
		fprintf(stderr, "pqprof %s: --%s is deprecated; %s\n", cmd, old.used[i]->long_name, use);
	}
	if (np < 0) {
		*status = cmd_fail(cmd, &err);
		return -1;
	}
	return np;
}

int cmd_check_make_vars(const char *cmd, const char *const *vars, int n)
{
	for (int i = 0; i < n; i++) {
		const char *v = vars[i], *eq = strchr(v, '=');
		int ok = eq && eq > v && eq[1] && eq[1] != ',' && (isalpha((unsigned char)v[0]) || v[0] == '_');
		for (const char *p = v; ok && p < eq; p++)
			ok = isalnum((unsigned char)*p) || *p == '_';
		if (!ok) {
			fprintf(stderr, "pqprof %s: --make-var '%s': expected NAME=VALUE[,VALUE...] with NAME a make variable\n",
			        cmd, v);
			return PQ_EUSAGE;
		}
		int nval = 0;
		size_t longest = (size_t)(eq - v);
		for (const char *w = eq + 1; *w;) {
			size_t k = strcspn(w, ",");
			nval += k > 0;
			longest = k > longest ? k : longest;
			w += k + (w[k] == ',');
		}
		if (nval > OBS_MAX_MAKE_VALUES || longest >= OBS_MAKE_WORD) {
			fprintf(stderr, "pqprof %s: --make-var '%.*s': at most %d values, each name and value under %d bytes\n",
			        cmd, (int)(eq - v), v, OBS_MAX_MAKE_VALUES, OBS_MAKE_WORD);
			return PQ_EUSAGE;
		}
	}
	if (n > OBS_MAX_MAKE_VARS) {
		fprintf(stderr, "pqprof %s: --make-var given %d times: the build tries at most %d variables\n", cmd, n,
		        OBS_MAX_MAKE_VARS);
		return PQ_EUSAGE;
	}
	return 0;
}

int cmd_reader_view(const char *cmd, const char *const *traces, int ntraces, const char *const *outputs,
                    int noutputs, int *status)
{
	struct reader_view *v = calloc(1, sizeof *v);
	if (!v)
		return 0;
	for (int i = 0; i < ntraces; i++)
		analysis_view_add(v, traces[i]);
	for (int i = 0; i < noutputs; i++)
		if (outputs[i])
			reader_view_add_dir_of(v, outputs[i], 1);
	char note[256];
	int r = reader_view_split(v, status, note, sizeof note);
	free(v);
	if (note[0])
		fprintf(stderr, "pqprof %s: note: %s\n", cmd, note);
	return r == 1;
}
