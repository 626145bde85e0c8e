/*
 * kat_engine: verdicts and outcomes (names, the outcome's text form) and
 * the engine's entry point, which checks the descriptor, arms the fault
 * guard and runs the flow (kat_flow.c) and the API deviation checks
 * (api_checks.c); see kat_engine.h.  Rounds are in kat_round.c, guarded
 * buffers in guarded_buf.c, the fault handler in fault_guard.c, judging
 * in kat_judge.c.
 */
#include "config.h"
#include "kat/kat_engine.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kat/api_checks.h"
#include "kat/fault_guard.h"
#include "kat/kat_flow.h"
#include "kat/kat_round.h"
#include "kat/nist_rng.h"
#include "kat/safe_text.h"
#include "core/text_buf.h"

/* ---- outcomes ---------------------------------------------- */

void kat_outcome_init(struct kat_outcome *o)
{
	memset(o, 0, sizeof *o);
	o->verdict = KAT_PASS;
	o->record = -1;
}

/*
 * The outcome is a fixed struct (the child fills it in from its fault
 * handler too), so its notes are bounded; what does not fit is said, never
 * dropped unseen: a note cut at KAT_NOTE_LEN ends in "…", and past
 * KAT_NOTES_MAX the last slot counts the notes not kept.
 */
/* buf[len] holds vsnprintf's output that wanted `want` bytes: when cut, it ends in "…" at a character boundary. */
static void mark_cut(char *buf, size_t len, int want)
{
	if (want >= (int)len)
		text_mark_cut(buf, len);
}

void kat_outcome_vreason(struct kat_outcome *o, const char *fmt, va_list ap)
{
	mark_cut(o->reason, sizeof o->reason, vsnprintf(o->reason, sizeof o->reason, fmt, ap));
}

void kat_outcome_reason(struct kat_outcome *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kat_outcome_vreason(o, fmt, ap);
	va_end(ap);
}

void kat_outcome_note(struct kat_outcome *o, const char *fmt, ...)
{
	if (o->nnotes >= KAT_NOTES_MAX) {
		o->notes_dropped++;
		snprintf(o->notes[KAT_NOTES_MAX - 1], KAT_NOTE_LEN, "and %d further notes, not kept", o->notes_dropped + 1);
		return;
	}
	char *n = o->notes[o->nnotes++];
	va_list ap;
	va_start(ap, fmt);
	mark_cut(n, KAT_NOTE_LEN, vsnprintf(n, KAT_NOTE_LEN, fmt, ap));
	va_end(ap);
}

static void sb_line(struct sbuf *s, const char *key, const char *val)
{
	sb_str(s, key);
	sb_str(s, " ");
	sb_str(s, val);
	if (s->n + 1 < s->cap)
		s->b[s->n++] = '\n';
	s->b[s->n] = '\0';
}

int kat_outcome_write_fd(int fd, const struct kat_outcome *o)
{
	char buf[KAT_NOTES_MAX * KAT_NOTE_LEN + 2048], num[32];
	struct sbuf s = {buf, 0, sizeof buf};
	struct sbuf ns = {num, 0, sizeof num};
	buf[0] = '\0';
	sb_line(&s, "verdict", kat_verdict_name(o->verdict));
	if (o->record < 0) {
		sb_str(&ns, "-1");
	} else {
		sb_num(&ns, (unsigned long long)o->record);
	}
	sb_line(&s, "record", num);
	sb_line(&s, "field", o->field[0] ? o->field : "-");
	ns.n = 0;
	sb_num(&ns, o->records_done);
	sb_line(&s, "records_done", num);
	sb_line(&s, "reason", o->reason);
	for (int i = 0; i < o->nnotes && i < KAT_NOTES_MAX; i++)
		sb_line(&s, "note", o->notes[i]);
	size_t off = 0;
	while (off < s.n) {
		ssize_t w = write(fd, buf + off, s.n - off);
		if (w <= 0)
			return -PQ_EIO;
		off += (size_t)w;
	}
	return 0;
}

int kat_outcome_parse(const char *buf, size_t len, struct kat_outcome *o, pq_error *err)
{
	kat_outcome_init(o);
	size_t pos = 0;
	long no = 0;
	int have_verdict = 0;
	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		no++;
		if (n == 0)
			continue;
		const char *sp = memchr(s, ' ', n);
		size_t kl = sp ? (size_t)(sp - s) : n;
		const char *v = sp ? sp + 1 : s + n;
		size_t vl = n - kl - (sp != NULL);
		char val[KAT_NOTE_LEN > 320 ? KAT_NOTE_LEN : 320];
		snprintf(val, sizeof val, "%.*s", (int)(vl < sizeof val ? vl : sizeof val - 1), v);
#define KEY(k) (kl == sizeof(k) - 1 && memcmp(s, k, kl) == 0)
		if (KEY("verdict")) {
			int vv = kat_verdict_parse(val);
			if (vv < 0)
				return pq_fail(err, PQ_EINPUT, "outcome:%ld: unknown verdict '%.40s'", no, val);
			o->verdict = (enum kat_verdict)vv;
			have_verdict = 1;
		} else if (KEY("record")) {
			o->record = strtol(val, NULL, 10);
		} else if (KEY("field")) {
			snprintf(o->field, sizeof o->field, "%.15s", strcmp(val, "-") ? val : "");
		} else if (KEY("records_done")) {
			o->records_done = (size_t)strtoull(val, NULL, 10);
		} else if (KEY("reason")) {
			kat_outcome_reason(o, "%s", val);
		} else if (KEY("note")) {
			kat_outcome_note(o, "%s", val);
		} else {
			return pq_fail(err, PQ_EINPUT, "outcome:%ld: unknown key '%.*s'", no,
			               (int)(kl > 40 ? 40 : kl), s);
		}
#undef KEY
	}
	if (!have_verdict)
		return pq_fail(err, PQ_EINPUT, "outcome: no verdict line");
	return 0;
}

/* ---- entry points ---------------------------------------------------------- */

void kat_engine_opts_init(struct kat_engine_opts *o)
{
	memset(o, 0, sizeof *o);
	o->outcome_fd = -1;
}

int kat_engine_file_name(const struct pqprof_instance *inst, char *buf, size_t n)
{
	struct pqprof_sizes sz;
	memset(&sz, 0, sizeof sz);
	if (inst->get_sizes)
		inst->get_sizes(&sz);
	int sig = inst->kind == PQPROF_KIND_SIG;
	int w;
	if (inst->api == PQPROF_API_NIST)
		w = snprintf(buf, n, "%s_%llu.rsp", sig ? "PQCsignKAT" : "PQCkemKAT", sz.sk);
	else
		w = snprintf(buf, n, "%s_%s.txt", sig ? "KAT_SIG" : "KAT_KEM",
		             inst->name ? inst->name : "unnamed");
	return w >= 0 && (size_t)w < n ? 0 : -PQ_EINPUT;
}

/* Descriptor problems that make the flow impossible; NULL when usable. */
static const char *descriptor_problem(const struct pqprof_instance *inst)
{
	if (inst->api != PQPROF_API_NGCC && inst->api != PQPROF_API_NIST)
		return "unknown API flavour";
	if (inst->kind != PQPROF_KIND_SIG && inst->kind != PQPROF_KIND_KEM)
		return "unknown scheme kind";
	if (!inst->get_sizes || !inst->keygen)
		return "no get_sizes or keygen";
	if (inst->kind == PQPROF_KIND_SIG && (!inst->sign || !inst->verify))
		return "signature instance without sign or verify";
	if (inst->kind == PQPROF_KIND_KEM && (!inst->enc || !inst->dec))
		return "KEM instance without enc or dec";
	if (inst->api == PQPROF_API_NGCC && !inst->seed)
		return "NGCC instance without a seed hook";
	if (inst->api == PQPROF_API_NIST && !inst->set_rng)
		return "NIST instance without a set_rng hook";
	return NULL;
}

int kat_engine_run(const struct pqprof_instance *inst, const struct kat_engine_opts *opts,
                   struct kat_outcome *out, struct kat_file *produced, pq_error *err)
{
	struct kat_engine_opts o;
	if (opts)
		o = *opts;
	else
		kat_engine_opts_init(&o);
	kat_outcome_init(out);
	kat_set_op_hook(o.op_hook);
	struct kat_file local;
	struct kat_file *f = produced ? produced : &local;
	memset(f, 0, sizeof *f);

	const char *bad = descriptor_problem(inst);
	if (bad) {
		out->verdict = KAT_LOADFAIL;
		kat_outcome_reason(out, "instance descriptor: %s", bad);
		return 0;
	}
	struct engine e = {.inst = inst, .nist = inst->api == PQPROF_API_NIST, .out = out};
	inst->get_sizes(&e.sz);
	if (e.sz.pk > KAT_SIZE_SANITY_MAX || e.sz.sk > KAT_SIZE_SANITY_MAX || e.sz.sig > KAT_SIZE_SANITY_MAX ||
	    e.sz.ct > KAT_SIZE_SANITY_MAX || e.sz.ss > KAT_SIZE_SANITY_MAX) {
		out->verdict = KAT_LOADFAIL;
		kat_outcome_reason(out, "instance declares absurd sizes (pk %llu, sk %llu, sig %llu, ct %llu, ss %llu)",
		         e.sz.pk, e.sz.sk, e.sz.sig, e.sz.ct, e.sz.ss);
		return 0;
	}
	int sig = inst->kind == PQPROF_KIND_SIG;
	enum kat_flavour fl = e.nist ? (sig ? KAT_NIST_SIG : KAT_NIST_KEM)
	                             : (sig ? KAT_NGCC_SIG : KAT_NGCC_KEM);
	if (kat_file_init(f, fl, e.nist ? inst->name : NULL) < 0)
		return pq_fail(err, PQ_ENOMEM, "KAT engine: out of memory");
	size_t nrec = o.records ? o.records : (e.nist ? 100 : 10);
	if (nrec > KAT_DEFAULT_MAX_RECORDS) {
		kat_file_free(f);
		return pq_fail(err, PQ_EUSAGE, "KAT engine: more than %zu records asked for",
		               KAT_DEFAULT_MAX_RECORDS);
	}

	gbuf_forget_all();
	fault_guard_arm(out, o.outcome_fd, o.overflow_exit ? o.overflow_exit : KAT_ENGINE_OVERFLOW_EXIT);
	kat_enter(-1, "start");
	struct fault_guard fg = {0};
	int rc = o.no_fault_handler ? 0 : fault_install(&fg);
	if (rc == 0) {
		if (e.nist)
			inst->set_rng(nist_rng_randombytes);
		rc = kat_flow_run_records(&e, nrec, f);
		if (rc == 0 && !e.failed && !o.no_deviation_checks)
			rc = kat_api_checks(&e);
		fault_remove(&fg);
	}
	fault_guard_disarm();
	nist_rng_wipe();
	if (rc < 0) {
		if (!produced)
			kat_file_free(f);
		return pq_fail(err, -rc, "KAT engine: %s",
		               rc == -PQ_ENOMEM ? "out of memory" : "internal error (libcrypto?)");
	}
	if (o.emit_path && f->nrecords > 0) {
		rc = kat_file_write(f, o.emit_path, err);
		if (rc < 0) {
			if (!produced)
				kat_file_free(f);
			return rc;
		}
	}
	if (!produced)
		kat_file_free(f);
	return 0;
}
