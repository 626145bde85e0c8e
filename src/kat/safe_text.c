/* safe_text: async-signal-safe text building; see safe_text.h. */
#include "config.h"
#include "kat/safe_text.h"
#include "core/sigsafe.h"

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
	char out[24];
	*u64_dec(out, v) = '\0';
	sb_str(s, out);
}
