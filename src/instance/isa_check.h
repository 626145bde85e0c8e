/*
 * isa_check: does this CPU have the instruction sets a build's -m flags
 * ask for?  A library compiled with -mavx2 for a CPU without AVX2 would
 * die of SIGILL in the middle of a measurement; pqprof refuses to build it
 * instead, and says which flag needs which instruction set.
 *
 * The CPU's instruction sets are the "flags" line of /proc/cpuinfo (the
 * kernel's reading of cpuid); $PQPROF_CPU_FLAGS replaces it (a
 * space-separated list in the same names), to check a build for another
 * machine or to test the refusal.  -march=x86-64-v2/-v3/-v4 and
 * -march=native are understood; other -march values are not checked.
 */
#ifndef PQ_ISA_CHECK_H
#define PQ_ISA_CHECK_H

#include <stddef.h>

/*
 * The /proc/cpuinfo feature names `flag` (one compiler argument) needs, as
 * a space-separated list into out; returns 0 when the flag needs none we
 * know of.
 */
int isa_needs(const char *flag, char *out, size_t len);

/*
 * The features `flag` needs that this CPU lacks (space-separated into
 * missing); returns how many.  *source says where the CPU's features came
 * from ("/proc/cpuinfo" or "$PQPROF_CPU_FLAGS").
 */
int isa_missing(const char *flag, char *missing, size_t len, const char **source);

/* The CPU's model name ("" when unknown). */
void isa_cpu_name(char *out, size_t len);

#endif
