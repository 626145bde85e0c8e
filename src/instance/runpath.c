/* runpath: DT_RUNPATH / DT_RPATH of an instance library; see runpath.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "core/fixed_str.h"
#include "instance/runpath.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Split a colon list into dirs[], expanding $ORIGIN / ${ORIGIN}. */
static int split_path(const char *list, const char *origin, char dirs[][PATH_MAX], int n, int max)
{
	while (list && *list && n < max) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		char one[PATH_MAX];
		snprintf(one, sizeof one, "%.*s", (int)len, list);
		/* A directory whose path does not fit is left out (path_fmt leaves it ""). */
		if (strncmp(one, "$ORIGIN", 7) == 0)
			path_fmt(dirs[n], PATH_MAX, NULL, "%s%s", origin, one + 7);
		else if (strncmp(one, "${ORIGIN}", 9) == 0)
			path_fmt(dirs[n], PATH_MAX, NULL, "%s%s", origin, one + 9);
		else
			path_fmt(dirs[n], PATH_MAX, NULL, "%s", one);
		if (dirs[n][0])
			n++;
		list = end ? end + 1 : NULL;
	}
	return n;
}

int instance_runpath(const char *lib, char dirs[][PATH_MAX], int max)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	int fd = open_regular(lib);
	if (fd < 0)
		return 0;
	char origin[PATH_MAX];
	snprintf(origin, sizeof origin, "%s", lib);
	char *slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(origin, sizeof origin, ".");
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int n = 0;
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		const char *runpath = NULL, *rpath = NULL;
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag == DT_RUNPATH)
				runpath = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			else if (dyn.d_tag == DT_RPATH)
				rpath = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
		}
		n = split_path(runpath ? runpath : rpath, origin, dirs, n, max);
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}
