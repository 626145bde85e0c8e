/*
 * job_info: the instance's descriptor as the runner loaded it (API, kind,
 * name, build, whether it can be seeded, declared sizes), for
 * instance_describe in the parent.
 */
#include "config.h"
#include "runner/jobs.h"
#include "instance/loader.h"

#include <stdio.h>

/* NIST signatures: which functions sign and verify call, what the header offers, and the context passed. */
static void put_signature_api(json_t *d, const struct pqprof_instance *in)
{
	const char *names[] = { [PQPROF_SIG_PLAIN] = "plain", [PQPROF_SIG_CONTEXT] = "context" };
	json_t *offered = json_array();
	for (int a = PQPROF_SIG_PLAIN; a <= PQPROF_SIG_CONTEXT; a++)
		if (in->sig_apis & (1u << a))
			json_array_append_new(offered, json_string(names[a]));
	json_object_set_new(d, "signature_apis", offered);
	int ctx = in->sig_api == PQPROF_SIG_CONTEXT;
	json_object_set_new(d, "signature_api", json_string(ctx ? "context" : "plain"));
	if (!ctx)
		return;
	char hex[2 * 255 + 1] = "";
	for (pq_u64 i = 0; i < in->context_len && i < 255; i++)
		snprintf(hex + 2 * i, 3, "%02x", in->context[i]);
	json_object_set_new(d, "context", json_string(hex));
	json_object_set_new(d, "context_len", json_integer((json_int_t)in->context_len));
}

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
	if (d && in->sig_api)
		put_signature_api(d, in);
	runner_emit(d);
	return 0;
}
