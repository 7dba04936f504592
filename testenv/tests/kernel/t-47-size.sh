# K-SIZE: the largest acl ext4 stores, with and without ea_inode.
#
# An acl of N user entries is 16 + 12 N bytes (reference/xattr-format.md).
# Without ea_inode an xattr value must fit one 4 KiB block beside the block
# header (32 bytes), the entry header (16 bytes), the padded name "richacl"
# (8 bytes) and the 4-byte end marker: 16 + 12 N <= 4036, N <= 335, the
# number vfs_richacl.8 gives.  With ea_inode the value goes to an inode of
# its own, and the VFS limit XATTR_SIZE_MAX (65536) is what remains:
# N <= 5460, the format's own limit.  The groups measure the largest N the
# kernel accepts (binary search), check that one entry more is refused with
# the right errno and changes nothing, and that the largest acl is in force.

# size_probe DIR: print "max errno-of-max+1" for acls of user entries
size_probe() {
	python3 - "$1" <<'EOF'
import errno, os, struct, sys

d = sys.argv[1]
f = os.path.join(d, "probe")
open(f, "w").close()


def acl(n):
    # header (as xhdr 0 0 n 1 1 0 of t-40-acl.sh): version 0, flags 0 (the
    # masks are not applied), count, owner/group/other mask
    hdr = struct.pack("<BBHIII", 0, 0, n, 1, 1, 0)
    # entries: allow, no flags, mask read_data, uid 10001..10000+n
    return hdr + b"".join(struct.pack("<HHII", 0, 0, 0x1, 10000 + i) for i in range(1, n + 1))


def fits(n):
    try:
        os.setxattr(f, "system.richacl", acl(n))
        return True, ""
    except OSError as e:
        return False, errno.errorcode.get(e.errno, str(e.errno))


lo, hi = 1, 6000         # fits(lo) is true, fits(hi) false (above the format limit)
while hi - lo > 1:
    mid = (lo + hi) // 2
    if fits(mid)[0]:
        lo = mid
    else:
        hi = mid
os.setxattr(f, "system.richacl", acl(lo))
before = os.getxattr(f, "system.richacl")
ok, err = fits(lo + 1)
after = os.getxattr(f, "system.richacl")
print(lo, err if not ok else "STORED", "unchanged" if before == after == acl(lo) else "changed")
EOF
}

t_xsize() {
	group_begin K-SIZE "vfs_richacl.8 entry limit"
	require_richacl || return 0
	local B=$R/ksize out n err same
	fresh_dir "$B"
	out=$(size_probe "$B") || { fail "the probe ran on $B" "python3 failed" "$out"; return 0; }
	read -r n err same <<<"$out"
	echo "# K-SIZE: without ea_inode the largest acl has $n entries; one more: $err"
	check_eq "without ea_inode: the largest acl has (4036 - 16) / 12 entries" 335 "$n"
	check_eq "without ea_inode: one entry more is refused with ENOSPC" ENOSPC "$err"
	check_eq "without ea_inode: the refused acl changed nothing" unchanged "$same"
	expect OK 10335 "the 335-entry acl is in force (its last entry grants uid 10335 read)" \
		open "$B/probe" r
	expect DENIED 10336 "the 335-entry acl is in force (no entry for uid 10336)" \
		open "$B/probe" r

	local E=/mnt/richea
	mkdir -p "$E"
	if ! out=$(mount -t ext4 "$RICH_EA_DEV" "$E" 2>&1); then
		fail "the ea_inode richacl image mounts" "$out" \
			"$(dmesg | grep 'EXT4-fs' | tail -n 2)"
		return 0
	fi
	B=$E/ksize
	fresh_dir "$B"
	if out=$(size_probe "$B"); then
		read -r n err same <<<"$out"
		echo "# K-SIZE: with ea_inode the largest acl has $n entries; one more: $err"
		check_eq "with ea_inode: the largest acl has (65536 - 16) / 12 entries" 5460 "$n"
		check_eq "with ea_inode: one entry more is refused with E2BIG (XATTR_SIZE_MAX)" \
			E2BIG "$err"
		check_eq "with ea_inode: the refused acl changed nothing" unchanged "$same"
		expect OK 15460 "the 5460-entry acl is in force (its last entry grants uid 15460)" \
			open "$B/probe" r
		expect DENIED 15461 "the 5460-entry acl is in force (no entry for uid 15461)" \
			open "$B/probe" r
	else
		fail "the probe ran on $B" "python3 failed" "$out"
	fi
	cd /
	umount "$E"
}
