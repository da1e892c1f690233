#!/bin/bash
# variants.sh TMP SRC - sysroots with one impossible or odd value each, made
# from tests/cli/data/replay/nofrag2-sysroot (2 nodes, CPUs 0 and 1), each
# read by 'pagesim stat' (timeout 10 s: a fifo must not block) over a
# one-event trace.  Prints "NAME: exit N" per variant; pagesim's messages
# go to stderr.
set -u
TMP=$1 SRC=$2
BASE=$SRC/tests/cli/data/replay/nofrag2-sysroot
N=sys/devices/system/node
printf ' t-1 [000] ..... 10.000000: mm_page_alloc: pfn=1048576 order=0 migratetype=1 gfp_flags=GFP_KERNEL\n' > "$TMP/one.txt"
pagetypeinfo() {	# COUNT PB: one line of free counts, COUNT blocks of order 0
	printf 'Page block order: %s\nPages per block:  512\n\n' "$2"
	printf 'Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10\n'
	printf 'Node    0, zone   Normal, type      Movable %s 0 0 0 0 0 0 0 0 0 0\n' "$1"
}
variant() {	# NAME: the commands after it change $TMP/NAME
	local name=$1
	shift
	rm -rf "${TMP:?}/$name"
	cp -r "$BASE" "$TMP/$name"
	(cd "$TMP/$name" && eval "$*")
	timeout 10 "$PAGESIM" stat --sysroot "$TMP/$name" "$TMP/one.txt" > /dev/null
	echo "$name: exit $?."
}
variant dist-past-32-bits "echo '10 4294967316' > $N/node0/distance"
variant dist-negative "echo '10 -20' > $N/node0/distance"
variant dist-self "echo '11 20' > $N/node0/distance"
variant dist-extra "echo '10 20 30' > $N/node0/distance"
variant dist-asymmetric "echo '30 10' > $N/node1/distance"
variant cpu-two-nodes "echo 0-1 > $N/node1/cpulist"
variant cpu-2048 "echo 0-2047 > $N/node0/cpulist"
variant wmark-inverted "sed -i '0,/min      4/s//min      60000/; 0,/low      6/s//low      468/; 0,/high     8/s//high     3/' proc/zoneinfo"
variant managed-above-present "sed -i '0,/managed  4096/s//managed  5000/' proc/zoneinfo"
variant wmark-above-zone "sed -i 's/min      4$/min      4000/; s/low      6$/low      5000/; s/high     8$/high     6000/' proc/zoneinfo"
variant ptinfo-2-63 "pagetypeinfo 9223372036854775808 9 > proc/pagetypeinfo"
variant ptinfo-2-64 "pagetypeinfo 18446744073709551616 9 > proc/pagetypeinfo"
variant ptinfo-order-20 "pagetypeinfo 1 20 > proc/pagetypeinfo"
variant ptinfo-order-0 "pagetypeinfo 1 0 > proc/pagetypeinfo"
variant pcp-past-zone "sed -i '0,/protection: (0, 0, 0, 0, 0)/s//protection: (0, 0, 0, 0, 0)\\n  pagesets\\n    cpu: 0\\n              count: 99999\\n              high:  10\\n              batch: 1/' proc/zoneinfo"
variant buddy-past-zone "sed -i '2s/ 7 / 70 /' proc/buddyinfo"
variant fifo-zoneinfo "rm proc/zoneinfo && mkfifo proc/zoneinfo"
variant fifo-cpulist "rm $N/node1/cpulist && mkfifo $N/node1/cpulist"
variant dir-osrelease "rm proc/sys/kernel/osrelease && mkdir proc/sys/kernel/osrelease"
