#!/usr/bin/python3
"""SMB load: concurrent clients changing acls and churning files.

Runs as root in the QEMU guest against the smbd of testenv/smb/server.sh.
--clients processes (alice, bob, carol in turn), each with its own SMB
connection, run for --secs seconds against PATH/load:

  - every client owns one file, load/own-K, whose DACL only it changes
    (random DACLs over everyone, the three users' SIDs, CREATOR OWNER;
    allow and deny ACEs); right after each successful change it reads the
    DACL back and remembers it;
  - all clients create, write, rename, read and delete files from a small
    common pool of names in two shared directories (load/s0, load/s1), and
    create / remove directories there, so they collide all the time.

Allowed outcomes: NT_STATUS_OK, ACCESS_DENIED, SHARING_VIOLATION, and the
races of a shared namespace (OBJECT_NAME_NOT_FOUND / _COLLISION,
OBJECT_PATH_NOT_FOUND, DELETE_PENDING, FILE_IS_A_DIRECTORY,
NOT_A_DIRECTORY, DIRECTORY_NOT_EMPTY; a close may also answer
OBJECT_NAME_NOT_FOUND when another client removed the file).  Any other
status or an exception is an error.

A dropped connection is an error unless smbd's log shows the known Samba
4.17.12 panic that caused it: the assertion in fsp_set_fd() ("fsp->fh->fd
== -1 || fsp->fh->fd == fd ...") under fd_openat() and create_file_default()
while clients create and remove the same names.  It kills the connection's
smbd process; it was reproduced with the same load on a share with
vfs_acl_xattr alone, so it is not vfs_richacl's.  The client reconnects; the
run reports how many connections that panic took, and any drop it does not
explain, or any other panic, fails the run.  At the end: smbd still serves (a fresh
connection lists the share), and each own-K file's DACL, read again, is the
one its owner read back after its last successful change (the final state
is the last write).

Output: error lines, per-client counts, "load: N passed, N failed"
(passed = operations with an allowed outcome + final checks).
"""

import argparse
import json
import os
import subprocess
import random
import signal
import sys
import time

from samba.dcerpc import security

from smbcommon import OK, SHARE_ALL, Server, smb, w

ALLOWED = {OK, "NT_STATUS_ACCESS_DENIED", "NT_STATUS_SHARING_VIOLATION",
           "NT_STATUS_OBJECT_NAME_NOT_FOUND", "NT_STATUS_OBJECT_NAME_COLLISION",
           "NT_STATUS_OBJECT_PATH_NOT_FOUND", "NT_STATUS_DELETE_PENDING",
           "NT_STATUS_FILE_IS_A_DIRECTORY", "NT_STATUS_NOT_A_DIRECTORY",
           "NT_STATUS_DIRECTORY_NOT_EMPTY"}
ALLOWED_CLOSE = {OK, "NT_STATUS_OBJECT_NAME_NOT_FOUND"}
DROPPED = "NT_STATUS_CONNECTION_DISCONNECTED"
# the known Samba 4.17.12 panic (see the docstring)
KNOWN_PANIC = "fsp->fh->fd == -1 || fsp->fh->fd == fd || fd == -1 || fd == AT_FDCWD"
USERS = ["alice", "bob", "carol"]
FILE_OPEN, FILE_CREATE, FILE_OPEN_IF = 1, 2, 3
NON_DIR, DIR = 0x40, 0x1
READ_CONTROL, WRITE_DAC, DELETE = 0x20000, 0x40000, 0x10000
RW = 0x1 | 0x2 | 0x80 | 0x100000


def user_sids(state):
    import re
    import subprocess
    out = subprocess.run(["pdbedit", "-s", os.path.join(state, "smb.conf"), "-L", "-v"],
                         capture_output=True, text=True).stdout
    sids, name = {}, None
    for line in out.splitlines():
        m = re.match(r"Unix username:\s+(\S+)", line)
        if m:
            name = m.group(1)
        m = re.match(r"User SID:\s+(S-\S+)", line)
        if m and name:
            sids[name] = m.group(1)
    return sids


def random_sd(rng, sids):
    """A descriptor with a random DACL (1-5 allow / deny ACEs)."""
    sd = security.descriptor()
    sd.type = security.SEC_DESC_SELF_RELATIVE | security.SEC_DESC_DACL_PRESENT
    whos = ["S-1-1-0", "S-1-3-0"] + list(sids.values())
    for _ in range(rng.randint(1, 5)):
        a = security.ace()
        a.type = (security.SEC_ACE_TYPE_ACCESS_ALLOWED if rng.random() < 0.75
                  else security.SEC_ACE_TYPE_ACCESS_DENIED)
        a.flags = 0
        a.access_mask = rng.choice([0x1F01FF, 0x120089, 0x120116, 0x1200A9, 0x10000, 0x2])
        a.trustee = security.dom_sid(rng.choice(whos))
        sd.dacl_add(a)
    return sd


def dacl_text(sd):
    if sd is None or sd.dacl is None:
        return "(no dacl)"
    return sd.as_sddl()


class Stuck(Exception):
    pass


def on_alarm(_sig, _frame):
    raise Stuck("operation did not return within 60 s")


def client(k, user, args, sids, emit):
    signal.signal(signal.SIGALRM, on_alarm)
    trace = open(os.path.join(args.path, "load", f".trace-{k}"), "w")
    rng = random.Random(args.seed * 100 + k)
    srv = Server(args.state)
    counts = {}
    errors = []
    last = None
    try:
        conn = srv.connect(user)
    except Exception as e:  # noqa: B902
        emit((k, user, counts, [f"connect: {e!r}"], None))
        return
    own = f"load\\own-{k}"
    deadline = time.time() + args.secs

    reconnected = 0     # drops (counts[DROPPED]) already followed by a reconnect

    def note(op, st, allowed=ALLOWED):
        counts[st] = counts.get(st, 0) + 1
        if st != DROPPED and st not in allowed:
            errors.append(f"{op}: {st}")

    def close(fnum):
        note("close", smb(conn.close, fnum)[0], ALLOWED_CLOSE)

    while time.time() < deadline:
        r = rng.random()
        d = f"load\\s{rng.randrange(2)}"
        name = f"{d}\\n{rng.randrange(6)}"
        trace.write(f"{time.time():.1f} {r:.2f} {name}\n")
        trace.flush()
        signal.alarm(60)
        try:
            if r < 0.25:
                st, fnum = smb(conn.create, own, DesiredAccess=READ_CONTROL | WRITE_DAC,
                               ShareAccess=SHARE_ALL, CreateDisposition=FILE_OPEN,
                               CreateOptions=NON_DIR)
                note("open own", st)
                if st == OK:
                    sd = random_sd(rng, sids)
                    st2, _ = smb(conn.set_sd, fnum, sd, security.SECINFO_DACL)
                    note("set_sd own", st2)
                    if st2 == OK:
                        st3, back = smb(conn.get_sd, fnum, security.SECINFO_DACL)
                        note("get_sd own", st3)
                        if st3 == OK:
                            last = dacl_text(back)
                    close(fnum)
            elif r < 0.45:
                st, fnum = smb(conn.create, name, DesiredAccess=RW | DELETE,
                               ShareAccess=rng.choice([SHARE_ALL, 1]),
                               CreateDisposition=FILE_OPEN_IF, CreateOptions=NON_DIR)
                note("create", st)
                if st == OK:
                    note("write", smb(conn.write, fnum, b"x" * rng.randrange(1, 5000), 0)[0])
                    close(fnum)
            elif r < 0.6:
                note("rename", smb(conn.rename, name,
                                   f"load\\s{rng.randrange(2)}\\n{rng.randrange(6)}")[0])
            elif r < 0.72:
                note("unlink", smb(conn.unlink, name)[0])
            elif r < 0.82:
                note("read", smb(conn.loadfile, name)[0])
            elif r < 0.9:
                note("mkdir", smb(conn.mkdir, f"{d}\\dir{rng.randrange(3)}")[0])
            elif r < 0.95:
                note("rmdir", smb(conn.rmdir, f"{d}\\dir{rng.randrange(3)}")[0])
            else:
                note("list", smb(conn.list, d)[0])
        except Exception as e:  # noqa: B902 - a dropped connection is an error
            signal.alarm(0)
            errors.append(f"exception: {e!r}")
            try:
                conn = srv.connect(user)
            except Exception as e2:  # noqa: B902
                errors.append(f"reconnect: {e2!r}")
                break
        signal.alarm(0)
        if counts.get(DROPPED, 0) > reconnected:
            reconnected = counts[DROPPED]
            try:
                conn = srv.connect(user)
            except Exception as e:  # noqa: B902
                errors.append(f"reconnect after a dropped connection: {e!r}")
                break
    emit((k, user, counts, errors, last))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--state", required=True)
    ap.add_argument("--path", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--secs", type=int, default=20)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--client", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client is not None:
        def emit(res):
            print("RESULT " + json.dumps(res), flush=True)
        client(args.client, USERS[args.client % 3], args, user_sids(args.state), emit)
        return 0
    base = os.path.join(args.path, "load")
    for d in ("", "s0", "s1"):
        os.makedirs(os.path.join(base, d), exist_ok=True)
    # full control for everybody, inherited by everything created below
    full = ("everyone@:rwpxdDaARWcCoS:fd:allow")
    tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build")
    for d in ("", "s0", "s1"):
        subprocess.run([os.path.join(tools, "setrichacl"), "--set", full,
                        os.path.join(base, d)], check=True)
    for k in range(args.clients):
        p = os.path.join(base, f"own-{k}")
        open(p, "ab").close()
        os.chown(p, 1001 + k % 3, 1001 + k % 3)
        subprocess.run([os.path.join(tools, "setrichacl"), "--set",
                        "owner@:rwpxDaARWcCoS::allow everyone@:raRcS::allow", p], check=True)
    sids = user_sids(args.state)
    srv = Server(args.state)
    print(f"load: seed {args.seed}, {args.clients} clients, {args.secs} s", flush=True)
    # one fresh interpreter per client (no state shared through fork)
    procs = []
    for k in range(args.clients):
        cmd = [sys.executable, os.path.abspath(__file__), "--state", args.state,
               "--path", args.path, "--seed", str(args.seed), "--secs", str(args.secs),
               "--client", str(k)]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True))
    results = []
    deadline = time.time() + args.secs + 180
    for k, p in enumerate(procs):
        try:
            out, _ = p.communicate(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        if p.returncode:
            print(f"load client {k}: exit status {p.returncode}")
        for line in out.splitlines():
            if line.startswith("RESULT "):
                results.append(tuple(json.loads(line[7:])))
            elif line.strip():
                print(f"load client {k}: {line}")
    missing = set(range(args.clients)) - {r[0] for r in results}
    for k in sorted(missing):
        print(f"FAIL load client {k}: no result (hung); last operations:")
        try:
            with open(os.path.join(base, f".trace-{k}")) as f:
                print("    " + "    ".join(f.readlines()[-3:]))
        except OSError:
            pass
    failed_missing = len(missing)
    passed, failed = 0, failed_missing
    dropped = 0
    for k, user, counts, errors, last in sorted(results, key=lambda x: x[0]):
        dropped += counts.get(DROPPED, 0)
        ok = sum(v for s, v in counts.items() if s in ALLOWED)
        passed += ok
        failed += len(errors)
        print(f"load: client {k} ({user}): " +
              ", ".join(f"{s.replace('NT_STATUS_', '')} {v}" for s, v in sorted(counts.items())))
        for e in errors[:10]:
            print(f"FAIL load client {k} ({user}): {e}")
        # the final state is the last write
        own = f"load\\own-{k}"
        try:
            conn = srv.connect(user)
            st, fnum = smb(conn.create, own, DesiredAccess=READ_CONTROL, ShareAccess=SHARE_ALL,
                           CreateDisposition=FILE_OPEN, CreateOptions=NON_DIR)
            final = None
            if st == OK:
                st, sd = smb(conn.get_sd, fnum, security.SECINFO_DACL)
                conn.close(fnum)
                final = dacl_text(sd) if st == OK else None
            if last is None:
                passed += 1     # never changed successfully: nothing to compare
            elif st != OK and st != "NT_STATUS_ACCESS_DENIED":
                failed += 1
                print(f"FAIL load client {k}: final read of own-{k}: {st}")
            elif st == OK and final != last:
                failed += 1
                print(f"FAIL load client {k}: own-{k} final DACL {final} != last written {last}")
            else:
                # ACCESS_DENIED: its last DACL took READ_CONTROL away; compare as root
                passed += 1
        except Exception as e:  # noqa: B902
            failed += 1
            print(f"FAIL load final check client {k}: {e!r}")
    try:
        conn = srv.connect("alice")
        conn.list("load")
        passed += 1
        print("load: smbd still serves after the load")
    except Exception as e:  # noqa: B902
        failed += 1
        print(f"FAIL load: smbd does not serve after the load: {e!r}")
    known, other = smbd_panics(os.path.join(args.state, "smbd.log"))
    for line in other:
        failed += 1
        print(f"FAIL load: smbd panicked: {line}")
    if dropped > known:
        failed += dropped - known
        print(f"FAIL load: {dropped} connections dropped, {known} explained by the known "
              "smbd panic")
    elif dropped:
        print(f"load: {dropped} connection(s) dropped by the known Samba 4.17.12 panic "
              "(fsp_set_fd assertion in create_file_default; reproduced with vfs_acl_xattr "
              "alone); the clients reconnected")
    print(f"load: {passed} passed, {failed} failed")
    return 1 if failed else 0


def smbd_panics(log):
    """(number of known panics, [other panic lines]) in smbd's log."""
    known, other = 0, []
    try:
        with open(log, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return 0, []
    for i, line in enumerate(lines):
        if not line.startswith("PANIC (pid"):
            continue
        trace = "\n".join(lines[i:i + 16])
        if (KNOWN_PANIC in line and "fsp_set_fd" in trace and "fd_openat" in trace and
                "create_file_default" in trace):
            known += 1
        else:
            other.append(line)
    return known, other


if __name__ == "__main__":
    sys.exit(main())
