#!/bin/sh
# sweep-bench.sh [TRACE] [ROUNDS] - a 16-cell sweep against the same 16 replays
# run one after another, side by side on this machine: vm.watermark_scale_factor
# 10 25 50 100 150 200 500 1000 x vm.zone_reclaim_mode 0 1 in simulate mode,
# ROUNDS (default 5) rounds alternating the two, medians printed.  The sweep
# runs with -j set to the CPUs online.  Each cell is checked equal to its
# replay.  Wall time and CPU time (user + system, all threads: the fairer
# figure on a machine shared with other jobs) of each.  TRACE defaults to the
# bundled testdata/numa2/numa2-base.pgs; PAGESIM to build/pagesim.
set -eu
cd "$(dirname "$0")/.."
trace=${1:-testdata/numa2/numa2-base.pgs}
rounds=${2:-5}
pagesim=${PAGESIM:-build/pagesim}
jobs=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wsf="10 25 50 100 150 200 500 1000"

cat > "$tmp/replays.sh" <<EOS
for w in $wsf; do
	for z in 0 1; do
		"$pagesim" replay -q --mode simulate --set vm.watermark_scale_factor=\$w \\
			--set vm.zone_reclaim_mode=\$z "$trace" > "$tmp/r/\$w-\$z.vmstat"
	done
done
EOS
cat > "$tmp/sweep.sh" <<EOS
"$pagesim" sweep -q -j "$jobs" -o "$tmp/s" --set vm.watermark_scale_factor=$(echo $wsf | tr ' ' ,) \\
	--set vm.zone_reclaim_mode=0,1 "$trace" > /dev/null
EOS
mkdir -p "$tmp/r"
: > "$tmp/times"
for i in $(seq "$rounds"); do
	/usr/bin/time -f "%e %U %S" -o "$tmp/ta" sh "$tmp/replays.sh"
	rm -rf "$tmp/s"	# a fresh sweep each round, the old one removed outside the timing
	/usr/bin/time -f "%e %U %S" -o "$tmp/tb" sh "$tmp/sweep.sh"
	awk 'FNR == 1 { w[++n] = $1; c[n] = $2 + $3 } END { printf "%.3f %.3f %.3f %.3f\n", w[1], w[2], c[1], c[2] }' \
		"$tmp/ta" "$tmp/tb" >> "$tmp/times"
done
# every cell equals its replay (the cell file less its '#' lines)
n=0
for f in "$tmp"/s/cells/*.vmstat; do
	w=$(sed -n 's/^# policy vm.watermark_scale_factor //p' "$f")
	z=$(sed -n 's/^# policy vm.zone_reclaim_mode //p' "$f")
	grep -v '^#' "$f" | cmp -s - "$tmp/r/$w-$z.vmstat" || { echo "cell $f differs from its replay"; exit 1; }
	n=$((n + 1))
done
[ "$n" = 16 ] || { echo "the sweep has $n cells, not 16"; exit 1; }
med() { sort -n -k"$1" "$tmp/times" | awk -v k="$1" '{ a[NR] = $k } END { print a[int((NR + 1) / 2)] }'; }
wa=$(med 1) wb=$(med 2) ca=$(med 3) cb=$(med 4)
echo "trace: $trace ($(stat -c %s "$trace") bytes), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds"
echo "per round: replays wall, sweep wall, replays CPU, sweep CPU (s)"; sed 's/^/  /' "$tmp/times"
echo "16 replays one after another: median wall $wa s, CPU $ca s"
echo "sweep -j $jobs of the same 16 cells: median wall $wb s, CPU $cb s"
awk -v a="$wa" -v b="$wb" -v c="$ca" -v d="$cb" 'BEGIN { printf "sweep / replays: wall %.1f%%, CPU %.1f%%\n", 100 * b / a, 100 * d / c }'
echo "cells equal to their replays: $n"
