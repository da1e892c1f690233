#!/usr/bin/env python3
"""Measures pagesim against the kernel on recorded runs and prints docs/fidelity.md's tables.

    scripts/fidelity.py [--build build] [--runs DIR] [--section NAME]... [--set KEY=VALUE]... [--markdown]

The runs are the ones bundled in testdata/: the pagesim files testdata/{numa2,numa4,uma}/RUN.pgs,
whose run directories beside them (RUN/before, RUN/after) give the kernel's own deltas, and the
run directories testdata/uma-small and uma-idle (trace.dat); --runs DIR adds the run directories
DIR/RUN holding trace.dat, before/ and after/ (a run of the same name as a bundled one is left out:
the bundled file replays byte for byte as its trace.dat).

Sections: stat (trace vs the kernel's own vmstat/numastat deltas), follow (fidelity
defects, reconciliation with the kernel), pcp (follow-mode pcp refills/drains vs the trace's
sections), sim-numa (simulate mode per-node numastat vs the kernel, and the model's kswapd against
the kernel's), extfrag (simulate-mode extfrag vs the trace, per profile), wsf (a policy change
predicted from one run vs the kernel's change between two runs), endfree (each zone's free pages
at the end, follow and simulate mode against the kernel's after/ zoneinfo), reclaim (testdata/reclaim:
simulate mode under each run's recorded policy, placement and reclaim against the kernel),
reclaim-groups (the same per group of three repeats: means, the kernel's spread over the repeats and
the model's over --ensemble 8), reclaim-zones (the pages reclaim took and the fallbacks per zone, the
kernel's and the model's, means per group), reclaim-predict (a policy change predicted from each group's runs
against the kernel's change between the groups' means): the default set.
Not in the default set: sensitivity (simulate-mode numa_miss across kswapd's reclaim speed),
wsf-sweep (numa_miss from both wsf recordings across vm.watermark_scale_factor 10..200), repeats
(simulate mode on testdata/numa2-repeats, the workload recorded again at several wsf values, and
the wsf 10 <-> 200 prediction against the kernel's means), wake-latency (numa_miss across
kswapd.wake_latency_us on the 2-node runs and the repeats), reclaim-modes (per 2-node setup of
testdata/reclaim, the runs, single replays and ensemble members whose numa_miss falls under two
thirds of the kernel's median), lock (docs/lock-model.md's tables:
lockstat's sections and cache-line transfers per layout, simulate mode across pcp.batch).  --markdown
puts a heading and the command before each section's tables.  --set KEY=VALUE gives every replay
that --set (a model switch such as pcp.snapshot_lists=1: the tables as they would be with it on).
Every number comes from running pagesim.
"""
import argparse, concurrent.futures, glob, os, re, statistics, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(here, "..", "build"))
ap.add_argument("--runs", help="a directory of extra run directories (RUN/trace.dat, before/, after/)")
ap.add_argument("--testdata", default=os.path.join(here, "..", "testdata"))
ap.add_argument("--section", action="append")
ap.add_argument("--markdown", action="store_true")
ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="given to every replay")
a = ap.parse_args()
PS = os.path.join(a.build, "pagesim")
SETS = [x for kv_ in a.set for x in ("--set", kv_)]

def run(*args, timeout=None):
    """pagesim's output; with timeout, None when it has not finished by then."""
    if args and args[0] == "replay":
        args = (args[0], *SETS, *args[1:])
    try:
        out = subprocess.run([PS, *args], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode:
        sys.exit(f"pagesim {' '.join(args)} failed: {out.stderr}")
    return out.stdout

def kv(text):
    d = {}
    for line in text.splitlines():
        p = line.split()
        if len(p) == 2 and not line.startswith("#"):
            try:
                d[p[0]] = int(p[1])
            except ValueError:
                pass
    return d

_replay_cache = {}
def replayed(*args):
    """kv() of `pagesim replay -q ARGS`: each distinct command runs once (the replays are deterministic)."""
    if args not in _replay_cache:
        _replay_cache[args] = kv(run("replay", "-q", *args))
    return _replay_cache[args]

def replayed_all(cmds):
    """replayed() of each argument tuple of @cmds, on as many processes as there are CPUs."""
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        list(ex.map(lambda args: replayed(*args), dict.fromkeys(cmds)))

def kernel_delta(run_dir):
    d = {}
    for part in ("before", "after"):
        root = os.path.join(run_dir, part)
        vals = kv(open(os.path.join(root, "proc/vmstat")).read())
        nd = os.path.join(root, "sys/devices/system/node")
        for n in sorted(os.listdir(nd)) if os.path.isdir(nd) else []:
            f = os.path.join(nd, n, "numastat")
            if os.path.exists(f):
                for k, v in kv(open(f).read()).items():
                    vals[f"{n}.{k}"] = v
        for k, v in vals.items():
            d[k] = d.get(k, 0) + (v if part == "after" else -v)
    return d

def pct(x, ref):
    return "n/a" if ref == 0 else f"{100.0 * (x - ref) / ref:+.1f}%"

# recorded: the multi-run set (name -> trace, run directory); own: this machine's short runs
TRACE, RUNDIR = {}, {}
def add_run(name, trace, rundir):
    if name not in TRACE and all(os.path.isdir(os.path.join(rundir, p)) for p in ("before", "after")):
        TRACE[name], RUNDIR[name] = trace, rundir
for pgs in sorted(glob.glob(os.path.join(a.testdata, "*", "*.pgs"))):
    name = os.path.basename(pgs)[:-4]
    if os.path.basename(os.path.dirname(pgs)) != "numa2-repeats":
        add_run(name, pgs, os.path.join(os.path.dirname(pgs), name))
for t in sorted(os.listdir(a.runs)) if a.runs else []:
    if os.path.exists(os.path.join(a.runs, t, "trace.dat")):
        add_run(t, os.path.join(a.runs, t, "trace.dat"), os.path.join(a.runs, t))
recorded = sorted(TRACE)
own = sorted(t for t in os.listdir(a.testdata) if os.path.exists(os.path.join(a.testdata, t, "trace.dat")))
for t in own:
    TRACE[t], RUNDIR[t] = os.path.join(a.testdata, t, "trace.dat"), os.path.join(a.testdata, t)
def tpath(t):
    return RUNDIR[t]
def trace(t):
    return TRACE[t]

TITLES = {
    "stat": "Trace against the kernel", "follow": "Follow mode: fidelity",
    "pcp": "Follow mode: per-CPU lists", "sim-numa": "Simulate mode: NUMA placement under the recorded policy",
    "extfrag": "Simulate mode: fragmentation, per profile", "wsf": "Simulate mode: predicting a watermark change",
    "wsf-sweep": "Simulate mode: across vm.watermark_scale_factor",
    "repeats": "The kernel's own spread: the workload recorded again",
    "wake-latency": "Simulate mode: kswapd's wake latency", "sensitivity": "Simulate mode: kswapd's reclaim speed",
    "endfree": "Free pages at the end of the run",
    "lock": "The zone lock: pagesim lockstat and the pcp.batch sweep",
    "reclaim-follow": "Reclaim runs: follow mode",
    "reclaim": "Reclaim runs: simulate mode under the recorded policy",
    "reclaim-groups": "Reclaim runs: means and spread over the repeats",
    "reclaim-modes": "Reclaim runs: two outcomes of one setup",
    "reclaim-zones": "Reclaim runs: where reclaim takes its pages",
    "reclaim-predict": "Reclaim runs: predicting a policy change",
    "reclaim-drift": "Reclaim runs: what the model leaves out by default",
}
def want(name):
    """Whether section NAME runs; with --markdown, print its heading and command first."""
    if name not in sections:
        return False
    if a.markdown:
        sets = "".join(f" --set {x}" for x in a.set)
        print(f"## {TITLES[name]}\n\n`scripts/fidelity.py --section {name}{sets}`\n")
    return True
sections = a.section or ["stat", "follow", "pcp", "sim-numa", "extfrag", "wsf", "endfree",
                         "reclaim-follow", "reclaim", "reclaim-groups", "reclaim-zones", "reclaim-predict",
                         "reclaim-drift"]

def zoneinfo_free(path):
    """{"node0.Normal": pages free} of a /proc/zoneinfo, populated zones only."""
    d, zone = {}, None
    for line in open(path):
        p = line.split()
        if line.startswith("Node"):
            zone = f"node{p[1].rstrip(',')}.{p[3]}"
        elif zone and len(p) == 3 and p[0] == "pages" and p[1] == "free":
            if int(p[2]) or zone.endswith(("DMA", "DMA32", "Normal")):
                d[zone] = int(p[2])
    return d

if want("stat"):
    rows = ["numa_hit", "numa_miss", "numa_foreign", "numa_local", "numa_other", "pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgfree"]
    print("| run | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for t in recorded + own:
        s = kv(run("stat", "-q", trace(t)))
        k = kernel_delta(tpath(t))
        cells = [f"{s[r]} / {k.get(r, 0)} ({pct(s[r], k.get(r, 0))})" for r in rows]
        print(f"| {t} | " + " | ".join(cells) + " |")
    print()

if want("follow"):
    print("| run | events | defects | defects % | invisible pages | isolated pages | pcp resyncs | numa_hit trace+invisible / kernel | pgalloc (all zones) trace+invisible / kernel |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in recorded + own:
        f = replayed("--mode", "follow", trace(t))
        ff = replayed("--mode", "follow", "--fold-invisible", trace(t))
        k = kernel_delta(tpath(t))
        ev = sum(v for n, v in f.items() if n.startswith("events_mm_"))
        pa = sum(ff[z] for z in ("pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_movable"))
        pk = sum(k.get(z, 0) for z in ("pgalloc_dma", "pgalloc_dma32", "pgalloc_normal", "pgalloc_movable"))
        print(f"| {t} | {ev} | {f['replay_defects']} | {100.0 * f['replay_defects'] / ev:.4f}% | {f['replay_invisible_alloc_pages']} | "
              f"{f['replay_untraced_isolated_pages']} | {f['replay_pcp_resyncs']} | {ff['numa_hit']} / {k.get('numa_hit', 0)} ({pct(ff['numa_hit'], k.get('numa_hit', 0))}) | "
              f"{pa} / {pk} ({pct(pa, pk)}) |")
    print()

def kernel_from_check(path):
    # the kernel's own deltas, stored in a pagesim file: column 3 of `stat --check`
    d = {}
    for line in run("stat", "-q", "--check", path).splitlines():
        p = line.split()
        if len(p) >= 3 and not line.startswith("#"):
            try:
                d[p[0]] = int(p[2])
            except ValueError:
                pass
    return d

REPEATS = os.path.join(a.testdata, "numa2-repeats")

def repeats():
    # testdata/numa2-repeats: (run name, pagesim file), by name
    return [(x[:-4], os.path.join(REPEATS, x)) for x in sorted(os.listdir(REPEATS)) if x.endswith(".pgs")] \
        if os.path.isdir(REPEATS) else []

def both_within_5(m, k):
    return all(abs(m[c] - k[c]) <= 0.05 * k[c] for c in ("numa_miss", "node0.numa_hit"))

if want("pcp"):
    print("| run | refills: model / trace | drains: model / trace |")
    print("|---|---|---|")
    for t, src in [(t, trace(t)) for t in recorded + own] + repeats():
        f = replayed("--mode", "follow", src)
        print(f"| {t} | {f['model_pcp_refills']} / {f['trace_pcp_refill_sections']} ({pct(f['model_pcp_refills'], f['trace_pcp_refill_sections'])}) | "
              f"{f['model_pcp_drains']} / {f['trace_pcp_drain_sections']} ({pct(f['model_pcp_drains'], f['trace_pcp_drain_sections'])}) |")
    print()

if want("sim-numa"):
    print("| run | counter | kernel | simulate | diff | --untraced-use | diff |")
    print("|---|---|---|---|---|---|---|")
    kswapd_rows = []
    for t in [t for t in recorded if t.startswith("numa")]:
        s = replayed("--mode", "simulate", trace(t))
        u = replayed("--mode", "simulate", "--untraced-use", trace(t))
        k = kernel_delta(tpath(t))
        for n in sorted({x.split(".")[0] for x in s if x.startswith("node")}):
            for c in ("numa_hit", "numa_miss", "numa_foreign", "local_node", "other_node"):
                name = f"{n}.{c}"
                if name in k and (k[name] or s[name]):
                    print(f"| {t} | {name} | {k[name]} | {s[name]} | {pct(s[name], k[name])} | "
                          f"{u[name]} | {pct(u[name], k[name])} |")
        kswapd_rows.append((t, k, s, u))
    print()
    # the node counters the model places on the 2-node runs: node 0's hits, the spill to node 1
    # and node 1's own hits; the worst of them, by default and with --untraced-use
    placed = ("node0.numa_hit", "node1.numa_miss", "node1.numa_hit")
    def worst(m, k):
        return max(placed, key=lambda c: abs(m[c] - k[c]) / k[c])
    print("| run | default | worst row | `--untraced-use` | worst row |")
    print("|---|---|---|---|---|")
    for t, k, s, u in kswapd_rows:
        if t.startswith("numa2"):
            cells = []
            for m in (s, u):
                w = worst(m, k)
                cells += ["within 5%" if abs(m[w] - k[w]) <= 0.05 * k[w] else "**not**", f"{w} {pct(m[w], k[w])}"]
            print(f"| {t} | " + " | ".join(cells) + " |")
    print()
    print("| run | kernel pgsteal_kswapd | model | kernel pgsteal_direct | model | kernel pageoutrun | model | kernel low/high hit quickly | model |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t, k, s, u in kswapd_rows:
        nodes = sorted({x.split(".")[1] for x in s if x.startswith("model_pageoutrun.")})
        tot = lambda pre: sum(s[f"{pre}.{n}"] for n in nodes)
        print(f"| {t} | {k.get('pgsteal_kswapd', 'n/a')} | {s['pgsteal_kswapd']} | {k.get('pgsteal_direct', 'n/a')} | {s['pgsteal_direct']} | "
              f"{k.get('pageoutrun', 'n/a')} | {tot('model_pageoutrun')} | {k.get('kswapd_low_wmark_hit_quickly', 'n/a')}/{k.get('kswapd_high_wmark_hit_quickly', 'n/a')} | "
              f"{tot('model_kswapd_low_wmark_hit_quickly')}/{tot('model_kswapd_high_wmark_hit_quickly')} |")
    print()

if want("extfrag"):
    rows = ["extfrag_events", "extfrag_fragmenting", "extfrag_fragmenting_unmovable", "extfrag_fragmenting_reclaimable", "extfrag_fragmenting_movable", "extfrag_change_ownership"]
    for t in [t for t in recorded]:
        tr = kv(run("stat", "-q", trace(t)))
        if tr["extfrag_events"] < 100:
            continue
        print(f"{t}: the kernel's own extfrag rows (trace) and simulate mode under each profile\n")
        profiles = ["own", "4.0", "4.4", "4.9", "4.12", "4.13", "5.0", "5.10", "6.10", "6.18"]
        res = {}
        for p in profiles:
            args = ["replay", "-q", "--mode", "simulate"] + ([] if p == "own" else ["--policy", p]) + [trace(t)]
            res[p] = kv(run(*args))
        print("| row | trace | " + " | ".join(("sim " + p) for p in profiles) + " |")
        print("|---|---|" + "---|" * len(profiles))
        for r in rows:
            print(f"| {r} | {tr[r]} | " + " | ".join(f"{res[p][r]}" for p in profiles) + " |")
        print()

if want("wsf"):
    pairs = [("numa2-base", "numa2-wsf200", 200), ("numa2-wsf200", "numa2-base", 10)]
    print("| prediction | counter | kernel: recorded run | kernel: other run | kernel change | model: recorded policy | model: other policy | model change |")
    print("|---|---|---|---|---|---|---|---|")
    for rec, other, wsf in pairs:
        if rec not in recorded or other not in recorded:
            continue
        k1, k2 = kernel_delta(tpath(rec)), kernel_delta(tpath(other))
        m1 = replayed("--mode", "simulate", trace(rec))
        m2 = replayed("--mode", "simulate", "--set", f"vm.watermark_scale_factor={wsf}", trace(rec))
        for c in ("numa_miss", "numa_local", "node0.local_node", "node1.other_node"):
            print(f"| {rec} replayed with wsf {wsf} | {c} | {k1[c]} | {k2[c]} | {pct(k2[c], k1[c])} | {m1[c]} | {m2[c]} | {pct(m2[c], m1[c])} |")
    print()

if want("wsf-sweep"):
    # numa_miss predicted from each 2-node wsf recording across vm.watermark_scale_factor
    ws = [10, 25, 50, 100, 150, 200]
    runs = [t for t in ("numa2-base", "numa2-wsf200") if t in recorded]
    print("| trace (recorded wsf) | kernel numa_miss | " + " | ".join(f"wsf {w}" for w in ws) + " |")
    print("|---|---|" + "---|" * len(ws))
    for t in runs:
        k = kernel_delta(tpath(t))["numa_miss"]
        m = [replayed("--mode", "simulate", "--set", f"vm.watermark_scale_factor={w}",
                      trace(t)) for w in ws]
        print(f"| {t} | {k} | " + " | ".join(f"{v['numa_miss']} ({v['model_kswapd_awake_ms.node0']} ms, "
                                             f"{v['model_kswapd_reclaimed_pages.node0']})" for v in m) + " |")
    print()

if want("repeats"):
    # testdata/numa2-repeats: the same workload recorded again at several wsf values
    tsv = {}
    for line in open(os.path.join(REPEATS, "kernel-vmstat.tsv")).read().splitlines()[1:]:
        f = line.split("\t")
        tsv[f[0]] = {"wsf": int(f[1]), "pgsteal_kswapd": int(f[2])}
    runs = []   # (name, wsf, trace path, kernel deltas, kernel pgsteal_kswapd)
    for t, w in (("numa2-base", 10), ("numa2-wsf200", 200)):
        if t in recorded:
            k = kernel_delta(tpath(t))
            runs.append((t, w, trace(t), k, k["pgsteal_kswapd"]))
    for name, path in repeats():
        runs.append((name, tsv[name]["wsf"], path, kernel_from_check(path), tsv[name]["pgsteal_kswapd"]))
    runs.sort(key=lambda r: (r[1], r[0]))
    print("| run | wsf | kernel numa_miss | kernel pgsteal_kswapd | simulate numa_miss | diff | kernel node0 numa_hit | simulate | diff | model kswapd0 awake ms, pages |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    within = 0
    for name, w, path, k, steal in runs:
        m = replayed("--mode", "simulate", path)
        within += both_within_5(m, k)
        print(f"| {name} | {w} | {k['numa_miss']} | {steal} | {m['numa_miss']} | {pct(m['numa_miss'], k['numa_miss'])} | "
              f"{k['node0.numa_hit']} | {m['node0.numa_hit']} | {pct(m['node0.numa_hit'], k['node0.numa_hit'])} | "
              f"{m['model_kswapd_awake_ms.node0']}, {m['model_kswapd_reclaimed_pages.node0']} |")
    print(f"\n{within} of {len(runs)} runs with both within 5%\n")
    # the wsf 10 <-> 200 prediction from every run at either value, against the kernel's means
    print("| recorded at | runs | kernel mean numa_miss, recorded | kernel mean, other | kernel change | model mean, recorded policy | model mean, other policy | model change |")
    print("|---|---|---|---|---|---|---|---|")
    kmean = {w: sum(r[3]["numa_miss"] for r in runs if r[1] == w) / max(1, sum(1 for r in runs if r[1] == w)) for w in (10, 200)}
    for w, other in ((10, 200), (200, 10)):
        group = [r for r in runs if r[1] == w]
        if not group:
            continue
        own = [replayed("--mode", "simulate", r[2])["numa_miss"] for r in group]
        oth = [replayed("--mode", "simulate", "--set", f"vm.watermark_scale_factor={other}", r[2])["numa_miss"] for r in group]
        mo, mt = sum(own) / len(own), sum(oth) / len(oth)
        print(f"| wsf {w} | {', '.join(r[0] for r in group)} | {kmean[w]:.0f} | {kmean[other]:.0f} | {pct(kmean[other], kmean[w])} | "
              f"{mo:.0f} | {mt:.0f} | {pct(mt, mo)} |")
    print()

_wl_cache = {}
def wl_miss(path, lat, *extra):
    """numa_miss at kswapd.wake_latency_us=lat, None for a replay that has not ended after 60 s."""
    key = (path, lat, extra)
    if key not in _wl_cache:
        out = run("replay", "-q", "--mode", "simulate", *extra, "--set", f"kswapd.wake_latency_us={lat}", path, timeout=60)
        _wl_cache[key] = None if out is None else kv(out)["numa_miss"]
    return _wl_cache[key]

if want("wake-latency"):
    # kswapd.wake_latency_us: how long after a wake kswapd's run starts (wakes in between merge);
    # simulate-mode numa_miss against the kernel's, on the recorded 2-node runs and the repeats
    lats = [0, 500, 1000, 2000, 4000]
    srcs = [(t, trace(t), kernel_delta(tpath(t))) for t in recorded if t.startswith("numa2")]
    srcs += [(name, path, kernel_from_check(path)) for name, path in repeats()]
    print("| run | kernel numa_miss | " + " | ".join(f"{l} us" for l in lats) + " |")
    print("|---|---|" + "---|" * len(lats))
    within = [0] * len(lats)
    for name, path, k in srcs:
        m = [wl_miss(path, l) for l in lats]
        for i, v in enumerate(m):
            within[i] += v is not None and abs(v - k["numa_miss"]) <= 0.05 * k["numa_miss"]
        print(f"| {name} | {k['numa_miss']} | " + " | ".join("no end in 60 s" if v is None else pct(v, k["numa_miss"]) for v in m) + " |")
    print(f"| within 5% | | " + " | ".join(f"{w} of {len(srcs)}" for w in within) + " |")
    print()
    # the wsf 10 <-> 200 prediction averaged over the latencies too (an ensemble over wake timing)
    groups = {10: [x for x in srcs if x[0] in ("numa2-base",) or x[0].startswith("w10_")],
              200: [x for x in srcs if x[0] in ("numa2-wsf200",) or x[0].startswith("w200_")]}
    for w, other in ((10, 200), (200, 10)):
        if not groups[w]:
            continue
        pairs = [(wl_miss(x[1], l, "--set", f"vm.watermark_scale_factor={w}"),
                  wl_miss(x[1], l, "--set", f"vm.watermark_scale_factor={other}")) for x in groups[w] for l in lats]
        done = [p for p in pairs if None not in p]
        mo, mt = sum(p[0] for p in done) / len(done), sum(p[1] for p in done) / len(done)
        left = f" ({len(pairs) - len(done)} pair(s) left out: a replay with no end in 60 s)" if len(done) < len(pairs) else ""
        print(f"wsf {w} -> {other}, mean over {len(groups[w])} runs x {len(lats)} latencies: {mo:.0f} -> {mt:.0f} ({pct(mt, mo)}){left}")
    print()

if want("sensitivity"):
    # kswapd.reclaim_pages_per_ms: the kernel's kswapd bursts on these traces free 60 to 180
    # pages per ms (docs/replay.md); the model's answer across that range is part of its error
    rates = [60, 80, 100, 120, 180]
    print("| run | mode | kernel numa_miss | " + " | ".join(f"rate {x}" for x in rates) + " | spread (max-min) / kernel |")
    print("|---|---|---|" + "---|" * (len(rates) + 1))
    for t in recorded:
        if not t.startswith("numa2"):
            continue
        k = kernel_delta(tpath(t))["numa_miss"]
        for extra, label in (([], "default"), (["--untraced-use"], "--untraced-use")):
            m = [replayed("--mode", "simulate", *extra, "--set", f"kswapd.reclaim_pages_per_ms={x}",
                          trace(t))["numa_miss"] for x in rates]
            cells = [f"{v} ({pct(v, k)})" for v in m]
            print(f"| {t} | {label} | {k} | " + " | ".join(cells) + f" | {100.0 * (max(m) - min(m)) / k:.1f}% |")
    print()

if want("endfree"):
    print("| run | zone | kernel | follow | diff | simulate | diff | --untraced-use | diff |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in [t for t in recorded if t.startswith("numa")]:
        d = trace(t)
        k = zoneinfo_free(os.path.join(tpath(t), "after/proc/zoneinfo"))
        outs = [replayed("--mode", "follow", d), replayed("--mode", "simulate", d),
                replayed("--mode", "simulate", "--untraced-use", d)]
        for z in sorted(k):
            cells = []
            for o in outs:
                m = o.get("model_nr_free_pages." + z)
                cells += ["-", "-"] if m is None else [str(m), f"{m - k[z]:+d}"]
            if any(c != "-" for c in cells):
                print(f"| {t} | {z} | {k[z]} | " + " | ".join(cells) + " |")
    print()

if want("lock"):
    # pagesim lockstat: sections, contention and cache-line transfers of the 3.17 and 4.0 layouts,
    # at the default cost per block and at the QEMU guests' own (3200 ns)
    print("| trace (CPUs) | sections | contended at 60 ns | 3.17 / 4.0 at 60 ns | contended at 3200 ns | 3.17 / 4.0 at 3200 ns |")
    print("|---|---|---|---|---|---|")
    for t in ("numa2-base", "numa4-base", "numa2-frag", "uma-mixed"):
        if t not in recorded:
            continue
        cells = []
        for ns in ("60", "3200"):
            l = {lay: kv(run("lockstat", "-q", "--layout", lay, "--set", f"lock.page_ns={ns}", trace(t))) for lay in ("3.17", "4.0")}
            cells += [str(l["4.0"]["zone_lock_contended"]),
                      f"{l['3.17']['zone_cacheline_transfers']} / {l['4.0']['zone_cacheline_transfers']}"]
        cpus = 0
        for f in glob.glob(os.path.join(tpath(t), "before/sys/devices/system/node/node*/cpulist")):
            for part in open(f).read().strip().split(","):
                lo, _, hi = part.partition("-")
                cpus += int(hi or lo) - int(lo) + 1 if lo else 0
        print(f"| {t} ({cpus}) | {l['4.0']['zone_lock_acquisitions']} | " + " | ".join(cells) + " |")
    print()
    # simulate mode's own per-CPU lists: zone-lock acquisitions and pages held across pcp.batch
    if "numa2-base" in recorded:
        print("| numa2-base, simulate | zone_lock_acquisitions | pcp_pages_held_avg |")
        print("|---|---|---|")
        for b in (16, 31, 63, 127):
            m = replayed("--mode", "simulate", "--set", f"pcp.batch={b}", "--set", f"pcp.high={6 * b}",
                         trace("numa2-base"))
            print(f"| pcp.batch={b}, pcp.high={6 * b} | {m['zone_lock_acquisitions']} | {m['pcp_pages_held_avg']} |")
        print()

# testdata/reclaim: runs with the LRU and reclaim events, 3 to 20 repeats of each setup; the kernel,
# nodes, workload and policy of each from the README's table
RECLAIM = os.path.join(a.testdata, "reclaim")
RC = ("numa_miss", "node0.numa_hit", "pgsteal_kswapd", "pgsteal_direct", "extfrag_events")
DEFAULTS = {"vm.zone_reclaim_mode": "0", "vm.watermark_scale_factor": "10", "vm.watermark_boost_factor": "15000"}

def reclaim_runs():
    """[(name, path, kernel "6.1"/"6.12", nodes, workload, policy, ring buffer)] of testdata/reclaim."""
    runs, readme = [], os.path.join(RECLAIM, "README.md")
    if not os.path.exists(readme):
        return runs
    for line in open(readme):
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(f) >= 6 and os.path.exists(os.path.join(RECLAIM, f[0] + ".pgs")):
            runs.append((f[0], os.path.join(RECLAIM, f[0] + ".pgs"), ".".join(f[1].split(".")[:2]), int(f[2]), f[3], f[4],
                         f[5]))
    return runs

_rc_cache = {}
def rc_kernel(path):
    # the kernel's deltas (stat --check, column 3); extfrag_events is a tracepoint, no vmstat
    # counter: its kernel value is the trace's own count
    if path not in _rc_cache:
        k = kernel_from_check(path)
        k["extfrag_events"] = kv(run("stat", "-q", path))["extfrag_events"]
        _rc_cache[path] = k
    return _rc_cache[path]

ZONE_TYPES = ("DMA", "DMA32", "Normal", "Movable")
def zone_order(name):
    """Sort key of "node0.DMA32": node, then zone type."""
    node, zone = name.split(".", 1)
    return int(node[4:]), ZONE_TYPES.index(zone) if zone in ZONE_TYPES else len(ZONE_TYPES)

_ens_cache = {}
def ensemble(path, *extra):
    """{counter: (mean, stddev)} of replay --ensemble 8."""
    if (path, extra) in _ens_cache:
        return _ens_cache[path, extra]
    d = _ens_cache[path, extra] = {}
    for line in run("replay", "-q", "--mode", "simulate", "--ensemble", "8", *extra, path).splitlines():
        p = line.split()
        if len(p) == 3 and not line.startswith("#"):
            try:
                d[p[0]] = (float(p[1]), float(p[2]))
            except ValueError:
                pass
    return d

def setup_label(nodes, workload, policy, ring):
    # the ring buffer is named but for the first series' 16 MiB per CPU ("*": inferred, README);
    # runs of a setup with a stored ring buffer and runs with an inferred one are not pooled
    return f"{nodes} nodes, {workload}, {policy}" + ("" if ring == "16 MiB*" else f", ring buffer {ring}")

def setups(runs):
    """The setups (nodes, workload, policy, ring buffer) in the README's order, each with its runs per kernel."""
    order, by = [], {}
    for r in runs:
        key = (r[3], r[4], r[5], r[6])
        if key not in by:
            order.append(key)
            by[key] = {}
        by[key].setdefault(r[2], []).append(r)
    order.sort(key=lambda x: (x[0], x[1] != "mixed", x[3], x[2] != "defaults", x[2]))
    # each series by its repeat number (the README sorts r10 before r2), so that a table's "rN"
    # is the run named ..._rN
    for kerns in by.values():
        for rs in kerns.values():
            rs.sort(key=lambda r: int(re.search(r"_r(\d+)$", r[0]).group(1)))
            assert all(r[0].endswith(f"_r{i + 1}") for i, r in enumerate(rs)), [r[0] for r in rs]
    return order, by


def prediction_pairs(order, by, kern, nodes):
    """The policy changes to predict from kernel @kern's runs on @nodes nodes: each `mixed` setup
    with one sysctl changed against the defaults of the same ring buffer (it takes memory from the
    nodes before the run starts: testdata/reclaim/README.md), both ways, as (from setup, to setup,
    sysctl, the value the runs of `from` are replayed with)."""
    for key in order:
        if key[0] != nodes or key[1] != "mixed" or key[2] == "defaults" or kern not in by[key]:
            continue
        base = (nodes, "mixed", "defaults", key[3])
        if not by.get(base, {}).get(kern):
            continue
        knob, val = key[2].split("=")
        yield base, key, knob, val
        yield key, base, knob, DEFAULTS[knob]

KERNELS = ("6.1", "6.12")
# pcp.snapshot_lists the other way round from each kernel's default (on for 6.7+: docs/replay.md)
LISTS_FLIPPED = {"6.1": ("--set", "pcp.snapshot_lists=1"), "6.12": ("--set", "pcp.snapshot_lists=0")}
def vx(extra, kern):
    """A variant's replay arguments for kernel @kern's runs: @extra, or its entry for @kern."""
    return extra[kern] if isinstance(extra, dict) else extra
def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0
def sd(xs):
    m = mean(xs)
    return (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5 if len(xs) > 1 else 0.0

if want("reclaim-follow"):
    # follow mode on every reclaim run, the two kernels side by side: fidelity defects (share of the
    # events), the per-CPU list rules' refills and drains against the trace's sections, and numa_hit
    # with the bulk allocator's pages folded in against the kernel's
    runs = reclaim_runs()
    order, by = setups(runs)
    fol = {r[0]: replayed("--mode", "follow", r[1]) for r in runs}
    fold = {r[0]: replayed("--mode", "follow", "--fold-invisible", r[1]) for r in runs}
    worst = {k: [0.0, 0, 0.0, 0.0] for k in KERNELS}  # defects %, runs, worst |refills|, |drains| difference
    print("| setup | repeat | " + " | ".join(f"{c} {k}" for c in ("defects (% of events)", "refills: model / trace",
                                                                   "drains: model / trace", "numa_hit trace+invisible / kernel")
                                         for k in KERNELS) + " |")
    print("|---|---|" + "---|" * (4 * len(KERNELS)))
    for key in order:
        for i in range(max(len(v) for v in by[key].values())):
            cells = {k: ["–"] * 4 for k in KERNELS}
            for kern in KERNELS:
                rs = by[key].get(kern, [])
                if i >= len(rs):
                    continue
                f, ff, k = fol[rs[i][0]], fold[rs[i][0]], rc_kernel(rs[i][1])
                ev = sum(v for n, v in f.items() if n.startswith("events_mm_page"))
                dp = 100.0 * f["replay_defects"] / ev if ev else 0.0
                mr, tr = f["model_pcp_refills"], f["trace_pcp_refill_sections"]
                md, td = f["model_pcp_drains"], f["trace_pcp_drain_sections"]
                w = worst[kern]
                w[0], w[1] = max(w[0], dp), w[1] + 1
                w[2] = max(w[2], abs(mr - tr) / tr if tr else 0.0)
                w[3] = max(w[3], abs(md - td) / td if td else 0.0)
                cells[kern] = [f"{f['replay_defects']} ({dp:.4f}%)", f"{mr} / {tr} ({pct(mr, tr)})", f"{md} / {td} ({pct(md, td)})",
                               f"{ff['numa_hit']} / {k.get('numa_hit', 0)} ({pct(ff['numa_hit'], k.get('numa_hit', 0))})"]
            print(f"| {setup_label(*key)} | r{i + 1} | " + " | ".join(cells[kern][c] for c in range(4) for kern in KERNELS) + " |")
    print()
    for kern in KERNELS:
        w = worst[kern]
        print(f"{kern}: {w[1]} runs; defects at most {w[0]:.4f}% of the events; refills within {100 * w[2]:.1f}%, "
              f"drains within {100 * w[3]:.1f}% of the trace's sections\n")

if want("reclaim"):
    runs = reclaim_runs()
    order, by = setups(runs)
    sim = {r[0]: replayed("--mode", "simulate", r[1]) for r in runs}
    within = {k: [0, 0] for k in KERNELS}
    for cols, title in ((RC[:2], "placement"), (RC[2:], "reclaim and fragmentation")):
        print(f"Kernel / model (difference), {title}:\n")
        print("| setup | repeat | " + " | ".join(f"{c} {k}" for c in cols for k in KERNELS) + " |")
        print("|---|---|" + "---|" * (len(cols) * len(KERNELS)))
        for key in order:
            for i in range(max(len(v) for v in by[key].values())):
                cells = []
                for c in cols:
                    for kern in KERNELS:
                        rs = by[key].get(kern, [])
                        if i >= len(rs):
                            cells.append("–")
                            continue
                        k, m = rc_kernel(rs[i][1])[c], sim[rs[i][0]][c]
                        cells.append(f"{k} / {m} ({pct(m, k)})")
                        if c == "numa_miss":
                            within[kern][1] += 1
                            within[kern][0] += abs(m - k) <= 0.05 * k
                print(f"| {setup_label(*key)} | r{i + 1} | " + " | ".join(cells) + " |")
        print()
    for kern in KERNELS:
        print(f"{kern}: numa_miss within 5% on {within[kern][0]} of {within[kern][1]} runs\n")

if want("reclaim-groups"):
    runs = reclaim_runs()
    order, by = setups(runs)
    ens = {r[0]: ensemble(r[1]) for r in runs}
    sim = {r[0]: replayed("--mode", "simulate", r[1]) for r in runs}
    # per setup and kernel, over the three repeats: the kernel's mean, min..max and stddev; the model's
    # mean of the three single replays, and of the three --ensemble 8 means with their stddev averaged
    print("| setup | counter | " + " | ".join(f"{k}: kernel mean (min..max, sd) | model | ensemble mean ± sd | ensemble diff" for k in KERNELS) + " |")
    print("|---|---|" + "---|" * (4 * len(KERNELS)))
    for key in order:
        for c in RC[:4]:
            cells = []
            for kern in KERNELS:
                rs = by[key].get(kern, [])
                if not rs:
                    cells += ["–"] * 4
                    continue
                kx = [rc_kernel(r[1])[c] for r in rs]
                km = mean(kx)
                mm = mean([sim[r[0]][c] for r in rs])
                em = mean([ens[r[0]][c][0] for r in rs])
                es = mean([ens[r[0]][c][1] for r in rs])
                cells += [f"{km:.0f} ({min(kx)}..{max(kx)}, {sd(kx):.0f})", f"{mm:.0f} ({pct(mm, km)})",
                          f"{em:.0f} ± {es:.0f}", pct(em, km)]
            print(f"| {setup_label(*key)} | {c} | " + " | ".join(cells) + " |")
    print()
    # how well the ensemble's spread covers the kernel: a run whose kernel value lies within two of
    # its members' standard deviations of their mean
    for kern in KERNELS:
        rs = [r for r in runs if r[2] == kern]
        inside = sum(abs(rc_kernel(r[1])["numa_miss"] - ens[r[0]]["numa_miss"][0]) <= 2 * ens[r[0]]["numa_miss"][1] for r in rs)
        print(f"{kern}: the kernel's numa_miss within two standard deviations of the ensemble's mean on {inside} of {len(rs)} runs\n")

if want("reclaim-modes"):
    # a setup's runs fall into two outcomes: a run whose numa_miss is under two thirds of the median
    # of the kernel's runs of that setup is in the low mode (node 0's kswapd woke early in the
    # allocation burst and kept the node's pages local). Per setup: how many of the kernel's runs,
    # of the model's single replays, and of the ensemble members (--perturb 1..8 of every run) are in
    # it, as the model is and with pcp.snapshot_lists the other way (6.1: 1, 6.12: 0); and the
    # kernel's mean pgsteal_kswapd of the runs in the low mode against the others'
    runs = [r for r in reclaim_runs() if r[3] == 2 and r[4] == "mixed"]
    order, by = setups(runs)
    variants = (("model", ()), ("pcp.snapshot_lists flipped", LISTS_FLIPPED))
    replayed_all([("--mode", "simulate", *vx(extra, r[2]), r[1]) for _, extra in variants for r in runs] +
                 [("--mode", "simulate", *vx(extra, r[2]), "--perturb", str(k), r[1])
                  for _, extra in variants for k in range(1, 9) for r in runs])
    print("| kernel | setup | kernel runs in the low mode | their pgsteal_kswapd, the others' | " +
          " | ".join(f"{v[0]}: single replays | ensemble members" for v in variants) + " |")
    print("|---|---|---|---|" + "---|" * (2 * len(variants)))
    for kern in KERNELS:
        for key in order:
            rs = by[key].get(kern, [])
            if len(rs) < 3:
                continue
            k = [rc_kernel(r[1]) for r in rs]
            cut = 2 / 3 * statistics.median([x["numa_miss"] for x in k])
            low = [x for x in k if x["numa_miss"] < cut]
            high = [x for x in k if x["numa_miss"] >= cut]
            steal = (f"{mean([x['pgsteal_kswapd'] for x in low]):.0f}" if low else "–") + \
                f", {mean([x['pgsteal_kswapd'] for x in high]):.0f}"
            cells = []
            for _, extra in variants:
                one = sum(replayed("--mode", "simulate", *vx(extra, kern), r[1])["numa_miss"] < cut for r in rs)
                ens = sum(replayed("--mode", "simulate", *vx(extra, kern), "--perturb", str(j), r[1])["numa_miss"] < cut
                          for j in range(1, 9) for r in rs)
                cells += [f"{one} of {len(rs)}", f"{ens} of {8 * len(rs)} ({100 * ens / (8 * len(rs)):.0f}%)"]
            print(f"| {kern} | {setup_label(*key)} | {len(low)} of {len(rs)} ({100 * len(low) / len(rs):.0f}%) | {steal} | " +
                  " | ".join(cells) + " |")
    print()

if want("reclaim-zones"):
    # the pages each zone gave to reclaim: the kernel's (its reclaimers' page-cache deletions,
    # trace_reclaimed_pages) against the model's (model_reclaimed_pages: kswapd, direct and node
    # reclaim), means over each setup's repeats, single replays under the recorded policy
    runs = reclaim_runs()
    order, by = setups(runs)
    sim = {r[0]: replayed("--mode", "simulate", r[1]) for r in runs}
    zones = sorted({n[len("trace_reclaimed_pages."):] for r in runs for n in sim[r[0]] if n.startswith("trace_reclaimed_pages.")},
                   key=zone_order)

    def setup_table(head, width, cell, zs=(), keys=None, zlabel="zone"):
        """A row per setup of @keys (default: all), and per zone (or node) of @zs if any, with @width columns
        per kernel from cell(runs, zone) -> (cells, used); a row nothing used is left out."""
        zcol = f"{zlabel} | " if zs else ""
        print(f"| setup | {zcol}" + " | ".join(f"{k}: {head}" for k in KERNELS) + " |")
        print("|---|" + ("---|" if zs else "") + "---|" * (width * len(KERNELS)))
        for key in order if keys is None else keys:
            for z in zs or (None,):
                cells, used = [], False
                for kern in KERNELS:
                    rs = by[key].get(kern, [])
                    c, u = cell(rs, z) if rs else (["–"] * width, False)
                    cells += c
                    used = used or u
                if used:
                    print(f"| {setup_label(*key)} | " + (f"{z} | " if zs else "") + " | ".join(cells) + " |")
        print()

    def reclaimed(rs, z):
        km = mean([sim[r[0]].get(f"trace_reclaimed_pages.{z}", 0) for r in rs])
        mm = mean([sim[r[0]].get(f"model_reclaimed_pages.{z}", 0) for r in rs])
        return [f"{km:.0f}", f"{mm:.0f} ({mm - km:+.0f})"], km > 0 or mm > 0
    setup_table("kernel | model", 2, reclaimed, zones)
    # pages passed over for a zone above the class zone (the kernel's pgskip_*, summed: the trace's
    # mm_vmscan_lru_isolate nr_skipped; the model's model_pgskip_*), means per setup, and the
    # runs where it passed over 1,000 pages or more
    def passed_over(r):
        """The pages run @r's reclaim passed over: the kernel's, the model's."""
        return (sim[r[0]].get("trace_lru_skipped_pages", 0),
                sum(v for n, v in sim[r[0]].items() if n.startswith("model_pgskip_")))

    def skipped(rs, _):
        ks, ms = zip(*map(passed_over, rs))
        return [f"{mean(ks):.0f}", f"{mean(ms):.0f}",
                f"{sum(k >= 1000 for k in ks)}, {sum(m >= 1000 for m in ms)} of {len(rs)}"], True
    setup_table("kernel pgskip | model pgskip | runs with 1,000 or more: kernel, model", 3, skipped)
    # numa_miss against the kernel's by whether kernel and model passed over 1,000 pages or more:
    # the runs in each group, their mean error and how many are within 5%
    for kern in KERNELS:
        groups = {}
        for r in runs:
            if r[2] != kern:
                continue
            ks, ms = passed_over(r)
            k = rc_kernel(r[1])["numa_miss"]
            groups.setdefault((ks >= 1000, ms >= 1000), []).append((sim[r[0]]["numa_miss"] - k) / k)
        line = []
        for who, label in (((True, True), "both"), ((True, False), "the kernel only"),
                           ((False, True), "the model only"), ((False, False), "neither")):
            es = groups.get(who, [])
            if es:
                line.append(f"{label} {len(es)} runs, numa_miss {100 * mean(es):+.1f}% on average, "
                            f"{sum(abs(e) <= 0.05 for e in es)} within 5%")
        print(f"{kern}: passed over 1,000 pages or more: " + "; ".join(line) + "\n")
    # where the fallbacks were (mm_page_alloc_extfrag by the page's zone: the trace's
    # trace_fallbacks.*, the model's model_fallbacks.*), means per setup, and the runs with 100
    # or more in the zone
    def fallbacks(rs, z):
        kf = [sim[r[0]].get(f"trace_fallbacks.{z}", 0) for r in rs]
        mf = [sim[r[0]].get(f"model_fallbacks.{z}", 0) for r in rs]
        return [f"{mean(kf):.0f}", f"{mean(mf):.0f}",
                f"{sum(k >= 100 for k in kf)}, {sum(m >= 100 for m in mf)} of {len(rs)}"], sum(kf) > 0 or sum(mf) > 0
    setup_table("kernel fallbacks | model | runs with 100 or more: kernel, model", 3, fallbacks, zones)
    # kswapd woken for a boosted watermark, per node (the trace's mm_vmscan_wakeup_kswapd without
    # gfp_flags, trace_kswapd_boost_wakeups; the model's model_kswapd_boost_wakeups): each such
    # wake costs a boosted run of a pageblock or more, means per setup
    nodes = sorted({n.split(".")[1] for r in runs for n in sim[r[0]] if n.startswith("trace_kswapd_boost_wakeups.")})

    def boost_wakes(rs, node):
        kw = mean([sim[r[0]].get(f"trace_kswapd_boost_wakeups.{node}", 0) for r in rs])
        mw = mean([sim[r[0]].get(f"model_kswapd_boost_wakeups.{node}", 0) for r in rs])
        return [f"{kw:.1f}", f"{mw:.1f} ({mw - kw:+.1f})"], kw > 0 or mw > 0
    setup_table("kernel boost wakes | model", 2, boost_wakes, nodes, zlabel="node")
    # on 2 nodes, the runs whose node 1 ran out of Movable pages (100 or more fallbacks there)
    # against the rest: mean numa_miss of each kind, the kernel's and the model's, and the runs
    # where the model's replay is of the kernel's kind
    def split(rs, flags, val):
        """'N: mean / M: mean' of val over the runs flagged and the rest."""
        a = [val(r) for r, f in zip(rs, flags) if f]
        b = [val(r) for r, f in zip(rs, flags) if not f]
        return " / ".join(f"{len(x)}: {mean(x):.0f}" if x else "0" for x in (a, b))

    def node1_dry(rs, _):
        kin = [sim[r[0]].get("trace_fallbacks.node1.Normal", 0) >= 100 for r in rs]
        mod = [sim[r[0]].get("model_fallbacks.node1.Normal", 0) >= 100 for r in rs]
        return [split(rs, kin, lambda r: rc_kernel(r[1])["numa_miss"]), split(rs, mod, lambda r: sim[r[0]]["numa_miss"]),
                f"{sum(a == b for a, b in zip(kin, mod))} of {len(rs)}"], any(kin) or any(mod)
    setup_table("kernel runs with / without node-1 fallbacks: mean numa_miss | model | model of the kernel's kind", 3,
                node1_dry, keys=[key for key in order if key[0] == 2])

if want("reclaim-predict"):
    # each group's runs replayed under the other group's policy (--ensemble 8 each), the change of
    # the model's mean numa_miss against the kernel's change between the two groups' means
    runs = reclaim_runs()
    order, by = setups(runs)
    # kernel change / its standard error: how far the change between the groups' means stands
    # out of the repeats' own spread (about 2 or more: more than chance)
    print("| kernel | nodes | ring buffer | from | replayed with | kernel mean numa_miss: from | to | kernel change | "
          "kernel change / its standard error | kernel change ± 2 standard errors | model mean: recorded policy | changed policy | model change | direction | model / kernel |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    agree = total = unclear = unclear_same = unclear_inside = 0
    reclaim_rows = []
    for kern in KERNELS:
        for nodes in sorted({key[0] for key in order}):
            for fkey, tkey, knob, setv in prediction_pairs(order, by, kern, nodes):
                frm, to = by[fkey][kern], by[tkey][kern]
                xf = [rc_kernel(r[1])["numa_miss"] for r in frm]
                xt = [rc_kernel(r[1])["numa_miss"] for r in to]
                kf, kt = mean(xf), mean(xt)
                se = (sd(xf) ** 2 / len(xf) + sd(xt) ** 2 / len(xt)) ** 0.5
                mf = mean([ensemble(r[1])["numa_miss"][0] for r in frm])
                mt = mean([ensemble(r[1], "--set", f"{knob}={setv}")["numa_miss"][0] for r in frm])
                kc, mc = (kt - kf) / kf, (mt - mf) / mf
                same = (kc > 0) == (mc > 0) and mc != 0
                # a kernel change within two standard errors of its repeats has no
                # established sign: marked, and counted apart
                clear = abs(kt - kf) >= 2 * se
                agree += same and clear
                total += clear
                unclear += not clear
                unclear_same += same and not clear
                # where the kernel's change has no established sign, what can be asked of
                # the model is a change inside the kernel's interval
                lo, hi = (kt - kf - 2 * se) / kf, (kt - kf + 2 * se) / kf
                unclear_inside += not clear and lo <= mc <= hi
                if knob == "vm.zone_reclaim_mode" and setv == "1":
                    kd = mean([rc_kernel(r[1])["pgsteal_direct"] for r in to])
                    md = mean([ensemble(r[1], "--set", f"{knob}={setv}")["pgsteal_direct"][0] for r in frm])
                    reclaim_rows.append(f"| {kern} | {nodes} | {fkey[3]} | {kd:.0f} | {md:.0f} | {pct(md, kd)} |")
                print(f"| {kern} | {nodes} | {fkey[3]} | {fkey[2]} | {knob}={setv} | {kf:.0f} | {kt:.0f} | "
                      f"{100 * kc:+.1f}% | {(kt - kf) / se:+.1f} | {100 * lo:+.1f}%..{100 * hi:+.1f}% | {mf:.0f} | {mt:.0f} | {100 * mc:+.1f}% | {'same' if same else '**none**' if mc == 0 else '**opposite**'}{'' if clear else ' (kernel within its spread)'} | "
                      f"{mc / kc:.2f} |")
    print(f"\nDirection agreed on {agree} of {total} predictions whose kernel change is beyond two standard errors; "
          f"{unclear} more are within the kernel's spread (the model's sign the kernel's on {unclear_same}, "
          f"the model's change inside the kernel's interval on {unclear_inside})\n")
    # the node reclaim itself: pgsteal_direct of the runs under the defaults replayed with
    # vm.zone_reclaim_mode=1, against the kernel's mean over its mode-1 runs
    print("| kernel | nodes | ring buffer | kernel mean pgsteal_direct, vm.zone_reclaim_mode=1 | model mean, defaults replayed with vm.zone_reclaim_mode=1 | difference |")
    print("|---|---|---|---|---|---|")
    print("\n".join(reclaim_rows) + "\n")

if want("reclaim-drift"):
    # single replays under the recorded policy, as they are, with --set vmstat.drift=1, with
    # kswapd.sleep_check=1 as well, with pcp.snapshot_lists the other way alone (6.1: 1, 6.12: 0), with
    # kswapd.nap_boost_check=0 alone, with kswapd at the speed of traces without its events
    # (kswapd.reclaim_pages_per_ms=100) alone, with kswapd freeing on the CPU the trace shows it
    # on (kswapd.traced_cpu=1) alone and with kswapd reclaiming in 4 ms slices
    # (kswapd.slice_us=4000) alone: each setup's mean
    # numa_miss and pgsteal_kswapd against the kernel's; per kernel the runs whose numa_miss, and
    # whose per-node numastat, are within 5%, and whose extfrag_events are within 25% of the trace's,
    # and the model's pcp refills against the refill sections the trace shows (follow mode's
    # trace_pcp_refill_sections): their sum, and the runs within 25%;
    # then the predictions of both kernels' 32 MiB series (the model's change of the mean
    # numa_miss against the kernel's change between the setups' means)
    runs = reclaim_runs()
    order, by = setups(runs)
    variants = (("model", ()), ("vmstat.drift=1", ("--set", "vmstat.drift=1")),
                ("and kswapd.sleep_check=1", ("--set", "vmstat.drift=1", "--set", "kswapd.sleep_check=1")),
                ("pcp.snapshot_lists flipped alone", LISTS_FLIPPED),
                ("kswapd.nap_boost_check=0 alone", ("--set", "kswapd.nap_boost_check=0")),
                ("kswapd.reclaim_pages_per_ms=100 alone", ("--set", "kswapd.reclaim_pages_per_ms=100")),
                ("kswapd.traced_cpu=1 alone", ("--set", "kswapd.traced_cpu=1")),
                ("kswapd.slice_us=4000 alone", ("--set", "kswapd.slice_us=4000")))
    pairs = [(kern, fkey, tkey, knob, setv) for kern in KERNELS
             for fkey, tkey, knob, setv in prediction_pairs(order, by, kern, 2)
             if fkey[3] == "32 MiB on CPUs 0-1, 16 MiB on 2-3"]
    replayed_all([("--mode", "follow", r[1]) for r in runs] +
                 [("--mode", "simulate", *vx(extra, r[2]), r[1]) for _, extra in variants for r in runs] +
                 [("--mode", "simulate", *vx(extra, kern), "--set", f"{knob}={setv}", r[1]) for _, extra in variants
                  for kern, fkey, _, knob, setv in pairs for r in by[fkey][kern]])
    sims = [{r[0]: replayed("--mode", "simulate", *vx(extra, r[2]), r[1]) for r in runs} for _, extra in variants]
    cols = ("numa_miss", "pgsteal_kswapd")
    print("| setup | counter | " + " | ".join(f"{k}: kernel mean | " + " | ".join(v[0] for v in variants) for k in KERNELS) + " |")
    print("|---|---|" + "---|" * ((1 + len(variants)) * len(KERNELS)))
    for key in order:
        for c in cols:
            cells = []
            for kern in KERNELS:
                rs = by[key].get(kern, [])
                if not rs:
                    cells += ["–"] * (1 + len(variants))
                    continue
                km = mean([rc_kernel(r[1])[c] for r in rs])
                cells.append(f"{km:.0f}")
                for sim in sims:
                    vm = mean([sim[r[0]][c] for r in rs])
                    cells.append(f"{vm:.0f} ({pct(vm, km)})")
            print(f"| {setup_label(*key)} | {c} | " + " | ".join(cells) + " |")
    print()
    def node_ok(m, k):
        keys = [n for n in k if n.startswith("node") and n.split(".", 1)[1] in
                ("numa_hit", "numa_miss", "local_node", "other_node") and k[n] > 0]
        return all(abs(m[n] - k[n]) <= 0.05 * k[n] for n in keys)
    for kern in KERNELS:
        rs = [r for r in runs if r[2] == kern]
        line = []
        for (name, _), sim in zip(variants, sims):
            errs = [abs(sim[r[0]]["numa_miss"] - rc_kernel(r[1])["numa_miss"]) / rc_kernel(r[1])["numa_miss"] for r in rs]
            ef = [abs(sim[r[0]]["extfrag_events"] - rc_kernel(r[1])["extfrag_events"]) <=
                  0.25 * rc_kernel(r[1])["extfrag_events"] for r in rs]
            ts = [replayed("--mode", "follow", r[1])["trace_pcp_refill_sections"] for r in rs]
            ms = [sim[r[0]]["model_pcp_refills"] for r in rs]
            line.append(f"{name}: numa_miss within 5% on {sum(e <= 0.05 for e in errs)} of {len(rs)} runs "
                        f"(mean error {100 * mean(errs):.1f}%), per-node numastat on "
                        f"{sum(node_ok(sim[r[0]], rc_kernel(r[1])) for r in rs)}, extfrag_events within 25% on {sum(ef)}, "
                        f"pcp refills {pct(sum(ms), sum(ts))} against the trace's sections "
                        f"(within 25% on {sum(abs(m - t) <= 0.25 * t for m, t in zip(ms, ts))})")
        print(f"{kern}: " + "; ".join(line) + "\n")
    # the predictions on the 32 MiB series of both kernels, single replays
    print("| 32 MiB series | replayed | with | kernel change | " + " | ".join(v[0] for v in variants) + " |")
    print("|---|---|---|---|" + "---|" * len(variants))
    for kern, fkey, tkey, knob, setv in pairs:
        ra, rb = by[fkey][kern], by[tkey][kern]
        frm, setting = fkey[2], f"{knob}={setv}"
        ka, kb = mean([rc_kernel(r[1])["numa_miss"] for r in ra]), mean([rc_kernel(r[1])["numa_miss"] for r in rb])
        cells = []
        for (_, extra), sim in zip(variants, sims):
            m0 = mean([sim[r[0]]["numa_miss"] for r in ra])
            m1 = mean([replayed("--mode", "simulate", *vx(extra, kern), "--set", setting, r[1])["numa_miss"] for r in ra])
            cells.append(pct(m1, m0))
        print(f"| {kern} | {frm} | {setting} | {pct(kb, ka)} | " + " | ".join(cells) + " |")
    print()
