/* disasm: one function of an ELF file through capstone (see disasm.h). */
#include "config.h"
#include "core/atomic_file.h"
#include "profile/disasm.h"

#include "profile/elf_code.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sym_pick {
	uint64_t start, size;
	size_t shndx;
	char *name;
};

/* Best symbol of one symbol table: by name (one with a size first), or
 * the sized function containing vaddr, else the nearest global code
 * symbol at or before it. */
static void scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, uint64_t vaddr,
                         struct sym_pick *p)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t ns = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; d && i < ns; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || !elf_code_symbol(elf, &s))
			continue;
		const char *sn = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!sn || !*sn)
			continue;
		int take;
		if (name)
			take = strcmp(sn, name) == 0 && (!p->name || (!p->size && s.st_size));
		else if (s.st_size)
			take = s.st_value <= vaddr && vaddr < s.st_value + s.st_size && !p->size;
		else
			take = s.st_value <= vaddr && GELF_ST_BIND(s.st_info) != STB_LOCAL && !p->size &&
			       (!p->name || s.st_value > p->start);
		if (!take)
			continue;
		char *dup = strdup(sn);
		if (!dup)
			continue;
		free(p->name);
		p->name = dup;
		p->start = s.st_value;
		p->size = s.st_size;
		p->shndx = s.st_shndx;
	}
}

static int pick_symbol(Elf *elf, const char *name, uint64_t vaddr, struct sym_pick *p)
{
	Elf_Scn *scn;
	for (int pass = 0; pass < 2 && !p->name; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_entsize &&
			    sh.sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
				scan_symbols(elf, scn, &sh, name, vaddr, p);
		}
	}
	if (!p->name)
		return -1;
	if (p->size)
		return 0;
	/* No size: up to the next function or global code symbol of the section
	 * (a routine's local labels do not end it), or the section's end. */
	GElf_Shdr ts;
	Elf_Scn *text = elf_getscn(elf, p->shndx);
	uint64_t end = text && gelf_getshdr(text, &ts) ? ts.sh_addr + ts.sh_size : p->start;
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)i, &s) && elf_code_symbol(elf, &s) && s.st_shndx == p->shndx &&
			    (GELF_ST_BIND(s.st_info) != STB_LOCAL || GELF_ST_TYPE(s.st_info) == STT_FUNC) &&
			    s.st_value > p->start && s.st_value < end)
				end = s.st_value;
		}
	}
	p->size = end - p->start;
	return 0;
}

static int read_loads(Elf *elf, struct disasm_func *f)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	if (!(f->loads = calloc(n + 1, sizeof *f->loads)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->nloads++] = (struct disasm_load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return 0;
}

int disasm_vaddr_of(const struct disasm_func *f, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->nloads; i++)
		if (off >= f->loads[i].offset && off < f->loads[i].offset + f->loads[i].filesz) {
			*vaddr = off - f->loads[i].offset + f->loads[i].vaddr;
			return 0;
		}
	*vaddr = 0;
	return -1;
}

int disasm_offset_of(const struct disasm_func *f, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < f->nloads; i++)
		if (vaddr >= f->loads[i].vaddr && vaddr < f->loads[i].vaddr + f->loads[i].filesz) {
			*off = vaddr - f->loads[i].vaddr + f->loads[i].offset;
			return 0;
		}
	*off = 0;
	return -1;
}

int disasm_file_vaddr(const char *path, uint64_t off, uint64_t *vaddr)
{
	struct disasm_func f = { 0 };
	int fd = open_regular(path), rc = -1;
	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && read_loads(elf, &f) == 0)
		rc = disasm_vaddr_of(&f, off, vaddr);
	free(f.loads);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* The code bytes [start, start + size) from the section holding them. */
static unsigned char *code_bytes(Elf *elf, uint64_t start, uint64_t size)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    start < sh.sh_addr || start + size > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		unsigned char *b = malloc(size ? size : 1);
		if (b)
			memcpy(b, (const unsigned char *)d->d_buf + (start - sh.sh_addr), size);
		return b;
	}
	return NULL;
}

static enum flow_kind x86_kind(csh h, const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;
	*target = 0;
	if (cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_IRET) || in->id == X86_INS_UD2 ||
	    in->id == X86_INS_HLT)
		return FLOW_RET;
	int call = cs_insn_group(h, in, CS_GRP_CALL), jump = cs_insn_group(h, in, CS_GRP_JUMP);
	if (!call && !jump)
		return FLOW_NONE;
	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		*target = (uint64_t)x->operands[0].imm;
	if (call)
		return FLOW_CALL;
	return in->id == X86_INS_JMP || in->id == X86_INS_LJMP ? FLOW_JUMP : FLOW_COND;
}

static enum flow_kind arm64_kind(csh h, const cs_insn *in, uint64_t *target)
{
	const cs_arm64 *x = &in->detail->arm64;
	*target = 0;
	if (cs_insn_group(h, in, CS_GRP_RET))
		return FLOW_RET;
	int call = cs_insn_group(h, in, CS_GRP_CALL), jump = cs_insn_group(h, in, CS_GRP_JUMP);
	if (!call && !jump)
		return FLOW_NONE;
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == ARM64_OP_IMM)
			*target = (uint64_t)x->operands[i].imm;
	if (call)
		return FLOW_CALL;
	if (in->id == ARM64_INS_BR)
		return FLOW_JUMP;
	if (in->id == ARM64_INS_CBZ || in->id == ARM64_INS_CBNZ || in->id == ARM64_INS_TBZ || in->id == ARM64_INS_TBNZ)
		return FLOW_COND;
	return in->id == ARM64_INS_B && x->cc == ARM64_CC_INVALID ? FLOW_JUMP : FLOW_COND;
}

/* A capstone handle (details on, data skipped) for the ELF file's machine. */
static int open_capstone(Elf *elf, csh *h, cs_arch *arch, const char **name, pq_error *err)
{
	GElf_Ehdr eh;
	cs_mode mode;
	if (!gelf_getehdr(elf, &eh))
		return pq_fail(err, PQ_EINPUT, "no ELF header");
	if (eh.e_machine == EM_X86_64) {
		*arch = CS_ARCH_X86;
		mode = CS_MODE_64;
		*name = "x86-64";
	} else if (eh.e_machine == EM_AARCH64) {
		*arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		*name = "aarch64";
	} else {
		return pq_fail(err, PQ_EINPUT, "ELF machine %u: only x86-64 and aarch64 are disassembled",
		               (unsigned)eh.e_machine);
	}
	if (cs_open(*arch, mode, h) != CS_ERR_OK)
		return pq_fail(err, PQ_EINPUT, "capstone cannot open %s", *name);
	cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(*h, CS_OPT_SKIPDATA, CS_OPT_ON);
	return 0;
}

static enum flow_kind insn_kind(csh h, cs_arch arch, const cs_insn *in, uint64_t *target)
{
	*target = 0;
	if (in->id == 0 || !in->detail)
		return FLOW_NONE;
	return arch == CS_ARCH_X86 ? x86_kind(h, in, target) : arm64_kind(h, in, target);
}

static int disassemble(Elf *elf, const unsigned char *code, struct disasm_func *f, pq_error *err)
{
	csh h;
	cs_arch arch;
	if (open_capstone(elf, &h, &arch, &f->arch, err) < 0)
		return -err->code;
	cs_insn *in = NULL;
	size_t n = cs_disasm(h, code, f->size, f->start, 0, &in);
	int rc = 0;
	f->flow = calloc(n + 1, sizeof *f->flow);
	f->insn = calloc(n + 1, sizeof *f->insn);
	if (!f->flow || !f->insn) {
		rc = pq_fail(err, PQ_ENOMEM, "out of memory");
	} else {
		for (size_t i = 0; i < n; i++) {
			struct flow_insn *fl = &f->flow[i];
			fl->addr = in[i].address;
			fl->size = in[i].size;
			fl->kind = insn_kind(h, arch, &in[i], &fl->target);
			snprintf(f->insn[i].text, sizeof f->insn[i].text, "%s%s%s", in[i].mnemonic,
			         in[i].op_str[0] ? " " : "", in[i].op_str);
		}
		f->n = n;
	}
	if (in)
		cs_free(in, n);
	cs_close(&h);
	return rc;
}

int disasm_function(const char *path, const char *name, uint64_t vaddr, struct disasm_func *out,
                    pq_error *err)
{
	memset(out, 0, sizeof *out);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pq_fail(err, PQ_EINPUT, "libelf: %s", elf_errmsg(-1));
	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = 0;
	struct sym_pick p = { 0 };
	unsigned char *code = NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file", path);
	} else if (pick_symbol(elf, name, vaddr, &p) < 0) {
		if (name)
			rc = pq_fail(err, PQ_EUSAGE, "%s: no function '%s'", path, name);
		else
			rc = pq_fail(err, PQ_EUSAGE, "%s: no function at 0x%llx", path, (unsigned long long)vaddr);
	} else if (!p.size || !(code = code_bytes(elf, p.start, p.size))) {
		rc = pq_fail(err, PQ_EINPUT, "%s: no code bytes for %s", path, p.name);
	} else {
		out->name = p.name;
		p.name = NULL;
		out->start = p.start;
		out->size = p.size;
		if (read_loads(elf, out) < 0)
			rc = pq_fail(err, PQ_ENOMEM, "out of memory");
		else
			rc = disassemble(elf, code, out, err);
	}
	free(code);
	free(p.name);
	if (elf)
		elf_end(elf);
	close(fd);
	if (rc < 0)
		disasm_func_free(out);
	return rc;
}

void disasm_func_free(struct disasm_func *f)
{
	free(f->name);
	free(f->flow);
	free(f->insn);
	free(f->loads);
	memset(f, 0, sizeof *f);
}

/* The direct branches of one executable section, in address order. */
static int section_branches(csh h, cs_arch arch, const GElf_Shdr *sh, const Elf_Data *d, disasm_branch_fn each,
                            void *ctx)
{
	const uint8_t *code = d->d_buf;
	size_t left = sh->sh_size;
	uint64_t addr = sh->sh_addr;
	cs_insn *in = cs_malloc(h);
	int stop = 0;
	if (!in)
		return -1;
	while (!stop && left > 0 && cs_disasm_iter(h, &code, &left, &addr, in)) {
		uint64_t target;
		enum flow_kind k = insn_kind(h, arch, in, &target);
		if ((k == FLOW_CALL || k == FLOW_JUMP || k == FLOW_COND) && target)
			stop = each(ctx, in->address, k, target);
	}
	cs_free(in, 1);
	return stop;
}

int disasm_each_branch(const char *path, disasm_branch_fn each, void *ctx, pq_error *err)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pq_fail(err, PQ_EINPUT, "libelf: %s", elf_errmsg(-1));
	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = 0;
	csh h;
	cs_arch arch;
	const char *name;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file", path);
	} else if (open_capstone(elf, &h, &arch, &name, err) < 0) {
		rc = -err->code;
	} else {
		for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && rc == 0; scn = elf_nextscn(elf, scn)) {
			GElf_Shdr sh;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
			    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size < sh.sh_size)
				continue;
			int r = section_branches(h, arch, &sh, d, each, ctx);
			if (r < 0)
				rc = pq_fail(err, PQ_ENOMEM, "out of memory");
			else if (r > 0)
				break;
		}
		cs_close(&h);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
