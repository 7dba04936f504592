#!/usr/bin/python3
"""S-K2: one ACL, one verdict (SEMANTICS.md S-K2, M14; docs/mapping.md).

Runs as root inside the QEMU guest after run.py, against the same smbd
(testenv/smb/server.sh started with --test-shares).  smbd must never grant
what the kernel refuses the same uid and groups.  The cases:

  S-K2-root   smbd's root-acting shortcuts (DOS attributes, times, take
              ownership with "dos filemode") on a file whose only grant to
              bob is an ACE for NETWORK (S-1-5-2): a SID in every SMB token
              that has no gid here, so smbd's own check honours it and the
              kernel cannot.  Refused over SMB, on [richacl] and on
              [richacldos] ("dos filemode = yes"), with nothing changed on
              disk, as the kernel refuses bob locally; and allowed where the
              kernel allows (an ACE for bob himself).
  S-K2-deny   a deny ACE for a SID without a unix id is refused
              (NT_STATUS_NONE_MAPPED), nothing changes; S-1-0-0 and mapped
              SIDs are fine.
  S-K2-policy "richacl:unmapped sids = refuse" ([richacldos]) refuses an
              allow ACE for an unknown domain SID; "keep" ([richacl]) stores
              it as an entry that matches nobody.
  S-K2-au     Authenticated Users (S-1-5-11) has a gid (server.sh): an ACE
              for it grants bob over SMB and locally with that gid, reads
              back as S-1-5-11.
  S-K2-msnfs  MS-NFS SIDs S-1-5-88-1-<uid> name the uid.
  S-K2-nosid  a local entry whose who is not a SID leaves the file usable
              over SMB and reads as S-1-0-0.
  S-K2-connect  tree connects that vfs_richacl refuses, each with a log line
              naming the cause: stacking with acl_xattr, richacl:require on a
              file system without richacl, a bad richacl: value.
  S-K2-log    the token SID without a gid (NETWORK) is named in the log.
  S-K2-size   an ACL too large for the file's xattr space is refused with a
              log line at level 1 (DBG_WARNING).

Output as run.py: "ok ..." / "FAIL ..." lines, then "N passed, N failed".

usage: verdict.py --state DIR --path DIR [--tools DIR] [--only ROW...]
"""

import argparse
import os
import sys
import time
import traceback

from samba.dcerpc import security

import run
from run import DENIED, FULL_DIR, FULL_FILE, OK, R_FILE, RX_DIR, SetupError

NETWORK = "S-1-5-2"
AUTH_USERS = "S-1-5-11"
NOBODY = "S-1-0-0"
UNKNOWN_DOMAIN_SID = "S-1-5-21-1111-2222-3333-4444"
AUTHUSERS_GID = 3011            # testenv/smb/server.sh
NONE_MAPPED = "NT_STATUS_NONE_MAPPED"
DOSATTRIB = "user.DOSATTRIB"

# The groups smbd gives bob's session: his unix groups (staff, and
# authusers, which server.sh adds to the local users too) - and the gid
# of every token SID that has one: only authusers here.
BOB_GROUPS = [run.STAFF, AUTHUSERS_GID]


class Verdict(run.Suite):
    ROWS = ["S-K2-root", "S-K2-deny", "S-K2-policy", "S-K2-au", "S-K2-msnfs",
            "S-K2-nosid", "S-K2-connect", "S-K2-log", "S-K2-size"]

    def __init__(self, args):
        super().__init__(args)
        self.share_conns = {}

    # ---- helpers

    def conn_on(self, user, share):
        if share == self.share:
            return self.conn(user)
        key = (user, share)
        if key not in self.share_conns:
            creds = run.credentials.Credentials()
            creds.guess(self.lp)
            creds.set_username(user)
            creds.set_password(self.passwords[user])
            self.share_conns[key] = run.libsmb.Conn("127.0.0.1", share, self.lp3, creds)
        return self.share_conns[key]

    def client_on(self, share, user, command):
        return self._tool(["smbclient", f"//127.0.0.1/{share}", "-s", self.conf,
                           "-U", f"{user}%{self.passwords[user]}", "-c", command])

    def cacls_on(self, share, user, rel, *args):
        return self._tool(["smbcacls", f"//127.0.0.1/{share}", self.w(rel),
                           "-s", self.conf, "-U", f"{user}%{self.passwords[user]}",
                           *args])

    def set_dacl_on(self, share, user, rel, aces):
        """Write a DACL of (type, sid, mask) ACEs over SMB; the NTSTATUS."""
        c = self.conn_on(user, share)
        st, fnum = self.smb(c.create, self.w(rel), DesiredAccess=run.READ_CONTROL | run.WRITE_DAC,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                            CreateOptions=0)
        if st != OK:
            return st
        try:
            sd = security.descriptor()
            sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
            sd.dacl = security.acl()
            sd.dacl.revision = security.SECURITY_ACL_REVISION_NT4
            for atype, sid, mask in aces:
                ace = security.ace()
                ace.type = atype
                ace.flags = 0
                ace.access_mask = mask
                ace.trustee = security.dom_sid(sid)
                sd.dacl_add(ace)
            return self.smb(c.set_sd, fnum, sd, security.SECINFO_DACL)[0]
        finally:
            self.smb(c.close, fnum)

    def get_dacl_sids(self, user, rel):
        st, sd = self.smb_get_sd(user, rel)
        if st != OK:
            return st, []
        return st, [(a.type, str(a.trustee), a.access_mask) for a in sd.dacl.aces]

    def xattr(self, rel, name):
        try:
            return os.getxattr(self.p(rel), name)
        except OSError as e:
            return f"<{os.strerror(e.errno)}>"

    def local_as(self, uid, gid, groups, fn):
        """Like run.Suite.local, with explicit ids."""
        saved = run.IDS.get("_k2")
        run.IDS["_k2"] = (uid, gid, groups)
        try:
            return self.local("_k2", fn)
        finally:
            if saved is None:
                del run.IDS["_k2"]

    def bob_local(self, fn):
        return self.local_as(1002, 1002, BOB_GROUPS, fn)

    def log_text(self):
        try:
            with open(os.path.join(self.state, "smbd.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def expect_log(self, row, desc, needle, timeout=5.0):
        end = time.time() + timeout
        while True:
            found = needle in self.log_text()
            if found or time.time() > end:
                break
            time.sleep(0.2)
        return self.r.check(row, f"log: {desc}", found, f"no line with {needle!r} in smbd.log")

    # ================================================================ rows

    def s_k2_root(self):
        """S-K2-root: the root-acting shortcuts get the kernel's verdict."""
        row = "S-K2-root"
        # f: bob's only grant is NETWORK: full control (an ACE the kernel
        # cannot match).  g: bob holds write_attributes and write_owner
        # himself, which the kernel honours.
        net_acl = (f"owner@:{FULL_FILE}::allow "
                   f"user:{NETWORK}:{FULL_FILE}:u:allow everyone@:{R_FILE}::allow")
        own_acl = (f"owner@:{FULL_FILE}::allow user:bob:Ao{R_FILE}::allow "
                   f"everyone@:{R_FILE}::allow")
        for share in ("richacl", "richacldos"):
            d = f"k2root-{share}"
            self.mkdir(d, f"everyone@:{RX_DIR}::allow")
            self.mkfile(f"{d}/f", acl=net_acl, owner=1001)
            self.mkfile(f"{d}/g", acl=own_acl, owner=1001)
            # a DOS attribute blob as smbd writes it, made by the owner
            st, _ = self.client_on(share, "alice", f"setmode {d}\\f +a")
            self.expect_smb(row, f"[{share}] alice (owner) sets f's DOS attributes", OK, st)
            dos_before = self.xattr(f"{d}/f", DOSATTRIB)
            mtime_before = os.stat(self.p(f"{d}/f")).st_mtime_ns

            st, _ = self.client_on(share, "bob", f"setmode {d}\\f +h")
            self.expect_smb(row, f"[{share}] bob sets f's DOS attributes through NETWORK",
                            DENIED, st)
            self.expect_state(row, f"[{share}] f's {DOSATTRIB} unchanged",
                              self.xattr(f"{d}/f", DOSATTRIB) == dos_before,
                              f"{self.xattr(f'{d}/f', DOSATTRIB)!r} != {dos_before!r}")
            st, _ = self.client_on(share, "bob",
                                   f"utimes {d}\\f -1 -1 2001:02:03-04:05:06 -1")
            self.expect_smb(row, f"[{share}] bob sets f's write time through NETWORK",
                            DENIED, st)
            self.expect_state(row, f"[{share}] f's mtime unchanged",
                              os.stat(self.p(f"{d}/f")).st_mtime_ns == mtime_before,
                              f"mtime {os.stat(self.p(f'{d}/f')).st_mtime_ns} != {mtime_before}")
            st, _ = self.cacls_on(share, "bob", f"{d}/f", "-C", self.sids["bob"])
            self.expect_smb_any(row, f"[{share}] bob takes ownership of f through NETWORK",
                                [DENIED, "NT_STATUS_INVALID_OWNER"], st)
            self.expect_state(row, f"[{share}] f still owned by alice",
                              self.owner(f"{d}/f") == 1001, f"owner {self.owner(f'{d}/f')}")

            # where the kernel grants bob, smbd's shortcuts still work
            st, _ = self.client_on(share, "bob", f"setmode {d}\\g +h")
            self.expect_smb(row, f"[{share}] bob (write_attributes) sets g's DOS attributes",
                            OK, st)
            st, _ = self.client_on(share, "bob",
                                   f"utimes {d}\\g -1 -1 2001:02:03-04:05:06 -1")
            self.expect_smb(row, f"[{share}] bob (write_attributes) sets g's write time", OK, st)
            st, _ = self.cacls_on(share, "bob", f"{d}/g", "-C", self.sids["bob"])
            self.expect_smb(row, f"[{share}] bob (write_owner) takes ownership of g", OK, st)
            self.expect_state(row, f"[{share}] g owned by bob", self.owner(f"{d}/g") == 1002,
                              f"owner {self.owner(f'{d}/g')}")

        # the kernel's verdict for bob with the groups of his SMB session
        self.mkdir("k2rootk", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2rootk/f", acl=net_acl, owner=1001)
        self.mkfile("k2rootk/g", acl=own_acl, owner=1001)
        f, g = self.p("k2rootk/f"), self.p("k2rootk/g")
        self.expect_local(row, "bob sets f's times", "DENIED",
                          self.bob_local(lambda: os.utime(f, (1, 1))))
        self.expect_local(row, "bob chowns f to himself", "DENIED",
                          self.bob_local(lambda: os.chown(f, 1002, -1)))
        self.expect_local(row, "bob sets f's times (g: write_attributes)", "OK",
                          self.bob_local(lambda: os.utime(g, (1, 1))))
        self.expect_local(row, "bob chowns g to himself (write_owner)", "OK",
                          self.bob_local(lambda: os.chown(g, 1002, -1)))

    def s_k2_deny(self):
        """S-K2-deny: a deny ACE for a SID without a unix id is refused."""
        row = "S-K2-deny"
        self.mkdir("k2deny", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2deny/f", acl=f"owner@:{FULL_FILE}::allow everyone@:{R_FILE}::allow",
                    owner=1001)
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        before = self.acltext("k2deny/f", "--raw")
        for sid, what in ((NETWORK, "NETWORK"), (UNKNOWN_DOMAIN_SID, "an unknown domain SID")):
            st = self.set_dacl_on("richacl", "alice", "k2deny/f",
                                  [(D, sid, run.WRITE_DATA), (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
            self.expect_smb(row, f"alice sets a deny ACE for {what}", NONE_MAPPED, st)
            self.expect_state(row, "k2deny/f's richacl unchanged",
                              self.acltext("k2deny/f", "--raw") == before,
                              self.acltext("k2deny/f").replace("\n", " | "))
        self.expect_log(row, "the refusal names the SID and says why",
                        f"deny entry for SID {NETWORK}, which maps to no unix id")
        st = self.set_dacl_on("richacl", "alice", "k2deny/f",
                              [(D, NOBODY, run.WRITE_DATA), (D, self.sids["bob"], run.WRITE_DATA),
                               (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                               (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
        self.expect_smb(row, "alice sets deny ACEs for S-1-0-0 and for bob", OK, st)
        _, entries = self.aclentries("k2deny/f")
        self.expect_state(row, "k2deny/f denies user:1002 write_data",
                          any(e[0] == "user:1002" and "w" in e[1] and e[3] == "deny"
                              for e in entries), f"entries {entries}")

    def s_k2_policy(self):
        """S-K2-policy: richacl:unmapped sids = keep | refuse."""
        row = "S-K2-policy"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        aces = [(A, self.sids["alice"], run.FILE_ALL_ACCESS),
                (A, UNKNOWN_DOMAIN_SID, run.FILE_GENERIC_READ)]
        self.mkdir("k2pol", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2pol/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
        before = self.acltext("k2pol/f", "--raw")
        st = self.set_dacl_on("richacldos", "alice", "k2pol/f", aces)
        self.expect_smb(row, "[richacldos] (refuse) alice allows an unknown domain SID",
                        NONE_MAPPED, st)
        self.expect_state(row, "k2pol/f's richacl unchanged",
                          self.acltext("k2pol/f", "--raw") == before,
                          self.acltext("k2pol/f").replace("\n", " | "))
        self.expect_log(row, "the refusal names the SID",
                        f"SID {UNKNOWN_DOMAIN_SID} maps to no unix id (unmapped SIDs are refused)")
        st = self.set_dacl_on("richacl", "alice", "k2pol/f", aces)
        self.expect_smb(row, "[richacl] (keep) alice allows an unknown domain SID", OK, st)
        _, entries = self.aclentries("k2pol/f")
        self.expect_state(row, "k2pol/f keeps an unmapped entry for the SID",
                          any(e[0] == f"user:{UNKNOWN_DOMAIN_SID}" and "u" in e[2]
                              for e in entries), f"entries {entries}")
        st, sids = self.get_dacl_sids("alice", "k2pol/f")
        self.expect_state(row, "the SID reads back unchanged over SMB",
                          st == OK and any(s == UNKNOWN_DOMAIN_SID for _, s, _ in sids),
                          f"{st} {sids}")

    def s_k2_au(self):
        """S-K2-au: Authenticated Users has a gid; smbd and the kernel honour it."""
        row = "S-K2-au"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.mkdir("k2au", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2au/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
        st, _ = self.smb_read("bob", "k2au/f")
        self.expect_smb(row, "bob reads k2au/f before (no grant)", DENIED, st)
        st = self.set_dacl_on("richacl", "alice", "k2au/f",
                              [(A, self.sids["alice"], run.FILE_ALL_ACCESS),
                               (A, AUTH_USERS, run.FILE_GENERIC_READ)])
        self.expect_smb(row, "alice grants Authenticated Users read", OK, st)
        _, entries = self.aclentries("k2au/f")
        self.expect_state(row, f"stored as group:{AUTHUSERS_GID}",
                          any(e[0] == f"group:{AUTHUSERS_GID}" and "r" in e[1]
                              for e in entries), f"entries {entries}")
        st, sids = self.get_dacl_sids("alice", "k2au/f")
        self.expect_state(row, "reads back as S-1-5-11",
                          st == OK and any(s == AUTH_USERS for _, s, _ in sids), f"{st} {sids}")
        st, data = self.smb_read("bob", "k2au/f")
        self.expect_smb(row, "bob reads k2au/f over SMB", OK, st)
        path = self.p("k2au/f")
        self.expect_local(row, "bob reads it locally with the authusers gid", "OK",
                          self.bob_local(lambda: os.close(os.open(path, os.O_RDONLY))))
        self.expect_local(row, "a process of bob's without the authusers gid", "DENIED",
                          self.local_as(1002, 1002, [run.STAFF],
                                        lambda: os.close(os.open(path, os.O_RDONLY))))

    def s_k2_msnfs(self):
        """S-K2-msnfs: S-1-5-88-1-<uid> names the uid."""
        row = "S-K2-msnfs"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.mkdir("k2nfs", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2nfs/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
        st = self.set_dacl_on("richacl", "alice", "k2nfs/f",
                              [(A, self.sids["alice"], run.FILE_ALL_ACCESS),
                               (A, "S-1-5-88-1-1002", run.FILE_GENERIC_READ)])
        self.expect_smb(row, "alice grants S-1-5-88-1-1002 read", OK, st)
        _, entries = self.aclentries("k2nfs/f")
        self.expect_state(row, "stored as user:1002",
                          any(e[0] == "user:1002" and "r" in e[1] for e in entries),
                          f"entries {entries}")
        st, _ = self.smb_read("bob", "k2nfs/f")
        self.expect_smb(row, "bob reads k2nfs/f", OK, st)

    def s_k2_nosid(self):
        """S-K2-nosid: an unmapped who that is not a SID reads as S-1-0-0."""
        row = "S-K2-nosid"
        self.mkdir("k2nosid", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2nosid/f", acl=(f"owner@:{FULL_FILE}::allow "
                                      f"user:carol@EXAMPLE.ORG:{R_FILE}:u:allow"), owner=1001)
        st, sids = self.get_dacl_sids("alice", "k2nosid/f")
        self.expect_smb(row, "alice reads the descriptor", OK, st)
        self.expect_state(row, "the entry reads as S-1-0-0",
                          any(s == NOBODY for _, s, _ in sids), f"{sids}")
        st, data = self.smb_read("alice", "k2nosid/f")
        self.expect_smb(row, "alice opens and reads the file", OK, st)

    def s_k2_connect(self):
        """S-K2-connect: refused tree connects, each with a log line."""
        row = "S-K2-connect"
        cases = [("rstack", "vfs objects has both richacl and acl_xattr"),
                 ("rrequire", "richacl:require = yes, and the filesystem"),
                 ("rbadparm", 'invalid value "maybe" for richacl:fix create masks')]
        for share, needle in cases:
            st, out = self.client_on(share, "alice", "ls")
            self.r.check(row, f"tree connect to [{share}] refused", st != OK,
                         f"got {st}: {out.strip()[-200:]}")
            self.expect_log(row, f"[{share}]: {needle}", needle)

    def s_k2_log(self):
        """S-K2-log: a token SID without a gid is named at connect."""
        row = "S-K2-log"
        self.smb_read("bob", "k2au/f")
        self.expect_log(row, "NETWORK named as a token SID without a gid",
                        f"holds {NETWORK}, which has no gid")

    def s_k2_size(self):
        """S-K2-size: an ACL too large for the xattr space: refused and logged."""
        row = "S-K2-size"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.mkdir("k2size", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2size/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
        before = self.acltext("k2size/f", "--raw")
        aces = [(A, self.sids["alice"], run.FILE_ALL_ACCESS)]
        aces += [(A, f"S-1-5-21-1111-2222-3333-{10000 + i}", run.FILE_GENERIC_READ)
                 for i in range(600)]
        st = self.set_dacl_on("richacl", "alice", "k2size/f", aces)
        self.r.check(row, "a 601-entry DACL is refused", st != OK, f"got {st}")
        self.expect_state(row, "k2size/f's richacl unchanged",
                          self.acltext("k2size/f", "--raw") == before,
                          self.acltext("k2size/f").replace("\n", " | ")[:300])
        self.expect_log(row, "the refusal is logged at level 1",
                        "does not fit in the file's extended attribute space")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", required=True, help="server.sh state directory")
    ap.add_argument("--path", required=True, help="directory of the [richacl] share on disk")
    ap.add_argument("--tools", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "../../../build"))
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    args.share = "richacl"
    if os.getuid() != 0:
        sys.exit("verdict.py: must run as root (in the guest)")
    os.umask(0o022)
    if not os.path.isdir(args.path):
        print(f"FAIL S-K2 setup: share directory {args.path} does not exist")
        print("0 passed, 1 failed")
        sys.exit(1)
    suite = Verdict(args)
    sys.exit(0 if suite.run(set(args.only)) else 1)


if __name__ == "__main__":
    try:
        main()
    except SetupError as e:
        print(f"FAIL S-K2 setup: {e}")
        print("0 passed, 1 failed")
        traceback.print_exc()
        sys.exit(1)
