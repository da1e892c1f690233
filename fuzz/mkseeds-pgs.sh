#!/bin/bash
# mkseeds-pgs.sh PAGESIM OUTDIR - seeds for fuzz_pgs of the header and STAT
# faults: a small pagesim file (tests/cli/data/bad/lost.txt over
# tests/cli/data/replay/tiny-sysroot), and the same with the header's
# pageblock order 0, 11 and -1 (unknown), and STAT sections of counts past
# 2^48, negative, summing past 2^62, and per-CPU loss lines.
set -eu
P=$1 out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
d=$here/tests/cli/data/pgs/damage.py
mkdir -p "$out"
"$P" convert -q -o "$out/hdr-base.pgs" --sysroot "$here/tests/cli/data/replay/tiny-sysroot" "$here/tests/cli/data/bad/lost.txt"
for n in 0 11 -1; do python3 "$d" "$out/hdr-base.pgs" "$out/hdr-pageblock$n.pgs" pageblock "$n"; done
python3 "$d" "$out/hdr-base.pgs" "$out/stat-big.pgs" stat 'lost_events 281474976710657'
python3 "$d" "$out/hdr-base.pgs" "$out/stat-neg.pgs" stat 'skipped.2 -1\nskip_first.2 x:1: y'
python3 "$d" "$out/hdr-base.pgs" "$out/stat-sum.pgs" stat 'lost_events 281474976710656\nlost_events 281474976710656\ncpu3.lost 281474976710656 5 1 0'
python3 "$d" "$out/hdr-base.pgs" "$out/stat-cpu.pgs" stat 'cpu1.lost 5 3 1 0\ncpu2.lost 0 0 0 2\ntruncated cut here'
