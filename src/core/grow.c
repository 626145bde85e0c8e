/* grow: doubling growth of heap arrays; see grow.h. */
#include "config.h"
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

int pq_grow(void *pp, size_t *cap, size_t need, size_t elem, size_t first)
{
	void **p = pp;
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : (first ? first : 16);
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (elem && nc > SIZE_MAX / elem)
		return -1;
	void *np = realloc(*p, nc * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}
