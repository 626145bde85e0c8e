/* interrupt: clean stop on SIGINT/SIGTERM/SIGHUP; see interrupt.h. */
#include "config.h"
#include "core/interrupt.h"
#include "core/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_TMP 64
#define MAX_PIDS 64
#define TMP_PATH 4200
#define TEXT_MAX 1024

struct tmp_slot {
	volatile sig_atomic_t used;
	int is_dir;
	char path[TMP_PATH];
};

static struct tmp_slot tmps[MAX_TMP];
static volatile pid_t pids[MAX_PIDS];
static void (*volatile stop_hook)(void);
static volatile sig_atomic_t lock_fd = -1;
static char command[64] = "";
/* The process that installed the handler: a child between fork and exec only exits. */
static volatile pid_t owner;

/* Two buffers each, so a handler never sees a string half rewritten. */
static char where_buf[2][TEXT_MAX], resume_buf[2][TEXT_MAX];
static volatile sig_atomic_t where_cur, resume_cur;

static void set_text(char buf[2][TEXT_MAX], volatile sig_atomic_t *cur, const char *text)
{
	int next = !*cur;
	size_t n = text ? strlen(text) : 0;
	if (n >= TEXT_MAX)
		n = TEXT_MAX - 1;
	if (n)
		memcpy(buf[next], text, n);
	buf[next][n] = '\0';
	*cur = next;
}

void interrupt_set_where(const char *where)
{
	set_text(where_buf, &where_cur, where);
}

void interrupt_set_resume(const char *how)
{
	set_text(resume_buf, &resume_cur, how);
}

void interrupt_set_stop(void (*stop)(void))
{
	stop_hook = stop;
}

int interrupt_stops_children(void)
{
	return stop_hook != NULL;
}

void interrupt_set_lock_fd(int fd)
{
	lock_fd = fd;
}

void interrupt_track_tmp(const char *path, int is_dir)
{
	if (!path || strlen(path) >= TMP_PATH)
		return;
	for (int i = 0; i < MAX_TMP; i++)
		if (!tmps[i].used) {
			memcpy(tmps[i].path, path, strlen(path) + 1);
			tmps[i].is_dir = is_dir;
			tmps[i].used = 1;
			return;
		}
}

void interrupt_untrack_tmp(const char *path)
{
	if (!path)
		return;
	for (int i = 0; i < MAX_TMP; i++)
		if (tmps[i].used && strcmp(tmps[i].path, path) == 0) {
			tmps[i].used = 0;
			return;
		}
}

void interrupt_track_pid(pid_t pid)
{
	for (int i = 0; i < MAX_PIDS && pid > 0; i++)
		if (pids[i] == 0) {
			pids[i] = pid;
			return;
		}
}

void interrupt_untrack_pid(pid_t pid)
{
	for (int i = 0; i < MAX_PIDS && pid > 0; i++)
		if (pids[i] == pid)
			pids[i] = 0;
}

/* ---- the handler: async-signal-safe calls only from here on ---- */

struct text {
	char b[4 * TEXT_MAX];
	size_t n;
};

static void put(struct text *t, const char *s)
{
	while (s && *s && t->n + 1 < sizeof t->b)
		t->b[t->n++] = *s++;
}

static void put_int(struct text *t, int v)
{
	char d[16];
	int k = 0;
	if (v < 0) {
		put(t, "-");
		v = -v;
	}
	do {
		d[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && k < (int)sizeof d);
	while (k > 0 && t->n + 1 < sizeof t->b)
		t->b[t->n++] = d[--k];
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

static void on_signal(int sig)
{
	if (getpid() != owner)
		_exit(INTERRUPT_EXIT_STATUS(sig));
	if (stop_hook)
		stop_hook();
	int killed = 0;
	for (int i = 0; i < MAX_PIDS; i++)
		if (pids[i] > 0) {
			kill(-pids[i], SIGKILL);
			kill(pids[i], SIGKILL);
			killed = 1;
		}
	if (killed) {
		/* Let killed compilers go before their outputs are removed. */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < MAX_TMP; i++) {
		if (!tmps[i].used)
			continue;
		if (tmps[i].is_dir)
			remove_tree(tmps[i].path);
		else
			unlink(tmps[i].path);
	}
	if (lock_fd >= 0 && ftruncate(lock_fd, 0) != 0)
		lock_fd = -1;
	struct text t = { .n = 0 };
	put(&t, "\npqprof");
	if (command[0]) {
		put(&t, " ");
		put(&t, command);
	}
	put(&t, ": interrupted by ");
	put(&t, sig_name(sig));
	const char *where = where_buf[where_cur];
	if (where[0]) {
		put(&t, " during ");
		put(&t, where);
	}
	put(&t, "; running jobs stopped, temporary files removed");
	const char *how = resume_buf[resume_cur];
	if (how[0]) {
		put(&t, "; ");
		put(&t, how);
	} else {
		put(&t, "; nothing was recorded for the unfinished job");
	}
	put(&t, " (exit status ");
	put_int(&t, INTERRUPT_EXIT_STATUS(sig));
	put(&t, ")\n");
	ssize_t w = write(2, t.b, t.n);
	(void)w;
	_exit(INTERRUPT_EXIT_STATUS(sig));
}

void interrupt_install(const char *cmd)
{
	if (cmd) {
		size_t n = strlen(cmd);
		if (n >= sizeof command)
			n = sizeof command - 1;
		memcpy(command, cmd, n);
		command[n] = '\0';
	}
	owner = getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Under nohup SIGHUP stays ignored: an overnight run outlives the terminal.
	 * SIGINT is handled even where a shell ignored it for a background job,
	 * so that `kill -INT` stops a scripted run cleanly. */
	struct sigaction old;
	if (sigaction(SIGHUP, NULL, &old) != 0 || old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
}
