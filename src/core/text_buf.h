/*
 * text_buf: a text built piece by piece with printf formats (generated
 * scripts, index pages, fingerprints), growing as needed.  An allocation
 * failure is remembered (oom) and later appends are dropped, so callers
 * check once at the end instead of after every piece.
 */
#ifndef PQ_TEXT_BUF_H
#define PQ_TEXT_BUF_H

#include <stddef.h>

struct text_buf {
	char *s;    /* NUL-terminated once anything was appended; NULL before */
	size_t n;   /* length, without the NUL */
	size_t cap;
	int oom;    /* an append failed for lack of memory */
};

__attribute__((format(printf, 2, 3))) void text_printf(struct text_buf *t, const char *fmt, ...);

void text_free(struct text_buf *t);

/* Library code prints nothing: a progress line, formatted, goes to the caller's callback (none: dropped). */
typedef void (*progress_fn)(void *user, const char *line);
__attribute__((format(printf, 3, 4))) void progress_printf(progress_fn fn, void *user, const char *fmt, ...);

#endif
