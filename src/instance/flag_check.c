/* flag_check: compiler flags from descriptors that are refused; see flag_check.h. */
#include "config.h"
#include "instance/flag_check.h"
#include "instance/builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Flags refused whole, with or without "=VALUE" glued on. */
static const struct {
	const char *flag;
	int takes_next;      /* the value may come as the next word */
	const char *why;
} refused[] = {
	{ "-wrapper", 1, "runs a program around every compiler pass" },
	{ "-specs", 1, "spec files can run any command" },
	{ "--specs", 1, "spec files can run any command" },
	{ "-iplugindir", 1, "loads compiler plugins from a directory" },
	{ "--ld-path", 1, "runs another linker program" },
	{ "-fmodule-mapper", 0, "may start a program" },
	{ "-Xclang", 1, "passes raw options to clang's front end (plugins)" },
	{ "-fpass-plugin", 0, "loads a plugin into the compiler" },
	{ "--config", 1, "reads driver options from a file" },
	{ "--gcc-toolchain", 1, "changes where the driver finds its tools" },
	{ "--gcc-install-dir", 1, "changes where the driver finds its tools" },
	{ "-o", 1, "writes the output somewhere else" },
	{ "-MF", 1, "writes a dependency file" },
	{ "-aux-info", 1, "writes a file" },
	{ "-dumpdir", 1, "writes dump files elsewhere" },
	{ "-dumpbase", 1, "writes dump files elsewhere" },
	{ NULL, 0, NULL },
};

static const char *const known_linkers[] = { "bfd", "gold", "lld", "mold", NULL };

/* One part of -Wl,a,b / -Xlinker a (and the assembler and preprocessor forms). */
static const char *tool_part_refusal(const char *part)
{
	if (part[0] == '@')
		return "reads options from a file (unchecked)";
	if (starts(part, "-plugin") || starts(part, "--plugin"))
		return "loads a plugin into the linker";
	int dummy = 0;
	return flag_refusal(part, NULL, &dummy);
}

static const char *comma_parts_refusal(const char *list)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		static char why[160];
		const char *w = tool_part_refusal(p);
		if (w) {
			snprintf(why, sizeof why, "contains %.60s, which %s", p, w);
			return why;
		}
	}
	return NULL;
}

const char *flag_refusal(const char *word, const char *next, int *consumed)
{
	*consumed = 0;
	if (word[0] == '@')
		return "reads flags from a file that nobody checked";
	if (word[0] != '-')
		return NULL;
	if (starts(word, "-B"))
		return "changes where the driver finds cc1, as and ld (runs those programs)";
	if (starts(word, "-fplugin"))
		return "loads a plugin into the compiler";
	if (starts(word, "-ccc-"))
		return "changes how the clang driver finds and runs its tools";
	if (starts(word, "-fuse-ld=")) {
		for (int i = 0; known_linkers[i]; i++)
			if (strcmp(word + 9, known_linkers[i]) == 0)
				return NULL;
		return "runs a linker program given by path";
	}
	if (starts(word, "-MT") || starts(word, "-MQ") || starts(word, "-MD") || starts(word, "-MMD"))
		return NULL;
	for (int i = 0; refused[i].flag; i++) {
		size_t n = strlen(refused[i].flag);
		if (strncmp(word, refused[i].flag, n) != 0)
			continue;
		if (word[n] == '\0') {
			*consumed = refused[i].takes_next && next;
			return refused[i].why;
		}
		if (word[n] == '=' || (refused[i].flag[1] != '-' && n <= 3 && refused[i].takes_next))
			return refused[i].why; /* -specs=x, -ofile, -MFfile */
	}
	if (starts(word, "-Wl,") || starts(word, "-Wa,") || starts(word, "-Wp,"))
		return comma_parts_refusal(word + 4);
	if (strcmp(word, "-Xlinker") == 0 || strcmp(word, "-Xassembler") == 0 || strcmp(word, "-Xpreprocessor") == 0) {
		*consumed = next != NULL;
		return next ? tool_part_refusal(next) : NULL;
	}
	return NULL;
}

int flag_check_string(const char *flags, const char *origin, pq_error *err)
{
	char **w = NULL;
	int n = 0;
	if (split_words(flags, &w, &n, err) < 0)
		return -PQ_ENOMEM;
	int r = 0;
	for (int i = 0; i < n && r == 0; i++) {
		int consumed = 0;
		const char *why = flag_refusal(w[i], i + 1 < n ? w[i + 1] : NULL, &consumed);
		if (why)
			r = pq_fail(err, PQ_EINPUT,
			            "%s: compiler flag '%s%s%s' refused: it %s (pass --trust-flags to allow flags from this file)",
			            origin, w[i], consumed ? " " : "", consumed ? w[i + 1] : "", why);
		i += consumed;
	}
	free_words(w, n);
	return r;
}
