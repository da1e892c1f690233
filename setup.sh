#!/bin/sh
# setup.sh - install what is missing, build pagesim, and run what it is for on a bundled
# real trace of a 2-node machine (testdata/numa2/numa2-base.pgs: Debian 6.1 under QEMU,
# 2 nodes x 256 MiB, vm.watermark_scale_factor 10): the trace counted against the kernel's
# own counters, then replayed by the model under the recorded policy and under
# vm.watermark_scale_factor 200, and the two compared.
set -e
cd "$(dirname "$0")"
scripts/install-deps.sh
[ -d build ] || meson setup build --buildtype=release >/dev/null
ninja -C build >/dev/null
P=$PWD/build/pagesim
t=$PWD/testdata/numa2/numa2-base.pgs
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo
echo "== 1. pagesim stat --check: the counters the trace's events give (trace) beside the kernel's own"
echo "==    /proc/vmstat and numastat deltas over the same run (kernel); the bulk allocator's pages have no event"
"$P" stat -q --check "$t"

echo
echo "== 2. pagesim replay --mode simulate, twice: the model places every page the trace asks for,"
echo "==    under the recorded policy (wsf 10) and with --set vm.watermark_scale_factor=200"
"$P" replay -q --mode simulate -o "$out/wsf10.vmstat" "$t"
"$P" replay -q --mode simulate --set vm.watermark_scale_factor=200 -o "$out/wsf200.vmstat" "$t"
echo "wrote wsf10.vmstat and wsf200.vmstat"

echo
echo "== 3. pagesim diff wsf10.vmstat wsf200.vmstat: what the higher watermarks change, in the kernel"
echo "==    test robot's form (NUMA counters, node 0's low watermark, pages kswapd reclaimed per node)"
cd "$out"
"$P" diff wsf10.vmstat wsf200.vmstat |
	grep -E 'wsf10.vmstat +wsf200|%stddev|\\|numa_(hit|miss|local|other)$|pgalloc_(dma32|normal)$|node[01]\.(numa_hit|other_node)$|wmark_low\.node0\.Normal$|kswapd_reclaimed_pages' |
	grep -v replay_invisible

echo
echo "== 4. for comparison, the kernel's own change: the same workload recorded under wsf 10 and 200"
echo "==    (pagesim diff of the two run directories, after - before)"
cd "$(dirname "$t")"
"$P" diff numa2-base numa2-wsf200 | grep -E 'numa2-base +numa2-wsf200|%stddev|\\|^ .* (numa_miss|numa_local|node0\.numa_hit)$'
