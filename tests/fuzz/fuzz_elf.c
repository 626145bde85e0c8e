/*
 * fuzz_elf: libFuzzer harness for pqprof's readers of a submitter's
 * library: the symbolizer (libdwfl: symbols, DWARF lines and inlines), the
 * image sizes (libelf: program and section headers), the run path, the
 * uprobe offsets of functions and the disassembler's branch walk
 * (capstone).  Each input is an ELF file, handed over as an in-memory
 * file (memfd) named /proc/self/fd/N, as pqprof opens a library by path.
 * None of them may crash, hang or read out of bounds, whatever the bytes.
 *
 * Built with -DPQ_FUZZ_STANDALONE it replays files instead (see
 * fuzz_replay.h); "make check" runs it over the seed corpus (small
 * libraries built from a toy source at -O0 and -O2, one cut short) and the
 * regression files.
 */
#define _GNU_SOURCE
#include "config.h"
#include "instance/runpath.h"
#include "measure/elf_size.h"
#include "profile/disasm.h"
#include "profile/symbolizer.h"
#include "profile/uprobe_count.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_branch(void *ctx, uint64_t from, enum flow_kind kind, uint64_t to)
{
	(void)from;
	(void)kind;
	(void)to;
	++*(size_t *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	struct elf_size es;
	pq_error err = { 0 };
	if (elf_size_analyze(path, &es, &err) == 0)
		elf_size_free(&es);

	char dirs[4][PATH_MAX];
	instance_runpath(path, dirs, 4);

	struct symbolizer *sym = symbolizer_new();
	if (sym) {
		uint64_t base = 0x7f0000000000ull;
		symbolizer_add_module(sym, path, base, base + (size ? size : 1) + 0x10000, 0, NULL, 0, &err);
		for (uint64_t off = 0; off < size && off < 0x8000; off += 0x111) {
			const struct sym_frame *fr;
			int nf;
			symbolizer_resolve(sym, base + off, &fr, &nf);
		}
		symbolizer_free(sym);
	}

	const char *globs[] = { "*" };
	struct uprobe_targets ts;
	if (uprobe_resolve(path, globs, 1, &ts, &err) == 0)
		uprobe_targets_free(&ts);

	size_t branches = 0;
	disasm_each_branch(path, count_branch, &branches, &err);
	close(fd);
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "elf"
#include "fuzz_replay.h"
#endif
