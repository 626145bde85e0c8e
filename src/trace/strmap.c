/* strmap: open-addressing string map; see strmap.h. */
#include "config.h"
#include "trace/strmap.h"
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

static int key_eq(const char *k, const char *key, size_t len)
{
	return strncmp(k, key, len) == 0 && k[len] == '\0';
}

static size_t find_slot(const struct strmap *m, const char *key, size_t len)
{
	size_t mask = m->nslots - 1;
	size_t j = hash_bytes(key, len) & mask;
	while (m->slots[j] && !key_eq(m->keys[m->slots[j] - 1], key, len))
		j = (j + 1) & mask;
	return j;
}

int strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val)
{
	if (!m->nslots)
		return 0;
	size_t j = find_slot(m, key, len);
	if (!m->slots[j])
		return 0;
	*val = m->vals[m->slots[j] - 1];
	return 1;
}

static int rehash(struct strmap *m)
{
	size_t ns = m->nslots ? m->nslots * 2 : 64;
	size_t *s = calloc(ns, sizeof *s);
	if (!s)
		return -1;
	free(m->slots);
	m->slots = s;
	m->nslots = ns;
	for (size_t i = 0; i < m->n; i++) {
		size_t j = find_slot(m, m->keys[i], strlen(m->keys[i]));
		m->slots[j] = i + 1;
	}
	return 0;
}

int strmap_put(struct strmap *m, const char *key, size_t len, size_t val)
{
	if ((m->n + 1) * 2 > m->nslots && rehash(m) < 0)
		return -1;
	size_t j = find_slot(m, key, len);
	if (m->slots[j]) {
		m->vals[m->slots[j] - 1] = val;
		return 0;
	}
	if (m->n == m->cap) {
		/* keys and vals share one capacity: grow both, then record it */
		size_t kc = m->cap, vc = m->cap;
		if (pq_grow(&m->keys, &kc, m->n + 1, sizeof *m->keys, 32) < 0 ||
		    pq_grow(&m->vals, &vc, m->n + 1, sizeof *m->vals, 32) < 0)
			return -1;
		m->cap = kc;
	}
	char *k = malloc(len + 1);
	if (!k)
		return -1;
	memcpy(k, key, len);
	k[len] = '\0';
	m->keys[m->n] = k;
	m->vals[m->n] = val;
	m->slots[j] = ++m->n;
	return 0;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	free(m->slots);
	memset(m, 0, sizeof *m);
}
