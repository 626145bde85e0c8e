/*
 * loader: open an instance library and check it carries the pqprof ABI.
 * Used in the runner child (never in pqprof itself: loading runs the
 * scheme's constructors).  The ELF check comes first so that a text file
 * or an executable gets a precise message rather than dlerror()'s.
 */
#ifndef PQ_LOADER_H
#define PQ_LOADER_H

#include "core/pq_error.h"
#include "instance/pqprof_abi.h"

/* Check the file is an ELF shared object (ET_DYN) for this machine. */
int loader_check_elf(const char *path, pq_error *err);

int loader_open(const char *path, const struct pqprof_instance **inst, void **handle, pq_error *err);

/*
 * The same in a link namespace of its own (dlmopen LM_ID_NEWLM): the
 * library and everything it needs, libc included, are loaded afresh, so
 * that no symbol of one build binds to another loaded beside it.  glibc
 * has 16 namespaces; the runner asks for them at start (GLIBC_TUNABLES
 * glibc.rtld.nns), or the static TLS of the extra libc copies runs out.
 */
int loader_open_namespace(const char *path, const struct pqprof_instance **inst, void **handle, pq_error *err);

const char *loader_api_name(int api);
const char *loader_kind_name(int kind);

#endif
