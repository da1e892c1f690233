#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""mkseeds-tdat.py - seeds for fuzz_tdat and fuzz_tdat_pages.

    fuzz/mkseeds-tdat.py [TRACE.DAT]      default: testdata/uma-small/trace.dat

Reads the ring-buffer pages of a v7 trace.dat (zstd or not: the layout
trace/tdat_data.c reads) and writes small files made of some of them:
fuzz/corpus/tdat/ (whole files as tdat_data.c reads them: a header, options
sections, CPU data; v7 compressed or not, compressed options sections,
chained sections, top-level buffer or instance, v6 with and without an
instance) and fuzz/corpus/tdat_pages/ (a control byte, then pages; see
fuzz/fuzz_tdat.c).  Files of other names there (crash inputs kept as
regression seeds) are left alone.  The fuzz targets borrow the event formats
of testdata/uma-small/trace.dat: give a trace recorded on the same kernel.
Compresses through the zstd command.  Deterministic for the same input.
"""
import os
import struct
import subprocess
import sys

MAGIC = b"\x17\x08\x44tracing"
OPT_DONE, OPT_DATE, OPT_BUFFER, OPT_OFFSET, OPT_TSC2NSEC = 0, 1, 3, 7, 14
SEC_COMPRESS = 1


def zstd(data, decompress=False):
    args = ["zstd", "-q", "-c", "--no-check"] + (["-d"] if decompress else ["-19"])
    # through a file, so that the frame records its size as trace-cmd's do
    path = "/tmp/mkseeds-tdat.%d" % os.getpid()
    with open(path, "wb") as f:
        f.write(data)
    try:
        return subprocess.run(args + [path], check=True, stdout=subprocess.PIPE).stdout
    finally:
        os.unlink(path)


def cstr(b, pos):
    end = b.index(b"\0", pos)
    return b[pos:end].decode(), end + 1


def read_pages(path):
    """{buffer name: {cpu: [page bytes]}}, page size, long size."""
    b = open(path, "rb").read()
    assert b[:10] == MAGIC, "not a trace.dat"
    ver, pos = cstr(b, 10)
    assert ver == "7", "a v7 trace.dat, please"
    long_size, page = b[pos + 1], struct.unpack_from("<I", b, pos + 2)[0]
    pos += 6
    zname, pos = cstr(b, pos)
    _, pos = cstr(b, pos)
    off = struct.unpack_from("<Q", b, pos)[0]
    buffers = {}
    while off:
        ident, flags, _, size = struct.unpack_from("<HHIQ", b, off)
        body = b[off + 16:off + 16 + size]
        if flags & SEC_COMPRESS:
            zsize, _ = struct.unpack_from("<II", b, off + 16)
            body = zstd(b[off + 24:off + 24 + zsize], True)
        pos, off = 0, 0
        while pos + 6 <= len(body):
            oid, osize = struct.unpack_from("<HI", body, pos)
            data = body[pos + 6:pos + 6 + osize]
            pos += 6 + osize
            if oid == OPT_DONE:
                off = struct.unpack_from("<Q", data)[0] if osize >= 8 else 0
                break
            if oid != OPT_BUFFER:
                continue
            sec_off = struct.unpack_from("<Q", data)[0]
            name, q = cstr(data, 8)
            _, q = cstr(data, q)
            _, cpus = struct.unpack_from("<II", data, q)
            q += 8
            sflags = struct.unpack_from("<HH", b, sec_off)[1]
            per = {}
            for i in range(cpus):
                cpu, doff, dsize = struct.unpack_from("<IQQ", data, q + 20 * i)
                raw = b[doff:doff + dsize]
                if sflags & SEC_COMPRESS:
                    count = struct.unpack_from("<I", b, doff)[0]
                    raw, p = b"", doff + 4
                    for _ in range(count):
                        zsize, _ = struct.unpack_from("<II", b, p)
                        raw += zstd(b[p + 8:p + 8 + zsize], True)
                        p += 8 + zsize
                per[cpu] = [raw[i:i + page] for i in range(0, len(raw), page)]
            buffers[name] = per
    return buffers, page, long_size


def option(oid, data):
    return struct.pack("<HI", oid, len(data)) + data


def header(version, long_size, page, comp):
    h = MAGIC + version.encode() + b"\0" + bytes([0, long_size]) + struct.pack("<I", page)
    if version == "7":
        h += comp.encode() + b"\0" + (b"1.5.4" if comp == "zstd" else b"") + b"\0"
    return h


class File:
    def __init__(self, head):
        self.b = bytearray(head)

    def at(self):
        return len(self.b)

    def put(self, data):
        self.b += data

    def patch(self, pos, fmt, *v):
        struct.pack_into(fmt, self.b, pos, *v)


def cpu_data(pages, zstd_chunks):
    """A CPU's data: raw pages, or [count][chunks] with @zstd_chunks pages per chunk."""
    if not zstd_chunks:
        return b"".join(pages)
    chunks = [b"".join(pages[i:i + zstd_chunks]) for i in range(0, len(pages), zstd_chunks)]
    out = struct.pack("<I", len(chunks))
    for c in chunks:
        z = zstd(c)
        out += struct.pack("<II", len(z), len(c)) + z
    return out


def v7(long_size, page, bufs, comp="none", chunk=0, extra=b"", zopts=False, chain=False):
    """bufs: [(name, {cpu: pages})]; the BUFFER options go in a second section when @chain."""
    f = File(header("7", long_size, page, comp))
    opt_at = f.at()
    f.put(b"\0" * 8)
    # the flyrecord sections and data first, so that the options know their offsets
    bopts = b""
    for name, per in bufs:
        sec = f.at()
        data = {c: cpu_data(p, chunk) for c, p in per.items()}
        f.put(struct.pack("<HHIQ", OPT_BUFFER, SEC_COMPRESS if chunk else 0, 0, 0))
        regs = b""
        for c in sorted(data):
            regs += struct.pack("<IQQ", c, f.at(), len(data[c]) - (4 if chunk else 0))
            f.put(data[c])
        f.patch(sec + 8, "<Q", f.at() - sec - 16)
        bopts += option(OPT_BUFFER, struct.pack("<Q", sec) + name.encode() + b"\0local\0" +
                        struct.pack("<II", page, len(per)) + regs)

    def section(opts, nxt):
        body = opts + option(OPT_DONE, struct.pack("<Q", nxt))
        if zopts:
            z = zstd(body)
            return struct.pack("<HHIQ", 0, SEC_COMPRESS, 0, 8 + len(z)) + \
                struct.pack("<II", len(z), len(body)) + z
        return struct.pack("<HHIQ", 0, 0, 0, len(body)) + body

    first = f.at()
    if chain:
        # the second section follows the first, whose length (compressed) may depend on the offset
        s1 = section(extra, 0)
        while len(section(extra, first + len(s1))) != len(s1):
            s1 = section(extra, first + len(s1))
        f.put(section(extra, first + len(s1)))
        f.put(section(bopts, 0))
    else:
        f.put(section(extra + bopts, 0))
    f.patch(opt_at, "<Q", first)
    return bytes(f.b)


def v6(long_size, page, per, ncpu, instance=None, extra=b""):
    """Options right after the header (as fuzz_tdat reads v6), then flyrecord with @ncpu entries."""
    f = File(header("6", long_size, page, ""))

    def options_and_fly(opts, per):
        f.put(opts + b"\0\0" + b"flyrecord\0")
        table = f.at()
        f.put(b"\0" * 16 * ncpu)
        for c in sorted(per):
            f.patch(table + 16 * c, "<QQ", f.at(), len(per[c]) * page)
            f.put(b"".join(per[c]))

    if instance is None:
        options_and_fly(extra, per)
        return bytes(f.b)
    name, iper = instance
    bopt_at = f.at() + len(extra) + 6
    empty = {c: [] for c in per}
    options_and_fly(extra + option(OPT_BUFFER, b"\0" * 8 + name.encode() + b"\0"), empty)
    f.patch(bopt_at, "<Q", f.at())
    f.put(b"options  \0")
    options_and_fly(option(OPT_DATE, b"0x0\0"), iper)
    return bytes(f.b)


# ---- pages ----

RB_MISSED_EVENTS, RB_MISSED_STORED = 1 << 31, 1 << 30
# kmem event ids and record layouts of testdata/uma-small (its format/ directory)
ALLOC, EXTFRAG, PCPU_DRAIN, ZONE_LOCKED, FREE_BATCHED, FREE = 653, 650, 651, 652, 654, 655


def events(page, long_size):
    """(start, end) of each data event of a real page, in order."""
    commit = struct.unpack_from("<Q" if long_size == 8 else "<I", page, 8)[0] & ((1 << 27) - 1)
    start = 8 + long_size
    pos, out = 0, []
    while pos < commit:
        tl = struct.unpack_from("<I", page, start + pos)[0] & 31
        if tl == 29:
            nxt = pos + 4 + struct.unpack_from("<I", page, start + pos + 4)[0]
        elif tl in (30, 31):
            nxt = pos + 8
        elif tl == 0:
            nxt = pos + 8 + ((struct.unpack_from("<I", page, start + pos + 4)[0] - 4 + 3) & ~3)
        else:
            nxt = pos + 4 + 4 * tl
            out.append((pos, nxt))
        pos = nxt
    return out


def truncate(page, long_size, n, size):
    """A real page cut after its @n-th data event (commit lowered), @size bytes long."""
    ev = events(page, long_size)
    end = ev[min(n, len(ev)) - 1][1]
    start = 8 + long_size
    assert start + end <= size
    b = bytearray(page[:start + end]) + bytes(size - start - end)
    struct.pack_into("<Q" if long_size == 8 else "<I", b, 8, end)
    return bytes(b)


def ev(delta, payload):
    """A data event: type_len from the size, or 0 with the length in array[0] past 112 bytes."""
    payload += bytes(-len(payload) % 4)
    if len(payload) <= 112:
        return struct.pack("<I", len(payload) // 4 | delta << 5) + payload
    return struct.pack("<II", delta << 5, len(payload) + 4) + payload


def rec(eid, fmt, *fields, pid=4242):
    return struct.pack("<HBBi", eid, 0, 0, pid) + struct.pack("<" + fmt, *fields)


def synth_page(page_size, long_size, ts, lost=None, short=False):
    """Every kind of event and record the readers handle, in one page."""
    # the first event data: libtracecmd gives the lost events on it alone
    e = ev(100, rec(ALLOC, "QIIQi", 0x1000, 0, 0, 0xcc0, 0))
    e += struct.pack("<II", 31 | (5 << 5), 40)                     # absolute time stamp
    e += struct.pack("<II", 0 | (7 << 5), 36 + 4) + rec(ALLOC, "QIIQi", 0x2000, 3, 0, 0x100cca, 1)
    e += struct.pack("<II", 30 | (3 << 5), 2)                       # time extend
    e += ev(10, rec(ZONE_LOCKED, "QIii", 0x3000, 1, 1, 1))
    e += ev(10, rec(PCPU_DRAIN, "QIi", 0x3008, 0, 1))
    e += ev(10, rec(FREE, "QI", 0x1000, 0))
    e += ev(10, rec(FREE_BATCHED, "Q", 0x2000))
    e += ev(10, rec(EXTFRAG, "Qiiiii", 0x4000, 2, 5, 1, 0, 1))
    e += ev(10, rec(ALLOC, "QIIQi", 2**64 - 1, 9, 0, 0x400, -1))   # failed allocation
    e += struct.pack("<II", 29 | (1 << 5), 12) + bytes(8)           # padding (discarded event)
    e += ev(10, rec(1, "Q", 0))                                     # not a kmem event
    e += ev(10, rec(EXTFRAG, "Qiiiii", 0x4000, 12, 5, 1, 0, 1))     # order out of range
    e += ev(10, rec(ALLOC, ""))                                     # shorter than its fields
    e += ev(10, struct.pack("<H", FREE))                            # shorter than common fields
    if short:
        e = e[:40] + ev(100, rec(ALLOC, "QIIQi", 0x5000, 1, 0, 0xcc0, 0))
    commit = len(e) | (RB_MISSED_EVENTS if lost is not None else 0) | \
        (RB_MISSED_STORED if lost else 0)
    b = struct.pack("<Q", ts) + struct.pack("<Q" if long_size == 8 else "<I", commit) + e
    if lost:
        b += struct.pack("<Q" if long_size == 8 else "<I", lost)
    assert len(b) <= page_size
    return b + bytes(page_size - len(b))


def main():
    src = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(src, "..", "testdata", "uma-small",
                                                              "trace.dat")
    bufs, page, long_size = read_pages(path)
    name, per = max(bufs.items(), key=lambda kv: sum(len(p) for p in kv[1].values()))
    c0, c1 = sorted(per)[:2]
    ts0 = struct.unpack_from("<Q", per[c0][0])[0]
    # Pages of 1 KiB, mostly (the readers take any power of two from 256 on): real ones cut
    # short (few events: fast to fuzz, few bytes past the data), made-up ones with every kind of
    # event; real pages of the trace's size in one seed each.
    small = 1024
    t = [truncate(p, long_size, 16, small) for p in per[c0][:2] + per[c1][:2]]
    full = [per[c0][1], per[c1][1]]
    sa = synth_page(small, long_size, ts0, lost=123)
    sb = synth_page(small, long_size, ts0 + 500, lost=0)
    tsc = option(OPT_TSC2NSEC, struct.pack("<IIQ", 0x05555555, 24, 0))
    date = option(OPT_DATE, b"1700000000\0") + option(OPT_OFFSET, b"-12345\0")
    seeds = {
        "v7-zstd-instance": v7(long_size, small, [("", {}), (name, {c0: [sa, t[0]], c1: [t[2], sb]})],
                               "zstd", 2),
        "v7-zstd-top-chunk1": v7(long_size, small, [("", {c0: [t[0], t[1]], c1: [t[2]]})], "zstd",
                                 1, date),
        "v7-zstd-zopts-chain": v7(long_size, small, [("", {}), (name, {c0: [t[1]], c1: [t[3]]})],
                                  "zstd", 1, tsc, zopts=True, chain=True),
        "v7-none-top": v7(long_size, small, [("", {c0: [sa, t[0]], c1: [t[3]]})], "none", 0,
                          tsc + date),
        "v7-none-instance-chain": v7(long_size, small, [("", {}), (name, {c0: [t[1]], c1: [sb]})],
                                     "", 0, date, chain=True),
        "v7-none-real-pages": v7(long_size, page, [("", {c0: full[:1], c1: full[1:]})], "none"),
        "v6-top": v6(long_size, small, {c0: [sa], c1: [t[2]]}, 4, None, date),
        "v6-instance": v6(long_size, small, {c0: [], c1: []}, 4, (name, {c0: [t[0]], c1: [sb]}),
                          tsc),
        # regressions: DATE and OFFSET past the range of a long long (signed overflow)
        "regress-date-overflow": v7(long_size, small, [("", {c0: [sa]})], "none", 0,
                                    option(OPT_DATE, b"9223372036854775\0") +
                                    option(OPT_OFFSET, b"9223372036854775807\0")),
    }
    # control bytes: see fuzz/fuzz_tdat.c (bits 0-1 CPUs - 1, 2 long size 4, 3-4 page size
    # 4096/1024/256/4096, 5 TSC2NSEC, 6 OFFSET, 7 instance)
    pages = {
        "ctl09-2cpu": bytes([0x09]) + sa + t[0] + t[2] + sb,
        "ctl08-1cpu": bytes([0x08]) + sa,
        "ctlE9-instance-tsc-offset": bytes([0xE9]) + t[1] + t[3],
        "ctl0B-4cpu": bytes([0x0B]) + b"".join(t),
        "ctl0C-long4": bytes([0x0C]) + synth_page(small, 4, ts0, lost=7),
        "ctl10-256": bytes([0x10]) + synth_page(256, 8, ts0, short=True) +
        synth_page(256, 8, ts0 + 10, lost=3, short=True)[:100],
        "ctl00-real-page": bytes([0x00]) + full[0],
    }
    for d, files in (("tdat", seeds), ("tdat_pages", pages)):
        out = os.path.join(src, "corpus", d)
        os.makedirs(out, exist_ok=True)
        for n, b in files.items():
            # fuzz_tdat reads a size of 5k + 1 with --strict: not the seeds
            b += bytes(1 if len(b) % 5 == 1 else 0)
            assert len(b) <= 65536, "%s: %d bytes, more than fuzz/run.sh's -max_len" % (n, len(b))
            with open(os.path.join(out, n), "wb") as fh:
                fh.write(b)
            print("%s/%s: %d bytes" % (d, n, len(b)))


main()
