/*
 * pq_error: how library code reports failure.
 *
 * Library functions return a negative PQ_E* code and fill a pq_error with a
 * one-line message that names the file or object and the problem.  Only
 * main() and the cmd_* functions print messages and choose exit codes; the
 * mapping from codes to exit statuses lives in pq_exit_code().
 */
#ifndef PQ_ERROR_H
#define PQ_ERROR_H

#include <stddef.h>

enum pq_errcode {
	PQ_OK = 0,
	PQ_EUSAGE = 1,   /* bad command line */
	PQ_EINPUT = 2,   /* a file or tree that is not what it should be */
	PQ_EIO = 3,      /* reading or writing failed */
	PQ_EBUILD = 4,   /* the scheme's sources did not compile or link */
	PQ_ELOAD = 5,    /* instance library cannot be loaded or lacks the ABI */
	PQ_ESCHEME = 6,  /* scheme code crashed, hung or failed during a job */
	PQ_EPERF = 7,    /* perf_event or counters unavailable */
	PQ_ENOMEM = 8,
	PQ_EINTERNAL = 9,
	PQ_ERUNNER = 10, /* pqprof's own runner executable is missing */
	PQ_EBUSY = 11,   /* the campaign directory is in use by another run */
};

typedef struct pq_error {
	int code;
	char msg[1024];
} pq_error;

/* Set *err (if not NULL) and return -code.  printf-style message. */
int pq_fail(pq_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, with ": strerror(errno)" appended. */
int pq_fail_errno(pq_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message with more context ("file.txt: " + msg). */
void pq_error_prefix(pq_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void pq_error_clear(pq_error *err);

/* Exit status documented in pqprof(1) for a given error code. */
int pq_exit_code(int code);

#endif
