#!/bin/sh
# html_chromium: load a real campaign's report.html in headless Chromium,
# take screenshots, and check from the rendered DOM that the tables and
# SVG charts are there.  Then the layout at 1280x800: a test copy of the
# page with tests/ci/html_layout.js added (report.html has no script)
# writes the boxes Chromium laid out into the DOM it dumps; the summary's
# table must lie in the first 800 px, the contents line must link every
# section, the summary's charts must be drawn and every [inlined] mark of
# report.md shown.  A second copy with a tall block before the summary
# must fail that check, so the check is known to be able to fail.
# Needs /usr/bin/chromium (Debian package "chromium"); run by .ci/run,
# not by make check.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
# The fixtures share sources outside their own trees: let them resolve anywhere in the source tree.
PQPROF_SOURCE_ROOT=${PQPROF_SOURCE_ROOT:-$top_srcdir}
export PQPROF_SOURCE_ROOT
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "html_chromium: chromium not installed (apt-get install chromium)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-html.XXXXXX")
trap 'rm -rf "$work"' EXIT
# HTML_CAMPAIGN=DIR checks the report of a campaign already run instead of running the toy one.
camp=${HTML_CAMPAIGN:-$work/c}
[ -n "${HTML_CAMPAIGN:-}" ] ||
	"$PQPROF" run "$top_srcdir/tests/fixtures/campaign/toy.json" --out "$camp" --trials 2 --target 0.05 >/dev/null 2>&1
html="$camp/report.html"
[ -s "$html" ] || { echo "FAIL: no report.html"; exit 1; }
flags="--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --allow-file-access-from-files"
# The rendered DOM, after scripts and layout.
"$CHROMIUM" $flags --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom "file://$html" \
	>"$work/dom.html" 2>"$work/chromium.err"
"$CHROMIUM" $flags --window-size=1280,2400 --screenshot="$work/report.png" "file://$html" >/dev/null 2>>"$work/chromium.err"
fails=0
check() {
	if grep -Eq -- "$2" "$work/dom.html"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
check "rendered page has tables" "<table"
check "KAT table rendered" "Functional testing"
check "performance table rendered" "Performance"
check "SVG charts rendered" "<svg"
check "instance names rendered" "Toy-NGCC-96"
check "annotated views of the top functions" '<details class="fold"><summary>Annotated: '
check "disassembly on demand" '<summary>Disassembly of '
if grep -Eq 'CONSOLE\(|Uncaught' "$work/chromium.err"; then
	echo "FAIL: console messages while loading the page:"; grep -E 'CONSOLE\(|Uncaught' "$work/chromium.err" | head -5
	fails=$((fails + 1))
else
	echo "ok: no console errors"
fi
n=$(grep -o "<table" "$work/dom.html" | wc -l)
[ "$n" -ge 5 ] && echo "ok: $n tables" || { echo "FAIL: only $n tables"; fails=$((fails + 1)); }
size=$(stat -c %s "$work/report.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] && echo "ok: screenshot taken ($size bytes)" || { echo "FAIL: screenshot missing or blank ($size bytes)"; fails=$((fails + 1)); }
[ -n "${KEEP_SCREENSHOT:-}" ] && cp "$work/report.png" "$KEEP_SCREENSHOT"
total=9

# ---- layout at 1280x800 ----
VIEW_W=1280 VIEW_H=800
# copy SRC DST [BLOCK]: the page with the probe before </body>, and BLOCK (markup) right after the contents line.
probe_copy() {
	awk -v js="$top_srcdir/tests/ci/html_layout.js" -v block="${3:-}" '
		/<\/body>/ { print "<script>"; while ((getline l < js) > 0) print l; print "</script>" }
		{ print }
		/<\/nav>/ && block != "" { print block }' "$1" >"$2"
}
# layout FILE OUT: the probe's lines (the last <pre id="layout-probe"> of the dumped DOM) for FILE laid
# out in a window of VIEW_W x WIN_H.
WIN_H=$VIEW_H
layout() {
	"$CHROMIUM" $flags --hide-scrollbars --window-size=$VIEW_W,$WIN_H --virtual-time-budget=5000 --dump-dom \
		"file://$1" 2>>"$work/chromium.err" |
		awk '/<pre id="layout-probe">/ { on = 1; n = 0; next } on && /<\/pre>/ { on = 0 } on { l[n++] = $0 }
		     END { for (i = 0; i < n; i++) print l[i] }' >"$2"
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
# summary_in_view PROBE: 0 when the summary's table lies within the first VIEW_H px.
summary_in_view() {
	top=$(val summary_table_top "$1") bottom=$(val summary_table_bottom "$1")
	[ -n "$top" ] && [ -n "$bottom" ] && [ "$top" -ge 0 ] && [ "$bottom" -le "$VIEW_H" ]
}
probe_copy "$html" "$work/probe.html"
"$CHROMIUM" $flags --hide-scrollbars --window-size=$VIEW_W,$VIEW_H --screenshot="$work/first-screen.png" "file://$html" \
	>/dev/null 2>>"$work/chromium.err"
layout "$work/probe.html" "$work/layout.txt"
# --dump-dom lays the page out in a window whose viewport can be shorter than the window (headless
# Chromium 1xx keeps room for a browser's bars): grow the window by the difference, once.
h=$(val viewport "$work/layout.txt" | cut -dx -f2)
if [ -n "$h" ] && [ "$h" -gt 0 ] && [ "$h" -ne "$VIEW_H" ]; then
	WIN_H=$((VIEW_H + VIEW_H - h))
	echo "note: a ${VIEW_W}x$VIEW_H window gave a viewport ${h} px high; laying out in a ${VIEW_W}x$WIN_H window"
	layout "$work/probe.html" "$work/layout.txt"
fi
sed 's/^/  probe: /' "$work/layout.txt"
total=$((total + 8))
size=$(stat -c %s "$work/first-screen.png" 2>/dev/null || echo 0)
[ "$size" -gt 20000 ] && ok "screenshot at ${VIEW_W}x$VIEW_H ($size bytes)" || bad "screenshot at ${VIEW_W}x$VIEW_H missing or blank ($size bytes)"
[ "$(val viewport "$work/layout.txt")" = "${VIEW_W}x$VIEW_H" ] && ok "laid out in a ${VIEW_W}x$VIEW_H viewport" ||
	bad "viewport was $(val viewport "$work/layout.txt"), not ${VIEW_W}x$VIEW_H"
if summary_in_view "$work/layout.txt"; then
	ok "summary table within the first $VIEW_H px ($(val summary_table_top "$work/layout.txt")-$(val summary_table_bottom "$work/layout.txt"))"
else
	bad "summary table not within the first $VIEW_H px (top $(val summary_table_top "$work/layout.txt"), bottom $(val summary_table_bottom "$work/layout.txt"))"
fi
links=$(val toc_links "$work/layout.txt") heads=$(val section_headings "$work/layout.txt")
if [ "${links:-0}" -gt 0 ] && [ "$links" = "$heads" ] && [ "$(val toc_dead_links "$work/layout.txt")" = 0 ] &&
	[ "$(val toc_bottom "$work/layout.txt")" -le "$(val summary_heading_top "$work/layout.txt")" ]; then
	ok "contents before the summary, linking all $heads sections"
else
	bad "contents: $links links for $heads section headings, $(val toc_dead_links "$work/layout.txt") leading nowhere"
fi
[ "$(val summary_charts "$work/layout.txt")" -ge 1 ] && ok "the summary has $(val summary_charts "$work/layout.txt") chart(s)" ||
	bad "no chart in the summary"
n=$(val charts "$work/layout.txt")
[ "${n:-0}" -ge 1 ] && [ "$(val charts_drawn "$work/layout.txt")" = "$n" ] && [ "$(val chart_bars_drawn "$work/layout.txt")" -ge "$n" ] &&
	ok "all $n SVG charts drawn ($(val chart_bars_drawn "$work/layout.txt") bars)" ||
	bad "SVG charts: $n, drawn $(val charts_drawn "$work/layout.txt"), bars $(val chart_bars_drawn "$work/layout.txt")"
# Every [inlined] mark the model gives in a table (report.md has them as text; the
# sentence that explains the mark is prose, not a mark) is a visible badge in the page.
want=$(grep '^|' "$camp/report.md" | grep -o '\[inlined\]' | wc -l)
got=$(val inlined_marks "$work/layout.txt") shown=$(val inlined_marks_shown "$work/layout.txt")
if [ "$want" -eq 0 ]; then
	ok "no [inlined] function in this campaign's tables (nothing to show)"
elif [ "$got" = "$want" ] && [ "$shown" = "$want" ]; then
	ok "all $want [inlined] marks of report.md shown as marks"
else
	bad "[inlined]: $want in report.md, $got marks in the page, $shown of them visible"
fi
# The check must be able to fail: push the summary down and it has to notice.
probe_copy "$html" "$work/pushed.html" '<div style="height:900px">pushed down</div>'
layout "$work/pushed.html" "$work/pushed.txt"
if [ -s "$work/pushed.txt" ] && ! summary_in_view "$work/pushed.txt"; then
	ok "a summary pushed down is caught (table at $(val summary_table_top "$work/pushed.txt") px)"
else
	bad "a summary pushed down by 900 px still passed the check"
fi
[ -n "${KEEP_SCREENSHOT:-}" ] && cp "$work/first-screen.png" "${KEEP_SCREENSHOT%.png}-first-screen.png"
echo "$((total - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
