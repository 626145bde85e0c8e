/*
 * runpath: the directories the dynamic loader will search for an instance
 * library's dependencies (DT_RUNPATH, else DT_RPATH, with $ORIGIN
 * expanded).  The runner's containment asks whether its unprivileged uid
 * can reach them: a library linked against the user's own libraries in a
 * private directory is then run with the caller's uid (and a note).
 * Reads the file only; nothing is loaded.
 */
#ifndef PQ_RUNPATH_H
#define PQ_RUNPATH_H

#include <limits.h>

/* Fill up to max directories; returns how many (0 when none or unreadable). */
int instance_runpath(const char *lib, char dirs[][PATH_MAX], int max);

#endif
