/* escape: untrusted text into HTML, Markdown, CSV and URLs; see escape.h. */
#include "config.h"
#include "report/escape.h"

#include <string.h>

void esc_md(FILE *out, const char *s, int in_table)
{
	for (const char *p = s ? s : ""; *p; p++) {
		char c = *p;
		if (c == '\n' || c == '\r' || c == '\t' || (unsigned char)c < 0x20) {
			fputc(' ', out);
			continue;
		}
		/* Backslash escapes are valid for any ASCII punctuation in CommonMark. */
		int esc = c == '\\' || c == '`' || c == '*' || c == '<' || c == '>' || c == '#' ||
		          (c == '|' && in_table) || (c == '_' && (p == s || p[1] == '\0' || p[-1] == ' ' || p[1] == ' ')) ||
		          (c == ']' && (p[1] == '(' || p[1] == '[' || p[1] == ':')) || (c == '!' && p[1] == '[');
		if (esc)
			fputc('\\', out);
		fputc(c, out);
	}
}

void esc_md_code(FILE *out, const char *s, int in_table)
{
	s = s ? s : "";
	/* The fence must be longer than any run of backticks inside. */
	size_t run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	size_t fence = longest + 1;
	int pad = s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`');
	for (size_t i = 0; i < fence; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r' || (unsigned char)*p < 0x20)
			fputc(' ', out);
		else if (*p == '|' && in_table)
			fputs("\\|", out);
		else
			fputc(*p, out);
	}
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i < fence; i++)
		fputc('`', out);
}

void esc_csv(FILE *out, const char *s)
{
	s = s ? s : "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

void esc_url(FILE *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		           strchr("-_.~/+", *p);
		if (keep && *p)
			fputc(*p, out);
		else
			fprintf(out, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
}
