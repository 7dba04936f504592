#!/usr/bin/python3
"""The SMB half of the crash consistency test (guest.sh crash).

   crash_smb.py --state DIR --dir SHAREDIR/crash-smb --log FILE [--seed N] [--files N]

Writes DACLs through smbd (and so through vfs_richacl) in a loop until the
host kills QEMU, keeping the same log format as `crash write`, so that
`crash check` can check these files after the next boot:

  - the files DIR/f0 .. f<N-1> belong to alice (made as root once);
  - a fixed set of DACLs is used; each holds an ACE for a SID that maps to
    no id, so the module stores an unmapped entry (M9) and the acl is never
    equivalent to a mode: there is always an xattr to compare;
  - at start, each DACL is set over SMB on a scratch file and the resulting
    system.richacl value is read back: that is the value the DACL gives;
  - loop: append "I <file> <hex value>" to the log and fsync it, set the
    DACL over SMB as alice, fsync the file as root (the SMB reply does not
    mean the change is durable), append "D <file>" and fsync the log.
"""

import argparse
import os
import random
import re
import subprocess
import sys

from samba.dcerpc import security

from smbcommon import OK, SHARE_ALL, Server, get_blob, smb

UNMAPPED = "S-1-5-21-1004336348-1177238915-682003330-1105"
DACLS = [
    [(0, 0x1F01FF, "S-1-1-0"), (1, 0x2, "S-1-22-1-1003")],
    [(0, 0x120089, "S-1-1-0"), (0, 0x1F01FF, UNMAPPED)],
    [(1, 0x10000, "S-1-1-0"), (0, 0x120116, "S-1-1-0"), (0, 0x1, UNMAPPED)],
    [(0, 0x1F01FF, "bob"), (1, 0x1F01FF, "S-1-22-1-1003"), (0, 0x120089, "S-1-1-0")],
    [(1, 0x2, "bob"), (0, 0x1F01FF, "S-1-1-0"), (0, 0x4, UNMAPPED)],
    [(0, 0x1200A9, UNMAPPED), (0, 0x1F01FF, "alice")],
]


def sids(state):
    out = subprocess.run(["pdbedit", "-s", os.path.join(state, "smb.conf"), "-L", "-v"],
                         capture_output=True, text=True).stdout
    res, name = {}, None
    for line in out.splitlines():
        m = re.match(r"Unix username:\s+(\S+)", line)
        if m:
            name = m.group(1)
        m = re.match(r"User SID:\s+(S-\S+)", line)
        if m and name:
            res[name] = m.group(1)
    return res


def descriptor(entries, names):
    sd = security.descriptor()
    sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
    for t, mask, who in entries:
        a = security.ace()
        a.type = security.SEC_ACE_TYPE_ACCESS_DENIED if t else security.SEC_ACE_TYPE_ACCESS_ALLOWED
        a.flags = 0
        a.access_mask = mask
        a.trustee = security.dom_sid(names.get(who, who))
        sd.dacl_add(a)
    return sd


def set_dacl(conn, rel, sd):
    st, fnum = smb(conn.create, rel, DesiredAccess=0x40000 | 0x20000, ShareAccess=SHARE_ALL,
                   CreateDisposition=1, CreateOptions=0x40)
    if st != OK:
        return st
    st2, _ = smb(conn.set_sd, fnum, sd, security.SECINFO_DACL)
    conn.close(fnum)
    return st2


def log_line(fd, text):
    os.write(fd, text.encode())
    os.fsync(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=8)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    os.chmod(args.dir, 0o777)
    reldir = os.path.basename(os.path.abspath(args.dir))
    paths = [os.path.join(args.dir, f"f{k}") for k in range(args.files)] + \
        [os.path.join(args.dir, "learn")]
    for p in paths:
        if not os.path.exists(p):
            fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
            os.fsync(fd)
            os.close(fd)
        os.chown(p, 1001, 1001)
    names = sids(args.state)
    srv = Server(args.state)
    conn = srv.connect("alice")
    values = []
    for k, entries in enumerate(DACLS):
        st = set_dacl(conn, f"{reldir}\\learn", descriptor(entries, names))
        blob = get_blob(os.path.join(args.dir, "learn"))
        if st != OK or blob is None:
            print(f"crash-smb: DACL {k}: set {st}, stored value {blob!r}: cannot learn it")
            return 1
        values.append(blob)
    print(f"crash-smb: learned {len(values)} DACL values, writing", flush=True)
    logfd = os.open(args.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    n = 0
    while True:
        f = rng.randrange(args.files)
        k = rng.randrange(len(DACLS))
        log_line(logfd, f"I {f} {values[k].hex()}\n")
        st = set_dacl(conn, f"{reldir}\\f{f}", descriptor(DACLS[k], names))
        if st != OK:
            print(f"crash-smb: setting DACL {k} on f{f}: {st}", flush=True)
            return 1
        fd = os.open(os.path.join(args.dir, f"f{f}"), os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        log_line(logfd, f"D {f}\n")
        n += 1
        if n % 100 == 0:
            print(f"crash-smb: {n} DACLs written", flush=True)


if __name__ == "__main__":
    sys.exit(main())
