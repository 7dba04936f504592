#!/bin/bash
# Install every host package the project needs (Debian 12). Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

PKGS_BUILD="build-essential gcc clang llvm libclang-rt-14-dev python3 pkg-config libcmocka-dev libattr1-dev attr acl valgrind"
PKGS_KERNEL="linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio xz-utils rsync kmod"
PKGS_GUEST="qemu-system-x86 e2fsprogs samba smbclient samba-testsuite python3-samba python3-impacket \
	samba-vfs-modules busybox-static libsmbclient-dev"
PKGS_SAMBA_SRC="dpkg-dev libparse-yapp-perl libkeyutils-dev python3-dev libgnutls28-dev libpopt-dev \
	libjansson-dev libacl1-dev libtdb-dev libtevent-dev libldb-dev libtasn1-bin libtasn1-6-dev \
	liblmdb-dev zlib1g-dev libicu-dev libbsd-dev libcap-dev libarchive-dev libdbus-1-dev \
	libncurses-dev libreadline-dev libtalloc-dev python3-ldb-dev python3-talloc-dev libcups2-dev \
	perl docbook-xsl xsltproc"

src=/etc/apt/sources.list.d/project-deb-src.sources
if [ ! -f "$src" ]; then
	sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src"
	stamp_update=1
fi

want=""
for p in $PKGS_BUILD $PKGS_KERNEL $PKGS_GUEST $PKGS_SAMBA_SRC; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || want="$want $p"
done
if [ -n "$want" ] || [ -n "${stamp_update:-}" ]; then
	apt-get update -qq
fi
if [ -n "$want" ]; then
	echo "installing:$want"
	apt-get install -y -qq --no-install-recommends $want >/dev/null
fi
# smbd must not run on the host: the project starts its own instances.
systemctl disable --now smbd nmbd samba-ad-dc >/dev/null 2>&1 || true
pkill -x smbd >/dev/null 2>&1 || true
pkill -x nmbd >/dev/null 2>&1 || true
echo "host dependencies ready"
