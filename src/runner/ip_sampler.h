/*
 * ip_sampler: where the paired job's calls spend their time, per build.
 * The runner samples its own thread's instruction pointer (perf_event
 * cpu-clock, user space only), enabled around each slot of calls only, and
 * counts each sample for the build whose slot runs: at its address
 * relative to that build's library (the ELF virtual address, which the
 * parent symbolizes), or as "outside" when it lies in another object
 * (libc, libcrypto: code the build calls).  No call chains: self time only.
 */
#ifndef PQ_IP_SAMPLER_H
#define PQ_IP_SAMPLER_H

#include <jansson.h>
#include <stdint.h>

#define IP_SAMPLER_MAX_BUILDS 16

struct ip_sampler;

/*
 * Open the sampler at hz samples per second of CPU time, for nbuilds
 * builds whose libraries dladdr() places at base[i] (dli_fbase), loaded
 * with the load biases bias[i] (dlinfo l_addr: address - bias is the ELF
 * virtual address).  NULL when the kernel refuses (a note in why).
 */
struct ip_sampler *ip_sampler_open(int hz, int nbuilds, const uintptr_t *base, const uintptr_t *bias, char *why,
                                   size_t why_len);

/* Around one slot of build b's calls. */
void ip_sampler_begin(struct ip_sampler *s, int b);
void ip_sampler_end(struct ip_sampler *s);

/*
 * Per build {"hz": N, "samples": total, "outside": n, "at": {"0x1a2b": n, ...}}
 * as a JSON array (new reference).  Then close.
 */
json_t *ip_sampler_json(struct ip_sampler *s);
void ip_sampler_close(struct ip_sampler *s);

#endif
