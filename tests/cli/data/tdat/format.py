#!/usr/bin/env python3
# format.py IN OUT WHAT - a trace.dat v6 (formats stored as text) with the
# format of kmem:mm_page_alloc, or the ring-buffer header_page, damaged:
#   no-order     the field 'order' renamed
#   order-size   'order' given 3 bytes
#   order-offset 'order' moved to offset 99, past the end of every record
#   ts-size      header_page's timestamp given 4 bytes
#   common-type  common_type given 4 bytes (every record's event id then
#                read wrong: "events that are not kmem page events")
import sys

src, dst, what = sys.argv[1:4]
d = open(src, 'rb').read()
ev = d.find(b'name: mm_page_alloc\nID')
order = d.find(b'field:unsigned int order;', ev)
assert ev > 0 and order > 0, 'no mm_page_alloc format with an order field'

def swap(at, old, new):
    global d
    k = d.find(old, at)
    assert k >= 0, old
    d = d[:k] + new + d[k + len(old):]

if what == 'no-order':
    swap(order, b'field:unsigned int order;', b'field:unsigned int ordXr;')
elif what == 'order-size':
    swap(order, b'size:4;', b'size:3;')
elif what == 'order-offset':
    swap(order, b'offset:16;', b'offset:99;')
elif what == 'ts-size':
    swap(0, b'field: u64 timestamp;\toffset:0;\tsize:8;', b'field: u64 timestamp;\toffset:0;\tsize:4;')
elif what == 'common-type':
    swap(ev, b'field:unsigned short common_type;\toffset:0;\tsize:2;', b'field:unsigned short common_type;\toffset:0;\tsize:4;')
else:
    sys.exit('format.py: unknown damage ' + what)
open(dst, 'wb').write(d)
