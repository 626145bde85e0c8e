/*
 * pqprof schemes: the schemes `pqprof run NAME` can find by name (those in
 * ./schemes/ of a source tree, then the installed ones), and with --paths
 * where pqprof finds its runner and data directory.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "campaign/scheme_desc.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/paths.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "pqprof schemes";

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One line per scheme under dir/ (a descriptor in dir/NAME/scheme.json). */
static int list_dir(const char *dir, const char *where, int *shown)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char *names[512];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 512)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, by_name);
	struct scheme_desc *desc = malloc(sizeof *desc);
	int bad = 0;
	for (int i = 0; i < n && desc; i++) {
		char p[PATH_MAX + 300];
		snprintf(p, sizeof p, "%s/%s/scheme.json", dir, names[i]);
		pq_error err = { 0 };
		FILE *f = fopen(p, "r");
		if (!f)
			continue;  /* a directory without a descriptor is not a scheme */
		fclose(f);
		if (scheme_desc_read(p, desc, &err) < 0) {
			fprintf(stderr, "pqprof schemes: %s\n", err.msg);
			bad = 1;
			continue;
		}
		int slow = 0;
		for (int k = 0; k < desc->ninstances; k++)
			slow += desc->instances[k].slow;
		printf("%-16s %-40s %2d instances (%d quick)  %s/%s\n", desc->name, desc->title[0] ? desc->title : "-",
		       desc->ninstances, desc->ninstances - slow, where, names[i]);
		scheme_desc_free(desc);
		(*shown)++;
	}
	free(desc);
	for (int i = 0; i < n; i++)
		free(names[i]);
	return bad;
}

int cmd_schemes(int argc, char **argv)
{
	int show_paths = 0;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "paths", &show_paths, NULL, "print where the runner and the data directory are found", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[1];
	int status, np = cmd_parse("schemes", argc, argv, usage, specs, pos, 1, &status);
	if (np < 0)
		return status;
	if (np != 0) {
		options_usage(stderr, usage, specs);
		return PQ_EUSAGE;
	}
	char data[PATH_MAX], runner[PATH_MAX];
	pq_error derr = { 0 }, rerr = { 0 };
	int have_data = paths_datadir(data, sizeof data, &derr) == 0;
	if (show_paths) {
		int have_runner = paths_runner(runner, sizeof runner, &rerr) == 0;
		printf("runner   %s\n", have_runner ? runner : rerr.msg);
		printf("datadir  %s\n", have_data ? data : derr.msg);
		return have_runner ? 0 : PQ_ERUNNER;
	}
	int shown = 0, bad = list_dir("schemes", "./schemes", &shown);
	if (have_data) {
		char dir[PATH_MAX + 16];
		snprintf(dir, sizeof dir, "%s/schemes", data);
		bad |= list_dir(dir, dir, &shown);
	}
	if (shown == 0) {
		fprintf(stderr, "pqprof schemes: no schemes in ./schemes/ nor in %s\n",
		        have_data ? data : derr.msg);
		return PQ_EINPUT;
	}
	return bad ? PQ_EINPUT : 0;
}
