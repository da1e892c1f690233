#!/bin/sh
# compare-independent.sh PAGESIM TRACE SYSROOT: pagesim stat vs independent.py, counter by counter.
set -e
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/independent.py" "$2" "$3" > "$tmp/indep"
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
