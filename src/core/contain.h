/*
 * contain: run an untrusted process (a runner executing scheme code, or a
 * compiler reading a scheme's tree) so that ending it ends everything it
 * started, and so that it cannot reach past its job.
 *
 * Each contained process gets, where the system allows:
 *  - its own PID namespace, whose pid 1 is a tiny reaper (pqprof code, not
 *    the job): when the job ends, the reaper kills whatever is left in the
 *    namespace (daemons that called setsid(), grandchildren in other
 *    process groups) and reports how many it had to kill;
 *  - its own network namespace (only a loopback device, down);
 *  - a fresh scratch directory as its working directory, removed after;
 *  - when pqprof runs as root, the unprivileged uid/gid of "nobody"
 *    (65534 when there is no such user) instead of root.  A shared uid is
 *    safe here because every job also has its own PID namespace: jobs
 *    cannot see or signal each other, and nobody owns no files;
 *  - when pqprof is not root, a user namespace (mapping only the caller's
 *    own uid and gid) so that the PID and network namespaces can be made.
 * Where no namespace can be made, it falls back to a process group (what
 * pqprof did before), and contain_describe() says so.
 *
 * $PQPROF_CONTAIN=off turns namespaces and the uid change off (debugging).
 * Uprobe call counts as root still work under the uid change: the runner
 * child opens them before contain_exec (supervise/child.h).
 */
#ifndef PQ_CONTAIN_H
#define PQ_CONTAIN_H

#include <jansson.h>
#include <limits.h>
#include <sys/types.h>

#include "core/pq_error.h"

struct contain_caps {
	int pid_ns;            /* PID namespaces are used */
	int net_ns;            /* network namespaces are used */
	int user_ns;           /* a user namespace is needed (not root) */
	int drop_uid;          /* root: jobs run as uid/gid below */
	uid_t uid;
	gid_t gid;
	char user[64];         /* "nobody" */
	char summary[256];     /* one line: what is in force */
	char missing[256];     /* why something is not, or "" */
};

/*
 * The environment a runner gets (supervise/child.c): these fixed
 * NAME=VALUE pairs, and the names in contain_env_passed from pqprof's own
 * environment when set (sanitizer options, the loader's path, which a lab
 * may need for a scheme's libraries).  Nothing else of the operator's
 * environment reaches scheme code.  NULL-terminated.
 */
extern const char *const contain_env_fixed[];
extern const char *const contain_env_passed[];

/* In a new user namespace: map only uid and gid (the caller's own), setgroups denied.  0 or -1. */
int contain_map_ids(uid_t uid, gid_t gid);
/* $PQPROF_CONTAIN=off (or 0, no): containment turned off for debugging. */
int contain_off(void);

/* What containment this process can use (probed once, by a test child). */
const struct contain_caps *contain_caps(void);

/*
 * The containment block of an environment record (new reference): builds'
 * and runners', with the runners' environment ("runner_environment") and
 * private file system view ("runner_view").
 */
json_t *contain_to_json(void);

#define CONTAIN_MAX_VISIBLE 12
#define CONTAIN_MAX_HIDDEN 8

struct contained {
	pid_t pid;              /* the job: its process group is pid (host pid) */
	pid_t reaper;           /* pid 1 of its namespace, 0 when none */
	int status_fd;          /* the reaper's report, or -1 */
	int as_user;            /* the job dropped to caps.uid */
	int via_fd;             /* opts.readable is out of its reach by path: hand it an fd */
	char scratch[PATH_MAX]; /* its scratch directory ("" when none) */
	char workdir[PATH_MAX]; /* working directory instead of the scratch one, or "" */
	int finished;
	int wait_status;        /* the job's own wait status */
	int left;               /* processes left behind and killed */
	char note[256];         /* why a part of the containment was left out */
	char private_root[PATH_MAX]; /* opts.private_root, or "" */
	int scratch_fd;         /* the scratch directory, opened when made (-1: none) */
	char visible[CONTAIN_MAX_VISIBLE][PATH_MAX]; /* opts.visible */
	int nvisible;
	char hidden[CONTAIN_MAX_HIDDEN][PATH_MAX];   /* opts.hidden */
	int nhidden;
};

/* A file written into a job's scratch directory before it starts. */
struct contain_file {
	const char *name;       /* a plain name, no '/' */
	const void *data;
	size_t len;
};

struct contain_opts {
	const char *readable;   /* a file the job must read (see contain_job_path) */
	/*
	 * Directories the job must search by path (a library's run path):
	 * when the unprivileged uid cannot, the job keeps pqprof's uid and
	 * `note` says why.
	 */
	const char *const *search_dirs;
	int nsearch_dirs;
	int no_user_change;     /* keep pqprof's uid (jobs that need it) */
	/*
	 * Working directory instead of the scratch directory, entered before
	 * the uid change: the job reaches files below it as /proc/self/cwd/...
	 * even when a directory above it is private (compilers use this).
	 */
	const char *workdir;
	/*
	 * Only this directory stays writable (a build's scratch copy): the job
	 * gets its own mount namespace in which every other mount is read-only
	 * and /tmp, /var/tmp and /dev/shm are <private_root>/.tmp, so what it
	 * writes outside is kept there and can be listed afterwards.  Where no
	 * mount namespace can be made, contained.note says so.
	 */
	const char *private_root;
	/*
	 * The same with the scratch directory as the only writable place (a
	 * runner): what the job leaves in /tmp or /dev/shm goes with it.
	 */
	int private_scratch;
	/* Files placed in the scratch directory, read-only to the job. */
	const struct contain_file *files;
	int nfiles;
	/*
	 * Directories the job must still see, read-only, when they lie under
	 * a temporary directory that the private view replaces (a library
	 * built under /tmp, its run path): bound back at their own paths.
	 */
	const char *const *visible;
	int nvisible;
	/*
	 * Directories the job must not see at all (with private_scratch): each
	 * is covered by an empty, read-only file system in its view, so that a
	 * KAT replay cannot read the vectors it is judged against.  What
	 * `visible` names below them is bound back.  "/" and the system's own
	 * directories are never hidden.
	 */
	const char *const *hidden;
	int nhidden;
};


/*
 * Fork a contained process.  Returns 0 in the job (already in its own
 * process group, still with pqprof's uid: call contain_enter before exec),
 * the job's pid in the caller, negative on failure.
 */
pid_t contain_fork(struct contained *c, const struct contain_opts *o, pq_error *err);

/*
 * In the job, before contain_exec: the name under which it can open
 * opts.readable.  That is the path itself, or, when the unprivileged uid
 * cannot reach it (a directory on the way is private), /proc/self/fd/N of
 * a descriptor opened now and left open across exec: the kernel maps the
 * real file, so /proc/PID/maps still shows the real path.
 */
const char *contain_job_path(const struct contained *c, const char *path, char *buf, size_t len);

/*
 * In the job: make everything but opts.private_root read-only (see
 * contain_opts), enter the scratch directory and drop to the unprivileged
 * uid.  A failed isolation is reported on stderr and the job goes on
 * without it (the caller learns it from contain_fs_isolated()).
 */
int contain_enter(const struct contained *c);

/*
 * In the job: exec `path` after contain_enter (through an fd opened first,
 * so a binary under a directory that the unprivileged uid cannot search
 * still starts).  Returns only on failure.
 */
void contain_exec(const struct contained *c, const char *path, char *const argv[]);

/*
 * The same, with limits set just before the exec, after the file system
 * view, the working directory and the uid are set up (limits: NULL-terminated
 * by a resource of -1).  Nothing allocates between the limits and the exec,
 * so an address-space limit cannot starve pqprof's own set-up code (a
 * sanitizer build's allocator maps memory lazily).
 */
struct contain_limit {
	int resource;               /* RLIMIT_AS, RLIMIT_CPU, ...; -1 ends the list */
	unsigned long long cur, max;
};
void contain_exec_limited(const struct contained *c, const char *path, char *const argv[],
                          const struct contain_limit *limits);

/*
 * waitpid() for the job (flags: 0 or WNOHANG).  Returns the job's pid and
 * its wait status once it has ended, 0 while it runs, -1 on error.
 */
pid_t contain_wait(struct contained *c, int *status, int flags);

/*
 * After the job ended: kill whatever it left behind (the whole namespace,
 * or its process group in the fallback), remove the scratch directory.
 * Returns the number of processes killed (at least 1 when some were left
 * and the count is unknown).
 */
int contain_finish(struct contained *c);

/*
 * After the job ended, before contain_finish: read the file `name` that
 * it wrote into its scratch directory, without following a link (the
 * directory by the descriptor opened when it was made, the file with
 * O_NOFOLLOW | O_NONBLOCK), and only a regular file with one link, owned
 * by the job's uid, of at most `cap` bytes.  *data is NUL-terminated
 * (free it).  Negative with `why` filled when it is absent or refused;
 * -PQ_ENOMEM when pqprof had no memory for it.
 */
int contain_collect(const struct contained *c, const char *name, size_t cap, char **data, size_t *len,
                    char *why, size_t why_len);

/* One line on what runners get beyond contain_caps().summary (the environment table's containment row). */
const char *contain_runner_line(void);

/* Can jobs get a private, read-only view of the file system (a mount namespace)? */
int contain_fs_isolation(void);

/* Can a job read `path` (1 when jobs keep pqprof's uid)? */
int contain_job_can_read(const char *path);

/*
 * An input file given by the user (vectors, manifests) must be a regular
 * file: checked without blocking on a FIFO (opened O_NONBLOCK, fstat).
 * `what` names it in the error ("--vectors").
 */
int contain_check_input(const char *path, const char *what, pq_error *err);

/* Make a directory the job must write into (kat outputs) writable by it. */
void contain_share_dir(const char *dir);

#endif
