/* merge_systems: one merged campaign per system; see merge_systems.h. */
#include "config.h"
#include "core/json_file.h"
#include "core/text_buf.h"
#include "core/fixed_str.h"
#include "campaign/merge_systems.h"
#include "campaign/merge.h"
#include "core/atomic_file.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYSTEMS 64

static void env_value(json_t *env, const char *k, char *buf, size_t len)
{
	json_t *v = json_object_get(env, k);
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, len, "unknown");
}

/* All the fields that must agree, in one string: equal strings, one system. */
static char *fingerprint(json_t *env)
{
	struct text_buf t = { 0 };
	for (int k = 0; campaign_env_keys[k]; k++) {
		char v[512];
		env_value(env, campaign_env_keys[k], v, sizeof v);
		text_printf(&t, "%s=%s\n", campaign_env_keys[k], v);
	}
	if (t.oom) {
		text_free(&t);
		return NULL;
	}
	return t.s;
}

static void dir_label(const char *processor, int idx, char *buf, size_t len)
{
	char p[64];
	str_copy(p, sizeof p, processor); /* a directory label: the start of the name will do */
	for (char *c = p; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '.'))
			*c = '_';
	snprintf(buf, len, "%d-%s", idx, p);
}

struct system {
	char *print;
	json_t *env;                 /* borrowed from the first input of the group */
	const char **inputs;
	int n;
	char dir[80];
};

static int write_index(const char *out, struct system *sys, int ns, pq_error *err)
{
	json_t *list = json_array();
	if (!list)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	struct text_buf md = { 0 };
	text_printf(&md, "# Campaign on %d systems\n\nThe campaign directories came from %d different systems.  "
	            "Each system has its own merged campaign and report; figures from different systems are never "
	            "pooled.\n\n| system | processor | differs from system 1 in | campaign directories | report |\n"
	            "|---|---|---|---|---|\n", ns, ns);
	for (int g = 0; g < ns; g++) {
		char proc[512];
		struct text_buf diff = { 0 };
		env_value(sys[g].env, "processor", proc, sizeof proc);
		json_t *differs = json_array(), *ins = json_array();
		for (int k = 0; g > 0 && campaign_env_keys[k]; k++) {
			char a[512], b[512];
			env_value(sys[0].env, campaign_env_keys[k], a, sizeof a);
			env_value(sys[g].env, campaign_env_keys[k], b, sizeof b);
			if (strcmp(a, b) != 0) {
				text_printf(&diff, "%s%s: %s", diff.n ? "; " : "", campaign_env_keys[k], b);
				json_array_append_new(differs, json_string(campaign_env_keys[k]));
			}
		}
		md.oom |= diff.oom;
		text_printf(&md, "| %d | %s | %s | ", g + 1, proc, g && diff.s ? diff.s : g ? "" : "-");
		text_free(&diff);
		for (int i = 0; i < sys[g].n; i++) {
			text_printf(&md, "%s%s", i ? ", " : "", sys[g].inputs[i]);
			json_array_append_new(ins, json_string(sys[g].inputs[i]));
		}
		text_printf(&md, " | [systems/%s/report.md](systems/%s/report.md) |\n", sys[g].dir, sys[g].dir);
		json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:O, s:o, s:o}", "system", g + 1, "dir", sys[g].dir,
		                                      "processor", proc, "environment", sys[g].env, "differs", differs,
		                                      "inputs", ins));
	}
	json_t *doc = json_pack("{s:s, s:o}", "schema", "pqprof.systems/1", "systems", list);
	char p[PATH_MAX];
	int r = md.oom || !doc ? pq_fail(err, PQ_ENOMEM, "out of memory writing the systems index") : 0;
	if (r == 0)
		r = path_fmt(p, sizeof p, err, "%s/report.md", out);
	if (r == 0)
		r = atomic_write(p, md.s, md.n, err);
	if (r == 0)
		r = path_fmt(p, sizeof p, err, "%s/systems.json", out);
	if (r == 0)
		r = json_file_write(p, doc, err);
	json_decref(doc);
	text_free(&md);
	return r;
}

int campaign_merge_by_system(const char *out, const char *const *inputs, int n, pq_error *err)
{
	json_t **camp = calloc((size_t)n, sizeof *camp);
	struct system *sys = calloc(MAX_SYSTEMS, sizeof *sys);
	int ns = 0, r = camp && sys ? 0 : pq_fail(err, PQ_ENOMEM, "out of memory");
	for (int i = 0; i < n && r == 0; i++) {
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/campaign.json", inputs[i]);
		json_error_t je;
		camp[i] = json_load_regular(p, 0, &je);
		if (!camp[i]) {
			r = pq_fail(err, PQ_EINPUT, "%s: not a campaign directory (%s)", inputs[i], je.text);
			break;
		}
		json_t *env = json_object_get(camp[i], "environment");
		char *fp = fingerprint(env);
		if (!fp) {
			r = pq_fail(err, PQ_ENOMEM, "out of memory");
			break;
		}
		int g = 0;
		while (g < ns && strcmp(sys[g].print, fp) != 0)
			g++;
		if (g == ns) {
			if (ns == MAX_SYSTEMS) {
				free(fp);
				r = pq_fail(err, PQ_EINPUT, "more than %d different systems", MAX_SYSTEMS);
				break;
			}
			sys[ns].print = fp;
			sys[ns].env = env;
			sys[ns].inputs = calloc((size_t)n, sizeof *sys[ns].inputs);
			if (!sys[ns].inputs) {
				r = pq_fail(err, PQ_ENOMEM, "out of memory");
				break;
			}
			char proc[512];
			env_value(env, "processor", proc, sizeof proc);
			dir_label(proc, ns + 1, sys[ns].dir, sizeof sys[ns].dir);
			ns++;
		} else {
			free(fp);
		}
		sys[g].inputs[sys[g].n++] = inputs[i];
	}
	if (r == 0 && ns == 1)
		r = campaign_merge(out, inputs, n, 0, err);
	for (int g = 0; r == 0 && ns > 1 && g < ns; g++) {
		char sub[PATH_MAX];
		snprintf(sub, sizeof sub, "%s/systems/%s", out, sys[g].dir);
		r = make_dirs(sub, err);
		if (r == 0)
			r = campaign_merge(sub, sys[g].inputs, sys[g].n, 0, err);
	}
	if (r == 0 && ns > 1)
		r = write_index(out, sys, ns, err);
	for (int g = 0; sys && g < ns; g++) {
		free(sys[g].print);
		free(sys[g].inputs);
	}
	for (int i = 0; camp && i < n; i++)
		json_decref(camp[i]);
	free(camp);
	free(sys);
	return r < 0 ? r : ns;
}
