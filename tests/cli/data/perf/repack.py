#!/usr/bin/env python3
"""repack.py IN OUT CUT...: rewrites the zstd records of a 'perf record -z' perf.data.

The records' decompressed stream is cut at the byte offsets CUT... (a cut may fall inside a
record, as perf's own do where a ring buffer wraps), the pieces compressed as one zstd stream
flushed after each piece (as perf record -z writes it), and each piece written as one
PERF_RECORD_COMPRESSED where the first of the old ones was; the other records and the feature
sections stay as they were (their offsets moved).  A CUT of +N is N bytes past the previous cut,
-N is N bytes before the end of the stream.  Prints the pieces' decompressed sizes.  Uses libzstd
through ctypes.
"""
import ctypes, ctypes.util, struct, sys

z = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
class Buf(ctypes.Structure):
    _fields_ = [("p", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]
z.ZSTD_createDStream.restype = ctypes.c_void_p
z.ZSTD_decompressStream.restype = ctypes.c_size_t
z.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(Buf), ctypes.POINTER(Buf)]
z.ZSTD_isError.argtypes = [ctypes.c_size_t]
z.ZSTD_createCCtx.restype = ctypes.c_void_p
z.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
z.ZSTD_CCtx_setParameter.restype = ctypes.c_size_t
z.ZSTD_compressStream2.argtypes = [ctypes.c_void_p, ctypes.POINTER(Buf), ctypes.POINTER(Buf), ctypes.c_int]
z.ZSTD_compressStream2.restype = ctypes.c_size_t
cs = z.ZSTD_createCCtx()
z.ZSTD_CCtx_setParameter(cs, 100, 19)	# ZSTD_c_compressionLevel

def streamed(step, data, what):
    """Calls step(out, in) on data until it is done with it (step says so); the output joined."""
    src = ctypes.create_string_buffer(data, len(data))
    inb = Buf(ctypes.cast(src, ctypes.c_void_p), len(data), 0)
    out = b""
    while True:
        dst = ctypes.create_string_buffer(1 << 20)
        outb = Buf(ctypes.cast(dst, ctypes.c_void_p), 1 << 20, 0)
        ret = step(ctypes.byref(outb), ctypes.byref(inb))
        if z.ZSTD_isError(ret):
            sys.exit("repack.py: zstd %s failed" % what)
        out += dst.raw[:outb.pos]
        if (ret == 0) if what == "compression" else (inb.pos == inb.size and outb.pos < outb.size):
            return out

def decompress(ds, data):
    """The next piece of the file's zstd stream: until the input is used and nothing is held back."""
    return streamed(lambda o, i: z.ZSTD_decompressStream(ds, o, i), data, "decompression")

def compress(data):
    """The next piece of one endless zstd stream, flushed (as perf record -z writes it)."""
    return streamed(lambda o, i: z.ZSTD_compressStream2(cs, o, i, 1), data, "compression")	# ZSTD_e_flush

src, dst = sys.argv[1], sys.argv[2]
b = open(src, "rb").read()
assert b[:8] == b"PERFILE2"
data_off, data_size = struct.unpack_from("<QQ", b, 40)
features = struct.unpack_from("<4Q", b, 72)
ds = z.ZSTD_createDStream()
stream, recs, first = b"", [], None
off = data_off
while off < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if typ in (81, 83):
        payload = b[off + 8:off + size]
        if typ == 83:
            payload = payload[8:8 + struct.unpack_from("<Q", payload)[0]]
        stream += decompress(ds, payload)
        if first is None:
            first = len(recs)
            recs.append(None)
    else:
        recs.append(b[off:off + size])
    off += size
if first is None:
    sys.exit("repack.py: %s has no compressed records" % src)
cuts, at = [], 0
for c in sys.argv[3:]:
    at = at + int(c[1:]) if c[0] == "+" else len(stream) + int(c) if c[0] == "-" else int(c)
    if not (0 < at < len(stream)) or cuts and at <= cuts[-1]:
        sys.exit("repack.py: cut %s is outside the stream (%d bytes) or out of order" % (c, len(stream)))
    cuts.append(at)
bounds = [0] + cuts + [len(stream)]
packed = b""
for lo, hi in zip(bounds, bounds[1:]):
    frame = compress(stream[lo:hi])
    if len(frame) + 8 > 0xffff:
        sys.exit("repack.py: a piece of %d bytes compresses to %d: cut it smaller" % (hi - lo, len(frame)))
    packed += struct.pack("<IHH", 81, 0, len(frame) + 8) + frame
    print(hi - lo)
recs[first] = packed
data = b"".join(recs)
delta = len(data) - data_size
out = bytearray(b[:data_off]) + data + b[data_off + data_size:]
struct.pack_into("<Q", out, 48, len(data))
nfeat = sum(bin(f).count("1") for f in features)
table = data_off + len(data)
for i in range(nfeat):
    o, s = struct.unpack_from("<QQ", out, table + 16 * i)
    struct.pack_into("<Q", out, table + 16 * i, o + delta)
open(dst, "wb").write(out)
