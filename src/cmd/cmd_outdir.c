/* cmd_outdir: create a command's output directory, and say so; see cmd_outdir.h. */
#include "config.h"
#include "cmd/cmd_outdir.h"
#include "core/atomic_file.h"

#include <stdio.h>
#include <sys/stat.h>

int cmd_out_dir(const char *cmd, const char *dir, const char *what, const char *option, pq_error *err)
{
	struct stat sb;
	if (stat(dir, &sb) == 0)
		return S_ISDIR(sb.st_mode) ? 0 : pq_fail(err, PQ_EIO, "%s: exists and is not a directory", dir);
	int r = make_dirs(dir, err);
	if (r == 0)
		fprintf(stderr, "pqprof %s: created %s/ for %s (%s DIR chooses another place)\n", cmd, dir, what, option);
	return r;
}
