#!/bin/sh
# record-bench.sh - pagesim record at the highest page-event rate this machine drives: a
# page-cache + anonymous-memory workload (tmpfs writes of 3 GiB and 2 GiB, 3 GiB of anonymous
# memory) recorded with the default buffers; prints events, lost events, time and file size.
# Needs root and tracefs.  Run by hand: bench/record-bench.sh [PAGESIM]
set -e
P=${1:-$(dirname "$0")/../build/pagesim}
out=$(mktemp -d)
trap 'rm -rf "$out" /dev/shm/pagesim-bench-x /dev/shm/pagesim-bench-y' EXIT
start=$(date +%s.%N)
"$P" record -q -o "$out/run.pgs" -- sh -c '
	dd if=/dev/zero of=/dev/shm/pagesim-bench-x bs=1M count=3000 2>/dev/null
	python3 -c "a = bytearray(1500 << 20); b = bytearray(1500 << 20)"
	rm -f /dev/shm/pagesim-bench-x
	dd if=/dev/zero of=/dev/shm/pagesim-bench-y bs=1M count=2000 2>/dev/null
	rm -f /dev/shm/pagesim-bench-y'
end=$(date +%s.%N)
"$P" stat -q "$out/run.pgs" | awk -v t="$(echo "$end - $start" | bc)" -v size="$(stat -c %s "$out/run.pgs")" '
	/^events_mm_page/ { ev += $2 } /^events_lost / { lost = $2 }
	END { printf "events %d  lost %d  wall %.1f s  %.1f M events/s  file %.1f MB  %.2f B/event\n",
	      ev, lost, t, ev / t / 1e6, size / 1e6, size / ev }'
