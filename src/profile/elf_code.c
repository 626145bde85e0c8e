/* elf_code: which ELF symbols name code (see elf_code.h). */
#include "config.h"
#include "profile/elf_code.h"

int elf_code_symbol(Elf *elf, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	if (type != STT_NOTYPE)
		return 0;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}
