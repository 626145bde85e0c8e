/*
 * sigsafe: output for places where stdio and malloc cannot be used (fault
 * handlers, a child about to die, the runner's event pipe): decimal digits
 * by hand and write(2) until everything is written.  Async-signal-safe.
 */
#ifndef PQ_SIGSAFE_H
#define PQ_SIGSAFE_H

#include <stddef.h>
#include <stdint.h>

/* The decimal digits of v at p (at most 20, no NUL); returns the end. */
char *u64_dec(char *p, uint64_t v);

/* write(2) all of buf, retrying on EINTR; -1 when a write fails. */
int write_all(int fd, const void *buf, size_t len);

#endif
