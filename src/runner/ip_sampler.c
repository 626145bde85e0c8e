/* ip_sampler: self IP samples per build of a paired job; see ip_sampler.h. */
#include "config.h"
#include "runner/ip_sampler.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES 64            /* data pages of the ring buffer (a power of two) */
#define TABLE_SIZE 8192          /* distinct addresses kept per build (open addressing) */

struct at_count {
	uint64_t addr;               /* vaddr + 1, 0 = empty */
	uint64_t n;
};

struct build_samples {
	uintptr_t base, bias;  /* dladdr's dli_fbase of the library; its load bias (l_addr) */
	uint64_t total, outside, dropped;
	struct at_count *t;
};

struct ip_sampler {
	int fd, hz, nb, cur;
	void *ring;
	size_t page, ring_len;
	struct build_samples b[IP_SAMPLER_MAX_BUILDS];
};

struct ip_sampler *ip_sampler_open(int hz, int nbuilds, const uintptr_t *base, const uintptr_t *bias, char *why,
                                   size_t why_len)
{
	if (hz <= 0 || nbuilds < 1 || nbuilds > IP_SAMPLER_MAX_BUILDS) {
		snprintf(why, why_len, "no sampling asked for");
		return NULL;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / (uint64_t)hz;
	a.sample_type = PERF_SAMPLE_IP;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1u << 30;  /* nobody waits on it */
	int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "perf_event_open(cpu-clock sampling): %s", strerror(errno));
		return NULL;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = page * (1 + RING_PAGES);
	void *ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	struct ip_sampler *s = ring != MAP_FAILED ? calloc(1, sizeof *s) : NULL;
	if (!s) {
		snprintf(why, why_len, "cannot map the sample ring buffer");
		if (ring != MAP_FAILED)
			munmap(ring, len);
		close(fd);
		return NULL;
	}
	*s = (struct ip_sampler){ .fd = fd, .hz = hz, .nb = nbuilds, .cur = -1, .ring = ring, .page = page,
		                  .ring_len = len };
	for (int i = 0; i < nbuilds; i++) {
		s->b[i].base = base[i];
		s->b[i].bias = bias[i];
		s->b[i].t = calloc(TABLE_SIZE, sizeof *s->b[i].t);
		if (!s->b[i].t) {
			snprintf(why, why_len, "out of memory");
			ip_sampler_close(s);
			return NULL;
		}
	}
	return s;
}

void ip_sampler_begin(struct ip_sampler *s, int b)
{
	if (!s)
		return;
	s->cur = b;
	ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* The object an address belongs to is the build's own library when dladdr says its base is the build's. */
static void count(struct ip_sampler *s, uint64_t ip)
{
	struct build_samples *bs = &s->b[s->cur];
	bs->total++;
	Dl_info info;
	if (!dladdr((void *)(uintptr_t)ip, &info) || (uintptr_t)info.dli_fbase != bs->base) {
		bs->outside++;
		return;
	}
	uint64_t key = ip - bs->bias + 1;
	for (uint64_t h = (key * 0x9e3779b97f4a7c15ull) >> 51, k = 0; k < TABLE_SIZE; k++, h = (h + 1) % TABLE_SIZE) {
		if (bs->t[h].addr == key || bs->t[h].addr == 0) {
			bs->t[h].addr = key;
			bs->t[h].n++;
			return;
		}
	}
	bs->dropped++;
}

void ip_sampler_end(struct ip_sampler *s)
{
	if (!s)
		return;
	ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
	struct perf_event_mmap_page *meta = s->ring;
	const unsigned char *data = (const unsigned char *)s->ring + s->page;
	size_t size = s->page * RING_PAGES;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		unsigned char rec[64];
		for (size_t i = 0; i < sizeof h; i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof h || h.size > head - tail)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 8 && h.size <= sizeof rec) {
			for (size_t i = 0; i < h.size; i++)
				rec[i] = data[(tail + i) % size];
			uint64_t ip;
			memcpy(&ip, rec + sizeof h, 8);
			if (s->cur >= 0)
				count(s, ip);
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	s->cur = -1;
}

json_t *ip_sampler_json(struct ip_sampler *s)
{
	json_t *arr = json_array();
	for (int i = 0; s && i < s->nb; i++) {
		struct build_samples *bs = &s->b[i];
		json_t *at = json_object();
		for (size_t k = 0; k < TABLE_SIZE; k++)
			if (bs->t[k].addr) {
				char key[32];
				snprintf(key, sizeof key, "0x%llx", (unsigned long long)(bs->t[k].addr - 1));
				json_object_set_new(at, key, json_integer((json_int_t)bs->t[k].n));
			}
		json_array_append_new(arr, json_pack("{s:i, s:I, s:I, s:I, s:o}", "hz", s->hz, "samples",
		                                     (json_int_t)bs->total, "outside", (json_int_t)bs->outside,
		                                     "dropped", (json_int_t)bs->dropped, "at", at));
	}
	return arr;
}

void ip_sampler_close(struct ip_sampler *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nb; i++)
		free(s->b[i].t);
	munmap(s->ring, s->ring_len);
	close(s->fd);
	free(s);
}
