#!/usr/bin/env python3
"""An independent count of a pagesim file's events, for checking stat's filters, --by and
timelines.

    independent_pgs.py TRACE.pgs [--comm A,B] [--pid P,Q] [--cpu LIST] [--time START,END]
                       [--by KEYS]... [--interval DURATION]... [--json]
    independent_pgs.py TRACE.pgs --blob NAME     (one snapshot file it carries: before/proc/vmstat)
    independent_pgs.py TRACE.pgs --fallback-zones  (adds trace_fallbacks.node<N>.<zone>: the
                                                    mm_page_alloc_extfrag events by their page's zone)

Decodes the file from its documented layout (docs/pagesim-format.md: sections, zstd
frames through the zstd program, the ten event columns) and reads the machine from the
before/ snapshots it carries (zoneinfo, node cpulists, pagetypeinfo) and the task names
from its comm blob.  Only the events the filters select are counted (--time: from START
to END after the first event; either may be left out).  Prints:
  - by default, "name value" lines: events per type, pgfree, pgalloc per zone, numa_* and
    node<N>.* (hit/miss against the allocating CPU's node, or the page's node for
    __GFP_THISNODE; local/other against the CPU's node), the extfrag rows;
  - with --by, JSON: {"groups": [{KEY: ..., "allocs": ..., ...}]}, a group per distinct
    key tuple: an allocation's keys are its own (order, migratetype, gfp flag names, task,
    cpu, the zone of its page); a free's are its own order, task, cpu and zone, and the
    migratetype and gfp of the allocation that last handed out the block at that pfn
    ("-" when none was seen);
  - with --interval, "INDEX name value" lines: the counters of each interval of that
    length from the first event (only the non-zero ones);
  - with --json, everything at once: {"counters": {...}, "groups": {KEYS: [...]},
    "series": {DURATION: {"INDEX name": value}}} for each --by and --interval given.
Written apart from pagesim's C code on purpose: it shares no code with it.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

args = sys.argv[1:]
trace = args.pop(0)
opt = {"by": [], "interval": []}
while args:
    k = args.pop(0)[2:]
    if k in ("json", "fallback-zones"):
        opt[k] = True
    elif k in ("by", "interval"):
        opt[k].append(args.pop(0))
    else:
        opt[k] = args.pop(0)

data = open(trace, "rb").read()
assert data[:8] == b"PAGESIM\0", "not a pagesim file"
off = struct.unpack_from("<H", data, 10)[0]
frames = []   # (kind, name, raw length, compressed bytes)
while off + 16 <= len(data):
    tag = data[off:off + 4]
    size = struct.unpack_from("<Q", data, off + 8)[0]
    p = data[off + 16:off + 16 + size]
    if tag == b"EVTS":
        n, raw = struct.unpack_from("<II", p, 0)
        frames.append(("evts", n, raw, p[8:]))
    elif tag == b"BLOB":
        nl = struct.unpack_from("<H", p, 0)[0]
        name = p[2:2 + nl].decode()
        raw = struct.unpack_from("<Q", p, 2 + nl)[0]
        frames.append(("blob", name, raw, p[10 + nl:]))
    off += 16 + size

# one zstd run over every frame, split by the raw lengths the sections give
with tempfile.NamedTemporaryFile() as tmp:
    tmp.write(b"".join(f[3] for f in frames))
    tmp.flush()
    out = subprocess.run(["zstd", "-d", "-c", "-q", tmp.name], capture_output=True, check=True).stdout
blobs, evframes, pos = {}, [], 0
for kind, a, raw, _ in frames:
    chunk = out[pos:pos + raw]
    pos += raw
    if kind == "blob":
        blobs[a] = chunk.decode(errors="replace")
    else:
        evframes.append((a, chunk))
if "blob" in opt:   # --blob NAME: one snapshot file the pagesim file carries, as it is
    sys.stdout.write(blobs[opt["blob"]])
    sys.exit(0)

# the machine: zones (start, end, node, name), CPU -> node, pageblock order
zones, cur = [], None
for line in blobs["before/proc/zoneinfo"].splitlines():
    m = re.match(r"Node (\d+), zone\s+(\S+)", line)
    if m:
        cur = {"node": int(m.group(1)), "name": m.group(2), "spanned": 0}
        continue
    m = re.match(r"\s+spanned\s+(\d+)", line)
    if m and cur:
        cur["spanned"] = int(m.group(1))
    m = re.match(r"\s+start_pfn:\s+(\d+)", line)
    if m and cur and cur["spanned"]:
        s = int(m.group(1))
        zones.append((s, s + cur["spanned"], cur["node"], cur["name"]))
cpu_node = {}
for name, text in blobs.items():
    m = re.match(r"before/sys/devices/system/node/node(\d+)/cpulist$", name)
    if not m:
        continue
    for part in text.strip().split(","):
        if part:
            a, _, b = part.partition("-")
            for c in range(int(a), int(b or a) + 1):
                cpu_node[c] = int(m.group(1))
pb_order = 9
m = re.search(r"Page block order: (\d+)", blobs.get("before/proc/pagetypeinfo", ""))
if m:
    pb_order = int(m.group(1))
comm = {}
for line in blobs.get("comm", "").splitlines():
    pid, _, name = line.partition(" ")
    if pid.lstrip("-").isdigit():
        comm[int(pid)] = name
nodes = sorted({z[2] for z in zones})


def zone_of(pfn):
    best = None
    for z in zones:
        if z[0] <= pfn < z[1] and (best is None or z[0] > best[0]):
            best = z
    return best


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def zz(v):
    return (v >> 1) ^ -(v & 1)


# the events, in file order: (type, ts, cpu, pid, pfn, order, mt, gfp, alloc_mt, fallback_order, fb_mt, co)
events = []
for n, b in evframes:
    lens = struct.unpack_from("<10I", b, 0)
    cols, p = [], 40
    for ln in lens:
        cols.append(b[p:p + ln])
        p += ln
    ctrl, tsb, cpub, pidb, pfnb, ordb, auxb, gfpb, xfb, extb = cols
    it = {"ts": 0, "cpu": 0, "pid": 0, "pfn": 0, "gfp": 0, "xf": 0, "ext": 0}
    ts = cpu = 0
    pid, last_pfn = {}, {}
    for k in range(n):
        c = ctrl[k]
        typ = c & 7
        d, it["ts"] = varint(tsb, it["ts"])
        ts += zz(d)
        if c & 0x08:
            cpu, it["cpu"] = varint(cpub, it["cpu"])
        if c & 0x10:
            v, it["pid"] = varint(pidb, it["pid"])
            pid[cpu] = zz(v)
        pfn = None
        if not c & 0x20:
            d, it["pfn"] = varint(pfnb, it["pfn"])
            pfn = last_pfn.get(cpu, 0) + zz(d)
            last_pfn[cpu] = pfn
        order = ordb[k]
        mt = -1
        gfp = 0
        xf = (0, 0, -1, -1, 0)
        if c & 0x40:
            e = extb[it["ext"]:it["ext"] + 8]
            it["ext"] += 8
            mt = struct.unpack("b", e[2:3])[0]
            xf = (e[3], e[4], struct.unpack("b", e[5:6])[0], struct.unpack("b", e[6:7])[0], e[7])
            gfp = struct.unpack_from("<I", gfpb, it["gfp"])[0]
            it["gfp"] += 4
        else:
            mt = (auxb[k] & 0x0f) - 1
            if typ == 0:
                gfp = struct.unpack_from("<I", gfpb, it["gfp"])[0]
                it["gfp"] += 4
            if typ == 5:
                x = xfb[it["xf"]:it["xf"] + 5]
                it["xf"] += 5
                xf = (x[0], x[1], struct.unpack("b", x[2:3])[0], struct.unpack("b", x[3:4])[0], x[4])
        events.append((typ, ts, cpu, pid.get(cpu, 0), pfn, order, mt, gfp) + xf)


def duration(s):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s|)", s)
    return round(float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "": 1e9}[m.group(2)])


t0 = events[0][1] if events else 0
sel_comm = set(opt["comm"].split(",")) if "comm" in opt else None
sel_pid = {int(p) for p in opt["pid"].split(",")} if "pid" in opt else None
sel_cpu = None
if "cpu" in opt:
    sel_cpu = set()
    for part in opt["cpu"].split(","):
        a, _, b = part.partition("-")
        sel_cpu.update(range(int(a), int(b or a) + 1))
lo, hi = 0, float("inf")
if "time" in opt:
    a, b = opt["time"].split(",")
    lo = t0 + duration(a) if a else 0
    hi = t0 + duration(b) if b else float("inf")


def selected(e):
    if not lo <= e[1] < hi:
        return False
    if sel_cpu is not None and e[2] not in sel_cpu:
        return False
    if sel_pid is not None and e[3] not in sel_pid:
        return False
    if sel_comm is not None and comm.get(e[3]) not in sel_comm:
        return False
    return True


EV = ["mm_page_alloc", "mm_page_free", "mm_page_free_batched", "mm_page_alloc_zone_locked",
      "mm_page_pcpu_drain", "mm_page_alloc_extfrag"]
ZONES = {"DMA": "dma", "DMA32": "dma32", "Normal": "normal", "Movable": "movable"}
MT = {0: "Unmovable", 1: "Movable", 2: "Reclaimable", 3: "HighAtomic", 4: "CMA", 5: "Isolate"}
# pagesim's gfp bits (lib/event.h) by the kernel's flag names
GFP_BITS = ["__GFP_DMA", "__GFP_HIGHMEM", "__GFP_DMA32", "__GFP_MOVABLE", "__GFP_RECLAIMABLE", "__GFP_HIGH",
            "__GFP_IO", "__GFP_FS", "__GFP_ZERO", "__GFP_ATOMIC", "__GFP_DIRECT_RECLAIM", "__GFP_KSWAPD_RECLAIM",
            "__GFP_WRITE", "__GFP_NOWARN", "__GFP_RETRY_MAYFAIL", "__GFP_NOFAIL", "__GFP_NORETRY", "__GFP_MEMALLOC",
            "__GFP_COMP", "__GFP_NOMEMALLOC", "__GFP_HARDWALL", "__GFP_THISNODE", "__GFP_ACCOUNT", "__GFP_ZEROTAGS",
            "__GFP_COLD", "__GFP_OTHER_NODE", "__GFP_NOLOCKDEP", "__GFP_NO_OBJ_EXT", "__GFP_SKIP_KASAN",
            "__GFP_NOTRACK"]


def gfp_names(bits):
    return sorted(GFP_BITS[i] for i in range(len(GFP_BITS)) if bits >> i & 1) or ["none"]


counts = {}
last_alloc = {}   # pfn -> (mt, gfp) of the allocation that handed it out
groups = {b: {} for b in opt["by"]}
series = {d: {} for d in opt["interval"]}
intervals = [(d, duration(d)) for d in opt["interval"]]


def add(k, v=1, ts=None):
    counts[k] = counts.get(k, 0) + v
    for d, ns in intervals:
        key = ((ts - t0) // ns, k)
        series[d][key] = series[d].get(key, 0) + v


for n in nodes:
    for k in ("numa_hit", "numa_miss", "numa_foreign", "local_node", "other_node"):
        counts[f"node{n}.{k}"] = 0
for e in events:
    typ, ts, cpu, pid, pfn, order, mt, gfp, a_order, fb_order, a_mt, fb_mt, co = e
    if not selected(e):
        continue
    add("events_" + EV[typ], 1, ts)
    g = None
    if typ == 1:
        z = zone_of(pfn)
        rec = last_alloc.pop(pfn, None)
        if z:
            add("pgfree", 1 << order, ts)
            g = {"order": order, "migratetype": MT.get(rec[0], "-") if rec else "-",
                 "gfp": gfp_names(rec[1]) if rec else "-", "task": comm.get(pid, "-"), "cpu": cpu,
                 "zone": f"node{z[2]}.{z[3]}", "frees": 1, "free_pages": 1 << order}
    elif typ == 0:
        if pfn is None:
            add("alloc_failed", 1, ts)
            g = {"failed": 1}
        else:
            last_alloc[pfn] = (mt, gfp)
            z = zone_of(pfn)
            cn = cpu_node.get(cpu)
            if z and cn is not None:
                add("pgalloc_" + ZONES[z[3]], 1 << order, ts)
                pref = z[2] if gfp & (1 << 21) else cn   # __GFP_THISNODE
                g = {"allocs": 1, "alloc_pages": 1 << order, "zone": f"node{z[2]}.{z[3]}"}
                if z[2] == pref:
                    add("numa_hit", 1, ts); add(f"node{z[2]}.numa_hit", 1, ts); g["numa_hit"] = 1
                else:
                    add("numa_miss", 1, ts); add(f"node{z[2]}.numa_miss", 1, ts); g["numa_miss"] = 1
                    add("numa_foreign", 1, ts); add(f"node{pref}.numa_foreign", 1, ts)
                if z[2] == cn:
                    add("numa_local", 1, ts); add(f"node{z[2]}.local_node", 1, ts); g["numa_local"] = 1
                else:
                    add("numa_other", 1, ts); add(f"node{z[2]}.other_node", 1, ts); g["numa_other"] = 1
        if g is not None:
            g.update({"order": order, "migratetype": MT.get(mt, "-"), "gfp": gfp_names(gfp),
                      "task": comm.get(pid, "-"), "cpu": cpu})
            g.setdefault("zone", "-")
    elif typ == 5:
        add("extfrag_events", 1, ts)
        z = zone_of(pfn) if opt.get("fallback-zones") and pfn is not None else None
        if z:
            add(f"trace_fallbacks.node{z[2]}.{z[3]}", 1, ts)
        if co:
            add("extfrag_change_ownership", 1, ts)
        if fb_order < pb_order:
            add("extfrag_fragmenting", 1, ts)
            name = {0: "unmovable", 1: "movable", 2: "reclaimable"}
            if a_mt in name:
                add("extfrag_fragmenting_" + name[a_mt], 1, ts)
                if a_mt != 1 and fb_mt in name and fb_mt != a_mt:
                    add(f"extfrag_fragmenting_{name[a_mt]}_from_{name[fb_mt]}", 1, ts)
    for keys in opt["by"] if g is not None else ():
        by = keys.split(",")
        key = tuple(json.dumps(g.get(k, "-")) for k in by)
        t = groups[keys].setdefault(key, {k: g.get(k, "-") for k in by})
        for v in ("allocs", "alloc_pages", "frees", "free_pages", "failed", "numa_hit", "numa_miss",
                  "numa_local", "numa_other"):
            t[v] = t.get(v, 0) + g.get(v, 0)

if opt.get("json"):
    print(json.dumps({"counters": counts, "groups": {k: list(v.values()) for k, v in groups.items()},
                      "series": {d: {f"{i} {k}": v for (i, k), v in sorted(ser.items())}
                                 for d, ser in series.items()}}))
elif opt["by"]:
    print(json.dumps({"groups": list(groups[opt["by"][0]].values())}, indent=1))
elif opt["interval"]:
    for (i, k), v in sorted(series[opt["interval"][0]].items()):
        print(i, k, v)
else:
    for k in sorted(counts):
        print(k, counts[k])
