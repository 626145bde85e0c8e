/* build_compile: the compile and link stages of instance_build; see build_stage.h. */
#include "config.h"
#include "instance/build_stage.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "core/interrupt.h"
#include "instance/shim.h"
#include "instance/link_scope.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* What pqprof adds to every unit: -g -fPIC, the binding form's flags, the old-C downgrades. */
static void push_pqprof_flags(struct argv_buf *a, enum link_scope scope)
{
	av_push(a, "-g");
	av_push(a, "-fPIC");
	for (const char *const *f = link_scope_cflags(scope); *f; f++)
		av_push(a, *f);
	for (int i = 0; build_downgrades[i]; i++)
		av_push(a, build_downgrades[i]);
}

/* Common compiler flags: the assembled list (profile, tree, user, -D), -g -fPIC, includes. */
static void push_common(struct argv_buf *a, const struct flag_list *fl, const struct tree_scan *ts, const char *base,
                        enum link_scope scope)
{
	for (int i = 0; i < fl->n; i++) {
		/* -I from the tree's build files are relative to the tree */
		if (strncmp(fl->v[i].flag, "-I", 2) == 0 && fl->v[i].flag[2] != '/' && strncmp(fl->v[i].origin, "tree ", 5) == 0)
			av_pushf(a, "-I%s/%s", base, fl->v[i].flag + 2);
		else
			av_push(a, fl->v[i].flag);
	}
	push_pqprof_flags(a, scope);
	av_pushf(a, "-I%s", base);
	for (int i = 0; i < ts->nincdirs; i++)
		if (strcmp(ts->incdirs[i], ".") != 0)
			av_pushf(a, "-I%s/%s", base, ts->incdirs[i]);
	/* Reached through the working directory: debug info and __FILE__ keep the real paths. */
	if (strcmp(base, ts->root) != 0)
		av_pushf(a, "-ffile-prefix-map=/proc/self/cwd=%s", ts->within);
}

/* Observed units: the profile, the unit's own observed flags, then the user's; -g -fPIC; the copy's paths shown as the tree's. */
static void push_observed(struct argv_buf *a, const struct build_result *res, const struct flag_list *unit,
                          const struct tree_scan *ts, const char *copy, int shim, enum link_scope scope)
{
	for (int i = 0; i < res->nprofile; i++)
		av_push(a, res->flags.v[i].flag);
	for (int i = 0; i < unit->n; i++)
		av_push(a, unit->v[i].flag);
	for (int i = res->nprofile; i < res->flags.n; i++)
		av_push(a, res->flags.v[i].flag);
	push_pqprof_flags(a, scope);
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
	int fd = open_regular(obj);
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

/* A temporary directory for objects, logs and the shim: shared with the contained compilers, removed on interrupt. */
static int make_build_dir(struct build_ctx *b, pq_error *err)
{
	snprintf(b->tmpdir, sizeof b->tmpdir, "/tmp/pqprof-build.XXXXXX");
	if (!mkdtemp(b->tmpdir)) {
		b->tmpdir[0] = '\0';
		return pq_fail_errno(err, PQ_EIO, "cannot create a temporary build directory");
	}
	contain_share_dir(b->tmpdir); /* compilers write their objects here */
	interrupt_track_tmp(b->tmpdir, 1);
	return 0;
}

/* Each compiler's time and memory: the build options', else PQPROF_CC_MEMORY_MB for memory, else the defaults. */
static void set_compiler_limits(struct build_ctx *b)
{
	const struct build_options *opt = b->opt;
	b->lim = (struct cc_limits){ .timeout_s = opt->cc_timeout_s > 0 ? opt->cc_timeout_s : CC_DEFAULT_TIMEOUT_S,
	                             .as_limit = opt->cc_as_limit ? opt->cc_as_limit : CC_DEFAULT_AS_LIMIT };
	const char *mem_env = getenv("PQPROF_CC_MEMORY_MB");
	if (!opt->cc_as_limit && mem_env && atoll(mem_env) > 0)
		b->lim.as_limit = (unsigned long long)atoll(mem_env) << 20;
}

/*
 * Compile as the unprivileged user when it can read the tree (it always
 * can read the build directory), judged by the first kept file.  A tree
 * below a private directory (mode 0700 on the way) is reached from a
 * working directory entered before the uid change.  A tree that is itself
 * private to the caller is compiled with the caller's uid (still in the
 * namespaces, under the limits); the tree scan has already refused
 * includes that leave it.
 */
static void choose_compiler_user(struct build_ctx *b)
{
	const struct tree_scan *ts = &b->res->ts;
	const char *probe = ts->root;
	char first[PATH_MAX];
	for (int i = 0; i < ts->nfiles; i++)
		if (ts->files[i].keep) {
			/* A path too long to hold leaves the tree's root as the probe. */
			int n = snprintf(first, sizeof first, "%s/%s", ts->root, ts->files[i].rel);
			if (n > 0 && (size_t)n < sizeof first)
				probe = first;
			break;
		}
	b->lim.as_user = contain_caps()->drop_uid;
	if (b->lim.as_user && !contain_job_can_read(probe)) {
		struct stat wsb, psb;
		if (stat(ts->within, &wsb) == 0 && (wsb.st_mode & 0005) == 0005 && stat(probe, &psb) == 0 &&
		    (psb.st_mode & 0004))
			b->lim.workdir = ts->within;
		else
			b->lim.as_user = 0;
	}
}

/* Where the compilers read sources: the observed build's copy, the tree through the working directory, or the tree. */
static void choose_base(struct build_ctx *b)
{
	const struct tree_scan *ts = &b->res->ts;
	if (b->pi) {
		/* The observed build's copy holds what its build generated; it is readable by the compilers' uid. */
		snprintf(b->base, sizeof b->base, "%s", b->plan->copy);
		b->lim.workdir = NULL;
		b->lim.as_user = contain_caps()->drop_uid;
	} else if (b->lim.workdir) {
		snprintf(b->base, sizeof b->base, "/proc/self/cwd%s", ts->root + strlen(ts->within));
	} else {
		snprintf(b->base, sizeof b->base, "%s", ts->root);
	}
}

/* The build notes on containment, on each unit kept or left out, and on what the shim does. */
static void note_compile_plan(struct build_ctx *b)
{
	struct build_result *res = b->res;
	const struct tree_scan *ts = &res->ts;
	const struct plan_instance *pi = b->pi;
	build_note(res, "containment: compilers %s; limits %.0f s and %llu MiB per compiler process",
	           contain_caps()->summary, b->lim.timeout_s, b->lim.as_limit >> 20);
	if (b->lim.workdir)
		build_note(res, "containment: the tree is below a private directory: compilers reach it from %s", ts->within);
	else if (contain_caps()->drop_uid && !b->lim.as_user)
		build_note(res, "containment: the tree is readable only by the caller: compilers keep the caller's uid");
	if (pi) {
		for (int i = 0; i < pi->nunits; i++)
			build_note(res, "kept: %s (as the build compiled it%s)", pi->units[i].rel,
			           b->unit_flags[i].n ? ", with its own flags" : "");
		build_note(res, "left out: %s: the KAT driver (the harness drives the instance)", pi->driver);
		if (pi->left_out[0])
			build_note(res, "left out: %s", pi->left_out);
		for (int i = 0; i < pi->nlibs; i++)
			build_note(res, "linked: %s <- observed: link of %s", pi->libs[i], pi->program);
	} else {
		build_note(res, "plan: the tree's build files were read, not run: %s", res->plan_how.s ? res->plan_how.s : "");
		for (int i = 0; i < ts->nfiles; i++) {
			const struct tree_file *f = &ts->files[i];
			if (f->keep)
				build_note(res, "kept: %s", f->rel);
			else
				build_note(res, "left out: %s: %s", f->rel, f->reason);
		}
	}
	if (ts->api == TREE_API_NGCC && ts->drng_header[0])
		build_note(res, "shim: declares drng_algorithm and defines it weakly (the left-out KAT driver defines it; "
		           "a definition in the tree wins)");
	if (ts->api == TREE_API_NGCC && !(ts->drng_header[0] && ts->has_init_random_number))
		build_note(res, "shim: no drng.h/init_random_number in the tree: the harness cannot seed this instance");
	if (ts->api == TREE_API_NIST)
		build_note(res, "shim: defines randombytes(), fed by the harness's AES-256 CTR_DRBG");
}

/*
 * The signature functions the shim calls.  What the header declares is
 * read again from what the KAT driver includes, where the build was
 * observed: that is the header the shim includes.
 */
static int choose_sig_api(struct build_ctx *b, pq_error *err)
{
	struct build_result *res = b->res;
	struct tree_scan *ts = &res->ts;
	const struct plan_instance *pi = b->pi;
	const char *header = ts->header;
	if (ts->api != TREE_API_NIST || ts->kind != TREE_KIND_SIG) {
		if (b->opt->context_hex)
			return pq_fail(err, PQ_EINPUT, "%s: --context is for NIST-API signatures, and this tree is a %s %s",
			               ts->root, tree_api_name(ts->api), ts->kind == TREE_KIND_SIG ? "signature" : "KEM");
		return 0;
	}
	for (int i = 0; pi && i < pi->nincludes; i++) {
		char *text = NULL;
		struct nist_sig_decls d;
		int rr = read_whole_file(pi->includes[i], &text, NULL, 1u << 20, NULL);
		if (rr == -PQ_ENOMEM)
			return pq_fail(err, PQ_ENOMEM, "%s: out of memory reading the signature API of %s", ts->root,
			               pi->includes[i]);
		if (rr < 0)
			continue;
		int found = tree_nist_sig_decls(text, &d);
		free(text);
		if (found < 0)
			return pq_fail(err, PQ_ENOMEM, "%s: out of memory reading the signature API of %s", ts->root,
			               pi->includes[i]);
		if (found > 0) {
			ts->sig = d;
			header = path_base(pi->includes[i]);
			break;
		}
	}
	if (b->opt->context_hex && !ts->sig.context)
		return pq_fail(err, PQ_EINPUT,
		               "%s: --context, but %s declares no %scrypto_sign_ctx and %scrypto_sign_open_ctx, nor a "
		               "crypto_sign taking (ctx, ctxlen) (the context-string API)", ts->root, header, ts->sig.prefix,
		               ts->sig.prefix);
	b->sig_context = ts->sig.context && (!ts->sig.plain || b->opt->context_hex);
	snprintf(res->sig_api, sizeof res->sig_api, "%s", b->sig_context ? "context" : "plain");
	for (size_t i = 0; b->sig_context && i < b->context_len; i++)
		snprintf(res->context_hex + 2 * i, 3, "%02x", b->context[i]);
	const char *ns = ts->sig.prefix;
	if (ns[0])
		build_note(res, "shim: %s names the API with the prefix %s", header, ns);
	if (!b->sig_context && ts->sig.context)
		build_note(res, "shim: %s declares both %scrypto_sign and %scrypto_sign_ctx: the plain functions are used "
		           "(--context HEX uses the context-string ones)", header, ns, ns);
	else if (b->sig_context && ts->sig.in_plain)
		build_note(res, "shim: %s declares %scrypto_sign and %scrypto_sign_open with a context string (ctx, ctxlen) "
		           "before the key: sign and verify pass %s%s", header, ns, ns,
		           b->context_len ? "the context " : "an empty context", b->context_len ? res->context_hex : "");
	else if (b->sig_context && b->context_len)
		build_note(res, "shim: sign and verify call %scrypto_sign_ctx and %scrypto_sign_open_ctx%s with the "
		           "context %s (%zu bytes)", ns, ns, ts->sig.plain ? "" : " (the only ones declared)",
		           res->context_hex, b->context_len);
	else if (b->sig_context)
		build_note(res, "shim: sign and verify call %scrypto_sign_ctx and %scrypto_sign_open_ctx%s with an empty "
		           "context", ns, ns, ts->sig.plain ? "" : " (the only ones declared)");
	return 0;
}

/* The shim (its path in shim_path) and the ABI header it includes, in the temporary directory. */
static int write_shim(struct build_ctx *b, char *shim_path, size_t len, pq_error *err)
{
	struct build_result *res = b->res;
	const struct tree_scan *ts = &res->ts;
	const struct plan_instance *pi = b->pi;
	char abi_path[PATH_MAX];
	snprintf(shim_path, len, "%s/pqprof_shim.c", b->tmpdir);
	snprintf(abi_path, sizeof abi_path, "%s/pqprof_abi.h", b->tmpdir);
	struct shim_meta meta = {
		.compiler = res->compiler, .profile = b->prof->name, .cflags = res->cflags.s,
		.notes = res->notes.s, .fallback_name = path_base(ts->root),
		.driver_includes = pi && ts->api == TREE_API_NIST ? pi->includes : NULL,
		.ndriver_includes = pi && ts->api == TREE_API_NIST ? pi->nincludes : 0,
		.sig_context = b->sig_context, .sig_context_in_plain = ts->sig.in_plain, .context = b->context,
		.context_len = b->context_len,
	};
	int r = build_texts_check(res, err); /* the library records them whole */
	if (r == 0)
		r = atomic_write(abi_path, pq_abi_header_text, strlen(pq_abi_header_text), err);
	FILE *sf = r == 0 ? fopen(shim_path, "w") : NULL;
	if (r == 0 && !sf)
		r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	if (sf) {
		r = shim_write(sf, ts, &meta, err);
		if (fclose(sf) != 0 && r == 0)
			r = pq_fail_errno(err, PQ_EIO, "%s", shim_path);
	}
	return r;
}

/* The compile commands of one stage, in the parallel arrays run_units takes. */
struct unit_cmds {
	struct argv_buf *cmds;
	char **logs;
	const char **names;
	const char **cwds;    /* where each compiler runs; NULL: the base */
	int cap, n;
};

static void unit_cmds_free(struct unit_cmds *uc)
{
	for (int i = 0; uc->cmds && uc->logs && i < uc->cap; i++) {
		av_free(&uc->cmds[i]);
		free(uc->logs[i]);
	}
	free(uc->cmds);
	free(uc->logs);
	free(uc->names);
	free(uc->cwds);
}

/*
 * Unit i's compile command: i < total is a tree unit (observed, or kept
 * by the tree scan), total the shim, total + 1 the driver's weak objects.
 * Tree units go to the compile_commands.json too; every object to the link.
 */
static int add_unit(struct build_ctx *b, struct unit_cmds *uc, int i, int total, const char *shim_path,
                    const char *weak_path, pq_error *err)
{
	struct build_result *res = b->res;
	const struct tree_scan *ts = &res->ts;
	const struct plan_instance *pi = b->pi;
	int shim = i == total, weak = i == total + 1, u = uc->n;
	char src[PATH_MAX], obj[PATH_MAX], log[PATH_MAX];
	int r = shim ? path_fmt(src, sizeof src, err, "%s", shim_path)
	        : weak ? path_fmt(src, sizeof src, err, "%s", weak_path)
	        : pi ? path_fmt(src, sizeof src, err, "%s", pi->units[i].src)
	             : path_fmt(src, sizeof src, err, "%s/%s", b->base, ts->files[i].rel);
	if (r < 0)
		return r;
	snprintf(obj, sizeof obj, "%s/u%04d.o", b->tmpdir, u);
	snprintf(log, sizeof log, "%s/u%04d.log", b->tmpdir, u);
	av_push(&uc->cmds[u], b->cc);
	if (pi)
		push_observed(&uc->cmds[u], res, shim || weak ? &b->unit_flags[pi->nunits] : &b->unit_flags[i], ts, b->base,
		              shim, build_link_scope(b->opt));
	else
		push_common(&uc->cmds[u], &res->flags, ts, b->base, build_link_scope(b->opt));
	if (shim)
		av_pushf(&uc->cmds[u], "-I%s", b->tmpdir);
	av_push(&uc->cmds[u], "-c");
	av_push(&uc->cmds[u], src);
	av_push(&uc->cmds[u], "-o");
	av_push(&uc->cmds[u], obj);
	uc->logs[u] = strdup(log);
	uc->names[u] = shim ? "generated shim" : weak ? "generated weak objects" : pi ? pi->units[i].rel : ts->files[i].rel;
	/* Observed units compile where the tree's build compiled them. */
	uc->cwds[u] = pi && !shim && !weak ? pi->units[i].cwd : NULL;
	if (!shim && !weak)
		ccdb_add(b->ccdb, &uc->cmds[u], pi ? pi->units[i].cwd : ts->root, src, b->base, ts->root);
	av_push(&b->objects, obj);
	uc->n++;
	return 0;
}

/* One contained compiler per unit, `jobs` at a time: the tree's units, the shim (and the driver's weak objects) last. */
static int compile_units(struct build_ctx *b, const char *shim_path, const char *weak_path, pq_error *err)
{
	int r = 0;
	const struct tree_scan *ts = &b->res->ts;
	const struct plan_instance *pi = b->pi;
	int total = pi ? pi->nunits : ts->nfiles;
	struct unit_cmds uc = { .cap = 2 };
	for (int i = 0; i < total; i++)
		uc.cap += pi ? 1 : ts->files[i].keep;
	uc.cmds = calloc((size_t)uc.cap, sizeof *uc.cmds);
	uc.logs = calloc((size_t)uc.cap, sizeof *uc.logs);
	uc.names = calloc((size_t)uc.cap, sizeof *uc.names);
	uc.cwds = calloc((size_t)uc.cap, sizeof *uc.cwds);
	if (!uc.cmds || !uc.logs || !uc.names || !uc.cwds)
		r = pq_fail(err, PQ_ENOMEM, "out of memory");
	b->ccdb = json_array();
	for (int i = 0; i <= total + 1 && r == 0; i++) {
		if (i == total + 1 && !weak_path[0])
			continue;
		if (i < total && !pi && !ts->files[i].keep)
			continue;
		r = add_unit(b, &uc, i, total, shim_path, weak_path, err);
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = b->opt->jobs > 0 ? b->opt->jobs : (ncpu > 0 ? (int)ncpu : 1);
	if (r == 0)
		r = av_check(&b->objects, err);
	if (r == 0)
		r = run_units(uc.cmds, uc.logs, uc.names, uc.cwds, uc.n, jobs, "compilation", &b->lim, b->base, b->tmpdir,
		              err);
	unit_cmds_free(&uc);
	return r;
}

/*
 * The compile stage: a temporary directory for objects, the compilers'
 * limits and uid, the notes on what is compiled, the shim, and one
 * contained compiler per unit (`jobs` at a time).
 */
int stage_compile(struct build_ctx *b, pq_error *err)
{
	struct build_result *res = b->res;
	const struct plan_instance *pi = b->pi;
	int r = make_build_dir(b, err);
	if (r < 0)
		return r;
	set_compiler_limits(b);
	choose_compiler_user(b);
	choose_base(b);
	if (compiler_version(b->cc, res->compiler, sizeof res->compiler, b->tmpdir, &b->lim, err) < 0)
		return -PQ_ENOMEM;
	note_compile_plan(b);
	r = choose_sig_api(b, err);
	if (r < 0)
		return r;
	char shim_path[PATH_MAX], weak_path[PATH_MAX] = "";
	r = write_shim(b, shim_path, sizeof shim_path, err);
	if (r < 0)
		return r;
	if (pi && pi->driver_obj[0] && write_weak_objects(pi->driver_obj, b->tmpdir, weak_path, sizeof weak_path) > 0)
		build_note(res, "shim: the objects %s defines are defined weakly too (%s)", pi->driver, weak_path);
	return compile_units(b, shim_path, weak_path, err);
}

/*
 * The link stage: one shared library from the objects, with the
 * libraries the submitter's link took (-lgmp) and unresolved symbols an
 * error here rather than at load time; linked in the temporary directory
 * (the compilers' uid may not write beside the target), copied beside the
 * target and renamed, so a failed build leaves no half library.
 */
int stage_link(struct build_ctx *b, pq_error *err)
{
	const struct build_options *opt = b->opt;
	struct build_result *res = b->res;
	const struct plan_instance *pi = b->pi;
	struct argv_buf link = { 0 };
	av_push(&link, b->cc);
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
	for (const char *const *f = link_scope_ldflags(build_link_scope(opt)); *f; f++)
		av_push(&link, *f);
	char tmp_out[PATH_MAX] = "", linked[PATH_MAX] = "";
	int r = path_fmt(tmp_out, sizeof tmp_out, err, "%s.tmp.%ld", opt->out_path, (long)getpid());
	if (r == 0)
		r = path_fmt(linked, sizeof linked, err, "%s/instance.so", b->tmpdir);
	if (r == 0)
		interrupt_track_tmp(tmp_out, 0);
	av_push(&link, "-o");
	av_push(&link, linked);
	for (int i = 0; i < b->objects.n; i++)
		av_push(&link, b->objects.v[i]);
	if (r == 0) {
		char **lw = NULL;
		int ln = 0;
		r = split_words(opt->ldflags, &lw, &ln, err);
		/* Unresolved symbols are a build error here, not a load error later. */
		av_push(&link, "-Wl,-z,defs");
		for (int i = 0; i < ln; i++)
			av_push(&link, lw[i]);
		for (int i = 0; pi && i < pi->nlibs; i++)
			av_push(&link, pi->libs[i]);
		av_push(&link, "-lm");
		free_words(lw, ln);
		if (ln > 0)
			build_note(res, "containment: linked as the calling user (libraries from --ldflags)");
		char log[PATH_MAX];
		snprintf(log, sizeof log, "%s/link.log", b->tmpdir);
		char *logp = log;
		const char *lname = opt->out_path;
		/*
		 * Libraries named with --ldflags are the user's own and may sit in
		 * directories only the user can read: then the link (contained,
		 * limited, reading only objects and those libraries) keeps the
		 * caller's uid.
		 */
		struct cc_limits link_lim = b->lim;
		if (ln > 0)
			link_lim.as_user = 0;
		/* The linker names sources by their debug-info paths: the tree's, not the copy's. */
		if (r == 0)
			r = run_units(&link, &logp, &lname, NULL, 1, 1, "linking", &link_lim, res->ts.root, b->tmpdir, err);
		if (r < 0)
			explain_missing_library(res, err);
		if (r == 0)
			r = copy_file_mode(linked, tmp_out, 0755, err);
		if (r == 0 && rename(tmp_out, opt->out_path) != 0)
			r = pq_fail_errno(err, PQ_EIO, "%s: cannot move the library into place", opt->out_path);
		if (r < 0)
			unlink(tmp_out);
	}
	interrupt_untrack_tmp(tmp_out);
	av_free(&link);
	if (r == 0)
		r = write_ccdb(opt, b->ccdb, res, err);
	return r;
}

void stage_cleanup(struct build_ctx *b)
{
	for (int i = 0; b->unit_flags && b->pi && i <= b->pi->nunits; i++)
		flag_list_free(&b->unit_flags[i]);
	free(b->unit_flags);
	b->unit_flags = NULL;
	av_free(&b->objects);
	json_decref(b->ccdb);
	b->ccdb = NULL;
	if (b->tmpdir[0] && getenv("PQPROF_KEEP_BUILD") && *getenv("PQPROF_KEEP_BUILD")) {
		/* Kept for inspection: objects, the shim, each compiler's and the linker's log. */
		fprintf(stderr, "pqprof: build directory kept (PQPROF_KEEP_BUILD): %s\n", b->tmpdir);
		interrupt_untrack_tmp(b->tmpdir);
		b->tmpdir[0] = '\0';
	}
	if (b->tmpdir[0]) {
		remove_tree(b->tmpdir);
		interrupt_untrack_tmp(b->tmpdir);
		b->tmpdir[0] = '\0';
	}
}
