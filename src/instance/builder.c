/*
 * builder: compile a submission tree plus shim into an instance library.
 * instance_build runs the stages of build_stage.h in order: plan, flags,
 * compile, link.
 */
#include "config.h"
#include "instance/builder.h"
#include "instance/build_stage.h"
#include "instance/flag_check.h"
#include "core/grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The official self-assessment guide's profiles, plus the harness default.
 * -g is added to every profile whatever its optimisation level.
 */
static const struct flag_profile profiles[] = {
	{ "harness-default", "-O2", "pqprof default" },
	{ "reference", "-std=c99 -O2", "self-assessment guide: reference build" },
	{ "performance", "-O3 -march=native -flto", "self-assessment guide: performance build" },
	{ "resource", "-Os", "self-assessment guide: resource build" },
	{ "debug", "-O0", "unoptimised build, a baseline for flag studies" },
	{ NULL, NULL, NULL },
};

/* Newer compilers reject pre-C99 habits that many submissions still have. */
const char *const build_downgrades[] = {
	"-Wno-error=implicit-function-declaration",
	"-Wno-error=incompatible-pointer-types",
	"-Wno-error=int-conversion",
	"-Wno-error=implicit-int",
	NULL,
};

const struct flag_profile *flag_profiles(void)
{
	return profiles;
}

const struct flag_profile *flag_profile_find(const char *name)
{
	for (const struct flag_profile *p = profiles; p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

int split_words(const char *s, char ***words, int *n)
{
	*words = NULL;
	*n = 0;
	size_t cap = 0;
	while (s && *s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		char buf[4096];
		size_t k = 0;
		char q = 0;
		while (*s && (q || (*s != ' ' && *s != '\t' && *s != '\n'))) {
			if (!q && (*s == '"' || *s == '\''))
				q = *s;
			else if (q && *s == q)
				q = 0;
			else if (k + 1 < sizeof buf)
				buf[k++] = *s;
			s++;
		}
		buf[k] = '\0';
		if (pq_grow(words, &cap, (size_t)*n + 1, sizeof **words, 16) < 0)
			return -1;
		(*words)[(*n)++] = strdup(buf);
	}
	return 0;
}

void free_words(char **words, int n)
{
	for (int i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

/* A growable argv. */
void build_note(struct build_result *res, const char *fmt, ...)
{
	size_t used = strlen(res->notes);
	if (used + 2 >= sizeof res->notes)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(res->notes + used, sizeof res->notes - used, fmt, ap);
	va_end(ap);
	used = strlen(res->notes);
	if (used + 1 < sizeof res->notes) {
		res->notes[used] = '\n';
		res->notes[used + 1] = '\0';
	}
}

/* Profile flags and descriptor flags are checked wherever they were written, before anything runs. */
static int check_given_flags(const struct build_options *opt, const struct flag_profile *prof, pq_error *err)
{
	/* A profile's flags are reusable names, not one-off flags. */
	if (opt->profile_cflags && !opt->trust_flags) {
		int fr = flag_check_string(opt->profile_cflags, prof->origin, err);
		if (fr < 0)
			return fr;
	}
	/* Flags from a descriptor are the scheme authors'; the command line is the user's. */
	if (opt->flags_origin && !opt->trust_flags && opt->extra_cflags)
		return flag_check_string(opt->extra_cflags, opt->flags_origin, err);
	return 0;
}

int instance_build(const struct build_options *opt, struct build_result *res, pq_error *err)
{
	memset(res, 0, sizeof *res);
	const char *pname = opt->profile ? opt->profile : "harness-default";
	struct flag_profile own = { pname, opt->profile_cflags, opt->profile_origin ? opt->profile_origin : "user profile" };
	struct build_ctx b = {
		.opt = opt, .res = res, .prof = opt->profile_cflags ? &own : flag_profile_find(pname),
		.cc = opt->cc ? opt->cc : getenv("PQPROF_CC") ? getenv("PQPROF_CC") : PQPROF_DEFAULT_SCHEME_CC,
	};
	if (!b.prof)
		return pq_fail(err, PQ_EUSAGE, "unknown flag profile '%s' (reference, performance, resource, debug, harness-default)", pname);
	int r = check_given_flags(opt, b.prof, err);
	if (r < 0)
		return r;
	const char *within = opt->source_root ? opt->source_root : getenv("PQPROF_SOURCE_ROOT");
	r = tree_scan_dir_within(opt->src_dir, within && *within ? within : NULL, opt->tree_inside_root, opt->api,
	                         &res->ts, err);
	if (r < 0)
		return r;
	r = stage_plan(&b, err);
	if (r == 0)
		r = stage_flags(&b, err);
	if (r == 0)
		r = stage_compile(&b, err);
	if (r == 0)
		r = stage_link(&b, err);
	if (r < 0 && !b.pi && b.plan && b.plan->missing_tool[0]) {
		/* The reader could not stand in for the build it needs: name the missing tool first. */
		pq_error_prefix(err, "%s; the build files were read instead, and the build failed: ", b.plan->why);
		snprintf(res->verdict, sizeof res->verdict, "%s not found", b.plan->missing_tool);
	}
	stage_cleanup(&b);
	if (r < 0)
		build_result_free(res);
	return r;
}

void build_result_free(struct build_result *res)
{
	tree_scan_free(&res->ts);
	flag_list_free(&res->flags);
	flag_list_free(&res->observed_flags);
}
