/*
 * campaign_lock: one `pqprof run` per campaign directory.  The lock is an
 * flock(2) on DIR/campaign.lock, held for the whole run; the file names
 * its holder (pid, host, start time, command) so that a refused run can
 * say who has the directory.  The file is emptied, never removed, when the
 * holder ends (removing it would let two runs lock two different files).
 * A file that still names a holder although nobody holds the lock was left
 * by a run that died (kill -9, power loss): on the same host it is taken
 * over, and the caller is told so; one naming another host is refused,
 * since that run may be alive on a file system whose locks do not reach
 * here.
 */
#ifndef PQ_CAMPAIGN_LOCK_H
#define PQ_CAMPAIGN_LOCK_H

#include <stddef.h>
#include "core/pq_error.h"

struct campaign_lock {
	int fd;
	char path[4200];
};

/*
 * Take the lock of `dir` (which exists).  Returns 0, or -PQ_EBUSY with a
 * message naming the holder, or another error.  When a stale holder was
 * replaced, `note` says which (else it is set to "").
 */
int campaign_lock_take(const char *dir, const char *command, struct campaign_lock *lk, char *note,
                       size_t notelen, pq_error *err);

/* Empty the lock file and release the lock. */
void campaign_lock_release(struct campaign_lock *lk);

#endif
