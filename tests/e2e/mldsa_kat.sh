#!/bin/sh
# End-to-end: the in-tree ML-DSA (FIPS 204) through pqprof build and pqprof
# kat, for ML-DSA-44, -65 and -87.  pqprof writes all 100 NIST records; the
# first one must hash to PQClean's published digest (external proof of the
# scheme, pqprof's AES-256 CTR_DRBG and its KAT writer), and the whole file
# must match kat/mldsa/kat.sha256, both as emitted and through the KAT gate.
# The FIPS 202 module it shares with schemes/mlkem is the same file in both.
. "$top_srcdir/tests/e2e/lib.sh"

S="$top_srcdir/schemes/mldsa"
K="$top_srcdir/kat/mldsa"
# Each baseline tree carries its own copy of the shared FIPS 202 module: the same bytes.
for f in fips202.c fips202.h; do
	cmp -s "$S/nist/$f" "$top_srcdir/schemes/mlkem/nist/$f" && pass "schemes/mldsa and schemes/mlkem: the same $f" ||
		fail "schemes/mldsa/nist/$f and schemes/mlkem/nist/$f differ: the shared FIPS 202 module must be the same"
done
for set in 44 65 87; do
	name=ML-DSA-$set
	lib="$WORK/$set.so"
	build_fixture "$S/nist" "$lib" -D PARAMS=ml-dsa-$set || continue
	expect_rc 22 "$name: emit all 100 records (no vectors given: NOKAT)" -- \
		"$PQPROF" kat "$lib" --emit "$WORK/$set.rsp" --no-search --records-dir ""
	records=$(grep -c '^count = ' "$WORK/$set.rsp")
	[ "$records" = 100 ] && pass "$name: 100 records emitted" || fail "$name: $records records emitted"
	# PQClean publishes the digest of the first record alone (lines 3-10).
	got=$(sed -n '3,10p' "$WORK/$set.rsp" | sha256sum | cut -d' ' -f1)
	want=$(grep " $name\$" "$K/published-first-record.sha256" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "$name: first record hashes to the published digest" ||
		fail "$name: first record sha256 $got, published '$want'"
	# The whole file, under the name and label kat.sha256 gives it.
	file=$(sed -n "s|^[0-9a-f]* strict $name/||p" "$K/kat.sha256")
	mkdir -p "$WORK/$name" && cp "$WORK/$set.rsp" "$WORK/$name/$file"
	expect_rc 0 "$name: the emitted file matches kat.sha256" -- \
		"$PQPROF" manifest --check "$K/kat.sha256" "$WORK/$name/$file"
	expect_rc 0 "$name: kat against kat.sha256" -- \
		"$PQPROF" kat "$lib" --manifest "$K/kat.sha256" --records-dir ""
	expect_grep "$WORK/out" " PASS" "$name passes"
done
finish
