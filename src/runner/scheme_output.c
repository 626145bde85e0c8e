/* scheme_output: the scheme's stdout/stderr through runner-owned pipes; see scheme_output.h. */
#include "config.h"
#include "runner/scheme_output.h"
#include "runner/runner.h"
#include "core/ops.h"
#include "core/sigsafe.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)   /* asked for; the kernel may give less */
#define WATCH_MS 20

struct stream {
	int read_fd;         /* our end of the pipe under fd 1 or 2 */
	int orig_fd;         /* where the runner's fd 1 or 2 went before (the parent's capture) */
	int cap;             /* pipe capacity */
	size_t bytes[PQ_OP_COUNT + 1];   /* [PQ_OP_COUNT]: outside any operation */
};

static struct stream streams[2] = { { -1, -1, 0, { 0 } }, { -1, -1, 0, { 0 } } };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int active;

/* Move what is in one pipe to its original fd; the number of bytes moved. */
static size_t drain_one(struct stream *s)
{
	char buf[16384];
	size_t total = 0;
	ssize_t n;
	while ((n = read(s->read_fd, buf, sizeof buf)) > 0) {
		write_all(s->orig_fd, buf, (size_t)n);
		total += (size_t)n;
	}
	return total;
}

static void drain(int op, size_t *out_bytes, size_t *err_bytes)
{
	int slot = op >= 0 && op < PQ_OP_COUNT ? op : PQ_OP_COUNT;
	pthread_mutex_lock(&lock);
	size_t o = drain_one(&streams[0]), e = drain_one(&streams[1]);
	streams[0].bytes[slot] += o;
	streams[1].bytes[slot] += e;
	pthread_mutex_unlock(&lock);
	if (out_bytes)
		*out_bytes += o;
	if (err_bytes)
		*err_bytes += e;
}

static int half_full(const struct stream *s)
{
	int n = 0;
	return ioctl(s->read_fd, FIONREAD, &n) == 0 && n > s->cap / 2;
}

/* Between calls, or when a single call fills a pipe: never blocks the scheme for long. */
static void *watch(void *arg)
{
	(void)arg;
	struct timespec ts = { 0, WATCH_MS * 1000000L };
	for (;;) {
		nanosleep(&ts, NULL);
		int op = runner_current_op();
		if (op < 0 || half_full(&streams[0]) || half_full(&streams[1]))
			drain(op >= 0 ? op : runner_last_op(), NULL, NULL);
	}
	return NULL;
}

static void at_exit_drain(void)
{
	if (!active)
		return;
	fflush(stdout);
	fflush(stderr);
	scheme_output_flush_raw();
}

int scheme_output_open(void)
{
	for (int i = 0; i < 2; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
		int cap = fcntl(p[1], F_GETPIPE_SZ);
		int orig = fcntl(i + 1, F_DUPFD_CLOEXEC, 920);
		if (orig < 0 || dup2(p[1], i + 1) < 0) {
			close(p[0]);
			close(p[1]);
			if (orig >= 0)
				close(orig);
			return -1;
		}
		close(p[1]);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		streams[i].read_fd = p[0];
		streams[i].orig_fd = orig;
		streams[i].cap = cap > 0 ? cap : 65536;
	}
	active = 1;
	atexit(at_exit_drain);
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	int r = pthread_create(&t, &a, watch, NULL);
	pthread_attr_destroy(&a);
	return r == 0 ? 0 : -1;
}

void scheme_output_settle(int op, size_t *out_bytes, size_t *err_bytes)
{
	if (!active)
		return;
	fflush(stdout);
	fflush(stderr);
	drain(op, out_bytes, err_bytes);
}

json_t *scheme_output_json(void)
{
	if (!active)
		return NULL;
	json_t *j = json_object();
	int any = 0;
	static const char *const names[2] = { "stdout", "stderr" };
	pthread_mutex_lock(&lock);
	for (int i = 0; i < 2; i++) {
		json_t *s = json_object();
		for (int k = 0; k <= PQ_OP_COUNT; k++)
			if (streams[i].bytes[k]) {
				json_object_set_new(s, k < PQ_OP_COUNT ? pq_op_name(k) : "outside operations",
				                    json_integer((json_int_t)streams[i].bytes[k]));
				any = 1;
			}
		json_object_set_new(j, names[i], s);
	}
	pthread_mutex_unlock(&lock);
	if (!any) {
		json_decref(j);
		return NULL;
	}
	return j;
}

void scheme_output_flush_raw(void)
{
	if (!active)
		return;
	for (int i = 0; i < 2; i++)
		drain_one(&streams[i]);
}
