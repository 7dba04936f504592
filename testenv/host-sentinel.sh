#!/bin/bash
# A sentinel smbd on the host, to show that the test command leaves the
# host's services alone (issue 15): .ci/run starts it before the test
# command and checks afterwards that it still runs and still answers.
#
#   testenv/host-sentinel.sh start DIR   start it; prints its pid
#   testenv/host-sentinel.sh check DIR   "N passed, N failed" for: the same
#                                        process runs, and answers on its port
#   testenv/host-sentinel.sh stop DIR    stop it, by the pid that start wrote
#
# The sentinel is Debian's smbd with a private smb.conf in DIR: its own lock,
# state, cache, pid, private and ncalrpc directories and log in DIR, no
# printers, listening only on 127.0.0.1 port $RICHACL_SENTINEL_PORT (14450),
# never on 445, so it cannot disturb a Samba server that runs on the host,
# and no test of the project ever talks to it.  It runs in its own session
# (setsid), and stop kills that process group only: the pid recorded by
# start, never a process found by name.  If the host has no smbd yet (a
# fresh machine before install-deps.sh), start prints a note and check and
# stop do nothing.
set -uo pipefail

cmd=${1:-}
dir=${2:-}
port=${RICHACL_SENTINEL_PORT:-14450}
[ -n "$cmd" ] && [ -n "$dir" ] || {
	echo "usage: $0 start|check|stop DIR" >&2
	exit 2
}
pidfile=$dir/sentinel.pid
startfile=$dir/sentinel.start
smbd=$(command -v smbd || echo /usr/sbin/smbd)

# the start time of pid (field 22 of /proc/PID/stat): a pid reused by
# another process has another start time
start_time() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	set -- $stat
	echo "${20}"
}

answers() {	# does something accept TCP connections on 127.0.0.1:$port?
	timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null
}

case "$cmd" in
start)
	if [ ! -x "$smbd" ]; then
		echo "host-sentinel: no smbd on the host yet; no sentinel" >&2
		exit 0
	fi
	if answers; then
		echo "host-sentinel: 127.0.0.1:$port is taken; choose another RICHACL_SENTINEL_PORT" >&2
		exit 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir"/{lock,state,cache,pid,private,ncalrpc,log}
	chmod 0700 "$dir/private"
	cat >"$dir/smb.conf" <<EOF
[global]
	netbios name = RICHACLSENTINEL
	workgroup = RICHACLTEST
	server role = standalone server
	interfaces = 127.0.0.1
	bind interfaces only = yes
	smb ports = $port
	disable netbios = yes
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes
	lock directory = $dir/lock
	state directory = $dir/state
	cache directory = $dir/cache
	pid directory = $dir/pid
	private dir = $dir/private
	ncalrpc dir = $dir/ncalrpc
	binddns dir = $dir/private
	passdb backend = tdbsam:$dir/private/passdb.tdb
	log file = $dir/log/%m.log
	max log size = 1000
EOF
	setsid "$smbd" --foreground --no-process-group -s "$dir/smb.conf" \
		>"$dir/log/smbd.out" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$pidfile"
	for _ in $(seq 1 100); do
		answers && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "$pid" 2>/dev/null || ! answers; then
		echo "host-sentinel: smbd did not come up; see $dir/log" >&2
		tail -n 20 "$dir/log/smbd.out" >&2
		kill -- "-$pid" 2>/dev/null
		rm -f "$pidfile"
		exit 1
	fi
	start_time "$pid" >"$startfile"
	echo "$pid"
	;;
check)
	if [ ! -s "$pidfile" ]; then
		echo "host-sentinel: no sentinel was started (no smbd on the host then)"
		echo "0 passed, 0 failed"
		exit 0
	fi
	pid=$(cat "$pidfile")
	pass=0 fail=0
	if [ "$(start_time "$pid")" = "$(cat "$startfile")" ] &&
		[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$smbd")" ]; then
		echo "ok host: the sentinel smbd (pid $pid) still runs"
		pass=$((pass + 1))
	else
		echo "FAIL host: the sentinel smbd (pid $pid) is gone: something stopped a host smbd"
		fail=$((fail + 1))
	fi
	if answers; then
		echo "ok host: the sentinel still answers on 127.0.0.1:$port"
		pass=$((pass + 1))
	else
		echo "FAIL host: nothing answers on 127.0.0.1:$port any more"
		fail=$((fail + 1))
	fi
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	;;
stop)
	[ -s "$pidfile" ] || exit 0
	pid=$(cat "$pidfile")
	if [ "$(start_time "$pid")" = "$(cat "$startfile" 2>/dev/null)" ]; then
		kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null
		for _ in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -f "$pidfile" "$startfile"
	;;
*)
	echo "usage: $0 start|check|stop DIR" >&2
	exit 2
	;;
esac
