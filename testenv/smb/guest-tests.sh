#!/bin/bash
# In-guest part of testenv/run-smb-tests.sh (runs as root in the QEMU guest).
#
#   guest-tests.sh --out DIR (--tools DIR [--module RICHACL_SO] | --deb DEB...)
#                  [--rich-dev DEV] [--plain-dev DEV]
#                  [--no-suite] [--no-torture] [--no-migrate] [--no-nfs]
#                  [--suites "SUITE ..."]
#                  [--shares "SHARE ..."]
#
# 0. with --deb (repeatable): installs the packages of packaging/build-debs.sh
#    (install-debs.sh), then uses the installed module and /usr/bin's tools;
#    DIR/packages lists what was installed,
# 1. mounts the richacl ext4 image (DEV default /dev/vda) on /mnt/rich and the
#    plain ext4 image (/dev/vdb) on /mnt/plain,
# 2. starts smbd on the guest's loopback port 445 (testenv/smb/server.sh) with
#    [richacl] = /mnt/rich/share, [aclxattr] = /mnt/plain/aclxattr,
#    [nfs4acl] = /mnt/plain/nfs4acl and [hideunread],
# 3. runs the S-* suite (testenv/tests/smb/run.py) -> DIR/s-suite.txt, then the
#    S-K2 suite (testenv/tests/smb/verdict.py, one verdict) -> DIR/k2-suite.txt,
#    and the S-W suite (testenv/tests/smb/windows.py) -> DIR/w-suite.txt,
#    then (unless --no-nfs) the NFS stage: knfsd exports /mnt/rich/share over
#    loopback, the NFSv4.2 client mounts it on /mnt/nfs (testenv/tests/nfs/
#    server.sh), and the N-* suite (testenv/tests/nfs/nfs.py) runs against it
#    and the same smbd -> DIR/nfs-suite.txt, then (unless --no-migrate) the
#    acl_xattr -> richacl migration test (testenv/tests/migrate/guest-migrate.sh)
#    -> DIR/migrate-suite.txt,
# 4. runs each smbtorture suite against each share, as the unprivileged SMB
#    user alice, with the smbtorture process itself running as the local
#    user alice (runuser), on an emptied share directory that alice owns,
#    --format=subunit -> DIR/torture/SHARE/SUITE.subunit (+ .stderr, .rc),
#    wall times -> DIR/times.  The tests of smb2.acls and raw.acls all work
#    in one fixed directory (smb2-testsd, testsd), which a failing test can
#    leave behind undeletable; the next tests would then fail in their setup
#    and say nothing about ACLs.  These suites therefore run one test per
#    smbtorture process, each on an emptied share (as Samba's selftest
#    starts from a fresh share),
#    smb2.streams runs against [rstreams] and [astreams], the same paths with
#    streams_xattr stacked above the ACL module, and is filed under richacl
#    and aclxattr,
# 5. stops smbd and leaves its log in DIR/smbd.log,
# 6. starts the server again with winbindd (server.sh --identity winbind),
#    records the gids winbindd gives the well-known SIDs (DIR/winbind-ids.txt)
#    and runs the S-* suite -> DIR/s-suite-winbind.txt, the smbtorture suites
#    against each share -> DIR/torture-winbind/SHARE/, the S-W
#    suite -> DIR/w-suite-winbind.txt and the S-K2 suite -> DIR/k2-suite-winbind.txt.
# The host (testenv/smb/torture-summary.py) turns the results into counts.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
SUITES="smb2.acls smb2.create smb2.rename smb2.delete-on-close-perms smb2.sdread
	smb2.maximum_allowed base.delete raw.acls
	smb2.getinfo smb2.setinfo smb2.lock smb2.streams smb2.dir
	raw.open raw.mkdir raw.unlink raw.rename raw.sfileinfo raw.qfileinfo
	base.attr base.chkpath"
SHARES="richacl aclxattr"
out="" tools="" module="" rich_dev=/dev/vda plain_dev=/dev/vdb
run_suite=1 run_torture=1 run_migrate=1 run_nfs=1 debs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?}; shift 2 ;;
	--tools) tools=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	--deb) debs+=("${2:?}"); shift 2 ;;
	--rich-dev) rich_dev=${2:?}; shift 2 ;;
	--plain-dev) plain_dev=${2:?}; shift 2 ;;
	--no-suite) run_suite=0; shift ;;
	--no-torture) run_torture=0; shift ;;
	--migrate) run_migrate=1; shift ;;
	--no-migrate) run_migrate=0; shift ;;
	--no-nfs) run_nfs=0; shift ;;
	--suites) SUITES=${2:?}; shift 2 ;;
	--shares) SHARES=${2:?}; shift 2 ;;
	*) echo "guest-tests.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || { echo "guest-tests.sh: --out is required" >&2; exit 2; }
mkdir -p "$out"
if [ ${#debs[@]} -gt 0 ]; then
	[ -z "$module" ] || { echo "guest-tests.sh: --module and --deb exclude each other" >&2; exit 2; }
	if ! bash "$here/install-debs.sh" "${debs[@]}" >"$out/packages" 2>"$out/packages.err"; then
		cat "$out/packages.err" >&2
		echo "FAIL packages: $(tail -n 1 "$out/packages.err")" >"$out/s-suite.txt"
		exit 1
	fi
	grep -q '^installed richacl-tools ' "$out/packages" && tools=/usr/bin
fi
[ -n "$tools" ] || { echo "guest-tests.sh: --tools (or --deb of richacl-tools) is required" >&2; exit 2; }
STATE=/run/richacl-smb
TORTURE_USER=alice
now() { cut -d' ' -f1 /proc/uptime; }
log() { echo "guest-tests: $*" >&2; }
[ -e /proc/self/fd ] || mount -t proc proc /proc

: >"$out/times"
t0=$(now)
# rplain: vfs_richacl without richacl support (smbconf.sh: beside aclxattr)
declare -A SHARE_PATH=([richacl]=/mnt/rich/share [aclxattr]=/mnt/plain/aclxattr
	[nfs4acl]=/mnt/plain/nfs4acl [rplain]=/mnt/plain/rplain)

mkdir -p /mnt/rich /mnt/plain
if err=$(mount -t ext4 "$rich_dev" /mnt/rich 2>&1); then
	mkdir -p /mnt/rich/share
	echo "richacl mount: ok" >"$out/mounts"
else
	# The share directory stays missing: every richacl test then fails loudly.
	echo "richacl mount: FAILED: $err $(dmesg | grep -i 'ext4' | tail -n 1)" >"$out/mounts"
	log "the richacl image did not mount: $err"
	rmdir /mnt/rich
fi
if err=$(mount -t ext4 "$plain_dev" /mnt/plain 2>&1); then
	mkdir -p /mnt/plain/aclxattr /mnt/plain/nfs4acl /mnt/plain/rplain
	echo "plain mount: ok" >>"$out/mounts"
else
	echo "plain mount: FAILED: $err" >>"$out/mounts"
	log "the plain image did not mount: $err"
fi

# the S-W suite (windows.py) against smbd of state dir $1, identity $2
run_windows() {	# state identity
	find "${SHARE_PATH[rplain]}" -mindepth 1 -delete 2>/dev/null
	/usr/bin/python3 "$repo/testenv/tests/smb/windows.py" --state "$1" \
		--path "${SHARE_PATH[richacl]}" --plain-path "${SHARE_PATH[rplain]}" \
		--tools "$tools" --identity "$2"
}

start_args=(start --state "$STATE" --rich "${SHARE_PATH[richacl]}"
	--aclxattr "${SHARE_PATH[aclxattr]}" --nfs4acl "${SHARE_PATH[nfs4acl]}" --test-shares)
[ -n "$module" ] && start_args+=(--module "$module")
if ! bash "$here/server.sh" "${start_args[@]}" 2>"$out/server-start.err"; then
	cat "$out/server-start.err" >&2
	cp "$STATE/smbd.log" "$out/smbd.log" 2>/dev/null
	echo "FAIL smbd-start: $(tail -n 1 "$out/server-start.err")" >"$out/s-suite.txt"
	exit 1
fi
cp "$STATE/smb.conf" "$out/smb.conf"
echo "smbd-start $(echo "$(now) - $t0" | bc)" >>"$out/times"

if [ "$run_suite" = 1 ]; then
	t=$(now)
	/usr/bin/python3 "$repo/testenv/tests/smb/run.py" --state "$STATE" \
		--path "${SHARE_PATH[richacl]}" --share richacl --tools "$tools" \
		>"$out/s-suite.txt" 2>&1
	echo "s-suite $(echo "$(now) - $t" | bc)" >>"$out/times"
	t=$(now)
	/usr/bin/python3 "$repo/testenv/tests/smb/verdict.py" --state "$STATE" \
		--path "${SHARE_PATH[richacl]}" --tools "$tools" \
		>"$out/k2-suite.txt" 2>&1
	echo "k2-suite $(echo "$(now) - $t" | bc)" >>"$out/times"
	t=$(now)
	run_windows "$STATE" passdb >"$out/w-suite.txt" 2>&1
	echo "w-suite $(echo "$(now) - $t" | bc)" >>"$out/times"
fi

# The NFS stage (issue 16): knfsd and the NFSv4 client in this guest, on the
# [richacl] share's directory while the passdb smbd serves it (interop rows).
if [ "$run_nfs" = 1 ]; then
	t=$(now)
	NFS_STATE=/run/richacl-nfs
	if bash "$repo/testenv/tests/nfs/server.sh" start --state "$NFS_STATE" \
		--export "${SHARE_PATH[richacl]}" --mount /mnt/nfs 2>"$out/nfs-start.err"; then
		echo "nfs-start $(echo "$(now) - $t" | bc)" >>"$out/times"
		/usr/bin/python3 "$repo/testenv/tests/nfs/nfs.py" --state "$STATE" \
			--path "${SHARE_PATH[richacl]}" --mount /mnt/nfs --tools "$tools" \
			>"$out/nfs-suite.txt" 2>&1
	else
		cat "$out/nfs-start.err" >&2
		echo "FAIL nfs-start: $(tail -n 1 "$out/nfs-start.err")" >"$out/nfs-suite.txt"
	fi
	bash "$repo/testenv/tests/nfs/server.sh" stop --state "$NFS_STATE"
	echo "nfs $(echo "$(now) - $t" | bc)" >>"$out/times"
fi

# the acl_xattr -> richacl migration tool on a tree made over SMB
# (testenv/tests/migrate/guest-migrate.sh; the installed package
# richacl-migrate's tool and helper, or without packages the repository's).
# Left out with --no-migrate.
if [ "$run_migrate" = 1 ]; then
	t=$(now)
	mig=(--tools "$repo/build")
	if grep -q '^installed richacl-migrate ' "$out/packages" 2>/dev/null; then
		mig=(--tools "$tools" --tool /usr/sbin/richacl-migrate-ntacl
			--helper /usr/lib/richacl/richacl-ntsd2xattr)
	fi
	bash "$repo/testenv/tests/migrate/guest-migrate.sh" --state "$STATE" \
		"${mig[@]}" --out "$out/migrate" >"$out/migrate-suite.txt" 2>&1
	echo "migrate $(echo "$(now) - $t" | bc)" >>"$out/times"
fi

empty_share() {	# share
	local dir=${SHARE_PATH[$1]}
	[ -d "$dir" ] || return 1
	find "$dir" -mindepth 1 -delete
	if [ "$1" = richacl ]; then
		"$tools/setrichacl" --remove "$dir" 2>/dev/null
	else
		setfacl -b "$dir" 2>/dev/null
		setfattr -x security.NTACL "$dir" 2>/dev/null
	fi
	chown "$TORTURE_USER:$TORTURE_USER" "$dir"
	chmod 0755 "$dir"
}

# Suites whose tests run one by one, each on an emptied share (see above).
SPLIT_SUITES="smb2.acls raw.acls"
# Suites that need named streams run against the share of the same path
# with streams_xattr stacked above the ACL module (smbconf.sh --test-shares);
# their results are filed under the share they stand for.
STREAMS_SUITES="smb2.streams smb2.getinfo smb2.setinfo smb2.dir raw.qfileinfo raw.sfileinfo raw.rename"
declare -A STREAMS_SHARE=([richacl]=rstreams [aclxattr]=astreams)

# torture_one STATE SHARE TEST RES PROTO...: one smbtorture run appended to RES.*
torture_one() {
	local state=$1 share=$2 test=$3 res=$4 rc pw target=$2
	shift 4
	# "smb2.streams.rename" -> "smb2.streams"
	if [[ " $STREAMS_SUITES " == *" $(cut -d. -f1,2 <<<"$test") "* ]]; then
		target=${STREAMS_SHARE[$share]:?no streams share for $share}
	fi
	pw=$(awk -v u="$TORTURE_USER" '$1 == u { print $3 }' "$state/users")
	runuser -u "$TORTURE_USER" -- timeout -k 10 600 \
		smbtorture "//127.0.0.1/$target" -s "$state/client.conf" \
		"-U$TORTURE_USER%$pw" -T samba3 "$@" \
		--format=subunit --fullname --basedir="$basedir" "$test" \
		>>"$res.subunit" 2>>"$res.stderr" </dev/null
	rc=$?
	[ "$rc" -gt "$(cat "$res.rc" 2>/dev/null || echo 0)" ] && echo "$rc" >"$res.rc"
	return 0
}

# run_torture STATE DIR TAG SHARE...: every suite of $SUITES against each
# share of the server in STATE -> DIR/SHARE/SUITE.*, times tagged TAG
run_torture() {
	local state=$1 dir=$2 tag=$3 share suite res proto t tests t1
	shift 3
	basedir=/tmp/torture-basedir
	mkdir -p "$basedir"
	chown "$TORTURE_USER:$TORTURE_USER" "$basedir"
	for share in "$@"; do
		mkdir -p "$dir/$share"
		bash "$here/server.sh" hideunread --state "$state" "$share" ||
			log "could not point [hideunread] at $share"
		for suite in $SUITES; do
			res=$dir/$share/$suite
			proto=()
			case "$suite" in base.*|raw.*) proto=(-m NT1) ;; esac
			t=$(now)
			: >"$res.subunit"
			: >"$res.stderr"
			echo 0 >"$res.rc"
			tests=""
			if [[ " $SPLIT_SUITES " == *" $suite "* ]]; then
				# "smb2.acls.DENY1.DENY1" -> "smb2.acls.DENY1"
				tests=$(smbtorture --list "$suite" 2>/dev/null |
					grep "^$suite\." | sed 's/\.[^.]*$//' | awk '!seen[$0]++')
			fi
			if [ -n "$tests" ]; then
				for t1 in $tests; do
					empty_share "$share" || break
					torture_one "$state" "$share" "$t1" "$res" "${proto[@]}"
				done
			elif empty_share "$share"; then
				torture_one "$state" "$share" "$suite" "$res" "${proto[@]}"
			else
				echo "share directory ${SHARE_PATH[$share]} missing" >"$res.stderr"
				: >"$res.subunit"
				echo 125 >"$res.rc"
			fi
			echo "torture$tag $share $suite $(echo "$(now) - $t" | bc)" >>"$out/times"
			log "$share$tag $suite: rc $(cat "$res.rc") ($(echo "$(now) - $t" | bc) s)"
		done
	done
}

if [ "$run_torture" = 1 ]; then
	# shellcheck disable=SC2086 # SHARES is a list
	run_torture "$STATE" "$out/torture" "" $SHARES
fi

bash "$here/server.sh" stop --state "$STATE"
# The log of a long run can be large; keep the end of it.
tail -c 4000000 "$STATE/smbd.log" >"$out/smbd.log" 2>/dev/null

# The second identity setup: the same server with winbindd allocating the
# ids (docs/mapping.md, "Well-known SIDs"); the S-* suite, the smbtorture
# suites on both shares (what acl_xattr passes with winbind is the bar for
# richacl with winbind), and the S-K2 suite again.
if [ "$run_suite" = 1 ] || [ "$run_torture" = 1 ]; then
	t=$(now)
	STATE_WB=/run/richacl-smb-winbind
	dir=${SHARE_PATH[richacl]}
	empty_share richacl && chown root:root "$dir"
	wb_args=(start --state "$STATE_WB" --rich "${SHARE_PATH[richacl]}"
		--aclxattr "${SHARE_PATH[aclxattr]}" --nfs4acl "${SHARE_PATH[nfs4acl]}"
		--test-shares --identity winbind)
	[ -n "$module" ] && wb_args+=(--module "$module")
	if bash "$here/server.sh" "${wb_args[@]}" 2>"$out/server-start-winbind.err"; then
		cp "$STATE_WB/smb.conf" "$out/smb-winbind.conf"
		for sid in S-1-1-0 S-1-5-2 S-1-5-11 S-1-5-4 S-1-5-18 S-1-5-32-544 S-1-5-32-545 \
			S-1-3-4 S-1-0-0; do
			echo "$sid gid $(wbinfo --sid-to-gid "$sid" 2>&1 | tail -n 1)"
		done >"$out/winbind-ids.txt"
		if [ "$run_suite" = 1 ]; then
			/usr/bin/python3 "$repo/testenv/tests/smb/run.py" --state "$STATE_WB" \
				--path "$dir" --share richacl --tools "$tools" \
				>"$out/s-suite-winbind.txt" 2>&1
		fi
		if [ "$run_torture" = 1 ]; then
			# shellcheck disable=SC2086 # SHARES is a list
			run_torture "$STATE_WB" "$out/torture-winbind" -winbind $SHARES
			for share in $SHARES; do
				empty_share "$share"
			done
			chown root:root "$dir"
		fi
		if [ "$run_suite" = 1 ]; then
			run_windows "$STATE_WB" winbind >"$out/w-suite-winbind.txt" 2>&1
		fi
		# last: its S-K2-outage row stops winbindd
		if [ "$run_suite" = 1 ]; then
			/usr/bin/python3 "$repo/testenv/tests/smb/verdict.py" --state "$STATE_WB" \
				--path "$dir" --tools "$tools" --identity winbind \
				>"$out/k2-suite-winbind.txt" 2>&1
		fi
	else
		cat "$out/server-start-winbind.err" >&2
		echo "FAIL smbd-start (winbind): $(tail -n 1 "$out/server-start-winbind.err")" \
			>"$out/s-suite-winbind.txt"
	fi
	bash "$here/server.sh" stop --state "$STATE_WB"
	tail -c 2000000 "$STATE_WB/smbd.log" >"$out/smbd-winbind.log" 2>/dev/null
	cp "$STATE_WB/winbindd.log" "$out/winbindd.log" 2>/dev/null
	echo "winbind-total $(echo "$(now) - $t" | bc)" >>"$out/times"
fi
dmesg >"$out/dmesg.txt" 2>/dev/null
cd /
mountpoint -q /mnt/rich && umount /mnt/rich
mountpoint -q /mnt/plain && umount /mnt/plain
echo "total $(echo "$(now) - $t0" | bc)" >>"$out/times"
exit 0
