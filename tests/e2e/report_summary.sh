#!/bin/sh
# End-to-end: the summary that opens report.md, report.html and
# report.json, and section numbers that follow the sections present.
# Three small real campaigns: the toy scheme (NIST and NGCC instances)
# with every step and the leak step, a flag study of two profiles (a
# comparison section and no leak section: its numbers must not skip), and
# a prebuilt library without vectors (NOKAT).
. "$top_srcdir/tests/e2e/lib.sh"
JGET="$top_builddir/tests/profile_jget"
Q="--quick --trials 2 --target 0.05 --timeout 20 --timeout kat=20"
TIME='[0-9][0-9.,]* (ns|µs|ms|s) \(n = [0-9][0-9,]*\)'

# summary_rows FILE: the rows of the summary table (between "## Summary" and the first numbered section).
summary_rows() {
	sed -n '/^## Summary$/,/^## 1\. /p' "$1" | grep '^| `'
}

# check_summary DIR WHAT ROWS: the summary's place and shape in the three reports of DIR.
check_summary() {
	local dir=$1 what=$2 rows=$3
	head -n 40 "$dir/report.md" >"$WORK/head"
	expect_grep "$WORK/head" '^## Summary$' "$what: summary heading within the first 40 lines"
	expect_grep "$WORK/head" '^- Command: pqprof run ' "$what: the command that made the campaign"
	expect_grep "$WORK/head" '^- Date \(UTC\): [0-9]{4}-[0-9]{2}-[0-9]{2}T' "$what: the date"
	expect_grep "$WORK/head" '^- Machine: .*kernel .*counter backend ' "$what: the machine in one line"
	expect_grep "$WORK/head" '^\| instance \| profile \| KAT \| keygen \| sign \| verify \| pk / sk / sig \(bytes\) \| peak RSS \|$' \
		"$what: summary table header within the first 40 lines"
	first=$(grep -n '^## ' "$dir/report.md" | head -n 1)
	case "$first" in *"## Summary") pass "$what: the summary comes before section 1" ;;
		*) fail "$what: first heading is '$first'" ;; esac
	n=$(summary_rows "$dir/report.md" | wc -l)
	[ "$n" -eq "$rows" ] && pass "$what: one summary row per instance and profile ($n)" ||
		{ fail "$what: $n summary rows, wanted $rows"; summary_rows "$dir/report.md"; }
	[ "$("$JGET" "$dir/report.json" 'summary.rows#')" = "$rows" ] && pass "$what: report.json summary has $rows rows" ||
		fail "$what: report.json summary rows: $("$JGET" "$dir/report.json" 'summary.rows#')"
	[ -n "$("$JGET" "$dir/report.json" summary.command)" ] && pass "$what: report.json summary names the command" ||
		fail "$what: report.json summary without command"
	expect_grep "$dir/report.html" '^<h2 id="summary">Summary</h2>$' "$what: report.html summary heading"
	expect_grep "$dir/report.html" '<th>instance</th><th>profile</th><th>KAT</th><th>keygen</th>' \
		"$what: report.html summary table"
	# Each warning once.
	sed -n '/^Warnings for the whole run:$/,/^## /p' "$dir/report.md" | grep '^- ' | sort | uniq -d >"$WORK/dups"
	[ -s "$WORK/dups" ] && { fail "$what: a warning said twice"; cat "$WORK/dups"; } || pass "$what: every warning once"
	if grep -q '"hardware_pmu": "no"' "$dir/campaign.json"; then
		expect_grep "$dir/report.md" '^- no cycle counter \(' "$what: no hardware PMU is a warning"
	else
		pass "$what: a hardware PMU: no PMU warning expected"
	fi
}

# check_numbers FILE WHAT: "## N." headings are 1..k in order, the HTML agrees, evidence last and cross-referenced.
check_numbers() {
	local md=$1 what=$2
	nums=$(sed -n 's/^## \([0-9][0-9]*\)\. .*/\1/p' "$md" | tr '\n' ' ')
	k=$(echo $nums | wc -w)
	want=$(seq 1 "$k" | tr '\n' ' ')
	[ "$k" -gt 7 ] && [ "$nums" = "$want" ] && pass "$what: sections numbered 1..$k without a gap" ||
		fail "$what: section numbers [$nums], wanted [$want]"
	html=$(sed -n 's/^<h2 id="[a-z]*">\([0-9][0-9]*\)\. .*/\1/p' "${md%.md}.html" | tr '\n' ' ')
	[ "$html" = "$nums" ] && pass "$what: report.html has the same numbers" || fail "$what: report.html numbers [$html]"
	last=$(grep '^## ' "$md" | tail -n 1)
	[ "$last" = "## $k. Raw evidence index" ] && pass "$what: the evidence index is last" ||
		fail "$what: last section is '$last'"
	expect_grep "$md" "Every figure comes from a record listed in section $k\.$" "$what: the title points at section $k"
	expect_grep "$md" "of each instance are listed in section $k\.$" "$what: the KAT section points at section $k"
}

# A scheme with two instances, every step and the leak step.
expect_rc 0 "run the toy scheme with the leak step" -- "$PQPROF" run "$FIX/campaign/toy.json" --out "$WORK/a" $Q \
	--steps build,kat,bench,mem,sizes,profile,leak,report --budget leak=1
R="$WORK/a/report.md"
check_summary "$WORK/a" toy 2
for i in Toy-96 Toy-NGCC-96; do
	expect_grep "$R" "^\| \`$i\` \| harness-default \| PASS \| $TIME \| $TIME \| $TIME \| 32 / 64 / 96 \| [0-9.,]+ (B|KiB|MiB|GiB) \|$" \
		"toy: $i row: KAT verdict, times with units and n, sizes, peak RSS"
done
expect_grep "$R" '^- quick run \(--quick\)' "toy: --quick is a warning"
expect_grep "$WORK/a/campaign.json" '"quick": true' "campaign.json records --quick"
[ "$("$JGET" "$WORK/a/report.json" 'summary.rows[instance=Toy-96].kat')" = PASS ] && pass "toy: report.json summary KAT verdict" ||
	fail "toy: report.json summary KAT verdict"
[ -n "$("$JGET" "$WORK/a/report.json" 'summary.rows[instance=Toy-96].ops.sign.median_ns')" ] &&
	pass "toy: report.json summary sign median" || fail "toy: report.json summary without the sign median"
expect_grep "$R" '^## 9\. Timing leaks$' "toy: the leak section follows the hotspots"
check_numbers "$R" toy

# A flag study without the leak step: the comparison takes the number the leak section would have had.
expect_rc 0 "flag study of two profiles" -- "$PQPROF" run "$FIX/nist-toy" --out "$WORK/f" --profile o1=-O1 --profile o2=-O2 \
	--steps build,kat,bench,report --no-interposition-check $Q
check_summary "$WORK/f" "flag study" 2
expect_grep "$WORK/f/report.md" "^\| \`nist-toy\` \| o2 \| PASS \| $TIME \|" "flag study: a row per profile"
expect_grep "$WORK/f/report.md" '^## 9\. Comparison$' "flag study: comparison is section 9 (no leak section)"
check_numbers "$WORK/f/report.md" "flag study"

# A prebuilt library without vectors: NOKAT in its row and once among the warnings.
cp -rL "$FIX/ngcc-toy" "$WORK/tree"
find "$WORK/tree" \( -name 'KAT_SIG_*.txt' -o -name '*.rsp' \) -exec rm -f {} +
build_fixture "$WORK/tree" "$WORK/nokat.so"
expect_rc 0 "prebuilt library without vectors" -- "$PQPROF" run "$WORK/nokat.so" --out "$WORK/n" \
	--steps build,kat,bench,report --no-interposition-check $Q
check_summary "$WORK/n" nokat 1
expect_grep "$WORK/n/report.md" "^\| \`Toy-NGCC-96\` \| prebuilt \| NOKAT \| $TIME \|" "nokat: the row's KAT verdict"
expect_grep "$WORK/n/report.md" '^- KAT verdict NOKAT for Toy-NGCC-96: output not validated$' "nokat: NOKAT is a warning"
check_numbers "$WORK/n/report.md" nokat
finish
