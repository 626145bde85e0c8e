/*
 * profile_run: records sampled runner children into a .pqt trace; see
 * profile_run.h for the trace conventions.  Not here: symbols, shares,
 * reports (analysis.c reads the trace back).
 */
#include "config.h"
#include "core/atomic_file.h"
#include "profile/profile_run.h"
#include "core/clock.h"
#include "core/text_buf.h"
#include "supervise/output_log.h"
#include "core/grow.h"
#include "core/contain.h"

#include "core/digest.h"
#include "profile/sampler.h"
#include "profile/unwind.h"
#include "supervise/describe.h"
#include "supervise/child.h"
#include "supervise/blame.h"
#include "trace/trace_format.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_MIN_SAMPLES 2000
#define DEFAULT_MAX_SECONDS 30.0
/* The shortest child worth starting: set-up costs more than this samples. */
#define MIN_CHILD_SECONDS 0.05
#define DEFAULT_COUNT_ITERS 3
#define MAX_RUNS_PER_OP 20
#define SEED_BYTES 48

const char *profile_event_unit(const char *event)
{
	/* "cycles", or precise "cycles:p" / "cycles:pp" */
	return event && strncmp(event, "cycles", 6) == 0 && (event[6] == 0 || event[6] == ':') ? "cycles" : "ns";
}

/* ---- build ids, read from the ELF notes of the mapped files ---- */

int profile_read_build_id(const char *path, unsigned char *raw, char *hex, size_t hexlen,
                          pq_error *err)
{
	if (hex && hexlen)
		hex[0] = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return pq_fail(err, PQ_EINTERNAL, "libelf: %s", elf_errmsg(-1));
	int fd = open_regular(path);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", path);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int found = 0;
	for (Elf_Scn *scn = NULL; e && !found && (scn = elf_nextscn(e, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) != 0 || nh.n_descsz == 0 ||
			    nh.n_descsz > TRACE_MAX_BUILD_ID)
				continue;
			const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
			if (raw)
				memcpy(raw, id, nh.n_descsz);
			if (hex && hexlen)
				hex_encode(id, nh.n_descsz < (hexlen - 1) / 2 ? nh.n_descsz : (hexlen - 1) / 2, hex);
			found = (int)nh.n_descsz;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

struct build_id_entry {
	char *path;
	unsigned char id[TRACE_MAX_BUILD_ID];
	int len;
};

struct build_id_cache {
	struct build_id_entry *e;
	size_t n, cap;
};

static const struct build_id_entry *build_id_lookup(struct build_id_cache *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->e[i].path, path) == 0)
			return &c->e[i];
	if (pq_grow(&c->e, &c->cap, c->n + 1, sizeof *c->e, 16) < 0)
		return NULL;
	struct build_id_entry *b = &c->e[c->n];
	if (!(b->path = strdup(path)))
		return NULL;
	int k = profile_read_build_id(path, b->id, NULL, 0, NULL);
	b->len = k > 0 ? k : 0;
	c->n++;
	return b;
}

static void build_id_cache_free(struct build_id_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->e[i].path);
	free(c->e);
}

/* ---- one recording: shared by all children ---- */

struct recorder {
	const struct profile_opts *o;
	const char *trace_path;
	char lib_real[PATH_MAX];
	json_t *header_base;       /* everything but what the first child tells */
	trace_writer *w;
	struct build_id_cache ids;
	struct profile_summary *sum;
	struct trace_run_info run;  /* totals for the trace's END record */
};

struct pending_mmap {
	uint64_t start, len, pgoff;
	unsigned char id[TRACE_MAX_BUILD_ID];
	unsigned idlen;
	char *path;
};

/* One sampled child. */
struct run {
	struct recorder *rec;
	enum pq_op op;
	enum sampler_mode mode;
	int stack_only_ip;         /* call graph "none" */
	uint64_t calls_before;
	struct sampler_parent sp;
	struct unwinder *uw;
	int ctrl_fd;
	pid_t pid;
	int live;                  /* attached, OP_BEGIN written */
	int failed;
	pq_error err;
	struct pending_mmap *pend;
	size_t npend, cappend;
	uint64_t samples, truncated;
	uint64_t *pcs;
};

static void run_fail(struct run *r, const pq_error *e)
{
	if (!r->failed) {
		r->failed = 1;
		r->err = *e;
	}
}

static void write_mmap(struct run *r, uint64_t start, uint64_t len, uint64_t pgoff,
                       const unsigned char *id, unsigned idlen, const char *path)
{
	if (!idlen) {
		const struct build_id_entry *b = build_id_lookup(&r->rec->ids, path);
		if (b && b->len) {
			id = b->id;
			idlen = (unsigned)b->len;
		}
	}
	trace_write_mmap(r->rec->w, start, len, pgoff, idlen ? id : NULL, idlen, path);
}

static void on_mmap(void *user, const struct sampler_mmap *m)
{
	struct run *r = user;
	if (r->uw) {
		pq_error e;
		/* A mapping libdwfl refuses only costs unwinds through it. */
		unwinder_add_module(r->uw, m->filename, m->start, m->len, m->pgoff, &e);
	}
	if (r->live) {
		write_mmap(r, m->start, m->len, m->pgoff, m->build_id, m->build_id_size, m->filename);
		return;
	}
	if (pq_grow(&r->pend, &r->cappend, r->npend + 1, sizeof *r->pend, 32) < 0)
		return;
	struct pending_mmap *p = &r->pend[r->npend];
	p->start = m->start;
	p->len = m->len;
	p->pgoff = m->pgoff;
	p->idlen = m->build_id_size <= TRACE_MAX_BUILD_ID ? m->build_id_size : 0;
	memcpy(p->id, m->build_id, p->idlen);
	if ((p->path = strdup(m->filename)) != NULL)
		r->npend++;
}

static void on_sample(void *user, const struct sampler_sample *s)
{
	struct run *r = user;
	if (!r->rec->w)
		return;
	const uint64_t *ips = s->ips;
	size_t n = s->nips;
	if (r->mode == SAMPLER_MODE_DWARF && !r->stack_only_ip) {
		pq_error e;
		int st = unwinder_unwind(r->uw, s, r->pcs, TRACE_MAX_STACK, &n, &e);
		if (st < 0) {
			run_fail(r, &e);
			return;
		}
		if (st == UNWIND_TRUNCATED)
			r->truncated++;
		ips = r->pcs;
	}
	if (!n || r->stack_only_ip) {
		ips = &s->ip;
		n = 1;
	}
	if (n > TRACE_MAX_STACK)
		n = TRACE_MAX_STACK;
	trace_write_sample(r->rec->w, (uint64_t)r->op, s->period ? s->period : 1, s->time, ips, (int)n);
	r->samples++;
}

/* The header: the base plus what only the first attached child knows. */
static json_t *make_header(struct run *r)
{
	struct recorder *rec = r->rec;
	const struct sampler_parent *sp = &r->sp;
	json_t *h = json_deep_copy(rec->header_base);
	if (!h)
		return NULL;
	json_object_set_new(h, "event", json_string(sp->event_name));
	json_object_set_new(h, "event_fallback", json_string(sp->fallback));
	json_object_set_new(h, "unit", json_string(profile_event_unit(sp->event_name)));
	json_object_set_new(h, "freq", json_integer((json_int_t)sp->freq));
	json_object_set_new(h, "period", json_integer((json_int_t)sp->period));
	json_object_set_new(h, "data_pages", json_integer((json_int_t)sp->data_pages));
	json_object_set_new(h, "stack_bytes",
	                    json_integer(sp->mode == SAMPLER_MODE_DWARF ? (json_int_t)sp->stack_bytes : 0));
	return h;
}

/* The child's fd has arrived: open the trace if needed, mark the op, flush maps. */
static int go_live(struct run *r, pq_error *err)
{
	struct recorder *rec = r->rec;
	if (!rec->w) {
		json_t *h = make_header(r);
		if (!h)
			return pq_fail(err, PQ_ENOMEM, "out of memory");
		/* Sample times in units of the nominal sampling interval (1e9 /
		 * freq ns, or the period of a time-based event): no report uses
		 * a sample's time more finely than the samples are apart, and
		 * regular samples then differ by a near-constant 1 that costs
		 * well under a bit.  OP_BEGIN/OP_END times stay exact. */
		struct trace_writer_opts wo = { 0 };
		if (r->sp.freq)
			wo.time_unit_ns = 1000000000u / r->sp.freq;
		else if (r->sp.period && r->sp.period <= 1000000000u &&
			 strcmp(profile_event_unit(r->sp.event_name), "ns") == 0)
			wo.time_unit_ns = (unsigned)r->sp.period;
		rec->run.requested_hz = r->sp.freq;
		rec->w = trace_writer_open_opts(rec->trace_path, h, &wo, err);
		json_decref(h);
		if (!rec->w)
			return -err->code;
		snprintf(rec->sum->event, sizeof rec->sum->event, "%s", r->sp.event_name);
		snprintf(rec->sum->fallback, sizeof rec->sum->fallback, "%s", r->sp.fallback);
		rec->sum->freq = r->sp.freq;
		rec->sum->period = r->sp.period;
	}
	trace_write_op_begin(rec->w, (uint64_t)r->op, pq_op_name(r->op), r->calls_before, mono_ns());
	for (size_t i = 0; i < r->npend; i++)
		write_mmap(r, r->pend[i].start, r->pend[i].len, r->pend[i].pgoff, r->pend[i].id,
		           r->pend[i].idlen, r->pend[i].path);
	r->live = 1;
	return 0;
}

static void on_spawned(void *user, pid_t pid, int ctrl_fd)
{
	struct run *r = user;
	r->pid = pid;
	r->ctrl_fd = ctrl_fd;
	if (r->mode == SAMPLER_MODE_DWARF && !r->stack_only_ip) {
		pq_error e;
		if (!(r->uw = unwinder_new(pid, &e))) {
			run_fail(r, &e);
			return;
		}
		unwinder_set_scope(r->uw, r->rec->lib_real);
	}
}

static void on_tick(void *user)
{
	struct run *r = user;
	pq_error e = { 0 };
	if (r->failed || r->ctrl_fd < 0)
		return;
	if (!r->sp.attached) {
		int k = sampler_parent_receive(&r->sp, r->ctrl_fd, r->pid, &e);
		if (k < 0) {
			run_fail(r, &e);
			return;
		}
		if (k == 0)
			return;
		if (r->uw)
			unwinder_set_entry(r->uw, r->sp.entry_sp, r->sp.entry_frames, r->sp.nentry_frames);
	}
	if (!r->live && go_live(r, &e) < 0) {
		run_fail(r, &e);
		return;
	}
	if (sampler_parent_drain(&r->sp, &e) < 0)
		run_fail(r, &e);
}

/* The first error event of a child, for messages. */
static const char *child_error_msg(const struct child_result *res)
{
	size_t i;
	json_t *ev;
	json_array_foreach(res->events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "ev"));
		if (k && strcmp(k, "error") == 0 && json_is_string(json_object_get(ev, "msg")))
			return json_string_value(json_object_get(ev, "msg"));
	}
	return NULL;
}

static int child_failure(const struct child_result *res, const char *what, pq_error *err)
{
	char why[512];
	child_describe(res, why, sizeof why);
	const char *msg = child_error_msg(res);
	int code = child_blame(res);
	return pq_fail(err, code, "%s: %s%s%s", what, why, msg ? ": " : "", msg ? msg : "");
}

#define progress(o, ...) progress_printf((o)->progress, (o)->progress_user, __VA_ARGS__)

/* Run one sampled child of op for about `seconds` of calls. */
static int run_child(struct recorder *rec, enum pq_op op, double seconds, uint64_t calls_before,
                     struct profile_op_summary *os, pq_error *err)
{
	const struct profile_opts *o = rec->o;
	const char *cg = o->callgraph ? o->callgraph : "fp";
	struct run r = { .rec = rec, .op = op, .ctrl_fd = -1, .calls_before = calls_before };
	r.stack_only_ip = strcmp(cg, "none") == 0;
	r.mode = strcmp(cg, "dwarf") == 0 ? SAMPLER_MODE_DWARF : SAMPLER_MODE_FP;
	if (!(r.pcs = malloc(TRACE_MAX_STACK * sizeof *r.pcs)))
		return pq_fail(err, PQ_ENOMEM, "out of memory");
	struct sampler_sink sink = { &r, on_sample, on_mmap };
	sampler_parent_init(&r.sp, &sink);

	char a_secs[32], a_freq[32], a_period[32], a_stack[32], a_pages[32], a_mlen[32];
	snprintf(a_secs, sizeof a_secs, "%.3f", seconds);
	snprintf(a_mlen, sizeof a_mlen, "%ld", o->mlen > 0 ? o->mlen : 64);
	const char *args[32];
	int na = 0;
	args[na++] = "--op";
	args[na++] = pq_op_name(op);
	args[na++] = "--mode";
	args[na++] = r.mode == SAMPLER_MODE_DWARF ? "dwarf" : "fp";
	args[na++] = "--event";
	args[na++] = o->event ? o->event : "auto";
	args[na++] = "--seconds";
	args[na++] = a_secs;
	args[na++] = "--mlen";
	args[na++] = a_mlen;
	if (o->freq) {
		snprintf(a_freq, sizeof a_freq, "%u", o->freq);
		args[na++] = "--freq";
		args[na++] = a_freq;
	} else if (o->period) {
		snprintf(a_period, sizeof a_period, "%llu", o->period);
		args[na++] = "--period";
		args[na++] = a_period;
	}
	if (o->stack_bytes) {
		snprintf(a_stack, sizeof a_stack, "%u", o->stack_bytes);
		args[na++] = "--stack";
		args[na++] = a_stack;
	}
	/* The parent maps the ring, so its limits size it (the child may run
	 * as another user). */
	snprintf(a_pages, sizeof a_pages, "%u", o->pages ? o->pages : sampler_ring_pages(r.mode));
	args[na++] = "--pages";
	args[na++] = a_pages;
	args[na] = NULL;

	struct child_hooks hooks = { .user = &r, .spawned = on_spawned, .tick = on_tick, .wake_fd = -1 };
	struct child_spec cs = {
		.job = "profile", .lib = o->lib, .args = args,
		.timeout_s = o->timeout_s > 0 ? o->timeout_s : 900, .cpu = -1, .want_ctrl = 1,
		.hooks = &hooks,
	};
	struct child_result res;
	memset(&res, 0, sizeof res);
	int crc = child_run(&cs, &res, err);
	int rc = crc;
	if (crc == 0) {
		/* Whatever is still in the ring after the child exited. */
		if (r.live && !r.failed) {
			pq_error e;
			if (sampler_parent_drain(&r.sp, &e) < 0)
				run_fail(&r, &e);
		}
		if (r.failed) {
			*err = r.err;
			rc = -(err->code ? err->code : PQ_EINTERNAL);
		} else if (res.end != CHILD_OK || !res.done) {
			rc = child_failure(&res, pq_op_name(op), err);
		} else if (res.orphans) {
			/* They ran beside the operation, so the samples are not the scheme's alone. */
			rc = pq_fail(err, PQ_ESCHEME, "%s: the scheme left processes behind (killed)", pq_op_name(op));
		} else if (!r.live) {
			rc = pq_fail(err, PQ_EINTERNAL, "%s: the child never passed its sampling event", pq_op_name(op));
		}
	}
	uint64_t calls = 0;
	if (crc == 0 && res.output_total) {
		/* The scheme's prints never reach pqprof's output: to the job's log, counted. */
		json_t *so = output_log_write(&res, o->output_log);
		if (so) {
			json_decref(os->scheme_output);
			os->scheme_output = so;
		}
	}
	if (rc == 0) {
		calls = (uint64_t)json_integer_value(json_object_get(res.done, "calls"));
		os->seconds += json_number_value(json_object_get(res.done, "seconds_in_calls"));
		json_t *pt = json_object_get(res.done, "perturbation");
		os->on_cpu_s += json_number_value(json_object_get(pt, "on_cpu_s"));
		os->off_cpu_s += json_number_value(json_object_get(pt, "off_cpu_s"));
		os->on_wall_s += json_number_value(json_object_get(pt, "on_wall_s"));
		os->off_wall_s += json_number_value(json_object_get(pt, "off_wall_s"));
		os->on_calls += (uint64_t)json_integer_value(json_object_get(pt, "on_calls"));
		os->off_calls += (uint64_t)json_integer_value(json_object_get(pt, "off_calls"));
	}
	if (r.live) {
		if (r.sp.stats.lost)
			trace_write_lost(rec->w, r.sp.stats.lost);
		trace_write_op_end(rec->w, (uint64_t)op, pq_op_name(op), calls_before + calls, mono_ns());
	}
	if (rc == 0)
		rec->run.active_ns += (uint64_t)(json_number_value(json_object_get(res.done, "seconds_in_calls")) * 1e9);
	rec->run.lost += r.sp.stats.lost;
	rec->run.throttles += r.sp.stats.throttles;
	rec->run.unthrottles += r.sp.stats.unthrottles;
	os->throttles += r.sp.stats.throttles;
	os->samples += r.samples;
	os->lost += r.sp.stats.lost;
	os->truncated += r.truncated;
	if (r.uw) {
		const struct unwind_stats *us = unwinder_stats(r.uw);
		os->unwind.stacks += us->samples;
		os->unwind.complete += us->complete;
		os->unwind.incomplete += us->samples - us->complete;
		os->unwind.frames_cfi += us->frames_cfi;
		os->unwind.frames_fp += us->frames_fp;
		os->unwind.frames_scan += us->frames_scan;
		os->unwind.frames_stitched += us->frames_stitched;
	}
	os->calls += calls;
	os->runs++;
	if (crc == 0)
		child_result_free(&res);
	sampler_parent_close(&r.sp);
	if (r.uw)
		unwinder_free(r.uw);
	for (size_t i = 0; i < r.npend; i++)
		free(r.pend[i].path);
	free(r.pend);
	free(r.pcs);
	return rc;
}

/* Sample op in as many children as it takes to reach min_samples. */
static int sample_op(struct recorder *rec, enum pq_op op, struct profile_op_summary *os, pq_error *err)
{
	const struct profile_opts *o = rec->o;
	long want = o->min_samples > 0 ? o->min_samples : DEFAULT_MIN_SAMPLES;
	double cap = o->max_seconds > 0 ? o->max_seconds : DEFAULT_MAX_SECONDS;
	/* Clocks often deliver well under their nominal rate when enabled only
	 * around calls; start low, then use the measured rate. */
	double rate = 0.6 * (o->freq ? o->freq : (o->period ? 0 : 1999));
	os->op = op;
	while (os->runs < MAX_RUNS_PER_OP) {
		double need = (double)(want - (long)os->samples);
		if (need <= 0 || os->seconds >= cap)
			break;
		if (os->samples > 0 && os->seconds > 0)
			rate = (double)os->samples / os->seconds;
		double secs = rate > 0 ? need / rate * 1.15 + 0.02 : 1.0;
		if (secs < MIN_CHILD_SECONDS)
			secs = MIN_CHILD_SECONDS;
		/* The rest of the time cap, when shorter than a useful child, ends
		 * sampling with what was taken: asking a child for "0.000 s" would
		 * fail the whole operation and throw its samples away. */
		if (os->runs > 0 && cap - os->seconds < MIN_CHILD_SECONDS)
			break;
		if (secs > cap - os->seconds)
			secs = cap - os->seconds;
		if (secs < MIN_CHILD_SECONDS)
			secs = MIN_CHILD_SECONDS;
		/* Stay well inside the child's time limit (set-up and start included). */
		double limit = (o->timeout_s > 0 ? o->timeout_s : 900) * 0.6;
		if (secs > limit)
			secs = limit > MIN_CHILD_SECONDS ? limit : MIN_CHILD_SECONDS;
		int r = run_child(rec, op, secs, os->calls, os, err);
		if (r < 0)
			return r;
		progress(o, "%s: child %u: %llu samples, %llu calls, %.2f s in calls", pq_op_name(op),
		         os->runs, (unsigned long long)os->samples, (unsigned long long)os->calls,
		         os->seconds);
		if (os->calls == 0)
			break;
	}
	return 0;
}

/* ---- exact call counts ---- */

/* Every glob of every group, then the extra ones. */
static json_t *count_globs(const struct profile_opts *o)
{
	json_t *globs = json_array();
	for (size_t g = 0; o->groups && g < groups_count(o->groups); g++) {
		for (size_t j = 0; j < groups_nglobs(o->groups, g); j++)
			json_array_append_new(globs, json_string(groups_glob(o->groups, g, j)));
	}
	for (int i = 0; i < o->ncount_globs; i++)
		json_array_append_new(globs, json_string(o->count_globs[i]));
	return globs;
}

static json_t *count_op(const struct profile_opts *o, enum pq_op op, json_t *globs, pq_error *err)
{
	size_t n = json_array_size(globs);
	/* 8 fixed arguments, 2 per glob, and the NULL that ends the list. */
	const char **args = calloc(2 * n + 9, sizeof *args);
	if (!args) {
		pq_fail(err, PQ_ENOMEM, "out of memory");
		return NULL;
	}
	char a_iters[32], a_mlen[32];
	long iters = o->count_iters > 0 ? o->count_iters : DEFAULT_COUNT_ITERS;
	snprintf(a_iters, sizeof a_iters, "%ld", iters);
	snprintf(a_mlen, sizeof a_mlen, "%ld", o->mlen > 0 ? o->mlen : 64);
	int na = 0;
	args[na++] = "--op";
	args[na++] = pq_op_name(op);
	args[na++] = "--iters";
	args[na++] = a_iters;
	/* Counts do not depend on warm caches, and every call traps. */
	args[na++] = "--warmup";
	args[na++] = "0";
	args[na++] = "--mlen";
	args[na++] = a_mlen;
	for (size_t i = 0; i < n; i++) {
		args[na++] = "--func";
		args[na++] = json_string_value(json_array_get(globs, i));
	}
	/* The child opens the counters before it drops to the unprivileged uid. */
	const char **up_globs = calloc(n ? n : 1, sizeof *up_globs);
	if (!up_globs) {
		free(args);
		pq_fail(err, PQ_ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		up_globs[i] = json_string_value(json_array_get(globs, i));
	struct child_spec cs = { .job = "count", .lib = o->lib, .args = args,
	                         .timeout_s = o->timeout_s > 0 ? o->timeout_s : 900, .cpu = -1,
	                         .uprobe_globs = up_globs, .nuprobe_globs = n };
	struct child_result res;
	json_t *out = NULL;
	int r = child_run(&cs, &res, err);
	free(args);
	free(up_globs);
	if (r < 0)
		return NULL;
	if (res.end != CHILD_OK || !res.done) {
		child_failure(&res, "call counting", err);
		child_result_free(&res);
		return NULL;
	}
	json_t *d = res.done;
	if (!json_is_true(json_object_get(d, "available"))) {
		const char *why = json_string_value(json_object_get(d, "reason"));
		out = json_pack("{s:b, s:s}", "available", 0, "reason", why ?: "unknown");
	} else {
		json_int_t calls = json_integer_value(json_object_get(d, "calls"));
		json_t *fns = json_array();
		size_t i;
		json_t *f;
		json_array_foreach(json_object_get(d, "funcs"), i, f) {
			json_int_t total = json_integer_value(json_object_get(f, "total"));
			json_array_append_new(fns, json_pack("{s:O, s:f, s:O, s:O, s:I}", "name",
			                                     json_object_get(f, "name"), "calls_per_op",
			                                     calls ? (double)total / (double)calls : 0.0,
			                                     "min", json_object_get(f, "min"), "max",
			                                     json_object_get(f, "max"), "total", total));
		}
		out = json_pack("{s:b, s:I, s:o}", "available", 1, "ops", calls, "functions", fns);
	}
	child_result_free(&res);
	return out;
}

/* ---- the whole recording ---- */

static json_t *groups_json(const struct group_set *gs)
{
	json_t *a = json_array();
	for (size_t g = 0; gs && g < groups_count(gs); g++) {
		json_t *globs = json_array();
		for (size_t j = 0; j < groups_nglobs(gs, g); j++)
			json_array_append_new(globs, json_string(groups_glob(gs, g, j)));
		json_array_append_new(a, json_pack("{s:s, s:o}", "name", groups_name(gs, g), "globs", globs));
	}
	return a;
}

static json_t *header_base(const struct profile_opts *o, const char *requested_cg,
                           const char *lib_real, json_t *desc, json_t *calls)
{
	unsigned char seed_bytes[SEED_BYTES];
	for (int i = 0; i < SEED_BYTES; i++)
		seed_bytes[i] = (unsigned char)i;
	char seed[2 * SEED_BYTES + 1];
	hex_encode(seed_bytes, SEED_BYTES, seed);
	json_t *ops = json_array();
	for (int i = 0; i < o->nops; i++)
		json_array_append_new(ops, json_string(pq_op_name(o->ops[i])));
	json_t *h = json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:s, s:s, s:o, s:s, s:I, s:s, s:s}",
	                      "schema", "pqprof.trace-header/1", "tool", "pqprof profile", "lib",
	                      lib_real, "instance", desc, "cflags",
	                      json_object_get(desc, "cflags") ?: json_null(), "compiler",
	                      json_object_get(desc, "compiler") ?: json_null(), "event_requested",
	                      o->event ? o->event : "auto", "callgraph",
	                      o->callgraph ? o->callgraph : "fp", "ops", ops, "op_markers", "per-run",
	                      "mlen", (json_int_t)(o->mlen > 0 ? o->mlen : 64), "drng_seed", seed,
	                      "drng_seed_note",
	                      "the runner seeds the instance's randomness with these bytes "
	                      "before each child's set-up");
	if (!h)
		return NULL;
	json_object_set_new(h, "command", o->command ? json_string(o->command) : json_null());
	json_object_set_new(h, "callgraph_requested", json_string(requested_cg));
	json_object_set_new(h, "runner", json_string(child_runner_path()));
	json_object_set_new(h, "min_samples",
	                    json_integer(o->min_samples > 0 ? o->min_samples : DEFAULT_MIN_SAMPLES));
	json_object_set_new(h, "max_seconds",
	                    json_real(o->max_seconds > 0 ? o->max_seconds : DEFAULT_MAX_SECONDS));
	json_object_set_new(h, "environment", o->environment ? json_deep_copy(o->environment) : json_null());
	json_object_set_new(h, "groups", groups_json(o->groups));
	json_object_set_new(h, "calls", json_incref(calls));
	return h;
}

void profile_summary_free(struct profile_summary *sum)
{
	if (sum) {
		json_decref(sum->calls);
		sum->calls = NULL;
		for (int i = 0; i < sum->nops && i < PQ_OP_COUNT; i++) {
			json_decref(sum->ops[i].scheme_output);
			sum->ops[i].scheme_output = NULL;
		}
	}
}

int profile_record(const struct profile_opts *o, const char *trace_path,
                   struct profile_summary *sum_out, pq_error *err)
{
	struct profile_summary local;
	struct profile_summary *sum = sum_out ? sum_out : &local;
	memset(sum, 0, sizeof *sum);
	if (!o->lib || o->nops < 1 || o->nops > PQ_OP_COUNT)
		return pq_fail(err, PQ_EUSAGE, "profile: a library and 1..%d operations are needed", PQ_OP_COUNT);
	const char *cg = o->callgraph ? o->callgraph : "auto";
	if (strcmp(cg, "auto") && strcmp(cg, "fp") && strcmp(cg, "dwarf") && strcmp(cg, "none"))
		return pq_fail(err, PQ_EUSAGE, "call graph '%s': use auto, fp, dwarf or none", cg);
	if (o->event && sampler_event_parse(o->event) < 0)
		return pq_fail(err, PQ_EUSAGE, "event '%s': use auto, cycles, cpu-clock or task-clock", o->event);

	struct recorder rec = { .o = o, .trace_path = trace_path, .sum = sum };
	if (!realpath(o->lib, rec.lib_real))
		return pq_fail_errno(err, PQ_EIO, "%s", o->lib);
	json_t *desc = o->instance ? json_incref(o->instance) : NULL;
	if (!desc && instance_describe(o->lib, &desc, err) < 0)
		return -err->code;
	/* auto: frame pointers only where the instance was built to keep them. */
	struct profile_opts resolved = *o;
	if (strcmp(cg, "auto") == 0) {
		const char *cf = json_string_value(json_object_get(desc, "cflags"));
		resolved.callgraph = cf && strstr(cf, "-fno-omit-frame-pointer") ? "fp" : "dwarf";
	}
	o = &resolved;
	rec.o = o;

	/* Counts first: the header holds them, and a uprobe run never shares
	 * a child with sampling. */
	json_t *calls = json_object();
	json_t *globs = count_globs(o);
	int rc = 0;
	for (int i = 0; i < o->nops && rc == 0; i++) {
		const char *name = pq_op_name(o->ops[i]);
		json_t *c;
		if (o->no_counts)
			c = json_pack("{s:b, s:s}", "available", 0, "reason", "not measured (--no-counts)");
		else if (json_array_size(globs) == 0)
			c = json_pack("{s:b, s:s}", "available", 0, "reason", "no functions to count");
		else if (!(c = count_op(o, o->ops[i], globs, err)))
			rc = -err->code;
		if (c) {
			if (json_is_true(json_object_get(c, "available")))
				progress(o, "%s: counted calls of %zu function(s) in %lld call(s)", name,
				         json_array_size(json_object_get(c, "functions")),
				         (long long)json_integer_value(json_object_get(c, "ops")));
			else if (!o->no_counts)
				progress(o, "%s: call counts unavailable: %s", name,
				         json_string_value(json_object_get(c, "reason")));
			json_object_set_new(calls, name, c);
		}
	}
	json_decref(globs);
	if (rc == 0 && !(rec.header_base = header_base(o, cg, rec.lib_real, desc, calls)))
		rc = pq_fail(err, PQ_ENOMEM, "out of memory");
	json_decref(desc);
	sum->calls = calls;

	for (int i = 0; i < o->nops && rc == 0; i++) {
		struct profile_op_summary *os = &sum->ops[sum->nops++];
		rc = sample_op(&rec, o->ops[i], os, err);
	}
	if (rec.w && rc == 0) {
		for (int i = 0; i < sum->nops; i++) {
			struct trace_unwind_stats *us = &sum->ops[i].unwind;
			us->op = (uint64_t)sum->ops[i].op;
			if (us->stacks)
				trace_write_unwind_stats(rec.w, us);
		}
	}
	if (rec.w) {
		pq_error cerr;
		trace_writer_set_run(rec.w, &rec.run);
		int c = trace_writer_close(rec.w, rc == 0, &sum->trace, &cerr);
		if (c < 0 && rc == 0) {
			*err = cerr;
			rc = c;
		}
	}
	json_decref(rec.header_base);
	build_id_cache_free(&rec.ids);
	if (!sum_out)
		profile_summary_free(sum);
	return rc;
}

int profile_record_op(const struct profile_opts *opts, enum pq_op op, const char *trace_path,
                      pq_error *err)
{
	struct profile_opts o = *opts;
	o.ops = &op;
	o.nops = 1;
	struct profile_summary sum;
	int r = profile_record(&o, trace_path, &sum, err);
	if (opts->op_out) {
		memset(opts->op_out, 0, sizeof *opts->op_out);
		if (sum.nops > 0) {
			*opts->op_out = sum.ops[0];
			sum.ops[0].scheme_output = NULL; /* now the caller's */
		}
	}
	profile_summary_free(&sum);
	return r;
}

json_t *profile_perturbation_json(const struct profile_op_summary *os)
{
	if (!os || !os->on_calls || !os->off_calls || !(os->off_cpu_s > 0) || !(os->off_wall_s > 0))
		return NULL;
	double on = os->on_cpu_s / (double)os->on_calls * 1e9, off = os->off_cpu_s / (double)os->off_calls * 1e9;
	double won = os->on_wall_s / (double)os->on_calls * 1e9, woff = os->off_wall_s / (double)os->off_calls * 1e9;
	return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "measure",
	                 "mean CPU ns per call, sampled and unsampled calls interleaved one by one", "on_ns", on,
	                 "off_ns", off, "ratio", on / off, "wall_on_ns", won, "wall_off_ns", woff, "wall_ratio",
	                 won / woff, "on_calls", (json_int_t)os->on_calls, "off_calls", (json_int_t)os->off_calls);
}
