#!/usr/bin/env python3
# fallback-zones.py SRC PAGESIM [--independent] TRACE... - where the fallbacks were (TRACE: a
# pagesim file under testdata/).  Simulate mode's trace_fallbacks.node<N>.<zone> rows count the
# trace's mm_page_alloc_extfrag events by their page's zone and add up to stat's count of them; the
# model's model_fallbacks.node<N>.<zone> add up to its extfrag_events.  After --independent, the
# trace's rows must also equal a count made apart from pagesim (independent_pgs.py
# --fallback-zones; it reads the kmem-only event layout).  Prints each run's counts per zone.
import os, subprocess, sys

src, pagesim, args = sys.argv[1], sys.argv[2], sys.argv[3:]
reader = os.path.join(src, "tests", "cli", "data", "stat", "independent_pgs.py")
bad = not args
independent = False


def rows(text):
    return {k: int(v) for k, v in (line.split() for line in text.splitlines() if line and not line.startswith("#"))}


for name in args:
    if name == "--independent":
        independent = True
        continue
    pgs = os.path.join(src, "testdata", name)
    out = rows(subprocess.run([pagesim, "replay", "-q", "--mode", "simulate", pgs], capture_output=True,
                              text=True, check=True).stdout)
    trace = {k[len("trace_fallbacks."):]: v for k, v in out.items() if k.startswith("trace_fallbacks.")}
    model = {k[len("model_fallbacks."):]: v for k, v in out.items() if k.startswith("model_fallbacks.node")}
    stat = rows(subprocess.run([pagesim, "stat", "-q", pgs], capture_output=True, text=True, check=True).stdout)
    ok = bool(trace) and sum(trace.values()) == stat["events_mm_page_alloc_extfrag"] and \
        bool(model) and sum(model.values()) == out["extfrag_events"]
    if independent:
        ind = rows(subprocess.run([sys.executable, reader, pgs, "--fallback-zones"], capture_output=True,
                                  text=True, check=True).stdout)
        want = {k[len("trace_fallbacks."):]: v for k, v in ind.items() if k.startswith("trace_fallbacks.")}
        ok = ok and sum(want.values()) > 0 and all(trace.get(z, 0) == want.get(z, 0) for z in set(trace) | set(want))
    bad |= not ok
    print(f"{'ok' if ok else 'FAIL'}: {os.path.basename(name)}: kernel",
          " ".join(f"{z} {v}" for z, v in sorted(trace.items()) if v),
          "| model", " ".join(f"{z} {v}" for z, v in sorted(model.items()) if v))
sys.exit(1 if bad else 0)
