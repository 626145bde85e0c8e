/*
 * symbolizer: address -> (inline chain, function, file:line) for one
 * traced process, on top of a libdwfl session; see symbolizer.h.
 *
 * libdwfl finds modules by address and reads DWARF; the symbol-table rules
 * (sizeless assembly routines, local labels) are ours, because libdwfl's
 * own nearest-symbol choice may name a routine after a label inside it.
 * Not here: unwinding, trace parsing, aggregation.
 */
#include "config.h"
#include "core/atomic_file.h"
#include "profile/symbolizer.h"
#include "profile/elf_code.h"
#include "core/grow.h"
#include "core/path_name.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- memory: an arena for frames, an interned string set ---- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct arena {
	struct arena_chunk *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 60000 ? n : 60000;
		c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *next = a->head->next;
		free(a->head);
		a->head = next;
	}
}

struct strset {
	char **slot;
	size_t cap, count;  /* cap: power of two */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;  /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int strset_grow(struct strset *ss)
{
	size_t cap = ss->cap ? ss->cap * 2 : 256;
	char **slot = calloc(cap, sizeof *slot);
	if (!slot)
		return -1;
	for (size_t i = 0; i < ss->cap; i++) {
		if (!ss->slot[i])
			continue;
		size_t j = hash_str(ss->slot[i]) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = ss->slot[i];
	}
	free(ss->slot);
	ss->slot = slot;
	ss->cap = cap;
	return 0;
}

/* The one copy of S (NULL stays NULL); NULL also when out of memory. */
static const char *intern(struct strset *ss, const char *s)
{
	if (!s)
		return NULL;
	if ((ss->count + 1) * 2 > ss->cap && strset_grow(ss) < 0)
		return NULL;
	size_t j = hash_str(s) & (ss->cap - 1);
	while (ss->slot[j]) {
		if (strcmp(ss->slot[j], s) == 0)
			return ss->slot[j];
		j = (j + 1) & (ss->cap - 1);
	}
	ss->slot[j] = strdup(s);
	if (!ss->slot[j])
		return NULL;
	ss->count++;
	return ss->slot[j];
}

static void strset_free(struct strset *ss)
{
	for (size_t i = 0; i < ss->cap; i++)
		free(ss->slot[i]);
	free(ss->slot);
	memset(ss, 0, sizeof *ss);
}

/* ---- modules, mappings, symbol tables ---- */

/* A symbol usable to name code, with the extent we attribute to it. */
struct sym_entry {
	uint64_t start, end;   /* module (run-time) addresses */
	uint64_t sec_end;      /* end of its section; 0 when unknown */
	const char *name;
	const char *file;      /* from STT_FILE, locals only */
	int rank;              /* higher wins among aliases */
	bool sized;
};

/* A local symbol with a known STT_FILE: tells which object a range came from. */
struct file_hint {
	uint64_t addr;
	const char *file;
};

/* A code range of one compilation unit (DWARF addresses). */
struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die *cu;
};

struct module {
	Dwfl_Module *dwfl_mod;
	const char *path;      /* interned */
	const char *name;      /* interned basename */
	uint64_t bias;
	bool syms_loaded;
	struct sym_entry *syms;
	size_t nsyms;
	struct file_hint *hints;
	size_t nhints;
	bool cus_loaded;
	struct cu_range *cus;  /* fallback CU lookup, see module_cudie */
	size_t ncus;
	Dwarf_Addr dwarf_bias;
};

struct mapping {
	uint64_t start, end, pgoff;
	const char *path, *name;
	struct module *mod;    /* NULL when the file could not be used */
};

struct cache_slot {
	uint64_t addr;
	int nframes;           /* 0: empty slot */
	const struct sym_frame *frames;
};

struct symbolizer {
	Dwfl *dwfl;
	struct module **mods;
	size_t nmods, capmods;
	struct mapping *maps;
	size_t nmaps, capmaps;
	struct cache_slot *cache;
	size_t cache_cap, cache_count;  /* cap: power of two */
	struct arena arena;
	struct strset strings;
	struct sym_frame unknown;       /* the shared "[unknown]" frame */
	const char *dwarf_only;         /* interned module basename, or NULL: all */
	uint64_t lookups, misses;
};

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	/* build-id directories, .gnu_debuglink, and debuginfod only where the
	 * user configured it (DEBUGINFOD_URLS), like the elfutils tools. */
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct symbolizer *symbolizer_new(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	struct symbolizer *sym = calloc(1, sizeof *sym);
	if (!sym)
		return NULL;
	sym->dwfl = dwfl_begin(&dwfl_callbacks);
	sym->cache_cap = 1024;
	sym->cache = calloc(sym->cache_cap, sizeof *sym->cache);
	sym->unknown.function = intern(&sym->strings, "[unknown]");
	if (!sym->dwfl || !sym->cache || !sym->unknown.function) {
		symbolizer_free(sym);
		return NULL;
	}
	return sym;
}

void symbolizer_free(struct symbolizer *sym)
{
	if (!sym)
		return;
	if (sym->dwfl)
		dwfl_end(sym->dwfl);
	for (size_t i = 0; i < sym->nmods; i++) {
		free(sym->mods[i]->syms);
		free(sym->mods[i]->hints);
		free(sym->mods[i]->cus);
		free(sym->mods[i]);
	}
	free(sym->mods);
	free(sym->maps);
	free(sym->cache);
	arena_free(&sym->arena);
	strset_free(&sym->strings);
	free(sym);
}

void symbolizer_get_stats(const struct symbolizer *sym, struct symbolizer_stats *st)
{
	st->lookups = sym->lookups;
	st->misses = sym->misses;
	st->cached = sym->cache_count;
	st->modules = sym->nmods;
}

static const char *display_name(struct symbolizer *sym, const char *path)
{
	const char *base = path_base(path);
	size_t n = strlen(base);
	/* "[vdso]" -> "vdso", so unknown addresses read "[vdso+0x10]". */
	if (n >= 2 && base[0] == '[' && base[n - 1] == ']') {
		char tmp[256];
		snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 2), base + 1);
		return intern(&sym->strings, tmp);
	}
	return intern(&sym->strings, base);
}

static void cache_clear(struct symbolizer *sym)
{
	/* Frame arrays live in the arena, so callers' pointers stay valid. */
	memset(sym->cache, 0, sym->cache_cap * sizeof *sym->cache);
	sym->cache_count = 0;
}

static struct mapping *remember_mapping(struct symbolizer *sym, const char *path,
					uint64_t start, uint64_t end, uint64_t pgoff)
{
	for (size_t i = 0; i < sym->nmaps; i++) {
		struct mapping *m = &sym->maps[i];
		if (m->start == start && m->end == end && m->pgoff == pgoff && strcmp(m->path, path) == 0)
			return m;
	}
	if (pq_grow(&sym->maps, &sym->capmaps, sym->nmaps + 1, sizeof *sym->maps, 16) < 0)
		return NULL;
	struct mapping *m = &sym->maps[sym->nmaps];
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->path = intern(&sym->strings, path);
	m->name = display_name(sym, path);
	m->mod = NULL;
	if (!m->path || !m->name)
		return NULL;
	sym->nmaps++;
	return m;
}

/*
 * Load bias of a file mapped at START from file offset PGOFF: the kernel
 * maps a PT_LOAD segment from its page-aligned offset, so the run-time
 * address of file offset PGOFF is START, and its link-time address is
 * p_vaddr - (p_offset - PGOFF) for the segment holding PGOFF.  When
 * segments share a file page (no -z separate-code), several segments hold
 * PGOFF: prefer a bias the file already has in this process, then the
 * executable segment (profiles sample code).
 */
static int compute_bias(Elf *elf, const char *path, uint64_t start, uint64_t pgoff,
			const uint64_t *known, size_t nknown, uint64_t *bias, pq_error *err)
{
	GElf_Ehdr eh;
	size_t phnum;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0)
		return pq_fail(err, PQ_EINPUT, "%s: cannot read ELF headers: %s", path, elf_errmsg(-1));
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pagemask = (uint64_t)(page > 0 ? page : 4096) - 1;
	bool found = false, found_exec = false;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t first = ph.p_offset & ~pagemask;
		if (pgoff < first || pgoff >= ph.p_offset + (ph.p_filesz ? ph.p_filesz : 1))
			continue;
		uint64_t b = start + ph.p_offset - pgoff - ph.p_vaddr;  /* mod 2^64 */
		for (size_t k = 0; k < nknown; k++)
			if (known[k] == b) {
				*bias = b;
				return 0;
			}
		bool exec = (ph.p_flags & PF_X) != 0;
		if (!found || (exec && !found_exec)) {
			*bias = b;
			found = true;
			found_exec = exec;
		}
	}
	if (found)
		return 0;
	return pq_fail(err, PQ_EINPUT, "%s: no PT_LOAD segment holds mapped file offset 0x%" PRIx64,
		       path, pgoff);
}

static int check_build_id(Elf *elf, const char *path, const unsigned char *want, size_t want_len,
			  pq_error *err)
{
	if (!want || want_len == 0)
		return 0;
	const void *have = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &have);
	/* perf pads build-ids to 20 bytes; compare the file's length. */
	if (n > 0 && (size_t)n <= want_len && memcmp(have, want, (size_t)n) == 0)
		return 0;
	return pq_fail(err, PQ_EINPUT, "%s: build-id differs from the traced file (rebuilt since the trace?)",
		       path);
}

/* Open PATH with libelf, check it, and work out its load bias. */
static int inspect_file(const char *path, uint64_t start, uint64_t pgoff,
			const unsigned char *build_id, size_t build_id_len,
			const uint64_t *known, size_t nknown, uint64_t *bias, pq_error *err)
{
	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot open", path);
	int rc;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file", path);
	else if ((rc = check_build_id(elf, path, build_id, build_id_len, err)) == 0)
		rc = compute_bias(elf, path, start, pgoff, known, nknown, bias, err);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static struct module *find_module(struct symbolizer *sym, const char *path, uint64_t bias)
{
	for (size_t i = 0; i < sym->nmods; i++)
		if (sym->mods[i]->bias == bias && strcmp(sym->mods[i]->path, path) == 0)
			return sym->mods[i];
	return NULL;
}

static int report_module(struct symbolizer *sym, struct mapping *map, uint64_t bias,
			 struct module **out, pq_error *err)
{
	if (pq_grow(&sym->mods, &sym->capmods, sym->nmods + 1, sizeof *sym->mods, 8) < 0)
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", map->path);
	struct module *mod = calloc(1, sizeof *mod);
	if (!mod)
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", map->path);
	dwfl_report_begin_add(sym->dwfl);
	Dwfl_Module *dm = dwfl_report_elf(sym->dwfl, map->name, map->path, -1, bias, true);
	const char *why = dm ? NULL : dwfl_errmsg(-1);
	dwfl_report_end(sym->dwfl, NULL, NULL);
	if (!dm) {
		free(mod);
		return pq_fail(err, PQ_EINPUT, "%s: libdwfl cannot use it: %s", map->path, why);
	}
	void **userdata = NULL;
	dwfl_module_info(dm, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = mod;
	mod->dwfl_mod = dm;
	mod->path = map->path;
	mod->name = map->name;
	mod->bias = bias;
	sym->mods[sym->nmods++] = mod;
	*out = mod;
	return 0;
}

int symbolizer_add_module(struct symbolizer *sym, const char *path,
			  uint64_t start, uint64_t end, uint64_t pgoff,
			  const unsigned char *build_id, size_t build_id_len,
			  pq_error *err)
{
	if (end <= start)
		return pq_fail(err, PQ_EINPUT, "%s: empty mapping [0x%" PRIx64 ", 0x%" PRIx64 ")",
			       path, start, end);
	struct mapping *map = remember_mapping(sym, path, start, end, pgoff);
	if (!map)
		return pq_fail(err, PQ_ENOMEM, "%s: out of memory", path);
	cache_clear(sym);
	if (map->mod)
		return 0;

	/* Biases this file already has, to settle ambiguous mappings. */
	uint64_t known[8];
	size_t nknown = 0;
	for (size_t i = 0; i < sym->nmods && nknown < 8; i++)
		if (sym->mods[i]->path == map->path)
			known[nknown++] = sym->mods[i]->bias;
	uint64_t bias = 0;
	int rc = inspect_file(path, start, pgoff, build_id, build_id_len, known, nknown, &bias, err);
	if (rc < 0)
		return rc;
	struct module *mod = find_module(sym, map->path, bias);
	if (!mod && (rc = report_module(sym, map, bias, &mod, err)) < 0)
		return rc;
	map->mod = mod;
	return 0;
}

/* Which symbols may name code.  Local untyped symbols are labels. */
static int symbol_rank(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	int b = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_GNU_UNIQUE ? 2 : 1;
	switch (type) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return 30 + b;
	case STT_NOTYPE:
		return bind == STB_LOCAL ? 0 : 20 + b;
	case STT_OBJECT:
		return s->st_size ? 10 + b : 0;
	default:
		return 0;
	}
}

static int by_start_then_rank(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	/* Among equal aliases the public name (printf, not __printf) reads best. */
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int hint_by_addr(const void *a, const void *b)
{
	const struct file_hint *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Run-time end of the section SHNDX of ELF, or 0 when unknown. */
static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	return sh.sh_addr + sh.sh_size + bias;
}

struct plt_add {
	struct symbolizer *sym;
	struct module *mod;
	size_t cnt, *cap;
	GElf_Addr bias;
	long added;
};

static int plt_add_one(void *ctx, uint64_t addr, const char *name)
{
	struct plt_add *p = ctx;
	if (pq_grow(&p->mod->syms, p->cap, p->cnt + (size_t)p->added + 1, sizeof *p->mod->syms, 16) < 0)
		return -PQ_ENOMEM;
	char buf[512];
	snprintf(buf, sizeof buf, "%s@plt", name);
	struct sym_entry *e = &p->mod->syms[p->cnt + (size_t)p->added];
	memset(e, 0, sizeof *e);
	e->start = addr + p->bias;
	e->end = e->start + 16;
	e->sized = true;
	e->rank = 1;
	e->name = intern(&p->sym->strings, buf);
	if (!e->name)
		return -PQ_ENOMEM;
	p->added++;
	return 0;
}

/*
 * PLT stubs, which no symbol covers: "name@plt" for each entry
 * (elf_code.h says where they are).  Appends to mod->syms (room for *cap
 * entries, grown here); returns how many were added, or -PQ_ENOMEM.
 */
static long add_plt_symbols(struct symbolizer *sym, struct module *mod, size_t cnt, size_t *cap)
{
	struct plt_add p = { .sym = sym, .mod = mod, .cnt = cnt, .cap = cap };
	Elf *elf = dwfl_module_getelf(mod->dwfl_mod, &p.bias);
	long r = elf_plt_each(elf, plt_add_one, &p);
	return r < 0 ? r : p.added;
}

/*
 * Build the module's sorted symbol table.  Sized symbols cover
 * [start, start+size); sizeless ones (assembly) run to the next symbol or
 * the end of their section.  Aliases collapse to the best-ranked name.
 */
static int load_symbols(struct symbolizer *sym, struct module *mod)
{
	mod->syms_loaded = true;
	int n = dwfl_module_getsymtab(mod->dwfl_mod);
	if (n < 1)
		n = 1;
	size_t cap = (size_t)n;
	mod->syms = calloc(cap, sizeof *mod->syms);
	mod->hints = calloc((size_t)n, sizeof *mod->hints);
	if (!mod->syms || !mod->hints)
		return -PQ_ENOMEM;
	Elf *cur_elf = NULL;
	const char *cur_file = NULL;
	size_t cnt = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(mod->dwfl_mod, i, &s, &addr, &shndx, &elf, &bias);
		if (!name)
			continue;
		if (elf != cur_elf) {   /* symbols may come from the debug file too */
			cur_elf = elf;
			cur_file = NULL;
		}
		int type = GELF_ST_TYPE(s.st_info);
		if (type == STT_FILE) {
			cur_file = name[0] ? intern(&sym->strings, name) : NULL;
			continue;
		}
		if (!name[0] || shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON ||
		    shndx == (GElf_Word)-1)
			continue;
		bool local = GELF_ST_BIND(s.st_info) == STB_LOCAL;
		if (local && cur_file && type != STT_SECTION)
			mod->hints[mod->nhints++] = (struct file_hint){ addr, cur_file };
		int rank = symbol_rank(&s);
		if (rank == 0)
			continue;
		struct sym_entry *e = &mod->syms[cnt];
		e->start = addr;
		e->sized = s.st_size != 0;
		e->end = addr + s.st_size;
		e->sec_end = section_end(elf, shndx, bias);
		e->name = intern(&sym->strings, name);
		e->file = local ? cur_file : NULL;
		e->rank = rank;
		if (!e->name)
			return -PQ_ENOMEM;
		cnt++;
	}
	long plt = add_plt_symbols(sym, mod, cnt, &cap);
	if (plt < 0)
		return (int)plt;
	cnt += (size_t)plt;
	qsort(mod->syms, cnt, sizeof *mod->syms, by_start_then_rank);
	qsort(mod->hints, mod->nhints, sizeof *mod->hints, hint_by_addr);

	/* Collapse aliases (best rank sorts first), keeping any known size. */
	size_t out = 0;
	for (size_t i = 0; i < cnt; i++) {
		struct sym_entry *e = &mod->syms[i];
		if (out > 0 && mod->syms[out - 1].start == e->start) {
			struct sym_entry *kept = &mod->syms[out - 1];
			if (!kept->sized && e->sized) {
				kept->sized = true;
				kept->end = e->end;
			}
			continue;
		}
		mod->syms[out++] = *e;
	}
	/* A sizeless symbol runs to the next symbol or its section's end. */
	for (size_t i = 0; i < out; i++) {
		struct sym_entry *e = &mod->syms[i];
		if (e->sized)
			continue;
		uint64_t limit = e->sec_end > e->start ? e->sec_end : UINT64_MAX;
		if (i + 1 < out && mod->syms[i + 1].start < limit)
			limit = mod->syms[i + 1].start;
		e->end = limit;
	}
	mod->nsyms = out;
	return 0;
}

static const struct sym_entry *lookup_symbol(const struct module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->nsyms;
	while (lo < hi) {   /* first entry with start > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (mod->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Usually the nearest entry; look a little further back for an
	 * enclosing sized symbol (nested objects, overlapping clones). */
	for (size_t k = 0; k < 8 && lo > 0; k++, lo--) {
		const struct sym_entry *e = &mod->syms[lo - 1];
		if (addr < e->end)
			return e;
	}
	return NULL;
}

/* File of the object a symbol came from: a local symbol inside its extent. */
static const char *hinted_file(const struct module *mod, const struct sym_entry *e)
{
	if (e->file)
		return e->file;
	size_t lo = 0, hi = mod->nhints;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mod->hints[mid].addr < e->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mod->nhints && mod->hints[lo].addr < e->end ? mod->hints[lo].file : NULL;
}

/* ---- compilation units ---- */

static int cu_by_lo(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void load_cu_ranges(struct module *mod)
{
	mod->cus_loaded = true;
	size_t cap = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(mod->dwfl_mod, cu, &bias)) != NULL) {
		mod->dwarf_bias = bias;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
			/* On failure keep what we have: lookups degrade, not fail. */
			if (pq_grow(&mod->cus, &cap, mod->ncus + 1, sizeof *mod->cus, 64) < 0)
				goto done;
			mod->cus[mod->ncus++] = (struct cu_range){ lo, hi, cu };
		}
	}
done:
	if (mod->ncus > 1)
		qsort(mod->cus, mod->ncus, sizeof *mod->cus, cu_by_lo);
}

/*
 * The CU holding ADDR.  libdw looks it up through .debug_aranges, which
 * may cover only some CUs (clang emits none, gas does): then we search
 * the CUs' own address ranges.
 */
static Dwarf_Die *module_cudie(struct module *mod, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod->dwfl_mod, addr, bias);
	if (cu)
		return cu;
	if (!mod->cus_loaded)
		load_cu_ranges(mod);
	Dwarf_Addr pc = addr - mod->dwarf_bias;
	size_t lo = 0, hi = mod->ncus;
	while (lo < hi) {   /* first range with lo > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (mod->cus[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < 8 && lo > 0; k++, lo--)
		if (pc < mod->cus[lo - 1].hi) {
			*bias = mod->dwarf_bias;
			return mod->cus[lo - 1].cu;
		}
	return NULL;
}

/* Source position of ADDR from the CU's line table. */
static const char *line_at(Dwarf_Die *cudie, Dwarf_Addr pc, int *line)
{
	*line = 0;
	Dwarf_Line *dl = cudie ? dwarf_getsrc_die(cudie, pc) : NULL;
	if (!dl)
		return NULL;
	if (dwarf_lineno(dl, line) != 0)
		*line = 0;
	return dwarf_linesrc(dl, NULL, NULL);
}

/* ---- resolution ---- */

#define MAX_INLINE_DEPTH 64

struct resolution {
	struct sym_frame f[MAX_INLINE_DEPTH];
	int n;
};

static void push_frame(struct resolution *r, const struct sym_frame *f)
{
	if (r->n < MAX_INLINE_DEPTH)
		r->f[r->n++] = *f;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return name;
}

static bool is_function_die(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

/*
 * The inline chain at PC from DWARF.  dwarf_getscopes finds the innermost
 * scope, but past an inlined instance it continues with the abstract
 * definition's scopes; the concrete callers come from the DIE nesting,
 * which dwarf_getscopes_die gives.  Each caller's line is the call site
 * recorded on the inlined instance inside it.
 */
static int dwarf_chain(struct symbolizer *sym, struct module *mod, uint64_t addr,
		       const struct sym_entry *se, Dwarf_Die *cudie, Dwarf_Addr dbias,
		       struct resolution *r)
{
	if (!cudie)
		return 0;
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cudie, addr - dbias, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}
	Dwarf_Die inner = scopes[0];
	free(scopes);
	scopes = NULL;
	ns = dwarf_getscopes_die(&inner, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}
	Dwarf_Files *files = NULL;
	if (dwarf_getsrcfiles(cudie, &files, NULL) != 0)
		files = NULL;

	/* Innermost frame's position: the line table. */
	int line;
	const char *file = line_at(cudie, addr - dbias, &line);

	int before = r->n;
	for (int i = 0; i < ns; i++) {
		Dwarf_Die *die = &scopes[i];
		if (!is_function_die(die))
			continue;
		const char *name = die_name(die);
		bool outer = dwarf_tag(die) != DW_TAG_inlined_subroutine;
		struct sym_frame f = {
			.function = intern(&sym->strings, name ? name : (outer && se ? se->name : "??")),
			.file = intern(&sym->strings, file),
			.line = line > 0 ? (unsigned)line : 0,
			.module = mod->name,
			.inlined = !outer,
			.source = SYM_FROM_DWARF,
		};
		Dwarf_Addr entry;
		if (outer && se && se->start <= addr && addr < se->end)
			f.offset = addr - se->start;
		else if (dwarf_entrypc(die, &entry) == 0 && entry + dbias <= addr)
			f.offset = addr - (entry + dbias);
		if (!f.function)
			goto nomem;
		push_frame(r, &f);
		if (outer)
			break;
		/* The caller's position is this instance's call site. */
		Dwarf_Attribute attr;
		Dwarf_Word val;
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &val) == 0)
			file = dwarf_filesrc(files, val, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &val) == 0)
			line = (int)val;
	}
	free(scopes);
	if (r->n > before && r->f[r->n - 1].inlined) {
		/* No out-of-line function in the DWARF: end with the symbol. */
		struct sym_frame f = {
			.function = se ? se->name : intern(&sym->strings, "??"),
			.module = mod->name,
			.offset = se ? addr - se->start : 0,
			.source = se ? SYM_FROM_SYMTAB : SYM_FROM_NONE,
		};
		if (f.function)
			push_frame(r, &f);
	}
	return r->n - before;
nomem:
	free(scopes);
	return -PQ_ENOMEM;
}

static int unknown_in_module(struct symbolizer *sym, const char *modname, uint64_t off,
			     struct resolution *r)
{
	char buf[512];
	snprintf(buf, sizeof buf, "[%s+0x%" PRIx64 "]", modname, off);
	struct sym_frame f = { .function = intern(&sym->strings, buf), .module = modname };
	if (!f.function)
		return -PQ_ENOMEM;
	push_frame(r, &f);
	return 0;
}

static int resolve_in_module(struct symbolizer *sym, struct module *mod, uint64_t addr,
			     struct resolution *r)
{
	if (!mod->syms_loaded && load_symbols(sym, mod) < 0)
		return -PQ_ENOMEM;
	const struct sym_entry *se = lookup_symbol(mod, addr);
	Dwarf_Addr dbias = 0;
	/* Interned strings: equal names are the same pointer. */
	bool dwarf = !sym->dwarf_only || sym->dwarf_only == mod->name;
	Dwarf_Die *cudie = dwarf ? module_cudie(mod, addr, &dbias) : NULL;
	int n = dwarf ? dwarf_chain(sym, mod, addr, se, cudie, dbias, r) : 0;
	if (n != 0)
		return n < 0 ? n : 0;
	if (!se)
		return unknown_in_module(sym, mod->name, addr - mod->bias, r);

	/* Symbol table, with the line table when the object has one (.S -g). */
	struct sym_frame f = {
		.function = se->name,
		.module = mod->name,
		.offset = addr - se->start,
		.source = SYM_FROM_SYMTAB,
	};
	int line;
	const char *file = line_at(cudie, addr - dbias, &line);
	if (file) {
		f.file = intern(&sym->strings, file);
		f.line = line > 0 ? (unsigned)line : 0;
		if (!f.file)
			return -PQ_ENOMEM;
	} else {
		f.file = hinted_file(mod, se);
	}
	push_frame(r, &f);
	return 0;
}

static const struct mapping *mapping_at(const struct symbolizer *sym, uint64_t addr)
{
	for (size_t i = 0; i < sym->nmaps; i++)
		if (sym->maps[i].start <= addr && addr < sym->maps[i].end)
			return &sym->maps[i];
	return NULL;
}

int symbolizer_dwarf_only_for(struct symbolizer *sym, const char *basename)
{
	sym->dwarf_only = NULL;
	if (basename && !(sym->dwarf_only = intern(&sym->strings, basename)))
		return -PQ_ENOMEM;
	return 0;
}

const char *symbolizer_module_at(const struct symbolizer *sym, uint64_t addr)
{
	const struct mapping *m = mapping_at(sym, addr);
	return m ? m->name : NULL;
}

static int resolve_uncached(struct symbolizer *sym, uint64_t addr, struct resolution *r)
{
	Dwfl_Module *dm = dwfl_addrmodule(sym->dwfl, addr);
	if (dm) {
		void **userdata = NULL;
		dwfl_module_info(dm, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		if (userdata && *userdata)
			return resolve_in_module(sym, *userdata, addr, r);
	}
	const struct mapping *m = mapping_at(sym, addr);
	if (!m) {
		push_frame(r, &sym->unknown);
		return 0;
	}
	if (m->mod)   /* mapped, but past what the ELF headers describe */
		return unknown_in_module(sym, m->name, addr - m->mod->bias, r);
	return unknown_in_module(sym, m->name, addr - m->start + m->pgoff, r);
}

static size_t cache_index(uint64_t addr, size_t cap)
{
	uint64_t h = addr * 0x9E3779B97F4A7C15ULL;
	return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static int cache_grow(struct symbolizer *sym)
{
	size_t cap = sym->cache_cap * 2;
	struct cache_slot *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return -PQ_ENOMEM;
	for (size_t i = 0; i < sym->cache_cap; i++) {
		if (!sym->cache[i].nframes)
			continue;
		size_t j = cache_index(sym->cache[i].addr, cap);
		while (slots[j].nframes)
			j = (j + 1) & (cap - 1);
		slots[j] = sym->cache[i];
	}
	free(sym->cache);
	sym->cache = slots;
	sym->cache_cap = cap;
	return 0;
}

int symbolizer_resolve(struct symbolizer *sym, uint64_t addr,
		       const struct sym_frame **frames, int *nframes)
{
	sym->lookups++;
	size_t j = cache_index(addr, sym->cache_cap);
	while (sym->cache[j].nframes) {
		if (sym->cache[j].addr == addr) {
			*frames = sym->cache[j].frames;
			*nframes = sym->cache[j].nframes;
			return 0;
		}
		j = (j + 1) & (sym->cache_cap - 1);
	}

	sym->misses++;
	struct resolution r;
	r.n = 0;
	int rc = resolve_uncached(sym, addr, &r);
	if (rc < 0)
		return rc;
	if (r.n == 0)
		push_frame(&r, &sym->unknown);
	struct sym_frame *copy = arena_alloc(&sym->arena, (size_t)r.n * sizeof *copy);
	if (!copy)
		return -PQ_ENOMEM;
	memcpy(copy, r.f, (size_t)r.n * sizeof *copy);

	if ((sym->cache_count + 1) * 2 > sym->cache_cap) {
		if (cache_grow(sym) < 0)
			return -PQ_ENOMEM;
		j = cache_index(addr, sym->cache_cap);
		while (sym->cache[j].nframes)
			j = (j + 1) & (sym->cache_cap - 1);
	}
	sym->cache[j] = (struct cache_slot){ .addr = addr, .nframes = r.n, .frames = copy };
	sym->cache_count++;
	*frames = copy;
	*nframes = r.n;
	return 0;
}
