/*
 * unwind: libdwfl CFI unwinding of dwarf-mode samples; see unwind.h.
 *
 * libdwfl attaches process state once per Dwfl, so one Dwfl serves all
 * samples: its callbacks read registers and stack from `u->cur`, the
 * sample being unwound, which unwinder_unwind() swaps in and out.
 */
#include "config.h"
#include "profile/unwind.h"
#include "core/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

/* perf's PERF_REG_X86_* numbers */
enum { PR_AX = 0, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_R8 = 16 };
#define DWARF_X86_64_NREGS 17  /* rax..r15 (0-15) and the return address column rip (16) */

struct mapping {
	char *path;
	uint64_t start, end, pgoff;
};

struct unwinder {
	pid_t pid;
	Dwfl *dwfl;
	int attached;
	struct mapping *maps;
	size_t nmaps, cap, nreported;
	char *scope;
	struct unwind_stats stats;
	/* the sample being unwound and what the callbacks saw */
	const struct sampler_sample *cur;
	uint64_t sp;
	uint64_t *out;
	size_t max, n;
	int seen_scope, left_scope, hit_max, beyond_stack;
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	struct unwinder *u = dwfl_arg;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->pid;
}

/* Reads outside the stack copy: constant data in the mapped files. */
static bool read_from_file(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	if (!mod)
		return false;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return false;
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return false;
	Dwarf_Addr v = addr - bias;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v < ph.p_vaddr || v + sizeof *result > ph.p_vaddr + ph.p_filesz)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + (v - ph.p_vaddr)),
		                                   sizeof *result, ELF_T_BYTE);
		if (!d || d->d_size < sizeof *result)
			return false;
		memcpy(result, d->d_buf, sizeof *result);
		return true;
	}
	return false;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct unwinder *u = dwfl_arg;
	const struct sampler_sample *s = u->cur;
	if (addr >= u->sp && addr - u->sp <= s->stack_size &&
	    s->stack_size - (addr - u->sp) >= sizeof *result) {
		memcpy(result, s->stack + (addr - u->sp), sizeof *result);
		return true;
	}
	if (read_from_file(dwfl, addr, result))
		return true;
	/* Just above the copied part: the copy was too small for this stack. */
	if (addr >= u->sp && addr - u->sp < (uint64_t)1 << 24)
		u->beyond_stack = 1;
	return false;
}

static uint64_t perf_reg(const struct sampler_sample *s, unsigned bit)
{
	if (!(s->regs_mask & (1ull << bit)))
		return 0;
	unsigned idx = (unsigned)__builtin_popcountll(s->regs_mask & ((1ull << bit) - 1));
	return idx < s->nregs ? s->regs[idx] : 0;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct unwinder *u = thread_arg;
	const struct sampler_sample *s = u->cur;
	/* DWARF x86-64 order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	static const unsigned perf_of_dwarf[DWARF_X86_64_NREGS] = {
		PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
		PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7,
		PR_IP,
	};
	Dwarf_Word regs[DWARF_X86_64_NREGS];
	for (unsigned i = 0; i < DWARF_X86_64_NREGS; i++)
		regs[i] = perf_reg(s, perf_of_dwarf[i]);
	dwfl_thread_state_register_pc(thread, perf_reg(s, PR_IP));
	return dwfl_thread_state_registers(thread, 0, DWARF_X86_64_NREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = NULL,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
	.detach = NULL,
	.thread_detach = NULL,
};

struct unwinder *unwinder_new(pid_t pid, pq_error *err)
{
	struct unwinder *u = calloc(1, sizeof *u);
	if (!u) {
		pq_fail(err, PQ_ENOMEM, "unwind: out of memory");
		return NULL;
	}
	u->pid = pid > 0 ? pid : 1;
	elf_version(EV_CURRENT);
	u->dwfl = dwfl_begin(&dwfl_cbs);
	if (!u->dwfl) {
		pq_fail(err, PQ_EINTERNAL, "unwind: dwfl_begin: %s", dwfl_errmsg(-1));
		free(u);
		return NULL;
	}
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	for (size_t i = 0; i < u->nmaps; i++)
		free(u->maps[i].path);
	free(u->maps);
	free(u->scope);
	free(u);
}

int unwinder_add_module(struct unwinder *u, const char *path, uint64_t start, uint64_t len,
                        uint64_t pgoff, pq_error *err)
{
	if (pq_grow(&u->maps, &u->cap, u->nmaps + 1, sizeof *u->maps, 16) < 0)
		return pq_fail(err, PQ_ENOMEM, "unwind: out of memory");
	struct mapping *m = &u->maps[u->nmaps];
	m->path = strdup(path);
	if (!m->path)
		return pq_fail(err, PQ_ENOMEM, "unwind: out of memory");
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	u->nmaps++;
	return 0;
}

void unwinder_set_scope(struct unwinder *u, const char *path)
{
	free(u->scope);
	char buf[PATH_MAX];
	u->scope = strdup(realpath(path, buf) ? buf : path);
}

static int in_scope(const struct unwinder *u, uint64_t pc)
{
	if (!u->scope)
		return 0;
	for (size_t i = 0; i < u->nmaps; i++)
		if (pc >= u->maps[i].start && pc < u->maps[i].end && !strcmp(u->maps[i].path, u->scope))
			return 1;
	return 0;
}

/*
 * Load bias of a file from one of its mappings: the PT_LOAD holding file
 * offset pgoff puts that offset at vaddr pgoff + (p_vaddr - p_offset).
 */
static int load_bias(const struct mapping *m, uint64_t *bias)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = -1;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &phnum) == 0) {
		uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if ((ph.p_offset & ~(pg - 1)) <= m->pgoff && m->pgoff < ph.p_offset + ph.p_filesz) {
				*bias = m->start - (m->pgoff + ph.p_vaddr - ph.p_offset);
				rc = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static int path_reported_before(const struct unwinder *u, size_t upto, const char *path)
{
	for (size_t i = 0; i < upto; i++)
		if (!strcmp(u->maps[i].path, path))
			return 1;
	return 0;
}

/* Report mappings added since the last unwind, then attach once. */
static int report_pending(struct unwinder *u, pq_error *err)
{
	if (u->nreported < u->nmaps) {
		dwfl_report_begin_add(u->dwfl);
		for (size_t i = u->nreported; i < u->nmaps; i++) {
			const struct mapping *m = &u->maps[i];
			uint64_t bias;
			if (path_reported_before(u, i, m->path))
				continue;
			if (load_bias(m, &bias) < 0 ||
			    !dwfl_report_elf(u->dwfl, m->path, m->path, -1, bias, true)) {
				u->stats.module_errors++;
				continue;
			}
			u->stats.modules++;
		}
		dwfl_report_end(u->dwfl, NULL, NULL);
		u->nreported = u->nmaps;
	}
	if (!u->attached) {
		if (!u->stats.modules)
			return pq_fail(err, PQ_EINPUT, "unwind: no modules to unwind through");
		if (!dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_cbs, u))
			return pq_fail(err, PQ_EINTERNAL, "unwind: dwfl_attach_state: %s",
			               dwfl_errmsg(-1));
		u->attached = 1;
	}
	return 0;
}

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (u->n >= u->max) {
		u->hit_max = 1;
		return DWARF_CB_ABORT;
	}
	u->out[u->n++] = pc;
	if (in_scope(u, pc)) {
		u->seen_scope = 1;
	} else if (u->seen_scope) {
		/* First frame of the caller outside the scheme: enough. */
		u->left_scope = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int unwinder_unwind(struct unwinder *u, const struct sampler_sample *s, uint64_t *pcs,
                    size_t max, size_t *n, pq_error *err)
{
	*n = 0;
	if (!max)
		return pq_fail(err, PQ_EUSAGE, "unwind: no room for frames");
	u->stats.samples++;
	if (!s->regs_abi || !s->regs || !s->stack) {
		pcs[0] = s->ip;
		*n = 1;
		u->stats.no_regs++;
		return UNWIND_NO_REGS;
	}
	int rc = report_pending(u, err);
	if (rc < 0)
		return rc;
	u->cur = s;
	u->sp = perf_reg(s, PR_SP);
	u->out = pcs;
	u->max = max;
	u->n = 0;
	u->seen_scope = u->left_scope = u->hit_max = u->beyond_stack = 0;
	int r = dwfl_getthread_frames(u->dwfl, u->pid, cb_frame, u);
	u->cur = NULL;
	if (u->n == 0) {
		pcs[0] = s->ip;
		u->n = 1;
	}
	*n = u->n;
	/*
	 * libdwfl ends quietly (r == 0) when it cannot read a return address,
	 * as it does at the outermost frame, so a failed read of the stack
	 * copy, or an end inside the scheme, marks truncation too.
	 */
	int ended_inside = u->scope && u->seen_scope && !u->left_scope;
	if (u->left_scope || (r == 0 && !u->hit_max && !u->beyond_stack && !ended_inside)) {
		u->stats.complete++;
		return UNWIND_COMPLETE;
	}
	u->stats.truncated++;
	if (u->beyond_stack)
		u->stats.truncated_stack++;
	return UNWIND_TRUNCATED;
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}
