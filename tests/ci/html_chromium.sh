#!/bin/sh
# html_chromium: load a real campaign's report.html in headless Chromium,
# take a screenshot, and check from the rendered DOM that the tables and
# SVG charts are there.  Needs /usr/bin/chromium (Debian package
# "chromium"); run by .ci/run, not by make check.
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
"$PQPROF" run "$top_srcdir/tests/fixtures/campaign/toy.json" --out "$work/c" --trials 2 --target 0.05 >/dev/null 2>&1
html="$work/c/report.html"
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
echo "$((9 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
