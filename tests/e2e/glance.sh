# glance.sh: the report-at-a-glance rules, shared by the e2e scripts that
# run campaigns (report_glance.sh, sphincs_campaign.sh, campaign_golden.sh).  Source it after
# lib.sh; `glance DIR WHAT` checks DIR/report.md.

# sentences FILE: the report's sentences, one a line, that occur more than once.
# Prose (paragraphs, list items) is split into clauses at ". " and "; ";
# a clause counts when it has at least four words of letters.  Table rows
# count too, cell by cell, once their code spans are taken out: a cell of
# at least five words of letters (an explanation repeated per row), or a
# parenthesized remark after a code span (a note on every row such as
# "(output not validated)").  Figures, names and short labels ("CPU ns per
# call", "n/a (no such function)") are data, not sentences, and so is a
# cell in which a third of the words or more are figures (a list of calls
# per operation, "spx_thash 96,922, ...", that two instances share).
sentences() {
	awk '
	function words(s,   n, i, w, k) {
		n = split(s, w, /[ \t]+/); k = 0
		for (i = 1; i <= n; i++) if (w[i] ~ /[A-Za-z][A-Za-z]/) k++
		return k
	}
	function figures(s,   n, i, w, k) {
		n = split(s, w, /[ \t]+/); k = 0
		for (i = 1; i <= n; i++) if (w[i] ~ /^[(]?[-+]?[0-9]/) k++
		return k
	}
	function emit(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); if (s != "") print s }
	/^#/ || /^\|[-|]+\|$/ || /^$/ { next }
	/^\|/ {
		if (prev !~ /^\|/) { prev = $0; next }   # the header row
		prev = $0
		n = split($0, c, /[ ]\|[ ]/)
		for (i = 1; i <= n; i++) {
			cell = c[i]; sub(/^\| /, "", cell); sub(/ \|$/, "", cell)
			coded = cell ~ /^`[^`]*`[ ]*\(/
			gsub(/`[^`]*`/, "", cell)
			if (3 * figures(cell) >= words(cell) + figures(cell))
				continue
			if (words(cell) >= 5 || (coded && words(cell) >= 2)) emit(cell)
		}
		next
	}
	{
		prev = $0
		line = $0; sub(/^- /, "", line)
		gsub(/\. /, ".\n", line); gsub(/; /, ";\n", line)
		n = split(line, part, "\n")
		# a clause with figures needs six words of its own to be a sentence ("about 2.05 ms per call" is data)
		for (i = 1; i <= n; i++) if (words(part[i]) >= (figures(part[i]) ? 6 : 4)) emit(part[i])
	}' "$1" | awk '
	# The same sentence under another label, or inside a longer one, is said
	# twice too: a leading "Label: " and the closing punctuation aside, a
	# clause of eight words or more that another clause holds is repeated.
	function norm(s,   k) {
		k = index(s, ": "); if (k > 1 && k <= 41) s = substr(s, k + 2)
		sub(/[.;:]+$/, "", s)
		return tolower(s)
	}
	{ raw[NR] = $0; c[NR] = norm($0); w[NR] = split(c[NR], tmp, /[ \t]+/) }
	END {
		for (i = 1; i <= NR; i++)
			for (j = 1; j <= NR; j++)
				if (i != j && (c[i] == c[j] ? i < j : w[i] >= 8 && index(c[j], c[i])))
					print raw[i]
	}' | sort -u
}

# unitless FILE: the table cells holding a figure without a unit where the
# column header names none either.  A figure is a cell that is a number
# ("2.7 k", "3006", "60,000 (3 × 20,000)"); its unit is a word after the
# number in the cell, or, in the header, a unit word or a count: "(n)",
# "n (", "samples", "calls", "ops/s", "bytes", "rounds", "allocations",
# "trials", "cycles", "ticks", "%", "x"; a time unit (ns, µs, ms, s) only
# for figures without a k/M/G scale ("2.7 k" under "ns per op" fails).  Shares ("4.1%"), factors
# ("1.02x") and intervals carry their unit in the cell.
unitless() {
	awk -F' \\| ' '
	function unit_header(h) {
		return h ~ /\(n\)|^n \(|samples|calls|ops\/s|bytes|\(B\)|rounds|allocations|trials|cycles|ticks|units|count|%|share|factor|ratio|interval|instructions|line|sha256|file|addresses/
	}
	/^\|/ && !inrow { inrow = 1; n = split($0, hdr, / \| /); for (i = 1; i <= n; i++) { h = hdr[i]; sub(/^\| /, "", h); sub(/ \|$/, "", h); hdr[i] = h }; next }
	/^\|[-|]+\|$/ { next }
	/^\|/ {
		n = split($0, c, / \| /)
		for (i = 1; i <= n; i++) {
			cell = c[i]; sub(/^\| /, "", cell); sub(/ \|$/, "", cell)
			# a bare figure: digits, separators, a k/M/G scale and brackets of figures, nothing else
			if (cell !~ /^-?[0-9][0-9,]*(\.[0-9]+)?( [kMG])?( \([0-9,. ×x]+\))?$/)
				continue
			# a time unit in the header fits only unscaled figures: "2.7 k" under "ns" is not a unit chosen by size
			if (hdr[i] ~ /(^| )(ns|µs|ms|s)( |$)/ && cell !~ / [kMG]/)
				continue
			if (!unit_header(hdr[i]) || hdr[i] ~ /(^| )(ns|µs|ms|s)( |$)/)
				print hdr[i] ": " cell
		}
		next
	}
	{ inrow = 0 }' "$1" | sort -u
}

# glance DIR WHAT: the four rules on DIR/report.md.
glance() {
	local md=$1/report.md what=$2
	[ -s "$md" ] || { fail "$what: no report.md"; return; }
	echo "$what: report.md has $(wc -l <"$md") lines"
	head -n 40 "$md" | grep -q '^## Summary$' && pass "$what: the summary is within the first 40 lines" ||
		fail "$what: no '## Summary' within the first 40 lines"
	sentences "$md" >"$WORK/dups"
	[ -s "$WORK/dups" ] && { fail "$what: sentences said more than once:"; sed 's/^/  | /' "$WORK/dups" | head -20; } ||
		pass "$what: no sentence twice"
	nums=$(sed -n 's/^## \([0-9][0-9]*\)\. .*/\1/p' "$md" | tr '\n' ' ')
	k=$(echo $nums | wc -w)
	want=$(seq 1 "$k" | tr '\n' ' ')
	[ "$k" -gt 0 ] && [ "$nums" = "$want" ] && pass "$what: sections numbered 1..$k" ||
		fail "$what: section numbers [$nums], wanted [$want]"
	unitless "$md" >"$WORK/bare"
	[ -s "$WORK/bare" ] && { fail "$what: table figures without a unit (column: cell):"; sed 's/^/  | /' "$WORK/bare" | head -20; } ||
		pass "$what: every table figure has a unit"
}
