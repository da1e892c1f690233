#!/bin/sh
# watermark-scaling.sh - one real trace of a two-node machine (numa2-base: Debian 6.1, 2 x 256 MiB)
# replayed in simulate mode under the pre-4.6 watermark rule and with vm.watermark_scale_factor
# 10, 100 and 1000: numa_miss, local_node, other_node and kswapd wakeups per node, in the kernel
# test robot's form (base = the pre-4.6 rule).
. "$(dirname "$0")/common.sh"
t=$(trace numa2-base)
"$PAGESIM" replay -q --mode simulate --set watermark.legacy=1 -o "$out/pre-4.6.vmstat" "$t"
for w in 10 100 1000; do
	"$PAGESIM" replay -q --mode simulate --set vm.watermark_scale_factor=$w -o "$out/wsf$w.vmstat" "$t"
done
cd "$out"
"$PAGESIM" diff --all --per-node pre-4.6.vmstat wsf10.vmstat wsf100.vmstat wsf1000.vmstat |
	grep -E '%stddev|\\|numa_miss$|numa_local$|numa_other$|local_node$|other_node$|kswapd_wakeups|wmark_low.node[0-9].Normal$' | grep -v replay_invisible
