#!/usr/bin/python3
"""Hostile security descriptors over SMB2 SET_INFO (SEMANTICS.md M7, M10, M11).

Runs as root in the QEMU guest against the smbd of testenv/smb/server.sh.
As alice (the owner of the target file / directory, so WRITE_DAC is hers),
it sends raw self-relative descriptors with impacket's SMB2 SET_INFO
(InfoType SECURITY): truncated ones, wrong SD and ACL revisions, ACE counts
far beyond the data, bad SIDs (too many sub-authorities, wrong revision,
cut short), object ACEs, audit / alarm / callback / label / unknown ACE
types in a DACL, access bits richacl cannot hold, bad ACE and ACL sizes,
offsets outside the buffer, a SACL, a NULL DACL, an empty DACL, inheritance
flags on a file, a very long DACL, random byte flips and random bytes.

For every descriptor:
  - the answer is an NTSTATUS (never a dropped connection) and the session
    still works afterwards (a QUERY_INFO on the same handle);
  - a refused descriptor leaves the stored acl, the mode, the owner and the
    group exactly as they were (M7);
  - descriptors that must be refused (M10: unknown ACL revisions, object,
    audit, alarm, callback and unknown ACE types, bits richacl cannot hold;
    malformed ones; an owner or group SID without a uid / gid) are refused,
    and the ones that must be accepted (NULL
    DACL -> everyone@ full access, empty DACL, inheritance flags on a file
    that M11 drops) are accepted.
At the end smbd (the parent process) must still be running.

Output: FAIL lines, a histogram of statuses, "hostile: N passed, N failed"
(N descriptors).
"""

import argparse
import os
import random
import struct
import sys

from impacket import smb3, smbconnection
from impacket.smb3structs import SMB2_0_INFO_SECURITY, SMB2_DIALECT_21

from smbcommon import Server, encode, file_state, set_blob

OWNER_SI, GROUP_SI, DACL_SI, SACL_SI = 1, 2, 4, 8
SE_DACL_PRESENT, SE_SACL_PRESENT, SE_SELF_RELATIVE = 0x4, 0x10, 0x8000
READ_CONTROL, WRITE_DAC, WRITE_OWNER = 0x20000, 0x40000, 0x80000
FILE_READ_ATTRIBUTES, SYNCHRONIZE = 0x80, 0x100000
FULL = 0x1F01FF

STATUS_NAMES = {v: k for k, v in vars(__import__("impacket.nt_errors", fromlist=["x"])).items()
                if k.startswith("STATUS_") and isinstance(v, int)}


def sid_bytes(text=None, rev=1, auth=None, subs=None):
    if text:
        parts = text.split("-")
        auth = int(parts[2])
        subs = [int(x) for x in parts[3:]]
    return (struct.pack("<BB", rev, len(subs)) + auth.to_bytes(6, "big") +
            b"".join(struct.pack("<I", s) for s in subs))


EVERYONE = sid_bytes("S-1-1-0")
CREATOR_OWNER = sid_bytes("S-1-3-0")
UNMAPPED = sid_bytes("S-1-5-21-1004336348-1177238915-682003330-1105")


def ace_bytes(type_, flags, mask, sid, size=None):
    body = struct.pack("<I", mask) + sid
    if size is None:
        size = 4 + len(body)
    return struct.pack("<BBH", type_, flags, size) + body


def acl_bytes(aces, rev=2, count=None, size=None):
    data = b"".join(aces)
    if count is None:
        count = len(aces)
    if size is None:
        size = 8 + len(data)
    return struct.pack("<BBHHH", rev, 0, size, count, 0) + data


def sd_bytes(dacl=b"", owner=None, group=None, sacl=None, control=None, rev=1, null_dacl=False):
    off = 20
    parts = b""
    o_owner = o_group = o_sacl = o_dacl = 0
    if control is None:
        control = SE_SELF_RELATIVE | SE_DACL_PRESENT
    if owner is not None:
        o_owner, parts, off = off, parts + owner, off + len(owner)
    if group is not None:
        o_group, parts, off = off, parts + group, off + len(group)
    if sacl is not None:
        control |= SE_SACL_PRESENT
        o_sacl, parts, off = off, parts + sacl, off + len(sacl)
    if not null_dacl and dacl:
        o_dacl, parts, off = off, parts + dacl, off + len(dacl)
    return struct.pack("<BBHIIII", rev, 0, control, o_owner, o_group, o_sacl, o_dacl) + parts


def good_dacl(isdir):
    flags = 0x3 if isdir else 0
    return acl_bytes([ace_bytes(0, 0, FULL, EVERYONE),
                      ace_bytes(1, flags, 0x2, UNMAPPED),
                      ace_bytes(0, flags | (0x8 if isdir else 0), 0x1200A9,
                                CREATOR_OWNER if isdir else EVERYONE)])


def templates(rng, isdir, alice_sid):
    """(name, expectation, sd bytes, security_info); expectation: reject/accept/any."""
    info = DACL_SI
    good = sd_bytes(good_dacl(isdir))
    t = []
    full = sd_bytes(good_dacl(isdir), owner=alice_sid, group=sid_bytes("S-1-1-0"))
    for _ in range(4):
        cut = rng.randrange(1, len(full))
        t.append(("truncated", "any", full[:cut], info | OWNER_SI | GROUP_SI))
    t.append(("truncated-header", "reject", good[:rng.randrange(1, 20)], info))
    for rev in (0, 2, 255):
        t.append(("sd-revision", "any", sd_bytes(good_dacl(isdir), rev=rev), info))
    for rev in (0, 1, 5, 255):
        aces = [ace_bytes(0, 0, FULL, EVERYONE)]
        t.append((f"acl-revision-{rev}", "reject", sd_bytes(acl_bytes(aces, rev=rev)), info))
    # 2 (NT4) and 4 (DS) are the documented revisions; the library also takes 3
    aces = [ace_bytes(0, 0, FULL, EVERYONE)]
    t.append(("acl-revision-3", "any", sd_bytes(acl_bytes(aces, rev=3)), info))
    for count in (5000, 65535, 2):
        aces = [ace_bytes(0, 0, FULL, EVERYONE)]
        t.append(("huge-ace-count", "reject", sd_bytes(acl_bytes(aces, count=count)), info))
    for sid in (struct.pack("<BB", 1, 16) + bytes(6) + bytes(64),
                struct.pack("<BB", 1, 255) + bytes(6) + bytes(64),
                sid_bytes(rev=2, auth=5, subs=[32, 544]),
                sid_bytes(rev=1, auth=5, subs=[21, 1, 2, 3])[:-3]):
        aces = [ace_bytes(0, 0, FULL, sid)]
        t.append(("bad-sid", "reject", sd_bytes(acl_bytes(aces)), info))
    t.append(("bad-owner-sid", "reject",
              sd_bytes(good_dacl(isdir), owner=struct.pack("<BB", 1, 20) + bytes(6)),
              info | OWNER_SI))
    # valid SIDs that no uid / gid stands for: a richacl's owner and group
    # are the file's uid and gid, so these are refused (INVALID_OWNER), not
    # replaced by the caller's ids
    t.append(("unmapped-owner", "reject", sd_bytes(good_dacl(isdir), owner=EVERYONE),
              info | OWNER_SI))
    t.append(("unmapped-group", "reject",
              sd_bytes(good_dacl(isdir), group=sid_bytes("S-1-5-32-545")), info | GROUP_SI))
    for type_ in (5, 6, 7, 8):
        obj = (struct.pack("<BBHII", type_, 0, 4 + 4 + 4 + 16 + len(EVERYONE), FULL, 1)
               + bytes(16) + EVERYONE)
        t.append(("object-ace", "reject", sd_bytes(acl_bytes([obj])), info))
    for type_ in (2, 3, 9, 10, 0x11, 0x12, 0x13, 0x42):
        aces = [ace_bytes(0, 0, FULL, EVERYONE), ace_bytes(type_, 0, 0x1, EVERYONE)]
        t.append((f"ace-type-{type_:#x}", "reject", sd_bytes(acl_bytes(aces)), info))
    for bits in (0x01000000, 0x02000000, 0x00200000, 0x00800000, 0x00000800, 0x00008000):
        aces = [ace_bytes(0, 0, 0x1 | bits, EVERYONE)]
        t.append((f"bits-{bits:#x}", "reject", sd_bytes(acl_bytes(aces)), info))
    t.append(("generic-all", "accept",
              sd_bytes(acl_bytes([ace_bytes(0, 0, 0x10000000, EVERYONE)])), info))
    for size in (4, 7, 9, 200):
        aces = [ace_bytes(0, 0, FULL, EVERYONE, size=size)]
        t.append((f"ace-size-{size}", "reject", sd_bytes(acl_bytes(aces)), info))
    aces = [ace_bytes(0, 0, FULL, EVERYONE)]
    # smbd's NDR parser does not hold AclSize against the ACEs it reads, and
    # the module only sees the parsed descriptor: either answer is clean
    t.append(("acl-size-big", "any", sd_bytes(acl_bytes(aces, size=4000)), info))
    t.append(("acl-size-small", "any", sd_bytes(acl_bytes(aces, size=8)), info))
    bad_off = bytearray(good)
    struct.pack_into("<I", bad_off, 16, 60000)
    t.append(("dacl-offset-outside", "reject", bytes(bad_off), info))
    sacl = acl_bytes([ace_bytes(2, 0xC0, FULL, EVERYONE)])
    t.append(("sacl", "reject", sd_bytes(good_dacl(isdir), sacl=sacl), info | SACL_SI))
    t.append(("null-dacl", "accept", sd_bytes(null_dacl=True), info))
    t.append(("empty-dacl", "accept", sd_bytes(acl_bytes([])), info))
    if not isdir:
        aces = [ace_bytes(0, 0x3, FULL, EVERYONE)]
        t.append(("inherit-flags-on-file", "accept", sd_bytes(acl_bytes(aces)), info))
    many = [ace_bytes(0, 0, 0x1, sid_bytes(auth=5, subs=[21, 7, 7, 7, 3000 + k]))
            for k in range(rng.choice([400, 1500]))]
    t.append(("very-long-dacl", "any", sd_bytes(acl_bytes(many)), info))
    for _ in range(6):
        b = bytearray(full)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        t.append(("byte-flips", "any", bytes(b), info | OWNER_SI | GROUP_SI))
    for _ in range(3):
        t.append(("random-bytes", "any", bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300))),
                  info))
    return t


def status_name(code):
    return STATUS_NAMES.get(code, f"0x{code:08x}")


class Client:
    def __init__(self, user, password):
        self.user, self.password = user, password
        self.connect()

    def connect(self):
        self.conn = smbconnection.SMBConnection("127.0.0.1", "127.0.0.1",
                                                preferredDialect=SMB2_DIALECT_21, timeout=60)
        self.conn.login(self.user, self.password)
        self.tid = self.conn.connectTree("richacl")

    def open(self, path, isdir):
        return self.conn.createFile(self.tid, path.replace("/", "\\"),
                                    desiredAccess=READ_CONTROL | WRITE_DAC | WRITE_OWNER |
                                    FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                                    shareMode=7, creationOption=0x1 if isdir else 0x40,
                                    creationDisposition=1)

    def set_sd(self, fid, blob, info):
        self.conn._SMBConnection.setInfo(self.tid, fid, inputBlob=blob,
                                         infoType=SMB2_0_INFO_SECURITY, fileInfoClass=0,
                                         additionalInformation=info)

    def alive(self, fid):
        self.conn._SMBConnection.queryInfo(self.tid, fid)


def user_sid(state, user):
    import re
    import subprocess
    out = subprocess.run(["pdbedit", "-s", os.path.join(state, "smb.conf"), "-L", "-v"],
                         capture_output=True, text=True).stdout
    name = None
    for line in out.splitlines():
        m = re.match(r"Unix username:\s+(\S+)", line)
        if m:
            name = m.group(1)
        m = re.match(r"User SID:\s+(S-\S+)", line)
        if m and name == user:
            return sid_bytes(m.group(1))
    return sid_bytes("S-1-5-21-1-2-3-1000")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-report", type=int, default=20)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    srv = Server(args.state)
    base = os.path.join(args.path, "hostile")
    os.makedirs(base, exist_ok=True)
    os.chmod(base, 0o777)
    targets = {"f": False, "d": True}
    for name, isdir in targets.items():
        p = os.path.join(base, name)
        if isdir:
            os.makedirs(p, exist_ok=True)
        else:
            open(p, "ab").close()
        os.chown(p, 1001, 1001)
    # alice owns both; her own entry keeps the test going whatever happens
    known = encode([(0, 0x4000, 0x1F07FF, 0), (0, 0x4000, 0x1, 2)])
    alice_sid = user_sid(args.state, "alice")
    client = Client("alice", srv.passwords["alice"])
    passed = failed = 0
    hist = {}
    tried = 0

    def fail(msg):
        nonlocal failed
        failed += 1
        if failed <= args.max_report:
            print(f"FAIL {msg}", flush=True)

    print(f"hostile: seed {args.seed}", flush=True)
    for rnd in range(args.rounds):
        for name, isdir in targets.items():
            path = os.path.join(base, name)
            for tname, expect, blob, info in templates(rng, isdir, alice_sid):
                tried += 1
                set_blob(path, known)
                before = file_state(path)
                desc = f"{tname} on {'dir' if isdir else 'file'} ({len(blob)} bytes: {blob[:48].hex()})"
                try:
                    fid = client.open(f"hostile/{name}", isdir)
                except Exception as e:  # noqa: B902
                    fail(f"{desc}: cannot open the target: {e!r}")
                    client.connect()
                    continue
                status = "STATUS_SUCCESS"
                try:
                    client.set_sd(fid, blob, info)
                except (smb3.SessionError, smbconnection.SessionError) as e:
                    status = status_name(e.get_error_code())
                except Exception as e:  # noqa: B902 - a dropped connection is a finding
                    fail(f"{desc}: no clean NTSTATUS: {e!r}")
                    client.connect()
                    continue
                hist[status] = hist.get(status, 0) + 1
                after = file_state(path)
                ok = True
                if status != "STATUS_SUCCESS" and after != before:
                    fail(f"{desc}: refused with {status} but the file changed (M7): "
                         f"{before!r} -> {after!r}")
                    ok = False
                elif expect == "reject" and status == "STATUS_SUCCESS":
                    fail(f"{desc}: accepted, must be refused (M10); acl now {after[0]!r}")
                    ok = False
                elif expect == "accept" and status != "STATUS_SUCCESS":
                    fail(f"{desc}: refused with {status}, must be accepted")
                    ok = False
                try:
                    client.alive(fid)
                    client.conn.closeFile(client.tid, fid)
                except Exception as e:  # noqa: B902
                    fail(f"{desc}: session broken after the descriptor: {e!r}")
                    ok = False
                    client.connect()
                if ok:
                    passed += 1
    print("hostile: statuses " + ", ".join(f"{k} {v}" for k, v in sorted(hist.items())))
    print(f"hostile: {tried} descriptors tried")
    if srv.smbd_pid() is None:
        fail("smbd is not running any more")
    print(f"hostile: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
