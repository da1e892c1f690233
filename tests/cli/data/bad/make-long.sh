#!/bin/sh
# make-long.sh OUT [N] - a long trace: N (default 40) copies of testdata/uma-small's text trace
# as one multi-frame zstd stream (9 MiB; replay takes seconds, more under ASan).
set -e
src=$(dirname "$0")/../../../../testdata/uma-small/trace.txt.zst
: > "$1"
i=0
while [ $i -lt "${2:-40}" ]; do cat "$src" >> "$1"; i=$((i + 1)); done
