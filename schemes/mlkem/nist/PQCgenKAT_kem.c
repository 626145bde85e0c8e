/* NIST PQC known-answer generator for the in-tree ML-KEM: writes
 * PQCkemKAT_<CRYPTO_SECRETKEYBYTES>.req and .rsp (100 records) with the
 * AES-256 CTR_DRBG of rng.c, checking that every decapsulation recovers
 * the encapsulated shared secret. */
#include <stdio.h>
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
    char fn_req[64], fn_rsp[64];
    FILE *fp_req, *fp_rsp;
    unsigned char entropy_input[48];
    unsigned char seed[KAT_RECORDS][48];
    unsigned char pk[CRYPTO_PUBLICKEYBYTES], sk[CRYPTO_SECRETKEYBYTES];
    unsigned char ct[CRYPTO_CIPHERTEXTBYTES];
    unsigned char ss[CRYPTO_BYTES], ss1[CRYPTO_BYTES];
    int i, ret;

    sprintf(fn_req, "PQCkemKAT_%d.req", CRYPTO_SECRETKEYBYTES);
    sprintf(fn_rsp, "PQCkemKAT_%d.rsp", CRYPTO_SECRETKEYBYTES);
    if ((fp_req = fopen(fn_req, "w")) == NULL) {
        printf("Couldn't open <%s> for write\n", fn_req);
        return KAT_FILE_OPEN_ERROR;
    }
    if ((fp_rsp = fopen(fn_rsp, "w")) == NULL) {
        printf("Couldn't open <%s> for write\n", fn_rsp);
        fclose(fp_req);
        return KAT_FILE_OPEN_ERROR;
    }

    /* Master DRBG: entropy 0..47; one 48-byte seed per record. */
    for (i = 0; i < 48; i++) {
        entropy_input[i] = (unsigned char)i;
    }
    randombytes_init(entropy_input, NULL, 256);
    for (i = 0; i < KAT_RECORDS; i++) {
        randombytes(seed[i], 48);
        fprintf(fp_req, "count = %d\n", i);
        fprint_bstr(fp_req, "seed = ", seed[i], 48);
        fprintf(fp_req, "pk =\nsk =\nct =\nss =\n\n");
    }
    fclose(fp_req);

    /* Each record reseeds the DRBG with its seed; keygen then draws d || z
     * and encapsulation m. */
    fprintf(fp_rsp, "# %s\n\n", CRYPTO_ALGNAME);
    for (i = 0; i < KAT_RECORDS; i++) {
        fprintf(fp_rsp, "count = %d\n", i);
        randombytes_init(seed[i], NULL, 256);
        fprint_bstr(fp_rsp, "seed = ", seed[i], 48);

        if ((ret = crypto_kem_keypair(pk, sk)) != 0) {
            printf("crypto_kem_keypair returned <%d>\n", ret);
            fclose(fp_rsp);
            return KAT_CRYPTO_FAILURE;
        }
        fprint_bstr(fp_rsp, "pk = ", pk, CRYPTO_PUBLICKEYBYTES);
        fprint_bstr(fp_rsp, "sk = ", sk, CRYPTO_SECRETKEYBYTES);

        if ((ret = crypto_kem_enc(ct, ss, pk)) != 0) {
            printf("crypto_kem_enc returned <%d>\n", ret);
            fclose(fp_rsp);
            return KAT_CRYPTO_FAILURE;
        }
        fprint_bstr(fp_rsp, "ct = ", ct, CRYPTO_CIPHERTEXTBYTES);
        fprint_bstr(fp_rsp, "ss = ", ss, CRYPTO_BYTES);
        fprintf(fp_rsp, "\n");

        if ((ret = crypto_kem_dec(ss1, ct, sk)) != 0) {
            printf("crypto_kem_dec returned <%d>\n", ret);
            fclose(fp_rsp);
            return KAT_CRYPTO_FAILURE;
        }
        if (memcmp(ss, ss1, CRYPTO_BYTES) != 0) {
            printf("crypto_kem_dec returned a different shared secret\n");
            fclose(fp_rsp);
            return KAT_CRYPTO_FAILURE;
        }
    }
    fclose(fp_rsp);
    return KAT_SUCCESS;
}
