#!/bin/sh
# resume.sh SRC - a sweep interrupted (SIGTERM, as Slurm or a Ctrl-C would stop it; a background job of sh ignores SIGINT) and run again runs only the
# missing cells: the ones done keep their files (same inode and time), the
# rest are run, and the result equals an uninterrupted sweep.  Adding a value
# afterwards runs only the new cells.  $PAGESIM is the binary.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$src/testdata/numa2/numa2-base.pgs
axes="--set vm.watermark_scale_factor=10,25,50,100,150,200,500,1000 --set vm.zone_reclaim_mode=0,1"
# shellcheck disable=SC2086
"$PAGESIM" sweep -q -o "$tmp/full" -j 1 $axes "$trace" > /dev/null
total=$(ls "$tmp/full/cells" | wc -l)

# groups of 2 cells, one thread: interrupted once a group is written
# shellcheck disable=SC2086
"$PAGESIM" sweep -q -o "$tmp/s" -j 1 --group-size 2 $axes "$trace" > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(ls "$tmp/s/cells" 2>/dev/null | grep -c '\.vmstat$')" -lt 2 ]; do
	i=$((i + 1))
	[ $i -gt 3000 ] && { echo "no cell was written"; exit 1; }
	sleep 0.01
done
kill -TERM $pid
wait $pid && { echo "the sweep finished before the interrupt: make it longer"; exit 1; }
done_before=$(ls "$tmp/s/cells" | grep -c '\.vmstat$')
ls "$tmp/s/cells" | grep -q 'tmp' && { echo "a temporary file was left"; exit 1; }
[ "$done_before" -lt "$total" ] || { echo "all $total cells were done before the interrupt"; exit 1; }
(cd "$tmp/s/cells" && stat -c '%n %i %Y' *.vmstat) > "$tmp/before"

# shellcheck disable=SC2086
"$PAGESIM" sweep -o "$tmp/s" -j 1 $axes "$trace" > /dev/null 2> "$tmp/err"
grep -q "^pagesim: $done_before of $total cells are done already: running $((total - done_before))$" "$tmp/err" ||
	{ cat "$tmp/err"; exit 1; }
(cd "$tmp/s/cells" && stat -c '%n %i %Y' $(awk '{ print $1 }' "$tmp/before")) | cmp - "$tmp/before" ||
	{ echo "a cell done before the interrupt was run again"; exit 1; }
diff -r "$tmp/full" "$tmp/s" || { echo "the resumed sweep differs from the uninterrupted one"; exit 1; }
echo "resumed: $done_before of $total cells kept, $((total - done_before)) run"

# one more value: only its two cells run
# shellcheck disable=SC2086
"$PAGESIM" sweep -o "$tmp/s" -j 1 --set vm.watermark_scale_factor=10,25,50,100,150,200,500,1000,2000 \
	--set vm.zone_reclaim_mode=0,1 "$trace" > /dev/null 2> "$tmp/err"
grep "cells are done already" "$tmp/err"
