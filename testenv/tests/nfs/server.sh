#!/bin/bash
# knfsd and the NFSv4 client in the QEMU guest, over loopback.
#
#   server.sh start --state DIR --export PATH --mount MNT
#   server.sh stop --state DIR
#
# Guest only: the guest's root is an overlay over the host's (testenv/guest/
# init.sh), so /etc, /var/lib/nfs and /run written here stay in the guest.
# start
#  - mounts the nfsd file system, sets the NFSv4 lease and grace times to
#    their minimum (10 s), so that the grace period after start-up is short;
#  - starts rpcbind and rpc.mountd (which answers knfsd's export upcalls) and
#    records their pids in DIR/pids;
#  - exports PATH to 127.0.0.1 as the NFSv4 root (fsid=0, sec=sys,
#    no_root_squash, sync) and starts 8 nfsd threads without NFSv3 (the
#    kernel has no NFSv2);
#  - mounts 127.0.0.1:/ on MNT with NFSv4.2, AUTH_SYS, and without attribute
#    or lookup caching (noac, lookupcache=none): every permission and acl
#    question goes to the server;
#  - waits until the grace period is over (a file can be created over NFS).
# Ids travel as numbers (AUTH_SYS with nfs4_disable_idmapping, the default of
# both nfsd and the client); no rpc.idmapd runs, so a name that is not a
# number maps to no id.
# stop unmounts MNT, stops the nfsd threads, and kills the daemons it started
# by their pids.
set -uo pipefail

die() { echo "nfs-server: $*" >&2; exit 1; }

cmd=${1:-}
shift || true
state="" export_path="" mnt=""
while [ $# -gt 0 ]; do
	case "$1" in
	--state) state=${2:?}; shift 2 ;;
	--export) export_path=${2:?}; shift 2 ;;
	--mount) mnt=${2:?}; shift 2 ;;
	*) die "unknown argument '$1'" ;;
	esac
done
[ -n "$state" ] || die "--state is required"

start() {
	[ -n "$export_path" ] && [ -n "$mnt" ] || die "start needs --export and --mount"
	[ -d "$export_path" ] || die "$export_path is not a directory"
	mkdir -p "$state" /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery "$mnt"
	: >"$state/pids"
	echo "$mnt" >"$state/mount"
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		die "cannot mount the nfsd file system"
	echo 10 >/proc/fs/nfsd/nfsv4leasetime || die "cannot set the lease time"
	echo 10 >/proc/fs/nfsd/nfsv4gracetime || die "cannot set the grace time"

	rpcbind -w || die "rpcbind did not start"
	pidof rpcbind | tr ' ' '\n' >>"$state/pids"
	: >/etc/exports
	mkdir -p /etc/exports.d
	exportfs -r || die "exportfs -r failed"
	exportfs -o rw,sync,no_subtree_check,no_root_squash,fsid=0,sec=sys \
		"127.0.0.1:$export_path" || die "exportfs of $export_path failed"
	rpc.mountd -N 2 -N 3 || die "rpc.mountd did not start"
	pidof rpc.mountd | tr ' ' '\n' >>"$state/pids"
	rpc.nfsd -N 3 -H 127.0.0.1 8 ||
		die "rpc.nfsd did not start"

	mount -t nfs4 -o vers=4.2,sec=sys,noac,lookupcache=none,timeo=50,retrans=2 \
		127.0.0.1:/ "$mnt" || die "mount of 127.0.0.1:/ on $mnt failed"
	# OPEN with create is refused during the grace period.
	local i probe=$mnt/.grace-probe
	for i in $(seq 1 60); do
		if (: >"$probe") 2>/dev/null; then
			rm -f "$probe"
			return 0
		fi
		sleep 1
	done
	die "no file could be created over NFS within 60 s"
}

stop() {
	local mnt pid
	mnt=$(cat "$state/mount" 2>/dev/null)
	[ -n "$mnt" ] && mountpoint -q "$mnt" && { umount "$mnt" || umount -f -l "$mnt"; }
	rpc.nfsd 0 2>/dev/null
	exportfs -ua 2>/dev/null
	while read -r pid; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done <"$state/pids"
	return 0
}

case "$cmd" in
start) start ;;
stop) stop ;;
*) die "usage: server.sh start|stop --state DIR ..." ;;
esac
