// html_layout.js: measures a report.html as Chromium lays it out and
// writes what it found into the page, for html_chromium.sh to read from
// --dump-dom.  Injected into a test copy of the page only; report.html
// itself has no script.  One "key value" per line in <pre id="layout-probe">.
window.addEventListener('load', function () {
	var out = [];
	function put(k, v) { out.push(k + ' ' + v); }
	function box(el) { var r = el.getBoundingClientRect(); return r; }
	put('viewport', window.innerWidth + 'x' + window.innerHeight);
	put('scroll_y', window.scrollY);
	// The summary: its heading, and the first table before the next section heading.
	var h = document.getElementById('summary'), table = null, charts = 0, el;
	if (h) {
		for (el = h.nextElementSibling; el && el.tagName !== 'H2'; el = el.nextElementSibling) {
			if (!table && el.tagName === 'TABLE')
				table = el;
			charts += el.querySelectorAll ? el.querySelectorAll('svg.chart').length : 0;
		}
		put('summary_heading_top', Math.round(box(h).top));
	}
	if (table) {
		var r = box(table);
		put('summary_table_top', Math.round(r.top));
		put('summary_table_bottom', Math.round(r.bottom));
		put('summary_table_rows', table.rows.length);
	}
	put('summary_charts', charts);
	// The charts: drawn with a size, their bars wider than nothing.
	var svgs = document.querySelectorAll('svg.chart'), drawn = 0, bars = 0;
	for (var i = 0; i < svgs.length; i++) {
		var b = box(svgs[i]);
		if (b.width > 100 && b.height > 20)
			drawn++;
		var rects = svgs[i].querySelectorAll('rect.bar');
		for (var k = 0; k < rects.length; k++)
			if (rects[k].getBoundingClientRect().width > 0)
				bars++;
	}
	put('charts', svgs.length);
	put('charts_drawn', drawn);
	put('chart_bars_drawn', bars);
	// The contents: after the title, before the summary; every link leads to a heading.
	var toc = document.querySelector('nav.toc'), links = 0, dead = 0;
	if (toc) {
		var a = toc.querySelectorAll('a[href^="#"]');
		for (i = 0; i < a.length; i++) {
			links++;
			if (!document.getElementById(a[i].getAttribute('href').slice(1)))
				dead++;
		}
		put('toc_top', Math.round(box(toc).top));
		put('toc_bottom', Math.round(box(toc).bottom));
	}
	put('toc_links', links);
	put('toc_dead_links', dead);
	put('section_headings', document.querySelectorAll('h2[id]').length);
	// The [inlined] marks: shown, with a background of their own.
	var marks = document.querySelectorAll('span.inlined'), shown = 0;
	for (i = 0; i < marks.length; i++) {
		var m = box(marks[i]), bg = getComputedStyle(marks[i]).backgroundColor;
		if (m.width > 0 && m.height > 0 && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent')
			shown++;
	}
	put('inlined_marks', marks.length);
	put('inlined_marks_shown', shown);
	var pre = document.createElement('pre');
	pre.id = 'layout-probe';
	pre.textContent = '\n' + out.join('\n') + '\n';
	document.body.appendChild(pre);
});
