/* elf_code: which ELF symbols name code, and PLT stubs (see elf_code.h). */
#include "config.h"
#include "profile/elf_code.h"

#include <string.h>

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

long elf_plt_each(Elf *elf, int (*each)(void *ctx, uint64_t addr, const char *name), void *ctx)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	uint64_t header;
	if (eh.e_machine == EM_X86_64)
		header = 16;
	else if (eh.e_machine == EM_AARCH64)
		header = 32;
	else
		return 0;
	GElf_Shdr plt = { 0 }, pltsec = { 0 }, rela = { 0 };
	Elf_Scn *rela_scn = NULL, *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm)
			continue;
		if (strcmp(nm, ".plt") == 0)
			plt = sh;
		else if (strcmp(nm, ".plt.sec") == 0)
			pltsec = sh;
		else if (strcmp(nm, ".rela.plt") == 0 && sh.sh_type == SHT_RELA) {
			rela = sh;
			rela_scn = scn;
		}
	}
	if (!rela_scn || !plt.sh_size || !rela.sh_entsize)
		return 0;
	uint64_t base = pltsec.sh_size ? pltsec.sh_addr : plt.sh_addr + header;
	uint64_t limit = pltsec.sh_size ? pltsec.sh_addr + pltsec.sh_size : plt.sh_addr + plt.sh_size;
	Elf_Scn *dynsym = elf_getscn(elf, rela.sh_link);
	GElf_Shdr dsh;
	Elf_Data *rd = elf_getdata(rela_scn, NULL);
	Elf_Data *sd = dynsym ? elf_getdata(dynsym, NULL) : NULL;
	if (!rd || !sd || !gelf_getshdr(dynsym, &dsh))
		return 0;
	size_t nrel = rela.sh_size / rela.sh_entsize;
	long passed = 0;
	for (size_t i = 0; i < nrel; i++) {
		uint64_t at = base + 16 * i;
		if (at + 16 > limit)
			break;
		GElf_Rela rl;
		GElf_Sym ds;
		if (!gelf_getrela(rd, (int)i, &rl) || !gelf_getsym(sd, (int)GELF_R_SYM(rl.r_info), &ds))
			continue;
		const char *name = elf_strptr(elf, dsh.sh_link, ds.st_name);
		if (!name || !name[0])
			continue;
		int r = each(ctx, at, name);
		if (r < 0)
			return r;
		passed++;
	}
	return passed;
}
