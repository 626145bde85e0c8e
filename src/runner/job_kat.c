/*
 * job_kat: the runner side of the KAT gate.  Replays the official flow of
 * the instance's flavour through the KAT engine (guarded buffers, API
 * deviation checks), writes the vectors it produced to the file the parent
 * named, and reports the engine's outcome.  A write into a guard page ends
 * the process from inside the engine, after writing the outcome to the
 * outcome file the parent reads.
 */
#include "config.h"
#include "runner/jobs.h"
#include "core/options.h"
#include "kat/kat_engine.h"

#include <fcntl.h>
#include <unistd.h>

json_t *kat_outcome_to_json(const struct kat_outcome *o);

/* Track the engine's calls so exit(), crashes and hangs name op and record. */
static void on_engine_op(const char *op, long record)
{
	int o = pq_op_parse(op);
	if (o >= 0)
		runner_op_begin((enum pq_op)o, 0);
	else
		runner_op_end(PQ_OP_KEYGEN, 0);
	runner_emit(json_pack("{s:s, s:s, s:I}", "ev", "kat_at", "op", op, "record", (json_int_t)record));
}

int job_kat(struct runner_env *env, int argc, char **argv)
{
	const char *emit = NULL, *outcome_path = NULL;
	long records = 0;
	int help = 0;
	const struct option_spec specs[] = {
		{ OPT_INT, 0, "records", &records, "N", "", NULL },
		{ OPT_STRING, 0, "emit", &emit, "FILE", "", NULL },
		{ OPT_STRING, 0, "outcome", &outcome_path, "FILE", "", NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, NULL },
	};
	pq_error err = { 0 };
	if (options_parse(argc, argv, specs, NULL, 0, &help, &err) < 0 || !emit || records < 0) {
		runner_emit_error("kat job: %s", err.msg[0] ? err.msg : "--emit is required");
		return 1;
	}
	struct kat_engine_opts o;
	kat_engine_opts_init(&o);
	o.records = (size_t)records;
	o.emit_path = emit;
	o.op_hook = on_engine_op;
	o.outcome_fd = outcome_path ? open(outcome_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	char fname[512];
	if (kat_engine_file_name(env->inst, fname, sizeof fname) == 0)
		runner_emit(json_pack("{s:s, s:s}", "ev", "kat_file", "name", fname));
	struct kat_outcome out;
	kat_outcome_init(&out);
	int r = kat_engine_run(env->inst, &o, &out, NULL, &err);
	runner_op_end(PQ_OP_KEYGEN, 0);
	if (o.outcome_fd >= 0)
		close(o.outcome_fd);
	if (r < 0) {
		runner_emit_pq_error("kat engine", &err);
		return 1;
	}
	json_t *done = json_pack("{s:s}", "ev", "done");
	json_object_set_new(done, "outcome", kat_outcome_to_json(&out));
	runner_emit(done);
	return 0;
}
