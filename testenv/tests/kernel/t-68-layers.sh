# Other file systems and namespaces on top of a richacl file system:
# overlayfs refuses it as a layer (also for an unprivileged user in a user
# namespace), and the idmapped-mount refusal of system.richacl applies only
# to richacl inodes.  Found by outside attacks on the series.

# Overlayfs refuses richacl file systems as layers.
t_overlay_refused() {
	group_begin K-OVL-REFUSED "overlayfs refuses layers with richacls"
	require_richacl || return
	local B=$R/overlay_refused T=/mnt/ovl-refused-tmp O=/mnt/ovl-refused out
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

# Overlayfs mounted by an unprivileged user in a user namespace,
# and system.richacl from inside a user namespace.
t_userns_overlay() {
	group_begin K-USERNS-OVL "user namespaces: overlayfs and system.richacl"
	require_richacl || return
	local B=$R/userns_overlay out
	fresh_dir "$B"
	S mkdir "$B/lower"
	echo secret >"$B/lower/f"
	S chmod 0644 "$B/lower/f"
	setacl 'owner@:rwp::allow user:1002:r::deny everyone@:r::allow' "$B/lower/f"
	echo mine >"$B/own"
	S chown bob:bob "$B/own"
	echo x >"$B/alices"
	S chown alice:alice "$B/alices"
	expect DENIED bob "bob cannot read f directly" open "$B/lower/f" r
	[ -w /proc/sys/kernel/unprivileged_userns_clone ] && echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	mkdir -p /tmp/atk9
	chmod 0777 /tmp/atk9
	out=$(as bob unshare -Ur true 2>&1)
	if [ -n "$out" ]; then
		# the test guest runs chrooted, where unshare(CLONE_NEWUSER) is
		# EPERM for everybody: nothing to attack here
		echo "# K-USERNS-OVL not run: cannot create a user namespace ($out)"
		return
	fi
	out=$(as bob unshare -Urm sh -c '
		mount -t tmpfs t /tmp/atk9 || { echo NOTMPFS; exit; }
		mkdir /tmp/atk9/u /tmp/atk9/w /tmp/atk9/m
		if mount -t overlay o -o "lowerdir=$1,upperdir=/tmp/atk9/u,workdir=/tmp/atk9/w" /tmp/atk9/m 2>/dev/null; then
			cat /tmp/atk9/m/f 2>&1 | head -n1
			echo MOUNTED
		else
			echo REFUSED
		fi' _ "$B/lower" 2>&1 | tr '\n' ' ')
	echo "# userns overlay: $out"
	case "$out" in
	*REFUSED*) pass "unprivileged overlay with a richacl lower layer refused" ;;
	*NOTMPFS*) fail "unprivileged overlay with a richacl lower layer refused" "could not set up (no userns?)" "$out" ;;
	*) fail "unprivileged overlay with a richacl lower layer refused" "mounted" "$out" ;;
	esac
	out=$(as bob unshare -Ur "$KT" setxattr "$B/alices" system.richacl \
		"$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x27 2)" 2>&1 | head -n1)
	check_eq "userns root (bob) cannot set the acl of alice's file" EPERM "${out%% *}"
	out=$(as bob unshare -Ur "$KT" setxattr "$B/own" system.richacl \
		"$(rhdr 0 2 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x27 1003)" 2>&1 | head -n1)
	check_eq "userns: an entry for an id outside the namespace is EINVAL" EINVAL "${out%% *}"
	out=$(as bob unshare -Ur "$KT" chmod "$B/alices" 666 2>&1 | head -n1)
	check_eq "userns root (bob) cannot chmod alice's file" EPERM "${out%% *}"
}

# The idmapped-mount refusal of system.richacl only applies to
# richacl file systems; checked through the plain file system, which must
# answer as it does without an idmapped mount (not observable on 6.1: no
# idmappable file system handles the name).
t_idmap_richacl_only() {
	group_begin K-IDMAP-RICHONLY "system.richacl refusal limited to richacl file systems"
	require_richacl || return
	local want
	[ "$PLAIN_OK" = 1 ] || { fail "setup" "plain ext4 not mounted"; return; }
	echo x >"$P/idmap_richacl_only"
	want=$("$KT" getxattr "$P/idmap_richacl_only" system.richacl | cut -d' ' -f1)
	check_eq "plain ext4: getxattr system.richacl is EOPNOTSUPP" EOPNOTSUPP "$want"
	rm -f "$P/idmap_richacl_only"
}
