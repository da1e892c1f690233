#!/usr/bin/env python3
# sections.py FILE - the sections of a pagesim file, one per line:
# "TAG OFFSET END EVENTS" (EVENTS is the frame's event count, 0 for others).
import struct, sys
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'PAGESIM\0'
hsize = struct.unpack_from('<H', data, 10)[0]
off = hsize
while off + 16 <= len(data):
    tag = data[off:off + 4].decode()
    size = struct.unpack_from('<Q', data, off + 8)[0]
    n = struct.unpack_from('<I', data, off + 16)[0] if tag == 'EVTS' else 0
    print(tag.strip(), off, off + 16 + size, n)
    off += 16 + size
