/*
 * options_help: what a command's option table says to a reader: the -h
 * text, the usage line (made from the table, so it lists every option),
 * one option's entry for `pqprof help --OPTION`, and the same words as
 * roff for the OPTIONS section of pqprof(1).  Every default comes from the
 * table: a row's deflt words, else the value the option starts with.
 *
 * usage is "pqprof CMD POSITIONALS" on its first line, then optional lines
 * of description printed as they are; the options are appended to the
 * first line.
 */
#ifndef PQ_OPTIONS_HELP_H
#define PQ_OPTIONS_HELP_H

#include <stddef.h>
#include <stdio.h>
#include "core/options.h"

/* The default of a row (or of scope sc of it, sc >= 0) in words; 0 when it has none. */
int options_default(const struct option_spec *s, int sc, char *buf, size_t len);

/* The whole -h text: usage line, description, one entry per option, deprecated spellings. */
void options_usage(FILE *out, const char *usage, const struct option_spec *specs);

/* The entry of one option, as -h prints it. */
void options_entry(FILE *out, const struct option_spec *s);

/* "use --first N" for an OPT_DEPRECATED row of specs. */
void options_replacement(char *buf, size_t len, const struct option_spec *specs, const struct option_spec *alias);

/* The same text as options_usage, as a roff subsection (.SS) for pqprof(1). */
void options_man(FILE *out, const char *cmd, const char *usage, const struct option_spec *specs);

#endif
