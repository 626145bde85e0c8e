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
#include <sys/stat.h>
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

int read_whole_file(const char *path, char **out, size_t *len, size_t max, pq_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	/* Never block on a FIFO or read a device forever: regular files only. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	if (fd < 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot open", path);
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return pq_fail(err, PQ_EINPUT, "%s: not a regular file", path);
	}
	fcntl(fd, F_SETFL, 0);
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
