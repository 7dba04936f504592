# Set-user-ID and set-group-ID bits: who may set or keep them through
# chmod, setting or removing a richacl, take_ownership and chown, and what
# a write, truncate or kill-suid does to the acl.  Every check asserts the
# secure outcome (plain ext4/POSIX or the richacl semantics); checks next to
# each hole prove that the feature beside it still works, so that a fix
# which refuses everything cannot pass.  Found by outside attacks on the
# series.

# The chmod permission (write_acl) must not hand out set-id bits.
t_setid_chmod() {
	group_begin K-SETID-CHMOD "write_acl does not grant setting set-id bits"
	require_richacl || return
	local B=$R/setid_chmod f
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
	# them put their code into a program that runs as alice (K-SETID-PROGRAM)
	expect EPERM bob "write_acl cannot keep a setuid bit that is already set" chmod "$B/keep" 4777
	check_eq "the refused chmod left the mode alone" 4744 "$(mode_of "$B/keep")"
	expect OK bob "write_acl may clear a setuid bit" chmod "$B/keep" 0750
	check_eq "the cleared setuid bit" 750 "$(mode_of "$B/keep")"
	expect OK alice "the owner may still set the setuid bit" chmod "$B/own" 4755
	check_eq "the owner's setuid bit" 4755 "$(mode_of "$B/own")"
	expect_cap OK bob fowner "CAP_FOWNER may still set the setuid bit" chmod "$B/a" 4755
}

# Setting a richacl clears the setgid bit for callers outside the
# owning group without CAP_FSETID, as chmod() and setfacl do.
t_setid_setacl_sgid() {
	group_begin K-SETID-SETACL "setting a richacl clears setgid outside the owning group"
	require_richacl || return
	local B=$R/setid_setacl_sgid f
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
		local P2=$P/setid_setacl_sgid
		fresh_dir "$P2"
		echo x >"$P2/f"
		S chown alice:$STAFF "$P2/f"
		S chmod 2750 "$P2/f"
		expect_sh OK alice "plain ext4: alice sets a POSIX acl" 'setfacl -m u:1005:r "$1"' "$P2/f"
		check_eq "plain ext4 clears the setgid bit the same way" 750 "$(mode_of "$P2/f")"
	fi
}

# take_ownership works on set-id files and clears the set-id bits.
t_setid_take_ownership() {
	group_begin K-SETID-TAKEOWN "write_owner takes ownership of set-id files"
	require_richacl || return
	local B=$R/setid_take_ownership f
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

# An implicit chmod (the kernel clearing S_ISUID/S_ISGID when a
# non-owner writes, truncates or appends) must not turn the coarse permission
# bits back into acl permissions.  The mode shows an upper bound (append_data
# alone sets the w bit); richacl_chmod() then writes masks with write_through
# from those bits, so the "other" class (and masked group class entries) get
# write_data that nobody granted.
t_setid_kill_keeps_acl() {
	group_begin K-SETID-KILL "kill-suid/kill-sgid by a writer does not widen the acl"
	require_richacl || return
	local B=$R/setid_kill_keeps_acl f
	fresh_dir "$B"
	for f in su sg cw tr; do echo data >"$B/$f"; done
	S chown alice:alice "$B/su" "$B/sg" "$B/cw" "$B/tr"
	S chmod 4755 "$B/su" "$B/tr"
	S chmod 2775 "$B/sg"
	setacl 'owner@:rwpx::allow everyone@:rpx::allow' "$B/su" "$B/sg"
	S chmod 4775 "$B/cw"
	# masked acl: carol rwp and bob p, cut by the group mask rpx
	S "$KT" setxattr "$B/cw" system.richacl \
		"$(rhdr $A_MASKED 4 0x27 0x25 0x21)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x07 1003)$(race 0 0 $A_P 1002)$(race 0 $A_SPECIAL 0x21 2)"
	setacl 'owner@:rwpx::allow user:1002:rw::allow everyone@:rp::allow' "$B/tr"
	echo "# modes before: su $(mode_of "$B/su") sg $(mode_of "$B/sg") cw $(mode_of "$B/cw") tr $(mode_of "$B/tr")"

	# (a) setuid file, everyone@ may only append
	expect DENIED bob "su: bob (append only) cannot open for writing" open "$B/su" w
	expect OK bob "su: bob appends (the kernel clears S_ISUID)" write "$B/su" wa x
	check_eq "su: S_ISUID cleared by the append" 0 "$(setid_of "$B/su")"
	expect DENIED bob "su: after his append, bob still cannot overwrite" open "$B/su" w
	expect DENIED carol "su: after bob's append, carol still cannot overwrite" open "$B/su" wt
	echo "# su after: mode $(mode_of "$B/su") acl: $(raw_acl "$B/su")"
	# (b) setgid (and group-executable) file, same acl
	expect OK bob "sg: bob appends (the kernel clears S_ISGID)" write "$B/sg" wa x
	expect DENIED bob "sg: after his append, bob still cannot overwrite" open "$B/sg" w
	# (c) masked group class: carol's rwp entry is cut to rp by the group mask
	expect DENIED carol "cw: carol (entry rwp, group mask rpx) cannot write" open "$B/cw" w
	expect OK bob "cw: bob appends (clears S_ISUID)" write "$B/cw" wa x
	expect DENIED carol "cw: after bob's append, the group mask still limits carol" open "$B/cw" w
	echo "# cw after: mode $(mode_of "$B/cw") acl: $(raw_acl "$B/cw")"
	# (d) a write_data holder truncating a setuid file widens it for others
	expect DENIED carol "tr: carol (append only) cannot write" open "$B/tr" w
	expect OK bob "tr: bob (write_data) truncates the setuid file" open "$B/tr" wt
	expect DENIED carol "tr: after bob's truncate, carol still cannot overwrite" open "$B/tr" w
}

# Write_acl (or acl removal) on a set-id file must not leave the
# holder with a set-id program whose content he controls.  write(2) clears
# S_ISUID, but a shared writable mmap does not (as on plain Linux), so the
# set-id bit has to go when a non-owner widens the permissions.
t_setid_program() {
	group_begin K-SETID-PROGRAM "write_acl on a set-id file does not yield a rewritten set-id program"
	require_richacl || return
	atk_build || return
	local B=$R/setid_program f
	fresh_dir "$B"
	for f in rsu csu gsg; do printf 'ORIGINAL' >"$B/$f"; done
	S chmod 4755 "$B/rsu" "$B/csu"
	S chown alice:alice "$B/gsg"
	S chmod 2755 "$B/gsg"
	setacl 'owner@:rwx::allow user:1002:C::allow everyone@:rx::allow' "$B/rsu" "$B/csu"
	setacl 'owner@:rwx::allow user:1002:C::allow everyone@:rpx::allow' "$B/gsg"
	echo "# modes: rsu $(mode_of "$B/rsu") csu $(mode_of "$B/csu") gsg $(mode_of "$B/gsg")"

	# (a) setrichacl by bob on root's setuid file
	expect DENIED bob "rsu: bob cannot write root's setuid file" open "$B/rsu" w
	expect_sh OK bob "rsu: bob (write_acl) grants himself write" \
		'"$1" --set "owner@:rwx::allow user:1002:rwC::allow everyone@:rx::allow" "$2"' \
		"$SETRICHACL" "$B/rsu"
	check_eq "rsu: a non-owner widening the acl clears S_ISUID" 0 "$(setid_of "$B/rsu")"
	atk_as bob mmapw "$B/rsu" EVIL >/dev/null
	check_eq "rsu: no setuid-root file with bob's content (mmap write)" no \
		"$([ "$(setid_of "$B/rsu")" != 0 ] && [ "$(head -c4 "$B/rsu")" = EVIL ] && echo yes || echo no)"
	# (b) chmod by bob keeping S_ISUID while adding write for others
	expect EPERM bob "csu: bob (write_acl) cannot chmod root's setuid file 4777 (keeping S_ISUID)" chmod "$B/csu" 4777
	check_eq "csu: the refused chmod left the mode alone" 4755 "$(mode_of "$B/csu")"
	expect OK bob "csu: bob (write_acl) may chmod it 0777, which clears S_ISUID" chmod "$B/csu" 0777
	echo "# csu after chmod: $(mode_of "$B/csu")"
	atk_as carol mmapw "$B/csu" EVIL >/dev/null
	check_eq "csu: no setuid-root file with another user's content" no \
		"$([ "$(setid_of "$B/csu")" != 0 ] && [ "$(head -c4 "$B/csu")" = EVIL ] && echo yes || echo no)"
	# (c) bob (not in group alice) removes the acl of a setgid file
	expect OK bob "gsg: bob (write_acl) removes the acl" removexattr "$B/gsg" system.richacl
	check_eq "gsg: removing the acl outside the owning group clears S_ISGID" 0 "$(setid_of "$B/gsg")"
	echo "# gsg after removal: $(mode_of "$B/gsg")"
	atk_as bob mmapw "$B/gsg" EVIL >/dev/null
	check_eq "gsg: no setgid-alice program with bob's content" no \
		"$([ "$(setid_of "$B/gsg")" != 0 ] && [ "$(head -c4 "$B/gsg")" = EVIL ] && echo yes || echo no)"
	# sanity: plain write(2) by a writer clears S_ISUID
	printf 'ORIGINAL' >"$B/w"
	S chmod 4755 "$B/w"
	setacl 'owner@:rwx::allow user:1002:rw::allow everyone@:rx::allow' "$B/w"
	expect OK bob "sanity: bob writes a setuid file he may write" write "$B/w" w x
	check_eq "sanity: write(2) cleared S_ISUID" 0 "$(setid_of "$B/w")"
}

# Set-group-ID through creation in setgid directories, O_TMPFILE,
# inheritance, setrichacl and take_ownership of a setgid directory.
t_setid_foreign_group() {
	group_begin K-SETID-FOREIGN "no set-group-ID program of a foreign group"
	require_richacl || return
	atk_build || return
	local B=$R/setid_foreign_group D T bad
	fresh_dir "$B"
	D=$B/sg
	T=$B/take
	S mkdir "$D" "$T"
	S chown alice:alice "$D" "$T"
	S chmod 2777 "$D"
	S chmod 2775 "$T"
	setacl 'owner@:rwpxdD::allow everyone@:rwpxdDC:fd:allow' "$D"
	setacl 'owner@:rwpxdD::allow user:1002:rwpxo::allow everyone@:rx::allow' "$T"

	expect OK bob "bob creates a 2755 file in alice's setgid dir" create "$D/f1" 2755
	check_eq "f1: no S_ISGID (bob is not in group alice)" 0 "$(setid_of "$D/f1")"
	expect OK bob "bob creates a 2745 file (S_ISGID without group x)" create "$D/f2" 2745
	expect_sh OK bob "bob sets an acl granting group@ x on f2" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow everyone@:r::allow" "$2"' "$SETRICHACL" "$D/f2"
	expect OK bob "bob chmods f2 to 2755" chmod "$D/f2" 2755
	expect OK bob "bob creates 2745 f3" create "$D/f3" 2745
	expect_sh OK bob "bob sets a non-equivalent acl granting group x on f3" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow user:1003:r::allow" "$2"' "$SETRICHACL" "$D/f3"
	expect_atk OK bob "bob creates a 2755 O_TMPFILE and links it in" tmpfile "$D" 2755 "$D/f4"
	expect OK bob "bob mkdirs in the setgid dir" mkdir "$D/sub"
	expect OK bob "bob creates a 2755 file in the subdirectory" create "$D/sub/f5" 2755
	expect OK bob "bob (write_owner) takes ownership of alice's setgid dir" chown "$T" 1002 -1
	expect OK bob "bob creates a 2755 file in it" create "$T/f6" 2755
	expect OK bob "bob chmods that file 2755" chmod "$T/f6" 2755
	expect_atk OK bob "bob creates a 2755 O_TMPFILE in it" tmpfile "$T" 2755 "$T/f7"
	bad=$(find "$B" -type f -user 1002 -group 1001 -perm -2010 -printf '%p %m\n')
	check_eq "no bob-owned file with group alice and S_ISGID|S_IXGRP" "" "$bad"
	bad=$(find "$B" -type f -user 1002 -group 1001 -perm -2000 -printf '%p %m ')
	[ -n "$bad" ] && echo "# (S_ISGID without group x, as on plain ext4): $bad"
}

# Chmod by write_acl holders in and out of the owning group,
# by the owner, and by one-capability processes (plain ext4 as reference).
t_setid_chmod_caps() {
	group_begin K-SETID-CHMODCAP "chmod and set-id bits: write_acl, owner, CAP_FOWNER, CAP_FSETID"
	require_richacl || return
	local B=$R/setid_chmod_caps f a
	fresh_dir "$B"
	for f in g1 g2 g3 u1 o1 fo fs fs2; do printf 'ORIG' >"$B/$f"; done
	S chown root:$STAFF "$B/g1" "$B/g2" "$B/g3" "$B/fo" "$B/fs2"
	S chmod 2755 "$B/g1" "$B/g2" "$B/g3" "$B/fs2"
	S chmod 0755 "$B/fo"
	S chmod 4755 "$B/u1" "$B/fs"
	S chown alice:alice "$B/o1"
	S chmod 4755 "$B/o1"
	a='owner@:rwx::allow user:1002:C::allow user:1005:C::allow everyone@:rx::allow'
	setacl "$a" "$B/g1" "$B/g2" "$B/g3" "$B/u1" "$B/o1" "$B/fo" "$B/fs" "$B/fs2"
	echo "# modes: $(stat -c '%n=%a' "$B"/* | sed "s|$B/||" | tr '\n' ' ')"

	expect OK bob "legit: bob (write_acl, in the owning group staff) chmods a setgid file 2775" chmod "$B/g1" 2775
	check_eq "legit: the group member kept S_ISGID" 2775 "$(mode_of "$B/g1")"
	expect OK 1005 "1005 (write_acl, not in staff) may chmod the setgid file 2777" chmod "$B/g2" 2777
	check_eq "but S_ISGID is cleared for a caller outside the owning group" 777 "$(mode_of "$B/g2")"
	expect EPERM 1005 "1005 (write_acl) cannot add S_ISUID to a setgid file" chmod "$B/g3" 6755
	expect EPERM bob "bob (write_acl, in staff) cannot add S_ISUID either" chmod "$B/g3" 6755
	check_eq "the refused chmods changed nothing" 2755 "$(mode_of "$B/g3")"
	expect EPERM bob "bob (write_acl) cannot keep S_ISUID of root's file (chmod to the same mode)" chmod "$B/u1" 4755
	expect OK bob "legit: bob (write_acl) may clear S_ISUID" chmod "$B/u1" 0755
	check_eq "legit: S_ISUID cleared" 755 "$(mode_of "$B/u1")"
	expect OK alice "legit: the owner keeps S_ISUID across chmod" chmod "$B/o1" 4775
	check_eq "legit: owner's chmod result" 4775 "$(mode_of "$B/o1")"
	expect OK alice "legit: the owner may set S_ISUID again after clearing it" chmod "$B/o1" 0755
	expect OK alice "legit: ... chmod 4755" chmod "$B/o1" 4755
	check_eq "legit: owner's setuid bit" 4755 "$(mode_of "$B/o1")"
	expect_cap OK bob fowner "legit: CAP_FOWNER-only bob chmods root's staff file 6755" chmod "$B/fo" 6755
	check_eq "legit: CAP_FOWNER (in staff) keeps both bits" 6755 "$(mode_of "$B/fo")"
	expect_cap EPERM bob fsetid "bob (write_acl) with only CAP_FSETID cannot keep S_ISUID by chmod" chmod "$B/fs" 4777
	check_eq "the refused chmod left the setuid file alone" 4755 "$(mode_of "$B/fs")"
	expect_cap OK 1005 fsetid "1005 (write_acl, not in staff) with CAP_FSETID chmods a setgid file 2775" chmod "$B/fs2" 2775
	echo "# fs2 after CAP_FSETID chmod by a non-member: $(mode_of "$B/fs2") (an owner with CAP_FSETID keeps S_ISGID on plain ext4)"
	if [ "$PLAIN_OK" = 1 ]; then
		local P2=$P/setid_chmod_caps
		fresh_dir "$P2"
		printf 'ORIG' >"$P2/fo"
		S chown root:$STAFF "$P2/fo"
		S chmod 0755 "$P2/fo"
		kt_cap bob fowner chmod "$P2/fo" 6755 >/dev/null 2>&1
		check_eq "legit: CAP_FOWNER chmod 6755 gives the same mode on rich and plain" "$(mode_of "$P2/fo")" "$(mode_of "$B/fo")"
	fi
}

# Setting and removing the acl of set-id files and setgid
# directories by the owner, write_acl holders in and out of the owning
# group, CAP_FOWNER-only and CAP_FSETID-only processes, against setfacl on
# plain ext4.
t_setid_setacl_caps() {
	group_begin K-SETID-SETACLCAP "setrichacl / removexattr and set-id bits"
	require_richacl || return
	atk_build || return
	local B=$R/setid_setacl_caps f a wide
	fresh_dir "$B"
	for f in bs br os or fo fs fr gm gn gr; do printf 'ORIGINAL' >"$B/$f"; done
	S mkdir "$B/d1" "$B/d2"
	S chown alice:alice "$B/bs" "$B/br" "$B/os" "$B/or" "$B/fo" "$B/fs" "$B/fr"
	S chmod 4755 "$B/bs" "$B/br" "$B/os" "$B/or" "$B/fs" "$B/fr"
	S chmod 6755 "$B/fo"
	S chown alice:$STAFF "$B/gm" "$B/gn" "$B/gr"
	S chmod 2755 "$B/gm" "$B/gn" "$B/gr"
	S chown bob:$STAFF "$B/d1" "$B/d2"
	S chmod 2775 "$B/d1" "$B/d2"
	a='owner@:rwx::allow user:1002:C::allow user:1003:C::allow user:1005:C::allow everyone@:rx::allow'
	setacl "$a" "$B/bs" "$B/br" "$B/os" "$B/or" "$B/fs" "$B/fr" "$B/gm" "$B/gn" "$B/gr"
	setacl 'owner@:rwpxd::allow user:1001:C::allow user:1003:C::allow everyone@:rx::allow' "$B/d1" "$B/d2"
	echo "# modes: $(stat -c '%n=%a' "$B"/* | sed "s|$B/||" | tr '\n' ' ')"
	wide='owner@:rwx::allow user:1002:rwC::allow user:1003:C::allow everyone@:rx::allow'

	# non-owners
	expect_sh OK bob "bob (write_acl) sets an acl on alice's setuid file" \
		'"$1" --set "$3" "$2"' "$SETRICHACL" "$B/bs" "$wide"
	check_eq "a non-owner setting the acl clears S_ISUID" 0 "$(sid_of "$B/bs")"
	expect OK bob "bob (write_acl) removes the acl of alice's setuid file" removexattr "$B/br" system.richacl
	check_eq "a non-owner removing the acl clears S_ISUID" 0 "$(sid_of "$B/br")"
	# CAP_FSETID + write_acl: chmod_ok() refuses to keep S_ISUID for this
	# caller (K-SETID-CHMODCAP); setting the acl must not keep it either
	expect_cap OK bob fsetid "bob (write_acl) with CAP_FSETID sets an acl granting everyone rwx" \
		setxattr "$B/fs" system.richacl \
		"$(rhdr 0 3 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 $((A_WACL | 0x27)) 1002)$(race 0 $A_SPECIAL 0x27 2)"
	echo "# fs after bob+CAP_FSETID setxattr: $(mode_of "$B/fs")"
	check_eq "CAP_FSETID + write_acl does not keep S_ISUID while granting everyone write (as chmod refuses)" \
		0 "$(sid_of "$B/fs")"
	atk_as carol mmapw "$B/fs" EVIL >/dev/null
	check_eq "no setuid-alice program with carol's content" no \
		"$([ "$(sid_of "$B/fs")" != 0 ] && [ "$(head -c4 "$B/fs")" = EVIL ] && echo yes || echo no)"
	expect_cap OK bob fsetid "bob (write_acl) with CAP_FSETID removes the acl of a setuid file" \
		removexattr "$B/fr" system.richacl
	check_eq "CAP_FSETID + write_acl does not keep S_ISUID on removal either" 0 "$(sid_of "$B/fr")"
	# the owner
	expect_sh OK alice "legit: the owner sets an acl on her setuid file" \
		'"$1" --set "$3" "$2"' "$SETRICHACL" "$B/os" "$wide"
	check_eq "legit: the owner keeps S_ISUID" 4000 "$(sid_of "$B/os")"
	expect OK alice "legit: the owner removes the acl of her setuid file" removexattr "$B/or" system.richacl
	check_eq "legit: the owner keeps S_ISUID on removal" 4000 "$(sid_of "$B/or")"
	# CAP_FOWNER-only root, not in group alice
	expect_cap OK root fowner "legit: CAP_FOWNER-only root sets an acl on alice's 6755 file" \
		setxattr "$B/fo" system.richacl "$(a2_rich)"
	check_eq "CAP_FOWNER keeps S_ISUID, loses S_ISGID (not in the group, no CAP_FSETID)" 4000 "$(sid_of "$B/fo")"
	expect_cap DENIED root fsetid "CAP_FSETID-only root cannot set the acl" setxattr "$B/gr" system.richacl "$(a2_rich)"
	# the owning group
	expect_sh OK carol "legit: carol (write_acl, in staff) sets an acl on the staff setgid file" \
		'"$1" --set "$3" "$2"' "$SETRICHACL" "$B/gm" "$wide"
	check_eq "legit: a member of the owning group keeps S_ISGID" 2000 "$(sid_of "$B/gm")"
	expect_sh OK 1005 "1005 (write_acl, not in staff) sets an acl on the staff setgid file" \
		'"$1" --set "$3" "$2"' "$SETRICHACL" "$B/gn" "$wide"
	check_eq "S_ISGID cleared for a setter outside the owning group" 0 "$(sid_of "$B/gn")"
	expect OK 1005 "1005 removes the acl of the other staff setgid file" removexattr "$B/gr" system.richacl
	check_eq "S_ISGID cleared on removal outside the owning group" 0 "$(sid_of "$B/gr")"
	# setgid directories
	expect_sh OK bob "legit: bob (owner, in staff) sets an acl on his setgid dir" \
		'"$1" --set "owner@:rwpxd::allow user:1001:C::allow everyone@:rx::allow" "$2"' "$SETRICHACL" "$B/d1"
	check_eq "legit: the setgid dir keeps S_ISGID" 2000 "$(sid_of "$B/d1")"
	expect_sh OK alice "alice (write_acl, not in staff) sets an acl on bob's setgid dir" \
		'"$1" --set "owner@:rwpxd::allow user:1001:C::allow everyone@:rwx::allow" "$2"' "$SETRICHACL" "$B/d2"
	check_eq "S_ISGID of the dir cleared for alice" 0 "$(sid_of "$B/d2")"
	if [ "$PLAIN_OK" = 1 ]; then
		local P2=$P/setid_setacl_caps
		fresh_dir "$P2"
		printf 'x' >"$P2/fo"
		printf 'x' >"$P2/os"
		S mkdir "$P2/d1"
		S chown alice:alice "$P2/fo" "$P2/os"
		S chmod 6755 "$P2/fo"
		S chmod 4755 "$P2/os"
		S chown bob:$STAFF "$P2/d1"
		S chmod 2775 "$P2/d1"
		kt_cap root fowner setxattr "$P2/fo" system.posix_acl_access "$A2_POSIX" >/dev/null 2>&1
		check_eq "CAP_FOWNER: set-id bits after setting an acl equal plain ext4" "$(sid_of "$P2/fo")" "$(sid_of "$B/fo")"
		as alice setfacl -m u:1002:rw "$P2/os"
		check_eq "owner: set-id bits after setting an acl equal plain ext4" "$(sid_of "$P2/os")" "$(sid_of "$B/os")"
		as bob setfacl -m u:1001:rwx "$P2/d1"
		check_eq "setgid dir owner in the group: equal plain ext4" "$(sid_of "$P2/d1")" "$(sid_of "$B/d1")"
	fi
}

# Writes, truncates, fallocate and copy_file_range by write
# and append-only holders on set-id files clear the bits and leave the acl
# byte for byte alone (no widening); plain ext4 POSIX acl as reference.
t_setid_modify() {
	group_begin K-SETID-MODIFY "modifying a set-id file clears the bits, never touches the acl"
	require_richacl || return
	atk_build || return
	local B=$R/setid_modify f a x
	local -A before
	fresh_dir "$B"
	printf 'SRC!' >"$B/src"
	S chmod 0644 "$B/src"
	for f in ap fa fz tr ft cf sg; do printf 'ORIGINAL' >"$B/$f"; done
	S chown alice:alice "$B/ap" "$B/fa" "$B/fz" "$B/tr" "$B/ft" "$B/cf" "$B/sg"
	S chmod 4755 "$B/ap" "$B/fa" "$B/fz" "$B/tr" "$B/ft" "$B/cf"
	S chmod 2775 "$B/sg"
	# bob: write_data; everyone else: append only
	a='owner@:rwpx::allow user:1002:rwpx::allow everyone@:rpx::allow'
	setacl "$a" "$B/ap" "$B/fa" "$B/fz" "$B/tr" "$B/ft" "$B/cf" "$B/sg"
	for f in ap fa fz tr ft cf sg; do before[$f]=$(xattr_of "$B/$f"); done
	echo "# modes: $(stat -c '%n=%a' "$B"/* | sed "s|$B/||" | tr '\n' ' ')"

	expect OK carol "legit: carol (append only) appends to the setuid file" write "$B/ap" wa x
	check_eq "append: S_ISUID cleared" 0 "$(sid_of "$B/ap")"
	expect OK carol "legit: carol fallocates KEEP_SIZE on her append-only fd" fdop "$B/fa" wa allocate
	echo "# fa after fallocate KEEP_SIZE: $(mode_of "$B/fa")"
	expect_atk OK carol "legit: carol fallocates (mode 0, extends) on her append-only fd" fallocz "$B/fz"
	echo "# fz after fallocate mode 0: $(mode_of "$B/fz")"
	expect_atk OK bob "legit: bob (write_data) truncates the setuid file by path" trunc "$B/tr"
	check_eq "truncate: S_ISUID cleared" 0 "$(sid_of "$B/tr")"
	expect OK bob "legit: bob ftruncates it" fdop "$B/ft" w ftruncate
	check_eq "ftruncate: S_ISUID cleared" 0 "$(sid_of "$B/ft")"
	expect_atk OK bob "legit: bob copy_file_range's into it" cfrw "$B/src" "$B/cf"
	check_eq "copy_file_range: S_ISUID cleared" 0 "$(sid_of "$B/cf")"
	expect OK carol "legit: carol appends to the setgid (g+x) file" write "$B/sg" wa x
	check_eq "append: S_ISGID cleared" 0 "$(sid_of "$B/sg")"
	for f in ap fa fz tr ft cf sg; do
		check_eq "$f: the acl is byte for byte unchanged" "${before[$f]}" "$(xattr_of "$B/$f")"
		expect DENIED carol "$f: carol still cannot overwrite" open "$B/$f" w
	done
	expect_atk DENIED carol "carol (append only) cannot truncate by path" trunc "$B/ap"
	expect_atk open:EACCES carol "carol cannot open a write fd for copy_file_range" cfrw "$B/src" "$B/ap"
	if [ "$PLAIN_OK" = 1 ]; then
		local P2=$P/setid_modify
		fresh_dir "$P2"
		printf 'ORIGINAL' >"$P2/tr"
		S chown alice:alice "$P2/tr"
		S chmod 4755 "$P2/tr"
		S setfacl -m u:1002:rwx "$P2/tr"
		x=$(getfacl -cn "$P2/tr" 2>/dev/null | tr '\n' ' ')
		expect_atk OK bob "plain reference: bob truncates the setuid file" trunc "$P2/tr"
		check_eq "plain reference: S_ISUID cleared" 0 "$(sid_of "$P2/tr")"
		check_eq "plain reference: the POSIX acl is unchanged" "$x" "$(getfacl -cn "$P2/tr" 2>/dev/null | tr '\n' ' ')"
	fi
}

# Chown/chgrp through write_owner (and by root) on set-id files
# with append-only acls: the bits go, the acl stays as it was.
t_setid_chown() {
	group_begin K-SETID-CHOWN "take_ownership and chown of set-id files leave the acl alone"
	require_richacl || return
	local B=$R/setid_chown f a rc rp
	local -A before
	fresh_dir "$B"
	for f in su sg rt cc fs; do printf 'ORIGINAL' >"$B/$f"; done
	S chown alice:alice "$B/su" "$B/sg" "$B/rt" "$B/cc" "$B/fs"
	S chmod 4755 "$B/su" "$B/rt" "$B/cc" "$B/fs"
	S chmod 2755 "$B/sg"
	a='owner@:rwpx::allow user:1002:o::allow everyone@:rpx::allow'
	setacl "$a" "$B/su" "$B/sg" "$B/rt" "$B/cc" "$B/fs"
	for f in su sg rt cc fs; do before[$f]=$(xattr_of "$B/$f"); done

	expect OK bob "legit: bob (write_owner) takes ownership of the setuid file" chown "$B/su" 1002 -1
	check_eq "S_ISUID cleared" 0 "$(sid_of "$B/su")"
	check_eq "su: the acl is unchanged" "${before[su]}" "$(xattr_of "$B/su")"
	expect DENIED carol "su: carol still cannot overwrite" open "$B/su" w
	expect OK bob "legit: bob (now owner@) may write" open "$B/su" w
	expect OK bob "legit: bob (write_owner, in staff) chgrps the setgid file to staff" chown "$B/sg" -1 $STAFF
	check_eq "S_ISGID cleared" 0 "$(sid_of "$B/sg")"
	check_eq "sg: the acl is unchanged" "${before[sg]}" "$(xattr_of "$B/sg")"
	expect DENIED carol "sg: carol (now in the owning group) still cannot overwrite" open "$B/sg" w
	S chown 1005 "$B/rt"
	check_eq "root's chown cleared S_ISUID" 0 "$(sid_of "$B/rt")"
	check_eq "rt: root's chown left the acl unchanged" "${before[rt]}" "$(xattr_of "$B/rt")"
	expect DENIED carol "rt: carol still cannot overwrite" open "$B/rt" w
	expect_cap OK bob fsetid "bob (write_owner) with CAP_FSETID takes ownership" chown "$B/fs" 1002 -1
	check_eq "CAP_FSETID does not keep S_ISUID across a take-ownership chown" 0 "$(sid_of "$B/fs")"
	rc=$(kt_cap root chown chown "$B/cc" 1005 -1 2>&1 | head -n1)
	echo "# CAP_CHOWN-only root chown of the setuid file: rich ${rc%% *}, mode $(mode_of "$B/cc")"
	if [ "$PLAIN_OK" = 1 ]; then
		local P2=$P/setid_chown
		fresh_dir "$P2"
		printf 'x' >"$P2/cc"
		S chown alice:alice "$P2/cc"
		S chmod 4755 "$P2/cc"
		rp=$(kt_cap root chown chown "$P2/cc" 1005 -1 2>&1 | head -n1)
		check_eq "CAP_CHOWN-only chown of a setuid file: same outcome and set-id bits as plain ext4" \
			"${rp%% *} $(sid_of "$P2/cc")" "${rc%% *} $(sid_of "$B/cc")"
	fi
}
