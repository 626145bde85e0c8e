/*
 * elf_code: which ELF symbols name code, and which PLT stub stands for
 * which function.  Shared by the uprobe call counter, the hash/XOF family
 * finder, the caller finder and the symbolizer, which all walk an
 * instance library looking for functions.
 */
#ifndef PQ_ELF_CODE_H
#define PQ_ELF_CODE_H

#include <gelf.h>

/*
 * 1 when sym is a defined function: STT_FUNC or STT_GNU_IFUNC, or an
 * untyped symbol in an executable section (assembly routines often carry
 * no type).
 */
int elf_code_symbol(Elf *elf, const GElf_Sym *sym);

/*
 * The PLT stubs of an x86-64 or AArch64 file, which no symbol covers:
 * each(ctx, addr, name) per entry, addr its link-time address (16 bytes
 * long), name the dynamic symbol of its jump-slot relocation.  Both
 * architectures lay entries out in relocation order: in .plt.sec when the
 * file has one (IBT), else in .plt after its header (16 bytes on x86-64,
 * 32 on AArch64).  Returns how many entries were passed, 0 for other
 * machines or no PLT, or each's negative return, which stops the walk.
 */
long elf_plt_each(Elf *elf, int (*each)(void *ctx, uint64_t addr, const char *name), void *ctx);

#endif
