"""What this project's 6.1 kernel answers when it reads the richacl of an inode.

Adapted from the outside reviewer's model (kmodel.py of the e2fsck attack),
which called a compiled copy of the kernel decoder; here the decoder is
transcribed to Python, and attribute inode values are read and verified too.
Sources (linux-source-6.1 with the richacl series):

- fs/ext4/richacl.c ext4_get_richacl(): ext4_xattr_get(inode, 8, "") sizes
  and reads the value; length 0 or -ENODATA is no acl; the value is decoded
  by richacl_from_xattr(..., -EIO).  Symbolic links have no get_richacl
  (fs/ext4/symlink.c), so their acl is never read.
- fs/ext4/inode.c ext4_iget(): i_extra_isize 0 means no in-inode attributes
  (EXT4_STATE_XATTR is not set); otherwise xattr_check_inode() runs over the
  in-inode area, and i_file_acl must be a valid block.
- fs/ext4/xattr.c ext4_xattr_get(): the inode body first (xattr_find_entry
  unsorted: the first entry with index 8 and an empty name), then the block
  (magic, h_blocks 1, checksum, ext4_xattr_check_entries, xattr_find_entry
  sorted: the walk stops at the first entry that sorts at or after (8, "")).
  A value in an attribute inode: ext4_xattr_inode_iget (not the parent,
  EA_INODE_FL, no attributes of its own, linked), i_size equal to
  e_value_size, no holes, value hash and entry hash unless Lustre-style.
- fs/richacl_xattr.c richacl_from_xattr().

kernel_richacl() returns 'none' (no acl), 'ok' (an acl in force), 'EIO' (a
value that does not decode), or another error string (the value cannot be
read: EFSCORRUPTED, ESTALE, ERANGE, ...).
"""
import struct

from ext import (EA_INODE_FL, S_IFLNK, S_IFMT, XATTR_MAGIC, ReadError, crc32c,
                 ea_inode_entry_hash)

XATTR_SIZE_MAX = 65536
RICHACL_VALID_FLAGS = 0x01 | 0x02 | 0x04 | 0x20 | 0x40 | 0x80
RICHACE_IDENTIFIER_GROUP = 0x0040
RICHACE_UNMAPPED_WHO = 0x2000
RICHACE_SPECIAL_WHO = 0x4000
RICHACE_VALID_FLAGS = 0x01 | 0x02 | 0x04 | 0x08 | 0x80 | 0x40 | 0x2000 | 0x4000
RICHACE_VALID_MASK = 0x001F07FF
RICHACE_EVERYONE_SPECIAL_ID = 2
RICHACL_XATTR_MAX_COUNT = (XATTR_SIZE_MAX - 16) // 12


def richacl_valid(v):
    """richacl_from_xattr(): does the kernel accept value v?"""
    size = len(v)
    if size < 16 or size > XATTR_SIZE_MAX:
        return False
    version, flags, count, om, gm, xm = struct.unpack_from('<BBHIII', v, 0)
    if version != 0 or flags & ~RICHACL_VALID_FLAGS:
        return False
    if count > RICHACL_XATTR_MAX_COUNT:
        return False
    size -= 16
    if size < count * 12:
        return False
    strings = v[16 + count * 12:]
    if strings and strings[-1] != 0:
        return False
    if (om | gm | xm) & ~RICHACE_VALID_MASK:
        return False
    offs = 0
    for n in range(count):
        etype, eflags, emask, eid = struct.unpack_from('<HHII', v, 16 + 12 * n)
        if etype > 1 or eflags & ~RICHACE_VALID_FLAGS or emask & ~RICHACE_VALID_MASK:
            return False
        if eflags & RICHACE_SPECIAL_WHO:
            if eflags & (RICHACE_IDENTIFIER_GROUP | RICHACE_UNMAPPED_WHO):
                return False
            if eid > RICHACE_EVERYONE_SPECIAL_ID:
                return False
        elif eflags & RICHACE_UNMAPPED_WHO:
            if offs >= len(strings):
                return False
            nul = strings.find(b'\0', offs)
            ln = (nul if nul >= 0 else len(strings)) - offs
            if not ln:
                return False
            offs += ln + 1
        elif eid == 0xffffffff:        # neither uid nor gid maps
            return False
    return offs == len(strings)


def _u32(b, o):
    return struct.unpack_from('<I', b, o)[0]


def check_entries(buf, first, end, value_start):
    """ext4_xattr_check_entries(): None or 'EFSCORRUPTED'."""
    e = first
    while True:
        if e + 4 > len(buf):
            return 'EFSCORRUPTED'
        if _u32(buf, e) == 0:
            break
        nl = buf[e]
        nxt = e + ((16 + nl + 3) & ~3)
        if nxt >= end:
            return 'EFSCORRUPTED'
        if b'\0' in bytes(buf[e + 16:e + 16 + nl]):
            return 'EFSCORRUPTED'
        e = nxt
    last = e
    e = first
    while _u32(buf, e):
        nl, _idx, vo, vi, vs, _h = struct.unpack_from('<BBHIII', buf, e)
        if vs > XATTR_SIZE_MAX:
            return 'EFSCORRUPTED'
        if vs and not vi:
            if vo > end - value_start:
                return 'EFSCORRUPTED'
            val = value_start + vo
            if val < last + 4 or vs > end - val or ((vs + 3) & ~3) > end - val:
                return 'EFSCORRUPTED'
        e += (16 + nl + 3) & ~3
    return None


def find(buf, first, end, sorted_):
    """xattr_find_entry() for index 8, name "": offset, None, or an error."""
    e = first
    cmp = 1
    while _u32(buf, e):
        nl, idx = buf[e], buf[e + 1]
        nxt = e + ((16 + nl + 3) & ~3)
        if nxt >= end:
            return 'EFSCORRUPTED'
        cmp = 8 - idx
        if not cmp:
            cmp = 0 - nl
        if cmp <= 0 and (sorted_ or cmp == 0):
            break
        e = nxt
    return e if cmp == 0 else None


def ea_inode_value(img, parent_ino, parent_raw, buf, e):
    """ext4_xattr_inode_get(): the value bytes or an error string."""
    nl, _idx, _vo, vi, vs, ehash = struct.unpack_from('<BBHIII', buf, e)
    name = bytes(buf[e + 16:e + 16 + nl])
    if vi == parent_ino:
        return 'EFSCORRUPTED (parent is its own attribute inode)'
    if vi < img.first_ino or vi > img.inodes_count:
        return 'EFSCORRUPTED (attribute inode number out of range)'
    r = img.inode(vi)
    if img.field(r, 'links') == 0:
        return 'ESTALE (attribute inode not in use)'
    if not img.field(r, 'flags') & EA_INODE_FL:
        return 'EFSCORRUPTED (missing EA_INODE flag)'
    if img.ibody_first(r) is not None or img.file_acl(r):
        return 'EFSCORRUPTED (attribute inode with attributes)'
    lustre = (ehash != img.field(r, 'atime') and
              img.field(r, 'mtime') == parent_ino and
              img.field(r, 'generation') == img.field(parent_raw, 'generation'))
    size = img.field(r, 'size') | (img.field(r, 'size_high') << 32)
    if size != vs:
        return 'EFSCORRUPTED (attribute inode size %d, entry size %d)' % (size, vs)
    try:
        v = img.read_file(r, vs)
    except ReadError as x:
        return 'EFSCORRUPTED (%s)' % x
    if not lustre:
        h = crc32c(img.seed, v)
        if h != img.field(r, 'atime'):
            return 'EFSCORRUPTED (attribute inode hash)'
        if ea_inode_entry_hash(name, h) != ehash:
            return 'EFSCORRUPTED (entry hash)'
    return v


def read_value(img, ino, raw, buf, e, value_base, end):
    vs = _u32(buf, e + 8)
    if vs > XATTR_SIZE_MAX:
        return 'ERANGE'
    if _u32(buf, e + 4):
        return ea_inode_value(img, ino, raw, buf, e)
    vo = struct.unpack_from('<H', buf, e + 2)[0]
    if value_base + vo + vs > end:
        return 'ERANGE'
    return bytes(buf[value_base + vo:value_base + vo + vs])


def verdict(v):
    if isinstance(v, str):
        return v
    if len(v) == 0:
        return 'none'
    return 'ok' if richacl_valid(v) else 'EIO'


def kernel_richacl(img, ino):
    r = img.inode(ino)
    if img.field(r, 'mode') & S_IFMT == S_IFLNK:
        return 'none'
    # ext4_iget()
    first = img.ibody_first(r)
    if first is not None and check_entries(r, first, img.isz, first):
        return 'EFSCORRUPTED (iget: corrupted in-inode xattr)'
    blk = img.file_acl(r)
    if blk and not img.block_valid(blk):
        return 'EFSCORRUPTED (iget: bad extended attribute block)'
    # ext4_xattr_ibody_get()
    if first is not None:
        e = find(r, first, img.isz, False)
        if isinstance(e, str):
            return e
        if e is not None:
            return verdict(read_value(img, ino, r, r, e, first, img.isz))
    # ext4_xattr_block_get()
    if not blk:
        return 'none'
    b = img.block(blk)
    if _u32(b, 0) != XATTR_MAGIC or _u32(b, 8) != 1:
        return 'EFSCORRUPTED (xattr block header)'
    if img.csum and _u32(b, 16) != img.xattr_block_csum(blk, b):
        return 'EFSBADCRC (xattr block)'
    err = check_entries(b, 32, img.bs, 0)
    if err:
        return err + ' (xattr block entries)'
    e = find(b, 32, img.bs, True)
    if isinstance(e, str):
        return e
    if e is None:
        return 'none'
    return verdict(read_value(img, ino, r, b, e, 0, img.bs))


def bad(v):
    """Does the kernel fail to give this inode an acl or none?"""
    return v not in ('none', 'ok')
