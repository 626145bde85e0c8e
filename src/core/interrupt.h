/*
 * interrupt: what pqprof does when it is asked to stop (SIGINT, SIGTERM,
 * SIGHUP).  One handler for every command: it ends the process groups of
 * running children (through a hook the runner supervisor sets), removes
 * the temporary files and directories registered here, releases the
 * campaign lock, prints where pqprof stopped and how to go on, and exits
 * with 128 + the signal number (130 for SIGINT, 143 for SIGTERM, 129 for
 * SIGHUP), as pqprof(1) documents.  SIGHUP ignored when pqprof started
 * (nohup) stays ignored.
 *
 * Everything the handler touches is prepared beforehand (fixed buffers,
 * registered paths and ids), and it only makes async-signal-safe calls.
 * Code that creates a temporary registers it with interrupt_track_tmp()
 * and forgets it with interrupt_untrack_tmp() once it is renamed or gone.
 * Not for normal error paths: those clean up after themselves.
 */
#ifndef PQ_INTERRUPT_H
#define PQ_INTERRUPT_H

#include <sys/types.h>

/* Exit status after signal `sig`: 128 + sig. */
#define INTERRUPT_EXIT_STATUS(sig) (128 + (sig))

/* Install the handler for SIGINT, SIGTERM and SIGHUP; `cmd` names the command in messages. */
void interrupt_install(const char *cmd);

/* Called first by the handler to end children (async-signal-safe code only). */
void interrupt_set_stop(void (*stop)(void));
/* Whether a hook to end children is set. */
int interrupt_stops_children(void);

/*
 * Where pqprof is now, for the message ("step 4 of 36: bench Toy__ref sign"),
 * and what to do to go on ("run the same command again to resume").  Either
 * may be NULL to clear it.
 */
void interrupt_set_where(const char *where);
void interrupt_set_resume(const char *how);

/* A temporary file (or, with is_dir, a flat directory of them) removed on interruption. */
void interrupt_track_tmp(const char *path, int is_dir);
void interrupt_untrack_tmp(const char *path);

/* A helper process (a compiler) killed, with its process group, on interruption. */
void interrupt_track_pid(pid_t pid);
void interrupt_untrack_pid(pid_t pid);

/* A lock file descriptor emptied on interruption, so that no stale holder is left named. */
void interrupt_set_lock_fd(int fd);

#endif
