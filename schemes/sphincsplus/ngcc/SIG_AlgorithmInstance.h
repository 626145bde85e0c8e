/* NGCC signature API (API_PKC) for the in-tree SPHINCS+ (SHAKE, simple);
 * the instance name follows the parameter set chosen with -DPARAMS. */
#ifndef SIG_ALGORITHMINSTANCE_H
#define SIG_ALGORITHMINSTANCE_H

#include "params.h"

/* 0: write real test vectors (1 would leave the *_Len values blank). */
#define OUTPUT_BLANK_TEST_VECTORS 0

/* e.g. "SPHINCS-shake-128f-simple" (only [A-Za-z0-9_-], so no '+'). */
#define ALGORITHM_INSTANCE "SPHINCS-" SPX_PARAM_NAME "-simple"

#ifdef __cplusplus
extern "C" {
#endif

unsigned long long sig_get_pk_len_bytes();
unsigned long long sig_get_sk_len_bytes();
unsigned long long sig_get_sn_len_bytes();

int sig_keygen(unsigned char *pk, unsigned long long *pk_len_bytes,
               unsigned char *sk, unsigned long long *sk_len_bytes);

int sig_sign(unsigned char *sk, unsigned long long sk_len_bytes,
             unsigned char *m, unsigned long long m_len_bytes,
             unsigned char *sn, unsigned long long *sn_len_bytes);

int sig_verify(unsigned char *pk, unsigned long long pk_len_bytes,
               unsigned char *sn, unsigned long long sn_len_bytes,
               unsigned char *m, unsigned long long m_len_bytes);

#ifdef __cplusplus
}
#endif

#endif
