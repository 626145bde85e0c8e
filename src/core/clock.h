/*
 * clock: the one monotonic clock pqprof reads for deadlines, time limits
 * and elapsed times of its own work (CLOCK_MONOTONIC: never steps back
 * when the wall clock is set).  Not for measurements of a scheme's
 * operations: those go through measure/counter.h, which says which
 * counter produced each figure.
 */
#ifndef PQ_CLOCK_H
#define PQ_CLOCK_H

#include <stdint.h>

/* Seconds since an arbitrary fixed point; only differences mean anything. */
double mono_s(void);

/* The same clock in nanoseconds. */
uint64_t mono_ns(void);

#endif
