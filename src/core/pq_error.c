/* pq_error: error values with messages; see pq_error.h. */
#include "config.h"
#include "core/pq_error.h"
#include "core/fixed_str.h"
#include "core/text_buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int vfail(pq_error *err, int code, int with_errno, const char *fmt, va_list ap)
{
	int saved = errno;
	if (code < 0)
		code = -code;
	if (err) {
		err->code = code;
		/* The message is fixed: one too long for it ends in "…", never cut unseen. */
		int cut = vsnprintf(err->msg, sizeof err->msg, fmt, ap) >= (int)sizeof err->msg;
		if (with_errno && !cut)
			cut = text_appendf(err->msg, sizeof err->msg, ": %s", strerror(saved)) < 0;
		if (cut)
			text_mark_cut(err->msg, sizeof err->msg);
	}
	errno = saved;
	return -code;
}

int pq_fail(pq_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(err, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int pq_fail_errno(pq_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfail(err, code, 1, fmt, ap);
	va_end(ap);
	return r;
}

void pq_error_prefix(pq_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	char head[512], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	/* a message too long for msg is cut short: it is read, not parsed */
	size_t h = strlen(head);
	str_copy(err->msg, sizeof err->msg, head);
	if (h + 1 < sizeof err->msg)
		str_copy(err->msg + h, sizeof err->msg - h, old);
}

void pq_error_clear(pq_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

int pq_exit_code(int code)
{
	if (code < 0)
		code = -code;
	/* Exit statuses are the codes themselves; 0 stays success. */
	return code > 0 && code < 64 ? code : PQ_EINTERNAL;
}
