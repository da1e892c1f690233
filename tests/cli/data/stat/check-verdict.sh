#!/bin/bash
# check-verdict.sh SRC - stat --check's verdict on testdata/uma-small (which agrees with its
# kernel), with its after/ snapshot changed as the kernel would have counted:
#   invisible: 3000 more order-0 local allocations (numa_hit, numa_local, pgalloc_normal and
#              node0's numa_hit and local_node, one each per page): the bulk allocator's kind
#   forks:     3000 allocation calls of 4500 pages and 4000 more frees (processes that ran
#              outside the traced window): not that kind
#   pgfree:    5000 more frees
#   lost:      lost.txt's lost events, and the kernel 500 frees ahead
# The verdict and the rows beyond the tolerance are printed.
set -u
SRC=$1
T=$SRC/testdata/uma-small/trace.dat
bump() {	# bump DIR FILE NAME N
	awk -v n="$3" -v d="$4" '$1 == n { $2 += d } { print }' "$1/$2" > "$1/$2.new" && mv "$1/$2.new" "$1/$2"
}
variant() {
	rm -rf after && cp -r "$SRC/testdata/uma-small/after" after
}
show() {
	echo "== $1"
	"$PAGESIM" stat -q --check --after after --sysroot "$2" "$3" | awk '$1 == "verdict:" || ($NF != "ok" && $1 != "#")'
}
numastat=sys/devices/system/node/node0/numastat

variant
show "as recorded" "$SRC/testdata/uma-small/before" "$T"

variant
for c in numa_hit numa_local pgalloc_normal; do bump after proc/vmstat $c 3000; done
for c in numa_hit local_node; do bump after $numastat $c 3000; done
show invisible "$SRC/testdata/uma-small/before" "$T"

variant
for c in numa_hit numa_local; do bump after proc/vmstat $c 3000; done
bump after proc/vmstat pgalloc_normal 4500
bump after proc/vmstat pgfree 4000
for c in numa_hit local_node; do bump after $numastat $c 3000; done
show forks "$SRC/testdata/uma-small/before" "$T"

variant
bump after proc/vmstat pgfree 5000
show pgfree "$SRC/testdata/uma-small/before" "$T"

rm -rf after && cp -r "$SRC/testdata/uma-idle/before" after
bump after proc/vmstat pgfree 500
show lost "$SRC/testdata/uma-idle/before" "$SRC/tests/cli/data/bad/lost.txt"
