/* export_format: the table of export formats; see export_format.h. */
#include "config.h"
#include "trace/export_format.h"
#include "trace/export.h"
#include "trace/flamegraph.h"
#include "core/text_buf.h"

#include <stdio.h>
#include <string.h>

static int write_folded(const folded *f, const char *op, const char *title, const char *path, pq_error *err)
{
	(void)title;
	return export_folded(f, op, path, err);
}

static int write_speedscope(const folded *f, const char *op, const char *title, const char *path,
                            pq_error *err)
{
	return export_speedscope(f, op, title, path, err);
}

static int write_callgrind(const folded *f, const char *op, const char *title, const char *path,
                           pq_error *err)
{
	(void)title;
	return export_callgrind(f, op, path, err);
}

static int write_svg(const folded *f, const char *op, const char *title, const char *path, pq_error *err)
{
	struct flamegraph_opts fo = { .title = title };
	return flamegraph_svg(f, op, &fo, path, err);
}

const struct export_format export_formats[] = {
	{ "folded", write_folded },         /* FlameGraph, inferno */
	{ "speedscope", write_speedscope }, /* speedscope */
	{ "callgrind", write_callgrind },   /* KCachegrind */
	{ "svg", write_svg },               /* any web browser */
	/* pprof keeps addresses, mappings and inline chains the folded model has
	 * lost: written from the analysed trace (profile/pprof_export.h). */
	{ "pprof", NULL },                  /* go tool pprof, Grafana Pyroscope */
	{ NULL, NULL },
};

const struct export_format *export_format_find(const char *name)
{
	for (const struct export_format *x = export_formats; name && x->name; x++)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

int export_format_lookup(const char *name, const struct export_format **out, pq_error *err)
{
	*out = export_format_find(name);
	if (*out)
		return 0;
	char names[256];
	return pq_fail(err, PQ_EUSAGE, "format '%s': use %s", name ? name : "",
	               export_format_names(names, sizeof names, ", ", " or "));
}

char *export_format_names(char *buf, size_t len, const char *sep, const char *last)
{
	size_t count = 0;
	while (export_formats[count].name)
		count++;
	if (!len)
		return buf;
	/* The names are pqprof's own, a few short words: a buffer too small for them ends in "…". */
	buf[0] = '\0';
	for (size_t i = 0; i < count; i++)
		if (text_appendf(buf, len, "%s%s", i == 0 ? "" : i + 1 == count ? last : sep, export_formats[i].name) < 0) {
			text_mark_cut(buf, len);
			break;
		}
	return buf;
}
