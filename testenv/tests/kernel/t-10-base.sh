# Mounting, POSIX behaviour on both file systems, and the final dmesg check.

# A valid system.posix_acl_access value: version 2, then user::rw-,
# group::r--, other::r-- (tag, perm, id = -1)
POSIX_ACL_644=02000000$(printf '%s' 01000600ffffffff 04000400ffffffff 20000400ffffffff)
# from_mode(0644) as system.richacl (algorithms.md section 8, first example):
# header, owner@:rwp::allow, everyone@:r::allow
RICHACL_644=$(printf '%s' 00000200070000000100000001000000 000000400700000000000000 \
	000000400100000002000000)

t_mount() {
	group_begin K-MOUNT "§3 ext4 richacl feature bit 0x40000"
	if [ "$RICH_OK" = 1 ]; then
		pass "ext4 image with incompat feature 0x40000 mounts"
	else
		fail "ext4 image with incompat feature 0x40000 mounts" "$RICH_WHY"
	fi
	if [ "$PLAIN_OK" = 1 ]; then
		pass "plain ext4 image mounts"
	else
		fail "plain ext4 image mounts" "mount -t ext4 $PLAIN_DEV failed"
	fi
	[ "$RICH_OK" = 1 ] || return
	touch "$R/mount-f"
	expect ENODATA root "system.richacl is handled on the richacl fs (no acl yet: ENODATA)" \
		getxattr "$R/mount-f" system.richacl
	expect EOPNOTSUPP root "system.posix_acl_access is refused on the richacl fs" \
		setxattr "$R/mount-f" system.posix_acl_access "$POSIX_ACL_644"
	local out
	if out=$(setfacl -m u:alice:r "$R/mount-f" 2>&1); then
		fail "setfacl fails on the richacl fs" "setfacl succeeded"
	elif [[ $out == *"Operation not supported"* ]]; then
		pass "setfacl fails on the richacl fs (Operation not supported)"
	else
		fail "setfacl fails on the richacl fs" "unexpected error: $out"
	fi
	rm -f "$R/mount-f"
}

# §3: "an ext4 file system without the richacl feature keeps POSIX ACL
# behaviour unchanged".  Expected values are POSIX.1e ACL semantics.
t_posix() {
	group_begin K-POSIX "§3.15 plain ext4 keeps POSIX ACLs"
	if [ "$PLAIN_OK" != 1 ]; then
		fail "plain ext4 mounted" "cannot run"
		return
	fi
	local B=$P/posix
	fresh_dir "$B"
	echo data >"$B/f"
	chmod 0644 "$B/f"
	S setfacl -m u:alice:rw "$B/f"
	check_text "setfacl/getfacl: named user entry stored" "$(cat <<-'EOF'
		user::rw-
		user:alice:rw-
		group::r--
		mask::rw-
		other::r--
		EOF
	)" getfacl --omit-header --absolute-names "$B/f"
	check_eq "group bits show the ACL mask (0664)" 664 "$(mode_of "$B/f")"
	expect OK alice "named user entry grants alice write" open "$B/f" w
	expect DENIED bob "bob (other) gets no write" open "$B/f" w
	expect OK bob "bob (other) can read" open "$B/f" r
	S setfacl -m m::r "$B/f"
	expect DENIED alice "the mask limits the named user entry" open "$B/f" w
	expect OK alice "the mask keeps read" open "$B/f" r

	mkdir "$B/d"
	S setfacl -d -m u:bob:rwx "$B/d"
	(umask 077 && touch "$B/d/new" && mkdir "$B/d/sub")
	check_eq "default ACL: new file mode ignores the umask (0664)" 664 "$(mode_of "$B/d/new")"
	check_text "default ACL: new file inherits user:bob" "$(cat <<-'EOF'
		user::rw-
		user:bob:rwx	#effective:rw-
		group::r-x	#effective:r--
		mask::rw-
		other::r--
		EOF
	)" getfacl --omit-header --absolute-names "$B/d/new"
	check_text "default ACL: new directory inherits the default ACL" "$(cat <<-'EOF'
		user::rwx
		user:bob:rwx
		group::r-x
		mask::rwx
		other::r-x
		EOF
	)" getfacl --omit-header --absolute-names --default "$B/d/sub"
	expect OK bob "inherited entry grants bob write" open "$B/d/new" w
	expect DENIED alice "alice (other) gets no write on the new file" open "$B/d/new" w
	S setfacl -b "$B/f"
	expect ENODATA root "setfacl -b removes system.posix_acl_access" \
		getxattr "$B/f" system.posix_acl_access

	expect EOPNOTSUPP root "system.richacl cannot be set on plain ext4" \
		setxattr "$B/f" system.richacl "$RICHACL_644"
	expect EOPNOTSUPP root "system.richacl cannot be read on plain ext4" \
		getxattr "$B/f" system.richacl
	if [ -x "$GETRICHACL" ]; then
		chmod 0644 "$B/f"
		check_text "getrichacl shows the mode as an acl on plain ext4 (algorithms.md 7.3)" \
			"$(lines "$B/f:" "    owner@:rwp----------::allow" " everyone@:r------------::allow")" \
			"$GETRICHACL" "$B/f"
		check_text "getrichacl refuses a file with a POSIX ACL" "$B/d/new: File has a posix acl" \
			"$GETRICHACL" "$B/d/new"
		check_text "setrichacl: non-equivalent acl is not supported on plain ext4" \
			"$B/f: Operation not supported" "$SETRICHACL" --set 'owner@:rw::allow' "$B/f"
		"$SETRICHACL" --set 'owner@:rwp::allow group@:r::allow' "$B/f" >/dev/null 2>&1
		check_eq "setrichacl: mode-equivalent acl falls back to chmod (0640)" 640 "$(mode_of "$B/f")"
	else
		fail "getrichacl/setrichacl on plain ext4" "tools not found in $TOOLS"
	fi
}

# POSIX permission semantics with mode bits only.  Run on the plain fs and,
# without any acl set, on the richacl fs: files without an acl must behave
# exactly as on any other file system (§3, and regression for the series).
mode_matrix() {	# base directory
	local B=$1
	fresh_dir "$B"
	local d
	for d in 0777 0755 1777 0733 0766 b0777; do
		mkdir "$B/d$d"
		chmod "${d#b}" "$B/d$d"
	done
	for d in d0777 d0755 d1777; do
		echo root >"$B/$d/f"
		echo root >"$B/$d/g"
	done
	echo alice >"$B/d1777/fa"
	chown alice "$B/d1777/fa"
	mkdir "$B/d0777/s" "$B/d0777/sa"
	chown alice "$B/d0777/sa"
	echo e1 >"$B/d0777/e1"
	echo e2 >"$B/d0777/e2"
	echo e4 >"$B/d0755/e4"

	expect OK alice "create in a 0777 dir" create "$B/d0777/new"
	expect EACCES alice "create in a 0755 dir" create "$B/d0755/new"
	expect OK alice "create in a 0733 dir (no read needed)" create "$B/d0733/new"
	expect EACCES alice "create in a 0766 dir (no search)" create "$B/d0766/new"
	expect OK alice "mkdir in a 0777 dir" mkdir "$B/d0777/newd"
	expect EACCES alice "mkdir in a 0755 dir" mkdir "$B/d0755/newd"
	expect OK alice "symlink in a 0777 dir" symlink x "$B/d0777/sym"
	expect EACCES alice "mknod (fifo) in a 0755 dir" mknod "$B/d0755/fifo"
	expect OK alice "unlink root's file in a 0777 dir" unlink "$B/d0777/f"
	expect EACCES alice "unlink in a 0755 dir" unlink "$B/d0755/f"
	expect EPERM alice "unlink root's file in a sticky 1777 dir" unlink "$B/d1777/f"
	expect OK alice "unlink own file in a sticky 1777 dir" unlink "$B/d1777/fa"
	expect OK root "root unlinks in a sticky dir" unlink "$B/d1777/g"
	expect OK alice "rename root's file within a 0777 dir" rename "$B/d0777/g" "$B/d0777/h"
	echo root >"$B/d1777/g"
	expect EPERM alice "rename root's file within a sticky dir" rename "$B/d1777/g" "$B/d1777/g2"
	expect EACCES alice "rename into a 0755 dir" rename "$B/d0777/h" "$B/d0755/h"
	expect EACCES alice "move root's directory to another parent (needs write on it)" \
		rename "$B/d0777/s" "$B/db0777/s"
	expect OK alice "move own directory to another parent" rename "$B/d0777/sa" "$B/db0777/sa"
	expect OK alice "RENAME_EXCHANGE within a 0777 dir" exchange "$B/d0777/e1" "$B/d0777/e2"
	check_eq "RENAME_EXCHANGE swapped the files" "e2 e1" "$(cat "$B/d0777/e1") $(cat "$B/d0777/e2")"
	expect EACCES alice "RENAME_EXCHANGE with a file in a 0755 dir" \
		exchange "$B/d0777/e1" "$B/d0755/e4"

	echo x >"$B/w644"
	echo x >"$B/w666"
	chmod 0644 "$B/w644"
	chmod 0666 "$B/w666"
	expect EACCES alice "write a 0644 root file" open "$B/w644" w
	expect OK alice "read a 0644 root file" open "$B/w644" r
	expect OK alice "write a 0666 file" open "$B/w666" w
	expect OK alice "append to a 0666 file" open "$B/w666" wa
	echo x >"$B/ow"
	chown alice "$B/ow"
	chmod 0444 "$B/ow"
	expect EACCES alice "owner cannot write a 0444 file" open "$B/ow" w
	expect EPERM bob "non-owner cannot chmod" chmod "$B/ow" 0666
	expect OK alice "owner can chmod" chmod "$B/ow" 0644
	expect OK alice "owner can write after chmod 0644" open "$B/ow" w
	echo x >"$B/g060"
	chown alice:$STAFF "$B/g060"
	chmod 0060 "$B/g060"
	expect OK bob "owning group member gets the group bits" open "$B/g060" rw
	expect EACCES alice "owner gets the owner bits (none), not the group bits" open "$B/g060" r
	expect OK alice "non-owner with write permission sets times to now" utimes "$B/w666" now
	expect EPERM alice "non-owner cannot set arbitrary times" utimes "$B/w666" 1000000000
	expect OK alice "owner sets arbitrary times" utimes "$B/ow" 1000000000
	expect EPERM alice "non-owner cannot chown to herself" chown "$B/w666" 1001 -1
	echo x >"$B/ob"
	chown bob:bob "$B/ob"
	expect OK bob "owner chgrp to a group he is in" chown "$B/ob" -1 $STAFF
	expect EPERM bob "owner cannot give the file away" chown "$B/ob" 1001 -1
	expect EPERM alice "chgrp by a non-owner" chown "$B/ob" -1 1001
}

t_mode_plain() {
	group_begin K-MODE-PLAIN "§3.15 POSIX mode semantics on plain ext4"
	if [ "$PLAIN_OK" != 1 ]; then
		fail "plain ext4 mounted" "cannot run"
		return
	fi
	mode_matrix "$P/mode"
}

t_mode_rich() {
	group_begin K-MODE-RICH "§3 files without an acl on the richacl fs behave as POSIX"
	require_richacl || return
	mode_matrix "$R/mode"
	expect ENODATA root "no acl was created by any of these operations" \
		getxattr "$R/mode/d0777/new" system.richacl
}

t_dmesg() {
	group_begin K-DMESG "§3 no kernel warnings"
	local bad
	bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t:|kernel BUG' | head -n 20)
	if [ -z "$bad" ]; then
		pass "dmesg has no BUG/WARNING/Oops after the whole suite"
	else
		fail "dmesg has no BUG/WARNING/Oops after the whole suite" "found" "$bad"
	fi
}
