/* text_buf: printf-appended growing text; see text_buf.h. */
#include "config.h"
#include "core/text_buf.h"
#include "core/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_vprintf(struct text_buf *t, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int need = vsnprintf(NULL, 0, fmt, ap);
	if (need >= 0 && !t->oom && pq_grow(&t->s, &t->cap, t->n + (size_t)need + 1, 1, 256) < 0)
		t->oom = 1;
	if (need >= 0 && !t->oom) {
		vsnprintf(t->s + t->n, t->cap - t->n, fmt, again);
		t->n += (size_t)need;
	}
	va_end(again);
}

void text_printf(struct text_buf *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(t, fmt, ap);
	va_end(ap);
}

void text_free(struct text_buf *t)
{
	free(t->s);
	*t = (struct text_buf){ 0 };
}

int text_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	if (used + 1 >= len)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int want = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	return want >= 0 && (size_t)want < len - used ? 0 : -1;
}

void text_add_note(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(buf + used, "; ", 3);
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void text_mark_cut(char *buf, size_t len)
{
	static const char ell[] = "…";
	if (len < sizeof ell)
		return;
	size_t end = strnlen(buf, len - 1);
	if (end > len - sizeof ell)
		end = len - sizeof ell;
	while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
		end--;  /* not inside a UTF-8 sequence */
	memcpy(buf + end, ell, sizeof ell);
}

int text_add_item(char *buf, size_t len, const char *sep, const char *item, const char *more)
{
	size_t used = strnlen(buf, len), nmore = strlen(more);
	if (used >= len || (nmore && used >= nmore && strcmp(buf + used - nmore, more) == 0))
		return -1;  /* full, or the list already ends in `more` */
	size_t nsep = used ? strlen(sep) : 0, nitem = strlen(item);
	if (used + nsep + nitem + nmore < len) {
		memcpy(buf + used, sep, nsep);
		memcpy(buf + used + nsep, item, nitem + 1);
		return 0;
	}
	if (used + nmore < len)
		memcpy(buf + used, more, nmore + 1);
	return -1;
}

void progress_printf(progress_fn fn, void *user, const char *fmt, ...)
{
	if (!fn)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fn(user, line);
}
