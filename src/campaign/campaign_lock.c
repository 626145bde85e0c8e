/* campaign_lock: one run per campaign directory; see campaign_lock.h. */
#include "config.h"
#include "campaign/campaign_lock.h"
#include "core/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

struct holder {
	long pid;
	char host[256], start[64], command[1024];
};

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

/* Parse "key=value" lines; returns 1 when the file names a holder. */
static int read_holder(int fd, struct holder *h)
{
	memset(h, 0, sizeof *h);
	char buf[2048];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const char *v = eq + 1;
		if (strcmp(line, "pid") == 0)
			h->pid = strtol(v, NULL, 10);
		else if (strcmp(line, "host") == 0)
			snprintf(h->host, sizeof h->host, "%s", v);
		else if (strcmp(line, "start_utc") == 0)
			snprintf(h->start, sizeof h->start, "%s", v);
		else if (strcmp(line, "command") == 0)
			snprintf(h->command, sizeof h->command, "%s", v);
	}
	return h->pid > 0;
}

static void describe(const struct holder *h, char *buf, size_t len)
{
	snprintf(buf, len, "pid %ld on host %s, started %s%s%s", h->pid, h->host[0] ? h->host : "?",
	         h->start[0] ? h->start : "?", h->command[0] ? ": " : "", h->command);
}

static int write_holder(struct campaign_lock *lk, const char *command, pq_error *err)
{
	char host[256], now[64], text[2048];
	host_name(host, sizeof host);
	time_t t = time(NULL);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	/* One line per key: a newline inside the command would start a new key. */
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "%s", command ? command : "pqprof run");
	for (char *c = cmd; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	int n = snprintf(text, sizeof text, "pid=%ld\nhost=%s\nstart_utc=%s\ncommand=%s\n", (long)getpid(), host, now,
	                 cmd);
	if (n < 0 || (size_t)n >= sizeof text)
		n = (int)strlen(text);
	if (ftruncate(lk->fd, 0) != 0 || pwrite(lk->fd, text, (size_t)n, 0) != n || fsync(lk->fd) != 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot write the campaign lock", lk->path);
	return 0;
}

int campaign_lock_take(const char *dir, const char *command, struct campaign_lock *lk, char *note,
                       size_t notelen, pq_error *err)
{
	if (note && notelen)
		note[0] = '\0';
	lk->fd = -1;
	if ((size_t)snprintf(lk->path, sizeof lk->path, "%s/campaign.lock", dir) >= sizeof lk->path)
		return pq_fail(err, PQ_EINPUT, "%s: path too long", dir);
	int fd = open(lk->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot open the campaign lock", lk->path);
	struct holder h;
	char who[1400];
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		int named = read_holder(fd, &h);
		close(fd);
		if (e != EWOULDBLOCK)
			return pq_fail(err, PQ_EIO, "%s: cannot lock: %s", lk->path, strerror(e));
		if (!named)
			return pq_fail(err, PQ_EBUSY, "%s is in use by another pqprof run (lock %s held; holder not named yet)",
			               dir, lk->path);
		describe(&h, who, sizeof who);
		return pq_fail(err, PQ_EBUSY, "%s is in use by another pqprof run (%s); wait for it to end or stop it",
		               dir, who);
	}
	if (read_holder(fd, &h)) {
		char host[256];
		host_name(host, sizeof host);
		describe(&h, who, sizeof who);
		if (h.host[0] && strcmp(h.host, host) != 0) {
			close(fd);
			return pq_fail(err, PQ_EBUSY,
			               "%s names a run on another host (%s); if that run has ended, remove the lock file",
			               lk->path, who);
		}
		if (note && notelen)
			snprintf(note, notelen, "took over the stale lock of a run that is no longer running (%s)", who);
	}
	lk->fd = fd;
	int r = write_holder(lk, command, err);
	if (r < 0) {
		campaign_lock_release(lk);
		return r;
	}
	interrupt_set_lock_fd(fd);
	return 0;
}

void campaign_lock_release(struct campaign_lock *lk)
{
	if (lk->fd < 0)
		return;
	interrupt_set_lock_fd(-1);
	if (ftruncate(lk->fd, 0) != 0) {
		/* Nothing more to do: the next run sees a stale holder and takes over. */
	}
	close(lk->fd);
	lk->fd = -1;
}
