#!/bin/sh
# End-to-end: the in-tree SPHINCS+ trees through pqprof build and pqprof kat.
# The first NIST record of 128f and 128s must hash to the published
# digests (external proof of scheme, DRBG and writer); the first records of
# every set, NIST and NGCC, must match kat/sphincsplus/kat-quick.sha256.
# `make check-kat-full` checks the whole files.
. "$top_srcdir/tests/e2e/lib.sh"

S="$top_srcdir/schemes/sphincsplus"
K="$top_srcdir/kat/sphincsplus"
for set in 128f 128s; do
	for api in nist ngcc; do
		lib="$WORK/$api-$set.so"
		build_fixture "$S/$api" "$lib" -D PARAMS=sphincs-shake-$set || continue
		case $set in 128f) n=10 ;; *) n=2 ;; esac
		expect_rc 0 "kat $api $set (first $n records) against kat-quick.sha256" -- \
			"$PQPROF" kat "$lib" --manifest "$K/kat-quick.sha256" --first $n --records-dir ""
		expect_grep "$WORK/out" " PASS" "$api $set passes"
	done
	expect_rc 22 "emit the first NIST $set record (no vectors given: NOKAT)" -- "$PQPROF" kat "$WORK/nist-$set.so" --first 1 --emit "$WORK/$set.rsp" --no-search --records-dir ""
	got=$(sed -n '3,10p' "$WORK/$set.rsp" | sha256sum | cut -d' ' -f1)
	want=$(grep "shake-$set-simple" "$K/published-first-record.sha256" | cut -d' ' -f1)
	[ "$got" = "$want" ] && pass "first NIST $set record hashes to the published digest" ||
		fail "first NIST $set record: sha256 $got, published $want"
done
expect_rc 0 "kat.sha256 covers the shipped NGCC vectors" -- \
	"$PQPROF" manifest --check "$K/kat.sha256" "$K/ngcc/KAT_SIG_SPHINCS-shake-128f-simple.txt" "$K/ngcc/KAT_SIG_SPHINCS-shake-128s-simple.txt"
finish
