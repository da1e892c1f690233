#!/usr/bin/env python3
"""check-plots.py PAGESIM SRCDIR - pagesim plot's four kinds rendered to SVG, checked.

numa2-base is replayed (simulate) at vm.watermark_scale_factor 10 and 200 with
timelines and state directories, the bundled repeats give a diff with spread; then
each kind is drawn to SVG and the SVG read back (its text and its series: gnuplot's
<g id="gnuplot_plot_N"> groups, each with its legend text, polygons, paths and points):
  counters    the title names the trace, the mode, both policies and the version; the
              axes are labelled; one series per timeline and counter, named in the legend,
              with a step per row; a JSON-lines timeline draws as its CSV;
  watermarks  a panel per zone and timeline, titled so; in each NR_FREE_PAGES and
              WMARK_MIN/LOW/HIGH, and kswapdN awake with a box per run of awake rows
              (the rows the timeline says kswapd was awake in: at the row's end, at the
              row before's end, or woken in it);
  pageblocks  per state directory, a series per migratetype present with a cell per
              pageblock of that type in its pageblocks file, the fallback marks as points,
              the zones on the axis;
  diff        a series per column, a bar per counter drawn (base mean not 0) where its
              mean is not 0, the counters as tic labels.
A PNG is a PNG; wrong inputs are usage errors.  Exit 1 on the first failure.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

P, SRC = sys.argv[1:3]
T = os.path.join(SRC, "testdata/numa2/numa2-base.pgs")
R = os.path.join(SRC, "testdata/numa2-repeats")
SVG = "{http://www.w3.org/2000/svg}"
fails = 0


def check(cond, msg):
    global fails
    if not cond:
        print("FAIL:", msg)
        fails += 1
    return cond


def run(*args, ok=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if ok and r.returncode:
        sys.exit(f"FAIL: {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r


def svg(path):
    root = ET.parse(path).getroot()
    series, inside = [], set()
    for g in root.iter(SVG + "g"):
        if g.get("id", "").startswith("gnuplot_plot"):
            texts = ["".join(t.itertext()) for t in g.iter(SVG + "text")]
            polys = len(list(g.iter(SVG + "polygon")))
            uses = len(list(g.iter(SVG + "use")))
            verts = sum(len(re.findall(r"[ML]", p.get("d", ""))) for p in g.iter(SVG + "path"))
            series.append({"name": texts[0] if texts else "", "polygons": polys, "uses": uses, "vertices": verts})
            inside.update(id(t) for t in g.iter(SVG + "text"))
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text") if id(t) not in inside]
    return series, texts


def rows(path):
    return list(csv.DictReader(l for l in open(path) if not l.startswith("#")))


version = run(P, "--version").stdout.split()[-1]
with tempfile.TemporaryDirectory() as d:
    tl, sd, js = {}, {}, {}
    for w in (10, 200):
        tl[w], sd[w], js[w] = f"{d}/w{w}.csv", f"{d}/sd{w}", f"{d}/w{w}.json"
        run(P, "replay", "-q", "--mode", "simulate", "--set", f"vm.watermark_scale_factor={w}", "--interval", "10ms",
            "--timeline", tl[w], "--state-dir", sd[w], "--format", "json", "-o", js[w], T)
    labels = ["--label", f"wsf 10={tl[10]}", "--label", f"wsf 200={tl[200]}"]

    # counters: two timelines overlaid
    out = f"{d}/counters.svg"
    counters = ["node1.numa_miss", "node0.numa_hit", "pgalloc_normal"]
    run(P, "plot", "-o", out, "--counters", ",".join(counters), *labels, tl[10], tl[200])
    series, texts = svg(out)
    title = " ".join(texts)
    for want in ("counters over time", "numa2-base.pgs", "simulate", f"pagesim {version}",
                 "vm.watermark_scale_factor=10", "vm.watermark_scale_factor=200",
                 "time since the trace's first event (s)", "count per 10 ms interval"):
        check(want in title, f"counters: no text '{want}' (texts: {texts[:8]})")
    names = [s["name"] for s in series]
    want = [f"wsf {w}: {c}" for w in (10, 200) for c in counters]
    check(sorted(names) == sorted(want), f"counters: series {names}, want {want}")
    n = len(rows(tl[10]))
    for s in series:
        check(s["vertices"] >= n, f"counters: {s['name']} has {s['vertices']} vertices for {n} rows")
    # the same from JSON lines
    run(P, "replay", "-q", "--mode", "simulate", "--set", "vm.watermark_scale_factor=10", "--interval", "10ms",
        "--timeline", f"{d}/w10.jsonl", "--timeline-format", "jsonl", T)
    run(P, "plot", "-o", f"{d}/j.svg", "--counters", ",".join(counters), f"{d}/w10.jsonl")
    run(P, "plot", "-o", f"{d}/c.svg", "--counters", ",".join(counters), tl[10])
    check(svg(f"{d}/j.svg")[0] == svg(f"{d}/c.svg")[0], "counters: JSON lines and CSV draw differently")
    # one unit: its name on the axis
    run(P, "plot", "-o", out, "--counters", "node*.numa_miss", tl[10])
    series, texts = svg(out)
    check("allocations per 10 ms interval" in texts, f"counters: no 'allocations per 10 ms interval' in {texts[:8]}")
    check([s["name"] for s in series] == ["node0.numa_miss", "node1.numa_miss"],
          f"counters: a pattern drew {[s['name'] for s in series]}")

    # watermarks: the zones and the two runs side by side
    out = f"{d}/watermarks.svg"
    run(P, "plot", "--kind", "watermarks", "-o", out, *labels, tl[10], tl[200])
    series, texts = svg(out)
    zones = [c[:-5] for c in rows(tl[10])[0] if c.startswith("node") and c.endswith(".free")]
    check(len(zones) == 4, f"watermarks: zones {zones}")
    for z in zones:
        for w in (10, 200):
            check(f"{z}: wsf {w}" in texts, f"watermarks: no panel '{z}: wsf {w}'")
    check("pages (log scale)" in texts, "watermarks: no 'pages (log scale)' axis")
    panels = [series[i:i + 5] for i in range(0, len(series), 5)]
    check(len(panels) == 8, f"watermarks: {len(series)} series, want 8 panels of 5")
    k = 0
    for z in zones:
        for w in (10, 200):
            p = panels[k]
            k += 1
            node = z.split(".")[0][4:]
            check([s["name"] for s in p] == [f"kswapd{node} awake", "NR_FREE_PAGES", "WMARK_MIN", "WMARK_LOW",
                                             "WMARK_HIGH"], f"watermarks: {z} wsf {w}: {[s['name'] for s in p]}")
            # the awake runs, from the timeline
            r = rows(tl[w])
            on = [int(x[f"node{node}.kswapd_awake"]) or (i and int(r[i - 1][f"node{node}.kswapd_awake"])) or
                  int(x[f"node{node}.kswapd_wakeups"]) > 0 for i, x in enumerate(r)]
            runs = sum(1 for i, v in enumerate(on) if v and (i == 0 or not on[i - 1]))
            check(runs > 0, f"watermarks: {z} wsf {w}: kswapd never awake")
            check(p[0]["polygons"] - 1 == runs, f"watermarks: {z} wsf {w}: {p[0]['polygons'] - 1} boxes, {runs} runs")
            for s in p[1:]:
                check(s["vertices"] >= len(r), f"watermarks: {z} wsf {w}: {s['name']} has {s['vertices']} vertices")

    # pageblocks: the two state directories side by side
    out = f"{d}/pageblocks.svg"
    run(P, "plot", "-o", out, "--label", f"wsf 10={sd[10]}", "--label", f"wsf 200={sd[200]}", sd[10], sd[200])
    series, texts = svg(out)
    for want in ("pageblocks by migratetype", "wsf 10 (pageblock order 9)", "wsf 200 (pageblock order 9)",
                 "node0 DMA 0x0", "node0 DMA32 0x1000", "node1 Normal 0x108000"):
        check(any(want in t for t in texts), f"pageblocks: no text '{want}' in {texts[:12]}")
    names = {"U": "Unmovable", "M": "Movable", "E": "Reclaimable", "H": "HighAtomic", "C": "CMA", "I": "Isolate"}
    half = len(series) // 2
    for i, w in enumerate((10, 200)):
        types, falls = "", ""
        for line in open(f"{sd[w]}/pageblocks"):
            p = line.split()
            if len(p) == 3 and p[0] == "types":
                types += p[2]
            elif len(p) == 3 and p[0] == "fallbacks":
                falls += p[2]
        got = {s["name"]: s for s in series[i * half:(i + 1) * half]}
        for letter, name in names.items():
            if letter in types:
                check(name in got and got[name]["polygons"] - 1 == types.count(letter),
                      f"pageblocks wsf {w}: {name}: {got.get(name)}, want {types.count(letter)} cells")
        stole = falls.count("s") + falls.count("b")
        claimed = falls.count("c") + falls.count("b")
        check(claimed > 0, f"pageblocks wsf {w}: no claimed pageblock")
        for name, want in (("fallback stole from", stole), ("fallback claimed (change_ownership)", claimed)):
            if want:
                check(name in got and got[name]["uses"] - 1 == want, f"pageblocks wsf {w}: {name}: {got.get(name)}, want {want}")

    # diff: the model at 10 and 200 beside the kernel's repeats, with their spread
    out = f"{d}/diff.svg"
    for f in sorted(os.listdir(R)):
        if re.match(r"w(10|200)_[a-g]\.pgs$", f):
            run(P, "stat", "-q", "-o", f"{d}/{f[:-4]}.vmstat", os.path.join(R, f))
    r = run(P, "diff", "--format", "json", "--label", f"model 10={js[10]}", "--label", f"model 200={js[200]}",
            "--label", f"kernel 10={d}/w10_*.vmstat", "--label", f"kernel 200={d}/w200_*.vmstat")
    open(f"{d}/diff.json", "w").write(r.stdout)
    diff = json.loads(r.stdout)
    run(P, "plot", "-o", out, f"{d}/diff.json")
    series, texts = svg(out)
    cols = [c["label"] for c in diff["columns"]]
    check([s["name"] for s in series] == cols, f"diff: series {[s['name'] for s in series]}, want {cols}")
    drawn = [c for c in diff["counters"] if c["mean"][0]]
    for k, s in enumerate(series):
        bars = sum(1 for c in drawn if c["mean"][k])   # gnuplot draws no box of height 0
        check(s["polygons"] - 1 == bars, f"diff: {s['name']}: {s['polygons'] - 1} bars, {bars} non-zero means")
    for c in drawn:
        star = " *" if any(c.get("significant") or []) else ""
        check(c["name"] + star in texts, f"diff: no tic label {c['name'] + star}")
    check(f"pagesim {version}" in " ".join(texts) and "numa2-base.pgs" in " ".join(texts), "diff: title")

    # PNG; a kind that does not fit the input; not an input
    png = f"{d}/c.png"
    run(P, "plot", "--format", "png", "-o", png, tl[10])
    check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "png: not a PNG")
    r = run(P, "plot", "--kind", "pageblocks", "-o", f"{d}/x.svg", tl[10], ok=False)
    check(r.returncode == 2 and "--kind pageblocks draws --state-dir directories" in r.stderr, f"kind: {r.stderr}")
    r = run(P, "plot", "-o", f"{d}/x.svg", T, ok=False)
    check(r.returncode == 1 and "neither a timeline" in r.stderr and not os.path.exists(f"{d}/x.svg"),
          f"bad input: {r.returncode} {r.stderr}")
    env = dict(os.environ, PATH="/nonexistent")
    r = subprocess.run([os.path.abspath(P), "plot", "-o", f"{d}/x.svg", tl[10]], capture_output=True, text=True,
                       env=env)
    check(r.returncode == 1 and "gnuplot-nox" in r.stderr and not os.path.exists(f"{d}/x.svg"),
          f"no gnuplot: {r.returncode} {r.stderr}")
print("plots checked" if not fails else f"{fails} failures")
sys.exit(1 if fails else 0)
