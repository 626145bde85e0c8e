/* NGCC signature API wrapper around the NIST-API SPHINCS+ core: sizes from
 * api.h, detached signatures cut out of / rebuilt into
 * sm = sig || m for crypto_sign / crypto_sign_open. */
#include <stdlib.h>
#include <string.h>

#include "SIG_AlgorithmInstance.h"
#include "api.h"

unsigned long long sig_get_pk_len_bytes()
{
    return CRYPTO_PUBLICKEYBYTES;
}

unsigned long long sig_get_sk_len_bytes()
{
    return CRYPTO_SECRETKEYBYTES;
}

unsigned long long sig_get_sn_len_bytes()
{
    return CRYPTO_BYTES;
}

int sig_keygen(unsigned char *pk, unsigned long long *pk_len_bytes,
               unsigned char *sk, unsigned long long *sk_len_bytes)
{
    if (crypto_sign_keypair(pk, sk) != 0) {
        return -3;
    }
    *pk_len_bytes = CRYPTO_PUBLICKEYBYTES;
    *sk_len_bytes = CRYPTO_SECRETKEYBYTES;
    return 0;
}

int sig_sign(unsigned char *sk, unsigned long long sk_len_bytes,
             unsigned char *m, unsigned long long m_len_bytes,
             unsigned char *sn, unsigned long long *sn_len_bytes)
{
    unsigned char *sm;
    unsigned long long smlen;

    if (sk_len_bytes != CRYPTO_SECRETKEYBYTES) {
        return -2;
    }
    sm = (unsigned char *)malloc((size_t)(CRYPTO_BYTES + m_len_bytes));
    if (sm == NULL) {
        return -4;
    }
    if (crypto_sign(sm, &smlen, m, m_len_bytes, sk) != 0 ||
        smlen < m_len_bytes) {
        free(sm);
        return -3;
    }
    /* sm = signature || message: keep only the signature. */
    *sn_len_bytes = smlen - m_len_bytes;
    memcpy(sn, sm, (size_t)*sn_len_bytes);
    free(sm);
    return 0;
}

int sig_verify(unsigned char *pk, unsigned long long pk_len_bytes,
               unsigned char *sn, unsigned long long sn_len_bytes,
               unsigned char *m, unsigned long long m_len_bytes)
{
    unsigned char *sm, *m_out;
    unsigned long long smlen, mlen;
    int ret;

    if (pk_len_bytes != CRYPTO_PUBLICKEYBYTES) {
        return -2;
    }
    if (sn_len_bytes != CRYPTO_BYTES) {
        return -1;
    }
    smlen = sn_len_bytes + m_len_bytes;
    sm = (unsigned char *)malloc((size_t)smlen);
    m_out = (unsigned char *)malloc((size_t)smlen);
    if (sm == NULL || m_out == NULL) {
        free(sm);
        free(m_out);
        return -4;
    }
    memcpy(sm, sn, (size_t)sn_len_bytes);
    memcpy(sm + sn_len_bytes, m, (size_t)m_len_bytes);
    ret = crypto_sign_open(m_out, &mlen, sm, smlen, pk);
    if (ret == 0 && (mlen != m_len_bytes ||
                     memcmp(m_out, m, (size_t)mlen) != 0)) {
        ret = -1;
    }
    free(sm);
    free(m_out);
    return ret == 0 ? 0 : -1;
}
