/* flag_list: compiler arguments with their origins; see flag_list.h. */
#include "config.h"
#include "instance/flag_list.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int flag_list_add(struct flag_list *l, const char *flag, const char *origin)
{
	if (pq_grow(&l->v, &l->cap, (size_t)l->n + 1, sizeof *l->v, 16) < 0)
		return -1;
	struct tree_flag *f = &l->v[l->n];
	f->flag = strdup(flag);
	if (!f->flag)
		return -1;
	snprintf(f->origin, sizeof f->origin, "%s", origin ? origin : "");
	l->n++;
	return 0;
}

void flag_list_free(struct flag_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i].flag);
	free(l->v);
	memset(l, 0, sizeof *l);
}

void define_macro_name(const char *flag, char *out, size_t len)
{
	out[0] = '\0';
	if (strncmp(flag, "-D", 2) != 0 && strncmp(flag, "-U", 2) != 0)
		return;
	size_t k = 0;
	for (const char *p = flag + 2; *p && *p != '=' && *p != '(' && k + 1 < len; p++)
		out[k++] = *p;
	out[k] = '\0';
}

int tree_flag_kind(const char *f)
{
	if (strncmp(f, "-D", 2) == 0 || strncmp(f, "-U", 2) == 0)
		return f[2] ? 1 : 0;
	if (strncmp(f, "-I", 2) == 0)
		return f[2] ? 1 : 0;
	if (strncmp(f, "-std=", 5) == 0)
		return 1;
	if (strncmp(f, "-O", 2) == 0)
		return 2;
	if (strncmp(f, "-m", 2) == 0) {
		/* Another ABI than the harness's (a 64-bit runner loads the library): information only. */
		if (strcmp(f, "-m32") == 0 || strcmp(f, "-mx32") == 0 || strcmp(f, "-m16") == 0)
			return 2;
		return f[2] ? 1 : 0;
	}
	if (strncmp(f, "-f", 2) == 0) {
		/* Instrumentation and profiling change what is measured: information only. */
		static const char *const info_only[] = { "-fsanitize", "-fprofile", "-fcoverage", "-ftest-coverage",
			                                     "-finstrument", "-fdump", "-fsave-optimization", NULL };
		for (int i = 0; info_only[i]; i++)
			if (strncmp(f, info_only[i], strlen(info_only[i])) == 0)
				return 2;
		return f[2] ? 1 : 0;
	}
	return 0;
}

int shell_split(const char *s, char ***words, int *n)
{
	*words = NULL;
	*n = 0;
	size_t cap = 0;
	size_t len = strlen(s);
	char *buf = malloc(len + 1);
	if (!buf)
		return -1;
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		size_t k = 0;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					buf[k++] = *p;
				if (*p)
					p++;
			} else if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
						p++;
					buf[k++] = *p;
				}
				if (*p)
					p++;
			} else if (*p == '\\' && p[1]) {
				buf[k++] = p[1];
				p += 2;
			} else {
				buf[k++] = *p++;
			}
		}
		buf[k] = '\0';
		if (pq_grow(words, &cap, (size_t)*n + 1, sizeof **words, 16) < 0 || !((*words)[*n] = strdup(buf))) {
			free(buf);
			for (int i = 0; i < *n; i++)
				free((*words)[i]);
			free(*words);
			*words = NULL;
			*n = 0;
			return -1;
		}
		(*n)++;
	}
	free(buf);
	return 0;
}
