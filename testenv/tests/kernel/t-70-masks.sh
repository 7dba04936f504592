# File masks and the mode: the permission bits always show an upper bound
# of what the acl grants, for masks computed by the kernel, for raw values,
# and after an explicit chmod.  Found by outside attacks on the series.

# The permission bits after setting an acl.
t_masks_mode_bound() {
	group_begin K-MASKS-BOUND "the file mode covers what the acl grants"
	require_richacl || return
	local B=$R/masks_mode_bound
	fresh_dir "$B"
	echo x >"$B/g"
	S chown alice:alice "$B/g"
	expect OK alice "alice sets an unmasked non-equivalent acl with zero file masks" setxattr "$B/g" system.richacl \
		"$(rhdr 0 3 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x23 1003)$(race 0 $A_SPECIAL 0x21 2)"
	echo "# g: mode $(mode_of "$B/g") acl $(raw_acl "$B/g")"
	expect OK bob "everyone@ rx: bob can read g" open "$B/g" r
	check_eq "g: the other permission bits show r-x" 5 "$(($(stat -c 0%a "$B/g") & 7))"
	check_eq "g: the group permission bits show rwx (carol rw, everyone@ rx)" 7 "$((($(stat -c 0%a "$B/g") >> 3) & 7))"
}

# Raw xattr values, masked and not masked: the mode is an upper
# bound of what the acl grants, and getxattr shows the acl the kernel
# enforces.
t_masks_raw_values() {
	group_begin K-MASKS-RAW "file masks from raw values: the mode shows an upper bound"
	require_richacl || return
	local B=$R/masks_raw_values f v
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

# No permission is widened by a chmod that removes bits or
# repeats the mode shown (design: write_through turns the upper bound the
# mode shows into permissions, as the ext4_setattr comment says for kill-suid).
t_masks_explicit_chmod() {
	# An explicit chmod gives the mode its POSIX meaning (algorithms.md,
	# chmod: the masks become the mode's permissions, write_through): the
	# mode shown before was only an upper bound.  "w" in a requested mode
	# is write access, as on plain ext4; only the owner or a write_acl
	# holder can chmod, and they could grant write access anyway.  This
	# group pins that behaviour down (it was reported as surprising).
	group_begin K-MASKS-CHMOD "an explicit chmod gives the requested mode its meaning"
	require_richacl || return
	local B=$R/masks_explicit_chmod f
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
