/* paired_functions: per-function deltas from a paired study's samples; see paired_functions.h. */
#include "config.h"
#include "core/atomic_file.h"
#include "supervise/paired_functions.h"
#include "measure/stats.h"
#include "profile/symbolizer.h"

#include <fcntl.h>
#include <gelf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_MAX_BUILDS 16
#define PF_OUTSIDE "[outside the library]"
/* Where a library's segments are placed for the symbolizer: any address its virtual addresses fit above. */
#define PF_BIAS 0x100000000000ull

struct fn_count {
	const char *name;   /* interned by the build's symbolizer, or PF_OUTSIDE */
	double n[PF_MAX_BUILDS];
};

struct fn_table {
	struct fn_count *f;
	size_t n, cap;
};

static struct fn_count *fn_get(struct fn_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->f[i].name, name) == 0)
			return &t->f[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct fn_count *f = realloc(t->f, cap * sizeof *f);
		if (!f)
			return NULL;
		t->f = f;
		t->cap = cap;
	}
	memset(&t->f[t->n], 0, sizeof t->f[t->n]);
	t->f[t->n].name = name;
	return &t->f[t->n++];
}

/* The library's PT_LOAD segments as the symbolizer's modules, at PF_BIAS + vaddr. */
static int add_segments(struct symbolizer *sym, const char *lib, pq_error *err)
{
	int fd = open_regular(lib);
	if (fd < 0)
		return pq_fail_errno(err, PQ_EIO, "%s", lib);
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;
	int rc = !elf || elf_getphdrnum(elf, &n) != 0 ? pq_fail(err, PQ_EINPUT, "%s: not an ELF file", lib) : 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		pq_error ignore = { 0 };
		symbolizer_add_module(sym, lib, PF_BIAS + ph.p_vaddr, PF_BIAS + ph.p_vaddr + ph.p_memsz, ph.p_offset,
		                      NULL, 0, &ignore);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* Sum build b's samples of every process into t. */
static int count_build(struct fn_table *t, struct symbolizer *sym, const json_t *const *samples, size_t np, int b,
                       double *total, pq_error *err)
{
	for (size_t p = 0; p < np; p++) {
		const json_t *s = samples[p] ? json_array_get(samples[p], (size_t)b) : NULL;
		if (!s)
			continue;
		double outside = (double)json_integer_value(json_object_get(s, "outside"));
		*total += (double)json_integer_value(json_object_get(s, "samples"));
		if (outside > 0) {
			struct fn_count *f = fn_get(t, PF_OUTSIDE);
			if (!f)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
			f->n[b] += outside;
		}
		const char *key;
		json_t *v;
		json_object_foreach((json_t *)json_object_get(s, "at"), key, v) {
			uint64_t vaddr = strtoull(key, NULL, 16);
			const struct sym_frame *fr = NULL;
			int nf = 0;
			if (symbolizer_resolve(sym, PF_BIAS + vaddr, &fr, &nf) < 0)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
			struct fn_count *f = fn_get(t, nf > 0 ? fr[nf - 1].function : "[unknown]");
			if (!f)
				return pq_fail(err, PQ_ENOMEM, "out of memory");
			f->n[b] += (double)json_integer_value(v);
		}
	}
	return 0;
}

struct row {
	const struct fn_count *f;
	double delta;
};

static int by_change(const void *x, const void *y)
{
	double a = fabs(((const struct row *)x)->delta), b = fabs(((const struct row *)y)->delta);
	return a < b ? 1 : a > b ? -1 : strcmp(((const struct row *)x)->f->name, ((const struct row *)y)->f->name);
}

json_t *paired_functions(const json_t *const *samples, size_t np, int nb, const char *const *libs,
                         const double *cost, pq_error *err)
{
	if (nb < 2 || nb > PF_MAX_BUILDS)
		return json_array();
	struct fn_table t = { 0 };
	struct symbolizer *sym[PF_MAX_BUILDS] = { 0 };
	double total[PF_MAX_BUILDS] = { 0 };
	json_t *out = NULL;
	int rc = 0;
	for (int b = 0; b < nb && rc == 0; b++) {
		sym[b] = symbolizer_new();
		if (!sym[b])
			rc = pq_fail(err, PQ_ENOMEM, "out of memory");
		else if ((rc = add_segments(sym[b], libs[b], err)) == 0)
			rc = count_build(&t, sym[b], samples, np, b, &total[b], err);
	}
	if (rc == 0) {
		out = json_array();
		struct row *rows = calloc(t.n ? t.n : 1, sizeof *rows);
		for (int b = 1; rows && b < nb; b++) {
			json_t *tab = json_array();
			if (total[0] > 0 && total[b] > 0) {
				for (size_t i = 0; i < t.n; i++) {
					rows[i].f = &t.f[i];
					rows[i].delta = t.f[i].n[b] / total[b] * cost[b] - t.f[i].n[0] / total[0] * cost[0];
				}
				if (t.n > 1)
					qsort(rows, t.n, sizeof *rows, by_change);
				for (size_t i = 0; i < t.n && i < PAIRED_FUNCTIONS_TOP; i++) {
					const struct fn_count *f = rows[i].f;
					stats_interval sa = stats_proportion_ci((uint64_t)f->n[0], (uint64_t)total[0]);
					stats_interval sb = stats_proportion_ci((uint64_t)f->n[b], (uint64_t)total[b]);
					json_array_append_new(tab, json_pack(
						"{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "function", f->name,
						"baseline_share", f->n[0] / total[0], "candidate_share", f->n[b] / total[b],
						"baseline_cost", f->n[0] / total[0] * cost[0], "candidate_cost",
						f->n[b] / total[b] * cost[b], "delta", rows[i].delta,
						"delta_lo", sb.lo * cost[b] - sa.hi * cost[0], "delta_hi", sb.hi * cost[b] - sa.lo * cost[0],
						"baseline_samples", (json_int_t)f->n[0], "candidate_samples", (json_int_t)f->n[b]));
				}
			}
			json_array_append_new(out, tab);
		}
		if (!rows) {
			json_decref(out);
			out = NULL;
			pq_fail(err, PQ_ENOMEM, "out of memory");
		}
		free(rows);
	}
	for (int b = 0; b < nb; b++)
		symbolizer_free(sym[b]);
	free(t.f);
	return out;
}
