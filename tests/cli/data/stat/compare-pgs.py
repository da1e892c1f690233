#!/usr/bin/env python3
"""compare-pgs.py PAGESIM TRACE.pgs WHAT[+WHAT...] [FILTER OPTIONS...]

pagesim against independent_pgs.py on a pagesim file, with the same filter options
(--comm, --pid, --cpu, --time), for each WHAT:
  totals           pagesim stat's counters, each the independent count has;
  by:KEYS          pagesim stat --by KEYS (JSON): the same groups with the same numbers;
  timeline:DUR     pagesim stat --timeline --interval DUR: every counter the independent
                   count has, in every interval;
  replay-by:KEYS   pagesim replay --mode follow --by KEYS: in follow mode the model's
                   choices are the kernel's, so the groups are the independent count's;
  replay:MODE      pagesim replay --mode MODE: follow: its counters are the independent
                   count's; simulate: its events_* rows are (but extfrag, which the model
                   makes itself), and the model's own rows (model_*: free pages,
                   watermarks, kswapd, ...) are those of the replay without the filters
                   (every event runs through the model).
The independent count runs once for all of them.  Prints what differs and exits 1, or
how much agreed.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

pagesim, trace, whats, *filt = sys.argv[1:]
whats = whats.split("+")
here = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    return r.stdout


extra = []
for w in whats:
    kind, _, arg = w.partition(":")
    if kind in ("by", "replay-by"):
        extra += ["--by", arg]
    elif kind == "timeline":
        extra += ["--interval", arg]
ind = json.loads(run([sys.executable, os.path.join(here, "independent_pgs.py"), trace, *filt, *extra, "--json"]))

# the kernel's composite gfp names (include/linux/gfp_types.h), to read pagesim's labels back
RECLAIM = {"__GFP_DIRECT_RECLAIM", "__GFP_KSWAPD_RECLAIM"}
KERNEL = RECLAIM | {"__GFP_IO", "__GFP_FS"}
USER = KERNEL | {"__GFP_HARDWALL"}
HIGHUSER_MOVABLE = USER | {"__GFP_HIGHMEM", "__GFP_MOVABLE"}
LIGHT = (HIGHUSER_MOVABLE | {"__GFP_COMP", "__GFP_NOMEMALLOC", "__GFP_NOWARN"}) - RECLAIM
COMPOSITE = {
    "GFP_ATOMIC": {"__GFP_HIGH", "__GFP_ATOMIC", "__GFP_KSWAPD_RECLAIM"}, "GFP_KERNEL": KERNEL,
    "GFP_KERNEL_ACCOUNT": KERNEL | {"__GFP_ACCOUNT"}, "GFP_NOWAIT": {"__GFP_KSWAPD_RECLAIM"},
    "GFP_NOIO": RECLAIM, "GFP_NOFS": RECLAIM | {"__GFP_IO"}, "GFP_USER": USER,
    "GFP_HIGHUSER": USER | {"__GFP_HIGHMEM"}, "GFP_HIGHUSER_MOVABLE": HIGHUSER_MOVABLE,
    "GFP_TRANSHUGE_LIGHT": LIGHT, "GFP_TRANSHUGE": LIGHT | {"__GFP_DIRECT_RECLAIM"},
}
VALUES = ("allocs", "alloc_pages", "frees", "free_pages", "failed", "numa_hit", "numa_miss", "numa_local",
          "numa_other")


def gfp_set(label):
    if label == "-":
        return "-"
    s = set()
    for n in label.split("|"):
        s |= COMPOSITE.get(n, {n})
    return sorted(s)


def kv(text):
    return dict(l.split() for l in text.splitlines() if not l.startswith("#"))


fail = 0


def bad(msg):
    global fail
    print("differs:", msg)
    fail = 1


for w in whats:
    kind, _, arg = w.partition(":")
    before = fail
    if kind == "totals":
        mine = kv(run([pagesim, "stat", "-q", *filt, trace]))
        for k, v in ind["counters"].items():
            if mine.get(k) != str(v):
                bad(f"{k} pagesim {mine.get(k)} independent {v}")
        n = f"{len(ind['counters'])} counters"
    elif kind == "replay":
        mine = kv(run([pagesim, "replay", "-q", "--mode", arg, *filt, trace]))
        n = 0
        for k, v in ind["counters"].items():
            if arg == "simulate" and (not k.startswith("events_") or k == "events_mm_page_alloc_extfrag"):
                continue
            if mine.get(k) != str(v):
                bad(f"{k} pagesim {mine.get(k)} independent {v}")
            n += 1
        if arg == "simulate":
            whole = kv(run([pagesim, "replay", "-q", "--mode", arg, trace]))
            for k, v in whole.items():
                if k.startswith("model_"):
                    if mine.get(k) != v:
                        bad(f"{k} with the filters {mine.get(k)}, without {v}")
                    n += 1
        n = f"{n} counters"
    elif kind in ("by", "replay-by"):
        cmd = [pagesim, "stat", "-q", "--format", "json", "--by", arg, *filt, trace]
        if kind == "replay-by":
            cmd = [pagesim, "replay", "-q", "--mode", "follow", "--format", "json", "--by", arg, *filt, trace]
        mine = json.loads(run(cmd))["groups"]
        keys = arg.split(",")
        a = {tuple(json.dumps(gfp_set(g[k]) if k == "gfp" else g[k]) for k in keys): tuple(g[v] for v in VALUES)
             for g in mine}
        b = {tuple(json.dumps(g[k]) for k in keys): tuple(g.get(v, 0) for v in VALUES) for g in ind["groups"][arg]}
        if len(a) != len(mine):
            bad("pagesim prints a group twice")
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                bad(f"{k}: pagesim {a.get(k)} independent {b.get(k)}")
        n = f"{len(a)} groups"
    elif kind == "timeline":
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.csv")
            run([pagesim, "stat", "-q", "--timeline", path, "--interval", arg, *filt, trace])
            rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
        want = {}
        for ik, v in ind["series"][arg].items():
            i, k = ik.split()
            want[(int(i), k)] = v
        names = {k for _, k in want}
        for i, r in enumerate(rows):
            for k in names:
                got = int(r[k]) if k in r else None
                if got != want.get((i, k), 0):
                    bad(f"row {i} {k}: pagesim {got} independent {want.get((i, k), 0)}")
        if max((i for i, _ in want), default=-1) >= len(rows):
            bad("the independent count has intervals beyond pagesim's rows")
        n = f"{len(names) * len(rows)} values in {len(rows)} intervals"
    else:
        sys.exit(f"unknown WHAT {w}")
    if fail == before:
        print(f"{w}: {n} agree")
sys.exit(fail)
