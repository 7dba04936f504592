"""Raw ext4 image reading and editing for the e2fsck richacl tests.

Adapted from the outside reviewer's reproducer library (the ext.py of the
e2fsck attack): in-inode attribute areas, attribute blocks and attribute
inodes are written byte by byte, as corruption would leave them.  Unlike the
original, inode and attribute block checksums are kept right on metadata_csum
file systems, and values are read back (also from attribute inodes) to
compare them.

Image files only: nothing here mounts, attaches or loads anything.
"""
import collections
import os
import struct
import subprocess

XATTR_MAGIC = 0xEA020000
EA_INODE_FL = 0x200000
EXTENTS_FL = 0x80000
RICHACL_INDEX = 8

RO_COMPAT_METADATA_CSUM = 0x400
INCOMPAT_64BIT = 0x80
INCOMPAT_CSUM_SEED = 0x2000
INCOMPAT_RICHACL = 0x40000

S_IFMT = 0o170000
S_IFLNK = 0o120000


class ReadError(Exception):
    """Data the kernel could not read (a hole, a block out of range)."""


# crc32c (Castagnoli), without the final inversion, as ext4_chksum()
_CT = []


def crc32c(crc, data):
    if not _CT:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _CT.append(c)
    t = _CT
    for b in data:
        crc = t[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc & 0xffffffff


def _name_hash(name):
    h = 0
    for c in name:
        if c >= 0x80:           # the kernel hashes a (signed) char
            c = (c - 256) & 0xffffffff
        h = ((h << 5) ^ (h >> 27) ^ c) & 0xffffffff
    return h


def entry_hash(name, value):
    """e_hash of an entry whose value is stored in the block or inode body
    (ext4_xattr_hash_entry over the name and the padded value words)."""
    h = _name_hash(name)
    v = value + b'\0' * ((-len(value)) % 4)
    for k in range(0, len(v), 4):
        w = struct.unpack_from('<I', v, k)[0]
        h = ((h << 16) ^ (h >> 16) ^ w) & 0xffffffff
    return h


def ea_inode_entry_hash(name, value_hash):
    """e_hash of an entry whose value is in an attribute inode."""
    h = _name_hash(name)
    return ((h << 16) ^ (h >> 16) ^ value_hash) & 0xffffffff


Entry = collections.namedtuple(
    'Entry', 'off name_len index value_offs value_inum value_size hash name')

# one attribute as seen from outside: where it is stored, its name, its value
# (read from an attribute inode too) and the attribute inode (0 if none)
Attr = collections.namedtuple('Attr', 'where index name value inum')


def parse_entries(buf, first, end):
    """The entries from offset first up to the terminating zero word.
    Stops (without raising) at the end of the area."""
    out = []
    e = first
    while e + 4 <= end and struct.unpack_from('<I', buf, e)[0]:
        if e + 16 > end:
            break
        nl, idx, vo, vi, vs, h = struct.unpack_from('<BBHIII', buf, e)
        out.append(Entry(e, nl, idx, vo, vi, vs, h, bytes(buf[e + 16:e + 16 + nl])))
        e += (16 + nl + 3) & ~3
    return out


def pack_entry(index, name, value_size, value_offs=0, value_inum=0, hsh=0):
    e = struct.pack('<BBHIII', len(name), index, value_offs, value_inum,
                    value_size, hsh) + name
    return e + b'\0' * ((-len(e)) % 4)


class Img:
    """An ext4 image file."""

    def __init__(self, path):
        self.path = path
        with open(path, 'rb') as f:
            f.seek(1024)
            sb = f.read(1024)
        self.sb = sb
        u32 = lambda off: struct.unpack_from('<I', sb, off)[0]
        self.inodes_count = u32(0)
        self.blocks_count = u32(4)
        self.first_data = u32(20)
        self.bs = 1024 << u32(24)
        self.cluster = 1024 << u32(28)
        self.ipg = u32(40)
        self.isz = struct.unpack_from('<H', sb, 88)[0]
        self.first_ino = u32(84)
        self.compat, self.incompat, self.ro_compat = struct.unpack_from('<III', sb, 92)
        self.uuid = sb[104:120]
        if self.incompat & INCOMPAT_64BIT:
            self.blocks_count |= u32(0x150) << 32
            self.desc_size = struct.unpack_from('<H', sb, 254)[0] or 32
        else:
            self.desc_size = 32
        self.csum = bool(self.ro_compat & RO_COMPAT_METADATA_CSUM)
        if self.incompat & INCOMPAT_CSUM_SEED:
            self.seed = u32(0x270)
        else:
            self.seed = crc32c(0xffffffff, self.uuid)

    # raw access
    def rd(self, off, n):
        with open(self.path, 'rb') as f:
            f.seek(off)
            return f.read(n)

    def wr(self, off, data):
        with open(self.path, 'r+b') as f:
            f.seek(off)
            f.write(data)

    def block(self, blk):
        return bytearray(self.rd(blk * self.bs, self.bs))

    def put_block(self, blk, data):
        assert len(data) == self.bs
        self.wr(blk * self.bs, bytes(data))

    def block_valid(self, blk):
        return self.first_data <= blk < self.blocks_count

    # inodes
    def inode_off(self, ino):
        g, idx = divmod(ino - 1, self.ipg)
        # the descriptors follow the superblock's block (block 1 with 1 KiB
        # blocks, also on bigalloc file systems, where s_first_data_block is 0)
        gd = (1024 // self.bs + 1) * self.bs + g * self.desc_size
        lo = struct.unpack('<I', self.rd(gd + 8, 4))[0]
        hi = struct.unpack('<I', self.rd(gd + 0x28, 4))[0] if self.desc_size >= 64 else 0
        return ((hi << 32) | lo) * self.bs + idx * self.isz

    def inode(self, ino):
        return bytearray(self.rd(self.inode_off(ino), self.isz))

    def inode_csum(self, ino, raw):
        r = bytearray(raw)
        r[0x7C:0x7E] = b'\0\0'
        extra = struct.unpack_from('<H', r, 128)[0] if self.isz > 128 else 0
        has_hi = self.isz > 128 and extra >= 4
        if has_hi:
            r[0x82:0x84] = b'\0\0'
        c = crc32c(self.seed, struct.pack('<I', ino))
        c = crc32c(c, bytes(r[100:104]))
        return crc32c(c, bytes(r)), has_hi

    def put_inode(self, ino, raw):
        raw = bytearray(raw)
        assert len(raw) == self.isz
        if self.csum:
            c, has_hi = self.inode_csum(ino, raw)
            struct.pack_into('<H', raw, 0x7C, c & 0xffff)
            if has_hi:
                struct.pack_into('<H', raw, 0x82, c >> 16)
        self.wr(self.inode_off(ino), bytes(raw))

    def set_inode_fields(self, ino, **kw):
        """Set u32/u16 inode fields by name (see FIELDS)."""
        r = self.inode(ino)
        for k, v in kw.items():
            fmt, off = FIELDS[k]
            struct.pack_into(fmt, r, off, v)
        self.put_inode(ino, r)

    def field(self, raw, name):
        fmt, off = FIELDS[name]
        return struct.unpack_from(fmt, raw, off)[0]

    # attribute blocks
    def xattr_block_csum(self, blk, data):
        b = bytearray(data)
        b[16:20] = b'\0\0\0\0'
        return crc32c(crc32c(self.seed, struct.pack('<Q', blk)), bytes(b))

    def put_xattr_block(self, blk, data):
        """Write an attribute block, with its header hash and checksum."""
        b = bytearray(data)
        h = 0
        for e in parse_entries(b, 32, self.bs):
            if not e.hash:
                h = 0
                break
            h = ((h << 16) ^ (h >> 16) ^ e.hash) & 0xffffffff
        struct.pack_into('<I', b, 12, h)
        if self.csum:
            struct.pack_into('<I', b, 16, self.xattr_block_csum(blk, b))
        self.put_block(blk, b)

    def file_acl(self, raw):
        return struct.unpack_from('<I', raw, 104)[0] | (struct.unpack_from('<H', raw, 118)[0] << 32)

    def ibody_first(self, raw):
        """Offset of the first in-inode entry where the kernel looks
        (EXT4_INODE_HAS_XATTR_SPACE and the magic), or None."""
        if self.isz <= 128:
            return None
        ex = struct.unpack_from('<H', raw, 128)[0]
        if not ex or 128 + ex + 8 > self.isz:
            return None
        if struct.unpack_from('<I', raw, 128 + ex)[0] != XATTR_MAGIC:
            return None
        return 128 + ex + 4

    # file data (attribute inodes)
    def _extent_map(self, node, out, depth_guard=5):
        magic, n, _mx, depth = struct.unpack_from('<HHHH', node, 0)
        if magic != 0xF30A or depth_guard == 0:
            raise ReadError('bad extent header')
        for k in range(n):
            o = 12 + 12 * k
            if depth == 0:
                lblk, ln, hi, lo = struct.unpack_from('<IHHI', node, o)
                unwritten = ln > 32768
                if unwritten:
                    ln -= 32768
                start = (hi << 32) | lo
                if not self.block_valid(start) or not self.block_valid(start + ln - 1):
                    raise ReadError('extent out of range')
                for j in range(ln):
                    out[lblk + j] = None if unwritten else start + j
            else:
                _lblk, lo, hi = struct.unpack_from('<IIH', node, o)
                leaf = (hi << 32) | lo
                if not self.block_valid(leaf):
                    raise ReadError('index block out of range')
                self._extent_map(self.block(leaf), out, depth_guard - 1)

    def block_map(self, raw):
        """{logical block: physical block or None (unwritten)}"""
        out = {}
        iblock = bytes(raw[40:100])
        if self.field(raw, 'flags') & EXTENTS_FL:
            self._extent_map(iblock, out)
            return out
        ptrs = struct.unpack('<15I', iblock)
        per = self.bs // 4
        for k in range(12):
            if ptrs[k]:
                out[k] = ptrs[k]
        if ptrs[12]:
            if not self.block_valid(ptrs[12]):
                raise ReadError('indirect block out of range')
            for k, p in enumerate(struct.unpack('<%dI' % per, self.block(ptrs[12]))):
                if p:
                    out[12 + k] = p
        if ptrs[13] or ptrs[14]:
            raise ReadError('double/triple indirect blocks not modelled')
        return out

    def read_file(self, raw, size):
        """The first size bytes of the file, as ext4_xattr_inode_read() reads
        them: a hole or a block out of range is an error."""
        m = self.block_map(raw)
        out = bytearray()
        for lb in range((size + self.bs - 1) // self.bs):
            if lb not in m:
                raise ReadError('hole at block %d' % lb)
            p = m[lb]
            if p is None:
                out += bytes(self.bs)
                continue
            if not self.block_valid(p):
                raise ReadError('block out of range')
            out += self.block(p)
        return bytes(out[:size])

    def write_file(self, raw, data):
        """Overwrite the (allocated) data blocks of a file in place."""
        m = self.block_map(raw)
        for lb in range((len(data) + self.bs - 1) // self.bs):
            chunk = data[lb * self.bs:(lb + 1) * self.bs]
            self.wr(m[lb] * self.bs, chunk)

    # attributes, read back
    def attrs(self, ino):
        """Every attribute of ino, in on-disk order: body, then block."""
        raw = self.inode(ino)
        out = []
        first = self.ibody_first(raw)
        if first is not None:
            for e in parse_entries(raw, first, self.isz):
                out.append(self._attr('ibody', e, raw, first, self.isz))
        blk = self.file_acl(raw)
        if blk and self.block_valid(blk):
            b = self.block(blk)
            if struct.unpack_from('<I', b, 0)[0] == XATTR_MAGIC:
                for e in parse_entries(b, 32, self.bs):
                    out.append(self._attr('block', e, b, 0, self.bs))
        return out

    def _attr(self, where, e, buf, base, end):
        if e.value_inum:
            try:
                v = self.read_file(self.inode(e.value_inum), e.value_size)
            except (ReadError, struct.error) as x:
                v = 'unreadable: %s' % x
        else:
            v = bytes(buf[base + e.value_offs:base + e.value_offs + e.value_size])
        return Attr(where, e.index, e.name, v, e.value_inum)


FIELDS = {
    'mode': ('<H', 0), 'uid': ('<H', 2), 'size': ('<I', 4), 'atime': ('<I', 8),
    'ctime': ('<I', 12), 'mtime': ('<I', 16), 'gid': ('<H', 24),
    'links': ('<H', 26), 'blocks': ('<I', 28), 'flags': ('<I', 32),
    'version': ('<I', 36), 'generation': ('<I', 100), 'file_acl': ('<I', 104),
    'size_high': ('<I', 108), 'extra_isize': ('<H', 128),
}


def write_ibody(img, ino, entries, extra_isize=32):
    """Write magic, entries and values into the body of ino.  entries: dicts
    of index, name (bytes), value (bytes) and optionally value_size,
    value_offs, value_inum, hash.  Values are placed from the end of the
    inode; the rest of the area is zeroed.  With extra_isize 0 the area
    starts at byte 128, where the magic's low bytes read as i_extra_isize 0
    (the kernel then ignores the inode body)."""
    raw = img.inode(ino)
    struct.pack_into('<H', raw, 128, extra_isize)
    hdr = 128 + extra_isize
    start = hdr + 4
    raw[hdr:] = bytes(img.isz - hdr)
    end = img.isz - start
    ents = b''
    for e in entries:
        v = e.get('value', b'')
        vs = e.get('value_size', len(v))
        offs = 0
        if not e.get('value_inum') and v:
            end -= (len(v) + 3) & ~3
            raw[start + end:start + end + len(v)] = v
            offs = end
        if e.get('value_offs') is not None:
            offs = e['value_offs']
        ents += pack_entry(e['index'], e['name'], vs, offs, e.get('value_inum', 0),
                           e.get('hash', 0))
    assert len(ents) + 4 <= end, 'no room in the inode body'
    struct.pack_into('<I', raw, hdr, XATTR_MAGIC)
    raw[start:start + len(ents)] = ents
    img.put_inode(ino, raw)


def ibody_entries(img, ino):
    """The in-inode entries of ino as write_ibody() dicts (values read)."""
    raw = img.inode(ino)
    first = img.ibody_first(raw)
    out = []
    if first is None:
        return out, struct.unpack_from('<H', raw, 128)[0]
    for e in parse_entries(raw, first, img.isz):
        d = dict(index=e.index, name=e.name, value_inum=e.value_inum,
                 value_size=e.value_size, hash=e.hash)
        if not e.value_inum:
            d['value'] = bytes(raw[first + e.value_offs:first + e.value_offs + e.value_size])
        out.append(d)
    return out, first - 4 - 128


def patch_block_value(img, blk, index, name, newval):
    """Overwrite the value of entry (index, name) of attribute block blk with
    one of the same size, and fix the entry hash, header hash, checksum."""
    b = img.block(blk)
    for e in parse_entries(b, 32, img.bs):
        if e.index == index and e.name == name and not e.value_inum:
            assert len(newval) == e.value_size, (len(newval), e.value_size)
            b[e.value_offs:e.value_offs + e.value_size] = newval
            struct.pack_into('<I', b, e.off + 12, entry_hash(e.name, newval))
            img.put_xattr_block(blk, b)
            return
    raise KeyError('no entry %d %r in block %d' % (index, name, blk))


class Tools:
    """The e2fsprogs programs under test (DIR/bin of e2fsprogs-build.sh)."""

    def __init__(self, bindir):
        self.bindir = bindir
        self.env = dict(os.environ)
        # the host's e2fsck.conf must not change answers or exit codes
        self.env['E2FSCK_CONFIG'] = '/dev/null'
        self.env.pop('E2FSPROGS_FAKE_TIME', None)

    def run(self, prog, *args, stdin=None):
        p = subprocess.run([os.path.join(self.bindir, prog)] + [str(a) for a in args],
                           input=stdin, capture_output=True, text=True,
                           env=self.env)
        return p.returncode, p.stdout + p.stderr

    def mkfs(self, path, size, opts):
        if os.path.exists(path):
            os.unlink(path)
        with open(path, 'wb') as f:
            f.truncate(size)
        rc, out = self.run('mkfs.ext4', '-q', '-F', '-o', 'Linux', *opts, path)
        if rc:
            raise RuntimeError('mkfs.ext4 %s: exit %d: %s' % (' '.join(opts), rc, out))

    def debugfs(self, path, cmds, write=True):
        """Run debugfs commands in one process; raise if one reports an
        error (debugfs itself exits 0 regardless)."""
        args = ['-w'] if write else []
        rc, out = self.run('debugfs', *args, '-f', '-', path, stdin='\n'.join(cmds) + '\n')
        bad = [ln for ln in out.splitlines()
               if ln.strip() and not ln.startswith(('debugfs 1.', 'debugfs: '))
               and not ln.startswith(('Allocated inode:', 'Checksum set to'))]
        if rc or (write and bad):
            raise RuntimeError('debugfs %s: %s' % (cmds, out))
        return out

    def ino_of(self, path, name):
        out = self.debugfs(path, ['stat %s' % name], write=False)
        for ln in out.splitlines():
            if ln.startswith('Inode: '):
                return int(ln.split()[1])
        raise RuntimeError('no inode for %s: %s' % (name, out))

    def e2fsck(self, path, opt):
        return self.run('e2fsck', opt, path)
