# Privilege holes found by an outside attack on the series (issue 11), one
# group per finding, named by its id (K-SEC-n).  Each group first proves the
# hole is closed and then that the feature next to it still works, so that a
# fix which simply refuses everything cannot pass.

# K-SEC-1: the chmod permission (write_acl) must not hand out set-id bits.
t_ksec1() {
	group_begin K-SEC-1 "write_acl does not grant setting set-id bits"
	require_richacl || return
	local B=$R/ksec1 f
	fresh_dir "$B"
	for f in a r g keep own; do echo x >"$B/$f"; chmod 0644 "$B/$f"; done
	S chown alice:alice "$B/a" "$B/keep" "$B/own"
	S chown alice:$STAFF "$B/g"
	S chmod 4755 "$B/keep"
	setacl 'owner@:rwpx::allow user:1002:C::allow everyone@:r::allow' "$B/a" "$B/r" "$B/g" "$B/keep" "$B/own"

	expect EPERM bob "bob (write_acl) cannot make alice's file setuid" chmod "$B/a" 4755
	check_eq "the refused chmod changed nothing" 744 "$(mode_of "$B/a")"
	expect EPERM bob "bob (write_acl) cannot make root's file setuid root" chmod "$B/r" 4755
	check_eq "root's file is not setuid" 744 "$(mode_of "$B/r")"
	expect EPERM bob "bob (write_acl, in the owning group staff) cannot set setgid" chmod "$B/g" 2755
	expect EPERM bob "bob (write_acl) cannot set both set-id bits" chmod "$B/g" 6755
	check_eq "the group file is not setgid" 744 "$(mode_of "$B/g")"
	expect OK bob "write_acl still allows chmod without set-id bits" chmod "$B/a" 0750
	check_eq "the mode changed" 750 "$(mode_of "$B/a")"
	# keeping the bit while the mode grants others write access would let
	# them put their code into a program that runs as alice (K-ATTACK-2)
	expect EPERM bob "write_acl cannot keep a setuid bit that is already set" chmod "$B/keep" 4777
	check_eq "the refused chmod left the mode alone" 4744 "$(mode_of "$B/keep")"
	expect OK bob "write_acl may clear a setuid bit" chmod "$B/keep" 0750
	check_eq "the cleared setuid bit" 750 "$(mode_of "$B/keep")"
	expect OK alice "the owner may still set the setuid bit" chmod "$B/own" 4755
	check_eq "the owner's setuid bit" 4755 "$(mode_of "$B/own")"
	expect_cap OK bob fowner "CAP_FOWNER may still set the setuid bit" chmod "$B/a" 4755
}

# K-SEC-2: setting a richacl clears the setgid bit for callers outside the
# owning group without CAP_FSETID, as chmod() and setfacl do.
t_ksec2() {
	group_begin K-SEC-2 "setting a richacl clears setgid outside the owning group"
	require_richacl || return
	local B=$R/ksec2 f
	fresh_dir "$B"
	for f in acl eq member fsetid; do echo x >"$B/$f"; done
	S chown alice:$STAFF "$B/acl" "$B/eq" "$B/member" "$B/fsetid"
	S chmod 2750 "$B/acl" "$B/eq" "$B/member" "$B/fsetid"

	expect_sh OK alice "alice (owner, not in staff) sets an acl" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow user:1005:r::allow" "$2"' \
		"$SETRICHACL" "$B/acl"
	check_eq "the setgid bit is gone after setting an acl" 750 "$(mode_of "$B/acl")"
	expect_sh OK alice "alice sets a mode-equivalent acl" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow" "$2"' "$SETRICHACL" "$B/eq"
	check_eq "the setgid bit is gone after a mode-equivalent acl" 750 "$(mode_of "$B/eq")"
	S "$SETRICHACL" --set 'owner@:rwx::allow group@:rx::allow user:1002:C::allow' "$B/member"
	check_eq "setup: root's acl kept the setgid bit" 2750 "$(mode_of "$B/member")"
	expect_sh OK bob "bob (write_acl, in staff) sets an acl" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow user:1002:C::allow user:1005:r::allow" "$2"' \
		"$SETRICHACL" "$B/member"
	check_eq "a member of the owning group keeps the setgid bit" 2750 "$(mode_of "$B/member")"
	expect_sh OK root "root (CAP_FSETID, not in staff) sets an acl" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow user:1005:r::allow" "$2"' \
		"$SETRICHACL" "$B/fsetid"
	check_eq "CAP_FSETID keeps the setgid bit" 2750 "$(mode_of "$B/fsetid")"
	if [ "$PLAIN_OK" = 1 ]; then
		local P2=$P/ksec2
		fresh_dir "$P2"
		echo x >"$P2/f"
		S chown alice:$STAFF "$P2/f"
		S chmod 2750 "$P2/f"
		expect_sh OK alice "plain ext4: alice sets a POSIX acl" 'setfacl -m u:1005:r "$1"' "$P2/f"
		check_eq "plain ext4 clears the setgid bit the same way" 750 "$(mode_of "$P2/f")"
	fi
}

# K-SEC-3: the DAC capabilities do not let a victim "allow" its deletion.
t_ksec3() {
	group_begin K-SEC-3 "CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH do not bypass delete checks"
	require_richacl || return
	local B=$R/ksec3
	fresh_dir "$B"
	S mkdir "$B/a" "$B/s" "$B/v"
	S mkdir "$B/a/d" "$B/a/d2"
	echo x >"$B/s/f"
	echo x >"$B/s/f2"
	echo x >"$B/s/f3"
	echo x >"$B/v/f"
	S chown -R alice:alice "$B/a"
	S chown carol:carol "$B/s"
	S chmod 1777 "$B/s"
	S chown bob:bob "$B/s/f" "$B/s/f2" "$B/s/f3"
	S chown alice:alice "$B/v" "$B/v/f"

	expect_cap DENIED root dac_read_search "CAP_DAC_READ_SEARCH alone: rmdir in alice's 0755 dir refused" \
		rmdir "$B/a/d"
	kt_cap root dac_read_search rmdir "$B/a/d" >/dev/null 2>&1
	check_eq "the directory is still there" yes "$([ -d "$B/a/d" ] && echo yes)"
	expect_cap DENIED root dac_override "CAP_DAC_OVERRIDE alone: unlink bob's file in carol's 1777 dir refused" \
		unlink "$B/s/f"
	check_eq "the file is still there" yes "$([ -e "$B/s/f" ] && echo yes)"
	expect_cap DENIED alice dac_override "alice with CAP_DAC_OVERRIDE: unlink bob's file in the sticky dir refused" \
		unlink "$B/s/f2"
	expect_cap OK root dac_override,fowner "CAP_DAC_OVERRIDE and CAP_FOWNER may unlink in the sticky dir" \
		unlink "$B/s/f2"
	expect_cap OK root dac_override "CAP_DAC_OVERRIDE alone may rmdir in alice's 0755 dir" \
		rmdir "$B/a/d2"
	setacl 'owner@:rwpxD::allow user:1002:D::allow' "$B/v/f"
	setacl 'owner@:rwpxd::allow everyone@:x::allow' "$B/v"
	expect OK bob "the victim's own delete permission still works (bob deletes alice's file)" unlink "$B/v/f"
	setacl 'owner@:rwp::allow user:1003:r::allow' "$B/s/f3"
	expect_cap DENIED alice dac_override "an acl on the victim that grants nothing does not help CAP_DAC_OVERRIDE" \
		unlink "$B/s/f3"
}

# K-SEC-4: the create mode limits every class's file mask (as in v28).
t_ksec4() {
	group_begin K-SEC-4 "a file created 0600 below everyone@:full is private"
	require_richacl || return
	local B=$R/ksec4
	fresh_dir "$B"
	S chown alice:alice "$B"
	setacl 'everyone@:rwpxdDaARWcCoS:fd:allow' "$B"

	expect OK alice "alice creates a file with mode 0600" create "$B/f" 600
	expect OK alice "alice creates a directory with mode 0700" mkdir "$B/d" 700
	check_eq "the file mode is 0600" 600 "$(mode_of "$B/f")"
	check_eq "the directory mode is 0700" 700 "$(mode_of "$B/d")"
	expect DENIED bob "bob cannot read the 0600 file" open "$B/f" r
	expect EPERM bob "bob cannot chmod the 0600 file (the inherited write_acl is masked)" chmod "$B/f" 644
	check_eq "the refused chmod changed nothing" 600 "$(mode_of "$B/f")"
	expect DENIED bob "so he still cannot read it" open "$B/f" r
	expect DENIED bob "bob cannot replace the acl of the 0600 file" setxattr "$B/f" system.richacl \
		"$(xattr_of "$B/f")"
	expect EPERM bob "bob cannot take ownership of the 0600 file" chown "$B/f" 1002 -1
	expect EPERM bob "bob cannot set its times" utimes "$B/f" 1000000000
	expect EPERM bob "bob cannot chmod the 0700 directory" chmod "$B/d" 755
	expect DENIED bob "bob cannot list the 0700 directory" readdir "$B/d"
	expect OK alice "alice (owner) can chmod her file" chmod "$B/f" 644
	expect OK bob "after alice's chmod 0644, bob reads it" open "$B/f" r
	expect OK alice "alice creates a file with mode 0666" create "$B/g" 666
	expect OK bob "the 0666 file: bob may write it" open "$B/g" w
	expect EPERM bob "the 0666 file: the mode grants no chmod, so bob has none" chmod "$B/g" 600
	expect OK bob "the directory's own delete_child still lets bob delete the file" unlink "$B/g"
}

# K-SEC-5: overlayfs refuses richacl file systems as layers.
t_ksec5() {
	group_begin K-SEC-5 "overlayfs refuses layers with richacls"
	require_richacl || return
	local B=$R/ksec5 T=/mnt/ksec5-tmp O=/mnt/ksec5-ovl out
	fresh_dir "$B"
	mkdir -p "$T" "$O"
	mount -t tmpfs tmpfs "$T" || { fail "setup: mount tmpfs" "failed"; return; }
	mkdir -p "$T/up" "$T/work" "$T/low" "$T/up2" "$T/work2"
	S mkdir "$B/lower" "$B/up" "$B/work"
	echo secret >"$B/lower/f"
	S chmod 0644 "$B/lower/f"
	setacl 'owner@:rwp::allow user:1002:r::deny everyone@:r::allow' "$B/lower/f"
	expect DENIED bob "the acl denies bob reading f on the ext4 mount" open "$B/lower/f" r

	out=$(mount -t overlay overlay -o "lowerdir=$B/lower,upperdir=$T/up,workdir=$T/work" "$O" 2>&1)
	if mountpoint -q "$O"; then
		fail "a richacl lower layer is refused" "the overlay mounted" \
			"bob reading f through it: $(kt_as bob open "$O/f" r 2>&1 | head -n1)"
		umount "$O"
	else
		pass "a richacl lower layer is refused"
	fi
	check_eq "the kernel log names the richacl layer" 1 \
		"$(dmesg | grep -c "overlayfs: filesystem on '$B/lower' has richacls")"
	echo x >"$T/low/g"
	if mount -t overlay overlay -o "lowerdir=$T/low,upperdir=$B/up,workdir=$B/work" "$O" 2>/dev/null; then
		fail "a richacl upper layer is refused" "the overlay mounted"
		umount "$O"
	else
		pass "a richacl upper layer is refused"
	fi
	if mount -t overlay overlay -o "lowerdir=$T/low,upperdir=$T/up2,workdir=$T/work2" "$O" 2>/dev/null; then
		pass "an overlay of layers without richacls still mounts"
		check_eq "and shows the lower file" x "$(cat "$O/g")"
		umount "$O"
	else
		fail "an overlay of layers without richacls still mounts" "mount failed"
	fi
	umount "$T"
}

# K-SEC-6: a RENAME_WHITEOUT source needs add_file where the whiteout goes.
t_ksec6() {
	group_begin K-SEC-6 "RENAME_WHITEOUT needs add_file in the source directory"
	require_richacl || return
	local B=$R/ksec6
	fresh_dir "$B"
	S mkdir "$B/src" "$B/dst" "$B/src2"
	echo x >"$B/src/f"
	echo x >"$B/src/h"
	echo x >"$B/src2/f"
	S chown -R alice:alice "$B/src" "$B/dst" "$B/src2"
	setacl 'owner@:rwpxdD::allow user:1002:xd::allow everyone@:x::allow' "$B/src"
	setacl 'owner@:rwpxdD::allow user:1002:xwd::allow everyone@:x::allow' "$B/src2"
	setacl 'owner@:rwpxdD::allow user:1002:xw::allow everyone@:x::allow' "$B/dst"

	expect_cap DENIED bob mknod "bob (delete_child, no add_file on src) cannot leave a whiteout in src" \
		whiteout "$B/src/f" "$B/dst/f"
	check_eq "no whiteout was created, f stayed" "regular file" "$(stat -c %F "$B/src/f")"
	expect_cap OK bob mknod "with add_file on the source directory the whiteout rename works" \
		whiteout "$B/src2/f" "$B/dst/f2"
	check_eq "the whiteout is a character device 0:0" "character special file 0:0" \
		"$(stat -c '%F %t:%T' "$B/src2/f")"
	expect OK bob "a plain rename out of src (delete_child only) still works" rename "$B/src/h" "$B/dst/h"
}

# K-SEC-7: take_ownership works on set-id files and clears the set-id bits.
t_ksec7() {
	group_begin K-SEC-7 "write_owner takes ownership of set-id files"
	require_richacl || return
	local B=$R/ksec7 f
	fresh_dir "$B"
	for f in su sg plain other; do echo x >"$B/$f"; done
	S chown alice:alice "$B/su" "$B/sg" "$B/plain" "$B/other"
	S chmod 4755 "$B/su" "$B/other"
	S chmod 2755 "$B/sg"
	setacl 'owner@:rwpx::allow user:1002:o::allow everyone@:rx::allow' "$B/su" "$B/sg" "$B/plain" "$B/other"
	check_eq "setup: root's acl kept the set-id bits" "4755 2755 4755" \
		"$(stat -c %a "$B/su" "$B/sg" "$B/other" | tr '\n' ' ' | sed 's/ $//')"

	expect OK bob "bob (write_owner) takes ownership of alice's setuid file" chown "$B/su" 1002 -1
	check_eq "bob owns it" 1002:1001 "$(owner_of "$B/su")"
	check_eq "the setuid bit is cleared" 0 "$(($(stat -c 0%a "$B/su") & 06000))"
	expect OK bob "bob (write_owner) chgrps alice's setgid file to staff" chown "$B/sg" -1 $STAFF
	check_eq "the group changed" 1001:$STAFF "$(owner_of "$B/sg")"
	check_eq "the setgid bit is cleared" 0 "$(($(stat -c 0%a "$B/sg") & 06000))"
	expect OK bob "taking ownership of a plain file still works" chown "$B/plain" 1002 -1
	expect EPERM bob "write_owner still does not give a setuid file to carol" chown "$B/other" 1003 -1
	check_eq "the refused chown changed nothing" "1001:1001 4755" \
		"$(stat -c '%u:%g %a' "$B/other")"
}

# K-SEC-8: the append-only decision asks only the acl (no second LSM or
# audit pass; not observable without a security module in the guest), and
# keeps its semantics: append_data alone gives an append-only descriptor.
t_ksec8() {
	group_begin K-SEC-8 "append-only opens decided by the acl alone"
	require_richacl || return
	local B=$R/ksec8
	fresh_dir "$B"
	echo log >"$B/f"
	echo x >"$B/n"
	S chown alice:alice "$B/f" "$B/n"
	S chmod 0666 "$B/n"
	setacl 'owner@:rwp::allow user:1002:p::allow everyone@:r::allow' "$B/f"
	expect DENIED bob "append_data only: O_WRONLY without O_APPEND refused" open "$B/f" w
	expect OK bob "append_data only: O_WRONLY|O_APPEND allowed" open "$B/f" wa
	expect DENIED bob "append_data only: O_APPEND|O_TRUNC refused" open "$B/f" wt
	expect_cap OK bob dac_override "CAP_DAC_OVERRIDE: O_WRONLY|O_TRUNC allowed" open "$B/f" wt
	expect OK bob "no acl: O_WRONLY|O_APPEND|O_TRUNC on a 0666 file is a normal open" open "$B/n" wt
}

# K-SEC-9: the idmapped-mount refusal of system.richacl only applies to
# richacl file systems; checked through the plain file system, which must
# answer as it does without an idmapped mount (not observable on 6.1: no
# idmappable file system handles the name).
t_ksec9() {
	group_begin K-SEC-9 "system.richacl refusal limited to richacl file systems"
	require_richacl || return
	local want
	[ "$PLAIN_OK" = 1 ] || { fail "setup" "plain ext4 not mounted"; return; }
	echo x >"$P/ksec9"
	want=$("$KT" getxattr "$P/ksec9" system.richacl | cut -d' ' -f1)
	check_eq "plain ext4: getxattr system.richacl is EOPNOTSUPP" EOPNOTSUPP "$want"
	rm -f "$P/ksec9"
}
