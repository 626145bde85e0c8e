#!/bin/sh
# End-to-end: a MISMATCH explains itself when the submitted file is at hand.
# The fixture is a two-level toy (Toyla-128f and Toyla-192f from one source
# set) whose Toyla-192f vector file is spliced at test time: records 2-7
# are Toyla-128f's.  The footnote must name the differing and matching
# records, the fields, the level the spliced records belong to (by their
# lengths alone, and by the sibling's own vectors), the seed sequence, and
# reach the KAT log, the record and section 3 of a campaign report.  With
# only a manifest digest it says the file is needed and how to pass it.
. "$top_srcdir/tests/e2e/lib.sh"

T="$FIX/multi-instance/toyla"
V="$T/Test_Vectors"
# splice A B: records of A, with records 2-7 taken from B (blank-line separated).
splice() {
	awk -v A="$1" -v B="$2" 'BEGIN { RS = ""; ORS = "\n\n"
		n = 0; while ((getline r < A) > 0) a[n++] = r
		m = 0; while ((getline r < B) > 0) b[m++] = r
		for (i = 0; i < n; i++) print (i >= 2 && i <= 7) ? b[i] : a[i] }'
}
splice "$V/KAT_SIG_Toyla-192f.txt" "$V/KAT_SIG_Toyla-128f.txt" > "$WORK/KAT_SIG_Toyla-192f.txt"

build_fixture "$T" "$WORK/t192.so" --instance Toyla-192f
build_fixture "$T" "$WORK/t128.so" --instance Toyla-128f

RECS='records 2–7 \(6 of 10\) differ; records 0, 1, 8, 9 match'
expect_rc 21 "kat against the spliced file, sibling by sizes" -- "$PQPROF" kat "$WORK/t192.so" \
	--vectors "$WORK/KAT_SIG_Toyla-192f.txt" --records-dir "$WORK/rec" --sibling Toyla-128f=32,64,64
expect_grep "$WORK/out" "^forensics: The submitted KAT_SIG_Toyla-192f.txt: $RECS\." "differing and matching records counted"
expect_grep "$WORK/out" "Sn_Len in 6 records \(expected 64; this instance declares 96\)" "expected length against the declared size"
expect_grep "$WORK/out" "Records 2–7 are Toyla-128f records \(Sn_Len 64, this instance declares 96\): the file mixes two parameter sets" \
	"spliced records named by the sibling's declared sizes"
expect_grep "$WORK/out" "seeds follow the harness's seed sequence" "seed sequence checked"
expect_grep "$WORK/rec/Toyla-192f.kat.log" "^forensics: .*$RECS" "footnote in the KAT log"
expect_grep "$WORK/rec/Toyla-192f.kat.json" '"by": "lengths"' "record says how the sibling was recognised"
expect_grep "$WORK/rec/Toyla-192f.kat.json" '"differ": \[' "record lists the differing records"

expect_rc 21 "kat against the spliced file, sibling library" -- "$PQPROF" kat "$WORK/t192.so" \
	--vectors "$WORK/KAT_SIG_Toyla-192f.txt" --records-dir "" --sibling "$WORK/t128.so"
expect_grep "$WORK/out" "they equal Toyla-128f's own vectors" "spliced records equal the sibling's own vectors"

# An unrelated sibling explains nothing; the records are still counted.
expect_rc 21 "kat with a sibling of other sizes" -- "$PQPROF" kat "$WORK/t192.so" \
	--vectors "$WORK/KAT_SIG_Toyla-192f.txt" --records-dir "" --sibling Other=1,2,3
expect_grep "$WORK/out" "^forensics: .*$RECS" "records counted without a sibling"
if grep -q "mixes two parameter sets" "$WORK/out"; then fail "a sibling of other sizes was taken for the source"; else
	pass "no parameter set claimed without evidence"; fi

# Only a manifest digest: the footnote says the file is needed, and how.
"$PQPROF" manifest "$V/KAT_SIG_Toyla-192f.txt" --label toy > "$WORK/kat.sha256"
sed 's/^[0-9a-f]\{64\}/0000000000000000000000000000000000000000000000000000000000000000/' "$WORK/kat.sha256" > "$WORK/bad.sha256"
expect_rc 21 "kat against a manifest digest that differs" -- "$PQPROF" kat "$WORK/t192.so" --manifest "$WORK/bad.sha256" --records-dir ""
expect_grep "$WORK/out" "^forensics: Only the manifest digest of KAT_SIG_Toyla-192f.txt is at hand.*--vectors FILE" \
	"manifest-only mismatch says the file is needed and how to pass it"

# The manifest decides and the file it describes explains: the reference harness's way (digests of the submitted files).
"$PQPROF" manifest "$WORK/KAT_SIG_Toyla-192f.txt" --label toy > "$WORK/spliced.sha256"
expect_rc 21 "kat against a manifest, with the file it describes" -- "$PQPROF" kat "$WORK/t192.so" \
	--manifest "$WORK/spliced.sha256" --vectors "$WORK/KAT_SIG_Toyla-192f.txt" --records-dir "" --sibling "$WORK/t128.so"
expect_grep "$WORK/out" "^forensics: The submitted KAT_SIG_Toyla-192f.txt: $RECS\..*they equal Toyla-128f's own vectors" \
	"manifest MISMATCH explained record by record from the file at hand"
expect_grep "$WORK/out" "^first difference: record 2, field " "the first differing record, from the file"
# A file that is not the one the manifest describes explains nothing, and the log says why.
expect_rc 21 "kat against a manifest, with another file" -- "$PQPROF" kat "$WORK/t192.so" \
	--manifest "$WORK/bad.sha256" --vectors "$WORK/KAT_SIG_Toyla-192f.txt" --records-dir "$WORK/rec2"
expect_grep "$WORK/out" "^forensics: Only the manifest digest of KAT_SIG_Toyla-192f.txt is at hand" \
	"a file with another digest is not used to explain"
expect_grep "$WORK/rec2/Toyla-192f.kat.log" "^note: .*KAT_SIG_Toyla-192f.txt is not the file .*bad.sha256 describes" \
	"the log says the file at hand is another"

# A campaign over the tree: its own siblings are found, the footnote reaches section 3.
cp -RL "$T" "$WORK/toyla"
cp "$WORK/KAT_SIG_Toyla-192f.txt" "$WORK/toyla/Test_Vectors/"
expect_rc 0 "campaign over the tree with the spliced file" -- "$PQPROF" run "$WORK/toyla" --quick --out "$WORK/run" \
	--steps build,kat,report
expect_grep "$WORK/run/report.md" '^\| `Toyla-192f` \| harness-default \| MISMATCH \[1\] \|' "section 3 marks the mismatch"
expect_grep "$WORK/run/report.md" "^\[1\] .*$RECS\. .*Records 2–7 are Toyla-128f records .*they equal Toyla-128f's own vectors" \
	"section 3 footnote explains the splice"

finish
