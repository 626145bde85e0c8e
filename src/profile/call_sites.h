/*
 * call_sites: who calls a set of functions, read from the machine code of
 * an instance library rather than from samples, so a call that is never
 * sampled (a hash function that takes 0.0% of an operation) still has a
 * caller.  Every direct call or tail jump in the library's executable
 * sections whose target is the entry of a named function is one site,
 * with the function that contains it and the source file it was compiled
 * from (the DWARF line table's innermost file, so a wrapper inlined into
 * its caller is still named by its own file).
 *
 * Report section 7 uses it to name the file that routes a scheme's
 * hashing into the competition's placeholder functions ("xof glue in
 * src/iccs/xof_glue.c").  A call through the function's PLT stub counts
 * too (a plain -fPIC library); calls through function pointers are not
 * seen.
 */
#ifndef PQ_CALL_SITES_H
#define PQ_CALL_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"

/* A called function the globs named. */
struct call_target {
	char *name;
	uint64_t addr;           /* its entry, 0 when the library does not define it */
	uint64_t plt;            /* its PLT stub, 0 when it has none */
	char *file;              /* source file of its entry (absolute, as DWARF has it), or NULL */
};

struct call_site {
	uint64_t addr;           /* the call instruction */
	size_t target;           /* index into call_sites.targets */
	char *caller;            /* function containing the site, or NULL when no symbol covers it */
	int caller_is_target;    /* the caller is itself one of the targets */
	char *file;              /* source file of the call instruction, or NULL (no DWARF line) */
	int tail;                /* a jump, not a call */
};

struct call_sites {
	struct call_target *targets;
	size_t ntargets;
	struct call_site *sites;   /* address order */
	size_t nsites;
	int dwarf;                 /* the library has a DWARF line table */
};

/*
 * The direct calls in the ELF file at path to its functions whose names
 * match one of globs (fnmatch).  No such function, or no call, is not an
 * error (n == 0).  Errors: PQ_EIO, PQ_EINPUT (not ELF, no symbol table,
 * an architecture the disassembler does not read), PQ_ENOMEM.
 */
int call_sites_find(const char *path, const char *const *globs, size_t nglobs, struct call_sites *out,
                    pq_error *err);
void call_sites_free(struct call_sites *cs);

#endif
