/* pprof_export: an analysed trace as a profile.proto; see pprof_export.h. */
#include "config.h"
#include "profile/pprof_export.h"
#include "profile/analysis_model.h"
#include "profile/symbolizer.h"
#include "core/digest.h"
#include "core/path_name.h"
#include "core/text_buf.h"
#include "trace/export.h"
#include "src/profile/pprof_profile.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

/*
 * The profile under construction.  Arrays grow, so everything points by
 * index until pack() turns indices into the pointers protobuf-c wants.
 */
struct pp {
	struct analysis *a;
	struct strmap strs;       /* string -> index into string_table */
	char **str;
	size_t nstr, capstr;
	uint64_t *func_id;        /* afunc -> Function id, 0 = none yet */
	PFunction *fn;
	size_t nfn, capfn;
	struct strmap mapidx;     /* "space:map" -> Mapping index */
	PMapping *mp;
	size_t nmp, capmp;
	struct strmap locidx;     /* "space:address" -> Location index */
	PLocation *loc;
	size_t *loc_first;        /* first Line of each Location, in line[] */
	size_t nloc, caploc, caplocfirst;
	PLine *line;
	size_t nline, capline;
	PSample *smp;
	size_t *smp_first;        /* first location id of each Sample, in ids[] */
	size_t nsmp, capsmp, capsmpfirst;
	uint64_t *ids;
	size_t nids, capids;
	int64_t *vals;            /* two values per sample */
	size_t capvals;
};

static int64_t str_id(struct pp *p, const char *s, pq_error *err)
{
	size_t v, len = strlen(s);
	if (strmap_get(&p->strs, s, len, &v))
		return (int64_t)v;
	if (grow(&p->str, &p->capstr, p->nstr + 1, sizeof *p->str) < 0 || !(p->str[p->nstr] = strdup(s)) ||
	    strmap_put(&p->strs, s, len, p->nstr) < 0)
		return -oom(err);
	return (int64_t)p->nstr++;
}

/* The Function of analysis function fi (file from the frame that first shows it). */
static int64_t function_of(struct pp *p, const struct aframe *af, pq_error *err)
{
	if (p->func_id[af->func])
		return (int64_t)p->func_id[af->func];
	const struct afunc *fn = &p->a->funcs[af->func];
	if (grow(&p->fn, &p->capfn, p->nfn + 1, sizeof *p->fn) < 0)
		return -oom(err);
	PFunction *f = &p->fn[p->nfn];
	perftools__profiles__function__init(f);
	int64_t name = str_id(p, fn->name, err);
	int64_t file = str_id(p, af->file_abs ? af->file_abs : af->file ? af->file : "", err);
	if (name < 0 || file < 0)
		return -err->code;
	f->id = ++p->nfn;
	f->name = f->system_name = name;
	f->filename = file;
	p->func_id[af->func] = f->id;
	return (int64_t)f->id;
}

/* The Mapping that holds addr in space si (0: none recorded). */
static int64_t mapping_of(struct pp *p, uint32_t si, uint64_t addr, pq_error *err)
{
	const struct space *s = &p->a->spaces[si];
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct mapping *m = &s->maps[i];
		if (addr < m->start || addr - m->start >= m->len)
			continue;
		char key[48];
		size_t klen = (size_t)snprintf(key, sizeof key, "%u:%zu", si, i), v;
		if (strmap_get(&p->mapidx, key, klen, &v))
			return (int64_t)p->mp[v].id;
		if (grow(&p->mp, &p->capmp, p->nmp + 1, sizeof *p->mp) < 0)
			return -oom(err);
		PMapping *mp = &p->mp[p->nmp];
		perftools__profiles__mapping__init(mp);
		char hex[2 * TRACE_MAX_BUILD_ID + 1] = "";
		hex_encode(m->id, m->idlen, hex);
		int64_t file = str_id(p, m->path, err), bid = str_id(p, hex, err);
		if (file < 0 || bid < 0)
			return -err->code;
		mp->id = p->nmp + 1;
		mp->memory_start = m->start;
		mp->memory_limit = m->start + m->len;
		mp->file_offset = m->pgoff;
		mp->filename = file;
		mp->build_id = bid;
		/* Names, files, lines and inline chains come with the profile: pprof need not
		 * symbolize again. */
		mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = 1;
		if (strmap_put(&p->mapidx, key, klen, p->nmp) < 0)
			return -oom(err);
		p->nmp++;
		return (int64_t)mp->id;
	}
	return 0;
}

/*
 * The Location of ip (position j in its stack) in space si, with one Line
 * per function of its inline chain, innermost first.  *nframes gets the
 * chain's length.
 */
static int64_t location_of(struct pp *p, uint32_t si, uint64_t ip, uint32_t j, uint32_t *nframes, pq_error *err)
{
	struct space *s = &p->a->spaces[si];
	uint64_t look = j && ip ? ip - 1 : ip;   /* as symbolize_all looked it up */
	char key[17];
	size_t klen = int_key(key, look), ri;
	if (!strmap_get(&s->addr, key, klen, &ri))
		return 0;   /* never symbolized: past the kept part of the stack */
	const struct resolved *r = &p->a->res[ri];
	*nframes = r->n;
	char lkey[48];
	size_t lklen = (size_t)snprintf(lkey, sizeof lkey, "%u:%" PRIx64, si, look), v;
	if (strmap_get(&p->locidx, lkey, lklen, &v))
		return (int64_t)p->loc[v].id;
	if (grow(&p->loc, &p->caploc, p->nloc + 1, sizeof *p->loc) < 0 ||
	    grow(&p->loc_first, &p->caplocfirst, p->nloc + 1, sizeof *p->loc_first) < 0 ||
	    grow(&p->line, &p->capline, p->nline + r->n, sizeof *p->line) < 0)
		return -oom(err);
	int64_t map = mapping_of(p, si, ip, err);
	if (map < 0)
		return map;
	PLocation *l = &p->loc[p->nloc];
	perftools__profiles__location__init(l);
	l->id = p->nloc + 1;
	l->mapping_id = (uint64_t)map;
	l->address = ip;
	l->n_line = r->n;
	p->loc_first[p->nloc] = p->nline;
	for (uint32_t f = 0; f < r->n; f++) {
		const struct aframe *af = &p->a->af[r->first + f];
		int64_t fid = function_of(p, af, err);
		if (fid < 0)
			return fid;
		PLine *ln = &p->line[p->nline++];
		perftools__profiles__line__init(ln);
		ln->function_id = (uint64_t)fid;
		ln->line = af->line;
	}
	if (strmap_put(&p->locidx, lkey, lklen, p->nloc) < 0)
		return -oom(err);
	p->nloc++;
	return (int64_t)l->id;
}

/* 1 when mapping m is of the instance library (its file's last component is the trace's library's). */
static int is_instance_mapping(const struct pp *p, const PMapping *m)
{
	return p->a->lib_base[0] && strcmp(path_base(p->str[m->filename]), p->a->lib_base) == 0;
}

/*
 * Mappings are numbered as samples first meet them, so a stack that
 * enters libgmp or libc before the instance would make that library
 * mapping 1, which pprof shows as the profile's main binary.  Renumber:
 * the instance library's mappings first (in their order), then the
 * others, and point every Location at its mapping's new id.
 */
static int instance_mappings_first(struct pp *p, pq_error *err)
{
	if (!p->nmp)
		return 0;
	PMapping *sorted = malloc(p->nmp * sizeof *sorted);
	uint64_t *new_id = malloc(p->nmp * sizeof *new_id);   /* old id - 1 -> new id */
	if (!sorted || !new_id) {
		free(sorted);
		free(new_id);
		return oom(err);
	}
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->nmp; i++)
			if (is_instance_mapping(p, &p->mp[i]) == !pass) {
				sorted[k] = p->mp[i];
				sorted[k].id = k + 1;
				new_id[p->mp[i].id - 1] = ++k;
			}
	for (size_t i = 0; i < p->nloc; i++)
		if (p->loc[i].mapping_id)
			p->loc[i].mapping_id = new_id[p->loc[i].mapping_id - 1];
	memcpy(p->mp, sorted, p->nmp * sizeof *sorted);
	free(sorted);
	free(new_id);
	/* the "space:map" index now points at other slots: nothing looks a mapping up after this */
	return 0;
}

/* One Sample per kept stack of the operations asked for. */
static int add_samples(struct pp *p, const char *op, pq_error *err)
{
	struct analysis *a = p->a;
	for (size_t i = 0; i < a->nstks; i++) {
		const struct stk *k = &a->stks[i];
		if (!k->keep || k->harness || (op && strcmp(a->ops[k->op].name, op) != 0))
			continue;
		if (grow(&p->smp, &p->capsmp, p->nsmp + 1, sizeof *p->smp) < 0 ||
		    grow(&p->smp_first, &p->capsmpfirst, p->nsmp + 1, sizeof *p->smp_first) < 0 ||
		    grow(&p->vals, &p->capvals, 2 * (p->nsmp + 1), sizeof *p->vals) < 0 ||
		    grow(&p->ids, &p->capids, p->nids + k->n, sizeof *p->ids) < 0)
			return oom(err);
		PSample *s = &p->smp[p->nsmp];
		perftools__profiles__sample__init(s);
		p->smp_first[p->nsmp] = p->nids;
		/* Leaf first, as far as the report keeps the stack (k->keep expanded frames). */
		uint32_t frames = 0;
		for (uint32_t j = 0; j < k->n && frames < k->keep; j++) {
			uint32_t nf = 0;
			int64_t id = location_of(p, k->space, a->ips[k->ipoff + j], j, &nf, err);
			if (id < 0)
				return (int)id;
			if (!id)
				break;
			p->ids[p->nids++] = (uint64_t)id;
			s->n_location_id++;
			frames += nf;
		}
		p->vals[2 * p->nsmp] = (int64_t)k->count;
		p->vals[2 * p->nsmp + 1] = (int64_t)k->weight;
		s->n_value = 2;
		s->n_label = k->op;   /* the op's index until pack() points at its label */
		p->nsmp++;
	}
	return 0;
}

/* The event as pprof names it: clock events in nanoseconds of CPU time. */
static void event_type(const struct analysis *a, const char **type, const char **unit)
{
	const char *u = analysis_unit(a);
	if (strcmp(u, "ns") == 0 || strcmp(u, "nanoseconds") == 0) {
		*type = "cpu";
		*unit = "nanoseconds";
	} else {
		*type = analysis_event(a);
		*unit = "count";
	}
}

static int raw_write(const void *buf, size_t len, FILE *fp, pq_error *err)
{
	if (len && fwrite(buf, 1, len, fp) != len)
		return pq_fail_errno(err, PQ_EIO, "pprof export: write failed");
	return 0;
}

/*
 * The packed profile, gzip-compressed as profile.proto files travel
 * (pprof, Pyroscope).  The compression is the gzip program's (Debian
 * marks it Essential: always installed); pqprof links no zlib.  1 when
 * gzip wrote the file, 0 when no gzip could run (the caller writes the
 * profile uncompressed, which the readers also take), or a failure.
 */
static int gzip_write(const void *buf, size_t len, FILE *fp, pq_error *err)
{
	if (fflush(fp) != 0)
		return pq_fail_errno(err, PQ_EIO, "pprof export: write failed");
	int in[2];
	if (pipe2(in, O_CLOEXEC) != 0)
		return pq_fail_errno(err, PQ_EIO, "pprof export: pipe");
	pid_t pid = fork();
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		return pq_fail_errno(err, PQ_EIO, "pprof export: fork");
	}
	if (pid == 0) {
		if (dup2(in[0], 0) < 0 || dup2(fileno(fp), 1) < 0)
			_exit(126);
		execlp("gzip", "gzip", "-n", "-c", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);
	const uint8_t *p = buf;
	size_t left = len;
	while (left > 0) {
		ssize_t n = write(in[1], p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
	close(in[1]);
	sigaction(SIGPIPE, &old, NULL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || left)
		return pq_fail(err, PQ_EIO, "pprof export: gzip failed (status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 1;
}

static void pp_free(struct pp *p)
{
	for (size_t i = 0; i < p->nstr; i++)
		free(p->str[i]);
	free(p->str);
	strmap_free(&p->strs);
	strmap_free(&p->mapidx);
	strmap_free(&p->locidx);
	free(p->func_id);
	free(p->fn);
	free(p->mp);
	free(p->loc);
	free(p->loc_first);
	free(p->line);
	free(p->smp);
	free(p->smp_first);
	free(p->ids);
	free(p->vals);
}

/* Point every message at its parts, pack, write. */
static int pack_and_write(struct pp *p, const char *path, progress_fn note, void *user, pq_error *err)
{
	struct analysis *a = p->a;
	const char *etype, *eunit;
	event_type(a, &etype, &eunit);
	int64_t ids[6] = { str_id(p, "samples", err), str_id(p, "count", err), str_id(p, etype, err),
	                   str_id(p, eunit, err), str_id(p, "operation", err), 0 };
	char comment[512];
	const char *inst = json_string_value(json_object_get(json_object_get(analysis_header(a), "instance"), "name"));
	snprintf(comment, sizeof comment, "pqprof %s: %s, event %s (%s)", PACKAGE_VERSION, inst ? inst : "?",
	         analysis_event(a), analysis_unit(a));
	ids[5] = str_id(p, comment, err);
	size_t nops = a->nops;
	PLabel *labels = calloc(nops ? nops : 1, sizeof *labels);
	PLabel **labelp = calloc(nops ? nops : 1, sizeof *labelp);
	int64_t *opname = calloc(nops ? nops : 1, sizeof *opname);
	PSample **sp = calloc(p->nsmp ? p->nsmp : 1, sizeof *sp);
	PLocation **lp = calloc(p->nloc ? p->nloc : 1, sizeof *lp);
	PLine **linep = calloc(p->nline ? p->nline : 1, sizeof *linep);
	PFunction **fp = calloc(p->nfn ? p->nfn : 1, sizeof *fp);
	PMapping **mpp = calloc(p->nmp ? p->nmp : 1, sizeof *mpp);
	int rc = 0;
	if (!labels || !labelp || !opname || !sp || !lp || !linep || !fp || !mpp) {
		rc = oom(err);
		goto out;
	}
	for (int i = 0; i < 6; i++)
		if (ids[i] < 0) {
			rc = (int)ids[i];
			goto out;
		}
	for (size_t i = 0; i < nops; i++) {
		perftools__profiles__label__init(&labels[i]);
		labels[i].key = ids[4];
		if ((labels[i].str = str_id(p, a->ops[i].name, err)) < 0) {
			rc = (int)labels[i].str;
			goto out;
		}
		labelp[i] = &labels[i];
	}
	for (size_t i = 0; i < p->nsmp; i++) {
		PSample *s = &p->smp[i];
		s->location_id = p->ids + p->smp_first[i];
		s->value = p->vals + 2 * i;
		s->label = &labelp[s->n_label];
		s->n_label = 1;
		sp[i] = s;
	}
	for (size_t i = 0; i < p->nline; i++)
		linep[i] = &p->line[i];
	for (size_t i = 0; i < p->nloc; i++) {
		p->loc[i].line = linep + p->loc_first[i];
		lp[i] = &p->loc[i];
	}
	for (size_t i = 0; i < p->nfn; i++)
		fp[i] = &p->fn[i];
	for (size_t i = 0; i < p->nmp; i++)
		mpp[i] = &p->mp[i];

	PValueType st[2], period;
	PValueType *stp[2] = { &st[0], &st[1] };
	perftools__profiles__value_type__init(&st[0]);
	perftools__profiles__value_type__init(&st[1]);
	perftools__profiles__value_type__init(&period);
	st[0].type = ids[0];
	st[0].unit = ids[1];
	st[1].type = period.type = ids[2];
	st[1].unit = period.unit = ids[3];
	PProfile prof;
	perftools__profiles__profile__init(&prof);
	prof.n_sample_type = 2;
	prof.sample_type = stp;
	prof.n_sample = p->nsmp;
	prof.sample = sp;
	prof.n_mapping = p->nmp;
	prof.mapping = mpp;
	prof.n_location = p->nloc;
	prof.location = lp;
	prof.n_function = p->nfn;
	prof.function = fp;
	prof.n_string_table = p->nstr;
	prof.string_table = p->str;
	prof.period_type = &period;
	prof.default_sample_type = ids[2];
	prof.n_comment = 1;
	prof.comment = &ids[5];

	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf) {
		rc = oom(err);
		goto out;
	}
	perftools__profiles__profile__pack(&prof, buf);
	struct export_out o;
	if ((rc = export_out_open(&o, path, err)) == 0) {
		int g = gzip_write(buf, len, o.fp, err);
		if (g == 0)
			progress_printf(note, user, "no gzip program: the profile is written uncompressed");
		int ok = g > 0 || (g == 0 && raw_write(buf, len, o.fp, err) == 0);
		pq_error cerr = { 0 };
		int cr = export_out_close(&o, ok, &cerr);
		if (ok && cr < 0)
			*err = cerr;
		rc = ok ? cr : -err->code;
	}
	free(buf);
out:
	free(labels);
	free(labelp);
	free(opname);
	free(sp);
	free(lp);
	free(linep);
	free(fp);
	free(mpp);
	return rc;
}

int pprof_export(struct analysis *a, const char *op, const char *path, progress_fn note, void *user, pq_error *err)
{
	struct pp p;
	memset(&p, 0, sizeof p);
	p.a = a;
	int rc = 0;
	if (!(p.func_id = calloc(a->nfuncs ? a->nfuncs : 1, sizeof *p.func_id)))
		return oom(err);
	if (str_id(&p, "", err) < 0)   /* string_table[0] is "" */
		rc = -err->code;
	if (rc == 0)
		rc = add_samples(&p, op, err);
	if (rc == 0)
		rc = instance_mappings_first(&p, err);
	if (rc == 0)
		rc = pack_and_write(&p, path, note, user, err);
	pp_free(&p);
	return rc;
}
