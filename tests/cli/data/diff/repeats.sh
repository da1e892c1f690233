#!/bin/sh
# repeats.sh SRC FORMAT - the bundled repeats (testdata/numa2-repeats, 7 runs at
# vm.watermark_scale_factor 10 and 7 at 200) as two columns: each run's
# numa_miss as pagesim stat counts it, and the kernel's kswapd rows from kernel-vmstat.tsv,
# then pagesim diff --format FORMAT of w10 against w200, labelled (test_stats works both by hand: p 0.171 and 0.00079).
set -eu
src=$1 fmt=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/w10" "$tmp/w200"
for r in a b c d e f g; do
	for w in 10 200; do
		"$PAGESIM" stat -q "$src/testdata/numa2-repeats/w${w}_$r.pgs" | grep '^numa_miss ' > "$tmp/w$w/$r.vmstat"
		awk -v run="w${w}_$r" '$1 == run { print "pageoutrun", $4 }' \
			"$src/testdata/numa2-repeats/kernel-vmstat.tsv" >> "$tmp/w$w/$r.vmstat"
	done
done
cd "$tmp"
"$PAGESIM" diff --format "$fmt" --label wsf=10='w10/*.vmstat' --label wsf=200='w200/*.vmstat'
