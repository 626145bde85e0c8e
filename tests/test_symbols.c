/*
 * Check suite for the symbolizer (src/profile/symbolizer.c), the ELF
 * size analysis (src/measure/elf_size.c), the hash/XOF family finder
 * (src/profile/families.c) and the caller finder (src/profile/call_sites.c).  The fixture objects under
 * tests/fixtures/symbols/ are compiled once per run into a temporary
 * directory with $CC; the addresses the tests resolve come from the
 * dynamic loader (dlopen/dlsym/dladdr, /proc/self/maps), never from the
 * code under test.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/elf_size.h"
#include "profile/call_sites.h"
#include "profile/families.h"
#include "profile/symbolizer.h"

#define SYN_BASE 0x7e0000000000ULL  /* where tests pretend a library was mapped */
#define SYN_LEN  0x200000ULL

static char srcdir[PATH_MAX];
static char workdir[PATH_MAX];
static char lib_dbg[PATH_MAX + 32];     /* -O2 -g */
static char lib_nodebug[PATH_MAX + 32]; /* same, objcopy --strip-debug */
static char lib_nog[PATH_MAX + 32];     /* same code built without -g: keeps STT_FILE */
static char lib_big[PATH_MAX + 32];
static char lib_plt[PATH_MAX + 32];
static char obj_rel[PATH_MAX + 32];
static char lib_fam[PATH_MAX + 32];     /* families fixture, -g */
static char lib_fam_nog[PATH_MAX + 32]; /* the same without DWARF */
static char lib_calls[PATH_MAX + 32];   /* call-sites fixture, bound locally (as instance libraries are) */
static char lib_calls_plt[PATH_MAX + 32]; /* the same, plain -fPIC: calls through the PLT */
static char lib_calls_nog[PATH_MAX + 32]; /* bound locally, without DWARF */
static unsigned helper_line, call_line;

static int shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int shell(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "test_symbols: command failed (%d): %s\n", rc, cmd);
	return rc;
}

static unsigned tag_line(const char *file, const char *tag)
{
	char path[PATH_MAX + 64], buf[1024];
	snprintf(path, sizeof path, "%s/%s", srcdir, file);
	FILE *fp = fopen(path, "r");
	unsigned line = 0, found = 0;
	while (fp && fgets(buf, sizeof buf, fp)) {
		line++;
		if (strstr(buf, tag)) {
			found = line;
			break;
		}
	}
	if (fp)
		fclose(fp);
	return found;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p;
}

/* ---- loader-side truth ---- */

static void *open_lib(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "dlopen %s: %s", path, dlerror());
	return h;
}

static uint64_t load_base(void *addr)
{
	Dl_info info;
	ck_assert(dladdr(addr, &info) != 0);
	return (uint64_t)(uintptr_t)info.dli_fbase;
}

/* Link-time address of symbol NAME in PATH. */
static uint64_t vaddr_of(const char *path, const char *name)
{
	void *h = open_lib(path);
	void *p = dlsym(h, name);
	ck_assert_msg(p != NULL, "dlsym %s", name);
	return (uint64_t)(uintptr_t)p - load_base(p);
}

/* Link-time address stored in pointer variable NAME (a code marker). */
static uint64_t vaddr_stored_in(const char *path, const char *name)
{
	void *h = open_lib(path);
	void **p = dlsym(h, name);
	ck_assert_msg(p != NULL, "dlsym %s", name);
	return (uint64_t)(uintptr_t)*p - load_base(*p);
}

static struct symbolizer *synthetic(const char *path)
{
	struct symbolizer *s = symbolizer_new();
	ck_assert(s != NULL);
	pq_error err = { 0 };
	int rc = symbolizer_add_module(s, path, SYN_BASE, SYN_BASE + SYN_LEN, 0, NULL, 0, &err);
	ck_assert_msg(rc == 0, "add_module: %s", err.msg);
	return s;
}

static const struct sym_frame *resolve(struct symbolizer *s, uint64_t addr, int *n)
{
	const struct sym_frame *f = NULL;
	ck_assert_int_eq(symbolizer_resolve(s, addr, &f, n), 0);
	ck_assert_int_ge(*n, 1);
	return f;
}

/* ---- symbolizer ---- */

START_TEST(inline_chain_from_dwarf)
{
	uint64_t site = vaddr_stored_in(lib_dbg, "sym_inline_site");
	uint64_t hot = vaddr_of(lib_dbg, "hot_fn");
	struct symbolizer *s = synthetic(lib_dbg);
	int n;
	const struct sym_frame *f = resolve(s, SYN_BASE + site, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(f[0].function, "helper");
	ck_assert(f[0].inlined);
	ck_assert_str_eq(base_name(f[0].file), "libsym.c");
	ck_assert_uint_eq(f[0].line, helper_line);
	ck_assert_str_eq(f[0].module, "libsym.so");
	ck_assert_int_eq(f[0].source, SYM_FROM_DWARF);
	ck_assert_str_eq(f[1].function, "hot_fn");
	ck_assert(!f[1].inlined);
	ck_assert_str_eq(base_name(f[1].file), "libsym.c");
	ck_assert_uint_eq(f[1].line, call_line);
	ck_assert_uint_eq(f[1].offset, site - hot);
	symbolizer_free(s);
}
END_TEST

START_TEST(stripped_object_uses_symtab)
{
	uint64_t site = vaddr_stored_in(lib_nodebug, "sym_inline_site");
	uint64_t hot = vaddr_of(lib_nodebug, "hot_fn");
	struct symbolizer *s = synthetic(lib_nodebug);
	int n;
	const struct sym_frame *f = resolve(s, SYN_BASE + site, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "hot_fn");
	ck_assert(!f[0].inlined);
	ck_assert_int_eq(f[0].source, SYM_FROM_SYMTAB);
	ck_assert_uint_eq(f[0].offset, site - hot);
	ck_assert_uint_eq(f[0].line, 0);
	ck_assert_str_eq(f[0].module, "libsym-nodebug.so");
	symbolizer_free(s);
}
END_TEST

START_TEST(local_function_file_from_stt_file)
{
	void *h = open_lib(lib_nog);
	void *(*addr_fn)(void) = (void *(*)(void))dlsym(h, "cold_local_address");
	ck_assert(addr_fn != NULL);
	void *cold = addr_fn();
	uint64_t vaddr = (uint64_t)(uintptr_t)cold - load_base(cold);
	struct symbolizer *s = synthetic(lib_nog);
	int n;
	const struct sym_frame *f = resolve(s, SYN_BASE + vaddr + 1, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "cold_local");
	ck_assert_ptr_nonnull(f[0].file);
	ck_assert_str_eq(base_name(f[0].file), "libsym.c");
	ck_assert_uint_eq(f[0].offset, 1);
	symbolizer_free(s);
}
END_TEST

static void check_asm_site(const char *lib, bool with_dwarf)
{
	uint64_t site = vaddr_stored_in(lib, "asm_site");
	uint64_t routine = vaddr_of(lib, "asm_routine");
	uint64_t routine2 = vaddr_of(lib, "asm_routine2");
	ck_assert(site > routine && site < routine2);
	struct symbolizer *s = synthetic(lib);
	int n;
	const struct sym_frame *f = resolve(s, SYN_BASE + site, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "asm_routine");   /* not the label asm_loop */
	ck_assert_uint_eq(f[0].offset, site - routine);
	ck_assert_ptr_nonnull(f[0].file);
	if (with_dwarf) {
		ck_assert_str_eq(base_name(f[0].file), "asmroutine.S");
		ck_assert_uint_gt(f[0].line, 0);
	} else {
		/* No .file directive: the STT_FILE symbol names the object. */
		ck_assert_msg(strncmp(base_name(f[0].file), "asmroutine.", 11) == 0,
			      "file %s", f[0].file);
	}
	f = resolve(s, SYN_BASE + routine2 + 1, &n);
	ck_assert_str_eq(f[0].function, "asm_routine2");
	ck_assert_uint_eq(f[0].offset, 1);
	symbolizer_free(s);
}

START_TEST(asm_routine_not_label_with_dwarf)
{
	check_asm_site(lib_dbg, true);
}
END_TEST

START_TEST(asm_routine_not_label_without_dwarf)
{
	check_asm_site(lib_nog, false);
}
END_TEST

START_TEST(unknown_addresses)
{
	struct symbolizer *s = synthetic(lib_dbg);
	int n;
	const struct sym_frame *f = resolve(s, 0x1000, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "[unknown]");
	ck_assert_ptr_null(f[0].module);
	ck_assert_int_eq(f[0].source, SYM_FROM_NONE);
	/* The ELF header is mapped but no symbol covers it. */
	f = resolve(s, SYN_BASE + 0x10, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "[libsym.so+0x10]");
	ck_assert_str_eq(f[0].module, "libsym.so");
	symbolizer_free(s);

	/* A mapping whose file is gone still names the mapping. */
	s = symbolizer_new();
	pq_error err = { 0 };
	ck_assert_int_eq(symbolizer_add_module(s, "/nonexistent/libgone.so", 0x500000, 0x510000,
					       0x3000, NULL, 0, &err), -PQ_EIO);
	ck_assert(strstr(err.msg, "/nonexistent/libgone.so") != NULL);
	f = resolve(s, 0x500010, &n);
	ck_assert_str_eq(f[0].function, "[libgone.so+0x3010]");
	symbolizer_free(s);
}
END_TEST

/*
 * A call through the PLT lands in a stub no symbol covers; it is named
 * after its relocation.  The stub's address comes from objdump, which
 * labels stubs the same way.
 */
START_TEST(plt_stub_named)
{
	char cmd[PATH_MAX + 128];
	snprintf(cmd, sizeof cmd, "objdump -d '%s' | sed -n 's/^\\([0-9a-f]*\\) <plt_target@plt>:$/\\1/p'",
	         lib_plt);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	unsigned long long stub = 0;
	int got = fscanf(p, "%llx", &stub);
	pclose(p);
	ck_assert_msg(got == 1 && stub != 0, "objdump shows no plt_target@plt stub in %s", lib_plt);
	struct symbolizer *s = synthetic(lib_plt);
	int n;
	const struct sym_frame *f = resolve(s, SYN_BASE + stub + 4, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(f[0].function, "plt_target@plt");
	ck_assert_str_eq(f[0].module, "libplt.so");
	ck_assert_uint_eq(f[0].offset, 4);
	/* The functions themselves keep their names. */
	f = resolve(s, SYN_BASE + vaddr_of(lib_plt, "plt_caller"), &n);
	ck_assert_str_eq(f[n - 1].function, "plt_caller");
	symbolizer_free(s);
}
END_TEST

START_TEST(build_id_mismatch_refused)
{
	struct symbolizer *s = symbolizer_new();
	pq_error err = { 0 };
	unsigned char wrong[20] = { 0xde, 0xad };
	int rc = symbolizer_add_module(s, lib_dbg, SYN_BASE, SYN_BASE + SYN_LEN, 0, wrong,
				       sizeof wrong, &err);
	ck_assert_int_eq(rc, -PQ_EINPUT);
	ck_assert(strstr(err.msg, "build-id") != NULL);
	symbolizer_free(s);
}
END_TEST

/* Mappings of FILE in this process, as perf MMAP2 records would give them. */
struct map_line {
	uint64_t start, end, pgoff;
	char perms[8];
};

static int self_mappings(const char *file, struct map_line *out, int max)
{
	char real[PATH_MAX];
	ck_assert(realpath(file, real) != NULL);
	FILE *fp = fopen("/proc/self/maps", "r");
	ck_assert(fp != NULL);
	char line[PATH_MAX + 256];
	int n = 0;
	while (n < max && fgets(line, sizeof line, fp)) {
		struct map_line m;
		char path[PATH_MAX] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s",
			   &m.start, &m.end, m.perms, &m.pgoff, path) == 5 && strcmp(path, real) == 0)
			out[n++] = m;
	}
	fclose(fp);
	return n;
}

static __attribute__((noinline)) int marker_in_test_executable(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

START_TEST(real_mappings_load_bias)
{
	void *h = open_lib(lib_dbg);
	void *hot = dlsym(h, "hot_fn");
	ck_assert(hot != NULL);
	struct map_line maps[32];
	int nmaps = self_mappings(lib_dbg, maps, 32);
	ck_assert_int_ge(nmaps, 2);

	/* Every segment, as a profile would register them. */
	struct symbolizer *s = symbolizer_new();
	pq_error err = { 0 };
	for (int i = 0; i < nmaps; i++)
		ck_assert_msg(symbolizer_add_module(s, lib_dbg, maps[i].start, maps[i].end,
						    maps[i].pgoff, NULL, 0, &err) == 0, "%s", err.msg);
	struct map_line exe[32];
	int nexe = self_mappings("/proc/self/exe", exe, 32);
	ck_assert_int_ge(nexe, 1);
	char exe_path[PATH_MAX];
	ck_assert(realpath("/proc/self/exe", exe_path) != NULL);
	for (int i = 0; i < nexe; i++)
		ck_assert_msg(symbolizer_add_module(s, exe_path, exe[i].start, exe[i].end,
						    exe[i].pgoff, NULL, 0, &err) == 0, "%s", err.msg);
	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	ck_assert_uint_eq(st.modules, 2);   /* segments of one file: one module */

	int n;
	const struct sym_frame *f = resolve(s, (uint64_t)(uintptr_t)hot, &n);
	ck_assert_str_eq(f[n - 1].function, "hot_fn");
	ck_assert_uint_eq(f[n - 1].offset, 0);
	f = resolve(s, (uint64_t)(uintptr_t)&marker_in_test_executable, &n);
	ck_assert_str_eq(f[n - 1].function, "marker_in_test_executable");
	ck_assert_str_eq(base_name(f[n - 1].file), "test_symbols.c");
	ck_assert_int_eq(marker_in_test_executable(1), 2);
	symbolizer_free(s);

	/* Only the last (data) segment: the bias must still come out right. */
	s = symbolizer_new();
	struct map_line *last = &maps[0];
	for (int i = 1; i < nmaps; i++)
		if (maps[i].pgoff > last->pgoff)
			last = &maps[i];
	ck_assert_uint_gt(last->pgoff, 0);
	ck_assert_msg(symbolizer_add_module(s, lib_dbg, last->start, last->end, last->pgoff,
					    NULL, 0, &err) == 0, "%s", err.msg);
	f = resolve(s, (uint64_t)(uintptr_t)hot + 3, &n);
	ck_assert_str_eq(f[n - 1].function, "hot_fn");
	ck_assert_uint_eq(f[n - 1].offset, 3);
	symbolizer_free(s);
}
END_TEST

START_TEST(million_cached_resolutions)
{
	uint64_t hot = vaddr_of(lib_dbg, "hot_fn");
	struct symbolizer *s = synthetic(lib_dbg);
	enum { NADDR = 64, ROUNDS = 1000000 / NADDR };
	const struct sym_frame *first[NADDR];
	for (int i = 0; i < NADDR; i++) {
		int n;
		first[i] = resolve(s, SYN_BASE + hot + (uint64_t)i, &n);
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < NADDR; i++) {
			const struct sym_frame *f;
			int n;
			/* Plain ifs: each ck_assert costs a write to Check's pipe. */
			if (symbolizer_resolve(s, SYN_BASE + hot + (uint64_t)i, &f, &n) != 0 || f != first[i])
				ck_abort_msg("address %d not served from the cache", i);
		}
	struct symbolizer_stats st;
	symbolizer_get_stats(s, &st);
	ck_assert_uint_eq(st.misses, NADDR);
	ck_assert_uint_eq(st.lookups, NADDR + (uint64_t)ROUNDS * NADDR);
	ck_assert_uint_eq(st.cached, NADDR);
	symbolizer_free(s);
}
END_TEST

START_TEST(cache_survives_growth)
{
	/* Many distinct addresses: the table grows; old frame pointers stay. */
	struct symbolizer *s = synthetic(lib_dbg);
	const struct sym_frame *f0;
	int n0;
	f0 = resolve(s, 0x1000, &n0);
	for (uint64_t a = 0; a < 20000; a++) {
		const struct sym_frame *f;
		int n;
		if (symbolizer_resolve(s, SYN_BASE + 0x1000 + a, &f, &n) != 0 || n < 1)
			ck_abort_msg("resolving 0x%" PRIx64 " failed", a);
	}
	const struct sym_frame *again;
	int n1;
	again = resolve(s, 0x1000, &n1);
	ck_assert_ptr_eq(f0, again);
	ck_assert_str_eq(f0[0].function, "[unknown]");
	symbolizer_free(s);
}
END_TEST

/* ---- elf_size ---- */

#define MIB (1024ULL * 1024ULL)

START_TEST(elf_size_tables)
{
	struct elf_size es;
	pq_error err = { 0 };
	ck_assert_msg(elf_size_analyze(lib_big, &es, &err) == 0, "%s", err.msg);
	/* Documented bounds: both tables plus under 64 KiB of code, headers
	 * and linker tables; only the .rodata table occupies file bytes. */
	ck_assert_uint_ge(es.image_memsz, 2 * MIB);
	ck_assert_uint_lt(es.image_memsz, 2 * MIB + 64 * 1024);
	ck_assert_uint_ge(es.image_filesz, MIB);
	ck_assert_uint_lt(es.image_filesz, MIB + 64 * 1024);
	ck_assert_uint_ge(es.kind_bytes[ELF_SIZE_BSS], MIB);
	ck_assert_uint_lt(es.kind_bytes[ELF_SIZE_BSS], MIB + 4096);
	ck_assert_uint_ge(es.kind_bytes[ELF_SIZE_RODATA], MIB);
	ck_assert_uint_lt(es.kind_bytes[ELF_SIZE_RODATA], MIB + 4096);
	ck_assert_uint_gt(es.kind_bytes[ELF_SIZE_TEXT], 0);
	ck_assert_uint_lt(es.kind_bytes[ELF_SIZE_TEXT], 64 * 1024);
	ck_assert_uint_ge(es.load_segments, 2);
	ck_assert_str_eq(es.symtab_source, ".symtab");

	ck_assert_uint_ge(es.ntop, 3);
	ck_assert_uint_eq(es.top[0].size, MIB);
	ck_assert_uint_eq(es.top[1].size, MIB);
	int saw_ro = 0, saw_bss = 0;
	for (int i = 0; i < 2; i++) {
		if (strcmp(es.top[i].name, "ro_table") == 0 && es.top[i].kind == ELF_SIZE_RODATA)
			saw_ro = 1;
		if (strcmp(es.top[i].name, "zero_table") == 0 && es.top[i].kind == ELF_SIZE_BSS)
			saw_bss = 1;
		ck_assert(!es.top[i].is_function);
	}
	ck_assert(saw_ro && saw_bss);

	json_t *j = elf_size_to_json(&es, 2);
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(json_integer_value(json_object_get(j, "image_memsz")), es.image_memsz);
	ck_assert_uint_eq(json_integer_value(json_object_get(json_object_get(j, "sections"), "bss")),
			  es.kind_bytes[ELF_SIZE_BSS]);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "top_symbols")), 2);
	json_decref(j);
	elf_size_free(&es);
}
END_TEST

START_TEST(elf_size_errors)
{
	struct elf_size es;
	pq_error err = { 0 };
	char path[PATH_MAX + 64];

	snprintf(path, sizeof path, "%s/libsym.c", srcdir);
	ck_assert_int_eq(elf_size_analyze(path, &es, &err), -PQ_EINPUT);
	ck_assert(strstr(err.msg, path) && strstr(err.msg, "not an ELF file"));
	elf_size_free(&es);

	ck_assert_int_eq(elf_size_analyze(obj_rel, &es, &err), -PQ_EINPUT);
	ck_assert(strstr(err.msg, obj_rel) && strstr(err.msg, "ET_DYN"));

	snprintf(path, sizeof path, "%s/truncated.so", workdir);
	ck_assert_int_eq(elf_size_analyze(path, &es, &err), -PQ_EINPUT);
	ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "truncated"), "%s", err.msg);

	snprintf(path, sizeof path, "%s/absent.so", workdir);
	ck_assert_int_eq(elf_size_analyze(path, &es, &err), -PQ_EIO);
	ck_assert(strstr(err.msg, path) != NULL);
}
END_TEST

/* ---- fixtures ---- */

static int build_fixtures(void)
{
	const char *cc = getenv("CC");
	const char *top = getenv("top_srcdir");
	const char *objcopy = getenv("OBJCOPY");
	if (!cc || !*cc)
		cc = "cc";
	if (!objcopy || !*objcopy)
		objcopy = "objcopy";
	snprintf(srcdir, sizeof srcdir, "%s/tests/fixtures/symbols", top && *top ? top : ".");
	snprintf(workdir, sizeof workdir, "/tmp/pqprof-test-symbols.XXXXXX");
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(lib_dbg, sizeof lib_dbg, "%s/libsym.so", workdir);
	snprintf(lib_nodebug, sizeof lib_nodebug, "%s/libsym-nodebug.so", workdir);
	snprintf(lib_nog, sizeof lib_nog, "%s/libsym-nog.so", workdir);
	snprintf(lib_big, sizeof lib_big, "%s/libbig.so", workdir);
	snprintf(lib_plt, sizeof lib_plt, "%s/libplt.so", workdir);
	snprintf(obj_rel, sizeof obj_rel, "%s/libbig.o", workdir);
	const char *w = workdir, *s = srcdir;
	/* The .S is assembled on its own, as a build would, so its object
	 * has a proper name in the STT_FILE symbol the linker adds. */
	if (shell("%s -g -c -o %s/asmroutine.o %s/asmroutine.S", cc, w, s) ||
	    shell("mkdir -p %s/nog && %s -c -o %s/nog/asmroutine.o %s/asmroutine.S", w, cc, w, s) ||
	    shell("%s -shared -fPIC -O2 -g -o %s %s/libsym.c %s/asmroutine.o", cc, lib_dbg, s, w) ||
	    shell("%s --strip-debug %s %s", objcopy, lib_dbg, lib_nodebug) ||
	    shell("%s -shared -fPIC -O2 -o %s %s/libsym.c %s/nog/asmroutine.o", cc, lib_nog, s, w) ||
	    shell("%s -shared -fPIC -O2 -o %s %s/libbig.c", cc, lib_big, s) ||
	    shell("%s -shared -fPIC -O1 -fno-inline -o %s %s/libplt.c", cc, lib_plt, s) ||
	    shell("%s -fPIC -O2 -c -o %s %s/libbig.c", cc, obj_rel, s) ||
	    shell("head -c 3000 %s > %s/truncated.so", lib_big, w))
		return -1;
	char famdir[PATH_MAX + 32];
	snprintf(famdir, sizeof famdir, "%s/../families", s);
	snprintf(lib_fam, sizeof lib_fam, "%s/libfam.so", w);
	snprintf(lib_fam_nog, sizeof lib_fam_nog, "%s/libfam-nog.so", w);
	if (shell("%s -g -c -o %s/keccak_round.o %s/keccak_round.S", cc, w, famdir) ||
	    shell("%s -c -o %s/nog/keccak_round.o %s/keccak_round.S", cc, w, famdir) ||
	    shell("%s -shared -fPIC -O2 -g -o %s %s/sha2.c %s/keccak_round.o", cc, lib_fam, famdir, w) ||
	    shell("%s -shared -fPIC -O2 -o %s %s/sha2.c %s/nog/keccak_round.o", cc, lib_fam_nog, famdir, w))
		return -1;
	char calldir[PATH_MAX + 32];
	snprintf(calldir, sizeof calldir, "%s/../callers", s);
	snprintf(lib_calls, sizeof lib_calls, "%s/libcalls.so", w);
	snprintf(lib_calls_plt, sizeof lib_calls_plt, "%s/libcalls-plt.so", w);
	snprintf(lib_calls_nog, sizeof lib_calls_nog, "%s/libcalls-nog.so", w);
	const char *cd = calldir;
	if (shell("%s -shared -fPIC -O2 -g -fno-semantic-interposition -Wl,-Bsymbolic-functions -o %s %s/placeholder.c "
	          "%s/glue.c %s/scheme.c", cc, lib_calls, cd, cd, cd) ||
	    shell("%s -shared -fPIC -O2 -g -o %s %s/placeholder.c %s/glue.c %s/scheme.c", cc, lib_calls_plt, cd, cd, cd) ||
	    shell("%s -shared -fPIC -O2 -fno-semantic-interposition -Wl,-Bsymbolic-functions -o %s %s/placeholder.c "
	          "%s/glue.c %s/scheme.c", cc, lib_calls_nog, cd, cd, cd))
		return -1;
	helper_line = tag_line("libsym.c", "/* @helper-line */");
	call_line = tag_line("libsym.c", "/* @call-line */");
	if (!helper_line || !call_line) {
		fprintf(stderr, "test_symbols: tags missing in %s/libsym.c\n", srcdir);
		return -1;
	}
	return 0;
}

/* ---- symmetric-primitive families (src/profile/families.c) ---- */

START_TEST(family_names_at_word_starts)
{
	ck_assert_uint_eq(family_match_name("KeccakF1600_StatePermute"), 1u << 0);
	ck_assert_uint_eq(family_match_name("spx_shake256_absorb"), 1u << 0);
	ck_assert_uint_eq(family_match_name("PQCLEAN_sha3_256"), 1u << 0);
	ck_assert_uint_eq(family_match_name("crypto_hash_sha512"), 1u << 1);
	ck_assert_uint_eq(family_match_name("sha256_inc_blocks"), 1u << 1);
	ck_assert_uint_eq(family_match_name("hmac_sha384"), 1u << 1); /* SHA-2, not SHA-3 */
	ck_assert_uint_eq(family_match_name("sm3_compress"), 1u << 2);
	ck_assert_uint_eq(family_match_name("aes256ctr_prf"), 1u << 3);
	ck_assert_uint_eq(family_match_name("br_aes_ct64_bitslice_Sbox"), 1u << 3);
	ck_assert_uint_eq(family_match_name("rijndaelEncrypt"), 1u << 3);
	/* inside a word: not a family */
	ck_assert_uint_eq(family_match_name("phases_update"), 0);
	ck_assert_uint_eq(family_match_name("thash"), 0);
	ck_assert_uint_eq(family_match_name("shadow_stack"), 0);
	ck_assert_uint_eq(family_match_name("poly_mul"), 0);
	/* files: the last path component only */
	ck_assert_uint_eq(family_match_file("/src/aes-project/fips202.c"), 1u << 0);
	ck_assert_uint_eq(family_match_file("/src/keccak/poly.c"), 0);
	ck_assert_uint_eq(family_match_file("KeccakP-1600-AVX2.s"), 1u << 0);
	ck_assert_uint_eq(family_match_file("sha2.c"), 1u << 1);
	ck_assert_str_eq(family_label(0), "Keccak/SHAKE");
	ck_assert_str_eq(family_name(3), "aes");
}
END_TEST

START_TEST(families_from_symbols_and_dwarf)
{
	struct family_presence fp;
	pq_error err = { 0 };
	ck_assert_msg(families_in_library(lib_fam, NULL, 0, &fp, &err) == 0, "%s", err.msg);
	ck_assert(fp.dwarf);
	/* the assembly routine by name and by its DWARF file */
	ck_assert(fp.by_symbol & 1u << 0);
	ck_assert(fp.by_file & 1u << 0);
	/* SHA-2 only by its source file; nothing is AES or SM3 */
	ck_assert(!(fp.by_symbol & 1u << 1));
	ck_assert(fp.by_file & 1u << 1);
	ck_assert_str_eq(fp.example[1], "sha2.c");
	ck_assert_uint_eq((fp.by_symbol | fp.by_file) & (1u << 2 | 1u << 3), 0);

	/* without DWARF the symbol names are all there is */
	ck_assert_msg(families_in_library(lib_fam_nog, NULL, 0, &fp, &err) == 0, "%s", err.msg);
	ck_assert(!fp.dwarf);
	ck_assert_uint_eq(fp.by_file, 0);
	ck_assert_uint_eq(fp.by_symbol, 1u << 0);
	ck_assert_str_eq(fp.example[0], "KeccakP1600_Permute_24rounds");

	/* the competition's helper files are not the scheme's own: a file left out takes its functions along */
	char skip[PATH_MAX + 64];
	snprintf(skip, sizeof skip, "%s/../families/./sha2.c", srcdir);
	const char *const skips[] = { skip };
	ck_assert_msg(families_in_library(lib_fam, skips, 1, &fp, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq((fp.by_symbol | fp.by_file) & 1u << 1, 0);
	ck_assert(fp.by_file & 1u << 0);
	snprintf(skip, sizeof skip, "%s/../families/keccak_round.S", srcdir);
	ck_assert_msg(families_in_library(lib_fam, skips, 1, &fp, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq((fp.by_symbol | fp.by_file) & 1u << 0, 0);
	ck_assert(fp.by_file & 1u << 1);
	/* without DWARF nothing says which file a function is from: it stays */
	ck_assert_msg(families_in_library(lib_fam_nog, skips, 1, &fp, &err) == 0, "%s", err.msg);
	ck_assert_uint_eq(fp.by_symbol, 1u << 0);

	ck_assert_int_lt(families_in_library("/nonexistent/libx.so", NULL, 0, &fp, &err), 0);
	ck_assert(strstr(err.msg, "/nonexistent/libx.so") != NULL);
}
END_TEST

/* ---- call sites (src/profile/call_sites.c) ---- */

static const char *const placeholder_globs[] = { "pseudohash", "pseudoXOF", "sm3hash" };

/* The site whose caller starts with `caller` and calls `callee`; NULL when none. */
static const struct call_site *site_of(const struct call_sites *cs, const char *caller, const char *callee)
{
	for (size_t i = 0; i < cs->nsites; i++)
		if (cs->sites[i].caller && strncmp(cs->sites[i].caller, caller, strlen(caller)) == 0 &&
		    strcmp(cs->targets[cs->sites[i].target].name, callee) == 0)
			return &cs->sites[i];
	return NULL;
}

START_TEST(callers_from_code_and_dwarf)
{
	struct call_sites cs;
	pq_error err = { 0 };
	ck_assert_msg(call_sites_find(lib_calls, placeholder_globs, 3, &cs, &err) == 0, "%s", err.msg);
	ck_assert(cs.dwarf);
	ck_assert_uint_eq(cs.ntargets, 2); /* no sm3hash in the library */
	for (size_t i = 0; i < cs.ntargets; i++) {
		ck_assert_msg(cs.targets[i].addr != 0, "%s has no address", cs.targets[i].name);
		ck_assert_str_eq(base_name(cs.targets[i].file), "placeholder.c");
	}
	/* the glue: a call and a tail jump, in glue.c */
	const struct call_site *g = site_of(&cs, "glue_xof", "pseudoXOF");
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(base_name(g->file), "glue.c");
	ck_assert(!g->caller_is_target);
	const struct call_site *t = site_of(&cs, "glue_xof_tail", "pseudoXOF");
	ck_assert_ptr_nonnull(t);
	ck_assert(t->tail);
	ck_assert_str_eq(base_name(t->file), "glue.c");
	/* an inlined wrapper: the function is the caller, the file the wrapper's */
	const struct call_site *in = site_of(&cs, "scheme_sign", "pseudohash");
	ck_assert_ptr_nonnull(in);
	ck_assert_str_eq(base_name(in->file), "inline_hash.h");
	/* the scheme reaches pseudoXOF only through the glue */
	ck_assert_ptr_null(site_of(&cs, "scheme_sign", "pseudoXOF"));
	/* inside the placeholder file: a placeholder calling another, and a local helper */
	const struct call_site *self = site_of(&cs, "pseudohash", "pseudoXOF");
	if (self)
		ck_assert(self->caller_is_target);
	const struct call_site *helper = site_of(&cs, "expand", "pseudoXOF");
	ck_assert_ptr_nonnull(helper);
	ck_assert(!helper->caller_is_target);
	ck_assert_str_eq(base_name(helper->file), "placeholder.c");
	for (size_t i = 1; i < cs.nsites; i++)
		ck_assert(cs.sites[i - 1].addr < cs.sites[i].addr);
	call_sites_free(&cs);
}
END_TEST

START_TEST(callers_through_the_plt)
{
	struct call_sites cs;
	pq_error err = { 0 };
	ck_assert_msg(call_sites_find(lib_calls_plt, placeholder_globs, 3, &cs, &err) == 0, "%s", err.msg);
	size_t x = 0;
	while (x < cs.ntargets && strcmp(cs.targets[x].name, "pseudoXOF") != 0)
		x++;
	ck_assert_uint_lt(x, cs.ntargets);
	ck_assert_msg(cs.targets[x].plt != 0, "pseudoXOF has no PLT stub in the plain -fPIC library");
	const struct call_site *g = site_of(&cs, "glue_xof", "pseudoXOF");
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(base_name(g->file), "glue.c");
	call_sites_free(&cs);
}
END_TEST

START_TEST(callers_without_dwarf_and_errors)
{
	struct call_sites cs;
	pq_error err = { 0 };
	ck_assert_msg(call_sites_find(lib_calls_nog, placeholder_globs, 3, &cs, &err) == 0, "%s", err.msg);
	ck_assert(!cs.dwarf);
	const struct call_site *g = site_of(&cs, "glue_xof", "pseudoXOF");
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_null(g->file);
	call_sites_free(&cs);

	/* globs matching nothing: no target, no site, no error */
	const char *none[] = { "no_such_function_*" };
	ck_assert_int_eq(call_sites_find(lib_calls, none, 1, &cs, &err), 0);
	ck_assert_uint_eq(cs.ntargets + cs.nsites, 0);
	call_sites_free(&cs);

	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/absent.so", workdir);
	ck_assert_int_eq(call_sites_find(path, placeholder_globs, 3, &cs, &err), -PQ_EIO);
	ck_assert(strstr(err.msg, path) != NULL);
	snprintf(path, sizeof path, "%s/../callers/glue.c", srcdir);
	ck_assert_int_eq(call_sites_find(path, placeholder_globs, 3, &cs, &err), -PQ_EINPUT);
	ck_assert_msg(strstr(err.msg, "not an ELF file") != NULL, "%s", err.msg);
}
END_TEST

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *tc = tcase_create("symbolizer");
	tcase_add_test(tc, inline_chain_from_dwarf);
	tcase_add_test(tc, stripped_object_uses_symtab);
	tcase_add_test(tc, local_function_file_from_stt_file);
	tcase_add_test(tc, asm_routine_not_label_with_dwarf);
	tcase_add_test(tc, asm_routine_not_label_without_dwarf);
	tcase_add_test(tc, unknown_addresses);
	tcase_add_test(tc, plt_stub_named);
	tcase_add_test(tc, build_id_mismatch_refused);
	tcase_add_test(tc, real_mappings_load_bias);
	tcase_add_test(tc, million_cached_resolutions);
	tcase_add_test(tc, cache_survives_growth);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("families");
	tcase_add_test(tf, family_names_at_word_starts);
	tcase_add_test(tf, families_from_symbols_and_dwarf);
	suite_add_tcase(s, tf);
	TCase *tcs = tcase_create("call_sites");
	tcase_add_test(tcs, callers_from_code_and_dwarf);
	tcase_add_test(tcs, callers_through_the_plt);
	tcase_add_test(tcs, callers_without_dwarf_and_errors);
	suite_add_tcase(s, tcs);
	TCase *te = tcase_create("elf_size");
	tcase_add_test(te, elf_size_tables);
	tcase_add_test(te, elf_size_errors);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	if (build_fixtures() != 0) {
		if (workdir[0])
			shell("rm -rf '%s'", workdir);
		return EXIT_FAILURE;
	}
	SRunner *sr = srunner_create(symbols_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	shell("rm -rf '%s'", workdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
