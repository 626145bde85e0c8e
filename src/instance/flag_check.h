/*
 * flag_check: refuse compiler flags that would make the compiler run a
 * program, load code into itself or its tools, read flags from a file
 * nobody checked, or write outside the build directory.  Flags written in
 * a scheme descriptor come from the scheme's authors and are checked;
 * flags the user types on the command line (--cflags, -D, --ldflags) are
 * the user's own and are not.  `--trust-flags` lifts the check.
 *
 * Refused (each with the reason the error gives):
 *   -wrapper                          runs a program around every compiler pass
 *   -B PREFIX, -BPREFIX               where the driver finds cc1, as and ld
 *   -specs=FILE, --specs              spec files can run any command
 *   @FILE                             flags read from a file (unchecked)
 *   -fplugin=, -fplugin-arg-*, -iplugindir=   load shared objects into cc1
 *   -fuse-ld=PATH, --ld-path=         another linker program (bfd, gold,
 *                                     lld and mold by name are allowed)
 *   -fmodule-mapper=                  may start a program
 *   -Xclang, -fpass-plugin=, --config, -ccc-*, --gcc-toolchain=,
 *   --gcc-install-dir=                clang: raw front-end options, plugins,
 *                                     config files, driver tool paths
 *   -o, -MF, -MT, -MQ, -aux-info, -dumpdir, -dumpbase    write other files
 *   -Wl,… -Xlinker, -Wa,… -Xassembler, -Wp,… -Xpreprocessor
 *                                     checked part by part: linker plugins
 *                                     (-plugin, --plugin*), response files
 *                                     (@FILE) and any refused flag inside
 * Allowed, on purpose: -I, -include and --sysroot (they only read files,
 * and the compiler runs as an unprivileged user in a namespace where that
 * is possible), -D/-U, optimisation, warning, machine and debug flags.
 */
#ifndef PQ_FLAG_CHECK_H
#define PQ_FLAG_CHECK_H

#include "core/pq_error.h"

/*
 * Why `word` (followed by `next`, or NULL) may not be used, or NULL when
 * it may.  *consumed is set to 1 when the flag takes `next` as its value.
 */
const char *flag_refusal(const char *word, const char *next, int *consumed);

/* Check a whitespace-separated flags string; the error names the flag and `origin`. */
int flag_check_string(const char *flags, const char *origin, pq_error *err);

#endif
