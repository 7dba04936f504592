#!/bin/bash
# Install every host package the project needs (Debian 12). Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

PKGS_BUILD="build-essential gcc clang llvm libclang-rt-14-dev python3 pkg-config libcmocka-dev libattr1-dev attr acl valgrind"
PKGS_KERNEL="linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio xz-utils rsync kmod"
PKGS_GUEST="qemu-system-x86 e2fsprogs samba smbclient samba-testsuite python3-samba python3-impacket \
	samba-vfs-modules busybox-static libsmbclient-dev winbind"
PKGS_SAMBA_SRC="dpkg-dev libparse-yapp-perl libkeyutils-dev python3-dev libgnutls28-dev libpopt-dev \
	libjansson-dev libacl1-dev libtdb-dev libtevent-dev libldb-dev libtasn1-bin libtasn1-6-dev \
	liblmdb-dev zlib1g-dev libicu-dev libbsd-dev libcap-dev libarchive-dev libdbus-1-dev \
	libncurses-dev libreadline-dev libtalloc-dev python3-ldb-dev python3-talloc-dev libcups2-dev \
	perl docbook-xsl xsltproc"
# e2fsprogs with richacl (testenv/e2fsprogs-build.sh): Debian's build
# dependencies of e2fsprogs without fuse2fs, udev and cron, which only serve
# packages that build does not make (udev and cron would be services)
PKGS_E2FS="debhelper dh-exec texinfo libblkid-dev uuid-dev m4 gettext"
# packaging/build-debs.sh (lintian checks the packages it builds)
PKGS_DEB="git man-db groff-base lintian"
# The NFS stage: knfsd's user-space side, the client's mount helper and
# nfs4_getfacl/nfs4_setfacl.  They run in the guest only (the guest's root is
# the host's, read-only); the policy-rc.d below keeps the host's rpcbind,
# nfs-server and friends from starting.
PKGS_NFS="nfs-kernel-server nfs-common nfs4-acl-tools"

src=/etc/apt/sources.list.d/project-deb-src.sources
if [ ! -f "$src" ]; then
	sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src"
	stamp_update=1
fi

want=""
for p in $PKGS_BUILD $PKGS_KERNEL $PKGS_GUEST $PKGS_SAMBA_SRC $PKGS_E2FS $PKGS_DEB $PKGS_NFS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || want="$want $p"
done
if [ -n "$want" ] || [ -n "${stamp_update:-}" ]; then
	apt-get update -qq
fi
if [ -n "$want" ]; then
	echo "installing:$want"
	# The samba and nfs packages would start smbd/nmbd, rpcbind and the nfs
	# server on the host.  The project
	# runs its own smbd in the guest and never touches the host's services,
	# so a temporary policy-rc.d (the Debian mechanism, invoke-rc.d(8))
	# keeps the packages from starting anything; an existing policy is left
	# as it is.  Services that were running before stay running.
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\n# richacl testenv: no service starts during install-deps\nexit 101\n' > "$policy"
		chmod 0755 "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get install -y -qq --no-install-recommends $want >/dev/null
fi
echo "host dependencies ready"
