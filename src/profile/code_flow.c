/* code_flow: basic blocks and loops from branches (see code_flow.h). */
#include "config.h"
#include "profile/code_flow.h"

#include "core/pq_error.h"

#include <stdlib.h>

size_t flow_find(const struct flow_insn *in, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in[mid].addr + in[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && in[lo].addr <= addr ? lo : n;
}

/* The instruction starting exactly at addr, or n. */
static size_t find_start(const struct flow_insn *in, size_t n, uint64_t addr)
{
	size_t i = flow_find(in, n, addr);
	return i < n && in[i].addr == addr ? i : n;
}

int flow_blocks(const struct flow_insn *in, size_t n, struct flow_block **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	unsigned char *leader = calloc(n, 1);
	if (!leader)
		return -PQ_ENOMEM;
	leader[0] = 1;
	for (size_t i = 0; i < n; i++) {
		if (in[i].kind == FLOW_JUMP || in[i].kind == FLOW_COND || in[i].kind == FLOW_RET) {
			if (i + 1 < n)
				leader[i + 1] = 1;
		}
		if ((in[i].kind == FLOW_JUMP || in[i].kind == FLOW_COND) && in[i].target) {
			size_t t = find_start(in, n, in[i].target);
			if (t < n)
				leader[t] = 1;
		}
	}
	size_t nb = 0;
	for (size_t i = 0; i < n; i++)
		nb += leader[i];
	struct flow_block *b = malloc(nb * sizeof *b);
	if (!b) {
		free(leader);
		return -PQ_ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (leader[i])
			b[k++] = (struct flow_block){ i, 0 };
		b[k - 1].n++;
	}
	free(leader);
	*out = b;
	*nout = nb;
	return 0;
}

static int cmp_loop(const void *x, const void *y)
{
	const struct flow_loop *a = x, *b = y;
	if (a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return a->tail > b->tail ? -1 : a->tail < b->tail;
}

int flow_loops(const struct flow_insn *in, size_t n, struct flow_loop **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	struct flow_loop *l = NULL;
	size_t nl = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		if ((in[i].kind != FLOW_JUMP && in[i].kind != FLOW_COND) || !in[i].target ||
		    in[i].target > in[i].addr)
			continue;
		size_t h = find_start(in, n, in[i].target);
		if (h == n)
			continue;
		size_t j;
		for (j = 0; j < nl && l[j].head != h; j++)
			;
		if (j < nl) {
			if (l[j].tail < i)
				l[j].tail = i;
			continue;
		}
		if (nl == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct flow_loop *g = realloc(l, nc * sizeof *l);
			if (!g) {
				free(l);
				return -PQ_ENOMEM;
			}
			l = g;
			cap = nc;
		}
		l[nl++] = (struct flow_loop){ h, i, 1 };
	}
	if (nl)
		qsort(l, nl, sizeof *l, cmp_loop);
	for (size_t i = 0; i < nl; i++)
		for (size_t j = 0; j < i; j++)
			if (l[j].head <= l[i].head && l[i].tail <= l[j].tail && l[i].depth <= l[j].depth)
				l[i].depth = l[j].depth + 1;
	*out = l;
	*nout = nl;
	return 0;
}
