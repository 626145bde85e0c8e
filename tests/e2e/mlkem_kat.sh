#!/bin/sh
# End-to-end: the in-tree ML-KEM through pqprof build and pqprof kat, all
# three sets, all 100 NIST records (under a second each).  Record 0 must
# hash to the digest PQClean publishes (external proof of scheme, DRBG and
# writer); the whole file must hash to kat/mlkem/whole-file.sha256 and
# pass the gate against kat/mlkem/kat.sha256.
. "$top_srcdir/tests/e2e/lib.sh"

S="$top_srcdir/schemes/mlkem"
K="$top_srcdir/kat/mlkem"
for set in 512 768 1024; do
	name=ML-KEM-$set
	lib="$WORK/$set.so"
	rsp="$WORK/$set.rsp"
	build_fixture "$S/nist" "$lib" -D PARAMS=ml-kem-$set || continue
	expect_rc 0 "kat $name (100 records) against kat.sha256" -- \
		"$PQPROF" kat "$lib" --manifest "$K/kat.sha256" --emit "$rsp" --records-dir ""
	expect_grep "$WORK/out" "^RESULT $name PASS" "$name passes"
	[ "$(head -n 1 "$rsp")" = "# $name" ] && pass "$name file starts with its CRYPTO_ALGNAME" ||
		fail "$name file: first line '$(head -n 1 "$rsp")'"

	got=$(sed -n '3,8p' "$rsp" | sha256sum | cut -d' ' -f1)
	want=$(grep " $name " "$K/published.sha256" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "$name record 0 hashes to PQClean's nistkat-sha256" ||
		fail "$name record 0: sha256 $got, published '$want'"

	got=$(sha256sum "$rsp" | cut -d' ' -f1)
	want=$(grep " $name " "$K/whole-file.sha256" | cut -d' ' -f1)
	[ -n "$want" ] && [ "$got" = "$want" ] && pass "$name whole file hashes to whole-file.sha256" ||
		fail "$name whole file: sha256 $got, expected '$want'"
done
finish
