#!/bin/bash
# Boot a kernel in QEMU and run one command as root inside the guest.
#
#   testenv/guest-run.sh [options] -- command [args...]
#
# The guest's root file system is this machine's root, shared read-only over
# virtio-9p, with a tmpfs overlay on top (testenv/guest/init.sh), so the guest
# runs the host's programs and sees the repository at the same path; anything
# written outside /results (say a Samba module copied into the modules
# directory, or files under /etc) stays in the guest and is gone at exit.
# The guest has the test users alice (1001), bob (1002), carol (1003) and the
# group staff (2000) = {bob, carol}, loopback networking, and eth0 only with
# --hostfwd.  The command runs as root in the guest with the current directory
# of the caller (LC_ALL=C.UTF-8, GUEST_RESULTS=/results in its environment);
# its stdout/stderr are streamed back while it runs, and this script exits with
# the command's exit status, 124 on timeout or 125 when the guest did not boot
# or died before the command finished (kernel panic, oops).
#
# Options:
#   --kernel BZIMAGE     kernel to boot (default: the current development kernel,
#                        /var/cache/richacl/kernel/current/bzImage)
#   --disk IMG           attach a raw disk image read-write as the next virtio
#                        disk (/dev/vda, /dev/vdb, ...); repeatable
#   --results DIR        host directory shared writable with the guest at
#                        /results (kept afterwards; default: a temporary
#                        directory that is removed at the end)
#   --hostfwd H:G        forward 127.0.0.1:H on the host to TCP port G in the
#                        guest (QEMU user-mode networking, restrict=on);
#                        repeatable; without it the guest has loopback only
#   --timeout SECS       kill the guest after SECS seconds (default 600, 0 = never)
#   --mem MB             guest memory (default 1024)
#   --smp N              guest CPUs (default 2)
#   --accel auto|kvm|tcg use KVM if a probe boot works (auto, default), or force
#   --icount SHIFT       TCG with instruction counting: the guest clock advances
#                        2^SHIFT ns per guest instruction (QEMU -icount
#                        shift=SHIFT,sleep=off), so that guest timings count
#                        instructions, free of the host's load; implies
#                        --accel tcg and one guest CPU
#   --env NAME=VALUE     environment variable for the command; repeatable
#   --quiet              do not print the boot summary line on stderr
#
# Files left in the results directory: stdout, stderr, console.log (serial
# console: kernel messages), .guest/{argv,env,cwd,status,uptime-start,uptime-end}.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
INIT=$here/guest/init.sh
CACHE=/var/cache/richacl/testenv

kernel=/var/cache/richacl/kernel/current/bzImage
disks=()
results=""
hostfwds=()
timeout=600
mem=1024
smp=2
accel=auto
icount=""
envs=()
quiet=0

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'
	exit 0
}

fail() {
	echo "guest-run: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--disk) disks+=("${2:?}"); shift 2 ;;
	--results) results=${2:?}; shift 2 ;;
	--hostfwd) hostfwds+=("${2:?}"); shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--smp) smp=${2:?}; shift 2 ;;
	--accel) accel=${2:?}; shift 2 ;;
	--icount) icount=${2:?}; shift 2 ;;
	--env) envs+=("${2:?}"); shift 2 ;;
	--quiet) quiet=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	*) fail "unknown option '$1' (the command goes after --)" ;;
	esac
done
[ $# -gt 0 ] || fail "no command given (usage: guest-run.sh [options] -- command args...)"
[ -r "$kernel" ] || fail "kernel '$kernel' not found"
kernel=$(readlink -f "$kernel")
for d in "${disks[@]}"; do
	[ -f "$d" ] && [ -w "$d" ] || fail "disk image '$d' missing or not writable"
done
for f in "${hostfwds[@]}"; do
	[[ $f =~ ^[0-9]+:[0-9]+$ ]] || fail "--hostfwd wants HOSTPORT:GUESTPORT, got '$f'"
done
for e in "${envs[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || fail "--env wants NAME=VALUE, got '$e'"
done
[[ $timeout =~ ^[0-9]+$ ]] || fail "--timeout wants seconds, got '$timeout'"
case "$accel" in auto|kvm|tcg) ;; *) fail "--accel wants auto, kvm or tcg" ;; esac
if [ -n "$icount" ]; then
	[[ $icount =~ ^[0-9]$ ]] || fail "--icount wants a shift of 0 to 9, got '$icount'"
	[ "$accel" = kvm ] && fail "--icount needs TCG, not KVM"
	accel=tcg
	smp=1
fi
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 is not installed"

keep_results=1
if [ -z "$results" ]; then
	results=$(mktemp -d /tmp/guest-run.XXXXXX)
	keep_results=0
fi
mkdir -p "$results/.guest" || fail "cannot create $results"
results=$(cd "$results" && pwd)
rm -f "$results/.guest/"{status,uptime-start,uptime-end,host-start,host-end,timed-out}
: >"$results/stdout"
: >"$results/stderr"
printf '%s\0' "$@" >"$results/.guest/argv"
printf '%s\0' "${envs[@]}" >"$results/.guest/env"
[ ${#envs[@]} -eq 0 ] && : >"$results/.guest/env"
pwd >"$results/.guest/cwd"
# The repository is shared on its own: the guest mounts tmpfs on /tmp and
# /var/tmp, which would hide a checkout there (CI clones anywhere).
repo=$(cd "$(dirname "$0")/.." && pwd)
printf '%s\n' "$repo" >"$results/.guest/repo"
log=$results/console.log

CMDLINE="console=ttyS0 root=/dev/root rootfstype=9p ro"
CMDLINE+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
CMDLINE+=" init=$INIT panic=-1 oops=panic loglevel=4"

qemu_common=(qemu-system-x86_64 -nodefaults -display none -no-reboot
	-kernel "$kernel"
	-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=root,mount_tag=/dev/root")

# KVM is unreliable on this kind of host (feasibility.md): a tiny boot must
# print the probe marker quickly; the verdict is cached per host boot.
kvm_usable() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local key verdict
	key=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)-$(stat -c %Y "$(command -v qemu-system-x86_64)")
	verdict=$CACHE/kvm-probe.$key
	if [ -f "$verdict" ]; then
		[ "$(cat "$verdict")" = yes ]
		return
	fi
	mkdir -p "$CACHE"
	local plog
	plog=$(mktemp /tmp/guest-run-probe.XXXXXX)
	timeout -k 2 15 "${qemu_common[@]}" -accel kvm -m 256 -smp 1 \
		-append "$CMDLINE richacl.probe=1" -serial "file:$plog" >/dev/null 2>&1
	if grep -q RICHACL-GUEST-PROBE-OK "$plog"; then
		echo yes >"$verdict"
	else
		echo no >"$verdict"
	fi
	rm -f "$plog"
	[ "$(cat "$verdict")" = yes ]
}

case "$accel" in
auto) if kvm_usable; then accel=kvm; else accel=tcg; fi ;;
esac
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm)
elif [ -n "$icount" ]; then
	# instruction counting needs the single-threaded TCG
	accel_args=(-accel tcg,thread=single -icount "shift=$icount,sleep=off")
else
	accel_args=(-accel tcg,thread=multi)
fi

qemu=("${qemu_common[@]}" "${accel_args[@]}" -m "$mem" -smp "$smp"
	-fsdev "local,id=results,path=$results,security_model=none"
	-device "virtio-9p-pci,fsdev=results,mount_tag=results"
	-fsdev "local,id=repo,path=$repo,security_model=none,readonly=on"
	-device "virtio-9p-pci,fsdev=repo,mount_tag=repo"
	-serial "file:$log")
for d in "${disks[@]}"; do
	qemu+=(-drive "file=$d,format=raw,if=virtio,cache=unsafe")
done
append=$CMDLINE
if [ ${#hostfwds[@]} -gt 0 ]; then
	netdev="user,id=net0,restrict=on"
	for f in "${hostfwds[@]}"; do
		netdev+=",hostfwd=tcp:127.0.0.1:${f%%:*}-:${f##*:}"
	done
	qemu+=(-netdev "$netdev" -device virtio-net-pci,netdev=net0)
	append+=" richacl.net=1"
fi
qemu+=(-append "$append")

qpid=""
wd=""
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	[ -n "$wd" ] && kill "$wd" 2>/dev/null
	[ "$keep_results" = 1 ] || rm -rf "$results"
}
trap cleanup EXIT
trap 'echo "guest-run: interrupted" >&2; exit 130' INT TERM

start=$(date +%s.%N)
"${qemu[@]}" </dev/null >"$results/.guest/qemu.out" 2>&1 &
qpid=$!
tail --pid="$qpid" -s 0.2 -n +1 -F "$results/stdout" 2>/dev/null &
t1=$!
tail --pid="$qpid" -s 0.2 -n +1 -F "$results/stderr" >&2 2>/dev/null &
t2=$!
# Watchdog: enforces the timeout and notes on the host clock when the guest
# command started and ended (the guest clock lags under TCG on a busy host).
(
	ticks=0
	while kill -0 "$qpid" 2>/dev/null; do
		[ -f "$results/.guest/uptime-start" ] && [ ! -f "$results/.guest/host-start" ] &&
			date +%s.%N >"$results/.guest/host-start"
		[ -f "$results/.guest/status" ] && [ ! -f "$results/.guest/host-end" ] &&
			date +%s.%N >"$results/.guest/host-end"
		if [ "$timeout" -gt 0 ] && [ "$ticks" -ge $((timeout * 4)) ]; then
			touch "$results/.guest/timed-out"
			kill "$qpid"
			break
		fi
		sleep 0.25
		ticks=$((ticks + 1))
	done
) >/dev/null 2>&1 &
wd=$!
wait "$qpid"
qrc=$?
qpid=""
end=$(date +%s.%N)
[ -n "$wd" ] && kill "$wd" 2>/dev/null
wd=""
wait "$t1" "$t2" 2>/dev/null

ctl=$results/.guest
wall=$(echo "$end - $start" | bc)
[ -f "$ctl/status" ] && [ ! -f "$ctl/host-end" ] && echo "$end" >"$ctl/host-end"
summary() {
	[ "$quiet" = 1 ] && return
	local boot="?" run="?"
	[ -f "$ctl/host-start" ] && boot=$(printf '%.1f' "$(echo "$(cat "$ctl/host-start") - $start" | bc)")
	[ -f "$ctl/host-start" ] && [ -f "$ctl/host-end" ] &&
		run=$(printf '%.1f' "$(echo "$(cat "$ctl/host-end") - $(cat "$ctl/host-start")" | bc)")
	printf 'guest-run: accel %s, boot to command %ss, command %ss, wall %.1fs, %s\n' \
		"$accel${icount:+ icount shift $icount}" "$boot" "$run" "$wall" "$1" >&2
}

if [ -f "$ctl/timed-out" ] || [ ! -f "$ctl/status" ]; then
	keep_results=1		# keep the console log for the message below
fi
if [ -f "$ctl/timed-out" ]; then
	summary "TIMEOUT"
	echo "guest-run: timeout after ${timeout}s; console log: $log" >&2
	tail -n 20 "$log" | sed 's/^/  console| /' >&2
	rm -f "$ctl/timed-out"
	exit 124
fi
if [ ! -f "$ctl/status" ]; then
	if [ ! -f "$ctl/uptime-start" ]; then
		summary "BOOT FAILED"
		echo "guest-run: the guest did not boot (qemu exit $qrc); console log: $log" >&2
	else
		summary "GUEST DIED"
		echo "guest-run: the guest died before the command finished (kernel panic/oops?);" \
			"console log: $log" >&2
	fi
	sed 's/^/  qemu| /' "$ctl/qemu.out" >&2
	tail -n 40 "$log" | sed 's/^/  console| /' >&2
	exit 125
fi
status=$(cat "$ctl/status")
summary "exit $status"
exit "$status"
