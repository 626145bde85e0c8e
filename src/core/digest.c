/* digest: hex and SHA-256 hex through libcrypto; see digest.h. */
#include "config.h"
#include "core/digest.h"

#include <stdio.h>
#include <openssl/evp.h>

void hex_encode(const void *buf, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *p = buf;
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * len] = '\0';
}

int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sha256_hex(const void *buf, size_t len, char hex[SHA256_HEX_LEN + 1], pq_error *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	hex[0] = '\0';
	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		return pq_fail(err, PQ_EINTERNAL, "SHA-256: libcrypto failed");
	hex_encode(md, 32, hex);
	return 0;
}

int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1], pq_error *err)
{
	hex[0] = '\0';
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return pq_fail_errno(err, PQ_EINPUT, "%s: cannot open", path);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		fclose(fp);
		return pq_fail(err, PQ_EINTERNAL, "%s: cannot start SHA-256", path);
	}
	unsigned char buf[65536];
	size_t got;
	int bad = 0;
	while (!bad && (got = fread(buf, 1, sizeof buf, fp)) > 0)
		bad = EVP_DigestUpdate(ctx, buf, got) != 1;
	int rerr = ferror(fp);
	fclose(fp);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (!bad)
		bad = EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32;
	EVP_MD_CTX_free(ctx);
	if (rerr)
		return pq_fail(err, PQ_EIO, "%s: read failed", path);
	if (bad)
		return pq_fail(err, PQ_EINTERNAL, "%s: SHA-256: libcrypto failed", path);
	hex_encode(md, 32, hex);
	return 0;
}
