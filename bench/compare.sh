#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare.sh OLD NEW TRACE [REPLAY-ARGS...] - two pagesim binaries side by
# side on one trace: replay --mode follow and --mode simulate with the
# REPLAY-ARGS (simulate also with SIM_ARGS, by default --machine
# configs/machines/ivb-ep-2s-64g.machine as in bench/run.sh), OLD and NEW
# taking turns REPEAT times (default 5), so that the load of the
# machine falls on both alike.  Prints per binary and mode the best and the
# median wall time, the least CPU time (user + system) and the largest peak
# RSS, then the ratio NEW/OLD of the medians, and whether the two binaries'
# outputs are byte-identical.  Not part of the test suite; for example, with
# bench/run.sh's large trace:
#
#   bench/compare.sh old/build/pagesim build/pagesim bench/out/numa2-zrm1-100000000.pgs
#
# Both binaries must read TRACE (an older pagesim reads only the pagesim
# file versions it knew).  Environment: REPEAT, MODES (default "follow
# simulate"), SIM_ARGS.
set -eu
[ $# -ge 3 ] || { sed -n '3,18s/^# \{0,1\}//p' "$0" >&2; exit 2; }
for f in "$1" "$2" "$3"; do
	[ -e "$f" ] || { echo "compare.sh: no file '$f'" >&2; exit 1; }
done
OLD=$(realpath "$1") NEW=$(realpath "$2") TRACE=$(realpath "$3")
shift 3
cd "$(dirname "$0")/.."	# SIM_ARGS' default names configs/ from the top
REPEAT=${REPEAT:-5}
MODES=${MODES:-follow simulate}
SIM_ARGS=${SIM_ARGS---machine configs/machines/ivb-ep-2s-64g.machine}
for b in "$OLD" "$NEW"; do
	[ -x "$b" ] || { echo "compare.sh: '$b' is not an executable" >&2; exit 1; }
done
[ -f "$TRACE" ] || { echo "compare.sh: '$TRACE' is not a trace file" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "compare.sh: GNU time is needed (apt-get install time)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run WHO MODE [REPLAY-ARGS...]: one timed replay; appends "wall cpu rss_kib" to TMP/WHO.MODE
run() {
	local who=$1 mode=$2 bin=$OLD s e
	shift 2
	[ "$who" = new ] && bin=$NEW
	# shellcheck disable=SC2086 # SIM_ARGS is a list of words
	[ "$mode" = simulate ] && set -- "$@" $SIM_ARGS
	s=${EPOCHREALTIME/[.,]/}
	/usr/bin/time -f '%U %S %M' -o "$TMP/t" "$bin" replay -q --mode "$mode" "$@" "$TRACE" \
		> "$TMP/$who.$mode.out" 2> "$TMP/$who.$mode.err" ||
		{ echo "compare.sh: $bin replay --mode $mode failed:" >&2; cat "$TMP/$who.$mode.err" >&2; exit 1; }
	e=${EPOCHREALTIME/[.,]/}
	awk -v w=$((e - s)) '{ printf "%.3f %.2f %d\n", w / 1e6, $1 + $2, $3 }' "$TMP/t" >> "$TMP/$who.$mode"
}

echo "$(basename "$TRACE"), replay $* (simulate: $SIM_ARGS); $REPEAT runs each, turns taken; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $OLD"
echo "new: $NEW"
echo
echo "| mode | binary | best wall s | median wall s | least CPU s | peak RSS MiB |"
echo "|---|---|---:|---:|---:|---:|"
for m in $MODES; do
	for i in $(seq "$REPEAT"); do
		if [ $((i % 2)) = 1 ]; then
			run old "$m" "$@"; run new "$m" "$@"
		else
			run new "$m" "$@"; run old "$m" "$@"
		fi
	done
	for who in old new; do
		sort -n "$TMP/$who.$m" | awk -v m="$m" -v who="$who" '
			{ w[NR] = $1; if (NR == 1 || $2 < c) c = $2; if ($3 > r) r = $3 }
			END { med = NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
				printf "| %s | %s | %.3f | %.3f | %.2f | %.0f |\n", m, who, w[1], med, c, r / 1024
				print med > "'"$TMP/$who.$m.med"'" }'
	done
done
echo
for m in $MODES; do
	same=identical
	cmp -s "$TMP/old.$m.out" "$TMP/new.$m.out" || same=DIFFERENT
	awk -v m="$m" -v s="$same" '{ o = $1; getline n < "'"$TMP/new.$m.med"'" }
		END { printf "%s: new/old median wall %.3f; outputs %s\n", m, (o > 0 ? n / o : 0), s }' "$TMP/old.$m.med"
done
