/*
 * digest: hex digits, lower-case hex encoding and SHA-256 (OpenSSL libcrypto) as hex,
 * of a buffer or of a whole file, as records and manifests print them.
 */
#ifndef PQ_DIGEST_H
#define PQ_DIGEST_H

#include <stddef.h>
#include "core/pq_error.h"

#define SHA256_HEX_LEN 64

/* out holds 2 * len + 1 bytes; NUL-terminated. */
void hex_encode(const void *buf, size_t len, char *out);
/* 0..15 for a hex digit of either case, else -1. */
int hex_value(char c);

/* hex is "" on failure. */
int sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_LEN + 1], pq_error *err);
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1], pq_error *err);

#endif
