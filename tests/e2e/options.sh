#!/bin/sh
# options.sh: the option vocabulary as a user meets it.  The OPTIONS
# section of doc/pqprof.1 is what the option tables make (doc/man-options.sh;
# `make update-man` after changing a table); pqprof help answers from the same
# tables; each old spelling still works, with one line naming the new one;
# a dangling api.h link is reported as one.
. "$top_srcdir/tests/e2e/lib.sh"

sh "$top_srcdir/doc/man-options.sh" "$PQPROF" "$top_srcdir/doc/pqprof.1" >"$WORK/pqprof.1"
if cmp -s "$WORK/pqprof.1" "$top_srcdir/doc/pqprof.1"; then pass "doc/pqprof.1 OPTIONS is what the tables make"; else
	fail "doc/pqprof.1 differs from the option tables (run make update-man):"
	diff "$top_srcdir/doc/pqprof.1" "$WORK/pqprof.1" | head -20 | sed 's/^/  | /'
fi

expect_rc 0 "help kat" -- "$PQPROF" help kat
"$PQPROF" kat --help >"$WORK/kat-h" 2>&1
cmp -s "$WORK/out" "$WORK/kat-h" && pass "help kat is kat --help" || fail "help kat differs from kat --help"
expect_rc 0 "help --timeout" -- "$PQPROF" help --timeout
expect_grep "$WORK/out" '^pqprof run:' "help --timeout names run"
expect_grep "$WORK/out" 'kat=S: time limit of the KAT replay' "help --timeout shows run's kat scope"
expect_grep "$WORK/out" '^pqprof bench:' "help --timeout names bench"
expect_rc 0 "help --kat-timeout" -- "$PQPROF" help --kat-timeout
expect_grep "$WORK/out" 'use --timeout kat=S' "help on an old spelling names the new one"
expect_rc 1 "help --no-such-option" -- "$PQPROF" help --no-such-option

# Old spellings: accepted, one line each on stderr.  Each command stops at a
# missing library or trace after parsing, which is all that is looked at.
old() {   # old CMD NEW-SPELLING ARGS...
	cmd=$1 new=$2
	shift 2
	"$PQPROF" "$cmd" "$@" >"$WORK/out" 2>"$WORK/err"
	n=$(grep -c "^pqprof $cmd: --.* is deprecated; use $new" "$WORK/err")
	if [ "$n" -eq 1 ] && ! grep -q "unknown option" "$WORK/err"; then pass "$cmd $*: one deprecation line"; else
		fail "$cmd $*: $n deprecation lines for '$new'"; sed 's/^/  | /' "$WORK/err" | head -5; fi
}
L="$WORK/none.so"
old run '--timeout kat=S' "$L" --kat-timeout 5 --dry-run
old run '--budget op=S' "$L" --op-budget 5 --dry-run
old run '--budget leak=S' "$L" --leak-budget 5 --dry-run
old run '--out DIR' "$L" --output "$WORK/c" --dry-run
old bench '--budget S' "$L" --op-budget 5
old bench '--records-dir DIR' "$L" --records ""
old leak '--budget S' "$L" --time-budget 5
old leak '--records-dir DIR' "$L" --records ""
old mem '--records-dir DIR' "$L" --records ""
old sizes '--budget S' "$L" --seconds 5 --records-dir ""
old sizes '--records-dir DIR' "$L" --records ""
old kat '--first N' "$L" --records 3 --records-dir ""
old manifest '--first N' "$WORK/none.rsp" --records 3
old profile '--budget S' "$L" -o "$WORK/t.pqt" --seconds 5
old profile '--out TRACE' "$L" --output "$WORK/t.pqt"
old build '--out OUT.so' "$WORK/none" --output "$WORK/x.so"
old build '--timeout S' "$WORK/none" -o "$WORK/x.so" --cc-timeout 5
old export '--out FILE' "$WORK/none.pqt" --format folded --output -
old compare '--out DIR' "$WORK/a" "$WORK/b" --output "$WORK/cmp"
"$PQPROF" bench "$L" --op-budget 5 --op-budget 6 >/dev/null 2>"$WORK/err"
[ "$(grep -c deprecated "$WORK/err")" -eq 1 ] && pass "an old spelling used twice is named once" ||
	fail "an old spelling used twice: $(cat "$WORK/err")"
"$PQPROF" run "$L" --budget nope=3 --dry-run >/dev/null 2>"$WORK/err"
expect_grep "$WORK/err" "unknown scope 'nope' \(paired, op, leak\)" "an unknown scope names the known ones"

# A tree whose api.h is a link to nothing says so, naming the link and its target.
mkdir -p "$WORK/src/t"
cp -R "$FIX/nist-toy/." "$WORK/src/t/"
rm -f "$WORK/src/t/api.h"
ln -s ../gone/api.h "$WORK/src/t/api.h"
expect_rc 2 "build with a dangling api.h" -- env PQPROF_SOURCE_ROOT="$WORK/src" "$PQPROF" build "$WORK/src/t" -o "$WORK/t.so" -q
expect_grep "$WORK/err" "t/api.h: the api.h link is dangling: it points to \.\./gone/api\.h" "the dangling api.h is named"

# --make-var beyond what the build tries is refused, never cut to fewer values.
vals=$(seq -s, 1 17)
expect_rc 1 "run with 17 values of one make variable" -- "$PQPROF" run "$FIX/nist-toy" --make-var "PARAM=$vals" --dry-run
expect_grep "$WORK/err" "--make-var 'PARAM': at most 16 values" "the refused --make-var is named with the limit"
expect_rc 1 "run with nine make variables" -- "$PQPROF" run "$FIX/nist-toy" --dry-run \
	$(for v in A B C D E F G H I; do printf ' --make-var %s=1' "$v"; done)
expect_grep "$WORK/err" "--make-var given 9 times: the build tries at most 8 variables" "nine variables are refused"
finish
