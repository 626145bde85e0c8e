# image_times.sh: shared by the large-image benchmarks (sourced, not run).
# Times pqprof's steps on one built instance library of tens of MB and
# prints one line per step, for people to read.  The caller sets PQPROF,
# REPEATS and work (a scratch directory) before sourcing.

now() { date +%s.%N; }

# timed LABEL command...: runs it, prints "LABEL  S s"; stops the benchmark when it fails.
timed() {
	label=$1
	shift
	t0=$(now)
	"$@" >"$work/last.out" 2>&1 || { echo "$label failed:"; sed 's/^/  | /' "$work/last.out" | head -20; exit 1; }
	t1=$(now)
	awk -v l="$label" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-40s %8.3f s\n", l, b - a }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# image_times LIB OP TABLE [VECTORS [SECONDS]]: KAT (against VECTORS when
# given, else the file found in the tree), sizes (with the table's line;
# its sampling stops after SECONDS when given), mem and profile of OP, then
# `pqprof report` on the trace, the median of REPEATS runs: the report's
# start must stay well under a second (symbols read lazily, tables never
# read whole).
image_times() {
	lib=$1 op=$2 table=$3 vectors=${4:-} seconds=${5:-0}
	echo "library file: $(wc -c < "$lib") bytes"
	if [ -n "$vectors" ]; then
		timed "kat" "$PQPROF" kat "$lib" --vectors "$vectors" --records-dir ""
	else
		timed "kat" "$PQPROF" kat "$lib" --records-dir ""
	fi
	grep "^RESULT" "$work/last.out"
	timed "sizes" "$PQPROF" sizes "$lib" --records-dir "" --budget "$seconds"
	grep -E "^static ELF image|^  rodata|$table" "$work/last.out"
	timed "mem $op" "$PQPROF" mem "$lib" --op "$op" --records-dir ""
	grep -E "^[A-Z].* $op " "$work/last.out" || true
	timed "profile $op" "$PQPROF" profile "$lib" -o "$work/image.pqt" --op "$op" --min-samples 1000 --no-counts -q
	: > "$work/times"
	i=0
	while [ "$i" -lt "$REPEATS" ]; do
		t0=$(now)
		"$PQPROF" report "$work/image.pqt" --op "$op" > "$work/report.txt" 2>&1
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$work/times"
		i=$((i + 1))
	done
	printf '%-40s %8.3f s (median of %d; target: well under 1 s)\n' "report (trace -> table)" \
		"$(median < "$work/times")" "$REPEATS"
	sed -n '/Top functions by self share/,/^$/p' "$work/report.txt" | sed -n 3,5p
}
