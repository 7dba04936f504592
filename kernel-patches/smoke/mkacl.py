#!/usr/bin/env python3
"""Encode a system.richacl value as 0x<hex> for setfattr -v.
usage: mkacl.py [--version V] FLAGS OWNERMASK GROUPMASK OTHERMASK [TYPE:FLAGS:MASK:ID ...]
ID may be a string for RICHACE_UNMAPPED_WHO (0x2000) entries. Numbers accept 0x."""
import struct, sys
args = sys.argv[1:]
version = 0
if args and args[0] == '--version':
    version = int(args[1], 0); args = args[2:]
flags, om, gm, xm = (int(a, 0) for a in args[:4])
ents = args[4:]
out = struct.pack('<BBHIII', version, flags, len(ents), om, gm, xm)
strings = b''
for e in ents:
    t, f, m, i = e.split(':', 3)
    f = int(f, 0)
    if f & 0x2000:
        strings += i.encode() + b'\0'
        i = '0'
    out += struct.pack('<HHII', int(t, 0), f, int(m, 0), int(i, 0))
print('0x' + (out + strings).hex())
