#!/usr/bin/env python3
# damage.py IN OUT WHAT [ARG] - a pagesim file with one hand-made defect:
#   pageblock N      the header's pageblock order set to N
#   stat TEXT        a STAT section holding TEXT (\n for new lines) after the header
#   fallback-order N the fallback_order of the first compact extfrag record set to N
#                    (the frame is decompressed and recompressed with the zstd tool)
import struct, subprocess, sys

src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3]
data = bytearray(open(src, 'rb').read())
assert data[:8] == b'PAGESIM\0'
hsize = struct.unpack_from('<H', data, 10)[0]

def sections():
    off = hsize
    while off + 16 <= len(data):
        size = struct.unpack_from('<Q', data, off + 8)[0]
        yield off, data[off:off + 4].decode(), size
        off += 16 + size

if what == 'pageblock':
    struct.pack_into('<i', data, 16, int(sys.argv[4]))
elif what == 'stat':
    text = sys.argv[4].replace('\\n', '\n').encode()
    data[hsize:hsize] = b'STAT' + bytes(4) + struct.pack('<Q', len(text)) + text
elif what == 'fallback-order':
    for off, tag, size in sections():
        if tag != 'EVTS':
            continue
        nr, raw_len = struct.unpack_from('<II', data, off + 16)
        z = bytes(data[off + 24:off + 16 + size])
        raw = bytearray(subprocess.run(['zstd', '-dcq'], input=z, stdout=subprocess.PIPE, check=True).stdout)
        lens = struct.unpack_from('<10I', raw, 0)
        col = 40 + sum(lens[:8])        # the XF column follows CTRL..GFP
        assert lens[8] >= 5, 'no compact extfrag record in the first frame'
        raw[col + 1] = int(sys.argv[4])
        z2 = subprocess.run(['zstd', '-cq', '-3'], input=bytes(raw), stdout=subprocess.PIPE, check=True).stdout
        sec = b'EVTS' + bytes(4) + struct.pack('<Q', 8 + len(z2)) + struct.pack('<II', nr, raw_len) + z2
        data[off:off + 16 + size] = sec
        break
else:
    sys.exit('damage.py: unknown defect ' + what)
open(dst, 'wb').write(data)
