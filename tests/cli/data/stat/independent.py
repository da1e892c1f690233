#!/usr/bin/env python3
"""An independent count of a trace's kernel counters, for checking `pagesim stat`.

Reads ftrace / trace-cmd report / perf script text (zstd or plain) with regular expressions and a
sysroot's zoneinfo and node cpulists, and prints `name value` lines for the counters
it computes, in sorted order: events per type, pgfree, pgalloc per zone, numa_* and
node<N>.* (hit/miss against the allocating CPU's node, or the page's node for
__GFP_THISNODE; local/other against the CPU's node), and the extfrag rows
(fragmenting = fallback_order < pageblock_order).  With the page-cache, LRU and reclaim
events: their counts, and reclaim's rows as the kernel counts them (by the task:
kswapd's own or anyone else's; pgsteal from mm_vmscan_lru_shrink_inactive's
nr_reclaimed, pgscan from its nr_scanned, or, the sysroot's lru_gen on, from
mm_vmscan_lru_isolate's nr_taken; pageoutrun one per mm_vmscan_kswapd_wake;
node_reclaim_calls one per mm_vmscan_node_reclaim_begin; a node's kswapd_wake after an
earlier one with no mm_vmscan_kswapd_sleep between is kswapd_low_wmark_hit_quickly if an
mm_vmscan_wakeup_kswapd of the node came between them, else kswapd_high_wmark_hit_quickly).  A third argument A-B counts only
the lines with A <= timestamp < B.  Written separately from pagesim's C code on purpose: it
shares no code with it.
"""
import glob, os, re, subprocess, sys

trace, sysroot = sys.argv[1], sys.argv[2]
window = tuple(float(x) for x in sys.argv[3].split("-")) if len(sys.argv) > 3 else None
ZONES = {"DMA": "dma", "DMA32": "dma32", "Normal": "normal", "Movable": "movable"}

zones = []  # (start, end, node, name)
cur = None
for line in open(os.path.join(sysroot, "proc/zoneinfo")):
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
pb_order = 9
pti = os.path.join(sysroot, "proc/pagetypeinfo")
if os.path.exists(pti):
    m = re.search(r"Page block order: (\d+)", open(pti).read())
    if m:
        pb_order = int(m.group(1))
cpu_node = {}
for f in glob.glob(os.path.join(sysroot, "sys/devices/system/node/node*/cpulist")):
    node = int(re.search(r"node(\d+)/cpulist", f).group(1))
    for part in open(f).read().strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        for c in range(int(a), int(b or a) + 1):
            cpu_node[c] = node
nodes = sorted({z[2] for z in zones})
lru_gen = 0
lg = os.path.join(sysroot, "sys/kernel/mm/lru_gen/enabled")
if os.path.exists(lg):
    lru_gen = int(open(lg).read().strip(), 0)
NEW = {"mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache", "mm_lru_insertion",
       "mm_lru_activate", "mm_vmscan_kswapd_wake", "mm_vmscan_kswapd_sleep", "mm_vmscan_wakeup_kswapd",
       "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end", "mm_vmscan_node_reclaim_begin",
       "mm_vmscan_node_reclaim_end", "mm_vmscan_lru_isolate", "mm_vmscan_lru_shrink_inactive",
       "mm_vmscan_lru_shrink_active", "mm_vmscan_write_folio"}

def zone_of(pfn):
    best = None
    for z in zones:
        if z[0] <= pfn < z[1] and (best is None or z[0] > best[0]):
            best = z
    return best

data = subprocess.run(["zstdcat", "-f", trace], capture_output=True, check=True).stdout.decode(errors="replace")
c = {}
def add(k, v=1):
    c[k] = c.get(k, 0) + v
for n in nodes:
    for k in ("numa_hit", "numa_miss", "numa_foreign", "local_node", "other_node"):
        c[f"node{n}.{k}"] = 0
# ftrace "comm-pid [cpu] flags time: event: ..." and perf script
# "comm pid[/tid] [cpu] time:   system:event: ..." (event names right-aligned)
line_re = re.compile(r"^\s*(.*?)(?:-\d+|\s+\d+(?:/\d+)?)\s+\[(\d+)\]\s+(?:\S+\s+)?([\d.]+):\s+(?:\w+:)?(mm_\w+):\s+(.*)$")
seen_new = False
kswapd_last = {}  # nid -> "run" or "wakeup": the last of the two since the node's kswapd_sleep
for line in data.splitlines():
    m = line_re.search(line)
    if not m:
        continue
    comm, cpu, ts, ev, rest = m.group(1), int(m.group(2)), float(m.group(3)), m.group(4), m.group(5)
    if window and not (window[0] <= ts < window[1]):
        continue
    if ev == "mm_vmscan_writepage":
        ev = "mm_vmscan_write_folio"
    if not ev.startswith("mm_page_") and ev not in NEW:
        continue
    f = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
    add("events_" + ev)
    if ev in NEW:
        if not seen_new:
            seen_new = True
            for k in ("pgsteal_kswapd", "pgsteal_direct", "pgscan_kswapd", "pgscan_direct", "pageoutrun",
                      "node_reclaim_calls", "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly"):
                add(k, 0)
        who = "kswapd" if comm.strip().startswith("kswapd") else "direct"
        if ev == "mm_vmscan_lru_shrink_inactive":
            add("pgsteal_" + who, int(f["nr_reclaimed"]))
            if not lru_gen & 1:
                add("pgscan_" + who, int(f["nr_scanned"]))
        elif ev == "mm_vmscan_lru_isolate" and lru_gen & 1:
            add("pgscan_" + who, int(f["nr_taken"]))
        elif ev == "mm_vmscan_kswapd_wake":
            add("pageoutrun")
            nid = f["nid"]
            if nid in kswapd_last:
                add("kswapd_low_wmark_hit_quickly" if kswapd_last[nid] == "wakeup" else
                    "kswapd_high_wmark_hit_quickly")
            kswapd_last[nid] = "run"
        elif ev == "mm_vmscan_kswapd_sleep":
            kswapd_last.pop(f["nid"], None)
        elif ev == "mm_vmscan_wakeup_kswapd":
            if f["nid"] in kswapd_last:
                kswapd_last[f["nid"]] = "wakeup"
        elif ev == "mm_vmscan_node_reclaim_begin":
            add("node_reclaim_calls")
        continue
    pfn = int(f["pfn"], 0) if "pfn" in f else None
    if ev == "mm_page_free":
        if zone_of(pfn):
            add("pgfree", 1 << int(f["order"]))
    elif ev == "mm_page_alloc":
        null = f.get("page") in ("(null)", "0000000000000000") or pfn == 0
        if null:
            continue
        z = zone_of(pfn)
        cn = cpu_node.get(cpu, 0 if not cpu_node else None)
        if z is None or cn is None:
            continue
        add("pgalloc_" + ZONES[z[3]], 1 << int(f["order"]))
        pref = z[2] if "__GFP_THISNODE" in f.get("gfp_flags", "") else cn
        if z[2] == pref:
            add("numa_hit"); add(f"node{z[2]}.numa_hit")
        else:
            add("numa_miss"); add(f"node{z[2]}.numa_miss"); add("numa_foreign"); add(f"node{pref}.numa_foreign")
        if z[2] == cn:
            add("numa_local"); add(f"node{z[2]}.local_node")
        else:
            add("numa_other"); add(f"node{z[2]}.other_node")
    elif ev == "mm_page_alloc_extfrag":
        add("extfrag_events")
        if f["change_ownership"] != "0":
            add("extfrag_change_ownership")
        if int(f["fallback_order"]) < pb_order:
            add("extfrag_fragmenting")
            a, fb = int(f["alloc_migratetype"]), int(f["fallback_migratetype"])
            name = {0: "unmovable", 1: "movable", 2: "reclaimable"}
            if a in name:
                add("extfrag_fragmenting_" + name[a])
                if a != 1 and fb in name and fb != a:
                    add(f"extfrag_fragmenting_{name[a]}_from_{name[fb]}")
for k in sorted(c):
    print(k, c[k])
