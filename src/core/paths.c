/* paths: the runner and the data directory, relative to pqprof; see paths.h. */
#include "config.h"
#include "core/fixed_str.h"
#include "core/paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PQ_PREFIX
#define PQ_PREFIX "/usr/local"
#endif
#ifndef PQ_EXEC_PREFIX
#define PQ_EXEC_PREFIX PQ_PREFIX
#endif
#ifndef PQ_BINDIR
#define PQ_BINDIR PQ_EXEC_PREFIX "/bin"
#endif
#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR PQ_EXEC_PREFIX "/libexec/pqprof"
#endif
#ifndef PKGDATADIR
#define PKGDATADIR PQ_PREFIX "/share/pqprof"
#endif

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_exec_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
}

/* Directory of the running pqprof, symlinks resolved; "" when unknown. */
static void self_dir(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	buf[0] = '\0';
	if (n <= 0)
		return;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(buf, len, "%s", self[0] ? self : "/");
}

/* The part of path below dir ("/libexec/pqprof"), or NULL when not below it. */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return NULL;
	return path + n;
}

/*
 * Where a configured directory lies when the prefix moved: the prefix is
 * what remains of pqprof's directory once the configured bindir's part
 * below the exec prefix is taken off its end.  0 when it cannot be told.
 */
static int relocated(const char *configured, const char *base, char *buf, size_t len)
{
	char dir[PATH_MAX];
	self_dir(dir, sizeof dir);
	const char *rel_bin = below(PQ_BINDIR, PQ_EXEC_PREFIX);
	const char *rel = below(configured, base);
	if (!dir[0] || !rel_bin || !rel || !*rel_bin)
		return 0;
	/* Data lives under the prefix, programs under the exec prefix: only
	 * when both are one directory can one moved prefix stand for both. */
	if (strcmp(base, PQ_EXEC_PREFIX) != 0 && strcmp(PQ_PREFIX, PQ_EXEC_PREFIX) != 0)
		return 0;
	size_t nd = strlen(dir), nb = strlen(rel_bin);
	if (nd < nb || strcmp(dir + nd - nb, rel_bin) != 0)
		return 0;
	snprintf(buf, len, "%.*s%s", (int)(nd - nb), dir, rel);
	return 1;
}

static void looked_add(char *looked, size_t len, const char *what)
{
	size_t n = strlen(looked);
	if (n && n + 2 < len) {
		memcpy(looked + n, ", ", 3);
		n += 2;
	}
	str_copy(looked + n, len - n, what); /* a message: the places that fit are named */
}

int paths_runner(char *buf, size_t len, pq_error *err)
{
	const char *env = getenv("PQPROF_RUNNER");
	if (env && *env) {
		if (is_exec_file(env)) {
			snprintf(buf, len, "%s", env);
			return 0;
		}
		return pq_fail(err, PQ_ERUNNER, "pqprof-runner not found: PQPROF_RUNNER=%s is not an executable file", env);
	}
	char looked[2048] = "", dir[PATH_MAX], cand[PATH_MAX + 32];
	self_dir(dir, sizeof dir);
	if (dir[0]) {
		snprintf(cand, sizeof cand, "%s/pqprof-runner", dir);
		if (is_exec_file(cand))
			goto found;
		looked_add(looked, sizeof looked, cand);
	}
	/* An installed pqprof uses the runner of its own prefix, even when
	 * the configured one exists: that may be another version's. */
	if (relocated(PKGLIBEXECDIR, PQ_EXEC_PREFIX, dir, sizeof dir))
		snprintf(cand, sizeof cand, "%s/pqprof-runner", dir);
	else
		snprintf(cand, sizeof cand, "%s/pqprof-runner", PKGLIBEXECDIR);
	if (is_exec_file(cand))
		goto found;
	looked_add(looked, sizeof looked, cand);
	return pq_fail(err, PQ_ERUNNER,
	               "pqprof-runner not found (looked in %s); reinstall pqprof or set PQPROF_RUNNER to its path",
	               looked);
found:
	snprintf(buf, len, "%s", cand);
	return 0;
}

int paths_datadir(char *buf, size_t len, pq_error *err)
{
	const char *env = getenv("PQPROF_DATADIR");
	if (env && *env) {
		if (is_dir(env)) {
			snprintf(buf, len, "%s", env);
			return 0;
		}
		return pq_fail(err, PQ_EINPUT, "PQPROF_DATADIR=%s is not a directory", env);
	}
	char dir[PATH_MAX];
	if (!relocated(PKGDATADIR, PQ_PREFIX, dir, sizeof dir))
		snprintf(dir, sizeof dir, "%s", PKGDATADIR);
	if (is_dir(dir)) {
		snprintf(buf, len, "%s", dir);
		return 0;
	}
	return pq_fail(err, PQ_EINPUT, "no pqprof data directory (looked in %s; set PQPROF_DATADIR)", dir);
}

/* Scheme `target` under ROOT/schemes/: 1 with its folder in buf, else 0 with ROOT/schemes/ added to looked. */
static int scheme_under(const char *root, const char *target, char *buf, size_t len, char *looked, size_t looked_len)
{
	char cand[PATH_MAX + 300];
	struct stat sb;
	snprintf(cand, sizeof cand, "%s/schemes/%s/scheme.json", root, target);
	if (stat(cand, &sb) == 0) {
		snprintf(buf, len, "%s/schemes/%s", root, target);
		return 1;
	}
	snprintf(cand, sizeof cand, "%s/schemes/", root);
	looked_add(looked, looked_len, cand);
	return 0;
}

int paths_find_scheme(const char *target, char *buf, size_t len, pq_error *err)
{
	struct stat sb;
	if (stat(target, &sb) == 0 || strchr(target, '/') || !*target || strcmp(target, ".") == 0 ||
	    strcmp(target, "..") == 0) {
		snprintf(buf, len, "%s", target);
		return 0;
	}
	char looked[2048] = "", cand[PATH_MAX + 300], data[PATH_MAX];
	snprintf(cand, sizeof cand, "schemes/%s/scheme.json", target);
	if (stat(cand, &sb) == 0) {
		snprintf(buf, len, "schemes/%s", target);
		return 0;
	}
	looked_add(looked, sizeof looked, "./schemes/");
	pq_error derr = { 0 };
	if (paths_datadir(data, sizeof data, &derr) == 0) {
		if (scheme_under(data, target, buf, len, looked, sizeof looked))
			return 0;
	} else {
		looked_add(looked, sizeof looked, derr.msg);
#ifdef PQ_SRCDIR
		/* Not installed: a build outside its source tree (make distcheck,
		 * a separate build folder) finds the schemes it was built from. */
		if (scheme_under(PQ_SRCDIR, target, buf, len, looked, sizeof looked))
			return 0;
#endif
	}
	return pq_fail(err, PQ_EINPUT,
	               "%s: no such file, directory or scheme (looked for a scheme of that name in %s); "
	               "'pqprof schemes' lists the installed ones",
	               target, looked);
}
