/*
 * units: how figures are written in tables, the way the reference reports
 * write them: counts with k/M/G suffixes ("22.14 M"), times with three
 * significant digits and a unit ("10.6 ms", "470 µs"), rates with three
 * significant digits ("94.3", "2.13e+03"), byte sizes as integers.
 */
#ifndef PQ_UNITS_H
#define PQ_UNITS_H

#include <stddef.h>

void fmt_count(char *buf, size_t len, double v);
void fmt_seconds(char *buf, size_t len, double s);
void fmt_sig3(char *buf, size_t len, double v);
void fmt_kib(char *buf, size_t len, double bytes);

#endif
