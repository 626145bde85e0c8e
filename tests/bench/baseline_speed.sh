#!/bin/sh
# baseline_speed: is pqprof's in-tree baseline (schemes/mldsa, schemes/mlkem)
# as fast as the standards' portable reference code?
#
#   tests/bench/baseline_speed.sh [REFTREE...]
#
# Each REFTREE is a reference implementation tree of ML-DSA or ML-KEM, as
# published (pq-crystals dilithium/ref or kyber/ref, a PQClean `clean`
# directory), fetched for the bench and never committed.  Every instance
# its build links is built by `pqprof build`, matched to the in-tree
# parameter set of the same sizes, and the in-tree set is built with the
# same compiler and flags.  The two libraries are then benched in turn,
# one trial each, for BASELINE_ROUNDS rounds (the same message length and
# the harness's seeded randomness, so the same keys and messages where the
# reference draws its randomness as the standard's KAT does), so that both
# see the same machine.  For each operation it prints the ratio
# in-tree / reference of the per-round medians, as a geometric mean with
# its 95% interval (Student t on the log ratios of the paired rounds).
#
# Flag settings: BASELINE_FLAGS, one setting per line, an empty line for
# the harness defaults (default: the
# harness's default flags, then "-O3 -march=native"), passed to both builds
# as --cflags.  BASELINE_TARGET: seconds per trial (default 0.3).
# BASELINE_LIMIT (default 1.10): the exit status is 1 when the upper end of
# some interval is above it.  Needs jq.  Prints figures; not part of make
# check.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PQPROF=${PQPROF:-$top_builddir/pqprof}
rounds=${BASELINE_ROUNDS:-8}
target=${BASELINE_TARGET:-0.3}
limit=${BASELINE_LIMIT:-1.10}
flags=${BASELINE_FLAGS-"
-O3 -march=native"}
[ $# -ge 1 ] || { echo "usage: $0 REFTREE..." >&2; exit 2; }
command -v jq >/dev/null || { echo "baseline_speed: needs jq (apt-get install jq)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pqprof-basespeed.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The in-tree parameter set with a reference's public and secret key sizes.
intree_set() {   # PK SK -> "scheme PARAMS NAME" or nothing
	case "$1/$2" in
	1312/2560) echo "mldsa ml-dsa-44 ML-DSA-44" ;;
	1952/4032) echo "mldsa ml-dsa-65 ML-DSA-65" ;;
	2592/4896) echo "mldsa ml-dsa-87 ML-DSA-87" ;;
	800/1632) echo "mlkem ml-kem-512 ML-KEM-512" ;;
	1184/2400) echo "mlkem ml-kem-768 ML-KEM-768" ;;
	1568/3168) echo "mlkem ml-kem-1024 ML-KEM-1024" ;;
	esac
}

# The instances a tree's build links, as `pqprof scan` lists them; none
# listed: the tree is one instance.
instances() {
	"$PQPROF" scan "$1" 2>/dev/null | sed -n 's/^ *links: *[0-9]* KAT programs (\(.*\)); each is an instance.*/\1/p' |
		tr ',' '\n' | sed 's/^ *//; s/ (.*//' | grep .
}

size_of() {   # LIB FIELD
	"$PQPROF" info "$1" 2>/dev/null | awk -v f="$2" '$1 == f { print $2; exit }'
}

# Build the pairs: $work/pairs holds "setting|name|ref.so|in.so" lines.
: >"$work/pairs"
for tree in "$@"; do
	(cd "$tree" 2>/dev/null && pwd) || { echo "baseline_speed: $tree: not a directory" >&2; exit 2; }
done >"$work/trees"
echo "$flags" >"$work/flags"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	while IFS= read -r tree; do
		instances "$tree" >"$work/inst" || echo - >"$work/inst"
		while IFS= read -r inst; do
			tag=$n-$(echo "$tree-$inst" | tr -c 'A-Za-z0-9\n' '_')
			set -- build "$tree" -q -o "$work/ref-$tag.so"
			[ "$inst" = - ] || set -- "$@" --instance "$inst"
			[ -z "$f" ] || set -- "$@" --cflags "$f"
			if ! "$PQPROF" "$@" >"$work/build-$tag.log" 2>&1; then
				echo "skipped: $tree ${inst#-}: the reference does not build (flags: ${f:-default}):"
				tail -n 3 "$work/build-$tag.log"
				continue
			fi
			set -- $(intree_set "$(size_of "$work/ref-$tag.so" pk)" "$(size_of "$work/ref-$tag.so" sk)")
			if [ $# -ne 3 ]; then
				echo "skipped: $tree ${inst#-}: its key sizes are no ML-DSA or ML-KEM parameter set"
				continue
			fi
			scheme=$1 params=$2 name=$3
			set -- build "$top_srcdir/schemes/$scheme/nist" -D "PARAMS=$params" -q -o "$work/in-$tag.so"
			[ -z "$f" ] || set -- "$@" --cflags "$f"
			"$PQPROF" "$@" >"$work/inbuild-$tag.log" 2>&1 || {
				echo "in-tree $name does not build:"; tail -n 3 "$work/inbuild-$tag.log"; exit 2; }
			label="$(basename "$(dirname "$tree")")/$(basename "$tree")${inst#-}"
			[ "$inst" = - ] || label="$(basename "$(dirname "$tree")")/$(basename "$tree") $inst"
			echo "${f:-default}|$name vs $label|$work/ref-$tag.so|$work/in-$tag.so" >>"$work/pairs"
			echo "built: ${f:-default}: $name, and $label" >&2
		done <"$work/inst"
	done <"$work/trees"
done <"$work/flags"
[ -s "$work/pairs" ] || { echo "baseline_speed: nothing to compare"; exit 2; }

# One trial of LIB: "op median_ns" lines.
medians() {
	"$PQPROF" bench "$1" --trials 1 --target "$target" --records-dir "" --json 2>/dev/null |
		jq -r '"\(.op) \(.summary.median_ns)"'
}

echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs;" \
	"compiler: $(cc --version | head -n 1)"
echo "$rounds rounds, one trial of each library per round (target ${target}s), in turn"
r=1
while [ "$r" -le "$rounds" ]; do
	i=0
	while IFS='|' read -r setting name ref in; do
		i=$((i + 1))
		# Alternate which goes first, so that neither always follows the other.
		if [ $((r % 2)) = 1 ]; then
			medians "$ref" | sed "s/^/$i ref /" >>"$work/m"
			medians "$in" | sed "s/^/$i in /" >>"$work/m"
		else
			medians "$in" | sed "s/^/$i in /" >>"$work/m"
			medians "$ref" | sed "s/^/$i ref /" >>"$work/m"
		fi
	done <"$work/pairs"
	r=$((r + 1))
done

# Ratios: per pair and op, the log of in/ref for each round, then the
# geometric mean and its t interval.
awk -v limit="$limit" -F'|' '
	BEGIN {
		# Student t, 97.5% quantile, by degrees of freedom.
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ")
	}
	FILENAME ~ /pairs$/ { np++; setting[np] = $1; name[np] = $2; next }
	{
		split($0, w, " ")
		k = w[1] SUBSEP w[3]
		if (w[2] == "ref") ref[k, ++nr[k]] = w[4]; else cur[k, ++ni[k]] = w[4]
		if (!(k in seen)) { seen[k] = 1; order[++no] = k }
	}
	END {
		bad = 0
		printf "%-18s  %-44s  %-7s  %10s  %10s  %-22s  %s\n", "flags", "pair", "op", "ref", "in-tree", "in-tree / ref (95%)", "rounds"
		for (o = 1; o <= no; o++) {
			k = order[o]; split(k, kk, SUBSEP); p = kk[1]; op = kk[2]
			n = nr[k] < ni[k] ? nr[k] : ni[k]
			s = 0; ss = 0; sr = 0; si = 0
			for (j = 1; j <= n; j++) {
				l = log(cur[k, j] / ref[k, j]); s += l; ss += l * l
				sr += log(ref[k, j]); si += log(cur[k, j])
			}
			m = s / n
			sd = n > 1 ? sqrt((ss - n * m * m) / (n - 1)) : 0
			q = n > 1 ? (n - 1 <= 20 ? t[n - 1] : 2.0) : 0
			lo = exp(m - q * sd / sqrt(n)); hi = exp(m + q * sd / sqrt(n))
			flag = hi > limit ? "  ABOVE " limit : ""
			if (hi > limit) bad = 1
			printf "%-18s  %-44s  %-7s  %8.1f µs  %8.1f µs  %.3f (%.3f-%.3f)  %d%s\n", setting[p], name[p], op,
			       exp(sr / n) / 1000, exp(si / n) / 1000, exp(m), lo, hi, n, flag
		}
		exit bad
	}' "$work/pairs" "$work/m"
