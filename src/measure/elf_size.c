/*
 * elf_size: loadable image, section groups and largest symbols of an ELF
 * shared object; see elf_size.h.  Reads headers and symbol tables only
 * (the file is mmap'd by libelf, so a 270 MB image costs no copy).
 */
#include "config.h"
#include "core/atomic_file.h"
#include "measure/elf_size.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[ELF_SIZE_NKINDS] = {
	"text", "rodata", "data", "bss", "other",
};

const char *elf_size_kind_name(enum elf_size_kind kind)
{
	return (unsigned)kind < ELF_SIZE_NKINDS ? kind_names[kind] : "other";
}

void elf_size_free(struct elf_size *es)
{
	if (!es)
		return;
	for (size_t i = 0; i < es->nsections; i++)
		free(es->sections[i].name);
	free(es->sections);
	for (size_t i = 0; i < es->ntop; i++)
		free(es->top[i].name);
	free(es->top);
	memset(es, 0, sizeof *es);
	es->symtab_source = "none";
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static enum elf_size_kind classify(const GElf_Shdr *sh, const char *name)
{
	if (sh->sh_flags & SHF_EXECINSTR)
		return ELF_SIZE_TEXT;
	if (sh->sh_type == SHT_NOBITS)
		return ELF_SIZE_BSS;
	if (sh->sh_flags & SHF_WRITE)
		return ELF_SIZE_DATA;
	if (strcmp(name, ".rodata") == 0 || starts_with(name, ".rodata."))
		return ELF_SIZE_RODATA;
	return ELF_SIZE_OTHER;
}

/* Everything one analysis needs while it walks the file. */
struct reader {
	const char *path;
	Elf *elf;
	uint64_t file_bytes;
	size_t shnum;
	enum elf_size_kind *sec_kind; /* per section index; OTHER when not alloc */
	pq_error *err;
};

static int truncated(struct reader *r, const char *what)
{
	return pq_fail(r->err, PQ_EINPUT, "%s: truncated ELF file (%s lies past the end of the %llu-byte file)",
		       r->path, what, (unsigned long long)r->file_bytes);
}

static int elf_problem(struct reader *r, const char *what)
{
	return pq_fail(r->err, PQ_EINPUT, "%s: cannot read %s: %s", r->path, what, elf_errmsg(-1));
}

static int read_segments(struct reader *r, struct elf_size *out)
{
	size_t phnum;
	if (elf_getphdrnum(r->elf, &phnum) != 0)
		return elf_problem(r, "program headers");
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(r->elf, (int)i, &ph))
			return elf_problem(r, "program headers");
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > r->file_bytes || ph.p_filesz > r->file_bytes - ph.p_offset)
			return truncated(r, "a PT_LOAD segment");
		out->image_memsz += ph.p_memsz;
		out->image_filesz += ph.p_filesz;
		out->load_segments++;
	}
	if (out->load_segments == 0)
		return pq_fail(r->err, PQ_EINPUT, "%s: ELF file has no PT_LOAD segment", r->path);
	return 0;
}

static int read_sections(struct reader *r, struct elf_size *out)
{
	size_t shstrndx;
	if (elf_getshdrnum(r->elf, &r->shnum) != 0 || elf_getshdrstrndx(r->elf, &shstrndx) != 0)
		return elf_problem(r, "section headers");
	r->sec_kind = calloc(r->shnum ? r->shnum : 1, sizeof *r->sec_kind);
	out->sections = calloc(r->shnum ? r->shnum : 1, sizeof *out->sections);
	if (!r->sec_kind || !out->sections)
		return pq_fail(r->err, PQ_ENOMEM, "%s: out of memory", r->path);
	for (size_t i = 0; i < r->shnum; i++)
		r->sec_kind[i] = ELF_SIZE_OTHER;

	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(r->elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return elf_problem(r, "a section header");
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > r->file_bytes || sh.sh_size > r->file_bytes - sh.sh_offset))
			return truncated(r, "a section");
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		const char *name = elf_strptr(r->elf, shstrndx, sh.sh_name);
		if (!name)
			name = "?";
		enum elf_size_kind kind = classify(&sh, name);
		size_t idx = elf_ndxscn(scn);
		if (idx < r->shnum)
			r->sec_kind[idx] = kind;
		struct elf_size_section *s = &out->sections[out->nsections];
		s->name = strdup(name);
		if (!s->name)
			return pq_fail(r->err, PQ_ENOMEM, "%s: out of memory", r->path);
		s->size = sh.sh_size;
		s->kind = kind;
		out->nsections++;
		out->kind_bytes[kind] += sh.sh_size;
	}
	return 0;
}

static Elf_Scn *find_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

static int bigger_first(const void *a, const void *b)
{
	const struct elf_size_symbol *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the TOP_N largest; candidates arrive unordered in a growing array. */
static int collect_symbols(struct reader *r, Elf_Scn *symscn, struct elf_size *out)
{
	GElf_Shdr sh;
	Elf_Data *data;
	if (!gelf_getshdr(symscn, &sh) || !(data = elf_getdata(symscn, NULL)))
		return elf_problem(r, "the symbol table");
	size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	size_t cap = 2 * ELF_SIZE_TOP_N, cnt = 0;
	struct elf_size_symbol *cand = calloc(cap, sizeof *cand);
	if (!cand)
		return pq_fail(r->err, PQ_ENOMEM, "%s: out of memory", r->path);

	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		if (sym.st_size == 0 || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
		    sym.st_shndx >= r->shnum)
			continue;
		/* Compaction: when full, sort and keep the best TOP_N. */
		if (cnt == cap) {
			qsort(cand, cnt, sizeof *cand, bigger_first);
			cnt = ELF_SIZE_TOP_N;
		}
		cand[cnt].name = (char *)elf_strptr(r->elf, sh.sh_link, sym.st_name);
		if (!cand[cnt].name)
			cand[cnt].name = "?";
		cand[cnt].addr = sym.st_value;
		cand[cnt].size = sym.st_size;
		cand[cnt].kind = r->sec_kind[sym.st_shndx];
		cand[cnt].is_function = type != STT_OBJECT;
		cnt++;
	}
	qsort(cand, cnt, sizeof *cand, bigger_first);

	out->top = calloc(ELF_SIZE_TOP_N, sizeof *out->top);
	if (!out->top) {
		free(cand);
		return pq_fail(r->err, PQ_ENOMEM, "%s: out of memory", r->path);
	}
	for (size_t i = 0; i < cnt && out->ntop < ELF_SIZE_TOP_N; i++) {
		/* Aliases share address and size (and sort next to each other). */
		if (i > 0 && cand[i].addr == cand[i - 1].addr && cand[i].size == cand[i - 1].size)
			continue;
		struct elf_size_symbol *t = &out->top[out->ntop];
		*t = cand[i];
		t->name = strdup(cand[i].name);
		if (!t->name) {
			free(cand);
			return pq_fail(r->err, PQ_ENOMEM, "%s: out of memory", r->path);
		}
		out->ntop++;
	}
	free(cand);
	return 0;
}

static int read_symbols(struct reader *r, struct elf_size *out)
{
	Elf_Scn *scn = find_section(r->elf, SHT_SYMTAB);
	out->symtab_source = ".symtab";
	if (!scn) {
		scn = find_section(r->elf, SHT_DYNSYM);
		out->symtab_source = ".dynsym";
	}
	if (!scn) {
		out->symtab_source = "none";
		return 0;
	}
	return collect_symbols(r, scn, out);
}

static int analyze_elf(struct reader *r, struct elf_size *out)
{
	if (elf_kind(r->elf) != ELF_K_ELF)
		return pq_fail(r->err, PQ_EINPUT, "%s: not an ELF file", r->path);
	GElf_Ehdr eh;
	if (!gelf_getehdr(r->elf, &eh))
		return pq_fail(r->err, PQ_EINPUT, "%s: truncated or corrupt ELF header: %s",
			       r->path, elf_errmsg(-1));
	if (eh.e_type != ET_DYN)
		return pq_fail(r->err, PQ_EINPUT,
			       "%s: not a shared object or PIE executable (ELF type %u, expected ET_DYN)",
			       r->path, (unsigned)eh.e_type);
	if (eh.e_phoff > r->file_bytes ||
	    (uint64_t)eh.e_phnum * eh.e_phentsize > r->file_bytes - eh.e_phoff)
		return truncated(r, "the program header table");
	if (eh.e_shoff > r->file_bytes ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize > r->file_bytes - eh.e_shoff)
		return truncated(r, "the section header table");
	int rc = read_segments(r, out);
	if (rc == 0)
		rc = read_sections(r, out);
	if (rc == 0)
		rc = read_symbols(r, out);
	return rc;
}

int elf_size_analyze(const char *path, struct elf_size *out, pq_error *err)
{
	memset(out, 0, sizeof *out);
	out->symtab_source = "none";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pq_fail(err, PQ_EINTERNAL, "%s: libelf is unusable: %s", path, elf_errmsg(-1));

	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s: cannot open", path);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int rc = pq_fail_errno(err, PQ_EIO, "%s: cannot stat", path);
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pq_fail(err, PQ_EINPUT, "%s: not a regular file", path);
	}

	struct reader r = { .path = path, .file_bytes = (uint64_t)st.st_size, .err = err };
	out->file_bytes = r.file_bytes;
	int rc;
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!r.elf)
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file: %s", path, elf_errmsg(-1));
	else
		rc = analyze_elf(&r, out);
	if (r.elf)
		elf_end(r.elf);
	close(fd);
	free(r.sec_kind);
	if (rc < 0)
		elf_size_free(out);
	return rc;
}

static int set_u64(json_t *obj, const char *key, uint64_t v)
{
	return json_object_set_new(obj, key, json_integer((json_int_t)v));
}

static json_t *kinds_json(const struct elf_size *es)
{
	json_t *kinds = json_object();
	for (int k = 0; kinds && k < ELF_SIZE_NKINDS; k++)
		if (set_u64(kinds, kind_names[k], es->kind_bytes[k])) {
			json_decref(kinds);
			return NULL;
		}
	return kinds;
}

static json_t *section_list_json(const struct elf_size *es)
{
	json_t *list = json_array();
	for (size_t i = 0; list && i < es->nsections; i++) {
		json_t *s = json_pack("{s:s, s:I, s:s}", "name", es->sections[i].name,
				      "size", (json_int_t)es->sections[i].size,
				      "kind", elf_size_kind_name(es->sections[i].kind));
		if (!s || json_array_append_new(list, s)) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}

static json_t *top_symbols_json(const struct elf_size *es, size_t max_symbols)
{
	json_t *top = json_array();
	for (size_t i = 0; top && i < es->ntop && i < max_symbols; i++) {
		const struct elf_size_symbol *s = &es->top[i];
		json_t *o = json_pack("{s:s, s:I, s:s, s:s}", "name", s->name,
				      "size", (json_int_t)s->size,
				      "kind", elf_size_kind_name(s->kind),
				      "type", s->is_function ? "function" : "object");
		if (!o || json_array_append_new(top, o)) {
			json_decref(top);
			return NULL;
		}
	}
	return top;
}

json_t *elf_size_to_json(const struct elf_size *es, size_t max_symbols)
{
	json_t *root = json_object();
	if (!root)
		return NULL;
	/* json_object_set_new consumes its value even when it fails. */
	if (set_u64(root, "image_memsz", es->image_memsz) ||
	    set_u64(root, "image_filesz", es->image_filesz) ||
	    set_u64(root, "file_bytes", es->file_bytes) ||
	    set_u64(root, "load_segments", es->load_segments) ||
	    json_object_set_new(root, "sections", kinds_json(es)) ||
	    json_object_set_new(root, "section_list", section_list_json(es)) ||
	    json_object_set_new(root, "symtab", json_string(es->symtab_source ? es->symtab_source : "none")) ||
	    json_object_set_new(root, "top_symbols", top_symbols_json(es, max_symbols))) {
		json_decref(root);
		return NULL;
	}
	return root;
}
