#!/bin/sh
# End-to-end: the KAT gate's verdicts on fixture trees that pass, mismatch,
# ignore the DRNG, overflow, crash, hang, reject their own signatures and
# accept forged ones, through the real pqprof binary.
. "$top_srcdir/tests/e2e/lib.sh"

H="$FIX/hostile"
kat() {  # kat NAME TREE WANT_EXIT [extra kat args...]
	local name=$1 tree=$2 want=$3
	shift 3
	build_fixture "$tree" "$WORK/$name.so" || return
	expect_rc "$want" "kat $name" -- "$PQPROF" kat "$WORK/$name.so" --records-dir "$WORK/rec" "$@"
}

kat nist "$FIX/nist-toy" 0
expect_grep "$WORK/out" "^RESULT Toy-96 PASS" "NIST fixture passes against its shipped vectors"
expect_grep "$WORK/out" "expected: .*PQCsignKAT_64.rsp" "vector file found in the submission tree"
expect_grep "$WORK/rec/Toy-96.kat.log" "^RESULT Toy-96 PASS" "KAT log written"
sum=$(sha256sum "$WORK/rec/Toy-96.kat.log" | cut -d' ' -f1)
expect_grep "$WORK/out" "sha256 $sum" "printed log sha256 is the log's"
expect_grep "$WORK/rec/Toy-96.kat.json" "\"log_sha256\": \"$sum\"" "verdict record carries the log sha256"

kat ngcc "$FIX/ngcc-toy" 0
expect_grep "$WORK/out" "^RESULT Toy-NGCC-96 PASS" "NGCC fixture passes"

# Template-mode vectors (blank *_Len values) are accepted.
sed 's/^\([A-Za-z]*_Len\) = .*/\1 = /' "$FIX/toy/Test_Vectors/KAT_SIG_Toy-NGCC-96.txt" > "$WORK/template.txt"
expect_rc 0 "kat against template-mode vectors" -- "$PQPROF" kat "$WORK/ngcc.so" --vectors "$WORK/template.txt" --records-dir ""
expect_grep "$WORK/out" "PASS" "blank lengths accepted"

# KEMs, both flavours: dec must give back enc's shared secret.
kat kem-nist "$FIX/kem-toy/nist" 0
expect_grep "$WORK/out" "^RESULT ToyKEM-32 PASS" "NIST KEM passes against PQCkemKAT_64.rsp"
kat kem-ngcc "$FIX/kem-toy/ngcc" 0
expect_grep "$WORK/out" "^RESULT ToyKEM-NGCC-32 PASS" "NGCC KEM passes against KAT_KEM_ToyKEM-NGCC-32.txt"

# Manifest instead of vectors: strict, nolen and first-records modes.
"$PQPROF" manifest "$FIX/toy/Test_Vectors/KAT_SIG_Toy-NGCC-96.txt" --label toy > "$WORK/kat.sha256"
"$PQPROF" manifest "$FIX/toy/KAT/PQCsignKAT_64.rsp" --label toy --first 3 >> "$WORK/kat.sha256"
expect_grep "$WORK/kat.sha256" "^[0-9a-f]{64} strict toy/KAT_SIG_Toy-NGCC-96.txt$" "manifest line format"
expect_grep "$WORK/kat.sha256" "^[0-9a-f]{64} strict:3 toy/PQCsignKAT_64.rsp$" "manifest line with :N"
expect_rc 0 "kat with a manifest (NGCC)" -- "$PQPROF" kat "$WORK/ngcc.so" --manifest "$WORK/kat.sha256" --records-dir ""
expect_grep "$WORK/out" "PASS" "manifest strict mode passes"
expect_rc 0 "kat with a :3 manifest (NIST, 3 records)" -- "$PQPROF" kat "$WORK/nist.so" --manifest "$WORK/kat.sha256" --first 3 --records-dir ""
expect_grep "$WORK/out" "PASS" "manifest first-records mode passes"
expect_rc 0 "manifest --check" -- "$PQPROF" manifest --check "$WORK/kat.sha256" "$FIX/toy/Test_Vectors/KAT_SIG_Toy-NGCC-96.txt"

kat nokat "$FIX/nist-toy" 22 --no-search
expect_grep "$WORK/out" "NOKAT no vector file PQCsignKAT_64.rsp" "no vectors: NOKAT naming the file"

kat mismatch "$H/mismatch" 21
expect_grep "$WORK/out" "RESULT Toy-96 MISMATCH" "one-byte difference is a MISMATCH"
expect_grep "$WORK/out" "first difference: record 0, field pk" "first differing record and field"

kat ignore "$H/ignore-drng" 21
expect_grep "$WORK/out" "api deviation: keygen does not draw from the DRNG" "DRNG-ignoring keygen named"

kat overflow "$H/overflow-by-one" 26
expect_grep "$WORK/out" "RESULT Toy-96 OVERFLOW" "one byte past the buffer is an OVERFLOW"

kat crash "$H/segv-in-sign" 24
expect_grep "$WORK/out" "CRASH killed by SIGSEGV in sign, record 0" "crash with the signal, op and record"

kat hang "$H/endless-loop" 23 --timeout 2
expect_grep "$WORK/out" "TIMEOUT no verdict within the 2 s limit in sign" "hang becomes TIMEOUT"

kat reject "$H/reject-own" 25
expect_grep "$WORK/out" "RESULT Toy-96 CRYPTOFAIL" "rejecting its own signature is CRYPTOFAIL"

kat forged "$H/accept-forged" 25
expect_grep "$WORK/out" "CRYPTOFAIL" "accepting forged signatures is CRYPTOFAIL"
expect_grep "$WORK/out" "api deviation: .*(flipped|modified)" "soundness check named"

expect_rc 27 "kat on a text file" -- sh -c "echo x > '$WORK/t.so'; '$PQPROF' kat '$WORK/t.so' --records-dir '$WORK/rec'"
expect_grep "$WORK/out" "LOADFAIL .*not an ELF file" "LOADFAIL with the reason"
[ -f "$WORK/rec/t.so.kat.json" ] && pass "verdict record written for LOADFAIL" || fail "no verdict record for LOADFAIL"

finish
