#!/usr/bin/env python3
"""damage.py IN OUT HOW N: writes a copy of the perf.data IN with one kind of damage, for the
bad-perf-* cases.  Walks the data section's records itself (header, u32 type, u16 misc, u16 size)
and counts PERF_RECORD_SAMPLE (9) records; compressed records (perf record -z) are not entered.

  HOW = size0    the Nth sample's record size set to 0 (the record stream cannot go on)
  HOW = rawtype  the Nth sample's raw tracepoint data given another event's common_type
  HOW = cut      the file cut in the middle of the Nth sample (data size left as it was)
  HOW = killed   as perf record leaves it when killed: data size 0, no features past the data
  HOW = format   a '$' in the arguments of the print fmt of the Nth event format of the
                 tracing data (libtraceevent's parser crashes on it)
  HOW = comma    mm_page_alloc_zone_locked's print fmt with a comma between two arguments
                 gone (the shape is right; libtraceevent's parser crashes on it)

Prints the file offset of the record it damaged.
"""
import struct, sys

src, dst, how, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
b = bytearray(open(src, "rb").read())
assert b[:8] == b"PERFILE2"
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQQ", b, 16)
sample_type = struct.unpack_from("<Q", b, attrs_off + 24)[0]
off, seen = data_off, 0
while off < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", b, off)
    if typ == 9:
        seen += 1
        if seen == n:
            break
    off += size
else:
    sys.exit("no sample %d" % n)
if how == "size0":
    struct.pack_into("<H", b, off + 6, 0)
elif how == "rawtype":
    # the fields before RAW: IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD (8 bytes each);
    # no READ or CALLCHAIN in the bundled per-task file
    p = off + 8 + 8 * bin(sample_type & 0x3cf | (sample_type >> 16 & 1)).count("1")
    assert not sample_type & (1 << 4 | 1 << 5)
    raw_size = struct.unpack_from("<I", b, p)[0]
    assert raw_size >= 8
    struct.pack_into("<H", b, p + 4, 9999)       # common_type: the first field
elif how == "cut":
    b = b[:off + size // 2]
elif how == "format":
    at = -1
    for _ in range(n):
        at = b.index(b"\nprint fmt: ", at + 1)
    comma = b.index(b"), ", at)           # after the first argument
    b[comma + 1:comma + 2] = b"$"
    off = at
elif how == "comma":
    at = b.index(b"name: mm_page_alloc_zone_locked\n")
    arg = b.index(b"REC->pfn : 0, REC->order", at)
    b[arg:arg + 24] = b"REC->pfn : 03 REC->order"
    off = at
elif how == "killed":
    struct.pack_into("<Q", b, 48, 0)
    b[72:104] = bytes(32)
    b = b[:data_off + data_size]
else:
    sys.exit("how: size0, rawtype, cut, killed, format or comma")
open(dst, "wb").write(b)
print(off)
