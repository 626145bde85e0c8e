/* shim: generate the per-instance adapter source; see shim.h. */
#include "config.h"
#include "instance/shim.h"

#include <string.h>

/* enum pqprof_sig_api, which this file only writes as text. */
enum { PQ_SHIM_SIG_PLAIN = 1, PQ_SHIM_SIG_CONTEXT = 2 };

void shim_put_c_string(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c == '"')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c < 32 || c >= 127)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
}

static void put_string_def(FILE *out, const char *name, const char *value)
{
	fprintf(out, "static const char %s[] = \"", name);
	shim_put_c_string(out, value ? value : "");
	fputs("\";\n", out);
}

static void put_common(FILE *out, const struct shim_meta *meta)
{
	put_string_def(out, "pq_compiler", meta->compiler);
	put_string_def(out, "pq_profile", meta->profile);
	put_string_def(out, "pq_cflags", meta->cflags);
	put_string_def(out, "pq_notes", meta->notes);
	put_string_def(out, "pq_fallback_name", meta->fallback_name);
}

static void put_descriptor(FILE *out, const struct tree_scan *ts, const struct shim_meta *meta, const char *name_expr,
                           const char *seed, const char *set_rng)
{
	int sig = ts->kind == TREE_KIND_SIG;
	int nist_sig = sig && ts->api == TREE_API_NIST;
	/* A header that names neither form declares the plain one elsewhere (the driver's includes). */
	unsigned apis = !nist_sig ? 0
	                : (ts->sig.plain || !ts->sig.context ? 1u << PQ_SHIM_SIG_PLAIN : 0) |
	                          (ts->sig.context ? 1u << PQ_SHIM_SIG_CONTEXT : 0);
	fprintf(out,
	        "\n__attribute__((visibility(\"default\")))\n"
	        "const struct pqprof_instance pqprof_instance = {\n"
	        "\tPQPROF_ABI_MAGIC, PQPROF_ABI_VERSION, %s, %s,\n"
	        "\t%s, pq_compiler, pq_profile, pq_cflags, pq_source_dir, pq_notes,\n"
	        "\tpq_get_sizes, %s,\n"
	        "\t%s, %s,\n"
	        "\tpq_keygen, %s, %s, %s, %s,\n"
	        "\t%s, %uu, %s, %zuu,\n"
	        "};\n",
	        ts->api == TREE_API_NGCC ? "PQPROF_API_NGCC" : "PQPROF_API_NIST",
	        sig ? "PQPROF_KIND_SIG" : "PQPROF_KIND_KEM",
	        name_expr, sig ? "pq_sig_blob_max" : "0", seed, set_rng,
	        sig ? "pq_sign" : "0", sig ? "pq_verify" : "0",
	        sig ? "0" : "pq_enc", sig ? "0" : "pq_dec",
	        !nist_sig ? "0" : meta->sig_context ? "PQPROF_SIG_CONTEXT" : "PQPROF_SIG_PLAIN", apis,
	        nist_sig && meta->sig_context ? "pq_context" : "0", nist_sig && meta->sig_context ? meta->context_len : 0);
}

static void write_ngcc(FILE *out, const struct tree_scan *ts)
{
	int sig = ts->kind == TREE_KIND_SIG;
	const char *p = sig ? "sig" : "kem";
	fprintf(out, "#include \"%s\"\n", ts->header);
	if (ts->drng_header[0])
		fprintf(out, "#include \"%s\"\n", ts->drng_header);
	fputs("#include \"pqprof_abi.h\"\n#include <string.h>\n\n", out);
	if (ts->drng_header[0])
		fputs("/* KAT_SIG.c/KAT_KEM.c define this in the official flow; they are left out.  Weak: a\n"
		      " * definition in the tree, conditional or not, wins. */\n"
		      "extern DRNG_ctx drng_algorithm;\n"
		      "__attribute__((weak)) DRNG_ctx drng_algorithm;\n\n", out);
	if (ts->drng_header[0] && ts->has_init_random_number)
		fputs("static int pq_seed(const unsigned char *seed, pq_u64 len)\n"
		      "{\n\treturn init_random_number(&drng_algorithm, (unsigned char *)seed, len);\n}\n\n", out);
	fprintf(out,
	        "static void pq_get_sizes(struct pqprof_sizes *s)\n{\n"
	        "\tmemset(s, 0, sizeof *s);\n"
	        "\ts->pk = %s_get_pk_len_bytes();\n\ts->sk = %s_get_sk_len_bytes();\n", p, p);
	if (sig)
		fputs("\ts->sig = sig_get_sn_len_bytes();\n}\n\n"
		      "static pq_u64 pq_sig_blob_max(pq_u64 mlen)\n{\n\t(void)mlen;\n\treturn sig_get_sn_len_bytes();\n}\n\n"
		      "static int pq_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)\n"
		      "{\n\treturn sig_keygen(pk, pklen, sk, sklen);\n}\n\n"
		      "static int pq_sign(unsigned char *sk, pq_u64 sklen, unsigned char *m, pq_u64 mlen,\n"
		      "                   unsigned char *blob, pq_u64 *bloblen)\n"
		      "{\n\treturn sig_sign(sk, sklen, m, mlen, blob, bloblen);\n}\n\n"
		      "static int pq_verify(unsigned char *pk, pq_u64 pklen, unsigned char *blob, pq_u64 bloblen,\n"
		      "                     unsigned char *m, pq_u64 mlen, unsigned char *scratch)\n"
		      "{\n\t(void)scratch;\n\treturn sig_verify(pk, pklen, blob, bloblen, m, mlen);\n}\n", out);
	else
		fputs("\ts->ct = kem_get_ct_len_bytes();\n\ts->ss = kem_get_ss_len_bytes();\n}\n\n"
		      "static int pq_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)\n"
		      "{\n\treturn kem_keygen(pk, pklen, sk, sklen);\n}\n\n"
		      "static int pq_enc(unsigned char *pk, pq_u64 pklen, unsigned char *ss, pq_u64 *sslen,\n"
		      "                  unsigned char *ct, pq_u64 *ctlen)\n"
		      "{\n\treturn kem_enc(pk, pklen, ss, sslen, ct, ctlen);\n}\n\n"
		      "static int pq_dec(unsigned char *sk, pq_u64 sklen, unsigned char *ct, pq_u64 ctlen,\n"
		      "                  unsigned char *ss, pq_u64 *sslen)\n"
		      "{\n\treturn kem_dec(sk, sklen, ct, ctlen, ss, sslen);\n}\n", out);
}

/* Namespaced sizes (PQCLEAN_X_CRYPTO_BYTES) under the plain names the shim uses. */
static void put_prefixed_sizes(FILE *out, const char *prefix)
{
	const char *names[] = { "CRYPTO_PUBLICKEYBYTES", "CRYPTO_SECRETKEYBYTES", "CRYPTO_BYTES", "CRYPTO_ALGNAME" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		fprintf(out, "#if !defined(%s) && defined(%s%s)\n#define %s %s%s\n#endif\n", names[i], prefix, names[i],
		        names[i], prefix, names[i]);
	fputs("\n", out);
}

static void put_context(FILE *out, const struct shim_meta *meta)
{
	fputs("/* The context string sign and verify pass (pqprof build --context; empty by default). */\n"
	      "static const unsigned char pq_context[] = {", out);
	for (size_t i = 0; i < meta->context_len; i++)
		fprintf(out, "%s0x%02x", i ? ", " : " ", meta->context[i]);
	fprintf(out, "%s};\n#define PQ_CONTEXT_LEN %zuu\n\n", meta->context_len ? " " : " 0 ", meta->context_len);
}

/*
 * The signature half of a NIST shim: plain crypto_sign / crypto_sign_open,
 * or their context variants, under the header's namespace prefix.  Length
 * out-parameters go through void *: headers declare them unsigned long
 * long * (NIST) or size_t * (PQClean, FIPS 204 style), the same width on
 * the LP64 targets pqprof builds for.
 */
static void write_nist_sig(FILE *out, const char *ns, const struct shim_meta *meta)
{
	const char *sfx = meta->sig_context && !meta->sig_context_in_plain ? "_ctx" : "";
	const char *ctx_args = meta->sig_context ? "pq_context, PQ_CONTEXT_LEN, " : "";
	fprintf(out,
	        "\ts->sig = CRYPTO_BYTES;\n}\n\n"
	        "static pq_u64 pq_sig_blob_max(pq_u64 mlen)\n{\n\treturn CRYPTO_BYTES + mlen;\n}\n\n"
	        "static int pq_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)\n{\n"
	        "\t*pklen = CRYPTO_PUBLICKEYBYTES;\n\t*sklen = CRYPTO_SECRETKEYBYTES;\n"
	        "\treturn %scrypto_sign_keypair(pk, sk);\n}\n\n"
	        "static int pq_sign(unsigned char *sk, pq_u64 sklen, unsigned char *m, pq_u64 mlen,\n"
	        "                   unsigned char *blob, pq_u64 *bloblen)\n"
	        "{\n\t(void)sklen;\n\treturn %scrypto_sign%s(blob, %sbloblen, m, mlen, %ssk);\n}\n\n"
	        "/* crypto_sign_open must give back exactly the signed message. */\n"
	        "static int pq_verify(unsigned char *pk, pq_u64 pklen, unsigned char *blob, pq_u64 bloblen,\n"
	        "                     unsigned char *m, pq_u64 mlen, unsigned char *scratch)\n{\n"
	        "\tunsigned long long got = 0;\n\t(void)pklen;\n"
	        "\tint r = %scrypto_sign_open%s(scratch, %s&got, blob, bloblen, %spk);\n"
	        "\tif (r != 0)\n\t\treturn r;\n"
	        "\tif (got != mlen || (mlen && memcmp(scratch, m, mlen) != 0))\n\t\treturn PQPROF_VERIFY_WRONG_MESSAGE;\n"
	        "\treturn 0;\n}\n",
	        ns, ns, sfx, meta->sig_context ? "(void *)" : "", ctx_args, ns, sfx, meta->sig_context ? "(void *)" : "",
	        ctx_args);
}

static void write_nist(FILE *out, const struct tree_scan *ts, const struct shim_meta *meta)
{
	int sig = ts->kind == TREE_KIND_SIG;
	/* What the KAT driver included is the API it was built against (one api.h per level, say): that, else the tree's. */
	if (meta->ndriver_includes == 0)
		fprintf(out, "#include \"%s\"\n", ts->header);
	for (int i = 0; i < meta->ndriver_includes; i++) {
		fputs("#include \"", out);
		shim_put_c_string(out, meta->driver_includes[i]);
		fputs("\"\n", out);
	}
	fputs("#include \"pqprof_abi.h\"\n#include <string.h>\n\n", out);
	/* The driver compiles against its includes: they declare the API, with the tree's own types. */
	if (!ts->api_h_declares && meta->ndriver_includes == 0) {
		if (sig)
			fputs("int crypto_sign_keypair(unsigned char *pk, unsigned char *sk);\n"
			      "int crypto_sign(unsigned char *sm, unsigned long long *smlen, const unsigned char *m,\n"
			      "                unsigned long long mlen, const unsigned char *sk);\n"
			      "int crypto_sign_open(unsigned char *m, unsigned long long *mlen, const unsigned char *sm,\n"
			      "                     unsigned long long smlen, const unsigned char *pk);\n\n", out);
		else
			fputs("int crypto_kem_keypair(unsigned char *pk, unsigned char *sk);\n"
			      "int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk);\n"
			      "int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk);\n\n", out);
	}
	if (sig && ts->sig.prefix[0])
		put_prefixed_sizes(out, ts->sig.prefix);
	if (sig && meta->sig_context)
		put_context(out, meta);
	fputs("/* The submission's rng.c is left out: randomness comes from the harness. */\n"
	      "static pqprof_rng_fn pq_rng;\n\n"
	      "static void pq_set_rng(pqprof_rng_fn fn)\n{\n\tpq_rng = fn;\n}\n\n"
	      "__attribute__((visibility(\"default\")))\n"
	      "int randombytes(unsigned char *x, unsigned long long xlen)\n{\n"
	      "\tif (!pq_rng) {\n\t\tmemset(x, 0, xlen);\n\t\treturn -1;\n\t}\n"
	      "\treturn pq_rng(x, xlen);\n}\n\n"
	      "static void pq_get_sizes(struct pqprof_sizes *s)\n{\n"
	      "\tmemset(s, 0, sizeof *s);\n"
	      "\ts->pk = CRYPTO_PUBLICKEYBYTES;\n\ts->sk = CRYPTO_SECRETKEYBYTES;\n", out);
	if (sig)
		write_nist_sig(out, ts->sig.prefix, meta);
	else
		fputs("\ts->ct = CRYPTO_CIPHERTEXTBYTES;\n\ts->ss = CRYPTO_BYTES;\n}\n\n"
		      "static int pq_keygen(unsigned char *pk, pq_u64 *pklen, unsigned char *sk, pq_u64 *sklen)\n{\n"
		      "\t*pklen = CRYPTO_PUBLICKEYBYTES;\n\t*sklen = CRYPTO_SECRETKEYBYTES;\n"
		      "\treturn crypto_kem_keypair(pk, sk);\n}\n\n"
		      "static int pq_enc(unsigned char *pk, pq_u64 pklen, unsigned char *ss, pq_u64 *sslen,\n"
		      "                  unsigned char *ct, pq_u64 *ctlen)\n{\n"
		      "\t(void)pklen;\n\t*sslen = CRYPTO_BYTES;\n\t*ctlen = CRYPTO_CIPHERTEXTBYTES;\n"
		      "\treturn crypto_kem_enc(ct, ss, pk);\n}\n\n"
		      "static int pq_dec(unsigned char *sk, pq_u64 sklen, unsigned char *ct, pq_u64 ctlen,\n"
		      "                  unsigned char *ss, pq_u64 *sslen)\n{\n"
		      "\t(void)sklen;\n\t(void)ctlen;\n\t*sslen = CRYPTO_BYTES;\n"
		      "\treturn crypto_kem_dec(ss, ct, sk);\n}\n", out);
}

int shim_write(FILE *out, const struct tree_scan *ts, const struct shim_meta *meta, pq_error *err)
{
	fputs("/* Generated by pqprof build: adapts this submission to the pqprof instance ABI. */\n", out);
	if (ts->api == TREE_API_NGCC)
		write_ngcc(out, ts);
	else
		write_nist(out, ts, meta);
	fputs("\n", out);
	put_common(out, meta);
	fputs("static const char pq_source_dir[] = \"", out);
	shim_put_c_string(out, ts->root);
	fputs("\";\n", out);
	if (ts->api == TREE_API_NGCC)
		put_descriptor(out, ts, meta,
		               "\n#ifdef ALGORITHM_INSTANCE\n\tALGORITHM_INSTANCE\n#else\n\tpq_fallback_name\n#endif\n\t",
		               ts->drng_header[0] && ts->has_init_random_number ? "pq_seed" : "0", "0");
	else
		put_descriptor(out, ts, meta,
		               "\n#ifdef CRYPTO_ALGNAME\n\tCRYPTO_ALGNAME\n#else\n\tpq_fallback_name\n#endif\n\t",
		               "0", "pq_set_rng");
	if (ferror(out))
		return pq_fail(err, PQ_EIO, "cannot write the shim source");
	return 0;
}
