#!/bin/bash
# ensemble-formats.sh TMP SRC - an ensemble's perturbations do not depend on
# how the reader batches events: a trace as ftrace text (read an event at a
# time) and the same converted to a pagesim file (read 256 at a time) give
# the same means and deviations.
set -u
T=$1 S=$2 P=$PAGESIM
txt=$S/testdata/slices/numa2-wsf200/trace.txt.zst
$P convert -q -o "$T/s.pgs" "$txt" || { echo "FAIL: convert"; exit 1; }
$P replay --mode simulate --ensemble 4 "$txt" > "$T/a" || { echo "FAIL: replay of the text"; exit 1; }
$P replay --mode simulate --ensemble 4 "$T/s.pgs" > "$T/b" || { echo "FAIL: replay of the file"; exit 1; }
sed -i "s#$txt#TRACE#" "$T/a"
sed -i "s#$T/s.pgs#TRACE#" "$T/b"
cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b" | head; echo "FAIL: the ensembles differ"; exit 1; }
echo "ok: same ensemble"
