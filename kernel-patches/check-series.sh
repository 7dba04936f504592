#!/bin/bash
# Check the series patch by patch: it applies, the code it touches compiles
# with and without the richacl options, and checkpatch is clean.
#
#   kernel-patches/check-series.sh [--bzimage] [--from N] [WORKDIR]
#
# Extracts a pristine /usr/src/linux-source-6.1.tar.xz into WORKDIR (default
# /var/cache/richacl/kernel/check-series) and applies the patches listed in
# kernel-patches/series one at a time with `patch -p1`.  After each patch:
#   - `KCONFIG_ALLCONFIG=kernel-patches/guest.config make allnoconfig`
#     (options added by the series only exist from the patch that adds them);
#   - "config" pass: compiles every .c file that this patch or an earlier
#     one touches and that the configuration builds at this point (an object
#     whose Makefile line names a CONFIG_ option that is not set is skipped:
#     fs/richacl.o before ext4 selects CONFIG_FS_RICHACL, for example);
#   - "forced" pass: compiles every .c file that this patch or an earlier one
#     touches with KCPPFLAGS="-DCONFIG_FS_RICHACL=1 -DCONFIG_EXT4_FS_RICHACL=1",
#     so that the richacl code paths of every prefix are compiled even while
#     no file system selects them yet (this is what catches a helper used
#     before the patch that defines it);
#   - counts compiler warnings and errors in both passes;
#   - runs scripts/checkpatch.pl --strict on the patch.
# With --from N, patches 1 to N-1 are only applied (their line says so), and
# the checks start at patch N, with every .c file touched by patches 1..N
# (to check patches added to a series whose earlier prefixes were checked).
# With --bzimage, `make -j2 bzImage` after the last patch as well (about
# 8 minutes on 2 cores; testenv/kernel-build.sh builds the same tree).
# Prints one line per patch and a summary; the full logs are in WORKDIR/logs.
# Exits non-zero if any patch fails to apply or to compile.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
bzimage=0
from=1
while [ $# -gt 0 ]; do
	case $1 in
	--bzimage) bzimage=1; shift ;;
	--from) from=${2:?}; shift 2 ;;
	-*) echo "usage: $0 [--bzimage] [--from N] [WORKDIR]" >&2; exit 2 ;;
	*) break ;;
	esac
done
work=${1:-/var/cache/richacl/kernel/check-series}
jobs=${RICHACL_KERNEL_JOBS:-2}
fragment=$here/guest.config
logs=$work/logs
forced='-DCONFIG_FS_RICHACL=1 -DCONFIG_EXT4_FS_RICHACL=1'

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
command -v python3 >/dev/null || die "python3 is needed by checkpatch.pl"

started=$(date +%s)
rm -rf "$work"
mkdir -p "$logs"
tar -C "$work" -xf "$tarball" || die "cannot extract $tarball"
src=$(echo "$work"/linux-source-*)
cd "$src" || die "no source tree in $work"

# gate OBJ: the CONFIG_ option on the line of dir/Makefile that names OBJ
# (dir/name.o), "-" if that line names none, nothing if no line names it.
gate() {
	local obj=$1 dir base line opt
	dir=$(dirname "$obj")
	base=$(basename "$obj")
	line=$(grep -E "(^|[[:space:]=])$base([[:space:]\\\\]|$)" "$dir/Makefile" | head -n1)
	[ -n "$line" ] || return 0
	opt=$(sed -nE 's/.*\$\((CONFIG_[A-Z0-9_]+)\).*/\1/p' <<<"$line")
	echo "${opt:--}"
}

# enabled OBJ: does the current .config build OBJ?  mm/nommu.c is built only
# without CONFIG_MMU (an ifdef in mm/Makefile), which x86 always has.
enabled() {
	local g
	[ "$1" = mm/nommu.o ] && return 1
	g=$(gate "$1")
	[ "$g" = - ] || { [ -n "$g" ] && grep -qE "^$g=(y|m)$" .config; }
}

# forceable OBJ: built once the forced options are on
forceable() {
	enabled "$1" && return 0
	case $(gate "$1") in
	CONFIG_FS_RICHACL|CONFIG_EXT4_FS_RICHACL) return 0 ;;
	esac
	return 1
}

# warnings LOG: compiler warnings and errors in LOG
warnings() {
	grep -cE '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' "$1"
}

touched=()	# every .c file touched so far
failed=0
n=0
printf '%-3s %-58s %-5s %-15s %-15s %s\n' "#" "patch" "apply" \
	"config:objs/wrn" "forced:objs/wrn" "checkpatch --strict"
for p in "${patches[@]}"; do
	n=$((n + 1))
	log=$logs/$(printf '%02d' "$n")
	start=$(date +%s)
	if ! patch -p1 --forward --batch --no-backup-if-mismatch -s \
	     < "$here/$p" > "$log-apply.log" 2>&1; then
		printf '%-3s %-58s %-5s\n' "$n" "${p:0:58}" FAIL
		failed=1
		break
	fi
	for f in $(sed -n 's|^+++ b/||p' "$here/$p" | grep '\.c$'); do
		[[ " ${touched[*]} " == *" $f "* ]] || touched+=("$f")
	done
	if [ "$n" -lt "$from" ]; then
		printf '%-3s %-58s %-5s %s\n' "$n" "${p:0:58}" ok "(applied only: --from $from)"
		continue
	fi
	KCONFIG_ALLCONFIG=$fragment make allnoconfig > "$log-config.log" 2>&1 ||
		{ echo "check-series: allnoconfig failed after $p" >&2; failed=1; break; }

	cobjs=() fobjs=()
	for f in "${touched[@]}"; do
		[ -e "$f" ] || continue		# deleted by a later patch
		forceable "${f%.c}.o" && fobjs+=("${f%.c}.o")
		enabled "${f%.c}.o" && cobjs+=("${f%.c}.o")
	done
	cres=ok fres=ok
	if [ ${#cobjs[@]} -gt 0 ]; then
		make -j"$jobs" "${cobjs[@]}" > "$log-build-config.log" 2>&1 || cres=FAIL
	else
		: > "$log-build-config.log"
	fi
	if [ ${#fobjs[@]} -gt 0 ]; then
		make -j"$jobs" KCPPFLAGS="$forced" "${fobjs[@]}" \
			> "$log-build-forced.log" 2>&1 || fres=FAIL
	else
		: > "$log-build-forced.log"
	fi
	[ $cres = ok ] && [ $fres = ok ] || failed=1
	cw=$(warnings "$log-build-config.log")
	fw=$(warnings "$log-build-forced.log")
	[ "$cw" = 0 ] && [ "$fw" = 0 ] || failed=1

	cp_out=$(PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --no-signoff \
		 "$here/$p" 2>&1 | tee "$log-checkpatch.log" | grep -E '^total:' || true)
	[ -n "$cp_out" ] || cp_out="checkpatch printed no total (see $log-checkpatch.log)"
	printf '%-3s %-58s %-5s %-15s %-15s %s (%ss)\n' "$n" "${p:0:58}" ok \
		"$cres ${#cobjs[@]}/$cw" "$fres ${#fobjs[@]}/$fw" "${cp_out#total: }" \
		"$(( $(date +%s) - start ))"
done

if [ $failed = 0 ] && [ $bzimage = 1 ]; then
	if make -j"$jobs" bzImage > "$logs/bzImage.log" 2>&1; then
		echo "bzImage after patch $n: ok, $(warnings "$logs/bzImage.log") warnings"
		[ "$(warnings "$logs/bzImage.log")" = 0 ] || failed=1
	else
		echo "bzImage after patch $n: FAIL (see $logs/bzImage.log)"
		failed=1
	fi
fi

echo "check-series: $n of ${#patches[@]} patches applied; objects compiled per patch as listed" \
	"(${#touched[@]} .c files touched by the series); $(( $(date +%s) - started ))s"
if [ $failed -eq 0 ]; then
	echo "check-series: all ${#patches[@]} patches apply and compile without warnings"
else
	echo "check-series: FAILED (see $logs)"
fi
exit $failed
