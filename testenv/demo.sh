#!/bin/bash
# The demo (README): build everything, boot the QEMU guest with the richacl
# kernel and serve a richacl share on //127.0.0.1:4450/richacl until Ctrl-C.
#
#   bash testenv/demo.sh
#
# Steps: testenv/install-deps.sh; the kernel ($RICHACL_KERNEL, else
# testenv/kernel-build.sh, else /var/cache/richacl/kernel/current/bzImage);
# the tools (testenv/build.sh) and the Debian packages of the module and the
# tools (packaging/build-debs.sh), which the guest installs and serves from;
# fresh disk images (testenv/mkimage.sh); then testenv/guest-run.sh with the
# host's 127.0.0.1:4450 forwarded to the guest's port 445 (and 127.0.0.1:445
# too when nothing on the host uses it, so that smbcacls works directly).
# The guest (testenv/smb/guest-demo.sh) prints how to connect.  Files live
# in $RICHACL_DEMO_DIR (default /tmp/richacl-demo) and are made anew each run.
# RICHACL_DEMO_NO_INSTALL=1 skips install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
demo=${RICHACL_DEMO_DIR:-/tmp/richacl-demo}
port=4450

say() { echo "demo: $*" >&2; }
die() { say "$*"; exit 1; }
port_in_use() {	# port: is 127.0.0.1:port taken on the host?
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and boots QEMU)"
port_in_use "$port" && die "127.0.0.1:$port is already in use (another demo running?)"

if [ "${RICHACL_DEMO_NO_INSTALL:-0}" != 1 ]; then
	say "installing dependencies"
	bash testenv/install-deps.sh >&2
fi

if [ -n "${RICHACL_KERNEL:-}" ]; then
	kernel=$RICHACL_KERNEL
elif [ -f testenv/kernel-build.sh ]; then
	say "building the kernel (cached when nothing changed; about 8 minutes otherwise)"
	kernel=$(bash testenv/kernel-build.sh)
else
	kernel=/var/cache/richacl/kernel/current/bzImage
fi
[ -r "$kernel" ] || die "no kernel at $kernel"

say "building the library and tools"
bash testenv/build.sh >&2
say "building the Debian packages samba-vfs-richacl, richacl-tools and richacl-migrate"
mapfile -t debs < <(bash packaging/build-debs.sh)
[ ${#debs[@]} -eq 3 ] || die "packaging/build-debs.sh did not produce three packages"

rm -rf "$demo"
mkdir -p "$demo/guest"
mapfile -t imgs < <(bash testenv/mkimage.sh "$demo/images")
[ ${#imgs[@]} -eq 2 ] || die "testenv/mkimage.sh failed"

fwd=(--hostfwd "$port:445")
port445=0
if ! port_in_use 445; then
	fwd+=(--hostfwd 445:445)
	port445=1
fi
say "booting the guest (kernel $kernel); stop with Ctrl-C"
exec bash testenv/guest-run.sh --kernel "$kernel" --disk "${imgs[0]}" --disk "${imgs[1]}" \
	--results "$demo/guest" --timeout 0 --mem 1536 "${fwd[@]}" \
	--env DEMO_PORT="$port" --env DEMO_PORT445="$port445" -- \
	bash "$repo/testenv/smb/guest-demo.sh" --deb "${debs[0]}" --deb "${debs[1]}" --deb "${debs[2]}"
