#!/bin/sh
# equal-replay.sh SRC - every cell of a sweep equals its own pagesim replay:
# the cell file less its '#' header lines is byte-identical to the output of
# replay in the sweep's mode with the cell's --set values (the baseline: none).
# Two traces, a 2 x 2 product, -j 2; then --policy names (a release, the
# recorded one) with a --set; then follow mode over kernels of three
# profiles on a 6.12 trace, whose pass 1 differs by profile (6.10+ takes
# the fallback's page from the extfrag event; the cells of one profile
# share one pass 1).
# $PAGESIM is the binary.
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PAGESIM" sweep -q -o "$tmp/s" -j 2 --set vm.watermark_scale_factor=25,500 --set vm.zone_reclaim_mode=0,1 \
	"$src/testdata/numa2/numa2-base.pgs" "$src/testdata/numa2/numa2-frag.pgs" > /dev/null
"$PAGESIM" sweep -q -o "$tmp/p" -j 2 --policy 4.4,recorded --set vm.watermark_scale_factor=50 \
	"$src/testdata/numa2/numa2-base.pgs" > /dev/null
"$PAGESIM" sweep -q -o "$tmp/f" -j 2 --mode follow --set kernel=4.4,6.1,6.12 \
	"$src/testdata/reclaim/k612_frag_r1.pgs" > /dev/null
n=0
for d in s p f; do
	mode=simulate
	[ "$d" = f ] && mode=follow
	python3 - "$tmp/$d/manifest.json" > "$tmp/cells" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["cells"]:
    args = " ".join("--set %s=%s" % kv for kv in c["set"].items())
    if c["policy"]:
        args += " --policy " + c["policy"]
    print(c["outputs"][0], m["traces"][c["trace"]]["path"], args)
PY
	while read -r out trace args; do
		# shellcheck disable=SC2086
		"$PAGESIM" replay -q --mode "$mode" $args "$trace" > "$tmp/replay"
		grep -v '^#' "$tmp/$d/$out" > "$tmp/cell"
		cmp "$tmp/cell" "$tmp/replay" || { echo "cell $out differs from replay $args $trace"; exit 1; }
		n=$((n + 1))
	done < "$tmp/cells"
done
echo "equal: $n cells"
