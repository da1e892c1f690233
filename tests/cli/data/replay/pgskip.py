#!/usr/bin/env python3
# pgskip.py SRC PAGESIM RUN... - pages reclaim passed over for a zone above its class zone, on real
# runs of testdata/reclaim: replay's trace_lru_skipped_pages (mm_vmscan_lru_isolate's nr_skipped,
# summed) equals the kernel's own pgskip_* rows, after - before, of the snapshots the file carries
# (read apart from pagesim, by independent_pgs.py); the model's model_pgskip_<zone> rows are there,
# one per zone type of the machine, and count within what its reclaim scanned.
import os, subprocess, sys

src, pagesim, names = sys.argv[1], sys.argv[2], sys.argv[3:]
reader = os.path.join(src, "tests", "cli", "data", "stat", "independent_pgs.py")
bad = not names


def skips(pgs, which):
    out = subprocess.run([sys.executable, reader, pgs, "--blob", which + "/proc/vmstat"], capture_output=True,
                         text=True, check=True).stdout
    return sum(int(v) for k, v in (line.split() for line in out.splitlines()) if k.startswith("pgskip_"))


for name in names:
    pgs = os.path.join(src, "testdata", "reclaim", name + ".pgs")
    out = subprocess.run([pagesim, "replay", "-q", "--mode", "simulate", pgs], capture_output=True, text=True,
                         check=True).stdout
    rows = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    kernel = skips(pgs, "after") - skips(pgs, "before")
    traced = int(rows.get("trace_lru_skipped_pages", -1))
    model = {k: int(v) for k, v in rows.items() if k.startswith("model_pgskip_")}
    scanned = int(rows["pgscan_kswapd"]) + int(rows["pgscan_direct"])
    ok = traced == kernel and {"model_pgskip_dma32", "model_pgskip_normal"} <= set(model) and \
        sum(model.values()) <= scanned
    bad |= not ok
    print(f"{'ok' if ok else 'FAIL'}: {name}: kernel pgskip {kernel}, trace {traced}, "
          f"model {sum(model.values())} of {scanned} scanned")
sys.exit(1 if bad else 0)
