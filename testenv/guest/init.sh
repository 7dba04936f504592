#!/bin/bash
# PID 1 of the QEMU test guest (started by testenv/guest-run.sh).
#
# The guest boots with the host's root file system shared read-only over
# virtio-9p.  Stage 1 (this script as PID 1 on that read-only root) puts a
# tmpfs-backed overlay over it and chroots into the overlay, so that the guest
# can write anywhere (/etc, /var, /results ...) without touching the host.
# Stage 2 mounts the usual pseudo file systems, the writable results share,
# adds the test users, brings up networking, runs the command that the host
# left in /results/.guest/argv, stores its output and exit status in /results
# and reboots (QEMU runs with -no-reboot, so this ends QEMU).
#
# Kernel command line parameters read here:
#   richacl.probe=1    only print the KVM probe marker and reboot
#   richacl.net=1      configure eth0 for QEMU user-mode networking

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
SELF=$(readlink -f "$0")

log() {
	echo "guest-init: $*" >/dev/console 2>/dev/null || echo "guest-init: $*"
}

die() {
	log "FATAL: $*"
	sync
	busybox reboot -f
	sleep 10
	exit 1
}

cmdline_has() {
	local w
	for w in $(cat /proc/cmdline 2>/dev/null); do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

stage1() {
	mount -t proc proc /proc || die "cannot mount /proc"
	if cmdline_has richacl.probe=1; then
		log "RICHACL-GUEST-PROBE-OK"
		busybox reboot -f
		sleep 10
	fi
	# /run exists on the host and is only a mount point here.
	mount -t tmpfs -o mode=0755 tmpfs /run || die "cannot mount tmpfs on /run"
	mkdir -p /run/ovl/upper /run/ovl/work /run/ovl/root
	mount -t overlay -o lowerdir=/,upperdir=/run/ovl/upper,workdir=/run/ovl/work \
		overlay /run/ovl/root || die "cannot mount the overlay root"
	umount /proc
	exec chroot /run/ovl/root "$SELF" stage2
	die "chroot into the overlay failed"
}

drop_ids() {	# file name id: drop entries with this name or this numeric id
	local f=$1 name=$2 id=$3 tmp
	[ -f "$f" ] || return 0
	tmp=$(awk -F: -v n="$name" -v i="$id" '$1 != n && $3 != i' "$f") &&
		printf '%s\n' "$tmp" >"$f"
}

add_test_users() {
	# uids/gids of SEMANTICS.md section 2: alice, bob, carol; staff = {bob, carol}.
	# Host entries with the same names or ids are dropped from the guest's copy.
	local u name id
	for u in alice:1001 bob:1002 carol:1003 staff:2000; do
		name=${u%%:*} id=${u##*:}
		drop_ids /etc/passwd "$name" "$id"
		drop_ids /etc/group "$name" "$id"
		sed -i -e "/^$name:/d" /etc/shadow /etc/gshadow 2>/dev/null
	done
	for u in alice:1001 bob:1002 carol:1003; do
		name=${u%%:*} id=${u##*:}
		echo "$name:x:$id:$id::/home/$name:/bin/bash" >>/etc/passwd
		echo "$name:x:$id:" >>/etc/group
		echo "$name:*:19000:0:99999:7:::" >>/etc/shadow
		echo "$name:!::" >>/etc/gshadow
		mkdir -p "/home/$name"
		chown "$id:$id" "/home/$name"
	done
	echo "staff:x:2000:bob,carol" >>/etc/group
	echo "staff:!::bob,carol" >>/etc/gshadow
}

setup_network() {
	ip link set lo up
	if cmdline_has richacl.net=1; then
		# QEMU user-mode networking defaults (restrict=on: no way out)
		ip link set eth0 up &&
		ip addr add 10.0.2.15/24 dev eth0 &&
		ip route add default via 10.0.2.2 ||
		log "warning: eth0 configuration failed"
	fi
}

stage2() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/pts /dev/shm
	ln -sfn /proc/self/fd /dev/fd
	ln -sfn /proc/self/fd/0 /dev/stdin
	ln -sfn /proc/self/fd/1 /dev/stdout
	ln -sfn /proc/self/fd/2 /dev/stderr
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount -t tmpfs -o mode=0755 tmpfs /run
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	mount -t tmpfs -o mode=1777 tmpfs /var/tmp
	mkdir -p /results
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none results /results ||
		die "cannot mount the results share"
	local ctl=/results/.guest
	[ -r "$ctl/argv" ] || die "no command in $ctl/argv"
	# the repository at its host path, also where a tmpfs above hides it
	if [ -r "$ctl/repo" ]; then
		local repo
		repo=$(cat "$ctl/repo")
		mkdir -p "$repo" &&
			mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro \
				repo "$repo" || die "cannot mount the repository share at $repo"
	fi
	echo "$(cut -d' ' -f1 /proc/uptime)" >"$ctl/uptime-start"

	hostname richacl-guest
	add_test_users
	setup_network

	local envs=() argv=() dir=/
	[ -r "$ctl/env" ] && mapfile -d '' envs <"$ctl/env"
	mapfile -d '' argv <"$ctl/argv"
	[ -r "$ctl/cwd" ] && dir=$(cat "$ctl/cwd")
	cd "$dir" 2>/dev/null || cd /

	log "running: ${argv[*]}"
	env -i PATH="$PATH" HOME=/root TERM=dumb LC_ALL=C.UTF-8 GUEST_RESULTS=/results \
		"${envs[@]}" "${argv[@]}" </dev/null >>/results/stdout 2>>/results/stderr
	local rc=$?
	echo "$(cut -d' ' -f1 /proc/uptime)" >"$ctl/uptime-end"
	echo "$rc" >"$ctl/status"
	log "command exited with status $rc"
	sync
	busybox reboot -f
	sleep 10
}

case "${1:-}" in
stage2) stage2 ;;
*) stage1 ;;
esac
die "init fell through"
