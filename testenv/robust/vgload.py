#!/usr/bin/python3
"""A small SMB workload for smbd running under valgrind (guest.sh valgrind).

As alice: create files and directories, set and read DACLs (allow / deny,
inheritable ones on directories, an unmapped SID, a NULL DACL), open files
for read / write / delete, rename and delete them, and send two descriptors
the module must refuse (an object ACE, an unknown ACL revision) through
impacket.  Everything goes through vfs_richacl, so valgrind sees the
module's code paths.  The server is slow under valgrind: one connection,
--ops rounds.  Output: "vgload: N passed, N failed" (operations whose
outcome was the expected one).
"""

import argparse
import os
import sys
import time

from samba.dcerpc import security

from smbcommon import OK, SHARE_ALL, Server, smb

FILE_OPEN, FILE_CREATE = 1, 2


def dacl_of(entries):
    sd = security.descriptor()
    sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
    for t, f, m, sid in entries:
        a = security.ace()
        a.type, a.flags, a.access_mask = t, f, m
        a.trustee = security.dom_sid(sid)
        sd.dacl_add(a)
    return sd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--ops", type=int, default=15)
    args = ap.parse_args()
    os.makedirs(os.path.join(args.path, "vg"), exist_ok=True)
    os.chmod(os.path.join(args.path, "vg"), 0o777)
    srv = Server(args.state)
    # smbd under valgrind in TCG answers slowly: the first session setups
    # can run into the client's timeout
    conn = None
    for attempt in range(10):
        try:
            conn = srv.connect("alice")
            break
        except Exception as e:  # noqa: B902
            print(f"vgload: connect attempt {attempt + 1}: {e!r}", flush=True)
            time.sleep(5)
    if conn is None:
        print("vgload: 0 passed, 1 failed")
        return 1
    passed = failed = 0

    def expect(what, got, want=OK):
        nonlocal passed, failed
        if got == want:
            passed += 1
        else:
            failed += 1
            print(f"FAIL vgload {what}: {got}, expected {want}", flush=True)

    allow, deny = security.SEC_ACE_TYPE_ACCESS_ALLOWED, security.SEC_ACE_TYPE_ACCESS_DENIED
    for i in range(args.ops):
        d = f"vg\\d{i}"
        f = f"{d}\\f"
        expect("mkdir", smb(conn.mkdir, d)[0])
        st, fnum = smb(conn.create, d, DesiredAccess=0x60000 | 0x80, ShareAccess=SHARE_ALL,
                       CreateDisposition=FILE_OPEN, CreateOptions=0x1)
        expect("open dir", st)
        if st == OK:
            sd = dacl_of([(allow, 0x3, 0x1F01FF, "S-1-3-0"),
                          (allow, 0x0, 0x1F01FF, "S-1-1-0"),
                          (deny, 0x3, 0x2, "S-1-22-1-1002"),
                          (allow, 0xB, 0x120089, "S-1-1-0")])
            expect("set dir sd", smb(conn.set_sd, fnum, sd, security.SECINFO_DACL)[0])
            # a deny for a SID without a unix id is refused (it would deny
            # nobody in the kernel): that error path under valgrind too
            bad = dacl_of([(allow, 0x0, 0x1F01FF, "S-1-1-0"),
                           (deny, 0x3, 0x2, "S-1-5-21-1004336348-1177238915-682003330-1105")])
            st = smb(conn.set_sd, fnum, bad, security.SECINFO_DACL)[0]
            expect("set dir sd with an unmapped deny", st, "NT_STATUS_NONE_MAPPED")
            expect("get dir sd", smb(conn.get_sd, fnum, security.SECINFO_DACL | 0x3)[0])
            conn.close(fnum)
        st, fnum = smb(conn.create, f, DesiredAccess=0x1F01FF, ShareAccess=SHARE_ALL,
                       CreateDisposition=FILE_CREATE, CreateOptions=0x40)
        expect("create file", st)
        if st == OK:
            expect("write", smb(conn.write, fnum, b"data" * 100, 0)[0])
            expect("get file sd", smb(conn.get_sd, fnum, 0x7)[0])
            sd = dacl_of([(deny, 0, 0x2, "S-1-1-0"), (allow, 0, 0x1F01FF, "S-1-1-0")])
            expect("set file sd", smb(conn.set_sd, fnum, sd, security.SECINFO_DACL)[0])
            null = security.descriptor()
            null.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
            expect("set NULL dacl", smb(conn.set_sd, fnum, null, security.SECINFO_DACL)[0])
            conn.close(fnum)
        expect("rename", smb(conn.rename, f, f"{d}\\g")[0])
        expect("read", smb(conn.loadfile, f"{d}\\g")[0])
        expect("unlink", smb(conn.unlink, f"{d}\\g")[0])
        expect("rmdir", smb(conn.rmdir, d)[0])
    # two descriptors the module must refuse, through impacket
    try:
        import hostile_sd
        client = hostile_sd.Client("alice", srv.passwords["alice"])
        open(os.path.join(args.path, "vg", "h"), "ab").close()
        os.chown(os.path.join(args.path, "vg", "h"), 1001, 1001)
        for name, blob in (
                ("object ace", hostile_sd.sd_bytes(hostile_sd.acl_bytes([
                    bytes([5, 0]) + (44).to_bytes(2, "little") + (0x1F01FF).to_bytes(4, "little")
                    + (1).to_bytes(4, "little") + bytes(16) + hostile_sd.EVERYONE]))),
                ("acl revision 9", hostile_sd.sd_bytes(hostile_sd.acl_bytes(
                    [hostile_sd.ace_bytes(0, 0, 0x1F01FF, hostile_sd.EVERYONE)], rev=9)))):
            fid = client.open("vg/h", False)
            try:
                client.set_sd(fid, blob, 4)
                expect(f"hostile {name}", "accepted", "refused")
            except Exception:  # noqa: B902 - any clean refusal is fine here
                expect(f"hostile {name}", "refused", "refused")
            client.conn.closeFile(client.tid, fid)
    except Exception as e:  # noqa: B902
        expect("impacket part", repr(e), "done")
    print(f"vgload: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
