/*
 * elf_code: which ELF symbols name code.  Shared by the uprobe call
 * counter and the hash/XOF family finder, which both walk an instance
 * library's symbol table looking for functions.
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

#endif
