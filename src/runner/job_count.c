/*
 * job_count: exact call counts (job "count").  Resolves the functions that
 * match the globs in the instance library, puts a uprobe counter on each,
 * and reads them around every single call of one operation, so each count
 * belongs to that call.  When uprobes are unavailable the result says so
 * and why; that is not a failure of the job.
 *
 *   count --op OP --func GLOB [--func GLOB...] [--iters N] [--warmup N] [--mlen BYTES]
 *         [--uprobe-fds FD,FD,... | --uprobe-error REASON]
 *
 * The parent's child set-up opens the counters while it still has pqprof's
 * uid (see supervise/child.h) and hands them over as --uprobe-fds, one per
 * function in the order uprobe_resolve lists them, so counting works as
 * root although scheme code runs as the unprivileged user; --uprobe-error
 * is why it could not.  Without either the job opens the counters itself.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "profile/uprobe_count.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *count_result(const struct uprobe_targets *ts, uint64_t *const *per_call, long calls)
{
	json_t *funcs = json_array();
	for (size_t f = 0; f < ts->n; f++) {
		uint64_t total = 0, lo = UINT64_MAX, hi = 0;
		json_t *vals = json_array();
		for (long i = 0; i < calls; i++) {
			uint64_t v = per_call[f][i];
			total += v;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			json_array_append_new(vals, json_integer((json_int_t)v));
		}
		json_array_append_new(funcs, json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}",
		                                       "name", ts->t[f].name,
		                                       "offset", (json_int_t)ts->t[f].offset,
		                                       "total", (json_int_t)total,
		                                       "min", (json_int_t)(calls ? lo : 0),
		                                       "max", (json_int_t)hi, "per_call", vals));
	}
	return funcs;
}

/* "5,6,7" into fds; -1 when it is not such a list of exactly n numbers. */
static int parse_fds(const char *s, int *fds, size_t n)
{
	size_t k = 0;
	while (*s) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (end == s || errno || v < 0 || v > 1 << 20 || k == n)
			return -1;
		fds[k++] = (int)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return k == n ? 0 : -1;
}

/* The counters: handed over, refused with a reason, or opened here. */
static int get_counters(struct runner_env *env, const struct uprobe_targets *ts, const char *fds,
                        const char *why_not, struct uprobe_counters *uc, pq_error *err)
{
	if (why_not)
		return pq_fail(err, PQ_EPERF, "%s", why_not);
	if (!fds)
		return uprobe_counters_open(uc, env->lib_path, ts, 0, err);
	int *v = calloc(ts->n ? ts->n : 1, sizeof *v);
	if (!v)
		return pq_fail(err, PQ_ENOMEM, "count job: out of memory");
	int r = parse_fds(fds, v, ts->n) < 0
	        ? pq_fail(err, PQ_EPERF, "count job: --uprobe-fds '%s' does not name %zu counters", fds, ts->n)
	        : uprobe_counters_adopt(uc, v, ts->n, err);
	free(v);
	return r;
}

int job_count(struct runner_env *env, int argc, char **argv)
{
	const char *opname = NULL, *up_fds = NULL, *up_error = NULL;
	struct opt_list globs = { 0 };
	long iters = 10, warmup = 1, mlen = 64;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_STRING, 0, "op", &opname, "OP", "", NULL },
		{ OPT_LIST, 0, "func", &globs, "GLOB", "", NULL },
		{ OPT_INT, 0, "iters", &iters, "N", "", NULL },
		{ OPT_INT, 0, "warmup", &warmup, "N", "", NULL },
		{ OPT_INT, 0, "mlen", &mlen, "BYTES", "", NULL },
		{ OPT_STRING, 0, "uprobe-fds", &up_fds, "FDS", "", NULL },
		{ OPT_STRING, 0, "uprobe-error", &up_error, "REASON", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !opname || !globs.n) {
		runner_emit_error("count job: %s", err.msg[0] ? err.msg : "--op and --func are required");
		opt_list_free(&globs);
		return PQ_EUSAGE;
	}
	int op = pq_op_parse(opname);
	if (op < 0 || iters < 1 || iters > 1000000 || warmup < 0 || mlen < 0 || mlen > (1 << 20)) {
		runner_emit_error("count job: bad arguments");
		opt_list_free(&globs);
		return PQ_EUSAGE;
	}
	struct uprobe_targets ts;
	int r = uprobe_resolve(env->lib_path, globs.items, (size_t)globs.n, &ts, &err);
	opt_list_free(&globs);
	if (r < 0) {
		runner_emit_error("%s", err.msg);
		return -r;
	}
	struct uprobe_counters uc;
	if (ts.n == 0 || get_counters(env, &ts, up_fds, up_error, &uc, &err) < 0) {
		/* Not a failure of the job: the record says counts are unavailable. */
		runner_emit(json_pack("{s:s, s:s, s:b, s:s}", "ev", "done", "op", opname,
		                      "available", 0, "reason",
		                      ts.n ? err.msg : "no function matches the --func globs"));
		uprobe_targets_free(&ts);
		return 0;
	}
	struct op_ctx c;
	r = job_prepare_op(env, &c, (enum pq_op)op, mlen);
	int prepared = r == 0;
	uint64_t **per_call = calloc(ts.n, sizeof *per_call);
	uint64_t *before = calloc(ts.n, sizeof *before), *after = calloc(ts.n, sizeof *after);
	for (size_t f = 0; per_call && f < ts.n; f++)
		if (!(per_call[f] = calloc((size_t)iters, sizeof **per_call)))
			r = r ? r : PQ_ENOMEM;
	if (!r && (!per_call || !before || !after))
		r = PQ_ENOMEM;
	if (r == PQ_ENOMEM)
		runner_emit_error("count job: out of memory");

	long calls = 0;
	if (!r) {
		runner_op_begin((enum pq_op)op, 1);
		for (long i = 0; i < warmup; i++)
			op_ctx_call(&c, (enum pq_op)op);
		for (; calls < iters && !r; calls++) {
			if (uprobe_counters_read(&uc, before, &err) < 0) {
				runner_emit_error("%s", err.msg);
				r = PQ_EPERF;
				break;
			}
			uprobe_counters_enable(&uc);
			int rc = op_ctx_call(&c, (enum pq_op)op);
			uprobe_counters_disable(&uc);
			if (uprobe_counters_read(&uc, after, &err) < 0) {
				runner_emit_error("%s", err.msg);
				r = PQ_EPERF;
				break;
			}
			for (size_t f = 0; f < ts.n; f++)
				per_call[f][calls] = after[f] - before[f];
			if (rc != 0 && (r = job_call_failed(&c, (enum pq_op)op, rc, calls)) != 0)
				break;
		}
		if (!r) {
			runner_op_end((enum pq_op)op, 1);
			json_t *done = json_pack("{s:s, s:s, s:b, s:I, s:o}", "ev", "done", "op", opname,
			                         "available", 1, "calls", (json_int_t)calls,
			                         "funcs", count_result(&ts, per_call, calls));
			runner_emit(done);
		}
	}
	if (prepared)
		op_ctx_free(&c);
	for (size_t f = 0; per_call && f < ts.n; f++)
		free(per_call[f]);
	free(per_call);
	free(before);
	free(after);
	uprobe_counters_close(&uc);
	uprobe_targets_free(&ts);
	return r;
}
