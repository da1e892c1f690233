#!/bin/sh
# parallel.sh SRC - the same 2 x 2 sweep of two bundled traces as a GNU parallel
# job list (--emit parallel), run with parallel --joblog --resume, then
# --collect: byte-identical to the sweep run here; run again, parallel's
# --resume skips every task.  $PAGESIM is the binary.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces="$src/testdata/numa2/numa2-base.pgs $src/testdata/numa2/numa2-frag.pgs"
axes="--set vm.watermark_scale_factor=10,200 --set vm.zone_reclaim_mode=0,1"
# shellcheck disable=SC2086
"$PAGESIM" sweep -o "$tmp/p" --emit parallel --cells-per-task 2 $axes $traces > "$tmp/emit"
echo "tasks: $(wc -l < "$tmp/p/parallel/jobs.txt")"
parallel --will-cite --joblog "$tmp/p/parallel/joblog" --resume -j 2 -a "$tmp/p/parallel/jobs.txt"
"$PAGESIM" sweep --collect "$tmp/p" > /dev/null
# shellcheck disable=SC2086
"$PAGESIM" sweep -q -o "$tmp/l" -j 2 $axes $traces > /dev/null
for f in manifest.json report.txt $(cd "$tmp/l" && ls cells/*); do
	cmp "$tmp/l/$f" "$tmp/p/$f"
done
echo "identical: $(ls "$tmp/l/cells" | wc -l) cells"
parallel --will-cite --joblog "$tmp/p/parallel/joblog" --resume -j 2 -a "$tmp/p/parallel/jobs.txt"
echo "joblog lines: $(wc -l < "$tmp/p/parallel/joblog")"
