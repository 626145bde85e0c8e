/*
 * bench_step: the bench step of every unit together, interleaved
 * round-robin per operation in rounds cut between instances, and the
 * operation budget every timed step shares.
 */
#include "config.h"
#include "campaign/campaign_int.h"
#include "record/records.h"
#include "supervise/bench.h"
#include "supervise/blame.h"

#include <stdlib.h>
#include <string.h>

/*
 * Most units whose bench trials interleave at once: every trial's per-call
 * values stay in memory until the round ends (about 80 bytes a call), so
 * larger campaigns interleave in rounds of this many units, the flag
 * profiles of one instance always in the same round, with the baseline
 * units of the round's candidates.
 */
#define MAX_INTERLEAVE 32

/*
 * Wall time for everything one operation of one unit runs in a step
 * (bench trials, interposition trials, produced-size runs): --budget op=S,
 * else 900 s (60 s with --quick).  Only operations of seconds ever reach
 * it: a 21 s keygen gets 5 x 8 calls, as the reference harness ran it, a
 * 2 s one 3 x 10 with --quick.
 */
#define CAMPAIGN_OP_BUDGET_S 900.0
#define CAMPAIGN_QUICK_OP_BUDGET_S 60.0
double op_budget_of(const struct campaign *c)
{
	return c->o->op_budget_s > 0 ? c->o->op_budget_s : c->o->quick ? CAMPAIGN_QUICK_OP_BUDGET_S : CAMPAIGN_OP_BUDGET_S;
}

/* One round of interleaved benches of one operation: m units, records written as they come back. */
static void bench_round(struct campaign *c, struct bench_config *cfgs, const char **profiles, const int *who, int m,
                        enum pq_op op, json_t **recs, pq_error *errs, double t)
{
	memset(recs, 0, (size_t)m * sizeof *recs);
	memset(errs, 0, (size_t)m * sizeof *errs);
	record_bench(cfgs, m, profiles, recs, errs);
	/* The round-robin order, so each record shows what it was interleaved with. */
	json_t *order = json_array();
	for (int j = 0; j < m; j++)
		json_array_append_new(order, json_string(c->units[who[j]].label));
	for (int j = 0; j < m; j++) {
		struct unit *u = &c->units[who[j]];
		char rec[PATH_MAX];
		path_of(c, rec, sizeof rec, "records", u->label, pq_op_name(op), ".json");
		if (!recs[j]) {
			step_error(c, u, "bench", &errs[j]);
		} else {
			if (strcmp(json_string_value(json_object_get(recs[j], "status")) ?: "", "failed") == 0)
				json_object_set_new(recs[j], "failure_kind", json_string(blame_kind(errs[j].code)));
			json_object_set_new(recs[j], "interleave", json_pack("{s:s, s:i, s:O}", "order", "round-robin",
			                                                     "position", j, "units", order));
			tag_record(u, recs[j]);
			relative_log(c, recs[j]);
			if (!c->stopped)
				put_record(c, rec, recs[j]);
			json_decref(recs[j]);
		}
		step_done(c, t, 0);
	}
	json_decref(order);
}

/* Whether unit k is the baseline of a candidate whose bench of op is still to run (so k runs again beside it). */
static int baseline_wanted(const struct campaign *c, int k, int op, json_t *const *desc)
{
	for (int i = 0; i < c->nunits; i++) {
		const struct unit *u = &c->units[i];
		char rec[PATH_MAX];
		if (!desc[i] || strcmp(u->baseline_label, c->units[k].label) != 0)
			continue;
		path_of(c, rec, sizeof rec, "records", u->label, pq_op_name(op), ".json");
		if (!record_done(rec))
			return 1;
	}
	return 0;
}

/* The position in who[0..m) of the added baseline unit that unit k is measured against, or -1. */
static int added_baseline_slot(const struct campaign *c, const int *who, int m, int k)
{
	const struct unit *b = unit_by_label(c, c->units[k].baseline_label);
	for (int j = 0; b && b->added_baseline && j < m; j++)
		if (&c->units[who[j]] == b)
			return j;
	return -1;
}

/*
 * The benches of one operation (who[0..m), cfgs and profiles alike) in
 * rounds of at most MAX_INTERLEAVE units.  Rounds are cut between
 * instances, never inside one (a flag study's builds share a round), and
 * every round that holds a candidate also holds its added baseline unit
 * (campaign_baseline.c), so candidate trial i and baseline trial i run in
 * one round.  A baseline whose candidates fill several rounds runs in each
 * of them; its record is the last round's.  Added baselines no candidate
 * needed run in a round of their own.
 */
static void bench_rounds(struct campaign *c, struct bench_config *cfgs, const char **profiles, const int *who, int m,
                         enum pq_op op, json_t **recs, pq_error *errs, double t)
{
	struct bench_config *rc = calloc((size_t)m + 1, sizeof *rc);
	const char **rp = calloc((size_t)m + 1, sizeof *rp);
	int *rw = calloc((size_t)m + 1, sizeof *rw), *prim = calloc((size_t)m + 1, sizeof *prim);
	char *used = calloc((size_t)m + 1, 1), *in_round = calloc((size_t)m + 1, 1);
	if (!rc || !rp || !rw || !prim || !used || !in_round) {
		pq_error err;
		pq_fail(&err, PQ_ENOMEM, "out of memory for %d benches", m);
		stop_campaign(c, &err);
		goto out;
	}
	int np = 0;
	for (int j = 0; j < m; j++)
		if (!c->units[who[j]].added_baseline)
			prim[np++] = j;
	for (int from = 0; from <= np && !c->stopped;) {
		int to = from, nr = 0;
		memset(in_round, 0, (size_t)m);
		if (from == np) {  /* baselines no candidate took with it */
			for (int j = 0; j < m; j++)
				if (c->units[who[j]].added_baseline && !used[j])
					in_round[j] = 1;
		}
		while (to < np) {
			int end = to + 1, extra = 0;
			while (end < np && strcmp(c->units[who[prim[end]]].instance, c->units[who[prim[to]]].instance) == 0)
				end++;
			int add[MAX_INTERLEAVE];
			for (int i = to; i < end; i++) {
				int b = added_baseline_slot(c, who, m, who[prim[i]]);
				int dup = b < 0 || in_round[b];
				for (int x = 0; x < extra && !dup; x++)
					dup = add[x] == b;
				if (!dup && extra < MAX_INTERLEAVE)
					add[extra++] = b;
			}
			int nbase = 0;
			for (int j = 0; j < m; j++)
				nbase += in_round[j];
			if (to > from && (end - from) + nbase + extra > MAX_INTERLEAVE)
				break;
			for (int x = 0; x < extra; x++)
				in_round[add[x]] = 1;
			to = end;
		}
		for (int i = from; i < to; i++) {
			rc[nr] = cfgs[prim[i]];
			rp[nr] = profiles[prim[i]];
			rw[nr++] = who[prim[i]];
		}
		for (int j = 0; j < m; j++)
			if (in_round[j]) {
				used[j] = 1;
				rc[nr] = cfgs[j];
				rp[nr] = profiles[j];
				rw[nr++] = who[j];
			}
		if (nr > 0)
			bench_round(c, rc, rp, rw, nr, op, recs, errs, t);
		if (from == np)
			break;
		from = to;
	}
out:
	free(rc);
	free(rp);
	free(rw);
	free(prim);
	free(used);
	free(in_round);
}

/*
 * Bench every unit of the campaign (instances x profiles) together: for
 * each operation the trials of all units that have it run round-robin
 * (A, B, C, A, B, C...), so a slow spell of the machine falls on every
 * unit alike and comparisons are paired in time as well as in seeds.
 */
/*
 * Did the KAT replay time out in op, or in the operation whose output op
 * needs (verify a signature, dec a ciphertext)?  why: "not run: ...".
 */
static int kat_timed_out_for(const struct campaign *c, const struct unit *u, enum pq_op op, char *why, size_t len)
{
	char w[400];
	if (!op_timed_out(c, u, op, w, sizeof w) || !strstr(w, "KAT replay"))
		return 0;
	snprintf(why, len, "not run: %s", w);
	return 1;
}

void bench_all(struct campaign *c, json_t *env)
{
	if (c->stopped)
		return;
	int n = c->nunits;
	json_t **desc = calloc((size_t)n, sizeof *desc);
	enum pq_op (*uops)[PQ_OP_COUNT] = calloc((size_t)n, sizeof *uops);
	int *nops = calloc((size_t)n, sizeof *nops), *who = calloc((size_t)n, sizeof *who);
	struct bench_config *cfgs = calloc((size_t)n, sizeof *cfgs);
	const char **profiles = calloc((size_t)n, sizeof *profiles);
	json_t **recs = calloc((size_t)n, sizeof *recs);
	pq_error *errs = calloc((size_t)n, sizeof *errs);
	char (*logs)[PATH_MAX] = calloc((size_t)n, sizeof *logs);   /* the scheme's output, per bench */
	if (!desc || !uops || !nops || !who || !cfgs || !profiles || !recs || !errs || !logs) {
		pq_error err;
		pq_fail(&err, PQ_ENOMEM, "out of memory for %d units", n);
		stop_campaign(c, &err);
		goto out;
	}
	for (int k = 0; k < n; k++)
		nops[k] = unit_ops(c, &c->units[k], &desc[k], uops[k]);
	for (int op = 0; op < PQ_OP_COUNT && !c->stopped; op++) {
		int m = 0;
		double t = mono_s();
		for (int k = 0; k < n; k++) {
			int has = 0;
			for (int i = 0; i < nops[k]; i++)
				has |= uops[k][i] == (enum pq_op)op;
			if (!has || !c->want[STEP_BENCH])
				continue;
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", c->units[k].label, pq_op_name(op), ".json");
			if (!desc[k] || (record_done(rec) && !baseline_wanted(c, k, op, desc))) {
				step_done(c, t, 1);
				continue;
			}
			char why[400];
			if (kat_timed_out_for(c, &c->units[k], (enum pq_op)op, why, sizeof why)) {
				/* Timed out once already: not run again, the record says why. */
				struct bench_config nc = { .op = (enum pq_op)op, .mlen = 64, .instance = desc[k],
				                           .command = c->o->command, .environment = env };
				json_t *r = bench_not_run_record(&nc, why);
				tag_record(&c->units[k], r);
				put_record(c, rec, r);
				json_decref(r);
				step_done(c, t, 0);
				continue;
			}
			campaign_progress(c, "bench", &c->units[k], pq_op_name(op));
			cfgs[m] = (struct bench_config){
				.lib = c->units[k].lib, .op = (enum pq_op)op,
				.trials = c->o->trials > 0 ? c->o->trials : (c->o->quick ? 3 : 5),
				.target_s = c->o->target_s > 0 ? c->o->target_s : (c->o->quick ? 0.3 : 1.0),
				.events = c->o->events, .cpu = c->o->cpu, .timeout_s = c->o->timeout_s, .mlen = 64,
				.op_budget_s = op_budget_of(c), .op_budget_default = !(c->o->op_budget_s > 0),
				.command = c->o->command, .instance = desc[k], .environment = env,
			};
			path_of(c, logs[m], sizeof logs[m], "output", c->units[k].label, pq_op_name(op), ".bench.log");
			cfgs[m].output_log = logs[m];
			profiles[m] = c->units[k].profile;
			who[m++] = k;
		}
		bench_rounds(c, cfgs, profiles, who, m, (enum pq_op)op, recs, errs, t);
	}
	for (int k = 0; k < n; k++) {
		int ndone = 0, nfailed = 0;
		for (int i = 0; i < nops[k]; i++) {
			char rec[PATH_MAX];
			path_of(c, rec, sizeof rec, "records", c->units[k].label, pq_op_name(uops[k][i]), ".json");
			int d = record_done(rec);
			ndone += d;
			nfailed += !d && is_file(rec);
		}
		set_unit_step(c, &c->units[k], "bench", !desc[k] ? "skipped" : records_state(c, ndone, nfailed, nops[k]));
	}
	save_state(c, "incomplete");
out:
	for (int k = 0; desc && k < n; k++)
		json_decref(desc[k]);
	free(desc);
	free(uops);
	free(nops);
	free(who);
	free(cfgs);
	free(profiles);
	free(recs);
	free(errs);
	free(logs);
}
