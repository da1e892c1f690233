#!/usr/bin/env python3
"""An independent grouping of a trace's zone->lock sections, for checking `pagesim lockstat`.

Reads ftrace / trace-cmd report text (zstd or plain) with regular expressions, the
sysroot's zoneinfo (zone of a pfn) and osrelease (which orders use pcp lists), and
groups the events per CPU the way the kernel takes zone->lock:
  refill        a run of mm_page_alloc_zone_locked with percpu_refill=1 on one CPU for
                one zone (extfrag events inside it allowed), ended by any other event
                of that CPU;
  drain         a run of mm_page_pcpu_drain on one CPU for one zone;
  direct_alloc  one mm_page_alloc_zone_locked with percpu_refill=0;
  direct_free   one mm_page_free of an order the kernel does not put on pcp lists
                (order > 0 before 5.14; not 0..3 and not the pageblock order from 5.14);
  fallback      a refill or direct alloc holding an extfrag event (counted only there).
Prints `trace_sections_<cause> N` and `zone_lock_acquisitions N`, sorted.
Written separately from pagesim's C code on purpose: it shares no code with it.
"""
import os, re, subprocess, sys

trace, sysroot = sys.argv[1], sys.argv[2]

zones = []  # (start, end)
cur = None
for line in open(os.path.join(sysroot, "proc/zoneinfo")):
    m = re.match(r"Node (\d+), zone\s+(\S+)", line)
    if m:
        cur = {"spanned": 0}
        continue
    m = re.match(r"\s+spanned\s+(\d+)", line)
    if m and cur is not None:
        cur["spanned"] = int(m.group(1))
    m = re.match(r"\s+start_pfn:\s+(\d+)", line)
    if m and cur is not None and cur["spanned"]:
        s = int(m.group(1))
        zones.append((s, s + cur["spanned"]))

release = open(os.path.join(sysroot, "proc/sys/kernel/osrelease")).read().strip()
major, minor = (int(x) for x in re.match(r"(\d+)\.(\d+)", release).groups())
high_orders = (major, minor) >= (5, 14)


def zone_of(pfn):
    for i, (s, e) in enumerate(zones):
        if s <= pfn < e:
            return i
    return None


def pcp_order(order, pageblock_order):
    if not high_orders:
        return order == 0
    return order <= 3 or order == pageblock_order


if trace.endswith(".zst"):
    text = subprocess.run(["zstd", "-dc", trace], check=True, capture_output=True).stdout.decode()
else:
    text = open(trace).read()

ev_re = re.compile(r"\[(\d+)\].*?\s(mm_page_\w+):\s+(.*)$")
counts = {c: 0 for c in ("refill", "drain", "direct_alloc", "direct_free", "fallback")}
run = {}        # cpu -> [kind, zone, fallback]
pending = {}    # cpu -> zone of an extfrag waiting for its zone_locked
pageblock_order = 9


def close(cpu):
    r = run.pop(cpu, None)
    if r:
        counts["fallback" if r[2] else r[0]] += 1


for line in text.splitlines():
    m = ev_re.search(line)
    if not m:
        continue
    cpu, name, rest = int(m.group(1)), m.group(2), m.group(3)
    if name == "mm_page_free_batched":
        continue
    f = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
    pfn = f.get("pfn")
    zone = None
    if pfn is not None:
        p = int(pfn, 0)
        zone = zone_of(p) if p else None
    if "pageblock_order" in f:
        pageblock_order = int(f["pageblock_order"])
    r = run.get(cpu)
    if name == "mm_page_alloc_zone_locked":
        if zone is None and r and r[0] == "refill":
            zone = r[1]
        if zone is None:
            continue
        if f.get("percpu_refill") == "1":
            if r and r[0] == "refill" and r[1] == zone:
                pass
            else:
                close(cpu)
                run[cpu] = ["refill", zone, pending.get(cpu) == zone]
            pending.pop(cpu, None)
        else:
            close(cpu)
            counts["fallback" if pending.get(cpu) == zone else "direct_alloc"] += 1
            pending.pop(cpu, None)
    elif name == "mm_page_alloc_extfrag":
        if zone is None:
            continue
        if r and r[0] == "refill" and r[1] == zone:
            r[2] = True
        else:
            close(cpu)
            pending[cpu] = zone
    elif name == "mm_page_pcpu_drain":
        if zone is None:
            continue
        if not (r and r[0] == "drain" and r[1] == zone):
            close(cpu)
            run[cpu] = ["drain", zone, False]
        pending.pop(cpu, None)
    elif name in ("mm_page_alloc", "mm_page_free"):
        close(cpu)
        pending.pop(cpu, None)
        if name == "mm_page_free" and zone is not None and not pcp_order(int(f["order"]), pageblock_order):
            counts["direct_free"] += 1
for cpu in list(run):
    close(cpu)

out = {"trace_sections_" + c: n for c, n in counts.items()}
out["zone_lock_acquisitions"] = sum(counts.values())
for k in sorted(out):
    print(k, out[k])
