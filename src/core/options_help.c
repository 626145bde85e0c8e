/* options_help: -h text, usage lines and man page entries from option tables; see options_help.h. */
#include "config.h"
#include "core/options_help.h"
#include "core/text_buf.h"

#include <stdlib.h>
#include <string.h>

#define SYNOPSIS_WIDTH 100
#define ENTRY_COLUMN 28

static int has_scopes(const struct option_spec *s)
{
	return s->type == OPT_SCOPED && ((const struct opt_scope *)s->value)[1].name;
}

static int takes_value(const struct option_spec *s)
{
	return s->type != OPT_FLAG && s->type != OPT_END && s->type != OPT_DEPRECATED;
}

int options_default(const struct option_spec *s, int sc, char *buf, size_t len)
{
	const char *words = s->deflt;
	const void *value = s->value;
	enum opt_type type = s->type;
	if (s->type == OPT_SCOPED) {
		const struct opt_scope *scope = (const struct opt_scope *)s->value + (sc < 0 ? 0 : sc);
		words = sc > 0 ? scope->deflt : s->deflt;
		value = scope->value;
		type = OPT_DOUBLE;
	}
	buf[0] = '\0';
	if (words)
		snprintf(buf, len, "%s", words);
	else if (type == OPT_STRING && *(const char *const *)value)
		snprintf(buf, len, "%s", **(const char *const *)value ? *(const char *const *)value : "\"\"");
	else if (type == OPT_INT && *(const long *)value)
		snprintf(buf, len, "%ld", *(const long *)value);
	else if (type == OPT_DOUBLE && *(const double *)value)
		snprintf(buf, len, "%g", *(const double *)value);
	else if (type == OPT_U64 && *(const uint64_t *)value)
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)value);
	return buf[0] != '\0';
}

/* "-o, --out DIR", "--timeout [SCOPE=]S" */
static void entry_name(char *buf, size_t len, const struct option_spec *s)
{
	/* pqprof's own option names: a name too long for the help column ends in "…". */
	int cut = 0;
	buf[0] = '\0';
	if (s->short_name)
		cut |= text_appendf(buf, len, "-%c%s", s->short_name, s->long_name ? ", " : "");
	if (s->long_name)
		cut |= text_appendf(buf, len, "--%s", s->long_name);
	if (takes_value(s) && s->arg_name)
		cut |= text_appendf(buf, len, " %s%s", has_scopes(s) ? "[SCOPE=]" : "", s->arg_name);
	if (cut)
		text_mark_cut(buf, len);
}

/* "[-o DIR]", "[--sibling LIB]...", "[--timeout [SCOPE=]S]": the short name where there is one */
static void synopsis_word(char *buf, size_t len, const struct option_spec *s)
{
	char name[128];
	if (s->short_name)
		snprintf(name, sizeof name, "-%c", s->short_name);
	else
		snprintf(name, sizeof name, "--%s", s->long_name);
	if (takes_value(s) && s->arg_name)
		snprintf(buf, len, "[%s %s%s]%s", name, has_scopes(s) ? "[SCOPE=]" : "", s->arg_name,
		         s->type == OPT_LIST ? "..." : "");
	else
		snprintf(buf, len, "[%s]", name);
}

static void entry_help(struct text_buf *t, const char *help, const struct option_spec *s, int sc)
{
	char d[256];
	text_printf(t, "%s", help ? help : "");
	if (options_default(s, sc, d, sizeof d))
		text_printf(t, "%s(default: %s)", help && *help ? " " : "", d);
}

/* Whether the usage line's head already shows s (a required option: "-o TRACE"). */
static int in_head(const char *usage, int head, const struct option_spec *s)
{
	char w[128];
	if (s->short_name)
		snprintf(w, sizeof w, " -%c ", s->short_name);
	else
		snprintf(w, sizeof w, " --%s ", s->long_name);
	size_t wl = strlen(w);
	for (const char *p = usage; p + wl - 1 <= usage + head; p++)
		if (strncmp(p, w, wl - 1) == 0 && (p + wl - 1 == usage + head || p[wl - 1] == ' '))
			return 1;
	return 0;
}

/* The usage line with every option not in its head, wrapped; the description lines after it. */
static void synopsis(struct text_buf *t, const char *prefix, const char *usage, const struct option_spec *specs)
{
	const char *nl = strchr(usage, '\n');
	int head = nl ? (int)(nl - usage) : (int)strlen(usage);
	const char *sp = strchr(usage, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;   /* after "pqprof CMD" */
	int indent = (int)strlen(prefix) + (sp && sp - usage < head ? (int)(sp - usage) + 1 : 4);
	text_printf(t, "%s%.*s", prefix, head, usage);
	int col = (int)strlen(prefix) + head;
	for (const struct option_spec *s = specs; s->type != OPT_END; s++) {
		if (s->type == OPT_DEPRECATED || in_head(usage, head, s))
			continue;
		char w[256];
		synopsis_word(w, sizeof w, s);
		int wl = (int)strlen(w);
		if (col + 1 + wl > SYNOPSIS_WIDTH) {
			text_printf(t, "\n%*s%s", indent, "", w);
			col = indent + wl;
		} else {
			text_printf(t, " %s", w);
			col += 1 + wl;
		}
	}
	text_printf(t, "\n");
	if (nl)
		text_printf(t, "%s\n", nl + 1);
}

void options_replacement(char *buf, size_t len, const struct option_spec *specs, const struct option_spec *alias)
{
	const struct option_spec *t = options_alias_target(specs, alias);
	const char *arg = t && takes_value(t) && t->arg_name ? t->arg_name : NULL;
	snprintf(buf, len, "use --%s%s%s%s%s", opt_alias_of(alias)->of, arg ? " " : "", opt_alias_of(alias)->scope ? opt_alias_of(alias)->scope : "",
	         opt_alias_of(alias)->scope ? "=" : "", arg ? arg : "");
}

/* "--records (use --records-dir DIR)", comma-separated; empty when the table has no old spellings. */
static void deprecated_list(struct text_buf *t, const struct option_spec *specs)
{
	int n = 0;
	for (const struct option_spec *s = specs; s->type != OPT_END; s++) {
		if (s->type != OPT_DEPRECATED)
			continue;
		char r[160];
		options_replacement(r, sizeof r, specs, s);
		text_printf(t, "%s--%s (%s)", n++ ? ", " : "", s->long_name, r);
	}
}

static void entry_text(struct text_buf *t, const struct option_spec *s)
{
	char name[160];
	entry_name(name, sizeof name, s);
	text_printf(t, "  %-*s ", ENTRY_COLUMN, name);
	entry_help(t, s->help, s, -1);
	text_printf(t, "\n");
	if (s->type != OPT_SCOPED)
		return;
	const struct opt_scope *sc = s->value;
	for (int i = 1; sc[i].name; i++) {
		char w[160];
		snprintf(w, sizeof w, "%s=%s", sc[i].name, s->arg_name ? s->arg_name : "S");
		text_printf(t, "  %-*s ", ENTRY_COLUMN, "");
		text_printf(t, "%s: ", w);
		entry_help(t, sc[i].help, s, i);
		text_printf(t, "\n");
	}
}

static void flush(FILE *out, struct text_buf *t)
{
	if (t->s)
		fputs(t->s, out);
	text_free(t);
}

void options_entry(FILE *out, const struct option_spec *s)
{
	struct text_buf t = { 0 };
	entry_text(&t, s);
	flush(out, &t);
}

void options_usage(FILE *out, const char *usage, const struct option_spec *specs)
{
	struct text_buf t = { 0 };
	synopsis(&t, "usage: ", usage, specs);
	text_printf(&t, "\n");
	for (const struct option_spec *s = specs; s->type != OPT_END; s++)
		if (s->type != OPT_DEPRECATED)
			entry_text(&t, s);
	struct text_buf d = { 0 };
	deprecated_list(&d, specs);
	if (d.s)
		text_printf(&t, "\nold spellings, accepted for one more release: %s\n", d.s);
	text_free(&d);
	flush(out, &t);
}

/* Plain text as roff: \ and - escaped, a line never starting with . or '. */
static void roff(FILE *out, const char *s)
{
	int bol = 1;
	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

static void man_entry(FILE *out, const struct option_spec *s)
{
	char name[160];
	struct text_buf t = { 0 };
	entry_name(name, sizeof name, s);
	fputs(".TP\n.B ", out);
	roff(out, name);
	fputc('\n', out);
	entry_help(&t, s->help, s, -1);
	roff(out, t.s ? t.s : "");
	fputc('\n', out);
	text_free(&t);
	if (s->type != OPT_SCOPED)
		return;
	const struct opt_scope *sc = s->value;
	for (int i = 1; sc[i].name; i++) {
		fprintf(out, ".br\n");
		text_printf(&t, "%s=%s: ", sc[i].name, s->arg_name ? s->arg_name : "S");
		entry_help(&t, sc[i].help, s, i);
		roff(out, t.s);
		fputc('\n', out);
		text_free(&t);
	}
}

void options_man(FILE *out, const char *cmd, const char *usage, const struct option_spec *specs)
{
	struct text_buf t = { 0 };
	synopsis(&t, "", usage, specs);
	fprintf(out, ".SS %s\n.nf\n", cmd);
	roff(out, t.s ? t.s : "");
	fputs(".fi\n", out);
	text_free(&t);
	for (const struct option_spec *s = specs; s->type != OPT_END; s++)
		if (s->type != OPT_DEPRECATED)
			man_entry(out, s);
	deprecated_list(&t, specs);
	if (t.s) {
		fputs(".TP\n.B old spellings\naccepted for one more release: ", out);
		roff(out, t.s);
		fputc('\n', out);
	}
	text_free(&t);
}
