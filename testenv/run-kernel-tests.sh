#!/bin/bash
# Run the in-guest kernel suite (testenv/tests/kernel/) against the richacl
# kernel in QEMU and print "N passed, N failed"; the exit status is non-zero
# if any check failed or the guest did not finish.
#
#   testenv/run-kernel-tests.sh [--kernel BZIMAGE] [--keep] [GROUP...]
#
#   --kernel BZIMAGE  boot this kernel instead of the one testenv/kernel-build.sh
#                     builds or locates
#   --keep            keep the run directory (images, console log, output)
#   GROUP...          run only these groups of the suite (see tests/kernel/run.sh)
#
# The kernel comes from testenv/kernel-build.sh (which builds or finds the
# cached bzImage of kernel-patches/ and prints its path); until the series
# exists, from /var/cache/richacl/kernel/current/bzImage.
# Fresh disk images come from testenv/mkimage.sh; the kt syscall helper is
# compiled into /var/cache/richacl/testenv/bin/ (keyed by its source hash).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CACHE=/var/cache/richacl/testenv

kernel=""
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) echo "run-kernel-tests: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

die() {
	echo "run-kernel-tests: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

if [ -z "$kernel" ]; then
	if [ -f testenv/kernel-build.sh ] && [ -f kernel-patches/series ]; then
		kernel=$(bash testenv/kernel-build.sh | tail -n1) ||
			die "testenv/kernel-build.sh failed"
	else
		echo "# no kernel-patches/series yet: using the development kernel" >&2
		kernel=/var/cache/richacl/kernel/current/bzImage
	fi
fi
[ -r "$kernel" ] || die "no kernel at '$kernel'"
echo "# kernel: $(readlink -f "$kernel")"

if [ ! -x build/getrichacl ] || [ ! -x build/setrichacl ]; then
	bash testenv/build.sh >&2 || echo "run-kernel-tests: warning: the tools did not build" >&2
fi

src=testenv/tests/kernel/kt.c
kt=$CACHE/bin/kt-$(sha256sum "$src" | cut -c1-16)
if [ ! -x "$kt" ]; then
	mkdir -p "$CACHE/bin"
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$kt.tmp" "$src" || die "cannot compile $src"
	mv "$kt.tmp" "$kt"
fi

mkdir -p "$CACHE/runs"
run=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S).XXXX")
out=$(bash testenv/mkimage.sh --ea-inode "$run") ||
	die "testenv/mkimage.sh $run failed (exit $?)"
mapfile -t imgs <<<"$out"
[ ${#imgs[@]} -eq 3 ] || die "testenv/mkimage.sh printed '$out', not three image paths"
damaged=$(bash testenv/mkdamaged.sh "$run") || die "testenv/mkdamaged.sh $run failed"
e2fs=$(bash testenv/e2fsprogs-build.sh)/bin

start=$SECONDS
bash testenv/guest-run.sh --kernel "$kernel" --disk "${imgs[0]}" --disk "${imgs[1]}" \
	--disk "${imgs[2]}" --disk "$damaged" \
	--results "$run/results" --timeout "${RICHACL_KERNEL_TEST_TIMEOUT:-1800}" -- \
	"$repo/testenv/tests/kernel/run.sh" --kt "$kt" --tools "$repo/build" \
	--rich /dev/vda --plain /dev/vdb --rich-ea /dev/vdc --damaged /dev/vdd --e2fs "$e2fs" \
	"$@" 2>&1 | tee "$run/output.txt" |
	grep -Ev '^[0-9]+ passed, [0-9]+ failed$'
rc=${PIPESTATUS[0]}

summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$run/output.txt" | tail -n1)
if [ -z "$summary" ]; then
	p=$(grep -c '^ok ' "$run/output.txt")
	f=$(grep -c '^FAIL ' "$run/output.txt")
	echo "run-kernel-tests: the suite did not finish (guest-run exit $rc); see $run" >&2
	keep=1
	summary="$p passed, $((f + 1)) failed"
	[ "$rc" -eq 0 ] && rc=1
fi
echo "# wall time including boot: $((SECONDS - start)) s; run directory: $run"
[ "$rc" -ne 0 ] && keep=1
if [ "$keep" = 1 ]; then
	rm -f "$run"/*.img
else
	rm -rf "$run"
fi
# keep the last 10 run directories
ls -1dt "$CACHE"/runs/*/ 2>/dev/null | tail -n +11 | xargs -r rm -rf
echo "$summary"
exit "$rc"
