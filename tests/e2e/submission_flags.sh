#!/bin/sh
# End-to-end: submission trees as they come.  Flags and -D switches as the
# tree's own build passed them (each with the compile it was seen in), a
# tree whose one source set serves several instances chosen by -D switches
# in a shell loop (the one the directory names, a refusal naming the
# choices, a mismatch between directory and built instance), and an AVX2
# tree whose Makefile carries -mavx2 -mbmi2 -mpopcnt and whose build cannot
# link (its rng.c is not shipped: the flags come from the compiles, recorded
# without running them), built and KAT-checked where the CPU has them,
# "instruction set not available" where it does not; through the real
# pqprof build and pqprof run.
. "$top_srcdir/tests/e2e/lib.sh"

M="$FIX/multi-instance"
T192="$M/Toyla-192f"
CHOICES='Toyla-128f \(TOYLA_128f\), Toyla-128s \(TOYLA_128s\), Toyla-192f \(TOYLA_192f\), Toyla-192s \(TOYLA_192s\)'

# The directory names one of the four instances: that one is built, not the header's default.
expect_rc 0 "build the multi-instance tree named Toyla-192f" -- "$PQPROF" build "$T192" -o "$WORK/t192.so"
expect_grep "$WORK/out" "^instance: Toyla-192f \(named by the directory\), linked by the build as KAT_SIG_Toyla-192f" \
	"instance chosen by the directory name"
expect_grep "$WORK/out" "^instances: the tree.s build links 4 KAT programs: $CHOICES" "the instances listed"
expect_grep "$WORK/out" '^flags: -DTOYLA_INSTANCE=TOYLA_192f <- observed: `make \(default goal\)`, compile of SIG_AlgorithmInstance.c' \
	"the selecting switch as the shell loop passed it"
expect_grep "$WORK/out" '^flags: -DTOYLA_INSTANCE_NAME="Toyla-192f" <- observed' "the name switch, unquoted"
expect_grep "$WORK/out" '^flags: -DTOYLA_FAST_PATH=1 <- observed' "CPPFLAGS of the Makefile kept"
if grep -q -- '^flags: -O3' "$WORK/out"; then fail "-O3 of the tree was passed on"; else
	pass "-O of the tree is not passed on"; fi
expect_grep "$WORK/out" '^flags: -O2 <- profile harness-default' "the profile decides optimisation"
if grep -q -- '-fsanitize\|TOYLA_DEBUG' "$WORK/out"; then fail "flags of the test target were taken"; else
	pass "flags of the test target left out"; fi
expect_rc 0 "info on the built library" -- "$PQPROF" info "$WORK/t192.so"
expect_grep "$WORK/out" "^instance +Toyla-192f$" "the library reports Toyla-192f"
expect_rc 0 "kat Toyla-192f" -- "$PQPROF" kat "$WORK/t192.so" --records-dir ""
expect_grep "$WORK/out" "^RESULT Toyla-192f PASS" "Toyla-192f passes its known answers"

# Without the tree's flags the header default is built (what pqprof did before it read Makefiles).
expect_rc 0 "build with --no-tree-flags" -- "$PQPROF" build "$T192" -o "$WORK/default.so" -q --no-tree-flags
expect_rc 0 "info on the header-default build" -- "$PQPROF" info "$WORK/default.so"
expect_grep "$WORK/out" "^instance +Toyla-128f$" "the header default is another instance"

# A directory whose name says nothing: refuse to guess, name the choices.
cp -RL "$T192" "$WORK/toyla-src"
expect_rc 1 "build a multi-instance tree whose directory names no instance" -- \
	"$PQPROF" build "$WORK/toyla-src" -o "$WORK/guess.so"
expect_grep "$WORK/err" "the tree.s build links 4 KAT programs \(make -B \(default goal\).*\); choose one with --instance: $CHOICES" \
	"refusal names the choices"
[ ! -e "$WORK/guess.so" ] && pass "nothing built when refusing" || fail "a library was built after the refusal"
expect_rc 1 "--instance naming no instance" -- "$PQPROF" build "$WORK/toyla-src" -o "$WORK/guess.so" --instance Toyla-256f
expect_grep "$WORK/err" "no instance 'Toyla-256f' in the tree.s observed build \(make -B \(default goal\).*\); it builds: $CHOICES" \
	"unknown instance names the choices"
expect_rc 0 "--instance Toyla-128s" -- "$PQPROF" build "$WORK/toyla-src" -o "$WORK/t128s.so" --instance Toyla-128s -q
expect_rc 0 "info Toyla-128s" -- "$PQPROF" info "$WORK/t128s.so"
expect_grep "$WORK/out" "^instance +Toyla-128s$" "--instance builds the instance asked for"
expect_grep "$WORK/out" "^sig +48 bytes$" "with that instance's parameters"

# Directory and built instance disagree: an error naming both, no library left behind.
expect_rc 2 "switches that build another instance than the directory names" -- \
	"$PQPROF" build "$T192" -o "$WORK/mismatch.so" -D TOYLA_INSTANCE=TOYLA_128f -D 'TOYLA_INSTANCE_NAME="Toyla-128f"'
expect_grep "$WORK/err" "directory names instance Toyla-192f, but the library built reports instance Toyla-128f" \
	"mismatch names both instances"
[ ! -e "$WORK/mismatch.so" ] && pass "no library kept after a mismatch" || fail "mismatched library kept"
expect_rc 2 "--instance against the directory name" -- "$PQPROF" build "$T192" -o "$WORK/mismatch.so" --instance Toyla-192s
expect_grep "$WORK/err" "directory names instance Toyla-192f, but the library built reports instance Toyla-192s" \
	"--instance against the directory name is a mismatch"

# pqprof run: the directory's instance, its known answers and the flags' origins in the build record.
expect_rc 0 "run on Toyla-192f" -- "$PQPROF" run "$T192" --quick --steps build,kat,report --out "$WORK/run192"
B="$WORK/run192/build/Toyla-192f__harness-default.json"
expect_grep "$B" '"status": "complete"' "build record complete"
expect_grep "$B" '"name": "Toyla-192f"' "build record names the instance the library reports"
expect_grep "$B" '"origin": "observed: `make \(default goal\)`, compile of SIG_AlgorithmInstance.c"' "build record: switch origin"
expect_grep "$B" '"origin": "profile harness-default"' "build record: profile origin"
expect_grep "$WORK/run192/kat/Toyla-192f__harness-default.json" '"verdict": "PASS"' "run: KAT PASS"
expect_grep "$WORK/run192/report.md" '^\| `Toyla-192f` \| harness-default \| PASS \|' "report: Toyla-192f PASS"

# pqprof run on a tree that names no instance: every instance, each with its known answers.
expect_rc 0 "run on the neutral multi-instance tree" -- "$PQPROF" run "$M/toyla" --quick --out "$WORK/runall" --steps build,kat,report
for i in 128f 128s 192f 192s; do
	expect_grep "$WORK/runall/kat/Toyla-${i}__harness-default.json" '"verdict": "PASS"' "run: Toyla-$i KAT PASS"
	expect_grep "$WORK/runall/build/Toyla-${i}__harness-default.json" "\"name\": \"Toyla-$i\"" "run: Toyla-$i built as itself"
done

# The AVX2 tree: its Makefile's -m flags, checked against this CPU.
V="$FIX/avx2-nist"
have=1
for f in avx2 bmi2 popcnt; do grep -qw "$f" /proc/cpuinfo || have=0; done
if [ "$have" = 1 ]; then
	expect_rc 0 "build the AVX2 tree" -- "$PQPROF" build "$V" -o "$WORK/vexil.so"
	expect_grep "$WORK/out" '^flags: -mavx2 <- observed: `make \(default goal\), record-only`, compile of fold.S$' "-mavx2 as the build passed it, recorded without running it"
	expect_grep "$WORK/out" '^flags: -mbmi2 <- observed: `make \(default goal\), record-only`, compile of fold.S$' "-mbmi2 from the Makefile"
	expect_grep "$WORK/out" '^flags: -mpopcnt <- observed: `make \(default goal\), record-only`, compile of fold.S$' "-mpopcnt from the Makefile"
	expect_grep "$WORK/out" '^kept: fold.S \(as the build compiled it, with its own flags\)$' "the assembly file is compiled"
	expect_rc 0 "kat on the AVX2 build" -- "$PQPROF" kat "$WORK/vexil.so" --records-dir ""
	expect_grep "$WORK/out" "^RESULT Vexil-avx2 PASS" "AVX2 build passes its known answers"
	expect_rc 0 "run on the AVX2 tree" -- "$PQPROF" run "$V" --quick --steps build,kat,report --out "$WORK/runv"
	expect_grep "$WORK/runv/kat/Vexil-avx2__harness-default.json" '"verdict": "PASS"' "run: AVX2 KAT PASS"
	expect_grep "$WORK/runv/build/Vexil-avx2__harness-default.json" '"origin": "observed: `make \(default goal\), record-only`, compile of fold.S"' \
		"run: build record names the Makefile line of -mavx2"
else
	expect_rc 4 "build the AVX2 tree on a CPU without AVX2/BMI2/POPCNT" -- "$PQPROF" build "$V" -o "$WORK/vexil.so"
	expect_grep "$WORK/err" "instruction set not available: .*needs" "verdict: instruction set not available"
fi
# Without the tree's flags the intrinsics do not compile (the failure users met before).
expect_rc 4 "AVX2 tree without its Makefile flags" -- "$PQPROF" build "$V" -o "$WORK/noflags.so" --no-tree-flags
# A CPU that lacks them (as $PQPROF_CPU_FLAGS says): a clear verdict, nothing built, nothing run.
PQPROF_CPU_FLAGS="fpu sse sse2" expect_rc 4 "AVX2 tree for a CPU without AVX2" -- "$PQPROF" build "$V" -o "$WORK/noisa.so"
expect_grep "$WORK/out" "^verdict: instruction set not available$" "verdict line"
expect_grep "$WORK/err" "-mavx2 \(from observed: .make \(default goal\), record-only., compile of fold.S\) needs avx2; -mbmi2 \(from observed: .*\) needs bmi2; -mpopcnt \(from observed: .*\) needs popcnt" \
	"each flag named with its origin and what it needs"
[ ! -e "$WORK/noisa.so" ] && pass "nothing built without the instruction sets" || fail "library built anyway"
PQPROF_CPU_FLAGS="fpu sse sse2" expect_rc 0 "run on the AVX2 tree for a CPU without AVX2" -- \
	"$PQPROF" run "$V" --quick --steps build,kat,report --out "$WORK/runnoisa"
expect_grep "$WORK/runnoisa/build/Vexil-avx2__harness-default.json" '"verdict": "instruction set not available"' \
	"run: build record carries the verdict"
[ ! -e "$WORK/runnoisa/kat/Vexil-avx2__harness-default.json" ] && pass "run: no KAT run without the instruction sets" ||
	fail "run: KAT ran on an unbuildable instance"

finish
