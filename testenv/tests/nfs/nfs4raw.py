"""A minimal NFSv4.0 client for the N-STATE rows of nfs.py.

It speaks ONC RPC over TCP to knfsd on 127.0.0.1:2049 from a reserved port,
with AUTH_SYS credentials of any uid that the caller sets per request, so
that one connection can act as several users and send compounds that the
kernel's client never sends: an OPEN that creates a file with an acl
attribute, I/O with another user's stateid or with a special stateid,
SETATTR of size, mode and acl together.  It decodes only what the rows
need.  Root runs it inside the QEMU guest (a reserved port needs root).
"""

import os
import random
import socket
import struct
import time

OP_CLOSE, OP_GETATTR, OP_GETFH = 4, 9, 10
OP_LOOKUP, OP_OPEN, OP_OPEN_CONFIRM, OP_PUTFH = 15, 18, 20, 22
OP_PUTROOTFH, OP_READ, OP_SETATTR, OP_SETCLIENTID = 24, 25, 34, 35
OP_SETCLIENTID_CONFIRM, OP_WRITE = 36, 38

ATTR_SIZE, ATTR_ACL, ATTR_MODE = 4, 12, 33
SHARE_READ, SHARE_WRITE, SHARE_BOTH = 1, 2, 3
ANONYMOUS_STATEID = b"\0" * 16
BYPASS_STATEID = b"\xff" * 16

NFS4_OK = 0
NFS4ERR_PERM, NFS4ERR_ACCESS, NFS4ERR_FBIG, NFS4ERR_NOSPC = 1, 13, 27, 28
NFS4ERR_OPENMODE, NFS4ERR_BADOWNER = 10038, 10039


class Enc:
    def __init__(self):
        self.b = bytearray()

    def u32(self, v):
        self.b += struct.pack(">I", v & 0xffffffff)
        return self

    def u64(self, v):
        self.b += struct.pack(">Q", v)
        return self

    def opaque(self, d):
        d = d.encode() if isinstance(d, str) else d
        self.u32(len(d))
        self.b += d + b"\0" * (-len(d) % 4)
        return self

    def fixed(self, d):
        self.b += d
        return self

    def bytes(self):
        return bytes(self.b)


class Dec:
    def __init__(self, d):
        self.d, self.o = d, 0

    def u32(self):
        (v,) = struct.unpack_from(">I", self.d, self.o)
        self.o += 4
        return v

    def u64(self):
        (v,) = struct.unpack_from(">Q", self.d, self.o)
        self.o += 8
        return v

    def fixed(self, n):
        v = self.d[self.o:self.o + n]
        self.o += n
        return v

    def opaque(self):
        n = self.u32()
        v = self.fixed(n)
        self.o += -n % 4
        return v


def fattr(attrs):
    """attrs: {attribute number: encoded value} -> fattr4."""
    words = [0, 0]
    body = b""
    for n in sorted(attrs):
        words[n // 32] |= 1 << (n % 32)
        body += attrs[n]
    if not words[1]:
        words.pop()
    e = Enc().u32(len(words))
    for w in words:
        e.u32(w)
    return e.opaque(body).bytes()


def acl_attr(aces):
    """[(type, flags, mask, who)] -> the acl attribute's value."""
    e = Enc().u32(len(aces))
    for t, f, m, who in aces:
        e.u32(t).u32(f).u32(m).opaque(who)
    return e.bytes()


def mode_attr(mode):
    return struct.pack(">I", mode)


def size_attr(size):
    return struct.pack(">Q", size)


def fh_arg(fh):
    return Enc().opaque(fh).bytes()


class Client:
    def __init__(self, uid, gid=None, host="127.0.0.1"):
        self.setuid(uid, gid)
        self.s = None
        for port in random.sample(range(600, 1020), 60):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", port))
                s.connect((host, 2049))
                self.s = s
                break
            except OSError:
                s.close()
        if self.s is None:
            raise OSError("no reserved port could connect to knfsd")
        self.xid = random.randint(1, 1 << 30)
        self.clientid = None
        self.seq = {}

    def setuid(self, uid, gid=None, gids=()):
        self.uid, self.gid, self.gids = uid, uid if gid is None else gid, list(gids)

    def call(self, ops):
        """ops: [(op, encoded args)] -> (compound status, decoder at the results)."""
        self.xid += 1
        e = Enc().u32(self.xid).u32(0).u32(2).u32(100003).u32(4).u32(1)
        cred = Enc().u32(int(time.time())).opaque("nfs-t").u32(self.uid).u32(self.gid)
        cred.u32(len(self.gids))
        for g in self.gids:
            cred.u32(g)
        e.u32(1).opaque(cred.bytes()).u32(0).u32(0)
        e.opaque("").u32(0).u32(len(ops))
        for op, arg in ops:
            e.u32(op).fixed(arg)
        msg = e.bytes()
        self.s.sendall(struct.pack(">I", 0x80000000 | len(msg)) + msg)
        data = b""
        while True:
            (n,) = struct.unpack(">I", self._recv(4))
            data += self._recv(n & 0x7fffffff)
            if n & 0x80000000:
                break
        d = Dec(data)
        d.u32()
        d.u32()
        if d.u32() != 0:
            raise RuntimeError("RPC call denied")
        d.u32()
        d.opaque()
        if d.u32() != 0:
            raise RuntimeError("RPC call not accepted")
        status = d.u32()
        d.opaque()
        d.u32()
        return status, d

    def _recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise RuntimeError("knfsd closed the connection")
            b += c
        return b

    def setclientid(self):
        name = f"nfs-t-{os.getpid()}-{random.randint(0, 1 << 30)}"
        a = Enc().fixed(os.urandom(8)).opaque(name).u32(0x40000000).opaque("tcp")
        a.opaque("127.0.0.1.0.1").u32(1)
        st, d = self.call([(OP_SETCLIENTID, a.bytes())])
        if st:
            raise RuntimeError(f"SETCLIENTID: {st}")
        d.u32()
        d.u32()
        self.clientid = d.u64()
        verf = d.fixed(8)
        st, _ = self.call([(OP_SETCLIENTID_CONFIRM, Enc().u64(self.clientid).fixed(verf).bytes())])
        if st:
            raise RuntimeError(f"SETCLIENTID_CONFIRM: {st}")

    def getfh(self, path):
        ops = [(OP_PUTROOTFH, b"")]
        ops += [(OP_LOOKUP, Enc().opaque(c).bytes()) for c in path.strip("/").split("/") if c]
        ops.append((OP_GETFH, b""))
        st, d = self.call(ops)
        if st:
            raise RuntimeError(f"lookup of {path}: {st}")
        for _ in ops[:-1]:
            d.u32()
            d.u32()
        d.u32()
        d.u32()
        return d.opaque()

    def open(self, dirfh, name, access, create=False, attrs=None, owner=None):
        """OPEN (UNCHECKED4 with attrs if create) as the current uid, with an
        open owner per uid unless owner names one.  Returns (status,
        stateid, fh, attrset words)."""
        owner = owner or f"oo-{self.uid}"
        seq = self.seq.get(owner, 0)
        a = Enc().u32(seq).u32(access).u32(0).u64(self.clientid).opaque(owner)
        if create:
            a.u32(1).u32(0).fixed(fattr(attrs or {}))
        else:
            a.u32(0)
        a.u32(0).opaque(name)
        st, d = self.call([(OP_PUTFH, fh_arg(dirfh)), (OP_OPEN, a.bytes()), (OP_GETFH, b"")])
        d.u32()
        d.u32()
        d.u32()
        ost = d.u32()
        self.seq[owner] = seq + 1
        if ost:
            return ost, None, None, None
        sid = d.fixed(16)
        d.u32()
        d.u64()
        d.u64()
        rflags = d.u32()
        attrset = [d.u32() for _ in range(d.u32())]
        if d.u32() != 0:
            raise RuntimeError("OPEN returned a delegation")
        d.u32()
        d.u32()
        fh = d.opaque()
        if rflags & 2:          # OPEN4_RESULT_CONFIRM
            seq = self.seq[owner]
            st, d = self.call([(OP_PUTFH, fh_arg(fh)),
                               (OP_OPEN_CONFIRM, Enc().fixed(sid).u32(seq).bytes())])
            self.seq[owner] = seq + 1
            if st:
                return st, None, None, None
            d.u32()
            d.u32()
            d.u32()
            d.u32()
            sid = d.fixed(16)
        return NFS4_OK, sid, fh, attrset

    def read(self, fh, sid, count=4096):
        st, d = self.call([(OP_PUTFH, fh_arg(fh)),
                           (OP_READ, Enc().fixed(sid).u64(0).u32(count).bytes())])
        if st:
            return st, None
        for _ in range(4):      # PUTFH and READ: op, status
            d.u32()
        d.u32()                 # eof
        return NFS4_OK, d.opaque()

    def write(self, fh, sid, data):
        st, _ = self.call([(OP_PUTFH, fh_arg(fh)),
                           (OP_WRITE, Enc().fixed(sid).u64(0).u32(2).opaque(data).bytes())])
        return st

    def setattr(self, fh, attrs, sid=ANONYMOUS_STATEID):
        st, _ = self.call([(OP_PUTFH, fh_arg(fh)),
                           (OP_SETATTR, Enc().fixed(sid).fixed(fattr(attrs)).bytes())])
        return st

    def getacl(self, fh):
        """GETATTR of the acl: (status, [(type, flags, mask, who)])."""
        st, d = self.call([(OP_PUTFH, fh_arg(fh)),
                           (OP_GETATTR, Enc().u32(1).u32(1 << ATTR_ACL).bytes())])
        if st:
            return st, None
        for _ in range(4):      # PUTFH and GETATTR: op, status
            d.u32()
        for _ in range(d.u32()):
            d.u32()
        a = Dec(d.opaque())
        return NFS4_OK, [(a.u32(), a.u32(), a.u32(), a.opaque().decode())
                         for _ in range(a.u32())]

    def close(self, fh, sid, owner):
        seq = self.seq.get(owner, 0)
        st, _ = self.call([(OP_PUTFH, fh_arg(fh)), (OP_CLOSE, Enc().u32(seq).fixed(sid).bytes())])
        self.seq[owner] = seq + 1
        return st
