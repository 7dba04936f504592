"""Shared helpers of the SMB robustness scripts (testenv/robust/*.py).

They run as root in the QEMU guest against the smbd that testenv/smb/server.sh
started (state directory --state: smb.conf, client.conf, users).  Clients
use python3-samba's libsmb (and impacket for raw SET_INFO in hostile_sd.py).
"""

import errno
import os
import struct
import subprocess

from samba import NTSTATUSError, credentials, ntstatus, param
from samba.samba3 import libsmb_samba_internal as libsmb
from samba.samba3 import param as s3param

SHARE = "richacl"
STAFF = 2000
# Authenticated Users (S-1-5-11) has this gid (testenv/smb/server.sh), so
# smbd's process holds it for every session: the local side does too.
AUTHUSERS = 3011
# SEMANTICS.md section 2 / testenv/guest/init.sh: uid, primary gid, groups
# (the groups of the user's SMB session: unix groups plus authusers)
USERS = {"alice": (1001, 1001, [AUTHUSERS]), "bob": (1002, 1002, [STAFF, AUTHUSERS]),
         "carol": (1003, 1003, [STAFF, AUTHUSERS])}

STATUS_NAMES = {getattr(ntstatus, n) & 0xffffffff: n
                for n in dir(ntstatus) if n.startswith("NT_STATUS_")}
OK = "NT_STATUS_OK"
DENIED = "NT_STATUS_ACCESS_DENIED"

FILE_OPEN = 1
FILE_CREATE = 2
FILE_DIRECTORY_FILE = 0x1
FILE_NON_DIRECTORY_FILE = 0x40
SHARE_ALL = 0x7

# richacl constants (mapping/include/richacl.h)
ACE_ALLOW, ACE_DENY = 0, 1
F_FILE_INHERIT, F_DIR_INHERIT = 0x1, 0x2
F_GROUP, F_UNMAPPED, F_SPECIAL = 0x40, 0x2000, 0x4000
OWNER, GROUP, EVERYONE = 0, 1, 2
R, W, P, X, D_CHILD = 0x1, 0x2, 0x4, 0x20, 0x40
DELETE, WRITE_ATTRS, READ_ACL, WRITE_ACL, WRITE_OWNER, SYNC = \
    0x10000, 0x100, 0x20000, 0x40000, 0x80000, 0x100000
READ_ATTRS, READ_NAMED, WRITE_NAMED = 0x80, 0x8, 0x10
ALWAYS = READ_ATTRS | READ_ACL | SYNC
FULL = 0x1F07FF


def status_of(exc):
    code = exc.args[0] & 0xffffffff
    return STATUS_NAMES.get(code, f"0x{code:08x}")


def smb(fn, *args, **kwargs):
    """Run fn; return (NTSTATUS name, result)."""
    try:
        return OK, fn(*args, **kwargs)
    except NTSTATUSError as e:
        return status_of(e), None


class Server:
    def __init__(self, state):
        self.state = state
        self.passwords = {}
        with open(os.path.join(state, "users")) as f:
            for line in f:
                name, _uid, pw = line.split()
                self.passwords[name] = pw
        conf = os.path.join(state, "client.conf")
        self.conf = conf
        self.lp = param.LoadParm()              # for the credentials
        self.lp.load(conf)
        self.lp3 = s3param.get_context()        # libsmb wants source3's loadparm
        self.lp3.load(conf)

    def connect(self, user):
        creds = credentials.Credentials()
        creds.guess(self.lp)
        creds.set_username(user)
        creds.set_password(self.passwords[user])
        return libsmb.Conn("127.0.0.1", SHARE, self.lp3, creds)

    def smbd_pid(self):
        try:
            with open(os.path.join(self.state, "smbd.pid")) as f:
                pid = int(f.read().strip())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None


def w(rel):
    return rel.replace("/", "\\")


# ------------------------------------------------------------ richacl blobs

def ace(type_, flags, mask, ident):
    return (type_, flags, mask, ident)


def encode(entries, flags=0, masks=None):
    """system.richacl value of an unmasked acl (masks: owner, group, other).
    An entry whose ident is a string is an unmapped entry (F_UNMAPPED, id 0,
    the string after the entry array)."""
    if masks is None:
        masks = max_masks(entries)
    out = struct.pack("<BBHIII", 0, flags, len(entries), *masks)
    whos = b""
    for t, f, m, i in entries:
        if isinstance(i, str):
            out += struct.pack("<HHII", t, f | F_UNMAPPED, m, 0)
            whos += i.encode() + b"\0"
        else:
            out += struct.pack("<HHII", t, f, m, i)
    return out + whos


def max_masks(entries):
    """Generous masks (a superset of richacl_compute_max_masks): every bit any
    entry allows, for all three classes.  With the masked flag clear, masks
    only decide the mode bits, not the access."""
    allowed = 0
    for t, _f, m, _i in entries:
        if t == ACE_ALLOW:
            allowed |= m
    return (allowed, allowed, allowed)


def acl_text(blob):
    """Readable form of a blob made by encode() (for reproducers)."""
    if blob is None:
        return "(none)"
    _v, flags, count, om, gm, xm = struct.unpack_from("<BBHIII", blob)
    parts = [f"flags:0x{flags:x} masks 0x{om:x}/0x{gm:x}/0x{xm:x}"]
    whos = blob[16 + 12 * count:].split(b"\0")
    for k in range(count):
        t, f, m, i = struct.unpack_from("<HHII", blob, 16 + 12 * k)
        if f & F_UNMAPPED:
            who = f"user:{whos.pop(0).decode()}(unmapped)"
        elif f & F_SPECIAL:
            who = ["owner@", "group@", "everyone@"][i]
        elif f & F_GROUP:
            who = f"group:{i}"
        else:
            who = f"user:{i}"
        parts.append(f"{who}:0x{m:x}:0x{f & 0x8f:x}:{'allow' if t == 0 else 'deny'}")
    return " ".join(parts)


def set_blob(path, blob):
    if blob is None:
        try:
            os.removexattr(path, "system.richacl")
        except OSError as e:
            if e.errno != errno.ENODATA:
                raise
    else:
        os.setxattr(path, "system.richacl", blob)


def get_blob(path):
    try:
        return os.getxattr(path, "system.richacl")
    except OSError as e:
        if e.errno == errno.ENODATA:
            return None
        raise


def file_state(path):
    """(xattr bytes or None, mode, uid, gid) - what M7 says must not change."""
    st = os.lstat(path)
    return (get_blob(path), st.st_mode, st.st_uid, st.st_gid)


# ------------------------------------------------------------ local side

def wbinfo_gid(sid):
    """The gid winbindd maps sid to, or None."""
    res = subprocess.run(["wbinfo", "--sid-to-gid", sid], capture_output=True, text=True)
    out = res.stdout.strip()
    return int(out) if res.returncode == 0 and out.isdigit() else None


def smbd_groups(uid):
    """The supplementary groups of the smbd process that runs as uid (the
    one serving that user's session; call after a request of the user), or
    None if there is none: exactly what the kernel checks for that user's
    SMB requests, whatever the identity setup gave the session."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status") as f:
                status = dict(line.rstrip("\n").split(":\t", 1) for line in f
                              if ":\t" in line)
        except OSError:
            continue
        if status.get("Name") != "smbd" or int(status["Uid"].split()[1]) != uid:
            continue
        return sorted(int(g) for g in status.get("Groups", "").split())
    return None


def as_user(user, fn, groups=None):
    """Run fn() in a child with user's uid, gid and groups (no capabilities);
    groups, if given, replaces USERS' list.  Return "OK" or the errno name."""
    uid, gid, default_groups = USERS[user]
    if groups is None:
        groups = default_groups
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        res = "EXCEPTION"
        try:
            os.close(rfd)
            os.setgroups(groups)
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            fn()
            res = "OK"
        except OSError as e:
            res = errno.errorcode.get(e.errno, str(e.errno))
        except BaseException as e:  # noqa: B902 - report it, never escape the child
            res = f"EXCEPTION {e!r}"
        finally:
            os.write(wfd, res.encode())
            os._exit(0)
    os.close(wfd)
    out = b""
    while True:
        chunk = os.read(rfd, 4096)
        if not chunk:
            break
        out += chunk
    os.close(rfd)
    os.waitpid(pid, 0)
    return out.decode()
