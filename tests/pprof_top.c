/*
 * pprof_top: an independent reader of the pprof files `pqprof export
 * --format pprof` writes, for tests/e2e/pprof_export.sh where `go tool
 * pprof` may be missing.  It gunzips (gzip -dc) and unpacks the profile with
 * protobuf-c, checks what every pprof reader relies on (string 0 is "",
 * every id a sample, location or line names exists, sample values match
 * the sample types, every location's address lies in its mapping), then
 * prints:
 *   types TYPE/UNIT ...          the sample types
 *   mappings N (with build id M)
 *   mapping1 FILE                the first mapping (pprof's main binary)
 *   inline_locations N           locations with more than one Line
 *   ops OP ...                   values of the "operation" label
 *   <samples>\t<function>        self samples per leaf function of OP,
 *                                most first; " [inlined]" marks a leaf
 *                                that is an inlined copy
 *   pprof_top FILE [OP]
 * Exit 1 with a message when the file is not a well-formed profile.
 */
#include "config.h"
#include "src/profile/pprof_profile.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Perftools__Profiles__Profile PProfile;

static const PProfile *prof;

/* String i of the table, NULL when there is none. */
static const char *STR(int64_t i)
{
	return i >= 0 && (size_t)i < prof->n_string_table ? prof->string_table[i] : NULL;
}

static int bad(const char *what)
{
	fprintf(stderr, "pprof_top: %s\n", what);
	return 1;
}

struct tally {
	char name[512];
	long long n;
};

static int by_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return bad("usage: pprof_top FILE [OP]");
	const char *op = argc > 2 ? argv[2] : NULL;
	/* gzip-compressed (magic 1f 8b): read it through `gzip -dc`, as a reader would gunzip it. */
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return bad("cannot open the file");
	int gz = fgetc(f) == 0x1f && fgetc(f) == 0x8b;
	fclose(f);
	char cmd[4200];
	if (gz && (strchr(argv[1], '\'') || snprintf(cmd, sizeof cmd, "gzip -dc '%s'", argv[1]) >= (int)sizeof cmd))
		return bad("file name unfit for a shell command");
	f = gz ? popen(cmd, "r") : fopen(argv[1], "rb");
	if (!f)
		return bad("cannot open the file");
	size_t len = 0, cap = 1 << 16;
	unsigned char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (gz ? pclose(f) != 0 : fclose(f) != 0)
		return bad("not a well-formed gzip file");
	if (!buf)
		return bad("out of memory");
	PProfile *p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	if (!p)
		return bad("not a profile.proto message");
	prof = p;
	size_t ns = p->n_string_table;
	if (!ns || strcmp(p->string_table[0], "") != 0)
		return bad("string_table[0] is not \"\"");
	printf("types");
	for (size_t i = 0; i < p->n_sample_type; i++) {
		if (!STR(p->sample_type[i]->type) || !STR(p->sample_type[i]->unit))
			return bad("sample type names a missing string");
		printf(" %s/%s", STR(p->sample_type[i]->type), STR(p->sample_type[i]->unit));
	}
	printf("\n");
	size_t with_id = 0;
	for (size_t i = 0; i < p->n_mapping; i++) {
		if (p->mapping[i]->id != i + 1 || !STR(p->mapping[i]->filename) || !STR(p->mapping[i]->build_id))
			return bad("mapping ids or strings broken");
		with_id += STR(p->mapping[i]->build_id)[0] != '\0';
	}
	printf("mappings %zu (with build id %zu)\n", p->n_mapping, with_id);
	if (p->n_mapping)
		printf("mapping1 %s\n", STR(p->mapping[0]->filename));
	size_t inl = 0;
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		if (l->id != i + 1 || l->mapping_id > p->n_mapping || !l->n_line)
			return bad("location ids broken");
		const Perftools__Profiles__Mapping *m = l->mapping_id ? p->mapping[l->mapping_id - 1] : NULL;
		if (m && (l->address < m->memory_start || l->address >= m->memory_limit))
			return bad("a location's address is outside its mapping");
		for (size_t k = 0; k < l->n_line; k++)
			if (!l->line[k]->function_id || l->line[k]->function_id > p->n_function)
				return bad("line names a missing function");
		inl += l->n_line > 1;
	}
	printf("inline_locations %zu\n", inl);
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id != i + 1 || !STR(p->function[i]->name))
			return bad("function ids or names broken");
	struct tally *t = calloc(p->n_function * 2 + 1, sizeof *t);
	size_t nt = 0;
	char ops[1024] = " ";   /* " keygen sign " */
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		if (s->n_value != p->n_sample_type || !s->n_location_id)
			return bad("sample values do not match the sample types");
		const char *sop = NULL;
		for (size_t k = 0; k < s->n_label; k++) {
			const char *key = STR(s->label[k]->key);
			if (key && strcmp(key, "operation") == 0)
				sop = STR(s->label[k]->str);
		}
		if (!sop)
			return bad("sample without an operation label");
		char word[130];
		snprintf(word, sizeof word, " %.120s ", sop);
		if (!strstr(ops, word) && strlen(ops) + strlen(word) < sizeof ops)
			strcat(ops, word + 1);
		for (size_t k = 0; k < s->n_location_id; k++)
			if (!s->location_id[k] || s->location_id[k] > p->n_location)
				return bad("sample names a missing location");
		if (op && strcmp(op, sop) != 0)
			continue;
		const Perftools__Profiles__Location *leaf = p->location[s->location_id[0] - 1];
		const char *fn = STR(p->function[leaf->line[0]->function_id - 1]->name);
		char name[512];
		snprintf(name, sizeof name, "%s%s", fn, leaf->n_line > 1 ? " [inlined]" : "");
		size_t j = 0;
		while (j < nt && strcmp(t[j].name, name) != 0)
			j++;
		if (j == nt)
			snprintf(t[nt++].name, sizeof t->name, "%s", name);
		t[j].n += s->value[0];
	}
	printf("ops%.*s\n", (int)strlen(ops) - 1, ops);
	qsort(t, nt, sizeof *t, by_count);
	for (size_t j = 0; j < nt; j++)
		printf("%lld\t%s\n", t[j].n, t[j].name);
	free(t);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return 0;
}
