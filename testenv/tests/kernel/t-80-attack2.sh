# Third outside attack on the richacl series (K-ATTACK2-n), aimed at the last
# six commits: set-id bits in chmod_ok()/setattr_prepare(), in
# ext4_set_richacl() and in ext4_setattr() (kill-suid without rewriting the
# acl), append-only opens of non-regular files, and the file masks that
# set_richacl() computes for acls without RICHACL_MASKED.
#
# Every check asserts the SECURE outcome (plain ext4/POSIX or the richacl
# semantics), so a FAIL is a hole; checks marked "legit:" prove that the
# feature next to the hole still works (a fix that refuses everything fails
# them).  Reuses rhdr/race/setid_of/raw_acl/atk_build/atk_as/expect_atk from
# t-70-attack.sh (all t-*.sh files are sourced).
#
# Findings: K-ATTACK2-2 (a non-owner write_acl holder with CAP_FSETID kept
# S_ISUID when setting or removing the acl, where chmod() refuses the same
# caller) failed before "ext4: Clear the set-user-ID bit when others set or
# remove a richacl" dropped CAP_FSETID from the set-user-ID rule.
# K-ATTACK2-7 was reported as a design question; it now pins down the
# chosen behaviour (an explicit chmod gives the mode its POSIX meaning).
#
# Users: alice 1001, bob 1002 (staff), carol 1003 (staff), 1005 (no groups,
# "dave": not in staff).

# the set-id bits of a file as 0, 2000, 4000 or 6000 (octal text)
sid_of() { printf '%o' $(($(stat -c 0%a "$1") & 06000)); }
# POSIX acl value: u::rw- u:1005:r-- g::r-x m::r-x o::r-x
A2_POSIX="0200000001000600ffffffff02000400ed03000004000500ffffffff10000500ffffffff20000500ffffffff"
# richacl value: owner@:rwp  user:1005:r  group@:rx  everyone@:rx (not equivalent)
a2_rich() { echo "$(rhdr 0 4 0 0 0)$(race 0 $A_SPECIAL 0x7 0)$(race 0 0 0x1 1005)$(race 0 $A_SPECIAL 0x21 1)$(race 0 $A_SPECIAL 0x21 2)"; }

# K-ATTACK2-1: chmod by write_acl holders in and out of the owning group,
# by the owner, and by one-capability processes (plain ext4 as reference).
t_attack2_1() {
	group_begin K-ATTACK2-1 "chmod and set-id bits: write_acl, owner, CAP_FOWNER, CAP_FSETID"
	require_richacl || return
	local B=$R/attack2_1 f a
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
		local P2=$P/attack2_1
		fresh_dir "$P2"
		printf 'ORIG' >"$P2/fo"
		S chown root:$STAFF "$P2/fo"
		S chmod 0755 "$P2/fo"
		kt_cap bob fowner chmod "$P2/fo" 6755 >/dev/null 2>&1
		check_eq "legit: CAP_FOWNER chmod 6755 gives the same mode on rich and plain" "$(mode_of "$P2/fo")" "$(mode_of "$B/fo")"
	fi
}

# K-ATTACK2-2: setting and removing the acl of set-id files and setgid
# directories by the owner, write_acl holders in and out of the owning
# group, CAP_FOWNER-only and CAP_FSETID-only processes, against setfacl on
# plain ext4.
t_attack2_2() {
	group_begin K-ATTACK2-2 "setrichacl / removexattr and set-id bits"
	require_richacl || return
	atk_build || return
	local B=$R/attack2_2 f a wide
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
	# caller (K-ATTACK2-1); setting the acl must not keep it either
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
		local P2=$P/attack2_2
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

# K-ATTACK2-3: writes, truncates, fallocate and copy_file_range by write
# and append-only holders on set-id files clear the bits and leave the acl
# byte for byte alone (no widening); plain ext4 POSIX acl as reference.
t_attack2_3() {
	group_begin K-ATTACK2-3 "modifying a set-id file clears the bits, never touches the acl"
	require_richacl || return
	atk_build || return
	local B=$R/attack2_3 f a x
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
		local P2=$P/attack2_3
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

# K-ATTACK2-4: chown/chgrp through write_owner (and by root) on set-id files
# with append-only acls: the bits go, the acl stays as it was.
t_attack2_4() {
	group_begin K-ATTACK2-4 "take_ownership and chown of set-id files leave the acl alone"
	require_richacl || return
	local B=$R/attack2_4 f a rc rp
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
		local P2=$P/attack2_4
		fresh_dir "$P2"
		printf 'x' >"$P2/cc"
		S chown alice:alice "$P2/cc"
		S chmod 4755 "$P2/cc"
		rp=$(kt_cap root chown chown "$P2/cc" 1005 -1 2>&1 | head -n1)
		check_eq "CAP_CHOWN-only chown of a setuid file: same outcome and set-id bits as plain ext4" \
			"${rp%% *} $(sid_of "$P2/cc")" "${rc%% *} $(sid_of "$B/cc")"
	fi
}

# K-ATTACK2-5: append-only acls on FIFOs, character devices, sockets and
# directories (O_APPEND).
t_attack2_5() {
	group_begin K-ATTACK2-5 "append-only access to non-regular files"
	require_richacl || return
	atk_build || return
	local B=$R/attack2_5 a
	fresh_dir "$B"
	S mkfifo "$B/fifo"
	S mknod "$B/null" c 1 3
	S "$ATK" ubind "$B/sock"
	S mkdir "$B/dir"
	printf 'log\n' >"$B/reg"
	S chown alice:alice "$B/fifo" "$B/null" "$B/sock" "$B/dir" "$B/reg"
	S chmod 0600 "$B/fifo" "$B/null" "$B/sock" "$B/reg"
	a='owner@:rwp::allow user:1002:rp::allow user:1003:rwp::allow'
	setacl "$a" "$B/fifo" "$B/null" "$B/sock" "$B/reg"
	setacl 'owner@:rwpxd::allow user:1002:rx::allow user:1003:px::allow' "$B/dir"
	echo "# modes: $(stat -c '%n=%a' "$B"/* | sed "s|$B/||" | tr '\n' ' ')"

	expect DENIED bob "fifo: bob (read+append) cannot open O_RDWR|O_APPEND" open "$B/fifo" rwa
	expect DENIED bob "fifo: nor O_RDWR" open "$B/fifo" rw
	expect DENIED bob "fifo: nor O_RDWR|O_APPEND|O_TRUNC" open "$B/fifo" rwat
	expect OK carol "legit: fifo: carol (write_data) opens O_RDWR|O_APPEND" open "$B/fifo" rwa
	expect OK carol "legit: fifo: carol opens O_RDWR" open "$B/fifo" rw
	expect_cap OK bob dac_override "legit: fifo: CAP_DAC_OVERRIDE opens O_RDWR|O_APPEND" open "$B/fifo" rwa
	expect DENIED bob "chardev: bob (read+append) cannot open O_WRONLY|O_APPEND" open "$B/null" wa
	expect DENIED bob "chardev: bob cannot write through O_APPEND" write "$B/null" wa x
	expect OK carol "legit: chardev: carol (write_data) writes with O_APPEND" write "$B/null" wa x
	expect OK carol "legit: chardev: carol opens O_WRONLY" open "$B/null" w
	expect OK bob "legit: chardev: bob may still read" open "$B/null" r
	expect_atk EACCES bob "socket: bob (read+append, no write_data) cannot connect" uconn "$B/sock"
	expect_atk ECONNREFUSED carol "legit: socket: carol (write_data) passes the permission check" uconn "$B/sock"
	expect OK bob "legit: dir: bob (read) opens the directory O_RDONLY|O_APPEND" open "$B/dir" ra
	expect EISDIR bob "dir: O_WRONLY|O_APPEND on a directory is EISDIR" open "$B/dir" wa
	expect EISDIR carol "dir: carol (append_data = add_subdirectory) gets EISDIR too" open "$B/dir" wa
	expect DENIED carol "dir: carol (no read) cannot open it O_RDONLY|O_APPEND" open "$B/dir" ra
	expect OK bob "legit: regular file: bob (read+append) opens O_WRONLY|O_APPEND" open "$B/reg" wa
	expect DENIED bob "regular file: but not O_WRONLY" open "$B/reg" w
}

# K-ATTACK2-6: raw xattr values, masked and not masked: the mode is an upper
# bound of what the acl grants, and getxattr shows the acl the kernel
# enforces.
t_attack2_6() {
	group_begin K-ATTACK2-6 "file masks from raw values: the mode shows an upper bound"
	require_richacl || return
	local B=$R/attack2_6 f v
	fresh_dir "$B"
	for f in u1 u2 u3 m1 m2 m3; do printf 'x' >"$B/$f"; done
	S chown alice:alice "$B"/*
	S chmod 0600 "$B"/*
	# u1: not masked, bogus masks 0: set_richacl must compute them
	v="$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x3 1003)$(race 0 $A_SPECIAL 0x1 2)"
	expect OK alice "alice sets an unmasked acl with zero masks" setxattr "$B/u1" system.richacl "$(rhdr 0 3 0 0 0)$v"
	check_eq "u1: mode from the computed masks (owner rwx, group rw, other r)" 764 "$(mode_of "$B/u1")"
	check_eq "u1: getxattr shows the computed masks" "$(rhdr 0 3 0x27 0x3 0x1)$v" "$(xattr_of "$B/u1")"
	expect OK carol "u1: carol (user entry rw) may write" open "$B/u1" w
	expect DENIED bob "u1: bob (everyone@ r) cannot write" open "$B/u1" w
	# u2: not masked, all masks full: ignored and recomputed
	expect OK alice "alice sets an unmasked acl with full masks" setxattr "$B/u2" system.richacl \
		"$(rhdr 0 3 0x27 0x27 0x27)$v"
	check_eq "u2: the full masks were not kept" 764 "$(mode_of "$B/u2")"
	# u3: write_through without masked must not act
	v="$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x1 1005)"
	expect OK alice "alice sets write_through without masked, other mask rwx" setxattr "$B/u3" system.richacl \
		"$(rhdr 0x40 2 0x27 0x27 0x27)$v"
	expect DENIED bob "u3: the unmasked write_through grants bob nothing" open "$B/u3" r
	check_eq "u3: the mode shows nothing for others" 0 "$(($(stat -c 0%a "$B/u3") & 7))"
	echo "# u3: $(mode_of "$B/u3") $(raw_acl "$B/u3")"
	# m1: masked, group mask r below a user entry rw
	v="$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x7 1003)$(race 0 $A_SPECIAL 0x1 2)"
	expect OK alice "alice sets a masked acl, group mask r, carol rwp" setxattr "$B/m1" system.richacl \
		"$(rhdr $A_MASKED 3 0x27 0x1 0x1)$v"
	check_eq "m1: getxattr returns the masked acl unchanged" "$(rhdr $A_MASKED 3 0x27 0x1 0x1)$v" "$(xattr_of "$B/m1")"
	check_eq "m1: the mode is 0744" 744 "$(mode_of "$B/m1")"
	expect DENIED carol "m1: the group mask limits carol" open "$B/m1" w
	expect DENIED carol "m1: also for appending" open "$B/m1" wa
	# m2: masked + write_through, other mask rwx: others get it, the mode shows it
	v="$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x1 1005)"
	expect OK alice "alice sets masked+write_through with other mask rwx" setxattr "$B/m2" system.richacl \
		"$(rhdr $((A_MASKED | 0x40)) 2 0x27 0x1 0x27)$v"
	check_eq "m2: the other permission bits show rwx" 7 "$(($(stat -c 0%a "$B/m2") & 7))"
	expect OK bob "legit: m2: bob (other) gets the other mask" open "$B/m2" w
	# m3: masked, other mask p only: mode shows w, bob may only append
	v="$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x1 1005)$(race 0 $A_SPECIAL 0x7 2)"
	expect OK alice "alice sets a masked acl with other mask append only" setxattr "$B/m3" system.richacl \
		"$(rhdr $A_MASKED 3 0x27 0x1 0x4)$v"
	check_eq "m3: mode 0742 (w shows append)" 742 "$(mode_of "$B/m3")"
	expect DENIED bob "m3: bob cannot overwrite" open "$B/m3" w
	expect OK bob "legit: m3: bob may append" open "$B/m3" wa
}

# K-ATTACK2-7: no permission is widened by a chmod that removes bits or
# repeats the mode shown (design: write_through turns the upper bound the
# mode shows into permissions, as the ext4_setattr comment says for kill-suid).
t_attack2_7() {
	# An explicit chmod gives the mode its POSIX meaning (algorithms.md,
	# chmod: the masks become the mode's permissions, write_through): the
	# mode shown before was only an upper bound.  "w" in a requested mode
	# is write access, as on plain ext4; only the owner or a write_acl
	# holder can chmod, and they could grant write access anyway.  This
	# group pins that behaviour down (it was reported as surprising).
	group_begin K-ATTACK2-7 "an explicit chmod gives the requested mode its meaning"
	require_richacl || return
	local B=$R/attack2_7 f
	fresh_dir "$B"
	for f in n1 n2 n3; do printf 'ORIGINAL' >"$B/$f"; done
	S chown alice:alice "$B/n1" "$B/n2" "$B/n3"
	setacl 'owner@:rwp::allow everyone@:rp::allow' "$B/n1" "$B/n2" "$B/n3"
	check_eq "the mode shown for 'owner@:rwp everyone@:rp' is an upper bound" 666 "$(mode_of "$B/n1")"
	expect DENIED carol "before: carol (append only) cannot overwrite" open "$B/n1" w
	expect OK alice "alice chmods n1 0622 (go-r)" chmod "$B/n1" 0622
	expect OK carol "after chmod 0622, others have the write access the mode asks for" open "$B/n1" w
	expect DENIED carol "after chmod 0622, others cannot read" open "$B/n1" r
	expect OK alice "alice chmods n2 to the mode it shows" chmod "$B/n2" "$(mode_of "$B/n2")"
	expect OK carol "after an explicit chmod 666, others may write" open "$B/n2" w
	expect OK alice "legit: chmod 0600 takes the group and others out" chmod "$B/n3" 0600
	expect DENIED carol "legit: after chmod 0600 carol cannot even append" open "$B/n3" wa
}
