/*
 * observe_model: the wrapper's log read into a model of the build.  Each
 * record (tool, working directory, argv) becomes a compile (a unit with
 * its flags), an archive or a link; outputs are traced back to the units
 * in them, and each link of a KAT driver becomes an instance of the plan:
 * its units (less the driver, C++ and, for NIST trees, what defines
 * randombytes()), the driver's flags and includes, and the libraries it
 * took from outside the tree.  Naming the instances is observe_name.c's.
 */
#include "config.h"
#include "instance/observe_int.h"
#include "core/atomic_file.h"
#include "core/contain.h"
#include "core/fixed_str.h"
#include "core/text_buf.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "instance/tool_run.h"
#include "instance/flag_list.h"
#include "instance/kat_drivers.h"
#include "instance/tree_scan.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int defines_randombytes(const char *src);

/*
 * Absolute, normalised path of `p` seen from `cwd` (no symlinks
 * resolved).  "" when it does not fit (as path_fmt leaves it): a cut path
 * would name another file.
 */
static void abs_path(const char *cwd, const char *p, char *out, size_t len)
{
	char buf[PATH_MAX * 2];
	int whole = snprintf(buf, sizeof buf, "%s%s%s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/", p) <
	            (int)sizeof buf;
	out[0] = '\0';  /* after reading p and cwd: out may be either */
	if (!whole)
		return;
	/* Collapse //, /./ and /../ */
	char *parts[512];
	int np = 0;
	for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (np == 512)
			return;  /* more components than kept: "", as for a path too long */
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0) {
			if (np > 0)
				np--;
			continue;
		}
		parts[np++] = t;
	}
	for (int i = 0; i < np; i++)
		if (text_appendf(out, len, "/%s", parts[i]) < 0) {
			out[0] = '\0';
			return;
		}
	if (np == 0)
		snprintf(out, len, "/");
}

/* ---- the wrapper's records ---- */

/*
 * Set when memory ran out while the log was read: the model would lack
 * what did not fit, so the plan is refused rather than made shorter.
 */
static int out_of_memory;

void obs_model_note_out_of_memory(void)
{
	out_of_memory = 1;
}

int obs_read_file(const char *path, char **text, size_t *len, size_t max)
{
	int r = read_whole_file(path, text, len, max, NULL);
	if (r == -PQ_ENOMEM)
		obs_model_note_out_of_memory();
	return r;
}

int obs_model_out_of_memory(void)
{
	int r = out_of_memory;
	out_of_memory = 0;
	return r;
}

/* A tool invocation the wrapper recorded. */
struct rec {
	int status;
	char *tool;
	char *cwd;
	char **argv;
	int argc;
};

static char *unescape_field(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			o[k++] = c == 't' ? '\t' : c == 'n' ? '\n' : c;
		} else {
			o[k++] = s[i];
		}
	}
	o[k] = '\0';
	return o;
}

static void rec_free(struct rec *r)
{
	free(r->tool);
	free(r->cwd);
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
}

/* One log line into a record; -1 when malformed. */
static int parse_rec(char *line, struct rec *r)
{
	memset(r, 0, sizeof *r);
	char *fields[4096];
	int nf = 0;
	char *p = line;
	fields[nf++] = p;
	for (; *p && nf < 4096; p++)
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '\t') {
			*p = '\0';
			fields[nf++] = p + 1;
		}
	if (nf < 3)
		return -1;
	r->status = atoi(fields[0]);
	r->tool = unescape_field(fields[1], strlen(fields[1]));
	r->cwd = unescape_field(fields[2], strlen(fields[2]));
	r->argc = nf - 3;
	r->argv = calloc((size_t)r->argc + 1, sizeof *r->argv);
	if (!r->argv)
		r->argc = 0;
	int whole = r->tool && r->cwd && r->argv;
	for (int i = 0; i < r->argc; i++)
		if (!(r->argv[i] = unescape_field(fields[3 + i], strlen(fields[3 + i]))))
			whole = 0;
	if (!whole)
		out_of_memory = 1; /* a record is not dropped for lack of memory: the plan is refused */
	return whole ? 0 : -1;
}

static int is_compiler(const char *tool)
{
	if (strstr(tool, "-ar") || strstr(tool, "-nm") || strstr(tool, "-ranlib"))
		return 0;
	return strcmp(tool, "cc") == 0 || strcmp(tool, "c++") == 0 || strstr(tool, "gcc") || strstr(tool, "g++") ||
	       strstr(tool, "clang");
}

static int is_archiver(const char *tool)
{
	return strcmp(tool, "ar") == 0 || strstr(tool, "-ar") != NULL;
}

static int has_ext(const char *p, const char *const *exts)
{
	const char *dot = strrchr(path_base(p), '.');
	if (!dot)
		return 0;
	for (int i = 0; exts[i]; i++)
		if (strcmp(dot, exts[i]) == 0)
			return 1;
	return 0;
}

static const char *const c_exts[] = { ".c", ".S", ".s", ".sx", NULL };
static const char *const cxx_exts[] = { ".cc", ".cpp", ".cxx", ".C", ".c++", NULL };

/* Options whose value is the next argument. */
static int takes_value(const char *a)
{
	static const char *const two[] = { "-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote",
		                               "-idirafter", "-MF", "-MT", "-MQ", "-x", "-L", "-l", "-Xlinker",
		                               "-Xassembler", "-Xpreprocessor", "-T", "-u", "-e", "--param",
		                               "-aux-info", "-isysroot", "--sysroot", "-arch", NULL };
	for (int i = 0; two[i]; i++)
		if (strcmp(a, two[i]) == 0)
			return 1;
	return 0;
}

struct cmdline {
	int compile;          /* -c */
	int other;            /* -E, -S, -M without -c: neither compile nor link */
	int shared;
	char out[PATH_MAX];
	char **inputs;        /* sources, objects, archives, libraries, in order (absolute) */
	int ninputs;
	size_t icap;
	char **libs;          /* -lNAME as written */
	int nlibs;
	size_t lcap;
	char **libdirs;       /* -L, absolute */
	int nlibdirs;
	size_t dcap;
	struct flag_list flags, info;
};

static void cmdline_free(struct cmdline *c)
{
	for (int i = 0; i < c->ninputs; i++)
		free(c->inputs[i]);
	free(c->inputs);
	for (int i = 0; i < c->nlibs; i++)
		free(c->libs[i]);
	free(c->libs);
	for (int i = 0; i < c->nlibdirs; i++)
		free(c->libdirs[i]);
	free(c->libdirs);
	flag_list_free(&c->flags);
	flag_list_free(&c->info);
}

static void push_str(char ***v, int *n, size_t *cap, const char *s)
{
	if (pq_grow(v, cap, (size_t)*n + 1, sizeof **v, 8) == 0 && ((*v)[*n] = strdup(s)))
		(*n)++;
	else
		out_of_memory = 1;
}

/* Classify one compiler flag the way the reader does, with -I made absolute and checked against the copy. */
static void keep_flag(struct cmdline *c, const struct obs *ob, const char *flag, const char *cwd, const char *origin)
{
	if (strncmp(flag, "-I", 2) == 0 && flag[2]) {
		char a[PATH_MAX], f[PATH_MAX + 4];
		abs_path(cwd, flag + 2, a, sizeof a);
		snprintf(f, sizeof f, "-I%s", a);
		if (flag_list_add(obs_is_below(a, ob->copy) ? &c->flags : &c->info, f, origin) < 0)
			out_of_memory = 1;
		return;
	}
	int k = tree_flag_kind(flag);
	if ((k == 1 && flag_list_add(&c->flags, flag, origin) < 0) || (k == 2 && flag_list_add(&c->info, flag, origin) < 0))
		out_of_memory = 1;
}

static void parse_cmdline(const struct obs *ob, const struct rec *r, struct cmdline *c, const char *origin)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < r->argc; i++) {
		const char *a = r->argv[i];
		const char *next = i + 1 < r->argc ? r->argv[i + 1] : NULL;
		if (a[0] != '-' || !a[1]) {
			char p[PATH_MAX];
			abs_path(r->cwd, a, p, sizeof p);
			push_str(&c->inputs, &c->ninputs, &c->icap, p);
			continue;
		}
		if (strcmp(a, "-c") == 0)
			c->compile = 1;
		else if (strcmp(a, "-E") == 0 || strcmp(a, "-S") == 0 || strcmp(a, "-M") == 0 || strcmp(a, "-MM") == 0)
			c->other = 1;
		else if (strcmp(a, "-shared") == 0)
			c->shared = 1;
		if (takes_value(a) && next) {
			if (strcmp(a, "-o") == 0)
				abs_path(r->cwd, next, c->out, sizeof c->out);
			else if (strcmp(a, "-I") == 0 || strcmp(a, "-isystem") == 0 || strcmp(a, "-iquote") == 0 ||
			         strcmp(a, "-idirafter") == 0) {
				char f[PATH_MAX + 4];
				snprintf(f, sizeof f, "-I%s", next);
				keep_flag(c, ob, f, r->cwd, origin);
			} else if (strcmp(a, "-D") == 0 || strcmp(a, "-U") == 0) {
				char f[PATH_MAX + 4];
				snprintf(f, sizeof f, "%s%s", a, next);
				keep_flag(c, ob, f, r->cwd, origin);
			} else if (strcmp(a, "-L") == 0) {
				char p[PATH_MAX];
				abs_path(r->cwd, next, p, sizeof p);
				push_str(&c->libdirs, &c->nlibdirs, &c->dcap, p);
			} else if (strcmp(a, "-l") == 0) {
				char f[300];
				snprintf(f, sizeof f, "-l%s", next);
				push_str(&c->libs, &c->nlibs, &c->lcap, f);
			}
			i++;
			continue;
		}
		if (strncmp(a, "-o", 2) == 0)
			abs_path(r->cwd, a + 2, c->out, sizeof c->out);
		else if (strncmp(a, "-L", 2) == 0) {
			char p[PATH_MAX];
			abs_path(r->cwd, a + 2, p, sizeof p);
			push_str(&c->libdirs, &c->nlibdirs, &c->dcap, p);
		} else if (strncmp(a, "-l", 2) == 0)
			push_str(&c->libs, &c->nlibs, &c->lcap, a);
		else if (strncmp(a, "-isystem", 8) == 0 || strncmp(a, "-iquote", 7) == 0) {
			char f[PATH_MAX + 4];
			snprintf(f, sizeof f, "-I%s", a + (a[2] == 's' ? 8 : 7));
			keep_flag(c, ob, f, r->cwd, origin);
		} else if (strcmp(a, "-fPIC") == 0 || strcmp(a, "-fpic") == 0 || strcmp(a, "-fPIE") == 0 ||
		           strcmp(a, "-fpie") == 0)
			; /* pqprof decides position independence */
		else
			keep_flag(c, ob, a, r->cwd, origin);
	}
	if (c->compile && c->other)
		c->other = 0;
}

/* ---- what the build made ---- */

static struct made *made_find(struct made_list *l, const char *path)
{
	for (int i = l->n - 1; i >= 0; i--)
		if (strcmp(l->v[i].path, path) == 0)
			return &l->v[i];
	return NULL;
}

/* The entry for `path`, emptied (a rebuilt output replaces the old one). */
static struct made *made_reset(struct made_list *l, const char *path)
{
	struct made *m = made_find(l, path);
	if (m) {
		m->n = 0;
		for (int i = 0; i < m->nlibs; i++)
			free(m->libs[i]);
		m->nlibs = 0;
		return m;
	}
	if (pq_grow(&l->v, &l->cap, (size_t)l->n + 1, sizeof *l->v, 16) < 0) {
		out_of_memory = 1;
		return NULL;
	}
	m = &l->v[l->n];
	memset(m, 0, sizeof *m);
	if (!(m->path = strdup(path))) {
		out_of_memory = 1;
		return NULL;
	}
	l->n++;
	return m;
}

static void made_add(struct made *m, int unit)
{
	for (int i = 0; i < m->n; i++)
		if (m->units[i] == unit)
			return;
	if (pq_grow(&m->units, &m->cap, (size_t)m->n + 1, sizeof *m->units, 16) == 0)
		m->units[m->n++] = unit;
	else
		out_of_memory = 1;
}

static void made_add_all(struct made *m, const struct made *from)
{
	for (int i = 0; i < from->n; i++)
		made_add(m, from->units[i]);
}

static int add_unit(struct obs *ob, const char *src, const char *cwd, const struct cmdline *c)
{
	if (pq_grow(&ob->units, &ob->ucap, (size_t)ob->nunits + 1, sizeof *ob->units, 32) < 0) {
		out_of_memory = 1;
		return -1;
	}
	struct plan_unit *u = &ob->units[ob->nunits];
	memset(u, 0, sizeof *u);
	u->src = strdup(src);
	u->rel = strdup(obs_is_below(src, ob->copy) ? src + strlen(ob->copy) + 1 : src);
	u->cwd = strdup(cwd);
	u->is_asm = has_ext(src, (const char *const[]){ ".S", ".s", ".sx", NULL });
	for (int i = 0; i < c->flags.n; i++)
		flag_list_add(&u->flags, c->flags.v[i].flag, c->flags.v[i].origin);
	for (int i = 0; i < c->info.n; i++)
		if (flag_list_add(&u->info, c->info.v[i].flag, c->info.v[i].origin) < 0)
			out_of_memory = 1;
	if (!u->src || !u->rel || !u->cwd || u->flags.n != c->flags.n || u->info.n != c->info.n) {
		out_of_memory = 1;
		free(u->src);
		free(u->rel);
		free(u->cwd);
		flag_list_free(&u->flags);
		flag_list_free(&u->info);
		return -1;
	}
	return ob->nunits++;
}

/* Units a link (or an archive of it) holds; external libraries into `libs`. */
static void resolve_link(struct obs *ob, const struct rec *r, const struct cmdline *c, struct made *into)
{
	char origin[PATH_MAX + 300];
	for (int i = 0; i < c->ninputs; i++) {
		const char *in = c->inputs[i];
		struct made *m;
		if (has_ext(in, c_exts)) {
			/* compiled and linked at once: these flags are the unit's */
			snprintf(origin, sizeof origin, "observed: `%s`, compile of %s", ob->target_desc,
			         obs_is_below(in, ob->copy) ? in + strlen(ob->copy) + 1 : in);
			struct cmdline cu;
			parse_cmdline(ob, r, &cu, origin);
			int u = add_unit(ob, in, r->cwd, &cu);
			cmdline_free(&cu);
			if (u >= 0)
				made_add(into, u);
		} else if ((m = made_find(&ob->objs, in)) || (m = made_find(&ob->archives, in)) ||
		           (m = made_find(&ob->shlibs, in))) {
			made_add_all(into, m);
			for (int k = 0; k < m->nlibs; k++)
				push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, m->libs[k]);
		} else if (!obs_is_below(in, ob->copy) && (strstr(in, ".so") || has_ext(in, (const char *const[]){ ".a", NULL }))) {
			push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, in);
		}
	}
	/* -lNAME: an archive or library the build made in a -L directory, else an external library. */
	for (int i = 0; i < c->nlibs; i++) {
		const char *name = c->libs[i] + 2;
		struct made *m = NULL;
		for (int d = 0; d < c->nlibdirs && !m; d++) {
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%s/lib%s.a", c->libdirs[d], name);
			if (!(m = made_find(&ob->archives, p))) {
				snprintf(p, sizeof p, "%s/lib%s.so", c->libdirs[d], name);
				m = made_find(&ob->shlibs, p);
			}
		}
		if (m)
			made_add_all(into, m);
		else
			push_str(&into->libs, &into->nlibs, &(size_t){ (size_t)into->nlibs }, c->libs[i]);
	}
}

/* ---- the instances ---- */

static void copy_flags(struct flag_list *to, const struct flag_list *from)
{
	for (int i = 0; i < from->n; i++)
		if (flag_list_add(to, from->v[i].flag, from->v[i].origin) < 0)
			out_of_memory = 1;
}

static void unit_copy(struct plan_unit *to, const struct plan_unit *from)
{
	memset(to, 0, sizeof *to);
	to->src = strdup(from->src);
	to->rel = strdup(from->rel);
	to->cwd = strdup(from->cwd);
	if (!to->src || !to->rel || !to->cwd)
		out_of_memory = 1;
	to->is_asm = from->is_asm;
	copy_flags(&to->flags, &from->flags);
	copy_flags(&to->info, &from->info);
}

/*
 * The headers the driver includes with quotes, found beside it or on its
 * -I path: the shim and the name probe include them too, since a tree's
 * sizes and name may be defined there rather than in api.h.  The
 * driver's random generator header (rng.h) is left out: the harness
 * supplies randombytes().
 */
static void driver_includes(const struct plan_unit *du, struct plan_instance *pi)
{
	char *text = NULL;
	if (obs_read_file(du->src, &text, NULL, 16u << 20) < 0)
		return;
	char dir[PATH_MAX];
	str_copy(dir, sizeof dir, du->src);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line != '#')
			continue;
		line++;
		while (*line == ' ' || *line == '\t')
			line++;
		char name[PATH_MAX];
		if (strncmp(line, "include", 7) != 0 || sscanf(line + 7, " \"%4095[^\"]\"", name) != 1)
			continue;
		const char *b = path_base(name);
		if (strcmp(b, "rng.h") == 0 || strcmp(b, "randombytes.h") == 0)
			continue;
		char found[PATH_MAX];
		struct stat sb;
		abs_path(dir, name, found, sizeof found);
		for (int i = 0; stat(found, &sb) != 0 && i < du->flags.n; i++)
			if (strncmp(du->flags.v[i].flag, "-I", 2) == 0)
				abs_path(du->flags.v[i].flag + 2, name, found, sizeof found);
		if (stat(found, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		char **nv = realloc(pi->includes, ((size_t)pi->nincludes + 1) * sizeof *nv);
		if (nv)
			pi->includes = nv;
		if (!nv || !(pi->includes[pi->nincludes] = strdup(found))) {
			out_of_memory = 1; /* the shim would miss a header the sizes may be in */
			break;
		}
		pi->nincludes++;
	}
	free(text);
}

/*
 * NIST trees: the KAT generator's random source (rng.c, or a file by
 * another name that defines randombytes(), e.g. randombytes_ctrdrbg.c) is
 * the harness's to supply, through the shim.
 */
/*
 * 1 when the object file defines the global symbol `sym`, 0 when not, -1
 * when it cannot tell: unreadable, or an LTO object (its symbols live in
 * the compiler's intermediate code, not in the ELF symbol table).
 */
static int object_defines(const char *obj, const char *sym)
{
	int fd = open_regular(obj);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int found = e && elf_kind(e) == ELF_K_ELF ? 0 : -1;
	size_t shstr = 0;
	if (found == 0 && elf_getshdrstrndx(e, &shstr) != 0)
		found = -1;
	for (Elf_Scn *s = NULL; found == 0 && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		const char *nm = gelf_getshdr(s, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
		if (nm && strncmp(nm, ".gnu.lto_", 9) == 0)
			found = -1;
	}
	Elf_Scn *scn = NULL;
	while (found == 0 && e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_BIND(s.st_info) != STB_GLOBAL && GELF_ST_BIND(s.st_info) != STB_WEAK))
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			found = name && strcmp(name, sym) == 0;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

/* The object the build compiled unit u into, or NULL (compiled and linked in one command). */
static const char *object_of(const struct obs *ob, int u)
{
	for (int i = 0; i < ob->objs.n; i++)
		for (int k = 0; k < ob->objs.v[i].n; k++)
			if (ob->objs.v[i].units[k] == u)
				return ob->objs.v[i].path;
	return NULL;
}

/*
 * Does the unit's source, preprocessed with its own -D, -U, -I and -std
 * flags in its working directory, define randombytes()?  -1 when it could
 * not be preprocessed.
 */
static int preprocessed_defines_randombytes(const struct obs *ob, const struct plan_unit *pu)
{
	char out[PATH_MAX], log[PATH_MAX];
	snprintf(out, sizeof out, "%s/pqprof-unit.i", ob->root);
	snprintf(log, sizeof log, "%s/pqprof-unit.log", ob->root);
	struct argv_buf av = { 0 };
	av_push(&av, ob->o->cc && *ob->o->cc ? ob->o->cc : "cc");
	av_push(&av, "-E");
	av_push(&av, "-P");
	for (int i = 0; i < pu->flags.n; i++) {
		const char *f = pu->flags.v[i].flag;
		if (strncmp(f, "-D", 2) == 0 || strncmp(f, "-U", 2) == 0 || strncmp(f, "-I", 2) == 0 ||
		    strncmp(f, "-std=", 5) == 0)
			av_push(&av, f);
	}
	av_push(&av, pu->src);
	av_push(&av, "-o");
	av_push(&av, out);
	struct cc_limits lim = { .timeout_s = 60, .as_limit = CC_DEFAULT_AS_LIMIT, .workdir = pu->cwd };
	struct contained ct;
	if (av.oom) {
		av_free(&av);
		out_of_memory = 1;
		return -1;
	}
	pid_t pid = spawn_logged(&ct, av.v, log, &lim);
	av_free(&av);
	if (pid < 0)
		return -1;
	int st = 0, to = 0;
	wait_limited(&ct, &lim, &st, &to);
	interrupt_untrack_pid(pid);
	contain_finish(&ct);
	char *text = NULL;
	int r = -1;
	if (!to && WIFEXITED(st) && WEXITSTATUS(st) == 0 && obs_read_file(out, &text, NULL, 64u << 20) == 0)
		r = source_defines_function(text, "randombytes");
	free(text);
	unlink(out);
	return r;
}

/*
 * Does unit u define randombytes(), the NIST generator the harness
 * supplies?  Its object says, as compiled (a definition under an #ifdef
 * the build left off does not count); without one (compiled and linked in
 * one command, or an LTO object), its source as the build preprocessed it,
 * else its text.
 */
static int unit_defines_randombytes(const struct obs *ob, int u)
{
	const char *obj = object_of(ob, u);
	int r = obj ? object_defines(obj, "randombytes") : -1;
	if (r >= 0 || !defines_randombytes(ob->units[u].src))
		return r > 0;
	r = preprocessed_defines_randombytes(ob, &ob->units[u]);
	return r != 0;
}

static int defines_randombytes(const char *src)
{
	char *text = NULL;
	if (!has_ext(src, (const char *const[]){ ".c", NULL }) || obs_read_file(src, &text, NULL, 64u << 20) < 0)
		return 0;
	int r = source_defines_function(text, "randombytes");
	free(text);
	return r;
}

/* Do two flag lists hold the same -D and -U switches (in any order)? */
static int same_defines(const struct flag_list *a, const struct flag_list *b)
{
	for (int pass = 0; pass < 2; pass++) {
		const struct flag_list *x = pass ? b : a, *y = pass ? a : b;
		for (int i = 0; i < x->n; i++) {
			if (strncmp(x->v[i].flag, "-D", 2) != 0 && strncmp(x->v[i].flag, "-U", 2) != 0)
				continue;
			int found = 0;
			for (int j = 0; j < y->n && !found; j++)
				found = strcmp(x->v[i].flag, y->v[j].flag) == 0;
			if (!found)
				return 0;
		}
	}
	return 1;
}

/* A link of a KAT driver: one instance of the plan. */
static void add_instance(struct obs *ob, const struct cmdline *c, const struct made *linked)
{
	struct build_plan *p = ob->plan;
	int driver = -1;
	for (int i = 0; i < linked->n && driver < 0; i++)
		if (kat_driver_is(path_base(ob->units[linked->units[i]].src)))
			driver = linked->units[i];
	if (driver < 0)
		return;
	char program[256];
	snprintf(program, sizeof program, "%s", obs_is_below(c->out, ob->copy) ? c->out + strlen(ob->copy) + 1 : c->out);
	/*
	 * Linked again with the same driver flags: the last link counts.  The
	 * same program linked with other -D switches (a script that rebuilds
	 * it once per parameter set) is another instance.
	 */
	struct plan_instance *pi = NULL;
	const struct flag_list *df = &ob->units[driver].flags;
	for (int i = 0; i < p->ninst && !pi; i++)
		if (strcmp(p->inst[i].program, program) == 0 && same_defines(&p->inst[i].driver_flags, df))
			pi = &p->inst[i];
	if (pi) {
		for (int i = 0; i < pi->nunits; i++) {
			free(pi->units[i].src);
			free(pi->units[i].rel);
			free(pi->units[i].cwd);
			flag_list_free(&pi->units[i].flags);
			flag_list_free(&pi->units[i].info);
		}
		free(pi->units);
		flag_list_free(&pi->driver_flags);
		flag_list_free(&pi->link_flags);
		for (int i = 0; i < pi->nlibs; i++)
			free(pi->libs[i]);
		free(pi->libs);
		for (int i = 0; i < pi->nincludes; i++)
			free(pi->includes[i]);
		free(pi->includes);
	} else {
		struct plan_instance *nv = realloc(p->inst, ((size_t)p->ninst + 1) * sizeof *nv);
		if (!nv) {
			out_of_memory = 1;
			return;
		}
		p->inst = nv;
		pi = &p->inst[p->ninst++];
	}
	memset(pi, 0, sizeof *pi);
	str_copy(pi->program, sizeof pi->program, program);
	const struct plan_unit *du = &ob->units[driver];
	str_copy(pi->driver, sizeof pi->driver, du->rel);
	copy_flags(&pi->driver_flags, &du->flags);
	driver_includes(du, pi);
	for (int i = 0; i < ob->objs.n; i++)
		for (int k = 0; k < ob->objs.v[i].n; k++)
			if (ob->objs.v[i].units[k] == driver)
				str_copy(pi->driver_obj, sizeof pi->driver_obj, ob->objs.v[i].path);
	pi->units = calloc((size_t)linked->n + 1, sizeof *pi->units);
	if (!pi->units)
		out_of_memory = 1;
	for (int i = 0; i < linked->n && pi->units; i++) {
		const struct plan_unit *u = &ob->units[linked->units[i]];
		const char *b = path_base(u->src);
		if (kat_driver_is(b))
			continue; /* absent or not, the harness drives the instance */
		if (!obs_is_below(u->src, ob->copy)) {
			/* Named as the tree sees it: the copy's parent stands for the tree's. */
			char parent[PATH_MAX];
			str_copy(parent, sizeof parent, p->tree);
			char *sl = strrchr(parent, '/');
			if (sl)
				*sl = '\0';
			const char *cp = strrchr(ob->copy, '/');
			size_t rl = cp ? (size_t)(cp - ob->copy) : 0;
			if (rl && strncmp(u->src, ob->copy, rl) == 0 && u->src[rl] == '/')
				text_add_note(pi->outside, sizeof pi->outside, "%s%s", parent, u->src + rl);
			else
				text_add_note(pi->outside, sizeof pi->outside, "%s", u->src);
			continue;
		}
		if (access(u->src, R_OK) != 0) {
			text_add_note(pi->missing, sizeof pi->missing, "%s", u->rel);
			continue;
		}
		if (has_ext(u->src, cxx_exts)) {
			text_add_note(pi->left_out, sizeof pi->left_out, "%s: C++ (pqprof builds C and assembly)", u->rel);
			continue;
		}
		if (ob->o->api == TREE_API_NIST && unit_defines_randombytes(ob, linked->units[i])) {
			text_add_note(pi->left_out, sizeof pi->left_out, "%s: defines randombytes() (the harness supplies it)", u->rel);
			continue;
		}
		unit_copy(&pi->units[pi->nunits++], u);
	}
	for (int i = 0; i < c->flags.n; i++) {
		const char *f = c->flags.v[i].flag;
		if ((strncmp(f, "-f", 2) == 0 || strncmp(f, "-m", 2) == 0))
			flag_list_add(&pi->link_flags, f, c->flags.v[i].origin);
	}
	pi->libs = calloc((size_t)linked->nlibs + 1, sizeof *pi->libs);
	if (!pi->libs)
		out_of_memory = 1;
	for (int i = 0; i < linked->nlibs && pi->libs; i++) {
		int dup = 0;
		for (int k = 0; k < pi->nlibs && !dup; k++)
			dup = strcmp(pi->libs[k], linked->libs[i]) == 0;
		if (!dup)
			pi->libs[pi->nlibs++] = strdup(linked->libs[i]);
	}
}

/*
 * Nothing linked a KAT driver, yet the build compiled the driver and other
 * units: one instance from those units, each with the flags its own
 * compile had (the last compile of a source counts), its program unnamed.
 * Units outside the copy and units that define main() (benchmarks, tests)
 * are left out; add_instance leaves out the rest as for a link.
 */
int obs_unlinked_instance(struct obs *ob)
{
	struct build_plan *p = ob->plan;
	if (p->ninst > 0 || ob->nunits == 0)
		return 0;
	struct made all = { 0 };
	int driver = 0;
	for (int u = ob->nunits - 1; u >= 0; u--) {
		const struct plan_unit *pu = &ob->units[u];
		int dup = 0;
		for (int k = 0; k < all.n && !dup; k++)
			dup = strcmp(ob->units[all.units[k]].src, pu->src) == 0;
		if (dup || !obs_is_below(pu->src, ob->copy))
			continue;
		if (kat_driver_is(path_base(pu->src))) {
			driver = 1;
			made_add(&all, u);
			continue;
		}
		char *text = NULL;
		int has_main = obs_read_file(pu->src, &text, NULL, 16u << 20) == 0 && source_defines_main(text);
		free(text);
		if (!has_main)
			made_add(&all, u);
	}
	struct cmdline c = { 0 };
	if (driver && all.n > 1)
		add_instance(ob, &c, &all);
	free(all.units);
	return p->ninst > 0;
}

/* ---- the whole log ---- */

void obs_read_records(struct obs *ob)
{
	char *text = NULL;
	if (read_whole_file(ob->wraplog, &text, NULL, 256u << 20, NULL) == -PQ_ENOMEM)
		out_of_memory = 1;
	if (!text)
		return;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct rec r;
		/* Failed compiles made nothing; a failed link of a KAT driver still says what it needs (-lntl). */
		if (parse_rec(line, &r) < 0 || r.argc == 0 || (r.status != 0 && !is_compiler(r.tool))) {
			rec_free(&r);
			continue;
		}
		if (is_archiver(r.tool)) {
			/* ar [-]OPS [--plugin P] ARCHIVE MEMBER... */
			int i = 0;
			const char *ops = r.argv[i++];
			while (i < r.argc && strcmp(r.argv[i], "--plugin") == 0)
				i += 2;
			if (i < r.argc && (strchr(ops, 'r') || strchr(ops, 'q'))) {
				char a[PATH_MAX];
				abs_path(r.cwd, r.argv[i++], a, sizeof a);
				struct made *m = made_find(&ob->archives, a);
				if (!m)
					m = made_reset(&ob->archives, a);
				for (; m && i < r.argc; i++) {
					char obj[PATH_MAX];
					abs_path(r.cwd, r.argv[i], obj, sizeof obj);
					struct made *o = made_find(&ob->objs, obj);
					if (o)
						made_add_all(m, o);
				}
			}
		} else if (is_compiler(r.tool)) {
			char origin[PATH_MAX + 300];
			struct cmdline c;
			parse_cmdline(ob, &r, &c, "");
			if (c.compile && r.status != 0) {
				/* nothing was made */
			} else if (c.compile) {
				for (int i = 0; i < c.ninputs; i++) {
					if (!has_ext(c.inputs[i], c_exts) && !has_ext(c.inputs[i], cxx_exts))
						continue;
					snprintf(origin, sizeof origin, "observed: `%s`, compile of %s", ob->target_desc,
					         obs_is_below(c.inputs[i], ob->copy) ? c.inputs[i] + strlen(ob->copy) + 1 : c.inputs[i]);
					struct cmdline cu;
					parse_cmdline(ob, &r, &cu, origin);
					int u = add_unit(ob, c.inputs[i], r.cwd, &cu);
					cmdline_free(&cu);
					char obj[PATH_MAX];
					if (c.out[0] && c.ninputs == 1) {
						snprintf(obj, sizeof obj, "%s", c.out);
					} else {
						char b[PATH_MAX];
						snprintf(b, sizeof b, "%s", path_base(c.inputs[i]));
						char *dot = strrchr(b, '.');
						if (dot)
							*dot = '\0';
						snprintf(obj, sizeof obj, "%s/%s.o", r.cwd, b);
					}
					struct made *m = made_reset(&ob->objs, obj);
					if (m && u >= 0)
						made_add(m, u);
				}
			} else if (!c.other && c.ninputs > 0) {
				char out[PATH_MAX];
				snprintf(origin, sizeof origin, "observed: `%s`, link of %s", ob->target_desc,
				         c.out[0] && obs_is_below(c.out, ob->copy) ? c.out + strlen(ob->copy) + 1 : "a.out");
				struct cmdline cl;
				parse_cmdline(ob, &r, &cl, origin);
				if (!cl.out[0])
					snprintf(cl.out, sizeof cl.out, "%s/a.out", r.cwd);
				snprintf(out, sizeof out, "%s", cl.out);
				struct made linked = { 0 };
				linked.path = out;
				resolve_link(ob, &r, &cl, &linked);
				if (cl.shared) {
					struct made *m = made_reset(&ob->shlibs, out);
					if (m) {
						made_add_all(m, &linked);
						for (int k = 0; k < linked.nlibs; k++)
							push_str(&m->libs, &m->nlibs, &(size_t){ (size_t)m->nlibs }, linked.libs[k]);
					}
				} else {
					add_instance(ob, &cl, &linked);
				}
				free(linked.units);
				for (int k = 0; k < linked.nlibs; k++)
					free(linked.libs[k]);
				free(linked.libs);
				cmdline_free(&cl);
			}
			cmdline_free(&c);
		}
		rec_free(&r);
	}
	free(text);
}

/* Forget what the wrapper log said (before the next attempt is read). */
void obs_forget(struct obs *ob)
{
	for (int i = 0; i < ob->nunits; i++) {
		free(ob->units[i].src);
		free(ob->units[i].rel);
		free(ob->units[i].cwd);
		flag_list_free(&ob->units[i].flags);
		flag_list_free(&ob->units[i].info);
	}
	free(ob->units);
	ob->units = NULL;
	ob->nunits = 0;
	ob->ucap = 0;
	struct made_list *lists[] = { &ob->objs, &ob->archives, &ob->shlibs };
	for (int l = 0; l < 3; l++) {
		for (int i = 0; i < lists[l]->n; i++) {
			free(lists[l]->v[i].path);
			free(lists[l]->v[i].units);
			for (int k = 0; k < lists[l]->v[i].nlibs; k++)
				free(lists[l]->v[i].libs[k]);
			free(lists[l]->v[i].libs);
		}
		free(lists[l]->v);
		memset(lists[l], 0, sizeof *lists[l]);
	}
}
