#!/bin/sh
# fragmenting-fallbacks.sh - the fragmentation workload (numa2-frag: ~9,000 fragmenting fallbacks
# on a real 6.1 kernel) replayed in simulate mode under the 4.9, 4.12, 4.13, 5.0 and 6.18 kernel
# profiles: the extfrag rows in mmtests' column form, like a patch-series table.
. "$(dirname "$0")/common.sh"
t=$(trace numa2-frag)
set --
for p in 4.9 4.12 4.13 5.0 6.18; do
	"$PAGESIM" replay -q --mode simulate --policy $p -o "$out/$p.vmstat" "$t"
	set -- "$@" "$p.vmstat"
done
cd "$out"
"$PAGESIM" diff --format columns --all "$@" | grep -E '^ *$|extfrag|model_pageblock_claims|model_watermark_boosts|^ +[^ ]+\.vmstat' | grep -v '^$' || true
