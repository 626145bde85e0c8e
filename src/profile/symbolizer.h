/*
 * symbolizer: turns sampled instruction addresses of one traced process
 * into function names, inline chains and source lines.
 *
 * One symbolizer is made per trace, like a libdwfl session: the trace's
 * mapping records (perf MMAP2: the instance library, libcrypto, libc, the
 * runner executable) are added with symbolizer_add_module, then every
 * sampled address is resolved with symbolizer_resolve.  Results are cached
 * per address, so resolving the same addresses again is a hash lookup.
 *
 * Resolution, in order of preference:
 *   - DWARF (in the file or a separate debug file found by build-id or
 *     .gnu_debuglink): the chain of inlined functions at the address,
 *     innermost first, ending with the real (out-of-line) function, each
 *     with its source file and line;
 *   - the ELF symbol table (.symtab, else .dynsym): sized functions and
 *     objects containing the address; for assembly routines whose symbols
 *     have no type and no size, the nearest preceding global symbol or
 *     function in the same section, up to the next such symbol or the end
 *     of the section (local labels inside a routine never name it).  The
 *     source file then comes from DWARF line info when there is some, else
 *     from the STT_FILE symbol of the object the routine came from;
 *   - "[libname+0xoffset]" for an address inside a module that no symbol
 *     covers (offset: the ELF virtual address, what addr2line takes), and
 *     "[unknown]" for an address no module maps.
 *
 * This file does not unwind stacks, read traces or aggregate samples.
 * A symbolizer is not thread-safe.
 */
#ifndef PQ_SYMBOLIZER_H
#define PQ_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"

enum sym_source {
	SYM_FROM_NONE = 0,   /* "[unknown]" or "[lib+0x...]" */
	SYM_FROM_SYMTAB,     /* ELF symbol table */
	SYM_FROM_DWARF,      /* DWARF debugging information entries */
};

/*
 * One function in the chain for an address.  Strings are interned and
 * owned by the symbolizer: equal strings are the same pointer, and they
 * stay valid until symbolizer_free.
 */
struct sym_frame {
	const char *function;  /* never NULL */
	const char *file;      /* source file as recorded (often absolute), or NULL */
	unsigned line;         /* 0 when unknown */
	const char *module;    /* basename of the module's file; NULL for "[unknown]" */
	uint64_t offset;       /* address - entry of this function (0 when unknown) */
	bool inlined;          /* this function's code was inlined into the next frame */
	enum sym_source source;
};

struct symbolizer_stats {
	uint64_t lookups;      /* symbolizer_resolve calls */
	uint64_t misses;       /* of which were resolved from the files */
	size_t cached;         /* distinct addresses held */
	size_t modules;        /* distinct modules registered */
};

struct symbolizer;

/* Returns NULL only when out of memory (or libelf is unusable). */
struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *sym);

/*
 * Register the file PATH mapped at [START, END) from file offset PGOFF.
 * A library is mapped as several segments; every segment may be added
 * (in any order) and the module is reported once, with the load bias
 * computed from the PT_LOAD segment that holds PGOFF.  BUILD_ID (may be
 * NULL, BUILD_ID_LEN 0) is compared with the file's GNU build-id note, so
 * a library rebuilt after the trace was taken is refused rather than
 * silently mis-symbolized.
 *
 * Errors: PQ_EIO when the file cannot be opened, PQ_EINPUT when it is not
 * ELF, its build-id differs, or the mapping does not fit the file.  Even
 * on error the mapping is remembered, so its addresses resolve to
 * "[name+0xoffset]" (offset into the file) rather than "[unknown]".
 * Adding a module clears the address cache.
 */
int symbolizer_add_module(struct symbolizer *sym, const char *path,
			  uint64_t start, uint64_t end, uint64_t pgoff,
			  const unsigned char *build_id, size_t build_id_len,
			  pq_error *err);

/*
 * Resolve ADDR.  On success *FRAMES points to *NFRAMES >= 1 frames, the
 * innermost (possibly inlined) function first and the out-of-line function
 * last; the array belongs to the symbolizer and stays valid until
 * symbolizer_free (adding modules later does not invalidate it).
 * Returns 0, or -PQ_ENOMEM.
 */
int symbolizer_resolve(struct symbolizer *sym, uint64_t addr,
		       const struct sym_frame **frames, int *nframes);

/*
 * Read DWARF (inline chains, source lines) only for the module whose
 * basename is BASENAME (NULL: every module, the default); every other
 * module is named from its symbol table alone, so its debugging
 * information (often a large compressed debug file, as for libc) is
 * never loaded.  Call before resolving.  0, or -PQ_ENOMEM.
 */
int symbolizer_dwarf_only_for(struct symbolizer *sym, const char *basename);

/*
 * Basename of the module mapped at ADDR, or NULL: from the mappings
 * alone, without reading symbols or debugging information.  The string
 * belongs to the symbolizer.
 */
const char *symbolizer_module_at(const struct symbolizer *sym, uint64_t addr);

void symbolizer_get_stats(const struct symbolizer *sym, struct symbolizer_stats *st);

#endif
