/*
 * kat_drivers: the official KAT drivers a submission ships (NGCC's
 * KAT_SIG.c, KAT_KEM.c, KAT_KEX.c, KAT_CryptHash.c; NIST's
 * PQCgenKAT_sign.c, PQCgenKAT_kem.c; C++ forms in some trees).  They
 * define main() and the DRNG object, so the instance is what is linked
 * beside them, never them.  The one list: tree scanning, package
 * scanning and build observation all recognise drivers by it, and the
 * messages that name the drivers are written from it.
 */
#ifndef PQ_INSTANCE_KAT_DRIVERS_H
#define PQ_INSTANCE_KAT_DRIVERS_H

#include <stddef.h>

/* The drivers' names without extension (KAT_SIG, PQCgenKAT_sign, ...), NULL-terminated. */
extern const char *const kat_driver_stems[];

/* Is this file name (no directory) a driver's source (KAT_SIG.c, PQCgenKAT_sign.cpp, ...)? */
int kat_driver_is(const char *base);

/* "KAT_SIG.c, KAT_KEM.c, ..., PQCgenKAT_kem.c" into buf[len] (cut short when it does not fit). */
void kat_driver_names(char *buf, size_t len);

#endif
