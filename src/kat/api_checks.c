/* api_checks: API deviation checks after the KAT records; see api_checks.h. */
#include "config.h"
#include "kat/api_checks.h"
#include "kat/fault_guard.h"

#include <stdlib.h>
#include <string.h>

static void check_seed(uint8_t *seed, uint8_t v)
{
	for (int i = 0; i < 64; i++)
		seed[i] = (uint8_t)(v + 17 * i);
}

/* Keys under seed A, seed B and seed A again; notes what looks wrong. */
static int check_keygen_draws(struct engine *e)
{
	size_t seedlen = e->nist ? KAT_NIST_SEED_LEN : KAT_NGCC_SEED_LEN;
	uint8_t *keys[3] = {NULL, NULL, NULL};
	size_t klen = (size_t)(e->sz.pk + e->sz.sk);
	int rc = 0;
	for (int k = 0; k < 3 && !e->failed && rc == 0; k++) {
		uint8_t seed[64];
		check_seed(seed, k == 1 ? 0x5A : 0x11);
		kat_enter(-1, "seed");
		if (kat_seed_scheme(e, seed, seedlen) < 0)
			break;
		struct sig_round r;   /* only pk and sk are used */
		rc = sig_round_alloc(e, &r, NULL, 0);
		if (rc != 0) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		kat_enter(-1, "keygen");
		r.pklen = e->sz.pk;
		r.sklen = e->sz.sk;
		int krc = e->inst->keygen(r.b[SB_PK].data, &r.pklen, r.b[SB_SK].data, &r.sklen);
		if (kat_check_bufs(e, r.b, SB_N) || kat_check_rc(e, krc, NULL) ||
		    kat_check_len(e, r.b[SB_PK].name, r.pklen, e->sz.pk) ||
		    kat_check_len(e, r.b[SB_SK].name, r.sklen, e->sz.sk)) {
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
	kat_enter(-1, "verify");
	int accepted;
	sig_round_verify(e, r, blob, r->bloblen, &accepted);
	memcpy(blob, orig, (size_t)r->bloblen);
	free(orig);
	if (kat_check_bufs(e, r->b, SB_N))
		return 0;
	if (accepted) {
		kat_outcome_note(e->out, "soundness: verify accepts a signature with %s", what);
		kat_fail(e, KAT_CRYPTOFAIL, r->b[SB_BLOB].name,
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
	kat_enter(-1, "seed");
	if (kat_seed_scheme(e, seed, e->nist ? KAT_NIST_SEED_LEN : KAT_NGCC_SEED_LEN) < 0)
		return 0;
	struct sig_round r;
	int rc = sig_round_alloc(e, &r, m, sizeof m);
	if (rc != 0)
		return rc > 0 ? 0 : rc;
	fault_guard_at(-1, fault_guard_op());
	int rr = sig_round_run(e, &r);
	if (rr == -PQ_ENOMEM)
		rc = rr;
	if (rr == 0 && r.bloblen > 0) {
		/* Attached NIST sm: flip its first and its last byte (signature or message part). */
		rc = sig_soundness_flip(e, &r, 0, "one bit flipped");
		if (rc == 0 && !e->failed && e->nist && r.bloblen > 1)
			rc = sig_soundness_flip(e, &r, (size_t)r.bloblen - 1, "its last byte altered");
		if (rc == 0 && !e->failed && !e->nist) {
			r.b[SB_M].data[0] ^= 0x01;
			kat_enter(-1, "verify");
			int accepted;
			sig_round_verify(e, &r, r.b[SB_BLOB].data, r.bloblen, &accepted);
			if (!kat_check_bufs(e, r.b, SB_N) && accepted) {
				kat_outcome_note(e->out, "soundness: verify accepts a signature "
				                 "for a modified message");
				kat_fail(e, KAT_CRYPTOFAIL, "M", "soundness failure: verify accepts "
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
	kat_enter(-1, "seed");
	if (kat_seed_scheme(e, seed, e->nist ? KAT_NIST_SEED_LEN : KAT_NGCC_SEED_LEN) < 0)
		return 0;
	struct kem_round r;
	int rc = kem_round_alloc(e, &r);
	if (rc < 0)
		return rc;
	fault_guard_at(-1, fault_guard_op());
	if (kem_round_run(e, &r) == 0 && r.ctlen > 0) {
		r.b[KB_CT].data[0] ^= 0x01;
		int drc = kem_round_dec(e, &r);
		if (!e->failed && drc == 0 && r.ss2len == r.sslen &&
		    memcmp(r.b[KB_SS].data, r.b[KB_SS2].data, (size_t)r.sslen) == 0)
			kat_outcome_note(e->out, "dec of a modified ciphertext yields the same "
			                 "shared secret");
	}
	kem_round_free(&r);
	return rc;
}

int kat_api_checks(struct engine *e)
{
	int rc = check_keygen_draws(e);
	if (rc < 0 || e->failed)
		return rc;
	return e->inst->kind == PQPROF_KIND_SIG ? check_sig_soundness(e) : check_kem_soundness(e);
}
