#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline-bench.sh - what a timeline costs a replay: replay --mode simulate and
# --mode follow of the large trace bench/run.sh builds (EVENTS, default 100 M, from
# SRC, a pagesim file or a run directory holding trace.dat; default
# testdata/numa2/numa2-zrm1.pgs) without a timeline and with --interval INTERVAL (default
# 10ms) --timeline FILE (the file written to bench/out/), on one decode thread:
#   - wall and CPU time, the best of REPEAT runs (default 3) each;
#   - with CALLGRIND=1, valgrind --tool=callgrind instruction counts of the same
#     commands on a smaller copy (CG_EVENTS, default 2 M events): on a shared,
#     loaded machine the fairer figure (the timeline's share per event is the same).
# Prints a table and the slowdown (target: at most 10%).  Not part of the test suite;
# run with nice on a shared machine:
#
#   nice -n 10 bench/timeline-bench.sh
#   CALLGRIND=1 REPEAT=5 nice -n 10 bench/timeline-bench.sh
set -eu
cd "$(dirname "$0")/.."
SRC=${SRC:-testdata/numa2/numa2-zrm1.pgs}
SRC=${SRC%/}
case $SRC in
*.pgs) SRC_TRACE=$SRC SYSROOT=${SRC%.pgs}/before ;;
*) SRC_TRACE=$SRC/trace.dat SYSROOT=$SRC/before ;;
esac
[ -e "$SRC_TRACE" ] || { echo "no trace $SRC_TRACE (SRC: a pagesim file or a run directory)" >&2; exit 1; }
EVENTS=${EVENTS:-100000000}
CG_EVENTS=${CG_EVENTS:-2000000}
REPEAT=${REPEAT:-3}
INTERVAL=${INTERVAL:-10ms}
CALLGRIND=${CALLGRIND:-0}
OUT=bench/out
B=$OUT/build
P=$B/pagesim
mkdir -p "$OUT"
[ -d "$B" ] || meson setup "$B" > /dev/null
ninja -C "$B" pagesim > /dev/null
cc -O2 -o "$OUT/pgs_concat" -I. bench/pgs_concat.c "$B/libpagesim.a" \
	$(pkg-config --cflags --libs libzstd zlib liblzma libtraceevent libtracecmd libtracefs json-c) -lm -lpthread
name=$(basename "${SRC%.pgs}")
big=$OUT/$name-$EVENTS.pgs
small=$OUT/$name-$CG_EVENTS.pgs
for f in "$big:$EVENTS" "$small:$CG_EVENTS"; do
	t=${f%:*} n=${f##*:}
	if [ ! -s "$t" ] || [ "$t" -ot bench/pgs_concat.c ] || [ "$t" -ot "$SRC_TRACE" ]; then
		echo "building $t" >&2
		"$OUT/pgs_concat" -c -e "$n" -s "$SYSROOT" -o "$t" "$SRC_TRACE" || { rm -f "$t"; exit 1; }
	fi
	[ "$CALLGRIND" = 1 ] || break
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PAGESIM_DECODE_THREADS=1

# best CMD...: the best wall and the least CPU time (user + system) of REPEAT runs, in ms
best() {
	local w= c= s e t u
	for _ in $(seq "$REPEAT"); do
		s=$(date +%s%N)
		/usr/bin/time -f '%U %S' -o "$TMP/t" "$@" > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
		e=$(date +%s%N)
		t=$(( (e - s) / 1000000 ))
		u=$(tail -1 "$TMP/t" | awk '{ printf "%d", ($1 + $2) * 1000 }')
		[ -z "$w" ] || [ "$t" -lt "$w" ] && w=$t
		[ -z "$c" ] || [ "$u" -lt "$c" ] && c=$u
	done
	echo "$w $c"
}

# instructions CMD...: callgrind's total instruction count
instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" > /dev/null 2> "$TMP/cg.err" ||
		{ cat "$TMP/cg.err" >&2; exit 1; }
	sed -n 's/^summary: //p' "$TMP/cg.out"
}

echo "pagesim $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- sim cli || echo +), $(nproc) CPUs," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ); $big, --interval $INTERVAL"
echo
echo "| replay | without: wall ms | CPU ms | with --timeline: wall ms | CPU ms | CPU slowdown |"
echo "|---|---:|---:|---:|---:|---:|"
for mode in simulate follow; do
	read -r w0 c0 < <(best "$P" replay -q --mode $mode "$big")
	read -r w1 c1 < <(best "$P" replay -q --mode $mode --interval "$INTERVAL" --timeline "$OUT/timeline-$mode.csv" "$big")
	awk -v m="$mode" -v w0="$w0" -v c0="$c0" -v w1="$w1" -v c1="$c1" 'BEGIN {
		printf "| --mode %s | %d | %d | %d | %d | %+.1f%% |\n", m, w0, c0, w1, c1, 100 * (c1 - c0) / c0 }'
done
echo
echo "timeline (simulate): $(grep -vc '^#' "$OUT/timeline-simulate.csv") lines of" \
	"$(awk -F, '!/^#/ { print NF; exit }' "$OUT/timeline-simulate.csv") columns, $(du -h "$OUT/timeline-simulate.csv" | cut -f1)"
if [ "$CALLGRIND" = 1 ]; then
	echo
	echo "| replay, $small | instructions without | with --timeline | slowdown |"
	echo "|---|---:|---:|---:|"
	for mode in simulate follow; do
		i0=$(instructions "$P" replay -q --mode $mode "$small")
		i1=$(instructions "$P" replay -q --mode $mode --interval "$INTERVAL" --timeline "$TMP/t.csv" "$small")
		awk -v m="$mode" -v a="$i0" -v b="$i1" 'BEGIN {
			printf "| --mode %s | %.0f | %.0f | %+.2f%% |\n", m, a, b, 100 * (b - a) / a }'
	done
fi
