#!/usr/bin/python3
"""In-guest test of tools/richacl-migrate-ntacl (run by guest-migrate.sh).

Runs as root in the QEMU guest against the smbd of testenv/smb/server.sh
([aclxattr] = /mnt/plain/aclxattr with vfs_acl_xattr, [richacl] =
/mnt/rich/share with vfs_richacl):

 1. builds a tree of --entries files and directories (default about 1,000)
    over SMB on [aclxattr] as alice, bob and carol, with varied ACLs: the
    owner's patterns on directories (inheritance, protection, deny, NP,
    CREATOR OWNER / GROUP, generic rights, unix and well-known SIDs),
    explicit DACLs on some files (deny, write-only, DELETE only, an
    unmapped SID, BUILTIN\\Users, an empty DACL, a NULL DACL); then, as
    root, rewrites a few NTACLs with a SACL and with object ACEs (smbd's
    access check ignores an allowed-object ACE and applies a denied-object
    ACE as a deny);
 2. records, for every user and every entry, the access smbd grants: each of
    the 14 access bits is asked for with its own SMB2 CREATE (FILE_OPEN), so
    the result is what the server really grants (smbd and then the kernel);
    on a sample (--mxac-sample, 0 = all) also the MxAc that smbcacls -x
    reports (python3-samba 4.17's libsmb cannot send the MxAc create context,
    and one smbcacls process per user and file is too slow for all);
 3. copies the tree with its xattrs to the richacl file system
    (rsync -aX: security.NTACL comes along, POSIX ACLs do not), runs the
    tool's dry run (report: OUT/dry-run.txt) and then the tool (timed);
 4. asks the same through [richacl] and compares, entry by entry, up to the
    documented normalisations (tools/README-migrate.md):
      - null-dacl: everyone@ full control, so every bit is granted after;
        smbd's MxAc of a NULL DACL is not compared;
      - unmapped-sid, sacl, object-ace, generic-rights, group-differs:
        nothing any test user is granted changes, so these are compared
        exactly like the rest;
 5. times the admin guide's loop (samba-tool ntacl get on [aclxattr], set on
    [richacl] without the group SID, per file) on a subset (--loop-subset) and checks that it
    stores the same acls as the tool.

Output: "ok ..." / "FAIL ..." lines, then "N passed, N failed".  Setting up
samba-tool may store the machine SID as the domain SID of the test server
(net setdomainsid, as docs/admin-guide.md 4.1 says).

usage: guest_migrate.py --state DIR [--tools DIR] [--out DIR] [--entries N]
                        [--mxac-sample N] [--loop-subset N] [--keep]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

from samba import NTSTATUSError
from samba.dcerpc import security, xattr
from samba.ndr import ndr_pack, ndr_unpack
from samba.samba3 import param as s3param

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.realpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "testenv", "tests", "smb"))
import run as smbrun  # noqa: E402  (the S-* suite's helpers)

TOOL = os.path.join(REPO, "tools", "richacl-migrate-ntacl")
TREE = "migtree"
LOOP = "migloop"
USERS = ("alice", "bob", "carol")
UIDS = {"alice": 1001, "bob": 1002, "carol": 1003}
STAFF_SID = "S-1-22-2-2000"
AUTH_USERS = "S-1-5-11"
BUILTIN_USERS = "S-1-5-32-545"
UNMAPPED = "S-1-5-21-1-2-3-4"
GUID = "bf967aba-0de6-11d0-a285-00aa003049e2"

BITS = [0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x100,
        0x10000, 0x20000, 0x40000, 0x80000, 0x100000]
ALL_BITS = sum(BITS)
BIT_NAMES = {0x1: "READ_DATA", 0x2: "WRITE_DATA", 0x4: "APPEND_DATA", 0x8: "READ_EA",
             0x10: "WRITE_EA", 0x20: "EXECUTE", 0x40: "DELETE_CHILD", 0x80: "READ_ATTR",
             0x100: "WRITE_ATTR", 0x10000: "DELETE", 0x20000: "READ_CONTROL",
             0x40000: "WRITE_DAC", 0x80000: "WRITE_OWNER", 0x100000: "SYNCHRONIZE"}

# directory patterns: (SDDL DACL with {owner}, {alice}, {bob}, {carol}, description)
DIR_PATTERNS = [
    ("D:(A;OICI;0x1f01ff;;;{owner})(A;OICIIO;GA;;;CO)(A;OICI;0x1200a9;;;WD)",
     "owner full, CREATOR OWNER, Everyone read"),
    ("D:P(A;OICI;0x1f01ff;;;{alice})(A;OICI;0x1301bf;;;{bob})(A;OICI;0x1200a9;;;{carol})"
     "(A;OICI;0x1f01ff;;;{owner})", "protected: alice full, bob modify, carol read"),
    ("D:(D;OICI;0x116;;;{bob})(A;OICI;0x1f01ff;;;{owner})(A;OICI;0x1301bf;;;" + STAFF_SID +
     ")(A;OICI;0x1200a9;;;" + AUTH_USERS + ")", "deny bob write, staff modify, Auth Users read"),
    ("D:(A;OICI;0x1f01ff;;;{owner})(A;CI;0x1200a9;;;" + BUILTIN_USERS + ")(A;OI;0x120089;;;"
     + BUILTIN_USERS + ")", "BUILTIN\\Users: list dirs (CI), read files (OI)"),
    ("D:(A;OICINP;0x1f01ff;;;{alice})(A;OICI;0x1f01ff;;;{owner})(A;OICI;0x1200a9;;;WD)",
     "alice full, no propagate"),
    ("D:(A;OICI;0x1f01ff;;;S-1-22-1-1002)(D;OICI;0x10000;;;{carol})(A;OICI;0x1f01ff;;;{owner})"
     "(A;OICI;0x1200a9;;;WD)", "bob by unix SID, deny carol DELETE"),
    ("D:(A;OICIIO;GA;;;CO)(A;OICIIO;GR;;;CG)(A;OICI;0x1f01ff;;;{owner})(A;OICI;0x1200a9;;;"
     + STAFF_SID + ")", "CREATOR OWNER/GROUP, staff read"),
    ("D:(A;OICIIO;GRGX;;;WD)(A;OICI;0x1f01ff;;;{owner})(A;CI;0x100020;;;WD)",
     "generic rights inherit-only, Everyone traverse"),
]

# explicit file DACLs
FILE_PATTERNS = [
    "D:(A;;0x1f01ff;;;{owner})(A;;0x120089;;;{alice})",
    "D:P(D;;0x2;;;{carol})(A;;0x1301bf;;;{bob})(A;;0x1200a9;;;" + STAFF_SID + ")"
    "(A;;0x1f01ff;;;{owner})",
    "D:(A;;0x120116;;;WD)(A;;0x1f01ff;;;{owner})",
    "D:(A;;0x1301bf;;;" + AUTH_USERS + ")",
    "D:(A;;0x120089;;;" + UNMAPPED + ")(A;;0x120089;;;WD)(A;;0x1f01ff;;;{owner})",
    "D:(A;;0x1f01ff;;;S-1-22-1-1003)(A;;0x120089;;;" + BUILTIN_USERS + ")",
    "D:(A;;0x10000;;;{alice})(A;;0x1200a9;;;{owner})",
    "D:(A;;0x100;;;{bob})(A;;0x120089;;;{bob})(A;;0x1f01ff;;;{owner})",
    "D:P",
    "NULL",
]

# dry-run kinds that allow a difference (and what it must be)
RELAXED = {"null-dacl", "posix-stale", "posix-coarse", "posix-stale-above"}
# acl_xattr's POSIX layer refused more than the NT ACL: gains allowed, no loss
POSIX_NARROWED = {"posix-stale", "posix-coarse", "posix-stale-above"}


# a SID in SDDL (docs/admin-guide.md 4.3's nogroup())
SDDL_SID = r"S-[0-9]+-(0x[0-9A-Fa-f]+|[0-9]+)(-[0-9]+)*"


def w(rel):
    return rel.replace("/", "\\")


def mask_str(m):
    return "0x%06x" % m


def diff_str(before, after):
    lost = [BIT_NAMES[b] for b in BITS if before & b and not after & b]
    won = [BIT_NAMES[b] for b in BITS if after & b and not before & b]
    return "lost %s, gained %s" % (",".join(lost) or "-", ",".join(won) or "-")


class Test:
    def __init__(self, args):
        self.args = args
        self.r = smbrun.Report()
        self.out = args.out
        os.makedirs(self.out, exist_ok=True)
        self.conf = os.path.join(args.state, "smb.conf")
        lp = s3param.get_context()
        lp.load(self.conf)
        self.plain_root = lp.get("path", "aclxattr")
        self.rich_root = lp.get("path", "richacl")
        self.src = os.path.join(self.plain_root, TREE)
        self.dst = os.path.join(self.rich_root, TREE)
        self.loop_dir = os.path.join(self.rich_root, LOOP)
        ns = argparse.Namespace
        self.plain = smbrun.Suite(ns(state=args.state, path=self.plain_root, share="aclxattr",
                                     tools=args.tools))
        self.rich = smbrun.Suite(ns(state=args.state, path=self.rich_root, share="richacl",
                                    tools=args.tools))
        self.plain.r = self.r
        self.rich.r = self.r
        self.sids = self.plain.sids
        self.domsid = security.dom_sid(self.sids["alice"].rsplit("-", 1)[0])
        self.entries = []          # (rel, isdir, owner)
        self.null_dacl = set()

    def check(self, tid, desc, cond, details=""):
        return self.r.check(tid, desc, cond, details)

    # ---------------------------------------------------------------- build

    def sddl(self, pattern, owner):
        return pattern.format(owner=self.sids[owner], alice=self.sids["alice"],
                              bob=self.sids["bob"], carol=self.sids["carol"])

    def set_dacl(self, suite, user, rel, text):
        if text == "NULL":
            sd = security.descriptor()
            sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
        else:
            sd = security.descriptor.from_sddl(text, self.domsid)
        st, fnum = suite.smb_open(user, rel, smbrun.READ_CONTROL | smbrun.WRITE_DAC)
        if st != smbrun.OK:
            return st
        st = suite.smb(suite.conn(user).set_sd, fnum, sd, security.SECINFO_DACL)[0]
        suite.smb_close(user, fnum)
        return st

    def build(self):
        """The tree on [aclxattr]; returns False if it could not be built."""
        for p in (self.src, self.dst, self.loop_dir):
            if os.path.lexists(p):
                shutil.rmtree(p)
        os.mkdir(self.src, 0o755)
        os.chown(self.src, UIDS["alice"], UIDS["alice"])
        p = self.plain
        errors = []
        st = self.set_dacl(p, "alice", TREE,
                           self.sddl("D:P(A;OICI;0x1f01ff;;;{alice})(A;;0x1200ad;;;WD)",
                                     "alice"))
        if st != smbrun.OK:
            errors.append("root DACL: %s" % st)
        self.entries.append((TREE, True, "alice"))
        # entries per top directory: 1 + subdirs * (1 + files) + top files
        subdirs, top_files = 4, 5
        ntop = len(DIR_PATTERNS)
        per_top = -(-(self.args.entries - 1) // ntop)          # ceil
        per_sub = max(1, -(-(per_top - 1 - top_files) // subdirs) - 1)
        k = 0
        for i, (pattern, _) in enumerate(DIR_PATTERNS):
            owner = USERS[i % 3]
            top = "%s/d%d" % (TREE, i)
            st = p.smb_mkdir(owner, top)
            if st != smbrun.OK:
                errors.append("mkdir %s as %s: %s" % (top, owner, st))
                continue
            st = self.set_dacl(p, owner, top, self.sddl(pattern, owner))
            if st != smbrun.OK:
                errors.append("DACL of %s: %s" % (top, st))
            self.entries.append((top, True, owner))
            dirs = [top]
            for s in range(subdirs):
                sub = "%s/s%d" % (top, s)
                if p.smb_mkdir(owner, sub) == smbrun.OK:
                    self.entries.append((sub, True, owner))
                    dirs.append(sub)
                else:
                    errors.append("mkdir %s" % sub)
            for d in dirs:
                nfiles = top_files if d == top else per_sub
                for j in range(nfiles):
                    # in bob's protected directory (alice full) alice creates
                    # every other file: owners vary inside one directory
                    creator = "alice" if (i == 1 and j % 2) else owner
                    rel = "%s/f%03d" % (d, j)
                    st = p.smb_create_file(creator, rel, b"content %d\n" % j)
                    if st != smbrun.OK:
                        errors.append("create %s as %s: %s" % (rel, creator, st))
                        continue
                    self.entries.append((rel, False, creator))
                    if j % 7 == 3:
                        fp = FILE_PATTERNS[k % len(FILE_PATTERNS)]
                        k += 1
                        st = self.set_dacl(p, creator, rel, self.sddl(fp, creator)
                                           if fp != "NULL" else fp)
                        if st != smbrun.OK:
                            errors.append("DACL %r on %s: %s" % (fp, rel, st))
                        elif fp == "NULL":
                            self.null_dacl.add(rel)
        self.check("build", "%d entries created over SMB on [aclxattr] with %d directory and "
                   "%d file ACL patterns" % (len(self.entries), len(DIR_PATTERNS), k),
                   not errors and len(self.entries) >= min(self.args.entries, 1000),
                   "; ".join(errors[:10]))
        self.craft()
        return len(self.entries) > 0

    def craft(self):
        """As root: a SACL on some NTACLs, object ACEs on others (version 1)."""
        files = [rel for rel, isdir, _ in self.entries if not isdir and rel not in self.null_dacl]
        sacl, objs = files[5:8], files[11:16]
        done = 0
        for i, rel in enumerate(sacl + objs):
            path = os.path.join(self.plain_root, rel)
            try:
                nt = ndr_unpack(xattr.NTACL, os.getxattr(path, "security.NTACL"))
            except OSError as e:
                self.check("build", "NTACL of %s readable" % rel, False, str(e))
                continue
            sd = nt.info if nt.version == 1 else nt.info.sd
            if rel in sacl:
                a = security.ace()
                a.type = security.SEC_ACE_TYPE_SYSTEM_AUDIT
                a.flags = security.SEC_ACE_FLAG_SUCCESSFUL_ACCESS
                a.access_mask = 0x1f01ff
                a.trustee = security.dom_sid("S-1-1-0")
                sd.sacl_add(a)
                sd.type |= security.SEC_DESC_SACL_PRESENT
            else:
                extra = security.descriptor.from_sddl(
                    "D:(OA;;0x1f01ff;%s;;WD)(OD;;0x2;%s;;%s)" %
                    (GUID, GUID, self.sids["carol"]), self.domsid)
                old = list(sd.dacl.aces) if sd.dacl else []
                sd.dacl = None
                for a in list(extra.dacl.aces) + old:
                    sd.dacl_add(a)
            n = xattr.NTACL()
            n.version = 1
            n.info = sd
            os.setxattr(path, "security.NTACL", ndr_pack(n))
            done += 1
        self.check("build", "%d NTACLs rewritten as version 1 with a SACL (%d) or object "
                   "ACEs (%d)" % (done, len(sacl), len(objs)), done == len(sacl) + len(objs))

    # ---------------------------------------------------------------- access

    def probe(self, suite, user, rel):
        """The access bits the server grants user on rel, or an error string."""
        conn = suite.conn(user)
        name = w(rel)

        def opens(mask):
            try:
                f = conn.create(name, DesiredAccess=mask, ShareAccess=smbrun.SHARE_ALL,
                                CreateDisposition=smbrun.FILE_OPEN, CreateOptions=0)
            except NTSTATUSError as e:
                return suite.status_of(e)
            conn.close(f)
            return smbrun.OK

        if opens(ALL_BITS) == smbrun.OK:
            return ALL_BITS
        granted = 0
        for b in BITS:
            st = opens(b)
            if st == smbrun.OK:
                granted |= b
            elif st not in (smbrun.DENIED, "NT_STATUS_PRIVILEGE_NOT_HELD"):
                return st
        return granted

    def mxac(self, suite, user, rel):
        st, out = suite.smbcacls(user, rel, "-x")
        m = re.search(r"Maximum access: 0x([0-9a-fA-F]+)", out)
        return int(m.group(1), 16) if m else "smbcacls: %s" % st

    def record(self, suite, rels):
        res = {}
        for rel in rels:
            for u in USERS:
                res[(u, rel)] = self.probe(suite, u, rel)
        return res

    def record_mxac(self, suite, rels):
        return {(u, rel): self.mxac(suite, u, rel) for rel in rels for u in USERS}

    # ---------------------------------------------------------------- migration

    def copy(self):
        t = time.monotonic()
        if shutil.which("rsync"):
            res = subprocess.run(["rsync", "-aX", "--numeric-ids", self.src + "/",
                                  self.dst + "/"], capture_output=True, text=True)
            ok, details = res.returncode == 0, res.stderr.strip()[-500:]
        else:
            ok, details = self.py_copy(self.src, self.dst), "python copy"
        missing = []
        for rel, _, _ in self.entries:
            try:
                os.getxattr(os.path.join(self.rich_root, rel), "security.NTACL")
            except OSError:
                missing.append(rel)
        self.check("copy", "rsync -aX copies the tree and every security.NTACL to the richacl "
                   "file system (%.1f s)" % (time.monotonic() - t), ok and not missing,
                   "%s; without NTACL: %r" % (details, missing[:5]))

    @staticmethod
    def py_copy(src, dst):
        for dp, dns, fns in os.walk(src):
            rel = os.path.relpath(dp, src)
            target = os.path.normpath(os.path.join(dst, rel))
            if not os.path.isdir(target):
                os.mkdir(target)
            for n in fns:
                shutil.copyfile(os.path.join(dp, n), os.path.join(target, n))
            for p, q in [(dp, target)] + [(os.path.join(dp, n), os.path.join(target, n))
                                          for n in fns]:
                st = os.lstat(p)
                os.chown(q, st.st_uid, st.st_gid)
                os.chmod(q, st.st_mode & 0o7777)
                for x in os.listxattr(p):
                    if not x.startswith("system."):
                        os.setxattr(q, x, os.getxattr(p, x))
        return True

    def tool(self, *opts):
        argv = ["/usr/bin/python3", self.args.tool, "--smb-conf", self.conf, "--progress", "5"]
        helper = self.args.helper
        if os.access(helper, os.X_OK):
            argv += ["--helper", helper]
        t = time.monotonic()
        res = subprocess.run(argv + list(opts) + [self.dst], capture_output=True, text=True)
        return res, time.monotonic() - t

    def dry_run(self):
        res, _ = self.tool("--dry-run")
        path = os.path.join(self.out, "dry-run.txt")
        with open(path, "w") as f:
            f.write(res.stdout)
        kinds = {}
        files = {}
        for line in res.stdout.splitlines():
            m = re.match(r"([a-z-]+): (.*?): ", line)
            if m and m.group(1) != "summary":
                kinds.setdefault(m.group(1), set()).add(m.group(2))
                files.setdefault(os.path.join(TREE, m.group(2)) if m.group(2) != "."
                                 else TREE, set()).add(m.group(1))
        self.kinds_by_file = files
        summary = [ln for ln in res.stdout.splitlines() if ln.startswith("summary:")]
        self.check("dry-run", "dry run exit 0, report in %s (%s)" %
                   (path, "; ".join("%s %d" % (k, len(v)) for k, v in sorted(kinds.items()))),
                   res.returncode == 0 and "DRY RUN" in res.stdout,
                   "exit %d: %s %s" % (res.returncode, res.stdout[-500:], res.stderr[-500:]))
        self.check("dry-run", "reports the SACLs (3 files)", len(kinds.get("sacl", ())) == 3,
                   "%r" % sorted(kinds.get("sacl", ())))
        self.check("dry-run", "reports the object ACEs (5 files)",
                   len(kinds.get("object-ace", ())) == 5, "%r" % sorted(kinds.get("object-ace", ())))
        try:
            with open(os.path.join(self.args.state, "identity")) as f:
                identity = f.read().strip()
        except OSError:
            identity = "passdb"
        if identity == "passdb":
            self.check("dry-run", "reports the unmapped SID %s" % UNMAPPED,
                       UNMAPPED in res.stdout, "")
        else:
            print("# identity %s: winbindd gives %s an id, it is not unmapped" %
                  (identity, UNMAPPED))
        self.check("dry-run", "no file fails, none lacks an NTACL",
                   not kinds.get("error") and not kinds.get("no-ntacl"),
                   "%r %r" % (kinds.get("error"), kinds.get("no-ntacl")))
        for ln in summary:
            print("# " + ln)

    def source_dacl(self, rel):
        """The DACL of rel's security.NTACL on [aclxattr] (None if none)."""
        nt = ndr_unpack(xattr.NTACL, os.getxattr(os.path.join(self.plain_root, rel),
                                                 "security.NTACL"))
        sd = nt.info if nt.version == 1 else nt.info.sd
        return None if sd is None else sd.dacl

    @staticmethod
    def unmappable_order(dacl, isdir):
        """True if the DACL has a deny ACE after an allow ACE among the ACEs
        that apply to the entry or, on a directory, among the inheritable
        ones: Samba's NT -> POSIX mapping refuses that order
        (posix_acls.c create_canon_ace_lists()) and keeps the old POSIX ACL.
        Worked out here from the source's NTACL, not from the tool."""
        inh = security.SEC_ACE_FLAG_OBJECT_INHERIT | security.SEC_ACE_FLAG_CONTAINER_INHERIT
        for applies in (lambda f: not f & security.SEC_ACE_FLAG_INHERIT_ONLY,
                        lambda f: isdir and f & inh):
            seen_allow = False
            for ace in dacl.aces:
                if not applies(ace.flags):
                    continue
                if ace.type == security.SEC_ACE_TYPE_ACCESS_ALLOWED:
                    seen_allow = True
                elif ace.type == security.SEC_ACE_TYPE_ACCESS_DENIED and seen_allow:
                    return True
        return False

    @staticmethod
    def partial_deny(dacl, isdir):
        """True if a deny ACE (that applies, or is inheritable on a
        directory) denies part of READ_DATA|READ_EA or of
        WRITE_DATA|APPEND_DATA|WRITE_EA, which Samba's POSIX mapping turns
        into a whole r or w (posix_acls.c map_nt_perms())."""
        for ace in dacl.aces:
            if ace.type != security.SEC_ACE_TYPE_ACCESS_DENIED or \
                    (ace.flags & security.SEC_ACE_FLAG_INHERIT_ONLY and not isdir):
                continue
            for cls in (0x9, 0x16):
                if ace.access_mask & cls and ace.access_mask & cls != cls:
                    return True
        return False

    def check_posix_stale(self):
        """The entries whose comparison allows gains (posix-stale,
        posix-coarse) must be exactly those that the source NTACLs call for."""
        stale, coarse, above = set(), set(), set()
        for rel, isdir, _ in self.entries:
            dacl = self.source_dacl(rel)
            if dacl is None:
                continue
            if self.unmappable_order(dacl, isdir):
                stale.add(rel)
            elif self.partial_deny(dacl, isdir):
                coarse.add(rel)
        # below a stale directory the kernel's search permission check used
        # its older POSIX ACL (the tree's root, TREE, is the tool's ".")
        for rel, _, _ in self.entries:
            parts = rel.split("/")
            if any("/".join(parts[:i]) in stale for i in range(1, len(parts))):
                above.add(rel)
        for kind, want in (("posix-stale", stale), ("posix-coarse", coarse),
                           ("posix-stale-above", above)):
            got = set(rel for rel, kinds in self.kinds_by_file.items() if kind in kinds)
            self.check("dry-run", "%s reported for exactly the %d entries the source NTACLs "
                       "call for" % (kind, len(want)), want == got,
                       "missing %r, extra %r" % (sorted(want - got)[:5],
                                                 sorted(got - want)[:5]))

    def migrate(self):
        journal = os.path.join(self.out, "migrate.journal")
        if os.path.exists(journal):
            os.unlink(journal)      # of an earlier tree at the same path
        res, el = self.tool("--resume", journal)
        with open(os.path.join(self.out, "migrate-report.txt"), "w") as f:
            f.write(res.stdout + res.stderr)
        m = re.search(r"summary: time ([0-9.]+) s, ([0-9.]+) entries/s", res.stdout)
        self.tool_rate = float(m.group(2)) if m else len(self.entries) / el
        self.check("migrate", "the tool migrates the tree: exit 0, %d entries in %.1f s "
                   "(%.0f entries/s by its summary)" % (len(self.entries), el, self.tool_rate),
                   res.returncode == 0, "exit %d: %s %s" % (res.returncode, res.stdout[-800:],
                                                            res.stderr[-300:]))
        left = [rel for rel, _, _ in self.entries
                if "security.NTACL" in os.listxattr(os.path.join(self.rich_root, rel))]
        self.check("migrate", "no security.NTACL left", not left, "%r" % left[:5])

    # ---------------------------------------------------------------- compare

    def compare(self, before, after):
        for rel, isdir, _ in self.entries:
            kinds = self.kinds_by_file.get(rel, set())
            bad = []
            for u in USERS:
                b, a = before[(u, rel)], after[(u, rel)]
                if isinstance(b, str) or isinstance(a, str):
                    bad.append("%s: %s / %s" % (u, b, a))
                elif "null-dacl" in kinds:
                    if a != ALL_BITS:
                        bad.append("%s: NULL DACL should grant all, got %s" % (u, mask_str(a)))
                elif kinds & POSIX_NARROWED:
                    # acl_xattr could not map this ACL to POSIX and the kernel
                    # kept an older POSIX ACL: the migration may grant more
                    # (what the NT ACL says), never less
                    if b & ~a:
                        bad.append("%s: %s -> %s (%s; posix-stale allows gains only)" %
                                   (u, mask_str(b), mask_str(a), diff_str(b, a)))
                elif a != b:
                    bad.append("%s: %s -> %s (%s)" % (u, mask_str(b), mask_str(a),
                                                      diff_str(b, a)))
            note = " (documented: %s)" % ", ".join(sorted(kinds & RELAXED)) \
                if kinds & RELAXED else ""
            self.check("access", "%s: alice, bob, carol granted the same on [richacl]%s" %
                       (rel, note), not bad, "; ".join(bad))

    def compare_mxac(self, before, after, rels):
        for rel in rels:
            kinds = self.kinds_by_file.get(rel, set())
            if "null-dacl" in kinds:
                continue
            # posix-stale: smbd could not open the file as a user whom the
            # stale POSIX ACL refused; afterwards the NT ACL decides
            bad = ["%s: %s -> %s" % (u, before[(u, rel)], after[(u, rel)]) for u in USERS
                   if before[(u, rel)] != after[(u, rel)] and
                   not (kinds & POSIX_NARROWED and isinstance(before[(u, rel)], str))]
            self.check("mxac", "%s: smbcacls -x maximum access the same for alice, bob, carol"
                       % rel, not bad, "; ".join(str(x) for x in bad))

    # ---------------------------------------------------------------- the admin-guide loop

    def samba_tool(self, *args, cwd):
        return subprocess.run(["samba-tool", "ntacl"] + list(args) +
                              ["--use-s3fs", "--configfile=" + self.conf],
                              capture_output=True, text=True, cwd=cwd)

    def loop(self, n):
        files = [rel for rel, isdir, _ in self.entries if not isdir][::7][:n]
        if not files:
            return
        # samba-tool ntacl needs a domain SID (docs/admin-guide.md 4.1)
        if subprocess.run(["net", "-s", self.conf, "getdomainsid"],
                          capture_output=True).returncode != 0:
            sid = subprocess.run(["net", "-s", self.conf, "getlocalsid"], capture_output=True,
                                 text=True).stdout.split()[-1]
            subprocess.run(["net", "-s", self.conf, "setdomainsid", sid], capture_output=True)
            print("# samba-tool: stored the machine SID %s as the domain SID" % sid)
        # the subset without NTACL on the richacl side
        for rel in files:
            src = os.path.join(self.plain_root, rel)
            dst = os.path.join(self.rich_root, LOOP, os.path.relpath(rel, TREE))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            st = os.lstat(src)
            os.chown(dst, st.st_uid, st.st_gid)
            os.chmod(dst, st.st_mode & 0o7777)
        # what vfs_richacl refuses from a client and the tool normalises
        # (object ACEs, a NULL DACL that SDDL cannot even carry back)
        refused_kinds = {"object-ace", "ace-type", "audit-flags", "mask-bits", "null-dacl"}
        expected = set(rel for rel in files
                       if self.kinds_by_file.get(rel, set()) & refused_kinds)
        t = time.monotonic()
        failed = []
        for rel in files:
            g = self.samba_tool("get", "--as-sddl", "--service=aclxattr", rel,
                                cwd=self.plain_root)
            target = os.path.join(LOOP, os.path.relpath(rel, TREE))
            if g.returncode != 0:
                failed.append("get %s: %s" % (rel, g.stderr.strip()[-200:]))
                continue
            # the guide leaves the group out (G:DU maps to no gid here)
            sddl = re.sub(r"^(O:(%s|[A-Z]{2}))?G:(%s|[A-Z]{2})" % (SDDL_SID, SDDL_SID), r"\1",
                          g.stdout.strip())
            s = self.samba_tool("set", "--service=richacl", sddl, target,
                                cwd=self.rich_root)
            if s.returncode != 0 and rel in expected:
                print("# loop: %s refused, as expected (%s): %s" %
                      (rel, ", ".join(sorted(self.kinds_by_file[rel] & refused_kinds)),
                       s.stderr.strip()[-120:]))
            elif s.returncode != 0:
                err = [ln for ln in s.stderr.splitlines() if ln.strip()]
                failed.append("set %s: %s" % (target, " | ".join(err[-2:])[-300:]))
        el = time.monotonic() - t
        rate = len(files) / el if el > 0 else 0.0
        self.check("timing", "admin-guide loop (samba-tool ntacl get + set per file): %d files "
                   "in %.1f s, %.2f files/s; the tool: %.0f entries/s (%.0fx)" %
                   (len(files), el, rate, self.tool_rate,
                    self.tool_rate / rate if rate else 0.0), not failed, "; ".join(failed[:3]))
        with open(os.path.join(self.out, "timing.txt"), "w") as f:
            f.write("tool %.1f entries/s\nloop %.2f files/s (%d files)\n" %
                    (self.tool_rate, rate, len(files)))
        # both ways must store the same acl
        for rel in files:
            if rel in expected:
                continue
            a = os.path.join(self.rich_root, rel)
            b = os.path.join(self.rich_root, LOOP, os.path.relpath(rel, TREE))
            sa, sb = os.lstat(a), os.lstat(b)
            if (sa.st_uid, sa.st_gid) != (sb.st_uid, sb.st_gid):
                print("# %s: the loop changed owner/group to %d:%d (tool %d:%d); acls not "
                      "compared" % (rel, sb.st_uid, sb.st_gid, sa.st_uid, sa.st_gid))
                continue
            ta = self.rich.acltext(os.path.relpath(a, self.rich_root), "--raw", "--numeric-ids")
            tb = self.rich.acltext(os.path.relpath(b, self.rich_root), "--raw", "--numeric-ids")
            ta = ta.split("\n", 1)[-1]
            tb = tb.split("\n", 1)[-1]
            self.check("loop", "%s: the tool and the admin-guide loop store the same acl" % rel,
                       ta == tb, "tool:\n%s\nloop:\n%s" % (ta, tb))

    # ---------------------------------------------------------------- run

    def run(self):
        for root in (self.plain_root, self.rich_root):
            st = os.stat(root)
            if not self.check("setup", "share directory %s exists and others may traverse it" %
                              root, st.st_mode & 0o001, "mode %o" % (st.st_mode & 0o7777)):
                return
        if not self.build():
            return
        rels = [rel for rel, _, _ in self.entries]
        step = max(1, len(rels) // self.args.mxac_sample) if self.args.mxac_sample else 1
        sample = rels[::step]
        t = time.monotonic()
        before = self.record(self.plain, rels)
        print("# recorded the access of 3 users on %d entries on [aclxattr] in %.0f s" %
              (len(rels), time.monotonic() - t), flush=True)
        mx_before = self.record_mxac(self.plain, sample)
        self.copy()
        self.dry_run()
        self.check_posix_stale()
        self.migrate()
        t = time.monotonic()
        after = self.record(self.rich, rels)
        print("# recorded the access on [richacl] in %.0f s" % (time.monotonic() - t), flush=True)
        mx_after = self.record_mxac(self.rich, sample)
        self.compare(before, after)
        self.compare_mxac(mx_before, mx_after, sample)
        self.loop(self.args.loop_subset)
        if not self.args.keep:
            for p in (self.src, self.dst, self.loop_dir):
                shutil.rmtree(p, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", default="/run/richacl-smb", help="server.sh state directory")
    ap.add_argument("--tools", default=os.path.join(REPO, "build"))
    ap.add_argument("--tool", default=TOOL, help="the richacl-migrate-ntacl to test")
    ap.add_argument("--helper", default=None,
                    help="its richacl-ntsd2xattr (default: in --tools)")
    ap.add_argument("--out", default="/tmp/richacl-migrate")
    ap.add_argument("--entries", type=int, default=1000)
    ap.add_argument("--mxac-sample", type=int, default=60)
    ap.add_argument("--loop-subset", type=int, default=40)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if args.helper is None:
        args.helper = os.path.join(args.tools, "richacl-ntsd2xattr")
    if os.getuid() != 0:
        sys.exit("guest_migrate.py: must run as root (in the guest)")
    os.umask(0o022)
    t = None
    try:
        t = Test(args)
        t.run()
    except Exception:
        r = t.r if t is not None else smbrun.Report()
        r.fail("setup", "unexpected error", traceback.format_exc().replace("\n", " | "))
        t = t or argparse.Namespace(r=r)
    print("%d passed, %d failed" % (t.r.passed, t.r.failed), flush=True)
    return 1 if t.r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
