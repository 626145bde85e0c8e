/* path_name: the last component of a path; see path_name.h. */
#include "config.h"
#include "core/path_name.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <string.h>

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

int path_is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int path_inside_tree(const char *path, const char *root)
{
	char real[PATH_MAX], rr[PATH_MAX];
	if (!realpath(path, real))
		return 0;
	if (root && realpath(root, rr) && path_is_below(real, rr))
		return 1;
	const char *src = getenv("PQPROF_SOURCE_ROOT");
	return src && *src && realpath(src, rr) && strcmp(rr, "/") != 0 && path_is_below(real, rr);
}

int path_is_system_dir(const char *dir)
{
	static const char *const sys[] = { "/", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/root", "/home",
	                                   "/proc", "/sys", "/dev", "/dev/shm", "/boot", "/tmp", "/var", "/var/tmp",
	                                   "/run" };
	for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
		if (strcmp(dir, sys[i]) == 0)
			return 1;
	return 0;
}
