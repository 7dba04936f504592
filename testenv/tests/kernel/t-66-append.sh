# Append-only access: an open with append_data but not write_data stays
# append-only, the acl alone decides it, and only regular files can be
# opened that way.  Found by outside attacks on the series.

# The append-only decision asks only the acl (no second LSM or
# audit pass; not observable without a security module in the guest), and
# keeps its semantics: append_data alone gives an append-only descriptor.
t_append_acl_decides() {
	group_begin K-APPEND-ACL "append-only opens decided by the acl alone"
	require_richacl || return
	local B=$R/append_acl_decides
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

# An append-only descriptor (append_data without write_data)
# cannot be used to overwrite or shrink the file by any system call.
t_append_stays() {
	group_begin K-APPEND-STAYS "append-only opens stay append-only"
	require_richacl || return
	atk_build || return
	local B=$R/append_stays dev orig got
	fresh_dir "$B"
	printf 'ORIGINAL' >"$B/f"
	printf 'SRC!' >"$B/src"
	printf 'mine' >"$B/own"
	S chown alice:alice "$B/f"
	S chown bob:bob "$B/own"
	S chmod 0644 "$B/src"
	setacl 'owner@:rwp::allow user:1002:rp::allow everyone@:r::allow' "$B/f"

	expect OK bob "bob may append" open "$B/f" wa
	expect EPERM bob "fcntl cannot clear O_APPEND" fdop "$B/f" wa noappend
	expect EPERM bob "ftruncate refused" fdop "$B/f" wa ftruncate
	expect EPERM bob "fallocate PUNCH_HOLE refused" fdop "$B/f" wa punch
	expect DENIED bob "shared mmap of an O_WRONLY|O_APPEND fd refused" fdop "$B/f" wa mmap
	expect DENIED bob "shared mmap of an O_RDWR|O_APPEND fd refused" fdop "$B/f" rwa mmap
	expect DENIED bob "O_APPEND|O_TRUNC refused" open "$B/f" wat
	expect DENIED bob "O_RDONLY|O_APPEND|O_TRUNC refused" open "$B/f" rat
	expect_atk OK bob "pwrite at offset 0 on the O_APPEND fd (appends)" apw "$B/f" EVIL
	expect_atk ERROR bob "pwritev2 RWF_NOAPPEND refused" nrw "$B/f" EVIL
	expect_atk EBADF bob "copy_file_range into the O_APPEND fd refused" cfr "$B/src" "$B/f"
	expect_atk ERROR bob "splice at an offset into the O_APPEND fd refused" splice "$B/f" EVIL
	expect_atk DENIED bob "reopen through /proc/self/fd without O_APPEND refused" reopen "$B/f"
	expect_atk ERROR bob "EXT4_IOC_MOVE_EXT with the append-only file as donor refused" \
		moveext "$B/own" "$B/f"
	expect_atk ERROR bob "sendfile into the O_APPEND fd refused" sendfile "$B/src" "$B/f"
	check_eq "the original data is intact" ORIGINAL "$(head -c8 "$B/f")"
	echo "# f now: $(od -c "$B/f" | head -n2 | tr -s ' ' | tr '\n' ' ')"

	# A block device node with an append-only acl: block devices ignore
	# O_APPEND, so append_data must not be enough to open them.
	if [ "$PLAIN_OK" = 1 ] && [ -b "$PLAIN_DEV" ]; then
		dev=$(stat -c '%t %T' "$PLAIN_DEV")
		S mknod "$B/blk" b $((16#${dev% *})) $((16#${dev#* }))
		S chown alice:alice "$B/blk"
		S chmod 0600 "$B/blk"
		setacl 'owner@:rwp::allow user:1002:p::allow' "$B/blk"
		orig=$(dd if="$PLAIN_DEV" bs=512 count=1 iflag=direct 2>/dev/null | head -c4 | od -An -tx1 | tr -d ' \n')
		expect DENIED bob "blk: bob (append_data only) cannot open the device O_WRONLY" open "$B/blk" w
		kt_as bob write "$B/blk" wa EVIL >/dev/null 2>&1
		sync
		echo 1 >/proc/sys/vm/drop_caches
		got=$(dd if="$PLAIN_DEV" bs=512 count=1 iflag=direct 2>/dev/null | head -c4 | od -An -tx1 | tr -d ' \n')
		check_eq "blk: an O_APPEND write by bob did not overwrite sector 0 of the device" "$orig" "$got"
		# a device cannot be kept append-only: append access alone does
		# not open it for writing at all
		expect DENIED bob "blk: bob (append_data only) cannot open the device O_WRONLY|O_APPEND" \
			open "$B/blk" wa
		expect OK alice "blk: the owner (write_data) still opens it O_WRONLY|O_APPEND" open "$B/blk" wa
		# restore the (unused) first bytes of the plain image
		printf "$(printf '%s' "$orig" | sed 's/../\\x&/g')" | dd of="$PLAIN_DEV" bs=4 count=1 conv=notrunc 2>/dev/null
		sync
	fi
}

# Append-only acls on FIFOs, character devices, sockets and
# directories (O_APPEND).
t_append_nonregular() {
	group_begin K-APPEND-NONREG "append-only access to non-regular files"
	require_richacl || return
	atk_build || return
	local B=$R/append_nonregular a
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
