#!/usr/bin/env python3
# mkseeds-replay.py OUTDIR - seeds for fuzz_replay and fuzz_lock (format in
# fuzz/fuzz_replay.c): runs of testdata/uma-small's events with their own
# time deltas, the same rounded to 1 s and 0.1 s (a coarse trace clock), in
# reverse, with one timestamp far ahead, all at one time, and a burst of
# pcp refills at one time, each under a few mode bytes.
import os, re, struct, subprocess, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
text = subprocess.run(['zstdcat', os.path.join(here, '..', 'testdata', 'uma-small', 'trace.txt.zst')],
                      stdout=subprocess.PIPE, check=True).stdout.decode(errors='replace')
names = ['mm_page_alloc', 'mm_page_free', 'mm_page_free_batched', 'mm_page_alloc_zone_locked',
         'mm_page_pcpu_drain', 'mm_page_alloc_extfrag']
line_re = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\].*?\s(\d+)\.(\d+): (\w+): (.*)$')
events = []
for line in text.splitlines():
    m = line_re.match(line)
    if not m or m.group(6) not in names:
        continue
    f = dict(kv.split('=', 1) for kv in m.group(7).split() if '=' in kv)
    pfn = int(f.get('pfn', '0'), 0)
    events.append(dict(type=names.index(m.group(6)), cpu=int(m.group(3)), comm=m.group(1).strip(),
                       ts=int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, '0')[:9]),
                       order=int(f.get('order', f.get('alloc_order', '0'))),
                       mt=int(f.get('migratetype', f.get('alloc_migratetype', '1'))),
                       refill=int(f.get('percpu_refill', '1')), fb=int(f.get('fallback_order', '0')),
                       pfn=pfn))

def record(e, dt):
    t = e['type'] | (8 if e['comm'].startswith('kswapd') else 16 if e['comm'].startswith('kcompactd') else 0)
    t |= ((e['mt'] + 1) & 7) << 5
    zone = 0 if e['pfn'] < (1 << 20) else 1 + (e['pfn'] >> 21) % 2
    pv = (zone << 30) | (e['pfn'] & 0x3fffffff)
    return struct.pack('<BBBBIi', t, e['cpu'], (e['order'] % 11) | (e['refill'] << 7), e['fb'] % 11,
                       pv, max(-2**31, min(2**31 - 1, dt)))

def seed(name, evs, deltas, heads):
    for h in heads:
        data = bytes(h) + b''.join(record(e, d) for e, d in zip(evs, deltas))
        with open(os.path.join(out, '%s-%s' % (name, bytes(h).hex())), 'wb') as f:
            f.write(data)

def deltas(evs, quantum=1):
    ts = [e['ts'] // quantum * quantum for e in evs]
    return [0] + [b - a for a, b in zip(ts, ts[1:])]

heads = [(0, 0x80, 0, 0, 0, 0), (1, 0, 0, 0, 1, 2), (2, 0x80, 0, 0, 0, 0), (0xa7, 0, 4, 4, 0, 0)]
for start in (0, 5000, 20000):
    evs = events[start:start + 80]
    seed('real%d' % start, evs, deltas(evs), heads)
    # a coarse clock: deltas of whole seconds or tenths, in units of 2^20 ns (~1 ms)
    seed('coarse1s%d' % start, evs, [d >> 20 for d in deltas(evs, 10**9)], [(h[0], h[1] | 20) + tuple(h[2:]) for h in heads])
    seed('coarse100ms%d' % start, evs, [d >> 20 for d in deltas(evs, 10**8)], [(h[0], h[1] | 20) + tuple(h[2:]) for h in heads])
    seed('reversed%d' % start, evs[::-1], deltas(evs[::-1]), heads)
    d = deltas(evs)
    seed('farahead%d' % start, evs, [d[0], 2**31 - 1] + [-x for x in d[2:]], [(h[0], h[1] | 30) + tuple(h[2:]) for h in heads])
    seed('onetime%d' % start, evs, [0] * len(evs), heads)
# refills of 8 blocks at one time on four CPUs: the lock queue holds them all at once
burst = []
for i in range(9):
    for k in range(8):
        burst.append(dict(type=3, cpu=i % 4, comm='t', ts=0, order=0, mt=1, refill=1, fb=0, pfn=(1 << 20) + i * 8 + k))
    burst.append(dict(type=0, cpu=i % 4, comm='t', ts=0, order=0, mt=1, refill=0, fb=0, pfn=(1 << 20) + i * 8))
seed('burst', burst, [0] * len(burst), heads)
