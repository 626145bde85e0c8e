/* guarded_buf: buffers between guard pages, with canaries; see guarded_buf.h. */
#include "config.h"
#include "kat/guarded_buf.h"
#include "core/pq_error.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARDS_MAX 16
static struct {
	uintptr_t lo_guard, hi_guard;   /* page starts; 0 = free slot */
	size_t len;
	char name[KAT_FIELD_NAME_MAX];
} guard_table[GUARDS_MAX];

static uint8_t canary_byte(size_t off)
{
	return (uint8_t)(0xA5 ^ (off * 0x3B) ^ (off >> 8));
}

/* Cached, so the fault handler's lookup makes no system call. */
static size_t page_size(void)
{
	static size_t page;
	if (!page) {
		long p = sysconf(_SC_PAGESIZE);
		page = p > 0 ? (size_t)p : 4096;
	}
	return page;
}

static void guard_register(const struct gbuf *g)
{
	for (int i = 0; i < GUARDS_MAX; i++) {
		if (!guard_table[i].lo_guard) {
			memcpy(guard_table[i].name, g->name, sizeof g->name);
			guard_table[i].len = g->len;
			guard_table[i].hi_guard = (uintptr_t)g->hi_guard;
			guard_table[i].lo_guard = (uintptr_t)g->lo_guard;
			return;
		}
	}
}

static void guard_unregister(const struct gbuf *g)
{
	for (int i = 0; i < GUARDS_MAX; i++)
		if (guard_table[i].lo_guard == (uintptr_t)g->lo_guard)
			guard_table[i].lo_guard = guard_table[i].hi_guard = 0;
}

/*
 * [lo guard page][canary ... data(len) slack-canary][hi guard page]
 * data is 16-byte aligned, so up to 15 slack bytes lie between its
 * declared end and the high guard page.
 */
int gbuf_alloc(struct gbuf *g, const char *name, size_t len)
{
	size_t page = page_size();
	memset(g, 0, sizeof *g);
	snprintf(g->name, sizeof g->name, "%s", name);
	size_t body = (CANARY_MIN + len + 15 + page - 1) / page * page;
	g->maplen = body + 2 * page;
	void *m = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		g->map = NULL;
		return -PQ_ENOMEM;
	}
	g->map = m;
	g->lo_guard = g->map;
	g->hi_guard = g->map + page + body;
	if (mprotect(g->lo_guard, page, PROT_NONE) != 0 ||
	    mprotect(g->hi_guard, page, PROT_NONE) != 0) {
		munmap(g->map, g->maplen);
		g->map = NULL;
		return -PQ_ENOMEM;
	}
	g->len = len;
	g->data = (uint8_t *)((uintptr_t)(g->hi_guard - len) & ~(uintptr_t)15);
	uint8_t *body_start = g->map + page;
	for (uint8_t *p = body_start; p < g->data; p++)
		*p = canary_byte((size_t)(p - body_start));
	for (uint8_t *p = g->data + len; p < g->hi_guard; p++)
		*p = canary_byte((size_t)(p - body_start));
	guard_register(g);
	return 0;
}

void gbuf_free(struct gbuf *g)
{
	if (g->map) {
		guard_unregister(g);
		munmap(g->map, g->maplen);
	}
	memset(g, 0, sizeof *g);
}

int gbuf_check(const struct gbuf *g, size_t *at)
{
	const uint8_t *body_start = g->lo_guard + page_size();
	for (const uint8_t *p = g->data + g->len; p < g->hi_guard; p++) {
		if (*p != canary_byte((size_t)(p - body_start))) {
			*at = (size_t)(p - g->data);
			return 1;
		}
	}
	for (const uint8_t *p = g->data; p > body_start; p--) {
		if (p[-1] != canary_byte((size_t)(p - 1 - body_start))) {
			*at = (size_t)(g->data - (p - 1));
			return -1;
		}
	}
	return 0;
}

void gbuf_forget_all(void)
{
	memset(guard_table, 0, sizeof guard_table);
}

int gbuf_guard_hit(uintptr_t addr, int *past, const char **name, size_t *len)
{
	size_t page = page_size();
	for (int i = 0; i < GUARDS_MAX; i++) {
		uintptr_t lo = guard_table[i].lo_guard, hi = guard_table[i].hi_guard;
		int after = hi && addr >= hi && addr - hi < page;
		int before = lo && addr >= lo && addr - lo < page;
		if (!after && !before)
			continue;
		*past = after;
		*name = guard_table[i].name;
		*len = guard_table[i].len;
		return 1;
	}
	return 0;
}
