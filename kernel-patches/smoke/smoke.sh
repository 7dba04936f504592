#!/bin/bash
# Smoke test of the richacl kernel, run as root inside the QEMU guest:
#   cp images from `testenv/mkimage.sh DIR`, then
#   testenv/guest-run.sh --disk richacl.img --disk plain.img -- \
#       bash kernel-patches/smoke/smoke.sh /dev/vda /dev/vdb
# RICHDEV is an ext4 file system with the richacl feature, PLAINDEV one
# without.  Each check prints PASS/FAIL; the last lines are the totals and a
# dmesg scan.  It covers the kernel semantics of SEMANTICS.md section 3 and M9
# (unmapped identifiers) at smoke-test depth; the full suites are in testenv/.
# The idmapped-mount checks need user namespaces, which cannot be created in
# a chroot: init-idm.sh runs them as the guest's init instead.
set -u
here=$(cd "$(dirname "$0")" && pwd)
A="python3 $here/mkacl.py"
R=/tmp/smoke-rich
P=/tmp/smoke-plain
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect RC DESC CMD...  (RC: 0 = success, 1 = failure of any kind)
expect() {
	local want=$1 desc=$2; shift 2
	"$@" >/tmp/smoke.out 2>&1
	local rc=$?
	if { [ "$want" = 0 ] && [ $rc -eq 0 ]; } || { [ "$want" != 0 ] && [ $rc -ne 0 ]; }; then
		ok "$desc"
	else
		ko "$desc (rc=$rc: $(head -c 300 /tmp/smoke.out))"
	fi
}
as() {	# as UID cmd...
	local u=$1; shift
	setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"
}
setacl() {	# file args-for-mkacl
	local f=$1; shift
	setfattr -n system.richacl -v "$($A "$@")" "$f"
}
getacl_hex() { getfattr --absolute-names -e hex -n system.richacl "$1" 2>/dev/null | sed -n 's/^system.richacl=//p'; }

mkdir -p $R $P
mount -t ext4 "$1" $R || { echo "FAIL: mount richacl fs"; exit 1; }
mount -t ext4 "$2" $P || { echo "FAIL: mount plain fs"; exit 1; }
grep -E "$R|$P" /proc/mounts

# --- basic set/get, M9 unmapped ids stored
touch $R/f; chmod 600 $R/f; echo data > $R/f
V=$($A 0 7 1 0 0:0:1:1000 0:0x4000:7:0)
expect 0 "setfattr system.richacl" setfattr -n system.richacl -v "$V" $R/f
[ "$(getacl_hex $R/f)" = "$V" ] && ok "getfattr returns the stored value" || ko "getfattr value: $(getacl_hex $R/f) != $V"
[ "$(stat -c %a $R/f)" = 640 ] && ok "mode follows masks (640)" || ko "mode $(stat -c %a $R/f)"
expect 0 "user 1000 granted read by acl" as 1000 cat $R/f
expect 1 "user 1000 not granted write" as 1000 sh -c "echo x > $R/f"
expect 1 "user 1001 not granted read" as 1001 cat $R/f
# owner narrower than the mode: owner@ only r although mode says rw
touch $R/own; chown 1000:1000 $R/own; chmod 600 $R/own
setacl $R/own 0 7 0 0 0:0x4000:1:0
expect 0 "owner read via owner@" as 1000 cat $R/own
expect 1 "owner denied write by acl despite mode" as 1000 sh -c "echo x > $R/own"

# --- chmod rewrites masks
chmod 600 $R/f
expect 1 "after chmod 600, user 1000 lost read (masks)" as 1000 cat $R/f
getacl_hex $R/f | grep -q '^0x00c0' && ok "chmod set MASKED|WRITE_THROUGH" || ko "flags after chmod: $(getacl_hex $R/f)"

# --- write vs append
touch $R/ap; chmod 666 $R/ap
setacl $R/ap 0 0x7 0x4 0x4 0:0:4:1000 0:0x4000:7:0
expect 0 "append with append_data" as 1000 sh -c "echo a >> $R/ap"
expect 1 "overwrite without write_data" as 1000 sh -c "echo a > $R/ap"

# --- create file vs dir
mkdir $R/d; chmod 755 $R/d
setacl $R/d 0 0x67 0x22 0x20 0:0:0x22:1000 0:0x4000:0x67:0 0:0x4000:0x20:2
expect 0 "create file with add_file" as 1000 touch $R/d/x
expect 1 "mkdir without add_subdirectory" as 1000 mkdir $R/d/y
expect 0 "O_TMPFILE with add_file" as 1000 python3 -c "import os; os.open('$R/d', os.O_TMPFILE | os.O_WRONLY, 0o600)"

# --- delete_child and delete
mkdir $R/dd; chmod 755 $R/dd; touch $R/dd/a $R/dd/b
setacl $R/dd 0 0x67 0x60 0x20 0:0:0x60:1000 0:0x4000:0x67:0 0:0x4000:0x20:2
expect 0 "unlink with delete_child on dir" as 1000 rm -f $R/dd/a
mkdir $R/ds; chmod 755 $R/ds; touch $R/ds/c $R/ds/e
setacl $R/ds/c 0 0x10007 0x10000 0 0:0:0x10000:1000 0:0x4000:7:0
expect 0 "unlink with delete on the file" as 1000 rm -f $R/ds/c
expect 1 "unlink without delete or delete_child" as 1000 rm -f $R/ds/e
mkdir $R/st; chmod 1777 $R/st; touch $R/st/g
expect 1 "sticky dir: non-owner cannot delete" as 1000 rm -f $R/st/g
setacl $R/st/g 0 0x10007 0x10000 0 0:0:0x10000:1000 0:0x4000:7:0
expect 0 "sticky dir: delete permission overrides" as 1000 rm -f $R/st/g

# --- rename exchange needs create permission on both sides
expect 1 "rename without delete_child or delete fails" as 1000 mv $R/d/x $R/d/x3
mkdir $R/rn; chmod 777 $R/rn; touch $R/rn/p $R/rn/q
expect 0 "rename over existing file with mode bits (POSIX semantics kept)" as 1000 mv $R/rn/p $R/rn/q

# --- RENAME_EXCHANGE needs create permission for what lands on each side
mkdir $R/xa $R/xb; touch $R/xa/f $R/xa/g $R/xb/f; mkdir $R/xa/s $R/xb/s
setacl $R/xa 0 0x67 0x62 0x20 0:0:0x62:1000 0:0x4000:0x67:0 0:0x4000:0x20:2
setacl $R/xb 0 0x67 0x66 0x20 0:0:0x66:1000 0:0x4000:0x67:0 0:0x4000:0x20:2
expect 0 "exchange two files with add_file+delete_child" as 1000 python3 $here/xchg.py $R/xa/f $R/xa/g
expect 1 "exchange file<->dir without add_subdirectory" as 1000 python3 $here/xchg.py $R/xa/f $R/xa/s
expect 0 "exchange file<->dir with add_subdirectory" as 1000 python3 $here/xchg.py $R/xb/f $R/xb/s

# --- write_owner, write_acl, write_attributes
touch $R/o; chmod 644 $R/o
setacl $R/o 0 0xc0107 0xc0101 0x1 0:0:0xc0101:1000 0:0x4000:7:0 0:0x4000:1:2
expect 0 "take ownership to oneself" as 1000 chown 1000 $R/o
touch $R/o2; setacl $R/o2 0 0xc0107 0xc0101 0x1 0:0:0xc0101:1000 0:0x4000:7:0
expect 1 "give ownership away refused" as 1000 chown 1001 $R/o2
expect 0 "set times with write_attributes" as 1000 touch -d 2001-01-01 $R/o2
expect 0 "chmod with write_acl" as 1000 chmod 640 $R/o2
touch $R/o3
expect 1 "set times without write_attributes" as 1000 touch -d 2001-01-01 $R/o3
expect 1 "chmod without write_acl" as 1000 chmod 600 $R/o3

# --- mode-equivalent acl removes the xattr
touch $R/eq; setacl $R/eq 0 0x7 0x1 0x1 0:0x4000:0x47:0 0:0x4000:1:1 0:0x4000:1:2
expect 1 "mode-equivalent acl is not stored" getfattr -n system.richacl $R/eq
[ "$(stat -c %a $R/eq)" = 644 ] && ok "mode-equivalent acl sets mode 644" || ko "mode $(stat -c %a $R/eq)"

# --- M9: unmapped identifiers are stored and match nobody
touch $R/um; chmod 644 $R/um
V=$($A 0 7 7 0 0:0x2000:7:S-1-5-21-1-2-3-1001 0:0x4000:7:0)
expect 0 "unmapped identifier stored" setfattr -n system.richacl -v "$V" $R/um
[ "$(getacl_hex $R/um)" = "$V" ] && ok "unmapped identifier read back" || ko "unmapped: $(getacl_hex $R/um)"
expect 1 "unmapped identifier matches nobody" as 1000 cat $R/um

# --- invalid values
touch $R/inv; chmod 644 $R/inv
expect 1 "version 1 rejected" setfattr -n system.richacl -v "$($A --version 1 0 7 0 0 0:0x4000:7:0)" $R/inv
expect 1 "bad special id rejected" setfattr -n system.richacl -v "$($A 0 7 0 0 0:0x4000:7:5)" $R/inv
expect 1 "truncated value rejected" setfattr -n system.richacl -v 0x00000100 $R/inv
[ "$(stat -c %a $R/inv)" = 644 ] && ok "invalid values changed nothing" || ko "mode changed: $(stat -c %a $R/inv)"
setfattr -n system.richacl -v 0x0000 $R/inv 2>&1 | grep -q "Invalid argument" && ok "EINVAL for garbage" || ko "no EINVAL"

# --- inheritance
mkdir $R/inh; setacl $R/inh 0 0x67 0x27 0x1 0:3:0x27:1000 0:0x4000:0x67:0
umask 077
touch $R/inh/new; mkdir $R/inh/sub
getacl_hex $R/inh/new >/dev/null && [ -n "$(getacl_hex $R/inh/new)" ] && ok "file inherited an acl" || ko "no inherited acl"
expect 0 "inherited entry grants write to 1000" as 1000 sh -c "echo x > $R/inh/new"
echo "inherited: $(getacl_hex $R/inh/new) mode $(stat -c %a $R/inh/new); subdir: $(getacl_hex $R/inh/sub) mode $(stat -c %a $R/inh/sub)"
umask 022

# --- RCU walk vs ref walk: lookups through a dir whose acl grants search
mkdir $R/rw; chmod 700 $R/rw; echo z > $R/rw/file; chmod 644 $R/rw/file
setacl $R/rw 0 0x67 0x20 0 0:0:0x20:1000 0:0x4000:0x67:0
sync; echo 3 > /proc/sys/vm/drop_caches
expect 0 "lookup after drop_caches (uncached acl, ref walk)" as 1000 cat $R/rw/file
expect 0 "lookup again (cached acl, RCU walk)" as 1000 cat $R/rw/file
expect 1 "search denied for user 1001" as 1001 cat $R/rw/file

# --- plain fs keeps POSIX ACLs
touch $P/f; chmod 600 $P/f
expect 0 "setfacl on plain ext4" setfacl -m u:1000:r $P/f
expect 0 "POSIX ACL grants read" as 1000 cat $P/f
expect 1 "system.richacl not supported on plain ext4" setfattr -n system.richacl -v "$($A 0 7 0 0 0:0x4000:7:0)" $P/f
umask 077; mkdir $P/dd; setfacl -d -m u:1000:rw $P/dd; touch $P/dd/n
getfacl -np $P/dd/n 2>/dev/null | grep -q "user:1000:rw" && ok "POSIX default ACL inherited (umask ignored)" || ko "POSIX default ACL"
umask 022
expect 1 "posix acl xattr refused on richacl fs" setfacl -m u:1000:r $R/f

# --- idmapped mount: the permission check maps ids; system.richacl is refused
mkdir -p $R/idm /tmp/smoke-idm; echo secret > $R/idm/f; chmod 600 $R/idm/f
setacl $R/idm/f 0 7 1 0 0:0:1:1000 0:0x4000:7:0
if ! unshare -U true 2>/dev/null; then
	echo "SKIP: idmapped mount checks (no user namespaces here, e.g. in a chroot; see init-idm.sh)"
elif python3 $here/idmount.py $R/idm /tmp/smoke-idm 0 10000 2000; then
	stat -c 'idmapped owner %u' /tmp/smoke-idm/f
	expect 0 "idmapped: on-disk user 1000 entry matches vfsuid 11000" as 11000 cat /tmp/smoke-idm/f
	expect 1 "idmapped: uid 1000 no longer matches" as 1000 cat /tmp/smoke-idm/f
	expect 1 "idmapped: getxattr system.richacl refused" getfattr -n system.richacl /tmp/smoke-idm/f
	getfattr -n system.richacl /tmp/smoke-idm/f 2>&1 | grep -q "Operation not supported" && ok "idmapped: EOPNOTSUPP" || ko "idmapped: errno $(getfattr -n system.richacl /tmp/smoke-idm/f 2>&1)"
	expect 1 "idmapped: setxattr system.richacl refused" setfattr -n system.richacl -v "$($A 0 7 0 0 0:0x4000:7:0)" /tmp/smoke-idm/f
	[ "$(getacl_hex $R/idm/f)" = "$($A 0 7 1 0 0:0:1:1000 0:0x4000:7:0)" ] && ok "idmapped: acl unchanged" || ko "idmapped: acl changed"
	umount /tmp/smoke-idm
else
	ko "could not create an idmapped mount"
fi

# --- remount keeps richacl semantics
mount -o remount,ro $R && mount -o remount,rw $R
expect 1 "after remount: richacl still enforced (user 1000 cannot write)" as 1000 sh -c "echo x > $R/f"
expect 0 "after remount: system.richacl still supported" getfattr -n system.richacl $R/ap

sync
umount $R $P
echo "SMOKE: $pass passed, $fail failed"
dmesg | grep -E "BUG|WARNING|Oops|RIP:|richacl" && echo "DMESG: suspicious lines above" || echo "DMESG: clean"
[ $fail -eq 0 ]
