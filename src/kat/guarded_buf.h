/*
 * guarded_buf: buffers handed to scheme code under test.  Each ends at a
 * PROT_NONE guard page (a write past the end faults at once) and begins
 * after one; canaries fill the bytes before the data and the alignment
 * slack after it, so smaller overruns are found by gbuf_check after the
 * call.  Live buffers are registered in a fixed table the fault handler
 * can search without allocating (gbuf_guard_hit).
 */
#ifndef PQ_KAT_GUARDED_BUF_H
#define PQ_KAT_GUARDED_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "kat/kat_file.h"

#define CANARY_MIN 64

struct gbuf {
	uint8_t *map;
	size_t maplen;
	uint8_t *data;       /* declared buffer */
	size_t len;          /* declared length */
	uint8_t *lo_guard, *hi_guard;
	char name[KAT_FIELD_NAME_MAX];
};

/* A len-byte buffer named name (the KAT field it holds); 0 or -PQ_ENOMEM. */
int gbuf_alloc(struct gbuf *g, const char *name, size_t len);
void gbuf_free(struct gbuf *g);

/* 0 if intact; else +1 (past the end, *at = offset from data) or -1 (before). */
int gbuf_check(const struct gbuf *g, size_t *at);

/* Empty the registration table (before a run; buffers of a crashed run are gone). */
void gbuf_forget_all(void);

/*
 * Async-signal-safe: 1 when addr lies in the guard page after (*past = 1)
 * or before (*past = 0) a registered buffer, with its name and declared
 * length; 0 when addr belongs to no buffer.
 */
int gbuf_guard_hit(uintptr_t addr, int *past, const char **name, size_t *len);

#endif
