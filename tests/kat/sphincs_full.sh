#!/bin/sh
# check-kat-full: every SPHINCS+ set, all records, NIST and NGCC flows,
# through pqprof.  The whole 128f/128s .rsp files must equal the published
# sha256; every file must match kat/sphincsplus/kat.sha256.  Takes several
# minutes (the "s" sets sign slowly); not part of `make check`.
. "$top_srcdir/tests/e2e/lib.sh"
S="$top_srcdir/schemes/sphincsplus"
K="$top_srcdir/kat/sphincsplus"
for set in ${SETS:-128f 128s 192f 192s 256f 256s}; do
	for api in nist ngcc; do
		lib="$WORK/$api-$set.so"
		build_fixture "$S/$api" "$lib" --profile performance -D PARAMS=sphincs-shake-$set || continue
		expect_rc 0 "kat $api $set, all records, against kat.sha256" -- \
			"$PQPROF" kat "$lib" --manifest "$K/kat.sha256" --emit "$WORK/$api-$set.out" --records-dir ""
		if [ $api = nist ]; then
			want=$(grep "shake-$set-simple.rsp" "$K/published.sha256" | cut -d' ' -f1)
			if [ -n "$want" ]; then
				got=$(sha256sum "$WORK/$api-$set.out" | cut -d' ' -f1)
				[ "$got" = "$want" ] && pass "whole NIST $set file equals the published sha256" ||
					fail "whole NIST $set file: $got, published $want"
			fi
		fi
	done
done
finish
