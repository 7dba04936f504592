#!/usr/bin/python3
"""Host tests of tools/richacl-migrate-ntacl and richacl-ntsd2xattr.

Runs as root on the host (security.NTACL needs CAP_SYS_ADMIN), in a
temporary directory under /tmp, with a private smb.conf, passdb and group
mapping database there (nothing of the host's Samba is read or written;
host accounts daemon, bin and groups tty, staff are only named by the
private passdb).  The host kernel has no richacl support, so the tool runs
under the LD_PRELOAD shim build/tests/libfake_richacl_fs.so, which
emulates the kernel's system.richacl store in a user xattr; getrichacl
reads the result under the same shim.

Needs the build: bash testenv/build.sh (build/getrichacl,
build/richacl-ntsd2xattr, build/tests/libfake_richacl_fs.so).

Output: one "ok <check>" / "FAIL <check>: <details>" line per check, then
"N passed, N failed"; exit status 1 if anything failed.

usage: test_migrate.py [--keep] [--only NAME...]
"""

import argparse
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from samba.dcerpc import security, xattr
from samba.ndr import ndr_pack

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILD = os.path.join(REPO, "build")
TOOL = os.path.join(REPO, "tools", "richacl-migrate-ntacl")
HELPER = os.path.join(BUILD, "richacl-ntsd2xattr")
GETRICHACL = os.path.join(BUILD, "getrichacl")
SHIM = os.path.join(BUILD, "tests", "libfake_richacl_fs.so")
FAKE_STORE = "user.fake_richacl"
NTACL = "security.NTACL"
PY = "/usr/bin/python3"

# richacl permission letters (getrichacl --help)
LETTERS = {"r": 0x1, "w": 0x2, "p": 0x4, "R": 0x8, "W": 0x10, "x": 0x20, "d": 0x40,
           "a": 0x80, "A": 0x100, "e": 0x200, "E": 0x400, "D": 0x10000, "c": 0x20000,
           "C": 0x40000, "o": 0x80000, "S": 0x100000}
FILE_ALL = 0x1f01ff
GENERIC_READ_FILE = 0x120089        # FILE_GENERIC_READ
READ_EXEC = 0x1200a9                # FILE_GENERIC_READ | FILE_EXECUTE
MODIFY = 0x1301bf
DUMMY_GUID = "bf967aba-0de6-11d0-a285-00aa003049e2"


def perms(letters):
    m = 0
    for ch in letters:
        m |= LETTERS[ch]
    return m


def letters(mask):
    return "".join(ch for ch, bit in sorted(LETTERS.items(), key=lambda kv: kv[1])
                   if mask & bit)


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, cond, details=""):
        if cond:
            self.passed += 1
            print("ok %s" % name, flush=True)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, details), flush=True)
        return cond


class Prefixed:
    """A Report whose check names start with "SIGNAME:" instead of "SIGINT:"."""

    def __init__(self, report, name):
        self.report = report
        self.name = name

    def check(self, name, cond, details=""):
        return self.report.check(name.replace("SIGINT", self.name), cond, details)


class Env:
    """The private Samba configuration and the helpers of the checks."""

    def __init__(self, base):
        self.base = base
        self.conf = os.path.join(base, "smb.conf")
        for d in ("private", "state", "cache", "lock", "run", "ncalrpc", "wbsock"):
            os.makedirs(os.path.join(base, "samba", d), exist_ok=True)
        self.write_conf()
        self.domsid = security.dom_sid("S-1-5-21-1-2-3")   # for SDDL parsing only
        self.add_user("daemon")
        self.add_user("bin")
        self.sids = self.user_sids()
        self.local_sid = self.sids["daemon"].rsplit("-", 1)[0]
        self.gid_tty = 5
        self.gid_staff = 50
        self.net("groupmap", "add", "sid=S-1-5-11", "unixgroup=tty", "type=builtin",
                 "ntgroup=Authenticated Users")
        self.net("groupmap", "add", "ntgroup=migstaff", "unixgroup=staff", "type=domain",
                 "rid=3000")
        self.staff_sid = self.local_sid + "-3000"

    def write_conf(self, extra_global="", shares=""):
        s = os.path.join(self.base, "samba")
        with open(self.conf, "w") as f:
            f.write("""[global]
\tserver role = standalone server
\tworkgroup = MIGTEST
\tnetbios name = MIGTESTHOST
\tsecurity = user
\tpassdb backend = tdbsam:{s}/private/passdb.tdb
\tprivate dir = {s}/private
\tstate directory = {s}/state
\tcache directory = {s}/cache
\tlock directory = {s}/lock
\tpid directory = {s}/run
\tncalrpc dir = {s}/ncalrpc
\twinbindd socket directory = {s}/wbsock
\tlog level = 0
{extra}
{shares}
""".format(s=s, extra=extra_global, shares=shares))

    def run(self, argv, **kw):
        return subprocess.run(argv, capture_output=True, text=True, **kw)

    def net(self, *args):
        r = self.run(["net", "-s", self.conf] + list(args))
        if r.returncode != 0:
            raise RuntimeError("net %s: %s" % (" ".join(args), r.stderr + r.stdout))

    def add_user(self, name):
        r = self.run(["pdbedit", "-s", self.conf, "-a", "-u", name, "-t"],
                     input="pw-%s\npw-%s\n" % (name, name))
        if r.returncode != 0:
            raise RuntimeError("pdbedit -a %s: %s" % (name, r.stderr + r.stdout))

    def user_sids(self):
        out = self.run(["pdbedit", "-s", self.conf, "-L", "-v"]).stdout
        sids, name = {}, None
        for line in out.splitlines():
            m = re.match(r"Unix username:\s+(\S+)", line)
            if m:
                name = m.group(1)
            m = re.match(r"User SID:\s+(S-\S+)", line)
            if m and name:
                sids[name] = m.group(1)
        return sids

    # ---- descriptors and blobs

    def sd(self, sddl, owner="S-1-22-1-0", group="S-1-22-2-0"):
        text = ""
        if owner:
            text += "O:" + owner
        if group:
            text += "G:" + group
        return security.descriptor.from_sddl(text + sddl, self.domsid)

    @staticmethod
    def ace(atype, mask, sid, flags=0):
        a = security.ace()
        a.type = atype
        a.flags = flags
        a.access_mask = mask
        a.trustee = security.dom_sid(sid)
        return a

    def sd_aces(self, aces, owner="S-1-22-1-0", group="S-1-22-2-0", null_dacl=False,
                no_dacl=False, sacl_aces=None, control=0):
        sd = security.descriptor()
        sd.type = security.SEC_DESC_SELF_RELATIVE | control
        if owner:
            sd.owner_sid = security.dom_sid(owner)
        if group:
            sd.group_sid = security.dom_sid(group)
        if null_dacl:
            sd.type |= security.SEC_DESC_DACL_PRESENT
        elif not no_dacl:
            for a in aces:
                sd.dacl_add(a)
        for a in sacl_aces or []:
            sd.sacl_add(a)
        return sd

    @staticmethod
    def ntacl(sd, version=1, hashed=False, hash_type=None):
        n = xattr.NTACL()
        n.version = version
        sdbin = ndr_pack(sd) if sd is not None else b""
        if version == 1:
            n.info = sd
        elif version == 2:
            i = xattr.security_descriptor_hash_v2()
            i.sd = sd
            i.hash = list(hashlib.md5(sdbin).digest()) if hashed else [0] * 16
            n.info = i
        else:
            i = (xattr.security_descriptor_hash_v3() if version == 3
                 else xattr.security_descriptor_hash_v4())
            i.sd = sd
            if hash_type is None:
                hash_type = (xattr.XATTR_SD_HASH_TYPE_SHA256 if hashed
                             else xattr.XATTR_SD_HASH_TYPE_NONE)
            i.hash_type = hash_type
            i.hash = (list(hashlib.sha256(sdbin).digest()) + [0] * 32) if hashed else [0] * 64
            if version == 4:
                i.description = "posix_acl" if hashed else ""
                i.time = 133000000000000000 if hashed else 0
                i.sys_acl_hash = ((list(hashlib.sha256(b"sys").digest()) + [0] * 32)
                                  if hashed else [0] * 64)
            n.info = i
        return ndr_pack(n)

    # ---- files

    def mkfile(self, path, ntacl=None, owner=0, group=0, mode=0o644, isdir=False):
        if isdir:
            os.mkdir(path, mode)
        else:
            with open(path, "w") as f:
                f.write("data\n")
        os.chown(path, owner, group)
        os.chmod(path, mode)
        if ntacl is not None:
            os.setxattr(path, NTACL, ntacl, follow_symlinks=False)

    @staticmethod
    def snapshot(path):
        """Everything the tool may change on path (read without the shim)."""
        st = os.lstat(path)
        xs = {}
        for name in os.listxattr(path, follow_symlinks=False):
            xs[name] = os.getxattr(path, name, follow_symlinks=False)
        return (st.st_mode, st.st_uid, st.st_gid, tuple(sorted(xs.items())))

    @staticmethod
    def has_xattr(path, name):
        return name in os.listxattr(path, follow_symlinks=False)

    def entries(self, path):
        """(acl flags, [(who, mask, flags, type)]) as getrichacl --raw shows them
        under the shim (masks excluded)."""
        r = self.run([GETRICHACL, "--raw", "--numeric-ids", "--unaligned", path],
                     env=dict(os.environ, LD_PRELOAD=SHIM))
        if r.returncode != 0:
            return None, "getrichacl failed: " + r.stderr.strip()
        flags, out = "", []
        for line in r.stdout.splitlines()[1:]:
            line = line.strip()
            if not line:
                continue
            if line.startswith("flags:"):
                flags = line[len("flags:"):]
                continue
            parts = line.rsplit(":", 3)
            if len(parts) != 4 or parts[3] == "mask":
                continue
            out.append((parts[0], perms(parts[1]), parts[2], parts[3]))
        return flags, out

    # ---- the tool

    def tool(self, tree, *opts, shim=True, conf=True, user=None, env=None, text=True):
        """Run the tool on TREE; text=False: stdout/stderr as bytes."""
        argv = [PY, TOOL, "--progress", "0.2"]
        if conf:
            argv += ["--smb-conf", self.conf]
        argv += list(opts) + [tree]
        e = dict(os.environ)
        e.pop("LD_PRELOAD", None)
        if shim:
            e["LD_PRELOAD"] = SHIM
        if env:
            e.update(env)
        kw = {}
        if user is not None:
            kw = dict(user=user, group=user)
        r = subprocess.run(argv, capture_output=True, text=text, env=e, timeout=600, **kw)
        return r

    @staticmethod
    def lines(out, kind=None, rel=None):
        res = []
        for line in out.splitlines():
            m = re.match(r"([a-z-]+): (.*?): (.*)$", line)
            if not m or m.group(1) == "summary":
                continue
            if kind is not None and m.group(1) != kind:
                continue
            if rel is not None and m.group(2) != rel:
                continue
            res.append((m.group(1), m.group(2), m.group(3)))
        return res

    @staticmethod
    def summary(out):
        m = re.search(r"summary: (?:would migrate|migrated) (\d+), no NTACL (\d+), skipped (\d+) "
                      r"\(done in an earlier run (\d+), symlinks (\d+), other file systems (\d+), "
                      r"hard links (\d+)\), failed (\d+)", out)
        if not m:
            return None
        keys = ("migrated", "no_ntacl", "skipped", "resumed", "symlinks", "other_fs",
                "hardlinks", "failed")
        return dict(zip(keys, (int(x) for x in m.groups())))


# ====================================================================== checks

class Checks:
    def __init__(self, env, report, tmp):
        self.e = env
        self.r = report
        self.tmp = tmp
        self.n = 0

    def tree(self, name):
        path = os.path.join(self.tmp, "trees", name)
        os.makedirs(path)
        return path

    def expect_entries(self, name, path, want, want_flags=None):
        flags, got = self.e.entries(path)
        if flags is None:
            return self.r.check(name, False, got)
        ok = sorted(got) == sorted(want)
        details = "got %s, want %s" % (
            [(w, letters(m), f, t) for w, m, f, t in got],
            [(w, letters(m), f, t) for w, m, f, t in want])
        if want_flags is not None and flags != want_flags:
            ok = False
            details += "; acl flags %r, want %r" % (flags, want_flags)
        return self.r.check(name, ok, details)

    def expect_unchanged(self, name, path, before):
        after = self.e.snapshot(path)
        return self.r.check(name, after == before, "before %r, after %r" % (before, after))

    # ---------------------------------------------------------- the helper

    def helper(self, args, sd_bin, ids=None):
        argv = [HELPER] + args
        if ids is not None:
            p = os.path.join(self.tmp, "ids-%d" % self.n)
            self.n += 1
            with open(p, "w") as f:
                f.write(ids)
            argv += ["--ids", p]
        return subprocess.run(argv, input=sd_bin, capture_output=True)

    def c_helper(self):
        e, r = self.e, self.r
        sid_u, sid_g = "S-1-5-21-7-7-7-1001", "S-1-5-21-7-7-7-2001"
        sid_b, sid_x = "S-1-5-21-7-7-7-1105", "S-1-5-21-7-7-7-1106"
        sid_n, sid_e = "S-1-5-21-7-7-7-1107", "S-1-5-21-7-7-7-1108"
        ids = ("%s U 1001\n%s G 2001\n%s B 1105\n%s X 1106\n%s N 0\n%s E 0\n"
               "U 0 S-1-22-1-0\n# comment\n" % (sid_u, sid_g, sid_b, sid_x, sid_n, sid_e))
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        out = os.path.join(self.tmp, "helper-out")
        target = os.path.join(self.tmp, "helper-target")
        e.mkfile(target)

        sd = e.sd_aces([e.ace(A, READ_EXEC, sid_u), e.ace(A, READ_EXEC, sid_g),
                        e.ace(A, READ_EXEC, sid_b), e.ace(A, READ_EXEC, sid_x),
                        e.ace(A, READ_EXEC, sid_n)])
        res = self.helper(["--file", "--owner", "0", "--group", "0", "--notes",
                           "--output", out], ndr_pack(sd), ids)
        r.check("helper: U/G/B/X/N answers map a descriptor", res.returncode == 0,
                res.stderr.decode())
        r.check("helper: --notes names the unmapped SID",
                b"note unmapped-sid " + sid_n.encode() in res.stderr, res.stderr.decode())
        res = subprocess.run([HELPER, "--set", target, "--ids", os.path.join(
            self.tmp, "ids-%d" % (self.n - 1))], input=ndr_pack(sd), capture_output=True,
            env=dict(os.environ, LD_PRELOAD=SHIM))
        r.check("helper: --set stores the acl", res.returncode == 0, res.stderr.decode())
        rx = perms("rxaRcS")
        self.expect_entries("helper: U -> user, G and B and X -> group, N -> unmapped",
                            target, [("user:1001", rx, "", "allow"),
                                     ("group:2001", rx, "", "allow"),
                                     ("group:1105", rx, "", "allow"),
                                     ("group:1106", rx, "", "allow"),
                                     ("user:" + sid_n, rx, "u", "allow")])

        cases = [
            ("helper: deny for X (ID_BOTH of unknown type) refused", [e.ace(D, 2, sid_x)],
             [], 1, b"cannot be looked up"),
            ("helper: deny for an unmapped SID refused (M14)", [e.ace(D, 2, sid_n)],
             [], 1, b"maps to no unix id"),
            ("helper: a failed lookup (E) refuses the descriptor", [e.ace(A, 1, sid_e)],
             [], 1, b"identity lookup failed for " + sid_e.encode()),
            ("helper: --refuse-unmapped refuses an unmapped allow", [e.ace(A, 1, sid_n)],
             ["--refuse-unmapped"], 1, b"unmapped SIDs are refused"),
            ("helper: deny for B (a group) is kept", [e.ace(D, 2, sid_b)], [], 0, b""),
        ]
        for name, aces, extra, rc, msg in cases:
            res = self.helper(["--file", "--owner", "0", "--group", "0"] + extra,
                              ndr_pack(e.sd_aces(aces)), ids)
            r.check(name, res.returncode == rc and msg in res.stderr,
                    "exit %d, stderr %r" % (res.returncode, res.stderr))
        res = self.helper(["--file", "--owner", "0", "--group", "0"], b"\x01\x00\x04\x80",
                          "")
        r.check("helper: a damaged descriptor is refused (exit 1)",
                res.returncode == 1 and b"damaged security descriptor" in res.stderr,
                "exit %d, %r" % (res.returncode, res.stderr))
        res = self.helper(["--file", "--owner", "0", "--group", "0"], ndr_pack(sd),
                          "S-1-5-21-1 Q 5\n")
        r.check("helper: a bad id table line is a usage error (exit 2)",
                res.returncode == 2 and b"ids" in res.stderr, "exit %d, %r" %
                (res.returncode, res.stderr))
        res = self.helper(["--file"], ndr_pack(sd))
        r.check("helper: --owner/--group are needed without --set", res.returncode == 2,
                "exit %d" % res.returncode)
        res = subprocess.run([HELPER, "--batch"], input=b"M x 1 2 3\n", capture_output=True)
        r.check("helper: --batch refuses a bad request line (exit 2)",
                res.returncode == 2 and b"bad request" in res.stderr,
                "exit %d, %r" % (res.returncode, res.stderr))
        res = subprocess.run([HELPER, "--batch"], input=b"M f 0 0 100\nshort",
                             capture_output=True)
        r.check("helper: --batch refuses a short request (exit 3)",
                res.returncode == 3 and b"short request" in res.stderr,
                "exit %d, %r" % (res.returncode, res.stderr))
        blob = ndr_pack(sd)
        req = (b"I " + ids.split("\n")[0].encode() + b"\n" +
               b"M f 0 0 %d\n" % len(blob) + blob + b"M f 0 0 4\n\x01\x00\x04\x80Q\n")
        res = subprocess.run([HELPER, "--batch"], input=req, capture_output=True)
        outl = res.stdout.decode().splitlines()
        r.check("helper: --batch answers each request (OK, then E for a damaged one)",
                res.returncode == 0 and any(x.startswith("OK ") for x in outl) and
                outl[-1].startswith("E EINVAL damaged security descriptor"),
                "exit %d, %r" % (res.returncode, outl))

    # ---------------------------------------------------------- versions

    def c_versions(self):
        """NTACL versions 1-4, files and directories: versions 1 and 2 with and
        without hash, 3 and 4 with the SHA256 hash acl_xattr requires (without
        it acl_xattr ignored them: c_hash_none)."""
        e, r = self.e, self.r
        t = self.tree("versions")
        os.chown(t, 0, 0)
        daemon = e.sids["daemon"]
        sddl = "D:(A;;0x%x;;;%s)(A;;0x%x;;;WD)" % (MODIFY, daemon, GENERIC_READ_FILE)
        dsddl = "D:P(A;OICI;0x%x;;;%s)(A;OICI;0x%x;;;WD)" % (MODIFY, daemon, READ_EXEC)
        variants = [(1, False), (2, False), (2, True), (3, True), (4, True)]
        for v, hashed in variants:
            tag = "v%d%s" % (v, "-hash" if hashed else "")
            e.mkfile(os.path.join(t, tag + ".file"),
                     e.ntacl(e.sd(sddl), v, hashed))
            e.mkfile(os.path.join(t, tag + ".dir"),
                     e.ntacl(e.sd(dsddl), v, hashed), isdir=True, mode=0o755)
        res = e.tool(t)
        r.check("versions: the tool succeeds (exit 0)", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr))
        s = e.summary(res.stdout)
        r.check("versions: summary counts 10 migrated, 1 without NTACL (the root)",
                s is not None and s["migrated"] == 10 and s["no_ntacl"] == 1 and
                s["failed"] == 0, "%r / %s" % (s, res.stdout))
        for v, hashed in variants:
            tag = "v%d%s" % (v, "-hash" if hashed else "")
            f = os.path.join(t, tag + ".file")
            d = os.path.join(t, tag + ".dir")
            self.expect_entries("versions: %s file -> user:1 Modify, everyone@ read" % tag, f,
                                [("user:1", MODIFY, "", "allow"),
                                 ("everyone@", GENERIC_READ_FILE, "", "allow")])
            self.expect_entries("versions: %s directory -> protected, inheritable" % tag, d,
                                [("user:1", MODIFY, "fd", "allow"),
                                 ("everyone@", READ_EXEC, "fd", "allow")], want_flags="p")
            r.check("versions: %s NTACL removed after the richacl was set" % tag,
                    not e.has_xattr(f, NTACL) and not e.has_xattr(d, NTACL) and
                    e.has_xattr(f, FAKE_STORE) and e.has_xattr(d, FAKE_STORE),
                    "xattrs %r %r" % (os.listxattr(f), os.listxattr(d)))
        r.check("versions: the root without NTACL is reported and left alone",
                e.lines(res.stdout, "no-ntacl", ".") != [] and not e.has_xattr(t, FAKE_STORE),
                res.stdout)

    # ---------------------------------------------------------- identities

    def c_identities(self):
        """SIDs resolve as smbd's: passdb users and group mappings, S-1-22,
        well-known SIDs; the owner's SID names its user (M8), not owner@."""
        e, r = self.e, self.r
        t = self.tree("ids")
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        OI, CI, IO = (security.SEC_ACE_FLAG_OBJECT_INHERIT,
                      security.SEC_ACE_FLAG_CONTAINER_INHERIT,
                      security.SEC_ACE_FLAG_INHERIT_ONLY)
        daemon, binsid = e.sids["daemon"], e.sids["bin"]
        f = os.path.join(t, "file")
        e.mkfile(f, e.ntacl(e.sd_aces([
            e.ace(A, FILE_ALL, daemon),                 # the owner's SID -> user:1
            e.ace(D, 0x2, binsid),                      # passdb user -> user:2
            e.ace(A, GENERIC_READ_FILE, "S-1-22-1-7"),  # unix user
            e.ace(A, GENERIC_READ_FILE, "S-1-22-2-8"),  # unix group
            e.ace(A, READ_EXEC, "S-1-5-11"),            # group mapping -> tty
            e.ace(A, READ_EXEC, e.staff_sid),           # domain group mapping -> staff
            e.ace(A, GENERIC_READ_FILE, "S-1-1-0"),     # Everyone
            e.ace(A, GENERIC_READ_FILE, "S-1-5-2"),     # NETWORK: no gid
        ], owner=daemon, group="S-1-22-2-1"), 1), owner=1, group=1)
        d = os.path.join(t, "dir")
        e.mkfile(d, e.ntacl(e.sd_aces([
            e.ace(A, FILE_ALL, "S-1-3-0", OI | CI | IO),     # CREATOR OWNER full control
            e.ace(A, FILE_ALL, "S-1-3-1", OI | CI | IO),     # CREATOR GROUP
            e.ace(A, READ_EXEC, daemon, OI | CI),           # owner SID, inheritable
            e.ace(A, READ_EXEC, "S-1-3-0"),                  # CREATOR OWNER, inert
        ], owner=daemon, group="S-1-22-2-1"), 4, True), owner=1, group=1, isdir=True,
            mode=0o755)
        res = e.tool(t)
        r.check("identities: the tool succeeds", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr))
        self.expect_entries(
            "identities: owner SID -> user:1, passdb user, S-1-22-1/2, groupmaps, Everyone, "
            "NETWORK unmapped", f,
            [("user:1", FILE_ALL, "", "allow"), ("user:2", 0x2, "", "deny"),
             ("user:7", GENERIC_READ_FILE, "", "allow"),
             ("group:8", GENERIC_READ_FILE, "", "allow"),
             ("group:%d" % e.gid_tty, READ_EXEC, "", "allow"),
             ("group:%d" % e.gid_staff, READ_EXEC, "", "allow"),
             ("everyone@", GENERIC_READ_FILE, "", "allow"),
             ("user:S-1-5-2", GENERIC_READ_FILE, "u", "allow")])
        r.check("identities: NETWORK reported as unmapped-sid",
                any("S-1-5-2 " in x[2] for x in e.lines(res.stdout, "unmapped-sid", "file")),
                res.stdout)
        self.expect_entries(
            "identities: CREATOR OWNER/GROUP -> owner@/group@ inherit-only, inheritable owner "
            "SID -> user:1, inert CREATOR OWNER kept", d,
            [("owner@", FILE_ALL, "fdi", "allow"), ("group@", FILE_ALL, "fdi", "allow"),
             ("user:1", READ_EXEC, "fd", "allow"),
             ("user:S-1-3-0", READ_EXEC, "u", "allow")])

    # ---------------------------------------------------------- winbind

    def c_winbind(self):
        """winbindd answers first, as for smbd; ID_TYPE_BOTH by the SID's type
        (the module's richacl_both_id_type()); a winbindd that stops answering
        fails the file.  winbindd is played by fake_wbclient.c."""
        e, r = self.e, self.r
        so = os.path.join(self.tmp, "libfake_wbclient.so")
        res = subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", so,
                              os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                           "fake_wbclient.c")], capture_output=True, text=True)
        if not r.check("winbind: the stand-in libwbclient builds", res.returncode == 0,
                       res.stderr):
            return
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        dom = "S-1-5-21-77-77-77-"
        t = self.tree("winbind")
        rx = READ_EXEC
        files = {
            "user": ([e.ace(A, rx, dom + "1001")], None, [("user:1001", rx, "", "allow")]),
            "group": ([e.ace(A, rx, dom + "2001")], None, [("group:2001", rx, "", "allow")]),
            "unknown": ([e.ace(A, rx, dom + "3001")], None, [("group:3001", rx, "", "allow")]),
            "denygroup": ([e.ace(D, 2, dom + "2002"), e.ace(A, rx, "S-1-1-0")], None,
                          [("group:2002", 2, "", "deny"), ("everyone@", rx, "", "allow")]),
            "denyunknown": ([e.ace(D, 2, dom + "3002"), e.ace(A, rx, "S-1-1-0")], None,
                            "whose type (user or group) cannot be looked up"),
            "uidonly": ([e.ace(A, rx, dom + "4001")], None, [("user:4001", rx, "", "allow")]),
            "gidonly": ([e.ace(A, rx, dom + "5001")], None, [("group:5001", rx, "", "allow")]),
            "passdb": ([e.ace(A, rx, e.sids["daemon"])], None, [("user:1", rx, "", "allow")]),
            "owner": ([e.ace(A, rx, "S-1-1-0"), e.ace(A, MODIFY, e.sids["bin"])], dom + "1005",
                      [("everyone@", rx, "", "allow"), ("user:2", MODIFY, "", "allow")]),
            "zz-gone": ([e.ace(A, rx, dom + "9999")], None, "identity lookup failed"),
        }
        for name, (aces, owner, _) in files.items():
            e.mkfile(os.path.join(t, name),
                     e.ntacl(e.sd_aces(aces, owner=owner or "S-1-22-1-0"), 1))
        before = {n: e.snapshot(os.path.join(t, n)) for n in files}
        res = e.tool(t, env={"RICHACL_MIGRATE_WBCLIENT": so})
        r.check("winbind: the summary names winbindd", "identities: winbindd + passdb"
                in res.stdout, res.stdout[-300:])
        r.check("winbind: exit 1 (two files fail)", res.returncode == 1,
                "exit %d %s" % (res.returncode, res.stderr[-300:]))
        for name, (_, _, want) in files.items():
            f = os.path.join(t, name)
            if isinstance(want, str):
                errs = e.lines(res.stdout, "error", name)
                r.check("winbind: %s refused: '%s'" % (name, want),
                        len(errs) == 1 and want in errs[0][2], "%r" % errs)
                self.expect_unchanged("winbind: %s unchanged" % name, f, before[name])
            else:
                self.expect_entries("winbind: %s -> %s" % (name, want[0][0]), f, want)
        r.check("winbind: owner SID of ID_TYPE_BOTH (a user) -> chown to uid 1005",
                os.lstat(os.path.join(t, "owner")).st_uid == 1005,
                "uid %d" % os.lstat(os.path.join(t, "owner")).st_uid)

    # ---------------------------------------------------------- normalisations

    def normalisation_tree(self, name):
        e = self.e
        t = self.tree(name)
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        OI, CI, IO = (security.SEC_ACE_FLAG_OBJECT_INHERIT,
                      security.SEC_ACE_FLAG_CONTAINER_INHERIT,
                      security.SEC_ACE_FLAG_INHERIT_ONLY)
        daemon = e.sids["daemon"]
        # an entry for a named user keeps each acl from being equivalent to a
        # mode (the kernel would keep the mode alone; the mode-only read path
        # is checked in c_mode_equivalent)
        named = e.ace(A, MODIFY, e.sids["bin"])
        files = {
            "sacl": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"), named], sacl_aces=[
                e.ace(security.SEC_ACE_TYPE_SYSTEM_AUDIT, FILE_ALL, "S-1-1-0",
                      security.SEC_ACE_FLAG_SUCCESSFUL_ACCESS)]), False),
            "nulldacl": (e.sd_aces([], null_dacl=True), False),
            "nodacl": (e.sd_aces([], no_dacl=True), False),
            "object": (e.sd("D:(OA;;0x%x;%s;;WD)(OD;;0x2;%s;;%s)(A;;0x%x;;;WD)" %
                            (FILE_ALL, DUMMY_GUID, DUMMY_GUID, daemon, GENERIC_READ_FILE)),
                       False),
            "acetype": (e.sd_aces([e.ace(security.SEC_ACE_TYPE_SYSTEM_AUDIT, FILE_ALL,
                                         "S-1-1-0"),
                                   e.ace(9, FILE_ALL, "S-1-1-0"),
                                   e.ace(A, GENERIC_READ_FILE, "S-1-1-0"), named]), False),
            "auditflags": (e.sd_aces([e.ace(A, GENERIC_READ_FILE, "S-1-1-0",
                                            security.SEC_ACE_FLAG_SUCCESSFUL_ACCESS),
                                      named]), False),
            "maskbits": (e.sd_aces([e.ace(A, GENERIC_READ_FILE | 0x01000000 | 0x02000000,
                                          "S-1-1-0"), named]), False),
            "generic": (e.sd_aces([e.ace(A, 0x80000000 | 0x20000000, "S-1-1-0"), named]),
                        False),
            "fileinherit": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0", OI | CI),
                                       e.ace(A, FILE_ALL, "S-1-3-0", OI | IO), named]),
                            False),
            "unmapped": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-5-21-9-9-9-1000"),
                                    e.ace(A, READ_EXEC, "S-1-5-32-545")]), False),
            "ownerrights": (e.sd_aces([e.ace(A, GENERIC_READ_FILE, "S-1-3-4"),
                                       e.ace(A, READ_EXEC, "S-1-1-0")]), False),
            "ownerkept": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")],
                                    owner="S-1-5-21-9-9-9-500"), False),
            "chown": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")], owner=daemon), False),
            "groupdiff": (e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")], group=e.staff_sid),
                          False),
            "plain": (e.sd_aces([e.ace(A, MODIFY, daemon), e.ace(A, READ_EXEC, "S-1-1-0")]),
                      False),
            "dir-generic": (e.sd_aces([e.ace(A, 0x10000000, "S-1-3-0", OI | CI | IO),
                                       e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)]), True),
        }
        for fname, (sd, isdir) in files.items():
            e.mkfile(os.path.join(t, fname), e.ntacl(sd, 1), isdir=isdir,
                     mode=0o755 if isdir else 0o644)
        os.symlink("plain", os.path.join(t, "link"))
        os.link(os.path.join(t, "plain"), os.path.join(t, "zz-hardlink"))
        return t, files

    def c_dry_run(self):
        e, r = self.e, self.r
        t, files = self.normalisation_tree("dry")
        before = {n: e.snapshot(os.path.join(t, n)) for n in list(files) + ["."]}
        res = e.tool(t, "--dry-run")
        r.check("dry-run: exit 0 (nothing would fail)", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr))
        changed = [n for n in before if e.snapshot(os.path.join(t, n)) != before[n]]
        r.check("dry-run: nothing changed on any file", not changed, "changed: %r" % changed)
        want = {
            "sacl": ["sacl"], "nulldacl": ["null-dacl"], "nodacl": ["no-dacl"],
            "object": ["object-ace"], "acetype": ["ace-type"], "auditflags": ["audit-flags"],
            "maskbits": ["mask-bits"], "generic": ["generic-rights"],
            "fileinherit": ["file-inherit-flags", "file-inherit-only"],
            "unmapped": ["unmapped-sid"], "ownerrights": ["owner-rights"],
            "ownerkept": ["owner-kept"], "chown": ["chown"], "groupdiff": ["group-differs"],
            "dir-generic": ["generic-rights"], "plain": [],
        }
        for fname, kinds in want.items():
            got = sorted(set(k for k, _, _ in e.lines(res.stdout, rel=fname)))
            r.check("dry-run: %s reported as %s" % (fname, ", ".join(kinds) or "nothing"),
                    got == sorted(kinds), "got %r" % got)
        unm = [d for _, _, d in e.lines(res.stdout, "unmapped-sid", "unmapped")]
        r.check("dry-run: each unmapped SID is named",
                any("S-1-5-21-9-9-9-1000" in d for d in unm) and
                any("S-1-5-32-545" in d for d in unm), "%r" % unm)
        r.check("dry-run: symlink reported as skipped",
                e.lines(res.stdout, "skipped", "link") != [], res.stdout)
        r.check("dry-run: the second name of a hard-linked file is skipped",
                any("hard link of plain" in d for _, _, d in
                    e.lines(res.stdout, "skipped", "zz-hardlink")), res.stdout)
        s = e.summary(res.stdout)
        r.check("dry-run: summary says DRY RUN and counts %d would migrate" % len(files),
                "DRY RUN" in res.stdout and s is not None and s["migrated"] == len(files) and
                s["symlinks"] == 1 and s["hardlinks"] == 1 and s["no_ntacl"] == 1,
                "%r\n%s" % (s, res.stdout))
        m = re.search(r"summary: normalisations \(files\): (.*)", res.stdout)
        r.check("dry-run: summary counts normalisations by kind",
                m is not None and "null-dacl 1" in m.group(1) and "generic-rights 2" in
                m.group(1), res.stdout)
        r.check("dry-run: summary has time and entries/s",
                re.search(r"summary: time [0-9.]+ s, [0-9.]+ entries/s", res.stdout) is not None,
                res.stdout)
        r.check("dry-run: progress on stderr",
                re.search(r"\d+/\d+ entries, \d+ failed, \d+ entries/s", res.stderr) is not None,
                res.stderr)

    def c_normalised(self):
        """The same tree migrated: what each normalisation stored."""
        e, r = self.e, self.r
        t, files = self.normalisation_tree("norm")
        st_nodacl = os.lstat(os.path.join(t, "nodacl"))
        res = e.tool(t)
        r.check("normalised: the tool succeeds", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr))
        rx = READ_EXEC
        N = ("user:2", MODIFY, "", "allow")
        p = lambda n: os.path.join(t, n)   # noqa: E731
        self.expect_entries("normalised: SACL dropped, DACL kept", p("sacl"),
                            [("everyone@", rx, "", "allow"), N])
        self.expect_entries("normalised: NULL DACL -> everyone@ full control", p("nulldacl"),
                            [("everyone@", FILE_ALL, "", "allow")])
        flags, ents = e.entries(p("nodacl"))
        st = os.lstat(p("nodacl"))
        r.check("normalised: no DACL -> nothing granted (mode 000, no NTACL)",
                ents == [] and (st.st_mode & 0o777) == 0 and
                not e.has_xattr(p("nodacl"), NTACL),
                "entries %r, mode %o (was %o)" % (ents, st.st_mode & 0o777,
                                                  st_nodacl.st_mode & 0o777))
        self.expect_entries("normalised: allowed-object dropped, denied-object -> deny",
                            p("object"), [("user:1", 0x2, "", "deny"),
                                          ("everyone@", GENERIC_READ_FILE, "", "allow")])
        self.expect_entries("normalised: audit and callback ACEs in the DACL dropped",
                            p("acetype"), [("everyone@", GENERIC_READ_FILE, "", "allow"), N])
        self.expect_entries("normalised: audit flags cleared", p("auditflags"),
                            [("everyone@", GENERIC_READ_FILE, "", "allow"), N])
        self.expect_entries("normalised: ACCESS_SYSTEM_SECURITY/MAXIMUM_ALLOWED cleared",
                            p("maskbits"), [("everyone@", GENERIC_READ_FILE, "", "allow"), N])
        self.expect_entries("normalised: GENERIC_READ|GENERIC_EXECUTE dropped with their "
                            "ACE (smbd never matched them)", p("generic"), [N])
        self.expect_entries("normalised: file loses OI/CI and inherit-only ACEs",
                            p("fileinherit"), [("everyone@", rx, "", "allow"), N])
        self.expect_entries("normalised: unmapped SIDs kept as entries matching nobody",
                            p("unmapped"), [("user:S-1-5-21-9-9-9-1000", rx, "u", "allow"),
                                            ("user:S-1-5-32-545", rx, "u", "allow")])
        self.expect_entries("normalised: OWNER RIGHTS -> owner@ and the flag owner_rights",
                            p("ownerrights"),
                            [("owner@", GENERIC_READ_FILE, "", "allow"),
                             ("everyone@", rx, "", "allow")], want_flags="o")
        r.check("normalised: unmapped owner SID -> the file keeps uid 0",
                os.lstat(p("ownerkept")).st_uid == 0, "uid %d" % os.lstat(p("ownerkept")).st_uid)
        r.check("normalised: owner SID of daemon -> chown to uid 1",
                os.lstat(p("chown")).st_uid == 1, "uid %d" % os.lstat(p("chown")).st_uid)
        r.check("normalised: the group is never changed",
                os.lstat(p("groupdiff")).st_gid == 0, "gid %d" % os.lstat(p("groupdiff")).st_gid)
        self.expect_entries("normalised: directory CREATOR OWNER GENERIC_ALL dropped "
                            "(new files got it unmapped: it granted nothing)",
                            p("dir-generic"), [("everyone@", rx, "fd", "allow")])
        r.check("normalised: the symlink is untouched",
                os.readlink(p("link")) == "plain" and not e.has_xattr(p("link"), FAKE_STORE),
                "")
        left = [n for n in files if e.has_xattr(p(n), NTACL)]
        r.check("normalised: every NTACL removed", not left, "left: %r" % left)

    def c_keep_ntacl(self):
        e, r = self.e, self.r
        t = self.tree("keep")
        f = os.path.join(t, "f")
        blob = e.ntacl(e.sd("D:(A;;0x%x;;;%s)(A;;0x%x;;;WD)" %
                            (MODIFY, e.sids["bin"], GENERIC_READ_FILE)), 2)
        e.mkfile(f, blob)
        res = e.tool(t, "--keep-ntacl")
        r.check("--keep-ntacl: richacl set and NTACL kept byte for byte",
                res.returncode == 0 and e.has_xattr(f, FAKE_STORE) and
                os.getxattr(f, NTACL) == blob, "exit %d, xattrs %r" %
                (res.returncode, os.listxattr(f)))
        res = e.tool(t, "--keep-ntacl")
        r.check("--keep-ntacl: a second run maps the same again (idempotent)",
                res.returncode == 0 and e.summary(res.stdout)["migrated"] == 1, res.stdout)

    def c_mode_equivalent(self):
        """A descriptor equivalent to a mode (Everyone alone) is stored as that
        mode alone (M12): the kernel keeps no acl, the mode says it all.
        OWNER RIGHTS and Everyone grant what a mode grants, but OWNER RIGHTS
        also takes the owner's implicit rights away (the acl flag
        owner_rights), which no mode says: an acl.  The same ACEs for the
        owner's SID name that SID (M8): an acl."""
        e, r = self.e, self.r
        t = self.tree("modeeq")
        f = os.path.join(t, "f")
        g = os.path.join(t, "g")
        h = os.path.join(t, "h")
        m = os.path.join(t, "m")
        # richacl_from_mode_nt(0644): owner@ FILE_ALL_ACCESS without DELETE
        # (0x1e01df, the owner's rights of a writable file), everyone@
        # FILE_GENERIC_READ; owner@ written as OWNER RIGHTS
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(0, 0x1e01df, "S-1-3-4"),
                                       e.ace(0, GENERIC_READ_FILE, "S-1-1-0")]), 1), mode=0o600)
        # the same for the owner's SID (uid 0): names uid 0 for good
        e.mkfile(h, e.ntacl(e.sd_aces([e.ace(0, 0x1e01df, "S-1-22-1-0"),
                                       e.ace(0, GENERIC_READ_FILE, "S-1-1-0")]), 1), mode=0o600)
        # owner, group and everyone as a chmod 644 shows through Samba's
        # POSIX mapping: not mode-only, stored as an acl
        e.mkfile(g, e.ntacl(e.sd_aces([
            e.ace(0, 0x12019f, "S-1-22-1-0"), e.ace(0, GENERIC_READ_FILE, "S-1-22-2-0"),
            e.ace(0, GENERIC_READ_FILE, "S-1-1-0")]), 1), mode=0o600)
        # Everyone FILE_GENERIC_READ alone: everybody, the owner included,
        # may read, and nobody write: mode 0444
        e.mkfile(m, e.ntacl(e.sd_aces([e.ace(0, GENERIC_READ_FILE, "S-1-1-0")]), 1), mode=0o600)
        res = e.tool(t)
        st = os.lstat(m)
        r.check("mode-equivalent: stored as mode 0444 alone, NTACL removed",
                res.returncode == 0 and not e.has_xattr(m, NTACL) and
                not e.has_xattr(m, FAKE_STORE) and (st.st_mode & 0o7777) == 0o444,
                "exit %d %s; mode %o, xattrs %r" % (res.returncode, res.stdout,
                                                   st.st_mode & 0o7777, os.listxattr(m)))
        self.expect_entries("mode-equivalent: OWNER RIGHTS is not a mode: an acl with "
                            "the flag owner_rights", f,
                            [("owner@", 0x1e01df, "", "allow"),
                             ("everyone@", GENERIC_READ_FILE, "", "allow")], want_flags="o")
        self.expect_entries("mode-equivalent: the owner's SID names uid 0: an acl", h,
                            [("user:0", 0x1e01df, "", "allow"),
                             ("everyone@", GENERIC_READ_FILE, "", "allow")])
        self.expect_entries("mode-equivalent: the 3-ACE descriptor is stored as an acl", g,
                            [("user:0", 0x12019f, "", "allow"),
                             ("group:0", GENERIC_READ_FILE, "", "allow"),
                             ("everyone@", GENERIC_READ_FILE, "", "allow")])

    # ---------------------------------------------------------- errors

    def c_errors(self):
        """Every bad input: a clear error, the file unchanged, exit 1."""
        e, r = self.e, self.r
        t = self.tree("errors")
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        good = e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"), e.ace(A, MODIFY, e.sids["bin"])])
        good_blob = e.ntacl(good, 1)
        v4 = e.ntacl(good, 4, True)
        nosd = xattr.NTACL()
        nosd.version = 4
        i = xattr.security_descriptor_hash_v4()
        i.sd = None
        i.hash_type = 1
        i.hash = [0] * 64
        i.description = ""
        i.time = 0
        i.sys_acl_hash = [0] * 64
        nosd.info = i
        cases = {
            "truncated": (good_blob[:len(good_blob) // 2], "damaged NTACL"),
            "trailing": (good_blob + b"\0\0\0\0", "damaged NTACL"),
            "garbage": (b"\x03\x00" + b"\xff" * 40, "damaged NTACL"),
            "empty": (b"", "damaged NTACL: 0 bytes"),
            "version7": (b"\x07\x00" + good_blob[2:], "unknown NTACL version 7"),
            "version0": (b"\x00\x00" + good_blob[2:], "unknown NTACL version 0"),
            "hashtype": (e.ntacl(good, 3, True, hash_type=5), "hash type 5"),
            "nosd": (ndr_pack(nosd), "no security descriptor"),
            "stale": (e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")],
                                        owner=e.sids["daemon"]), 4, True), "stale NTACL"),
            "denyunmapped": (e.ntacl(e.sd_aces([e.ace(D, 2, "S-1-5-21-9-9-9-1000")]), 1),
                             "maps to no unix id"),
            "badace": (e.ntacl(e.sd_aces([e.ace(A, 1, "S-1-1-0",
                                                security.SEC_ACE_FLAG_INHERIT_ONLY)]), 1),
                       None),   # a file: dropped, not an error (control)
        }
        for name, (blob, _) in cases.items():
            e.mkfile(os.path.join(t, name), blob)
        e.mkfile(os.path.join(t, "ok"), v4)
        before = {n: e.snapshot(os.path.join(t, n)) for n in cases}
        res = e.tool(t)
        r.check("errors: exit status 1 when files fail", res.returncode == 1,
                "exit %d: %s" % (res.returncode, res.stderr))
        for name, (_, msg) in cases.items():
            errs = e.lines(res.stdout, "error", name)
            if msg is None:
                r.check("errors: control %s migrates" % name, not errs, "%r" % errs)
                continue
            r.check("errors: %s -> error '%s'" % (name, msg),
                    len(errs) == 1 and msg in errs[0][2], "%r" % errs)
            self.expect_unchanged("errors: %s left unchanged (NTACL kept, no richacl)" % name,
                                  os.path.join(t, name), before[name])
        r.check("errors: the good v4 file beside them is migrated",
                not e.has_xattr(os.path.join(t, "ok"), NTACL) and
                e.has_xattr(os.path.join(t, "ok"), FAKE_STORE), "")
        s = e.summary(res.stdout)
        r.check("errors: summary counts %d failed" % (len(cases) - 1),
                s is not None and s["failed"] == len(cases) - 1, "%r" % s)

        # --accept-stale migrates the stale one for the file's owner
        res = e.tool(t, "--accept-stale")
        st = os.lstat(os.path.join(t, "stale"))
        r.check("errors: --accept-stale migrates the stale NTACL, owner unchanged",
                not e.has_xattr(os.path.join(t, "stale"), NTACL) and st.st_uid == 0 and
                e.lines(res.stdout, "stale-hash", "stale") != [], res.stdout)

    def c_dry_run_failures(self):
        """--dry-run says which files would fail, changes nothing, exits 1."""
        e, r = self.e, self.r
        t = self.tree("dryfail")
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        e.mkfile(os.path.join(t, "bad"), b"\x09\x00junk")
        e.mkfile(os.path.join(t, "deny"), e.ntacl(e.sd_aces([e.ace(D, 2, "S-1-5-21-9-9-9-7")]), 1))
        e.mkfile(os.path.join(t, "good"), e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")]), 1))
        before = {n: e.snapshot(os.path.join(t, n)) for n in ("bad", "deny", "good")}
        res = e.tool(t, "--dry-run")
        r.check("dry-run with failures: exit 1, an error line for each failing file",
                res.returncode == 1 and e.lines(res.stdout, "error", "bad") and
                e.lines(res.stdout, "error", "deny") and
                not e.lines(res.stdout, "error", "good"), res.stdout)
        changed = [n for n in before if e.snapshot(os.path.join(t, n)) != before[n]]
        r.check("dry-run with failures: nothing changed", not changed, "%r" % changed)

    def c_io_faults(self):
        """I/O errors on one file (test hook RICHACL_MIGRATE_TEST_FAIL): an error
        for that file, the others go on, and no file is left without an acl."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        blob = e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                  e.ace(A, MODIFY, e.sids["bin"])], owner=e.sids["daemon"]), 1)
        for op, msg in (("getxattr", "cannot read security.NTACL"),
                        ("chown", "chown to uid 1 failed"),
                        ("setxattr", "setting system.richacl failed"),
                        ("removexattr", "removing security.NTACL failed")):
            t = self.tree("fault-" + op)
            for n in ("a", "b", "c"):
                e.mkfile(os.path.join(t, n), blob)
            f = os.path.join(t, "b")
            before = e.snapshot(f)
            j = os.path.join(self.tmp, "fault-%s.journal" % op)
            res = e.tool(t, "--resume", j, env={"RICHACL_MIGRATE_TEST_FAIL": op + ":b"})
            errs = e.lines(res.stdout, "error", "b")
            s = e.summary(res.stdout)
            r.check("%s fails: exit 1, error '%s', the other files migrated" % (op, msg),
                    res.returncode == 1 and len(errs) == 1 and msg in errs[0][2] and
                    s is not None and s["migrated"] == 2 and s["failed"] == 1,
                    "exit %d %s" % (res.returncode, res.stdout))
            if op == "removexattr":
                r.check("removexattr fails: the richacl is set and the NTACL kept (both)",
                        e.has_xattr(f, NTACL) and e.has_xattr(f, FAKE_STORE) and
                        os.lstat(f).st_uid == 1, "%r" % os.listxattr(f))
            else:
                after = e.snapshot(f)
                r.check("%s fails: the file is unchanged" % op, after == before,
                        "before %r after %r" % (before, after))
            res = e.tool(t, "--resume", j)
            s = e.summary(res.stdout)
            r.check("%s fails: a resumed run finishes the file" % op,
                    res.returncode == 0 and s is not None and s["migrated"] == 1 and
                    s["resumed"] == 3 and not e.has_xattr(f, NTACL),
                    "exit %d %r" % (res.returncode, s))
        t = self.tree("fault-listdir")
        os.mkdir(os.path.join(t, "sub"))
        e.mkfile(os.path.join(t, "sub", "f"), blob)
        e.mkfile(os.path.join(t, "g"), blob)
        res = e.tool(t, env={"RICHACL_MIGRATE_TEST_FAIL": "listdir:sub"})
        errs = e.lines(res.stdout, "error", "sub")
        r.check("listdir fails: exit 1, error 'cannot list the directory', siblings migrated",
                res.returncode == 1 and len(errs) == 1 and "cannot list" in errs[0][2] and
                not e.has_xattr(os.path.join(t, "g"), NTACL) and
                e.has_xattr(os.path.join(t, "sub", "f"), NTACL), res.stdout)

    def c_helper_failures(self):
        """The helper dies or talks nonsense: exit 2, the file unchanged."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("badhelper")
        f = os.path.join(t, "f")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-5-21-9-9-9-1")]), 1))
        before = e.snapshot(f)
        echo = os.path.join(self.tmp, "echo-helper")
        with open(echo, "w") as fh:
            fh.write("#!/bin/sh\nexec cat\n")
        os.chmod(echo, 0o755)
        for helper, msg in (("/bin/true", "richacl-ntsd2xattr stopped"),
                            (echo, "unexpected answer")):
            res = e.tool(t, "--helper", helper)
            r.check("helper %s: exit 2, '%s'" % (helper, msg),
                    res.returncode == 2 and msg in res.stderr,
                    "exit %d %s" % (res.returncode, res.stderr))
            self.expect_unchanged("helper %s: file unchanged" % helper, f, before)

    def c_refuse_unmapped(self):
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("refuse")
        f = os.path.join(t, "f")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-5-21-9-9-9-1000")]), 1))
        before = e.snapshot(f)
        res = e.tool(t, "--unmapped-sids", "refuse")
        r.check("--unmapped-sids refuse: an unmapped allow fails the file",
                res.returncode == 1 and e.lines(res.stdout, "error", "f") != [], res.stdout)
        self.expect_unchanged("--unmapped-sids refuse: file unchanged", f, before)
        # the share's own setting, found by path
        e.write_conf(shares="[mig]\n\tpath = %s\n\tvfs objects = richacl\n"
                     "\trichacl:unmapped sids = refuse\n" % t)
        try:
            res = e.tool(t)
            r.check("richacl:unmapped sids = refuse of the share whose path is TREE applies",
                    res.returncode == 1 and "unmapped sids: refuse" in res.stdout, res.stdout)
            res = e.tool(t, "--unmapped-sids", "keep")
            r.check("--unmapped-sids keep overrides the share's setting",
                    res.returncode == 0 and not e.has_xattr(f, NTACL), res.stdout)
            e.write_conf(shares="[mig]\n\tpath = %s\n\trichacl:unmapped sids = maybe\n" % t)
            res = e.tool(t)
            r.check("a bad richacl:unmapped sids value is a setup error (exit 2)",
                    res.returncode == 2 and "invalid richacl:unmapped sids" in res.stderr,
                    "exit %d %s" % (res.returncode, res.stderr))
        finally:
            e.write_conf()

    def c_set_fails(self):
        """No richacl support (no shim): setxattr fails, the NTACL stays, and a
        chown done for the file is undone."""
        e, r = self.e, self.r
        t = self.tree("noshim")
        f = os.path.join(t, "f")
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0")],
                                      owner=e.sids["daemon"]), 1), mode=0o4755)
        before = e.snapshot(f)
        res = e.tool(t, shim=False)
        errs = e.lines(res.stdout, "error", "f")
        r.check("set fails: error names the failed setxattr and keeps the NTACL",
                res.returncode == 1 and len(errs) == 1 and "setting system.richacl failed"
                in errs[0][2] and "NTACL is kept" in errs[0][2], res.stdout)
        after = e.snapshot(f)
        # chown cleared the set-uid bit (as the kernel does); owner and NTACL are back
        r.check("set fails: owner restored after the chown, NTACL unchanged",
                after[1:] == before[1:], "before %r after %r" % (before, after))

    def c_setup_errors(self):
        e, r = self.e, self.r
        t = self.tree("setup")
        f = os.path.join(t, "f")
        e.mkfile(f, e.ntacl(e.sd("D:(A;;0x%x;;;WD)" % READ_EXEC), 1))
        before = e.snapshot(f)
        cases = [
            ("TREE missing", [os.path.join(self.tmp, "nonexistent")], {}, "No such file"),
            ("TREE not a directory", [f], {}, "not a directory"),
            ("smb.conf missing", ["--smb-conf", os.path.join(self.tmp, "none.conf"), t],
             dict(conf=False), "no such file"),
            ("helper missing", ["--helper", os.path.join(self.tmp, "nohelper"), t], {},
             "cannot run"),
            ("not root", [t], dict(user=65534), "must run as root"),
        ]
        for name, argv, kw, msg in cases:
            args = argv[:-1]
            res = e.tool(argv[-1], *args, **kw)
            r.check("setup error: %s -> exit 2, '%s'" % (name, msg),
                    res.returncode == 2 and msg in res.stderr,
                    "exit %d: %s" % (res.returncode, res.stderr))
        # a domain member without winbindd
        e.write_conf(extra_global="\tsecurity = domain\n")
        try:
            res = e.tool(t)
            r.check("setup error: security = domain without winbindd -> exit 2",
                    res.returncode == 2 and "winbindd does not answer" in res.stderr,
                    "exit %d: %s" % (res.returncode, res.stderr))
        finally:
            e.write_conf()
        j = os.path.join(self.tmp, "other.journal")
        with open(j, "w") as fh:
            fh.write("richacl-migrate-ntacl journal 1 /somewhere/else\n")
        res = e.tool(t, "--resume", j)
        r.check("setup error: a journal of another tree -> exit 2",
                res.returncode == 2 and "not of" in res.stderr, res.stderr)
        with open(j, "w") as fh:
            fh.write("garbage\n")
        res = e.tool(t, "--resume", j)
        r.check("setup error: a file that is no journal -> exit 2",
                res.returncode == 2 and "not a journal" in res.stderr, res.stderr)
        self.expect_unchanged("setup errors: the tree is unchanged", f, before)

    # ---------------------------------------------------------- resume

    def big_tree(self, name, n_dirs=10, n_files=40):
        e = self.e
        t = self.tree(name)
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        # SHA256-hashed (owner root = the files' owner): acl_xattr ignores
        # version 3/4 blobs of hash type NONE (c_hash_none)
        fblob = e.ntacl(e.sd_aces([e.ace(A, MODIFY, e.sids["bin"]),
                                   e.ace(A, READ_EXEC, "S-1-1-0")]), 4, True)
        dblob = e.ntacl(e.sd_aces([e.ace(A, MODIFY, e.sids["bin"], 3),
                                   e.ace(A, READ_EXEC, "S-1-1-0", 3)]), 3, True)
        os.setxattr(t, NTACL, dblob)
        for i in range(n_dirs):
            d = os.path.join(t, "d%03d" % i)
            os.mkdir(d)
            os.setxattr(d, NTACL, dblob)
            for j in range(n_files):
                fp = os.path.join(d, "f%04d" % j)
                with open(fp, "w") as fh:
                    fh.write("x")
                os.setxattr(fp, NTACL, fblob)
        return t, 1 + n_dirs * (1 + n_files)

    def all_paths(self, t):
        out = [t]
        for dp, dns, fns in os.walk(t):
            out += [os.path.join(dp, x) for x in dns + fns]
        return out

    def no_file_without_acl(self, t):
        bad = [p for p in self.all_paths(t)
               if not self.e.has_xattr(p, NTACL) and not self.e.has_xattr(p, FAKE_STORE)]
        return bad

    def c_resume_stop(self):
        e, r = self.e, self.r
        t, total = self.big_tree("resume1", 5, 20)
        j = os.path.join(self.tmp, "resume1.journal")
        res = e.tool(t, "--resume", j, "--stop-after", "37")
        r.check("resume: an interrupted run exits 130 and says so",
                res.returncode == 130 and "INTERRUPTED" in res.stdout,
                "exit %d %s" % (res.returncode, res.stdout[-400:]))
        s = e.summary(res.stdout)
        r.check("resume: the first run migrated 37", s is not None and s["migrated"] == 37,
                "%r" % s)
        bad = self.no_file_without_acl(t)
        r.check("resume: after the interruption every file has its NTACL or its richacl",
                not bad, "%r" % bad[:5])
        # A file the first run finished that has an NTACL again (replaced
        # since, c_stale_journal) is migrated again; the other 36 are not.
        done = [p for p in self.all_paths(t) if not e.has_xattr(p, NTACL)]
        probe = sorted(done)[-1]
        os.setxattr(probe, NTACL, e.ntacl(e.sd("D:(A;;0x1;;;WD)"), 1))
        res = e.tool(t, "--resume", j)
        s = e.summary(res.stdout)
        r.check("resume: the second run finishes the rest and the file with an NTACL "
                "again, skipping the other 36 done",
                res.returncode == 0 and s is not None and s["migrated"] == total - 36 and
                s["resumed"] == 36, "exit %d %r" % (res.returncode, s))
        r.check("resume: the file done before with an NTACL again is migrated again",
                not e.has_xattr(probe, NTACL), probe)
        left = [p for p in self.all_paths(t) if e.has_xattr(p, NTACL)]
        r.check("resume: nothing is skipped (no NTACL left)", not left, "%r" % left[:5])
        res = e.tool(t, "--resume", j)
        s = e.summary(res.stdout)
        r.check("resume: a third run has nothing left to do",
                res.returncode == 0 and s is not None and s["migrated"] == 0 and
                s["resumed"] == total, "%r" % s)

    def c_resume_crash(self):
        """A crash between the steps of one file (test hook)."""
        e, r = self.e, self.r
        for stage in ("begin", "set", "removed"):
            t, total = self.big_tree("crash-" + stage, 2, 5)
            j = os.path.join(self.tmp, "crash-%s.journal" % stage)
            res = e.tool(t, "--resume", j,
                         env={"RICHACL_MIGRATE_TEST_CRASH": "4:%s" % stage})
            r.check("crash at '%s': the run dies" % stage, res.returncode == 99,
                    "exit %d" % res.returncode)
            bad = self.no_file_without_acl(t)
            r.check("crash at '%s': no file without NTACL or richacl" % stage, not bad,
                    "%r" % bad)
            res = e.tool(t, "--resume", j)
            s = e.summary(res.stdout)
            r.check("crash at '%s': the resumed run completes the tree" % stage,
                    res.returncode == 0 and s is not None and
                    s["migrated"] + s["resumed"] == total and s["no_ntacl"] == 0 and
                    s["failed"] == 0, "exit %d %r %s" % (res.returncode, s, res.stdout[-300:]))
            left = [p for p in self.all_paths(t) if e.has_xattr(p, NTACL)]
            r.check("crash at '%s': every NTACL is gone, every file has a richacl" % stage,
                    not left and not self.no_file_without_acl(t), "%r" % left)
            if stage == "removed":
                r.check("crash at 'removed': the file is reported as migrated before",
                        e.lines(res.stdout, "resumed") != [], res.stdout[-300:])

    def c_sigint(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.interrupt(sig)

    def interrupt(self, sig):
        e = self.e
        name = signal.Signals(sig).name
        r = Prefixed(self.r, name)
        t, total = self.big_tree(name.lower(), 40, 100)
        j = os.path.join(self.tmp, "%s.journal" % name.lower())
        env = dict(os.environ, LD_PRELOAD=SHIM)
        p = subprocess.Popen([PY, TOOL, "--smb-conf", e.conf, "--progress", "0.02",
                              "--resume", j, t], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        line = p.stderr.readline()          # the first progress line
        time.sleep(0.05)
        p.send_signal(sig)
        out, err = p.communicate(timeout=300)
        s = e.summary(out)
        r.check("SIGINT: exit 130, summary INTERRUPTED, progress shown",
                p.returncode == 130 and "INTERRUPTED" in out and "entries" in line,
                "exit %d, first line %r, %s" % (p.returncode, line, out[-300:]))
        r.check("SIGINT: stopped part way", s is not None and 0 < s["migrated"] < total,
                "%r" % s)
        bad = self.no_file_without_acl(t)
        r.check("SIGINT: no file without NTACL or richacl", not bad, "%r" % bad[:5])
        res = e.tool(t, "--resume", j)
        s2 = e.summary(res.stdout)
        r.check("SIGINT: the resumed run completes, without redoing",
                res.returncode == 0 and s2 is not None and s is not None and
                s2["resumed"] == s["migrated"] and s2["migrated"] == total - s["migrated"],
                "%r %r" % (s, s2))

    def c_statefile_inside(self):
        e, r = self.e, self.r
        t = self.tree("inside")
        e.mkfile(os.path.join(t, "f"), e.ntacl(e.sd("D:(A;;0x%x;;;WD)" % READ_EXEC), 1))
        j = os.path.join(t, "journal")
        res = e.tool(t, "--resume", j)
        r.check("a state file inside TREE is left out of the walk",
                res.returncode == 0 and not e.lines(res.stdout, rel="journal"),
                res.stdout)

    # ---------------------------------------------------------- review findings
    # Regression checks of an outside review (F1-F12).  The expectations are
    # Samba 4.17's behaviour and the tool's documented promises.

    def access(self, path, spec):
        """The richacl permission letters getrichacl --access grants SPEC
        ("uid:gid:...") on PATH under the shim (a string, "" for nothing), or
        None and the error."""
        r = self.e.run([GETRICHACL, "--full", "--access=" + spec, path],
                       env=dict(os.environ, LD_PRELOAD=SHIM))
        if r.returncode != 0 or not r.stdout.strip():
            return None, "getrichacl --access=%s failed: %s" % (spec, r.stderr.strip())
        granted = r.stdout.split()[0].replace("-", "")
        return granted, r.stdout.strip()

    SWAP_HELPER = r'''#!/usr/bin/python3
# Proxies richacl-ntsd2xattr: after the helper's first final answer (OK or E)
# and before the tool reads it, renames $SWAP_FROM to $SWAP_FROM.real and
# puts a symlink $SWAP_FROM -> $SWAP_TO in its place (the attacker's timing,
# made deterministic).
import os, subprocess, sys, threading
real = subprocess.Popen([%r] + sys.argv[1:], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE)
out = sys.stdout.buffer
swapped = [False]


def relay():
    while True:
        line = real.stdout.readline()
        if not line:
            break
        if not swapped[0] and (line.startswith(b"OK ") or line.startswith(b"E ")) \
                and os.environ.get("SWAP_FROM"):
            src = os.environ["SWAP_FROM"]
            os.rename(src, src + ".real")
            os.symlink(os.environ["SWAP_TO"], src)
            swapped[0] = True
        out.write(line)
        out.flush()
    out.close()


t = threading.Thread(target=relay)
t.start()
while True:
    data = os.read(0, 65536)
    if not data:
        break
    try:
        real.stdin.write(data)
        real.stdin.flush()
    except OSError:
        break
try:
    real.stdin.close()
except OSError:
    pass
t.join()
sys.exit(real.wait())
'''

    def c_race(self):
        """F1: a directory of the tree replaced by a symlink to a directory
        outside it, between the mapping of a file and the changes made to it:
        nothing outside TREE may change; the file the walk listed is migrated."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        swap = os.path.join(self.tmp, "swap-helper")
        with open(swap, "w") as fh:
            fh.write(self.SWAP_HELPER % HELPER)
        os.chmod(swap, 0o755)
        binsid = e.sids["bin"]
        # the attacker's file, as smbd (v4, SHA256) wrote it for its owner bin
        attack = e.ntacl(e.sd_aces([e.ace(A, FILE_ALL, "S-1-1-0")], owner=binsid,
                                   group="S-1-22-2-2"), 4, True)
        # another share's file: root's, only daemon may read it
        other = e.ntacl(e.sd_aces([e.ace(A, GENERIC_READ_FILE, e.sids["daemon"])]), 4, True)
        for variant, victim_ntacl in (("race", None), ("race (outside NTACL)", other)):
            tag = "race1" if victim_ntacl is None else "race2"
            t = self.tree(tag)
            outside = os.path.join(self.tmp, tag + "-outside")
            os.mkdir(outside, 0o755)
            victim = os.path.join(outside, "secret")
            e.mkfile(victim, victim_ntacl, mode=0o600)
            with open(victim, "w") as fh:
                fh.write("root only\n")
            a = os.path.join(t, "a")
            e.mkfile(a, None, owner=2, group=2, mode=0o755, isdir=True)
            e.mkfile(os.path.join(a, "secret"), attack, owner=2, group=2, mode=0o644)
            before = e.snapshot(victim)
            res = e.tool(t, "--helper", swap, env={"SWAP_FROM": a, "SWAP_TO": outside})
            moved = os.path.join(t, "a.real", "secret")
            if not r.check("%s: the swap helper replaced TREE/a by a symlink during the run"
                           % variant, os.path.islink(a) and os.path.exists(moved),
                           "exit %d %s %s" % (res.returncode, res.stdout, res.stderr[-500:])):
                continue
            after = e.snapshot(victim)
            with open(victim) as fh:
                content = fh.read()
            r.check("%s: the file outside TREE is untouched (mode, owner, xattrs, content)"
                    % variant, after == before and content == "root only\n",
                    "before %r, after %r, content %r; %s" % (before, after, content,
                                                            res.stdout))
            r.check("%s: no richacl on the file outside TREE" % variant,
                    not e.has_xattr(victim, FAKE_STORE), "%r" % os.listxattr(victim))
            if victim_ntacl is not None:
                r.check("%s: the outside file keeps its NTACL byte for byte" % variant,
                        e.has_xattr(victim, NTACL) and os.getxattr(victim, NTACL) ==
                        victim_ntacl, "%r" % os.listxattr(victim))
            r.check("%s: the file the walk listed (now a.real/secret) has the richacl and "
                    "no NTACL" % variant,
                    e.has_xattr(moved, FAKE_STORE) and not e.has_xattr(moved, NTACL),
                    "xattrs %r; %s" % (os.listxattr(moved), res.stdout))
            r.check("%s: exit 0 or 1" % variant, res.returncode in (0, 1),
                    "exit %d %s" % (res.returncode, res.stderr[-500:]))

    def c_generic(self):
        """F2: generic rights in a stored ACE grant nothing (Samba's
        se_access_check does not map them; smbd maps them only in descriptors
        a client sends, se_create_child_secdesc copies inherited masks as they
        are)."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        OI, CI = security.SEC_ACE_FLAG_OBJECT_INHERIT, security.SEC_ACE_FLAG_CONTAINER_INHERIT
        GENERIC_ALL, GENERIC_READ, READ_CONTROL = 0x10000000, 0x80000000, 0x20000
        daemon, binsid = e.sids["daemon"], e.sids["bin"]
        t = self.tree("generic2")
        files = {
            "all": ([e.ace(A, FILE_ALL, daemon), e.ace(A, GENERIC_ALL, binsid)], False, ""),
            "read-split": ([e.ace(A, FILE_ALL, daemon), e.ace(A, GENERIC_READ, binsid),
                            e.ace(A, READ_CONTROL, binsid)], False, "c"),
            "read-mixed": ([e.ace(A, FILE_ALL, daemon),
                            e.ace(A, GENERIC_READ | READ_CONTROL, binsid)], False, "c"),
            "dir": ([e.ace(A, FILE_ALL, daemon, OI | CI),
                     e.ace(A, GENERIC_ALL, binsid, OI | CI)], True, ""),
        }
        for name, (aces, isdir, _) in files.items():
            e.mkfile(os.path.join(t, name),
                     e.ntacl(e.sd_aces(aces, owner=daemon, group="S-1-22-2-1"), 1),
                     owner=1, group=1, mode=0o700 if isdir else 0o600, isdir=isdir)
        res = e.tool(t)
        r.check("generic: the tool succeeds (exit 0)", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr[-500:]))
        for name, (_, isdir, want) in files.items():
            p = os.path.join(t, name)
            got, details = self.access(p, "2:2")
            r.check("generic: %s: bin (uid 2) is granted %s" %
                    (name, "only read_acl (c)" if want else "nothing"),
                    got is not None and sorted(got) == sorted(want),
                    "%s; %s" % (details, e.entries(p)))
            got, details = self.access(p, "1:1")
            full = "rwpxDaARWcCoS" + ("d" if isdir else "")
            r.check("generic: %s: daemon (uid 1) keeps full access" % name,
                    got is not None and set(full) <= set(got), details)
            r.check("generic: %s reported as generic-rights" % name,
                    e.lines(res.stdout, "generic-rights", name) != [], res.stdout)
        flags, ents = e.entries(os.path.join(t, "dir"))
        bad = ([x for x in ents if x[0] == "user:2" and x[1]] if flags is not None else ents)
        r.check("generic: dir: no entry grants bin anything, inheritable or not "
                "(getrichacl --raw)", flags is not None and not bad,
                "%r" % ([(w, letters(m), f, ty) for w, m, f, ty in bad]
                        if flags is not None else ents))

    def c_hash_none(self):
        """F3: acl_xattr (validate_nt_acl_blob) ignores a version 3/4 NTACL of
        hash type NONE unless acl_xattr:ignore system acls = yes."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("hashnone")
        sd = e.sd_aces([e.ace(A, FILE_ALL, "S-1-1-0")], owner=e.sids["bin"],
                       group="S-1-22-2-1")
        names = ("v3", "v4")
        for v in (3, 4):
            e.mkfile(os.path.join(t, "v%d" % v),
                     e.ntacl(sd, v, hash_type=xattr.XATTR_SD_HASH_TYPE_NONE),
                     owner=1, group=1, mode=0o600)
        before = {n: e.snapshot(os.path.join(t, n)) for n in names}
        res = e.tool(t)
        r.check("hash-none: exit 1 (acl_xattr ignored these NTACLs)", res.returncode == 1,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr[-500:]))
        for n in names:
            p = os.path.join(t, n)
            r.check("hash-none: %s (hash type NONE) -> an error line" % n,
                    len(e.lines(res.stdout, "error", n)) == 1, res.stdout)
            self.expect_unchanged("hash-none: %s unchanged (uid 1, mode 0600, NTACL kept, no "
                                  "richacl)" % n, p, before[n])
        e.write_conf(shares="[mig]\n\tpath = %s\n\tvfs objects = acl_xattr\n"
                     "\tacl_xattr:ignore system acls = yes\n" % t)
        try:
            res = e.tool(t)
        finally:
            e.write_conf()
        r.check("hash-none: with acl_xattr:ignore system acls = yes: exit 0",
                res.returncode == 0, "exit %d: %s %s" % (res.returncode, res.stdout,
                                                         res.stderr[-500:]))
        for n in names:
            p = os.path.join(t, n)
            r.check("hash-none: with acl_xattr:ignore system acls = yes: %s migrated "
                    "(richacl set, NTACL removed)" % n,
                    e.has_xattr(p, FAKE_STORE) and not e.has_xattr(p, NTACL),
                    "%r" % os.listxattr(p))

    def dry_run_ignoring_system_acls(self, t):
        """The tool's dry run of t as a share with acl_xattr:ignore system
        acls = yes."""
        e = self.e
        e.write_conf(shares="[mig]\n\tpath = %s\n\tvfs objects = acl_xattr\n"
                     "\tacl_xattr:ignore system acls = yes\n" % t)
        try:
            return e.tool(t, "--dry-run")
        finally:
            e.write_conf()

    def c_posix_stale(self):
        """A deny after an allow: Samba's NT -> POSIX mapping refuses that
        order (posix_acls.c create_canon_ace_lists(): "Deny entry after
        Allow entry") and leaves the POSIX ACL as it was, so acl_xattr's
        kernel-level access was not the NT ACL's.  The tool migrates the NT
        ACL and reports such files as posix-stale, except with acl_xattr:ignore
        system acls = yes (no POSIX mapping at all)."""
        e, r = self.e, self.r
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        OI, CI, IO = 1, 2, 8
        t = self.tree("posixstale")
        bin_, daemon = e.sids["bin"], e.sids["daemon"]
        cases = {
            # name: (aces, isdir, reported)
            "dir-late-deny": ([e.ace(A, FILE_ALL, "S-1-22-1-2", OI | CI),
                               e.ace(D, 0x10000, daemon, OI | CI),
                               e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)], True, True),
            "dir-deny-first": ([e.ace(D, 0x10000, daemon, OI | CI),
                                e.ace(A, FILE_ALL, "S-1-22-1-2", OI | CI),
                                e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)], True, False),
            "dir-inherit-only": ([e.ace(A, FILE_ALL, bin_, OI | CI | IO),
                                  e.ace(D, 0x2, daemon, OI | CI | IO),
                                  e.ace(A, READ_EXEC, "S-1-1-0")], True, True),
            "dir-split": ([e.ace(A, READ_EXEC, "S-1-1-0"),
                           e.ace(D, 0x2, daemon, OI | CI | IO)], True, False),
            "file-late-deny": ([e.ace(A, READ_EXEC, "S-1-1-0"),
                                e.ace(D, 0x2, daemon)], False, True),
            "file-deny-first": ([e.ace(D, 0x2, daemon),
                                 e.ace(A, READ_EXEC, "S-1-1-0")], False, False),
            "file-deny-write-class": ([e.ace(D, 0x16, daemon),
                                       e.ace(A, READ_EXEC, "S-1-1-0")], False, False),
        }
        # posix-coarse: a deny of part of the rights behind one POSIX bit
        # (r: READ_DATA|READ_EA, w: WRITE_DATA|APPEND_DATA|WRITE_EA)
        coarse = {"file-deny-first": True, "file-deny-write-class": False,
                  "dir-deny-first": False, "dir-split": True}
        for name, (aces, isdir, _) in cases.items():
            e.mkfile(os.path.join(t, name), e.ntacl(e.sd_aces(aces), 1), isdir=isdir,
                     mode=0o755 if isdir else 0o644)
        res = e.tool(t, "--dry-run")
        r.check("posix-stale: the dry run exits 0", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr[-300:]))
        for name, (_, _, reported) in cases.items():
            got = bool(e.lines(res.stdout, "posix-stale", name))
            r.check("posix-stale: %s %s" % (name, "reported" if reported else "not reported"),
                    got == reported, res.stdout)
        for name, want in coarse.items():
            got = bool(e.lines(res.stdout, "posix-coarse", name))
            r.check("posix-coarse: %s %s" % (name, "reported" if want else "not reported"),
                    got == want, res.stdout)
        res = self.dry_run_ignoring_system_acls(t)
        r.check("posix-stale: with acl_xattr:ignore system acls = yes nothing is reported",
                res.returncode == 0 and not e.lines(res.stdout, "posix-stale") and
                not e.lines(res.stdout, "posix-coarse"), res.stdout)
        res = e.tool(t)
        got, details = self.access(os.path.join(t, "dir-late-deny"), "2:2")
        r.check("posix-stale: migrated as the NT ACL says (uid 2 gets full control)",
                res.returncode == 0 and got == "rwpxdDaARWcCoS", details)

    def c_posix_stale_above(self):
        """Below a posix-stale directory smbd's opens went through the
        kernel's search permission check on that directory's older POSIX
        ACL, so they could be refused whatever the file's own NT ACL said:
        every entry below it is reported as posix-stale-above (whatever
        else is reported for it), naming the nearest such directory, also
        one above TREE and one that an earlier run with --keep-ntacl
        migrated; nothing else is, nor below a directory whose NTACL
        acl_xattr did not use (stale hash)."""
        e, r = self.e, self.r
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        OI, CI = 1, 2
        t = self.tree("stale-above")
        daemon = e.sids["daemon"]
        late = [e.ace(A, FILE_ALL, "S-1-22-1-2", OI | CI), e.ace(D, 0x10000, daemon, OI | CI),
                e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)]
        first = [e.ace(D, 0x10000, daemon, OI | CI), e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)]
        plain = [e.ace(A, READ_EXEC, "S-1-1-0", OI | CI)]
        entries = [("stale", late, True), ("stale/f", plain, False), ("stale/sub", plain, True),
                   ("stale/sub/g", plain, False), ("stale/inner", late, True),
                   ("stale/inner/h", plain, False), ("ok", first, True), ("ok/h", plain, False),
                   ("top", plain, False), ("hs/f", plain, False)]
        # acl_xattr did not use hs's NTACL: its hash covers another owner
        e.mkfile(os.path.join(t, "hs"), e.ntacl(e.sd_aces(late, owner="S-1-22-1-2"), 4,
                                                hashed=True), isdir=True, mode=0o755)
        for rel, aces, isdir in entries:
            e.mkfile(os.path.join(t, rel), e.ntacl(e.sd_aces(aces), 1), isdir=isdir,
                     mode=0o755 if isdir else 0o644)
        e.mkfile(os.path.join(t, "stale/nontacl"))
        os.symlink("f", os.path.join(t, "stale/link"))
        entries += [("stale/nontacl", None, False), ("stale/link", None, False),
                    ("hs", None, True)]
        want = {"stale/f": "stale", "stale/sub": "stale", "stale/sub/g": "stale",
                "stale/inner": "stale", "stale/inner/h": "stale/inner",
                "stale/nontacl": "stale", "stale/link": "stale"}
        res = e.tool(t, "--dry-run", "--accept-stale")
        r.check("posix-stale-above: the dry run exits 0", res.returncode == 0,
                "exit %d: %s %s" % (res.returncode, res.stdout, res.stderr[-300:]))
        for rel, _, _ in entries:
            got = e.lines(res.stdout, "posix-stale-above", rel)
            if rel in want:
                ok = len(got) == 1 and ("directory %s above" % want[rel]) in got[0][2]
                what = "reported, naming %s" % want[rel]
            else:
                ok = not got
                what = "not reported"
            r.check("posix-stale-above: %s %s" % (rel, what), ok, res.stdout)
        r.check("posix-stale-above: counted in the summary",
                re.search(r"posix-stale-above 7\b", res.stdout) is not None, res.stdout)
        r.check("posix-stale-above: hs (stale hash) is not posix-stale",
                not e.lines(res.stdout, "posix-stale", "hs") and
                bool(e.lines(res.stdout, "stale-hash", "hs")), res.stdout)
        # TREE below a stale directory
        sub = os.path.join(t, "stale", "sub")
        res = e.tool(sub, "--dry-run")
        got = e.lines(res.stdout, "posix-stale-above")
        r.check("posix-stale-above: TREE below a stale directory: its entries name it",
                res.returncode == 0 and sorted(x[1] for x in got) == [".", "g"] and
                all(("directory %s above" % os.path.join(t, "stale")) in x[2] for x in got),
                res.stdout)
        res = self.dry_run_ignoring_system_acls(t)
        r.check("posix-stale-above: with acl_xattr:ignore system acls = yes nothing is "
                "reported", res.returncode == 0 and
                not e.lines(res.stdout, "posix-stale-above"), res.stdout)
        # a second run with the same journal: stale is done but kept its NTACL
        j = os.path.join(self.tmp, "stale-above.journal")
        first = e.tool(t, "--keep-ntacl", "--accept-stale", "--resume", j)
        res = e.tool(t, "--keep-ntacl", "--accept-stale", "--resume", j)
        got = dict((x[1], x[2]) for x in e.lines(res.stdout, "posix-stale-above"))
        r.check("posix-stale-above: a resumed --keep-ntacl run still reports the entries "
                "below stale", first.returncode == 0 and res.returncode == 0 and
                sorted(got) == sorted(want) and
                all(("directory %s above" % want[k]) in got[k] for k in want),
                first.stdout + res.stdout)

    def c_guide_loop(self):
        """docs/admin-guide.md 4.1 and 4.3 as written, with a samba-tool
        stub: each entry's ACL is set again on that entry alone, without
        its group; a file name with a newline and a tab cannot smuggle an
        SDDL onto another file (the attack on the tab/newline list)."""
        r = self.r
        guide = open(os.path.join(REPO, "docs", "admin-guide.md")).read()

        def block(heading):
            rest = guide[guide.index(heading):]
            m = re.search(r"```sh\n(.*?)```", rest, re.S)
            return m.group(1)
        base = self.tree("guideloop")
        data, root, stub = (os.path.join(base, d) for d in ("data", "root", "bin"))
        for d in (data, root, stub):
            os.mkdir(d)
        log = os.path.join(base, "set.log")
        with open(os.path.join(stub, "samba-tool"), "w") as f:
            f.write('#!/bin/bash\n'
                    'for last; do :; done\n'
                    'case "$2" in\n'
                    'get) echo "O:S-1-22-1-0G:DUD:(A;;0x1f01ff;;;S-1-22-1-$(stat -c %i -- '
                    '"$last"))" ;;\n'
                    'set) printf \'%s\\0%s\\0\' "${@: -2:1}" "$last" >> "$STUB_LOG" ;;\n'
                    'esac\n')
        os.chmod(os.path.join(stub, "samba-tool"), 0o755)
        evil = "x\nO:S-1-22-1-0D:(A;;FA;;;WD)\ttarget"
        names = ["target", "dir", "dir/b", evil, "tab\there", "-dash", "back\\slash"]
        for n in names:
            if n == "dir":
                os.mkdir(os.path.join(data, n))
            else:
                open(os.path.join(data, n), "w").close()
        script = "set -e\n" + "\n".join(
            block(h).replace("/srv/data", data).replace("/root/", root + "/")
            for h in ("### 4.1 ", "### 4.3 "))
        env = dict(os.environ, PATH=stub + ":" + os.environ["PATH"], STUB_LOG=log)
        res = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
        fields = open(log, "rb").read().decode().split("\0") if os.path.exists(log) else []
        sets = list(zip(fields[0::2], fields[1::2]))
        want = [(".", os.stat(data).st_ino)] + \
            [("./" + n, os.lstat(os.path.join(data, n)).st_ino) for n in names]
        want = sorted(("O:S-1-22-1-0D:(A;;0x1f01ff;;;S-1-22-1-%d)" % ino, f) for f, ino in want)
        r.check("guide loop: 4.1 and 4.3 run (exit 0, nothing on stderr)",
                res.returncode == 0 and not res.stderr, "exit %d: %s" % (res.returncode,
                                                                  res.stderr[-500:]))
        r.check("guide loop: every entry set once with its own SDDL, group left out, "
                "the newline/tab name included", sorted(sets) == want,
                "got %r, want %r" % (sorted(sets), want))

    def c_stale_journal(self):
        """F4: a file replaced between two runs with the same --resume journal
        (restored, copied again) is migrated by the second run."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("stalejournal")
        f = os.path.join(t, "f")
        j = os.path.join(self.tmp, "stalejournal.journal")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                       e.ace(A, MODIFY, e.sids["bin"])]), 1), mode=0o666)
        res = e.tool(t, "--resume", j)
        r.check("stale journal: the first run migrates f",
                res.returncode == 0 and not e.has_xattr(f, NTACL) and
                e.has_xattr(f, FAKE_STORE), "exit %d %s" % (res.returncode, res.stdout))
        os.unlink(f)
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, GENERIC_READ_FILE, "S-1-1-0")]), 1),
                 mode=0o666)
        res = e.tool(t, "--resume", j)
        r.check("stale journal: the second run exits 0", res.returncode == 0,
                "exit %d %s %s" % (res.returncode, res.stdout, res.stderr[-500:]))
        got, details = self.access(f, "1234:1234")
        # Everyone read only is mode-equivalent: stored as mode 0444 alone
        r.check("stale journal: the new f is migrated (NTACL gone, its acl in force: "
                "others read, no write)",
                not e.has_xattr(f, NTACL) and got is not None and "r" in got and
                "w" not in got and "p" not in got,
                "xattrs %r, mode %o, uid 1234 granted %s; %s" %
                (os.listxattr(f), os.lstat(f).st_mode & 0o7777, details, res.stdout))

    def c_names(self):
        """F5: names that are not UTF-8 or hold terminal escapes, with a
        strict UTF-8 stdout: all migrated, reported escaped, nothing raw."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("names")
        tb = os.fsencode(t)
        # the unmapped SID gives each file a report line
        blob = e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                  e.ace(A, MODIFY, e.sids["bin"]),
                                  e.ace(A, READ_EXEC, "S-1-5-21-9-9-9-1000")]), 1)
        paths = [tb + b"/m\xff", tb + b"/m\xff/inside", tb + b"/e\x1b[31m"]
        e.mkfile(paths[0], blob, isdir=True, mode=0o755)
        e.mkfile(paths[1], blob)
        e.mkfile(paths[2], blob)
        j = os.path.join(self.tmp, "names.journal")
        env = {"PYTHONIOENCODING": "utf-8:strict", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        res = e.tool(t, "--resume", j, env=env, text=False)
        out = res.stdout.decode("utf-8", "surrogateescape")
        err = res.stderr.decode("utf-8", "surrogateescape")
        s = e.summary(out)
        r.check("names: exit 0 and a summary", res.returncode == 0 and s is not None,
                "exit %d %r %r" % (res.returncode, out, err[-800:]))
        left = [p for p in paths if e.has_xattr(p, NTACL) or not e.has_xattr(p, FAKE_STORE)]
        r.check("names: every entry migrated, the child of the non-UTF-8 directory too",
                not left, "not migrated: %r" % left)
        r.check("names: no raw ESC (0x1b) or 0xff byte on stdout",
                b"\x1b" not in res.stdout and b"\xff" not in res.stdout, "%r" % res.stdout)
        r.check("names: no raw ESC (0x1b) or 0xff byte on stderr",
                b"\x1b" not in res.stderr and b"\xff" not in res.stderr, "%r" % res.stderr)
        rels = [rel for _, rel, _ in e.lines(out)]
        r.check("names: the entries are reported escaped ('m\\xff', 'e\\x1b' as text)",
                any("m\\xff" in x for x in rels) and any("e\\x1b" in x for x in rels),
                "%r" % rels)
        res = e.tool(t, "--resume", j, env=env, text=False)
        out = res.stdout.decode("utf-8", "surrogateescape")
        s = e.summary(out)
        r.check("names: a second run with the same journal finds all done (exit 0)",
                res.returncode == 0 and s is not None and s["resumed"] == len(paths) + 1 and
                s["migrated"] == 0 and s["failed"] == 0,
                "exit %d %r %r" % (res.returncode, out, res.stderr[-800:]))

    def c_unset_config(self):
        """F6: an smb.conf whose private and state directories are empty (a
        server never set up): exit 2 naming the missing database, and nothing
        created in Samba's directories, with --dry-run or without."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("unsetconf")
        f = os.path.join(t, "f")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                       e.ace(A, MODIFY, e.sids["bin"])]), 1))
        before_f = e.snapshot(f)
        for mode, opts, tag in (("--dry-run", ["--dry-run"], "dry"), ("a real run", [], "real")):
            # each run its own never set up server: what one run created
            # cannot hide what the other creates
            base = os.path.join(self.tmp, "unset-samba-" + tag)
            dirs = [os.path.join(base, d) for d in ("private", "state", "lock", "cache")]
            for d in dirs + [os.path.join(base, "run")]:
                os.makedirs(d)
            conf = os.path.join(self.tmp, "unset-%s.conf" % tag)
            with open(conf, "w") as fh:
                fh.write("""[global]
\tserver role = standalone server
\tsecurity = user
\tpassdb backend = tdbsam:{b}/private/passdb.tdb
\tprivate dir = {b}/private
\tstate directory = {b}/state
\tcache directory = {b}/cache
\tlock directory = {b}/lock
\tpid directory = {b}/run
\tncalrpc dir = {b}/ncalrpc
\twinbindd socket directory = {b}/wbsock
""".format(b=base))
            before = sorted(os.path.join(dp, x) for d in dirs for dp, dns, fns in os.walk(d)
                            for x in dns + fns)
            res = e.tool(t, "--smb-conf", conf, *opts, conf=False)
            r.check("unset config, %s: exit 2 naming the missing database" % mode,
                    res.returncode == 2 and ("secrets.tdb" in res.stderr or
                                             "passdb.tdb" in res.stderr),
                    "exit %d %s %s" % (res.returncode, res.stdout, res.stderr[-500:]))
            after = sorted(os.path.join(dp, x) for d in dirs for dp, dns, fns in os.walk(d)
                           for x in dns + fns)
            r.check("unset config, %s: nothing created in the private, state, lock and "
                    "cache directories" % mode, after == before,
                    "created %r" % sorted(set(after) - set(before)))
        self.expect_unchanged("unset config: the tree is unchanged", f, before_f)

    def c_setid(self):
        """F9: a set-uid/set-gid file whose migration fails after the chown
        (no richacl support: setting system.richacl fails) keeps its owner and
        its mode bits exactly; a failed file's notes are not reported."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("setid")
        f = os.path.join(t, "prog")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                       e.ace(A, FILE_ALL, e.sids["bin"])],
                                      owner=e.sids["bin"]), 1),
                 owner=1, group=1, mode=0o6755)
        before = e.snapshot(f)
        res = e.tool(t, shim=False)
        r.check("set-id: exit 1 and an error line for the file",
                res.returncode == 1 and len(e.lines(res.stdout, "error", "prog")) == 1,
                "exit %d %s" % (res.returncode, res.stdout))
        after = e.snapshot(f)
        r.check("set-id: owner uid 1, mode 06755 and the NTACL exactly as before",
                after == before and (after[0] & 0o7777) == 0o6755 and after[1] == 1,
                "before (mode %o uid %d), after (mode %o uid %d); %r -> %r" %
                (before[0] & 0o7777, before[1], after[0] & 0o7777, after[1], before, after))
        r.check("set-id: no chown line for the file that failed",
                e.lines(res.stdout, "chown", "prog") == [], res.stdout)

    def c_journal_symlink(self):
        """F12: --resume PATH where PATH is a dangling symlink: a setup error,
        and the symlink's target is not created."""
        e, r = self.e, self.r
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        t = self.tree("journallink")
        f = os.path.join(t, "f")
        e.mkfile(f, e.ntacl(e.sd_aces([e.ace(A, READ_EXEC, "S-1-1-0"),
                                       e.ace(A, MODIFY, e.sids["bin"])]), 1))
        before = e.snapshot(f)
        target = os.path.join(self.tmp, "journallink-created-by-root")
        link = os.path.join(self.tmp, "journallink.journal")
        os.symlink(target, link)
        res = e.tool(t, "--resume", link)
        r.check("journal symlink: a dangling symlink as --resume STATEFILE -> exit 2",
                res.returncode == 2, "exit %d %s %s" % (res.returncode, res.stdout,
                                                        res.stderr[-500:]))
        r.check("journal symlink: the symlink's target is not created",
                not os.path.lexists(target), "%s exists" % target)
        self.expect_unchanged("journal symlink: the tree is unchanged", f, before)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--only", nargs="*", help="run only these checks (c_NAME without c_)")
    args = ap.parse_args()
    r = Report()
    if os.geteuid() != 0:
        r.check("setup: running as root", False, "security.NTACL needs CAP_SYS_ADMIN")
        print("%d passed, %d failed" % (r.passed, r.failed))
        return 1
    missing = [p for p in (HELPER, GETRICHACL, SHIM, TOOL) if not os.path.exists(p)]
    if not r.check("setup: the build exists", not missing,
                   "missing %r (run bash testenv/build.sh)" % missing):
        print("%d passed, %d failed" % (r.passed, r.failed))
        return 1
    tmp = tempfile.mkdtemp(prefix="richacl-migrate-test.", dir="/tmp")
    os.chmod(tmp, 0o755)
    try:
        env = Env(tmp)
        r.check("setup: private passdb with users daemon, bin and group mappings",
                "daemon" in env.sids and "bin" in env.sids, "%r" % env.sids)
        checks = Checks(env, r, tmp)
        names = [n for n in dir(checks) if n.startswith("c_")]
        order = ["c_helper", "c_versions", "c_identities", "c_winbind", "c_dry_run",
                 "c_normalised",
                 "c_keep_ntacl", "c_mode_equivalent", "c_errors", "c_dry_run_failures",
                 "c_io_faults", "c_helper_failures", "c_refuse_unmapped",
                 "c_set_fails", "c_setup_errors", "c_statefile_inside", "c_resume_stop",
                 "c_resume_crash", "c_sigint",
                 # regression checks of the review findings
                 "c_race", "c_generic", "c_hash_none", "c_stale_journal", "c_names",
                 "c_unset_config", "c_setid", "c_journal_symlink", "c_posix_stale",
                 "c_posix_stale_above", "c_guide_loop"]
        names = order + [n for n in names if n not in order]
        for n in names:
            if args.only and n[2:] not in args.only:
                continue
            try:
                getattr(checks, n)()
            except Exception:
                r.check("%s ran" % n[2:], False, traceback.format_exc().replace("\n", " | "))
    except Exception:
        r.check("setup", False, traceback.format_exc().replace("\n", " | "))
    finally:
        if args.keep:
            print("# kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (r.passed, r.failed))
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
