#!/usr/bin/env python3
# reclaim-zones.py SRC PAGESIM - where reclaim takes its pages on the 6.12 runs of testdata/reclaim
# (the multi-generational LRU): summed over the 'mixed' runs, each zone's share of the model's
# reclaim (model_reclaimed_pages.*) against its share of the kernel's (trace_reclaimed_pages.*:
# the page-cache deletions the trace shows inside kswapd or a direct or node reclaim), held
# within 10 points.  The generations' zone order (the class zone first) is what puts node 0's
# Normal zone ahead: replayed as if lru_gen were off (the classic lists and their rules), it gets
# 32% against the kernel's 67%, and DMA32 47% against 20%.
import glob, os, subprocess, sys

src, pagesim = sys.argv[1], sys.argv[2]
model, kernel = {}, {}
runs = sorted(f for f in glob.glob(os.path.join(src, "testdata", "reclaim", "k612_*.pgs")) if "_frag_" not in f)
for f in runs:
    out = subprocess.run([pagesim, "replay", "-q", "--mode", "simulate", f], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        for prefix, d in (("model_reclaimed_pages.", model), ("trace_reclaimed_pages.", kernel)):
            if name.startswith(prefix):
                zone = name[len(prefix):]
                d[zone] = d.get(zone, 0) + int(value)
mt, kt = sum(model.values()), sum(kernel.values())
bad = not runs or not mt or not kt or set(model) != set(kernel)
for zone in sorted(kernel):
    ms, ks = 100.0 * model.get(zone, 0) / max(mt, 1), 100.0 * kernel[zone] / max(kt, 1)
    ok = abs(ms - ks) <= 10.0
    bad |= not ok
    print(f"{'ok' if ok else 'FAIL'}: {zone}: model {ms:.1f}% of {mt}, kernel {ks:.1f}% of {kt}")
print(f"{len(runs)} runs: {'every zone within 10 points' if not bad else 'some zone off'}")
sys.exit(1 if bad else 0)
