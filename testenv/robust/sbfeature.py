#!/usr/bin/python3
"""Clear or set the richacl incompat feature bit (0x40000) of an ext4 image.

   sbfeature.py DEVICE clear|set|show

e2fsck 1.47 refuses a file system with the unknown incompat bit 0x40000
(EXT4_FEATURE_INCOMPAT_RICHACL of this project's series), and debugfs cannot
even open one to clear it.  This flips the bit in the primary superblock and
recomputes the superblock checksum (crc32c, when metadata_csum is on), so that
e2fsck -fn can check the file system in between.  Never run it on a mounted
file system.
"""

import struct
import sys

SB = 1024                       # primary superblock offset
INCOMPAT = 0x60                 # s_feature_incompat
RO_COMPAT = 0x64                # s_feature_ro_compat
CSUM = 0x3FC                    # s_checksum
RO_COMPAT_METADATA_CSUM = 0x400
RICHACL = 0x40000

_TABLE = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    _TABLE.append(c)


def crc32c_raw(data, crc=0xFFFFFFFF):
    """crc32c without the final inversion (the kernel's ext4_chksum)."""
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("clear", "set", "show"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    dev, op = sys.argv[1], sys.argv[2]
    with open(dev, "r+b" if op != "show" else "rb") as f:
        f.seek(SB)
        sb = bytearray(f.read(1024))
        incompat, = struct.unpack_from("<I", sb, INCOMPAT)
        ro_compat, = struct.unpack_from("<I", sb, RO_COMPAT)
        csum = bool(ro_compat & RO_COMPAT_METADATA_CSUM)
        if csum and struct.unpack_from("<I", sb, CSUM)[0] != crc32c_raw(sb[:CSUM]):
            print(f"{dev}: superblock checksum does not match", file=sys.stderr)
            return 1
        if op == "show":
            print(f"incompat 0x{incompat:x}, richacl bit {'set' if incompat & RICHACL else 'clear'}")
            return 0
        incompat = incompat & ~RICHACL if op == "clear" else incompat | RICHACL
        struct.pack_into("<I", sb, INCOMPAT, incompat)
        if csum:
            struct.pack_into("<I", sb, CSUM, crc32c_raw(sb[:CSUM]))
        f.seek(SB)
        f.write(sb)
        f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
