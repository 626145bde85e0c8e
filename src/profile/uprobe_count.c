/*
 * uprobe_count: function entry counts through the uprobe PMU; see
 * uprobe_count.h.
 */
#include "config.h"
#include "profile/uprobe_count.h"
#include "profile/elf_code.h"
#include "core/atomic_file.h"
#include "core/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#define UPROBE_TYPE_FILE "/sys/bus/event_source/devices/uprobe/type"
#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

/* ---- symbol resolution ---- */

static int vaddr_to_offset(Elf *elf, uint64_t v, uint64_t *off)
{
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return -1;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

static int name_matches(const char *name, const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

static int add_target(struct uprobe_targets *out, size_t *cap, const char *name, uint64_t off,
                      uint64_t size)
{
	for (size_t i = 0; i < out->n; i++)
		if (out->t[i].offset == off)
			return 0; /* alias of a function already probed */
	if (pq_grow(&out->t, &*cap, out->n + 1, sizeof *out->t, 16) < 0)
		return -1;
	out->t[out->n].name = strdup(name);
	if (!out->t[out->n].name)
		return -1;
	out->t[out->n].offset = off;
	out->t[out->n].size = size;
	out->n++;
	return 0;
}

static int scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *const *globs,
                       size_t nglobs, struct uprobe_targets *out, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return 0;
	size_t count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || !elf_code_symbol(elf, &sym) || !name_matches(name, globs, nglobs))
			continue;
		uint64_t off;
		if (vaddr_to_offset(elf, sym.st_value, &off) < 0)
			continue;
		if (add_target(out, cap, name, off, sym.st_size) < 0)
			return -1;
	}
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct uprobe_target *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int uprobe_resolve(const char *lib_path, const char *const *globs, size_t nglobs,
                   struct uprobe_targets *out, pq_error *err)
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
		goto out;
	}
	/* .symtab has the static functions too; .dynsym only when stripped. */
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sym_sh, dyn_sh;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			sym_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dyn_sh = sh;
		}
	}
	size_t cap = 0;
	if (symtab)
		rc = scan_symtab(elf, symtab, &sym_sh, globs, nglobs, out, &cap);
	else if (dynsym)
		rc = scan_symtab(elf, dynsym, &dyn_sh, globs, nglobs, out, &cap);
	else
		rc = pq_fail(err, PQ_EINPUT, "%s: no symbol table", lib_path);
	if (rc == -1) {
		uprobe_targets_free(out);
		rc = pq_fail(err, PQ_ENOMEM, "uprobe: out of memory");
	}
	if (rc == 0 && out->n > 1)
		qsort(out->t, out->n, sizeof *out->t, by_offset);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void uprobe_targets_free(struct uprobe_targets *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->t[i].name);
	free(ts->t);
	ts->t = NULL;
	ts->n = 0;
}

/* ---- permissions ---- */

static int has_cap(int bit)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long long caps = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> bit) & 1;
}

static int not_permitted(pq_error *err)
{
	int paranoid = 99;
	long p;
	if (read_long_file("/proc/sys/kernel/perf_event_paranoid", &p) == 0)
		paranoid = (int)p;
	return pq_fail(err, PQ_EPERF,
	               "uprobes not permitted: perf_event_paranoid=%d and no CAP_PERFMON "
	               "(run as root or grant CAP_PERFMON)", paranoid);
}

int uprobe_available(pq_error *why)
{
	long type;
	if (read_long_file(UPROBE_TYPE_FILE, &type) < 0)
		return pq_fail(why, PQ_EPERF,
		               "uprobe PMU not available (no %s; kernel without CONFIG_UPROBE_EVENTS?)",
		               UPROBE_TYPE_FILE);
	if (!has_cap(CAP_PERFMON_BIT) && !has_cap(CAP_SYS_ADMIN_BIT))
		return not_permitted(why);
	return 0;
}

/* ---- counters ---- */

static int open_counters(struct uprobe_counters *uc, const char *lib_path,
                         const struct uprobe_targets *ts, pid_t pid, unsigned long flags, pq_error *err)
{
	memset(uc, 0, sizeof *uc);
	long type;
	if (read_long_file(UPROBE_TYPE_FILE, &type) < 0)
		return pq_fail(err, PQ_EPERF,
		               "uprobe PMU not available (no %s; kernel without CONFIG_UPROBE_EVENTS?)",
		               UPROBE_TYPE_FILE);
	char path[PATH_MAX];
	if (!realpath(lib_path, path))
		return pq_fail_errno(err, PQ_EINPUT, "%s", lib_path);
	uc->fds = malloc((ts->n ? ts->n : 1) * sizeof *uc->fds);
	if (!uc->fds)
		return pq_fail(err, PQ_ENOMEM, "uprobe: out of memory");
	for (size_t i = 0; i < ts->n; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = (uint32_t)type;
		a.config = 0; /* entry probe, not a return probe */
		a.config1 = (uint64_t)(uintptr_t)path;
		a.config2 = ts->t[i].offset;
		a.disabled = 1;
		a.exclude_hv = 1;
		long fd = syscall(__NR_perf_event_open, &a, pid, -1, -1, flags);
		if (fd < 0) {
			int e = errno;
			uprobe_counters_close(uc);
			if (e == EACCES || e == EPERM)
				return not_permitted(err);
			errno = e;
			return pq_fail_errno(err, PQ_EPERF, "uprobe on %s (%s+0x%llx)", ts->t[i].name,
			                     path, (unsigned long long)ts->t[i].offset);
		}
		uc->fds[uc->n++] = (int)fd;
	}
	return 0;
}

int uprobe_counters_open(struct uprobe_counters *uc, const char *lib_path,
                         const struct uprobe_targets *ts, pid_t pid, pq_error *err)
{
	return open_counters(uc, lib_path, ts, pid, PERF_FLAG_FD_CLOEXEC, err);
}

int uprobe_counters_open_inheritable(struct uprobe_counters *uc, const char *lib_path,
                                     const struct uprobe_targets *ts, pq_error *err)
{
	return open_counters(uc, lib_path, ts, 0, 0, err);
}

int uprobe_counters_adopt(struct uprobe_counters *uc, const int *fds, size_t n, pq_error *err)
{
	memset(uc, 0, sizeof *uc);
	uc->fds = malloc((n ? n : 1) * sizeof *uc->fds);
	if (!uc->fds)
		return pq_fail(err, PQ_ENOMEM, "uprobe: out of memory");
	for (size_t i = 0; i < n; i++) {
		uint64_t v;
		/* a counter reads 8 bytes; anything else is not one */
		if (fds[i] < 0 || read(fds[i], &v, sizeof v) != (ssize_t)sizeof v) {
			uprobe_counters_close(uc);
			return pq_fail(err, PQ_EPERF, "uprobe: descriptor %d handed over is not a counter", fds[i]);
		}
		fcntl(fds[i], F_SETFD, FD_CLOEXEC);
		uc->fds[uc->n++] = fds[i];
	}
	return 0;
}

static void ioctl_all(struct uprobe_counters *uc, unsigned long req)
{
	for (size_t i = 0; i < uc->n; i++)
		ioctl(uc->fds[i], req, 0);
}

void uprobe_counters_enable(struct uprobe_counters *uc)
{
	ioctl_all(uc, PERF_EVENT_IOC_ENABLE);
}

void uprobe_counters_disable(struct uprobe_counters *uc)
{
	ioctl_all(uc, PERF_EVENT_IOC_DISABLE);
}

void uprobe_counters_reset(struct uprobe_counters *uc)
{
	ioctl_all(uc, PERF_EVENT_IOC_RESET);
}

int uprobe_counters_read(const struct uprobe_counters *uc, uint64_t *counts, pq_error *err)
{
	for (size_t i = 0; i < uc->n; i++) {
		uint64_t v;
		ssize_t r = read(uc->fds[i], &v, sizeof v);
		if (r != (ssize_t)sizeof v)
			return pq_fail_errno(err, PQ_EPERF, "uprobe: reading counter %zu", i);
		counts[i] = v;
	}
	return 0;
}

void uprobe_counters_close(struct uprobe_counters *uc)
{
	for (size_t i = 0; i < uc->n; i++)
		close(uc->fds[i]);
	free(uc->fds);
	uc->fds = NULL;
	uc->n = 0;
}
