#!/bin/sh
# End-to-end: containment of scheme code, compilers and input files, with
# the hostile trees under tests/fixtures/hostile/ that try to reach past
# their job: a setsid() daemon, a scheme that vandalises its working
# directory, one that reads /etc/shadow and the network, descriptor flags
# that run a program, a FIFO header, an #include of /dev/zero, links out
# of the tree, a directory loop, a descriptor tree outside its directory,
# and --vectors naming a FIFO.  Nothing may hang: every command runs
# under timeout(1).  Runs as root (the full containment) and as an
# ordinary user (tests/ci/unprivileged.sh), where the uid change is not
# asked for and namespaces come from a user namespace when allowed.
. "$top_srcdir/tests/e2e/lib.sh"

H="$FIX/hostile"
ROOT=0
[ "$(id -u)" -eq 0 ] && ROOT=1
"$PQPROF" env >"$WORK/env.txt" 2>/dev/null
PIDNS=0
grep -q "^containment .*PID namespace" "$WORK/env.txt" && PIDNS=1
NETNS=0
grep -q "^containment .*network namespace" "$WORK/env.txt" && NETNS=1
expect_grep "$WORK/env.txt" "^containment +(PID namespace|process group)" "env: the containment in force is recorded"
if [ "$ROOT" = 1 ]; then
	expect_grep "$WORK/env.txt" "^containment .*as the unprivileged user" "env: as root, scheme code runs as an unprivileged user"
fi

# run_t TAG SECONDS command...: run under timeout, keep out/err/rc
run_t() {
	local tag=$1 secs=$2
	shift 2
	timeout -s KILL "$secs" "$@" >"$WORK/$tag.out" 2>"$WORK/$tag.err"
	echo $? >"$WORK/$tag.rc"
}
want_rc() {
	local rc
	rc=$(cat "$WORK/$1.rc")
	if [ "$rc" -eq "$2" ]; then pass "$1: $3 (exit $rc)"; else
		fail "$1: $3: exit $rc, wanted $2"; sed 's/^/  | /' "$WORK/$1.out" "$WORK/$1.err" | head -20; fi
}
no_grep() {   # no_grep FILE... -- PATTERN DESCRIPTION
	local files=""
	while [ "$1" != "--" ]; do files="$files $1"; shift; done
	shift
	if grep -rqF -- "$1" $files 2>/dev/null; then fail "$2"; else pass "$2"; fi
}
# copy_fixture NAME: a private copy of a fixture (links dereferenced), to add entries git cannot hold
copy_fixture() {
	rm -rf "$WORK/$1"
	cp -rL "$H/$1" "$WORK/$1"
}

# --- a daemon that leaves the process group and session -------------------
if build_fixture "$H/setsid-daemon" "$WORK/daemon.so"; then
	run_t kat-daemon 120 "$PQPROF" kat "$WORK/daemon.so" --records-dir "$WORK/rec-daemon"
	run_t bench-daemon 120 "$PQPROF" bench "$WORK/daemon.so" --trials 1 --iters 5 --timeout 20 --records-dir "$WORK/brec-daemon"
	left=$(pgrep -f -- "$WORK/daemon.so" 2>/dev/null)
	if [ "$PIDNS" = 1 ]; then
		want_rc kat-daemon 0 "kat: the daemon's scheme still passes its vectors"
		expect_grep "$WORK/kat-daemon.out" "left processes behind after the run \(killed\)" "kat: the daemon is reported"
		expect_grep "$WORK/rec-daemon/Toy-96.kat.json" "left processes behind" "kat: the daemon is in the record"
		[ "$(cat "$WORK/bench-daemon.rc")" -ne 0 ] && pass "bench: fails on a scheme that leaves a daemon" ||
			fail "bench: exit 0 on a scheme that leaves a daemon"
		expect_grep "$WORK/bench-daemon.err" "left processes behind \(killed\)" "bench: the daemon is reported"
		if [ -z "$left" ]; then pass "no daemon survives kat and bench"; else
			fail "daemons survive: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"; fi
	else
		pass "setsid daemon: no PID namespace here ($(sed -n 's/^containment *//p' "$WORK/env.txt")): not contained, as the environment record says"
	fi
	[ -z "$left" ] || kill -9 $left 2>/dev/null
fi

# --- a scheme that deletes and writes in its working directory ------------
if build_fixture "$H/cwd-vandal" "$WORK/vandal.so"; then
	mkdir -p "$WORK/cwd"
	echo precious >"$WORK/cwd/victim.txt"
	(cd "$WORK/cwd" && run_t kat-vandal 120 "$PQPROF" kat "$WORK/vandal.so" --records-dir "$WORK/rec-vandal")
	want_rc kat-vandal 0 "kat: the vandal's vectors pass"
	(cd "$WORK/cwd" && run_t bench-vandal 120 "$PQPROF" bench "$WORK/vandal.so" --trials 1 --iters 5 --records-dir "$WORK/brec-vandal")
	want_rc bench-vandal 0 "bench: the vandal is measured"
	(cd "$WORK/cwd" && run_t run-vandal 300 "$PQPROF" run "$WORK/vandal.so" --out "$WORK/camp-vandal" --steps kat,bench \
		--trials 1 --target 0.05 --no-report)
	want_rc run-vandal 0 "run: the vandal's campaign completes"
	[ -f "$WORK/cwd/victim.txt" ] && pass "the caller's file survives kat, bench and run" ||
		fail "the scheme deleted a file in the caller's working directory"
	[ ! -e "$WORK/cwd/scheme-was-here.txt" ] && pass "nothing was written in the caller's working directory" ||
		fail "the scheme wrote into the caller's working directory"
fi

# --- /etc/shadow and the network from scheme code and from the compiler ---
if build_fixture "$H/probe-secrets" "$WORK/probe.so"; then
	run_t kat-probe 120 "$PQPROF" kat "$WORK/probe.so" --records-dir "$WORK/rec-probe"
	want_rc kat-probe 0 "kat: the probing scheme passes"
	expect_grep "$WORK/rec-probe/Toy-96.kat.log" "probe: shadow denied" "scheme code cannot read /etc/shadow"
	if [ "$NETNS" = 1 ]; then
		expect_grep "$WORK/rec-probe/Toy-96.kat.log" "probe: network unreachable" "scheme code has no network"
	fi
fi
tree=$WORK/shadow-tree
rm -rf "$tree"
cp -rL "$FIX/nist-toy" "$tree"
run_t build-shadow 120 "$PQPROF" build "$tree" -o "$WORK/shadow.so" --cflags "-include /etc/shadow"
want_rc build-shadow 4 "build: a compiler told to include /etc/shadow fails"
expect_grep "$WORK/build-shadow.err" "/etc/shadow: Permission denied" "build: the compiler cannot read /etc/shadow"
if [ "$ROOT" = 1 ]; then
	secret=$(head -n 1 /etc/shadow | cut -c1-12)
	no_grep "$WORK/build-shadow.out" "$WORK/build-shadow.err" "$WORK/rec-probe" -- "$secret" \
		"no line of /etc/shadow in the build error, the KAT log or the record"
fi

# --- descriptor flags that run a program ----------------------------------
# The wrapper would print "wrapper-ran-42" and fail the compile (the flag text itself says $((6*7))).
run_t run-wrapper 300 "$PQPROF" run "$H/wrapper-flag" --out "$WORK/camp-wrapper" --steps build --no-report
want_rc run-wrapper 0 "run: the campaign finishes with the build failed"
expect_grep "$WORK/camp-wrapper/build/Toy-96__harness-default.json" \
	"scheme.json: cflags of instance Toy-96: compiler flag '-wrapper /bin/sh,-c,echo wrapper-ran-.*' refused: it runs a program" \
	"build record: the -wrapper flag is refused, named with its origin"
no_grep "$WORK/run-wrapper.out" "$WORK/run-wrapper.err" "$WORK/camp-wrapper" -- "wrapper-ran-42" \
	"nothing ran: the wrapper never printed"
run_t run-wrapper-trusted 300 "$PQPROF" run "$H/wrapper-flag" --out "$WORK/camp-trusted" --steps build --no-report --trust-flags
expect_grep "$WORK/camp-trusted/build/Toy-96__harness-default.json" "wrapper-ran-42" \
	"with --trust-flags the descriptor's flags are used (the wrapper ran)"

# --- a FIFO header ----------------------------------------------------------
copy_fixture fifo-header
rm -f "$WORK/fifo-header/pipe.h"
mkfifo "$WORK/fifo-header/pipe.h"
run_t build-fifo 60 "$PQPROF" build "$WORK/fifo-header" -o "$WORK/fifo.so"
want_rc build-fifo 2 "build: a FIFO header is refused (never hangs)"
expect_grep "$WORK/build-fifo.err" "pipe.h.* a FIFO" "build: the FIFO is named"

# --- #include "/dev/zero" -----------------------------------------------------
run_t build-zero 60 "$PQPROF" build "$H/include-dev-zero" -o "$WORK/zero.so"
want_rc build-zero 2 "build: #include \"/dev/zero\" is refused by the tree scan"
expect_grep "$WORK/build-zero.err" 'behaviour.h includes "/dev/zero"' "build: the include is named"
# Where the scan cannot see it (a header found through -I), the compiler's limits stop it.
tree=$WORK/zero-tree
rm -rf "$tree"
cp -rL "$FIX/nist-toy" "$tree"
echo '#include <zero.h>' >"$tree/zero_user.c"
# An include directory the unprivileged compiler can search ($WORK is private).
EVIL=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-e2e-inc.XXXXXX")
trap 'rm -rf "$WORK" "$EVIL"' EXIT
chmod 755 "$EVIL"
ln -s /dev/zero "$EVIL/zero.h"
run_t build-zero-limit 180 "$PQPROF" build "$tree" -o "$WORK/zero2.so" --cflags "-I$EVIL" --cc-memory 256 --timeout 60
want_rc build-zero-limit 4 "build: a compiler reading /dev/zero is stopped"
expect_grep "$WORK/build-zero-limit.err" "zero_user.c: compilation failed: stopped at the (memory limit of 256 MiB|CPU time limit|wall-clock limit)" \
	"build: the limit that stopped it is named"

# --- links out of the tree, a directory loop, a tree outside its descriptor ---
copy_fixture outside-symlink
ln -s /etc/passwd "$WORK/outside-symlink/secret.h"
run_t build-outside 60 "$PQPROF" build "$WORK/outside-symlink" -o "$WORK/outside.so"
want_rc build-outside 2 "build: a link out of the tree is refused"
expect_grep "$WORK/build-outside.err" "symbolic link secret.h leaves the tree \(points to /etc/passwd" "build: the link and its target are named"
no_grep "$WORK/build-outside.out" "$WORK/build-outside.err" -- "root:x:0" "build: nothing of the target is shown"
rm -f "$WORK/outside-symlink/secret.h"
mkdir "$WORK/outside-symlink/sub"
ln -s .. "$WORK/outside-symlink/sub/up"
run_t build-loop 60 "$PQPROF" build "$WORK/outside-symlink" -o "$WORK/loop.so"
want_rc build-loop 2 "build: a symlinked directory loop is refused"
expect_grep "$WORK/build-loop.err" "symbolic link loop: sub/up" "build: the loop is named"
mkdir -p "$WORK/desc"
cat >"$WORK/desc/scheme.json" <<EOF
{ "name": "escape", "title": "escape", "category": "digital signature",
  "instances": [ { "name": "Escape", "tree": "../../../../../../../../etc" } ] }
EOF
run_t run-escape 120 env -u PQPROF_SOURCE_ROOT "$PQPROF" run "$WORK/desc" --out "$WORK/camp-escape" --steps build --no-report
expect_grep "$WORK/camp-escape/build/Escape__harness-default.json" "the tree is outside the source root $WORK/desc" \
	"run: a descriptor tree outside the descriptor's directory is refused"

# --- --vectors naming a FIFO ----------------------------------------------------
if [ -f "$WORK/probe.so" ]; then
	mkfifo "$WORK/vectors.fifo"
	run_t kat-fifo 60 "$PQPROF" kat "$WORK/probe.so" --vectors "$WORK/vectors.fifo" --records-dir "$WORK/rec-fifo"
	want_rc kat-fifo 2 "kat: --vectors naming a FIFO is bad input (never hangs)"
	expect_grep "$WORK/kat-fifo.err" "vectors.fifo: not a regular file \(a FIFO\)" "kat: the FIFO is named"
fi

finish
