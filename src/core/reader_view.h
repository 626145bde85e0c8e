/*
 * reader_view: parse what a submitter controls (its library's ELF and
 * DWARF, the source files its line tables name) in a process that can
 * reach nothing else.  pqprof forks; the child gets its own mount and
 * network namespaces and a new root holding only /usr (read-only), the
 * paths the caller names (read-only, or writable for outputs) and
 * /dev/null, and keeps no capability that could leave it (as root: only
 * the file-permission ones, over that view; never CAP_SYS_ADMIN,
 * CAP_SYS_PTRACE or CAP_SYS_CHROOT).  A bug in libelf, libdw or capstone
 * that a crafted library triggers, or a line table naming /etc/shadow,
 * /dev/zero or a FIFO, then finds no file of the operator's to read and
 * no network.
 *
 * The parent only waits: the child runs the rest of the command (its
 * output goes to the same stdout and stderr) and its exit status is the
 * command's.
 */
#ifndef PQ_READER_VIEW_H
#define PQ_READER_VIEW_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "core/pq_error.h"

#define READER_VIEW_MAX 48

struct reader_view {
	char path[READER_VIEW_MAX][PATH_MAX]; /* resolved, deduplicated */
	int writable[READER_VIEW_MAX];
	int n;
	int dropped;                          /* paths past READER_VIEW_MAX (the view is refused) */
};

/* Add a file or folder (resolved; one that does not exist is left out). */
void reader_view_add(struct reader_view *v, const char *path, int writable);
/* Add the folder that holds path (for an output file that does not exist yet). */
void reader_view_add_dir_of(struct reader_view *v, const char *path, int writable);

/*
 * Fork and enter the view in the child.  Returns 0 in the child (inside
 * the view; or, where no view can be made, unchanged with `note` saying
 * why), and in the parent 1 once the child has ended, with *status its
 * exit status (128 + signal when killed).  -1 when no child could be made
 * (the caller goes on itself, `note` says why), also at once with
 * $PQPROF_CONTAIN=off.
 */
int reader_view_split(const struct reader_view *v, int *status, char *note, size_t note_len);

/*
 * Run fn(ctx) in a reader view and return what it returns: the child
 * sends the JSON (or its error) back on a pipe.  Where no view can be
 * made, fn runs here (note says why).  0 with *out (new reference), or
 * fn's error (negative PQ_E*).
 */
typedef json_t *(*reader_view_fn)(void *ctx, pq_error *err);
int reader_view_call(const struct reader_view *v, reader_view_fn fn, void *ctx, json_t **out, char *note,
                     size_t note_len, pq_error *err);

#endif
