/*
 * atomic_file: write outputs so that a crash never leaves a half-written
 * file that looks whole.  Data goes to "<path>.tmp.<pid>", is fsync'd and
 * renamed over <path>.  Also small helpers to read whole files and make
 * directories, which every stage needs.
 */
#ifndef PQ_ATOMIC_FILE_H
#define PQ_ATOMIC_FILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "core/pq_error.h"

typedef struct atomic_file {
	FILE *fp;
	char path[4096];
	char tmp[4200];
} atomic_file;

int atomic_file_open(atomic_file *af, const char *path, pq_error *err);
/* Flush, fsync and rename; closes the file either way. */
int atomic_file_commit(atomic_file *af, pq_error *err);
void atomic_file_abort(atomic_file *af);

/* Write a whole buffer atomically. */
int atomic_write(const char *path, const void *buf, size_t len, pq_error *err);

/* Read a whole file (NUL-terminated for convenience); caller frees. */
int read_whole_file(const char *path, char **out, size_t *len, size_t max, pq_error *err);

/* The integer a small file (a /proc or /sys value) starts with; -1 when
 * the file cannot be read or does not start with a number. */
int read_long_file(const char *path, long *v);

/* mkdir -p. */
int make_dirs(const char *path, pq_error *err);

/* Best effort: unlink every entry of dir (not recursive; subdirectories
 * stay).  A missing dir is nothing to do. */
void remove_dir_files(const char *dir);

/* Best effort: remove dir and everything below it (on its own file system;
 * links are removed, never followed).  Async-signal-safe: the interrupt
 * handler removes scratch trees with it. */
void remove_tree(const char *dir);

/*
 * Open a file for reading only when it is a regular file: opened with
 * O_NONBLOCK (a FIFO never blocks), examined with fstat, then made
 * blocking.  -1 with errno ESPIPE (FIFO, socket), ENODEV (device), EISDIR
 * or open's own.  Every reader of a path that a user or a scheme names
 * (records, traces, libraries, vectors) opens it so.
 */
int open_regular(const char *path);
/* The words for open_regular's errno. */
const char *open_regular_why(int e);
/* json_load_file for regular files only (open_regular); the reason in je->text. */
json_t *json_load_regular(const char *path, size_t flags, json_error_t *je);

/* Copy a regular file to `to` (created or truncated, permission bits from mode). */
int copy_file_mode(const char *from, const char *to, mode_t mode, pq_error *err);

/* Whether dir/name is a regular file (links followed). */
int dir_has_file(const char *dir, const char *name);

#endif
