#!/bin/sh
# record-perf.sh - a large real perf.data of this machine for bench/run.sh: the kmem page events
# of a page-cache + anonymous-memory workload (record-bench.sh's, MB megabytes of it) recorded
# system-wide by perf record with buffers large enough to lose none, and the sysroot snapshot
# pagesim needs beside it.  Needs root and perf (apt-get install linux-perf).  Run by hand:
#   bench/record-perf.sh [OUTDIR]          default bench/out/perf-large; MB=1000 by default
set -eu
out=${1:-$(dirname "$0")/out/perf-large}
MB=${MB:-1000}
command -v perf > /dev/null || { echo "perf is needed (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p "$out/before/proc/sys/vm" "$out/before/sys/devices/system/node"
for f in zoneinfo vmstat pagetypeinfo buddyinfo; do cat /proc/$f > "$out/before/proc/$f"; done
for n in /sys/devices/system/node/node[0-9]*; do
	mkdir -p "$out/before/sys/devices/system/node/${n##*/}"
	cat "$n/cpulist" > "$out/before/sys/devices/system/node/${n##*/}/cpulist"
done
trap 'rm -f /dev/shm/pagesim-bench-x' EXIT INT TERM
perf record -q -m 64M -e 'kmem:mm_page_*' -a -o "$out/perf.data" -- sh -c "
	dd if=/dev/zero of=/dev/shm/pagesim-bench-x bs=1M count=$MB 2>/dev/null
	python3 -c 'a = bytearray($MB << 20)'
	rm -f /dev/shm/pagesim-bench-x"
ls -l "$out/perf.data"
perf report -i "$out/perf.data" --stats 2> /dev/null | grep -E 'SAMPLE events|LOST' | head -4
