# Create, delete and rename: the create mode limits the new file's masks,
# the DAC capabilities do not buy MAY_DELETE_SELF, a rename whiteout needs
# add_file, and rename/exchange/link/create respect both directories.
# Found by outside attacks on the series.

# The DAC capabilities do not let a victim "allow" its deletion.
t_delete_dac_caps() {
	group_begin K-DELETE-CAPS "CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH do not bypass delete checks"
	require_richacl || return
	local B=$R/delete_dac_caps
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

# The create mode limits every class's file mask (as in v28).
t_create_mode_private() {
	group_begin K-CREATE-MODE "a file created 0600 below everyone@:full is private"
	require_richacl || return
	local B=$R/create_mode_private
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

# A RENAME_WHITEOUT source needs add_file where the whiteout goes.
t_rename_whiteout() {
	group_begin K-RENAME-WHITEOUT "RENAME_WHITEOUT needs add_file in the source directory"
	require_richacl || return
	local B=$R/rename_whiteout
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

# Rename/exchange/link/create across directories with
# different acls.
t_rename_both_dirs() {
	group_begin K-RENAME-DIRS "rename, exchange, link and create respect both directories"
	require_richacl || return
	local B=$R/rename_both_dirs Y X W S2 old
	fresh_dir "$B"
	Y=$B/y X=$B/x W=$B/w S2=$B/s
	S mkdir "$Y" "$X" "$W" "$S2"
	S mkdir "$Y/d" "$X/e" "$X/e2" "$W/sub"
	echo a >"$Y/f"; echo b >"$X/g"; echo c >"$X/g2"; echo h >"$B/h"; echo s >"$B/su"
	S chown -R alice:alice "$Y" "$W" "$B/h" "$B/su"
	S chown -R bob:bob "$X"
	S chown carol:carol "$S2"
	S chmod 1777 "$S2"
	echo v >"$S2/a"; echo v >"$S2/b"
	S chown alice:alice "$S2/a" "$S2/b"
	S chmod 4755 "$B/su"
	setacl 'owner@:rwpxdD::allow user:1002:xw::allow everyone@:x::allow' "$Y"
	setacl 'owner@:rwpxdD::allow user:1002:xwpd::allow everyone@:x::allow' "$W"
	setacl 'owner@:rwpxdD::allow everyone@:rx::allow' "$W/sub"

	expect DENIED bob "exchange his file with alice's (no delete_child in y)" exchange "$X/g" "$Y/f"
	expect DENIED bob "rename over alice's file (no delete_child in y)" rename "$X/g" "$Y/f"
	expect DENIED bob "exchange his dir with alice's dir in y" exchange "$X/e" "$Y/d"
	expect DENIED bob "move his dir into y (no add_subdirectory)" rename "$X/e" "$Y/e"
	expect DENIED bob "mkdir in y (no add_subdirectory)" mkdir "$Y/m"
	expect DENIED bob "RENAME_NOREPLACE of his dir into y (no add_subdirectory)" noreplace "$X/e2" "$Y/e2"
	expect OK bob "sanity: move his file into y (add_file)" rename "$X/g2" "$Y/g2"
	expect OK bob "sanity: mkfifo in y (add_file)" mknod "$Y/fifo"
	expect DENIED bob "move alice's dir out of w without add_file on the dir itself" rename "$W/sub" "$X/sub"
	check_eq "y/f is still alice's file" a "$(cat "$Y/f")"

	old=$(cat /proc/sys/fs/protected_hardlinks)
	echo 1 >/proc/sys/fs/protected_hardlinks
	setacl 'owner@:rwp::allow user:1002:r::allow' "$B/h"
	expect DENIED bob "protected_hardlinks: link to a file granting only read" link "$B/h" "$X/hl"
	setacl 'owner@:rwx::allow user:1002:rw::allow everyone@:rx::allow' "$B/su"
	S chmod u+s "$B/su"
	expect DENIED bob "protected_hardlinks: link to a setuid file" link "$B/su" "$X/sl"
	echo "$old" >/proc/sys/fs/protected_hardlinks

	expect DENIED bob "sticky dir: unlink alice's file (acl grants bob nothing)" unlink "$S2/a"
	expect DENIED bob "sticky dir: rename alice's file" rename "$S2/a" "$S2/a2"
	expect_cap DENIED bob dac_override "sticky dir: CAP_DAC_OVERRIDE alone cannot unlink" unlink "$S2/a"
	setacl 'owner@:rwp::allow user:1002:D::allow' "$S2/b"
	expect OK bob "sticky dir: the victim's delete permission allows unlink (design)" unlink "$S2/b"
}
