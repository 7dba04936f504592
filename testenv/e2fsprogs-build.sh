#!/bin/bash
# Build Debian's e2fsprogs with the richacl patches (e2fsprogs-patches/) as
# Debian packages, cached outside the repository.
#
#   testenv/e2fsprogs-build.sh          -> prints the cache directory DIR
#
# DIR/debs/   the .deb files, version <Debian version>+richacl1
# DIR/root/   e2fsprogs and its libraries unpacked (dpkg-deb -x)
# DIR/bin/    mke2fs, mkfs.ext4, tune2fs, e2fsck, dumpe2fs, debugfs: wrappers
#             that run the unpacked programs with the unpacked libraries
#
# The host's own e2fsprogs is not replaced: the test environment runs the
# wrappers (on the host for images, in the guest for fsck), and an
# administrator installs DIR/debs/*.deb (see docs/admin-guide.md).
#
# How:
#  1. apt-get source e2fsprogs=<the installed version> (deb-src entries come
#     from testenv/install-deps.sh).
#  2. The patches of e2fsprogs-patches/series are applied with patch -p1,
#     and a debian/changelog entry gives the local version suffix.
#  3. dpkg-buildpackage -b with the profiles that leave out fuse2fs, the
#     static e2fsck and the installer udebs, and -d: Debian's build
#     dependencies on udev, systemd and cron only provide the directories for
#     e2scrub's units and cron job, which are given to configure instead, so
#     that no service package is installed on the host.  The upstream test
#     suite is not run here (nocheck); e2fsprogs-patches/README.md records its
#     result for the series.
#  4. The key of DIR hashes this script, the patches and the Debian version,
#     so a change to any of them builds again; older builds are removed.
# Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CACHE=${RICHACL_CACHE:-/var/cache/richacl}
patches=$repo/e2fsprogs-patches
SUFFIX=+richacl1

log() { echo "e2fsprogs-build: $*" >&2; }
die() { log "error: $*"; exit 1; }

ver=$(dpkg-query -W -f='${Version}' e2fsprogs)
[ -f "$patches/series" ] || die "$patches/series missing"
mapfile -t series < <(grep -v '^\s*\(#\|$\)' "$patches/series")
key=$( (cat "$0"; echo "$ver"; for p in "${series[@]}"; do echo "$p"; cat "$patches/$p"; done) |
	sha256sum | cut -c1-16)
dir=$CACHE/e2fsprogs/$key

if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "${dir%/*}"
exec 9>"${dir%/*}/.lock"
flock 9
if [ -f "$dir/done" ]; then	# another run built it meanwhile
	echo "$dir"
	exit 0
fi

log "building e2fsprogs $ver$SUFFIX in $dir (a few minutes)"
rm -rf "$dir"
mkdir -p "$dir/src"
(cd "$dir/src" && apt-get source -qq "e2fsprogs=$ver" >/dev/null 2>&1) ||
	die "apt-get source e2fsprogs=$ver failed (deb-src entries: testenv/install-deps.sh)"
src=$(find "$dir/src" -maxdepth 1 -mindepth 1 -type d -name 'e2fsprogs-*' | head -n1)
[ -n "$src" ] || die "no source tree after apt-get source"

for p in "${series[@]}"; do
	patch -d "$src" -p1 --quiet --no-backup-if-mismatch <"$patches/$p" ||
		die "patch $p does not apply to e2fsprogs $ver"
done

# The changelog entry's date is that of the last change to the patches, so
# that the same inputs give the same packages.
when=$(git -C "$repo" log -1 --format=%cD -- e2fsprogs-patches 2>/dev/null || true)
[ -n "$when" ] || when=$(date -R -d @0)
{
	echo "e2fsprogs ($ver$SUFFIX) UNRELEASED; urgency=medium"
	echo
	echo "  * Add the richacl feature: mke2fs and tune2fs -O richacl, e2fsck"
	echo "    checks system.richacl values (richacl project, e2fsprogs-patches/)."
	echo
	echo " -- richacl project <richacl@localhost>  $when"
	echo
	cat "$src/debian/changelog"
} >"$src/debian/changelog.new"
mv "$src/debian/changelog.new" "$src/debian/changelog"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
(
	cd "$src"
	export DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-2}"
	export DEB_BUILD_PROFILES="pkg.e2fsprogs.no-fuse2fs pkg.e2fsprogs.no-static noudeb"
	export EXTRA_CONF_FLAGS="--with-udev-rules-dir=/lib/udev/rules.d --with-crond-dir=/etc/cron.d --with-systemd-unit-dir=/lib/systemd/system"
	dpkg-buildpackage -b -uc -us -d >"$dir/build.log" 2>&1
) || { tail -n 30 "$dir/build.log" >&2; die "dpkg-buildpackage failed (log: $dir/build.log)"; }

mkdir -p "$dir/debs" "$dir/root" "$dir/bin"
mv "$dir/src"/*.deb "$dir/debs/"
for pkg in e2fsprogs libext2fs2 libcom-err2 libss2; do
	deb=$(ls "$dir/debs/${pkg}_"*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || die "no $pkg package was built"
	dpkg-deb -x "$deb" "$dir/root"
done
libdirs=""
for d in "$dir/root/lib/$multiarch" "$dir/root/usr/lib/$multiarch"; do
	[ -d "$d" ] && libdirs="$libdirs${libdirs:+:}$d"
done
for prog in mke2fs mkfs.ext4 tune2fs e2fsck dumpe2fs debugfs; do
	[ -x "$dir/root/sbin/$prog" ] || die "$prog missing from the e2fsprogs package"
	printf '#!/bin/sh\n# e2fsprogs %s from %s\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
		"$ver$SUFFIX" "$dir/debs" "$libdirs" "$dir/root/sbin/$prog" >"$dir/bin/$prog"
	chmod 0755 "$dir/bin/$prog"
done
# the wrappers run the patched programs with the patched library
probe=$dir/probe.img
rm -f "$probe"
truncate -s 16M "$probe"
"$dir/bin/mkfs.ext4" -q -F -O richacl "$probe" >/dev/null 2>&1 ||
	die "the unpacked mkfs.ext4 refuses -O richacl"
features=$("$dir/bin/dumpe2fs" -h "$probe" 2>/dev/null | grep '^Filesystem features:' || true)
[[ " $features " == *" richacl "* ]] || die "the unpacked dumpe2fs does not name richacl: $features"
"$dir/bin/e2fsck" -fn "$probe" >/dev/null 2>&1 || die "the unpacked e2fsck refuses a new richacl file system"
rm -f "$probe"
rm -rf "$dir/src"
touch "$dir/done"
# builds of older inputs are of no further use
find "${dir%/*}" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
log "built: $(cd "$dir/debs" && echo *.deb)"
echo "$dir"
