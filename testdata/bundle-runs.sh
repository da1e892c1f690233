#!/bin/bash
# bundle-runs.sh RUNS [PAGESIM] - make the bundled forms of six recorded runs in testdata/.
#
# RUNS is a directory of run directories as a recording leaves them: RUNS/<run>/trace.dat,
# trace.txt.zst, before/ and after/ sysroots, info/ (the guest's boot log and scripts).
# PAGESIM is the binary (default: build/pagesim beside this script's parent).
#
# For each run it writes (and replaces, only once complete):
#   <group>/<run>.pgs         pagesim convert --level 19 of trace.dat: all events and both snapshots
#                             (kept when it exists, as its header carries the time it was
#                             written; FORCE=1 converts again)
#   <group>/<run>/before/ after/   the sysroots without what nothing reads (proc/slabinfo,
#                             the per-node meminfo and vmstat files)
#   <group>/<run>/info/       dmesg_boot, init and the workload script of the guest
#   slices/<run>/trace.txt.zst   the run's own text between two timestamps (table below),
#                             with before -> ../../<group>/<run>/before
# and for numa2-frag also slices/numa2-frag/trace.dat: `trace-cmd split` of the same window,
# whose `trace-cmd report` is checked to be those very lines; for numa2-base the kswapd
# threads' mm_page_free lines of the whole text (numa2/numa2-base/kswapd-frees.txt.zst).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUNS=${1:?usage: bundle-runs.sh RUNS [PAGESIM]}
PAGESIM=${2:-$here/../build/pagesim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run group slice-start slice-end (seconds, the text's timestamps; start <= t < end)
RUNLIST="numa2-base numa2 11.25 11.75
numa2-frag numa2 12.36 13.03
numa2-wsf200 numa2 12.5 12.6
numa2-zrm1 numa2 8.25 8.45
numa4-base numa4 6.5 6.65
uma-mixed uma 1026.25 1026.4"

# put $1 in place as $2 (a file or a directory), replacing what was there
install_as() {
	rm -rf "$2.old"
	[ -e "$2" ] && mv "$2" "$2.old"
	mv "$1" "$2"
	rm -rf "$2.old"
}

# the lines of text $1 (zstd) whose timestamp t has $2 <= t < $3, and its "cpus=" header
window() {
	zstd -dc "$1" | awk -v a="$2" -v b="$3" '
		NR == 1 && /^cpus=/ { print; next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break } }
		t >= a && t < b'
}

trim_sysroot() {
	mkdir -p "$2"
	(cd "$1" && find . -type f ! -name slabinfo ! -path '*/node[0-9]*/meminfo' \
		! -path '*/node[0-9]*/vmstat' -print0) |
		(cd "$1" && xargs -0 cp --parents -t "$2")
	chmod -R u+w "$2"
}

echo "$RUNLIST" | while read -r run group a b; do
	src=$RUNS/$run
	[ -f "$src/trace.dat" ] || { echo "bundle-runs: no $src/trace.dat, $run skipped" >&2; continue; }
	mkdir -p "$here/$group" "$here/slices"

	if [ ! -f "$here/$group/$run.pgs" ] || [ "${FORCE:-}" = 1 ]; then
		"$PAGESIM" convert -q --level 19 -o "$here/$group/$run.pgs" "$src/trace.dat"
	fi

	d=$tmp/$run
	trim_sysroot "$src/before" "$d/before"
	trim_sysroot "$src/after" "$d/after"
	mkdir -p "$d/info"
	for f in "$src"/info/dmesg_boot "$src"/info/init "$src"/info/work_*.sh; do
		[ -f "$f" ] && cp "$f" "$d/info/"
	done
	rmdir "$d/info" 2> /dev/null || true
	if [ "$run" = numa2-base ]; then
		zstd -dc "$src/trace.txt.zst" | grep 'kswapd[0-9]*-[0-9]* .*mm_page_free:' |
			zstd -q -19 -o "$d/kswapd-frees.txt.zst"
	fi
	chmod -R u+w,a+rX "$d"
	install_as "$d" "$here/$group/$run"

	s=$tmp/slice-$run
	mkdir -p "$s"
	window "$src/trace.txt.zst" "$a" "$b" > "$s/trace.txt"
	if [ "$run" = numa2-frag ]; then
		trace-cmd split -i "$src/trace.dat" -o "$tmp/split.dat" "$a" "$b" > /dev/null 2>&1
		mv "$tmp/split.dat.1" "$s/trace.dat"
		trace-cmd report -i "$s/trace.dat" 2> /dev/null | cmp -s - "$s/trace.txt" ||
			{ echo "bundle-runs: the report of the split trace.dat is not the text window" >&2; exit 1; }
	fi
	zstd -q -19 --rm -o "$s/trace.txt.zst" "$s/trace.txt"
	ln -s "../../$group/$run/before" "$s/before"
	install_as "$s" "$here/slices/$run"
	echo "$run: $group/$run.pgs, $group/$run/, slices/$run/ ($(zstd -dc "$here/slices/$run/trace.txt.zst" | wc -l) lines)"
done
