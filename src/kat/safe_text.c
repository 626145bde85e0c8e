/* safe_text: async-signal-safe text building; see safe_text.h. */
#include "config.h"
#include "kat/safe_text.h"

void sb_str(struct sbuf *s, const char *t)
{
	while (t && *t && s->n + 1 < s->cap) {
		char c = *t++;
		s->b[s->n++] = (c == '\n' || c == '\r') ? ' ' : c;
	}
	s->b[s->n] = '\0';
}

void sb_num(struct sbuf *s, unsigned long long v)
{
	char d[24];
	int i = 0;
	do {
		d[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	char out[24];
	for (int k = 0; k < i; k++)
		out[k] = d[i - 1 - k];
	out[i] = '\0';
	sb_str(s, out);
}
