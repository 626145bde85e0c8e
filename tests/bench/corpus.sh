#!/bin/sh
# corpus.sh: run pqprof over a corpus of real submission trees, unaided, and
# print what happened to each as a Markdown table (for the README).
#
# Usage: tests/bench/corpus.sh DIR [NAME...]
#
# DIR holds the corpus, one entry per subdirectory.  When DIR/MANIFEST.tsv
# exists (tab-separated: name, repository, commit, subpath, notes; lines
# starting with '#' and a header line whose first field is "name" are
# skipped), the subpath column names the tree to run inside each entry
# ("" or "." for the entry itself); otherwise the entry directory is the
# tree.  NAMEs limit the run to those entries.
#
# For each tree, one at a time, it runs
#     pqprof run TREE --steps build,kat --no-baseline -o OUT/NAME/campaign
# under `timeout`, with PQPROF_SOURCE_ROOT set to the entry directory (so
# that a tree's links outside itself, such as pq-crystals' avx2/ -> ../ref/
# files, may resolve inside the entry; --no-baseline: the table is about
# the tree's own instances, not the standard baselines a campaign adds
# beside them), and prints one row:
# the tree, the path its build took (observed / not observed, from the campaign's
# build records' "plan"), the instances the campaign found with each one's
# KAT verdict (from the kat records, or the build record's verdict when the
# build failed), the first reason for each verdict other than PASS (and a
# note where a PASS was judged against vectors the tree's own KAT program
# wrote during the observed build, the tree shipping none), and the wall
# time.  Then the line "N trees, P all-PASS, F with a failure", where
# a failure is any instance that did not PASS (NOKAT included), a tree with
# no instance, or a tree whose run timed out.
#
# Environment:
#   PQPROF        the pqprof binary (default: the pqprof at the top of this
#                 source tree, ../.. from this script)
#   OUT           work directory for the per-tree outputs (default
#                 /tmp/pqprof-corpus): OUT/NAME/campaign (the campaign
#                 directory), OUT/NAME/pqprof.log (pqprof's output),
#                 OUT/NAME/rc and OUT/NAME/wall_s; the table also goes to
#                 OUT/corpus.md.  An entry's previous output is removed
#                 before it runs.
#   TREE_TIMEOUT  wall-clock limit per tree in seconds (default 1200)
#   JGET          JSON path getter (default: tests/profile_jget, built by
#                 `make check`; without it python3 reads the JSON, and
#                 without python3 an awk reader of pqprof's indented JSON;
#                 JGET=python3 or JGET=awk picks one of those)
#
# A report, not a test: the exit status is 0 whatever the trees did, 2 for
# wrong usage.
set -u

usage() {
	echo "usage: $0 DIR [NAME...]   (env: PQPROF, OUT, TREE_TIMEOUT, JGET)" >&2
	exit 2
}
[ $# -ge 1 ] || usage
case $1 in -h | --help) usage ;; esac
[ -d "$1" ] || { echo "$0: $1: not a directory" >&2; usage; }
corpus=$(cd "$1" && pwd)
shift

top=$(cd "$(dirname "$0")/../.." && pwd)
PQPROF=${PQPROF:-$top/pqprof}
OUT=${OUT:-/tmp/pqprof-corpus}
TREE_TIMEOUT=${TREE_TIMEOUT:-1200}
case $TREE_TIMEOUT in '' | *[!0-9]*) echo "$0: TREE_TIMEOUT must be a number of seconds" >&2; usage ;; esac
[ -x "$PQPROF" ] || { echo "$0: $PQPROF: no pqprof there (set PQPROF)" >&2; usage; }
command -v timeout >/dev/null 2>&1 || { echo "$0: timeout(1) is needed" >&2; exit 2; }
mkdir -p "$OUT" || usage
OUT=$(cd "$OUT" && pwd)

# ---------------------------------------------------------------- JSON ---
# jget FILE PATH: the value at PATH (profile_jget's syntax: dot-separated
# keys, [N] array indexes, a final '#' for a length); strings raw, status 1
# when PATH names nothing or the file is not there.
JGET=${JGET:-$top/tests/profile_jget}
if [ "$JGET" = python3 ] || [ "$JGET" = awk ]; then
	json_reader="$JGET"
elif [ -x "$JGET" ]; then
	json_reader="profile_jget"
elif command -v python3 >/dev/null 2>&1; then
	json_reader="python3"
else
	json_reader="awk"
fi

jget() {
	[ -f "$1" ] || return 1
	case $json_reader in
	profile_jget) "$JGET" "$1" "$2" 2>/dev/null ;;
	python3) python3 -c '
import json, re, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(2)
path, count = sys.argv[2], False
if path.endswith("#"):
    count, path = True, path[:-1].rstrip(".")
for step in ([] if path in ("", ".") else path.split(".")):
    m = re.match(r"([^\[]*)((?:\[[^\]]*\])*)$", step)
    if m.group(1):
        v = v.get(m.group(1)) if isinstance(v, dict) else None
    for sel in re.findall(r"\[([^\]]*)\]", m.group(2)):
        if not isinstance(v, list):
            v = None
        elif "=" in sel:
            k, want = sel.split("=", 1)
            v = next((e for e in v if isinstance(e, dict) and e.get(k) == want), None)
        else:
            i = int(sel or 0)
            v = v[i] if 0 <= i < len(v) else None
    if v is None:
        sys.exit(1)
if count:
    print(len(v) if isinstance(v, (list, dict)) else 0)
elif isinstance(v, str):
    print(v)
elif isinstance(v, bool):
    print("true" if v else "false")
elif isinstance(v, (int, float)):
    print(v)
else:
    print(json.dumps(v, separators=(",", ":")))
' "$1" "$2" ;;
	awk) jget_awk "$1" "$2" ;;
	esac
}

# The fallback: pqprof writes its records indented, one key or element a
# line, so a line reader can follow the path ("[K=V]" selectors are not
# supported here; this script does not use them).
jget_awk() {
	awk -v want="$2" '
	function unq(s) {
		sub(/^"/, "", s); sub(/"$/, "", s)
		gsub(/\\"/, "\"", s); gsub(/\\n/, "\n", s); gsub(/\\t/, "\t", s); gsub(/\\\//, "/", s)
		gsub(/\\\\/, "\\", s)
		return s
	}
	BEGIN {
		cnt = want ~ /#$/; if (cnt) { sub(/#$/, "", want); sub(/\.$/, "", want) }
		if (want == ".") want = ""
		depth = 0; found = 0; n = 0
	}
	{
		line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line)
		if (line == "") next
		if (line ~ /^[\]}],?$/) { depth--; next }
		key = ""; val = line
		if (line ~ /^"([^"\\]|\\.)*": /) {
			match(line, /^"([^"\\]|\\.)*": /)
			key = unq(substr(line, 1, RLENGTH - 2)); val = substr(line, RLENGTH + 1)
		}
		sub(/,$/, "", val)
		if (depth == 0) p = ""
		else {
			if (isarr[depth]) { key = "[" idx[depth] "]"; idx[depth]++ }
			p = (path[depth] == "" || key ~ /^\[/) ? path[depth] key : path[depth] "." key
			if (cnt && path[depth] == want) n++
		}
		if (val == "{" || val == "[") {
			if (p == want) found = 1
			depth++; path[depth] = p; isarr[depth] = (val == "["); idx[depth] = 0
			next
		}
		if (p == want) { found = 1; out = (val ~ /^"/) ? unq(val) : val }
	}
	END {
		if (!found) exit 1
		if (cnt) print (out ~ /^[\[{]/ || out == "") ? n : 0
		else print out
	}' "$1"
}

# ------------------------------------------------------------- helpers ---
# One line, Markdown-table safe: newlines to spaces, '|' escaped, cut to $2 characters.
cell() {
	printf '%s' "$1" | tr '\n\r\t' '   ' | sed 's/  */ /g; s/^ //; s/ $//' |
		awk -v max="${2:-0}" '{ s = $0; if (max > 0 && length(s) > max) s = substr(s, 1, max - 1) "…"; gsub(/\|/, "\\|", s); printf "%s", s }'
}

# hms SECONDS: "42 s", "3 min 05 s", "1 h 02 min".
hms() {
	s=$1
	if [ "$s" -lt 60 ]; then printf '%d s' "$s"
	elif [ "$s" -lt 3600 ]; then printf '%d min %02d s' $((s / 60)) $((s % 60))
	else printf '%d h %02d min' $((s / 3600)) $((s % 3600 / 60)); fi
}

# manifest_subpath NAME: the subpath column of NAME's MANIFEST.tsv row ("" when none).
manifest_subpath() {
	[ -f "$corpus/MANIFEST.tsv" ] || return 0
	awk -F '\t' -v n="$1" '
		/^#/ || NF == 0 { next }
		NR == 1 && $1 == "name" { next }
		$1 == n { print $4; exit }' "$corpus/MANIFEST.tsv"
}

# Append $2 to the list in variable $1 unless it is already there (lines).
add_unique() {
	eval "cur=\${$1}"
	case "
$cur
" in *"
$2
"*) return 0 ;; esac
	if [ -n "$cur" ]; then eval "$1=\"\${cur}
\${2}\""; else eval "$1=\"\$2\""; fi
}

# vkey TEXT: TEXT as a shell variable name suffix.
vkey() { printf '%s' "$1" | tr -c 'A-Za-z0-9' '_'; }

br() { printf '%s' "$1" | awk 'NR > 1 { printf "<br>" } { printf "%s", $0 }'; }

# ---------------------------------------------------------------- run ---
if [ $# -gt 0 ]; then
	names=$*
else
	names=$(cd "$corpus" && for d in */; do [ -d "$d" ] && printf '%s\n' "${d%/}"; done | LC_ALL=C sort)
fi

table="$OUT/corpus.md"
: >"$table"
emit() { printf '%s\n' "$1"; printf '%s\n' "$1" >>"$table"; }

echo "corpus: $corpus; pqprof: $PQPROF; JSON via $json_reader; outputs under $OUT" >&2
emit "| tree | build path | instances: KAT verdict | why not PASS / notes | wall |"
emit "|---|---|---|---|---|"

ntrees=0 npass=0 nfail=0 total_s=0
verdict_order=""
for name in $names; do
	entry="$corpus/$name"
	if [ ! -d "$entry" ]; then
		echo "corpus: $name: no such entry in $corpus, skipped" >&2
		continue
	fi
	sub=$(manifest_subpath "$name")
	case $sub in '' | .) tree=$entry ;; *) tree=$entry/$sub ;; esac
	ntrees=$((ntrees + 1))
	work="$OUT/$name"
	rm -rf "$work"
	mkdir -p "$work"
	camp="$work/campaign"
	echo "corpus: [$ntrees] $name: pqprof run ${tree#"$corpus"/} --steps build,kat --no-baseline (limit ${TREE_TIMEOUT} s)" >&2

	t0=$(date +%s)
	if [ -d "$tree" ]; then
		PQPROF_SOURCE_ROOT=$entry timeout -k 30 "$TREE_TIMEOUT" \
			"$PQPROF" run "$tree" --steps build,kat --no-baseline -o "$camp" >"$work/pqprof.log" 2>&1 </dev/null
		rc=$?
	else
		echo "corpus: $tree: the manifest's subpath is not a directory" >"$work/pqprof.log"
		rc=127
	fi
	t1=$(date +%s)
	wall=$((t1 - t0))
	total_s=$((total_s + wall))
	echo "$rc" >"$work/rc"
	echo "$wall" >"$work/wall_s"

	# The campaign's own units, in its order ("index:label"): the baselines
	# pqprof adds beside them (role "baseline", labelled baseline*) are not
	# the tree's.
	labels=""
	n=$(jget "$camp/campaign.json" 'instances#' || echo 0)
	case $n in '' | *[!0-9]*) n=0 ;; esac
	i=0
	while [ "$i" -lt "$n" ]; do
		l=$(jget "$camp/campaign.json" "instances[$i].label") && [ -n "$l" ] &&
			[ "$(jget "$camp/campaign.json" "instances[$i].role")" != baseline ] && labels="$labels $i:$l"
		i=$((i + 1))
	done
	if [ -z "$labels" ] && [ -d "$camp/build" ]; then
		for f in "$camp"/build/*.json; do
			case $(basename "$f") in baseline*) continue ;; esac
			[ -f "$f" ] && labels="$labels $n:$(basename "$f" .json)"
		done
	fi

	paths="" rows="" reasons="" bad=""
	all_pass=1 ninst=0
	for entry in $labels; do
		i=${entry%%:*} label=${entry#*:}
		ninst=$((ninst + 1))
		b="$camp/build/$label.json"
		k="$camp/kat/$label.json"
		# Instance name: what the built library reports (the build record's
		# descriptor), else the campaign's unit name; with the implementation
		# version when the campaign names one.
		unit=$(jget "$camp/campaign.json" "instances[$i].instance") || unit=${label%__*}
		inst=$(jget "$b" instance.name) && [ -n "$inst" ] || inst=$unit
		[ "$inst" = "$unit" ] || inst="$inst (unit $unit)"
		impl=$(jget "$camp/campaign.json" "instances[$i].implementation") && [ -n "$impl" ] && inst="$inst ($impl)"
		kstep=$(jget "$camp/campaign.json" "instances[$i].steps.kat") || kstep="no record"

		# How it was built: the build record's plan.
		p=$(jget "$b" plan.path) || p=""
		case $p in
		observed)
			how=$(jget "$b" plan.how | sed 's/, with CC.*//')
			add_unique paths "observed: $(cell "$how" 60)" ;;
		read | "not observed")
			why=$(jget "$b" plan.why | sed 's|/tmp/pqprof-observe[^ ]*/bin/||g')
			add_unique paths "not observed: $(cell "$why" 90)" ;;
		'')
			if [ -f "$b" ]; then add_unique paths "no plan (refused before planning)"
			else add_unique paths "no build record"; fi ;;
		*) add_unique paths "$(cell "$p" 40)" ;;
		esac

		# Verdict: the KAT record's, else the build record's.
		reason="" selfmade=0
		if v=$(jget "$k" outcome.verdict) && [ -n "$v" ]; then
			reason=$(jget "$k" outcome.reason)
			# A PASS against vectors the tree's own KAT program wrote while
			# pqprof observed its build (the tree ships none) says so.
			exp=$(jget "$k" expected) || exp=""
			case $v:$exp in PASS:"$camp"/*) selfmade=1 ;; *) selfmade=0 ;; esac
		elif [ "$(jget "$b" status)" = failed ]; then
			v=$(jget "$b" verdict) || v=""
			[ -n "$v" ] || v=BUILD
			reason=$(jget "$b" failure)
		elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
			v=TIMEOUT
			reason="the tree's run was stopped after $TREE_TIMEOUT s"
		else
			v="no KAT ($kstep)"
		fi
		kv=$(vkey "$v")
		eval "tally_$kv=\$((\${tally_$kv:-0} + 1))"
		add_unique verdict_order "$v"
		shown=$v
		if [ "$selfmade" -eq 1 ]; then
			shown="PASS (self-made vectors)"
			add_unique reasons "PASS (self-made vectors): the tree ships no vectors; checked against what its own KAT program writes (pqprof runs it in the observed build)"
		fi
		rows="${rows:+$rows
}$(cell "$inst" 60): $(cell "$shown" 60)"
		if [ "$v" != PASS ]; then
			all_pass=0
			# One reason per verdict: the first instance's, with how many share the verdict.
			seen=0
			eval "seen=\${bad_$kv:-0}"
			if [ "$seen" -eq 0 ]; then
				add_unique bad "$v"
				eval "why_$kv=\$reason"
			fi
			eval "bad_$kv=\$((seen + 1))"
		fi
	done
	while IFS= read -r v; do
		[ -n "$v" ] || continue
		kv=$(vkey "$v") c=0 r=""
		eval "c=\$bad_$kv; r=\$why_$kv; unset bad_$kv why_$kv"
		[ "$c" -gt 1 ] && tag="$v (×$c)" || tag=$v
		add_unique reasons "$(cell "$tag${r:+: $(printf '%s' "$r" | sed "s|$corpus/||g")}" 170)"
	done <<EOF_BAD
$bad
EOF_BAD

	if [ "$ninst" -eq 0 ]; then
		all_pass=0
		# No unit at all: say what pqprof said (its last line), and how it ended.
		last=$(grep -v '^progress ' "$work/pqprof.log" | sed '/^[[:space:]]*$/d' | tail -n 1 | sed "s|$corpus/||g")
		case $rc in
		124 | 137) rows="TIMEOUT"; reasons="run stopped after $TREE_TIMEOUT s${last:+; last output: $(cell "$last" 120)}" ;;
		*) rows="none found"; reasons="exit $rc${last:+: $(cell "$last" 160)}" ;;
		esac
		paths=${paths:-"—"}
	elif [ $rc -ne 0 ]; then
		case $rc in
		124 | 137) add_unique reasons "the tree's run was stopped after $TREE_TIMEOUT s" ;;
		*) add_unique reasons "pqprof exit status $rc" ;;
		esac
		all_pass=0
	fi

	if [ $all_pass -eq 1 ]; then npass=$((npass + 1)); else nfail=$((nfail + 1)); fi
	emit "| $(cell "$name") | $(br "$paths") | $(br "$rows") | $(br "$reasons") | $(hms "$wall") |"
	echo "corpus: [$ntrees] $name: $ninst instance(s), exit $rc, $(hms "$wall")" >&2
done

emit ""
emit "$ntrees trees, $npass all-PASS, $nfail with a failure"
tally=""
while IFS= read -r v; do
	[ -n "$v" ] || continue
	c=0
	eval "c=\${tally_$(vkey "$v"):-0}"
	tally="${tally:+$tally, }$c $v"
done <<EOF_TALLY
$verdict_order
EOF_TALLY
emit "instances: ${tally:-none}; total wall time $(hms "$total_s")"
exit 0
