#!/bin/bash
# Create the ext4 disk images for the in-guest tests.
#
#   testenv/mkimage.sh [--ea-inode] DIR
#
# Writes two fresh raw images into DIR and prints their paths, one per line:
#   DIR/richacl.img   ext4 with the richacl feature (incompat bit 0x40000,
#                     EXT4_FEATURE_INCOMPAT_RICHACL of this project's series)
#   DIR/plain.img     ext4 without it (POSIX ACLs, for comparison)
# and with --ea-inode a third one:
#   DIR/richacl-ea.img  richacl.img with the ea_inode feature (large xattr
#                     values in inodes of their own), for the ACL size limits
# Both use 4 KiB blocks and 256-byte inodes, as ext4 on a real disk does
# (mke2fs would pick 1 KiB blocks and 128-byte inodes, i.e. no in-inode xattr
# space, for an image this small).  The images are copied (sparse) from
# templates cached under
# /var/cache/richacl/testenv/images/<hash of this script and the e2fsprogs build>/.
#
# The images are made with e2fsprogs with richacl (e2fsprogs-patches/, built
# by testenv/e2fsprogs-build.sh): mkfs.ext4 -O richacl, checked with its
# e2fsck -fn.  Never mount these images on the host.
set -euo pipefail

SIZE_MB=${RICHACL_IMAGE_MB:-128}
RICHACL_BIT=$((0x40000))

names=(richacl plain)
if [ "${1:-}" = --ea-inode ]; then
	names+=(richacl-ea)
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--ea-inode] DIR" >&2; exit 2; }
out=$1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
e2fs=$(bash "$here/e2fsprogs-build.sh")
key=$( (cat "$0"; echo "$e2fs $SIZE_MB") | sha256sum | cut -c1-16)
e2fs=$e2fs/bin
cache=/var/cache/richacl/testenv/images/$key

incompat_bits() {	# image -> s_feature_incompat (superblock at 1024, field at 0x60)
	od -A n -t u4 -j $((1024 + 0x60)) -N 4 "$1" | tr -d ' '
}

make_template() {	# image richacl(0|1) [mkfs.ext4 options]
	local img=$1 rich=$2 features=""
	shift 2
	rm -f "$img"
	truncate -s "${SIZE_MB}M" "$img"
	[ "$rich" = 1 ] && features="-O richacl"
	# shellcheck disable=SC2086
	"$e2fs/mkfs.ext4" -q -F -b 4096 -I 256 -L "$([ "$rich" = 1 ] && echo richacl || echo plain)" \
		-E root_owner=0:0 $features "$@" "$img"
	if [ "$rich" = 1 ]; then
		"$e2fs/dumpe2fs" -h "$img" 2>/dev/null | grep -q '^Filesystem features:.* richacl' || {
			echo "mkimage: mkfs.ext4 -O richacl did not name the feature on $img" >&2
			return 1
		}
		[ $(( $(incompat_bits "$img") & RICHACL_BIT )) -ne 0 ] || {
			echo "mkimage: incompat bit 0x40000 not set on $img" >&2
			return 1
		}
	else
		[ $(( $(incompat_bits "$img") & RICHACL_BIT )) -eq 0 ] || {
			echo "mkimage: plain image unexpectedly has bit 0x40000" >&2
			return 1
		}
	fi
	"$e2fs/e2fsck" -fn "$img" >/dev/null 2>&1 || {
		echo "mkimage: e2fsck found problems in $img" >&2
		return 1
	}
}

if [ ! -f "$cache/done" ]; then
	mkdir -p "$cache"
	make_template "$cache/richacl.img" 1
	make_template "$cache/plain.img" 0
	make_template "$cache/richacl-ea.img" 1 -O ea_inode
	"$e2fs/dumpe2fs" -h "$cache/richacl-ea.img" 2>/dev/null | grep -q '^Filesystem features:.*ea_inode' || {
		echo "mkimage: mkfs.ext4 did not set ea_inode on richacl-ea.img" >&2
		exit 1
	}
	touch "$cache/done"
	# templates of older versions of this script are of no further use
	find "${cache%/*}" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
fi

mkdir -p "$out"
for name in "${names[@]}"; do
	cp --sparse=always "$cache/$name.img" "$out/$name.img"
	echo "$(cd "$out" && pwd)/$name.img"
done
