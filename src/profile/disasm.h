/*
 * disasm: the machine code of one function of an ELF file, disassembled
 * with capstone (x86-64 and AArch64): each instruction's address (ELF
 * virtual address, what addr2line takes), text and control flow
 * (code_flow.h).  The function is found by name in the symbol table
 * (.symtab, else .dynsym), or as the function containing an address;
 * assembly routines whose symbols carry no size end at the next code
 * symbol of their section.  Also converts between file offsets (what a
 * mapping records) and virtual addresses.
 *
 * Also walks the direct branches of a whole file (profile/call_sites.h
 * finds who calls a function that way).
 *
 * Reads the file only; no DWARF, no samples (profile/annotate.h joins
 * them).
 */
#ifndef PQ_DISASM_H
#define PQ_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "core/pq_error.h"
#include "profile/code_flow.h"

struct disasm_insn {
	char text[200];             /* "add rax, rbx" (Intel syntax on x86) */
};

struct disasm_load {
	uint64_t offset, vaddr, filesz;
};

struct disasm_func {
	char *name;
	uint64_t start, size;       /* virtual address and length in bytes */
	const char *arch;           /* "x86-64", "aarch64" */
	struct flow_insn *flow;     /* n instructions, address order */
	struct disasm_insn *insn;
	size_t n;
	struct disasm_load *loads;  /* the PT_LOAD segments */
	size_t nloads;
};

/*
 * Disassemble the function NAME of the ELF file PATH, or when NAME is
 * NULL the function that contains virtual address VADDR.  Errors:
 * PQ_EIO (unreadable), PQ_EINPUT (not ELF, no code there, an
 * architecture capstone is not asked for), PQ_EUSAGE (no such function).
 */
int disasm_function(const char *path, const char *name, uint64_t vaddr, struct disasm_func *out,
                    pq_error *err);
void disasm_func_free(struct disasm_func *f);

/* The virtual address at file offset off (0 and -1 when no PT_LOAD holds
 * it), and the reverse. */
int disasm_vaddr_of(const struct disasm_func *f, uint64_t off, uint64_t *vaddr);
int disasm_offset_of(const struct disasm_func *f, uint64_t vaddr, uint64_t *off);

/* The same for a file not disassembled yet: -1 when unreadable or no
 * PT_LOAD holds off. */
int disasm_file_vaddr(const char *path, uint64_t off, uint64_t *vaddr);

/*
 * Every direct branch (call, jump, conditional branch with a target
 * address) in the executable sections of the ELF file at path, section by
 * section in address order: each(ctx, from, kind, target) is called for
 * it and stops the walk by returning nonzero.  Calls through registers,
 * memory or the PLT's indirect jumps have no target and are not passed.
 * Errors as disasm_function's.
 */
typedef int (*disasm_branch_fn)(void *ctx, uint64_t from, enum flow_kind kind, uint64_t target);
int disasm_each_branch(const char *path, disasm_branch_fn each, void *ctx, pq_error *err);

#endif
