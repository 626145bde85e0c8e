/* kat_flow: the record loop of the NGCC and NIST flows; see kat_flow.h. */
#include "config.h"
#include "kat/kat_flow.h"
#include "kat/ctr_drbg.h"
#include "kat/sm3_drng.h"

#include <stdlib.h>
#include <string.h>

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
	return d->nist ? ctr_drbg_generate(&d->master, seed, KAT_NIST_SEED_LEN)
	               : sm3_drng_generate_bits(&d->seed_drng, seed, KAT_NGCC_SEED_LEN * 8);
}

int kat_flow_first_seed(int nist, uint8_t *out, size_t *len)
{
	struct draws d;
	int rc = draws_init(&d, nist);
	if (rc == 0)
		rc = draw_seed(&d, out);
	*len = rc == 0 ? (nist ? KAT_NIST_SEED_LEN : KAT_NGCC_SEED_LEN) : 0;
	ctr_drbg_wipe(&d.master);
	sm3_drng_wipe(&d.seed_drng);
	sm3_drng_wipe(&d.msg_drng);
	return rc;
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
		    (rc = kat_record_add_bytes(rec, "seed", seed, KAT_NIST_SEED_LEN)) < 0 ||
		    (rc = kat_record_add_int(rec, "mlen", r->mlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "msg", b[SB_M].data, (size_t)r->mlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "pk", b[SB_PK].data, (size_t)r->pklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "sk", b[SB_SK].data, (size_t)r->sklen)) < 0 ||
		    (rc = add_len_and_bytes(rec, "smlen", "sm", b[SB_BLOB].data, r->bloblen)) < 0)
			return rc;
		return 0;
	}
	if ((rc = kat_record_add_int(rec, "Count", i)) < 0 ||
	    (rc = add_len_and_bytes(rec, "Seed_Len", "Seed", seed, KAT_NGCC_SEED_LEN)) < 0 ||
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
		    (rc = kat_record_add_bytes(rec, "seed", seed, KAT_NIST_SEED_LEN)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "pk", b[KB_PK].data, (size_t)r->pklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "sk", b[KB_SK].data, (size_t)r->sklen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "ct", b[KB_CT].data, (size_t)r->ctlen)) < 0 ||
		    (rc = kat_record_add_bytes(rec, "ss", b[KB_SS].data, (size_t)r->sslen)) < 0)
			return rc;
		return 0;
	}
	if ((rc = kat_record_add_int(rec, "Count", i)) < 0 ||
	    (rc = add_len_and_bytes(rec, "Seed_Len", "Seed", seed, KAT_NGCC_SEED_LEN)) < 0 ||
	    (rc = add_len_and_bytes(rec, "PK_Len", "PK", b[KB_PK].data, r->pklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "SK_Len", "SK", b[KB_SK].data, r->sklen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "CT_Len", "CT", b[KB_CT].data, r->ctlen)) < 0 ||
	    (rc = add_len_and_bytes(rec, "SS_Len", "SS", b[KB_SS].data, r->sslen)) < 0)
		return rc;
	return 0;
}

int kat_flow_run_records(struct engine *e, size_t nrec, struct kat_file *f)
{
	int sig = e->inst->kind == PQPROF_KIND_SIG;
	struct draws d;
	if (draws_init(&d, e->nist) < 0)
		return -PQ_EINTERNAL;
	size_t seedlen = e->nist ? KAT_NIST_SEED_LEN : KAT_NGCC_SEED_LEN;
	size_t maxm = e->nist ? 33 * nrec : 56 + 8 * (nrec ? nrec - 1 : 0);
	uint8_t *m = malloc(maxm ? maxm : 1);
	if (!m)
		return -PQ_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < nrec && !e->failed && rc == 0; i++) {
		uint8_t seed[64];
		size_t mlen = e->nist ? 33 * (i + 1) : 56 + 8 * i;
		kat_enter((long)i, "draw");
		if (draw_seed(&d, seed) < 0 || (sig && draw_msg(&d, m, mlen) < 0)) {
			rc = -PQ_EINTERNAL;
			break;
		}
		if (kat_seed_scheme(e, seed, seedlen) < 0)
			break;
		struct kat_record *rec;
		if (sig) {
			struct sig_round r;
			rc = sig_round_alloc(e, &r, m, mlen);
			if (rc != 0) {
				rc = rc > 0 ? 0 : rc;
				break;
			}
			int rr = sig_round_run(e, &r);
			if (rr == 0) {
				rec = kat_file_add_record(f);
				rc = rec ? sig_record(e, rec, i, seed, &r) : -PQ_ENOMEM;
				if (rc == 0)
					e->out->records_done++;
			} else if (rr == -PQ_ENOMEM) {
				rc = rr;
			}
			sig_round_free(&r);
		} else {
			struct kem_round r;
			rc = kem_round_alloc(e, &r);
			if (rc < 0)
				break;
			if (kem_round_run(e, &r) == 0) {
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
