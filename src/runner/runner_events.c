/*
 * runner_events: the runner's side of the result channel (runner.h): one
 * JSON object per line to the parent, and which operation is in progress,
 * so that a crash or exit() can be attributed to it.  Without a channel
 * (run by hand) events go to stderr.
 */
#include "config.h"
#include "runner/runner.h"
#include "core/sigsafe.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static int result_fd = -1;
static char nonce[RUNNER_NONCE_LEN + 2];  /* the key and a blank, "" without a parent */
static size_t nonce_len;
static dev_t channel_dev;
static ino_t channel_ino;
static volatile sig_atomic_t current_op = -1;
static volatile sig_atomic_t last_op = -1;   /* the operation begun last, for output between calls */
static volatile sig_atomic_t done_sent;

void runner_emit(json_t *event)
{
	if (!event)
		return;
	const char *ev = json_string_value(json_object_get(event, "ev"));
	if (ev && strcmp(ev, "done") == 0)
		done_sent = 1;
	char *text = json_dumps(event, JSON_COMPACT);
	json_decref(event);
	if (!text)
		return;
	/* One writev per line: key, event and newline together (no allocation of pqprof's own). */
	struct iovec iov[3] = { { nonce, nonce_len }, { text, strlen(text) }, { (void *)"\n", 1 } };
	int fd = result_fd >= 0 ? result_fd : 2, k = 0;
	while (k < 3) {
		ssize_t w = writev(fd, iov + k, 3 - k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		for (; k < 3 && (size_t)w >= iov[k].iov_len; k++)
			w -= (ssize_t)iov[k].iov_len;
		if (k < 3) {
			iov[k].iov_base = (char *)iov[k].iov_base + w;
			iov[k].iov_len -= (size_t)w;
		}
	}
	free(text);
}

void runner_emit_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	runner_emit(json_pack("{s:s, s:s}", "ev", "error", "msg", msg));
}

void runner_emit_pq_error(const char *what, const pq_error *err)
{
	char msg[1200];
	snprintf(msg, sizeof msg, "%s: %s", what, err->msg);
	runner_emit(json_pack("{s:s, s:s, s:i}", "ev", "error", "msg", msg, "code", err->code));
}

void runner_op_begin(enum pq_op op, int announce)
{
	if (announce)
		runner_emit(json_pack("{s:s, s:s}", "ev", "begin", "op", pq_op_name(op)));
	current_op = op;
	last_op = op;
}

void runner_op_end(enum pq_op op, int announce)
{
	current_op = -1;
	if (announce)
		runner_emit(json_pack("{s:s, s:s}", "ev", "end", "op", pq_op_name(op)));
}

void runner_mark_call(enum pq_op op, int begin)
{
	current_op = begin ? (int)op : -1;
	if (begin)
		last_op = op;
}

int runner_last_op(void)
{
	return last_op;
}

int runner_result_fd(void)
{
	return result_fd;
}

int runner_current_op(void)
{
	return current_op;
}

void runner_events_open(int fd, const char *key)
{
	result_fd = fd;
	struct stat sb;
	if (fd >= 0 && fstat(fd, &sb) == 0) {
		channel_dev = sb.st_dev;
		channel_ino = sb.st_ino;
	}
	nonce_len = 0;
	if (key && strlen(key) == RUNNER_NONCE_LEN) {
		memcpy(nonce, key, RUNNER_NONCE_LEN);
		nonce[RUNNER_NONCE_LEN] = ' ';
		nonce_len = RUNNER_NONCE_LEN + 1;
	}
}

int runner_channel_intact(void)
{
	struct stat sb;
	if (result_fd < 0)
		return 1;
	return fstat(result_fd, &sb) == 0 && sb.st_dev == channel_dev && sb.st_ino == channel_ino;
}

int runner_done_sent(void)
{
	return done_sent;
}

void runner_emit_raw(const char *buf, size_t len)
{
	if (result_fd < 0)
		return;
	/* Async-signal-safe: the key and the line in one write where they fit a stack buffer. */
	char line[1024];
	if (nonce_len + len <= sizeof line) {
		memcpy(line, nonce, nonce_len);
		memcpy(line + nonce_len, buf, len);
		write_all(result_fd, line, nonce_len + len);
		return;
	}
	write_all(result_fd, nonce, nonce_len);
	write_all(result_fd, buf, len);
}
