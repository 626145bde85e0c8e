#!/bin/sh
# End-to-end: pqprof build and pqprof bench on the NGCC and NIST fixture
# trees through the real binary, plus the documented errors for bad input.
. "$top_srcdir/tests/e2e/lib.sh"

expect_rc 0 "build NIST fixture" -- "$PQPROF" build "$FIX/nist-toy" -o "$WORK/nist.so"
expect_grep "$WORK/out" "left out: rng.c" "NIST rng.c is left out"
expect_grep "$WORK/out" "left out: speed.c: defines main" "benchmark driver with main() is left out"
expect_grep "$WORK/out" "left out: PQCgenKAT_sign.c: official KAT generator" "KAT generator is left out"
expect_grep "$WORK/out" "kept: toy_sign.c" "scheme source is kept"

expect_rc 0 "build NGCC fixture (reference profile)" -- "$PQPROF" build "$FIX/ngcc-toy" -o "$WORK/ngcc.so" --profile reference -D TOY_ROUNDS=300
expect_grep "$WORK/out" "api: ngcc signature" "NGCC API detected although api.h is present"
expect_grep "$WORK/out" "left out: table_part.c: only #included by extra.c" "included .c fragment is left out"
expect_grep "$WORK/out" "cflags: -std=c99 -O2 -DTOY_ROUNDS=300 -g -fPIC" "profile flags, -D and -g recorded"

expect_rc 0 "info on NGCC instance" -- "$PQPROF" info "$WORK/ngcc.so" --json
expect_grep "$WORK/out" '"name": "Toy-NGCC-96"' "instance name from ALGORITHM_INSTANCE"
expect_grep "$WORK/out" '"profile": "reference"' "profile in descriptor"
expect_grep "$WORK/out" '"sig": 96' "signature size from sig_get_sn_len_bytes"

for lib in nist ngcc; do
	expect_rc 0 "bench $lib" -- "$PQPROF" bench "$WORK/$lib.so" --trials 2 --iters 50 --records-dir "$WORK/rec-$lib"
	expect_grep "$WORK/out" "^counter: " "bench $lib names its counter backend"
	expect_grep "$WORK/out" "keygen .* 100 \(2 x 50\)" "bench $lib keygen row with n = trials x iters"
	expect_grep "$WORK/out" "verify " "bench $lib verify row"
	n=$(ls "$WORK/rec-$lib"/*.json 2>/dev/null | wc -l)
	[ "$n" -eq 3 ] && pass "bench $lib wrote 3 records" || fail "bench $lib wrote $n records"
done
rec=$(ls "$WORK"/rec-nist/*__sign.json)
expect_grep "$rec" '"status": "complete"' "record status"
expect_grep "$rec" '"schema": "pqprof.bench/1"' "record schema"
expect_grep "$rec" '"read_overhead"' "record has the backend read overhead"
expect_grep "$rec" '"command": "pqprof bench ' "record has the exact command"
expect_grep "$rec" '"kernel"' "record has the environment"

# KEM instances: keygen, enc and dec.
build_fixture "$FIX/kem-toy/ngcc" "$WORK/kem.so"
expect_rc 0 "bench NGCC KEM" -- "$PQPROF" bench "$WORK/kem.so" --trials 2 --iters 50 --records-dir ""
expect_grep "$WORK/out" "^ToyKEM-NGCC-32 +enc " "KEM enc row"
expect_grep "$WORK/out" "^ToyKEM-NGCC-32 +dec " "KEM dec row"

# A forced clock backend is labelled ns, never cycles.
expect_rc 0 "bench with clock backend" -- "$PQPROF" bench "$WORK/nist.so" --op sign --trials 1 --iters 20 --backend clock --records-dir ""
expect_grep "$WORK/out" "median ns" "clock backend labelled ns"

# Bad input: documented exit codes and one-line errors naming the file.
echo "not a library" > "$WORK/text.so"
expect_rc 5 "bench on a text file" -- "$PQPROF" bench "$WORK/text.so"
expect_grep "$WORK/err" "text.so: not an ELF file" "error names the file and the reason"
expect_rc 5 "bench on an executable" -- "$PQPROF" bench /bin/sh
expect_grep "$WORK/err" "not a shared object" "executable rejected"
libm=$(ls /lib/*/libm.so.6 /usr/lib/*/libm.so.6 2>/dev/null | head -n 1)
expect_rc 5 "bench on a foreign shared object" -- "$PQPROF" bench "$libm"
expect_grep "$WORK/err" "not a pqprof instance library" "missing API named"
expect_rc 2 "build of a non-tree" -- "$PQPROF" build "$WORK" -o "$WORK/x.so"
expect_grep "$WORK/err" "not a submission tree" "non-tree rejected"

build_fixture "$FIX/hostile/segv-in-sign" "$WORK/segv.so"
expect_rc 6 "bench of a scheme that crashes in sign" -- "$PQPROF" bench "$WORK/segv.so" --op sign --records-dir ""
expect_grep "$WORK/err" "sign during calibration: crashed with SIGSEGV in sign" "crash during calibration is one line"
build_fixture "$FIX/hostile/reject-own" "$WORK/reject.so"
expect_rc 6 "bench of a scheme that rejects its signatures" -- "$PQPROF" bench "$WORK/reject.so" --op sign --records-dir ""
expect_grep "$WORK/err" "verify rejected a fresh signature" "every signature produced is verified"

finish
