/* cmd_common: helpers shared by commands; see cmd_common.h. */
#include "config.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/label.h"
#include "core/options.h"
#include "cmd/commands.h"

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

void cmd_safe_name(char *buf, size_t len, const char *name)
{
	label_make(buf, len, name);
}

void cmd_record_path(char *buf, size_t len, const char *dir, const char *instance, const char *op,
                     const char *ext)
{
	char safe[256];
	cmd_safe_name(safe, sizeof safe, instance);
	snprintf(buf, len, "%s/%s__%s%s", dir, safe, op, ext);
}

int cmd_write_json(const char *path, json_t *obj, pq_error *err)
{
	char *text = json_dumps(obj, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (!text)
		return pq_fail(err, PQ_ENOMEM, "%s: cannot serialise record", path);
	size_t n = strlen(text);
	text[n] = '\n';
	int r = atomic_write(path, text, n + 1, err);
	free(text);
	return r;
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
