/* builder: compile a submission tree plus shim into an instance library. */
#include "config.h"
#include "instance/builder.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "instance/shim.h"
#include "instance/tool_run.h"
#include "instance/flag_check.h"
#include "instance/instance_discover.h"
#include "instance/isa_check.h"
#include "instance/observe.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"

#include <dirent.h>
#include <gelf.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


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
static const char *const downgrades[] = {
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
/* Copy the linked library out of the build directory (the compiler's uid cannot write beside the target). */
static int copy_file(const char *from, const char *to, pq_error *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", from);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return pq_fail_errno(err, PQ_EIO, "%s: cannot create", to);
	}
	char buf[65536];
	ssize_t n;
	int r = 0;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
			break;
		}
	if (n < 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: read failed", from);
	close(in);
	if (close(out) != 0 && r == 0)
		r = pq_fail_errno(err, PQ_EIO, "%s: write failed", to);
	return r;
}

static void remove_tree(const char *dir)
{
	remove_dir_files(dir);
	rmdir(dir);
}

static void notes_add(struct build_result *res, const char *fmt, ...)
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

static void append_flag(char *buf, size_t len, const char *flag)
{
	size_t used = strlen(buf);
	snprintf(buf + used, len - used, "%s%s", used ? " " : "", flag);
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* Common compiler flags: the assembled list (profile, tree, user, -D), -g -fPIC, includes. */
static void push_common(struct argv_buf *a, const struct flag_list *fl, const struct tree_scan *ts, const char *base)
{
	for (int i = 0; i < fl->n; i++) {
		/* -I from the tree's build files are relative to the tree */
		if (strncmp(fl->v[i].flag, "-I", 2) == 0 && fl->v[i].flag[2] != '/' && strncmp(fl->v[i].origin, "tree ", 5) == 0)
			av_pushf(a, "-I%s/%s", base, fl->v[i].flag + 2);
		else
			av_push(a, fl->v[i].flag);
	}
	av_push(a, "-g");
	av_push(a, "-fPIC");
	for (int i = 0; downgrades[i]; i++)
		av_push(a, downgrades[i]);
	av_pushf(a, "-I%s", base);
	for (int i = 0; i < ts->nincdirs; i++)
		if (strcmp(ts->incdirs[i], ".") != 0)
			av_pushf(a, "-I%s/%s", base, ts->incdirs[i]);
	/* Reached through the working directory: debug info and __FILE__ keep the real paths. */
	if (strcmp(base, ts->root) != 0)
		av_pushf(a, "-ffile-prefix-map=/proc/self/cwd=%s", ts->within);
}

static int want_hint_used(const struct build_options *opt, const char *name)
{
	return opt->instance_hint && strcmp(opt->instance_hint, name) == 0;
}

/* Does the list already hold a -D/-U of this macro from an origin starting with `from`? */
static int sets_macro(const struct flag_list *fl, const char *mac, const char *from)
{
	for (int i = 0; i < fl->n; i++) {
		char m2[128];
		define_macro_name(fl->v[i].flag, m2, sizeof m2);
		if (m2[0] && strcmp(m2, mac) == 0 && strncmp(fl->v[i].origin, from, strlen(from)) == 0)
			return 1;
	}
	return 0;
}

/*
 * The observed flags of each unit (unit_flags[0..nunits)) and of the
 * driver's compile, which the shim gets (unit_flags[nunits]): refused ones
 * stop the build unless trusted, a -D the user also gives is the user's.
 */
static int observed_unit_flags(const struct build_options *opt, const struct plan_instance *pi,
                               struct build_result *res, struct flag_list *unit_flags, pq_error *err)
{
	for (int u = 0; u <= pi->nunits; u++) {
		const struct flag_list *from = u < pi->nunits ? &pi->units[u].flags : &pi->driver_flags;
		for (int i = 0; i < from->n; i++) {
			const struct tree_flag *f = &from->v[i];
			int consumed = 0;
			const char *why = opt->trust_flags ? NULL : flag_refusal(f->flag, NULL, &consumed);
			if (why)
				return pq_fail(err, PQ_EINPUT, "%s: compiler flag '%s' refused: it %s (%s)", res->ts.root, f->flag, why,
				               f->origin);
			char mac[128];
			define_macro_name(f->flag, mac, sizeof mac);
			int overridden = 0;
			for (int k = 0; mac[0] && k < opt->ndefines && !overridden; k++) {
				size_t ml = strlen(mac);
				overridden = strncmp(opt->defines[k], mac, ml) == 0 &&
				             (opt->defines[k][ml] == '=' || opt->defines[k][ml] == '\0');
			}
			if (overridden) {
				if (u == pi->nunits)
					notes_add(res, "flags: %s <- %s: replaced by the -D option", f->flag, f->origin);
				continue;
			}
			if (flag_list_add(&unit_flags[u], f->flag, f->origin) < 0)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
		}
	}
	return 0;
}

/*
 * The flags every unit is compiled with, each with its origin: the
 * profile, the tree's build files, the descriptor or --cflags, -D
 * options, and the switches of the instance chosen from the tree.  Tree
 * flags go through the flag check like a descriptor's; -m flags are
 * checked against this CPU.
 */
static int assemble_flags(const struct build_options *opt, const struct flag_profile *prof, struct build_result *res,
                          const struct plan_instance *pi, struct flag_list *unit_flags, pq_error *err)
{
	struct flag_list *fl = &res->flags;
	char **w = NULL;
	int n = 0, r = 0;
	char o[PATH_MAX + 300];
	split_words(prof->cflags, &w, &n);
	snprintf(o, sizeof o, "profile %s", prof->name);
	for (int i = 0; i < n && r == 0; i++)
		r = flag_list_add(fl, w[i], o);
	free_words(w, n);
	res->nprofile = fl->n;

	struct instance_set set = { .default_variant = -1 };
	int chosen = -1;
	if (pi) {
		r = observed_unit_flags(opt, pi, res, unit_flags, err);
	} else if (!opt->no_tree_flags) {
		r = instance_discover(res->ts.root, res->ts.header, &set, err);
		if (r < 0)
			return r;
		const char *want = opt->instance;
		if (!want && opt->instance_hint)
			for (int i = 0; i < set.tf.nvariants; i++)
				if (strcmp(instance_variant_name(&set.tf.variants[i]), opt->instance_hint) == 0)
					want = opt->instance_hint;
		r = instance_select(&set, opt->src_dir, want, opt->defines, opt->ndefines, &chosen, res->dir_instance,
		                    sizeof res->dir_instance, err);
		if (r < 0) {
			instance_set_free(&set);
			return r;
		}
		if (set.tf.nvariants > 1)
			instance_choices(&set, res->instances, sizeof res->instances);
		/* Tree flags: refused ones stop the build unless trusted; a -D the user also gives is the user's. */
		for (int i = 0; i < set.tf.flags.n && r == 0; i++) {
			const struct tree_flag *f = &set.tf.flags.v[i];
			int consumed = 0;
			const char *why = opt->trust_flags ? NULL : flag_refusal(f->flag, NULL, &consumed);
			if (why) {
				r = pq_fail(err, PQ_EINPUT, "%s/%s: compiler flag '%s' refused: it %s", res->ts.root, f->origin,
				            f->flag, why);
				break;
			}
			char mac[128];
			define_macro_name(f->flag, mac, sizeof mac);
			int overridden = 0;
			for (int k = 0; mac[0] && k < opt->ndefines && !overridden; k++) {
				size_t ml = strlen(mac);
				overridden = strncmp(opt->defines[k], mac, ml) == 0 &&
				             (opt->defines[k][ml] == '=' || opt->defines[k][ml] == '\0');
			}
			if (overridden) {
				notes_add(res, "flags: %s <- %s: replaced by the -D option", f->flag, f->origin);
				continue;
			}
			snprintf(o, sizeof o, "tree %s", f->origin);
			r = flag_list_add(fl, f->flag, o);
		}
		for (int i = 0; i < set.tf.info.n; i++) {
			const struct tree_flag *f = &set.tf.info.v[i];
			notes_add(res, "flags: %s <- %s%s", f->flag, f->origin,
			          strncmp(f->flag, "-O", 2) == 0 ? ": information only (the flag profile decides optimisation)"
			          : strchr(f->origin, '(') ? ""
			          : ": information only (not passed on: it changes what is measured or the ABI)");
		}
	}
	if (r == 0 && opt->extra_cflags) {
		split_words(opt->extra_cflags, &w, &n);
		snprintf(o, sizeof o, "%s", opt->flags_origin ? opt->flags_origin : "--cflags");
		for (int i = 0; i < n && r == 0; i++)
			r = flag_list_add(fl, w[i], o);
		free_words(w, n);
	}
	for (int i = 0; i < opt->ndefines && r == 0; i++) {
		char d[1100];
		snprintf(d, sizeof d, "-D%s", opt->defines[i]);
		r = flag_list_add(fl, d, opt->flags_origin ? "descriptor defines" : "-D option");
	}
	if (r == 0 && chosen >= 0) {
		const struct tree_variant *v = &set.tf.variants[chosen];
		/* Only a name the switches spell out can be checked against the built library. */
		str_copy(res->instance, sizeof res->instance, v->name);
		snprintf(o, sizeof o, "tree %s (instance %s)", v->origin, instance_variant_name(v));
		for (int k = 0; k < v->defines.n && r == 0; k++) {
			char mac[128];
			define_macro_name(v->defines.v[k].flag, mac, sizeof mac);
			if (!sets_macro(fl, mac, "tree "))
				r = flag_list_add(fl, v->defines.v[k].flag, o);
		}
		const char *how = opt->instance ? "asked for with --instance"
		                  : res->dir_instance[0] ? "named by the directory"
		                  : want_hint_used(opt, instance_variant_name(v)) ? "named by the descriptor"
		                  : "the only one the tree builds";
		notes_add(res, "instance: %s (%s), selected by -D switches from %s", instance_variant_name(v), how, v->origin);
	}
	if (r == 0 && set.tf.files[0])
		notes_add(res, "tree build files read (not run): %s", set.tf.files);
	if (r == 0 && set.default_name[0] && set.tf.nvariants > 1)
		notes_add(res, "instances: %s; without switches the header (%s) builds %s", res->instances,
		          set.default_origin, set.default_name);
	instance_set_free(&set);
	if (r < 0)
		return err->code ? -err->code : -PQ_ENOMEM;

	/* Instruction sets: flags this CPU cannot run stop the build here, before any compiler runs. */
	char what[900] = "";
	const char *src = "/proc/cpuinfo";
	int nlists = 1 + (pi ? pi->nunits + 1 : 0);
	for (int l = 0; l < nlists; l++) {
		const struct flag_list *ul = l == 0 ? fl : &unit_flags[l - 1];
		for (int i = 0; i < ul->n; i++) {
			char missing[256];
			const char *from;
			if (isa_missing(ul->v[i].flag, missing, sizeof missing, &from) > 0 && !strstr(what, ul->v[i].flag)) {
				src = from;
				size_t used = strlen(what);
				snprintf(what + used, sizeof what - used, "%s%s (from %s) needs %s", used ? "; " : "", ul->v[i].flag,
				         ul->v[i].origin, missing);
			}
		}
	}
	if (what[0]) {
		char cpu[256];
		isa_cpu_name(cpu, sizeof cpu);
		snprintf(res->verdict, sizeof res->verdict, "instruction set not available");
		return pq_fail(err, PQ_EBUILD, "instruction set not available: %s; this CPU%s%.200s%s lacks that (according to %s); "
		               "nothing was built or run", what, cpu[0] ? " (" : "", cpu, cpu[0] ? ")" : "", src);
	}
	return 0;
}

/* Observed units: the profile, the unit's own observed flags, then the user's; -g -fPIC; the copy's paths shown as the tree's. */
static void push_observed(struct argv_buf *a, const struct build_result *res, const struct flag_list *unit,
                          const struct tree_scan *ts, const char *copy, int shim)
{
	for (int i = 0; i < res->nprofile; i++)
		av_push(a, res->flags.v[i].flag);
	for (int i = 0; i < unit->n; i++)
		av_push(a, unit->v[i].flag);
	for (int i = res->nprofile; i < res->flags.n; i++)
		av_push(a, res->flags.v[i].flag);
	av_push(a, "-g");
	av_push(a, "-fPIC");
	for (int i = 0; downgrades[i]; i++)
		av_push(a, downgrades[i]);
	if (shim) {
		av_pushf(a, "-I%s", copy);
		for (int i = 0; i < ts->nincdirs; i++)
			if (strcmp(ts->incdirs[i], ".") != 0)
				av_pushf(a, "-I%s/%s", copy, ts->incdirs[i]);
	}
	av_pushf(a, "-ffile-prefix-map=%s=%s", copy, ts->root);
}

/* s with the prefix `from` replaced by `to` (the scratch copy shown as the tree). */
static json_t *json_path_as(const char *s, const char *from, const char *to)
{
	const char *hit = strstr(s, from);
	if (!hit)
		return json_string(s);
	char buf[PATH_MAX * 2];
	snprintf(buf, sizeof buf, "%.*s%s%s", (int)(hit - s), s, to, hit + strlen(from));
	return json_string(buf);
}

static void ccdb_add(json_t *db, const struct argv_buf *cmd, const char *cwd, const char *src, const char *copy,
                     const char *tree)
{
	json_t *args = json_array();
	for (int i = 0; i < cmd->n; i++)
		json_array_append_new(args, strncmp(cmd->v[i], "-ffile-prefix-map=", 18) == 0 ? json_string(cmd->v[i])
		                                                                         : json_path_as(cmd->v[i], copy, tree));
	json_array_append_new(db, json_pack("{s:o, s:o, s:o}", "directory", json_path_as(cwd, copy, tree), "file",
	                                    json_path_as(src, copy, tree), "arguments", args));
}

/* compile_commands.json for editors (clangd): where the build options say, else beside the library. */
static int write_ccdb(const struct build_options *opt, json_t *db, struct build_result *res, pq_error *err)
{
	char path[PATH_MAX];
	if (opt->compile_commands) {
		str_copy(path, sizeof path, opt->compile_commands);
	} else {
		char dir[PATH_MAX];
		str_copy(dir, sizeof dir, opt->out_path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		snprintf(path, sizeof path, "%s/compile_commands.json", slash ? dir : ".");
	}
	char *text = json_dumps(db, JSON_INDENT(2));
	if (!text)
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	char dir[PATH_MAX];
	str_copy(dir, sizeof dir, path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		make_dirs(dir, NULL);
	}
	int r = atomic_write(path, text, strlen(text), err);
	free(text);
	if (r == 0)
		str_copy(res->compile_commands, sizeof res->compile_commands, path);
	return r;
}

/* The Debian package that ships a library the link could not find. */
static const char *library_package(const char *name)
{
	static const struct { const char *lib, *pkg; } known[] = {
		{ "gmp", "libgmp-dev" }, { "crypto", "libssl-dev" }, { "ssl", "libssl-dev" }, { "m", "libc6-dev" },
		{ "ntl", "libntl-dev" }, { "flint", "libflint-dev" }, { "mpfr", "libmpfr-dev" }, { "sodium", "libsodium-dev" },
		{ "gf2x", "libgf2x-dev" }, { "z", "zlib1g-dev" }, { "keccak", "libxkcp-dev" }, { "m4ri", "libm4ri-dev" },
		{ "pari", "libpari-dev" }, { "fplll", "libfplll-dev" }, { "gomp", "libgcc-12-dev" },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(name, known[i].lib) == 0)
			return known[i].pkg;
	return NULL;
}

/* A link that could not find -lNAME: say which library and which package has it. */
static void explain_missing_library(struct build_result *res, pq_error *err)
{
	const char *hit = strstr(err->msg, "cannot find -l");
	if (!hit)
		return;
	char name[64];
	if (sscanf(hit + 14, "%63[A-Za-z0-9_+.-]", name) != 1)
		return;
	size_t n = strlen(name);
	while (n > 0 && (name[n - 1] == '.' || name[n - 1] == ':'))
		name[--n] = '\0';
	const char *pkg = library_package(name);
	char msg[sizeof err->msg];
	snprintf(msg, sizeof msg, "external library missing: -l%s, which the submitter's build links, is not installed%s%s%s; %s",
	         name, pkg ? " (install the Debian package " : "", pkg ? pkg : "", pkg ? ")" : "", err->msg);
	str_copy(err->msg, sizeof err->msg, msg);
	snprintf(res->verdict, sizeof res->verdict, "external library missing: -l%.30s", name);
}

/*
 * The global objects the left-out KAT driver defines (besides
 * drng_algorithm, which the shim defines with its type), as weak byte
 * arrays of the same size in a generated source: tree code that declares
 * them extern links, and a definition in the tree wins.  Returns how many.
 */
static int write_weak_objects(const char *obj, const char *tmpdir, char *out, size_t len)
{
	int fd = open(obj, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int n = 0;
	FILE *f = NULL;
	Elf_Scn *scn = NULL;
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
			    GELF_ST_BIND(sym.st_info) != STB_GLOBAL || sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, "drng_algorithm") == 0)
				continue;
			if (!f) {
				snprintf(out, len, "%s/pqprof_weak.c", tmpdir);
				f = fopen(out, "w");
				if (!f)
					break;
				fputs("/* Generated by pqprof build: what the left-out KAT driver defines, weakly. */\n", f);
			}
			fprintf(f, "__attribute__((weak, aligned(16))) unsigned char %s[%llu];\n", name,
			        (unsigned long long)sym.st_size);
			n++;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (f && fclose(f) != 0)
		n = 0;
	if (n == 0)
		out[0] = '\0';
	return n;
}

static void free_unit_flags(struct flag_list *uf, const struct plan_instance *pi)
{
	for (int i = 0; uf && pi && i <= pi->nunits; i++)
		flag_list_free(&uf[i]);
	free(uf);
}

/*
 * The instance to build from an observed plan: asked for (--instance, by
 * its name or label), named by the descriptor or the directory, or the
 * only one.  *pi stays NULL when the plan is not observed (the reader
 * decides then); res->plan* say which path was taken and why.
 */
static int plan_instance(const struct build_options *opt, const char *cc, struct build_result *res,
                         const struct build_plan **plan, const struct plan_instance **pi, pq_error *err)
{
	const struct tree_scan *ts = &res->ts;
	*pi = NULL;
	snprintf(res->plan, sizeof res->plan, "read");
	if (opt->no_observe || opt->no_tree_flags || !observe_enabled()) {
		snprintf(res->plan_how, sizeof res->plan_how, "the tree's own build was not run (%s)",
		         opt->no_observe ? "--no-observe" : opt->no_tree_flags ? "--no-tree-flags" : "PQPROF_OBSERVE=off");
		return 0;
	}
	struct observe_options oo = { .api = ts->api, .header = ts->header, .cc = cc };
	int r = observe_tree(ts->root, &oo, plan, err);
	if (r < 0)
		return r;
	const struct build_plan *p = *plan;
	if (!p->observed) {
		snprintf(res->plan_how, sizeof res->plan_how, "%s", p->why);
		str_copy(res->plan_outside, sizeof res->plan_outside, p->outside);
		return 0;
	}
	snprintf(res->plan, sizeof res->plan, "observed");
	snprintf(res->plan_how, sizeof res->plan_how, "%s", p->how);
	str_copy(res->plan_outside, sizeof res->plan_outside, p->outside);
	const char *dir = base_name(ts->root);
	int pick = -1;
	const char *how = "";
	for (int i = 0; i < p->ninst && pick < 0 && opt->instance; i++)
		if (plan_instance_matches(&p->inst[i], opt->instance))
			pick = i, how = "asked for with --instance";
	if (opt->instance && pick < 0) {
		char list[2048];
		plan_instance_list(p, list, sizeof list);
		return pq_fail(err, PQ_EUSAGE, "%s: no instance '%s' in the tree's observed build (%s); it builds: %s", ts->root,
		               opt->instance, p->how, list);
	}
	for (int i = 0; i < p->ninst && pick < 0 && opt->instance_hint; i++)
		if (plan_instance_matches(&p->inst[i], opt->instance_hint))
			pick = i, how = "named by the descriptor";
	for (int i = 0; i < p->ninst; i++)
		if (plan_instance_matches(&p->inst[i], dir)) {
			/* checked against the built library whatever was asked for */
			str_copy(res->dir_instance, sizeof res->dir_instance, p->inst[i].name[0] ? p->inst[i].name : dir);
			if (pick < 0)
				pick = i, how = "named by the directory";
		}
	if (pick < 0 && p->ninst == 1)
		pick = 0, how = "the only one the tree's build links";
	if (pick < 0) {
		char list[2048];
		plan_instance_list(p, list, sizeof list);
		return pq_fail(err, PQ_EUSAGE, "%s: the tree's build links %d KAT programs (%s); choose one with --instance: %s",
		               ts->root, p->ninst, p->how, list);
	}
	*pi = &p->inst[pick];
	str_copy(res->instance, sizeof res->instance, (*pi)->name);
	str_copy(res->program, sizeof res->program, (*pi)->program);
	if (p->ninst > 1)
		plan_instance_list(p, res->instances, sizeof res->instances);
	for (int i = 0; i < (*pi)->nlibs; i++) {
		size_t used = strlen(res->libs);
		snprintf(res->libs + used, sizeof res->libs - used, "%s%s", used ? " " : "", (*pi)->libs[i]);
	}
	notes_add(res, "plan: observed the tree's own build: %s", p->how);
	notes_add(res, "instance: %s (%s), linked by the build as %s", (*pi)->name[0] ? (*pi)->name : (*pi)->label, how,
	          (*pi)->program);
	if (res->instances[0])
		notes_add(res, "instances: the tree's build links %d KAT programs: %s", p->ninst, res->instances);
	if (p->outside[0])
		notes_add(res, "containment: the tree's build %s", p->outside);
	return 0;
}

int instance_tree_plan(const char *tree, const char *source_root, const struct build_plan **plan, pq_error *err)
{
	const char *within = source_root ? source_root : getenv("PQPROF_SOURCE_ROOT");
	struct tree_scan ts;
	int r = tree_scan_dir_within(tree, within && *within ? within : NULL, 0, TREE_API_AUTO, &ts, err);
	if (r < 0)
		return r;
	const char *cc = getenv("PQPROF_CC") ? getenv("PQPROF_CC") : PQPROF_DEFAULT_SCHEME_CC;
	struct observe_options oo = { .api = ts.api, .header = ts.header, .cc = cc };
	r = observe_tree(ts.root, &oo, plan, err);
	tree_scan_free(&ts);
	return r;
}

int instance_build(const struct build_options *opt, struct build_result *res, pq_error *err)
{
	memset(res, 0, sizeof *res);
	const char *pname = opt->profile ? opt->profile : "harness-default";
	struct flag_profile own = { pname, opt->profile_cflags, opt->profile_origin ? opt->profile_origin : "user profile" };
	const struct flag_profile *prof = opt->profile_cflags ? &own : flag_profile_find(pname);
	if (!prof)
		return pq_fail(err, PQ_EUSAGE, "unknown flag profile '%s' (reference, performance, resource, debug, harness-default)", pname);
	const char *cc = opt->cc ? opt->cc : getenv("PQPROF_CC") ? getenv("PQPROF_CC") : PQPROF_DEFAULT_SCHEME_CC;
	/* A profile's flags are checked wherever they were written: they are reusable names, not one-off flags. */
	if (opt->profile_cflags && !opt->trust_flags) {
		int fr = flag_check_string(opt->profile_cflags, own.origin, err);
		if (fr < 0)
			return fr;
	}
	/* Flags from a descriptor are the scheme authors'; the command line is the user's. */
	if (opt->flags_origin && !opt->trust_flags && opt->extra_cflags) {
		int fr = flag_check_string(opt->extra_cflags, opt->flags_origin, err);
		if (fr < 0)
			return fr;
	}
	const char *within = opt->source_root ? opt->source_root : getenv("PQPROF_SOURCE_ROOT");
	int r = tree_scan_dir_within(opt->src_dir, within && *within ? within : NULL, opt->tree_inside_root, opt->api,
	                             &res->ts, err);
	if (r < 0)
		return r;
	struct tree_scan *ts = &res->ts;
	/* Plan: the tree's own build observed, else its build files read. */
	const struct plan_instance *pi = NULL;
	const struct build_plan *plan = NULL;
	r = plan_instance(opt, cc, res, &plan, &pi, err);
	struct flag_list *unit_flags = NULL;
	if (r == 0 && pi && !(unit_flags = calloc((size_t)pi->nunits + 1, sizeof *unit_flags)))
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
	if (r == 0)
		r = assemble_flags(opt, prof, res, pi, unit_flags, err);
	if (r < 0) {
		free_unit_flags(unit_flags, pi);
		build_result_free(res);
		return r;
	}

	char tmpdir[] = "/tmp/pqprof-build.XXXXXX";
	if (!mkdtemp(tmpdir))
		return pq_fail_errno(err, PQ_EIO, "cannot create a temporary build directory");
	contain_share_dir(tmpdir); /* compilers write their objects here */
	interrupt_track_tmp(tmpdir, 1);
	struct cc_limits lim = { .timeout_s = opt->cc_timeout_s > 0 ? opt->cc_timeout_s : CC_DEFAULT_TIMEOUT_S,
	                         .as_limit = opt->cc_as_limit ? opt->cc_as_limit : CC_DEFAULT_AS_LIMIT };
	const char *mem_env = getenv("PQPROF_CC_MEMORY_MB");
	if (!opt->cc_as_limit && mem_env && atoll(mem_env) > 0)
		lim.as_limit = (unsigned long long)atoll(mem_env) << 20;
	{
		/* Compile as the unprivileged user when it can read the tree (it always can read the build directory). */
		const char *probe = ts->root;
		char first[PATH_MAX];
		for (int i = 0; i < ts->nfiles; i++)
			if (ts->files[i].keep) {
				snprintf(first, sizeof first, "%s/%s", ts->root, ts->files[i].rel);
				probe = first;
				break;
			}
		lim.as_user = contain_caps()->drop_uid;
		/*
		 * A tree below a private directory (mode 0700 on the way) is
		 * reached from a working directory entered before the uid change.
		 * A tree that is itself private to the caller is compiled with the
		 * caller's uid (still in the namespaces, under the limits); the
		 * tree scan has already refused includes that leave it.
		 */
		if (lim.as_user && !contain_job_can_read(probe)) {
			struct stat wsb, psb;
			if (stat(ts->within, &wsb) == 0 && (wsb.st_mode & 0005) == 0005 && stat(probe, &psb) == 0 &&
			    (psb.st_mode & 0004))
				lim.workdir = ts->within;
			else
				lim.as_user = 0;
		}
	}
	char base[PATH_MAX];
	if (pi) {
		/* The observed build's copy holds what its build generated; it is readable by the compilers' uid. */
		snprintf(base, sizeof base, "%s", plan->copy);
		lim.workdir = NULL;
		lim.as_user = contain_caps()->drop_uid;
	} else if (lim.workdir) {
		snprintf(base, sizeof base, "/proc/self/cwd%s", ts->root + strlen(ts->within));
	} else {
		snprintf(base, sizeof base, "%s", ts->root);
	}
	compiler_version(cc, res->compiler, sizeof res->compiler, tmpdir, &lim);

	/* The flags string recorded in the descriptor: exactly what was passed (observed: what the shim got). */
	for (int i = 0; i < res->flags.n; i++) {
		if (pi && i == res->nprofile)
			for (int k = 0; k < unit_flags[pi->nunits].n; k++)
				append_flag(res->cflags, sizeof res->cflags, unit_flags[pi->nunits].v[k].flag);
		append_flag(res->cflags, sizeof res->cflags, res->flags.v[i].flag);
	}
	if (pi && res->nprofile == res->flags.n)
		for (int k = 0; k < unit_flags[pi->nunits].n; k++)
			append_flag(res->cflags, sizeof res->cflags, unit_flags[pi->nunits].v[k].flag);
	/* Every observed flag once, with the first compile that had it, for the notes and the record. */
	for (int u = 0; pi && u <= pi->nunits; u++)
		for (int k = 0; k < unit_flags[u].n; k++) {
			int seen = 0;
			for (int j = 0; j < res->observed_flags.n && !seen; j++)
				seen = strcmp(res->observed_flags.v[j].flag, unit_flags[u].v[k].flag) == 0;
			if (!seen)
				flag_list_add(&res->observed_flags, unit_flags[u].v[k].flag, unit_flags[u].v[k].origin);
		}
	for (int i = 0; i < res->observed_flags.n; i++)
		notes_add(res, "flags: %s <- %s", res->observed_flags.v[i].flag, res->observed_flags.v[i].origin);
	append_flag(res->cflags, sizeof res->cflags, "-g -fPIC");
	res->downgraded = 1;

	notes_add(res, "api: %s %s (header %s)", tree_api_name(ts->api),
	          ts->kind == TREE_KIND_SIG ? "signature" : "KEM", ts->header);
	if (ts->nist_in_ngcc)
		notes_add(res, "api: tree also ships api.h; the NGCC API wins");
	for (int i = 0; i < res->flags.n; i++)
		notes_add(res, "flags: %s <- %s", res->flags.v[i].flag, res->flags.v[i].origin);
	notes_add(res, "flags: -g -fPIC <- pqprof (symbols and debug info are always kept)");
	notes_add(res, "flags: implicit declarations, incompatible pointer types, int conversions and implicit int downgraded to warnings <- pqprof");
	if (opt->flags_origin && opt->extra_cflags && *opt->extra_cflags)
		notes_add(res, "flags: %s <- %s (%s)", opt->extra_cflags, opt->flags_origin,
		          opt->trust_flags ? "trusted with --trust-flags" : "checked: no flag that runs programs or loads code");
	if (!opt->no_tree_flags && !opt->trust_flags)
		notes_add(res, "flags: the tree's build files' flags were checked: no flag that runs programs or loads code");
	notes_add(res, "containment: compilers %s; limits %.0f s and %llu MiB per compiler process",
	          contain_caps()->summary, lim.timeout_s, lim.as_limit >> 20);
	if (lim.workdir)
		notes_add(res, "containment: the tree is below a private directory: compilers reach it from %s", ts->within);
	else if (contain_caps()->drop_uid && !lim.as_user)
		notes_add(res, "containment: the tree is readable only by the caller: compilers keep the caller's uid");
	if (pi) {
		for (int i = 0; i < pi->nunits; i++)
			notes_add(res, "kept: %s (as the build compiled it%s)", pi->units[i].rel,
			          unit_flags[i].n ? ", with its own flags" : "");
		notes_add(res, "left out: %s: the KAT driver (the harness drives the instance)", pi->driver);
		for (int i = 0; i < pi->nlibs; i++)
			notes_add(res, "linked: %s <- observed: link of %s", pi->libs[i], pi->program);
	} else {
		notes_add(res, "plan: the tree's build files were read, not run: %s", res->plan_how);
		for (int i = 0; i < ts->nfiles; i++) {
			const struct tree_file *f = &ts->files[i];
			if (f->keep)
				notes_add(res, "kept: %s", f->rel);
			else
				notes_add(res, "left out: %s: %s", f->rel, f->reason);
		}
	}
	if (ts->api == TREE_API_NGCC && ts->drng_header[0])
		notes_add(res, "shim: declares drng_algorithm and defines it weakly (the left-out KAT driver defines it; "
		          "a definition in the tree wins)");
	if (ts->api == TREE_API_NGCC && !(ts->drng_header[0] && ts->has_init_random_number))
		notes_add(res, "shim: no drng.h/init_random_number in the tree: the harness cannot seed this instance");
	if (ts->api == TREE_API_NIST)
		notes_add(res, "shim: defines randombytes(), fed by the harness's AES-256 CTR_DRBG");

	/* Shim and the ABI header it includes. */
	char shim_path[PATH_MAX], abi_path[PATH_MAX];
	snprintf(shim_path, sizeof shim_path, "%s/pqprof_shim.c", tmpdir);
	snprintf(abi_path, sizeof abi_path, "%s/pqprof_abi.h", tmpdir);
	struct shim_meta meta = {
		.compiler = res->compiler, .profile = prof->name, .cflags = res->cflags,
		.notes = res->notes, .fallback_name = base_name(ts->root),
		.driver_includes = pi && ts->api == TREE_API_NIST ? pi->includes : NULL,
		.ndriver_includes = pi && ts->api == TREE_API_NIST ? pi->nincludes : 0,
	};
	r = atomic_write(abi_path, pq_abi_header_text, strlen(pq_abi_header_text), err);
	FILE *sf = r == 0 ? fopen(shim_path, "w") : NULL;
	if (r == 0 && !sf)
		r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	if (sf) {
		r = shim_write(sf, ts, &meta, err);
		if (fclose(sf) != 0 && r == 0)
			r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	}

	/* One compile command per unit, the shim (and the driver's weak objects) last. */
	char weak_path[PATH_MAX] = "";
	if (r == 0 && pi && pi->driver_obj[0] && write_weak_objects(pi->driver_obj, tmpdir, weak_path, sizeof weak_path) > 0)
		notes_add(res, "shim: the objects %s defines are defined weakly too (%s)", pi->driver, weak_path);
	int total = pi ? pi->nunits : ts->nfiles;
	int nunits = 2;
	for (int i = 0; i < total; i++)
		nunits += pi ? 1 : ts->files[i].keep;
	struct argv_buf *cmds = calloc((size_t)nunits, sizeof *cmds);
	char **logs = calloc((size_t)nunits, sizeof *logs);
	const char **names = calloc((size_t)nunits, sizeof *names);
	struct argv_buf link = { 0 };
	av_push(&link, cc);
	/* Code generation flags matter at link time too (-flto, -m...); -D, -U, -I and -std do not. */
	for (int i = 0; i < res->flags.n; i++) {
		const char *f = res->flags.v[i].flag;
		if (strncmp(f, "-D", 2) != 0 && strncmp(f, "-U", 2) != 0 && strncmp(f, "-I", 2) != 0 &&
		    strncmp(f, "-std=", 5) != 0)
			av_push(&link, f);
	}
	for (int i = 0; pi && i < pi->link_flags.n; i++)
		av_push(&link, pi->link_flags.v[i].flag);
	av_push(&link, "-g");
	av_push(&link, "-shared");
	/*
	 * Linked in the build directory (the compiler's uid may not write beside
	 * the target), copied beside the target and renamed: a failed build
	 * leaves no half library.
	 */
	char tmp_out[PATH_MAX] = "", linked[PATH_MAX] = "";
	if (r == 0)
		r = path_fmt(tmp_out, sizeof tmp_out, err, "%s.tmp.%ld", opt->out_path, (long)getpid());
	if (r == 0)
		r = path_fmt(linked, sizeof linked, err, "%s/instance.so", tmpdir);
	if (r == 0)
		interrupt_track_tmp(tmp_out, 0);
	av_push(&link, "-o");
	av_push(&link, linked);
	json_t *ccdb = json_array();
	int u = 0;
	for (int i = 0; i <= total + 1 && r == 0; i++) {
		int shim = i == total, weak = i == total + 1;
		if (weak && !weak_path[0])
			continue;
		if (!shim && !weak && !pi && !ts->files[i].keep)
			continue;
		char src[PATH_MAX], obj[PATH_MAX], log[PATH_MAX];
		r = shim ? path_fmt(src, sizeof src, err, "%s", shim_path)
		    : weak ? path_fmt(src, sizeof src, err, "%s", weak_path)
		    : pi ? path_fmt(src, sizeof src, err, "%s", pi->units[i].src)
		         : path_fmt(src, sizeof src, err, "%s/%s", base, ts->files[i].rel);
		if (r < 0)
			break;
		snprintf(obj, sizeof obj, "%s/u%04d.o", tmpdir, u);
		snprintf(log, sizeof log, "%s/u%04d.log", tmpdir, u);
		av_push(&cmds[u], cc);
		if (pi)
			push_observed(&cmds[u], res, shim || weak ? &unit_flags[pi->nunits] : &unit_flags[i], ts, base, shim);
		else
			push_common(&cmds[u], &res->flags, ts, base);
		if (shim)
			av_pushf(&cmds[u], "-I%s", tmpdir);
		av_push(&cmds[u], "-c");
		av_push(&cmds[u], src);
		av_push(&cmds[u], "-o");
		av_push(&cmds[u], obj);
		logs[u] = strdup(log);
		names[u] = shim ? "generated shim" : weak ? "generated weak objects" : pi ? pi->units[i].rel : ts->files[i].rel;
		if (!shim && !weak)
			ccdb_add(ccdb, &cmds[u], pi ? pi->units[i].cwd : ts->root, src, base, ts->root);
		av_push(&link, obj);
		u++;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = opt->jobs > 0 ? opt->jobs : (ncpu > 0 ? (int)ncpu : 1);
	if (r == 0)
		r = run_units(cmds, logs, names, u, jobs, "compilation", &lim, base, tmpdir, err);
	if (r == 0) {
		char **lw = NULL;
		int ln = 0;
		split_words(opt->ldflags, &lw, &ln);
		/* Unresolved symbols are a build error here, not a load error later. */
		av_push(&link, "-Wl,-z,defs");
		for (int i = 0; i < ln; i++)
			av_push(&link, lw[i]);
		for (int i = 0; pi && i < pi->nlibs; i++)
			av_push(&link, pi->libs[i]);
		av_push(&link, "-lm");
		free_words(lw, ln);
		if (ln > 0)
			notes_add(res, "containment: linked as the calling user (libraries from --ldflags)");
		char log[PATH_MAX];
		snprintf(log, sizeof log, "%s/link.log", tmpdir);
		char *logp = log;
		const char *lname = opt->out_path;
		/*
		 * Libraries named with --ldflags are the user's own and may sit in
		 * directories only the user can read: then the link (contained,
		 * limited, reading only objects and those libraries) keeps the
		 * caller's uid.
		 */
		struct cc_limits link_lim = lim;
		if (ln > 0)
			link_lim.as_user = 0;
		r = run_units(&link, &logp, &lname, 1, 1, "linking", &link_lim, base, tmpdir, err);
		if (r < 0)
			explain_missing_library(res, err);
		if (r == 0)
			r = copy_file(linked, tmp_out, err);
		if (r == 0 && rename(tmp_out, opt->out_path) != 0)
			r = pq_fail_errno(err, PQ_EIO, "%s: cannot move the library into place", opt->out_path);
		if (r < 0)
			unlink(tmp_out);
	}
	interrupt_untrack_tmp(tmp_out);
	if (r < 0 && !pi && plan && plan->missing_tool[0]) {
		/* The reader could not stand in for the build it needs: name the missing tool first. */
		pq_error_prefix(err, "%s; the build files were read instead, and the build failed: ", plan->why);
		snprintf(res->verdict, sizeof res->verdict, "%s not found", plan->missing_tool);
	}
	if (r == 0)
		r = write_ccdb(opt, ccdb, res, err);
	json_decref(ccdb);
	free_unit_flags(unit_flags, pi);
	for (int i = 0; i < nunits; i++) {
		av_free(&cmds[i]);
		free(logs[i]);
	}
	free(cmds);
	free(logs);
	free(names);
	av_free(&link);
	remove_tree(tmpdir);
	interrupt_untrack_tmp(tmpdir);
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
