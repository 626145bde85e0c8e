/* text_buf: printf-appended growing text; see text_buf.h. */
#include "config.h"
#include "core/text_buf.h"
#include "core/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void text_printf(struct text_buf *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (need < 0 || t->oom)
		return;
	if (pq_grow(&t->s, &t->cap, t->n + (size_t)need + 1, 1, 256) < 0) {
		t->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
	va_end(ap);
	t->n += (size_t)need;
}

void text_free(struct text_buf *t)
{
	free(t->s);
	*t = (struct text_buf){ 0 };
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
