/*
 * export_format: the formats a folded profile can be exported in, one
 * table row each: the name users give to --format and the writer.  Help
 * texts, error messages and the parsing of format names are generated
 * from this table, so adding a format is its writer (trace/export.h or
 * trace/flamegraph.h) plus one row in export_format.c.
 */
#ifndef PQ_EXPORT_FORMAT_H
#define PQ_EXPORT_FORMAT_H

#include <stddef.h>

#include "core/pq_error.h"
#include "trace/folded.h"

/*
 * Write f (op: one operation, NULL: all, each rooted at its name) to path
 * ("-": standard output).  title names the profile where the format has
 * a place for it (NULL: the writer's default).
 */
typedef int (*export_writer)(const folded *f, const char *op, const char *title, const char *path,
                             pq_error *err);

struct export_format {
	const char *name;        /* as given to --format */
	export_writer write;     /* NULL: written from the analysed trace, not the folded model */
};

/* Every format, in the order help lists them; ends with a NULL name. */
extern const struct export_format export_formats[];

/* The format called name, or NULL. */
const struct export_format *export_format_find(const char *name);

/* The same, or PQ_EUSAGE with "format 'NAME': use a, b or c". */
int export_format_lookup(const char *name, const struct export_format **out, pq_error *err);

/*
 * The names joined for a help text: sep between two names, last before
 * the final one ("|" and "|" for a usage line, ", " and " or " for
 * prose).  Returns buf.
 */
char *export_format_names(char *buf, size_t len, const char *sep, const char *last);

#endif
