/* call_sites: direct callers of named functions, with source files; see call_sites.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "profile/call_sites.h"

#include "profile/disasm.h"
#include "profile/elf_code.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct code_sym {
	uint64_t start, size;
	const char *name;        /* in the ELF string table, valid while the Elf is open */
	int global;              /* not STB_LOCAL */
};

struct walk {
	struct code_sym *syms;
	size_t nsyms;
	struct call_sites *out;
	size_t cap;
	int oom;
};

static int by_start(const void *a, const void *b)
{
	const struct code_sym *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int by_addr(const void *a, const void *b)
{
	const struct call_site *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int matches(const char *name, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (globs[i] && fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

struct plt_ctx {
	struct call_sites *out;
	const char *const *globs;
	size_t nglobs;
};

/* A PLT stub of a target: its second address (a target of its own when the library does not define it). */
static int plt_target(void *ctx, uint64_t addr, const char *name)
{
	struct plt_ctx *pc = ctx;
	struct call_sites *cs = pc->out;
	if (!matches(name, pc->globs, pc->nglobs))
		return 0;
	for (size_t k = 0; k < cs->ntargets; k++)
		if (strcmp(cs->targets[k].name, name) == 0) {
			cs->targets[k].plt = addr;
			return 0;
		}
	struct call_target *t = realloc(cs->targets, (cs->ntargets + 1) * sizeof *t);
	if (!t)
		return -1;
	cs->targets = t;
	t = &cs->targets[cs->ntargets];
	memset(t, 0, sizeof *t);
	if (!(t->name = strdup(name)))
		return -1;
	t->plt = addr;
	cs->ntargets++;
	return 0;
}

/* The code symbols of the best symbol table, and the targets among them. */
static int read_symbols(Elf *elf, const char *const *globs, size_t nglobs, struct walk *w, pq_error *err)
{
	Elf_Scn *best = NULL;
	GElf_Shdr bsh = { 0 };
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_entsize &&
		    (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best))) {
			best = scn;
			bsh = sh;
		}
	}
	Elf_Data *d = best ? elf_getdata(best, NULL) : NULL;
	if (!d)
		return pq_fail(err, PQ_EINPUT, "no symbol table");
	size_t n = bsh.sh_size / bsh.sh_entsize;
	w->syms = calloc(n ? n : 1, sizeof *w->syms);
	w->out->targets = calloc(n ? n : 1, sizeof *w->out->targets);
	if (!w->syms || !w->out->targets)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || !elf_code_symbol(elf, &s))
			continue;
		const char *name = elf_strptr(elf, bsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		w->syms[w->nsyms++] = (struct code_sym){ s.st_value, s.st_size, name, GELF_ST_BIND(s.st_info) != STB_LOCAL };
		if (!matches(name, globs, nglobs))
			continue;
		int seen = 0;
		for (size_t k = 0; k < w->out->ntargets && !seen; k++)
			seen = w->out->targets[k].addr == s.st_value;
		if (seen)
			continue;
		struct call_target *t = &w->out->targets[w->out->ntargets];
		if (!(t->name = strdup(name)))
			return pq_fail(err, PQ_ENOMEM, "out of memory");
		t->addr = s.st_value;
		w->out->ntargets++;
	}
	if (w->nsyms > 1)
		qsort(w->syms, w->nsyms, sizeof *w->syms, by_start);
	struct plt_ctx pc = { w->out, globs, nglobs };
	if (elf_plt_each(elf, plt_target, &pc) < 0)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	return 0;
}

/*
 * The function containing addr: a sized symbol around it, else the
 * nearest unsized code symbol before it (an assembly routine), a global
 * one rather than a local label inside the routine.
 */
static const struct code_sym *containing(const struct walk *w, uint64_t addr)
{
	size_t lo = 0, hi = w->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct code_sym *label = NULL, *global = NULL;
	for (size_t i = lo; i-- > 0 && !global;) {
		const struct code_sym *s = &w->syms[i];
		if (s->size)
			return addr < s->start + s->size ? s : global ? global : label;
		if (s->global)
			global = s;
		else if (!label)
			label = s;
	}
	return global ? global : label;
}

static int on_branch(void *ctx, uint64_t from, enum flow_kind kind, uint64_t target)
{
	struct walk *w = ctx;
	struct call_sites *cs = w->out;
	if (kind != FLOW_CALL && kind != FLOW_JUMP)
		return 0;
	size_t t = 0;
	while (t < cs->ntargets && cs->targets[t].addr != target && cs->targets[t].plt != target)
		t++;
	if (t == cs->ntargets)
		return 0;
	const struct code_sym *in = containing(w, from);
	/* A jump inside the target itself is its own loop, not a call. */
	if (kind == FLOW_JUMP && in && in->start == cs->targets[t].addr)
		return 0;
	if (cs->nsites == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct call_site *s = realloc(cs->sites, cap * sizeof *s);
		if (!s) {
			w->oom = 1;
			return 1;
		}
		cs->sites = s;
		w->cap = cap;
	}
	struct call_site *s = &cs->sites[cs->nsites];
	memset(s, 0, sizeof *s);
	s->addr = from;
	s->target = t;
	s->tail = kind == FLOW_JUMP;
	if (in) {
		if (!(s->caller = strdup(in->name))) {
			w->oom = 1;
			return 1;
		}
		for (size_t k = 0; k < cs->ntargets; k++)
			s->caller_is_target |= cs->targets[k].addr && cs->targets[k].addr == in->start;
	}
	cs->nsites++;
	return 0;
}

/* The source file of the line-table row at addr, made absolute with the unit's directory. */
static char *source_file(Dwarf *dw, uint64_t addr)
{
	Dwarf_Die cu;
	if (!dwarf_addrdie(dw, addr, &cu))
		return NULL;
	Dwarf_Line *line = dwarf_getsrc_die(&cu, addr);
	const char *f = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
	if (!f)
		return NULL;
	Dwarf_Attribute at;
	const char *dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
	if (f[0] == '/' || !dir)
		return strdup(f);
	size_t n = strlen(dir) + strlen(f) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, f);
	return p;
}

/* Files of the targets' entries and of the sites; none without DWARF (cs->dwarf stays 0). */
static void add_files(Elf *elf, struct call_sites *cs)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return;
	for (size_t i = 0; i < cs->ntargets; i++) {
		cs->targets[i].file = cs->targets[i].addr ? source_file(dw, cs->targets[i].addr) : NULL;
		cs->dwarf |= cs->targets[i].file != NULL;
	}
	for (size_t i = 0; i < cs->nsites; i++) {
		cs->sites[i].file = source_file(dw, cs->sites[i].addr);
		cs->dwarf |= cs->sites[i].file != NULL;
	}
	dwarf_end(dw);
}

int call_sites_find(const char *path, const char *const *globs, size_t nglobs, struct call_sites *out,
                    pq_error *err)
{
	memset(out, 0, sizeof *out);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pq_fail(err, PQ_EINPUT, "libelf: %s", elf_errmsg(-1));
	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail(err, PQ_EIO, "%s: %s", path, strerror(errno));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct walk w = { .out = out };
	int rc = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file", path);
	} else if ((rc = read_symbols(elf, globs, nglobs, &w, err)) < 0) {
		pq_error_prefix(err, "%s: ", path);
	} else if (out->ntargets && (rc = disasm_each_branch(path, on_branch, &w, err)) == 0) {
		if (w.oom) {
			rc = pq_fail(err, PQ_ENOMEM, "out of memory");
		} else {
			if (out->nsites > 1)  /* no sites: a NULL array, which qsort must not get */
				qsort(out->sites, out->nsites, sizeof *out->sites, by_addr);
			add_files(elf, out);
		}
	}
	free(w.syms);
	if (elf)
		elf_end(elf);
	close(fd);
	if (rc < 0)
		call_sites_free(out);
	return rc;
}

void call_sites_free(struct call_sites *cs)
{
	for (size_t i = 0; i < cs->ntargets; i++) {
		free(cs->targets[i].name);
		free(cs->targets[i].file);
	}
	for (size_t i = 0; i < cs->nsites; i++) {
		free(cs->sites[i].caller);
		free(cs->sites[i].file);
	}
	free(cs->targets);
	free(cs->sites);
	memset(cs, 0, sizeof *cs);
}
