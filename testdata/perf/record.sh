#!/bin/sh
# record.sh - records the small real perf.data files in testdata/perf/ and their perf script text.
#
# Usage (as root, with perf: apt-get install linux-perf):
#   testdata/perf/record.sh [OUTDIR]        default: the folder of this script
# Environment: PERF (the perf binary, default perf), MAX_BYTES (a run larger than this, default
# 700000, is not kept: the system-wide recordings hold what else the machine did; rerun when it is
# quieter).
#
# Three recordings of one short workload (a 1 MiB file written, read and removed on tmpfs):
#   kmem.data.zst       perf record -e 'kmem:mm_page_*'        the workload's tasks only
#   kmem-z.data.zst     perf record -z -e 'kmem:mm_page_*' -a  system-wide, perf's own zstd records
#   kmem-page.data.zst  perf kmem --page record                system-wide, alloc and free with
#                                                              callchains
# (each perf.data compressed with zstd -19 as a whole, which pagesim reads as it is)
# each with its 'perf script' text (default fields) as NAME.txt.zst, and the machine's layout as
# a sysroot in before/ (taken before the first recording).  The README gives each recording's
# events and the samples perf says it lost (the text shows no loss; the perf.data does).  Everything is written to a scratch
# folder and moved into OUTDIR only once complete.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
PERF=${PERF:-perf}
MAX_BYTES=${MAX_BYTES:-700000}
die() { echo "record.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (system-wide recording)"
command -v "$PERF" > /dev/null || die "perf is not installed (apt-get install linux-perf)"
command -v zstd > /dev/null || die "zstd is not installed (apt-get install zstd)"
work=$(mktemp -d /var/tmp/pagesim-perf.XXXXXX)
trap 'rm -rf "$work" /dev/shm/pagesim-perf.$$' EXIT INT TERM

snap() {
	d=$work/$1
	mkdir -p "$d/proc/sys/vm" "$d/proc/sys/kernel" "$d/sys/devices/system/node"
	for f in zoneinfo pagetypeinfo buddyinfo vmstat meminfo; do cat /proc/$f > "$d/proc/$f"; done
	for f in /proc/sys/vm/*; do cat "$f" > "$d/proc/sys/vm/${f##*/}" 2>/dev/null || rm -f "$d/proc/sys/vm/${f##*/}"; done
	cat /proc/sys/kernel/osrelease > "$d/proc/sys/kernel/osrelease"
	cat /sys/devices/system/node/online > "$d/sys/devices/system/node/online"
	for n in /sys/devices/system/node/node[0-9]*; do
		mkdir -p "$d/sys/devices/system/node/${n##*/}"
		for f in cpulist distance meminfo numastat vmstat; do
			cat "$n/$f" > "$d/sys/devices/system/node/${n##*/}/$f"
		done
	done
}

# the workload, run by each recording (perf record ... -- sh -c "$WORKLOAD")
WORKLOAD='dd if=/dev/zero of=/dev/shm/pagesim-perf.'$$' bs=64k count=16 status=none
cat /dev/shm/pagesim-perf.'$$' > /dev/null
rm -f /dev/shm/pagesim-perf.'$$''

snap before
cd "$work"	# perf keeps its command line (-o NAME) in the file
"$PERF" record -q -e 'kmem:mm_page_*' -o kmem.data -- sh -c "$WORKLOAD" > /dev/null
"$PERF" record -q -z -e 'kmem:mm_page_*' -a -o kmem-z.data -- sh -c "$WORKLOAD" > /dev/null
"$PERF" kmem --page record -o kmem-page.data -- sh -c "$WORKLOAD" > /dev/null 2>&1
for r in kmem kmem-z kmem-page; do
	"$PERF" script -i "$work/$r.data" > "$work/$r.txt" 2> /dev/null
	[ -s "$work/$r.txt" ] || die "perf script of $r.data printed nothing"
	"$PERF" script -i "$work/$r.data" --header-only 2> /dev/null | grep -E '^# (os release|perf version|cmdline|event) ' \
		> "$work/$r.header" || true
	zstd -q -19 --rm "$work/$r.txt"
done
for r in kmem kmem-z kmem-page; do zstd -q -19 --rm "$work/$r.data"; done
# lost FILE.zst: the kmem events' lost samples as perf counts them
lost() {
	zstdcat "$1" > "$work/lost.data"
	"$PERF" report -i "$work/lost.data" --stats 2> /dev/null |
		awk '/^kmem:.* stats:$/ { k = 1; next } /stats:$/ { k = 0 } k && /LOST_SAMPLES events:/ { s += $3 } END { print s + 0 }'
	rm -f "$work/lost.data"
}
{
	echo "# testdata/perf"
	echo
	echo "Real perf.data files of this machine ($(nproc) CPUs, kernel $(uname -r), $("$PERF" version)),"
	echo "written by testdata/perf/record.sh; each NAME.txt.zst is 'perf script -i NAME.data' (default fields)."
	echo "before/ is the machine's layout, taken before the first recording."
	echo
	echo "Workload of each recording (sh -c):"
	echo
	echo '```'
	echo "$WORKLOAD" | sed "s/pagesim-perf\.$$/pagesim-perf.PID/g"
	echo '```'
	echo
	for r in kmem kmem-z kmem-page; do
		echo "## $r"
		echo
		sed 's/^# //' "$work/$r.header"
		echo
		echo "Samples of the kmem events lost (perf report --stats, LOST_SAMPLES): $(lost "$work/$r.data.zst")"
		echo
		echo "| event | samples |"
		echo "|---|---|"
		zstdcat "$work/$r.txt.zst" | awk '$0 !~ /^\t/ { for (i = 1; i <= NF; i++) if ($i ~ /^kmem:mm_page_[a-z_]+:$/) { c[$i]++; break } }
			END { for (e in c) printf "| %s | %d |\n", substr(e, 6, length(e) - 6), c[e] }' | sort
		echo
		rm -f "$work/$r.header"
	done
} > "$work/README"
bytes=$(du -sb "$work" | cut -f1)
[ "$bytes" -le "$MAX_BYTES" ] || die "$bytes bytes, over MAX_BYTES=$MAX_BYTES (was the machine busy?); $out left as it was"
chmod 644 "$work"/*.zst "$work/README"
cd "$here"
mkdir -p "$out"
rm -rf "$out/before"
for f in "$work"/*; do
	mv "$f" "$out/"
done
echo "record.sh: $(du -sh "$out" | cut -f1) in $out" >&2
