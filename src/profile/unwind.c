/*
 * unwind: unwinding of dwarf-mode samples (CFI through libdwfl, frame
 * pointers and a validated stack scan where there is no CFI); see
 * unwind.h.
 *
 * libdwfl attaches process state once per Dwfl, so one Dwfl serves all
 * samples: its callbacks read registers and stack from `u->cur`, the
 * sample being unwound, which unwinder_unwind() swaps in and out.  An
 * unwind runs in segments: libdwfl walks CFI frames until it meets a
 * frame whose code has no CFI (the frame callback stops it there, before
 * libdwfl's own frame-pointer guess runs), this file recovers that
 * frame's caller, and libdwfl resumes from the recovered registers.
 */
#include "config.h"
#include "core/atomic_file.h"
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
enum { DW_RBP = 6, DW_RSP = 7, DW_RIP = 16 };
/* Segments of one unwind (each ends at a frame without CFI). */
#define MAX_SEGMENTS 64
/* How far above a CFI-less frame's stack pointer the scan looks. */
#define SCAN_BYTES 16384

enum frame_how { HOW_SAMPLED, HOW_CFI, HOW_FP, HOW_SCAN };

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
	/* the entry (unwinder_set_entry) */
	uint64_t entry_sp;
	uint64_t *entry_frames;
	size_t nentry_frames;
	int use_entry;             /* this sample is below the entry */
	int reached, bad;
	/* segments: where the current one starts, where the last one stopped */
	int resume;                /* start from `init` instead of the sample */
	int seg_first;             /* the next frame is the segment's first */
	enum frame_how seg_how;
	Dwarf_Word init[DWARF_X86_64_NREGS];
	int need_fallback;
	Dwarf_Word fb[DWARF_X86_64_NREGS];
	int fb_rbp_known;
	uint64_t fb_pc, fb_sp, last_sp;
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
	if (u->resume) {
		memcpy(regs, u->init, sizeof regs);
	} else {
		for (unsigned i = 0; i < DWARF_X86_64_NREGS; i++)
			regs[i] = perf_reg(s, perf_of_dwarf[i]);
	}
	dwfl_thread_state_register_pc(thread, regs[DW_RIP]);
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
	free(u->entry_frames);
	free(u);
}

void unwinder_set_entry(struct unwinder *u, uint64_t entry_sp, const uint64_t *frames, size_t n)
{
	free(u->entry_frames);
	u->entry_frames = NULL;
	u->nentry_frames = 0;
	u->entry_sp = entry_sp;
	if (n && (u->entry_frames = malloc(n * sizeof *frames)) != NULL) {
		memcpy(u->entry_frames, frames, n * sizeof *frames);
		u->nentry_frames = n;
	}
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
	int fd = open_regular(m->path);
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

/* ---- validation of recovered frames ---- */

static int in_exec_map(const struct unwinder *u, uint64_t pc)
{
	for (size_t i = 0; i < u->nmaps; i++)
		if (pc >= u->maps[i].start && pc < u->maps[i].end)
			return 1;
	return 0;
}

/* Does the code at pc (an address inside an instruction) have CFI? */
static int has_cfi(struct unwinder *u, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, pc);
	if (!mod)
		return 0;
	Dwarf_Addr bias;
	Dwarf_CFI *cfis[2] = { dwfl_module_eh_cfi(mod, &bias), NULL };
	Dwarf_Addr bias2;
	cfis[1] = dwfl_module_dwarf_cfi(mod, &bias2);
	Dwarf_Addr biases[2] = { bias, bias2 };
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		if (cfis[i] && dwarf_cfi_addrframe(cfis[i], pc - biases[i], &fr) == 0) {
			free(fr);
			return 1;
		}
	}
	return 0;
}

/* The n code bytes before addr, from the file mapped there. */
static int code_before(struct unwinder *u, uint64_t addr, uint8_t *buf, size_t n)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, addr - 1);
	if (!mod)
		return -1;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t fsize, phnum;
	const char *raw = elf ? elf_rawfile(elf, &fsize) : NULL;
	if (!raw || elf_getphdrnum(elf, &phnum) != 0)
		return -1;
	uint64_t v = addr - bias;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (v < ph.p_vaddr + n || v > ph.p_vaddr + ph.p_filesz)
			continue;
		uint64_t off = ph.p_offset + (v - n - ph.p_vaddr);
		if (off + n > fsize)
			return -1;
		memcpy(buf, raw + off, n);
		return 0;
	}
	return -1;
}

/* Length of an FF /2 (call r/m64) starting at p, or 0; p holds len bytes. */
static size_t call_rm_len(const uint8_t *p, size_t len)
{
	if (len < 2 || p[0] != 0xff || ((p[1] >> 3) & 7) != 2)
		return 0;
	unsigned mod = p[1] >> 6, rm = p[1] & 7;
	size_t l = 2;
	if (mod == 3)
		return l;
	if (rm == 4) {
		if (len < 3)
			return 0;
		l++;
		if (mod == 0 && (p[2] & 7) == 5)
			l += 4;
	}
	if (mod == 0 && rm == 5)
		l += 4;
	else if (mod == 1)
		l += 1;
	else if (mod == 2)
		l += 4;
	return l;
}

/*
 * A return address: mapped executable code, inside a function the
 * module's symbols know, right after a call instruction.
 */
static int valid_return_address(struct unwinder *u, uint64_t ra)
{
	if (ra < 16 || !in_exec_map(u, ra))
		return 0;
	uint8_t b[8];
	if (code_before(u, ra, b, sizeof b) < 0)
		return 0;
	int call = 0;
	if (b[3] == 0xe8) {
		int32_t rel;
		memcpy(&rel, b + 4, 4);
		call = in_exec_map(u, ra + (uint64_t)(int64_t)rel);
	}
	for (size_t len = 2; !call && len <= 7; len++)
		call = call_rm_len(b + 8 - len, len) == len;
	if (!call)
		return 0;
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, ra - 1);
	GElf_Off off;
	GElf_Sym sym;
	return mod && dwfl_module_addrinfo(mod, ra - 1, &off, &sym, NULL, NULL, NULL) != NULL;
}

/* A word of the stack copy, or -1 when addr is outside it. */
static int stack_word(const struct unwinder *u, uint64_t addr, uint64_t *v)
{
	const struct sampler_sample *s = u->cur;
	if (addr < u->sp || addr - u->sp > s->stack_size || s->stack_size - (addr - u->sp) < 8)
		return -1;
	memcpy(v, s->stack + (addr - u->sp), 8);
	return 0;
}

/*
 * The caller of the frame recorded in u->fb (a frame without CFI): frame
 * pointer if valid, else the stack scan.  Sets u->init and u->seg_how.
 */
static int recover_caller(struct unwinder *u)
{
	uint64_t sp = u->fb_sp, limit = u->sp + u->cur->stack_size;
	if (u->use_entry && u->entry_sp < limit)
		limit = u->entry_sp;
	uint64_t scan_end = sp + SCAN_BYTES < limit ? sp + SCAN_BYTES : limit;
	uint64_t found = 0, ra = 0, w;
	for (uint64_t a = (sp + 7) & ~(uint64_t)7; a + 8 <= scan_end; a += 8) {
		if (stack_word(u, a, &w) < 0)
			break;
		if (valid_return_address(u, w)) {
			found = a;
			ra = w;
			break;
		}
	}
	uint64_t bp = u->fb[DW_RBP], fp_ra, saved_bp;
	memcpy(u->init, u->fb, sizeof u->init);
	if (u->fb_rbp_known && !(bp & 7) && bp >= sp && bp + 16 <= limit && (!found || found >= bp + 8) &&
	    stack_word(u, bp + 8, &fp_ra) == 0 && stack_word(u, bp, &saved_bp) == 0 &&
	    (found == bp + 8 || valid_return_address(u, fp_ra))) {
		u->init[DW_RSP] = bp + 16;
		u->init[DW_RBP] = saved_bp;
		u->init[DW_RIP] = fp_ra - 1;
		u->seg_how = HOW_FP;
		return 0;
	}
	if (!found)
		return -1;
	u->init[DW_RSP] = found + 8;
	u->init[DW_RIP] = ra - 1;
	u->seg_how = HOW_SCAN;
	return 0;
}

static void count_frame(struct unwinder *u, enum frame_how how)
{
	switch (how) {
	case HOW_CFI: u->stats.frames_cfi++; break;
	case HOW_FP: u->stats.frames_fp++; break;
	case HOW_SCAN: u->stats.frames_scan++; break;
	default: break;
	}
}

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	Dwarf_Word sp = 0;
	int sp_known = dwfl_frame_reg(state, DW_RSP, &sp) == 0;
	int first = u->seg_first;
	u->seg_first = 0;
	enum frame_how how = HOW_CFI;
	uint64_t out = pc;
	if (first && u->resume) {
		out = pc + 1;  /* resumed at the return address less one */
		how = u->seg_how;
	} else if (first) {
		how = HOW_SAMPLED;
	} else if (!sp_known || sp <= u->last_sp || !in_exec_map(u, pc)) {
		/* CFI from registers a recovery could not restore: not a frame. */
		u->bad = 1;
		return DWARF_CB_ABORT;
	}
	if (u->use_entry && sp_known && sp >= u->entry_sp) {
		/* The runner's frame that called the scheme: the end of the unwind. */
		if (u->n < u->max) {
			u->out[u->n++] = out;
			count_frame(u, how);
		}
		if (sp == u->entry_sp) {
			for (size_t i = 0; i < u->nentry_frames && u->n < u->max; i++) {
				u->out[u->n++] = u->entry_frames[i];
				u->stats.frames_stitched++;
			}
		}
		u->reached = 1;
		return DWARF_CB_ABORT;
	}
	if (u->n >= u->max) {
		u->hit_max = 1;
		return DWARF_CB_ABORT;
	}
	u->out[u->n++] = out;
	count_frame(u, how);
	u->last_sp = sp;
	if (!u->use_entry && in_scope(u, out)) {
		u->seen_scope = 1;
	} else if (!u->use_entry && u->seen_scope) {
		/* First frame of the caller outside the scheme: enough. */
		u->left_scope = 1;
		return DWARF_CB_ABORT;
	}
	if (!sp_known || has_cfi(u, activation ? pc : pc - 1))
		return DWARF_CB_OK;
	/* No CFI: stop libdwfl here and recover the caller ourselves. */
	for (unsigned i = 0; i < DWARF_X86_64_NREGS; i++) {
		Dwarf_Word v = 0;
		int known = dwfl_frame_reg(state, i, &v) == 0;
		u->fb[i] = known ? v : 0;
		if (i == DW_RBP)
			u->fb_rbp_known = known;
	}
	u->fb_pc = out;
	u->fb_sp = sp;
	u->need_fallback = 1;
	return DWARF_CB_ABORT;
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
	u->use_entry = u->entry_sp && u->sp < u->entry_sp;
	u->reached = u->bad = u->resume = u->need_fallback = 0;
	u->seg_first = 1;
	u->last_sp = 0;
	int r = 0, recovery_failed = 0;
	for (int seg = 0; seg < MAX_SEGMENTS; seg++) {
		r = dwfl_getthread_frames(u->dwfl, u->pid, cb_frame, u);
		if (!u->need_fallback || u->reached || u->hit_max || u->bad || u->left_scope)
			break;
		u->need_fallback = 0;
		if (recover_caller(u) < 0) {
			recovery_failed = 1;
			break;
		}
		u->resume = 1;
		u->seg_first = 1;
	}
	u->resume = 0;
	u->cur = NULL;
	if (u->n == 0) {
		pcs[0] = s->ip;
		u->n = 1;
	}
	*n = u->n;
	int complete;
	if (u->use_entry) {
		complete = u->reached;
	} else {
		/*
		 * libdwfl ends quietly (r == 0) when it cannot read a return
		 * address, as it does at the outermost frame, so a failed read of
		 * the stack copy, or an end inside the scheme, marks truncation too.
		 */
		int ended_inside = u->scope && u->seen_scope && !u->left_scope;
		complete = u->left_scope || (r == 0 && !u->hit_max && !u->beyond_stack && !ended_inside &&
		                             !u->bad && !recovery_failed && !u->need_fallback);
	}
	u->need_fallback = 0;
	if (complete) {
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
