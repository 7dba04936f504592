#!/bin/bash
# Guest init (no chroot: user namespaces cannot be created in a chroot) that
# checks richacls on an idmapped mount, then reboots.  Boot with
#   qemu-system-x86_64 -nodefaults -display none -no-reboot -accel tcg -m 1024 \
#     -kernel bzImage -serial stdio \
#     -fsdev local,id=root,path=/,security_model=none,readonly=on \
#     -device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
#     -drive file=richacl.img,format=raw,if=virtio \
#     -append "console=ttyS0 root=/dev/root rootfstype=9p \
#       rootflags=trans=virtio,version=9p2000.L ro init=$PWD/init-idm.sh panic=-1"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
here=$(cd "$(dirname "$0")" && pwd)
A="python3 $here/mkacl.py"
R=/tmp/r; I=/tmp/idm
mkdir -p $R $I
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups -- "$@"; }
mount -t ext4 /dev/vda $R || ko "mount"
mkdir -p $R/idm; echo secret > $R/idm/f; chmod 600 $R/idm/f
V=$($A 0 7 1 0 0:0:1:1000 0:0x4000:7:0)
setfattr -n system.richacl -v "$V" $R/idm/f || ko "setfattr on the plain mount"
if python3 $here/idmount.py $R/idm $I 0 10000 2000; then
	[ "$(stat -c %u $I/f)" = 10000 ] && ok "idmapped: owner 0 shown as 10000" || ko "owner $(stat -c %u $I/f)"
	as 11000 cat $I/f >/dev/null 2>&1 && ok "idmapped: user entry 1000 matches vfsuid 11000" || ko "11000 denied"
	as 1000 cat $I/f >/dev/null 2>&1 && ko "idmapped: 1000 granted" || ok "idmapped: uid 1000 does not match"
	as 10000 sh -c "cat $I/f >/dev/null" && ok "idmapped: owner@ matches vfsuid 10000" || ko "owner denied"
	e=$(getfattr -n system.richacl $I/f 2>&1)
	echo "$e" | grep -q "Operation not supported" && ok "idmapped: getxattr EOPNOTSUPP" || ko "getxattr: $e"
	e=$(setfattr -n system.richacl -v "$($A 0 7 0 0 0:0x4000:7:0)" $I/f 2>&1)
	echo "$e" | grep -q "Operation not supported" && ok "idmapped: setxattr EOPNOTSUPP" || ko "setxattr: $e"
	e=$(setfattr -x system.richacl $I/f 2>&1)
	echo "$e" | grep -q "Operation not supported" && ok "idmapped: removexattr EOPNOTSUPP" || ko "removexattr: $e"
	[ "$(getfattr -e hex -n system.richacl $R/idm/f 2>/dev/null | sed -n 's/^system.richacl=//p')" = "$V" ] && ok "idmapped: acl unchanged" || ko "acl changed"
	umount $I
else
	ko "idmapped mount"
fi
umount $R
echo "IDMAP: $pass passed, $fail failed"
dmesg | grep -E "BUG|WARNING|Oops" || echo "DMESG: clean"
sync
echo b > /proc/sysrq-trigger 2>/dev/null
reboot -f
