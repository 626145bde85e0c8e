/*
 * pqprof slurm: submit a campaign to a Slurm cluster as a job array, one
 * shard (`pqprof run --shard K/N`) per array task, each task on one node
 * and pinned to one core, and a dependent job (afterany) that merges the
 * shards into one report with `pqprof merge --by-system` once the array
 * has ended, so shards that landed on different kinds of machine stay
 * separate systems.  The two batch scripts are written into the campaign
 * directory first, so they can be read, edited and resubmitted by hand.
 * A round (campaign/round.h) is split by package instead: one array task
 * per submission, each `pqprof run <package> --out ROOT/<package>`, and
 * the dependent job writes the round's index with `pqprof report ROOT`.
 * Not a Slurm client library: it runs sbatch.
 */
#include "config.h"
#include "core/text_buf.h"
#include "core/fixed_str.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/paths.h"
#include "campaign/round.h"

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
	"pqprof slurm TARGET --shards N -o DIR\n"
	"pqprof slurm ROUND_DIR -o ROOT\n"
	"Then [-- RUN_OPTION...]: TARGET as for pqprof run; DIR must be on a file system every node sees.  RUN_OPTIONs after --\n"
	"go to every shard's pqprof run (e.g. -- --profiles reference,performance --trials 7).  A round (a folder of\n"
	"submissions, as for pqprof run, or --round) is one array task per package, each `pqprof run PACKAGE --out\n"
	"ROOT/PACKAGE`, then a job that writes ROOT/index.* with `pqprof report ROOT`.";

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

/* A job of one task on one CPU, named pqprof-<scheme>-<what>, writing slurm/<what>.out. */
static void put_single_header(struct text_buf *t, const struct slurm_opts *o, const char *what)
{
	text_printf(t, "#SBATCH --job-name=pqprof-%s-%s\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
	            o->scheme, what);
	text_printf(t, "#SBATCH --output=%s/slurm/%s.out\nset -u\n", o->dir, what);
}

/* An array job of n one-CPU tasks, each writing slurm/<out>-<task>.out; K is the task. */
static void put_array_header(struct text_buf *t, const struct slurm_opts *o, long n, const char *out)
{
	text_printf(t, "#SBATCH --job-name=pqprof-%s\n#SBATCH --array=1-%ld\n", o->scheme, n);
	text_printf(t, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
	if (!o->shared)
		text_printf(t, "#SBATCH --exclusive\n");
	text_printf(t, "#SBATCH --output=%s/slurm/%s-%%a.out\n", o->dir, out);
	text_printf(t, "set -eu\nK=${SLURM_ARRAY_TASK_ID:?run this script with sbatch}\n");
	text_printf(t, "# The one CPU this task runs on: the last one Slurm lets it use\n"
	            "# (CPU 0 takes most interrupts).\n"
	            "cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\\n' | tail -n 1 |"
	            " sed 's/.*-//')\n");
}

/* Where a task's `pqprof run` runs: its CPU and the system it names. */
static void put_task_place(struct text_buf *t, const struct slurm_opts *o)
{
	text_printf(t, " --cpu \"$cpu\" --system ");
	if (o->system)
		put_quoted(t, o->system);
	else
		text_printf(t, "\"${SLURM_CLUSTER_NAME:-slurm}\"");
}

/* The end of a task's `pqprof run`: the user's run options. */
static void put_run_options(struct text_buf *t, const struct slurm_opts *o)
{
	if (o->quick)
		text_printf(t, " --quick");
	for (int i = 0; i < o->nrun_args; i++) {
		text_printf(t, " ");
		put_quoted(t, o->run_args[i]);
	}
	text_printf(t, "\n");
}

static void shard_script(struct text_buf *t, const struct slurm_opts *o)
{
	put_header(t, o, "campaign shards");
	put_array_header(t, o, o->shards, "shard");
	text_printf(t, "N=%ld\necho \"pqprof shard $K/$N on $(hostname), CPU $cpu\"\nexec ", o->shards);
	put_quoted(t, o->pqprof);
	text_printf(t, " run ");
	put_quoted(t, o->target);
	text_printf(t, " --shard \"$K/$N\"");
	put_task_place(t, o);
	text_printf(t, " --out ");
	put_quoted(t, o->dir);
	text_printf(t, "\"/shards/$K\"");
	put_run_options(t, o);
}

static void merge_script(struct text_buf *t, const struct slurm_opts *o)
{
	put_header(t, o, "merge of the campaign shards");
	put_single_header(t, o, "merge");
	text_printf(t, "N=%ld\nD=", o->shards);
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

/* A round: array task K runs the K-th line of slurm/packages.txt ("NAME<tab>PATH"). */
static void package_script(struct text_buf *t, const struct slurm_opts *o, int npkg)
{
	put_header(t, o, "round, one campaign per package,");
	put_array_header(t, o, npkg, "package");
	text_printf(t, "D=");
	put_quoted(t, o->dir);
	text_printf(t, "\nline=$(sed -n \"${K}p\" \"$D/slurm/packages.txt\")\n"
	            "[ -n \"$line\" ] || { echo \"pqprof: no package $K in $D/slurm/packages.txt\"; exit 1; }\n"
	            "name=$(printf '%%s\\n' \"$line\" | cut -f 1)\npkg=$(printf '%%s\\n' \"$line\" | cut -f 2-)\n");
	/* One package of a round: --category NAME=N may name another package's instance. */
	text_printf(t, "echo \"pqprof package $K: $name on $(hostname), CPU $cpu\"\nPQPROF_IN_ROUND=1\n"
	            "export PQPROF_IN_ROUND\nexec ");
	put_quoted(t, o->pqprof);
	text_printf(t, " run \"$pkg\"");
	put_task_place(t, o);
	text_printf(t, " --out \"$D/$name\"");
	put_run_options(t, o);
}

static void index_script(struct text_buf *t, const struct slurm_opts *o)
{
	put_header(t, o, "index of the round");
	put_single_header(t, o, "index");
	text_printf(t, "D=");
	put_quoted(t, o->dir);
	text_printf(t, "\n");
	put_quoted(t, o->pqprof);
	text_printf(t, " report \"$D\" || exit $?\necho \"pqprof: index in $D/index.md and $D/index.html\"\n");
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

/* A round: its packages in slurm/packages.txt and round.json, the two scripts, and (unless no_submit) the jobs. */
static int submit_round(const struct slurm_opts *o, int force, int no_submit, pq_error *err)
{
	struct round *rd = calloc(1, sizeof *rd);
	if (!rd)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	const char *t = o->target;
	int r = round_find(&t, 1, force, rd, err), npkg = 0;
	struct text_buf list = { 0 }, pkg = { 0 }, idx = { 0 };
	for (int i = 0; r == 0 && i < rd->n; i++) {
		if (!rd->pkg[i].kind[0]) {
			fprintf(stderr, "pqprof slurm: %s: %s (it has its row in the index)\n", rd->pkg[i].path, rd->pkg[i].why);
			continue;
		}
		if (strpbrk(rd->pkg[i].path, "\t\n\r"))
			r = pq_fail(err, PQ_EUSAGE, "%s: a package path with a tab or line break", rd->pkg[i].path);
		text_printf(&list, "%s\t%s\n", rd->pkg[i].name, rd->pkg[i].path);
		npkg++;
	}
	if (r == 0 && npkg == 0)
		r = pq_fail(err, PQ_EINPUT, "%s: no submission in the round", o->target);
	char list_path[PATH_MAX + 32], pkg_path[PATH_MAX + 32], idx_path[PATH_MAX + 32];
	snprintf(list_path, sizeof list_path, "%s/slurm/packages.txt", o->dir);
	snprintf(pkg_path, sizeof pkg_path, "%s/slurm/package.sh", o->dir);
	snprintf(idx_path, sizeof idx_path, "%s/slurm/index.sh", o->dir);
	if (r == 0 && list.oom)
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
	if (r == 0)
		r = atomic_write(list_path, list.s, list.n, err);
	if (r == 0)
		r = round_state_init(rd, o->dir, err);
	if (r == 0) {
		package_script(&pkg, o, npkg);
		index_script(&idx, o);
		r = write_script(pkg_path, &pkg, err);
	}
	if (r == 0)
		r = write_script(idx_path, &idx, err);
	text_free(&list);
	text_free(&pkg);
	text_free(&idx);
	free(rd);
	if (r < 0)
		return r;
	printf("package script: %s (%d array tasks, one per package: %s)\nindex script: %s\n", pkg_path, npkg, list_path,
	       idx_path);
	if (no_submit) {
		printf("submit with:\n  jid=$(sbatch --parsable %s)\n"
		       "  sbatch --dependency=afterany:${jid%%%%;*} %s\n", pkg_path, idx_path);
		return 0;
	}
	char jid[128], iid[128], dep[160];
	char *a1[] = { "sbatch", "--parsable", pkg_path, NULL };
	if ((r = sbatch(a1, pkg_path, jid, sizeof jid, err)) < 0)
		return r;
	printf("submitted packages: job %s\n", jid);
	snprintf(dep, sizeof dep, "--dependency=afterany:%s", jid);
	char *a2[] = { "sbatch", "--parsable", dep, idx_path, NULL };
	if ((r = sbatch(a2, idx_path, iid, sizeof iid, err)) < 0) {
		fprintf(stderr, "pqprof slurm: the packages run (job %s); submit the index by hand: sbatch %s %s\n", jid, dep,
		        idx_path);
		return r;
	}
	printf("submitted index: job %s (runs when job %s has ended)\n", iid, jid);
	printf("index: %s/index.md once job %s is done; package logs in %s/slurm/\n", o->dir, iid, o->dir);
	return 0;
}

int cmd_slurm(int argc, char **argv)
{
	const char *out = NULL, *system = NULL, *partition = NULL, *time_limit = NULL;
	long shards = 0;
	int quick = 0, shared = 0, no_submit = 0, round = 0;
	struct opt_list sargs = { 0 };
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "shards", &shards, "N", "array tasks, one shard each (required)", NULL },
		{ OPT_STRING, 'o', "out", &out, "DIR", "campaign directory on a shared file system (required)", NULL },
		{ OPT_FLAG, 0, "quick", &quick, NULL, "the quick campaign (pqprof run --quick)", NULL },
		{ OPT_STRING, 0, "partition", &partition, "P", "Slurm partition of identical nodes", "Slurm's default" },
		{ OPT_STRING, 0, "time", &time_limit, "LIMIT", "time limit per shard (sbatch --time)", "the partition's" },
		{ OPT_STRING, 0, "system", &system, "NAME", "system name in the records", "the cluster name" },
		{ OPT_FLAG, 0, "shared", &shared, NULL, "do not ask for whole nodes", "whole nodes (--exclusive)" },
		{ OPT_LIST, 0, "sbatch-arg", &sargs, "ARG", "one more #SBATCH line for both jobs, e.g. --account=lab", NULL },
		{ OPT_FLAG, 0, "round", &round, NULL, "TARGET is a round: every folder in it is a package (as pqprof run --round)",
		  "a folder holding a package or descriptor of its own" },
		{ OPT_FLAG, 0, "no-submit", &no_submit, NULL, "write the scripts and print the sbatch commands only", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[128];
	pq_error err = { 0 };
	int status, np = cmd_parse("slurm", argc, argv, usage, specs, pos, 128, &status);
	if (np < 0)
		return status;
	int is_round = np >= 1 && (round || round_is_round(pos[0]));
	if (np < 1 || !out || !*out || (!is_round && (shards < 1 || shards > 10000)) || (is_round && shards)) {
		if (is_round && shards)
			fprintf(stderr, "pqprof slurm: a round is split by package, not --shards\n");
		else if (np >= 1 && (shards < 1 || shards > 10000))
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
	if (is_round) {
		r = submit_round(&o, round, no_submit, &err);
		opt_list_free(&sargs);
		return r < 0 ? cmd_fail("slurm", &err) : 0;
	}
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
