/* FORS few-time signatures of SPHINCS+ (sign and public key recovery). */
#ifndef SPX_FORS_H
#define SPX_FORS_H

#include "address.h"
#include "hash.h"
#include "params.h"

/* Signs the SPX_FORS_MSG_BYTES digest m; writes the FORS public key to pk.
 * fors_addr holds layer 0, the tree and the keypair of the signing leaf. */
void spx_fors_sign(unsigned char *sig, unsigned char *pk,
                   const unsigned char *m, const spx_ctx *ctx,
                   const spx_addr fors_addr);

/* FORS public key from a signature of m. */
void spx_fors_pk_from_sig(unsigned char *pk, const unsigned char *sig,
                          const unsigned char *m, const spx_ctx *ctx,
                          const spx_addr fors_addr);

#endif
