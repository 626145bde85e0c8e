/*
 * counter_overhead: self-benchmark of the counter backends.  For every
 * backend this machine offers it prints the median cost of one counter read
 * in the backend's own unit and in ns; for the others, why they are not
 * available.  A diagnostic for lab admins ("make bench"), not a test: it
 * asserts nothing about speed.
 *
 * usage: counter_overhead [EVENTS] [READS]   (default: cycles 100000)
 */
#include "config.h"
#include "measure/counter.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "cycles";
	int reads = argc > 2 ? atoi(argv[2]) : 100000;
	int available = 0;

	printf("%-11s %-12s %14s %12s\n", "backend", "unit", "per read", "ns per read");
	for (const char *const *b = counter_backend_names(); *b; b++) {
		counter_set cs;
		counter_overhead o;
		pq_error err;
		if (counter_set_open(events, *b, &cs, &err) < 0) {
			printf("%-11s unavailable: %s\n", *b, err.msg);
			continue;
		}
		if (counter_measure_overhead(&cs, reads, &o, &err) < 0) {
			printf("%-11s failed: %s\n", *b, err.msg);
		} else {
			printf("%-11s %-12s %14.1f %12.1f\n", *b, counter_set_unit(&cs), o.units, o.ns);
			available++;
		}
		counter_set_close(&cs);
	}
	return available ? 0 : 1;
}
