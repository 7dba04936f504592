#!/bin/bash
# In-guest kernel test suite for richacl semantics (SEMANTICS.md section 3).
# Runs as root inside the QEMU guest (testenv/run-kernel-tests.sh boots it).
#
#   run.sh [--kt PATH] [--tools DIR] [--rich DEV] [--plain DEV] [GROUP...]
#
#   --kt PATH     the kt syscall helper (built from kt.c on the host)
#   --tools DIR   directory holding getrichacl and setrichacl (default: the
#                 repository's build/ directory)
#   --rich DEV    block device with the richacl ext4 image (default /dev/vda)
#   --plain DEV   block device with the plain ext4 image (default /dev/vdb)
#   --rich-ea DEV block device with the richacl ext4 image made with ea_inode
#                 (default /dev/vdc; only the xsize group uses it)
#   --damaged DEV block device with the image of testenv/mkdamaged.sh
#                 (default /dev/vdd; only the fsck group uses it)
#   --e2fs DIR    e2fsprogs with richacl (testenv/e2fsprogs-build.sh's bin/;
#                 only the fsck group uses it)
#   GROUP...      run only these groups (function names below, e.g. create)
#
# Prints one "ok"/"FAIL" line per check and ends with "N passed, N failed";
# exits non-zero if anything failed.
#
# Groups (check names are <ID>/<name>, see lib.sh) and the SEMANTICS.md section 3 item each
# one proves (items numbered in the order section 3 lists them, 1-15):
#   mount       K-MOUNT       the ext4 richacl feature bit; POSIX ACLs off there
#   kunit       K-KUNIT       the fs/richacl.c KUnit suite (run at boot)
#   posix       K-POSIX       item 15: plain ext4 keeps POSIX ACLs
#   mode_plain  K-MODE-PLAIN  item 15: POSIX mode semantics (reference matrix)
#   mode_rich   K-MODE-RICH   the same matrix on the richacl fs, no acl set
#   create      K-CREATE      item 1: add_file vs add_subdirectory
#   delete      K-DELETE      item 2: delete_child / delete / sticky
#   rename      K-RENAME      item 3: rename and RENAME_EXCHANGE matrix
#   write_acl   K-WACL        item 4: write_acl grants chmod and setrichacl
#   write_owner K-WOWNER      item 5: write_owner, chown/chgrp to oneself only
#   write_attributes K-WATTR  item 6: write_attributes sets arbitrary times
#   append      K-APPEND      item 7: write vs append
#   owner_narrow K-OWNER      item 8: owner permissions narrower than the mode
#   chmod       K-CHMOD       item 9: chmod rewrites the masks
#   inherit     K-INHERIT     item 10: create-time inheritance, all f/d/n/i
#   auto_inherit K-AUTOINH    item 11: automatic inheritance flags
#   equiv       K-EQUIV       item 12: a mode-equivalent acl removes the xattr
#   rcu         K-RCU         item 13: RCU-walk agrees with ref-walk
#   invalid     K-INVAL       item 14: invalid xattr values: EINVAL, no change
#   unmapped    K-UNMAPPED    M9: unmapped identifiers match nobody
#   xsize       K-SIZE        the largest acl ext4 stores, with and without ea_inode
#   setid_*     K-SETID-*     set-id bits through chmod, setrichacl, take_ownership,
#                             chown, kill-suid (t-60-setid.sh)
#   caps_acl_changes K-CAPS-ACL one capability alone buys no acl change (t-62-caps.sh)
#   delete_dac_caps, create_mode_private, rename_whiteout, rename_both_dirs
#               K-DELETE-CAPS, K-CREATE-MODE, K-RENAME-*: create, delete and rename
#                             rules (t-64-create-delete-rename.sh)
#   append_*    K-APPEND-*    append-only opens (t-66-append.sh)
#   overlay_refused, userns_overlay, idmap_richacl_only
#               K-OVL-REFUSED, K-USERNS-OVL, K-IDMAP-RICHONLY: overlayfs, user
#                             namespaces, idmapped mounts (t-68-layers.sh)
#   masks_*     K-MASKS-*     the mode bounds what the acl grants (t-70-masks.sh)
#   walk_rcu_updates, xattr_malformed
#               K-WALK-RCU, K-XATTR-MALFORMED: RCU walk, malformed values
#                             (t-72-walk-values.sh)
#   caps        K-CAPS        one capability buys no more on richacl than on plain ext4
#   fsck        K-FSCK        e2fsck reports and removes damaged richacls, and only those
#   dmesg       K-DMESG       no BUG/WARNING/Oops in the kernel log
set -u
here=$(dirname "$(readlink -f "$0")")
TOOLS=$(readlink -f "$here/../../../build")
KT=""
RICH_DEV=/dev/vda
PLAIN_DEV=/dev/vdb
RICH_EA_DEV=/dev/vdc
DAMAGED_DEV=/dev/vdd
E2FS=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kt) KT=$2; shift 2 ;;
	--tools) TOOLS=$2; shift 2 ;;
	--rich) RICH_DEV=$2; shift 2 ;;
	--plain) PLAIN_DEV=$2; shift 2 ;;
	--rich-ea) RICH_EA_DEV=$2; shift 2 ;;
	--damaged) DAMAGED_DEV=$2; shift 2 ;;
	--e2fs) E2FS=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
GETRICHACL=$TOOLS/getrichacl
SETRICHACL=$TOOLS/setrichacl
[ -x "$KT" ] || { echo "run.sh: the kt helper is missing (--kt)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root (in the guest)" >&2; exit 2; }

export LC_ALL=C
umask 022

. "$here/lib.sh"
. "$here/lib-attack.sh"
for f in "$here"/t-*.sh; do
	. "$f"
done

R=/mnt/rich	# the richacl file system
P=/mnt/plain	# the plain ext4 file system (POSIX ACLs)
mkdir -p "$R" "$P"

RICH_OK=0
RICH_WHY="the richacl ext4 image did not mount"
if mount -t ext4 "$RICH_DEV" "$R" 2>/dev/null; then
	RICH_OK=1
	RICH_WHY=""
else
	RICH_WHY="mount -t ext4 $RICH_DEV failed: $(dmesg | grep 'EXT4-fs' | tail -n1 | sed 's/^\[[ 0-9.]*\] //')"
fi
PLAIN_OK=0
mount -t ext4 "$PLAIN_DEV" "$P" 2>/dev/null && PLAIN_OK=1

GROUPS_ALL=(mount kunit posix mode_plain mode_rich create delete rename write_acl write_owner
	write_attributes user_xattrs append append_fd owner_narrow owner_rights chmod inherit auto_inherit equiv rcu invalid
	unmapped xsize setid_chmod setid_setacl_sgid setid_take_ownership setid_kill_keeps_acl
	setid_program setid_foreign_group setid_chmod_caps setid_setacl_caps setid_modify
	setid_chown caps_acl_changes delete_dac_caps create_mode_private rename_whiteout
	rename_both_dirs append_acl_decides append_stays append_nonregular overlay_refused
	userns_overlay idmap_richacl_only masks_mode_bound masks_raw_values
	masks_explicit_chmod walk_rcu_updates xattr_malformed caps fsck dmesg)
if [ $# -gt 0 ]; then
	groups=("$@")
else
	groups=("${GROUPS_ALL[@]}")
fi

for g in "${groups[@]}"; do
	declare -F "t_$g" >/dev/null ||
		{ echo "run.sh: unknown group $g (known: ${GROUPS_ALL[*]})" >&2; exit 2; }
done

start=$(cut -d' ' -f1 /proc/uptime)
for g in "${groups[@]}"; do
	cd /
	"t_$g"
done
cd /
end=$(cut -d' ' -f1 /proc/uptime)
echo "# suite time: $(echo "$end - $start" | bc) s (guest clock)"
[ "$RICH_OK" = 1 ] && umount "$R"
[ "$PLAIN_OK" = 1 ] && umount "$P"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
