#!/usr/bin/python3
"""smbd's decision vs the kernel's on random richacls (S-K1 at random).

Runs as root in the QEMU guest (testenv/robust/guest.sh) against the smbd of
testenv/smb/server.sh.  Every case builds two identical fixtures in the
share, PATH/sd/cN-smb and PATH/sd/cN-loc: a directory with a random richacl
(an everyone@:x entry first, so that path traversal is never the question)
holding a file f with a random richacl, random owners and owning groups from
alice, bob, carol and root.  Then, as a random user of alice, bob, carol, it
performs one operation over SMB on the -smb copy and the same operation
through local system calls with the same uid, gid and groups on the -loc
copy, and compares:

  SMB                              local
  open f READ_DATA                 open(O_RDONLY)
  open f WRITE_DATA                open(O_WRONLY)
  open f APPEND_DATA               open(O_WRONLY|O_APPEND)
  open f WRITE_DAC                 setxattr(system.richacl) of the same acl
  open f WRITE_OWNER (not owner)   chown(f, own uid)
  delete f (delete on close)       unlink(f)
  rename f -> g in the dir         opendir(dir) + readdir, then rename(f, g)
  create file / directory in dir   open(O_CREAT|O_EXCL) / mkdir

On a case-insensitive share (the default), smbd 4.17 looks for a
case-insensitive match of a new name by reading the directory
(get_real_filename_full_scan_at()); only creates turn a refused scan into
"not found" (the UCF_PREP_CREATEFILE "dropbox" case in filename.c), so a
rename target needs list_directory on its directory.  The local side of a
rename lists the directory first to ask the kernel the same question
(docs/smb-semantics.md, "Rename targets and directory listing").

NT_STATUS_OK must go with success and NT_STATUS_ACCESS_DENIED with
EACCES / EPERM; any other status or errno is reported too.  WRITE_OWNER is
only compared for non-owners: Windows grants an owner no implicit
WRITE_OWNER, while chown to oneself is a no-op that the kernel allows.

Output: one line per mismatch with a reproducer, then
"smbdiff: N passed, N failed".
"""

import argparse
import os
import random
import shutil
import sys

from smbcommon import (ACE_ALLOW, ACE_DENY, DENIED, D_CHILD, DELETE, EVERYONE, FILE_CREATE,
                       FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE, FILE_OPEN, F_DIR_INHERIT,
                       F_FILE_INHERIT, F_GROUP, F_SPECIAL, GROUP, OK, OWNER, P, R, READ_ACL,
                       READ_ATTRS, SHARE_ALL, STAFF, SYNC, USERS, W, WRITE_ACL, WRITE_ATTRS,
                       WRITE_OWNER, X, Server, acl_text, as_user, encode, set_blob, smb, w)

# NT access rights (MS-DTYP 2.4.3 / MS-SMB2 2.2.13.1)
NT_READ_DATA, NT_WRITE_DATA, NT_APPEND_DATA = 0x1, 0x2, 0x4
NT_DELETE, NT_WRITE_DAC, NT_WRITE_OWNER = 0x10000, 0x40000, 0x80000
NT_READ_ATTRIBUTES, NT_SYNCHRONIZE = 0x80, 0x100000

OPS = ["read", "write", "append", "write_dac", "write_owner", "delete", "rename",
       "create", "mkdir"]
UIDS = {0: "root", 1001: "alice", 1002: "bob", 1003: "carol"}
GIDS = [1001, 1002, 1003, STAFF, 0]


def random_entries(rng, isdir):
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
        elif kind < 0.8:
            flags, ident = 0, rng.choice([1001, 1002, 1003])
        else:
            flags, ident = F_GROUP, rng.choice([1001, 1002, 1003, STAFF])
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
    def __init__(self, rng, root, n):
        self.n = n
        self.user = rng.choice(["alice", "bob", "carol"])
        self.op = rng.choice(OPS)
        self.dir_owner = rng.choice(list(UIDS))
        self.dir_group = rng.choice(GIDS)
        self.file_owner = rng.choice(list(UIDS))
        self.file_group = rng.choice(GIDS)
        # traversal is not the question here (SMB has no traverse check)
        dir_entries = [(ACE_ALLOW, F_SPECIAL, X, EVERYONE)] + random_entries(rng, True)
        self.dir_acl = encode(dir_entries)
        self.file_acl = encode(random_entries(rng, False))
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
        set_blob(f, self.file_acl)
        set_blob(d, self.dir_acl)

    def describe(self):
        return (f"user {self.user} {USERS[self.user]} op {self.op}; "
                f"dir owner {self.dir_owner} group {self.dir_group} acl [{acl_text(self.dir_acl)}]; "
                f"file owner {self.file_owner} group {self.file_group} acl [{acl_text(self.file_acl)}]")


def smb_side(conn, c):
    f = w(c.rel("smb", "f"))
    access = {"read": NT_READ_DATA, "write": NT_WRITE_DATA, "append": NT_APPEND_DATA,
              "write_dac": NT_WRITE_DAC, "write_owner": NT_WRITE_OWNER}
    if c.op in access:
        st, fnum = smb(conn.create, f, DesiredAccess=access[c.op], ShareAccess=SHARE_ALL,
                       CreateDisposition=FILE_OPEN, CreateOptions=FILE_NON_DIRECTORY_FILE)
        if st == OK:
            conn.close(fnum)
        return st
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
    if c.op == "mkdir":
        st, fnum = smb(conn.create, w(c.rel("smb", "new")),
                       DesiredAccess=NT_READ_ATTRIBUTES | NT_SYNCHRONIZE,
                       ShareAccess=SHARE_ALL, CreateDisposition=FILE_CREATE,
                       CreateOptions=FILE_DIRECTORY_FILE)
        if st == OK:
            conn.close(fnum)
        return st
    raise ValueError(c.op)


def local_side(c, root):
    d = os.path.join(root, c.rel("loc"))
    f = os.path.join(d, "f")
    uid = USERS[c.user][0]

    def op():
        if c.op in ("read", "write", "append"):
            flags = {"read": os.O_RDONLY, "write": os.O_WRONLY,
                     "append": os.O_WRONLY | os.O_APPEND}[c.op]
            os.close(os.open(f, flags))
        elif c.op == "write_dac":
            os.setxattr(f, "system.richacl", c.file_acl)
        elif c.op == "write_owner":
            os.chown(f, uid, -1)
        elif c.op == "delete":
            os.unlink(f)
        elif c.op == "rename":
            os.listdir(d)       # smbd's case-insensitive scan (see above)
            os.rename(f, os.path.join(d, "g"))
        elif c.op == "create":
            os.close(os.open(os.path.join(d, "new"), os.O_RDONLY | os.O_CREAT | os.O_EXCL, 0o644))
        elif c.op == "mkdir":
            os.mkdir(os.path.join(d, "new"), 0o755)
    return as_user(c.user, op)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--max-report", type=int, default=15)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    srv = Server(args.state)
    os.makedirs(os.path.join(args.path, "sd"), exist_ok=True)
    os.chmod(os.path.join(args.path, "sd"), 0o777)
    conns = {}
    passed = failed = skipped = 0
    stats = {}
    print(f"smbdiff: seed {args.seed}, {args.cases} cases", flush=True)
    for n in range(args.cases):
        c = Case(rng, args.path, n)
        if c.op == "write_owner" and USERS[c.user][0] == c.file_owner:
            skipped += 1        # see the docstring: not comparable for the owner
            continue
        c.build("smb")
        c.build("loc")
        if c.user not in conns:
            conns[c.user] = srv.connect(c.user)
        try:
            st = smb_side(conns[c.user], c)
        except Exception as e:  # noqa: B902 - a dropped connection is a finding
            st = f"EXCEPTION {e!r}"
            conns.pop(c.user, None)
        loc = local_side(c, args.path)
        smb_allowed = {OK: True, DENIED: False}.get(st)
        loc_allowed = {"OK": True, "EACCES": False, "EPERM": False}.get(loc)
        key = f"{c.op}:{'allow' if smb_allowed else 'deny'}"
        stats[key] = stats.get(key, 0) + 1
        if smb_allowed is None or loc_allowed is None or smb_allowed != loc_allowed:
            failed += 1
            if failed <= args.max_report:
                print(f"MISMATCH smbdiff seed {args.seed} case {n}: SMB {st}, kernel {loc}; "
                      f"{c.describe()}", flush=True)
        else:
            passed += 1
        for side in ("smb", "loc"):
            shutil.rmtree(os.path.join(args.path, c.rel(side)), ignore_errors=True)
    print("smbdiff: outcomes " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    print(f"smbdiff: {skipped} write_owner cases skipped (caller owns the file)")
    if srv.smbd_pid() is None:
        print("smbdiff: smbd is not running any more")
        failed += 1
    print(f"smbdiff: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
