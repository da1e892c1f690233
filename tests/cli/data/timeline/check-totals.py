#!/usr/bin/env python3
"""check-totals.py TIMELINE TOTALS [--stat STAT_TOTALS] [--state-dir DIR] [--jsonl JSONL]

Checks a pagesim timeline against the totals the same command printed: every column's
rows sum (kind delta) or end (kind level) at what its header's total names, read from
TOTALS ("name value" lines), STAT_TOTALS (for "stat:NAME": pagesim stat on the same
trace with the same filters) or DIR/pagetypeinfo ("pagetypeinfo:NODE:ZONE:TYPE:ORDER");
"zones:NAME" totals are checked summed over the zones' columns of the same kind; a total
ending in '?' that is not printed (a trace without reclaim events) means 0.  With
DIR, each zone's free pages and free blocks per order in the last row must also equal
DIR/buddyinfo.  With --jsonl, the JSON-lines timeline of the same run must hold the same
columns and rows.  Every column must have a name no other column has, and name a total
that is found.  Exit 1 on a mismatch.
"""
import csv
import json
import re
import sys

args = sys.argv[1:]
opt = {}
pos = []
while args:
    a = args.pop(0)
    if a.startswith("--"):
        opt[a[2:]] = args.pop(0)
    else:
        pos.append(a)
timeline, totals_path = pos


def load_kv(path):
    d = {}
    for line in open(path):
        p = line.split()
        if len(p) == 2 and not line.startswith("#"):
            d[p[0]] = int(p[1])
    return d


def load_csv(path):
    kind = total = None
    data = []
    for line in open(path):
        if line.startswith("# kind: "):
            kind = next(csv.reader([line[len("# kind: "):]]))
        elif line.startswith("# total: "):
            total = next(csv.reader([line[len("# total: "):]]))
        elif not line.startswith("#"):
            data.append(line)
    rows = list(csv.reader(data))
    return rows[0], kind, total, rows[1:]


names, kind, total, rows = load_csv(timeline)
assert names[:2] == ["start_s", "end_s"], names[:2]
assert len(kind) == len(names) == len(total), (len(kind), len(names), len(total))
assert rows, "no rows"
totals = load_kv(totals_path)
stat = load_kv(opt["stat"]) if "stat" in opt else None
fail = 0


def bad(msg):
    global fail
    print("FAIL:", msg)
    fail = 1


# a name per column: JSON lines key the rows by it
dup = sorted({n for n in names if names.count(n) > 1})
if dup:
    bad(f"columns named twice: {', '.join(dup)}")

# intervals: contiguous, of the header's length
interval = None
for line in open(timeline):
    m = re.match(r"# interval_ns: (\d+)", line)
    if m:
        interval = int(m.group(1))
prev_end = None
for r in rows:
    s, e = (round(float(x) * 1e9) for x in r[:2])
    if e - s != interval:
        bad(f"row {r[:2]} is not {interval} ns long")
    if prev_end is not None and s != prev_end:
        bad(f"row {r[:2]} does not start where the one before ended")
    prev_end = e

pti = {}
buddy = {}
if "state-dir" in opt:
    d = opt["state-dir"]
    for line in open(d + "/pagetypeinfo"):
        m = re.match(r"Node\s+(\d+), zone\s+(\S+), type\s+(\S+)\s+(.*)", line)
        if m:
            for o, v in enumerate(m.group(4).split()):
                pti[(m.group(1), m.group(2), m.group(3), str(o))] = int(v)
    for line in open(d + "/buddyinfo"):
        m = re.match(r"Node (\d+), zone\s+(\S+)\s+(.*)", line)
        if m:
            buddy[(m.group(1), m.group(2))] = [int(v) for v in m.group(3).split()]


def value(name):
    if name.startswith("stat:"):
        if stat is None:
            return None
        return stat.get(name[5:])
    if name.startswith("pagetypeinfo:"):
        return pti.get(tuple(name.split(":")[1:]))
    return totals.get(name)


checked = 0
zones = {}
for i, n in enumerate(names[2:], 2):
    col = [int(r[i]) for r in rows]
    got = sum(col) if kind[i] == "delta" else col[-1]
    t = total[i]
    if not t:
        bad(f"{n}: no total named")
        continue
    if t.startswith("zones:"):
        suffix = n.split(".", 2)[2]
        zones.setdefault((t[6:], suffix, kind[i]), []).append(got)
        continue
    optional = t.endswith("?")   # printed only when the trace has such events: else 0
    parts = t.rstrip("?").split("+")
    vals = [value(p) for p in parts]
    if optional and any(v is None for v in vals):
        if t.startswith("stat:") and stat is None:
            continue
        if got != 0:
            bad(f"{n} ({kind[i]}): {got}, and its total {t} is not printed (0)")
        checked += 1
        continue
    if any(v is None for v in vals):
        if t.startswith("stat:") and stat is None:
            continue
        bad(f"{n}: total {t} not printed")
        continue
    if got != sum(vals):
        bad(f"{n} ({kind[i]}): {got} != {t} = {sum(vals)}")
    checked += 1
for (t, suffix, k), vals in zones.items():
    if totals.get(t) is None:
        bad(f"*.{suffix}: total {t} not printed")
    elif sum(vals) != totals[t]:
        bad(f"*.{suffix} ({k}) over {len(vals)} zones: {sum(vals)} != {t} = {totals[t]}")
    checked += 1
# the last row against the final buddyinfo
last = dict(zip(names, rows[-1]))
for (node, zone), orders in buddy.items():
    base = f"node{node}.{zone}"
    free = int(last[base + ".free"])
    pages = sum(n << o for o, n in enumerate(orders))
    if free != pages:
        bad(f"{base}.free at the end {free} != buddyinfo's {pages} pages")
    for o, n in enumerate(orders):
        mts = [k for k in names if k.startswith(f"{base}.free.order{o}.")]
        s = sum(int(last[k]) for k in mts)
        if s != n:
            bad(f"{base} order {o}: {s} free blocks over the migratetypes != buddyinfo's {n}")
    checked += 1
if "jsonl" in opt:
    with open(opt["jsonl"]) as f:
        head = json.loads(f.readline())
        jrows = [json.loads(line) for line in f]
    jnames = [c["name"] for c in head["columns"]]
    if jnames != names or [c["kind"] for c in head["columns"]] != kind:
        bad("the JSON lines' columns differ from the CSV's")
    if [c["total"] for c in head["columns"]] != total:
        bad("the JSON lines' totals differ from the CSV's")
    if len(jrows) != len(rows):
        bad(f"{len(jrows)} JSON rows, {len(rows)} CSV rows")
    for jr, r in zip(jrows, rows):
        if [str(jr[n]) if i >= 2 else "%.9f" % jr[n] for i, n in enumerate(names)] != r:
            bad(f"JSON row {jr['start_s']} differs from the CSV's")
            break
    checked += 1
print(f"{checked} checks over {len(names) - 2} columns and {len(rows)} rows")
sys.exit(fail)
