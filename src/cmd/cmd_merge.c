/*
 * pqprof merge: combine campaign directories (shards, machines) into one,
 * holding OUT_DIR's campaign lock as `pqprof run` does.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "campaign/campaign_lock.h"
#include "campaign/merge.h"
#include "campaign/merge_systems.h"
#include "core/atomic_file.h"
#include "core/options.h"
#include "core/options_help.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_merge(int argc, char **argv)
{
	int force = 0, by_system = 0;
	const struct option_spec specs[] = {
		{ OPT_FLAG, 0, "force", &force, NULL, "merge even when environments differ", NULL },
		{ OPT_FLAG, 0, "by-system", &by_system, NULL, "one merged campaign per system when environments differ", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	const char *pos[256];
	pq_error err = { 0 };
	int status, np = cmd_parse("merge", argc, argv, "pqprof merge OUT_DIR CAMPAIGN_DIR...\n--force and --by-system exclude each other.", specs, pos, 256, &status);
	if (np < 0)
		return status;
	if (np < 2) {
		options_usage(stderr, "pqprof merge OUT_DIR CAMPAIGN_DIR...\n--force and --by-system exclude each other.", specs);
		return PQ_EUSAGE;
	}
	if (by_system && force) {
		fprintf(stderr, "pqprof merge: --by-system keeps systems apart, --force pools them: choose one\n");
		return PQ_EUSAGE;
	}
	/* The merge rewrites OUT_DIR's campaign.json and report: never under a run that holds it. */
	struct campaign_lock lock = { .fd = -1 };
	char note[1600] = "";
	char *command = cmd_join_argv("pqprof", argc, argv);
	int r = make_dirs(pos[0], &err);
	if (r == 0)
		r = campaign_lock_take(pos[0], command, &lock, note, sizeof note, &err);
	free(command);
	if (r < 0)
		return cmd_fail("merge", &err);
	if (note[0])
		fprintf(stderr, "%s: %s\n", pos[0], note);
	int ns = 1;
	if (by_system)
		r = ns = campaign_merge_by_system(pos[0], pos + 1, np - 1, &err);
	else
		r = campaign_merge(pos[0], pos + 1, np - 1, force, &err);
	campaign_lock_release(&lock);
	if (r < 0)
		return cmd_fail("merge", &err);
	if (ns > 1)
		printf("%d systems, merged apart (never pooled): %s/systems/*; index in %s/report.md\n", ns, pos[0], pos[0]);
	printf("merged %d campaign directories into %s\n", np - 1, pos[0]);
	return 0;
}
