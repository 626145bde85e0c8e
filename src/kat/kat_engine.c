/*
 * kat_engine: KAT flows with guarded buffers, deviation checks, outcomes
 * and judging; see kat_engine.h.  Laid out as: outcome text, guarded
 * buffers and the fault handler, the engine context, one round of
 * keygen/sign/verify (or keygen/enc/dec), the four flows, deviation
 * checks, judging.
 */
#include "config.h"
#include "kat/kat_engine.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kat/ctr_drbg.h"
#include "kat/sm3_drng.h"

/* Declared sizes above this are a broken descriptor, not a scheme. */
#define SIZE_SANITY_MAX ((pq_u64)1 << 30)
#define CANARY_MIN 64

/* ---- outcomes ---------------------------------------------- */

void kat_outcome_init(struct kat_outcome *o)
{
	memset(o, 0, sizeof *o);
	o->verdict = KAT_PASS;
	o->record = -1;
}

void kat_outcome_note(struct kat_outcome *o, const char *fmt, ...)
{
	if (o->nnotes >= KAT_NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->notes[o->nnotes++], KAT_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* Async-signal-safe string building (no stdio in the fault handler). */
struct sbuf {
	char *b;
	size_t n, cap;
};

static void sb_str(struct sbuf *s, const char *t)
{
	while (t && *t && s->n + 1 < s->cap) {
		char c = *t++;
		s->b[s->n++] = (c == '\n' || c == '\r') ? ' ' : c;
	}
	s->b[s->n] = '\0';
}

static void sb_num(struct sbuf *s, unsigned long long v)
{
	char d[24];
	int i = 0;
	do {
		d[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	char out[24];
	for (int k = 0; k < i; k++)
		out[k] = d[i - 1 - k];
	out[i] = '\0';
	sb_str(s, out);
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
	char buf[4096], num[32];
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
			snprintf(o->reason, sizeof o->reason, "%s", val);
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

/* ---- guarded buffers and the fault handler ------------------------------ */

struct gbuf {
	uint8_t *map;
	size_t maplen;
	uint8_t *data;       /* declared buffer */
	size_t len;          /* declared length */
	uint8_t *lo_guard, *hi_guard;
	char name[KAT_FIELD_NAME_MAX];
};

#define GUARDS_MAX 16
static struct {
	uintptr_t lo_guard, hi_guard;   /* page starts; 0 = free slot */
	size_t len;
	char name[KAT_FIELD_NAME_MAX];
} guard_table[GUARDS_MAX];

/* Fault-handler context; see the header comment for why it is static. */
static struct {
	struct kat_outcome *out;
	volatile long record;
	const char *volatile op;
	int outcome_fd;
	int exit_code;
	size_t page;
} fault_ctx;

static uint8_t canary_byte(size_t off)
{
	return (uint8_t)(0xA5 ^ (off * 0x3B) ^ (off >> 8));
}

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

static void guard_register(const struct gbuf *g)
{
	for (int i = 0; i < GUARDS_MAX; i++) {
		if (!guard_table[i].lo_guard) {
			memcpy(guard_table[i].name, g->name, sizeof g->name);
			guard_table[i].len = g->len;
			guard_table[i].hi_guard = (uintptr_t)g->hi_guard;
			guard_table[i].lo_guard = (uintptr_t)g->lo_guard;
			return;
		}
	}
}

static void guard_unregister(const struct gbuf *g)
{
	for (int i = 0; i < GUARDS_MAX; i++)
		if (guard_table[i].lo_guard == (uintptr_t)g->lo_guard)
			guard_table[i].lo_guard = guard_table[i].hi_guard = 0;
}

/*
 * [lo guard page][canary ... data(len) slack-canary][hi guard page]
 * data is 16-byte aligned, so up to 15 slack bytes lie between its
 * declared end and the high guard page.
 */
static int gbuf_alloc(struct gbuf *g, const char *name, size_t len)
{
	size_t page = page_size();
	memset(g, 0, sizeof *g);
	snprintf(g->name, sizeof g->name, "%s", name);
	size_t body = (CANARY_MIN + len + 15 + page - 1) / page * page;
	g->maplen = body + 2 * page;
	void *m = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		g->map = NULL;
		return -PQ_ENOMEM;
	}
	g->map = m;
	g->lo_guard = g->map;
	g->hi_guard = g->map + page + body;
	if (mprotect(g->lo_guard, page, PROT_NONE) != 0 ||
	    mprotect(g->hi_guard, page, PROT_NONE) != 0) {
		munmap(g->map, g->maplen);
		g->map = NULL;
		return -PQ_ENOMEM;
	}
	g->len = len;
	g->data = (uint8_t *)((uintptr_t)(g->hi_guard - len) & ~(uintptr_t)15);
	uint8_t *body_start = g->map + page;
	for (uint8_t *p = body_start; p < g->data; p++)
		*p = canary_byte((size_t)(p - body_start));
	for (uint8_t *p = g->data + len; p < g->hi_guard; p++)
		*p = canary_byte((size_t)(p - body_start));
	guard_register(g);
	return 0;
}

static void gbuf_free(struct gbuf *g)
{
	if (g->map) {
		guard_unregister(g);
		munmap(g->map, g->maplen);
	}
	memset(g, 0, sizeof *g);
}

/* 0 if intact; else +1 (past the end, *at = offset from data) or -1 (before). */
static int gbuf_check(const struct gbuf *g, size_t *at)
{
	const uint8_t *body_start = g->lo_guard + fault_ctx.page;
	for (const uint8_t *p = g->data + g->len; p < g->hi_guard; p++) {
		if (*p != canary_byte((size_t)(p - body_start))) {
			*at = (size_t)(p - g->data);
			return 1;
		}
	}
	for (const uint8_t *p = g->data; p > body_start; p--) {
		if (p[-1] != canary_byte((size_t)(p - 1 - body_start))) {
			*at = (size_t)(g->data - (p - 1));
			return -1;
		}
	}
	return 0;
}

/* What SIGSEGV/SIGBUS did before fault_install: faults that are not ours go there. */
static struct sigaction chained_segv, chained_bus;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	size_t page = fault_ctx.page;
	for (int i = 0; i < GUARDS_MAX && fault_ctx.out; i++) {
		uintptr_t lo = guard_table[i].lo_guard, hi = guard_table[i].hi_guard;
		int past = hi && a >= hi && a - hi < page;
		int before = lo && a >= lo && a - lo < page;
		if (!past && !before)
			continue;
		struct kat_outcome *o = fault_ctx.out;
		o->verdict = KAT_OVERFLOW;
		o->record = fault_ctx.record;
		memcpy(o->field, guard_table[i].name, sizeof o->field);
		struct sbuf s = {o->reason, 0, sizeof o->reason};
		o->reason[0] = '\0';
		if (fault_ctx.record >= 0) {
			sb_str(&s, "record ");
			sb_num(&s, (unsigned long long)fault_ctx.record);
			sb_str(&s, " ");
		} else {
			sb_str(&s, "deviation check ");
		}
		sb_str(&s, fault_ctx.op);
		sb_str(&s, past ? ": wrote past the end of " : ": wrote before the start of ");
		sb_str(&s, guard_table[i].name);
		sb_str(&s, " (declared ");
		sb_num(&s, guard_table[i].len);
		sb_str(&s, " bytes; guard page hit)");
		if (fault_ctx.outcome_fd >= 0)
			kat_outcome_write_fd(fault_ctx.outcome_fd, o);
		_exit(fault_ctx.exit_code);
	}
	/*
	 * Not ours: hand it to whoever handled it before (the runner's fault
	 * handler, which tells the parent the op and diagnoses stack overflow
	 * and out of memory; or SIG_DFL).  A real fault is re-raised by the
	 * faulting instruction itself on return, with its address intact.
	 */
	sigaction(sig, sig == SIGBUS ? &chained_bus : &chained_segv, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

struct fault_guard {
	int installed;
	struct sigaction old_segv, old_bus;
	stack_t old_stack;
	void *stack;
	size_t stack_len;
};

static int fault_install(struct fault_guard *fg)
{
	memset(fg, 0, sizeof *fg);
	fg->stack_len = 256 * 1024;
	fg->stack = mmap(NULL, fg->stack_len, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fg->stack == MAP_FAILED) {
		fg->stack = NULL;
		return -PQ_ENOMEM;
	}
	stack_t st = {.ss_sp = fg->stack, .ss_size = fg->stack_len, .ss_flags = 0};
	if (sigaltstack(&st, &fg->old_stack) != 0) {
		munmap(fg->stack, fg->stack_len);
		fg->stack = NULL;
		return -PQ_EINTERNAL;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &fg->old_segv);
	sigaction(SIGBUS, &sa, &fg->old_bus);
	chained_segv = fg->old_segv;
	chained_bus = fg->old_bus;
	fg->installed = 1;
	return 0;
}

static void fault_remove(struct fault_guard *fg)
{
	if (!fg->installed)
		return;
	sigaction(SIGSEGV, &fg->old_segv, NULL);
	sigaction(SIGBUS, &fg->old_bus, NULL);
	/* The old stack may have been "disabled", which restores as such. */
	sigaltstack(&fg->old_stack, NULL);
	munmap(fg->stack, fg->stack_len);
	fg->installed = 0;
}

/* ---- engine context ------------------------------------------------------ */

/* The NIST randombytes() DRBG; static because the rng callback has no user pointer. */
static ctr_drbg scheme_drbg;

static int engine_rng(unsigned char *out, pq_u64 len)
{
	if (len > SIZE_MAX)
		return -1;
	return ctr_drbg_generate(&scheme_drbg, out, (size_t)len) == 0 ? 0 : -1;
}

struct engine {
	const struct pqprof_instance *inst;
	struct pqprof_sizes sz;
	int nist;
	struct kat_outcome *out;
	int failed;            /* the outcome already holds a failure */
};

static void fail(struct engine *e, enum kat_verdict v, const char *field,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void fail(struct engine *e, enum kat_verdict v, const char *field, const char *fmt, ...)
{
	if (e->failed)
		return;
	e->failed = 1;
	e->out->verdict = v;
	e->out->record = fault_ctx.record;
	snprintf(e->out->field, sizeof e->out->field, "%s", field ? field : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->out->reason, sizeof e->out->reason, fmt, ap);
	va_end(ap);
}

/* "record 3 sign" or "deviation check keygen" for messages. */
static void where(char *buf, size_t n)
{
	if (fault_ctx.record >= 0)
		snprintf(buf, n, "record %ld %s", fault_ctx.record, fault_ctx.op);
	else
		snprintf(buf, n, "deviation check %s", fault_ctx.op);
}

/* Who wants to know which call is in progress (the runner, for exit() and crash reports). */
static void (*op_hook)(const char *op, long record);

static void enter(long record, const char *op)
{
	fault_ctx.record = record;
	fault_ctx.op = op;
	if (op_hook)
		op_hook(op, record);
}

/* Canary check of every buffer of the current round. */
static int check_bufs(struct engine *e, struct gbuf *bufs, int n)
{
	for (int i = 0; i < n; i++) {
		size_t at;
		int r = bufs[i].map ? gbuf_check(&bufs[i], &at) : 0;
		if (r) {
			char w[64];
			where(w, sizeof w);
			if (r > 0)
				fail(e, KAT_OVERFLOW, bufs[i].name,
				     "%s: wrote past the end of %s (byte %zu of a %zu-byte buffer)", w,
				     bufs[i].name, at, bufs[i].len);
			else
				fail(e, KAT_OVERFLOW, bufs[i].name,
				     "%s: wrote %zu byte(s) before the start of %s", w, at, bufs[i].name);
			return -1;
		}
	}
	return 0;
}

static int check_len(struct engine *e, const char *name, pq_u64 got, pq_u64 declared)
{
	if (got <= declared)
		return 0;
	char w[64];
	where(w, sizeof w);
	fail(e, KAT_OVERFLOW, name, "%s: produced %s of %llu bytes, declared %llu", w, name,
	     got, declared);
	return -1;
}

static int check_rc(struct engine *e, int rc, const char *field)
{
	if (rc == 0)
		return 0;
	char w[64];
	where(w, sizeof w);
	fail(e, KAT_CRYPTOFAIL, field, "%s returned %d", w, rc);
	return -1;
}

/* Re-seed the scheme's randomness for one record (NGCC: 64 bytes, NIST: 48). */
static int seed_scheme(struct engine *e, const uint8_t *seed, size_t len)
{
	if (e->nist) {
		if (ctr_drbg_init(&scheme_drbg, seed, NULL) < 0) {
			fail(e, KAT_CRYPTOFAIL, NULL, "AES-256 CTR_DRBG unavailable in libcrypto");
			return -1;
		}
		return 0;
	}
	enter(fault_ctx.record, "seed");
	return check_rc(e, e->inst->seed(seed, len), NULL);
}

/* ---- one signature round -------------------------------------------------- */

enum { SB_PK, SB_SK, SB_BLOB, SB_M, SB_SCRATCH, SB_N };

struct sig_round {
	struct gbuf b[SB_N];
	pq_u64 pklen, sklen, bloblen, mlen;
};

static pq_u64 blob_max(struct engine *e, pq_u64 mlen)
{
	if (e->inst->sig_blob_max)
		return e->inst->sig_blob_max(mlen);
	return e->nist ? e->sz.sig + mlen : e->sz.sig;
}

static void sig_round_free(struct sig_round *r)
{
	for (int i = 0; i < SB_N; i++)
		gbuf_free(&r->b[i]);
}

static int sig_round_alloc(struct engine *e, struct sig_round *r, const uint8_t *m, size_t mlen)
{
	memset(r, 0, sizeof *r);
	pq_u64 bmax = blob_max(e, mlen);
	if (bmax > SIZE_SANITY_MAX) {
		fail(e, KAT_LOADFAIL, NULL, "instance declares a %llu-byte signature blob", bmax);
		return 1;
	}
	const char *names[SB_N];
	names[SB_PK] = e->nist ? "pk" : "PK";
	names[SB_SK] = e->nist ? "sk" : "SK";
	names[SB_BLOB] = e->nist ? "sm" : "Sn";
	names[SB_M] = e->nist ? "msg" : "M";
	names[SB_SCRATCH] = "scratch";
	size_t lens[SB_N] = {e->sz.pk, e->sz.sk, bmax, mlen, bmax};
	for (int i = 0; i < SB_N; i++) {
		if (gbuf_alloc(&r->b[i], names[i], lens[i]) < 0) {
			sig_round_free(r);
			return -PQ_ENOMEM;
		}
	}
	if (mlen)
		memcpy(r->b[SB_M].data, m, mlen);
	r->mlen = mlen;
	return 0;
}

/* verify and, for NIST, the opened message; returns the scheme's answer. */
static int sig_verify(struct engine *e, struct sig_round *r, const uint8_t *blob, pq_u64 bloblen,
                      int *accepted)
{
	uint8_t *b = r->b[SB_BLOB].data;
	if (blob != b)
		memcpy(b, blob, (size_t)bloblen);
	int rc = e->inst->verify(r->b[SB_PK].data, r->pklen, b, bloblen, r->b[SB_M].data, r->mlen,
	                         r->b[SB_SCRATCH].data);
	*accepted = rc == 0;
	if (*accepted && e->nist && r->mlen &&
	    memcmp(r->b[SB_SCRATCH].data, r->b[SB_M].data, (size_t)r->mlen) != 0)
		*accepted = 0;
	return rc;
}

/* keygen, sign, verify of one round; 0 ok, -1 failure recorded. */
static int sig_run(struct engine *e, struct sig_round *r)
{
	struct gbuf *b = r->b;
	enter(fault_ctx.record, "keygen");
	r->pklen = e->sz.pk;
	r->sklen = e->sz.sk;
	int rc = e->inst->keygen(b[SB_PK].data, &r->pklen, b[SB_SK].data, &r->sklen);
	if (check_bufs(e, b, SB_N) || check_rc(e, rc, NULL) ||
	    check_len(e, b[SB_PK].name, r->pklen, e->sz.pk) ||
	    check_len(e, b[SB_SK].name, r->sklen, e->sz.sk))
		return -1;
	if (e->nist) {
		/* PQCgenKAT records CRYPTO_*BYTES whatever the shim says. */
		r->pklen = e->sz.pk;
		r->sklen = e->sz.sk;
	}
	uint8_t *mcopy = malloc(r->mlen ? (size_t)r->mlen : 1);
	if (!mcopy) {
		fail(e, KAT_CRYPTOFAIL, NULL, "out of memory");
		return -1;
	}
	if (r->mlen)
		memcpy(mcopy, b[SB_M].data, (size_t)r->mlen);
	enter(fault_ctx.record, "sign");
	r->bloblen = b[SB_BLOB].len;
	rc = e->inst->sign(b[SB_SK].data, r->sklen, b[SB_M].data, r->mlen, b[SB_BLOB].data,
	                       &r->bloblen);
	int bad = check_bufs(e, b, SB_N) || check_rc(e, rc, NULL) ||
	          check_len(e, b[SB_BLOB].name, r->bloblen, b[SB_BLOB].len);
	if (!bad && r->mlen && memcmp(mcopy, b[SB_M].data, (size_t)r->mlen) != 0) {
		kat_outcome_note(e->out, "sign modified the message buffer");
		memcpy(b[SB_M].data, mcopy, (size_t)r->mlen);
	}
	free(mcopy);
	if (bad)
		return -1;
	enter(fault_ctx.record, "verify");
	int accepted;
	rc = sig_verify(e, r, b[SB_BLOB].data, r->bloblen, &accepted);
	if (check_bufs(e, b, SB_N))
		return -1;
	if (!accepted) {
		char w[64];
		where(w, sizeof w);
		if (rc == 0)
			fail(e, KAT_CRYPTOFAIL, b[SB_BLOB].name,
			     "%s: the opened message differs from the signed one", w);
		else
			fail(e, KAT_CRYPTOFAIL, b[SB_BLOB].name,
			     "%s rejected the scheme's own signature (returned %d)", w, rc);
		return -1;
	}
	return 0;
}

/* ---- one KEM round ---------------------------------------------------------- */

enum { KB_PK, KB_SK, KB_CT, KB_SS, KB_SS2, KB_N };

struct kem_round {
	struct gbuf b[KB_N];
	pq_u64 pklen, sklen, ctlen, sslen, ss2len;
};

static void kem_round_free(struct kem_round *r)
{
	for (int i = 0; i < KB_N; i++)
		gbuf_free(&r->b[i]);
}

static int kem_round_alloc(struct engine *e, struct kem_round *r)
{
	memset(r, 0, sizeof *r);
	const char *names[KB_N] = {
		e->nist ? "pk" : "PK", e->nist ? "sk" : "SK", e->nist ? "ct" : "CT",
		e->nist ? "ss" : "SS", "dec ss",
	};
	size_t lens[KB_N] = {e->sz.pk, e->sz.sk, e->sz.ct, e->sz.ss, e->sz.ss};
	for (int i = 0; i < KB_N; i++) {
		if (gbuf_alloc(&r->b[i], names[i], lens[i]) < 0) {
			kem_round_free(r);
			return -PQ_ENOMEM;
		}
	}
	return 0;
}

static int kem_dec(struct engine *e, struct kem_round *r)
{
	struct gbuf *b = r->b;
	enter(fault_ctx.record, "dec");
	memset(b[KB_SS2].data, 0, b[KB_SS2].len);
	r->ss2len = e->sz.ss;
	int rc = e->inst->dec(b[KB_SK].data, r->sklen, b[KB_CT].data, r->ctlen, b[KB_SS2].data,
	                      &r->ss2len);
	if (check_bufs(e, b, KB_N) || check_len(e, b[KB_SS2].name, r->ss2len, e->sz.ss))
		return -1;
	return rc;
}

static int kem_run(struct engine *e, struct kem_round *r)
{
	struct gbuf *b = r->b;
	enter(fault_ctx.record, "keygen");
	r->pklen = e->sz.pk;
	r->sklen = e->sz.sk;
	int rc = e->inst->keygen(b[KB_PK].data, &r->pklen, b[KB_SK].data, &r->sklen);
	if (check_bufs(e, b, KB_N) || check_rc(e, rc, NULL) ||
	    check_len(e, b[KB_PK].name, r->pklen, e->sz.pk) ||
	    check_len(e, b[KB_SK].name, r->sklen, e->sz.sk))
		return -1;
	enter(fault_ctx.record, "enc");
	r->sslen = e->sz.ss;
	r->ctlen = e->sz.ct;
	rc = e->inst->enc(b[KB_PK].data, r->pklen, b[KB_SS].data, &r->sslen, b[KB_CT].data,
	                  &r->ctlen);
	if (check_bufs(e, b, KB_N) || check_rc(e, rc, NULL) ||
	    check_len(e, b[KB_SS].name, r->sslen, e->sz.ss) ||
	    check_len(e, b[KB_CT].name, r->ctlen, e->sz.ct))
		return -1;
	if (e->nist) {
		r->pklen = e->sz.pk;
		r->sklen = e->sz.sk;
		r->ctlen = e->sz.ct;
		r->sslen = e->sz.ss;
	}
	rc = kem_dec(e, r);
	if (e->failed || check_rc(e, rc, NULL))
		return -1;
	if (r->ss2len != r->sslen || memcmp(b[KB_SS].data, b[KB_SS2].data, (size_t)r->sslen) != 0) {
		char w[64];
		where(w, sizeof w);
		fail(e, KAT_CRYPTOFAIL, b[KB_SS].name,
		     "%s: decapsulated shared secret differs from the encapsulated one", w);
		return -1;
	}
	return 0;
}

/* ---- the flows ----------------------------------------------------------- */

#define NGCC_SEED_LEN 64
#define NIST_SEED_LEN 48

static void ngcc_nonce(const char *word, uint8_t out[64])
{
	size_t wl = strlen(word);
	for (size_t i = 0; i < 64; i++)
		out[i] = (uint8_t)word[i % wl];
}

/* The record's seed and, for signatures, message, drawn before any scheme code. */
struct draws {
	int nist;
	sm3_drng seed_drng, msg_drng;
	ctr_drbg master;
};

static int draws_init(struct draws *d, int nist)
{
	memset(d, 0, sizeof *d);
	d->nist = nist;
	if (nist) {
		uint8_t ent[48];
		for (int i = 0; i < 48; i++)
			ent[i] = (uint8_t)i;
		return ctr_drbg_init(&d->master, ent, NULL);
	}
	uint8_t s[64], m[64];
	ngcc_nonce("seed", s);
	ngcc_nonce("msg", m);
	m[63] = 'm';
	int rc = sm3_drng_init(&d->seed_drng, s, sizeof s);
	return rc < 0 ? rc : sm3_drng_init(&d->msg_drng, m, sizeof m);
}

static int draw_seed(struct draws *d, uint8_t *seed)
{
	return d->nist ? ctr_drbg_generate(&d->master, seed, NIST_SEED_LEN)
	               : sm3_drng_generate_bits(&d->seed_drng, seed, NGCC_SEED_LEN * 8);
}

static int draw_msg(struct draws *d, uint8_t *m, size_t mlen)
{
	return d->nist ? ctr_drbg_generate(&d->master, m, mlen)
	               : sm3_drng_generate_bits(&d->msg_drng, m, (uint64_t)mlen * 8);
}

static int add_len_and_bytes(struct kat_record *rec, const char *lname, const char *name,
                             const uint8_t *b, pq_u64 n)
{
	int rc = lname ? kat_record_add_int(rec, lname, n) : 0;
	return rc < 0 ? rc : kat_record_add_bytes(rec, name, b, (size_t)n);
}

static int sig_record(struct engine *e, struct kat_record *rec, size_t i, const uint8_t *seed,
                      const struct sig_round *r)
{
	const struct gbuf *b = r->b;
	int rc;
	if (e->nist) {
		if ((rc = kat_record_add_int(rec, "count", i)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "seed", seed, NIST_SEED_LEN)) < 0 ||
		    (rc = kat_record_add_int(rec, "mlen", r->mlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "msg", b[SB_M].data, (size_t)r->mlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "pk", b[SB_PK].data, (size_t)r->pklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "sk", b[SB_SK].data, (size_t)r->sklen)) < 0 ||
		    (rc = add_len_and_bytes(rec, "smlen", "sm", b[SB_BLOB].data, r->bloblen)) < 0)
			return rc;
		return 0;
	}
	if ((rc = kat_record_add_int(rec, "Count", i)) < 0 ||
	    (rc = add_len_and_bytes(rec, "Seed_Len", "Seed", seed, NGCC_SEED_LEN)) < 0 ||
	    (rc = add_len_and_bytes(rec, "PK_Len", "PK", b[SB_PK].data, r->pklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "SK_Len", "SK", b[SB_SK].data, r->sklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "M_Len", "M", b[SB_M].data, r->mlen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "Sn_Len", "Sn", b[SB_BLOB].data, r->bloblen)) < 0)
		return rc;
	return 0;
}

static int kem_record(struct engine *e, struct kat_record *rec, size_t i, const uint8_t *seed,
                      const struct kem_round *r)
{
	const struct gbuf *b = r->b;
	int rc;
	if (e->nist) {
		if ((rc = kat_record_add_int(rec, "count", i)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "seed", seed, NIST_SEED_LEN)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "pk", b[KB_PK].data, (size_t)r->pklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "sk", b[KB_SK].data, (size_t)r->sklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "ct", b[KB_CT].data, (size_t)r->ctlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "ss", b[KB_SS].data, (size_t)r->sslen)) < 0)
			return rc;
		return 0;
	}
	if ((rc = kat_record_add_int(rec, "Count", i)) < 0 ||
	    (rc = add_len_and_bytes(rec, "Seed_Len", "Seed", seed, NGCC_SEED_LEN)) < 0 ||
	    (rc = add_len_and_bytes(rec, "PK_Len", "PK", b[KB_PK].data, r->pklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "SK_Len", "SK", b[KB_SK].data, r->sklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "CT_Len", "CT", b[KB_CT].data, r->ctlen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "SS_Len", "SS", b[KB_SS].data, r->sslen)) < 0)
		return rc;
	return 0;
}

/* The record loop shared by the four flows; <0 on harness errors. */
static int run_records(struct engine *e, size_t nrec, struct kat_file *f)
{
	int sig = e->inst->kind == PQPROF_KIND_SIG;
	struct draws d;
	if (draws_init(&d, e->nist) < 0)
		return -PQ_EINTERNAL;
	size_t seedlen = e->nist ? NIST_SEED_LEN : NGCC_SEED_LEN;
	size_t maxm = e->nist ? 33 * nrec : 56 + 8 * (nrec ? nrec - 1 : 0);
	uint8_t *m = malloc(maxm ? maxm : 1);
	if (!m)
		return -PQ_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < nrec && !e->failed && rc == 0; i++) {
		uint8_t seed[64];
		size_t mlen = e->nist ? 33 * (i + 1) : 56 + 8 * i;
		enter((long)i, "draw");
		if (draw_seed(&d, seed) < 0 || (sig && draw_msg(&d, m, mlen) < 0)) {
			rc = -PQ_EINTERNAL;
			break;
		}
		if (seed_scheme(e, seed, seedlen) < 0)
			break;
		struct kat_record *rec;
		if (sig) {
			struct sig_round r;
			rc = sig_round_alloc(e, &r, m, mlen);
			if (rc != 0) {
				rc = rc > 0 ? 0 : rc;
				break;
			}
			if (sig_run(e, &r) == 0) {
				rec = kat_file_add_record(f);
				rc = rec ? sig_record(e, rec, i, seed, &r) : -PQ_ENOMEM;
				if (rc == 0)
					e->out->records_done++;
			}
			sig_round_free(&r);
		} else {
			struct kem_round r;
			rc = kem_round_alloc(e, &r);
			if (rc < 0)
				break;
			if (kem_run(e, &r) == 0) {
				rec = kat_file_add_record(f);
				rc = rec ? kem_record(e, rec, i, seed, &r) : -PQ_ENOMEM;
				if (rc == 0)
					e->out->records_done++;
			}
			kem_round_free(&r);
		}
	}
	free(m);
	return rc;
}

/* ---- API deviation checks ------------------------------------------------ */

static void check_seed(uint8_t *seed, uint8_t v)
{
	for (int i = 0; i < 64; i++)
		seed[i] = (uint8_t)(v + 17 * i);
}

/* Keys under seed A, seed B and seed A again; notes what looks wrong. */
static int check_keygen_draws(struct engine *e)
{
	size_t seedlen = e->nist ? NIST_SEED_LEN : NGCC_SEED_LEN;
	uint8_t *keys[3] = {NULL, NULL, NULL};
	size_t klen = (size_t)(e->sz.pk + e->sz.sk);
	int rc = 0;
	for (int k = 0; k < 3 && !e->failed && rc == 0; k++) {
		uint8_t seed[64];
		check_seed(seed, k == 1 ? 0x5A : 0x11);
		enter(-1, "seed");
		if (seed_scheme(e, seed, seedlen) < 0)
			break;
		struct sig_round r;   /* only pk and sk are used */
		rc = sig_round_alloc(e, &r, NULL, 0);
		if (rc != 0) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		enter(-1, "keygen");
		r.pklen = e->sz.pk;
		r.sklen = e->sz.sk;
		int krc = e->inst->keygen(r.b[SB_PK].data, &r.pklen, r.b[SB_SK].data, &r.sklen);
		if (check_bufs(e, r.b, SB_N) || check_rc(e, krc, NULL) ||
		    check_len(e, r.b[SB_PK].name, r.pklen, e->sz.pk) ||
		    check_len(e, r.b[SB_SK].name, r.sklen, e->sz.sk)) {
			sig_round_free(&r);
			break;
		}
		keys[k] = malloc(klen ? klen : 1);
		if (keys[k]) {
			memcpy(keys[k], r.b[SB_PK].data, (size_t)e->sz.pk);
			memcpy(keys[k] + e->sz.pk, r.b[SB_SK].data, (size_t)e->sz.sk);
		} else {
			rc = -PQ_ENOMEM;
		}
		sig_round_free(&r);
	}
	if (keys[2]) {
		if (memcmp(keys[0], keys[1], klen) == 0)
			kat_outcome_note(e->out, "keygen does not draw from the DRNG: "
			                 "identical keys under two different seeds");
		if (memcmp(keys[0], keys[2], klen) != 0)
			kat_outcome_note(e->out, "keygen is not reproducible: different keys "
			                 "under the same seed (randomness from elsewhere?)");
	}
	for (int k = 0; k < 3; k++)
		free(keys[k]);
	return rc;
}

/* Flip one bit of the blob at pos and see whether verify still accepts. */
static int sig_soundness_flip(struct engine *e, struct sig_round *r, size_t pos,
                              const char *what)
{
	uint8_t *orig = malloc((size_t)r->bloblen);
	if (!orig)
		return -PQ_ENOMEM;
	uint8_t *blob = r->b[SB_BLOB].data;
	memcpy(orig, blob, (size_t)r->bloblen);
	blob[pos] ^= 0x01;
	enter(-1, "verify");
	int accepted;
	sig_verify(e, r, blob, r->bloblen, &accepted);
	memcpy(blob, orig, (size_t)r->bloblen);
	free(orig);
	if (check_bufs(e, r->b, SB_N))
		return 0;
	if (accepted) {
		kat_outcome_note(e->out, "soundness: verify accepts a signature with %s", what);
		fail(e, KAT_CRYPTOFAIL, r->b[SB_BLOB].name,
		     "soundness failure: verify accepts a signature with %s", what);
	}
	return 0;
}

static int check_sig_soundness(struct engine *e)
{
	uint8_t seed[64], m[64];
	check_seed(seed, 0x33);
	for (int i = 0; i < 64; i++)
		m[i] = (uint8_t)(0xC0 ^ i);
	enter(-1, "seed");
	if (seed_scheme(e, seed, e->nist ? NIST_SEED_LEN : NGCC_SEED_LEN) < 0)
		return 0;
	struct sig_round r;
	int rc = sig_round_alloc(e, &r, m, sizeof m);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	fault_ctx.record = -1;
	if (sig_run(e, &r) == 0 && r.bloblen > 0) {
		/* Attached NIST sm: flip its first and its last byte (signature or message part). */
		rc = sig_soundness_flip(e, &r, 0, "one bit flipped");
		if (rc == 0 && !e->failed && e->nist && r.bloblen > 1)
			rc = sig_soundness_flip(e, &r, (size_t)r.bloblen - 1, "its last byte altered");
		if (rc == 0 && !e->failed && !e->nist) {
			r.b[SB_M].data[0] ^= 0x01;
			enter(-1, "verify");
			int accepted;
			sig_verify(e, &r, r.b[SB_BLOB].data, r.bloblen, &accepted);
			if (!check_bufs(e, r.b, SB_N) && accepted) {
				kat_outcome_note(e->out, "soundness: verify accepts a signature "
				                 "for a modified message");
				fail(e, KAT_CRYPTOFAIL, "M", "soundness failure: verify accepts "
				     "a signature for a modified message");
			}
		}
	}
	sig_round_free(&r);
	return rc;
}

static int check_kem_soundness(struct engine *e)
{
	uint8_t seed[64];
	check_seed(seed, 0x44);
	enter(-1, "seed");
	if (seed_scheme(e, seed, e->nist ? NIST_SEED_LEN : NGCC_SEED_LEN) < 0)
		return 0;
	struct kem_round r;
	int rc = kem_round_alloc(e, &r);
	if (rc < 0)
		return rc;
	fault_ctx.record = -1;
	if (kem_run(e, &r) == 0 && r.ctlen > 0) {
		r.b[KB_CT].data[0] ^= 0x01;
		int drc = kem_dec(e, &r);
		if (!e->failed && drc == 0 && r.ss2len == r.sslen &&
		    memcmp(r.b[KB_SS].data, r.b[KB_SS2].data, (size_t)r.sslen) == 0)
			kat_outcome_note(e->out, "dec of a modified ciphertext yields the same "
			                 "shared secret");
	}
	kem_round_free(&r);
	return rc;
}

static int deviation_checks(struct engine *e)
{
	int rc = check_keygen_draws(e);
	if (rc < 0 || e->failed)
		return rc;
	return e->inst->kind == PQPROF_KIND_SIG ? check_sig_soundness(e) : check_kem_soundness(e);
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
	op_hook = o.op_hook;
	struct kat_file local;
	struct kat_file *f = produced ? produced : &local;
	memset(f, 0, sizeof *f);

	const char *bad = descriptor_problem(inst);
	if (bad) {
		out->verdict = KAT_LOADFAIL;
		snprintf(out->reason, sizeof out->reason, "instance descriptor: %s", bad);
		return 0;
	}
	struct engine e = {.inst = inst, .nist = inst->api == PQPROF_API_NIST, .out = out};
	inst->get_sizes(&e.sz);
	if (e.sz.pk > SIZE_SANITY_MAX || e.sz.sk > SIZE_SANITY_MAX || e.sz.sig > SIZE_SANITY_MAX ||
	    e.sz.ct > SIZE_SANITY_MAX || e.sz.ss > SIZE_SANITY_MAX) {
		out->verdict = KAT_LOADFAIL;
		snprintf(out->reason, sizeof out->reason,
		         "instance declares absurd sizes (pk %llu, sk %llu, sig %llu, ct %llu, ss %llu)",
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

	memset(guard_table, 0, sizeof guard_table);
	fault_ctx.out = out;
	fault_ctx.outcome_fd = o.outcome_fd;
	fault_ctx.exit_code = o.overflow_exit ? o.overflow_exit : KAT_ENGINE_OVERFLOW_EXIT;
	fault_ctx.page = page_size();
	enter(-1, "start");
	struct fault_guard fg = {0};
	int rc = o.no_fault_handler ? 0 : fault_install(&fg);
	if (rc == 0) {
		if (e.nist)
			inst->set_rng(engine_rng);
		rc = run_records(&e, nrec, f);
		if (rc == 0 && !e.failed && !o.no_deviation_checks)
			rc = deviation_checks(&e);
		fault_remove(&fg);
	}
	fault_ctx.out = NULL;
	ctr_drbg_wipe(&scheme_drbg);
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

/* ---- judging --------------------------------------------------------------- */

void kat_judge(const struct kat_file *expected, const struct kat_file *produced,
               const struct kat_compare_opts *copts, struct kat_outcome *out)
{
	if (out->verdict != KAT_PASS)
		return;
	if (!expected) {
		out->verdict = KAT_NOKAT;
		snprintf(out->reason, sizeof out->reason, "no published vectors to compare with");
		return;
	}
	struct kat_diff d;
	if (kat_compare(expected, produced, copts, &d))
		return;
	out->verdict = KAT_MISMATCH;
	out->record = d.record;
	snprintf(out->field, sizeof out->field, "%s", d.field);
	snprintf(out->reason, sizeof out->reason, "%s", d.what);
}

int kat_judge_manifest(const struct manifest_entry *e, const char *produced_text, size_t len,
                       struct kat_outcome *out, pq_error *err)
{
	if (out->verdict != KAT_PASS)
		return 0;
	if (!e) {
		out->verdict = KAT_NOKAT;
		snprintf(out->reason, sizeof out->reason, "no manifest entry to compare with");
		return 0;
	}
	char actual[65], want[65];
	int rc = manifest_verify_buffer(e, produced_text, len, actual, err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		manifest_hex(e->digest, want);
		out->verdict = KAT_MISMATCH;
		out->record = -1;
		out->field[0] = '\0';
		snprintf(out->reason, sizeof out->reason,
		         "%s/%s: %s digest %.16s... differs from the manifest's %.16s...", e->label,
		         e->file, manifest_mode_name(e->mode), actual, want);
	}
	return 0;
}
