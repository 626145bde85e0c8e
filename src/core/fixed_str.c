/* fixed_str: checked paths and explicit truncation; see fixed_str.h. */
#include "config.h"
#include "core/fixed_str.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int path_fmt(char *buf, size_t len, pq_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = len ? vsnprintf(buf, len, fmt, ap) : -1;
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		return 0;
	int r;
	if (n < 0)
		r = pq_fail(err, PQ_EINPUT, "%s: cannot format path", fmt);
	else
		r = pq_fail(err, PQ_EINPUT, "%.200s...: path too long (%d bytes, at most %zu)", buf, n,
		            len ? len - 1 : 0);
	if (len)
		buf[0] = '\0';
	return r;
}

int str_copy(char *dst, size_t cap, const char *src)
{
	if (cap == 0)
		return 1;
	size_t n = src ? strlen(src) : 0;
	int cut = n >= cap;
	if (cut)
		n = cap - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
	return cut;
}
