/* cmd_common: helpers shared by commands; see cmd_common.h. */
#include "config.h"
#include "core/safe_name.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/safe_name.h"
#include "core/options.h"
#include "record/records.h"

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
int cmd_parse(const char *cmd, int argc, char **argv, const char *usage, const struct option_spec *specs,
              const char **pos, int max_pos, int *status)
{
	pq_error err = { 0 };
	int help = 0;
	int np = options_parse(argc, argv, specs, pos, max_pos, &help, &err);
	if (help) {
		options_usage(stdout, usage, specs);
		*status = 0;
		return -1;
	}
	if (np < 0) {
		*status = cmd_fail(cmd, &err);
		return -1;
	}
	return np;
}
