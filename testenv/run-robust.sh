#!/bin/bash
# Robustness tests of the richacl kernel and vfs_richacl in the QEMU guest:
# differential testing against the library's permission model, hostile
# xattr values and security descriptors, crash consistency under random
# QEMU kills, SMB load, and smbd under valgrind (testenv/robust/).
#
#   testenv/run-robust.sh [--short] [--kernel BZIMAGE] [--module SO] [--seed N]
#                         [--only LIST] [--kills N] [--smb-cases N] [--keep]
#
#   --short           the bounded version that CI runs (about 9 minutes of
#                     guest time): 20,000 differential cases, 3,000 blobs,
#                     1,000 SMB differential cases on each identity setup, one round of hostile
#                     descriptors (~120), a 20 s load run, 5 kills and a
#                     small valgrind run (6 rounds).  Default: the long
#                     versions (120,000 cases, 50,000 blobs, 10,000 SMB cases,
#                     5 rounds of descriptors, 120 s load, 50 kills,
#                     40 valgrind rounds).
#   --kernel BZIMAGE  kernel to boot (default: what testenv/kernel-build.sh
#                     prints, else /var/cache/richacl/kernel/current/bzImage)
#   --module SO       vfs_richacl module (default: what vfs_richacl/build.sh prints)
#   --seed N          seed of every random generator (default: from the clock;
#                     printed, so a run can be replayed)
#   --only LIST       comma separated subset of: main,crash,valgrind
#                     (main = differential + blobs + SMB parts)
#   --kills N         number of QEMU kills in the crash part
#   --smb-cases N     number of SMB differential cases (smbdiff.py)
#   --keep            keep the run directory (images, logs) even on success
#
# Prints one line per part with its counts and time, the findings of failed
# parts, and a final "N passed, N failed"; exits non-zero if anything failed.
# The programs are compiled with gcc into /var/cache/richacl/testenv/robust-bin/
# (keyed by a hash of their sources and the library's), never into the repo.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CACHE=/var/cache/richacl/testenv

short=0 kernel="" module="" seed="" only="main,crash,valgrind" kills="" keep=0 smb_cases=""
while [ $# -gt 0 ]; do
	case "$1" in
	--short) short=1; shift ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--only) only=${2:?}; shift 2 ;;
	--kills) kills=${2:?}; shift 2 ;;
	--smb-cases) smb_cases=${2:?}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-robust: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
want() { [[ ",$only," == *",$1,"* ]]; }

if [ "$short" = 1 ]; then
	CASES=20000 BLOBS=3000 SMB_CASES=${smb_cases:-1000} LOAD_SECS=20 KILLS=${kills:-5} VG_OPS=6 HOSTILE=1
	# main: the parts below and two smbdiff runs of 1,000 cases, whose
	# notify cases wait for their events; 720 s leaves room for a busy
	# machine
	MAIN_TIMEOUT=720 VG_TIMEOUT=420
else
	CASES=120000 BLOBS=50000 SMB_CASES=${smb_cases:-10000} LOAD_SECS=120 KILLS=${kills:-50} VG_OPS=40 HOSTILE=5
	MAIN_TIMEOUT=7200 VG_TIMEOUT=1800
fi
seed=${seed:-$(( ($(date +%s%N) / 1000) % 4000000000 ))}

pass=0 fail=0
failures=()
die() {
	echo "run-robust: $*" >&2
	echo "$pass passed, $((fail + 1)) failed"
	exit 1
}
# count FILE: add the "N passed, N failed" line of a part's output
count() {	# name file
	local name=$1 f=$2 line p q
	line=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed' "$f" 2>/dev/null | tail -n 1)
	if [ -z "$line" ]; then
		fail=$((fail + 1))
		failures+=("$name: no result (see $f)")
		echo "  $name: NO RESULT"
		return
	fi
	p=$(sed -E 's/.*(^|: )([0-9]+) passed.*/\2/' <<<"$line")
	q=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	pass=$((pass + p))
	fail=$((fail + q))
	[ "$q" -gt 0 ] && failures+=("$name: $q failed (see $f)")
	echo "  $name: $p passed, $q failed"
}

# ---------------------------------------------------------------- inputs
if [ -z "$kernel" ]; then
	if [ -f testenv/kernel-build.sh ]; then
		kernel=$(bash testenv/kernel-build.sh 2>/dev/null | tail -n 1)
		[ -r "$kernel" ] || kernel=/var/cache/richacl/kernel/current/bzImage
	else
		kernel=/var/cache/richacl/kernel/current/bzImage
	fi
fi
[ -r "$kernel" ] || die "no kernel at '$kernel'"
kernel=$(readlink -f "$kernel")
cfg=$(dirname "$kernel")/.config
if [ -f "$cfg" ] && ! grep -q '^CONFIG_FS_RICHACL=y' "$cfg"; then
	echo "run-robust: warning: $kernel was built without CONFIG_FS_RICHACL" >&2
fi
if [ -z "$module" ]; then
	module=$(bash vfs_richacl/build.sh 2>/dev/null | tail -n 1)
	[ -r "$module" ] || { echo "run-robust: warning: no vfs_richacl module; SMB parts will fail" >&2; module=""; }
fi

# the programs: difftest, blobfuzz, crash (library sources compiled in)
srchash=$(cat testenv/robust/*.c testenv/robust/*.h mapping/src/*.c mapping/include/*.h |
	sha256sum | cut -c1-16)
bin=$CACHE/robust-bin/$srchash
if [ ! -x "$bin/crash" ]; then
	mkdir -p "$bin.tmp"
	for p in difftest blobfuzz crash; do
		gcc -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Werror -Imapping/include \
			-Itestenv/robust -o "$bin.tmp/$p" "testenv/robust/$p.c" mapping/src/*.c ||
			die "cannot compile testenv/robust/$p.c"
	done
	rm -rf "$bin"
	mv "$bin.tmp" "$bin"
fi

mkdir -p "$CACHE/runs"
run=$(mktemp -d "$CACHE/runs/robust-$(date +%Y%m%d-%H%M%S).XXXX")
echo "run-robust: seed $seed, $([ $short = 1 ] && echo short || echo long) run, kernel $kernel"
echo "run-robust: module ${module:-none}, run directory $run"
t_all=$SECONDS
guest_secs=0
GUEST=(bash testenv/guest-run.sh --kernel "$kernel" --quiet)

# guest time of one guest-run (from its uptime files)
guest_time() {	# results dir
	local d=$1/.guest
	[ -f "$d/uptime-end" ] && echo "$(cat "$d/uptime-end")" && return
	echo 0
}

# ------------------------------------------------------------- main part
if want main; then
	echo "== main: differential ($CASES cases), blobs ($BLOBS), SMB differential ($SMB_CASES), hostile SDs, load (${LOAD_SECS}s)"
	mapfile -t imgs < <(bash testenv/mkimage.sh "$run/main") || die "mkimage failed"
	t=$SECONDS
	"${GUEST[@]}" --disk "${imgs[0]}" --results "$run/main/results" --mem 2048 \
		--timeout "$MAIN_TIMEOUT" -- bash "$repo/testenv/robust/guest.sh" main \
		--bin "$bin" --out /results/out --dev /dev/vda ${module:+--module "$module"} \
		--cases "$CASES" --blobs "$BLOBS" --smb-cases "$SMB_CASES" \
		--load-secs "$LOAD_SECS" --hostile-rounds "$HOSTILE" --seed "$seed" \
		>"$run/main/guest.log" 2>&1
	rc=$?
	g=$(guest_time "$run/main/results")
	guest_secs=$(echo "$guest_secs + $g" | bc)
	echo "  guest-run exit $rc, wall $((SECONDS - t)) s, guest $g s"
	o=$run/main/results/out
	[ "$rc" -eq 0 ] || { fail=$((fail + 1)); failures+=("main: guest-run exit $rc (see $run/main)"); }
	[ -f "$o/mount.txt" ] && count mount "$o/mount.txt"
	for p in diff blobs smbdiff smbdiff-winbind hostile load smbd-alive smb dmesg; do
		[ -f "$o/$p.txt" ] && count "$p" "$o/$p.txt"
	done
	for p in diff blobs smbdiff smbdiff-winbind dmesg; do
		if [ ! -f "$o/$p.txt" ]; then
			fail=$((fail + 1))
			failures+=("main: part $p did not run (see $run/main)")
		fi
	done
	grep -h -E '^(difftest|blobfuzz|smbdiff|hostile|load):' "$o"/*.txt 2>/dev/null |
		grep -v -E 'passed, [0-9]+ failed|per operation' | sed 's/^/    /'
	[ -f "$o/times" ] && sed 's/^/    time: /' "$o/times"
	rm -f "$run/main"/*.img
fi

# ------------------------------------------------------------ crash part
if want crash; then
	echo "== crash: $KILLS random QEMU kills while acls are being written"
	mkdir -p "$run/crash"
	mapfile -t imgs < <(bash testenv/mkimage.sh "$run/crash") || die "mkimage failed"
	img=${imgs[0]}
	e2fs=$(bash testenv/e2fsprogs-build.sh)/bin || die "testenv/e2fsprogs-build.sh failed"
	log=$run/crash/acl-log
	: >"$log"
	: >"$log-smb"
	t=$SECONDS
	kills_done=0 cycle_fail=0 checked_files=0 newer_total=0 writes=0
	RANDOM=$((seed % 32768))
	for i in $(seq 0 "$KILLS"); do
		res=$run/crash/boot-$i
		mkdir -p "$res"
		# the acl log lives on the host: link it into this boot's results
		ln -f "$log" "$res/acl-log" 2>/dev/null || cp "$log" "$res/acl-log"
		ln -f "$log-smb" "$res/acl-log-smb" 2>/dev/null || cp "$log-smb" "$res/acl-log-smb"
		"${GUEST[@]}" --disk "$img" --results "$res" --timeout 400 -- \
			bash "$repo/testenv/robust/guest.sh" crash --bin "$bin" --out /results/out \
			--dev /dev/vda --log /results/acl-log --seed "$((seed + i))" --e2fs "$e2fs" \
			${module:+--module "$module"} \
			>"$res/guest.log" 2>&1 &
		gpid=$!
		# wait until the writer runs (or the guest is gone)
		for _ in $(seq 1 600); do
			[ -f "$res/out/writing" ] && break
			kill -0 "$gpid" 2>/dev/null || break
			sleep 0.2
		done
		if [ "$i" -lt "$KILLS" ]; then
			# kill at a random moment 0.2 - 6 s into the write loop
			sleep "$(printf '%d.%d' $((RANDOM % 6)) $((RANDOM % 10)))"
			for q in $(pgrep -P "$gpid"); do
				if [ "$(cat /proc/"$q"/comm 2>/dev/null)" = qemu-system-x86 ]; then
					kill -KILL "$q" && kills_done=$((kills_done + 1))
				fi
			done
		else
			# the last boot only checks: stop it once the check is written
			for q in $(pgrep -P "$gpid"); do
				[ "$(cat /proc/"$q"/comm 2>/dev/null)" = qemu-system-x86 ] && kill -KILL "$q"
			done
		fi
		wait "$gpid" 2>/dev/null
		# a hard link keeps one log; with the copy fallback, take it back
		[ "$res/acl-log" -ef "$log" ] || cp "$res/acl-log" "$log"
		[ "$res/acl-log-smb" -ef "$log-smb" ] || cp "$res/acl-log-smb" "$log-smb"
		o=$res/out
		if [ "$i" -gt 0 ]; then
			ok=1
			grep -q '1 passed, 0 failed' "$o/fsck.txt" 2>/dev/null || ok=0
			grep -q ' 0 failed' "$o/crash-check.txt" 2>/dev/null || ok=0
			if [ -n "$module" ]; then
				grep -q ' 0 failed' "$o/crash-check-smb.txt" 2>/dev/null || ok=0
			fi
			grep -q '1 passed, 0 failed' "$o/dmesg.txt" 2>/dev/null || ok=0
			if [ "$ok" = 0 ]; then
				cycle_fail=$((cycle_fail + 1))
				failures+=("crash boot $i: see $o (fsck.txt, crash-check.txt, dmesg.txt)")
				grep -h FAIL "$o"/crash-check.txt "$o"/fsck.txt 2>/dev/null | head -n 5 | sed 's/^/    /'
			fi
			for c in "$o/crash-check.txt" "$o/crash-check-smb.txt"; do
				n=$(sed -nE 's/^crash-check: ([0-9]+) passed.*/\1/p' "$c" 2>/dev/null)
				checked_files=$((checked_files + ${n:-0}))
				nn=$(sed -nE 's/.*, ([0-9]+) the acl being written.*/\1/p' "$c" 2>/dev/null)
				newer_total=$((newer_total + ${nn:-0}))
			done
		fi
	done
	writes=$(grep -c '^D ' "$log")
	smb_writes=$(grep -c '^D ' "$log-smb")
	if [ -n "$module" ] && [ "$smb_writes" -eq 0 ]; then
		fail=$((fail + 1))
		failures+=("crash: no DACL was written through smbd (see $run/crash/boot-0/out/crash-smb.txt)")
	fi
	pass=$((pass + KILLS - cycle_fail))
	fail=$((fail + cycle_fail))
	[ "$kills_done" -lt "$KILLS" ] && { fail=$((fail + 1)); failures+=("crash: only $kills_done of $KILLS kills happened"); }
	echo "  crash: $kills_done kills, $((KILLS - cycle_fail)) recoveries clean (fsck, old-or-new acl for every file, dmesg), $cycle_fail not"
	echo "    $writes local and $smb_writes SMB acl writes completed; $checked_files file checks; $newer_total files held the acl being written at the kill"
	echo "    wall $((SECONDS - t)) s (all of it guest time: boots, checks, write loops)"
	guest_secs=$(echo "$guest_secs + $((SECONDS - t))" | bc)
	rm -f "$run/crash"/*.img
fi

# --------------------------------------------------------- valgrind part
if want valgrind; then
	echo "== valgrind: smbd + vfs_richacl under memcheck ($VG_OPS SMB operations)"
	mapfile -t imgs < <(bash testenv/mkimage.sh "$run/vg") || die "mkimage failed"
	t=$SECONDS
	"${GUEST[@]}" --disk "${imgs[0]}" --results "$run/vg/results" --mem 3072 \
		--timeout "$VG_TIMEOUT" -- bash "$repo/testenv/robust/guest.sh" valgrind \
		--bin "$bin" --out /results/out --dev /dev/vda ${module:+--module "$module"} \
		--ops "$VG_OPS" >"$run/vg/guest.log" 2>&1
	rc=$?
	g=$(guest_time "$run/vg/results")
	guest_secs=$(echo "$guest_secs + $g" | bc)
	echo "  guest-run exit $rc, wall $((SECONDS - t)) s, guest $g s"
	o=$run/vg/results/out
	[ "$rc" -eq 0 ] || { fail=$((fail + 1)); failures+=("valgrind: guest-run exit $rc (see $run/vg)"); }
	count vgload "$o/vgload.txt"
	count valgrind "$o/valgrind.txt"
	grep -h '^valgrind:' "$o/valgrind.txt" 2>/dev/null | grep -v 'passed, ' | sed 's/^/    /'
	rm -f "$run/vg"/*.img
fi

echo "run-robust: wall $((SECONDS - t_all)) s, guest time about $guest_secs s; run directory $run"
if [ ${#failures[@]} -gt 0 ]; then
	echo "run-robust: FAILURES:"
	printf '  %s\n' "${failures[@]}"
	keep=1
fi
[ "$keep" = 1 ] || rm -rf "$run"
ls -1dt "$CACHE"/runs/robust-*/ 2>/dev/null | tail -n +6 | xargs -r rm -rf
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
