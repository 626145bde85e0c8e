/* link_scope: the flags of the local and plain -fPIC library forms; see link_scope.h. */
#include "config.h"
#include "instance/link_scope.h"

#include <stddef.h>

/*
 * Local binding is -fno-semantic-interposition (the compiler may inline and
 * call directly any function defined in the same unit) plus
 * -Wl,-Bsymbolic-functions (the linker binds every call to a function the
 * library defines to that definition, with no PLT), rather than a linker
 * version script that hides all but the API:
 *  - .dynsym and .symtab stay as they were, so the symbolizer, the uprobe
 *    call counters and the family finder find every function by name, and
 *    a prebuilt library's dynamic symbols mean what they meant;
 *  - functions the library does not define (malloc, free, calloc, realloc,
 *    posix_memalign) still bind to the runner's heap hooks through the
 *    global scope, so heap counting per operation is unchanged;
 *  - no list of exported names to keep right: NGCC, NIST, KEM and the
 *    shim's harness hooks all stay exported, and a name missed from a
 *    version script would only show up as a load failure.
 * Data symbols keep default binding: the weak drng_algorithm of the shim
 * and a tree's own definition resolve as before.
 */
static const char *const local_cflags[] = { "-fno-semantic-interposition", NULL };
static const char *const local_ldflags[] = { "-Wl,-Bsymbolic-functions", NULL };
static const char *const none[] = { NULL };

const char *const *link_scope_cflags(enum link_scope s)
{
	return s == LINK_SCOPE_LOCAL ? local_cflags : none;
}

const char *const *link_scope_ldflags(enum link_scope s)
{
	return s == LINK_SCOPE_LOCAL ? local_ldflags : none;
}

const char *link_scope_name(enum link_scope s)
{
	return s == LINK_SCOPE_LOCAL ? "local" : "plain-pic";
}

const char *link_scope_summary(enum link_scope s)
{
	return s == LINK_SCOPE_LOCAL
	       ? "calls inside the library bind locally (-fno-semantic-interposition -Wl,-Bsymbolic-functions), "
	         "as in the submitter's static programs"
	       : "plain -fPIC, default visibility: calls to exported functions go through the PLT "
	         "(the reference harness's form)";
}

const char *link_scope_flags(enum link_scope s)
{
	return s == LINK_SCOPE_LOCAL ? "-fno-semantic-interposition -Wl,-Bsymbolic-functions" : "";
}
