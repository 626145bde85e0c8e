/*
 * key_origin: does sign accept a key generated in another process?  The
 * harness's own jobs always sign with keys their own process generated
 * (real submissions may keep generated keys in memory and refuse others),
 * so this is asked once, on purpose, in two runner children: one
 * generates a pair and signs with it, the next signs with that pair
 * without generating one.  A scheme that signs in the first and refuses
 * in the second has an API deviation, named as such: "sign accepts only
 * keys generated in this process" -- not a crash, not a failed verify.
 */
#ifndef PQ_KEY_ORIGIN_H
#define PQ_KEY_ORIGIN_H

#include <jansson.h>
#include <stddef.h>

#include "core/pq_error.h"

#define KEY_ORIGIN_DEVIATION "sign accepts only keys generated in this process"

/*
 * Run the check for the signature instance in lib (the key pair passes
 * from one contained job to the next through pqprof).  *result: {"verdict": "accepts
 * keys from another process" | KEY_ORIGIN_DEVIATION | "...", "detail": ...}
 * (new reference).  Returns 1 when the deviation was seen (note holds one
 * line for the KAT notes), 0 when not, < 0 on harness errors.
 */
int key_origin_check(const char *lib, double timeout_s, unsigned long long as_limit, char *note,
                     size_t len, json_t **result, pq_error *err);

#endif
