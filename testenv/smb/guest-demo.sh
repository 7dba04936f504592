#!/bin/bash
# In-guest part of testenv/demo.sh (runs as root in the QEMU guest).
#
#   guest-demo.sh (--tools DIR [--module RICHACL_SO] | --deb DEB...)
#                 [--rich-dev DEV] [--plain-dev DEV]
#
# With --deb (repeatable) the packages of packaging/build-debs.sh are
# installed first (install-debs.sh) and the installed module and tools serve.
# Mounts the richacl ext4 image on /mnt/rich, gives the share directory
# /mnt/rich/share a Windows-style inheritable ACL, starts smbd on the guest's
# port 445 (testenv/smb/server.sh --identity winbind, so that every SID of a
# session's token has a gid; the host forwards 127.0.0.1:4450 to it),
# prints how to connect, and then serves smbcacls requests that the host's
# testenv/smb/demo-smbcacls.sh drops into /results/demo-cmd/ (smbcacls of
# Samba 4.17 cannot reach a port other than 445), until the guest is stopped.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="" module="" rich_dev=/dev/vda plain_dev=/dev/vdb debs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--tools) tools=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--deb) debs+=("${2:?}"); shift 2 ;;
	--rich-dev) rich_dev=${2:?}; shift 2 ;;
	--plain-dev) plain_dev=${2:?}; shift 2 ;;
	*) echo "guest-demo.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
if [ ${#debs[@]} -gt 0 ]; then
	bash "$here/install-debs.sh" "${debs[@]}" || exit 1
	[ -x /usr/bin/setrichacl ] && tools=/usr/bin
fi
[ -n "$tools" ] || { echo "guest-demo.sh: --tools (or --deb of richacl-tools) is required" >&2; exit 2; }
STATE=/run/richacl-smb
[ -e /proc/self/fd ] || mount -t proc proc /proc

# No DNS in the guest: QEMU's user-mode network is restricted, so lookups
# through the host's resolv.conf only time out, and smbd stalls every new
# connection past the client's timeout.  An empty resolv.conf makes glibc ask
# 127.0.0.1, which fails at once.  (The root is a tmpfs overlay: the host's
# files are untouched.)
rm -f /etc/resolv.conf
: >/etc/resolv.conf
grep -qw "$(hostname)" /etc/hosts || echo "127.0.1.1 $(hostname)" >>/etc/hosts

mkdir -p /mnt/rich /mnt/plain
if ! mount -t ext4 "$rich_dev" /mnt/rich; then
	echo "demo: the richacl file system did not mount: is the kernel built with the richacl series?" >&2
	exit 1
fi
mount -t ext4 "$plain_dev" /mnt/plain || exit 1
mkdir -p /mnt/rich/share /mnt/plain/aclxattr /mnt/plain/nfs4acl

# The share root: alice has full control; the staff group (bob, carol) may
# create and change files; everybody may read.  All of it is inherited by new
# files and directories, and the creator of a file gets full control of it
# (owner@ with file_inherit/dir_inherit/inherit_only = CREATOR OWNER).
share=/mnt/rich/share
"$tools/setrichacl" --set "flags:a
	owner@:rwpxdDaARWcCoS:fdi:allow
	user:alice:rwpxdDaARWcCoS:fd:allow
	group:staff:rwpxDaARWcS:fd:allow
	everyone@:rxaRcS:fd:allow" "$share" || exit 1
printf 'Welcome to the richacl demo share.\n' >"$share/welcome.txt"
"$tools/setrichacl" --set "flags:a
	user:alice:rwpxDaARWcCoS:a:allow
	group:staff:rwpxDaARWcS:a:allow
	everyone@:raRcS:a:allow" "$share/welcome.txt" || exit 1

args=(start --state "$STATE" --rich "$share" --aclxattr /mnt/plain/aclxattr
	--nfs4acl /mnt/plain/nfs4acl --interfaces "lo eth0" --identity winbind)
[ -n "$module" ] && args+=(--module "$module")
bash "$here/server.sh" "${args[@]}" || exit 1

port=${DEMO_PORT:-4450}
cat <<EOF

======================================================================
 richacl demo: smbd is serving //127.0.0.1:$port/richacl
 users (password): alice (alice-pw), bob (bob-pw), carol (carol-pw);
 bob and carol are in the group staff.  winbindd allocates the ids of
 SIDs without one (idmap tdb), so NETWORK and Authenticated Users, in
 every session's token, have gids: their ACEs, denies included, mean the
 same to smbd and to the kernel.

 Browse and copy files as alice:
   smbclient //127.0.0.1/richacl -p $port -U alice%alice-pw

 Show or change Windows ACLs as alice (smbcacls of Samba 4.17 only talks
 to port 445):
EOF
if [ "${DEMO_PORT445:-0}" = 1 ]; then
	cat <<EOF
   smbcacls //127.0.0.1/richacl welcome.txt -U alice%alice-pw
   (the host's 127.0.0.1:445 is forwarded to the guest as well), or
EOF
fi
cat <<EOF
   bash testenv/smb/demo-smbcacls.sh welcome.txt -U alice%alice-pw
   bash testenv/smb/demo-smbcacls.sh welcome.txt -U alice%alice-pw \\
        -a 'ACL:RICHACLGUEST\\carol:DENIED/0x0/W'
   (runs smbcacls inside the guest against //127.0.0.1/richacl)

 The share root is /mnt/rich/share on the guest's richacl ext4.
 Stop the demo with Ctrl-C.
======================================================================
EOF

# Serve smbcacls requests from the host (testenv/smb/demo-smbcacls.sh).
cmd=/results/demo-cmd
mkdir -p "$cmd"
while true; do
	for req in "$cmd"/*.req; do
		[ -e "$req" ] || continue
		id=${req%.req}
		reqargs=()
		mapfile -d '' reqargs <"$req"
		rm -f "$req"
		smbcacls //127.0.0.1/richacl -s "$STATE/client.conf" "${reqargs[@]}" \
			>"$id.out.tmp" 2>&1 </dev/null
		echo $? >"$id.rc.tmp"
		mv "$id.out.tmp" "$id.out"
		mv "$id.rc.tmp" "$id.rc"
	done
	sleep 0.5
done
