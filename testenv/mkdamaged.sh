#!/bin/bash
# Make an ext4 image with valid and deliberately damaged richacls, for the
# e2fsck check of the kernel stage (testenv/tests/kernel/t-90-fsck.sh).
#
#   testenv/mkdamaged.sh DIR        -> writes DIR/damaged.img, prints its path
#
# The image has the richacl and ea_inode features and, in its root, files
# owned by uid/gid 1001 (alice of the kernel suite) with mode 0600 and the
# content "data":
#   valid_inline    owner@ rw, everyone@ r (40 bytes, in the inode body)
#   valid_block     the same after 38 user entries (496 bytes, attribute block)
#   valid_eainode   the same after 338 user entries (4096 bytes, in an
#                   attribute inode of its own)
#   bad_version     valid_inline with version 1
#   bad_special     valid_inline with special identifier 3 instead of 2
#   bad_block       valid_block with an unknown entry type 2 in its last entry
#   bad_eainode     valid_eainode with an unknown mask bit in its last entry
# The values are written with debugfs, which stores them as they are; the
# kernel would refuse the damaged ones.  The image is never mounted on the
# host.  It needs e2fsprogs with richacl (testenv/e2fsprogs-build.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
out=$1
e2fs=$(bash "$here/e2fsprogs-build.sh")/bin
mkdir -p "$out"
img=$out/damaged.img
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'EOF'
import os
import struct
import sys

d = sys.argv[1]
OWNER_RW = (0, 0x4000, 0x3, 0)          # owner@: read_data write_data, allow
EVERYONE_R = (0, 0x4000, 0x1, 2)        # everyone@: read_data, allow


def acl(entries, version=0):
    hdr = struct.pack("<BBHIII", version, 0, len(entries), 0x3, 0x1, 0x1)
    return hdr + b"".join(struct.pack("<HHII", *e) for e in entries)


def users(n):                           # user entries for uids 20000.., read
    return [(0, 0, 0x1, 20000 + i) for i in range(n)]


values = {
    "valid_inline": acl([OWNER_RW, EVERYONE_R]),
    "valid_block": acl(users(38) + [OWNER_RW, EVERYONE_R]),
    "valid_eainode": acl(users(338) + [OWNER_RW, EVERYONE_R]),
    "bad_version": acl([OWNER_RW, EVERYONE_R], version=1),
    "bad_special": acl([OWNER_RW, (0, 0x4000, 0x1, 3)]),
    "bad_block": acl(users(38) + [OWNER_RW, (2, 0x4000, 0x1, 2)]),
    "bad_eainode": acl(users(338) + [OWNER_RW, (0, 0x4000, 0x1 | 0x80000000, 2)]),
}
assert len(values["valid_block"]) == 496 and len(values["valid_eainode"]) == 4096
with open(os.path.join(d, "content"), "w") as f:
    f.write("data\n")
with open(os.path.join(d, "cmds"), "w") as cmds:
    for name, value in values.items():
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(value)
        cmds.write(f"write {d}/content {name}\n")
        cmds.write(f"set_inode_field {name} uid 1001\n")
        cmds.write(f"set_inode_field {name} gid 1001\n")
        cmds.write(f"set_inode_field {name} mode 0100600\n")
        cmds.write(f"ea_set -f {path} {name} system.richacl\n")
        if name.endswith("_eainode"):
            # ext4 charges the attribute inode's block to the file (i_blocks,
            # in 512-byte units: 8 for the data block, 8 for the value);
            # libext2fs 1.47.0 does not, and e2fsck would report that too
            cmds.write(f"set_inode_field {name} blocks 16\n")
EOF

rm -f "$img"
truncate -s 64M "$img"
"$e2fs/mkfs.ext4" -q -F -b 4096 -I 256 -O richacl,ea_inode -L damaged \
	-E root_owner=0:0 "$img"
"$e2fs/debugfs" -w -f "$work/cmds" "$img" >"$work/debugfs.log" 2>&1 ||
	{ cat "$work/debugfs.log" >&2; echo "mkdamaged: debugfs failed" >&2; exit 1; }
# debugfs reports errors among the echoed commands and still exits 0
if grep -Ev '^(debugfs [0-9.]* \(|debugfs: |Allocated inode: [0-9]+$)' "$work/debugfs.log" | grep -q .; then
	cat "$work/debugfs.log" >&2
	echo "mkdamaged: debugfs reported errors" >&2
	exit 1
fi
n=$("$e2fs/debugfs" -R "ls -l /" "$img" 2>/dev/null | grep -c 'valid_\|bad_')
[ "$n" -eq 7 ] || { echo "mkdamaged: $n of 7 files made" >&2; exit 1; }
echo "$(cd "$out" && pwd)/damaged.img"
