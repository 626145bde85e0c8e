/*
 * text_buf: a text built piece by piece with printf formats (generated
 * scripts, index pages, fingerprints), growing as needed.  An allocation
 * failure is remembered (oom) and later appends are dropped, so callers
 * check once at the end instead of after every piece.
 */
#ifndef PQ_TEXT_BUF_H
#define PQ_TEXT_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct text_buf {
	char *s;    /* NUL-terminated once anything was appended; NULL before */
	size_t n;   /* length, without the NUL */
	size_t cap;
	int oom;    /* an append failed for lack of memory */
};

__attribute__((format(printf, 2, 3))) void text_printf(struct text_buf *t, const char *fmt, ...);
__attribute__((format(printf, 2, 0))) void text_vprintf(struct text_buf *t, const char *fmt, va_list ap);

void text_free(struct text_buf *t);

/*
 * The same for text kept in a fixed buffer buf[len] (a record's field, a
 * message): append to what it holds, cut short when it is full.  Returns
 * 0 when the whole text went in, -1 when it was cut or dropped, so that a
 * caller can make the cut visible (text_mark_cut) or report it.
 */
__attribute__((format(printf, 3, 4))) int text_appendf(char *buf, size_t len, const char *fmt, ...);
/* Add a note: "; " before it unless buf is empty; dropped when not even a few bytes are left. */
__attribute__((format(printf, 3, 4))) void text_add_note(char *buf, size_t len, const char *fmt, ...);
/* End buf[len] with "…", over its last characters when full, at a UTF-8 character boundary: the reader sees the text was cut. */
void text_mark_cut(char *buf, size_t len);
/*
 * Append item to a list in buf[len], after sep unless the list is empty,
 * only whole and only while room for the marker `more` stays behind it;
 * an item that does not fit ends the list with `more` instead (once), and
 * later items are dropped (more "": the list just stops).  Returns 0 when
 * item went in, -1 when not.
 */
int text_add_item(char *buf, size_t len, const char *sep, const char *item, const char *more);

/* Library code prints nothing: a progress line, formatted, goes to the caller's callback (none: dropped). */
typedef void (*progress_fn)(void *user, const char *line);
__attribute__((format(printf, 3, 4))) void progress_printf(progress_fn fn, void *user, const char *fmt, ...);

#endif
