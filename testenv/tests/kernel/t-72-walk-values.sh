# Path walk and xattr values: RCU walk honours deny entries and acl
# updates, and malformed system.richacl values are refused with EINVAL
# without a change.  Found by an outside attack on the series.

# RCU path walk with cached and uncached acls, deny entries on
# directories, acl changes while cached.
t_walk_rcu_updates() {
	group_begin K-WALK-RCU "RCU walk honours deny entries and acl updates"
	require_richacl || return
	local B=$R/walk_rcu_updates P
	fresh_dir "$B"
	P=$B/p
	S mkdir -p "$P/q"
	echo x >"$P/q/f"
	S chown -R alice:alice "$P"
	setacl 'user:1002:x::deny everyone@:rx::allow' "$P"
	expect DENIED bob "deny x on p: stat p/q/f (first)" stat "$P/q/f"
	stat "$P/q/f" >/dev/null
	expect DENIED bob "deny x on p: stat p/q/f (cached dentries)" stat "$P/q/f"
	echo 3 >/proc/sys/vm/drop_caches
	expect DENIED bob "deny x on p: after drop_caches" stat "$P/q/f"
	expect DENIED bob "deny x on p: again (acl cached now)" stat "$P/q/f"
	expect OK carol "carol may traverse p" stat "$P/q/f"
	setacl 'group:2000:x::deny everyone@:rx::allow' "$P"
	expect DENIED bob "group deny (staff): bob" stat "$P/q/f"
	expect DENIED carol "group deny (staff): carol" stat "$P/q/f"
	expect OK alice "group deny (staff): alice (owner, not in staff)" stat "$P/q/f"
	setacl 'everyone@:rx::allow' "$P"
	setacl 'everyone@:rx::allow' "$P/q"
	expect OK bob "acl of p replaced, q equivalent: bob may traverse" stat "$P/q/f"
	setacl 'user:1002:x::deny everyone@:rx::allow' "$P/q"
	expect DENIED bob "the replaced acl of q applies at once" stat "$P/q/f"
	expect DENIED bob "and from a chdir'ed-relative walk too" chdir "$P/q"
	S "$KT" removexattr "$P/q" system.richacl
	expect OK bob "removed acl: the mode applies at once" stat "$P/q/f"
}

# Malformed system.richacl values are refused with EINVAL and
# change nothing; unmapped identifiers never match.
t_xattr_malformed() {
	group_begin K-XATTR-MALFORMED "malformed xattr values"
	require_richacl || return
	local B=$R/xattr_malformed f=$R/xattr_malformed/f before v desc i big
	fresh_dir "$B"
	echo secret >"$f"
	S chown alice:alice "$f"
	setacl 'owner@:rwp::allow user:1003:r::allow' "$f"
	before=$(xattr_of "$f")
	local -a cases=(
		"15-byte value|$(rhdr 0 0 0 0 0 | cut -c1-30)"
		"version 1|01$(rhdr 0 1 0 0 0 | cut -c3-)$(race 0 $A_SPECIAL 1 2)"
		"unknown acl flag 0x08|$(rhdr 0x08 1 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"count 65535 in a 28-byte value|$(rhdr 0 65535 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"count 2 with one entry|$(rhdr 0 2 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"entry type 2|$(rhdr 0 1 0 0 0)$(race 2 $A_SPECIAL 1 2)"
		"entry type 0x100 (audit)|$(rhdr 0 1 0 0 0)$(race 256 $A_SPECIAL 1 2)"
		"entry flag 0x100|$(rhdr 0 1 0 0 0)$(race 0 0x4100 1 2)"
		"mask bit 0x800|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x801 2)"
		"mask bit 0x80000000|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x80000001 2)"
		"file mask bit 0x800|$(rhdr $A_MASKED 1 0x800 0 0)$(race 0 $A_SPECIAL 1 2)"
		"special id 3|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 3)"
		"special id 0xffffffff|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 4294967295)"
		"special+group|$(rhdr 0 1 0 0 0)$(race 0 0x4040 1 2)"
		"special+unmapped|$(rhdr 0 1 0 0 0)$(race 0 0x6000 1 2)$(rstr x)"
		"unmapped without string|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)"
		"unmapped, empty string|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)00"
		"unmapped, no NUL|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)4142"
		"two unmapped, one string|$(rhdr 0 2 0 0 0)$(race 0 $A_UNMAPPED 1 0)$(race 0 $A_UNMAPPED 1 0)$(rstr x)"
		"stray string|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 2)$(rstr x)"
		"trailing NUL byte|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 2)00"
		"uid 4294967295|$(rhdr 0 1 0 0 0)$(race 0 0 1 4294967295)"
		"gid 4294967295|$(rhdr 0 1 0 0 0)$(race 0 $A_IDGROUP 1 4294967295)"
	)
	for v in "${cases[@]}"; do
		desc=${v%%|*}
		expect EINVAL root "$desc: EINVAL" setxattr "$f" system.richacl "${v##*|}"
	done
	check_eq "none of them changed the acl" "$before" "$(xattr_of "$f")"
	expect EINVAL alice "the owner gets EINVAL too (count 65535)" setxattr "$f" system.richacl \
		"$(rhdr 0 65535 0 0 0)$(race 0 $A_SPECIAL 1 2)"
	# a near-maximal value: 5459 entries (65524 bytes; 5460 does not fit
	# into one argument of kt as hex)
	big=$(rhdr 0 5459 0 0 0)$(awk 'BEGIN { for (i = 0; i < 5459; i++) { id = 3000 + i;
		printf "0000000001000000%02x%02x%02x00", id % 256, int(id / 256) % 256, int(id / 65536) % 256 } }')
	v=$(kt_as root setxattr "$f" system.richacl "$big" 2>&1 | head -n1)
	echo "# 5459-entry (65524-byte) value: ${v%% *}"
	if [ "${v%% *}" = OK ]; then
		check_eq "the big value reads back unchanged" "$big" "$(xattr_of "$f")"
	else
		check_eq "a refused big value left the acl unchanged" "$before" "$(xattr_of "$f")"
	fi
	# unmapped identifiers that look like special or numeric ids
	echo x >"$B/u"
	S chown alice:alice "$B/u"
	S chmod 0600 "$B/u"
	S "$KT" setxattr "$B/u" system.richacl \
		"$(rhdr 0 3 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 $A_UNMAPPED 3 0)$(race 0 $((A_UNMAPPED | A_IDGROUP)) 3 0)$(rstr everyone@)$(rstr 2000)"
	expect DENIED bob "unmapped 'everyone@' grants bob nothing" open "$B/u" r
	expect DENIED carol "unmapped group '2000' grants carol nothing" open "$B/u" r
	echo "# u: mode $(mode_of "$B/u") acl $(raw_acl "$B/u")"
	check_eq "no kernel warnings" 0 "$(dmesg | grep -c -E 'WARNING|BUG|Oops|general protection')"
}
