#!/bin/bash
# Check that every prefix of the series applies and builds.
#
#   kernel-patches/check-series.sh [--full] [--resume N] [WORKDIR]
#
# Extracts a pristine /usr/src/linux-source-6.1.tar.xz into WORKDIR (default
# /var/cache/richacl/kernel/check-series), builds it once with the guest
# configuration, then applies the patches listed in kernel-patches/series one
# at a time with `patch -p1` and after each one:
#   - re-runs `KCONFIG_ALLCONFIG=kernel-patches/guest.config make allnoconfig`
#     (options added by the series only exist from the patch that adds them),
#   - runs an incremental build: `make -j2 fs/ mm/` (every .c file the series
#     changes is under fs/ or mm/; its header changes are additive) and, after the
#     last patch, `make -j2 bzImage`.  With --full, `make -j2 bzImage` after
#     every patch (slow: the include/linux/fs.h patches rebuild most of the
#     tree, about 7 minutes each on 2 idle cores),
#   - while fs/richacl.c exists but nothing selects CONFIG_FS_RICHACL yet (the
#     core patches come before the ext4 patch that selects it), compiles the
#     richacl objects with -DCONFIG_FS_RICHACL=1 so that the core is compile
#     checked patch by patch too,
#   - counts compiler warnings in the files the patch touches,
#   - runs scripts/checkpatch.pl --strict on the patch.
# Prints one line per patch and a summary; the full logs are in WORKDIR/logs.
# --resume N continues an interrupted run in WORKDIR: patches 1..N-1 are taken
# as applied and checked; patch N is applied unless it already is, and built.
# Exits non-zero if any patch fails to apply or build.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
full=0
resume=0
while [ $# -gt 0 ]; do
	case $1 in
	--full) full=1; shift ;;
	--resume) resume=${2:?--resume needs a patch number}; shift 2 ;;
	*) break ;;
	esac
done
work=${1:-/var/cache/richacl/kernel/check-series}
jobs=${RICHACL_KERNEL_JOBS:-2}
fragment=$here/guest.config
logs=$work/logs

die() {
	echo "check-series: $*" >&2
	exit 2
}

patches=()
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	[ -r "$here/$p" ] || die "patch '$p' listed in series not found"
	patches+=("$p")
done < "$here/series"
[ ${#patches[@]} -gt 0 ] || die "empty series"

if [ "$resume" = 0 ]; then
	rm -rf "$work"
	mkdir -p "$logs"
	tar -C "$work" -xf "$tarball" || die "cannot extract $tarball"
fi
src=$(echo "$work"/linux-source-*)
cd "$src" || die "no source tree in $work"

applied() {	# patch: is it applied already?
	patch -p1 -R --dry-run --batch -s -f < "$here/$1" > /dev/null 2>&1
}

configure() {
	KCONFIG_ALLCONFIG=$fragment make allnoconfig
}

build() {	# [last]
	if [ $full = 1 ] || [ "${1:-}" = last ]; then
		make -j"$jobs" bzImage
	else
		make -j"$jobs" fs/ mm/
	fi
}

# The richacl core objects, compiled on their own while no file system selects
# CONFIG_FS_RICHACL.
core_compile() {
	local objs=() f
	for f in fs/richacl.c fs/richacl_xattr.c; do
		[ -e "$f" ] && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -gt 0 ] || return 0
	grep -qx 'CONFIG_FS_RICHACL=y' .config && return 0
	make KCPPFLAGS=-DCONFIG_FS_RICHACL=1 "${objs[@]}" &&
		rm -f "${objs[@]}"
}

if [ "$resume" = 0 ]; then
	echo "check-series: baseline build of the pristine tree (logs in $logs)"
	if ! { configure && build; } > "$logs/00-base.log" 2>&1; then
		echo "check-series: the pristine tree does not build, see $logs/00-base.log"
		exit 1
	fi
fi

failed=0
n=0
printf '%-4s %-62s %-6s %-6s %-8s %s\n' "#" "patch" "apply" "build" "warnings" "checkpatch"
for p in "${patches[@]}"; do
	n=$((n + 1))
	log=$logs/$(printf '%02d' "$n")-build.log
	start=$(date +%s)
	apply=ok
	buildres=ok
	warnings=-
	if [ "$n" -lt "$resume" ]; then
		printf '%-4s %-62s (applied and checked in an earlier run)\n' \
			"$n" "${p:0:62}"
		continue
	fi
	if [ "$n" -eq "$resume" ] && applied "$p"; then
		: > "$log"	# applied before the interruption: build it
	elif ! patch -p1 --forward --batch --no-backup-if-mismatch -s \
	     < "$here/$p" > "$log" 2>&1; then
		apply=FAIL
		buildres=-
		failed=1
	fi
	if [ "$apply" = ok ] &&
	   ! { configure && build "$([ $n -eq ${#patches[@]} ] && echo last)" &&
	       core_compile; } >> "$log" 2>&1; then
		buildres=FAIL
		failed=1
	fi
	if [ "$apply" = ok ]; then
		# Warnings in the files this patch touches.
		files=$(sed -n 's|^+++ b/||p' "$here/$p" | sort -u)
		warnings=0
		for f in $files; do
			c=$(grep -c "^$f:[0-9]*:[0-9]*: warning:" "$log")
			warnings=$((warnings + c))
		done
	fi
	cp_out=$(scripts/checkpatch.pl --strict --no-signoff -q "$here/$p" 2>&1 |
		 grep -E '^total:' || true)
	[ -n "$cp_out" ] || cp_out="total: 0 errors, 0 warnings, 0 checks"
	printf '%-4s %-62s %-6s %-6s %-8s %s (%ss)\n' "$n" "${p:0:62}" "$apply" \
		"$buildres" "$warnings" "$cp_out" "$(( $(date +%s) - start ))"
	[ "$apply" = ok ] || break
done

if [ $failed -eq 0 ]; then
	echo "check-series: all $n patches apply and build"
else
	echo "check-series: FAILED (see $logs)"
fi
exit $failed
