/*
 * pqprof slurm: submit a campaign to a Slurm cluster as a job array, one
 * shard (`pqprof run --shard K/N`) per array task, each task on one node
 * and pinned to one core, and a dependent job (afterany) that merges the
 * shards into one report with `pqprof merge --by-system` once the array
 * has ended, so shards that landed on different kinds of machine stay
 * separate systems.  The two batch scripts are written into the campaign
 * directory first, so they can be read, edited and resubmitted by hand.
 * Not a Slurm client library: it runs sbatch.
 */
#include "config.h"
#include "core/text_buf.h"
#include "core/fixed_str.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/paths.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"pqprof slurm TARGET --shards N --out DIR [--quick] [--partition P] [--time LIMIT] [--system NAME]\n"
	"                    [--shared] [--sbatch-arg ARG]... [--no-submit] [-- RUN_OPTION...]\n"
	"TARGET as for pqprof run; DIR must be on a file system every node sees.  RUN_OPTIONs after --\n"
	"go to every shard's pqprof run (e.g. -- --profiles reference,performance --trials 7).";

/* A word for sh, in single quotes. */
static void put_quoted(struct text_buf *t, const char *w)
{
	text_printf(t, "'");
	for (const char *c = w; *c; c++) {
		if (*c == '\'')
			text_printf(t, "'\\''");
		else
			text_printf(t, "%c", *c);
	}
	text_printf(t, "'");
}

/* One #SBATCH line each: no newline inside a value. */
static int sbatch_safe(const char *v)
{
	return !strpbrk(v, "\n\r");
}

struct slurm_opts {
	const char *pqprof, *target, *dir, *system, *partition, *time_limit, *scheme;
	long shards;
	int quick, shared;
	struct opt_list *sbatch_args;
	const char *const *run_args;
	int nrun_args;
};

static void put_header(struct text_buf *t, const struct slurm_opts *o, const char *what)
{
	text_printf(t, "#!/bin/sh\n# pqprof %s for %s, written by pqprof slurm.  Submit with sbatch.\n", what, o->target);
	if (o->partition)
		text_printf(t, "#SBATCH --partition=%s\n", o->partition);
	if (o->time_limit)
		text_printf(t, "#SBATCH --time=%s\n", o->time_limit);
	for (int i = 0; o->sbatch_args && i < o->sbatch_args->n; i++)
		text_printf(t, "#SBATCH %s\n", o->sbatch_args->items[i]);
}

static void shard_script(struct text_buf *t, const struct slurm_opts *o)
{
	put_header(t, o, "campaign shards");
	text_printf(t, "#SBATCH --job-name=pqprof-%s\n#SBATCH --array=1-%ld\n", o->scheme, o->shards);
	text_printf(t, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
	if (!o->shared)
		text_printf(t, "#SBATCH --exclusive\n");
	text_printf(t, "#SBATCH --output=%s/slurm/shard-%%a.out\n", o->dir);
	text_printf(t, "set -eu\nK=${SLURM_ARRAY_TASK_ID:?run this script with sbatch}\nN=%ld\n", o->shards);
	text_printf(t, "# The one CPU this shard runs on: the last one Slurm lets this task use\n"
	       "# (CPU 0 takes most interrupts).\n"
	       "cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\\n' | tail -n 1 |"
	       " sed 's/.*-//')\n");
	text_printf(t, "echo \"pqprof shard $K/$N on $(hostname), CPU $cpu\"\nexec ");
	put_quoted(t, o->pqprof);
	text_printf(t, " run ");
	put_quoted(t, o->target);
	text_printf(t, " --shard \"$K/$N\" --cpu \"$cpu\" --system ");
	if (o->system)
		put_quoted(t, o->system);
	else
		text_printf(t, "\"${SLURM_CLUSTER_NAME:-slurm}\"");
	text_printf(t, " --out ");
	put_quoted(t, o->dir);
	text_printf(t, "\"/shards/$K\"");
	if (o->quick)
		text_printf(t, " --quick");
	for (int i = 0; i < o->nrun_args; i++) {
		text_printf(t, " ");
		put_quoted(t, o->run_args[i]);
	}
	text_printf(t, "\n");
}

static void merge_script(struct text_buf *t, const struct slurm_opts *o)
{
	put_header(t, o, "merge of the campaign shards");
	text_printf(t, "#SBATCH --job-name=pqprof-%s-merge\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
	    o->scheme);
	text_printf(t, "#SBATCH --output=%s/slurm/merge.out\n", o->dir);
	text_printf(t, "set -u\nN=%ld\nD=", o->shards);
	put_quoted(t, o->dir);
	text_printf(t, "\nset --\nmissing=\nK=1\nwhile [ \"$K\" -le \"$N\" ]; do\n"
	       "\tif [ -f \"$D/shards/$K/campaign.json\" ]; then set -- \"$@\" \"$D/shards/$K\"; else missing=\"$missing $K\"; fi\n"
	       "\tK=$((K + 1))\ndone\n"
	       "[ $# -gt 0 ] || { echo \"pqprof: no shard of $D has results\"; exit 1; }\n");
	put_quoted(t, o->pqprof);
	text_printf(t, " merge --by-system \"$D\" \"$@\" || exit $?\n"
	       "if [ -n \"$missing\" ]; then\n"
	       "\techo \"pqprof: shards without results:$missing; resubmit them with\"\n"
	       "\techo \"  sbatch --array=<their numbers> $D/slurm/shard.sh, then sbatch $D/slurm/merge.sh\"\n"
	       "\texit 1\nfi\n"
	       "echo \"pqprof: report in $D/report.md\"\n");
}

/* Run sbatch ARGS..., capturing the job id it prints with --parsable. */
static int sbatch(char *const argv[], const char *what, char *id, size_t len, pq_error *err)
{
	int fd[2];
	if (pipe(fd) < 0)
		return pq_fail_errno(err, PQ_EIO, "pipe");
	pid_t pid = fork();
	if (pid < 0)
		return pq_fail_errno(err, PQ_EIO, "fork");
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "pqprof slurm: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < len && (k = read(fd[0], id + n, len - 1 - n)) > 0)
		n += (size_t)k;
	id[n] = '\0';
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	id[strcspn(id, ";\n")] = '\0';  /* "123" or "123;cluster" */
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !id[0])
		return pq_fail(err, PQ_EIO, "sbatch %s failed%s", what,
		               WIFEXITED(st) && WEXITSTATUS(st) == 127 ? " (is Slurm installed here?)" : "");
	return 0;
}

static int write_script(const char *path, struct text_buf *t, pq_error *err)
{
	if (t->oom)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	int r = atomic_write(path, t->s, t->n, err);
	if (r == 0 && chmod(path, 0755) < 0)
		r = pq_fail_errno(err, PQ_EIO, "%s", path);
	return r;
}

int cmd_slurm(int argc, char **argv)
{
	const char *out = NULL, *system = NULL, *partition = NULL, *time_limit = NULL;
	long shards = 0;
	int quick = 0, shared = 0, no_submit = 0;
	struct opt_list sargs = { 0 };
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "shards", &shards, "N", "array tasks, one shard each (required)" },
		{ OPT_STRING, 'o', "out", &out, "DIR", "campaign directory on a shared file system (required)" },
		{ OPT_FLAG, 0, "quick", &quick, NULL, "the quick campaign (pqprof run --quick)" },
		{ OPT_STRING, 0, "partition", &partition, "P", "Slurm partition of identical nodes" },
		{ OPT_STRING, 0, "time", &time_limit, "LIMIT", "time limit per shard (sbatch --time)" },
		{ OPT_STRING, 0, "system", &system, "NAME", "system name in the records (default: the cluster name)" },
		{ OPT_FLAG, 0, "shared", &shared, NULL, "do not ask for whole nodes (--exclusive is the default)" },
		{ OPT_LIST, 0, "sbatch-arg", &sargs, "ARG", "one more #SBATCH line for both jobs, e.g. --account=lab" },
		{ OPT_FLAG, 0, "no-submit", &no_submit, NULL, "write the scripts and print the sbatch commands only" },
		{ OPT_END, 0, NULL, NULL, NULL, NULL },
	};
	const char *pos[128];
	pq_error err = { 0 };
	int status, np = cmd_parse("slurm", argc, argv, usage, specs, pos, 128, &status);
	if (np < 0)
		return status;
	if (np < 1 || !out || !*out || shards < 1 || shards > 10000) {
		if (np >= 1 && (shards < 1 || shards > 10000))
			fprintf(stderr, "pqprof slurm: --shards must be 1 to 10000\n");
		options_usage(stderr, usage, specs);
		opt_list_free(&sargs);
		return PQ_EUSAGE;
	}
	for (int i = 0; i < sargs.n; i++)
		if (!sbatch_safe(sargs.items[i])) {
			opt_list_free(&sargs);
			fprintf(stderr, "pqprof slurm: --sbatch-arg must be one line\n");
			return PQ_EUSAGE;
		}
	if ((partition && !sbatch_safe(partition)) || (time_limit && !sbatch_safe(time_limit))) {
		opt_list_free(&sargs);
		fprintf(stderr, "pqprof slurm: --partition and --time must be one line\n");
		return PQ_EUSAGE;
	}
	/* Every node runs the same pqprof on the same files: absolute paths. */
	char target[PATH_MAX], real_target[PATH_MAX], self[PATH_MAX], dir[PATH_MAX], sub[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	int r = n > 0 ? 0 : pq_fail_errno(&err, PQ_EINTERNAL, "/proc/self/exe");
	if (r == 0) {
		self[n] = '\0';
		r = paths_find_scheme(pos[0], target, sizeof target, &err);
	}
	if (r == 0 && !realpath(target, real_target))
		r = pq_fail_errno(&err, PQ_EINPUT, "%s", target);
	snprintf(sub, sizeof sub, "%s/slurm", out);
	if (r == 0 && strpbrk(out, " \t\n\r'\"\\%"))
		r = pq_fail(&err, PQ_EUSAGE, "%s: the campaign directory of a Slurm job must not contain blanks, quotes, "
		            "backslashes or %%", out);
	if (r == 0)
		r = make_dirs(sub, &err);
	if (r == 0 && !realpath(out, dir))
		r = pq_fail_errno(&err, PQ_EIO, "%s", out);
	/* The log paths go into #SBATCH lines, which end at white space. */
	if (r == 0 && strpbrk(dir, " \t\n\r'\"\\%"))
		r = pq_fail(&err, PQ_EUSAGE, "%s: the campaign directory of a Slurm job must not contain blanks, quotes, "
		            "backslashes or %%", dir);
	if (r < 0) {
		opt_list_free(&sargs);
		return cmd_fail("slurm", &err);
	}
	/* The scheme's name for job names: the descriptor's directory or file. */
	char scheme[128];
	const char *b = strrchr(real_target, '/');
	str_copy(scheme, sizeof scheme, b ? b + 1 : real_target); /* a job name: the start will do */
	if (strcmp(scheme, "scheme.json") == 0 && b) {
		int k = (int)(b - real_target);
		const char *b2 = k > 0 ? memrchr(real_target, '/', (size_t)k) : NULL;
		snprintf(scheme, sizeof scheme, "%.*s", b2 ? (int)(b - b2 - 1) : k, b2 ? b2 + 1 : real_target);
	}
	for (char *c = scheme; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '_' || *c == '.'))
			*c = '_';
	struct slurm_opts o = {
		.pqprof = self, .target = real_target, .dir = dir, .system = system, .partition = partition,
		.time_limit = time_limit, .scheme = scheme, .shards = shards, .quick = quick, .shared = shared,
		.sbatch_args = &sargs, .run_args = pos + 1, .nrun_args = np - 1,
	};
	struct text_buf shard = { 0 }, merge = { 0 };
	shard_script(&shard, &o);
	merge_script(&merge, &o);
	char shard_path[PATH_MAX + 32], merge_path[PATH_MAX + 32];
	snprintf(shard_path, sizeof shard_path, "%s/slurm/shard.sh", dir);
	snprintf(merge_path, sizeof merge_path, "%s/slurm/merge.sh", dir);
	r = write_script(shard_path, &shard, &err);
	if (r == 0)
		r = write_script(merge_path, &merge, &err);
	text_free(&shard);
	text_free(&merge);
	opt_list_free(&sargs);
	if (r < 0)
		return cmd_fail("slurm", &err);
	printf("shard script: %s (%ld array tasks)\nmerge script: %s\n", shard_path, shards, merge_path);
	if (no_submit) {
		printf("submit with:\n  jid=$(sbatch --parsable %s)\n"
		       "  sbatch --dependency=afterany:${jid%%%%;*} %s\n", shard_path, merge_path);
		return 0;
	}
	char jid[128], mid[128], dep[160];
	char *a1[] = { "sbatch", "--parsable", shard_path, NULL };
	if (sbatch(a1, shard_path, jid, sizeof jid, &err) < 0)
		return cmd_fail("slurm", &err);
	printf("submitted shards: job %s\n", jid);
	snprintf(dep, sizeof dep, "--dependency=afterany:%s", jid);
	char *a2[] = { "sbatch", "--parsable", dep, merge_path, NULL };
	if (sbatch(a2, merge_path, mid, sizeof mid, &err) < 0) {
		fprintf(stderr, "pqprof slurm: the shards run (job %s); submit the merge by hand: sbatch %s %s\n", jid, dep,
		        merge_path);
		return cmd_fail("slurm", &err);
	}
	printf("submitted merge: job %s (runs when job %s has ended)\n", mid, jid);
	printf("report: %s/report.md once job %s is done; shard logs in %s/slurm/\n", dir, mid, dir);
	return 0;
}
