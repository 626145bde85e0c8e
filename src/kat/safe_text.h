/*
 * safe_text: text building that is async-signal-safe (no stdio, no
 * allocation), for the outcome the KAT engine writes from its SIGSEGV
 * handler.  Newlines in appended text become spaces, so one append never
 * breaks a line-oriented format; text past the capacity is dropped.
 */
#ifndef PQ_KAT_SAFE_TEXT_H
#define PQ_KAT_SAFE_TEXT_H

#include <stddef.h>

struct sbuf {
	char *b;
	size_t n, cap;   /* b holds n bytes and a NUL; cap is b's size */
};

void sb_str(struct sbuf *s, const char *t);
void sb_num(struct sbuf *s, unsigned long long v);

#endif
