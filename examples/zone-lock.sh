#!/bin/sh
# zone-lock.sh - the zone-lock and cache-line model on a real trace with several CPUs busy
# (numa2-base): (1) follow mode under the 3.17 and 4.0 struct zone layouts, at the per-block
# cost the trace itself shows (lock.page_ns=3200, see docs/lock-model.md), in the robot's form;
# (2) simulate mode with per-CPU list batch 16, 31, 63, 127 (high = 6 x batch): zone-lock
# acquisitions against pages held on per-CPU lists, in the column form.
. "$(dirname "$0")/common.sh"
t=$(trace numa2-base)
for l in 3.17 4.0; do
	"$PAGESIM" replay -q --mode follow --layout $l --set lock.page_ns=3200 -o "$out/layout-$l.vmstat" "$t"
done
cd "$out"
"$PAGESIM" diff --all layout-3.17.vmstat layout-4.0.vmstat |
	grep -E '%stddev|\\|^ *[0-9.]+ +[-+0-9.]+% +[0-9.]+ +zone_lock_(acquisitions|contended|wait_ns)$|zone_cacheline_transfers(_refill|_drain)?$'
set --
for b in 16 31 63 127; do
	"$PAGESIM" replay -q --mode simulate --set pcp.batch=$b --set pcp.high=$((b * 6)) -o "batch-$b.vmstat" "$t"
	set -- "$@" "batch-$b.vmstat"
done
"$PAGESIM" diff --format columns --all "$@" |
	grep -E '\.vmstat|^zone_lock_acquisitions |^zone_lock_contended |^zone_lock_wait_ns |^zone_cacheline_transfers |^pcp_pages_held_avg |^model_pcp_refills |^model_pcp_drains '
