#!/bin/bash
# mkseeds-sysroot.sh OUTDIR - seeds for fuzz_sysroot: the sysroots of
# tests/cli/data/replay (two nodes) and testdata/uma-idle/before (one
# node), and the two-node one with each of the faults of
# tests/cli/data/sysroot/variants.sh, packed as "@@ PATH" sections.
set -eu
out=$1
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
pack() {	# DIR NAME
	(cd "$1" && find proc sys -type f 2>/dev/null | sort | while read -r f; do
		case $f in proc/vmstat | proc/slabinfo | proc/meminfo | */numastat | */meminfo | */vmstat) continue ;; esac
		printf '@@ %s\n' "$f"; cat "$f"; done) > "$out/$2"
}
pack "$here/tests/cli/data/replay/nofrag2-sysroot" nofrag2
pack "$here/tests/cli/data/replay/tiny-sysroot" tiny
pack "$here/testdata/uma-idle/before" uma-idle
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PAGESIM=true bash "$here/tests/cli/data/sysroot/variants.sh" "$tmp" "$here" > /dev/null 2>&1 || true
for d in "$tmp"/*/; do
	[ -f "$d/proc/zoneinfo" ] || continue
	pack "$d" "nofrag2-$(basename "$d")"
done
