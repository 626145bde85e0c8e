/*
 * builder: compile a submission tree plus shim into an instance library.
 * instance_build runs the stages of build_stage.h in order: plan, flags,
 * compile, link.
 */
#include "config.h"
#include "core/digest.h"
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

int split_words(const char *s, char ***words, int *n, pq_error *err)
{
	/* One splitter for every flag string: quotes group, a backslash escapes, as sh reads it. */
	if (shell_split(s ? s : "", words, n) < 0)
		return pq_fail(err, PQ_ENOMEM, "out of memory splitting flags '%.200s'", s ? s : "");
	return 0;
}

void free_words(char **words, int n)
{
	for (int i = 0; i < n; i++)
		free(words[i]);
	free(words);
}

/* One line of the notes; a line that cannot be added is remembered (notes.oom), see build_texts_check. */
void build_note(struct build_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(&res->notes, fmt, ap);
	va_end(ap);
	text_printf(&res->notes, "\n");
}

int build_texts_check(struct build_result *res, pq_error *err)
{
	/* Empty is "", never NULL, for the shim and the record. */
	struct {
		struct text_buf *t;
		const char *what;
	} texts[] = { { &res->notes, "notes" }, { &res->cflags, "flags" }, { &res->instances, "instance list" },
		          { &res->plan_how, "plan" }, { &res->plan_outside, "containment notes" },
		          { &res->plan_attempts, "build attempts" }, { &res->libs, "library list" } };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		if (!texts[i].t->s)
			text_printf(texts[i].t, "%s", "");
		if (texts[i].t->oom)
			return pq_fail(err, PQ_ENOMEM, "%s: out of memory writing the build's %s", res->ts.root, texts[i].what);
	}
	return 0;
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
	if (r == 0 && opt->context_hex)
		r = build_context_parse(opt->context_hex, "--context", b.context, &b.context_len, err);
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
	if (r == 0)
		r = build_texts_check(res, err);
	if (r < 0 && !b.pi && b.plan && b.plan->missing_tool[0]) {
		/* The reader could not stand in for the build it needs: name the missing tool first. */
		pq_error_prefix(err, "%s; the build files were read instead, and the build failed: ", b.plan->why);
		snprintf(res->verdict, sizeof res->verdict, "%s not found", b.plan->missing_tool);
	}
	stage_cleanup(&b);
	return r;
}

void build_result_free(struct build_result *res)
{
	tree_scan_free(&res->ts);
	text_free(&res->notes);
	text_free(&res->cflags);
	text_free(&res->instances);
	text_free(&res->plan_how);
	text_free(&res->plan_outside);
	text_free(&res->plan_attempts);
	text_free(&res->libs);
	flag_list_free(&res->flags);
	flag_list_free(&res->observed_flags);
}

int build_context_parse(const char *hex, const char *option, unsigned char *out, size_t *len, pq_error *err)
{
	size_t n = strlen(hex);
	if (n % 2 != 0 || n / 2 > BUILD_CONTEXT_MAX)
		return pq_fail(err, PQ_EUSAGE, "%s must be an even number of hex digits, at most %d bytes, not '%s'", option,
		               BUILD_CONTEXT_MAX, hex);
	for (size_t i = 0; i < n; i += 2) {
		int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
		if (hi < 0 || lo < 0)
			return pq_fail(err, PQ_EUSAGE, "%s must be hex digits (0-9, a-f), not '%s'", option, hex);
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

int instance_name_check(const char *tree, const char *reported, const char *expected, const char *dir_instance,
                        pq_error *err)
{
	if (!reported)
		return 0;
	if (dir_instance && dir_instance[0] && strcmp(dir_instance, reported) != 0)
		return pq_fail(err, PQ_EINPUT,
		               "%s: the directory names instance %s, but the library built reports instance %s "
		               "(check the -D switches or --instance)", tree, dir_instance, reported);
	if (expected && expected[0] && strcmp(expected, reported) != 0)
		return pq_fail(err, PQ_EINPUT, "%s: instance %s was asked for, but the library built reports instance %s",
		               tree, expected, reported);
	return 0;
}
