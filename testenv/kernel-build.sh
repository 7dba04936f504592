#!/bin/bash
# Build the guest kernel: Debian's linux-source-6.1 with the richacl series.
#
#   testenv/kernel-build.sh
#
# Prints the path of the built bzImage on stdout, and nothing else.  Progress
# and the build output go to a log file (path on stderr).
#
# The result is cached in /var/cache/richacl/kernel/builds/<key>/, where <key>
# is the sha256 of the inputs: kernel-patches/series, every patch it lists (in
# order), kernel-patches/guest.config, this script, and the source tarball's
# name and size.  When nothing changed, the cached bzImage is printed at once.
# A clean build takes about 8 minutes on 2 cores (extract 15 s, bzImage 7 min).
#
# Steps: extract /usr/src/linux-source-6.1.tar.xz, apply the series with
# `patch -p1`, `KCONFIG_ALLCONFIG=kernel-patches/guest.config make allnoconfig`,
# check that CONFIG_FS_RICHACL and CONFIG_EXT4_FS_RICHACL are =y in .config,
# `make -j2 bzImage`.  Only one kernel build runs at a time (flock).
#
# Environment: RICHACL_KERNEL_CACHE (default /var/cache/richacl/kernel/builds),
# RICHACL_KERNEL_JOBS (default 2).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
patchdir=$repo/kernel-patches
fragment=$patchdir/guest.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${RICHACL_KERNEL_CACHE:-/var/cache/richacl/kernel/builds}
jobs=${RICHACL_KERNEL_JOBS:-2}
required_options="CONFIG_FS_RICHACL CONFIG_EXT4_FS_RICHACL"

die() {
	echo "kernel-build: $*" >&2
	exit 1
}

[ -r "$tarball" ] || die "$tarball not found (apt-get install linux-source-6.1)"
[ -r "$patchdir/series" ] || die "$patchdir/series not found"
[ -r "$fragment" ] || die "$fragment not found"

# The patches, in series order ('#' comments and blank lines ignored).
patches=()
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	[ -r "$patchdir/$p" ] || die "patch '$p' listed in series not found"
	patches+=("$patchdir/$p")
done < "$patchdir/series"

key=$( {
	cat "$patchdir/series"
	for p in "${patches[@]}"; do
		cat "$p"
	done
	cat "$fragment" "$0"
	stat -c '%n %s' "$tarball"
} | sha256sum | cut -c1-32)
out=$cache/$key

if [ -s "$out/bzImage" ]; then
	echo "$out/bzImage"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
# Another build may have finished while we waited for the lock.
if [ -s "$out/bzImage" ]; then
	echo "$out/bzImage"
	exit 0
fi

log=$cache/$key.log
echo "kernel-build: building $key (log: $log)" >&2
work=$cache/$key.tmp
rm -rf "$work"
mkdir -p "$work"

# errexit is ignored in a subshell whose status is tested, so run it plainly.
set +e
(
	set -euo pipefail
	start=$(date +%s)
	echo "== extract $tarball"
	tar -C "$work" -xf "$tarball"
	src=$(echo "$work"/linux-source-*)
	cd "$src"
	for p in "${patches[@]}"; do
		echo "== apply $(basename "$p")"
		patch -p1 --forward --batch --no-backup-if-mismatch -s < "$p"
	done
	echo "== allnoconfig with $fragment"
	KCONFIG_ALLCONFIG=$fragment make allnoconfig
	for opt in $required_options; do
		grep -qx "$opt=y" .config || {
			echo "ERROR: $opt=y did not survive into .config"
			exit 3
		}
	done
	# Report other fragment options that did not survive (not fatal).
	grep -E '^CONFIG_[A-Z0-9_]+=y$' "$fragment" | while read -r line; do
		grep -qx "$line" .config || echo "note: $line not in .config"
	done
	echo "== make -j$jobs bzImage"
	make -j"$jobs" bzImage
	mkdir -p "$work/result"
	cp arch/x86/boot/bzImage .config System.map "$work/result/"
	echo "== done in $(( $(date +%s) - start )) s"
) > "$log" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ]; then
	tail -n 30 "$log" >&2
	die "build failed (exit $rc); see $log"
fi

# Keep only the results; the tree is 1.5 GB.
rm -rf "$out"
mv "$work/result" "$out"
cp "$log" "$out/build.log"
rm -rf "$work"
echo "$out/bzImage"
