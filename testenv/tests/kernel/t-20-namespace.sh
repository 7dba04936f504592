# Create, delete and rename permissions (SEMANTICS.md section 3, items 1-3;
# section 2 S-C*, S-D*, S-R*).  Expected results follow algorithms.md 6.2:
# creating needs add_file (w) for non-directories or add_subdirectory (p) for
# directories, plus execute (x) on the directory; deleting needs delete_child
# (d) plus x on the directory (then the sticky rule applies), or delete (D)
# on the victim plus x on the directory (the sticky rule does not apply).

# §3 item 1: add_file vs add_subdirectory on create.
t_create() {
	group_begin K-CREATE "§3.1 add_file vs add_subdirectory (S-C1..S-C3)"
	require_richacl || return
	local B=$R/create
	fresh_dir "$B"
	mkdir "$B"/{wx,px,wp,deny,staff,own}
	setacl 'user:1001:wx::allow' "$B/wx"
	setacl 'user:1001:px::allow' "$B/px"
	setacl 'user:1001:wp::allow' "$B/wp"
	setacl 'user:1001:rwpxd::deny everyone@:rwpxd::allow' "$B/deny"
	setacl 'group:2000:wx::allow' "$B/staff"
	chown alice "$B/own"
	setacl 'owner@:rpx::allow everyone@:rx::allow' "$B/own"

	expect OK alice "add_file: open(O_CREAT) a file" create "$B/wx/f"
	expect OK alice "add_file: mknod a fifo" mknod "$B/wx/fifo"
	expect OK alice "add_file: symlink" symlink target "$B/wx/sym"
	expect OK alice "add_file: hard link" link "$B/wx/f" "$B/wx/f2"
	expect DENIED alice "add_file without add_subdirectory: mkdir refused" mkdir "$B/wx/d"
	expect OK alice "add_subdirectory: mkdir" mkdir "$B/px/d"
	expect DENIED alice "add_subdirectory without add_file: create refused" create "$B/px/f"
	expect DENIED alice "add_subdirectory without add_file: mknod refused" mknod "$B/px/fifo"
	expect DENIED alice "add_subdirectory without add_file: symlink refused" symlink t "$B/px/sym"
	expect DENIED alice "add_subdirectory without add_file: hard link refused" \
		link "$B/wx/f" "$B/px/f2"
	expect DENIED alice "add_file+add_subdirectory without execute: create refused" create "$B/wp/f"
	expect DENIED alice "add_file+add_subdirectory without execute: mkdir refused" mkdir "$B/wp/d"
	check_eq "S-C3: mode of the dir denying alice is 0777 (masks from the allow entry)" \
		777 "$(mode_of "$B/deny")"
	expect DENIED alice "S-C3: mode 0777 but the acl denies alice: create refused" create "$B/deny/f"
	expect DENIED alice "S-C3: mode 0777 but the acl denies alice: mkdir refused" mkdir "$B/deny/d"
	expect OK bob "S-C3: everyone@ allow lets bob create" create "$B/deny/f"
	expect OK bob "S-C3: everyone@ allow lets bob mkdir" mkdir "$B/deny/d"
	expect OK bob "group entry (staff) grants bob add_file" create "$B/staff/fb"
	expect OK carol "group entry (staff) grants carol add_file" create "$B/staff/fc"
	expect DENIED alice "group entry does not match alice" create "$B/staff/fa"
	expect DENIED bob "group entry grants add_file only: mkdir refused" mkdir "$B/staff/d"
	expect DENIED alice "directory owner without add_file in the acl cannot create" create "$B/own/f"
	expect OK alice "directory owner with add_subdirectory can mkdir" mkdir "$B/own/d"
	expect OK root "root (CAP_DAC_OVERRIDE) creates regardless of the acl" create "$B/wp/root"
	check_eq "created file is owned by its creator" 1001:1001 "$(owner_of "$B/wx/f")"
	expect_sh OK alice "touch(1) creates a file with add_file" 'touch "$1"' "$B/wx/t2"
	expect_sh DENIED alice "mkdir(1) refused with add_file only" 'mkdir "$1"' "$B/wx/d2"
}

# §3 item 2: delete_child / delete / sticky on unlink and rmdir.
t_delete() {
	group_begin K-DELETE "§3.2 delete_child/delete/sticky (S-D1..S-D4)"
	require_richacl || return
	local B=$R/delete
	fresh_dir "$B"
	local d
	for d in x xd d xD xdDdeny wpx sticky stickyD rD staff dchild_deny; do
		mkdir "$B/$d" "$B/$d/s"
		echo content >"$B/$d/f"
	done
	setacl 'user:1001:x::allow' "$B/x"
	setacl 'user:1001:xd::allow' "$B/xd"
	setacl 'user:1001:d::allow' "$B/d"
	setacl 'user:1001:x::allow' "$B/xD"
	setacl 'user:1001:D::allow' "$B/xD/f" "$B/xD/s"
	setacl 'user:1001:xd::allow' "$B/xdDdeny"
	setacl 'user:1001:D::deny everyone@:r::allow' "$B/xdDdeny/f" "$B/xdDdeny/s"
	setacl 'user:1001:wpx::allow' "$B/wpx"
	chmod 1777 "$B/sticky" "$B/stickyD"
	setacl 'user:1001:xd::allow' "$B/sticky"
	echo alice >"$B/sticky/fa"
	chown alice "$B/sticky/fa"
	setacl 'user:1001:x::allow' "$B/stickyD"
	setacl 'user:1001:D::allow' "$B/stickyD/f"
	setacl 'user:1001:r::allow' "$B/rD"
	setacl 'user:1001:D::allow' "$B/rD/f"
	setacl 'group:2000:xd::allow' "$B/staff"
	setacl 'user:1001:d::deny user:1001:x::allow' "$B/dchild_deny"
	setacl 'user:1001:D::allow' "$B/dchild_deny/f"

	expect DENIED alice "S-D3: execute only on the dir, nothing on the file: unlink refused" unlink "$B/x/f"
	check_eq "S-D3: refused unlink leaves the file and its content" content "$(cat "$B/x/f")"
	expect DENIED alice "S-D3: execute only: rmdir refused" rmdir "$B/x/s"
	expect OK alice "delete_child+execute on the dir: unlink" unlink "$B/xd/f"
	expect OK alice "delete_child+execute on the dir: rmdir" rmdir "$B/xd/s"
	expect DENIED alice "delete_child without execute: unlink refused" unlink "$B/d/f"
	expect DENIED alice "delete_child without execute: rmdir refused" rmdir "$B/d/s"
	expect OK alice "S-D1: delete on the file + execute on the dir: unlink" unlink "$B/xD/f"
	expect OK alice "S-D1: delete on the subdir + execute on the dir: rmdir" rmdir "$B/xD/s"
	expect OK alice "S-D4: file denies delete, dir grants delete_child: unlink" unlink "$B/xdDdeny/f"
	expect OK alice "S-D4: subdir denies delete, dir grants delete_child: rmdir" rmdir "$B/xdDdeny/s"
	expect DENIED alice "add_file+add_subdirectory are not delete_child: unlink refused" unlink "$B/wpx/f"
	expect DENIED alice "add_file+add_subdirectory are not delete_child: rmdir refused" rmdir "$B/wpx/s"
	check_eq "setrichacl keeps the sticky bit (mode 1330 from the masks)" 1330 "$(mode_of "$B/sticky")"
	expect EPERM alice "sticky dir + delete_child: root's file refused (EPERM)" unlink "$B/sticky/f"
	expect EPERM alice "sticky dir + delete_child: root's subdir refused (EPERM)" rmdir "$B/sticky/s"
	expect OK alice "sticky dir + delete_child: own file deleted" unlink "$B/sticky/fa"
	expect OK alice "sticky dir: delete on the file overrides the sticky rule" unlink "$B/stickyD/f"
	expect DENIED alice "delete on the file needs execute on the dir" unlink "$B/rD/f"
	expect OK bob "group entry (staff) grants bob delete_child" unlink "$B/staff/f"
	expect OK carol "group entry (staff) grants carol delete_child (rmdir)" rmdir "$B/staff/s"
	expect OK alice "dir denies delete_child, file grants delete: unlink" unlink "$B/dchild_deny/f"
	expect OK root "root deletes regardless of the acl" unlink "$B/x/f"
}

# §3 item 3: rename and RENAME_EXCHANGE permission matrix (S-R1..S-R4).
# A rename needs the delete rights for the source (as unlink) and the create
# rights in the target directory for the type of the object moved; replacing
# an existing target also needs the delete rights for the target; an exchange
# needs both in both directories.  Moving a directory to another parent also
# needs write (add_file) on the directory itself (Linux, S-R4).
t_rename() {
	group_begin K-RENAME "§3.3 rename/RENAME_EXCHANGE matrix (S-R1..S-R4)"
	require_richacl || return
	local B=$R/rename
	fresh_dir "$B"
	local c
	mk() {	# case-name acl-of-A acl-of-B: dirs $B/$1/{A,B} with files A/f, B/g, dirs A/s, B/t
		mkdir -p "$B/$1/A/s" "$B/$1/B/t"
		echo f >"$B/$1/A/f"
		echo g >"$B/$1/B/g"
		[ -n "$2" ] && setacl "$2" "$B/$1/A"
		[ -n "$3" ] && setacl "$3" "$B/$1/B"
		return 0
	}
	# within one directory
	mk r1 'user:1001:wxd::allow' ''
	mk r2 'user:1001:xd::allow' ''
	mk r3 'user:1001:wx::allow' ''
	mk r4 'user:1001:wx::allow' ''
	setacl 'user:1001:D::allow' "$B/r4/A/f"
	mk r5 'user:1001:pxd::allow' ''
	mk r6 'user:1001:pxd::allow' ''
	mk r7 'user:1001:wxd::allow' ''
	expect OK alice "S-R1: same dir, add_file+delete_child: rename file" rename "$B/r1/A/f" "$B/r1/A/f2"
	expect DENIED alice "S-R1: same dir without add_file: rename refused" rename "$B/r2/A/f" "$B/r2/A/f2"
	check_eq "S-R1: refused rename moved nothing" "f" "$(cat "$B/r2/A/f" 2>&1)"
	expect DENIED alice "S-R1: same dir without delete rights: rename refused" rename "$B/r3/A/f" "$B/r3/A/f2"
	expect OK alice "S-R1: same dir, add_file + delete on the file: rename" rename "$B/r4/A/f" "$B/r4/A/f2"
	expect DENIED alice "S-R1: a file needs add_file, add_subdirectory is not enough" \
		rename "$B/r5/A/f" "$B/r5/A/f2"
	expect OK alice "S-R1: same dir, directory with add_subdirectory+delete_child" \
		rename "$B/r6/A/s" "$B/r6/A/s2"
	expect DENIED alice "S-R1: a directory needs add_subdirectory, add_file is not enough" \
		rename "$B/r7/A/s" "$B/r7/A/s2"

	# across directories
	mk x1 'user:1001:xd::allow' 'user:1001:wx::allow'
	mk x2 'user:1001:xd::allow' 'user:1001:px::allow'
	mk x3 'user:1001:xd::allow' 'user:1001:px::allow'
	mk x4 'user:1001:xd::allow' 'user:1001:px::allow'
	setacl 'user:1001:w::allow' "$B/x4/A/s"
	mk x5 'user:1001:xd::allow' 'user:1001:wx::allow'
	setacl 'user:1001:w::allow' "$B/x5/A/s"
	mk x6 'user:1001:x::allow' 'user:1001:wpx::allow'
	expect OK alice "S-R2: file to another dir with add_file there" rename "$B/x1/A/f" "$B/x1/B/f"
	check_eq "S-R2: the file arrived" f "$(cat "$B/x1/B/f" 2>&1)"
	expect DENIED alice "S-R2: file to a dir granting only add_subdirectory" rename "$B/x2/A/f" "$B/x2/B/f"
	expect DENIED alice "S-R4: directory to another parent without write on the directory itself" \
		rename "$B/x3/A/s" "$B/x3/B/s"
	expect OK alice "S-R2/S-R4: directory to a dir with add_subdirectory, write on the directory" \
		rename "$B/x4/A/s" "$B/x4/B/s"
	expect DENIED alice "S-R2: directory to a dir granting only add_file" rename "$B/x5/A/s" "$B/x5/B/s"
	expect DENIED alice "S-R2: no delete rights in the source dir" rename "$B/x6/A/f" "$B/x6/B/f"

	# over an existing target (S-R3)
	mk t1 'user:1001:xd::allow' 'user:1001:wx::allow'
	mk t2 'user:1001:xd::allow' 'user:1001:wxd::allow'
	mk t3 'user:1001:xd::allow' 'user:1001:wx::allow'
	setacl 'user:1001:D::allow' "$B/t3/B/g"
	mk t4 'user:1001:xd::allow' 'user:1001:xd::allow'
	expect DENIED alice "S-R3: replacing a target without delete rights for it" rename "$B/t1/A/f" "$B/t1/B/g"
	check_eq "S-R3: refused replace leaves both files intact" "f g" \
		"$(cat "$B/t1/A/f" 2>&1) $(cat "$B/t1/B/g" 2>&1)"
	expect OK alice "S-R3: replace with add_file+delete_child on the target dir" rename "$B/t2/A/f" "$B/t2/B/g"
	check_eq "S-R3: the target now has the source's content" f "$(cat "$B/t2/B/g" 2>&1)"
	expect OK alice "S-R3: replace with add_file on the dir and delete on the target" \
		rename "$B/t3/A/f" "$B/t3/B/g"
	expect DENIED alice "S-R3: replace needs add_file on the target dir too" rename "$B/t4/A/f" "$B/t4/B/g"
	mk t5 'user:1001:wxd::allow' ''
	expect EEXIST alice "RENAME_NOREPLACE onto an existing name" noreplace "$B/t5/A/f" "$B/t5/A/s"
	expect OK alice "RENAME_NOREPLACE to a new name" noreplace "$B/t5/A/f" "$B/t5/A/f3"

	# RENAME_EXCHANGE
	mk e1 'user:1001:wxd::allow' 'user:1001:wxd::allow'
	mk e2 'user:1001:xd::allow' 'user:1001:wxd::allow'
	mk e3 'user:1001:wxd::allow' 'user:1001:wx::allow'
	mk e4 'user:1001:wx::allow' 'user:1001:wx::allow'
	setacl 'user:1001:D::allow' "$B/e4/A/f" "$B/e4/B/g"
	mk e5 'user:1001:pxd::allow' 'user:1001:wxd::allow'
	setacl 'user:1001:w::allow' "$B/e5/B/t"
	mk e6 'user:1001:wxd::allow' 'user:1001:wxd::allow'
	setacl 'user:1001:w::allow' "$B/e6/B/t"
	mk e7 'user:1001:wxd::allow' ''
	echo h >"$B/e7/A/h"
	mk e8 'user:1001:xd::allow' ''
	echo h >"$B/e8/A/h"
	expect OK alice "exchange across dirs with add_file+delete_child in both" \
		exchange "$B/e1/A/f" "$B/e1/B/g"
	check_eq "exchange swapped the contents" "g f" "$(cat "$B/e1/A/f") $(cat "$B/e1/B/g")"
	expect DENIED alice "exchange: source dir lacks add_file" exchange "$B/e2/A/f" "$B/e2/B/g"
	check_eq "refused exchange leaves both files intact" "f g" "$(cat "$B/e2/A/f") $(cat "$B/e2/B/g")"
	expect DENIED alice "exchange: target dir lacks delete rights for the target" \
		exchange "$B/e3/A/f" "$B/e3/B/g"
	expect OK alice "exchange with add_file on both dirs and delete on both files" \
		exchange "$B/e4/A/f" "$B/e4/B/g"
	expect OK alice "exchange file<->directory: add_subdirectory where the dir arrives" \
		exchange "$B/e5/A/f" "$B/e5/B/t"
	expect DENIED alice "exchange file<->directory: add_file is not enough where the dir arrives" \
		exchange "$B/e6/A/f" "$B/e6/B/t"
	expect OK alice "exchange within one dir with add_file+delete_child" exchange "$B/e7/A/f" "$B/e7/A/h"
	expect DENIED alice "exchange within one dir without add_file" exchange "$B/e8/A/f" "$B/e8/A/h"

	# sticky directory and group entries
	mk k1 '' ''
	chmod 1777 "$B/k1/A"
	setacl 'user:1001:wxd::allow' "$B/k1/A"
	mk k2 '' ''
	chmod 1777 "$B/k2/A"
	setacl 'user:1001:wxd::allow' "$B/k2/A"
	setacl 'user:1001:D::allow' "$B/k2/A/f"
	mk k3 'group:2000:wxd::allow' ''
	expect EPERM alice "sticky dir: renaming root's file refused" rename "$B/k1/A/f" "$B/k1/A/f2"
	expect OK alice "sticky dir: delete on the file allows the rename" rename "$B/k2/A/f" "$B/k2/A/f2"
	expect OK bob "group entry (staff) grants the rename" rename "$B/k3/A/f" "$B/k3/A/f2"
	expect DENIED alice "group entry does not grant alice" rename "$B/k3/A/s" "$B/k3/A/s2"
	unset -f mk
}
