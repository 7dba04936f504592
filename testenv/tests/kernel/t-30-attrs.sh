# write_acl, write_owner, write_attributes, write vs append, owner
# permissions, chmod and the file masks (SEMANTICS.md section 3, items 4-9;
# section 2 S-A1..S-A4).

# §3 item 4: write_acl grants chmod and setrichacl.
t_write_acl() {
	group_begin K-WACL "§3.4 write_acl grants chmod and setrichacl (S-A1, S-A2)"
	require_richacl || return
	local B=$R/wacl
	fresh_dir "$B"
	local f
	for f in f1 f2 f3 f4 f5 f6 f7 f8; do echo x >"$B/$f"; done
	setacl 'user:1001:C::allow everyone@:r::allow' "$B/f1"
	setacl 'user:1001:C::allow' "$B/f2"
	setacl 'user:1001:rwp::allow' "$B/f3"
	setacl 'group:2000:C::allow' "$B/f4"
	setacl 'user:1001:C::allow everyone@:r::allow' "$B/f5"
	setacl 'user:1001:r::allow' "$B/f6"
	chown alice "$B/f7" "$B/f8"
	setacl 'owner@:r::allow' "$B/f7" "$B/f8"

	expect OK alice "S-A2: write_acl lets a non-owner chmod" chmod "$B/f1" 0640
	check_eq "chmod by the write_acl holder took effect" 640 "$(mode_of "$B/f1")"
	expect EPERM alice "chmod rewrote the masks (group mask r): write_acl is gone, chmod refused" \
		chmod "$B/f1" 0644
	expect_sh OK alice "S-A2: write_acl lets a non-owner run setrichacl" \
		'"$1" --set "user:1001:C::allow user:1002:r::allow" "$2"' "$SETRICHACL" "$B/f2"
	expect OK bob "the acl set by the write_acl holder is in force" open "$B/f2" r
	local before
	before=$(xattr_of "$B/f3")
	expect EPERM alice "S-A2: without write_acl a non-owner cannot chmod" chmod "$B/f3" 0666
	expect_sh DENIED alice "S-A2: without write_acl a non-owner cannot setrichacl" \
		'"$1" --set "everyone@:rwp::allow" "$2"' "$SETRICHACL" "$B/f3"
	check_eq "refused setrichacl/chmod changed nothing" "$before" "$(xattr_of "$B/f3")"
	expect OK bob "write_acl through a group entry: chmod" chmod "$B/f4" 0600
	expect EPERM alice "group entry does not give alice write_acl" chmod "$B/f4" 0666
	expect OK alice "write_acl lets a non-owner remove the acl" removexattr "$B/f5" system.richacl
	expect EPERM alice "without write_acl a non-owner cannot remove the acl" \
		removexattr "$B/f6" system.richacl
	expect DENIED alice "S-A1: owner's entry grants read only: write refused" open "$B/f7" w
	expect OK alice "S-A1: owner can read" open "$B/f7" r
	expect_sh OK alice "S-A1: the owner can always change the acl" \
		'"$1" --set "owner@:rwp::allow" "$2"' "$SETRICHACL" "$B/f7"
	expect OK alice "S-A1: after changing the acl the owner can write" open "$B/f7" w
	expect OK alice "S-A1: the owner can always chmod" chmod "$B/f8" 0600
}

# §3 item 5: write_owner grants chown/chgrp to oneself only.
t_write_owner() {
	group_begin K-WOWNER "§3.5 write_owner: chown/chgrp to oneself only (S-A3)"
	require_richacl || return
	local B=$R/wowner
	fresh_dir "$B"
	local f
	for f in f1 f2 f3 f4 f5 f6 f7 f8 f9; do echo x >"$B/$f"; done
	setacl 'user:1001:o::allow everyone@:r::allow' "$B/f1" "$B/f2" "$B/f3" "$B/f4" "$B/f9"
	setacl 'user:1001:rwp::allow' "$B/f5"
	setacl 'group:2000:o::allow' "$B/f6" "$B/f7" "$B/f8"

	expect OK alice "S-A3: write_owner: take ownership (chown to oneself)" chown "$B/f1" 1001 -1
	check_eq "the file now belongs to alice" 1001:0 "$(owner_of "$B/f1")"
	expect EPERM alice "S-A3: write_owner: giving the file to bob refused" chown "$B/f2" 1002 -1
	check_eq "refused chown changed nothing" 0:0 "$(owner_of "$B/f2")"
	expect OK alice "write_owner: chgrp to a group alice is in" chown "$B/f3" -1 1001
	check_eq "the group changed" 0:1001 "$(owner_of "$B/f3")"
	expect EPERM alice "write_owner: chgrp to a group alice is not in refused" chown "$B/f4" -1 $STAFF
	expect EPERM alice "without write_owner: chown to oneself refused" chown "$B/f5" 1001 -1
	expect OK bob "write_owner through a group entry: bob takes ownership" chown "$B/f6" 1002 -1
	expect EPERM carol "write_owner: carol cannot give the file to bob" chown "$B/f7" 1002 -1
	expect OK carol "write_owner: carol chgrp to staff (her group)" chown "$B/f8" -1 $STAFF
	expect_sh OK alice "chown(1) to oneself with write_owner" 'chown alice "$1"' "$B/f9"
	echo x >"$B/f10"
	setacl 'owner@:rwp::allow user:1002:r::allow' "$B/f10"
	S chown alice "$B/f10"
	expect OK alice "after chown the acl stays and owner@ means the new owner" open "$B/f10" w
	expect OK bob "after chown the named entry still applies" open "$B/f10" r
	expect DENIED bob "after chown the named entry grants no more than before" open "$B/f10" w
}

# §3 item 6: write_attributes grants setting arbitrary times.
t_write_attributes() {
	group_begin K-WATTR "§3.6 write_attributes sets arbitrary times"
	require_richacl || return
	local B=$R/wattr
	fresh_dir "$B"
	local f
	for f in f1 f2 f3 f4; do echo x >"$B/$f"; touch -d @1500000000 "$B/$f"; done
	setacl 'user:1001:A::allow everyone@:r::allow' "$B/f1"
	setacl 'user:1001:rwp::allow' "$B/f2"
	setacl 'user:1001:r::allow' "$B/f3"
	setacl 'group:2000:A::allow' "$B/f4"

	expect_sh OK alice "write_attributes: touch -d sets an arbitrary time" \
		'touch -d "2001-02-03 04:05:06 UTC" "$1"' "$B/f1"
	check_eq "the mtime is the one given" 981173106 "$(stat -c %Y "$B/f1")"
	expect OK alice "write_attributes: utimensat with explicit times" utimes "$B/f1" 1000000000
	expect OK alice "write_attributes: utimensat to the current time" utimes "$B/f1" now
	expect_sh DENIED alice "write_data without write_attributes: touch -d refused" \
		'touch -d "2001-02-03 04:05:06 UTC" "$1"' "$B/f2"
	check_eq "refused touch left the mtime alone" 1500000000 "$(stat -c %Y "$B/f2")"
	expect OK alice "write_data: setting the current time stays allowed (POSIX rule)" utimes "$B/f2" now
	expect DENIED alice "neither right: setting the current time refused" utimes "$B/f3" now
	expect EPERM alice "neither right: setting an explicit time refused" utimes "$B/f3" 1000000000
	expect OK carol "write_attributes through a group entry" utimes "$B/f4" 1000000000
}

# User extended attributes follow the data permissions, not read_named_attrs
# / write_named_attrs: Samba keeps a file's named streams and DOS attributes
# in user.* xattrs too, and the kernel cannot tell them from extended
# attributes (docs/design.md, "User extended attributes").
t_user_xattrs() {
	group_begin K-UXATTR "user.* xattrs: read_data / write_data decide, not R / W"
	require_richacl || return
	local B=$R/uxattr
	fresh_dir "$B"
	local f stream='user.DosStream.secret:$DATA'
	for f in w W R R2 r x dW; do
		echo x >"$B/$f"
		"$KT" setxattr "$B/$f" user.t 6f6c64 >/dev/null
		"$KT" setxattr "$B/$f" "$stream" 544f50534543524554 >/dev/null
	done
	setacl 'user:1001:rw::allow' "$B/w"
	setacl 'everyone@:raS::allow user:1001:rWaAS::allow' "$B/W"
	setacl 'user:1001:RaS::allow' "$B/R"
	setacl 'user:1001:r::deny everyone@:rRaS::allow' "$B/R2"
	setacl 'user:1001:r::allow' "$B/r"
	setacl 'user:1001:x::allow' "$B/x"
	setacl 'user:1001:W::deny user:1001:rw::allow' "$B/dW"
	mkdir "$B/sticky"
	chmod 1777 "$B/sticky"
	setacl 'user:1001:rwpxRW::allow' "$B/sticky"

	expect OK alice "write_data sets a user xattr" setxattr "$B/w" user.t 6e6577
	check_eq "the value set is stored" "OK 6e6577" "$("$KT" getxattr "$B/w" user.t)"
	expect OK alice "write_data removes a user xattr" removexattr "$B/w" user.t
	expect OK alice "read_data reads a user xattr" getxattr "$B/r" user.t
	expect DENIED alice "read_data alone does not set a user xattr" setxattr "$B/r" user.t 6e6577
	check_eq "the refused set changed nothing" "OK 6f6c64" "$("$KT" getxattr "$B/r" user.t)"
	expect DENIED alice "neither right: reading a user xattr refused" getxattr "$B/x" user.t

	# write_named_attrs alone: not even Samba's stream and DOS attribute xattrs
	expect DENIED alice "write_named_attrs alone does not set a user xattr" \
		setxattr "$B/W" user.t 6e6577
	expect DENIED alice "write_named_attrs alone does not overwrite a stream xattr" \
		setxattr "$B/W" "$stream" 50574e4544
	expect DENIED alice "write_named_attrs alone does not create a stream xattr" \
		setxattr "$B/W" 'user.DosStream.evil:$DATA' 4556494c
	expect DENIED alice "write_named_attrs alone does not remove a stream xattr" \
		removexattr "$B/W" "$stream"
	expect DENIED alice "write_named_attrs alone does not forge user.DOSATTRIB" \
		setxattr "$B/W" user.DOSATTRIB 3078323700
	check_eq "the stream xattr is unchanged" "OK 544f50534543524554" "$("$KT" getxattr "$B/W" "$stream")"
	check_eq "no user.DOSATTRIB was stored" "ENODATA" "$("$KT" getxattr "$B/W" user.DOSATTRIB | cut -d' ' -f1)"

	# read_named_attrs alone: not the data of a stream
	expect DENIED alice "read_named_attrs alone does not read a user xattr" getxattr "$B/R" user.t
	expect DENIED alice "read_named_attrs alone does not read a stream xattr" \
		getxattr "$B/R" "$stream"
	expect DENIED alice "read_named_attrs after a deny of read_data does not read a stream xattr" \
		getxattr "$B/R2" "$stream"
	expect DENIED alice "read_named_attrs does not grant reading the data" open "$B/R" r

	expect OK alice "named attribute entries are not consulted: a deny of W does not stop write_data" \
		setxattr "$B/dW" user.t 6e6577
	expect EPERM alice "sticky directory: a non-owner sets no user xattrs" \
		setxattr "$B/sticky" user.t 6e6577
	expect_sh DENIED alice "write_named_attrs does not set system.richacl" \
		'"$1" --set "everyone@:rwp::allow" "$2"' "$SETRICHACL" "$B/W"
}

# §3 item 7: write_data vs append_data on files.
t_append() {
	group_begin K-APPEND "§3.7 write vs append (S-A4)"
	require_richacl || return
	local B=$R/append
	fresh_dir "$B"
	local f
	for f in f1 f2 f3 f4 f5; do echo base >"$B/$f"; done
	setacl 'user:1001:p::allow' "$B/f1"
	setacl 'user:1001:w::allow' "$B/f2"
	setacl 'user:1001:wp::allow' "$B/f3"
	setacl 'group:2000:p::allow' "$B/f4"
	setacl 'user:1001:r::allow' "$B/f5"

	expect_sh OK alice "append_data: >> appends" 'echo more >>"$1"' "$B/f1"
	check_eq "the data was appended" "base more" "$(echo $(cat "$B/f1"))"
	expect_sh DENIED alice "append_data without write_data: > refused" 'echo new >"$1"' "$B/f1"
	check_eq "refused overwrite left the content" "base more" "$(echo $(cat "$B/f1"))"
	expect DENIED alice "append_data without write_data: O_WRONLY refused" open "$B/f1" w
	expect OK alice "append_data: O_WRONLY|O_APPEND allowed" open "$B/f1" wa
	expect_sh OK alice "write_data: > overwrites" 'echo new >"$1"' "$B/f2"
	check_eq "the file was overwritten" new "$(cat "$B/f2")"
	expect_sh DENIED alice "write_data without append_data: >> refused" 'echo more >>"$1"' "$B/f2"
	check_eq "refused append left the content" new "$(cat "$B/f2")"
	expect OK alice "write_data: writing in place (O_WRONLY)" write "$B/f2" w N
	expect_sh OK alice "write_data+append_data: >> appends" 'echo more >>"$1"' "$B/f3"
	expect_sh OK alice "write_data+append_data: > overwrites" 'echo new >"$1"' "$B/f3"
	expect_sh OK bob "append_data through a group entry: >>" 'echo bob >>"$1"' "$B/f4"
	expect_sh DENIED bob "append_data through a group entry: > refused" 'echo bob >"$1"' "$B/f4"
	# O_APPEND without write access opens for reading only: as with
	# generic_permission(), it must not ask for append_data.
	expect OK alice "read_data only: O_RDONLY|O_APPEND allowed" open "$B/f5" ra
	expect DENIED alice "read_data only: O_RDWR|O_APPEND refused" open "$B/f5" rwa
	expect DENIED alice "append_data only: O_RDONLY|O_APPEND still needs read_data" open "$B/f1" ra
	expect OK alice "read_data only: O_RDONLY still allowed" open "$B/f5" r
}

# append_data without write_data stays append-only on the open file
# (kernel-patches/0020): no truncation, no clearing of O_APPEND, no hole
# punching, no shared writable mapping.
t_append_fd() {
	group_begin K-APPENDFD "append-only access on open files (S-A4)"
	require_richacl || return
	local B=$R/appendfd
	fresh_dir "$B"
	local f
	for f in a1 a2 a3 a4; do printf 'base\n' >"$B/$f"; done
	setacl 'user:1001:rp::allow' "$B/a1"
	setacl 'user:1001:rwp::allow' "$B/a2"
	setacl 'user:1001:rp::allow' "$B/a3"
	chmod 666 "$B/a4"

	expect OK alice "read+append: O_WRONLY|O_APPEND opens and appends" fdop "$B/a1" wa write
	check_eq "the byte was appended" "$(printf 'base\nx')" "$(cat "$B/a1")"
	expect EACCES alice "read+append: O_WRONLY|O_APPEND|O_TRUNC refused (needs write_data)" open "$B/a1" wat
	expect EPERM alice "read+append: ftruncate on the O_APPEND descriptor refused" fdop "$B/a1" wa ftruncate
	expect EPERM alice "read+append: fallocate(PUNCH_HOLE) refused" fdop "$B/a1" wa punch
	expect OK alice "read+append: fallocate(KEEP_SIZE) allowed (changes no data)" fdop "$B/a1" wa allocate
	expect EPERM alice "read+append: fcntl(F_SETFL) clearing O_APPEND refused" fdop "$B/a1" wa noappend
	expect EACCES alice "read+append: shared writable mmap of an O_RDWR|O_APPEND descriptor refused" fdop "$B/a1" rwa mmap
	check_eq "after all refused attempts the data is intact" "$(printf 'base\nx')" "$(cat "$B/a1")"

	expect OK alice "write+append: ftruncate on the O_APPEND descriptor allowed" fdop "$B/a2" wa ftruncate
	expect OK alice "write+append: fcntl(F_SETFL) clearing O_APPEND allowed" fdop "$B/a2" wa noappend
	expect OK alice "write+append: shared writable mmap allowed" fdop "$B/a2" rwa mmap
	expect OK alice "write+append: fallocate(PUNCH_HOLE) allowed" fdop "$B/a2" wa punch
	expect OK alice "write+append: O_WRONLY|O_APPEND|O_TRUNC allowed" open "$B/a2" wat
	expect OK root "root is not limited to appending: ftruncate" fdop "$B/a3" wa ftruncate
	expect OK alice "mode-only file 0666: fcntl(F_SETFL) clearing O_APPEND allowed" fdop "$B/a4" wa noappend
}

# §3 item 8: the owner's permissions can be narrower than the mode suggests.
t_owner_narrow() {
	group_begin K-OWNER "§3.8 owner permissions narrower than the mode (S-A1)"
	require_richacl || return
	local B=$R/owner
	fresh_dir "$B"
	local f
	for f in f1 f2 f3; do echo x >"$B/$f"; chown alice:alice "$B/$f"; done
	setacl 'owner@:w::deny everyone@:rwp::allow' "$B/f1"
	setacl 'owner@:r::allow user:1002:rwp::allow' "$B/f2"
	setacl 'flags:m owner:rw::mask group:r::mask other:r::mask group@:rw::allow' "$B/f3"
	mkdir "$B/d4"
	echo x >"$B/d4/g"
	chown alice "$B/d4"
	setacl 'owner@:wp::deny everyone@:rwpxd::allow' "$B/d4"

	check_eq "mode from the masks is 0666 (owner mask rp)" 666 "$(mode_of "$B/f1")"
	expect DENIED alice "mode shows rw- but owner@ is denied write_data: O_WRONLY refused" open "$B/f1" w
	expect OK alice "the owner may still append (append_data allowed)" open "$B/f1" wa
	expect OK alice "the owner may read" open "$B/f1" r
	expect OK bob "everyone else writes" open "$B/f1" w
	check_eq "mode from the masks is 0660 (owner mask includes what user entries grant)" \
		660 "$(mode_of "$B/f2")"
	expect DENIED alice "mode shows rw- but owner@ grants read only: write refused" open "$B/f2" w
	expect OK bob "the named user writes" open "$B/f2" w
	check_eq "masked acl with owner mask rw: mode 0644" 644 "$(mode_of "$B/f3")"
	expect DENIED alice "owner in the owning group: group@ rw is cut to the group mask r" open "$B/f3" w
	expect OK alice "owner in the owning group reads" open "$B/f3" r
	check_eq "directory mode 0777 (owner mask rxd)" 777 "$(mode_of "$B/d4")"
	expect DENIED alice "owner of a 0777 dir denied add_file: create refused" create "$B/d4/f"
	expect DENIED alice "owner of a 0777 dir denied add_subdirectory: mkdir refused" mkdir "$B/d4/d"
	expect OK alice "the owner keeps delete_child" unlink "$B/d4/g"
	expect OK bob "everyone else creates" create "$B/d4/fb"
}

# The acl flag owner_rights (patch 44, Windows OWNER RIGHTS): the owner may
# change the acl and the mode only as the entries allow.
t_owner_rights() {
	group_begin K-OWNERRIGHTS "owner_rights: the entries decide whether the owner may change the acl"
	require_richacl || return
	local B=$R/ownerrights
	fresh_dir "$B"
	local f
	for f in f1 f2 f3 f4 f5 f6 f7 f8 f9; do echo x >"$B/$f"; chown alice:alice "$B/$f"; done
	setacl 'flags:o owner@:rw::allow everyone@:r::allow' "$B/f1"
	setacl 'flags:o owner@:rwC::allow everyone@:r::allow' "$B/f2"
	setacl 'owner@:rw::allow everyone@:r::allow' "$B/f3"
	setacl 'flags:o owner@:C::deny everyone@:rC::allow' "$B/f4"
	setacl 'flags:o owner@:rw::allow' "$B/f5"
	setacl 'flags:o owner@:rwC::allow' "$B/f6"
	chown alice:"$STAFF" "$B/f7" "$B/f8"
	setacl 'flags:o owner@:rw::allow group@:rwC::allow' "$B/f7"
	setacl 'flags:o owner@:rwo::allow group@:rwC::allow' "$B/f8"
	setacl 'flags:o owner@:rwx::allow everyone@:rx::allow' "$B/f9"
	S chmod 4755 "$B/f9"
	mkdir "$B/d"
	chown alice:alice "$B/d"
	setacl 'flags:ao owner@:rwpxdC:fd:allow everyone@:rwpx:fd:allow' "$B/d"

	local before
	before=$(xattr_of "$B/f1")
	expect EPERM alice "owner without write_acl under owner_rights: chmod refused" chmod "$B/f1" 0666
	expect_sh DENIED alice "and setrichacl refused" \
		'"$1" --set "everyone@:rwp::allow" "$2"' "$SETRICHACL" "$B/f1"
	expect EPERM alice "and removing the acl refused" removexattr "$B/f1" system.richacl
	check_eq "the refusals changed nothing" "$before" "$(xattr_of "$B/f1")"
	check_eq "mode unchanged" 644 "$(mode_of "$B/f1")"
	expect OK alice "the owner keeps write_attributes (utimes)" utimes "$B/f1" 1000000000
	expect OK alice "the owner still reads the acl, as everybody may" getxattr "$B/f1" system.richacl
	expect_cap OK alice fowner "with CAP_FOWNER the owner may chmod" chmod "$B/f1" 0640
	expect OK root "root may chmod" chmod "$B/f1" 0600
	check_eq "a chmod keeps the flag (and sets masked, write_through)" mwo "$(acl_flags_of "$B/f1")"

	expect OK alice "owner@ grants write_acl: the owner may chmod, set-user-ID bit included" \
		chmod "$B/f2" 04640
	check_eq "that chmod took effect" 4640 "$(mode_of "$B/f2")"
	expect EPERM alice "the chmod masks cut the owner's write_acl: a second chmod refused" \
		chmod "$B/f2" 0644
	expect OK alice "without the flag the owner always may chmod" chmod "$B/f3" 0600
	expect EPERM alice "an owner@ deny of write_acl before everyone@ binds the owner" chmod "$B/f4" 0600
	expect OK bob "everyone@ grants bob write_acl on the same file" chmod "$B/f4" 0644
	expect_sh DENIED alice "owner_rights without write_acl: the owner cannot drop the flag" \
		'"$1" --set "owner@:rwC::allow" "$2"' "$SETRICHACL" "$B/f5"
	expect_sh OK alice "with owner@ write_acl the owner may replace the acl, dropping the flag" \
		'"$1" --set "owner@:rw::allow" "$2"' "$SETRICHACL" "$B/f6"
	expect OK alice "after that the owner may always chmod" chmod "$B/f6" 0600

	expect EPERM alice "an owner without write_acl may not give the file to her group (group@ would grant it write_acl)" \
		chown "$B/f7" -1 1001
	check_eq "the owning group is unchanged" "1001:$STAFF" "$(owner_of "$B/f7")"
	expect OK alice "with write_owner (take_ownership) she may, as on Windows" chown "$B/f8" -1 1001
	expect EPERM alice "documented: her chown of a set-user-ID file is refused (it implies a chmod)" \
		chown "$B/f9" 1001 -1
	check_eq "the set-user-ID bit stays" 4755 "$(mode_of "$B/f9")"
	expect OK root "root may" chown "$B/f9" 1001 -1

	echo x >"$B/d/new"
	mkdir "$B/d/sub"
	check_eq "a new file inherits auto_inherit but not owner_rights" "a, no o" \
		"$(has_flags "$B/d/new" a o)"
	check_eq "nor does a new directory" "a, no o" "$(has_flags "$B/d/sub" a o)"
	expect OK alice "the owner of the directory may chmod it (write_acl through owner@)" \
		chmod "$B/d" 0755
	S chown bob "$B/f5"
	expect EPERM bob "after a chown the flag binds the new owner" chmod "$B/f5" 0666
	expect DENIED alice "and alice, no longer the owner, gets nothing from owner@" open "$B/f5" r
}

# The acl flags letters of a file, as getrichacl --raw prints them.
acl_flags_of() {
	"$GETRICHACL" --raw "$1" | sed -n 's/^ *flags:\([a-z]*\).*/\1/p'
}

# has_flags FILE YES NO: "YES, no NO" if the acl flags of FILE include the
# letter YES and not the letter NO, else what they are.
has_flags() {
	local f
	f=$(acl_flags_of "$1")
	if [[ $f == *"$2"* && $f != *"$3"* ]]; then
		echo "$2, no $3"
	else
		echo "flags '$f'"
	fi
}

# §3 item 9: chmod rewrites the masks; getrichacl shows the effect.
# Expected texts: algorithms.md 3.3 and the end-to-end list at the end of 4.11.
t_chmod() {
	group_begin K-CHMOD "§3.9 chmod rewrites the masks (algorithms.md 3.3, 4.11)"
	require_richacl || return
	local B=$R/chmod
	fresh_dir "$B"
	echo x >"$B/f1"
	setacl 'flags:a user:5:rwpx::allow everyone@:r::allow' "$B/f1"
	check_eq "mode from the masks: 0774" 774 "$(mode_of "$B/f1")"
	S chmod 640 "$B/f1"
	check_text "chmod 640: masks rwp/r/-, flags masked+write_through+protected (raw)" "$(lines \
		'f1:' \
		'     flags:mwap' \
		'     owner:rwp-------------::mask' \
		'     group:r---------------::mask' \
		'     other:----------------::mask' \
		'    user:5:rwpx------------::allow' \
		' everyone@:r---------------::allow')" gra_in "$B" --raw --numeric-ids f1
	check_text "chmod 640: getrichacl shows the masks applied" "$(lines \
		'f1:' \
		'  flags:ap' \
		' user:5:r------------::allow' \
		' owner@:rwp----------::allow' \
		' group@:r------------::allow')" gra_in "$B" --numeric-ids f1

	echo x >"$B/f2"
	setacl 'user:1002:rwpx::allow everyone@:r::allow' "$B/f2"
	S chmod 640 "$B/f2"
	expect OK bob "after chmod 640 the named user (group class) reads" open "$B/f2" r
	expect DENIED bob "after chmod 640 the group mask r cuts the named user's write" open "$B/f2" w
	expect DENIED carol "after chmod 640 the other class gets the other mask (nothing)" open "$B/f2" r
	S chmod 664 "$B/f2"
	expect OK bob "after chmod 664 the named user writes again (entries were kept)" open "$B/f2" w
	expect OK carol "after chmod 664 the other class reads" open "$B/f2" r
	expect DENIED carol "after chmod 664 the other class cannot write" open "$B/f2" w

	mkdir "$B/d3"
	setacl 'user:5:rwpxd:fd:allow owner@:rwpxd::allow' "$B/d3"
	S chmod 711 "$B/d3"
	check_text "directory chmod 711: getrichacl (algorithms.md 3.3)" "$(lines \
		'd3:' \
		'    user:5:rwpxd--------:fdi:allow' \
		'    user:5:---x---------::allow' \
		'    owner@:rwpxd--------::allow' \
		'    group@:---x---------::deny' \
		' everyone@:---x---------::allow')" gra_in "$B" --numeric-ids d3

	local a
	for a in a1 a2 a3 a4; do echo x >"$B/$a"; done
	setacl 'everyone@:wp::allow owner@:r::allow group@:r::allow' "$B/a1"
	S chmod 664 "$B/a1"
	check_text "apply-masks a1: chmod 664" "$(lines \
		'a1:' \
		'    owner@:rwp----------::allow' \
		'    group@:rwp----------::allow' \
		' everyone@:r------------::allow')" gra_in "$B" --numeric-ids a1
	setacl 'u:77:rwp::allow' "$B/a2"
	S chmod 664 "$B/a2"
	local a2_664
	a2_664=$(lines \
		'a2:' \
		'    owner@:rwp----------::allow' \
		'   user:77:rwp----------::allow' \
		'    group@:r------------::deny' \
		' everyone@:r------------::allow')
	check_text "apply-masks a2: chmod 664" "$a2_664" gra_in "$B" --numeric-ids a2
	S chmod 644 "$B/a2"
	check_text "apply-masks a2: chmod 644 masks the named user to r" "$(lines \
		'a2:' \
		'    owner@:rwp----------::allow' \
		'   user:77:r------------::allow' \
		'    group@:r------------::deny' \
		' everyone@:r------------::allow')" gra_in "$B" --numeric-ids a2
	S chmod 664 "$B/a2"
	check_text "apply-masks a2: chmod 664 again restores rwp (entries untouched)" \
		"$a2_664" gra_in "$B" --numeric-ids a2
	setacl 'u:77:r::allow everyone@:rwp::allow' "$B/a3"
	S chmod 664 "$B/a3"
	check_text "apply-masks a3: chmod 664" "$(lines \
		'a3:' \
		'   user:77:rwp----------::allow' \
		'    owner@:rwp----------::allow' \
		'    group@:rwp----------::allow' \
		' everyone@:r------------::allow')" gra_in "$B" --numeric-ids a3
	setacl 'everyone@:rwp::allow' "$B/a4"
	S chmod 066 "$B/a4"
	check_text "apply-masks a4: chmod 066" "$(lines \
		'a4:' \
		'    owner@:rwp----------::deny' \
		' everyone@:rwp----------::allow')" gra_in "$B" --numeric-ids a4
	S chmod 006 "$B/a4"
	check_text "apply-masks a4: chmod 006" "$(lines \
		'a4:' \
		'    owner@:rwp----------::deny' \
		'    group@:rwp----------::deny' \
		' everyone@:rwp----------::allow')" gra_in "$B" --numeric-ids a4
	S chmod 606 "$B/a4"
	check_text "apply-masks a4: chmod 606" "$(lines \
		'a4:' \
		'    owner@:rwp----------::allow' \
		'    group@:rwp----------::deny' \
		' everyone@:rwp----------::allow')" gra_in "$B" --numeric-ids a4
}
