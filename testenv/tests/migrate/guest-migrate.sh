#!/bin/bash
# In-guest test of the acl_xattr -> richacl migration tool
# (tools/richacl-migrate-ntacl).  Run as root in the QEMU guest while the
# smbd of testenv/smb/server.sh is running (as after guest-tests.sh step 2,
# or testenv/demo.sh): [aclxattr] on /mnt/plain/aclxattr, [richacl] on
# /mnt/rich/share, users alice, bob and carol.
#
#   guest-migrate.sh [--state DIR] [--tools DIR] [--tool PATH] [--helper PATH]
#                    [--out DIR] [--entries N] [--mxac-sample N] [--loop-subset N]
#                    [--keep]
#
#   --state DIR        server.sh state directory (default /run/richacl-smb)
#   --tools DIR        directory with getrichacl and richacl-ntsd2xattr
#                      (default: the repository's build/)
#   --tool PATH        the richacl-migrate-ntacl under test (default: the
#                      repository's tools/; the installed package's
#                      /usr/sbin/richacl-migrate-ntacl when guest-tests.sh
#                      installed it)
#   --helper PATH      its richacl-ntsd2xattr (default: in --tools)
#   --out DIR          results (default /tmp/richacl-migrate): migrate.txt (the
#                      ok/FAIL lines), dry-run.txt (the tool's dry-run report of
#                      the tree), migrate-report.txt, timing.txt, migrate.journal
#   --entries N        size of the tree (default 1000; a few more are made)
#   --mxac-sample N    entries whose smbcacls -x MxAc is compared (default 60,
#                      0 = all: one smbcacls process per user and entry)
#   --loop-subset N    files run through the admin guide's samba-tool loop
#                      (default 40)
#   --keep             leave the trees (migtree, migloop) on the shares
#
# What it does (details in guest_migrate.py): builds the tree over SMB on
# [aclxattr] with varied ACLs, records what every user is granted on every
# entry, copies the tree with rsync -aX to the richacl file system, runs the
# tool's dry run and the tool, checks through [richacl] that every user is
# granted the same up to the documented normalisations, and times the tool
# against the samba-tool loop.  The trees live in a directory "migtree" of
# each share and "migloop" of [richacl]; earlier ones are removed first.
# smbd keeps running: nobody but this test uses the copied tree (the tool
# warns that smbd runs).  If samba-tool has no domain SID, the machine SID is
# stored as the domain SID of the test server (docs/admin-guide.md 4.1).
#
# Output: one "ok ..."/"FAIL ..." line per check, then "N passed, N failed";
# exit status 1 if anything failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
state=/run/richacl-smb tools=$repo/build out=/tmp/richacl-migrate helper=""
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--state) state=${2:?}; shift 2 ;;
	--tools) tools=${2:?}; shift 2 ;;
	--tool) args+=("$1" "${2:?}"); shift 2 ;;
	--helper) helper=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--entries|--mxac-sample|--loop-subset) args+=("$1" "${2:?}"); shift 2 ;;
	--keep) args+=("$1"); shift ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "guest-migrate.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "guest-migrate.sh: must run as root (in the guest)" >&2; exit 2; }
mkdir -p "$out"
fail() {
	echo "FAIL setup: $*" | tee "$out/migrate.txt"
	echo "0 passed, 1 failed" | tee -a "$out/migrate.txt"
	exit 1
}
[ -r "$state/smb.conf" ] || fail "no $state/smb.conf (start testenv/smb/server.sh first)"
kill -0 "$(cat "$state/smbd.pid" 2>/dev/null)" 2>/dev/null || fail "smbd of $state is not running"
[ -x "$tools/getrichacl" ] || fail "no $tools/getrichacl (bash testenv/build.sh)"
[ -n "$helper" ] || helper=$tools/richacl-ntsd2xattr
[ -x "$helper" ] || fail "no $helper (bash testenv/build.sh)"
args+=(--helper "$helper")
command -v rsync >/dev/null || echo "# rsync missing: the tree is copied by python" >&2

/usr/bin/python3 "$here/guest_migrate.py" --state "$state" --tools "$tools" --out "$out" \
	"${args[@]}" 2>&1 | tee "$out/migrate.txt"
exit "${PIPESTATUS[0]}"
