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
  S-K2-attack the findings of an outside attack, as regressions: a refused
              set_sd with a chown is undone (M7) except for the set-id bits
              the chown cleared; owner / group
              SIDs for id 4294967295 are refused; DOS attributes follow the
              kernel's rule for user.DOSATTRIB (write_data) or Windows'
              (write_attributes); denies for SYSTEM, malformed Unix and
              MS-NFS SIDs are refused; an OWNER RIGHTS deny is kept and
              binds the owner over SMB; a client's UNIX-extensions chmod
              reaches the kernel; a create time set through an smbd-only
              grant is refused; a SeTakeOwnership take that fails halfway
              is undone, but the set-user-ID bit the chown cleared is not
              set again (a writer racing the request would get his content
              run set-user-ID: attack A2).
  S-K2-real   two real Windows DACLs set over SMB on a directory: a
              departmental share (Administrators, SYSTEM, CREATOR OWNER,
              Authenticated Users: modify, BUILTIN Users: read) and the
              default DACL of a Windows volume root.  For alice (who set it),
              bob and carol: read, write, create a file, create a directory,
              delete, set the DACL and take ownership, over SMB and locally
              with the same uid and groups; smbd must never grant what the
              kernel refuses.  Prints one "TABLE" line per user and DACL.
              Every session's token holds BUILTIN Users (it contains
              Authenticated Users, server.sh), so the volume root grants.
  S-K2-chmod  [richaclsgid] ("force directory mode = 2000"): smbd's chmod
              that adds the setgid bit to a new directory leaves an
              inherited acl whole and is refused with a log line (a chmod
              would rewrite the file masks); without an acl the bit is set;
              under a setgid parent (of a group alice is not in) a new
              directory keeps the kernel's setgid bit and group.
  S-K2-view   an allow entry that the kernel cannot match (unmapped) but
              whose SID the caller's token holds (NETWORK) is left out of
              the caller's view, which smbd decides with: it is absent from
              the DACL alice and bob read, grants bob nothing over SMB (read,
              write, MAXIMUM_ALLOWED), and an inheritable one on a directory
              shows as inherit-only; an unmapped entry for a SID in no token
              shows as stored; the file's acl on disk is unchanged; the
              same SID written with a leading zero is hidden too; alice's
              read-modify-write of the DACL drops the NETWORK entry, keeps
              the others, and bob gains nothing over SMB or locally.
  S-K2-setid  a chmod that smbd makes as root for a user ("dos filemode"
              on [rsetid], where DOS attributes become a chmod under
              "create mask = 0777") keeps the kernel's set-id rules: bob,
              who holds write_acl on root's set-user-ID program and write
              access through NETWORK, cannot make it 04777 over SMB, as he
              cannot locally; clearing the bit is his right.
  S-K2-notify change notify names only what the watcher may list: alice's
              recursive watch on a directory does not report the names bob
              creates and renames in his private directory (she cannot list
              it locally), and does report a name in a directory she may
              list; [rnotifyall] (honor change notify privilege = no) is
              refused (S-K2-connect).
  S-K2-dosread DOS attributes stored in user.DOSATTRIB, which smbd reads
              again as root for a directory listing, are shown only to users
              the kernel lets read them: alice lists bob's owner-only file
              without its READONLY, HIDDEN and SYSTEM attributes (her local
              getxattr fails); bob sees them; a file alice may read shows
              them to her; the same with "smbd async dosmode = yes"
              ([rasyncdos]).
  S-K2-both   an id that idmap gives as uid and gid at once (ID_TYPE_BOTH,
              as idmap_rid and autorid do; simulated by idmap cache entries,
              which smbd asks before winbindd): a user SID becomes a user
              entry, which a local login holding the uid but not the gid
              matches too (allow and deny); a SID of unknown type becomes
              a group entry in an allow, and a deny for it is refused.
  S-K2-outage (winbind identity only, last) winbindd stops answering: a SID
              without an id is refused with NT_STATUS_NO_SUCH_DOMAIN and a
              log line, nothing changes; Unix SIDs still work.

With --identity winbind (server.sh started winbindd, "idmap config * :
backend = tdb") winbindd gives every well-known SID of the token a gid:
NETWORK then has one too, so a deny for it is stored, and the log names no
token SID without a gid.  The gids are asked from winbindd (wbinfo), and
the local side holds the same ones as smbd's process.  The S-K2-root
fixtures still hold an *unmapped* NETWORK entry (written locally, as an
entry stored before the SID had an id would be), which only smbd matches.

Output as run.py: "ok ..." / "FAIL ..." lines, then "N passed, N failed".

usage: verdict.py --state DIR --path DIR [--identity passdb|winbind] [--tools DIR] [--only ROW...]
"""

import argparse
import os
import signal
import subprocess
import sys
import time
import traceback

from samba.dcerpc import security

import run
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "robust"))
from smbcommon import smbd_groups, wbinfo_gid  # noqa: E402 - after the path is set
from run import DENIED, FULL_DIR, FULL_FILE, OK, R_FILE, RX_DIR, SetupError

NETWORK = "S-1-5-2"
AUTH_USERS = "S-1-5-11"
NOBODY = "S-1-0-0"
UNKNOWN_DOMAIN_SID = "S-1-5-21-1111-2222-3333-4444"
AUTHUSERS_GID = 3011            # testenv/smb/server.sh
USERS_GID = 100                 # BUILTIN Users -> unix group "users" (passdb, server.sh)
NONE_MAPPED = "NT_STATUS_NONE_MAPPED"
DOSATTRIB = "user.DOSATTRIB"

WORLD = "S-1-1-0"
BUILTIN_USERS = "S-1-5-32-545"


class Verdict(run.Suite):
    ROWS = ["S-K2-root", "S-K2-deny", "S-K2-policy", "S-K2-au", "S-K2-msnfs",
            "S-K2-nosid", "S-K2-connect", "S-K2-log", "S-K2-size", "S-K2-attack",
            "S-K2-real", "S-K2-chmod", "S-K2-view", "S-K2-setid", "S-K2-notify", "S-K2-dosread",
            "S-K2-both", "S-K2-outage"]

    def __init__(self, args):
        super().__init__(args)
        self.share_conns = {}
        self.winbind = args.identity == "winbind"
        if self.winbind:
            self.au_gid = wbinfo_gid(AUTH_USERS)
            self.network_gid = wbinfo_gid(NETWORK)
            token_gids = [wbinfo_gid(sid) for sid in (WORLD, NETWORK, AUTH_USERS, BUILTIN_USERS)]
            if self.au_gid is None or self.network_gid is None:
                raise SetupError(f"winbindd gives no gid to {AUTH_USERS} / {NETWORK}")
        else:
            self.au_gid, self.network_gid = AUTHUSERS_GID, None
            token_gids = [AUTHUSERS_GID, USERS_GID]
        # The groups smbd's process holds for bob: his unix groups and the
        # gid of every token SID that has one (create_local_token()).
        # Measured, and compared with what that rule predicts.
        self.bob_groups = self.groups_of("bob")
        predicted = [run.STAFF] + [g for g in token_gids if g is not None]
        print(f"identity {args.identity}: Authenticated Users gid {self.au_gid}, "
              f"NETWORK gid {self.network_gid}, smbd runs bob with groups "
              f"{self.bob_groups} (predicted at least {predicted})", flush=True)

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

    def client_on(self, share, user, command, *opts):
        return self._tool(["smbclient", f"//127.0.0.1/{share}", "-s", self.conf,
                           "-U", f"{user}%{self.passwords[user]}", *opts, "-c", command])

    def fresh_conn(self, user, share):
        """A new session: its token is computed now (privileges, groups)."""
        creds = run.credentials.Credentials()
        creds.guess(self.lp)
        creds.set_username(user)
        creds.set_password(self.passwords[user])
        return run.libsmb.Conn("127.0.0.1", share, self.lp3, creds)

    def cacls_on(self, share, user, rel, *args):
        return self._tool(["smbcacls", f"//127.0.0.1/{share}", self.w(rel),
                           "-s", self.conf, "-U", f"{user}%{self.passwords[user]}",
                           *args])

    def set_dacl_on(self, share, user, rel, aces):
        """Write a DACL of (type, sid, mask) ACEs over SMB; the NTSTATUS."""
        return self.set_sd_on(user, rel, run.READ_CONTROL | run.WRITE_DAC,
                              security.SECINFO_DACL, aces=aces, share=share)

    def set_sd_on(self, user, rel, access, secinfo, owner=None, group=None, aces=None,
                  share="richacl", null_dacl=False, conn=None):
        """set_sd with any of owner, group and a DACL of (type, sid, mask)
        or (type, sid, mask, flags), or a NULL DACL (DACL_PRESENT without a
        DACL); through conn if given (a fresh session), else user's."""
        c = conn or self.conn_on(user, share)
        st, fnum = self.smb(c.create, self.w(rel), DesiredAccess=access,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                            CreateOptions=0)
        if st != OK:
            return st
        try:
            sd = security.descriptor()
            sd.type = security.SEC_DESC_SELF_RELATIVE
            if owner:
                sd.owner_sid = security.dom_sid(owner)
            if group:
                sd.group_sid = security.dom_sid(group)
            if null_dacl:
                sd.type |= security.SEC_DESC_DACL_PRESENT
            if aces is not None:
                sd.type |= security.SEC_DESC_DACL_PRESENT
                sd.dacl = security.acl()
                sd.dacl.revision = security.SECURITY_ACL_REVISION_NT4
                for atype, sid, mask, *flags in aces:
                    ace = security.ace()
                    ace.type = atype
                    ace.flags = flags[0] if flags else 0
                    ace.access_mask = mask
                    ace.trustee = security.dom_sid(sid)
                    sd.dacl_add(ace)
            return self.smb(c.set_sd, fnum, sd, secinfo)[0]
        finally:
            self.smb(c.close, fnum)

    def expect_undone(self, row, rel, before):
        """A request that failed after a chown: owner, group, permission
        bits and acl as before (M7).  The set-user-ID bit that the chown
        cleared stays cleared: setting it again as root would bless
        content written in between (attack A2, a race of a writer with the
        failing request)."""
        def same(state):
            return state[0], state[1], int(state[2], 8) & 0o777, state[3]

        after = self.state_of(rel)
        self.expect_state(row, f"{rel}: owner, group, permission bits and ACL as before",
                          same(after) == same(before), f"{before} -> {after}")
        self.expect_state(row, f"{rel}: the set-user-ID bit the chown cleared is not set again",
                          int(before[2], 8) & 0o4000 and not int(after[2], 8) & 0o4000,
                          f"mode {before[2]} -> {after[2]}")
        self.expect_log(row, f"{rel}: the cleared set-id bits are logged",
                        f"{rel}: the request failed after the ownership change cleared")

    def state_of(self, rel):
        st = os.lstat(self.p(rel))
        return (st.st_uid, st.st_gid, oct(st.st_mode & 0o7777),
                self.acltext(rel, "--raw", "--numeric-ids"))

    def get_dacl_sids(self, user, rel):
        st, sd = self.smb_get_sd(user, rel)
        if st != OK:
            return st, []
        return st, [(a.type, str(a.trustee), a.access_mask) for a in sd.dacl.aces]

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
        return self.local_as(1002, 1002, self.bob_groups, fn)

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

        # everything else bob might do through the NETWORK grant: smbd
        # performs it as bob, and the kernel refuses; nothing changes
        d = "k2root-richacl"
        self.mkfile(f"{d}/h", acl=net_acl, owner=1001)
        before = self.state_of(f"{d}/h")
        st, _ = self.smb_write_at("bob", f"{d}/h", run.WRITE_DATA, b"bob was here", 0)
        self.expect_smb(row, "bob opens h for writing through NETWORK", DENIED, st)
        self.expect_smb(row, "bob deletes h through NETWORK", DENIED,
                        self.smb_unlink("bob", f"{d}/h"))
        self.expect_smb(row, "bob renames h through NETWORK", DENIED,
                        self.smb_rename("bob", f"{d}/h", f"{d}/h2"))
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.expect_smb(row, "bob sets h's DACL through NETWORK", DENIED,
                        self.set_dacl_on("richacl", "bob", f"{d}/h",
                                         [(A, self.sids["bob"], run.FILE_ALL_ACCESS)]))
        st, fnum = self.smb_open("bob", f"{d}/h", run.DELETE, run.FILE_OPEN,
                                 run.FILE_DELETE_ON_CLOSE)
        if st == OK:
            st = self.smb_close("bob", fnum)
        self.expect_smb(row, "bob deletes h on close through NETWORK", DENIED, st)
        self.expect_state(row, "h unchanged, in place", self.exists(f"{d}/h") and
                          self.state_of(f"{d}/h") == before,
                          f"{before} -> {self.state_of(f'{d}/h') if self.exists(f'{d}/h') else 'gone'}")

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
        refused = [(UNKNOWN_DOMAIN_SID, "an unknown domain SID")]
        if not self.winbind:
            refused.insert(0, (NETWORK, "NETWORK (no gid)"))
        for sid, what in refused:
            st = self.set_dacl_on("richacl", "alice", "k2deny/f",
                                  [(D, sid, run.WRITE_DATA), (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
            self.expect_smb(row, f"alice sets a deny ACE for {what}", NONE_MAPPED, st)
            self.expect_state(row, "k2deny/f's richacl unchanged",
                              self.acltext("k2deny/f", "--raw") == before,
                              self.acltext("k2deny/f").replace("\n", " | "))
            self.expect_log(row, "the refusal names the SID and says why",
                            f"deny entry for SID {sid}, which maps to no unix id")
        if self.winbind:
            # NETWORK has a gid: the deny is stored, and denies bob in both
            self.mkfile("k2deny/g", acl=f"owner@:{FULL_FILE}::allow everyone@:{R_FILE}::allow",
                        owner=1001)
            st = self.set_dacl_on("richacl", "alice", "k2deny/g",
                                  [(D, NETWORK, run.READ_DATA),
                                   (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
            self.expect_smb(row, "alice sets a deny ACE for NETWORK (gid "
                            f"{self.network_gid})", OK, st)
            _, entries = self.aclentries("k2deny/g")
            self.expect_state(row, f"stored as group:{self.network_gid} deny",
                              any(e[0] == f"group:{self.network_gid}" and e[3] == "deny"
                                  for e in entries), f"entries {entries}")
            st, _ = self.smb_read("bob", "k2deny/g")
            self.expect_smb(row, "bob reads k2deny/g over SMB", DENIED, st)
            g = self.p("k2deny/g")
            self.expect_local(row, "bob reads it locally with smbd's groups", "DENIED",
                              self.bob_local(lambda: os.close(os.open(g, os.O_RDONLY))))
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
        self.expect_state(row, f"stored as group:{self.au_gid}",
                          any(e[0] == f"group:{self.au_gid}" and "r" in e[1]
                              for e in entries), f"entries {entries}")
        st, sids = self.get_dacl_sids("alice", "k2au/f")
        self.expect_state(row, "reads back as S-1-5-11",
                          st == OK and any(s == AUTH_USERS for _, s, _ in sids), f"{st} {sids}")
        st, data = self.smb_read("bob", "k2au/f")
        self.expect_smb(row, "bob reads k2au/f over SMB", OK, st)
        path = self.p("k2au/f")
        self.expect_local(row, "bob reads it locally with the authusers gid", "OK",
                          self.bob_local(lambda: os.close(os.open(path, os.O_RDONLY))))
        self.expect_local(row, "a process of bob's without that gid", "DENIED",
                          self.local_as(1002, 1002, [g for g in self.bob_groups
                                                     if g != self.au_gid],
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
                 ("rbadparm", 'invalid value "maybe" for richacl:fix create masks'),
                 ("rnotifyall", "honor change notify privilege = no")]
        for share, needle in cases:
            st, out = self.client_on(share, "alice", "ls")
            self.r.check(row, f"tree connect to [{share}] refused", st != OK,
                         f"got {st}: {out.strip()[-200:]}")
            self.expect_log(row, f"[{share}]: {needle}", needle)

    def s_k2_log(self):
        """S-K2-log: a token SID without a gid is named at connect."""
        row = "S-K2-log"
        self.smb_read("bob", "k2au/f")
        if self.winbind:
            log = self.log_text()
            self.r.check(row, "log: no token SID without a gid (winbindd maps them all)",
                         "which has no gid" not in log,
                         [ln for ln in log.splitlines() if "which has no gid" in ln][:3])
            return
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

    def s_k2_attack(self):
        """S-K2-attack: regressions from an outside attack on this module."""
        row = "S-K2-attack"
        A, D = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
        WRITE_OWNER = security.SEC_STD_WRITE_OWNER
        self.mkdir("k2atk", f"everyone@:{RX_DIR}::allow")
        # (1) M7 with set-id bits: a group change that the kernel makes
        # (clearing S_ISUID / S_ISGID), then an ACL too large to store
        self.mkfile("k2atk/s", owner=1001)
        os.chmod(self.p("k2atk/s"), 0o6744)
        self.setacl("k2atk/s", f"owner@:{FULL_FILE}::allow everyone@:{R_FILE}::allow")
        before = self.state_of("k2atk/s")
        big = [(A, self.sids["alice"], run.FILE_ALL_ACCESS)]
        big += [(A, f"S-1-5-21-1111-2222-3333-{20000 + i}", run.FILE_GENERIC_READ)
                for i in range(300)]
        st = self.set_sd_on("alice", "k2atk/s", run.WRITE_DAC | WRITE_OWNER,
                            security.SECINFO_GROUP | security.SECINFO_DACL,
                            group=AUTH_USERS, aces=big)
        self.r.check(row, "group change + a 301-ACE DACL is refused", st != OK, f"got {st}")
        self.expect_undone(row, "k2atk/s", before)
        # (2) owner / group SIDs for id 4294967295: no owner a file can have
        self.mkfile("k2atk/o", owner=1001, acl=f"owner@:{FULL_FILE}::allow")
        before = self.state_of("k2atk/o")
        st = self.set_sd_on("alice", "k2atk/o", WRITE_OWNER, security.SECINFO_OWNER,
                            owner="S-1-22-1-4294967295")
        self.expect_smb(row, "owner S-1-22-1-4294967295", "NT_STATUS_INVALID_OWNER", st)
        st = self.set_sd_on("alice", "k2atk/o", WRITE_OWNER | run.WRITE_DAC,
                            security.SECINFO_GROUP | security.SECINFO_DACL,
                            group="S-1-22-2-4294967295",
                            aces=[(A, self.sids["alice"], run.FILE_GENERIC_READ)])
        self.expect_smb(row, "group S-1-22-2-4294967295 with a DACL",
                        "NT_STATUS_INVALID_PRIMARY_GROUP", st)
        self.expect_state(row, "k2atk/o unchanged", self.state_of("k2atk/o") == before,
                          f"{before} -> {self.state_of('k2atk/o')}")
        # (3) DOS attributes: the kernel's rule for the xattr that holds them
        # is write_data; Windows' is write_attributes, which smbd asks of the
        # handle.  An smbd-only grant of write_attributes (NETWORK) is not in
        # bob's view (S-K2-view), so write_data alone does not let him open
        # for FILE_WRITE_ATTRIBUTES: smbd refuses, the kernel would let him
        # write the xattr (smbd grants less, never more).
        cases = [("w", f"user:bob:w{R_FILE}::allow user:{NETWORK}:A:u:allow", DENIED, "OK"),
                 ("a", f"user:bob:A{R_FILE}::allow", OK, "OK"),
                 ("n", f"user:bob:{R_FILE}::allow user:{NETWORK}:A:u:allow", DENIED, "DENIED")]
        for name, entries, want_smb, want_local in cases:
            acl = f"owner@:{FULL_FILE}::allow {entries} everyone@:{R_FILE}::allow"
            self.mkfile(f"k2atk/d{name}", owner=1001, acl=acl)
            self.mkfile(f"k2atk/d{name}k", owner=1001, acl=acl)
            st, _ = self.client_on("richacl", "bob", f"setmode k2atk\\d{name} +h")
            self.expect_smb(row, f"bob sets DOS attributes ({entries})", want_smb, st)
            path = self.p(f"k2atk/d{name}k")

            def dos_local(path=path):
                try:
                    os.setxattr(path, DOSATTRIB, b"0x22")
                except PermissionError:
                    os.utime(path, (1, 1))
            self.expect_local(row, f"bob's xattr write or utime ({entries})", want_local,
                              self.bob_local(dos_local))
        # (5) a client's chmod through the SMB1 UNIX extensions is the
        # client's: the kernel applies it or refuses it, never "OK" for
        # nothing
        self.mkfile("k2atk/u", owner=1001,
                    acl=f"owner@:{FULL_FILE}::allow user:bob:{R_FILE}::allow "
                        f"everyone@:{R_FILE}::allow")
        before = self.state_of("k2atk/u")
        st, _ = self.client_on("richacl", "bob", "posix; chmod 777 k2atk/u", "-m", "NT1")
        self.expect_smb(row, "bob's UNIX-extensions chmod 777 (not the owner)", DENIED, st)
        self.expect_state(row, "k2atk/u unchanged", self.state_of("k2atk/u") == before,
                          f"{before} -> {self.state_of('k2atk/u')}")
        st, _ = self.client_on("richacl", "alice", "posix; chmod 600 k2atk/u", "-m", "NT1")
        self.expect_smb(row, "alice's UNIX-extensions chmod 600 (the owner)", OK, st)
        mode = os.lstat(self.p("k2atk/u")).st_mode & 0o7777
        self.expect_state(row, "k2atk/u has mode 0600", mode == 0o600, oct(mode))
        st, _ = self.smb_read("bob", "k2atk/u")
        self.expect_smb(row, "bob reads k2atk/u after the chmod 600", DENIED, st)
        # (6) the create time alone, through an smbd-only grant: refused,
        # not "OK" with nothing stored
        self.mkfile("k2atk/c", owner=1001,
                    acl=f"owner@:{FULL_FILE}::allow user:{NETWORK}:{FULL_FILE}:u:allow "
                        f"everyone@:{R_FILE}::allow")
        st, _ = self.client_on("richacl", "alice", "setmode k2atk\\c +a")
        dos_before = self.xattr("k2atk/c", DOSATTRIB)
        for proto in ("NT1", "SMB3"):
            st, _ = self.client_on("richacl", "bob",
                                   "utimes k2atk\\c 1999:02:03-04:05:06 -1 -1 -1", "-m", proto)
            self.expect_smb(row, f"bob sets the create time through NETWORK ({proto})",
                            DENIED, st)
        self.expect_state(row, f"k2atk/c's {DOSATTRIB} unchanged",
                          self.xattr("k2atk/c", DOSATTRIB) == dos_before,
                          f"{self.xattr('k2atk/c', DOSATTRIB)!r} != {dos_before!r}")
        # (7) SeTakeOwnershipPrivilege: the owner changes as root, the group
        # as the new owner; if that fails, all of it is undone, set-id bits
        # included
        conf = os.path.join(self.state, "smb.conf")
        subprocess.run(["net", "-s", conf, "sam", "rights", "grant", "carol",
                        "SeTakeOwnershipPrivilege"], capture_output=True, check=True)
        try:
            self.mkfile("k2atk/t", owner=1001)
            os.chmod(self.p("k2atk/t"), 0o6755)
            self.setacl("k2atk/t", f"owner@:{FULL_FILE}::allow everyone@:{R_FILE}x::allow")
            before = self.state_of("k2atk/t")
            c = self.fresh_conn("carol", "richacl")
            st, fnum = self.smb(c.create, self.w("k2atk/t"),
                                DesiredAccess=WRITE_OWNER | run.READ_CONTROL,
                                ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                                CreateOptions=0)
            if st == OK:
                sd = security.descriptor()
                sd.type = security.SEC_DESC_SELF_RELATIVE
                sd.owner_sid = security.dom_sid(self.sids["carol"])
                sd.group_sid = security.dom_sid("S-1-22-2-1002")   # not carol's
                st = self.smb(c.set_sd, fnum, sd,
                              security.SECINFO_OWNER | security.SECINFO_GROUP)[0]
                self.smb(c.close, fnum)
            self.r.check(row, "carol (SeTakeOwnership) takes k2atk/t, group bob's: refused",
                         st != OK, f"got {st}")
            self.expect_undone(row, "k2atk/t", before)
            # a take with a DACL in one request: the new owner stores the
            # acl as herself, and the kernel's verdict for the owner stands
            # (owner_rights with an owner@ deny of write_acl refuses her,
            # as it refuses her local setrichacl once she owns the file)
            acl = (f"flags:o owner@:C::deny owner@:{FULL_FILE}::allow "
                   f"user:carol:{R_FILE}C::allow everyone@:{R_FILE}::allow")
            self.mkfile("k2atk/tw", owner=1001, acl=acl)
            self.mkfile("k2atk/twk", owner=1003, acl=acl)
            self.expect_local(row, "carol, owner of k2atk/twk, sets its acl", "DENIED",
                              self.l_setrichacl("carol", "k2atk/twk", "--set",
                                                f"owner@:{FULL_FILE}::allow"))
            before = self.state_of("k2atk/tw")
            st = self.set_sd_on("carol", "k2atk/tw",
                                WRITE_OWNER | run.WRITE_DAC | run.READ_CONTROL,
                                security.SECINFO_OWNER | security.SECINFO_DACL,
                                owner=self.sids["carol"],
                                aces=[(A, self.sids["carol"], run.FILE_ALL_ACCESS)],
                                conn=self.fresh_conn("carol", "richacl"))
            self.r.check(row, "carol (SeTakeOwnership) takes k2atk/tw and sets its DACL in "
                         "one request: refused", st != OK, f"got {st}")
            after = self.state_of("k2atk/tw")
            self.expect_state(row, "k2atk/tw: owner and acl as before", after == before,
                              f"{before} -> {after}")
        finally:
            subprocess.run(["net", "-s", conf, "sam", "rights", "revoke", "carol",
                            "SeTakeOwnershipPrivilege"], capture_output=True)
        # (4) denies for SIDs no process holds, whatever idmap says
        self.mkfile("k2atk/n", owner=1001, acl=f"owner@:{FULL_FILE}::allow")
        before = self.state_of("k2atk/n")
        for sid in ("S-1-5-18", "S-1-22-1-1002-5", "S-1-5-88-3-493", "S-1-5-88-4-1002"):
            if sid == "S-1-5-18" and self.winbind:
                continue        # winbindd gives SYSTEM a gid: an ordinary group
            st = self.set_dacl_on("richacl", "alice", "k2atk/n",
                                  [(D, sid, run.WRITE_DATA),
                                   (A, self.sids["alice"], run.FILE_ALL_ACCESS)])
            self.expect_smb(row, f"deny for {sid}", NONE_MAPPED, st)
        self.expect_state(row, "k2atk/n unchanged", self.state_of("k2atk/n") == before,
                          f"{before} -> {self.state_of('k2atk/n')}")
        # OWNER RIGHTS: smbd applies its deny to the owner; it is kept (an
        # owner@ deny, which the kernel applies to the owner too), and it
        # binds the owner over SMB
        st = self.set_dacl_on("richacl", "alice", "k2atk/n",
                              [(D, "S-1-3-4", run.WRITE_DATA),
                               (A, self.sids["alice"], run.FILE_ALL_ACCESS)])
        self.expect_smb(row, "deny for OWNER RIGHTS (kept)", OK, st)
        st, _ = self.smb_write_at("alice", "k2atk/n", run.WRITE_DATA, b"x", 0)
        self.expect_smb(row, "alice (owner) opens k2atk/n for writing", DENIED, st)

    REAL_DACLS = {
        # ../shared issue 12: a typical departmental share
        "departmental": "D:P(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICIIO;FA;;;CO)"
                        "(A;OICI;0x1301bf;;;AU)(A;OICI;0x1200a9;;;BU)",
        # the default DACL of a Windows volume root (C:\\)
        "volume-root": "D:(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;OICIIO;GA;;;CO)"
                       "(A;OICI;0x1200a9;;;BU)(A;CI;0x4;;;BU)(A;CI;0x2;;;BU)"
                       "(A;OICIIO;0x301bf;;;AU)(A;;0x4;;;AU)",
    }
    REAL_OPS = ["read", "write", "create", "mkdir", "delete", "set-dacl", "take-owner"]

    def groups_of(self, user):
        """The supplementary groups of the smbd process that serves user
        (read from /proc after a request, when smbd runs as the user):
        exactly what the kernel checks for that user's SMB requests."""
        uid = run.IDS[user][0]
        self.smb_get_sd(user, "")
        groups = smbd_groups(uid)
        if groups is None:
            raise SetupError(f"no smbd process runs as {user} ({uid})")
        return groups

    def real_smb(self, user, d, op):
        f = f"{d}/f"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        if op == "read":
            st, fnum = self.smb_open(user, f, run.READ_DATA)
        elif op == "write":
            st, fnum = self.smb_open(user, f, run.WRITE_DATA)
        elif op == "create":
            st, fnum = self.smb_open(user, f"{d}/new-{user}", run.WRITE_DATA,
                                     run.FILE_CREATE, run.FILE_NON_DIRECTORY_FILE)
        elif op == "mkdir":
            return self.smb_mkdir(user, f"{d}/dir-{user}")
        elif op == "delete":
            return self.smb_unlink(user, f"{d}/del-{user}")
        elif op == "set-dacl":
            return self.set_dacl_on("richacl", user, f"{d}/dacl-{user}",
                                    [(A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
        elif op == "take-owner":
            return self.set_sd_on(user, f"{d}/own-{user}", security.SEC_STD_WRITE_OWNER,
                                  security.SECINFO_OWNER, owner=self.sids[user])
        if st == OK:
            self.smb_close(user, fnum)
        return st

    def real_local(self, user, d, op):
        p = self.p
        uid = run.IDS[user][0]

        def fn():
            if op == "read":
                os.close(os.open(p(f"{d}/f"), os.O_RDONLY))
            elif op == "write":
                os.close(os.open(p(f"{d}/f"), os.O_WRONLY))
            elif op == "create":
                os.close(os.open(p(f"{d}/new-{user}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL))
            elif op == "mkdir":
                os.mkdir(p(f"{d}/dir-{user}"))
            elif op == "delete":
                os.unlink(p(f"{d}/del-{user}"))
            elif op == "set-dacl":
                path = p(f"{d}/dacl-{user}")
                os.setxattr(path, "system.richacl", os.getxattr(path, "system.richacl"))
            elif op == "take-owner":
                os.chown(p(f"{d}/own-{user}"), uid, -1)
        return self.local_as(uid, uid, self.groups_of(user), fn)

    def s_k2_real(self):
        """S-K2-real: real Windows DACLs; smbd never grants what the kernel refuses."""
        row = "S-K2-real"
        users = ["alice", "bob", "carol"]
        for name, sddl in self.REAL_DACLS.items():
            sd = security.descriptor.from_sddl(sddl, security.dom_sid("S-1-5-21-1-2-3"))
            aces = [(a.type, str(a.trustee), a.access_mask, a.flags) for a in sd.dacl.aces]
            dirs = {side: f"k2real-{name}-{side}" for side in ("smb", "loc")}
            for side, d in dirs.items():
                self.mkdir(d, f"owner@:{FULL_DIR}::allow everyone@:{RX_DIR}::allow", owner=1001)
                c = self.conn("alice")
                st, fnum = self.smb(c.create, self.w(d), DesiredAccess=run.READ_CONTROL | run.WRITE_DAC,
                                    ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                                    CreateOptions=run.FILE_DIRECTORY_FILE)
                if st == OK:
                    st = self.smb(c.set_sd, fnum, sd, security.SECINFO_DACL)[0]
                    self.smb_close("alice", fnum)
                self.expect_smb(row, f"{name}: alice sets the DACL of {d}", OK, st)
                # the files, as alice would have made them (the volume
                # root lets only BUILTIN Users add files): made by root,
                # inheriting in the kernel, then given to alice
                names = ["f"] + [f"{k}-{u}" for k in ("del", "dacl", "own") for u in users]
                for n in names:
                    fd = os.open(self.p(f"{d}/{n}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                    os.write(fd, b"data\n")
                    os.close(fd)
                    os.chown(self.p(f"{d}/{n}"), 1001, 1001)
            _, sids = self.get_dacl_sids("alice", dirs["smb"])
            kept = {s for _, s, _ in sids}
            self.expect_state(row, f"{name}: every SID reads back",
                              {a[1] for a in aces} <= kept | {"S-1-3-0"},
                              f"set {sorted({a[1] for a in aces})}, read {sorted(kept)}")
            for user in users:
                print(f"S-K2-real: smbd runs {user}'s requests with groups "
                      f"{self.groups_of(user)}", flush=True)
                cells = []
                for op in self.REAL_OPS:
                    smb_st = self.real_smb(user, dirs["smb"], op)
                    loc = self.real_local(user, dirs["loc"], op)
                    smb_ok = smb_st == OK
                    loc_ok = loc == "OK"
                    cells.append(f"{op}={'Y' if smb_ok else 'n'}/{'Y' if loc_ok else 'n'}")
                    self.r.check(row, f"{name}: {user} {op}: smbd grants only what the kernel "
                                      f"grants", loc_ok or not smb_ok,
                                 f"SMB {smb_st}, kernel {loc}")
                    if smb_ok != loc_ok:
                        print(f"NOTE S-K2-real {name}: {user} {op}: SMB {smb_st}, "
                              f"kernel {loc}", flush=True)
                print(f"TABLE {'winbind' if self.winbind else 'passdb'} {name} {user}: "
                      + " ".join(cells) + "  (SMB/kernel)", flush=True)

    def s_k2_chmod(self):
        """S-K2-chmod: smbd's own chmod of a special bit never cuts an ACL."""
        row = "S-K2-chmod"
        # [richaclsgid] has "force directory mode = 2000": after a mkdir
        # smbd chmods the new directory to add the setgid bit.
        share = "richaclsgid"
        self.mkdir("k2sgid", f"owner@:{FULL_DIR}:fd:allow user:1002:{RX_DIR}w:fd:allow "
                   f"everyone@:{RX_DIR}::allow", owner=1001)
        st = self.smb_mkdir("alice", "k2sgid/plain")
        self.expect_smb(row, "alice makes k2sgid/plain on [richacl]", OK, st)
        st = self.smb(self.conn_on("alice", share).mkdir, self.w("k2sgid/forced"))[0]
        self.expect_smb(row, f"alice makes k2sgid/forced on [{share}]", OK, st)
        # getrichacl's first line names the file
        plain = self.acltext("k2sgid/plain", "--raw", "--numeric-ids").split("\n", 1)[-1]
        forced = self.acltext("k2sgid/forced", "--raw", "--numeric-ids").split("\n", 1)[-1]
        self.expect_state(row, "the forced directory keeps the inherited acl in full",
                          plain == forced and "1002" in forced,
                          f"[richacl]: {plain!r}; [{share}]: {forced!r}")
        mode = os.lstat(self.p("k2sgid/forced")).st_mode
        self.expect_state(row, "the setgid bit is not set (a chmod would cut the masks)",
                          not mode & 0o2000, oct(mode))
        self.expect_log(row, "the refusal is logged",
                        "not changing the setuid/setgid/sticky bits")
        # what the man page advises instead: a setgid parent, whose group
        # alice is not in; the kernel gives the new directory the bit and
        # the group, and the inherited acl in full must not cost them
        # (k2sgid-q: the same acl without the setgid bit, for comparison)
        parent_acl = (f"owner@:{FULL_DIR}:fd:allow group@:{FULL_DIR}:fd:allow "
                      f"everyone@:{RX_DIR}:fd:allow user:1001:{FULL_DIR}:fd:allow "
                      f"user:1003:{RX_DIR}w:fd:allow")
        for name, mode in (("k2sgid-p", 0o2775), ("k2sgid-q", 0o775)):
            self.mkdir(name, parent_acl, owner=1002)
            os.chown(self.p(name), 1002, run.STAFF)
            os.chmod(self.p(name), mode)
            self.setacl(name, parent_acl)
            st = self.smb_mkdir("alice", f"{name}/sub")
            self.expect_smb(row, f"alice makes {name}/sub on [richacl]", OK, st)
        sub = os.lstat(self.p("k2sgid-p/sub"))
        self.expect_state(row, "the new directory has the parent's group and the setgid bit",
                          sub.st_gid == run.STAFF and bool(sub.st_mode & 0o2000),
                          f"gid {sub.st_gid}, mode {oct(sub.st_mode)}")
        self.expect_state(row, "and alice (the creator) still owns it", sub.st_uid == 1001,
                          f"uid {sub.st_uid}")
        with_bit = self.acltext("k2sgid-p/sub", "--raw", "--numeric-ids").split("\n", 1)[-1]
        without = self.acltext("k2sgid-q/sub", "--raw", "--numeric-ids").split("\n", 1)[-1]
        self.expect_state(row, "and the inherited acl in full, as without the setgid bit",
                          with_bit == without and "1003" in with_bit,
                          f"setgid parent: {with_bit!r}; plain parent: {without!r}")
        plain = os.lstat(self.p("k2sgid-q/sub"))
        self.expect_state(row, "a plain parent does not give the bit",
                          not plain.st_mode & 0o2000, oct(plain.st_mode))
        # no acl: a chmod is only a chmod, and the bit is set
        self.mkdir("k2sgid-m", owner=1001)
        st = self.smb(self.conn_on("alice", share).mkdir, self.w("k2sgid-m/forced"))[0]
        self.expect_smb(row, f"alice makes k2sgid-m/forced on [{share}]", OK, st)
        mode = os.lstat(self.p("k2sgid-m/forced")).st_mode
        self.expect_state(row, "without an acl the setgid bit is set", bool(mode & 0o2000),
                          oct(mode))
        self.expect_state(row, "and no acl appears",
                          self.xattr("k2sgid-m/forced", "system.richacl").startswith("<"),
                          self.acltext("k2sgid-m/forced"))

    def s_k2_view(self):
        """S-K2-view: smbd decides with a view without unmatchable allows."""
        row = "S-K2-view"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.mkdir("k2view", f"everyone@:{RX_DIR}::allow")
        acl = (f"owner@:{FULL_FILE}::allow user:{NETWORK}:{FULL_FILE}:u:allow "
               f"user:{UNKNOWN_DOMAIN_SID}:{R_FILE}:u:allow user:bob:{R_FILE}::allow")
        self.mkfile("k2view/f", b"view\n", owner=1001, acl=acl)
        before = self.state_of("k2view/f")
        for user in ("alice", "bob"):
            st, aces = self.get_dacl_sids(user, "k2view/f")
            sids = [sid for _, sid, _ in aces]
            self.expect_state(row, f"{user} reads f's DACL without the NETWORK allow",
                              st == OK and NETWORK not in sids, f"{st} {aces}")
            self.expect_state(row, f"{user} reads f's DACL with the allow for a SID in no "
                              "token", st == OK and UNKNOWN_DOMAIN_SID in sids, f"{st} {aces}")
        st, _ = self.smb_read("bob", "k2view/f")
        self.expect_smb(row, "bob reads f (his own entry)", OK, st)
        st, _ = self.smb_write_at("bob", "k2view/f", run.WRITE_DATA, b"bob", 0)
        self.expect_smb(row, "bob opens f for writing (only NETWORK would grant it)", DENIED, st)
        st, _ = self.smb_open("bob", "k2view/f", run.WRITE_DAC)
        self.expect_smb(row, "bob opens f for WRITE_DAC (only NETWORK would grant it)",
                        DENIED, st)
        st, fnum = self.smb_open("bob", "k2view/f", security.SEC_FLAG_MAXIMUM_ALLOWED)
        wst = None
        if st == OK:
            wst, _ = self.smb(self.conn("bob").write, fnum, b"max", 0)
            self.smb_close("bob", fnum)
        self.expect_state(row, "bob's MAXIMUM_ALLOWED handle may not write f",
                          st != OK or wst != OK, f"open {st}, write {wst}")
        self.expect_state(row, "f unchanged on disk", self.state_of("k2view/f") == before,
                          f"{before} -> {self.state_of('k2view/f')}")
        self.mkdir("k2view/d", f"owner@:{FULL_DIR}::allow user:{NETWORK}:{FULL_DIR}:fdu:allow",
                   owner=1001)
        st, sd = self.smb_get_sd("alice", "k2view/d")
        net = [a for a in (sd.dacl.aces if st == OK else [])
               if str(a.trustee) == NETWORK]
        self.expect_state(row, "alice reads d's inheritable NETWORK allow as inherit-only",
                          len(net) == 1 and net[0].flags & run.IO, f"{st} {net and net[0].flags}")
        st = self.smb_create_file("alice", "k2view/d/x", b"x")
        self.expect_smb(row, "alice (owner@) still creates in d", OK, st)
        st = self.smb_create_file("bob", "k2view/d/y", b"y")
        self.expect_smb(row, "bob creates in d (only NETWORK would grant it)", DENIED, st)
        # a SID string written another way (leading zero) is the same SID
        self.mkfile("k2view/z", b"z\n", owner=1001,
                    acl=f"owner@:{FULL_FILE}::allow user:S-1-05-2:{FULL_FILE}:u:allow")
        st, _ = self.smb_write_at("bob", "k2view/z", run.WRITE_DATA, b"bob", 0)
        self.expect_smb(row, "bob opens z for writing (only S-1-05-2 would grant it)",
                        DENIED, st)
        # a client's read-modify-write: alice sets back the DACL she reads;
        # the NETWORK entry is gone, the rest stays, and nobody gains
        st, sd = self.smb_get_sd("alice", "k2view/f")
        if st == OK:
            c = self.conn_on("alice", "richacl")
            st, fnum = self.smb(c.create, self.w("k2view/f"),
                                DesiredAccess=run.READ_CONTROL | run.WRITE_DAC,
                                ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                                CreateOptions=0)
            if st == OK:
                st = self.smb(c.set_sd, fnum, sd, security.SECINFO_DACL)[0]
                self.smb(c.close, fnum)
        self.expect_smb(row, "alice sets f's DACL back as she read it", OK, st)
        text = self.acltext("k2view/f", "--raw", "--numeric-ids")
        self.expect_state(row, "f's acl: no NETWORK entry, the unknown SID's entry kept",
                          f"{NETWORK}:" not in text and f"{UNKNOWN_DOMAIN_SID}:" in text, text)
        st, _ = self.smb_write_at("bob", "k2view/f", run.WRITE_DATA, b"bob", 0)
        self.expect_smb(row, "bob still opens f for writing", DENIED, st)
        self.expect_local(row, "bob still writes f locally", "DENIED",
                          self.bob_local(lambda: open(self.p("k2view/f"), "r+b").close()))

    def s_k2_setid(self):
        """S-K2-setid: a root-acting chmod keeps the kernel's set-id rules."""
        row = "S-K2-setid"
        self.mkdir("k2setid", f"everyone@:{RX_DIR}::allow")
        with open("/bin/true", "rb") as f:
            program = f.read()
        # root's set-user-ID program; bob holds write_acl, and NETWORK, an
        # entry only smbd matches, holds full control: smbd's own check
        # (can_write_to_fsp) lets "dos filemode" retry a refused chmod as root
        acl = (f"owner@:{FULL_FILE}::allow user:bob:{R_FILE}xC::allow "
               f"user:{NETWORK}:{FULL_FILE}:u:allow everyone@:{R_FILE}x::allow")
        for name, mode in (("prog", 0o4755), ("prog2", 0o755)):
            rel = f"k2setid/{name}"
            self.mkfile(rel, program, owner=0)
            os.chmod(self.p(rel), mode)
            self.setacl(rel, acl)
            if os.lstat(self.p(rel)).st_mode & 0o4000 != mode & 0o4000:
                raise SetupError(f"{rel}: mode {os.lstat(self.p(rel)).st_mode:o} after "
                                 f"chmod {mode:o} and setrichacl")
        prog = self.p("k2setid/prog")
        before = self.state_of("k2setid/prog")
        self.expect_local(row, "bob keeps the set-user-ID bit of root's program in a chmod "
                          "to 04777", "DENIED", self.bob_local(lambda: os.chmod(prog, 0o4777)))
        st, _ = self.client_on("rsetid", "bob", "setmode k2setid\\prog +h")
        self.expect_smb(row, "[rsetid] bob sets HIDDEN on root's set-user-ID program "
                        "(smbd chmods as root, keeping the bit)", DENIED, st)
        after = self.state_of("k2setid/prog")
        self.expect_state(row, "the program's mode and acl are unchanged", after == before,
                          f"{before} -> {after}")
        self.expect_local(row, "carol still may not write the program", "DENIED",
                          self.local("carol", lambda: open(prog, "r+b").close()))
        # controls: bob may clear the bit (locally), and smbd's chmod of a
        # program without the bit is his to make (write_acl)
        self.expect_local(row, "bob clears the set-user-ID bit (chmod 0755)", "OK",
                          self.bob_local(lambda: os.chmod(prog, 0o755)))
        prog2 = self.p("k2setid/prog2")
        st, _ = self.client_on("rsetid", "bob", "setmode k2setid\\prog2 +h")
        self.expect_smb(row, "[rsetid] bob sets HIDDEN on the program without the bit", OK, st)
        mode = os.lstat(prog2).st_mode & 0o7777
        self.expect_state(row, "prog2 has no set-id bit after smbd's chmod",
                          mode & 0o6000 == 0, f"{mode:o}")

    def s_k2_notify(self):
        """S-K2-notify: change notify does not name what the watcher cannot list."""
        row = "S-K2-notify"
        self.mkdir("k2notify", f"everyone@:{RX_DIR}::allow user:bob:{FULL_DIR}::allow")
        self.mkdir("k2notify/bobpriv", f"owner@:{FULL_DIR}::allow", owner=1002)
        self.mkdir("k2notify/open", f"owner@:{FULL_DIR}::allow everyone@:{RX_DIR}::allow",
                   owner=1002)
        self.expect_local(row, "alice lists bob's private directory", "DENIED",
                          self.local("alice", lambda: os.listdir(self.p("k2notify/bobpriv"))))
        c = self.fresh_conn("alice", "richacl")
        st, fnum = self.smb(c.create, "k2notify", DesiredAccess=run.READ_DATA | run.SYNCHRONIZE,
                            ShareAccess=run.SHARE_ALL, CreateDisposition=run.FILE_OPEN,
                            CreateOptions=run.FILE_DIRECTORY_FILE)
        self.expect_smb(row, "alice opens k2notify to watch it", OK, st)
        if st != OK:
            return
        flt = run.libsmb.FILE_NOTIFY_CHANGE_FILE_NAME | run.libsmb.FILE_NOTIFY_CHANGE_DIR_NAME
        req = c.notify(fnum=fnum, buffer_size=0xffff, completion_filter=flt, recursive=True)
        # notify() returns once the request is sent; the reply to a later
        # request shows that smbd has registered the watch
        self.smb(c.chkpath, "k2notify")
        secret = "k2notify/bobpriv/salary-2027-layoff-list.xlsx"
        self.expect_smb(row, "bob creates a file in his private directory", OK,
                        self.smb_create_file("bob", secret, b"x"))
        self.expect_smb(row, "bob renames it", OK,
                        self.smb_rename("bob", secret, "k2notify/bobpriv/renamed-layoffs.xlsx"))
        self.expect_smb(row, "bob creates a file in a directory alice may list", OK,
                        self.smb_create_file("bob", "k2notify/open/visible.txt", b"v"))
        names = []
        for _ in range(10):
            st, changes = self.smb(req.get_changes, wait=True)
            if st != OK:
                break
            names += [ch["name"] for ch in changes]
            if any(n.endswith("visible.txt") for n in names):
                break
            req = c.notify(fnum=fnum, buffer_size=0xffff, completion_filter=flt,
                           recursive=True)
        self.smb(c.close, fnum)
        self.expect_state(row, "alice is told the name in the directory she may list",
                          any(n.endswith("visible.txt") for n in names), f"{st} {names}")
        leaked = [n for n in names if "layoff" in n]
        self.expect_state(row, "alice is told no name from bob's private directory",
                          not leaked, f"{leaked}")

    def s_k2_dosread(self):
        """S-K2-dosread: stored DOS attributes only for who may read them."""
        row = "S-K2-dosread"
        rhs = 0x1 | 0x2 | 0x4   # READONLY | HIDDEN | SYSTEM
        self.mkdir("k2dos", f"everyone@:{RX_DIR}::allow user:bob:{FULL_DIR}::allow")
        self.mkfile("k2dos/secret", b"s\n", owner=1002, acl=f"owner@:{FULL_FILE}::allow")
        self.mkfile("k2dos/shared", b"s\n", owner=1002,
                    acl=f"owner@:{FULL_FILE}::allow everyone@:{R_FILE}::allow")
        for name in ("secret", "shared"):
            st, _ = self.client_on("richacl", "bob", f"setmode k2dos\\{name} +rhs")
            self.expect_smb(row, f"owner bob sets READONLY, HIDDEN, SYSTEM on {name}", OK, st)
        self.expect_local(row, f"alice reads secret's {DOSATTRIB}", "DENIED",
                          self.local("alice",
                                     lambda: os.getxattr(self.p("k2dos/secret"), DOSATTRIB)))

        def attrib(user, share, name):
            st, entries = self.smb(self.fresh_conn(user, share).list, "k2dos")
            if st != OK:
                return st
            return next((e["attrib"] for e in entries if e["name"] == name), "missing")

        # [rasyncdos]: "smbd async dosmode = yes" reads them in a worker
        for share in ("richacl", "rasyncdos"):
            got = attrib("bob", share, "secret")
            self.expect_state(row, f"[{share}] bob's listing shows secret "
                              "READONLY|HIDDEN|SYSTEM",
                              isinstance(got, int) and got & rhs == rhs, f"attrib {got}")
            got = attrib("alice", share, "secret")
            self.expect_state(row, f"[{share}] alice's listing shows secret without READONLY, "
                              "HIDDEN, SYSTEM", isinstance(got, int) and got & rhs == 0,
                              f"attrib {got}")
            got = attrib("alice", share, "shared")
            self.expect_state(row, f"[{share}] alice's listing shows shared (she may read it) "
                              "READONLY|HIDDEN|SYSTEM",
                              isinstance(got, int) and got & rhs == rhs, f"attrib {got}")

    def idmap_cache(self, *args):
        """net cache ARGS on the server's gencache (smbd's idmap cache)."""
        res = subprocess.run(["net", "-s", os.path.join(self.state, "smb.conf"), "cache",
                              *args], capture_output=True, text=True)
        if res.returncode != 0:
            raise SetupError(f"net cache {' '.join(args)}: {res.stderr.strip()}")

    def s_k2_both(self):
        """S-K2-both: ID_TYPE_BOTH ids become user entries for user SIDs."""
        row = "S-K2-both"
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        both = {self.sids["carol"]: 1003, UNKNOWN_DOMAIN_SID: 4242}
        keys = [f"IDMAP/SID2XID/{sid}" for sid in both]
        for (sid, xid), key in zip(both.items(), keys):
            self.idmap_cache("add", key, f"{xid}:B", "+10m")
        # and back (idmap_rid maps both ways; without it the gid would
        # read back as the Unix SID S-1-22-2-4242)
        keys.append("IDMAP/GID2SID/4242")
        self.idmap_cache("add", keys[-1], UNKNOWN_DOMAIN_SID, "+10m")
        try:
            self.mkdir("k2both", f"everyone@:{RX_DIR}::allow")
            self.mkfile("k2both/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
            st = self.set_dacl_on("richacl", "alice", "k2both/f",
                                  [(A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, self.sids["carol"], run.FILE_GENERIC_READ),
                                   (A, UNKNOWN_DOMAIN_SID, run.FILE_GENERIC_READ)])
            self.expect_smb(row, "alice grants carol's SID and an unknown SID read", OK, st)
            _, entries = self.aclentries("k2both/f")
            whos = {e[0] for e in entries if "r" in e[1]}
            self.expect_state(row, "carol's SID (a user) is stored as user:1003",
                              "user:1003" in whos and "group:1003" not in whos,
                              f"entries {entries}")
            self.expect_state(row, "the SID of unknown type is stored as group:4242",
                              "group:4242" in whos, f"entries {entries}")
            st, sids = self.get_dacl_sids("alice", "k2both/f")
            self.expect_state(row, "both SIDs read back", st == OK and
                              {self.sids["carol"], UNKNOWN_DOMAIN_SID} <=
                              {s for _, s, _ in sids}, f"{st} {sids}")
            st, _ = self.smb_read("carol", "k2both/f")
            self.expect_smb(row, "carol reads k2both/f over SMB", OK, st)
            path = self.p("k2both/f")

            def read():
                os.close(os.open(path, os.O_RDONLY))
            self.expect_local(row, "a local login of carol's without gid 1003 reads it",
                              "OK", self.local_as(1003, 100, [100], read))
            self.expect_local(row, "a process holding gid 4242 reads it", "OK",
                              self.local_as(1099, 4242, [4242], read))
            self.expect_local(row, "a process holding gid 1003 only does not", "DENIED",
                              self.local_as(1099, 1003, [1003], read))
            # denies: a user SID's deny binds the user's local login too; a
            # deny for a SID of unknown type is refused (a group entry would
            # not bind a user's local login, a user entry no group member)
            D = security.SEC_ACE_TYPE_ACCESS_DENIED
            st = self.set_dacl_on("richacl", "alice", "k2both/f",
                                  [(D, self.sids["carol"], run.FILE_GENERIC_READ),
                                   (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
            self.expect_smb(row, "alice denies carol's SID read", OK, st)
            _, entries = self.aclentries("k2both/f")
            self.expect_state(row, "the deny is stored as user:1003",
                              any(e[0] == "user:1003" and e[3] == "deny" for e in entries),
                              f"entries {entries}")
            st, _ = self.smb_read("carol", "k2both/f")
            self.expect_smb(row, "carol cannot read k2both/f over SMB", DENIED, st)
            self.expect_local(row, "nor a local login of carol's without gid 1003", "DENIED",
                              self.local_as(1003, 100, [100], read))
            before = self.state_of("k2both/f")
            st = self.set_dacl_on("richacl", "alice", "k2both/f",
                                  [(D, UNKNOWN_DOMAIN_SID, run.FILE_GENERIC_READ),
                                   (A, self.sids["alice"], run.FILE_ALL_ACCESS),
                                   (A, run.SID_EVERYONE, run.FILE_GENERIC_READ)])
            self.expect_smb(row, "a deny for the SID of unknown type is refused",
                            NONE_MAPPED, st)
            self.expect_state(row, "k2both/f unchanged", self.state_of("k2both/f") == before,
                              f"{before} -> {self.state_of('k2both/f')}")
            self.expect_log(row, "the refusal names the id",
                            "a deny for the SID with uid and gid 4242")
        finally:
            for key in keys:
                self.idmap_cache("del", key)

    def s_k2_outage(self):
        """S-K2-outage: winbindd stops answering (winbind identity only)."""
        row = "S-K2-outage"
        if not self.winbind:
            return
        A = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        self.mkdir("k2out", f"everyone@:{RX_DIR}::allow")
        self.mkfile("k2out/f", acl=f"owner@:{FULL_FILE}::allow", owner=1001)
        # connected while winbindd answers
        st, _ = self.smb_get_sd("alice", "k2out/f")
        self.expect_smb(row, "alice reads the descriptor while winbindd answers", OK, st)
        with open(os.path.join(self.state, "winbindd.pid")) as f:
            pid = int(f.read())
        os.kill(pid, signal.SIGTERM)
        for _ in range(40):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.25)
        before = self.acltext("k2out/f", "--raw")
        fresh = "S-1-5-21-9999-8888-7777-6666"     # in no idmap cache
        st = self.set_dacl_on("richacl", "alice", "k2out/f",
                              [(A, self.sids["alice"], run.FILE_ALL_ACCESS),
                               (A, fresh, run.FILE_GENERIC_READ)])
        self.expect_smb(row, "alice allows a domain SID while winbindd is down",
                        "NT_STATUS_NO_SUCH_DOMAIN", st)
        self.expect_state(row, "k2out/f's richacl unchanged",
                          self.acltext("k2out/f", "--raw") == before,
                          self.acltext("k2out/f").replace("\n", " | "))
        self.expect_log(row, "the refusal names the SID and the outage",
                        f"SID {fresh} has no unix id and winbindd does not answer")
        st = self.set_dacl_on("richacl", "alice", "k2out/f",
                              [(A, "S-1-22-1-1001", run.FILE_ALL_ACCESS),
                               (A, "S-1-22-1-1002", run.FILE_GENERIC_READ)])
        self.expect_smb(row, "Unix SIDs still map while winbindd is down", OK, st)


def main(suite_class, label, description, extra_args=None):
    """Parse the arguments, run suite_class on the [richacl] share, exit.
    label names the suite in setup failures (S-K2); extra_args(ap) adds
    arguments of its own."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--state", required=True, help="server.sh state directory")
    ap.add_argument("--path", required=True, help="directory of the [richacl] share on disk")
    ap.add_argument("--tools", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "../../../build"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--identity", choices=["passdb", "winbind"], default="passdb")
    if extra_args:
        extra_args(ap)
    args = ap.parse_args()
    args.share = "richacl"
    if os.getuid() != 0:
        sys.exit(f"{ap.prog}: must run as root (in the guest)")
    os.umask(0o022)
    try:
        if not os.path.isdir(args.path):
            raise SetupError(f"share directory {args.path} does not exist")
        suite = suite_class(args)
        ok = suite.run(set(args.only))
    except SetupError as e:
        print(f"FAIL {label} setup: {e}")
        print("0 passed, 1 failed")
        traceback.print_exc()
        sys.exit(1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(Verdict, "S-K2", __doc__.split("\n")[0])
