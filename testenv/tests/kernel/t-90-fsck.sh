# K-FSCK: e2fsck with the richacl feature (e2fsprogs-patches/), on the image
# of testenv/mkdamaged.sh: valid and damaged system.richacl values in the
# inode body, an attribute block and an attribute inode.
#
# The kernel refuses every access to a file whose richacl it cannot decode
# (EIO).  e2fsck -fn must report exactly the damaged values and change
# nothing; e2fsck -fy must remove exactly those; a second e2fsck -fn must
# find the file system clean.  Afterwards the kernel decides access to the
# repaired files by their mode (0600, owner alice), and the valid acls are
# still there, byte for byte, and in force (everyone@ read, against the
# mode).

FSCK_VALID=(valid_inline valid_block valid_eainode)
FSCK_BAD=(bad_version bad_special bad_block bad_eainode)

# fsck_reported LOG: the inode numbers e2fsck reported as damaged richacls
fsck_reported() {
	sed -n 's/^Inode \([0-9]*\) has a damaged system\.richacl .*/\1/p' "$1" |
		sort -n | tr '\n' ' '
}

t_fsck() {
	group_begin K-FSCK "e2fsck checks system.richacl values (issue 15)"
	local M=/mnt/damaged out f rc want="" log=/tmp/fsck-log
	local -A sum
	if [ -z "$E2FS" ] || [ ! -x "$E2FS/e2fsck" ]; then
		fail "e2fsck with richacl is available" "--e2fs not given or $E2FS/e2fsck missing"
		return 0
	fi
	if [ ! -b "$DAMAGED_DEV" ]; then
		fail "the damaged image is attached" "$DAMAGED_DEV is not a block device"
		return 0
	fi
	out=$("$E2FS/dumpe2fs" -h "$DAMAGED_DEV" 2>/dev/null | grep '^Filesystem features:')
	if [[ " ${out#*:} " == *" richacl "* ]]; then
		pass "dumpe2fs names the richacl feature"
	else
		fail "dumpe2fs names the richacl feature" "$out"
	fi

	mkdir -p "$M"
	if ! out=$(mount -t ext4 "$DAMAGED_DEV" "$M" 2>&1); then
		fail "the damaged image mounts" "$out" "$(dmesg | grep 'EXT4-fs' | tail -n 2)"
		return 0
	fi
	for f in "${FSCK_VALID[@]}"; do
		out=$(kt_as root getxattr "$M/$f" system.richacl 2>&1)
		sum[$f]=$(printf '%s' "$out" | sha256sum | cut -c1-16)
		_expect_outcome OK "before: the kernel decodes $f" "getxattr $M/$f" "$out"
		expect OK bob "before: $f grants bob read through everyone@ (mode 0600)" \
			open "$M/$f" r
	done
	for f in "${FSCK_BAD[@]}"; do
		want+="$(stat -c %i "$M/$f") "
		expect EIO root "before: reading the richacl of $f fails with EIO" \
			getxattr "$M/$f" system.richacl
		expect EIO alice "before: opening $f fails with EIO, even for its owner" \
			open "$M/$f" r
	done
	want=$(tr ' ' '\n' <<<"$want" | sed '/^$/d' | sort -n | tr '\n' ' ')
	umount "$M"

	"$E2FS/e2fsck" -fn "$DAMAGED_DEV" >"$log" 2>&1
	rc=$?
	check_eq "e2fsck -fn exits 4 (errors left uncorrected)" 4 "$rc"
	check_eq "e2fsck -fn reports exactly the damaged richacls (inodes)" "$want" \
		"$(fsck_reported "$log")"
	check_eq "e2fsck -fn asks nothing else (one question per damaged value)" \
		"${#FSCK_BAD[@]}" "$(grep -c '? no$' "$log")"
	if grep -q '^Inode .* has a damaged system\.richacl .*(.\+)\.$' "$log"; then
		pass "e2fsck says why each value is damaged"
	else
		fail "e2fsck says why each value is damaged" "no reason in parentheses" \
			"$(grep 'system.richacl' "$log" | head -n 3)"
	fi

	"$E2FS/e2fsck" -fy "$DAMAGED_DEV" >"$log" 2>&1
	rc=$?
	check_eq "e2fsck -fy exits 1 (file system modified)" 1 "$rc"
	check_eq "e2fsck -fy removes exactly the damaged richacls (inodes)" "$want" \
		"$(fsck_reported "$log")"
	"$E2FS/e2fsck" -fn "$DAMAGED_DEV" >"$log" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		pass "a second e2fsck -fn finds the file system clean"
	else
		fail "a second e2fsck -fn finds the file system clean" "exit $rc" \
			"$(grep -v '^Pass \|^e2fsck \|^$' "$log" | head -n 5)"
	fi

	if ! out=$(mount -t ext4 "$DAMAGED_DEV" "$M" 2>&1); then
		fail "the repaired image mounts" "$out" "$(dmesg | grep 'EXT4-fs' | tail -n 2)"
		return 0
	fi
	for f in "${FSCK_BAD[@]}"; do
		expect ENODATA root "after: $f has no richacl" getxattr "$M/$f" system.richacl
		expect OK alice "after: the mode (0600) lets the owner alice read $f" open "$M/$f" r
		expect DENIED bob "after: the mode (0600) keeps bob out of $f" open "$M/$f" r
	done
	for f in "${FSCK_VALID[@]}"; do
		out=$(kt_as root getxattr "$M/$f" system.richacl 2>&1)
		check_eq "after: the richacl of $f is unchanged" "${sum[$f]}" \
			"$(printf '%s' "$out" | sha256sum | cut -c1-16)"
		expect OK bob "after: $f still grants bob read through everyone@" open "$M/$f" r
	done
	umount "$M"
}
