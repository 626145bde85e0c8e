/*
 * elf_size: static memory of an instance library, read from its ELF file.
 *
 * The headline figure is the loadable image: the sum of p_memsz over the
 * PT_LOAD segments, which is what the reports print as "static: ELF image
 * (bytes)".  Beside it come the allocated sections grouped by what they
 * hold (code, read-only data, initialised data, zero-initialised data,
 * everything else), and the largest function and object symbols, so a
 * reader can see which table makes a 200 MB image.  This file only reads
 * the ELF file on disk; it knows nothing about processes or RSS (see the
 * memory measurement for that).
 */
#ifndef PQ_ELF_SIZE_H
#define PQ_ELF_SIZE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "core/pq_error.h"

/* How many of the largest symbols elf_size_analyze keeps. */
#define ELF_SIZE_TOP_N 32

/*
 * What an allocated section holds.  Classification is by section flags
 * and names, in this order:
 *   TEXT    SHF_EXECINSTR (.text, .plt, .init, .fini, ...)
 *   BSS     SHT_NOBITS (.bss, .tbss): memory, but no bytes in the file
 *   DATA    SHF_WRITE with file contents (.data, .data.rel.ro, .got,
 *           .init_array, .fini_array, .dynamic, .tdata, ...)
 *   RODATA  read-only sections named .rodata or .rodata.*
 *   OTHER   the remaining allocated sections: dynamic-linking tables
 *           (.dynsym, .dynstr, .rela.*, .gnu.hash), unwind tables
 *           (.eh_frame, .eh_frame_hdr), notes.
 */
enum elf_size_kind {
	ELF_SIZE_TEXT = 0,
	ELF_SIZE_RODATA,
	ELF_SIZE_DATA,
	ELF_SIZE_BSS,
	ELF_SIZE_OTHER,
	ELF_SIZE_NKINDS
};

struct elf_size_symbol {
	char *name;
	uint64_t addr;             /* st_value (ELF virtual address) */
	uint64_t size;             /* st_size */
	enum elf_size_kind kind;   /* of the section it lives in */
	int is_function;           /* STT_FUNC / STT_GNU_IFUNC, else object */
};

struct elf_size_section {
	char *name;
	uint64_t size;
	enum elf_size_kind kind;
};

struct elf_size {
	uint64_t file_bytes;      /* size of the file on disk */
	uint64_t image_memsz;     /* sum of PT_LOAD p_memsz: the static image */
	uint64_t image_filesz;    /* sum of PT_LOAD p_filesz */
	unsigned load_segments;   /* number of PT_LOAD headers */

	/* Sum of allocated section sizes per kind (index: elf_size_kind). */
	uint64_t kind_bytes[ELF_SIZE_NKINDS];

	/* Every allocated section, in section-header order. */
	struct elf_size_section *sections;
	size_t nsections;

	/*
	 * The largest STT_FUNC/STT_OBJECT symbols with a non-zero size, from
	 * .symtab when present, else .dynsym; largest first, aliases (same
	 * address and size) listed once.  symtab_source says which table.
	 */
	struct elf_size_symbol *top;
	size_t ntop;
	const char *symtab_source;  /* ".symtab", ".dynsym" or "none" */
};

/*
 * Read PATH, which must be an ELF shared object or PIE executable
 * (ET_DYN), and fill *OUT (free with elf_size_free).  Errors: PQ_EIO when
 * the file cannot be opened or read; PQ_EINPUT when it is not ELF, not
 * ET_DYN, or truncated (headers or segments past the end of the file).
 * On error *OUT is left empty (safe to pass to elf_size_free).
 */
int elf_size_analyze(const char *path, struct elf_size *out, pq_error *err);

void elf_size_free(struct elf_size *es);

/* "text", "rodata", "data", "bss", "other". */
const char *elf_size_kind_name(enum elf_size_kind kind);

/*
 * A JSON object for records:
 *   { "image_memsz": N, "image_filesz": N, "file_bytes": N,
 *     "load_segments": N,
 *     "sections": { "text": N, "rodata": N, "data": N, "bss": N, "other": N },
 *     "section_list": [ { "name": ".text", "size": N, "kind": "text" }, ... ],
 *     "symtab": ".symtab",
 *     "top_symbols": [ { "name": "...", "size": N, "kind": "rodata",
 *                        "type": "object" }, ... ] }
 * At most MAX_SYMBOLS symbols are written (0: none).  Returns a new
 * reference, or NULL when out of memory.
 */
json_t *elf_size_to_json(const struct elf_size *es, size_t max_symbols);

#endif
