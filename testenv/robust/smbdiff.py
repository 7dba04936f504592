#!/usr/bin/python3
"""smbd's decision vs the kernel's on random richacls (S-K1, S-K2 at random).

Runs as root in the QEMU guest (testenv/robust/guest.sh) against the smbd of
testenv/smb/server.sh.  Every case builds two identical fixtures in the
share, PATH/sd/cN-smb and PATH/sd/cN-loc: a directory with a random richacl
(an everyone@:x entry first, so that path traversal is never the question)
holding a file f with a random richacl, random owners and owning groups from
alice, bob, carol and root.  The entries name users, groups, owner@,
group@, everyone@, and the well-known SIDs of docs/mapping.md: Authenticated
Users (a group entry for its gid 3011), NETWORK S-1-5-2 (in every SMB token,
no gid: an unmapped entry that only smbd can match), an unknown domain SID
and S-1-0-0 (unmapped, in no token), allow and deny.  Then, as a random user
of alice, bob, carol, it performs one operation over SMB on the -smb copy
and the same operation through local system calls with the same uid, gid
and groups (those of the SMB session: authusers included) on the -loc copy,
and compares:

  SMB                                   local
  open f READ_DATA                      open(O_RDONLY)
  open f WRITE_DATA                     open(O_WRONLY)
  open f APPEND_DATA                    open(O_WRONLY|O_APPEND)
  set f's DACL (WRITE_DAC)              setxattr(system.richacl)
  take ownership of f (WRITE_OWNER)     chown(f, own uid)
  take ownership and set the DACL       chown, then setxattr(system.richacl)
    in one request
  set f's DOS attributes (smbclient     setxattr(user.DOSATTRIB), or else
    setmode: smbd may act as root)        utime with explicit times
  set f's write time (smbclient         utime with explicit times
    utimes: smbd may act as root)
  delete f (delete on close)            unlink(f)
  rename f -> g in the dir              opendir(dir) + readdir, then rename(f, g)
  create file / directory in dir        open(O_CREAT|O_EXCL) / mkdir
  watch sd/ recursively; another user    opendir(dir) + readdir
    (granted add_file on dir) creates
    dir/nt: is the user told "nt"?
    (smbd's own decision: "honor change
    notify privilege" checks the path)
  list dir: are f's stored DOS          opendir(dir) + readdir, then
    attributes shown? (smbd's own         getxattr(f, user.DOSATTRIB)
    decision: it reads them as root
    when the user may not)

On a case-insensitive share (the default), smbd 4.17 looks for a
case-insensitive match of a new name by reading the directory
(get_real_filename_full_scan_at()); only creates turn a refused scan into
"not found" (the UCF_PREP_CREATEFILE "dropbox" case in filename.c), so a
rename target needs list_directory on its directory.  The local side of a
rename lists the directory first to ask the kernel the same question
(docs/smb-semantics.md, "Rename targets and directory listing").

NT_STATUS_OK must go with success and NT_STATUS_ACCESS_DENIED (or
NT_STATUS_INVALID_OWNER) with EACCES / EPERM; any other status or errno is
a failure, except that smbclient (the DOS attribute and time operations)
answers NT_STATUS_OBJECT_NAME_NOT_FOUND for a file in a directory the user
may not list, which counts as a refusal.  A case where smbd grants what the kernel refuses is always a
failure (S-K2).  A case where smbd refuses what the kernel grants is a
failure unless it has one of these explanations, each counted:

  unmapped-deny   the file's or the directory's acl (set locally: SMB
                  refuses such a deny) denies a SID of the user's token that
                  has no gid (NETWORK): smbd honours the deny, the kernel
                  cannot match it;
  owner-implicit  the user owns the file: Linux lets the owner set times
                  and attributes and take ownership (a no-op) whatever the
                  acl says, Windows gives the owner only READ_CONTROL and
                  WRITE_DAC, and smbd checks those on the handle first;
  handle-dacl     owner and DACL in one request: Windows (and smbd) want
                  WRITE_DAC on the handle before the ownership changes, the
                  kernel lets the new owner write the acl (the local probe
                  setxattr before the chown was refused);
  xattr-write     DOS attributes: Windows (and smbd) want
                  FILE_WRITE_ATTRIBUTES on the handle, the kernel lets
                  write_data write user.* xattrs (the local side succeeded
                  through setxattr(user.DOSATTRIB), utime was refused).

With --identity winbind (server.sh --identity winbind: winbindd allocates
the ids), Authenticated Users and NETWORK have the gids winbindd gives them
(asked with wbinfo); group entries for both are drawn, and unmapped NETWORK
entries too (written locally, as stored before the SID had an id).  In both
setups the local side runs with the supplementary groups of the smbd
process serving the user, read from /proc: the same uid and groups.

Output: one line per failure with a reproducer, then the explained cases,
then "smbdiff: N passed, N failed".
"""

import argparse
import os
import random
import shutil
import sys

import subprocess

from samba.dcerpc import security
from samba.samba3 import libsmb_samba_internal as libsmb

from smbcommon import (ACE_ALLOW, ACE_DENY, AUTHUSERS, DENIED, D_CHILD, DELETE, EVERYONE,
                       FILE_CREATE, FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE, FILE_OPEN,
                       F_DIR_INHERIT, F_FILE_INHERIT, F_GROUP, F_SPECIAL, GROUP, OK, OWNER, P,
                       R, READ_ACL, READ_ATTRS, SHARE, SHARE_ALL, STAFF, SYNC, USERS, W,
                       WRITE_ACL, WRITE_ATTRS, WRITE_OWNER, X, Server, acl_text, as_user,
                       encode, set_blob, smb, smbd_groups, w, wbinfo_gid)

# NT access rights (MS-DTYP 2.4.3 / MS-SMB2 2.2.13.1)
NT_READ_DATA, NT_WRITE_DATA, NT_APPEND_DATA = 0x1, 0x2, 0x4
NT_DELETE, NT_WRITE_DAC, NT_WRITE_OWNER = 0x10000, 0x40000, 0x80000
NT_READ_ATTRIBUTES, NT_SYNCHRONIZE = 0x80, 0x100000

OPS = ["read", "write", "append", "write_dac", "write_owner", "owner_dacl", "dosattr",
       "times", "delete", "rename", "create", "mkdir", "dosread", "notify"]
# the DOS attributes every case's f holds in user.DOSATTRIB (text form):
# HIDDEN | SYSTEM, which smbd derives from neither mode nor name (not
# READONLY: smbd refuses writes and deletes of a read-only file itself)
STORED_DOS = 0x6
UIDS = {0: "root", 1001: "alice", 1002: "bob", 1003: "carol"}
NETWORK = "S-1-5-2"                     # in every SMB token; a gid only with winbindd
UNMAPPED = [NETWORK, "S-1-5-21-1111-2222-3333-4444", "S-1-0-0"]
INVALID_OWNER = "NT_STATUS_INVALID_OWNER"


class Ids:
    """The gids of the well-known SIDs in this identity setup."""

    def __init__(self, identity):
        if identity == "winbind":
            self.authusers = wbinfo_gid("S-1-5-11")
            self.network = wbinfo_gid(NETWORK)
            if self.authusers is None or self.network is None:
                raise SystemExit("smbdiff: winbindd gives no gid to S-1-5-11 / S-1-5-2")
            self.token_groups = [self.authusers, self.network]
        else:
            self.authusers, self.network = AUTHUSERS, None
            self.token_groups = [AUTHUSERS]
        self.gids = [1001, 1002, 1003, STAFF, 0] + self.token_groups


def random_entries(rng, isdir, ids):
    bits = [R, W, P, X, D_CHILD, DELETE, WRITE_ATTRS, WRITE_ACL, WRITE_OWNER]
    entries = []
    for _ in range(rng.randint(0, 6)):
        kind = rng.random()
        if kind < 0.2:
            flags, ident = F_SPECIAL, OWNER
        elif kind < 0.35:
            flags, ident = F_SPECIAL, GROUP
        elif kind < 0.55:
            flags, ident = F_SPECIAL, EVERYONE
        elif kind < 0.72:
            flags, ident = 0, rng.choice([1001, 1002, 1003])
        elif kind < 0.86:
            flags, ident = F_GROUP, rng.choice([1001, 1002, 1003, STAFF] + ids.token_groups)
        else:
            flags, ident = 0, rng.choice(UNMAPPED)
        mask = 0
        for b in bits:
            if rng.random() < 0.45:
                mask |= b
        if not isdir:
            mask &= ~D_CHILD
        if rng.random() < 0.5:
            mask |= READ_ATTRS | READ_ACL | SYNC
        type_ = ACE_ALLOW if rng.random() < 0.7 else ACE_DENY
        entries.append((type_, flags, mask, ident))
    return entries


class Case:
    def __init__(self, rng, root, n, ids):
        self.n = n
        self.user = rng.choice(["alice", "bob", "carol"])
        self.op = rng.choice(OPS)
        self.dir_owner = rng.choice(list(UIDS))
        self.dir_group = rng.choice(ids.gids)
        self.file_owner = rng.choice(list(UIDS))
        self.file_group = rng.choice(ids.gids)
        # traversal is not the question here (SMB has no traverse check)
        dir_entries = [(ACE_ALLOW, F_SPECIAL, X, EVERYONE)]
        # notify: another user creates a file in the dir over SMB (an entry
        # before the random ones lets him), and the question is whether the
        # user is told its name
        self.writer = None
        if self.op == "notify":
            self.writer = rng.choice([u for u in ("alice", "bob", "carol") if u != self.user])
            dir_entries.append((ACE_ALLOW, 0, W | X, USERS[self.writer][0]))
        dir_entries += random_entries(rng, True, ids)
        self.dir_entries = dir_entries
        self.dir_acl = encode(dir_entries)
        self.file_entries = random_entries(rng, False, ids)
        self.file_acl = encode(self.file_entries)
        self.root = root

    def rel(self, side, name=""):
        return f"sd/c{self.n}-{side}" + (f"/{name}" if name else "")

    def build(self, side):
        d = os.path.join(self.root, self.rel(side))
        if os.path.lexists(d):
            shutil.rmtree(d)
        os.mkdir(d, 0o755)
        f = os.path.join(d, "f")
        with open(f, "wb") as fh:
            fh.write(b"content\n")
        os.chown(f, self.file_owner, self.file_group)
        os.chown(d, self.dir_owner, self.dir_group)
        os.setxattr(f, "user.DOSATTRIB", b"0x%x\0" % STORED_DOS)
        set_blob(f, self.file_acl)
        set_blob(d, self.dir_acl)

    def describe(self, groups):
        return (f"user {self.user} {USERS[self.user][:2]} groups {groups} op {self.op}; "
                f"dir owner {self.dir_owner} group {self.dir_group} acl [{acl_text(self.dir_acl)}]; "
                f"file owner {self.file_owner} group {self.file_group} acl [{acl_text(self.file_acl)}]")


def smb_set_sd(conn, path, access, secinfo, sd):
    st, fnum = smb(conn.create, path, DesiredAccess=access, ShareAccess=SHARE_ALL,
                   CreateDisposition=FILE_OPEN, CreateOptions=FILE_NON_DIRECTORY_FILE)
    if st != OK:
        return st
    try:
        return smb(conn.set_sd, fnum, sd, secinfo)[0]
    finally:
        smb(conn.close, fnum)


def new_sd(uid, owner=False):
    """A DACL granting uid everything and everybody read; with owner=True
    also the owner S-1-22-1-<uid>."""
    sd = security.descriptor()
    sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
    if owner:
        sd.owner_sid = security.dom_sid(f"S-1-22-1-{uid}")
    sd.dacl = security.acl()
    sd.dacl.revision = security.SECURITY_ACL_REVISION_NT4
    for sid, mask in ((f"S-1-22-1-{uid}", 0x1F01FF), ("S-1-1-0", 0x120089)):
        ace = security.ace()
        ace.type = security.SEC_ACE_TYPE_ACCESS_ALLOWED
        ace.flags = 0
        ace.access_mask = mask
        ace.trustee = security.dom_sid(sid)
        sd.dacl_add(ace)
    return sd


def smb_client(srv, user, command):
    """smbclient -c command as user; the NTSTATUS it reports (OK if none)."""
    res = subprocess.run(["smbclient", f"//127.0.0.1/{SHARE}", "-s", srv.conf,
                          "-U", f"{user}%{srv.passwords[user]}", "-c", command],
                         capture_output=True, text=True, timeout=120)
    out = res.stdout + res.stderr
    for word in out.split():
        if word.startswith("NT_STATUS_"):
            return word
    return OK if res.returncode == 0 else f"smbclient exit {res.returncode}"


def notify_side(srv, conns, c):
    """Is c.user told the name that c.writer creates in the case's dir?
    c.user watches sd/ (everybody may list it) recursively; the writer
    creates dir/nt and then sd/ctl-N, which the user may list, as a
    marker: every event before it has arrived once the marker has."""
    conn = conns[c.user]
    if c.writer not in conns:
        conns[c.writer] = srv.connect(c.writer)
    wconn = conns[c.writer]
    flt = libsmb.FILE_NOTIFY_CHANGE_FILE_NAME
    st, fnum = smb(conn.create, "sd", DesiredAccess=NT_READ_DATA | NT_SYNCHRONIZE,
                   ShareAccess=SHARE_ALL, CreateDisposition=FILE_OPEN,
                   CreateOptions=FILE_DIRECTORY_FILE)
    if st != OK:
        return f"watch {st}"
    marker = f"sd\\ctl-{c.n}"
    try:
        req = conn.notify(fnum=fnum, buffer_size=0xffff, completion_filter=flt,
                          recursive=True)
        # notify() returns once the request is sent; a reply to a later
        # request shows that smbd has taken it and registered the watch
        smb(conn.chkpath, "sd")
        for path in (w(c.rel("smb", "nt")), marker):
            wst, wfnum = smb(wconn.create, path,
                             DesiredAccess=NT_READ_ATTRIBUTES | NT_SYNCHRONIZE,
                             ShareAccess=SHARE_ALL, CreateDisposition=FILE_CREATE,
                             CreateOptions=FILE_NON_DIRECTORY_FILE)
            if wst != OK:
                return "writer " + wst
            wconn.close(wfnum)
        names = []
        for _ in range(8):
            gst, changes = smb(req.get_changes, wait=True)
            if gst != OK:
                conns.pop(c.user, None)     # a request is left pending on it
                return f"changes {gst}"
            names += [ch["name"] for ch in changes]
            if any(n.endswith(f"ctl-{c.n}") for n in names):
                break
            req = conn.notify(fnum=fnum, buffer_size=0xffff, completion_filter=flt,
                              recursive=True)
        else:
            return f"no marker in {names}"
        return OK if any(n.endswith("\\nt") for n in names) else DENIED
    finally:
        smb(conn.close, fnum)
        smb(wconn.unlink, marker)


def smb_side(srv, conn, c):
    f = w(c.rel("smb", "f"))
    uid = USERS[c.user][0]
    access = {"read": NT_READ_DATA, "write": NT_WRITE_DATA, "append": NT_APPEND_DATA}
    if c.op in access:
        st, fnum = smb(conn.create, f, DesiredAccess=access[c.op], ShareAccess=SHARE_ALL,
                       CreateDisposition=FILE_OPEN, CreateOptions=FILE_NON_DIRECTORY_FILE)
        if st == OK:
            conn.close(fnum)
        return st
    if c.op == "write_dac":
        return smb_set_sd(conn, f, NT_WRITE_DAC, security.SECINFO_DACL, new_sd(uid))
    if c.op == "write_owner":
        sd = security.descriptor()
        sd.type = security.SEC_DESC_SELF_RELATIVE
        sd.owner_sid = security.dom_sid(f"S-1-22-1-{uid}")
        return smb_set_sd(conn, f, NT_WRITE_OWNER, security.SECINFO_OWNER, sd)
    if c.op == "owner_dacl":
        return smb_set_sd(conn, f, NT_WRITE_OWNER | NT_WRITE_DAC,
                          security.SECINFO_OWNER | security.SECINFO_DACL, new_sd(uid, True))
    if c.op == "dosattr":
        return smb_client(srv, c.user, f"setmode {f} +h")
    if c.op == "times":
        return smb_client(srv, c.user, f"utimes {f} -1 -1 2001:02:03-04:05:06 -1")
    if c.op == "delete":
        return smb(conn.unlink, f)[0]
    if c.op == "rename":
        return smb(conn.rename, f, w(c.rel("smb", "g")))[0]
    if c.op == "create":
        st, fnum = smb(conn.create, w(c.rel("smb", "new")),
                       DesiredAccess=NT_READ_ATTRIBUTES | NT_SYNCHRONIZE,
                       ShareAccess=SHARE_ALL, CreateDisposition=FILE_CREATE,
                       CreateOptions=FILE_NON_DIRECTORY_FILE)
        if st == OK:
            conn.close(fnum)
        return st
    if c.op == "dosread":
        # smbd reads the attributes it lists, as root when the user may not
        # (fget_ea_dos_attribute()): "allowed" means the stored ones show
        st, entries = smb(conn.list, w(c.rel("smb")))
        if st != OK:
            return st
        attrib = next((e["attrib"] for e in entries if e["name"] == "f"), None)
        if attrib is None:
            return "f not listed"
        shown = attrib & STORED_DOS
        return OK if shown == STORED_DOS else DENIED if shown == 0 else f"attrib 0x{attrib:x}"
    if c.op == "mkdir":
        st, fnum = smb(conn.create, w(c.rel("smb", "new")),
                       DesiredAccess=NT_READ_ATTRIBUTES | NT_SYNCHRONIZE,
                       ShareAccess=SHARE_ALL, CreateDisposition=FILE_CREATE,
                       CreateOptions=FILE_DIRECTORY_FILE)
        if st == OK:
            conn.close(fnum)
        return st
    raise ValueError(c.op)


def local_side(c, root, groups):
    """The kernel's verdict ("OK" or the errno name), and for the
    explanations of a stricter smbd: how it was reached ("" or a note)."""
    d = os.path.join(root, c.rel("loc"))
    f = os.path.join(d, "f")
    uid = USERS[c.user][0]
    t = (981173106, 981173106)

    def run_as(fn):
        return as_user(c.user, fn, groups)

    if c.op == "dosattr":
        res = run_as(lambda: os.utime(f, t))
        if res in ("EACCES", "EPERM"):
            res = run_as(lambda: os.setxattr(f, "user.DOSATTRIB", b"0x22"))
            return res, "xattr" if res == "OK" else ""
        return res, ""
    if c.op == "owner_dacl":
        # the same acl again: changes nothing, asks for write_acl as non-owner
        probe = run_as(lambda: os.setxattr(f, "system.richacl", c.file_acl))

        def both():
            os.chown(f, uid, -1)
            os.setxattr(f, "system.richacl", c.file_acl)
        return run_as(both), "" if probe == "OK" else "no-write-acl-before"

    def op():
        if c.op in ("read", "write", "append"):
            flags = {"read": os.O_RDONLY, "write": os.O_WRONLY,
                     "append": os.O_WRONLY | os.O_APPEND}[c.op]
            os.close(os.open(f, flags))
        elif c.op == "write_dac":
            os.setxattr(f, "system.richacl", c.file_acl)
        elif c.op == "write_owner":
            os.chown(f, uid, -1)
        elif c.op == "times":
            os.utime(f, t)
        elif c.op == "delete":
            os.unlink(f)
        elif c.op == "rename":
            os.listdir(d)       # smbd's case-insensitive scan (see above)
            os.rename(f, os.path.join(d, "g"))
        elif c.op == "create":
            os.close(os.open(os.path.join(d, "new"), os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o644))
        elif c.op == "mkdir":
            os.mkdir(os.path.join(d, "new"), 0o755)
        elif c.op == "dosread":
            os.listdir(d)       # a listing is what shows them over SMB
            os.getxattr(f, "user.DOSATTRIB")
        elif c.op == "notify":
            os.listdir(d)       # the names in dir (an inotify watch needs as much)
    return run_as(op), ""


def explain_stricter(c, how):
    """Why smbd may refuse what the kernel grants in case c (None: no reason)."""
    if any(t == ACE_DENY and i == NETWORK
           for t, _f, _m, i in c.file_entries + c.dir_entries):
        return "unmapped-deny"
    if (c.op in ("dosattr", "times", "write_owner", "owner_dacl") and
            USERS[c.user][0] == c.file_owner):
        return "owner-implicit"
    if c.op == "owner_dacl" and how == "no-write-acl-before":
        return "handle-dacl"
    if c.op == "dosattr" and how == "xattr":
        return "xattr-write"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--max-report", type=int, default=15)
    ap.add_argument("--identity", choices=["passdb", "winbind"], default="passdb")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    srv = Server(args.state)
    ids = Ids(args.identity)
    os.makedirs(os.path.join(args.path, "sd"), exist_ok=True)
    os.chmod(os.path.join(args.path, "sd"), 0o777)
    conns, groups = {}, {}
    passed = failed = 0
    stats, explained, grants_more = {}, {}, 0
    print(f"smbdiff: seed {args.seed}, {args.cases} cases, identity {args.identity} "
          f"(Authenticated Users gid {ids.authusers}, NETWORK gid {ids.network})", flush=True)
    for n in range(args.cases):
        c = Case(rng, args.path, n, ids)
        c.build("smb")
        c.build("loc")
        if c.user not in conns:
            conns[c.user] = srv.connect(c.user)
        if c.user not in groups:
            smb(conns[c.user].list, "")
            groups[c.user] = smbd_groups(USERS[c.user][0])
            if groups[c.user] is None:
                print(f"smbdiff: no smbd process runs as {c.user}; using {USERS[c.user][2]}")
                groups[c.user] = USERS[c.user][2]
            print(f"smbdiff: smbd runs {c.user}'s requests with groups {groups[c.user]}",
                  flush=True)
        try:
            if c.op == "notify":
                st = notify_side(srv, conns, c)
            else:
                st = smb_side(srv, conns[c.user], c)
        except Exception as e:  # noqa: B902 - a dropped connection is a finding
            st = f"EXCEPTION {e!r}"
            conns.pop(c.user, None)
            conns.pop(c.writer, None)
        loc, how = local_side(c, args.path, groups[c.user])
        smb_allowed = {OK: True, DENIED: False, INVALID_OWNER: False}.get(st)
        if c.op in ("dosattr", "times") and st == "NT_STATUS_OBJECT_NAME_NOT_FOUND":
            smb_allowed = False
        loc_allowed = {"OK": True, "EACCES": False, "EPERM": False}.get(loc)
        key = f"{c.op}:{'allow' if smb_allowed else 'deny'}"
        stats[key] = stats.get(key, 0) + 1
        why = None
        if smb_allowed is False and loc_allowed is True:
            why = explain_stricter(c, how)
        if why:
            explained[why] = explained.get(why, 0) + 1
            passed += 1
        elif smb_allowed is None or loc_allowed is None or smb_allowed != loc_allowed:
            failed += 1
            if smb_allowed and loc_allowed is False:
                grants_more += 1
            if failed <= args.max_report:
                print(f"MISMATCH smbdiff seed {args.seed} case {n}: SMB {st}, kernel {loc}; "
                      f"{c.describe(groups[c.user])}", flush=True)
        else:
            passed += 1
        for side in ("smb", "loc"):
            shutil.rmtree(os.path.join(args.path, c.rel(side)), ignore_errors=True)
    print("smbdiff: outcomes " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    print("smbdiff: smbd stricter than the kernel, explained: " +
          (", ".join(f"{k} {v}" for k, v in sorted(explained.items())) or "none"))
    print(f"smbdiff: smbd granted what the kernel refused: {grants_more}")
    if srv.smbd_pid() is None:
        print("smbdiff: smbd is not running any more")
        failed += 1
    print(f"smbdiff: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
