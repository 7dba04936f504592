#!/usr/bin/env python3
"""Create an idmapped bind mount: idmount.py SRC DST NSID HOSTID COUNT
(uids and gids NSID..NSID+COUNT-1 on disk appear as HOSTID.. through DST)."""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
SYS_open_tree, SYS_move_mount, SYS_mount_setattr = 428, 429, 442
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC = 1, 0o2000000
AT_EMPTY_PATH, AT_RECURSIVE = 0x1000, 0x8000
MOVE_MOUNT_F_EMPTY_PATH = 4
MOUNT_ATTR_IDMAP = 0x100000
CLONE_NEWUSER = 0x10000000

class MountAttr(ctypes.Structure):
    _fields_ = [('attr_set', ctypes.c_uint64), ('attr_clr', ctypes.c_uint64),
                ('propagation', ctypes.c_uint64), ('userns_fd', ctypes.c_uint64)]

def check(ret, what):
    if ret < 0:
        e = ctypes.get_errno()
        sys.exit('%s: %s' % (what, os.strerror(e)))
    return ret

src, dst, nsid, hostid, count = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w)
    check(libc.unshare(CLONE_NEWUSER), 'unshare')
    os.read(r, 1)      # wait until the parent has opened our namespace
    os._exit(0)
os.close(r)
# wait for the child to unshare
for _ in range(100):
    if os.readlink('/proc/%d/ns/user' % pid) != os.readlink('/proc/self/ns/user'):
        break
    time.sleep(0.01)
for m in ('uid_map', 'gid_map'):
    with open('/proc/%d/%s' % (pid, m), 'w') as f:
        f.write('%d %d %d\n' % (nsid, hostid, count))
nsfd = os.open('/proc/%d/ns/user' % pid, os.O_RDONLY)
os.write(w, b'x'); os.waitpid(pid, 0)
fd = check(libc.syscall(SYS_open_tree, -100, src.encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC), 'open_tree')
attr = MountAttr(MOUNT_ATTR_IDMAP, 0, 0, nsfd)
check(libc.syscall(SYS_mount_setattr, fd, b'', AT_EMPTY_PATH, ctypes.byref(attr), ctypes.sizeof(attr)), 'mount_setattr')
check(libc.syscall(SYS_move_mount, fd, b'', -100, dst.encode(), MOVE_MOUNT_F_EMPTY_PATH), 'move_mount')
