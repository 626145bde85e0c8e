/*
 * units: how figures are written in tables, the way the reference reports
 * write them: counts with k/M/G suffixes ("22.14 M"), times with three
 * significant digits and a unit ("10.6 ms", "470 µs"), rates with three
 * significant digits ("94.3"), byte sizes as integers.
 *
 * Nothing here writes exponent notation: a figure a person reads is
 * either scaled with a suffix (fmt_count: "106.0 k") or written out with
 * thousands separators (fmt_readable: "105,937").  Machine outputs (JSON,
 * CSV) keep exact numbers and do not use these.
 */
#ifndef PQ_UNITS_H
#define PQ_UNITS_H

#include <stddef.h>

void fmt_count(char *buf, size_t len, double v);
/*
 * The one format for counts and rates people read (calls per operation,
 * samples, ops/s): below 1000 three significant digits in plain decimal
 * ("4.12", "102", "0.0704"), from 1000 on the rounded integer with
 * thousands separators ("36,912", "105,937"); never "1.06e+05".
 */
void fmt_readable(char *buf, size_t len, double v);
/* The rounded integer with thousands separators ("1,234,567"). */
void fmt_grouped(char *buf, size_t len, double v);
void fmt_seconds(char *buf, size_t len, double s);
/* Rates: fmt_readable (kept for its callers). */
void fmt_sig3(char *buf, size_t len, double v);
void fmt_kib(char *buf, size_t len, double bytes);
/*
 * Bytes in the binary unit their size calls for, three significant
 * digits: "812 B", "5.61 KiB", "2.03 MiB", "1.2 GiB".
 */
void fmt_bytes_binary(char *buf, size_t len, double bytes);
/* A ratio without exponent: two decimals from 0.1 on ("1.93"), else two significant digits ("0.0037"). */
void fmt_multiple(char *buf, size_t len, double v);

#endif
