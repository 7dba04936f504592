#!/bin/bash
# Control the in-guest smbd of the SMB tests and the demo (run as root in the
# QEMU guest; testenv/run-smb-tests.sh and testenv/demo.sh call it).
#
#   server.sh start --state DIR --rich PATH --aclxattr PATH --nfs4acl PATH
#                   [--module RICHACL_SO] [--port N] [--interfaces LIST] [--hideunread SHARE]
#                   [--richacl-option NAME=VALUE]... [--test-shares] [--bench-shares]
#                   [--identity passdb|winbind]
#   server.sh hideunread --state DIR SHARE   [hideunread] now copies SHARE (reload)
#   server.sh stop --state DIR
#
# start (the caller mounts the file systems and makes the share directories):
#  - puts the vfs_richacl module where smbd loads it BY NAME: Samba 4.17
#    refuses paths in "vfs objects", and /usr/lib/x86_64-linux-gnu/samba/vfs
#    is on the read-only host root, so a tmpfs is mounted over that directory
#    holding copies of the packaged modules plus richacl.so,
#  - writes DIR/smb.conf (testenv/smb/smbconf.sh) and DIR/client.conf (for
#    smbtorture, smbclient, smbcacls and python3-samba as clients),
#  - gives alice, bob and carol (made by testenv/guest/init.sh) their SMB
#    passwords; DIR/users lists "name uid password" for the clients,
#  - identity passdb (default): a standalone server whose ids come from passdb
#    and group mappings (map_wellknown below);
#    identity winbind: the same server with winbindd running and
#    "idmap config * : backend = tdb", as on a domain member: winbindd
#    allocates gids for the well-known SIDs (DIR/winbindd.log, DIR/winbindd.pid),
#  - starts "smbd -F" in the background (log: DIR/smbd.log, pid: DIR/smbd.pid)
#    and waits until it accepts connections on 127.0.0.1:PORT.
#    RICHACL_SMBD_DEBUG=N in the environment sets smbd's debug level (default 1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VFSDIR=/usr/lib/x86_64-linux-gnu/samba/vfs
# Test users (uids from SEMANTICS.md section 2 / testenv/guest/init.sh) and
# their SMB passwords.  Test credentials of a throw-away guest, nothing else.
USERS=("alice 1001 alice-pw" "bob 1002 bob-pw" "carol 1003 carol-pw")

die() {
	echo "server.sh: $*" >&2
	exit 1
}

ensure_proc() {
	# Samba resolves O_PATH handles through /proc/self/fd.
	[ -e /proc/self/fd ] || mount -t proc proc /proc || die "cannot mount /proc"
}

install_module() {	# richacl.so
	local so=$1
	[ -r "$so" ] || die "module '$so' not found"
	if ! mountpoint -q "$VFSDIR"; then
		local keep
		keep=$(mktemp -d /tmp/samba-vfs.XXXXXX)
		cp -a "$VFSDIR/." "$keep/"
		mount -t tmpfs -o mode=0755 tmpfs "$VFSDIR" || die "cannot mount a tmpfs on $VFSDIR"
		cp -a "$keep/." "$VFSDIR/"
		rm -rf "$keep"
	fi
	install -m 0644 "$so" "$VFSDIR/richacl.so"
}

write_conf() {	# reads the saved arguments from $state/args
	local args=()
	mapfile -t args <"$state/args"
	bash "$here/smbconf.sh" --state "$state" "${args[@]}" --hideunread "$hideunread" \
		>"$state/smb.conf.new"
	mv "$state/smb.conf.new" "$state/smb.conf"
	cat >"$state/client.conf" <<-EOF
	# Client side configuration for the in-guest SMB tests.
	[global]
		workgroup = RICHACL
		client min protocol = NT1
		client max protocol = SMB3
		client signing = if_required
		lock directory = /tmp
		state directory = /tmp
		cache directory = /tmp
		private dir = /tmp
		log level = 0
	EOF
	chmod 0644 "$state/client.conf"
}

add_users() {
	local u name uid pw
	: >"$state/users"
	for u in "${USERS[@]}"; do
		read -r name uid pw <<<"$u"
		[ "$(id -u "$name" 2>/dev/null)" = "$uid" ] ||
			die "user $name with uid $uid does not exist (testenv/guest/init.sh makes it)"
		printf '%s\n%s\n' "$pw" "$pw" |
			smbpasswd -c "$state/smb.conf" -s -a "$name" >/dev/null ||
			die "smbpasswd -a $name failed"
		echo "$name $uid $pw" >>"$state/users"
	done
	chmod 0644 "$state/users"
}

# Well-known SIDs (docs/mapping.md, "Well-known SIDs"): Authenticated Users
# (S-1-5-11) gets a unix group.  smbd adds it to the unix token of every
# authenticated session, so the kernel honours an ACE for S-1-5-11 as smbd
# does; the local test users are members too, so that their local logins
# hold it as well.  NETWORK (S-1-5-2), also in every SMB token, is left
# without a gid on purpose: the S-K2 tests (testenv/tests/smb/verdict.py)
# use it as the token SID that only smbd could honour.
AUTHUSERS_GID=3011
map_wellknown() {
	getent group authusers >/dev/null || groupadd -g "$AUTHUSERS_GID" authusers ||
		die "cannot make group authusers"
	local u name
	for u in "${USERS[@]}"; do
		read -r name _ <<<"$u"
		usermod -a -G authusers "$name" || die "cannot add $name to authusers"
	done
	if ! net -s "$state/smb.conf" groupmap list sid=S-1-5-11 2>/dev/null | grep -q authusers; then
		net -s "$state/smb.conf" groupmap add sid=S-1-5-11 unixgroup=authusers \
			type=builtin ntgroup="Authenticated Users" >/dev/null ||
			die "net groupmap add sid=S-1-5-11 failed"
	fi
}

# BUILTIN\Users (S-1-5-32-545) holds Authenticated Users, as on Windows, so
# that every session's token has it and default Windows ACLs (a volume root:
# BUILTIN\Users may read and add subfolders) mean what they say.  passdb:
# the alias is mapped to the unix group "users", and the test users are
# members of it, so that their local logins hold it as their SMB sessions
# do; winbind: smbd's pdb creates it with a gid that winbindd allocates (no
# local login holds that one, as on a domain member without nss_winbind).
# Either way the alias' gid is in the unix token of every session, so the
# kernel sees the same membership as smbd.
map_builtin_users() {	# passdb|winbind
	local conf=$state/smb.conf bu=S-1-5-32-545 out u name
	if [ "$1" = passdb ]; then
		for u in "${USERS[@]}"; do
			read -r name _ <<<"$u"
			usermod -a -G users "$name" || die "cannot add $name to users"
		done
	fi
	if ! net -s "$conf" groupmap list sid=$bu 2>/dev/null | grep -q "$bu"; then
		if [ "$1" = passdb ]; then
			net -s "$conf" groupmap add sid=$bu unixgroup=users type=local \
				ntgroup=Users >/dev/null || die "net groupmap add sid=$bu failed"
		else
			net -s "$conf" sam createbuiltingroup Users >/dev/null ||
				die "net sam createbuiltingroup Users failed"
		fi
	fi
	if ! out=$(net -s "$conf" groupmap addmem $bu S-1-5-11 2>&1) &&
		! net -s "$conf" groupmap listmem $bu 2>/dev/null | grep -q '^S-1-5-11$'; then
		die "net groupmap addmem $bu S-1-5-11 failed: $out"
	fi
}

start_winbindd() {
	mkdir -p /run/samba	# the socket directory libwbclient looks in
	setsid winbindd -F --no-process-group -s "$state/smb.conf" --debug-stdout -d"${RICHACL_SMBD_DEBUG:-1}" \
		</dev/null >"$state/winbindd.log" 2>&1 &
	echo $! >"$state/winbindd.pid"
	local i
	for i in $(seq 1 120); do
		wbinfo -p >/dev/null 2>&1 && return 0
		kill -0 "$(cat "$state/winbindd.pid")" 2>/dev/null || break
		sleep 0.5
	done
	tail -n 20 "$state/winbindd.log" >&2
	die "winbindd does not answer (log: $state/winbindd.log)"
}

wait_ready() {	# port
	local i
	for i in $(seq 1 240); do
		if ! kill -0 "$(cat "$state/smbd.pid")" 2>/dev/null; then
			tail -n 30 "$state/smbd.log" >&2
			die "smbd died during startup (log: $state/smbd.log)"
		fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return 0
		fi
		sleep 0.5
	done
	die "smbd does not accept connections on port $1 after 120 s"
}

cmd_start() {
	local module="" port=445 rich="" aclxattr="" nfs4acl="" identity=passdb
	local confargs=()
	hideunread=richacl
	while [ $# -gt 0 ]; do
		case "$1" in
		--state) state=${2:?}; shift 2 ;;
		--rich) rich=${2:?}; confargs+=("$1" "$2"); shift 2 ;;
		--aclxattr) aclxattr=${2:?}; confargs+=("$1" "$2"); shift 2 ;;
		--nfs4acl) nfs4acl=${2:?}; confargs+=("$1" "$2"); shift 2 ;;
		--port) port=${2:?}; confargs+=("$1" "$2"); shift 2 ;;
		--interfaces) confargs+=("$1" "${2:?}"); shift 2 ;;
		--richacl-option) confargs+=("$1" "${2:?}"); shift 2 ;;
		--hideunread) hideunread=${2:?}; shift 2 ;;
		--test-shares | --bench-shares) confargs+=("$1"); shift ;;
		--identity) identity=${2:?}; shift 2 ;;
		--module) module=${2:?}; shift 2 ;;
		*) die "start: unknown argument '$1'" ;;
		esac
	done
	[ -n "${state:-}" ] && [ -n "$rich" ] && [ -n "$aclxattr" ] && [ -n "$nfs4acl" ] ||
		die "start needs --state, --rich, --aclxattr and --nfs4acl"
	ensure_proc
	mkdir -p "$state"/{private,lock,state,cache,run,ncalrpc,bind-dns}
	chmod 0755 "$state"
	case "$identity" in
	passdb) ;;
	winbind) confargs+=(--winbind) ;;
	*) die "start: --identity wants passdb or winbind" ;;
	esac
	echo "$identity" >"$state/identity"
	printf '%s\n' "${confargs[@]}" >"$state/args"
	if [ -n "$module" ]; then
		install_module "$module"
	fi
	write_conf
	add_users
	if [ "$identity" = winbind ]; then
		start_winbindd
	else
		map_wellknown
	fi
	map_builtin_users "$identity"
	# Own session: on shutdown smbd signals its whole process group.
	setsid smbd -F --no-process-group -s "$state/smb.conf" --debug-stdout -d"${RICHACL_SMBD_DEBUG:-1}" \
		</dev/null >"$state/smbd.log" 2>&1 &
	echo $! >"$state/smbd.pid"
	wait_ready "$port"
}

cmd_hideunread() {
	[ $# -eq 3 ] && [ "$1" = --state ] || die "usage: server.sh hideunread --state DIR SHARE"
	state=$2
	hideunread=$3
	write_conf
	smbcontrol -s "$state/smb.conf" smbd reload-config >/dev/null ||
		die "smbcontrol reload-config failed"
}

cmd_stop() {
	[ $# -eq 2 ] && [ "$1" = --state ] || die "usage: server.sh stop --state DIR"
	state=$2
	stop_pid "$state/smbd.pid"
	stop_pid "$state/winbindd.pid"
}

stop_pid() {	# pid file of a daemon this script started
	local pid i
	pid=$(cat "$1" 2>/dev/null) || return 0
	rm -f "$1"
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.25
	done
	kill -9 "$pid" 2>/dev/null || true
}

[ $# -gt 0 ] || die "usage: server.sh start|hideunread|stop ..."
[ "$(id -u)" = 0 ] || die "must run as root (in the guest)"
sub=$1
shift
case "$sub" in
start) cmd_start "$@" ;;
hideunread) cmd_hideunread "$@" ;;
stop) cmd_stop "$@" ;;
*) die "unknown subcommand '$sub'" ;;
esac
