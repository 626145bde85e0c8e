/* NIST PQC known-answer generator for the in-tree ML-DSA (FIPS 204): writes
 * PQCsignKAT_<CRYPTO_ALGNAME>.req and .rsp (100 records) using the
 * AES-256 CTR_DRBG of rng.c, checking every signature with crypto_sign_open. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "rng.h"

#define KAT_RECORDS 100

#define KAT_SUCCESS 0
#define KAT_FILE_OPEN_ERROR -1
#define KAT_CRYPTO_FAILURE -4

static void fprint_bstr(FILE *fp, const char *label, const unsigned char *a,
                        unsigned long long len)
{
    unsigned long long i;

    fprintf(fp, "%s", label);
    for (i = 0; i < len; i++) {
        fprintf(fp, "%02X", a[i]);
    }
    if (len == 0) {
        fprintf(fp, "00");
    }
    fprintf(fp, "\n");
}

int main(void)
{
    char fn_req[128], fn_rsp[128];
    FILE *fp_req, *fp_rsp;
    unsigned char entropy_input[48];
    unsigned char seed[KAT_RECORDS][48];
    unsigned char *msg[KAT_RECORDS];
    unsigned char pk[CRYPTO_PUBLICKEYBYTES], sk[CRYPTO_SECRETKEYBYTES];
    unsigned char *m1, *sm;
    unsigned long long mlen, smlen, mlen1;
    int i, ret;

    sprintf(fn_req, "PQCsignKAT_%s.req", CRYPTO_ALGNAME);
    sprintf(fn_rsp, "PQCsignKAT_%s.rsp", CRYPTO_ALGNAME);
    if ((fp_req = fopen(fn_req, "w")) == NULL) {
        printf("Couldn't open <%s> for write\n", fn_req);
        return KAT_FILE_OPEN_ERROR;
    }
    if ((fp_rsp = fopen(fn_rsp, "w")) == NULL) {
        printf("Couldn't open <%s> for write\n", fn_rsp);
        fclose(fp_req);
        return KAT_FILE_OPEN_ERROR;
    }

    /* Master DRBG: entropy 0..47; per record a 48-byte seed then the msg. */
    for (i = 0; i < 48; i++) {
        entropy_input[i] = (unsigned char)i;
    }
    randombytes_init(entropy_input, NULL, 256);
    for (i = 0; i < KAT_RECORDS; i++) {
        mlen = 33 * (unsigned long long)(i + 1);
        randombytes(seed[i], 48);
        msg[i] = (unsigned char *)malloc((size_t)mlen);
        if (msg[i] == NULL) {
            return KAT_CRYPTO_FAILURE;
        }
        randombytes(msg[i], mlen);
        fprintf(fp_req, "count = %d\n", i);
        fprint_bstr(fp_req, "seed = ", seed[i], 48);
        fprintf(fp_req, "mlen = %llu\n", mlen);
        fprint_bstr(fp_req, "msg = ", msg[i], mlen);
        fprintf(fp_req, "pk =\nsk =\nsmlen =\nsm =\n\n");
    }
    fclose(fp_req);

    fprintf(fp_rsp, "# %s\n\n", CRYPTO_ALGNAME);
    for (i = 0; i < KAT_RECORDS; i++) {
        mlen = 33 * (unsigned long long)(i + 1);
        fprintf(fp_rsp, "count = %d\n", i);
        fprint_bstr(fp_rsp, "seed = ", seed[i], 48);
        fprintf(fp_rsp, "mlen = %llu\n", mlen);
        fprint_bstr(fp_rsp, "msg = ", msg[i], mlen);

        m1 = (unsigned char *)calloc((size_t)(mlen + CRYPTO_BYTES), 1);
        sm = (unsigned char *)calloc((size_t)(mlen + CRYPTO_BYTES), 1);
        if (m1 == NULL || sm == NULL) {
            return KAT_CRYPTO_FAILURE;
        }

        randombytes_init(seed[i], NULL, 256);
        if ((ret = crypto_sign_keypair(pk, sk)) != 0) {
            printf("crypto_sign_keypair returned <%d>\n", ret);
            return KAT_CRYPTO_FAILURE;
        }
        fprint_bstr(fp_rsp, "pk = ", pk, CRYPTO_PUBLICKEYBYTES);
        fprint_bstr(fp_rsp, "sk = ", sk, CRYPTO_SECRETKEYBYTES);

        if ((ret = crypto_sign(sm, &smlen, msg[i], mlen, sk)) != 0) {
            printf("crypto_sign returned <%d>\n", ret);
            return KAT_CRYPTO_FAILURE;
        }
        fprintf(fp_rsp, "smlen = %llu\n", smlen);
        fprint_bstr(fp_rsp, "sm = ", sm, smlen);
        fprintf(fp_rsp, "\n");

        if ((ret = crypto_sign_open(m1, &mlen1, sm, smlen, pk)) != 0) {
            printf("crypto_sign_open returned <%d>\n", ret);
            return KAT_CRYPTO_FAILURE;
        }
        if (mlen != mlen1) {
            printf("crypto_sign_open returned bad 'mlen': got <%llu>, "
                   "expected <%llu>\n", mlen1, mlen);
            return KAT_CRYPTO_FAILURE;
        }
        if (memcmp(msg[i], m1, (size_t)mlen) != 0) {
            printf("crypto_sign_open returned bad 'm' value\n");
            return KAT_CRYPTO_FAILURE;
        }
        free(m1);
        free(sm);
        free(msg[i]);
    }
    fclose(fp_rsp);
    return KAT_SUCCESS;
}
