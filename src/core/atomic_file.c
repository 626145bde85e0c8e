/* atomic_file: temp + fsync + rename writes; whole-file reads; mkdir -p. */
#include "config.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "core/interrupt.h"
#include "core/grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int atomic_file_open(atomic_file *af, const char *path, pq_error *err)
{
	memset(af, 0, sizeof *af);
	int r = path_fmt(af->path, sizeof af->path, err, "%s", path);
	if (r == 0)
		r = path_fmt(af->tmp, sizeof af->tmp, err, "%s.tmp.%ld", path, (long)getpid());
	if (r < 0)
		return r;
	interrupt_track_tmp(af->tmp, 0);
	af->fp = fopen(af->tmp, "wb");
	if (!af->fp) {
		interrupt_untrack_tmp(af->tmp);
		return pq_fail_errno(err, PQ_EIO, "%s: cannot create", af->tmp);
	}
	return 0;
}

int atomic_file_commit(atomic_file *af, pq_error *err)
{
	if (!af->fp)
		return pq_fail(err, PQ_EIO, "%s: not open", af->path);
	int bad = fflush(af->fp) != 0 || ferror(af->fp);
	if (!bad)
		bad = fsync(fileno(af->fp)) != 0 && errno != EINVAL;
	if (fclose(af->fp) != 0)
		bad = 1;
	af->fp = NULL;
	if (bad) {
		int r = pq_fail_errno(err, PQ_EIO, "%s: write failed", af->path);
		unlink(af->tmp);
		interrupt_untrack_tmp(af->tmp);
		return r;
	}
	if (rename(af->tmp, af->path) != 0) {
		int r = pq_fail_errno(err, PQ_EIO, "%s: cannot rename into place", af->path);
		unlink(af->tmp);
		interrupt_untrack_tmp(af->tmp);
		return r;
	}
	interrupt_untrack_tmp(af->tmp);
	return 0;
}

void atomic_file_abort(atomic_file *af)
{
	if (af->fp) {
		fclose(af->fp);
		af->fp = NULL;
	}
	if (af->tmp[0]) {
		unlink(af->tmp);
		interrupt_untrack_tmp(af->tmp);
	}
}

int atomic_write(const char *path, const void *buf, size_t len, pq_error *err)
{
	atomic_file af;
	int r = atomic_file_open(&af, path, err);
	if (r < 0)
		return r;
	if (len && fwrite(buf, 1, len, af.fp) != len) {
		atomic_file_abort(&af);
		return pq_fail_errno(err, PQ_EIO, "%s: write failed", path);
	}
	return atomic_file_commit(&af, err);
}

int open_regular(const char *path)
{
	/* Never block on a FIFO or read a device forever: opened without blocking, then examined. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		int e = fstat(fd, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? EISDIR
		        : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? ENODEV : ESPIPE;
		close(fd);
		errno = e;
		return -1;
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

const char *open_regular_why(int e)
{
	return e == ESPIPE ? "not a regular file (a FIFO or socket)" : e == ENODEV ? "not a regular file (a device)"
	       : e == EISDIR ? "a directory, not a file" : strerror(e);
}

json_t *json_load_regular(const char *path, size_t flags, json_error_t *je)
{
	char *text = NULL;
	size_t len = 0;
	pq_error err = { 0 };
	if (read_whole_file(path, &text, &len, 0, &err) < 0) {
		if (je) {
			memset(je, 0, sizeof *je);
			snprintf(je->text, sizeof je->text, "%s", err.msg);
			snprintf(je->source, sizeof je->source, "%s", path);
		}
		return NULL;
	}
	json_t *j = json_loadb(text, len, flags, je);
	free(text);
	return j;
}

int read_whole_file(const char *path, char **out, size_t *len, size_t max, pq_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = open_regular(path);
	if (fd < 0 && (errno == ESPIPE || errno == ENODEV || errno == EISDIR))
		return pq_fail(err, PQ_EINPUT, "%s: %s", path, open_regular_why(errno));
	if (fd < 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot open", path);
	FILE *fp = fdopen(fd, "rb");
	if (!fp) {
		close(fd);
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot open", path);
	}
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int r = 0;
	for (;;) {
		/* room for a read of at least 4 KiB and the NUL */
		if (pq_grow(&buf, &cap, n + 4096 + 1, 1, 65536) < 0) {
			r = pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
			break;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, fp);
		n += got;
		if (max && n > max) {
			r = pq_fail(err, PQ_EINPUT, "%s: larger than %zu bytes", path, max);
			break;
		}
		if (got == 0) {
			if (ferror(fp))
				r = pq_fail_errno(err, PQ_EIO, "%s: read failed", path);
			break;
		}
	}
	fclose(fp);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int read_long_file(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int make_dirs(const char *path, pq_error *err)
{
	char buf[4096];
	int r = path_fmt(buf, sizeof buf, err, "%s", path);
	if (r < 0)
		return r;
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return pq_fail_errno(err, PQ_EIO, "%s: cannot create directory", buf);
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

void remove_dir_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char p[4096];
		if (path_fmt(p, sizeof p, NULL, "%s/%s", dir, de->d_name) == 0)
			unlink(p);
	}
	closedir(d);
}

int copy_file_mode(const char *from, const char *to, mode_t mode, pq_error *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", from);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		close(in);
		return pq_fail_errno(err, PQ_EIO, "%s: cannot create", to);
	}
	char buf[1 << 16];
	ssize_t n;
	int r = 0;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
			break;
		}
	if (n < 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: read failed", from);
	close(in);
	if (close(out) != 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
	return r;
}

int dir_has_file(const char *dir, const char *name)
{
	char p[4096];
	struct stat sb;
	return path_fmt(p, sizeof p, NULL, "%s/%s", dir, name) == 0 && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* getdents64's record: readdir() may allocate, which a signal handler must not. */
struct kernel_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

#define REMOVE_TREE_DEPTH 64

/* Remove everything below the open directory dfd, on device dev only. */
static void remove_below(int dfd, dev_t dev, int depth)
{
	char buf[2048] __attribute__((aligned(8)));
	long n;
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			struct kernel_dirent64 *de = (struct kernel_dirent64 *)(buf + off);
			off += de->d_reclen;
			const char *name = de->d_name;
			if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
				continue;
			if (unlinkat(dfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
				continue;
			struct stat sb;
			if (depth >= REMOVE_TREE_DEPTH || fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISDIR(sb.st_mode) || sb.st_dev != dev)
				continue;
			/* A job may leave a directory it made unreadable: open it up first. */
			fchmodat(dfd, name, 0700, 0);
			int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				remove_below(sub, dev, depth + 1);
				close(sub);
			}
			unlinkat(dfd, name, AT_REMOVEDIR);
		}
	}
}

void remove_tree(const char *dir)
{
	/* Entries removed while the directory is read may hide others from that read: go over it again. */
	for (int pass = 0; pass < 3; pass++) {
		struct stat sb;
		if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return;
		chmod(dir, 0700);
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return;
		remove_below(fd, sb.st_dev, 0);
		close(fd);
		if (rmdir(dir) == 0)
			return;
	}
}
