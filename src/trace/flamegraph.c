/*
 * flamegraph: builds a call tree from folded stacks, lays it out (root at
 * the bottom, children sorted by name, widths proportional to inclusive
 * weight) and writes it as SVG with an embedded script.  See
 * flamegraph.h.  The tree is walked with explicit stacks, never
 * recursion, so absurdly deep input cannot overflow the C stack.
 */
#include "config.h"
#include "trace/flamegraph.h"
#include "core/grow.h"
#include "trace/export.h"
#include "trace/strmap.h"
#include "core/xml_escape.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FG_FRAME_H 16
#define FG_FONT 12
#define FG_PAD 10
#define FG_TOP 60
#define FG_BOTTOM 34
#define FG_MIN_PX 0.1

struct fg_node {
	size_t name;        /* index in tree names */
	size_t parent;
	size_t first, next; /* children, SIZE_MAX terminated */
	uint64_t value;     /* inclusive weight (the "after" profile in a diff) */
	uint64_t before;    /* inclusive weight in the "before" profile */
	uint32_t depth;
	double x;           /* left edge as a fraction of the root */
};

struct fg_tree {
	struct fg_node *n;
	size_t count, cap;
	struct strmap names;
	struct strmap kids;  /* "parent/name" -> node */
	uint64_t total, before_total;
	uint32_t maxdepth;
};

static size_t fg_new_node(struct fg_tree *t, size_t name, size_t parent, uint32_t depth)
{
	if (pq_grow(&t->n, &t->cap, t->count + 1, sizeof *t->n, 256) < 0)
		return SIZE_MAX;
	t->n[t->count] = (struct fg_node){ name, parent, SIZE_MAX, SIZE_MAX, 0, 0, depth, 0 };
	if (depth > t->maxdepth)
		t->maxdepth = depth;
	return t->count++;
}

static int fg_name(struct fg_tree *t, const char *s, size_t len, size_t *id)
{
	if (strmap_get(&t->names, s, len, id))
		return 0;
	*id = t->names.n;
	return strmap_put(&t->names, s, len, *id);
}

static int fg_init(struct fg_tree *t, const char *root)
{
	memset(t, 0, sizeof *t);
	size_t id;
	if (fg_name(t, root, strlen(root), &id) < 0 || fg_new_node(t, id, SIZE_MAX, 0) == SIZE_MAX)
		return -1;
	return 0;
}

static void fg_free(struct fg_tree *t)
{
	free(t->n);
	strmap_free(&t->names);
	strmap_free(&t->kids);
}

/* Add w along one folded stack; into before when is_before. */
static int fg_add(struct fg_tree *t, const char *stack, uint64_t w, int is_before)
{
	size_t node = 0;
	for (const char *s = stack; ; ) {
		const char *semi = strchr(s, ';');
		size_t len = semi ? (size_t)(semi - s) : strlen(s);
		size_t name, child;
		char key[48];
		if (fg_name(t, s, len, &name) < 0)
			return -1;
		int kl = snprintf(key, sizeof key, "%zu/%zu", node, name);
		if (!strmap_get(&t->kids, key, (size_t)kl, &child)) {
			child = fg_new_node(t, name, node, t->n[node].depth + 1);
			if (child == SIZE_MAX || strmap_put(&t->kids, key, (size_t)kl, child) < 0)
				return -1;
		}
		if (is_before)
			t->n[child].before += w;
		else
			t->n[child].value += w;
		node = child;
		if (!semi)
			break;
		s = semi + 1;
	}
	if (is_before) {
		t->n[0].before += w;
		t->before_total += w;
	} else {
		t->n[0].value += w;
		t->total += w;
	}
	return 0;
}

static int child_cmp(const void *a, const void *b, void *ctx)
{
	const struct fg_tree *t = ctx;
	const struct fg_node *x = &t->n[*(const size_t *)a];
	const struct fg_node *y = &t->n[*(const size_t *)b];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(t->names.keys[x->name], t->names.keys[y->name]);
}

/* Link children in name order and give every node its left edge. */
static int fg_layout(struct fg_tree *t)
{
	size_t m = t->count - 1;
	size_t *ix = malloc((m ? m : 1) * sizeof *ix);
	if (!ix)
		return -1;
	for (size_t i = 0; i < m; i++)
		ix[i] = i + 1;
	qsort_r(ix, m, sizeof *ix, child_cmp, t);
	for (size_t i = m; i-- > 0; ) {
		struct fg_node *c = &t->n[ix[i]];
		c->next = t->n[c->parent].first;
		t->n[c->parent].first = ix[i];
	}
	free(ix);
	/* Nodes were created parent before child, so one pass in index order works. */
	double total = t->total ? (double)t->total : 1.0;
	for (size_t p = 0; p < t->count; p++) {
		double x = t->n[p].x;
		for (size_t c = t->n[p].first; c != SIZE_MAX; c = t->n[c].next) {
			t->n[c].x = x;
			x += (double)t->n[c].value / total;
		}
	}
	return 0;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

void flamegraph_color(const char *name, char *out, size_t cap)
{
	uint32_t h = name_hash(name);
	double v1 = (double)(h & 0xff) / 255.0, v2 = (double)((h >> 8) & 0xff) / 255.0;
	double v3 = (double)((h >> 16) & 0xff) / 255.0;
	snprintf(out, cap, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

/* Red for growth, blue for shrinkage; t in [0,1] is the relative size. */
static void diff_color(double delta, double max, char *out, size_t cap)
{
	double t = max > 0 ? fabs(delta) / max : 0;
	int fade = 255 - (int)lround(210 * t);
	if (delta > 0)
		snprintf(out, cap, "rgb(255,%d,%d)", fade, fade);
	else if (delta < 0)
		snprintf(out, cap, "rgb(%d,%d,255)", fade, fade);
	else
		snprintf(out, cap, "rgb(255,255,255)");
}

static double share(uint64_t v, uint64_t total)
{
	return total ? (double)v / (double)total : 0.0;
}

/* Label that fits w pixels, as flamegraph tools do: truncated with "..". */
static void write_label(FILE *fp, const char *name, double w)
{
	long fit = (long)((w - 6) / (FG_FONT * 0.59));
	size_t len = strlen(name);
	if (fit < 3)
		return;
	if ((long)len <= fit) {
		xml_escape(fp, name);
		return;
	}
	char buf[512];
	size_t keep = (size_t)fit - 2 < sizeof buf - 3 ? (size_t)fit - 2 : sizeof buf - 3;
	memcpy(buf, name, keep);
	/* do not cut a UTF-8 sequence in half */
	while (keep && ((unsigned char)buf[keep] & 0xC0) == 0x80)
		keep--;
	memcpy(buf + keep, "..", 3);
	xml_escape(fp, buf);
}

static const char fg_script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"(function () {\n"
"  var svg = document.documentElement;\n"
"  var W = +svg.getAttribute('width'), PAD = +svg.getAttribute('data-pad');\n"
"  var FONT = +svg.getAttribute('data-font'), AVAIL = W - 2 * PAD;\n"
"  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  var details = document.getElementById('details');\n"
"  var matched = document.getElementById('matched');\n"
"  var unzoomBtn = document.getElementById('unzoom');\n"
"  var searchBtn = document.getElementById('search');\n"
"  var searching = false;\n"
"  function num(g, a) { return +g.getAttribute(a); }\n"
"  function label(g, w) {\n"
"    var n = g.getAttribute('data-n'), c = Math.floor((w - 6) / (FONT * 0.59));\n"
"    var t = g.querySelector('text');\n"
"    t.textContent = c < 3 ? '' : (n.length <= c ? n : n.substring(0, c - 2) + '..');\n"
"  }\n"
"  function place(g, x, w) {\n"
"    var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"    r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
"    t.setAttribute('x', (x + 3).toFixed(2));\n"
"    label(g, w);\n"
"  }\n"
"  function zoom(z) {\n"
"    var zx = num(z, 'data-x'), zw = num(z, 'data-w'), zd = num(z, 'data-d'), e = 1e-9;\n"
"    if (zw <= 0) return;\n"
"    frames.forEach(function (g) {\n"
"      var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
"      if (d < zd && x <= zx + e && x + w >= zx + zw - e) {\n"
"        g.style.display = ''; g.style.opacity = '0.5'; place(g, PAD, AVAIL);\n"
"      } else if (d >= zd && x >= zx - e && x + w <= zx + zw + e) {\n"
"        g.style.display = ''; g.style.opacity = '';\n"
"        place(g, PAD + (x - zx) / zw * AVAIL, w / zw * AVAIL);\n"
"      } else {\n"
"        g.style.display = 'none';\n"
"      }\n"
"    });\n"
"    unzoomBtn.style.opacity = '1';\n"
"  }\n"
"  function unzoom() {\n"
"    frames.forEach(function (g) {\n"
"      g.style.display = ''; g.style.opacity = '';\n"
"      place(g, PAD + num(g, 'data-x') * AVAIL, num(g, 'data-w') * AVAIL);\n"
"    });\n"
"    unzoomBtn.style.opacity = '0';\n"
"  }\n"
"  function clearSearch() {\n"
"    frames.forEach(function (g) {\n"
"      var r = g.querySelector('rect');\n"
"      r.setAttribute('fill', g.getAttribute('data-fill'));\n"
"    });\n"
"    matched.textContent = ''; searchBtn.textContent = 'Search'; searching = false;\n"
"  }\n"
"  function search(term) {\n"
"    var re;\n"
"    try { re = new RegExp(term); } catch (ex) { matched.textContent = 'bad pattern'; return; }\n"
"    var spans = [];\n"
"    frames.forEach(function (g) {\n"
"      var r = g.querySelector('rect');\n"
"      if (re.test(g.getAttribute('data-n'))) {\n"
"        r.setAttribute('fill', 'rgb(230,0,230)');\n"
"        spans.push([num(g, 'data-x'), num(g, 'data-x') + num(g, 'data-w')]);\n"
"      } else {\n"
"        r.setAttribute('fill', g.getAttribute('data-fill'));\n"
"      }\n"
"    });\n"
"    /* a match inside another match must not count twice: merge spans */\n"
"    spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"    var sum = 0, end = -1;\n"
"    spans.forEach(function (s) {\n"
"      if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
"      else if (s[1] > end) { sum += s[1] - end; end = s[1]; }\n"
"    });\n"
"    matched.textContent = 'Matched: ' + (100 * sum).toFixed(1) + '%';\n"
"    searchBtn.textContent = 'Reset Search'; searching = true;\n"
"  }\n"
"  function askSearch() {\n"
"    if (searching) { clearSearch(); return; }\n"
"    var term = window.prompt('Search for frames matching (regular expression):', '');\n"
"    if (term) search(term);\n"
"  }\n"
"  function frameOf(el) {\n"
"    while (el && el !== svg) {\n"
"      if (el.getAttribute && el.getAttribute('class') === 'f') return el;\n"
"      el = el.parentNode;\n"
"    }\n"
"    return null;\n"
"  }\n"
"  svg.addEventListener('click', function (ev) {\n"
"    if (ev.target === unzoomBtn) { unzoom(); return; }\n"
"    if (ev.target === searchBtn) { askSearch(); return; }\n"
"    var g = frameOf(ev.target);\n"
"    if (g) zoom(g);\n"
"  });\n"
"  svg.addEventListener('mouseover', function (ev) {\n"
"    var g = frameOf(ev.target);\n"
"    if (g) details.textContent = g.querySelector('title').textContent;\n"
"  });\n"
"  svg.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"  window.addEventListener('keydown', function (ev) {\n"
"    if ((ev.ctrlKey && ev.key === 'f') || ev.key === '/') { ev.preventDefault(); askSearch(); }\n"
"    if (ev.key === 'Escape') { unzoom(); clearSearch(); }\n"
"  });\n"
"  svg.fg = { zoom: zoom, unzoom: unzoom, search: search, clearSearch: clearSearch };\n"
"})();\n"
"]]></script>\n";

struct fg_render {
	const struct fg_tree *t;
	const char *event;
	int diff;
	double max_delta;    /* diff: largest |share change| */
	unsigned width;
};

static void node_title(FILE *fp, const struct fg_render *rd, const struct fg_node *n, const char *name)
{
	const struct fg_tree *t = rd->t;
	xml_escape(fp, name);
	if (!rd->diff) {
		fprintf(fp, " (%" PRIu64 " %s, %.2f%%)", n->value, rd->event,
		        100.0 * share(n->value, t->total));
		return;
	}
	double d = share(n->value, t->total) - share(n->before, t->before_total);
	int64_t dc = (int64_t)(n->value - n->before);
	fprintf(fp, " (before %" PRIu64 ", %.2f%%; after %" PRIu64 ", %.2f%%; delta %+" PRId64
	        ", %+.2f%%)", n->before, 100.0 * share(n->before, t->before_total), n->value,
	        100.0 * share(n->value, t->total), dc, 100.0 * d);
}

static void write_node(FILE *fp, const struct fg_render *rd, size_t i, unsigned height)
{
	const struct fg_tree *t = rd->t;
	const struct fg_node *n = &t->n[i];
	const char *name = t->names.keys[n->name];
	double avail = rd->width - 2.0 * FG_PAD;
	double w = share(n->value, t->total), x = FG_PAD + n->x * avail, wpx = w * avail;
	double y = height - FG_BOTTOM - (double)(n->depth + 1) * FG_FRAME_H;
	char fill[48];
	if (rd->diff)
		diff_color(share(n->value, t->total) - share(n->before, t->before_total),
		           rd->max_delta, fill, sizeof fill);
	else
		flamegraph_color(name, fill, sizeof fill);
	fprintf(fp, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-fill=\"%s\" data-n=\"",
	        n->x, w, n->depth, fill);
	xml_escape(fp, name);
	fputs("\"><title>", fp);
	node_title(fp, rd, n, name);
	fprintf(fp, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>"
	        "<text x=\"%.2f\" y=\"%.1f\">", x, y, wpx, FG_FRAME_H - 1, fill, x + 3, y + FG_FRAME_H - 4.5);
	write_label(fp, name, wpx);
	fputs("</text></g>\n", fp);
}

static void write_svg(FILE *fp, const struct fg_render *rd, const char *title, const char *subtitle)
{
	const struct fg_tree *t = rd->t;
	unsigned height = FG_TOP + (t->maxdepth + 1) * FG_FRAME_H + FG_BOTTOM;
	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	        "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
	        "viewBox=\"0 0 %u %u\" data-pad=\"%d\" data-font=\"%d\" data-total=\"%" PRIu64 "\">\n",
	        rd->width, height, rd->width, height, FG_PAD, FG_FONT, t->total);
	fprintf(fp, "<!-- pqprof %s flame graph: %" PRIu64 " %s -->\n", PACKAGE_VERSION, t->total, rd->event);
	fprintf(fp, "<style>\n"
	        "text { font-family: monospace; font-size: %dpx; fill: #000; }\n"
	        "#title { font-size: 17px; text-anchor: middle; }\n"
	        "#subtitle { text-anchor: middle; fill: #555; }\n"
	        ".btn { cursor: pointer; fill: #00c; }\n"
	        "g.f { cursor: pointer; }\n"
	        "g.f:hover rect { stroke: #000; stroke-width: 0.7; }\n"
	        "</style>\n", FG_FONT);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f6f6f0\"/>\n", rd->width, height);
	fprintf(fp, "<text id=\"title\" x=\"%u\" y=\"24\">", rd->width / 2);
	xml_escape(fp, title);
	fprintf(fp, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"42\">", rd->width / 2);
	if (subtitle) {
		xml_escape(fp, subtitle);
		fputs(" - ", fp);
	}
	fprintf(fp, "Total: %" PRIu64 " %s", t->total, rd->event);
	if (rd->diff)
		fprintf(fp, " (before: %" PRIu64 "); red grew, blue shrank", t->before_total);
	fputs("</text>\n", fp);
	fprintf(fp, "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n", FG_PAD);
	fprintf(fp, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n",
	        rd->width - FG_PAD);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", FG_PAD, height - 12);
	fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"></text>\n",
	        rd->width - FG_PAD, height - 12);
	fputs("<g id=\"frames\">\n", fp);
	double avail = rd->width - 2.0 * FG_PAD;
	for (size_t i = 0; i < t->count; i++) {
		/* Narrower than FG_MIN_PX: invisible, and so are its children. */
		if (share(t->n[i].value, t->total) * avail < FG_MIN_PX)
			continue;
		write_node(fp, rd, i, height);
	}
	fputs("</g>\n", fp);
	fputs(fg_script, fp);
	fputs("</svg>\n", fp);
}

static int fg_fill(struct fg_tree *t, const folded *f, const char *op, int is_before, pq_error *err)
{
	struct folded_view v;
	int r = folded_view_make(f, op, &v, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < v.n && r == 0; i++)
		if (fg_add(t, v.e[i].stack, v.e[i].weight, is_before) < 0)
			r = pq_fail(err, PQ_ENOMEM, "flame graph: out of memory");
	folded_view_free(&v);
	return r;
}

static int fg_emit(struct fg_tree *t, const folded *f, const char *op, int diff,
                   const struct flamegraph_opts *opts, const char *path, pq_error *err)
{
	if (fg_layout(t) < 0)
		return pq_fail(err, PQ_ENOMEM, "flame graph: out of memory");
	struct fg_render rd = { t, f->event, diff, 0, opts && opts->width ? opts->width : 1200 };
	if (rd.width < 100)
		rd.width = 100;
	if (diff) {
		for (size_t i = 0; i < t->count; i++) {
			double d = fabs(share(t->n[i].value, t->total) - share(t->n[i].before, t->before_total));
			if (d > rd.max_delta)
				rd.max_delta = d;
		}
	}
	char title[512];
	if (opts && opts->title)
		snprintf(title, sizeof title, "%s", opts->title);
	else
		snprintf(title, sizeof title, "%s: %s", diff ? "Differential flame graph" : "Flame graph",
		         op ? op : "all operations");
	struct export_out o;
	int r = export_out_open(&o, path, err);
	if (r < 0)
		return r;
	write_svg(o.fp, &rd, title, opts ? opts->subtitle : NULL);
	return export_out_close(&o, 1, err);
}

int flamegraph_svg(const folded *f, const char *op, const struct flamegraph_opts *opts,
                   const char *path, pq_error *err)
{
	struct fg_tree t;
	if (fg_init(&t, op ? op : "all") < 0)
		return pq_fail(err, PQ_ENOMEM, "flame graph: out of memory");
	int r = fg_fill(&t, f, op, 0, err);
	if (r == 0)
		r = fg_emit(&t, f, op, 0, opts, path, err);
	fg_free(&t);
	return r;
}

int flamegraph_diff_svg(const folded *before, const folded *after, const char *op,
                        const struct flamegraph_opts *opts, const char *path, pq_error *err)
{
	struct fg_tree t;
	if (fg_init(&t, op ? op : "all") < 0)
		return pq_fail(err, PQ_ENOMEM, "flame graph: out of memory");
	int r = fg_fill(&t, after, op, 0, err);
	if (r == 0)
		r = fg_fill(&t, before, op, 1, err);
	if (r == 0)
		r = fg_emit(&t, after, op, 1, opts, path, err);
	fg_free(&t);
	return r;
}
