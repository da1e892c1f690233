#!/bin/bash
# reclaim-check.sh SRC - on every run of testdata/reclaim: 'pagesim stat --check' counts
# pgsteal_kswapd, pgsteal_direct and zone_reclaim_failed exactly as the kernel's own vmstat
# deltas (the snapshots in the file), and pgscan_kswapd, pgscan_direct, pageoutrun and
# kswapd_low/high_wmark_hit_quickly within --check's tolerance; the verdict is not "differs"
# because of any of them.
set -u
SRC=$1
n=0
for f in "$SRC"/testdata/reclaim/*.pgs; do
	run=$(basename "$f" .pgs)
	"$PAGESIM" stat -q --check "$f" > check || { echo "FAIL: $run: stat --check exited $?"; exit 1; }
	for c in pgsteal_kswapd pgsteal_direct zone_reclaim_failed; do
		read -r trace kernel <<< "$(awk -v c=$c '$1 == c { print $2, $3 }' check)"
		[ -n "$trace" ] || { echo "FAIL: $run: no $c row"; exit 1; }
		[ "$trace" = "$kernel" ] || { echo "FAIL: $run: $c: the trace counts $trace, the kernel $kernel"; exit 1; }
	done
	for c in pgscan_kswapd pgscan_direct pageoutrun kswapd_low_wmark_hit_quickly kswapd_high_wmark_hit_quickly; do
		awk -v c=$c '$1 == c && $NF == "ok" { ok = 1 } END { exit !ok }' check ||
			{ echo "FAIL: $run: $(grep "^$c " check)"; exit 1; }
	done
	grep '^verdict:' check | grep -Eq 'pgsteal|pgscan|pageoutrun|hit_quickly|zone_reclaim' && { echo "FAIL: $run: $(grep '^verdict:' check)"; exit 1; }
	n=$((n + 1))
done
[ "$n" -ge 108 ] || { echo "FAIL: only $n runs in testdata/reclaim"; exit 1; }
echo "$n runs: pgsteal_kswapd, pgsteal_direct and zone_reclaim_failed equal the kernel's, pgscan, pageoutrun and the hit-quickly counts within the tolerance"
