/* NGCC KAT driver for signatures: 10 records into
 * output/KAT_SIG_<ALGORITHM_INSTANCE>.txt, per-record seeding of the global
 * DRNG drng_algorithm, keygen / sign / verify through the NGCC API. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "SIG_AlgorithmInstance.h"
#include "drng.h"

#define SEED_LEN_BYTES 64
#define KAT_RECORDS 10
#define MSG_MIN_BYTES 56
#define MSG_STEP_BYTES 8
#define MSG_MAX_BYTES 128

#define KAT_OK 0
#define KAT_BAD_INSTANCE -1
#define KAT_FILE_ERROR -2
#define KAT_CRYPTO_FAILURE -3
#define KAT_ALLOC_FAILURE -4

/* The DRNG every scheme randomness request is served from. */
DRNG_ctx drng_algorithm;

static int instance_name_ok(const char *s)
{
    size_t i, n = strlen(s);

    if (n == 0 || n > 64) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        char c = s[i];

        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            return 0;
        }
    }
    return 1;
}

static void print_len(FILE *fp, const char *label, unsigned long long len)
{
#if OUTPUT_BLANK_TEST_VECTORS
    (void)len;
    fprintf(fp, "%s = \n", label);
#else
    fprintf(fp, "%s = %llu\n", label, len);
#endif
}

static void print_hex(FILE *fp, const char *label, const unsigned char *a,
                      unsigned long long len)
{
    unsigned long long i;

    fprintf(fp, "%s = ", label);
    for (i = 0; i < len; i++) {
        fprintf(fp, "%02X", a[i]);
    }
    fprintf(fp, "\n");
}

int main(void)
{
    DRNG_ctx drng_seed, drng_msg;
    unsigned char nonce_seed[SEED_LEN_BYTES], nonce_msg[SEED_LEN_BYTES];
    unsigned char seed[SEED_LEN_BYTES], m[MSG_MAX_BYTES];
    unsigned char *pk, *sk, *sn;
    unsigned long long pk_len, sk_len, sn_len, m_len;
    char fn[128];
    FILE *fp;
    int i, ret = KAT_OK;

    if (!instance_name_ok(ALGORITHM_INSTANCE)) {
        fprintf(stderr, "invalid ALGORITHM_INSTANCE\n");
        return KAT_BAD_INSTANCE;
    }
    if (mkdir("output", 0755) != 0 && errno != EEXIST) {
        return KAT_FILE_ERROR;
    }
    sprintf(fn, "output/KAT_SIG_%s.txt", ALGORITHM_INSTANCE);
    if ((fp = fopen(fn, "wb")) == NULL) {
        return KAT_FILE_ERROR;
    }

    pk = (unsigned char *)malloc((size_t)sig_get_pk_len_bytes());
    sk = (unsigned char *)malloc((size_t)sig_get_sk_len_bytes());
    sn = (unsigned char *)malloc((size_t)sig_get_sn_len_bytes());
    if (pk == NULL || sk == NULL || sn == NULL) {
        fclose(fp);
        return KAT_ALLOC_FAILURE;
    }

    /* "seedseed..." (64 bytes) and "msgmsg...msgm" (64 bytes). */
    for (i = 0; i < SEED_LEN_BYTES; i++) {
        nonce_seed[i] = (unsigned char)"seed"[i % 4];
        nonce_msg[i] = (unsigned char)"msg"[i % 3];
    }
    nonce_msg[SEED_LEN_BYTES - 1] = 'm';
    init_random_number(&drng_seed, nonce_seed, SEED_LEN_BYTES);
    init_random_number(&drng_msg, nonce_msg, SEED_LEN_BYTES);

    for (i = 0; i < KAT_RECORDS; i++) {
        m_len = MSG_MIN_BYTES + MSG_STEP_BYTES * (unsigned long long)i;
        get_random_number(&drng_seed, seed, SEED_LEN_BYTES * 8);
        get_random_number(&drng_msg, m, m_len * 8);

        init_random_number(&drng_algorithm, seed, SEED_LEN_BYTES);
        if (sig_keygen(pk, &pk_len, sk, &sk_len) != 0 ||
            sig_sign(sk, sk_len, m, m_len, sn, &sn_len) != 0 ||
            sig_verify(pk, pk_len, sn, sn_len, m, m_len) != 0) {
            ret = KAT_CRYPTO_FAILURE;
            break;
        }

        fprintf(fp, "Count = %d\n", i);
        print_len(fp, "Seed_Len", SEED_LEN_BYTES);
        print_hex(fp, "Seed", seed, SEED_LEN_BYTES);
        print_len(fp, "PK_Len", pk_len);
        print_hex(fp, "PK", pk, pk_len);
        print_len(fp, "SK_Len", sk_len);
        print_hex(fp, "SK", sk, sk_len);
        print_len(fp, "M_Len", m_len);
        print_hex(fp, "M", m, m_len);
        print_len(fp, "Sn_Len", sn_len);
        print_hex(fp, "Sn", sn, sn_len);
        fprintf(fp, "\n");
    }

    fclose(fp);
    free(pk);
    free(sk);
    free(sn);
    return ret;
}
