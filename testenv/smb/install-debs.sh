#!/bin/bash
# Install the project's Debian packages in the QEMU guest (runs as root there;
# guest-tests.sh and guest-demo.sh call it).  The guest's root is a tmpfs
# overlay over the host's root, so the host's dpkg database and files stay
# untouched.
#
#   install-debs.sh DEB...
#
# Installs with dpkg -i (--no-triggers: man-db's index is of no use in a
# throw-away guest and slow under TCG), then checks that samba-vfs-richacl put
# richacl.so where smbd loads modules by name, that richacl-tools put
# getrichacl and setrichacl in /usr/bin, and that richacl-migrate put
# richacl-migrate-ntacl in /usr/sbin and its helper richacl-ntsd2xattr in
# /usr/lib/richacl, if those packages were given.  richacl-migrate depends on
# python3-samba, which the guest has from the host's root (install-deps.sh
# installs it); without it dpkg -i leaves the package unconfigured and this
# script fails.
# Prints "installed PACKAGE VERSION" per package.
set -euo pipefail
VFSDIR=/usr/lib/x86_64-linux-gnu/samba/vfs

die() { echo "install-debs.sh: $*" >&2; exit 1; }
[ $# -gt 0 ] || die "usage: $0 DEB..."
names=()
for deb in "$@"; do
	[ -r "$deb" ] || die "$deb not found"
	names+=("$(dpkg-deb -f "$deb" Package)")
done
dpkg -i --no-triggers "$@" >&2 || die "dpkg -i failed"
for n in "${names[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$n" 2>/dev/null) || die "$n is not known to dpkg"
	[ "$st" = "install ok installed" ] || die "$n: $st"
	case "$n" in
	samba-vfs-richacl)
		dpkg-query -L "$n" | grep -qx "$VFSDIR/richacl.so" ||
			die "$n does not ship $VFSDIR/richacl.so"
		[ -r "$VFSDIR/richacl.so" ] || die "$VFSDIR/richacl.so missing after the install"
		;;
	richacl-tools)
		for t in getrichacl setrichacl; do
			[ -x "/usr/bin/$t" ] || die "/usr/bin/$t missing after the install"
		done
		;;
	richacl-migrate)
		for t in /usr/sbin/richacl-migrate-ntacl /usr/lib/richacl/richacl-ntsd2xattr; do
			[ -x "$t" ] || die "$t missing after the install"
		done
		;;
	esac
	echo "installed $n $(dpkg-query -W -f='${Version}' "$n")"
done
