#!/usr/bin/python3
"""The S-* suite: access semantics over SMB (SEMANTICS.md section 2).

Runs as root inside the QEMU guest, against the in-guest smbd started by
testenv/smb/server.sh (the [richacl] share on the richacl ext4 mount).
For every row S-C1 ... S-I3 it

  1. builds the fixture as root on the share's directory (setrichacl),
  2. acts over SMB as the named user (python3-samba's libsmb, smbclient or
     smbcacls) and checks the NTSTATUS the client sees,
  3. checks the state on disk (file present / absent, content, owner,
     getrichacl output),
  4. rebuilds the fixture and repeats the operation through local system
     calls with the same uid, gid and groups (S-K1), checking that the kernel
     alone gives the same allow / deny.

Expected results are Windows server behaviour (SEMANTICS.md, docs/smb-semantics.md),
never what the code under test printed.  Output: one line per check,
"ok <ID> <description>" or "FAIL <ID> <description>: <details>", where ID is
the row (S-D1) or, for the local repeat, "S-K1 [S-D1]"; then
"N passed, N failed".  Exit status 1 if anything failed.

usage: run.py --state DIR --path DIR [--share NAME] [--tools DIR] [--only ID...]
"""

import argparse
import errno
import os
import re
import shutil
import stat
import subprocess
import sys
import traceback

from samba import NTSTATUSError, credentials, ntstatus, param
from samba.dcerpc import security
from samba.samba3 import libsmb_samba_internal as libsmb
from samba.samba3 import param as s3param

# ---------------------------------------------------------------- constants

# CreateDisposition / CreateOptions (MS-SMB2 2.2.13)
FILE_OPEN = 1
FILE_CREATE = 2
FILE_OPEN_IF = 3
FILE_OVERWRITE = 4
FILE_OVERWRITE_IF = 5
FILE_DIRECTORY_FILE = 0x1
FILE_NON_DIRECTORY_FILE = 0x40
FILE_DELETE_ON_CLOSE = 0x1000
SHARE_ALL = libsmb.FILE_SHARE_READ | libsmb.FILE_SHARE_WRITE | libsmb.FILE_SHARE_DELETE

DELETE = security.SEC_STD_DELETE
READ_CONTROL = security.SEC_STD_READ_CONTROL
WRITE_DAC = security.SEC_STD_WRITE_DAC
SYNCHRONIZE = security.SEC_STD_SYNCHRONIZE
READ_DATA = security.SEC_FILE_READ_DATA
WRITE_DATA = security.SEC_FILE_WRITE_DATA
APPEND_DATA = security.SEC_FILE_APPEND_DATA
READ_ATTRIBUTES = security.SEC_FILE_READ_ATTRIBUTE
FILE_GENERIC_READ = 0x00120089
FILE_GENERIC_WRITE = 0x00120116
FILE_ALL_ACCESS = 0x001f01ff

SID_EVERYONE = "S-1-1-0"
SID_CREATOR_OWNER = "S-1-3-0"

INHERITED_ACE = security.SEC_ACE_FLAG_INHERITED_ACE
OI = security.SEC_ACE_FLAG_OBJECT_INHERIT
CI = security.SEC_ACE_FLAG_CONTAINER_INHERIT
IO = security.SEC_ACE_FLAG_INHERIT_ONLY
NP = security.SEC_ACE_FLAG_NO_PROPAGATE_INHERIT

# richacl permission letters (algorithms.md 7.1), grouped like the Windows
# permission sets a client would write.
FULL_DIR = "rwpxdDaARWcCoS"     # full control on a directory
FULL_FILE = "rwpxDaARWcCoS"     # full control on a file
RX_DIR = "rxaRcS"               # list, traverse, read attributes/EA/ACL, synchronize
R_FILE = "raRcS"                # FILE_GENERIC_READ

# Test users (SEMANTICS.md section 2; made by testenv/guest/init.sh)
STAFF = 2000
IDS = {"alice": (1001, 1001, []), "bob": (1002, 1002, [STAFF]),
       "carol": (1003, 1003, [STAFF])}

STATUS_NAMES = {getattr(ntstatus, n) & 0xffffffff: n
                for n in dir(ntstatus) if n.startswith("NT_STATUS_")}
OK = "NT_STATUS_OK"
DENIED = "NT_STATUS_ACCESS_DENIED"


class SetupError(Exception):
    """The fixture could not be built: every check of the case fails."""


# ------------------------------------------------------------------ reporting

class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, tid, desc):
        self.passed += 1
        print(f"ok {tid} {desc}", flush=True)

    def fail(self, tid, desc, details):
        self.failed += 1
        print(f"FAIL {tid} {desc}: {details}", flush=True)

    def check(self, tid, desc, cond, details=""):
        if cond:
            self.ok(tid, desc)
        else:
            self.fail(tid, desc, details)
        return cond


def k1(row):
    return f"S-K1 [{row}]"


# ------------------------------------------------------------------ the suite

class Suite:
    def __init__(self, args):
        self.state = args.state
        self.root = args.path
        self.share = args.share
        self.conf = os.path.join(args.state, "client.conf")
        self.getrichacl = os.path.join(args.tools, "getrichacl")
        self.setrichacl = os.path.join(args.tools, "setrichacl")
        self.r = Report()
        self.passwords = {}
        with open(os.path.join(args.state, "users")) as f:
            for line in f:
                name, _uid, pw = line.split()
                self.passwords[name] = pw
        self.sids = self._user_sids(os.path.join(args.state, "smb.conf"))
        self.lp = param.LoadParm()          # for the credentials
        self.lp.load(self.conf)
        self.lp3 = s3param.get_context()    # libsmb wants source3's loadparm
        self.lp3.load(self.conf)
        self.conns = {}

    # ---- identities

    @staticmethod
    def _user_sids(smbconf):
        out = subprocess.run(["pdbedit", "-s", smbconf, "-L", "-v"],
                             capture_output=True, text=True, check=True).stdout
        sids, name = {}, None
        for line in out.splitlines():
            m = re.match(r"Unix username:\s+(\S+)", line)
            if m:
                name = m.group(1)
            m = re.match(r"User SID:\s+(S-\S+)", line)
            if m and name:
                sids[name] = m.group(1)
        for u in IDS:
            if u not in sids:
                raise RuntimeError(f"pdbedit does not list {u}: {out}")
        return sids

    # ---- fixtures (as root, on the share's directory)

    def p(self, rel):
        return os.path.join(self.root, rel)

    def setacl(self, rel, text):
        res = subprocess.run([self.setrichacl, "--set", text, self.p(rel)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise SetupError(f"setrichacl --set '{text}' {rel}: "
                             f"{(res.stderr or res.stdout).strip()}")

    def mkdir(self, rel, acl=None, owner=0):
        path = self.p(rel)
        if os.path.lexists(path):
            shutil.rmtree(path)
        os.mkdir(path, 0o755)
        os.chown(path, owner, owner)
        if acl is not None:
            self.setacl(rel, acl)

    def mkfile(self, rel, content=b"original content\n", acl=None, owner=0):
        path = self.p(rel)
        with open(path, "wb") as f:
            f.write(content)
        os.chown(path, owner, owner)
        os.chmod(path, 0o644)
        if acl is not None:
            self.setacl(rel, acl)

    def content(self, rel):
        try:
            with open(self.p(rel), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def xattr(self, rel, name):
        """The value of attribute name of rel, or "<the error reading it>"."""
        try:
            return os.getxattr(self.p(rel), name)
        except OSError as e:
            return f"<{os.strerror(e.errno)}>"

    def exists(self, rel):
        return os.path.lexists(self.p(rel))

    def owner(self, rel):
        return os.lstat(self.p(rel)).st_uid

    def acltext(self, rel, *opts):
        res = subprocess.run([self.getrichacl, *opts, self.p(rel)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            return f"<getrichacl failed: {res.stderr.strip()}>"
        return res.stdout

    def aclentries(self, rel):
        """Stored entries as (who, perms, flags, type), and the acl flags."""
        text = self.acltext(rel, "--raw", "--numeric-ids", "--unaligned")
        entries, aclflags = [], ""
        for line in text.splitlines()[1:]:
            line = line.strip()
            if not line:
                continue
            if line.startswith("flags:"):
                aclflags = line[len("flags:"):]
                continue
            parts = line.rsplit(":", 3)
            if len(parts) != 4 or parts[3] == "mask":
                continue
            entries.append(tuple(parts))
        return aclflags, entries

    # ---- SMB side

    def conn(self, user):
        if user not in self.conns:
            creds = credentials.Credentials()
            creds.guess(self.lp)
            creds.set_username(user)
            creds.set_password(self.passwords[user])
            self.conns[user] = libsmb.Conn("127.0.0.1", self.share, self.lp3, creds)
        return self.conns[user]

    @staticmethod
    def status_of(exc):
        code = exc.args[0] & 0xffffffff
        return STATUS_NAMES.get(code, f"0x{code:08x}")

    def smb(self, fn, *args, **kwargs):
        """Run fn, return (NTSTATUS name, result)."""
        try:
            return OK, fn(*args, **kwargs)
        except NTSTATUSError as e:
            return self.status_of(e), None

    @staticmethod
    def w(rel):
        return rel.replace("/", "\\")

    def smb_open(self, user, rel, access, disposition=FILE_OPEN, options=0):
        return self.smb(self.conn(user).create, self.w(rel), DesiredAccess=access,
                        ShareAccess=SHARE_ALL, CreateDisposition=disposition,
                        CreateOptions=options)

    def smb_close(self, user, fnum):
        return self.smb(self.conn(user).close, fnum)[0]

    def smb_unlink(self, user, rel):
        return self.smb(self.conn(user).unlink, self.w(rel))[0]

    def smb_rename(self, user, src, dst, replace=False):
        return self.smb(self.conn(user).rename, self.w(src), self.w(dst),
                        replace=replace)[0]

    def smb_mkdir(self, user, rel):
        return self.smb(self.conn(user).mkdir, self.w(rel))[0]

    def smb_create_file(self, user, rel, data):
        st, fnum = self.smb_open(user, rel, WRITE_DATA | READ_ATTRIBUTES | SYNCHRONIZE,
                                 FILE_CREATE, FILE_NON_DIRECTORY_FILE)
        if st != OK:
            return st
        st, _ = self.smb(self.conn(user).write, fnum, data, 0)
        cst = self.smb_close(user, fnum)
        return st if st != OK else cst

    def smb_write_at(self, user, rel, access, data, offset, disposition=FILE_OPEN):
        """Open with access, write data at offset; (open status, write status)."""
        st, fnum = self.smb_open(user, rel, access, disposition, FILE_NON_DIRECTORY_FILE)
        if st != OK:
            return st, None
        wst, _ = self.smb(self.conn(user).write, fnum, data, offset)
        self.smb_close(user, fnum)
        return st, wst

    def smb_read(self, user, rel):
        return self.smb(self.conn(user).loadfile, self.w(rel))

    def smb_get_sd(self, user, rel):
        info = security.SECINFO_OWNER | security.SECINFO_GROUP | security.SECINFO_DACL
        st, fnum = self.smb_open(user, rel, READ_CONTROL)
        if st != OK:
            return st, None
        st, sd = self.smb(self.conn(user).get_sd, fnum, info)
        self.smb_close(user, fnum)
        return st, sd

    def smb_add_ace(self, user, rel, sid, mask, flags=0):
        """Read the DACL, append an allow ACE, write the DACL (as a client would)."""
        st, fnum = self.smb_open(user, rel, READ_CONTROL | WRITE_DAC)
        if st != OK:
            return st
        try:
            st, sd = self.smb(self.conn(user).get_sd, fnum, security.SECINFO_DACL)
            if st != OK:
                return st
            ace = security.ace()
            ace.type = security.SEC_ACE_TYPE_ACCESS_ALLOWED
            ace.flags = flags
            ace.access_mask = mask
            ace.trustee = security.dom_sid(sid)
            sd.dacl_add(ace)
            return self.smb(self.conn(user).set_sd, fnum, sd, security.SECINFO_DACL)[0]
        finally:
            self.smb_close(user, fnum)

    def _tool(self, argv):
        res = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        out = res.stdout + res.stderr
        m = re.search(r"NT_STATUS_[A-Z0-9_]+", out)
        if m:
            return m.group(0), out
        return (OK if res.returncode == 0 else f"exit {res.returncode}"), out

    def smbclient(self, user, command):
        return self._tool(["smbclient", f"//127.0.0.1/{self.share}", "-s", self.conf,
                           "-U", f"{user}%{self.passwords[user]}", "-c", command])

    def smbcacls(self, user, rel, *args):
        return self._tool(["smbcacls", f"//127.0.0.1/{self.share}", self.w(rel),
                           "-s", self.conf, "-U", f"{user}%{self.passwords[user]}",
                           *args])

    # ---- local side (S-K1): the same uid, gid and groups, plain system calls

    def local(self, user, fn):
        """Run fn() in a child with user's ids; return "OK" or the errno name."""
        uid, gid, groups = IDS[user]
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            res = "EXCEPTION"
            try:
                os.close(rfd)
                os.setgroups(groups)
                os.setresgid(gid, gid, gid)
                os.setresuid(uid, uid, uid)
                fn()
                res = "OK"
            except OSError as e:
                res = errno.errorcode.get(e.errno, str(e.errno))
            except BaseException as e:  # noqa: B902 - report, never escape the child
                res = f"EXCEPTION {e!r}"
            finally:
                os.write(wfd, res.encode())
                os._exit(0)
        os.close(wfd)
        out = b""
        while True:
            chunk = os.read(rfd, 4096)
            if not chunk:
                break
            out += chunk
        os.close(rfd)
        os.waitpid(pid, 0)
        return out.decode()

    def local_cmd(self, user, argv):
        uid, gid, groups = IDS[user]
        res = subprocess.run(argv, user=uid, group=gid, extra_groups=groups,
                             capture_output=True, text=True)
        if res.returncode == 0:
            return "OK"
        if "Permission denied" in res.stderr:
            return "EACCES"
        if "Operation not permitted" in res.stderr:
            return "EPERM"
        return f"exit {res.returncode}: {res.stderr.strip()}"

    def l_create(self, user, rel, data=b"local\n"):
        def op():
            fd = os.open(self.p(rel), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.write(fd, data)
            os.close(fd)
        return self.local(user, op)

    def l_mkdir(self, user, rel):
        return self.local(user, lambda: os.mkdir(self.p(rel), 0o755))

    def l_unlink(self, user, rel):
        return self.local(user, lambda: os.unlink(self.p(rel)))

    def l_rename(self, user, src, dst):
        return self.local(user, lambda: os.rename(self.p(src), self.p(dst)))

    def l_open(self, user, rel, flags, data=None):
        def op():
            fd = os.open(self.p(rel), flags)
            try:
                if data is not None:
                    os.write(fd, data)
            finally:
                os.close(fd)
        return self.local(user, op)

    def l_read(self, user, rel):
        return self.l_open(user, rel, os.O_RDONLY)

    def l_chown(self, user, rel, uid):
        return self.local(user, lambda: os.chown(self.p(rel), uid, -1))

    def l_setrichacl(self, user, rel, *args):
        return self.local_cmd(user, [self.setrichacl, *args, self.p(rel)])

    # ---- expectations

    def expect_smb(self, row, desc, want, got):
        return self.r.check(row, f"{desc} -> {want}", got == want, f"got {got}")

    def expect_smb_any(self, row, desc, wants, got):
        return self.r.check(row, f"{desc} -> {' or '.join(wants)}", got in wants,
                            f"got {got}")

    def expect_local(self, row, desc, want, got):
        if want == "DENIED":
            good = got in ("EACCES", "EPERM")
        else:
            good = got == want
        return self.r.check(k1(row), f"{desc} -> {want}", good, f"got {got}")

    def expect_state(self, row, desc, cond, details):
        return self.r.check(row, f"state: {desc}", cond, details)

    def expect_content(self, row, rel, want):
        got = self.content(rel)
        return self.expect_state(row, f"{rel} holds {want!r}", got == want,
                                 f"it holds {got!r}" if got is not None else "it is missing")

    def expect_absent(self, row, rel):
        return self.expect_state(row, f"{rel} is gone", not self.exists(rel), "it still exists")

    def expect_present(self, row, rel):
        return self.expect_state(row, f"{rel} exists", self.exists(rel), "it is missing")

    # ================================================================ rows

    def s_c1(self):
        """S-C1: dir grants alice list+traverse+add_file, not add_subdirectory."""
        row = "S-C1"
        acl = "user:alice:rwxaRcS::allow"
        self.mkdir("c1", acl)
        src = os.path.join(self.state, "c1-src.txt")
        with open(src, "wb") as f:
            f.write(b"from smbclient\n")
        st, out = self.smbclient("alice", f"cd c1; put {src} new.txt")
        self.expect_smb(row, "smbclient put c1\\new.txt as alice", OK, st)
        self.expect_content(row, "c1/new.txt", b"from smbclient\n")
        if self.exists("c1/new.txt"):
            self.expect_state(row, "c1/new.txt is owned by alice",
                              self.owner("c1/new.txt") == 1001,
                              f"owner uid {self.owner('c1/new.txt')}")
        st, out = self.smbclient("alice", "cd c1; mkdir newdir")
        self.expect_smb(row, "smbclient mkdir c1\\newdir as alice", DENIED, st)
        self.expect_absent(row, "c1/newdir")

        self.mkdir("c1k", acl)
        self.expect_local(row, "alice creates c1k/new.txt", "OK", self.l_create("alice", "c1k/new.txt"))
        self.expect_local(row, "alice mkdir c1k/newdir", "DENIED", self.l_mkdir("alice", "c1k/newdir"))

    def s_c2(self):
        """S-C2: dir grants alice add_subdirectory, not add_file."""
        row = "S-C2"
        acl = "user:alice:rpxaRcS::allow"
        self.mkdir("c2", acl)
        st, _ = self.smbclient("alice", "cd c2; mkdir newdir")
        self.expect_smb(row, "smbclient mkdir c2\\newdir as alice", OK, st)
        self.expect_state(row, "c2/newdir is a directory", os.path.isdir(self.p("c2/newdir")),
                          "it is missing")
        src = os.path.join(self.state, "c2-src.txt")
        with open(src, "wb") as f:
            f.write(b"from smbclient\n")
        st, _ = self.smbclient("alice", f"cd c2; put {src} new.txt")
        self.expect_smb(row, "smbclient put c2\\new.txt as alice", DENIED, st)
        self.expect_absent(row, "c2/new.txt")

        self.mkdir("c2k", acl)
        self.expect_local(row, "alice mkdir c2k/newdir", "OK", self.l_mkdir("alice", "c2k/newdir"))
        self.expect_local(row, "alice creates c2k/new.txt", "DENIED",
                          self.l_create("alice", "c2k/new.txt"))

    def s_c3(self):
        """S-C3: mode 0777, but the ACL grants alice nothing to add."""
        row = "S-C3"
        # All three masks given: setrichacl keeps them, so the mode is 0777
        # while the entries give alice (other class) only list + traverse.
        acl = ("flags:m owner:rwpxd::mask group:rwpxd::mask other:rwpxd::mask "
               f"user:bob:{FULL_DIR}::allow everyone@:{RX_DIR}::allow")
        for d in ("c3", "c3k"):
            self.mkdir(d, acl)
            mode = stat.S_IMODE(os.stat(self.p(d)).st_mode)
            self.expect_state(row, f"{d} has mode 0777", mode == 0o777, f"mode {mode:04o}")
        src = os.path.join(self.state, "c3-src.txt")
        with open(src, "wb") as f:
            f.write(b"from smbclient\n")
        st, _ = self.smbclient("alice", f"cd c3; put {src} new.txt")
        self.expect_smb(row, "smbclient put c3\\new.txt as alice", DENIED, st)
        self.expect_absent(row, "c3/new.txt")
        st, _ = self.smbclient("alice", "cd c3; mkdir newdir")
        self.expect_smb(row, "smbclient mkdir c3\\newdir as alice", DENIED, st)
        self.expect_absent(row, "c3/newdir")
        st, _ = self.smbclient("bob", f"cd c3; put {src} bob.txt")
        self.expect_smb(row, "control: smbclient put c3\\bob.txt as bob", OK, st)

        self.expect_local(row, "alice creates c3k/new.txt", "DENIED",
                          self.l_create("alice", "c3k/new.txt"))
        self.expect_local(row, "alice mkdir c3k/newdir", "DENIED", self.l_mkdir("alice", "c3k/newdir"))
        self.expect_local(row, "control: bob creates c3k/bob.txt", "OK",
                          self.l_create("bob", "c3k/bob.txt"))

    def s_d1(self):
        """S-D1: the file grants bob DELETE; the parent only traverse + list."""
        row = "S-D1"
        for d in ("d1", "d1k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", acl="user:bob:D::allow")
        self.expect_smb(row, "bob deletes d1\\f", OK, self.smb_unlink("bob", "d1/f"))
        self.expect_absent(row, "d1/f")
        self.expect_local(row, "bob unlinks d1k/f", "OK", self.l_unlink("bob", "d1k/f"))
        self.expect_absent(row, "d1k/f")

    def s_d2(self):
        """S-D2: the parent grants carol DELETE_CHILD; the file grants her nothing."""
        row = "S-D2"
        for d in ("d2", "d2k"):
            self.mkdir(d, f"user:carol:{RX_DIR}d::allow")
            self.mkfile(f"{d}/f", acl="owner@:rwp::allow user:alice:r::allow")
        self.expect_smb(row, "carol deletes d2\\f", OK, self.smb_unlink("carol", "d2/f"))
        self.expect_absent(row, "d2/f")
        self.expect_local(row, "carol unlinks d2k/f", "OK", self.l_unlink("carol", "d2k/f"))
        self.expect_absent(row, "d2k/f")

    def s_d3(self):
        """S-D3: neither DELETE on the file nor DELETE_CHILD on the parent."""
        row = "S-D3"
        for d in ("d3", "d3k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", b"keep me\n", acl=f"user:alice:{R_FILE}::allow")
        self.expect_smb(row, "alice deletes d3\\f", DENIED, self.smb_unlink("alice", "d3/f"))
        self.expect_content(row, "d3/f", b"keep me\n")
        self.expect_local(row, "alice unlinks d3k/f", "DENIED", self.l_unlink("alice", "d3k/f"))
        self.expect_content(row, "d3k/f", b"keep me\n")

    def s_d4(self):
        """S-D4: the file denies bob DELETE; the parent grants him DELETE_CHILD."""
        row = "S-D4"
        for d in ("d4", "d4k"):
            self.mkdir(d, f"user:bob:{RX_DIR}d::allow")
            self.mkfile(f"{d}/f", acl=f"user:bob:D::deny user:bob:{R_FILE}::allow")
        self.expect_smb(row, "bob deletes d4\\f", OK, self.smb_unlink("bob", "d4/f"))
        self.expect_absent(row, "d4/f")
        self.expect_local(row, "bob unlinks d4k/f", "OK", self.l_unlink("bob", "d4k/f"))
        self.expect_absent(row, "d4k/f")

    def s_d5(self):
        """S-D5: delete-on-close needs DELETE; without it the open is refused."""
        row = "S-D5"
        for d in ("d5", "d5k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"{d}/g", b"keep me\n", acl=f"user:bob:{R_FILE}::allow")
        st, fnum = self.smb_open("alice", "d5/f", DELETE | READ_ATTRIBUTES, FILE_OPEN,
                                 FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE)
        self.expect_smb(row, "alice opens d5\\f with DELETE and delete-on-close", OK, st)
        if st == OK:
            self.expect_present(row, "d5/f")
            self.expect_smb(row, "alice closes d5\\f", OK, self.smb_close("alice", fnum))
        self.expect_absent(row, "d5/f")
        st, fnum = self.smb_open("bob", "d5/g", DELETE | READ_ATTRIBUTES, FILE_OPEN,
                                 FILE_DELETE_ON_CLOSE | FILE_NON_DIRECTORY_FILE)
        if st == OK:
            self.smb_close("bob", fnum)
        self.expect_smb(row, "bob opens d5\\g with DELETE and delete-on-close", DENIED, st)
        self.expect_content(row, "d5/g", b"keep me\n")
        st, fnum = self.smb_open("bob", "d5/g", FILE_GENERIC_READ, FILE_OPEN,
                                 FILE_NON_DIRECTORY_FILE)
        self.expect_smb(row, "bob opens d5\\g for reading", OK, st)
        if st == OK:
            dst = self.smb(self.conn("bob").delete_on_close, fnum, 1)[0]
            self.expect_smb(row, "bob sets delete-on-close on a handle without DELETE",
                            DENIED, dst)
            self.smb_close("bob", fnum)
        self.expect_content(row, "d5/g", b"keep me\n")

        self.expect_local(row, "alice unlinks d5k/f", "OK", self.l_unlink("alice", "d5k/f"))
        self.expect_local(row, "bob unlinks d5k/g", "DENIED", self.l_unlink("bob", "d5k/g"))
        self.expect_content(row, "d5k/g", b"keep me\n")

    def s_r1(self):
        """S-R1: rename in one directory needs DELETE on the file and add_file."""
        row = "S-R1"
        for sfx in ("", "k"):
            self.mkdir(f"r1{sfx}", f"user:alice:rw{RX_DIR[1:]}::allow")     # add_file, no delete_child
            self.mkfile(f"r1{sfx}/a", b"a\n", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"r1{sfx}/b", b"b\n", acl=f"user:alice:{R_FILE}::allow")
            self.mkdir(f"r1n{sfx}", f"user:alice:{RX_DIR}::allow")         # no add_file
            self.mkfile(f"r1n{sfx}/c", b"c\n", acl=f"user:alice:D{R_FILE}::allow")
        self.expect_smb(row, "alice renames r1\\a to r1\\a2 (DELETE + add_file)", OK,
                        self.smb_rename("alice", "r1/a", "r1/a2"))
        self.expect_absent(row, "r1/a")
        self.expect_content(row, "r1/a2", b"a\n")
        self.expect_smb(row, "alice renames r1\\b to r1\\b2 (no DELETE)", DENIED,
                        self.smb_rename("alice", "r1/b", "r1/b2"))
        self.expect_content(row, "r1/b", b"b\n")
        self.expect_absent(row, "r1/b2")
        self.expect_smb(row, "alice renames r1n\\c to r1n\\c2 (no add_file)", DENIED,
                        self.smb_rename("alice", "r1n/c", "r1n/c2"))
        self.expect_content(row, "r1n/c", b"c\n")
        self.expect_absent(row, "r1n/c2")

        self.expect_local(row, "alice renames r1k/a to r1k/a2", "OK",
                          self.l_rename("alice", "r1k/a", "r1k/a2"))
        self.expect_local(row, "alice renames r1k/b to r1k/b2 (no DELETE)", "DENIED",
                          self.l_rename("alice", "r1k/b", "r1k/b2"))
        self.expect_local(row, "alice renames r1nk/c to r1nk/c2 (no add_file)", "DENIED",
                          self.l_rename("alice", "r1nk/c", "r1nk/c2"))
        self.expect_content(row, "r1k/b", b"b\n")
        self.expect_content(row, "r1nk/c", b"c\n")

    def s_r2(self):
        """S-R2: rename into another directory: add_file / add_subdirectory there."""
        row = "S-R2"
        moved_dir = f"user:alice:{FULL_DIR}::allow"   # DELETE and write on the moved dir
        for sfx in ("", "k"):
            self.mkdir(f"r2s{sfx}", f"user:alice:{RX_DIR}::allow")        # no delete_child
            self.mkdir(f"r2f{sfx}", f"user:alice:w{RX_DIR}::allow")       # add_file only
            self.mkdir(f"r2d{sfx}", f"user:alice:p{RX_DIR}::allow")       # add_subdirectory only
            for f in ("f1", "f2"):
                self.mkfile(f"r2s{sfx}/{f}", f.encode(), acl=f"user:alice:D{R_FILE}::allow")
            for d in ("s1", "s2"):
                self.mkdir(f"r2s{sfx}/{d}", moved_dir)
        cases = [("f1", "r2f", OK, "file into a dir granting add_file"),
                 ("f2", "r2d", DENIED, "file into a dir granting only add_subdirectory"),
                 ("s1", "r2d", OK, "dir into a dir granting add_subdirectory"),
                 ("s2", "r2f", DENIED, "dir into a dir granting only add_file")]
        for name, target, want, what in cases:
            st = self.smb_rename("alice", f"r2s/{name}", f"{target}/{name}")
            self.expect_smb(row, f"alice moves r2s\\{name} to {target}\\ ({what})", want, st)
            if want == OK:
                self.expect_absent(row, f"r2s/{name}")
                self.expect_present(row, f"{target}/{name}")
            else:
                self.expect_present(row, f"r2s/{name}")
                self.expect_absent(row, f"{target}/{name}")
        for name, target, want, what in cases:
            got = self.l_rename("alice", f"r2sk/{name}", f"{target}k/{name}")
            self.expect_local(row, f"alice moves r2sk/{name} to {target}k/ ({what})",
                              "OK" if want == OK else "DENIED", got)

    def s_r3(self):
        """S-R3: rename over an existing target also needs delete rights on it."""
        row = "S-R3"
        for sfx in ("", "k"):
            d = f"r3{sfx}"
            self.mkdir(d, f"user:alice:w{RX_DIR}::allow")          # add_file, no delete_child
            self.mkfile(f"{d}/s1", b"s1\n", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"{d}/s2", b"s2\n", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"{d}/s3", b"s3\n", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"{d}/t1", b"t1\n", acl=f"user:alice:D{R_FILE}::allow")
            self.mkfile(f"{d}/t2", b"t2\n", acl=f"user:alice:{R_FILE}::allow")
            self.mkfile(f"{d}/t3", b"t3\n", acl=f"user:alice:D{R_FILE}::allow")
        self.expect_smb(row, "alice renames r3\\s1 over r3\\t1 (DELETE on t1), replace", OK,
                        self.smb_rename("alice", "r3/s1", "r3/t1", replace=True))
        self.expect_absent(row, "r3/s1")
        self.expect_content(row, "r3/t1", b"s1\n")
        self.expect_smb(row, "alice renames r3\\s2 over r3\\t2 (no DELETE on t2), replace",
                        DENIED, self.smb_rename("alice", "r3/s2", "r3/t2", replace=True))
        self.expect_content(row, "r3/s2", b"s2\n")
        self.expect_content(row, "r3/t2", b"t2\n")
        self.expect_smb(row, "alice renames r3\\s3 over r3\\t3 without replace",
                        "NT_STATUS_OBJECT_NAME_COLLISION",
                        self.smb_rename("alice", "r3/s3", "r3/t3", replace=False))
        self.expect_content(row, "r3/t3", b"t3\n")

        self.expect_local(row, "alice renames r3k/s1 over r3k/t1", "OK",
                          self.l_rename("alice", "r3k/s1", "r3k/t1"))
        self.expect_local(row, "alice renames r3k/s2 over r3k/t2 (no DELETE on t2)", "DENIED",
                          self.l_rename("alice", "r3k/s2", "r3k/t2"))
        self.expect_content(row, "r3k/s2", b"s2\n")
        self.expect_content(row, "r3k/t2", b"t2\n")

    def s_r4(self):
        """S-R4: moving a directory to another parent (docs/smb-semantics.md).

        Windows needs DELETE on the directory (or DELETE_CHILD on its parent)
        and ADD_SUBDIRECTORY on the new parent.  Linux also needs write
        (add_file) on the moved directory itself, because its ".." entry
        changes (vfs_rename: inode_permission(source, MAY_WRITE)).  The check
        without add_file asserts that documented deviation."""
        row = "S-R4"
        for sfx in ("", "k"):
            self.mkdir(f"r4s{sfx}", f"user:alice:{RX_DIR}::allow")
            self.mkdir(f"r4t{sfx}", f"user:alice:p{RX_DIR}::allow")
            self.mkdir(f"r4s{sfx}/m1", f"user:alice:wD{RX_DIR}::allow")  # with add_file on itself
            self.mkdir(f"r4s{sfx}/m2", f"user:alice:D{RX_DIR}::allow")   # Windows' rights only
        self.expect_smb(row, "alice moves r4s\\m1 (DELETE + add_file on it) to r4t\\", OK,
                        self.smb_rename("alice", "r4s/m1", "r4t/m1"))
        self.expect_present(row, "r4t/m1")
        self.expect_smb(row, "documented deviation: alice moves r4s\\m2 (DELETE, no add_file "
                        "on it) to r4t\\ (Windows: allowed)", DENIED,
                        self.smb_rename("alice", "r4s/m2", "r4t/m2"))
        self.expect_present(row, "r4s/m2")
        self.expect_absent(row, "r4t/m2")
        self.expect_local(row, "alice moves r4sk/m1 to r4tk/", "OK",
                          self.l_rename("alice", "r4sk/m1", "r4tk/m1"))
        self.expect_local(row, "documented deviation: alice moves r4sk/m2 to r4tk/", "DENIED",
                          self.l_rename("alice", "r4sk/m2", "r4tk/m2"))

    def s_a1(self):
        """S-A1: the owner's entry grants read only."""
        row = "S-A1"
        acl = f"owner@:{R_FILE}::allow everyone@:{R_FILE}::allow"
        for d in ("a1", "a1k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", b"owner's\n", acl=acl, owner=1001)
        st, wst = self.smb_write_at("alice", "a1/f", WRITE_DATA, b"XX", 0)
        self.expect_smb(row, "owner alice opens a1\\f for writing", DENIED, st)
        self.expect_content(row, "a1/f", b"owner's\n")
        st, data = self.smb_read("alice", "a1/f")
        self.expect_smb(row, "owner alice reads a1\\f", OK, st)
        self.r.check(row, "alice reads the content", data == b"owner's\n", f"got {data!r}")
        st = self.smb_add_ace("alice", "a1/f", self.sids["alice"], FILE_GENERIC_WRITE)
        self.expect_smb(row, "owner alice adds a write ACE to a1\\f's DACL", OK, st)
        self.expect_state(row, "a1/f's richacl now grants alice write_data",
                          "OK" == self.l_open("alice", "a1/f", os.O_WRONLY),
                          "getrichacl: " + self.acltext("a1/f").replace("\n", " | "))

        self.expect_local(row, "owner alice opens a1k/f O_WRONLY", "DENIED",
                          self.l_open("alice", "a1k/f", os.O_WRONLY))
        self.expect_local(row, "owner alice opens a1k/f O_RDONLY", "OK",
                          self.l_read("alice", "a1k/f"))
        self.expect_local(row, "owner alice runs setrichacl --set on a1k/f", "OK",
                          self.l_setrichacl("alice", "a1k/f", "--set",
                                            f"owner@:rwp{R_FILE[1:]}::allow"))
        self.expect_local(row, "then alice opens a1k/f O_WRONLY", "OK",
                          self.l_open("alice", "a1k/f", os.O_WRONLY))

    def s_a2(self):
        """S-A2: bob has WRITE_DAC on alice's file; carol has not."""
        row = "S-A2"
        acl = (f"owner@:{FULL_FILE}::allow user:bob:C{R_FILE}::allow "
               f"user:carol:{R_FILE}::allow")
        for d in ("a2", "a2k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", acl=acl, owner=1001)
        ace = f"ACL:{self.sids['carol']}:ALLOWED/0x0/0x{FILE_GENERIC_WRITE:08x}"
        # --set-security-info=4 (SECINFO_DACL): without it smbcacls sends the
        # owner and group too and opens with WRITE_OWNER, which bob lacks.
        dacl_only = f"--set-security-info={security.SECINFO_DACL}"
        before = self.acltext("a2/f", "--raw")
        st, out = self.smbcacls("carol", "a2/f", dacl_only, "-a", ace)
        self.expect_smb(row, "smbcacls -a as carol (no WRITE_DAC)", DENIED, st)
        self.expect_state(row, "a2/f's richacl unchanged", self.acltext("a2/f", "--raw") == before,
                          self.acltext("a2/f").replace("\n", " | "))
        st, out = self.smbcacls("bob", "a2/f", dacl_only, "-a", ace)
        self.expect_smb(row, "smbcacls -a as bob (WRITE_DAC)", OK, st)
        _, entries = self.aclentries("a2/f")
        self.expect_state(row, "a2/f's richacl has a user:1003 entry with write_data",
                          any(e[0] == "user:1003" and "w" in e[1] and e[3] == "allow"
                              for e in entries), f"entries {entries}")

        self.expect_local(row, "carol runs setrichacl --modify on a2k/f", "DENIED",
                          self.l_setrichacl("carol", "a2k/f", "--modify", "user:carol:rw::allow"))
        self.expect_local(row, "bob runs setrichacl --modify on a2k/f", "OK",
                          self.l_setrichacl("bob", "a2k/f", "--modify", "user:carol:rw::allow"))

    def s_a3(self):
        """S-A3: bob has WRITE_OWNER: he may take ownership, not give it away."""
        row = "S-A3"
        acl = (f"owner@:{FULL_FILE}::allow user:bob:o{R_FILE}::allow "
               f"user:carol:{R_FILE}::allow")
        for d in ("a3", "a3k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", acl=acl, owner=1001)
        # Windows answers STATUS_INVALID_OWNER when the new owner is not the
        # caller (without SeRestorePrivilege); ACCESS_DENIED is also a refusal.
        st, _ = self.smbcacls("bob", "a3/f", "-C", self.sids["carol"])
        self.expect_smb_any(row, "bob gives a3\\f to carol", [DENIED, "NT_STATUS_INVALID_OWNER"], st)
        self.expect_state(row, "a3/f still owned by alice", self.owner("a3/f") == 1001,
                          f"owner {self.owner('a3/f')}")
        st, _ = self.smbcacls("carol", "a3/f", "-C", self.sids["carol"])
        self.expect_smb(row, "carol (no WRITE_OWNER) takes a3\\f", DENIED, st)
        self.expect_state(row, "a3/f still owned by alice", self.owner("a3/f") == 1001,
                          f"owner {self.owner('a3/f')}")
        st, _ = self.smbcacls("bob", "a3/f", "-C", self.sids["bob"])
        self.expect_smb(row, "bob takes ownership of a3\\f", OK, st)
        self.expect_state(row, "a3/f owned by bob", self.owner("a3/f") == 1002,
                          f"owner {self.owner('a3/f')}")

        self.expect_local(row, "bob chowns a3k/f to carol", "DENIED", self.l_chown("bob", "a3k/f", 1003))
        self.expect_local(row, "carol chowns a3k/f to herself", "DENIED",
                          self.l_chown("carol", "a3k/f", 1003))
        self.expect_local(row, "bob chowns a3k/f to himself", "OK", self.l_chown("bob", "a3k/f", 1002))

    def s_a4(self):
        """S-A4: append_data without write_data (docs/smb-semantics.md)."""
        row = "S-A4"
        for d in ("a4", "a4k"):
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", b"0123456789", acl=f"user:alice:p{R_FILE}::allow")
        append_only = APPEND_DATA | READ_ATTRIBUTES | SYNCHRONIZE
        st, wst = self.smb_write_at("alice", "a4/f", append_only, b"APPEND", 10)
        self.expect_smb(row, "alice opens a4\\f with APPEND_DATA only", OK, st)
        if st == OK:
            self.expect_smb(row, "alice writes at end of file through it", OK, wst)
        self.expect_content(row, "a4/f", b"0123456789APPEND")
        st, wst = self.smb_write_at("alice", "a4/f", append_only, b"XX", 0)
        if st == OK:
            self.expect_smb_any(row, "alice writes at offset 0 through an append-only handle",
                                [OK, DENIED], wst)
        got = self.content("a4/f") or b""
        self.expect_state(row, "existing data never overwritten through an append-only handle",
                          got.startswith(b"0123456789"), f"a4/f holds {got!r}")
        st, _ = self.smb_write_at("alice", "a4/f", WRITE_DATA, b"XX", 0)
        self.expect_smb(row, "alice opens a4\\f with WRITE_DATA", DENIED, st)
        st, _ = self.smb_write_at("alice", "a4/f", FILE_GENERIC_WRITE, b"XX", 0)
        self.expect_smb(row, "alice opens a4\\f with GENERIC_WRITE", DENIED, st)
        st, _ = self.smb_write_at("alice", "a4/f", append_only, b"", 0, FILE_OVERWRITE)
        self.expect_smb(row, "alice overwrites (truncates) a4\\f", DENIED, st)
        got = self.content("a4/f") or b""
        self.expect_state(row, "a4/f neither overwritten nor truncated",
                          got.startswith(b"0123456789"), f"a4/f holds {got!r}")

        self.expect_local(row, "alice opens a4k/f O_WRONLY|O_APPEND and writes", "OK",
                          self.l_open("alice", "a4k/f", os.O_WRONLY | os.O_APPEND, b"APPEND"))
        self.expect_content(row, "a4k/f", b"0123456789APPEND")
        self.expect_local(row, "alice opens a4k/f O_WRONLY", "DENIED",
                          self.l_open("alice", "a4k/f", os.O_WRONLY))
        self.expect_local(row, "alice opens a4k/f O_WRONLY|O_TRUNC", "DENIED",
                          self.l_open("alice", "a4k/f", os.O_WRONLY | os.O_TRUNC))
        self.expect_content(row, "a4k/f", b"0123456789APPEND")

    def s_i1(self):
        """S-I1: create over SMB under OI/CI entries with AUTO_INHERITED."""
        row = "S-I1"
        acl = (f"flags:a owner@:{FULL_DIR}:fdi:allow "          # CREATOR OWNER, full control
               f"group:staff:rwpxDaARWcS:fd:allow "
               f"everyone@:{RX_DIR}:fd:allow "
               f"user:alice:{FULL_DIR}::allow")                 # not inheritable
        self.mkdir("i1", acl)
        self.expect_smb(row, "bob creates i1\\f", OK, self.smb_create_file("bob", "i1/f", b"bob\n"))
        self.expect_smb(row, "bob creates i1\\d", OK, self.smb_mkdir("bob", "i1/d"))
        bob = self.sids["bob"]
        for rel, isdir in (("i1/f", False), ("i1/d", True)):
            st, sd = self.smb_get_sd("bob", rel)
            self.expect_smb(row, f"bob reads {rel}'s security descriptor", OK, st)
            if sd is None:
                continue
            aces = [(str(a.trustee), a.flags, a.access_mask, a.type) for a in sd.dacl.aces] \
                if sd.dacl else []
            show = ", ".join(f"{t}/0x{f:x}/0x{m:x}/{ty}" for t, f, m, ty in aces)
            self.r.check(row, f"{rel}: owner is bob", str(sd.owner_sid) == bob,
                         f"owner {sd.owner_sid}")
            self.r.check(row, f"{rel}: DACL has SE_DACL_AUTO_INHERITED",
                         bool(sd.type & security.SEC_DESC_DACL_AUTO_INHERITED),
                         f"control 0x{sd.type:x}")
            self.r.check(row, f"{rel}: every ACE carries INHERITED_ACE",
                         aces and all(f & INHERITED_ACE for _, f, _, _ in aces), show)
            self.r.check(row, f"{rel}: the non-inheritable alice entry is not inherited",
                         not any(t == self.sids["alice"] for t, _, _, _ in aces), show)
            full = FILE_ALL_ACCESS & ~security.SEC_DIR_DELETE_CHILD
            self.r.check(row, f"{rel}: CREATOR OWNER resolved to an effective ACE for bob "
                         "with full control",
                         any(t == bob and not (f & IO) and (m & full) == full
                             for t, f, m, _ in aces), show)
            if isdir:
                self.r.check(row, f"{rel}: an inherit-only CREATOR OWNER ACE (OI|CI|IO) is kept",
                             any(t == SID_CREATOR_OWNER and (f & (OI | CI | IO)) == (OI | CI | IO)
                                 for t, f, _, _ in aces), show)
                self.r.check(row, f"{rel}: Everyone's ACE is inheritable (OI|CI)",
                             any(t == SID_EVERYONE and (f & (OI | CI)) == (OI | CI)
                                 for t, f, _, _ in aces), show)
            else:
                self.r.check(row, f"{rel}: no CREATOR OWNER or inheritance flags on a file",
                             not any(t == SID_CREATOR_OWNER or f & (OI | CI | IO | NP)
                                     for t, f, _, _ in aces), show)
            aflags, entries = self.aclentries(rel)
            self.expect_state(row, f"{rel}: getrichacl shows flags:a and every entry "
                              "inherited ('a' entry flag)",
                              "a" in aflags and entries and all("a" in e[2] for e in entries),
                              f"flags '{aflags}', entries {entries}")
        # The inherited rights work over SMB and locally alike (S-K1).
        st, _ = self.smb_write_at("carol", "i1/f", WRITE_DATA, b"carol", 0)
        self.expect_smb(row, "carol (staff) opens i1\\f for writing", OK, st)
        st, _ = self.smb_write_at("alice", "i1/f", WRITE_DATA, b"alice", 0)
        self.expect_smb(row, "alice (entry not inherited) opens i1\\f for writing", DENIED, st)
        self.expect_local(row, "carol opens i1/f O_WRONLY", "OK",
                          self.l_open("carol", "i1/f", os.O_WRONLY))
        self.expect_local(row, "alice opens i1/f O_WRONLY", "DENIED",
                          self.l_open("alice", "i1/f", os.O_WRONLY))
        # A local create inherits the same entries; the kernel limits them by
        # the create mode and, under an auto-inheriting directory, marks the
        # acl protected, because "creation acts like a chmod" (algorithms.md
        # 5.2; docs/smb-semantics.md).
        self.expect_local(row, "bob creates i1/fk", "OK", self.l_create("bob", "i1/fk"))
        self.expect_local(row, "bob mkdir i1/dk", "OK", self.l_mkdir("bob", "i1/dk"))
        for smb_rel, local_rel in (("i1/f", "i1/fk"), ("i1/d", "i1/dk")):
            _, smb_entries = self.aclentries(smb_rel)
            aflags, entries = self.aclentries(local_rel)
            self.r.check(k1(row), f"{local_rel} (local) inherited the same entries as "
                         f"{smb_rel} (SMB)", entries == smb_entries,
                         f"SMB {smb_entries}, local {entries}")
            self.r.check(k1(row), f"{local_rel}: acl flags map (masked, auto_inherit, "
                         "protected: a local create acts like a chmod)",
                         sorted(aflags) == sorted("map"), f"flags '{aflags}'")

    # ---- client-side propagation of inherited ACEs, as a Windows client does

    @staticmethod
    def _ace(sid, flags, mask, atype):
        ace = security.ace()
        ace.type = atype
        ace.flags = flags
        ace.access_mask = mask
        ace.trustee = security.dom_sid(str(sid))
        return ace

    def inherited_aces(self, parent_sd, isdir, owner, group):
        """The ACEs a child inherits from parent_sd (MS-DTYP 2.5.3.4.2,
        ComputeInheritedACLFromParent), CREATOR OWNER / CREATOR GROUP
        replaced by the child's owner / group in the effective ACE."""
        out = []
        creator = {SID_CREATOR_OWNER: owner, "S-1-3-1": group}
        for ace in (parent_sd.dacl.aces if parent_sd.dacl else []):
            f = ace.flags
            sid = str(ace.trustee)
            applies = (f & CI) if isdir else (f & OI)
            passes_on = isdir and (f & (OI | CI)) and not (f & NP)
            if applies:
                eff_flags = INHERITED_ACE
                if passes_on and sid not in creator:
                    eff_flags |= f & (OI | CI)
                out.append(self._ace(creator.get(sid, sid), eff_flags, ace.access_mask,
                                     ace.type))
                if passes_on and sid in creator:
                    out.append(self._ace(sid, (f & (OI | CI)) | IO | INHERITED_ACE,
                                         ace.access_mask, ace.type))
            elif passes_on:
                out.append(self._ace(sid, (f & (OI | CI)) | IO | INHERITED_ACE,
                                     ace.access_mask, ace.type))
        return out

    def smb_propagate(self, user, rel):
        """Rewrite the inherited ACEs below rel from their parents, skipping
        protected subtrees: what Explorer / SetNamedSecurityInfo do after a
        change of a directory's ACL.  Returns the first non-OK status."""
        st, psd = self.smb_get_sd(user, rel)
        if st != OK:
            return st
        try:
            entries = self.conn(user).list(self.w(rel))
        except NTSTATUSError as e:
            return self.status_of(e)
        for entry in entries:
            child = f"{rel}/{entry['name']}"
            isdir = bool(entry["attrib"] & libsmb.FILE_ATTRIBUTE_DIRECTORY)
            st, csd = self.smb_get_sd(user, child)
            if st != OK:
                return st
            if csd.type & security.SEC_DESC_DACL_PROTECTED:
                continue
            new = security.descriptor()
            new.type = (security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
                        | security.SEC_DESC_DACL_AUTO_INHERITED)
            explicit = [a for a in (csd.dacl.aces if csd.dacl else [])
                        if not a.flags & INHERITED_ACE]
            for ace in explicit + self.inherited_aces(psd, isdir, csd.owner_sid,
                                                      csd.group_sid):
                new.dacl_add(ace)
            st, fnum = self.smb_open(user, child, READ_CONTROL | WRITE_DAC)
            if st != OK:
                return st
            st = self.smb(self.conn(user).set_sd, fnum, new, security.SECINFO_DACL)[0]
            self.smb_close(user, fnum)
            if st != OK:
                return st
            if isdir:
                st = self.smb_propagate(user, child)
                if st != OK:
                    return st
        return OK

    def s_i2(self):
        """S-I2: a PROTECTED directory under an auto-inherit parent.

        smbcacls adds the ACE to the parent; the propagation is done the way a
        Windows client does it (smb_propagate), because smbcacls 4.17's
        --propagate-inheritance re-derives the children of a protected
        directory and copies CREATOR OWNER verbatim onto files
        (docs/smb-semantics.md)."""
        row = "S-I2"
        self.mkdir("i2", f"flags:a owner@:{FULL_DIR}:fd:allow everyone@:{RX_DIR}:fd:allow",
                   owner=1001)
        self.mkdir("i2/open", f"flags:a owner@:{FULL_DIR}:fda:allow "
                              f"everyone@:{RX_DIR}:fda:allow", owner=1001)
        self.mkfile("i2/open/file", b"open\n", owner=1001,
                    acl=f"flags:a owner@:{FULL_FILE}:a:allow everyone@:{R_FILE}:a:allow")
        self.mkdir("i2/prot", f"flags:ap owner@:{FULL_DIR}:fd:allow "
                              f"user:bob:{RX_DIR}:fd:allow", owner=1001)
        self.mkfile("i2/prot/file", b"protected\n", owner=1001,
                    acl=f"flags:a owner@:{FULL_FILE}:a:allow user:bob:{R_FILE}:a:allow")
        before = {rel: self.acltext(rel, "--raw") for rel in ("i2/prot", "i2/prot/file")}
        st, sd = self.smb_get_sd("alice", "i2/prot")
        self.expect_smb(row, "alice reads i2\\prot's security descriptor", OK, st)
        if sd is not None:
            self.r.check(row, "i2/prot: DACL has SE_DACL_PROTECTED",
                         bool(sd.type & security.SEC_DESC_DACL_PROTECTED),
                         f"control 0x{sd.type:x}")
        ace = f"ACL:{self.sids['carol']}:ALLOWED/0x3/0x{FILE_GENERIC_READ | 0x20:08x}"
        st, out = self.smbcacls("alice", "i2", f"--set-security-info={security.SECINFO_DACL}",
                                "-a", ace)
        self.expect_smb(row, "alice adds an OI|CI ACE for carol to i2 with smbcacls", OK, st)
        self.expect_smb(row, "alice propagates the inheritable ACEs below i2 over SMB", OK,
                        self.smb_propagate("alice", "i2"))
        for rel in ("i2", "i2/open", "i2/open/file"):
            _, entries = self.aclentries(rel)
            inherited = rel != "i2"
            self.expect_state(row, f"{rel} has {'an inherited' if inherited else 'the'} "
                              "carol entry",
                              any(e[0] == "user:1003" and ("a" in e[2]) == inherited
                                  for e in entries), f"entries {entries}")
        for rel in ("i2/prot", "i2/prot/file"):
            self.expect_state(row, f"protected {rel} unchanged",
                              self.acltext(rel, "--raw") == before[rel],
                              self.acltext(rel, "--raw").replace("\n", " | "))
        self.expect_local(row, "carol reads i2/open/file", "OK", self.l_read("carol", "i2/open/file"))
        self.expect_local(row, "carol reads i2/prot/file", "DENIED",
                          self.l_read("carol", "i2/prot/file"))

    def s_i3(self):
        """S-I3: inherited rights work in full on a file created through smbd."""
        row = "S-I3"
        acl = (f"flags:a user:bob:w{RX_DIR}::allow "
               f"user:carol:rwpD{R_FILE[1:]}C:fi:allow "     # files only; no DELETE_CHILD
               f"everyone@:{RX_DIR}::allow")
        self.mkdir("i3", acl)
        for f in ("f", "g"):
            self.expect_smb(row, f"bob creates i3\\{f}", OK,
                            self.smb_create_file("bob", f"i3/{f}", b"bob\n"))
        st, wst = self.smb_write_at("carol", "i3/f", WRITE_DATA, b"carol", 0)
        self.expect_smb(row, "carol opens i3\\f for writing (inherited write_data)", OK, st)
        st = self.smb_add_ace("carol", "i3/f", self.sids["alice"], FILE_GENERIC_READ)
        self.expect_smb(row, "carol changes i3\\f's DACL (inherited WRITE_DAC)", OK, st)
        self.expect_smb(row, "carol deletes i3\\f (inherited DELETE, no DELETE_CHILD)", OK,
                        self.smb_unlink("carol", "i3/f"))
        self.expect_absent(row, "i3/f")

        self.expect_local(row, "carol opens i3/g O_WRONLY", "OK",
                          self.l_open("carol", "i3/g", os.O_WRONLY))
        self.expect_local(row, "carol runs setrichacl --modify on i3/g", "OK",
                          self.l_setrichacl("carol", "i3/g", "--modify", "user:alice:r::allow"))
        self.expect_local(row, "carol unlinks i3/g", "OK", self.l_unlink("carol", "i3/g"))

    ROWS = ["S-C1", "S-C2", "S-C3", "S-D1", "S-D2", "S-D3", "S-D4", "S-D5",
            "S-R1", "S-R2", "S-R3", "S-R4", "S-A1", "S-A2", "S-A3", "S-A4",
            "S-I1", "S-I2", "S-I3"]

    def run(self, only):
        for row in self.ROWS:
            if only and row not in only:
                continue
            fn = getattr(self, row.lower().replace("-", "_"))
            try:
                fn()
            except SetupError as e:
                self.r.fail(row, "fixture", str(e))
            except Exception as e:  # a broken case must not stop the suite
                self.r.fail(row, "unexpected error", f"{e!r}")
                traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
        print(f"{self.r.passed} passed, {self.r.failed} failed", flush=True)
        return self.r.failed == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", required=True, help="server.sh state directory")
    ap.add_argument("--path", required=True, help="directory of the share on disk")
    ap.add_argument("--share", default="richacl")
    ap.add_argument("--tools", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "../../../build"))
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    if os.getuid() != 0:
        sys.exit("run.py: must run as root (in the guest)")
    os.umask(0o022)
    if not os.path.isdir(args.path):
        print(f"FAIL S-* setup: share directory {args.path} does not exist "
              "(did the richacl file system mount?)")
        print("0 passed, 1 failed")
        sys.exit(1)
    suite = Suite(args)
    sys.exit(0 if suite.run(set(args.only)) else 1)


if __name__ == "__main__":
    main()
