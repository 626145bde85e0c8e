/*
 * path_name: the last component of a path, as text.  Reads the string
 * only (no file system, no allocation); for the file itself see
 * atomic_file.h and fixed_str.h's path_fmt.
 */
#ifndef PQ_PATH_NAME_H
#define PQ_PATH_NAME_H

/*
 * What follows the last '/' of path ("a/b.c" -> "b.c"), or path itself
 * when it has no '/' or nothing follows its last one ("a/b/" -> "a/b/"):
 * a name to show is never empty.  Points into path.
 */
const char *path_base(const char *path);

/*
 * "/" and the system's own folders (/usr, /etc, /proc, /tmp, /home, ...):
 * never a source tree to show text from, never a folder to hide from a job.
 */
int path_is_system_dir(const char *dir);

/* Is path dir itself or below it (text only; both resolved by the caller)? */
int path_is_below(const char *path, const char *dir);

/*
 * Does path, resolved (links followed), stay inside root (resolved too), or
 * inside the tree that $PQPROF_SOURCE_ROOT names?  The rule every walk of a
 * user's or a submitter's folders keeps: a link out of the folder it was
 * given is passed over, never followed (a round holding a link to /, a
 * KAT/ folder holding a link to /etc/shadow).  0 when path does not exist.
 */
int path_inside_tree(const char *path, const char *root);

#endif
