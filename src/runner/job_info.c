/*
 * job_info: the instance's descriptor as the runner loaded it (API, kind,
 * name, build, whether it can be seeded, declared sizes), for
 * instance_describe in the parent.
 */
#include "config.h"
#include "runner/jobs.h"
#include "instance/loader.h"

int job_info(struct runner_env *env, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	const struct pqprof_instance *in = env->inst;
	struct pqprof_sizes sz;
	in->get_sizes(&sz);
	json_t *d = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:b, s:{s:I, s:I, s:I, s:I, s:I}}",
	                      "ev", "done", "api", loader_api_name(in->api), "kind", loader_kind_name(in->kind),
	                      "name", in->name, "compiler", in->compiler, "profile", in->profile,
	                      "cflags", in->cflags, "source_dir", in->source_dir,
	                      "seedable", in->seed != NULL || in->set_rng != NULL,
	                      "sizes", "pk", (json_int_t)sz.pk, "sk", (json_int_t)sz.sk,
	                      "sig", (json_int_t)sz.sig, "ct", (json_int_t)sz.ct, "ss", (json_int_t)sz.ss);
	if (d && in->build_notes)
		json_object_set_new(d, "build_notes", json_string(in->build_notes));
	runner_emit(d);
	return 0;
}
