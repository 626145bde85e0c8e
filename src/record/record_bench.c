/* record_bench: the pqprof.bench/1 records; see records.h. */
#include "config.h"
#include "record/records.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

/*
 * Host and load at the end of the bench: `pqprof compare` checks that two
 * record sets come from the same host and from comparable load.
 */
static void stamp_host_load(json_t *env)
{
	struct utsname u;
	if (uname(&u) == 0)
		json_object_set_new(env, "host", json_string(u.nodename));
	double l[3];
	FILE *f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
		json_object_set_new(env, "load_avg", json_pack("[f, f, f]", l[0], l[1], l[2]));
	if (f)
		fclose(f);
}

int record_bench(const struct bench_config *cfgs, int n, const char *const *profiles, json_t **records,
                 pq_error *errs)
{
	for (int k = 0; k < n; k++)
		records[k] = NULL;
	int rc = bench_run_interleaved(cfgs, n, records, errs);
	char end[64];
	time_t now = time(NULL);
	strftime(end, sizeof end, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int k = 0; k < n; k++) {
		if (!records[k])
			continue;
		/* The environment is shared between records: stamp a copy. */
		json_t *env = json_object_get(records[k], "environment");
		if (env) {
			json_t *copy = json_copy(env);
			json_object_set_new(copy, "end_utc", json_string(end));
			stamp_host_load(copy);
			json_object_set_new(records[k], "environment", copy);
		}
		if (profiles && profiles[k])
			json_object_set_new(records[k], "profile", json_string(profiles[k]));
	}
	return rc;
}
