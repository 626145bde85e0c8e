/* loader: dlopen + ABI validation of instance libraries; see loader.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "instance/loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int loader_check_elf(const char *path, pq_error *err)
{
	int fd = open_regular(path);
	if (fd < 0)
		return errno == ESPIPE || errno == ENODEV || errno == EISDIR
		       ? pq_fail(err, PQ_ELOAD, "%s: %s", path, open_regular_why(errno))
		       : pq_fail_errno(err, PQ_ELOAD, "%s", path);
	Elf64_Ehdr eh;
	ssize_t n = read(fd, &eh, sizeof eh);
	int interp = 0;
	/* What the headers say the file holds: a shorter file is truncated, and
	 * mapping it would end in SIGBUS inside the dynamic loader. */
	unsigned long long need = 0;
	struct stat sb;
	unsigned long long size = fstat(fd, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
	/* A PIE executable is ET_DYN too; its PT_INTERP gives it away. */
	if (n == (ssize_t)sizeof eh && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
		need = eh.e_phoff + (unsigned long long)eh.e_phnum * sizeof(Elf64_Phdr);
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
				break;
			if (ph.p_type == PT_INTERP)
				interp = 1;
			if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > need)
				need = ph.p_offset + ph.p_filesz;
		}
		if (eh.e_shoff && eh.e_shentsize == sizeof(Elf64_Shdr) &&
		    eh.e_shoff + (unsigned long long)eh.e_shnum * sizeof(Elf64_Shdr) > need)
			need = eh.e_shoff + (unsigned long long)eh.e_shnum * sizeof(Elf64_Shdr);
	}
	close(fd);
	if (n < (ssize_t)EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return pq_fail(err, PQ_ELOAD, "%s: not an ELF file", path);
	if (n < (ssize_t)sizeof eh || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return pq_fail(err, PQ_ELOAD, "%s: not a 64-bit ELF object", path);
	if (eh.e_type != ET_DYN || interp)
		return pq_fail(err, PQ_ELOAD, "%s: not a shared object (an executable)", path);
	if (need > size)
		return pq_fail(err, PQ_ELOAD, "%s: truncated: %llu bytes, its ELF headers describe %llu", path, size, need);
#if defined(__x86_64__)
	if (eh.e_machine != EM_X86_64)
		return pq_fail(err, PQ_ELOAD, "%s: built for another machine (e_machine %u)", path, eh.e_machine);
#elif defined(__aarch64__)
	if (eh.e_machine != EM_AARCH64)
		return pq_fail(err, PQ_ELOAD, "%s: built for another machine (e_machine %u)", path, eh.e_machine);
#endif
	return 0;
}

static int open_in(const char *path, int own_namespace, const struct pqprof_instance **inst, void **handle,
                   pq_error *err)
{
	*inst = NULL;
	*handle = NULL;
	int r = loader_check_elf(path, err);
	if (r < 0)
		return r;
	/* dlopen needs a slash to avoid searching the library path. */
	char buf[4096];
	if (!strchr(path, '/'))
		snprintf(buf, sizeof buf, "./%s", path);
	else
		snprintf(buf, sizeof buf, "%s", path);
	void *h = own_namespace ? dlmopen(LM_ID_NEWLM, buf, RTLD_NOW | RTLD_LOCAL) : dlopen(buf, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return pq_fail(err, PQ_ELOAD, "%s: cannot load: %s", path, dlerror());
	const struct pqprof_instance *d = dlsym(h, PQPROF_ABI_SYMBOL);
	if (!d) {
		dlclose(h);
		return pq_fail(err, PQ_ELOAD, "%s: not a pqprof instance library (no %s symbol; build it with 'pqprof build')",
		               path, PQPROF_ABI_SYMBOL);
	}
	if (d->magic != PQPROF_ABI_MAGIC || d->abi_version != PQPROF_ABI_VERSION) {
		dlclose(h);
		return pq_fail(err, PQ_ELOAD, "%s: instance ABI version %u, this pqprof speaks %u; rebuild it",
		               path, d->abi_version, PQPROF_ABI_VERSION);
	}
	int sig = d->kind == PQPROF_KIND_SIG;
	if (!d->get_sizes || !d->keygen || (sig && (!d->sign || !d->verify || !d->sig_blob_max)) ||
	    (!sig && (d->kind != PQPROF_KIND_KEM || !d->enc || !d->dec))) {
		dlclose(h);
		return pq_fail(err, PQ_ELOAD, "%s: instance descriptor lacks operations for its API", path);
	}
	*inst = d;
	*handle = h;
	return 0;
}

int loader_open(const char *path, const struct pqprof_instance **inst, void **handle, pq_error *err)
{
	return open_in(path, 0, inst, handle, err);
}

int loader_open_namespace(const char *path, const struct pqprof_instance **inst, void **handle, pq_error *err)
{
	return open_in(path, 1, inst, handle, err);
}

const char *loader_api_name(int api)
{
	return api == PQPROF_API_NGCC ? "ngcc" : api == PQPROF_API_NIST ? "nist" : "unknown";
}

const char *loader_kind_name(int kind)
{
	return kind == PQPROF_KIND_SIG ? "signature" : kind == PQPROF_KIND_KEM ? "kem" : "unknown";
}
