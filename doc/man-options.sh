#!/bin/sh
# man-options.sh PQPROF MAN: print MAN (doc/pqprof.1) with its OPTIONS
# section replaced by what `PQPROF help --man` makes from the commands'
# option tables (inserted before CONTAINMENT when MAN has none yet).
# `make update-man` writes the result back; tests/e2e/options.sh fails
# when the committed page differs from it.
set -eu
pqprof=$1 man=$2
gen=$("$pqprof" help --man)
printf '%s\n' "$gen" | awk -v manfile="$man" '
	{ gen = gen $0 "\n" }
	END {
		skip = 0; done = 0
		while ((getline line < manfile) > 0) {
			if (line ~ /^\.\\" BEGIN OPTIONS/) { printf "%s", gen; skip = 1; done = 1; continue }
			if (skip) { if (line ~ /^\.\\" END OPTIONS/) skip = 0; continue }
			if (!done && line ~ /^\.SH CONTAINMENT/) { printf "%s", gen; done = 1 }
			print line
		}
	}'
