#!/bin/sh
# CI: install pqprof from its release tarball into a fresh prefix outside
# the source tree, move the prefix, and check the moved copy with nothing
# but its installed files (tests/e2e/installed.sh: schemes by name, a quick
# campaign from an empty directory, a missing runner is exit 10).  Then
# move it back and check that make uninstall leaves nothing, not even empty
# directories.  Run from a configured source tree.
set -eu
cd "$(dirname "$0")/../.."
T=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
make dist >/dev/null
tar -C "$T" -xzf "pqprof-$(sed -n 's/^AC_INIT(\[pqprof\], \[\([^]]*\)\].*/\1/p' configure.ac).tar.gz"
src=$(echo "$T"/pqprof-*)
(cd "$src" && ./configure -q --prefix="$T/inst" && make -j"$(nproc)" >/dev/null && make install >/dev/null)
[ -x "$T/inst/bin/pqprof" ] && [ -x "$T/inst/libexec/pqprof/pqprof-runner" ] ||
	{ echo "FAIL: make install did not install pqprof and its runner"; exit 1; }
mv "$T/inst" "$T/lab"
sh tests/e2e/installed.sh "$T/lab" "$T/lab/bin" "$T/lab/libexec/pqprof" "$T/lab/share/pqprof"
mv "$T/lab" "$T/inst"
(cd "$src" && make uninstall >/dev/null)
left=$(cd "$T/inst" && find . -mindepth 1 | head -20)
if [ -n "$left" ]; then
	echo "FAIL: make uninstall left these behind:"; echo "$left"; exit 1
fi
echo "ok: make uninstall left nothing in the prefix"
