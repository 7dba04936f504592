#!/bin/bash
# In-guest part of testenv/run-bench.sh (runs as root in the QEMU guest).
#
#   guest-bench.sh --out DIR --bin DIR --tools DIR [--module RICHACL_SO]
#                  [--control DIR] [--groups "walk smb smbwb work nfs"] [--quick]
#                  [--walk-rounds N] [--smb-runs N] [--smb-files N]
#
#   --out DIR      where the results go (the host's results share)
#   --bin DIR      path_walk, smb_meta and nfs_getattr
#   --tools DIR    setrichacl and getrichacl
#   --module SO    the vfs_richacl module for the [richacl] share
#   --control DIR  a tree d1/../d10/f0..f7 on the guest's root file system
#                  (overlayfs over 9p: every lookup leaves RCU-walk there),
#                  the positive control of the fallback counting
#   --quick        a short run, to check that everything works (the figures
#                  mean nothing)
#
# walk: /dev/vda (richacl ext4) on /mnt/rich, /dev/vdb (plain ext4) on
# /mnt/plain; six trees of a 10-deep path with 8 files at the end:
#   mode      plain ext4, mode bits only (the reference)
#   posix5    plain ext4, a POSIX acl of 5 entries on every directory and file
#   posix50   plain ext4, a POSIX acl of 50 entries
#   richmode  richacl ext4, no acls (mode bits only)
#   rich5     richacl ext4, a richacl of 5 entries on every directory and file
#   rich50    richacl ext4, a richacl of 50 entries
#   modeg     plain ext4, mode bits 0750/0640, group staff: bob (in staff) is
#             granted through the group class, so the check looks up his groups
#   rich5g    as rich5, but bob is granted by a group:staff entry, second
#   rich5o    as rich5, but bob owns the tree: owner@, first, grants him
#   rich5d    as rich5, with a deny entry for another user before everyone@
# In the POSIX acls and in rich5/rich50 the user who walks (bob: uid 1002,
# groups 1002 and staff) matches no entry but the last one (other:: /
# everyone@), as most users of a shared directory do.  The kernel decides
# what everyone@ grants without scanning (patch 39) unless a deny entry comes
# first: rich5d is that worst case, where the whole acl is scanned.  Output:
# walk.txt (path_walk), walk-control.txt, walk-setup.txt, profiles/walk-*.txt
# (perf, cpu-clock samples of one loop per tree and operation).
#
# smb: smbd with [richacl] (vfs_richacl on /mnt/rich/share), [aclxattr]
# (acl_xattr on POSIX acls, /mnt/plain/aclxattr), [nfs4acl] (nfs4acl_xattr,
# /mnt/plain/nfs4acl), made by testenv/smb/server.sh; smb_meta as alice, one
# process and connection per share and run, the shares taking turns run by
# run.  Output: smb.txt, profiles/smb-SHARE-WORKLOAD.txt (perf -a) and
# profiles/smb-SHARE-WORKLOAD.syscalls (strace of smbd during a short run).
#
# smbwb: the smb group again with winbindd running (server.sh --identity
# winbind: every SID's id comes from winbindd, as on a domain member).
# Output: smbwb.txt, profiles/smbwb-SHARE-WORKLOAD.*.
#
# nfs: knfsd exports /mnt/rich/nfsbench (testenv/tests/nfs/server.sh) with
# four files: mode (no acl), rich5 (a 5-entry richacl), rich5m (the same,
# masked by a chmod: knfsd shows it through richacl_apply_masks()), rich50
# (50 entries); nfs_getattr times an NFSv4 GETATTR of the acl against a
# GETATTR of the mode on each.  Output: nfs.txt, nfs-setup.txt.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
out="" bin="" tools="" module="" control="" groups="walk smb" quick=0
walk_rounds=15 walk_seconds=0.2 walk_count=1000 profile_seconds=4
smb_runs=3 smb_files=2000 smb_dirs=100 smb_acl_ops=200 nfs_rounds=15 nfs_seconds=0.3
work_browse=1000 work_copy_files=2000 work_copy_dirs=50
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?}; shift 2 ;;
	--bin) bin=${2:?}; shift 2 ;;
	--tools) tools=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--control) control=${2:?}; shift 2 ;;
	--groups) groups=${2:?}; shift 2 ;;
	--walk-rounds) walk_rounds=${2:?}; shift 2 ;;
	--smb-runs) smb_runs=${2:?}; shift 2 ;;
	--smb-files) smb_files=${2:?}; shift 2 ;;
	--quick) quick=1; shift ;;
	*) echo "guest-bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] && [ -n "$bin" ] && [ -n "$tools" ] ||
	{ echo "guest-bench.sh: --out, --bin and --tools are required" >&2; exit 2; }
if [ "$quick" = 1 ]; then
	walk_rounds=3 walk_seconds=0.1 walk_count=100 profile_seconds=1
	smb_runs=1 smb_files=100 smb_dirs=10 smb_acl_ops=20
	work_browse=100 work_copy_files=100 work_copy_dirs=5
	nfs_rounds=3 nfs_seconds=0.1
fi
[ "$(id -u)" = 0 ] || { echo "guest-bench.sh: must run as root (in the guest)" >&2; exit 2; }
mkdir -p "$out/profiles"
export LC_ALL=C
umask 022

DEPTH=10
FILES=8
WALK_USER=bob
FIND_USER=nobody
SMB_USER=alice
STATE=/run/richacl-bench
log() { echo "guest-bench: $*" >&2; }
now() { cut -d' ' -f1 /proc/uptime; }
status=0

{
	echo "kernel $(uname -r) $(uname -v)"
	echo "cmdline $(cat /proc/cmdline)"
	echo "cpus $(nproc)"
	grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*: /cpu /'
	echo "memory_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
} >"$out/guest-env.txt"

mkdir -p /mnt/rich /mnt/plain
rich_ok=0 plain_ok=0
if mount -t ext4 /dev/vda /mnt/rich 2>"$out/mount-rich.err"; then
	rich_ok=1
else
	log "the richacl image did not mount: $(cat "$out/mount-rich.err")"
fi
mount -t ext4 /dev/vdb /mnt/plain 2>"$out/mount-plain.err" && plain_ok=1
echo "mount rich=$rich_ok plain=$plain_ok" >>"$out/guest-env.txt"

# ---------------------------------------------------------------- walk ----

# acl text for a tree: posix|rich N dir|file
posix_text() {
	local n=$1 kind=$2 x=r-x own=rwx k text
	[ "$kind" = file ] && x=r-- own=rw-
	text="u::$own"
	for ((k = 1; k <= n - 4; k++)); do
		if ((k % 2)); then text+=",u:$((5000 + k)):$x"; else text+=",g:$((6000 + k)):$x"; fi
	done
	echo "$text,g::$x,m::$x,o::$x"
}

# rich_text N dir|file [g|d]: owner@, N-2 user/group entries, everyone@.
# Plain: bob matches only everyone@, which grants him execute (and read);
# g: the first middle entry is group:staff (bob's group) and grants him,
#    everyone@ grants nothing of it (the group-entry case);
# d: the first middle entry denies another user execute (read on files), so
#    no summary can decide bob's request and the whole acl is scanned.
rich_text() {
	local n=$1 kind=$2 variant=${3:-} x=rxaRcS own=rwpxdDaARWcCoS deny=x k text
	local every
	[ "$kind" = file ] && x=raRcS own=rwpaARWcCoS deny=r
	every=$x
	text="owner@:$own::allow"
	for ((k = 1; k <= n - 2; k++)); do
		if ((k == 1)) && [ "$variant" = g ]; then
			text+=" group:staff:$x::allow"
			every=aRcS
		elif ((k == 1)) && [ "$variant" = d ]; then
			text+=" user:$((5000 + k)):$deny::deny"
		elif ((k % 2)); then
			text+=" user:$((5000 + k)):$x::allow"
		else
			text+=" group:$((6000 + k)):$x::allow"
		fi
	done
	echo "$text everyone@:$every::allow"
}

# make_tree TOP none|posix|rich N
make_tree() {
	local top=$1 kind=$2 n=${3:-0} d i f dirs=()
	rm -rf "$top"
	mkdir -p "$top"
	d=$top
	dirs=("$top")
	for ((i = 1; i <= DEPTH; i++)); do
		d=$d/d$i
		dirs+=("$d")
	done
	mkdir -p "$d"
	for ((f = 0; f < FILES; f++)); do
		echo x >"$d/f$f"
	done
	chmod 0755 "${dirs[@]}"
	chmod 0644 "$d"/f*
	case "$kind" in
	none) ;;
	none-g)	# mode bits that grant bob through the group class only
		chgrp staff "${dirs[@]}" "$d"/f* || return 1
		chmod 0750 "${dirs[@]}"
		chmod 0640 "$d"/f*
		;;
	posix)
		setfacl --set "$(posix_text "$n" dir)" "${dirs[@]}" &&
			setfacl --set "$(posix_text "$n" file)" "$d"/f* || return 1
		;;
	rich | rich-g | rich-d | rich-o)
		local v=${kind#rich}
		v=${v#-}
		if [ "$v" = o ]; then	# bob owns the tree: owner@ grants him
			chown "$WALK_USER" "${dirs[@]}" "$d"/f* || return 1
			v=""
		fi
		"$tools/setrichacl" --set "$(rich_text "$n" dir "$v")" "${dirs[@]}" &&
			"$tools/setrichacl" --set "$(rich_text "$n" file "$v")" "$d"/f* ||
			return 1
		;;
	esac
}

# entries of the acl of one path, as the tools count them
acl_entries() {	# kind path
	case "$1" in
	none*) echo 0 ;;
	posix) getfacl -cp "$2" 2>/dev/null | grep -c '^[ugmo]' ;;
	rich*) "$tools/getrichacl" "$2" 2>/dev/null | grep -c ':\(allow\|deny\)$' ;;
	esac
}

fs_mounted() {	# rich|plain
	case "$1" in
	rich) [ "$rich_ok" = 1 ] ;;
	plain) [ "$plain_ok" = 1 ] ;;
	esac
}

run_walk() {
	local trees=() spec label fs kind n top leaf want got
	for spec in mode:plain:none:0 modeg:plain:none-g:0 posix5:plain:posix:5 \
		posix50:plain:posix:50 richmode:rich:none:0 rich5:rich:rich:5 \
		rich50:rich:rich:50 rich5g:rich:rich-g:5 rich5o:rich:rich-o:5 \
		rich5d:rich:rich-d:5; do
		IFS=: read -r label fs kind n <<<"$spec"
		if ! fs_mounted "$fs"; then
			echo "tree $label skipped: the $fs image is not mounted" >>"$out/walk-setup.txt"
			continue
		fi
		top=/mnt/$fs/walk-$label
		if ! make_tree "$top" "$kind" "$n" 2>>"$out/walk-setup.txt"; then
			echo "tree $label skipped: setting the acls failed" >>"$out/walk-setup.txt"
			status=1
			continue
		fi
		leaf=$top$(printf '/d%d' $(seq 1 $DEPTH))
		want=$n
		got="$(acl_entries "$kind" "$top") $(acl_entries "$kind" "$leaf") $(acl_entries "$kind" "$leaf/f0")"
		echo "tree $label fs=$fs acl=$kind entries(top,leaf dir,file)=$got want=$want" \
			>>"$out/walk-setup.txt"
		if [ "$got" != "$want $want $want" ]; then
			echo "tree $label skipped: wrong number of acl entries" >>"$out/walk-setup.txt"
			status=1
			continue
		fi
		if [ "$n" = 5 ]; then	# what the acls look like
			case "$kind" in
			posix) getfacl -cp "$top/d1" ;;
			rich*) "$tools/getrichacl" "$top/d1" ;;
			esac >>"$out/walk-setup.txt" 2>&1
		fi
		trees+=("$label=$top")
	done
	if [ ${#trees[@]} -eq 0 ]; then
		log "walk: no tree to walk"
		status=1
		return
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	local t0
	t0=$(now)
	"$bin/path_walk" --rounds "$walk_rounds" --seconds "$walk_seconds" --count "$walk_count" \
		--depth "$DEPTH" --files "$FILES" --user "$WALK_USER" "${trees[@]}" \
		>"$out/walk.txt" 2>"$out/walk.err" || { status=1; log "path_walk failed: $(cat "$out/walk.err")"; }
	log "walk: $(echo "$(now) - $t0" | bc) s"
	if [ -n "$control" ] && [ -d "$control" ]; then
		"$bin/path_walk" --rounds 1 --seconds 0.01 --count 100 --depth "$DEPTH" \
			--files "$FILES" --user "$WALK_USER" "control=$control" \
			>"$out/walk-control.txt" 2>&1
	fi

	# profiles: cpu-clock samples (the guest has no hardware counters)
	local tree op
	for tree in "${trees[@]}" ${control:+"control=$control"}; do
		for op in stat open; do
			[ "${tree%%=*}" = control ] && [ "$op" = open ] && continue
			profile_walk "$tree" "$op"
		done
	done
}

profile_walk() {	# LABEL=DIR op
	local label=${1%%=*} data=/tmp/perf-walk.data
	perf record -q -N -e cpu-clock -o "$data" -- "$bin/path_walk" --profile "$2" \
		--seconds "$profile_seconds" --depth "$DEPTH" --files "$FILES" \
		--user "$WALK_USER" "$1" >"$out/profiles/walk-$label-$2.run" 2>&1 ||
		return
	perf report -q -i "$data" --stdio --sort sym -n 2>/dev/null | sed '/^$/d' | head -n 40 \
		>"$out/profiles/walk-$label-$2.txt"
	perf report -i "$data" --stdio --sort sym 2>/dev/null | grep -m1 '^# Samples' \
		>>"$out/profiles/walk-$label-$2.run"
	rm -f "$data"
}

# ----------------------------------------------------------------- smb ----

declare -A SHARE_PATH=([richacl]=/mnt/rich/share [aclxattr]=/mnt/plain/aclxattr
	[nfs4acl]=/mnt/plain/nfs4acl)
SHARES=(richacl aclxattr nfs4acl)

smb_client() {	# share tag first-run extra-args...
	local share=$1 tag=$2 first=$3
	shift 3
	runuser -u "$SMB_USER" -- "$bin/smb_meta" --url "smb://127.0.0.1/$share" \
		--user "$SMB_USER" --password "$SMB_PW" --conf "$STATE/client.conf" \
		--tag "$tag" --first-run "$first" "$@"
}

# smb_syscalls GROUP SHARE WORKLOAD FILES ACL_OPS: strace smbd (and the
# connection process it forks) during a short run of one workload; writes
# profiles/GROUP-SHARE-WORKLOAD.syscalls: the client's "smb" lines, then the
# syscall counts, then the paths opened and the sockets connected to.
smb_syscalls() {
	local share=$2 w=$3 files=$4 ops=$5 spid tpid f=$out/profiles/$1-$2-$3
	command -v strace >/dev/null || return 0
	spid=$(cat "$STATE/smbd.pid" 2>/dev/null) || return 0
	strace -f -qq -e trace=openat,connect,setresuid,setresgid,setgroups \
		-o "$f.trace" -p "$spid" 2>/dev/null &
	tpid=$!
	sleep 1
	smb_client "$share" "strace-$share" 90 --workloads "$w" --files "$files" \
		--dirs "$smb_dirs" --acl-ops "$ops" >"$f.syscalls" 2>&1
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	{
		echo "## calls"
		grep -v -e 'resumed>' -e '^[0-9]* *---' -e '^[0-9]* *+++' "$f.trace" |
			sed -E 's/^[0-9]+ +//; s/\(.*//' |
			sort | uniq -c | sort -rn
		echo "## paths opened (top 12)"
		grep -o 'openat([^"]*"[^"]*"' "$f.trace" | sed 's/.*"\(.*\)"/\1/' |
			sed -E 's#/bench-[a-z]+-[0-9]+/.*#/bench-.../...#' |
			sort | uniq -c | sort -rn | head -n 12
		echo "## sockets connected to"
		grep -o 'connect(.*sun_path="[^"]*"' "$f.trace" | sed 's/.*sun_path="\(.*\)"/\1/' |
			sort | uniq -c | sort -rn | head -n 5
	} >>"$f.syscalls"
	rm -f "$f.trace"
}

# start_smbd GROUP [server.sh start arguments...]: the share directories,
# owned by the SMB user, and smbd serving them (testenv/smb/server.sh);
# sets SMB_PW.  Errors go to $out/GROUP-server.err; fails if smbd did not
# start.
start_smbd() {
	local group=$1 share
	shift
	for share in "${SHARES[@]}"; do
		mkdir -p "${SHARE_PATH[$share]}" 2>/dev/null
		chown "$SMB_USER:$SMB_USER" "${SHARE_PATH[$share]}" 2>/dev/null
		chmod 0755 "${SHARE_PATH[$share]}" 2>/dev/null
	done
	local start=(start --state "$STATE" --rich "${SHARE_PATH[richacl]}"
		--aclxattr "${SHARE_PATH[aclxattr]}" --nfs4acl "${SHARE_PATH[nfs4acl]}" "$@")
	[ -n "$module" ] && start+=(--module "$module")
	if ! bash "$repo/testenv/smb/server.sh" "${start[@]}" 2>"$out/$group-server.err"; then
		log "smbd did not start: $(tail -n 3 "$out/$group-server.err")"
		cp "$STATE/smbd.log" "$out/smbd.log" 2>/dev/null
		status=1
		return 1
	fi
	SMB_PW=$(awk -v u="$SMB_USER" '$1 == u { print $3 }' "$STATE/users")
}

# run_smb GROUP IDENTITY: the smb group (passdb) or the smbwb group (the
# same shares and workloads, smbd with winbindd allocating the ids:
# server.sh --identity winbind) -> GROUP.txt, profiles/GROUP-*
run_smb() {
	local group=$1 identity=$2 share
	start_smbd "$group" --identity "$identity" || return
	cp "$STATE/smb.conf" "$out/$group.conf"

	local sizes=(--files "$smb_files" --dirs "$smb_dirs" --acl-ops "$smb_acl_ops")
	local live=()
	for share in "${SHARES[@]}"; do
		# warm-up, not measured; a share that fails here is left out
		if smb_client "$share" warmup 90 --files 50 --dirs 5 --acl-ops 10 \
			>/dev/null 2>"$out/$group-$share-warmup.err"; then
			live+=("$share")
		else
			log "share $share fails: $(tail -n 2 "$out/$group-$share-warmup.err")"
			echo "share $share failed: $(tail -n 1 "$out/$group-$share-warmup.err")" >>"$out/$group.txt"
			status=1
		fi
	done
	local r i n=${#live[@]} t0
	for ((r = 0; r < smb_runs; r++)); do
		for ((i = 0; i < n; i++)); do
			share=${live[$(((i + r) % n))]}
			t0=$(now)
			smb_client "$share" "$share" "$r" "${sizes[@]}" >>"$out/$group.txt" \
				2>>"$out/$group-$share.err" || { status=1; log "smb_meta on $share failed"; }
			log "$group run $r $share: $(echo "$(now) - $t0" | bc) s"
		done
	done

	# profiles: the whole guest (smbd, client, kernel), one workload at a time
	local w data=/tmp/perf-smb.data pfiles=$((smb_files / 4))
	for share in "${live[@]}"; do
		for w in flat spread acl; do
			perf record -q -N -a -e cpu-clock -o "$data" -- \
				runuser -u "$SMB_USER" -- "$bin/smb_meta" --url "smb://127.0.0.1/$share" \
				--user "$SMB_USER" --password "$SMB_PW" --conf "$STATE/client.conf" \
				--tag "profile-$share" --first-run 80 --workloads "$w" \
				--files "$pfiles" --dirs "$smb_dirs" --acl-ops $((smb_acl_ops / 2)) \
				>"$out/profiles/$group-$share-$w.run" 2>&1 || continue
			{
				echo "## by process and object"
				perf report -q -i "$data" --stdio --sort comm,dso -n 2>/dev/null |
					sed '/^$/d' | head -n 25
				echo "## smbd by symbol"
				perf report -q -i "$data" --stdio --comms smbd --sort dso,sym -n \
					2>/dev/null | sed '/^$/d' | head -n 50
			} >"$out/profiles/$group-$share-$w.txt"
			perf report -i "$data" --stdio --sort comm 2>/dev/null | grep -m1 '^# Samples' \
				>>"$out/profiles/$group-$share-$w.run"
			rm -f "$data"
		done
	done
	# what smbd asks the kernel for, per workload: Debian's Samba libraries
	# have no symbols, so the syscalls and the files opened show which
	# layer works (idmap, passdb, nss) where perf only shows a library
	for share in "${live[@]}"; do
		for w in flat spread acl; do
			smb_syscalls "$group" "$share" "$w" $((smb_files / 10)) $((smb_acl_ops / 10))
		done
	done
	bash "$repo/testenv/smb/server.sh" stop --state "$STATE"
	tail -c 2000000 "$STATE/smbd.log" >"$out/$group-smbd.log" 2>/dev/null
	[ "$identity" = winbind ] && cp "$STATE/winbindd.log" "$out/$group-winbindd.log" 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- work ----

# Workloads that users run (issue 14, point 3), on the same three shares and
# their "hide unreadable = yes" copies ([SHARE-hide], smbconf.sh
# --bench-shares), the shares taking turns run by run:
#   browse  Explorer in a folder of 1000 files with descriptors: a listing,
#           and a listing with every descriptor read (smb_meta browse), on
#           SHARE and on SHARE-hide
#   copy    a robocopy /COPYALL-style copy of 2000 files of 64 KiB in 50
#           directories, each with its descriptor (smb_meta copy)
#   find    a local find(1) walk, as the unprivileged user nobody, of the
#           tree the last copy left on each share (the mode of every entry
#           printed, so that every entry is looked up and stat'ed).  nobody
#           is named by no entry of the copied descriptors: Everyone grants
#           him read and traverse.  (bob has an entry of his own without
#           traverse: the POSIX acl that acl_xattr writes gives him no x,
#           while Windows and the richacl add Everyone's.)
# Output: work.txt, "smb TAG WORKLOAD PHASE RUN OPS SECONDS OPS_PER_SECOND".
run_work() {
	local share
	start_smbd work --bench-shares || return
	local sizes=(--browse-files "$work_browse" --copy-files "$work_copy_files"
		--copy-dirs "$work_copy_dirs")
	local r i n=${#SHARES[@]} t0 t1 last=$((smb_runs - 1))
	# untimed: the browse folders (made once, kept) and a small copy, so
	# that no run pays for setting up or for a cold smbd
	for share in "${SHARES[@]}"; do
		smb_client "$share" warmup 90 --workloads browse,copy "${sizes[@]}" \
			--browse-reps 1 --copy-files 20 --copy-dirs 2 >/dev/null \
			2>>"$out/work-$share.err" &&
			smb_client "$share-hide" warmup 90 --workloads browse "${sizes[@]}" \
				--browse-reps 1 >/dev/null 2>>"$out/work-$share.err" ||
			{ status=1; log "smb_meta warm-up on $share failed"; }
		rm -rf "${SHARE_PATH[$share]}/bench-copy-90"
	done
	sync
	# Each phase starts with nothing left to write back: sync after every
	# client; the sync after a copy is timed and reported ("copy sync"),
	# so that a share whose copy ends before the kernel's write-back
	# starts pays for its data too.
	for ((r = 0; r < smb_runs; r++)); do
		for ((i = 0; i < n; i++)); do
			share=${SHARES[$(((i + r) % n))]}
			t0=$(now)
			if smb_client "$share" "$share" "$r" --workloads browse "${sizes[@]}" \
				>>"$out/work.txt" 2>>"$out/work-$share.err"; then
				sync
				if smb_client "$share" "$share" "$r" --workloads copy "${sizes[@]}" \
					>>"$out/work.txt" 2>>"$out/work-$share.err"; then
					t1=$(date +%s.%N)
					sync
					echo "$share $r $work_copy_files $t1 $(date +%s.%N)" | awk '{
						s = $5 - $4; printf "smb %s copy sync %d %d %.4f %.1f\n",
						$1, $2, $3, s, $3 / s }' >>"$out/work.txt"
				else
					status=1
					log "smb_meta copy on $share failed"
				fi
				smb_client "$share-hide" "$share-hide" "$r" --workloads browse \
					"${sizes[@]}" >>"$out/work.txt" 2>>"$out/work-$share.err" ||
					{ status=1; log "smb_meta browse on $share-hide failed"; }
			else
				status=1
				log "smb_meta browse on $share failed"
			fi
			# the copy of the last run stays for the find walk
			[ "$r" -lt "$last" ] && rm -rf "${SHARE_PATH[$share]}/bench-copy-$r"
			sync
			log "work run $r $share: $(echo "$(now) - $t0" | bc) s"
		done
	done
	bash "$repo/testenv/smb/server.sh" stop --state "$STATE"

	# find: the time of 6 walks in one process minus that of 1 walk in
	# another, so that starting runuser, bash and find is not counted
	local tree entries s1 s6
	for ((r = 0; r < smb_runs; r++)); do
		for ((i = 0; i < n; i++)); do
			share=${SHARES[$(((i + r) % n))]}
			tree=${SHARE_PATH[$share]}/bench-copy-$last
			[ -d "$tree" ] || continue
			entries=$(runuser -u "$FIND_USER" -- find "$tree" -printf '%m\n' |
				wc -l) && s1=$(find_walks 1 "$tree") && s6=$(find_walks 6 "$tree") ||
				{ status=1; log "find on $tree failed"; continue; }
			echo "$share $r $entries $s1 $s6" | awk '{ s = $5 - $4; n = $3 * 5;
				printf "smb %s find walk %d %d %.4f %.1f\n", $1, $2, n, s, n / s }' \
				>>"$out/work.txt"
		done
	done
}

run_nfs() {
	local dir=/mnt/rich/nfsbench i acl50="" f
	local acl5="owner@:rwpxcCoS::allow user:1002:rwp::allow group:2000:rx::allow
		user:1003:w::deny everyone@:r::allow"
	if ! fs_mounted rich; then
		log "nfs: the richacl image is not mounted"
		status=1
		return
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	for i in $(seq 1 49); do acl50="$acl50 user:$((3000 + i)):rx::allow"; done
	for f in mode rich5 rich5m rich50; do echo data >"$dir/$f"; done
	chmod 0644 "$dir/mode"
	{
		"$tools/setrichacl" --set "$acl5" "$dir/rich5" &&
		"$tools/setrichacl" --set "$acl5" "$dir/rich5m" &&
		chmod 0640 "$dir/rich5m" &&
		"$tools/setrichacl" --set "$acl50 everyone@:r::allow" "$dir/rich50" &&
		"$tools/getrichacl" --raw "$dir"/*
	} >"$out/nfs-setup.txt" 2>&1 || { log "nfs: setting the acls failed"; status=1; return; }
	if ! bash "$repo/testenv/tests/nfs/server.sh" start --state /run/richacl-nfs-bench \
		--export "$dir" --mount /mnt/nfs 2>>"$out/nfs-setup.txt"; then
		log "nfs: the server did not start (see nfs-setup.txt)"
		status=1
		return
	fi
	"$bin/nfs_getattr" --rounds "$nfs_rounds" --seconds "$nfs_seconds" \
		mode=mode rich5=rich5 rich5m=rich5m rich50=rich50 \
		>"$out/nfs.txt" 2>"$out/nfs.err" || { status=1; log "nfs_getattr failed: $(cat "$out/nfs.err")"; }
	bash "$repo/testenv/tests/nfs/server.sh" stop --state /run/richacl-nfs-bench
}

# find_walks N TREE: seconds for N find walks of TREE in one process as
# $FIND_USER; fails if any walk fails
find_walks() {
	local t0 t1
	t0=$(date +%s.%N)
	runuser -u "$FIND_USER" -- bash -c \
		'for ((k = 0; k < $1; k++)); do find "$2" -printf "%m\n" >/dev/null || exit 1; done' \
		find-loop "$1" "$2" || return 1
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

t_start=$(now)
for g in $groups; do
	t=$(now)
	case "$g" in
	walk) run_walk ;;
	smb) run_smb smb passdb ;;
	smbwb) run_smb smbwb winbind ;;
	work) run_work ;;
	nfs) run_nfs ;;
	*) log "unknown group '$g'"; status=1 ;;
	esac
	echo "group $g $(echo "$(now) - $t" | bc)" >>"$out/times"
done
dmesg >"$out/dmesg.txt" 2>/dev/null
cd /
mountpoint -q /mnt/rich && umount /mnt/rich
mountpoint -q /mnt/plain && umount /mnt/plain
echo "total $(echo "$(now) - $t_start" | bc)" >>"$out/times"
exit "$status"
