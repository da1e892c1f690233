#!/bin/sh
# equal-replay.sh SRC - every cell of a sweep equals its own pagesim replay:
# the cell file less its '#' header lines is byte-identical to the output of
# replay --mode simulate with the cell's --set values (the baseline: none).
# Two traces, a 2 x 2 product, -j 2.  $PAGESIM is the binary.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PAGESIM" sweep -q -o "$tmp/s" -j 2 --set vm.watermark_scale_factor=25,500 --set vm.zone_reclaim_mode=0,1 \
	"$src/testdata/numa2/numa2-base.pgs" "$src/testdata/numa2/numa2-frag.pgs" > /dev/null
python3 - "$tmp/s/manifest.json" > "$tmp/cells" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["cells"]:
    sets = " ".join("--set %s=%s" % kv for kv in c["set"].items())
    print(c["outputs"][0], m["traces"][c["trace"]]["path"], sets)
PY
n=0
while read -r out trace sets; do
	# shellcheck disable=SC2086
	"$PAGESIM" replay -q --mode simulate $sets "$trace" > "$tmp/replay"
	grep -v '^#' "$tmp/s/$out" > "$tmp/cell"
	cmp "$tmp/cell" "$tmp/replay" || { echo "cell $out differs from replay $sets $trace"; exit 1; }
	n=$((n + 1))
done < "$tmp/cells"
echo "equal: $n cells"
