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

#endif
