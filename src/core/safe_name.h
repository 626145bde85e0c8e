/*
 * safe_name: a file-name component made from free text (an instance name,
 * a profile, a host name), which may come from a hand-edited descriptor or
 * from scheme code.  Letters, digits and "-_.+" are kept, every other byte
 * becomes '_', a leading '.' becomes '_' and empty text becomes "unnamed",
 * so the result is never "", ".", ".." nor a hidden file, and never holds
 * a '/'.
 */
#ifndef PQ_SAFE_NAME_H
#define PQ_SAFE_NAME_H

#include <stddef.h>

/* Writes at most len - 1 bytes and a NUL (len >= 2); NULL text is empty;
 * buf may be text itself. */
void safe_name(char *buf, size_t len, const char *text);

#endif
