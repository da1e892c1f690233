#!/bin/sh
# record-tdat.sh - a large real trace.dat of this machine for bench/run.sh: the kmem page
# events of record-bench.sh's page-cache + anonymous workload, recorded into a tracefs
# instance with a buffer large enough to hold them all, then written by `trace-cmd extract`
# (trace-cmd record does not work on every machine; extract of a filled buffer does).
# The sysroot snapshot pagesim needs is taken before and after, beside the file.
# Needs root and tracefs.  Run by hand:
#   bench/record-tdat.sh [OUTDIR]          default bench/out/tdat-large
set -eu
out=${1:-$(dirname "$0")/out/tdat-large}
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
I=$T/instances/pagesim-bench-$$
command -v trace-cmd > /dev/null || { echo "trace-cmd is needed (apt-get install trace-cmd)" >&2; exit 1; }
mkdir -p "$out"
snap() {
	mkdir -p "$out/$1/proc/sys/vm" "$out/$1/sys/devices/system/node"
	for f in zoneinfo vmstat pagetypeinfo buddyinfo; do cat /proc/$f > "$out/$1/proc/$f"; done
	cp /proc/sys/vm/* "$out/$1/proc/sys/vm/" 2>/dev/null || true
	uname -r > "$out/$1/proc/osrelease" 2>/dev/null || true
	for n in /sys/devices/system/node/node[0-9]*; do
		d="$out/$1/sys/devices/system/node/${n##*/}"
		mkdir -p "$d"
		cat "$n/numastat" > "$d/numastat"
		cat "$n/cpulist" > "$d/cpulist"
	done
}
cleanup() {
	[ -d "$I" ] || return 0
	echo 0 > "$I/tracing_on" 2>/dev/null || true
	echo 0 > "$I/events/kmem/enable" 2>/dev/null || true
	rmdir "$I" 2>/dev/null || true
	rm -f /dev/shm/pagesim-bench-x /dev/shm/pagesim-bench-y
}
trap cleanup EXIT INT TERM
mkdir "$I"
echo 0 > "$I/tracing_on"
echo "${BUFFER_KB:-600000}" > "$I/buffer_size_kb"
for e in mm_page_alloc mm_page_free mm_page_free_batched mm_page_alloc_zone_locked \
	 mm_page_pcpu_drain mm_page_alloc_extfrag; do
	echo 1 > "$I/events/kmem/$e/enable"
done
snap before
echo 1 > "$I/tracing_on"
dd if=/dev/zero of=/dev/shm/pagesim-bench-x bs=1M count=3000 2>/dev/null
python3 -c "a = bytearray(1500 << 20); b = bytearray(1500 << 20)"
rm -f /dev/shm/pagesim-bench-x
dd if=/dev/zero of=/dev/shm/pagesim-bench-y bs=1M count=2000 2>/dev/null
rm -f /dev/shm/pagesim-bench-y
echo 0 > "$I/tracing_on"
snap after
grep -H . "$I"/per_cpu/cpu*/stats | grep -E "entries|overrun" > "$out/ringbuffer-stats" || true
rm -f "$out/trace.dat"
trace-cmd extract -B "${I##*/}" -o "$out/trace.dat" > /dev/null 2>&1
ls -l "$out/trace.dat"
cat "$out/ringbuffer-stats"
