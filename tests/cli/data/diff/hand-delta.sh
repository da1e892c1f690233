#!/bin/sh
# hand-delta.sh BASE_RUN NEW_RUN - checks pagesim diff against a hand computation.
#
# BASE_RUN and NEW_RUN are run directories (before/ and after/ sysroots).  awk
# computes, independently of pagesim, after - before of proc/vmstat and of each
# node's numastat and the %change 100 * (new - base) / |base|; the script then
# compares them with the numbers pagesim diff prints in the columns form (every
# counter, value and change) and in the lkp form (every change).  $PAGESIM is
# the binary.  Prints "match: N counters" or the differences (exit 1).
set -eu
base=$1 new=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name delta, in the order of the after/ files: proc/vmstat, then node0, node1, ...
deltas() {
	{
		awk 'FNR == NR { b[$1] = $2; next } { printf "%s %.0f\n", $1, $2 - b[$1] }' \
			"$1/before/proc/vmstat" "$1/after/proc/vmstat"
		n=0
		while [ -f "$1/after/sys/devices/system/node/node$n/numastat" ]; do
			awk -v p="node$n." 'FNR == NR { b[$1] = $2; next } { printf "%s%s %.0f\n", p, $1, $2 - b[$1] }' \
				"$1/before/sys/devices/system/node/node$n/numastat" \
				"$1/after/sys/devices/system/node/node$n/numastat"
			n=$((n + 1))
		done
	}
}
deltas "$base" > "$tmp/base"
deltas "$new" > "$tmp/new"
# name base new change
awk 'FNR == NR { nv[$1] = $2; next }
     {
	b = $2 + 0; n = nv[$1] + 0
	if (b == 0) ch = (n == 0) ? "+0.0" : (n > 0 ? "+inf" : "-inf")
	else ch = sprintf("%+.1f", 100 * (n - b) / (b < 0 ? -b : b))
	printf "%s %.0f %.0f %s\n", $1, b, n, ch
     }' "$tmp/new" "$tmp/base" > "$tmp/want"

"$PAGESIM" diff --all --format columns "$base" "$new" > "$tmp/columns"
# "name  v0 (   0.0%)  v1 ( +x.x%)" -> "name v0 v1 +x.x"
 sed "1,/^$/d" "$tmp/columns" | tail -n +2 | awk '{ gsub(/[()%]/, " "); $0 = $0; print $1, $2, $4, $5 }' > "$tmp/got"
if ! diff "$tmp/want" "$tmp/got" > "$tmp/d"; then
	echo "columns form differs from the hand computation (< hand, > pagesim):"
	head -20 "$tmp/d"
	exit 1
fi

"$PAGESIM" diff --all "$base" "$new" > "$tmp/lkp"
# the rows follow the header ("\  |  \" line); the change is the field ending in '%'
# that follows the base value (and its "± N%", absent for a single repeat)
sed -n '/^ *\\ /,$p' "$tmp/lkp" | tail -n +2 | awk '{ print $NF, $2 }' | sed 's/%$//' > "$tmp/got-lkp"
awk '{ print $1, $4 }' "$tmp/want" > "$tmp/want-lkp"
if ! diff "$tmp/want-lkp" "$tmp/got-lkp" > "$tmp/d"; then
	echo "lkp form differs from the hand computation (< hand, > pagesim):"
	head -20 "$tmp/d"
	exit 1
fi
echo "match: $(wc -l < "$tmp/want") counters"
