#!/bin/bash
# In-guest part of testenv/run-robust.sh (runs as root in the QEMU guest).
#
#   guest.sh main  --bin DIR --out DIR [--dev DEV] [--module SO] [--cases N] [--blobs N]
#                  [--smb-cases N] [--load-secs N] [--hostile-rounds N] [--seed N]
#                  [--skip LIST]
#   guest.sh crash --bin DIR --out DIR --log FILE --e2fs DIR [--dev DEV] [--module SO]
#                  [--seed N]
#   guest.sh valgrind --bin DIR --out DIR [--dev DEV] --module SO [--ops N]
#
# main: mounts DEV (the richacl ext4 image) on /mnt/rich and runs, in order,
#   diff      the kernel vs model differential test (difftest, --cases N)
#   blobs     hostile system.richacl values (blobfuzz, --blobs N)
#   smb       starts smbd with vfs_richacl (testenv/smb/server.sh), then
#     smbdiff   smbd's decision vs the kernel's (smbdiff.py, --smb-cases N)
#     hostile   hostile security descriptors over SMB2 SET_INFO (hostile_sd.py)
#     load      8 concurrent SMB clients for --load-secs seconds (load.py)
#   smbdiff-winbind  smbd again with winbindd allocating the ids (server.sh
#             --identity winbind), smbdiff.py --identity winbind, --smb-cases N
#   dmesg     no Oops / BUG / WARNING / general protection fault in dmesg
#   Each part writes DIR/<part>.txt ending in "N passed, N failed"; --skip
#   takes a comma separated list of parts to leave out.
# crash: one crash cycle: mount DEV (journal replay after the previous kill),
#   unmount, e2fsck -fn with the richacl feature on (--e2fs: the bin/ of
#   testenv/e2fsprogs-build.sh), mount, check every file against the acl log (crash check), then write
#   acls in a loop until the host kills QEMU: locally with setxattr (crash
#   write, log FILE) and, with --module, through smbd (crash_smb.py, log
#   FILE-smb, checked the same way).  DIR/crash-check.txt, crash-check-smb.txt,
#   fsck.txt and dmesg.txt hold the results; DIR/writing appears when the
#   local loop runs (after the SMB one).
# valgrind: smbd under valgrind memcheck with the module, a small SMB workload,
#   then the valgrind summary in DIR/valgrind.txt.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
PY=/usr/bin/python3
MNT=/mnt/rich
STATE=/run/richacl-robust-smb
STATE_WB=/run/richacl-robust-smb-winbind

sub=${1:-}
shift || true
bin="" out="" dev=/dev/vda module="" cases=2000 blobs=2000 smb_cases=100 load_secs=20
seed="" skip="" log="" ops=20 hostile_rounds=3 e2fs=""
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) bin=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--dev) dev=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--cases) cases=${2:?}; shift 2 ;;
	--blobs) blobs=${2:?}; shift 2 ;;
	--smb-cases) smb_cases=${2:?}; shift 2 ;;
	--load-secs) load_secs=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--skip) skip=${2:?}; shift 2 ;;
	--log) log=${2:?}; shift 2 ;;
	--ops) ops=${2:?}; shift 2 ;;
	--hostile-rounds) hostile_rounds=${2:?}; shift 2 ;;
	--e2fs) e2fs=${2:?}; shift 2 ;;
	*) echo "guest.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$bin" ] && [ -n "$out" ] || { echo "guest.sh: --bin and --out are required" >&2; exit 2; }
mkdir -p "$out"
[ -e /proc/self/fd ] || mount -t proc proc /proc
now() { cut -d' ' -f1 /proc/uptime; }
log() { echo "robust-guest: $*" >&2; }
seed=${seed:-$(( $(date +%s) ^ $$ ))}

skipped() { [[ ",$skip," == *",$1,"* ]]; }

# part NAME CMD...: run a part, its output to $out/NAME.txt, time to $out/times
part() {
	local name=$1 t rc
	shift
	if skipped "$name"; then
		echo "$name: skipped" >>"$out/times"
		return 0
	fi
	t=$(now)
	log "$name: start"
	"$@" >"$out/$name.txt" 2>&1
	rc=$?
	echo "$name $(echo "$(now) - $t" | bc) rc=$rc" >>"$out/times"
	log "$name: rc $rc ($(tail -n 1 "$out/$name.txt"))"
	return 0
}

mount_rich() {
	mkdir -p "$MNT"
	mountpoint -q "$MNT" && return 0
	if ! mount -t ext4 "$dev" "$MNT" 2>"$out/mount.err"; then
		log "mount of $dev failed: $(cat "$out/mount.err") $(dmesg | grep -i ext4 | tail -n 1)"
		return 1
	fi
}

check_dmesg() {
	local bad
	bad=$(dmesg | grep -E 'Oops|BUG[: ]|WARNING:|general protection|KASAN|UBSAN|Call Trace|RIP:' )
	dmesg >"$out/dmesg-full.txt"
	if [ -n "$bad" ]; then
		echo "$bad" | head -n 40
		echo "dmesg: 0 passed, 1 failed"
		return 1
	fi
	echo "dmesg: no Oops, BUG, WARNING or call trace"
	echo "dmesg: 1 passed, 0 failed"
}

start_smbd() {	# [extra server.sh args]; the state directory is ${state:-$STATE}
	local share=$MNT/robust-share
	mkdir -p "$share" /tmp/robust-plain/aclxattr /tmp/robust-plain/nfs4acl
	chmod 0777 "$share"
	local args=(start --state "${state:-$STATE}" --rich "$share"
		--aclxattr /tmp/robust-plain/aclxattr --nfs4acl /tmp/robust-plain/nfs4acl)
	[ -n "$module" ] && args+=(--module "$module")
	bash "$repo/testenv/smb/server.sh" "${args[@]}" "$@"
}

stop_smbd() {	# [log name]; the state directory is ${state:-$STATE}
	local st=${state:-$STATE}
	bash "$repo/testenv/smb/server.sh" stop --state "$st" 2>/dev/null
	[ -f "$st/smbd.log" ] && tail -c 2000000 "$st/smbd.log" >"$out/${1:-smbd}.log"
}

smbd_alive() {
	local pid
	pid=$(cat "$STATE/smbd.pid" 2>/dev/null) && kill -0 "$pid" 2>/dev/null
}

cmd_main() {
	: >"$out/times"
	local t0
	t0=$(now)
	if ! mount_rich; then
		echo "mount: 0 passed, 1 failed" >"$out/mount.txt"
		return 1
	fi
	part diff "$bin/difftest" --dir "$MNT/difftest" --seed "$seed" --cases "$cases"
	part blobs "$bin/blobfuzz" --dir "$MNT/blobfuzz" --seed "$seed" --count "$blobs"
	if ! skipped smb; then
		if start_smbd 2>"$out/smbd-start.err"; then
			local share=$MNT/robust-share
			part smbdiff $PY "$here/smbdiff.py" --state "$STATE" --path "$share" \
				--seed "$seed" --cases "$smb_cases"
			part hostile $PY "$here/hostile_sd.py" --state "$STATE" --path "$share" \
				--seed "$seed" --rounds "$hostile_rounds"
			part load $PY "$here/load.py" --state "$STATE" --path "$share" \
				--seed "$seed" --secs "$load_secs" --clients 8
			if smbd_alive; then
				echo "smbd-alive: 1 passed, 0 failed" >"$out/smbd-alive.txt"
			else
				echo "smbd-alive: smbd is gone after the SMB parts" >"$out/smbd-alive.txt"
				echo "smbd-alive: 0 passed, 1 failed" >>"$out/smbd-alive.txt"
			fi
			stop_smbd
		else
			cat "$out/smbd-start.err" >&2
			echo "smb: smbd did not start: $(tail -n 1 "$out/smbd-start.err")" >"$out/smb.txt"
			echo "smb: 0 passed, 1 failed" >>"$out/smb.txt"
		fi
	fi
	# The agreement checker again on the second identity setup: winbindd
	# allocates the ids (docs/mapping.md, "Well-known SIDs").
	if ! skipped smb && ! skipped smbdiff-winbind; then
		if state=$STATE_WB start_smbd --identity winbind 2>"$out/smbd-start-winbind.err"; then
			part smbdiff-winbind $PY "$here/smbdiff.py" --state "$STATE_WB" \
				--path "$MNT/robust-share" --seed "$seed" --cases "$smb_cases" \
				--identity winbind
			state=$STATE_WB stop_smbd smbd-winbind
			cp "$STATE_WB/winbindd.log" "$out/winbindd.log" 2>/dev/null
		else
			cat "$out/smbd-start-winbind.err" >&2
			{
				echo "smbdiff-winbind: smbd did not start:" \
					"$(tail -n 1 "$out/smbd-start-winbind.err")"
				echo "smbdiff-winbind: 0 passed, 1 failed"
			} >"$out/smbdiff-winbind.txt"
		fi
	fi
	part dmesg check_dmesg
	cd /
	umount "$MNT" 2>/dev/null
	echo "total $(echo "$(now) - $t0" | bc)" >>"$out/times"
}

# e2fsck with richacl (e2fsprogs-patches/) checks the file system with the
# feature on, every system.richacl value included
fsck_rich() {
	[ -x "$e2fs/e2fsck" ] || { echo "FAIL no e2fsck with richacl (--e2fs '$e2fs')"; return 1; }
	"$e2fs/dumpe2fs" -h "$dev" 2>/dev/null | grep -q '^Filesystem features:.* richacl' ||
		{ echo "FAIL the richacl feature is not set on $dev"; return 1; }
	"$e2fs/e2fsck" -fn "$dev" 2>&1
}

cmd_crash() {
	[ -n "$log" ] || { echo "guest.sh crash: --log is required" >&2; exit 2; }
	[ -n "$e2fs" ] || { echo "guest.sh crash: --e2fs is required" >&2; exit 2; }
	local t0
	t0=$(now)
	rm -f "$out/writing"
	{
		# mount once: the journal of the killed run is replayed here
		if ! mount_rich; then
			echo "FAIL mount after the kill: $(cat "$out/mount.err")"
			echo "fsck: 0 passed, 1 failed"
			exit 1
		fi
		umount "$MNT"
		if fsck_rich; then
			echo "fsck: 1 passed, 0 failed"
		else
			echo "fsck: 0 passed, 1 failed"
		fi
	} >"$out/fsck.txt" 2>&1
	mount_rich || exit 1
	"$bin/crash" check --dir "$MNT/crash" --log "$log" >"$out/crash-check.txt" 2>&1
	local smblog=${log%/*}/acl-log-smb smbdir=$MNT/robust-share/crash-smb
	if [ -n "$module" ]; then
		"$bin/crash" check --dir "$smbdir" --log "$smblog" >"$out/crash-check-smb.txt" 2>&1
	fi
	check_dmesg >"$out/dmesg.txt" 2>&1
	echo "crash-boot $(echo "$(now) - $t0" | bc)" >>"$out/times"
	# the SMB writer (through smbd and vfs_richacl), then the local one;
	# both write until the host kills QEMU (or stop after a while)
	if [ -n "$module" ]; then
		if start_smbd 2>"$out/smbd-start.err"; then
			timeout 300 $PY "$here/crash_smb.py" --state "$STATE" --dir "$smbdir" \
				--log "$smblog" --seed "$seed" >"$out/crash-smb.txt" 2>&1 &
			local i
			for i in $(seq 1 120); do
				grep -q writing "$out/crash-smb.txt" 2>/dev/null && break
				grep -q "cannot learn\|Error\|error" "$out/crash-smb.txt" 2>/dev/null && break
				sleep 0.5
			done
		else
			echo "crash-smb: smbd did not start: $(tail -n 1 "$out/smbd-start.err")" >"$out/crash-smb.txt"
		fi
	fi
	timeout 300 "$bin/crash" write --dir "$MNT/crash" --log "$log" --seed "$seed" \
		--ready "$out/writing" >"$out/crash-write.txt" 2>&1
	echo "the writer stopped by itself (not killed)" >>"$out/crash-write.txt"
}

cmd_valgrind() {
	[ -n "$module" ] || { echo "guest.sh valgrind: --module is required" >&2; exit 2; }
	: >"$out/times"
	local t0
	t0=$(now)
	mount_rich || { echo "valgrind: 0 passed, 1 failed" >"$out/valgrind.txt"; return 1; }
	# set up state, config and users with the normal server, then restart it
	# under valgrind on the same configuration
	start_smbd 2>"$out/smbd-start.err" || {
		echo "valgrind: smbd did not start: $(tail -n 1 "$out/smbd-start.err")" >"$out/valgrind.txt"
		echo "valgrind: 0 passed, 1 failed" >>"$out/valgrind.txt"
		return 1
	}
	stop_smbd
	sleep 1
	local vlog=/tmp/valgrind
	mkdir -p "$vlog"
	# its own session: smbd signals its process group when it shuts down
	setsid valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect \
		--num-callers=30 --error-limit=no --child-silent-after-fork=no \
		--log-file="$vlog/vg.%p" \
		smbd -F --no-process-group -s "$STATE/smb.conf" --debug-stdout -d1 \
		</dev/null >"$STATE/smbd.log" 2>&1 &
	local vpid=$!
	echo "$vpid" >"$STATE/smbd.pid"
	local i
	for i in $(seq 1 600); do
		(exec 3<>/dev/tcp/127.0.0.1/445) 2>/dev/null && break
		kill -0 "$vpid" 2>/dev/null || break
		sleep 1
	done
	echo "valgrind-start $(echo "$(now) - $t0" | bc)" >>"$out/times"
	$PY "$here/vgload.py" --state "$STATE" --path "$MNT/robust-share" --ops "$ops" \
		>"$out/vgload.txt" 2>&1
	echo "vgload rc=$?" >>"$out/times"
	kill -TERM "$vpid" 2>/dev/null
	for i in $(seq 1 300); do
		kill -0 "$vpid" 2>/dev/null || break
		sleep 1
	done
	kill -KILL "$vpid" 2>/dev/null
	cp "$STATE/smbd.log" "$out/smbd-valgrind.log" 2>/dev/null
	cat "$vlog"/vg.* >"$out/valgrind-raw.txt" 2>/dev/null
	$PY "$here/vgsummary.py" "$vlog" >"$out/valgrind.txt" 2>&1
	echo "valgrind-total $(echo "$(now) - $t0" | bc)" >>"$out/times"
	cd /
	umount "$MNT" 2>/dev/null
}

case "$sub" in
main) cmd_main ;;
crash) cmd_crash ;;
valgrind) cmd_valgrind ;;
*) echo "usage: guest.sh main|crash|valgrind ..." >&2; exit 2 ;;
esac
