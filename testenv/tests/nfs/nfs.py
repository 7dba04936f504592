#!/usr/bin/python3
"""The N-* suite: NFSv4 clients on a richacl file system (issue 16).

Runs as root inside the QEMU guest after testenv/tests/nfs/server.sh has
exported the [richacl] share's directory (the NFSv4 root) and mounted it over
loopback, while the passdb smbd of testenv/smb/server.sh serves the same
directory.  Everything happens below the subdirectory nfs-t.

  N-RT    round trips: an acl set with nfs4_setfacl on a file and on a
          directory (deny entries, named users and groups, inheritance
          flags) reads back with nfs4_getfacl and as the client's raw
          system.nfs4_acl entry for entry, and is the acl that the kernel
          stores (system.richacl on the server, same entries, masks that take
          nothing away); files and directories created over NFS inherit as
          they do locally; a mode-only file shows the acl of its mode; a name
          that maps to no id is kept (allow entries); the automatic
          inheritance flags of the replaced acl stay.
  N-EN    enforcement for NFS client users (runs as alice, bob, carol on the
          client mount), each case repeated with local system calls by the
          same user on the server's path: the expected result of both, and
          the agreement rule (NFS never allows what the local kernel refuses).
          add_file without add_subdirectory and the reverse, delete through
          the file's delete or the directory's delete_child, rename, write
          versus append, no owner override, no read for execute-only files,
          the creator of a read-only file writes it through the creating open,
          an owner's open keeps its access after he removes it, chmod and acl
          changes through write_acl, listing.
  N-IO    interop with SMB: an acl set with smbcacls-style descriptor writes
          reads back over NFS with the same entries as the kernel's acl, and
          an entry added with nfs4_setfacl shows in the SMB descriptor.
  N-HOST  hostile acl attributes written raw from the client (audit and
          alarm entries, audit flags, undefined permission bits and types,
          deny entries for names without an id, names with a NUL byte, empty
          names, truncated and oversized acls): an error, the acl and mode
          on the server unchanged, and no oops or warning in the kernel log.
  N-STATE compounds from a raw NFSv4.0 client (nfs4raw.py): an owner's
          write-only open does not read, not even after another user's
          OPEN left a readable file behind; another user's stateid and the
          special stateids carry no access; the creator writes through the
          creating OPEN, whatever acl it set, and reads nothing through it;
          an OPEN that finds an existing file sets no acl; a SETATTR whose
          acl is refused (unmapped deny, no write_acl) does not truncate; an
          acl the file system cannot hold is not reported as set.
  N-POSIX a tmpfs with POSIX acls exported below: NFSv4 acls still become
          POSIX acls there, and names without an id are refused there.
  N-IDMAP names through knfsd's id mapping (rpc.idmapd, Domain localdomain,
          for this row only): user@domain and group@domain are stored as
          uid and gid and shown as names again; a name without an id is kept
          in an allow entry and refused in a deny entry.
  N-MASK  an acl whose file masks take something away (after chmod, or with
          write-through) is shown over NFS as the acl without masks that
          grants the same: exactly the entries that getrichacl (the user-space
          library's apply_masks) shows, for eight acls (named and unmapped
          entries, denies, inheritable entries that must be split,
          write-through), and for 150 random acls (fixed seed); what the
          masks take away is refused over NFS as it is locally; the acl
          shown, set back, grants the same.

Expected results come from RFC 8881's acl model and from what the kernel
suite establishes for local processes, never from what the code under test
printed.  Output: "ok ID desc" / "FAIL ID desc: details" lines and
"N passed, N failed".

usage: nfs.py --state DIR --path DIR --mount DIR [--tools DIR] [--only ID...]
"""

import argparse
import errno
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "smb"))

import nfs4raw  # noqa: E402
import run  # noqa: E402
from run import SetupError  # noqa: E402

NFS4_XATTR = "system.nfs4_acl"
RICHACL_XATTR = "system.richacl"
SUB = "nfs-t"
OK = "OK"                   # a system call or command that succeeded
SMB_OK = run.OK             # NT_STATUS_OK

ALLOW, DENY = 0, 1
F_FILE, F_DIR, F_NOPROP, F_IONLY, F_GROUP, F_INHERITED = 0x1, 0x2, 0x4, 0x8, 0x40, 0x80
RICH_UNMAPPED, RICH_SPECIAL = 0x2000, 0x4000
RICH_MASKED = 0x80
SPECIAL = {0: "OWNER@", 1: "GROUP@", 2: "EVERYONE@"}

# nfs4_setfacl / nfs4_getfacl letters (nfs4_acl(5))
NFS4_PERMS = {"r": 0x1, "w": 0x2, "a": 0x4, "n": 0x8, "N": 0x10, "x": 0x20, "D": 0x40,
              "t": 0x80, "T": 0x100, "d": 0x10000, "c": 0x20000, "C": 0x40000,
              "o": 0x80000, "y": 0x100000}
NFS4_FLAGS = {"f": F_FILE, "d": F_DIR, "n": F_NOPROP, "i": F_IONLY, "g": F_GROUP,
              "S": 0x10, "F": 0x20, "I": F_INHERITED}
TYPES = {"A": ALLOW, "D": DENY, "U": 2, "L": 3}
# getrichacl letters (reference/algorithms.md section 0)
RICH_PERMS = {"r": 0x1, "w": 0x2, "p": 0x4, "x": 0x20, "d": 0x40, "D": 0x10000, "a": 0x80,
              "A": 0x100, "R": 0x8, "W": 0x10, "c": 0x20000, "C": 0x40000, "o": 0x80000,
              "S": 0x100000, "e": 0x200, "E": 0x400}
RICH_FLAGS = {"f": F_FILE, "d": F_DIR, "n": F_NOPROP, "i": F_IONLY, "a": F_INHERITED,
              "u": 0}

KERNEL_TROUBLE = re.compile(r"Oops|BUG:|WARNING:|general protection|Call Trace|UBSAN|KASAN")


# ------------------------------------------------------------------ formats

def parse_nfs4_text(text):
    """nfs4_getfacl / nfs4_setfacl text -> [(type, flags, mask, who)]."""
    entries = []
    for line in re.split(r"[,\n]", text):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        t, fl, who, perms = line.split(":", 3)
        flags = 0
        for c in fl:
            flags |= NFS4_FLAGS[c]
        mask = 0
        for c in perms:
            mask |= NFS4_PERMS[c]
        entries.append((TYPES[t], flags, mask, who))
    return entries


def decode_nfs4(blob):
    """The client's system.nfs4_acl (XDR nfsace4<>) -> [(type, flags, mask, who)]."""
    (count,) = struct.unpack_from(">I", blob, 0)
    off, entries = 4, []
    for _ in range(count):
        t, fl, mask, n = struct.unpack_from(">IIII", blob, off)
        off += 16
        who = blob[off:off + n].decode()
        off += (n + 3) & ~3
        entries.append((t, fl, mask, who))
    if off != len(blob):
        raise ValueError(f"{len(blob) - off} bytes after the last entry")
    return entries


def encode_nfs4(entries, count=None):
    """[(type, flags, mask, who bytes or str)] -> XDR; count overrides the length."""
    out = struct.pack(">I", len(entries) if count is None else count)
    for t, fl, mask, who in entries:
        w = who.encode() if isinstance(who, str) else who
        out += struct.pack(">IIII", t, fl, mask, len(w)) + w + b"\0" * (-len(w) % 4)
    return out


def decode_richacl(blob):
    """system.richacl -> (acl flags, (owner, group, other) masks, entries).

    Entries are given as the NFSv4 view should show them: special
    identifiers by name (GROUP@ with the group flag, as nfsd shows it), ids
    as decimal strings, unmapped identifiers as their string."""
    _v, aflags, count, om, gm, xm = struct.unpack_from("<BBHIII", blob, 0)
    strings = blob[16 + 12 * count:]
    entries, soff = [], 0
    for i in range(count):
        t, fl, mask, ident = struct.unpack_from("<HHII", blob, 16 + 12 * i)
        if fl & RICH_SPECIAL:
            who = SPECIAL[ident]
            if ident == 1:
                fl |= F_GROUP
        elif fl & RICH_UNMAPPED:
            end = strings.index(b"\0", soff)
            who = strings[soff:end].decode()
            soff = end + 1
        else:
            who = str(ident)
        entries.append((t, fl & 0xff, mask, who))
    return aflags, (om, gm, xm), entries


def show(entries):
    return ", ".join(f"{t}:{fl:#x}:{m:#x}:{w}" for t, fl, m, w in entries)


# ------------------------------------------------------------------ the suite

class Nfs(run.Suite):
    ROWS = ["N-RT", "N-EN", "N-IO", "N-HOST", "N-MASK", "N-STATE", "N-POSIX", "N-IDMAP"]

    def __init__(self, args):
        args.share = "richacl"
        super().__init__(args)
        self.root = os.path.join(args.path, SUB)
        self.mnt = os.path.join(args.mount, SUB)
        self.nfs4_getfacl = "nfs4_getfacl"
        self.nfs4_setfacl = "nfs4_setfacl"
        self.dmesg_before = self.dmesg()

    # ---- paths and state

    def n(self, rel):
        return os.path.join(self.mnt, rel)

    def smbrel(self, rel):
        return f"{SUB}/{rel}"

    @staticmethod
    def dmesg():
        return subprocess.run(["dmesg"], capture_output=True, text=True).stdout

    def rich(self, rel):
        """The stored acl (decode_richacl), or None without one."""
        try:
            return decode_richacl(os.getxattr(self.p(rel), RICHACL_XATTR))
        except OSError:
            return None

    def stored(self, rel):
        """What a hostile write must not change: the acl bytes and the mode."""
        return self.xattr(rel, RICHACL_XATTR), os.lstat(self.p(rel)).st_mode

    def nfs_view(self, rel):
        """(entries, None) of the client's raw acl, or (None, errno name)."""
        try:
            return decode_nfs4(os.getxattr(self.n(rel), NFS4_XATTR)), None
        except OSError as e:
            return None, errno.errorcode.get(e.errno, str(e.errno))

    def getfacl(self, rel):
        res = subprocess.run([self.nfs4_getfacl, self.n(rel)], capture_output=True, text=True)
        if res.returncode != 0:
            return None, (res.stderr or res.stdout).strip()
        return parse_nfs4_text(res.stdout), None

    def setfacl(self, rel, *args, user=None):
        """nfs4_setfacl as root or as user: OK, EACCES, EPERM or its message."""
        argv = [self.nfs4_setfacl, *args, self.n(rel)]
        ids = {}
        if user is not None:
            uid, gid, groups = run.IDS[user]
            ids = {"user": uid, "group": gid, "extra_groups": groups}
        res = subprocess.run(argv, capture_output=True, text=True, **ids)
        out = (res.stdout + res.stderr).strip()
        if res.returncode == 0:
            return OK
        if "Permission denied" in out:
            return "EACCES"
        if "Operation not permitted" in out:
            return "EPERM"
        return f"exit {res.returncode}: {out}"

    def fresh(self):
        path = self.root
        if os.path.lexists(path):
            shutil.rmtree(path)
        os.mkdir(path, 0o755)
        self.setacl("", "everyone@:rwpxdaRcS:fd:allow")

    # ---- operations, as a user, on the NFS mount ("nfs") or on the server ("local")

    def path(self, where, rel):
        return self.n(rel) if where == "nfs" else self.p(rel)

    def op(self, where, user, kind, rel, arg=None):
        """Run one operation as user; "OK" or the errno name."""
        p = self.path(where, rel)

        def create(umask=None):
            if umask is not None:
                os.umask(umask)
            fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.close(fd)

        def write(flags):
            fd = os.open(p, flags)
            try:
                os.write(fd, b"more\n")
                os.fsync(fd)
            finally:
                os.close(fd)

        fns = {
            "create": create,
            "create-umask077": lambda: create(0o077),
            "mkdir": lambda: os.mkdir(p, 0o755),
            "unlink": lambda: os.unlink(p),
            "rename": lambda: os.rename(p, self.path(where, arg)),
            "read": lambda: os.close(os.open(p, os.O_RDONLY)),
            "write": lambda: write(os.O_WRONLY),
            "append": lambda: write(os.O_WRONLY | os.O_APPEND),
            "list": lambda: os.listdir(p),
            "chmod": lambda: os.chmod(p, arg),
        }
        return self.local(user, fns[kind])

    def expect(self, row, desc, want, got):
        ok = got in ("EACCES", "EPERM") if want == "DENIED" else got == want
        return self.r.check(row, f"{desc} -> {want}", ok, f"got {got}")

    def case(self, row, desc, user, fixture, kind, rel, want_nfs, want_local, arg=None):
        """Build the fixture, act over NFS, rebuild, act locally; check both
        and the agreement rule."""
        results = {}
        for where, want in (("nfs", want_nfs), ("local", want_local)):
            try:
                self.fresh()
                fixture()
            except SetupError as e:
                self.r.fail(row, f"{desc} ({where})", f"setup: {e}")
                return
            got = self.op(where, user, kind, rel, arg)
            results[where] = got
            self.expect(row, f"{desc} ({where}, {user})", want, got)
        if results["nfs"] == OK:
            self.r.check(row, f"{desc}: agreement (NFS allows only what the kernel allows "
                         "locally)", results["local"] == OK, f"local {results['local']}")

    def round_trip(self, row, rel, what, text):
        """nfs4_setfacl -s text on rel; nfs4_getfacl, the client's raw
        attribute and the stored system.richacl must all hold its entries."""
        want = parse_nfs4_text(text)
        st = self.setfacl(rel, "-s", text)
        self.r.check(row, f"nfs4_setfacl -s on {what}", st == OK, st)
        got, err = self.getfacl(rel)
        self.r.check(row, f"nfs4_getfacl shows the entries set on {what}", got == want,
                     f"got {show(got) if got else err}, want {show(want)}")
        raw, err = self.nfs_view(rel)
        self.r.check(row, f"the client's system.nfs4_acl of {what} holds the same entries",
                     raw == want, f"got {show(raw) if raw else err}")
        rich = self.rich(rel)
        self.r.check(row, f"the kernel stores exactly these entries on {what} (system.richacl)",
                     rich is not None and rich[2] == want,
                     f"stored {show(rich[2]) if rich else None}")

    # ================================================================ rows

    def n_rt(self):
        row = "N-RT"
        self.fresh()
        # a file: deny entries, named user and group, numeric ids
        self.mkfile("f", owner=1001)
        text = ("A::OWNER@:rwatTnNcCoy,D::1002:wa,A::1002:rtncy,A:g:2000:rxtncy,"
                "A:g:GROUP@:rtncy,A::EVERYONE@:rtncy")
        self.round_trip(row, "f", "a file", text)
        # owner rw (OWNER@, EVERYONE@), x too: the owner may be in group 2000;
        # group class r-x (2000, GROUP@); other r (EVERYONE@)
        mode = os.lstat(self.p("f")).st_mode & 0o777
        self.r.check(row, "the file mode shows the acl's upper bounds (0754)", mode == 0o754,
                     f"mode {mode:o}")

        # a directory: inheritance flags, inherit-only, a deny
        self.mkdir("d", owner=1001)
        text = ("A:fd:OWNER@:rwaDdxtTnNcCoy,D:fdi:1003:wa,A:fd:1002:rwaDxtncy,"
                "A:fdi:1003:rxtncy,A::EVERYONE@:rxtncy")
        self.round_trip(row, "d", "a directory", text)
        # inheritance over NFS, compared with a local create by the same user
        for where, name in (("nfs", "n"), ("local", "l")):
            got = self.op(where, "bob", "create", f"d/{name}file")
            self.expect(row, f"bob creates d/{name}file ({where})", OK, got)
            got = self.op(where, "bob", "mkdir", f"d/{name}dir")
            self.expect(row, f"bob makes d/{name}dir ({where})", OK, got)
        for kind in ("file", "dir"):
            nrich, lrich = self.rich(f"d/n{kind}"), self.rich(f"d/l{kind}")
            self.r.check(row, f"a {kind} created over NFS inherits what a local create inherits",
                         nrich is not None and lrich is not None and nrich[2] == lrich[2],
                         f"nfs {show(nrich[2]) if nrich else None}, "
                         f"local {show(lrich[2]) if lrich else None}")
            # the create mode masked the inherited acl: NFS shows it as
            # getrichacl does, with the masks applied
            self.r.check(row, f"the inherited {kind} acl reads back over NFS as getrichacl "
                         "shows it", *self.nfs_as_getrichacl(f"d/n{kind}"))
        # the umask: applied when nothing is inherited (mode 0600), left to
        # the inherited acl otherwise; NFSv4.2 sends it with the create
        self.mkdir("u0", acl="everyone@:rwpxaRcS::allow")
        for where, name in (("nfs", "n"), ("local", "l")):
            self.expect(row, f"bob creates a file with umask 077 where nothing is inherited "
                        f"({where})", OK, self.op(where, "bob", "create-umask077",
                                                  f"u0/{name}"))
            self.expect(row, f"bob creates a file with umask 077 in the inheriting d ({where})",
                        OK, self.op(where, "bob", "create-umask077", f"d/{name}umask"))
        modes = [os.lstat(self.p(f"u0/{n}")).st_mode & 0o777 for n in ("n", "l")]
        self.r.check(row, "without inheritance the umask gives mode 0600 over NFS and locally",
                     modes == [0o600, 0o600], f"modes {[oct(m) for m in modes]}")
        nu, lu = self.rich("d/numask"), self.rich("d/lumask")
        self.r.check(row, "with inheritance the new file has the same acl and masks over NFS "
                     "as locally", nu is not None and nu == lu,
                     f"nfs {nu}, local {lu}")
        inherited = self.rich("d/nfile")
        eff = [(e[0], e[3]) for e in inherited[2] if not e[1] & F_IONLY] if inherited else []
        self.r.check(row, "the new file's acl has bob's allow and carol's deny and allow as "
                     "effective entries", (ALLOW, "1002") in eff and (DENY, "1003") in eff and
                     (ALLOW, "1003") in eff, show(inherited[2]) if inherited else "no acl")

        # a mode-only file and directory: the acl of the mode
        for rel, mode, isdir, text in (
                ("m640", 0o640, False, "A::OWNER@:rwa,A:g:GROUP@:r"),
                ("m604", 0o604, False, "A::OWNER@:rwa,D:g:GROUP@:r,A::EVERYONE@:r"),
                ("m755", 0o755, True, "A::OWNER@:rwaDx,A::EVERYONE@:rx")):
            if isdir:
                self.mkdir(rel)
            else:
                self.mkfile(rel)
            subprocess.run([self.setrichacl, "--remove", self.p(rel)], check=True)
            os.chmod(self.p(rel), mode)
            got, err = self.getfacl(rel)
            want = parse_nfs4_text(text)
            self.r.check(row, f"a mode {mode:o} {'directory' if isdir else 'file'} without "
                         f"an acl shows {text}", got == want,
                         f"got {show(got) if got else err}")

        # a name that maps to no id: kept, verbatim, and matches nobody
        self.mkfile("u", owner=1001)
        st = self.setfacl("u", "-s", "A::OWNER@:rwatTnNcCoy,A::S-1-5-21-1-2-3-4242:rtncy")
        self.r.check(row, "an allow entry for a name without an id is accepted", st == OK, st)
        rich = self.rich("u")
        self.r.check(row, "it is stored as an unmapped identifier",
                     rich is not None and ("S-1-5-21-1-2-3-4242" in [e[3] for e in rich[2]]),
                     show(rich[2]) if rich else "no acl")
        got, err = self.getfacl("u")
        self.r.check(row, "and reads back verbatim over NFS",
                     got is not None and "S-1-5-21-1-2-3-4242" in [e[3] for e in got],
                     show(got) if got else err)
        self.expect(row, "the unmapped entry grants carol nothing (read over NFS)", "DENIED",
                    self.op("nfs", "carol", "read", "u"))

        # the acl flags of the replaced acl stay
        self.mkfile("ai", owner=1001)
        self.setacl("ai", "flags:a owner@:rwpxcCoS::allow everyone@:r:a:allow")
        st = self.setfacl("ai", "-a", "A::1002:r")
        self.r.check(row, "nfs4_setfacl -a on an auto-inherited acl", st == OK, st)
        rich = self.rich("ai")
        self.r.check(row, "the auto_inherit flag stays, the new entry is there",
                     rich is not None and rich[0] & 0x1 and
                     (ALLOW, 0, 0x1, "1002") in rich[2], show(rich[2]) if rich else "no acl")

    def n_en(self):
        row = "N-EN"
        X = "everyone@:x::allow"

        def dir_with(acl):
            def fx():
                self.mkdir("e", acl=acl)
            return fx

        def dir_file(dacl, facl, owner=0):
            def fx():
                self.mkdir("e", acl=dacl)
                self.mkfile("e/f", acl=facl, owner=owner)
            return fx

        self.case(row, "add_file without add_subdirectory: create", "alice",
                  dir_with(f"user:alice:wx::allow {X}"), "create", "e/new", OK, OK)
        self.case(row, "add_file without add_subdirectory: mkdir", "alice",
                  dir_with(f"user:alice:wx::allow {X}"), "mkdir", "e/new", "DENIED", "DENIED")
        self.case(row, "add_subdirectory without add_file: mkdir", "alice",
                  dir_with(f"user:alice:px::allow {X}"), "mkdir", "e/new", OK, OK)
        self.case(row, "add_subdirectory without add_file: create", "alice",
                  dir_with(f"user:alice:px::allow {X}"), "create", "e/new", "DENIED", "DENIED")
        self.case(row, "delete through the file's delete, no write on the directory", "bob",
                  dir_file(X, "user:bob:D::allow"), "unlink", "e/f", OK, OK)
        self.case(row, "no delete anywhere", "bob",
                  dir_file(f"user:bob:rwpx::allow {X}", "everyone@:r::allow"), "unlink", "e/f",
                  "DENIED", "DENIED")
        self.case(row, "delete through the directory's delete_child", "bob",
                  dir_file(f"user:bob:dx::allow {X}", "everyone@:r::allow"), "unlink", "e/f",
                  OK, OK)
        self.case(row, "rename needs delete and add_file", "bob",
                  dir_file(f"user:bob:wx::allow {X}", "user:bob:D::allow"), "rename", "e/f",
                  OK, OK, arg="e/g")
        self.case(row, "rename without add_file", "bob",
                  dir_file(f"user:bob:x::allow {X}", "user:bob:D::allow"), "rename", "e/f",
                  "DENIED", "DENIED", arg="e/g")
        self.case(row, "write_data", "bob",
                  dir_file(X, "user:bob:rw::allow"), "write", "e/f", OK, OK)
        # NFS has no append-only open: the server must refuse the write it
        # cannot limit to appending; locally the O_APPEND open is allowed
        self.case(row, "append_data only: a write open", "bob",
                  dir_file(X, "user:bob:rp::allow"), "write", "e/f", "DENIED", "DENIED")
        self.case(row, "append_data only: an O_APPEND open (NFS cannot append only)", "bob",
                  dir_file(X, "user:bob:rp::allow"), "append", "e/f", "DENIED", OK)
        # no owner override: owner@ without write binds the owner
        self.case(row, "the owner whose owner@ entry does not grant write", "alice",
                  dir_file(X, "owner@:rcCoS::allow everyone@:r::allow", owner=1001), "write",
                  "e/f", "DENIED", "DENIED")
        self.case(row, "the owner denied write by an entry for his uid", "alice",
                  dir_file(X, "user:alice:w::deny owner@:rwpcCoS::allow", owner=1001), "write",
                  "e/f", "DENIED", "DENIED")
        # no read for execute-only files
        self.case(row, "execute without read_data: a read", "bob",
                  dir_file(X, "everyone@:x::allow"), "read", "e/f", "DENIED", "DENIED")
        self.case(row, "list_directory refused", "bob",
                  dir_with(f"user:bob:r::deny {X} everyone@:r::allow"), "list", "e", "DENIED",
                  "DENIED")
        self.case(row, "chmod through write_acl by a non-owner", "bob",
                  dir_file(X, "user:bob:rC::allow owner@:rwpcCoS::allow"), "chmod", "e/f", OK,
                  OK, arg=0o640)
        self.case(row, "chmod without write_acl", "bob",
                  dir_file(X, "user:bob:rw::allow owner@:rwpcCoS::allow"), "chmod", "e/f",
                  "DENIED", "DENIED", arg=0o640)

        # the creator of a read-only file writes it through the creating open
        def create_ro(where):
            p = self.path(where, "e/ro")

            def fn():
                fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o444)
                try:
                    os.write(fd, b"creator\n")
                    os.fsync(fd)
                finally:
                    os.close(fd)
            return self.local("alice", fn)

        for where in ("nfs", "local"):
            self.fresh()
            self.mkdir("e", acl=f"user:alice:wx::allow {X}")
            got = create_ro(where)
            self.expect(row, f"alice creates a 0444 file and writes it through that open "
                        f"({where})", OK, got)
            self.r.check(row, f"its content is there ({where})", self.content("e/ro") ==
                         b"creator\n", repr(self.content("e/ro")))
        self.expect(row, "a later write open of that 0444 file by alice (nfs)", "DENIED",
                    self.op("nfs", "alice", "write", "e/ro"))

        # an owner's open keeps the access it was granted
        for where in ("nfs", "local"):
            self.fresh()
            self.mkdir("e", acl=X)
            self.mkfile("e/f", acl="owner@:rwpcCoS::allow", owner=1001)
            p = self.path(where, "e/f")
            rel = "e/f"

            def fn(p=p, rel=rel):
                fd = os.open(p, os.O_WRONLY)
                try:
                    os.write(fd, b"1")
                    os.fsync(fd)
                    # alice takes her own write access away, then writes on
                    subprocess.run([self.setrichacl, "--set", "owner@:rcCoS::allow",
                                    self.p(rel)], check=True, capture_output=True)
                    os.write(fd, b"2")
                    os.fsync(fd)
                finally:
                    os.close(fd)
            got = self.local("alice", fn)
            self.expect(row, f"alice keeps writing through her open after removing her "
                        f"write access ({where})", OK, got)
        self.expect(row, "a new write open by alice after that (nfs)", "DENIED",
                    self.op("nfs", "alice", "write", "e/f"))

        # acl changes over NFS need write_acl (or ownership)
        self.fresh()
        self.mkdir("e", acl=X)
        self.mkfile("e/f", acl="user:bob:rw::allow owner@:rwpcCoS::allow", owner=1001)
        before = self.stored("e/f")
        got = self.setfacl("e/f", "-a", "A::1002:rwaDxtTnNcCoy", user="bob")
        self.expect(row, "bob without write_acl sets an acl over NFS", "DENIED", got)
        self.r.check(row, "state: the acl is unchanged", self.stored("e/f") == before,
                     "it changed")
        self.setacl("e/f", "user:bob:rwC::allow owner@:rwpcCoS::allow")
        got = self.setfacl("e/f", "-a", "A::1003:r", user="bob")
        self.expect(row, "bob with write_acl sets an acl over NFS", OK, got)
        rich = self.rich("e/f")
        self.r.check(row, "state: carol's entry is stored",
                     rich is not None and (ALLOW, 0, 0x1, "1003") in rich[2],
                     show(rich[2]) if rich else "no acl")

    def n_io(self):
        row = "N-IO"
        self.fresh()
        self.mkfile("s", owner=1001, acl="owner@:rwpxcCoS::allow")
        st = self.smb_add_ace("alice", self.smbrel("s"), self.sids["bob"],
                              run.FILE_GENERIC_READ)
        self.r.check(row, "alice adds an allow ACE for bob over SMB", st == SMB_OK, st)
        rich = self.rich("s")
        raw, err = self.nfs_view("s")
        self.r.check(row, "NFS shows exactly the entries the kernel stores after the SMB write",
                     rich is not None and raw == rich[2],
                     f"nfs {show(raw) if raw else err}, stored {show(rich[2]) if rich else None}")
        self.r.check(row, "NFS shows bob's entry with read_data",
                     raw is not None and any(e[3] == "1002" and e[0] == ALLOW and e[2] & 0x1
                                             for e in raw), show(raw) if raw else err)
        self.expect(row, "bob reads over NFS what SMB granted him", OK,
                    self.op("nfs", "bob", "read", "s"))

        st = self.setfacl("s", "-a", "A::1003:rwatTnNcy")
        self.r.check(row, "nfs4_setfacl adds an entry for carol", st == OK, st)
        st, sd = self.smb_get_sd("alice", self.smbrel("s"))
        aces = [(str(a.trustee), a.type, a.access_mask)
                for a in (sd.dacl.aces if sd is not None and sd.dacl else [])]
        carol = [a for a in aces if a[0] == self.sids["carol"]]
        self.r.check(row, "the SMB descriptor shows carol's ACE, allowed, with read and write",
                     st == SMB_OK and len(carol) == 1 and carol[0][1] == 0 and
                     carol[0][2] & 0x3 == 0x3, f"{st} {aces}")
        bob = [a for a in aces if a[0] == self.sids["bob"]]
        self.r.check(row, "and still bob's", len(bob) == 1, f"{aces}")
        got = self.smb_read("carol", self.smbrel("s"))[0]
        self.r.check(row, "carol reads over SMB what NFS granted her", got == SMB_OK, got)

    def n_host(self):
        row = "N-HOST"
        self.fresh()
        self.mkfile("h", owner=1001, acl="owner@:rwpxcCoS::allow everyone@:r::allow")
        good = [(ALLOW, 0, 0x1, "OWNER@")]
        cases = [
            ("an audit entry", encode_nfs4([(2, 0, 0x1, "OWNER@")])),
            ("an alarm entry", encode_nfs4([(3, 0, 0x1, "OWNER@")])),
            ("an undefined entry type", encode_nfs4([(7, 0, 0x1, "OWNER@")])),
            ("the successful-access audit flag", encode_nfs4([(ALLOW, 0x10, 0x1, "OWNER@")])),
            ("the failed-access audit flag", encode_nfs4([(DENY, 0x20, 0x1, "OWNER@")])),
            ("an undefined entry flag", encode_nfs4([(ALLOW, 0x100, 0x1, "OWNER@")])),
            ("an undefined permission bit", encode_nfs4([(ALLOW, 0, 0x80000001, "OWNER@")])),
            ("a deny entry for a name without an id",
             encode_nfs4(good + [(DENY, 0, 0x1, "nobody-here@example.org")])),
            ("a name with a NUL byte", encode_nfs4(good + [(ALLOW, 0, 0x1, b"ab\0cd")])),
            ("an empty name", encode_nfs4(good + [(ALLOW, 0, 0x1, "")])),
            ("a count larger than the entries", encode_nfs4(good, count=1000)),
            ("a truncated entry", encode_nfs4(good)[:-4]),
            # the client's setxattr refuses these two (64 KiB); N-STATE sends
            # them to knfsd with the raw client
            ("6000 entries (refused by the client's setxattr)",
             encode_nfs4([(ALLOW, 0, 0x1, "1002")] * 6000)),
            ("unmapped names over 64 KiB (refused by the client's setxattr)",
             encode_nfs4([(ALLOW, 0, 0x1, "u" * 1000 + str(i)) for i in range(70)])),
        ]
        for desc, blob in cases:
            before = self.stored("h")
            try:
                os.setxattr(self.n("h"), NFS4_XATTR, blob)
                got = OK
            except OSError as e:
                got = errno.errorcode.get(e.errno, str(e.errno))
            self.r.check(row, f"{desc}: refused", got != OK, "the write succeeded")
            self.r.check(row, f"{desc}: acl and mode unchanged", self.stored("h") == before,
                         "they changed")
        raw, err = self.nfs_view("h")
        self.r.check(row, "the acl still reads back", raw is not None, err or "")
        new = self.dmesg()[len(self.dmesg_before):]
        trouble = [line for line in new.splitlines() if KERNEL_TROUBLE.search(line)]
        self.r.check(row, "no oops, BUG or warning in the kernel log", not trouble,
                     "; ".join(trouble[:5]))

    def getrichacl_view(self, rel):
        """Entries of `getrichacl --full` (masks applied by the user-space
        library) in the form of the NFS view."""
        text = self.acltext(rel, "--full", "--unaligned", "--numeric-ids")
        entries = []
        for line in text.splitlines()[1:]:
            line = line.strip()
            if not line or line.startswith("flags:"):
                continue
            who, perms, flags, kind = line.rsplit(":", 3)
            mask = 0
            for c in perms.replace("-", ""):
                mask |= RICH_PERMS[c]
            fl = 0
            for c in flags:
                fl |= RICH_FLAGS[c]
            if who in ("owner@", "group@", "everyone@"):
                if who == "group@":
                    fl |= F_GROUP
                who = who.upper()
            elif who.startswith("group:"):
                fl |= F_GROUP
                who = who[len("group:"):]
            else:
                who = who[len("user:"):]
            entries.append(({"allow": ALLOW, "deny": DENY}[kind], fl & 0xff, mask, who))
        return entries

    def nfs_as_getrichacl(self, rel):
        """(does NFS show rel's acl as getrichacl shows it, details)"""
        raw, err = self.nfs_view(rel)
        want = self.getrichacl_view(rel)
        return raw == want, f"nfs {show(raw) if raw else err}; getrichacl {show(want)}"

    def random_masked(self, row, cases=150, seed=1207):
        """The differential of N-MASK on random acls (a fixed seed): named,
        special and unmapped entries, allows and denies, inheritance flags
        on directories, chmod to a random mode or explicit masks with
        write-through; NFS must show what getrichacl shows for every one."""
        rnd = random.Random(seed)
        whos = ["owner@", "group@", "everyone@", "user:1001", "user:1002", "user:1003",
                "group:2000", "group:1002"]
        letters = "rwpxdDaARWcCoS"
        modes = [0o600, 0o640, 0o644, 0o604, 0o750, 0o711, 0o460, 0o777, 0o000, 0o755]
        done, mismatches, refused = 0, [], 0
        for i in range(cases):
            isdir = rnd.random() < 0.4
            entries = []
            for _ in range(rnd.randint(1, 7)):
                perms = "".join(c for c in letters if rnd.random() < 0.3) or "r"
                flags = rnd.choice(["", "", "f", "d", "fd", "fdi", "fdn"]) if isdir else ""
                if rnd.random() < 0.1:
                    entries.append(f"user:S-1-5-21-9-9-9-{rnd.randint(1000, 1003)}:{perms}:"
                                   f"{flags}u:allow")
                else:
                    entries.append(f"{rnd.choice(whos)}:{perms}:{flags}:"
                                   f"{rnd.choice(['allow', 'allow', 'deny'])}")
            acl, mode = " ".join(entries), rnd.choice(modes)
            if rnd.random() < 0.2:
                masks = " ".join(f"{c}:{''.join(x for x in 'rwpx' if rnd.random() < 0.5)}::mask"
                                 for c in ("owner", "group", "other"))
                acl, mode = f"flags:m{rnd.choice(['w', ''])} {masks} {acl}", None
            rel = f"rk{i}"
            try:
                if isdir:
                    self.mkdir(rel, acl=acl, owner=1001)
                else:
                    self.mkfile(rel, acl=acl, owner=1001)
            except SetupError:
                refused += 1        # setrichacl refused the combination
                continue
            if mode is not None:
                os.chmod(self.p(rel), mode)
            same, details = self.nfs_as_getrichacl(rel)
            done += 1
            if not same:
                mismatches.append(f"{rel} '{acl}' mode {mode}: {details}")
        self.r.check(row, f"{done} random acls ({refused} combinations refused by "
                     f"setrichacl): NFS shows what getrichacl shows",
                     not mismatches and done >= cases // 2,
                     "; ".join(mismatches[:3]) or f"only {done} cases")

    def n_mask(self):
        row = "N-MASK"
        cases = [
            ("k1", False, "owner@:rwpcCoS::allow user:1002:r::allow group@:r::allow "
             "everyone@:r::allow", 0o600),
            ("k2", False, "user:1002:rwp::allow group:2000:rx::allow everyone@:r::allow", 0o640),
            ("k3", False, "user:1003:w::deny everyone@:rwp::allow", 0o604),
            ("k4", False, "owner@:r::allow user:1001:rwp::allow group@:rwp::allow "
             "everyone@:rw::allow", 0o460),
            ("k5", True, "user:1002:rwpxd:fd:allow everyone@:rx:fd:allow", 0o750),
            ("k6", True, "user:1002:w:fdi:deny group:2000:rwpxd:fd:allow owner@:rwpxd::allow "
             "everyone@:rx::allow", 0o711),
            ("k7", False, "flags:mw owner:rw::mask group:r::mask other:r::mask "
             "user:1002:rwx::allow everyone@:r::allow", None),
            ("k8", False, "user:S-1-5-21-9-9-9-1000:rwp:u:allow everyone@:rw::allow", 0o644),
            # bob is in the group class only through entries that the masks
            # cut away (k9) or that everyone@ settled first (k10)
            ("k9", False, "user:1002:rw::allow owner@:rwp::allow", 0o604),
            ("k10", False, "flags:m owner:rwp::mask group:rw::mask other:r::mask "
             "everyone@:rw::allow user:1002:w::deny", None),
        ]
        self.fresh()
        for rel, isdir, acl, mode in cases:
            try:
                if isdir:
                    self.mkdir(rel, acl=acl, owner=1001)
                else:
                    self.mkfile(rel, acl=acl, owner=1001)
            except SetupError as e:
                self.r.fail(row, f"{rel}: setup", str(e))
                continue
            if mode is not None:
                os.chmod(self.p(rel), mode)
            rich = self.rich(rel)
            if not (rich and rich[0] & RICH_MASKED):
                self.r.fail(row, f"{rel}: setup", f"not a masked acl: {self.acltext(rel, '--raw')}")
                continue
            before = self.stored(rel)
            self.r.check(row, f"{rel} ({acl}{f', chmod {mode:o}' if mode else ''}): NFS shows "
                         "the acl without masks that getrichacl shows",
                         *self.nfs_as_getrichacl(rel))
            self.r.check(row, f"{rel}: state unchanged by the read", self.stored(rel) == before,
                         "it changed")
        self.random_masked(row)

        # what the mask takes away is refused over NFS as locally
        self.expect(row, "the group member bob is refused the read that chmod 600 took away "
                    "(nfs)", "DENIED", self.op("nfs", "bob", "read", "k1"))
        self.expect(row, "the same read locally", "DENIED", self.op("local", "bob", "read", "k1"))
        # setting the shown acl back grants the same
        raw, err = self.nfs_view("k2")
        before_access = {u: self.op("local", u, "read", "k2") for u in ("bob", "carol")}
        if raw is not None:
            try:
                os.setxattr(self.n("k2"), NFS4_XATTR, encode_nfs4(raw))
                got = OK
            except OSError as e:
                got = errno.errorcode.get(e.errno, str(e.errno))
            self.expect(row, "k2: the acl shown over NFS is set back", OK, got)
            after = {u: self.op("local", u, "read", "k2") for u in ("bob", "carol")}
            self.r.check(row, "k2: it grants bob and carol what they had", after == before_access,
                         f"before {before_access}, after {after}")
        # a user whom the kernel keeps in the group class stays there in the
        # acl shown: what it is refused (k9) or granted (k10) stays so when
        # the acl shown is set back
        for rel, op, want in (("k9", "read", "DENIED"), ("k10", "write", OK)):
            self.expect(row, f"{rel}: bob's {op} under the masked acl", want,
                        self.op("local", "bob", op, rel))
            raw, err = self.nfs_view(rel)
            if raw is None:
                self.r.fail(row, f"{rel}: the acl shown over NFS", err)
                continue
            try:
                os.setxattr(self.n(rel), NFS4_XATTR, encode_nfs4(raw))
                got = OK
            except OSError as e:
                got = errno.errorcode.get(e.errno, str(e.errno))
            self.expect(row, f"{rel}: the acl shown over NFS is set back", OK, got)
            self.expect(row, f"{rel}: bob's {op} under the acl shown, set back", want,
                        self.op("local", "bob", op, rel))

    def n_state(self):
        """Stateids and compounds the kernel's client never sends
        (nfs4raw.py): the attacks on patch 42's NFSD_MAY_OPENED and on
        SETATTR with an acl."""
        row = "N-STATE"
        R = nfs4raw
        self.fresh()
        self.mkdir("st", acl="everyone@:rwpxaRcS::allow")
        c = R.Client(1002)
        c.setclientid()
        dfh = c.getfh(f"/{SUB}/st")

        def file(name, acl, content=b"secret\n"):
            self.mkfile(f"st/{name}", content=content, acl=acl, owner=1001)
            return c.getfh(f"/{SUB}/st/{name}")

        def expect_nfs(desc, want, got):
            return self.r.check(row, f"{desc} -> {want}", got == want, f"got {got}")

        # a write-only open of the owner does not read once another user's
        # OPEN left a readable file behind
        fh = file("f1", "owner@:wp::allow user:1002:r::allow")
        self.expect(row, "alice, owner, reads f1 locally (her acl grants write only)", "DENIED",
                    self.op("local", "alice", "read", "st/f1"))
        c.setuid(1001)
        st, sid_a, _, _ = c.open(dfh, "f1", R.SHARE_WRITE)
        expect_nfs("alice OPENs f1 for writing", R.NFS4_OK, st)
        c.setuid(1002)
        st, sid_b, _, _ = c.open(dfh, "f1", R.SHARE_READ)
        expect_nfs("bob OPENs f1 for reading", R.NFS4_OK, st)
        c.setuid(1001)
        expect_nfs("alice READs f1 with her write-only stateid", R.NFS4ERR_ACCESS,
                   c.read(fh, sid_a)[0])
        expect_nfs("alice READs f1 with bob's read stateid", R.NFS4ERR_ACCESS,
                   c.read(fh, sid_b)[0])
        expect_nfs("alice READs f1 with the anonymous stateid", R.NFS4ERR_ACCESS,
                   c.read(fh, R.ANONYMOUS_STATEID)[0])
        expect_nfs("alice READs f1 with the bypass stateid", R.NFS4ERR_ACCESS,
                   c.read(fh, R.BYPASS_STATEID)[0])

        # the creator writes through the creating OPEN, and reads nothing
        # with it, whatever the acl she set grants
        c.setuid(1001)
        st, sid_c, fh2, _ = c.open(dfh, "f2", R.SHARE_WRITE, create=True, attrs={
            R.ATTR_ACL: R.acl_attr([(ALLOW, 0, 0x1, "1002")])})
        expect_nfs("alice creates f2 with an acl that grants only bob read", R.NFS4_OK, st)
        expect_nfs("alice writes f2 through the creating OPEN", R.NFS4_OK,
                   c.write(fh2, sid_c, b"data") if st == R.NFS4_OK else st)
        self.r.check(row, "state: f2 holds the data", self.content("st/f2") == b"data",
                     repr(self.content("st/f2")))
        rich = self.rich("st/f2")
        self.r.check(row, "state: f2 has the acl sent with the OPEN",
                     rich is not None and (ALLOW, 0, 0x1, "1002") in rich[2],
                     show(rich[2]) if rich else "no acl")
        if st == R.NFS4_OK:
            expect_nfs("alice READs f2 with the write-only creating stateid", R.NFS4ERR_ACCESS,
                       c.read(fh2, sid_c)[0])
            c.setuid(1002)
            c.open(dfh, "f2", R.SHARE_READ)
            c.setuid(1001)
            expect_nfs("... also after bob opened f2 for reading", R.NFS4ERR_ACCESS,
                       c.read(fh2, sid_c)[0])

        # another user's stateid does not carry his access to the owner
        fh3 = file("f3", "owner@:r::allow user:1002:rw::allow", b"orig\n")
        c.setuid(1002)
        st, sid_b3, _, _ = c.open(dfh, "f3", R.SHARE_BOTH)
        expect_nfs("bob OPENs f3 for reading and writing", R.NFS4_OK, st)
        c.setuid(1001)
        expect_nfs("alice, owner without write, WRITEs f3 with bob's stateid", R.NFS4ERR_ACCESS,
                   c.write(fh3, sid_b3, b"PWND"))
        self.r.check(row, "state: f3 is unchanged", self.content("st/f3") == b"orig\n",
                     repr(self.content("st/f3")))
        st, sid_a3, _, _ = c.open(dfh, "f3", R.SHARE_READ)
        expect_nfs("alice OPENs f3 for reading", R.NFS4_OK, st)
        expect_nfs("alice WRITEs f3 with her read-only stateid", R.NFS4ERR_OPENMODE,
                   c.write(fh3, sid_a3, b"PWND"))

        # an OPEN that finds the file creates nothing and sets no acl
        before = self.stored("st/f3")
        c.setuid(1002)
        c.open(dfh, "f3", R.SHARE_READ, create=True, attrs={
            R.ATTR_ACL: R.acl_attr([(ALLOW, 0, 0x1f01ff, "EVERYONE@")])})
        self.r.check(row, "state: bob's OPEN with create of the existing f3 left its acl alone",
                     self.stored("st/f3") == before, "it changed")

        # SETATTR of the size with an acl that is refused changes nothing
        fh4 = file("f4", "owner@:rwpcCoS::allow user:1002:rw::allow", b"0123456789")
        c.setuid(1001)
        expect_nfs("alice SETATTRs size 0 with an acl that denies an unmapped name",
                   R.NFS4ERR_BADOWNER, c.setattr(fh4, {
                       R.ATTR_SIZE: R.size_attr(0),
                       R.ATTR_ACL: R.acl_attr([(DENY, 0, 0x2, "no-such-user@example.org")])}))
        self.r.check(row, "state: f4 keeps its 10 bytes", self.content("st/f4") == b"0123456789",
                     repr(self.content("st/f4")))
        c.setuid(1002)
        expect_nfs("bob, who may write but not change the acl, SETATTRs size 2 with an acl",
                   R.NFS4ERR_PERM, c.setattr(fh4, {
                       R.ATTR_SIZE: R.size_attr(2),
                       R.ATTR_ACL: R.acl_attr([(ALLOW, 0, 0x1f01ff, "EVERYONE@")])}))
        rich = self.rich("st/f4")
        self.r.check(row, "state: f4 keeps its 10 bytes and its acl",
                     self.content("st/f4") == b"0123456789" and rich is not None and
                     (ALLOW, 0, 0x1f01ff, "EVERYONE@") not in rich[2],
                     f"{self.content('st/f4')!r} {show(rich[2]) if rich else 'no acl'}")

        # an acl that the file system cannot hold (ENOSPC) is not reported
        # as set: the OPEN's attrset leaves it out, and SETATTR fails
        big = [(ALLOW, 0, 0x1, "1001")] + [(ALLOW, 0, 0x1, str(20000 + i)) for i in range(400)]
        c.setuid(1001)
        st, _, _, attrset = c.open(dfh, "f5", R.SHARE_BOTH, create=True,
                                   attrs={R.ATTR_ACL: R.acl_attr(big)})
        rich = self.rich("st/f5")
        self.r.check(row, "an OPEN that creates f5 with a 401-entry acl does not report the "
                     "acl as set", st != R.NFS4_OK or not (attrset and attrset[0] & (1 << 12)),
                     f"status {st}, attrset {attrset}")
        self.r.check(row, "state: f5 does not have part of that acl",
                     rich is None or not any(e[3] == "20000" for e in rich[2]),
                     show(rich[2]) if rich else "")
        self.stateid_race(row, file, dfh)

        # acls larger than system.richacl can hold, sent to knfsd itself
        fh7 = file("f7", "owner@:rwpcCoS::allow user:1002:r::allow")
        for desc, aces in (
                ("5461 entries (system.richacl holds 5460)",
                 [(ALLOW, 0, 0x1, "OWNER@")] * 5461),
                ("100 names without an id, 70,000 bytes of names (system.richacl "
                 "holds 65,535)", [(ALLOW, 0, 0x1, f"{i:03d}" + "n" * 697) for i in range(100)])):
            before = self.stored("st/f7")
            got = c.setattr(fh7, {R.ATTR_ACL: R.acl_attr(aces)})
            self.r.check(row, f"SETATTR of an acl of {desc}: NFS4ERR_FBIG",
                         got == R.NFS4ERR_FBIG, f"got {got}")
            self.r.check(row, f"state: {desc}: acl and mode unchanged",
                         self.stored("st/f7") == before, "they changed")
        fh6 = file("f6", "owner@:rwpcCoS::allow user:1002:r::allow")
        got = c.setattr(fh6, {R.ATTR_ACL: R.acl_attr(big)})
        self.r.check(row, "SETATTR of the 401-entry acl fails (NFS4ERR_NOSPC)",
                     got == R.NFS4ERR_NOSPC, f"got {got}")
        rich = self.rich("st/f6")
        self.r.check(row, "state: f6 keeps its acl",
                     rich is not None and not any(e[3] == "20000" for e in rich[2]),
                     show(rich[2]) if rich else "no acl")

    def stateid_race(self, row, file, dfh, seconds=8.0):
        """Another fsuid's OPEN upgrade of a shared open owner's stateid
        (here bob's truncating OPEN for writing, whose commit sleeps) must
        not lend its write access to the owner alice while it runs: alice
        WRITEs with the stateid from two connections all the time."""
        R = nfs4raw
        fh = file("race", "owner@:rcCoS::allow user:1002:rw::allow everyone@:r::allow",
                  b"orig\n")
        self.expect(row, "alice, owner, writes the race file locally (her acl: read only)",
                    "DENIED", self.op("local", "alice", "write", "st/race"))
        c = R.Client(1002)
        c.setclientid()
        st, _, _, _ = c.open(dfh, "race", R.SHARE_WRITE, owner="bob-keeps")
        current, stop, results = [None], [False], []

        def writer():
            w = R.Client(1001)
            w.clientid = c.clientid
            while not stop[0]:
                sid = current[0]
                if sid is not None:
                    results.append(w.write(fh, sid, b"ALICE!"))

        threads = [threading.Thread(target=writer) for _ in range(2)]
        for t in threads:
            t.start()
        rounds, t0 = 0, time.monotonic()
        try:
            while time.monotonic() - t0 < seconds:
                c.setuid(1001)
                st, sid, _, _ = c.open(dfh, "race", R.SHARE_READ, owner="shared")
                if st:
                    break
                current[0] = sid
                c.setuid(1002)
                st, sid2, _, _ = c.open(dfh, "race", R.SHARE_WRITE, create=True,
                                        attrs={R.ATTR_SIZE: R.size_attr(0)}, owner="shared")
                current[0] = None
                if st:
                    break
                c.close(fh, sid2, "shared")
                rounds += 1
        finally:
            stop[0] = True
            for t in threads:
                t.join()
        self.r.check(row, f"alice's WRITEs during {rounds} truncating upgrades of the shared "
                     "stateid by bob all fail", rounds > 0 and R.NFS4_OK not in results,
                     f"rounds {rounds}, statuses {sorted(set(results))}, "
                     f"{results.count(R.NFS4_OK)} succeeded")
        self.r.check(row, "state: alice's data never reached the file",
                     b"ALICE" not in (self.content("st/race") or b""),
                     repr(self.content("st/race")))

    def n_posix(self):
        """A file system with POSIX acls (tmpfs) exported below the richacl
        one: knfsd converts NFSv4 acls to POSIX acls there as before, and
        names without an id are refused there (NFS4ERR_BADOWNER)."""
        row = "N-POSIX"
        self.fresh()
        local = self.p("px")
        os.mkdir(local)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", local], check=True)
        export = ["127.0.0.1:" + local]
        try:
            res = subprocess.run(["exportfs", "-o", "rw,sync,no_subtree_check,no_root_squash,"
                                  "fsid=77,sec=sys", *export], capture_output=True, text=True)
            if res.returncode:
                raise SetupError(f"exportfs {local}: {res.stderr.strip()}")
            with open(os.path.join(local, "f"), "w") as f:
                f.write("posix\n")
            os.chmod(os.path.join(local, "f"), 0o640)
            st = self.setfacl("px/f", "-a", "A::1002:rtncy")
            self.r.check(row, "nfs4_setfacl adds an entry for bob on the POSIX acl file system",
                         st == OK, st)
            out = subprocess.run(["getfacl", "-cn", os.path.join(local, "f")],
                                 capture_output=True, text=True).stdout
            self.r.check(row, "state: the file has the POSIX acl entry user:1002:r--",
                         "user:1002:r--" in out, out.strip())
            before = subprocess.run(["getfacl", "-cn", os.path.join(local, "f")],
                                    capture_output=True, text=True).stdout
            try:
                os.setxattr(self.n("px/f"), NFS4_XATTR, encode_nfs4(
                    [(ALLOW, 0, 0x7, "OWNER@"), (ALLOW, 0, 0x1, "no-such-user@example.org")]))
                got = OK
            except OSError as e:
                got = errno.errorcode.get(e.errno, str(e.errno))
            self.r.check(row, "an allow entry for a name without an id is refused there "
                         "(only richacls keep such names)", got != OK, "the write succeeded")
            after = subprocess.run(["getfacl", "-cn", os.path.join(local, "f")],
                                   capture_output=True, text=True).stdout
            self.r.check(row, "state: the POSIX acl is unchanged", after == before,
                         f"{before.strip()} -> {after.strip()}")
        finally:
            subprocess.run(["exportfs", "-u", *export], capture_output=True)
            subprocess.run(["umount", "-l", local], capture_output=True)

    def n_idmap(self):
        """Names through knfsd's id mapping: rpc.idmapd (Domain localdomain)
        and nfs4_disable_idmapping off for this row only."""
        row = "N-IDMAP"
        R = nfs4raw
        param = "/sys/module/nfsd/parameters/nfs4_disable_idmapping"
        with open("/etc/idmapd.conf", "w") as f:
            f.write("[General]\nDomain = localdomain\n[Mapping]\nNobody-User = nobody\n"
                    "Nobody-Group = nogroup\n")
        idmapd = subprocess.Popen(["rpc.idmapd", "-f", "-S"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            with open(param, "w") as f:
                f.write("N")
            self.fresh()
            self.mkdir("id", acl="everyone@:rwpxaRcS::allow")
            self.mkfile("id/f", acl="owner@:rwpcCoS::allow user:1003:r::allow", owner=1001)
            c = R.Client(1001)
            c.setclientid()
            fh = c.getfh(f"/{SUB}/id/f")
            acl = [(ALLOW, 0, 0x1f01ff, "OWNER@"), (ALLOW, 0, 0x1, "bob@localdomain"),
                   (ALLOW, F_GROUP, 0x21, "staff@localdomain"),
                   (ALLOW, 0, 0x1, "ghost@localdomain")]
            got = c.setattr(fh, {R.ATTR_ACL: R.acl_attr(acl)})
            self.r.check(row, "alice sets an acl naming bob@localdomain, staff@localdomain "
                         "and ghost@localdomain (no such user)", got == R.NFS4_OK, f"got {got}")
            rich = self.rich("id/f")
            stored = rich[2] if rich else []
            self.r.check(row, "state: bob is stored as uid 1002, staff as gid 2000, ghost "
                         "as an unmapped identifier",
                         (ALLOW, 0, 0x1, "1002") in stored and
                         (ALLOW, F_GROUP, 0x21, "2000") in stored and
                         (ALLOW, 0, 0x1, "ghost@localdomain") in stored, show(stored))
            st, shown = c.getacl(fh)
            self.r.check(row, "GETATTR shows the names again",
                         st == R.NFS4_OK and shown == acl, f"{st} {shown}")
            self.expect(row, "bob reads the file locally through his entry", OK,
                        self.op("local", "bob", "read", "id/f"))
            before = self.stored("id/f")
            got = c.setattr(fh, {R.ATTR_ACL: R.acl_attr(acl + [(DENY, 0, 0x2,
                                                                 "ghost@localdomain")])})
            self.r.check(row, "a deny entry for ghost@localdomain is refused "
                         "(NFS4ERR_BADOWNER)", got == R.NFS4ERR_BADOWNER, f"got {got}")
            self.r.check(row, "state: the acl is unchanged", self.stored("id/f") == before,
                         "it changed")
        finally:
            with open(param, "w") as f:
                f.write("Y")
            idmapd.terminate()
            idmapd.wait()

    def run_rows(self, only):
        for rid in self.ROWS:
            if only and rid not in only:
                continue
            try:
                getattr(self, rid.lower().replace("-", "_"))()
            except SetupError as e:
                self.r.fail(rid, "setup", str(e))
        if os.path.lexists(self.root):
            shutil.rmtree(self.root)
        print(f"{self.r.passed} passed, {self.r.failed} failed", flush=True)
        return self.r.failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True, help="testenv/smb/server.sh state directory")
    ap.add_argument("--path", required=True, help="the exported directory (the [richacl] share)")
    ap.add_argument("--mount", required=True, help="where the export is mounted over NFS")
    ap.add_argument("--tools", default="/usr/bin")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    sys.exit(0 if Nfs(args).run_rows(args.only) else 1)


if __name__ == "__main__":
    main()
