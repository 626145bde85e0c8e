#!/bin/sh
# index_chromium: a round's index.html in headless Chromium.  Runs the
# fixture round of tests/e2e/round.sh (four packages, quick), loads
# index.html and checks the rendered DOM has the candidates' table with a
# button in every sortable header and no console messages; then a test
# copy with tests/ci/index_sort_probe.js clicks the keygen header: the
# rows must come in the order of their values (not of their text:
# "972 ns" before "2.91 µs" before "440 µs"), missing figures last, and
# the other way on a second click.  Needs /usr/bin/chromium (Debian
# package "chromium"); run by .ci/run, not by make check.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "index_chromium: chromium not installed (apt-get install chromium)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-index.XXXXXX")
chmod 755 "$work"   # trees built in place are compiled as another user
trap 'rm -rf "$work"' EXIT
# INDEX_ROUND=DIR checks the index of a round already run instead.
root=${INDEX_ROUND:-$work/out}
if [ -z "${INDEX_ROUND:-}" ]; then
	sh "$top_srcdir/tests/e2e/round_fixture.sh" "$work/round" "$top_srcdir" >/dev/null
	PQPROF_SOURCE_ROOT=/ "$PQPROF" run "$work/round" --quick --steps build,kat,bench,sizes,report --trials 2 \
		--target 0.02 --budget op=2 --no-interposition-check -o "$root" >/dev/null 2>&1 || :
fi
html="$root/index.html"
[ -s "$html" ] || { echo "FAIL: no index.html"; exit 1; }
flags="--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --allow-file-access-from-files"
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
"$CHROMIUM" $flags --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$html" \
	>"$work/dom.html" 2>"$work/chromium.err"
grep -q '<table id="candidates">' "$work/dom.html" && ok "candidates' table rendered" || bad "no candidates' table"
n=$(grep -o '<th scope="col"><button type="button" class="sort"' "$work/dom.html" | wc -l)
[ "$n" -ge 16 ] && ok "$n sortable headers, each a button" || bad "only $n header buttons"
# The probe: click keygen twice.
awk -v js="$top_srcdir/tests/ci/index_sort_probe.js" '
	/<\/body>/ { print "<script>"; while ((getline l < js) > 0) print l; print "</script>" }
	{ print }' "$html" >"$root/index-probe.html"
"$CHROMIUM" $flags --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$root/index-probe.html" \
	2>>"$work/chromium.err" |
	awk '/<pre id="sort-probe">/ { on = 1; sub(/.*<pre id="sort-probe">/, "") } on && /<\/pre>/ { sub(/<\/pre>.*/, ""); print; on = 0 }
	     on { print }' >"$work/probe.txt"
rm -f "$root/index-probe.html"
sed 's/^/  probe: /' "$work/probe.txt"
grep -q '^focused true$' "$work/probe.txt" && ok "the header button takes the keyboard focus" || bad "header button not focusable"
[ "$(sed -n 's/^aria //p' "$work/probe.txt" | tr '\n' ' ')" = "ascending descending " ] &&
	ok "aria-sort ascending, then descending" || bad "aria-sort: $(sed -n 's/^aria //p' "$work/probe.txt" | tr '\n' ' ')"
# sorted TAG DIR: the rows after a click in value order (DIR 1 up, -1 down), empty values last.
sorted() {
	awk -F '\t' -v tag="$1" -v dir="$2" '$1 == tag { n++; if ($3 == "") { empty = 1; next }
		if (empty) bad = 1; v = $3 + 0; if (have && dir * (v - last) < 0) bad = 1; last = v; have = 1 }
		END { exit !(n >= 3 && !bad) }' "$work/probe.txt"
}
sorted asc 1 && ok "first click: rows by keygen time, ascending, missing last" || bad "first click: rows not by value"
sorted desc -1 && ok "second click: descending, missing last" || bad "second click: rows not by value, descending"
# By value, not by text: the order of the texts after the click is not theirs sorted as text.
vals=$(awk -F '\t' '$1 == "asc" && $3 != "" { print $4 }' "$work/probe.txt")
[ -n "$vals" ] && [ "$vals" != "$(printf '%s\n' "$vals" | LC_ALL=C sort)" ] && ok "by value, not as text" ||
	note=": the fixture's figures sort alike as text"
[ -z "${note:-}" ] || echo "note: cannot tell value from text order$note"
if grep -Eq 'CONSOLE\(|Uncaught' "$work/chromium.err"; then
	bad "console messages: $(grep -E 'CONSOLE\(|Uncaught' "$work/chromium.err" | head -3)"
else
	ok "no console errors"
fi
[ "$fails" -eq 0 ] && echo "index_chromium: all checks passed" || echo "index_chromium: $fails failed"
[ "$fails" -eq 0 ]
