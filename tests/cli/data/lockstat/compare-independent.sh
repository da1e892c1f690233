#!/bin/sh
# compare-independent.sh PAGESIM TRACE SYSROOT [TEXT]: pagesim lockstat's sections and
# zone_lock_acquisitions vs independent.py's grouping of the same events (TEXT: the
# trace as text for independent.py, default TRACE).  Prints the relative difference;
# fails above 5% and reports any difference at all.
set -e
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/independent.py" "${4:-$2}" "$3" > "$tmp/indep"
"$1" lockstat -q --sysroot "$3" "$2" | sort > "$tmp/pagesim"
join "$tmp/indep" "$tmp/pagesim" > "$tmp/joined"
if [ "$(wc -l < "$tmp/joined")" != "$(wc -l < "$tmp/indep")" ]; then
	echo "pagesim lacks counters:"; join -v1 "$tmp/indep" "$tmp/pagesim"; exit 1
fi
awk '{ d = $3 - $2; r = $2 ? 100 * d / $2 : (d ? 100 : 0); if (r < 0) r = -r
       printf "%s independent %d pagesim %d diff %.2f%%\n", $1, $2, $3, r
       if (r > 5) bad = 1; if (d) differ = 1 }
     END { if (bad) { print "FAIL: more than 5% apart"; exit 1 }
           print differ ? "within 5%, not identical" : "sections agree exactly" }' "$tmp/joined"
