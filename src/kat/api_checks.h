/*
 * api_checks: after the records, checks for API deviations the vectors
 * cannot show: keygen ignoring the DRNG (same keys under two seeds) or
 * drawing from elsewhere (different keys under one seed), verify
 * accepting an altered signature or message (a CRYPTOFAIL), and KEM dec
 * giving the same shared secret for an altered ciphertext (a note).
 */
#ifndef PQ_KAT_API_CHECKS_H
#define PQ_KAT_API_CHECKS_H

#include "kat/kat_round.h"

/* Notes go to e->out; 0, or <0 on harness errors. */
int kat_api_checks(struct engine *e);

#endif
