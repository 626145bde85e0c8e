/* path_name: the last component of a path; see path_name.h. */
#include "config.h"
#include "core/path_name.h"

#include <string.h>

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}
