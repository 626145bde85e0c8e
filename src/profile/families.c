/* families: symmetric-primitive families by name and source file; see families.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "profile/families.h"
#include "core/path_name.h"
#include "core/text_buf.h"
#include "profile/elf_code.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct family {
	const char *name, *label;
	const char *const *keywords;
};

static const char *const kw_keccak[] = { "keccak", "shake", "cshake", "turboshake", "sha3!", "fips202",
	                                 "kmac", "xkcp", NULL };
static const char *const kw_sha2[] = { "sha2", "sha384", "sha512", NULL };
static const char *const kw_sm3[] = { "sm3", NULL };
static const char *const kw_aes[] = { "aes", "rijndael", NULL };

static const struct family families[FAMILY_COUNT] = {
	{ "keccak", "Keccak/SHAKE", kw_keccak },
	{ "sha2", "SHA-2", kw_sha2 },
	{ "sm3", "SM3", kw_sm3 },
	{ "aes", "AES", kw_aes },
};

const char *family_name(int i)
{
	return i >= 0 && i < FAMILY_COUNT ? families[i].name : NULL;
}

const char *family_label(int i)
{
	return i >= 0 && i < FAMILY_COUNT ? families[i].label : NULL;
}

/* Does a word of s start at position i? */
static int word_start(const char *s, size_t i)
{
	if (i == 0)
		return 1;
	unsigned char p = (unsigned char)s[i - 1], c = (unsigned char)s[i];
	if (!isalpha(p))
		return 1;
	return islower(p) && isupper(c);
}

/* A keyword ending in '!' must not be followed by a digit ("sha3!" is not "sha384"). */
static int has_keyword(const char *s, const char *kw)
{
	size_t kl = strlen(kw);
	int no_digit = kl && kw[kl - 1] == '!';
	if (no_digit)
		kl--;
	for (size_t i = 0; s[i]; i++)
		if (word_start(s, i) && strncasecmp(s + i, kw, kl) == 0 &&
		    !(no_digit && isdigit((unsigned char)s[i + kl])))
			return 1;
	return 0;
}

unsigned family_match_name(const char *name)
{
	unsigned m = 0;
	if (!name)
		return 0;
	for (int f = 0; f < FAMILY_COUNT; f++)
		for (const char *const *k = families[f].keywords; *k; k++)
			if (has_keyword(name, *k)) {
				m |= 1u << f;
				break;
			}
	return m;
}

unsigned family_match_file(const char *path)
{
	if (!path)
		return 0;
	return family_match_name(path_base(path));
}

static void note(struct family_presence *out, unsigned m, const char *what)
{
	for (int f = 0; f < FAMILY_COUNT; f++)
		if ((m >> f & 1u) && !out->example[f][0])
			snprintf(out->example[f], sizeof out->example[f], "%s", what);
}

/* Files to leave out, and the library's DWARF to tell which file a function is from. */
struct skip_set {
	const char *const *files;
	size_t n;
	Dwarf *dw;
};

/*
 * p, with "." and ".." components and repeated slashes resolved by the
 * text alone.  -1 when p or the result does not fit PATH_MAX: a cut path
 * names no file for sure, so the caller compares it with nothing.
 */
static int lexical_path(const char *p, char *out, size_t len)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", p) >= (int)sizeof buf)
		return -1;
	out[0] = '\0';
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			char *slash = strrchr(out, '/');
			*(slash ? slash : out) = '\0';
			continue;
		}
		if (text_appendf(out, len, "/%s", c) < 0)
			return -1;
	}
	return 0;
}

/* Is the compile unit's source file one to leave out? */
static int cu_skipped(const struct skip_set *sk, Dwarf_Die *cu)
{
	const char *name = dwarf_diename(cu);
	if (!sk->n || !name)
		return 0;
	char full[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	Dwarf_Attribute at;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	if (snprintf(full, sizeof full, "%s%s%s", name[0] == '/' || !dir ? "" : dir, name[0] == '/' || !dir ? "" : "/",
	             name) >= (int)sizeof full || lexical_path(full, a, sizeof a) < 0)
		return 0;
	for (size_t i = 0; i < sk->n; i++)
		if (lexical_path(sk->files[i], b, sizeof b) == 0 && strcmp(a, b) == 0)
			return 1;
	return 0;
}

static int symbol_skipped(const struct skip_set *sk, uint64_t addr)
{
	Dwarf_Die cu;
	return sk->n && sk->dw && dwarf_addrdie(sk->dw, addr, &cu) && cu_skipped(sk, &cu);
}

static void scan_symbols(Elf *elf, const struct skip_set *sk, struct family_presence *out)
{
	Elf_Scn *best = NULL;
	GElf_Shdr best_sh;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best)) {
			best = scn;
			best_sh = sh;
		}
	}
	Elf_Data *d = best ? elf_getdata(best, NULL) : NULL;
	if (!d || !best_sh.sh_entsize)
		return;
	size_t count = best_sh.sh_size / best_sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		const char *name = elf_strptr(elf, best_sh.sh_link, sym.st_name);
		if (!name || !*name || !elf_code_symbol(elf, &sym))
			continue;
		unsigned m = family_match_name(name);
		if (m && !symbol_skipped(sk, sym.st_value)) {
			out->by_symbol |= m;
			note(out, m, name);
		}
	}
}

static void scan_dwarf(Dwarf *dw, const struct skip_set *sk, struct family_presence *out)
{
	if (!dw)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			out->dwarf = 1;
			const char *name = dwarf_diename(&cu);
			unsigned m = cu_skipped(sk, &cu) ? 0 : family_match_file(name);
			if (m) {
				out->by_file |= m;
				note(out, m, path_base(name));
			}
		}
		off = next;
	}
}

int families_in_library(const char *lib_path, const char *const *skip, size_t nskip, struct family_presence *out,
                        pq_error *err)
{
	memset(out, 0, sizeof *out);
	elf_version(EV_CURRENT);
	int fd = open_regular(lib_path);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EINPUT, "%s", lib_path);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = pq_fail(err, PQ_EINPUT, "%s: not an ELF file", lib_path);
	} else {
		struct skip_set sk = { skip, skip ? nskip : 0, dwarf_begin_elf(elf, DWARF_C_READ, NULL) };
		/* files first: "fips202.c" names a family better than its first function */
		scan_dwarf(sk.dw, &sk, out);
		scan_symbols(elf, &sk, out);
		if (sk.dw)
			dwarf_end(sk.dw);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
