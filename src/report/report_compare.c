/* report_compare: the comparison section of the report; see report_compare.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "report/report_compare.h"
#include "core/jpath.h"
#include "report/compare.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of compare/<sub>/ folders holding a compare.json, sorted; *n = 0 when none. */
static char **comparison_dirs(const char *dir, size_t *n)
{
	char path[4200];
	*n = 0;
	snprintf(path, sizeof path, "%s/compare", dir);
	DIR *dp = opendir(path);
	if (!dp)
		return NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(dp)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char file[4200 + 512];
		struct stat st;
		snprintf(file, sizeof file, "%s/%s/compare.json", path, de->d_name);
		if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			char **g = realloc(names, nc * sizeof *g);
			if (!g)
				break;
			names = g;
			cap = nc;
		}
		if ((names[*n] = strdup(de->d_name)) != NULL)
			(*n)++;
	}
	closedir(dp);
	if (*n)
		qsort(names, *n, sizeof *names, cmp_name);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int report_compare_present(const struct record_set *rs)
{
	size_t n = 0;
	char **names = comparison_dirs(rs->dir, &n);  /* n is set by the call: not in one expression with it */
	free_names(names, n);
	return n > 0;
}

int report_section_compare(const struct record_set *rs, rdoc *d, pq_error *err)
{
	size_t n = 0;
	char **names = comparison_dirs(rs->dir, &n);
	int r = 0;
	if (n) {
		rdoc_para(d, "Each flag profile against the first one, from compare/<A>_vs_<B>/ (the same tables as "
		          "`pqprof compare`).  Read a verdict only together with how the runs were made: interleaved "
		          "runs can tell small differences, separate runs only large ones.");
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		char path[4200 + 512], anchor[300];
		snprintf(path, sizeof path, "%s/compare/%s/compare.json", rs->dir, names[i]);
		json_error_t je;
		json_t *res = json_load_regular(path, 0, &je);
		if (!res)
			r = pq_fail(err, PQ_EINPUT, "%s: invalid JSON: %s (line %d)", path, je.text, je.line);
		if (r == 0 && strcmp(jp_str(res, "schema", ""), "pqprof.compare/1") != 0)
			r = pq_fail(err, PQ_EINPUT, "%s: schema is '%s', expected pqprof.compare/1", path,
			            jp_str(res, "schema", "(none)"));
		if (r == 0) {
			const char *vs = strstr(names[i], "_vs_");
			if (vs)
				rdoc_heading(d, 3, NULL, "%s against %.*s", vs + 4, (int)(vs - names[i]), names[i]);
			else
				rdoc_heading(d, 3, NULL, "%s", names[i]);
			rdoc_para(d, "Files: compare/%s/compare.md, compare/%s/compare.json.", names[i], names[i]);
			snprintf(anchor, sizeof anchor, "cmp-%s-", names[i]);
			r = compare_doc_body(res, d, 4, anchor, err);
		}
		json_decref(res);
	}
	free_names(names, n);
	return r;
}
