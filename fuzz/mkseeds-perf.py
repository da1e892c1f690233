#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkseeds-perf.py - seeds for fuzz_perf, cut from the bundled perf.data files.

    fuzz/mkseeds-perf.py [DIR]        default: testdata/perf (its *.data.zst)

Each seed is a real perf.data made small: the file header and attributes as
recorded, some of the data's records (the first ones, and for a file with
losses the LOST / LOST_SAMPLES records too), and of the features only the
tracing data, the release and the CPU count, the tracing data trimmed to the
event formats (no ftrace formats, kallsyms, printk formats or cmdlines).  The
same records are also written as a pipe's perf.data (perf record -o -): a
16-byte header, then HEADER_ATTR, HEADER_TRACING_DATA and HEADER_FEATURE
records before the data's.  Written to fuzz/corpus/perf/ as NAME[-pipe];
other files there (crash inputs kept as regression seeds) are left alone.
Reads the .zst files through the zstd command.  Deterministic.
"""
import os
import struct
import subprocess
import sys

FEAT_TRACING, FEAT_OSRELEASE, FEAT_NRCPUS = 1, 4, 7
KEEP_FEATS = (FEAT_TRACING, FEAT_OSRELEASE, FEAT_NRCPUS)
REC_LOST, REC_SAMPLE, REC_LOST_SAMPLES = 2, 9, 13
REC_ATTR, REC_TRACING, REC_FEATURE = 64, 66, 80
MAX_SEED = 24000
# COMM, EXIT, THROTTLE, FORK, SAMPLE, FINISHED_ROUND, COMPRESSED, COMPRESSED2
USED = (3, 4, 5, 7, 9, 68, 81, 83)


def trim_tracing(t):
    """The tracing data with only the event systems' formats."""
    p = 10
    z = t.index(b"\0", p)
    p = z + 1 + 2 + 4              # version, endian, long size, page size
    head_start = p
    for name in (b"header_page\0", b"header_event\0"):
        assert t[p:p + len(name)] == name
        p += len(name)
        n, = struct.unpack_from("<Q", t, p)
        p += 8 + n
    head = t[:p]
    count, = struct.unpack_from("<I", t, p)
    p += 4
    for _ in range(count):         # ftrace formats: dropped
        n, = struct.unpack_from("<Q", t, p)
        p += 8 + n
    start = p
    systems, = struct.unpack_from("<I", t, p)
    p += 4
    for _ in range(systems):
        z = t.index(b"\0", p)
        p = z + 1
        count, = struct.unpack_from("<I", t, p)
        p += 4
        for _ in range(count):
            n, = struct.unpack_from("<Q", t, p)
            p += 8 + n
    assert head_start < start
    return head + struct.pack("<I", 0) + t[start:p] + struct.pack("<IIQ", 0, 0, 0)


def parse(b):
    assert b[:8] == b"PERFILE2"
    attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", b, 16)
    bits = int.from_bytes(b[72:104], "little")
    feats = {}
    table = data_off + data_size
    for i, f in enumerate(f for f in range(256) if bits >> f & 1):
        o, s = struct.unpack_from("<QQ", b, table + 16 * i)
        feats[f] = b[o:o + s]
    recs = []
    off = data_off
    while off < data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", b, off)
        recs.append(b[off:off + size])
        off += size
    attrs = []
    for o in range(attrs_off, attrs_off + attrs_size, attr_size):
        a = b[o:o + attr_size - 16]
        ids_off, ids_size = struct.unpack_from("<QQ", b, o + attr_size - 16)
        asize, = struct.unpack_from("<I", a, 4)
        attrs.append((a[:asize or 64], b[ids_off:ids_off + ids_size]))
    return b[:data_off], data_off, recs, feats, attrs


def file_seed(head, data_off, recs, feats):
    data = b"".join(recs)
    keep = [f for f in KEEP_FEATS if f in feats]
    bits = sum(1 << f for f in keep)
    h = bytearray(head)
    struct.pack_into("<Q", h, 48, len(data))
    h[72:104] = bits.to_bytes(32, "little")
    table_off = data_off + len(data)
    body, table = b"", b""
    at = table_off + 16 * len(keep)
    for f in keep:
        table += struct.pack("<QQ", at + len(body), len(feats[f]))
        body += feats[f]
    return bytes(h) + data + table + body


def pipe_seed(recs, feats, attrs):
    out = b"PERFILE2" + struct.pack("<Q", 16)
    for a, ids in attrs:
        out += struct.pack("<IHH", REC_ATTR, 0, 8 + len(a) + len(ids)) + a + ids
    for f in (FEAT_OSRELEASE, FEAT_NRCPUS):
        if f in feats:
            d = feats[f]
            out += struct.pack("<IHHQ", REC_FEATURE, 0, 16 + len(d), f) + d
    t = feats[FEAT_TRACING]
    t += b"\0" * (-len(t) % 8)
    out += struct.pack("<IHHI", REC_TRACING, 0, 12, len(t)) + t
    return out + b"".join(recs)


def pick(recs, budget):
    """
    Records within @budget bytes, in file order: the losses wherever they are; samples, rounds
    and compressed records up to two thirds of the budget (a system-wide recording starts with
    one COMM per task on the machine); task records up to the budget; one of every other kind.
    """
    kind = lambda r: struct.unpack_from("<I", r)[0]
    passes = (((REC_LOST, REC_LOST_SAMPLES), budget), ((9, 68, 81, 83), budget * 2 // 3),
              ((3, 4, 5, 7), budget), (None, budget))
    chosen, seen, n = set(), set(), 0
    for kinds, limit in passes:
        for i, r in enumerate(recs):
            k = kind(r)
            if i in chosen or (kinds is None and (k in USED or k in seen or k in passes[0][0])) or \
               (kinds is not None and k not in kinds):
                continue
            if n + len(r) > limit:
                break
            seen.add(k)
            chosen.add(i)
            n += len(r)
    return [r for i, r in enumerate(recs) if i in chosen]


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "testdata", "perf")
    dst = os.path.join(top, "fuzz", "corpus", "perf")
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".data.zst"):
            continue
        b = subprocess.run(["zstd", "-q", "-d", "-c", os.path.join(src, name)],
                           check=True, capture_output=True).stdout
        head, data_off, recs, feats, attrs = parse(b)
        feats[FEAT_TRACING] = trim_tracing(feats[FEAT_TRACING])
        base = name[:-len(".data.zst")]
        fixed = len(head) + sum(len(feats[f]) for f in KEEP_FEATS if f in feats) + 64
        chosen = pick(recs, MAX_SEED - fixed - 2048)
        for suffix, seed in (("", file_seed(head, data_off, chosen, feats)),
                             ("-pipe", pipe_seed(chosen, feats, attrs))):
            with open(os.path.join(dst, base + suffix), "wb") as f:
                f.write(seed)
            print("%s%s: %d bytes, %d records" % (base, suffix, len(seed), len(chosen)))


main()
