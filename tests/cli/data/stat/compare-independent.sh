#!/bin/sh
# compare-independent.sh PAGESIM TRACE SYSROOT [TEXT WINDOW]: pagesim stat vs independent.py,
# counter by counter.  independent.py counts TRACE, or with TEXT and WINDOW (A-B, seconds) the
# lines of the text TEXT with A <= timestamp < B: TRACE then holds those events in another
# form (a trace.dat of the same window).
set -e
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 5 ]; then
	python3 "$here/independent.py" "$4" "$3" "$5" > "$tmp/indep"
else
	python3 "$here/independent.py" "$2" "$3" > "$tmp/indep"
fi
"$1" stat -q --sysroot "$3" "$2" | sort > "$tmp/pagesim"
join "$tmp/indep" "$tmp/pagesim" > "$tmp/joined"
if [ "$(wc -l < "$tmp/joined")" != "$(wc -l < "$tmp/indep")" ]; then
	echo "pagesim lacks counters:"; join -v1 "$tmp/indep" "$tmp/pagesim"; exit 1
fi
if awk '$2 != $3 { print "differs:", $0; bad = 1 } END { exit bad }' "$tmp/joined"; then
	echo "$(wc -l < "$tmp/joined") counters agree"
else
	exit 1
fi
