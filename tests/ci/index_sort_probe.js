// index_sort_probe.js: added to a test copy of a round's index.html by
// tests/ci/index_chromium.sh.  Clicks the "keygen" column header's button
// of the candidates' table twice and writes, into a pre element (id sort-probe),
// the header's aria-sort and the rows' order (package, data-v, text)
// after each click, for the script to check.
(function () {
	var out = [];
	var t = document.getElementById('candidates');
	var ths = t.tHead.rows[0].cells, c = -1;
	for (var i = 0; i < ths.length; i++)
		if (ths[i].textContent.trim() === 'keygen')
			c = i;
	out.push('column ' + c);
	out.push('buttons ' + t.querySelectorAll('th > button[type=button]').length + ' of ' + ths.length);
	function order(tag) {
		var rows = t.tBodies[0].rows;
		for (var i = 0; i < rows.length; i++)
			out.push(tag + '\t' + rows[i].cells[1].textContent + '\t' + rows[i].cells[c].getAttribute('data-v') +
			         '\t' + rows[i].cells[c].textContent);
	}
	order('before');
	var b = ths[c].querySelector('button');
	b.focus();
	out.push('focused ' + (document.activeElement === b));
	b.click();
	out.push('aria ' + ths[c].getAttribute('aria-sort'));
	order('asc');
	b.click();
	out.push('aria ' + ths[c].getAttribute('aria-sort'));
	order('desc');
	var pre = document.createElement('pre');
	pre.id = 'sort-probe';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
