#!/bin/bash
# The SMB stage: the S-* suite and the smbtorture suites, in the QEMU guest.
#
#   testenv/run-smb-tests.sh [--update-docs] [--no-suite] [--no-torture] [--no-migrate] [--no-nfs]
#                            [--suites "SUITE ..."] [--shares "SHARE ..."]
#
# Host side.  It
#  1. gets the guest kernel: $RICHACL_KERNEL if set, else testenv/kernel-build.sh
#     (cached by its inputs), else /var/cache/richacl/kernel/current/bzImage,
#  2. builds the tools (testenv/build.sh) and the Debian packages
#     samba-vfs-richacl and richacl-tools (packaging/build-debs.sh); the guest
#     installs them (testenv/smb/install-debs.sh) and smbd loads the installed
#     module (checks S-PKG),
#  3. makes fresh disk images (testenv/mkimage.sh: richacl + plain ext4),
#  4. boots the guest (testenv/guest-run.sh) running testenv/smb/guest-tests.sh:
#     smbd on the guest's loopback port 445 with the [richacl], [aclxattr],
#     [nfs4acl] and [hideunread] shares, the S-* suite (testenv/tests/smb/run.py),
#     then smb2.acls smb2.create smb2.rename smb2.delete-on-close-perms
#     smb2.sdread smb2.maximum_allowed base.delete raw.acls against
#     //127.0.0.1/richacl and //127.0.0.1/aclxattr as an unprivileged user,
#     and the acl_xattr -> richacl migration test on a tree of 1,009 entries
#     (testenv/tests/migrate/guest-migrate.sh; left out with --no-migrate),
#     and the NFS stage in the same boot: knfsd exports the [richacl] share's
#     directory to the guest's own NFSv4.2 client over loopback, and the N-*
#     suite (testenv/tests/nfs/nfs.py) runs round trips, enforcement, SMB
#     interop and hostile acls there (left out with --no-nfs),
#  5. counts the results: every S-* check; every smbtorture test, where a
#     failure listed in testenv/smb/torture-knownfail.txt does not count as failed.
# Results stay in $RICHACL_SMB_OUT (default $RICHACL_LOGDIR/smb, or
# /tmp/richacl-test-logs/smb).  --update-docs rewrites docs/smbtorture-results.md
# with the pass-count table of this run.  The last line is "N passed, N failed";
# the exit status is 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${RICHACL_SMB_OUT:-${RICHACL_LOGDIR:-/tmp/richacl-test-logs}/smb}
update_docs=0
guest_args=()
shares="richacl aclxattr"
while [ $# -gt 0 ]; do
	case "$1" in
	--update-docs) update_docs=1; shift ;;
	--no-suite|--no-torture|--no-migrate|--migrate|--no-nfs) guest_args+=("$1"); shift ;;
	--suites) guest_args+=("$1" "${2:?}"); shift 2 ;;
	--shares) guest_args+=("$1" "${2:?}"); shares=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-smb-tests.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

start=$SECONDS
setup_fail=0
note() { echo "smb: $*"; }
problem() { echo "FAIL smb-setup: $*"; setup_fail=$((setup_fail + 1)); }

rm -rf "$out"
mkdir -p "$out"

# 1. kernel
kernel=""
if [ -n "${RICHACL_KERNEL:-}" ]; then
	kernel=$RICHACL_KERNEL
elif [ -f testenv/kernel-build.sh ]; then
	if ! kernel=$(bash testenv/kernel-build.sh 2>"$out/kernel-build.log"); then
		problem "testenv/kernel-build.sh failed (see $out/kernel-build.log);" \
			"falling back to /var/cache/richacl/kernel/current/bzImage"
		kernel=""
	fi
fi
[ -n "$kernel" ] || kernel=/var/cache/richacl/kernel/current/bzImage
if [ ! -r "$kernel" ]; then
	problem "no guest kernel ($kernel)"
	echo "0 passed, $setup_fail failed"
	exit 1
fi
note "kernel $(readlink -f "$kernel")"

# 2. tools and module
if ! bash testenv/build.sh >"$out/build.log" 2>&1; then
	problem "testenv/build.sh failed (see $out/build.log)"
fi
for t in getrichacl setrichacl; do
	[ -x "build/$t" ] || problem "build/$t is missing"
done
# the module and the tools as Debian packages (packaging/build-debs.sh), which
# the guest installs and serves from
debs=()
if mapfile -t debs < <(bash packaging/build-debs.sh 2>"$out/debs-build.log") &&
	[ ${#debs[@]} -eq 3 ]; then
	note "packages ${debs[*]##*/}"
else
	problem "packaging/build-debs.sh failed (see $out/debs-build.log); the richacl share cannot load the module"
	debs=()
fi

# 3. images
images=$out/images
if ! mapfile -t imgs < <(bash testenv/mkimage.sh "$images") || [ ${#imgs[@]} -ne 2 ]; then
	problem "testenv/mkimage.sh failed"
	echo "0 passed, $setup_fail failed"
	exit 1
fi

# 4. the guest
gargs=(--out /results/smb)
if [ ${#debs[@]} -gt 0 ]; then
	for d in "${debs[@]}"; do gargs+=(--deb "$d"); done
else
	gargs+=(--tools "$repo/build")
fi
t=$SECONDS
bash testenv/guest-run.sh --kernel "$kernel" --disk "${imgs[0]}" --disk "${imgs[1]}" \
	--results "$out/guest" --mem 1536 --timeout 2700 -- \
	bash "$repo/testenv/smb/guest-tests.sh" "${gargs[@]}" "${guest_args[@]}" \
	>"$out/guest.log" 2>&1
grc=$?
note "guest exit $grc after $((SECONDS - t)) s ($(grep -o 'accel [a-z]*' "$out/guest.log" | head -n1))"
[ "$grc" -eq 0 ] || problem "the guest run failed (exit $grc); last lines of $out/guest.log:
$(tail -n 15 "$out/guest.log" | sed 's/^/  | /')"
rm -rf "$images"
res=$out/guest/smb

# 5. counting
pass=0
fail=$setup_fail
count_suite() {	# file name
	local f=$1 name=$2 line
	if [ -f "$f" ]; then
		grep -E '^(ok|FAIL) ' "$f"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$f" | tail -n1)
		if [ -n "$line" ]; then
			pass=$((pass + $(cut -d' ' -f1 <<<"$line")))
			fail=$((fail + $(cut -d' ' -f3 <<<"$line")))
			note "$name suite: $line"
		elif ! printf '%s\n' "${guest_args[@]}" | grep -qx -- --no-suite; then
			fail=$((fail + 1))
			echo "FAIL $name suite: no summary line (see $f)"
			tail -n 20 "$f" | sed 's/^/  | /'
		fi
	elif ! printf '%s\n' "${guest_args[@]}" | grep -qx -- --no-suite; then
		fail=$((fail + 1))
		echo "FAIL $name suite: did not run"
	fi
}
if [ ${#debs[@]} -gt 0 ]; then
	for p in samba-vfs-richacl richacl-tools richacl-migrate; do
		line=$(grep "^installed $p " "$res/packages" 2>/dev/null)
		if [ -n "$line" ]; then
			echo "ok S-PKG the guest serves from the installed package $p ${line##* }"
			pass=$((pass + 1))
		else
			echo "FAIL S-PKG the guest installed $p (see $res/packages.err)"
			fail=$((fail + 1))
		fi
	done
fi
count_suite "$res/s-suite.txt" "S-*"
count_suite "$res/k2-suite.txt" "S-K2"
if ! printf '%s\n' "${guest_args[@]}" | grep -qx -- --no-migrate; then
	count_suite "$res/migrate-suite.txt" "migrate"
fi
if ! printf '%s\n' "${guest_args[@]}" | grep -qx -- --no-nfs; then
	count_suite "$res/nfs-suite.txt" "N-* (NFS)"
fi
count_suite "$res/s-suite-winbind.txt" "S-* (winbind)"
count_suite "$res/k2-suite-winbind.txt" "S-K2 (winbind)"
count_suite "$res/w-suite.txt" "S-W"
count_suite "$res/w-suite-winbind.txt" "S-W (winbind)"
[ -f "$res/winbind-ids.txt" ] && sed 's/^/smb: winbind id: /' "$res/winbind-ids.txt"

# summarize_torture DIR LABEL [torture-summary.py args]: count one results tree
summarize_torture() {
	local dir=$1 label=$2 line sum=$out/torture-summary$2.txt
	shift 2
	/usr/bin/python3 testenv/smb/torture-summary.py "$dir" \
		testenv/smb/torture-knownfail.txt "$@" >"$sum"
	grep -E '^(FAIL|known-fail|note|suite) ' "$sum"
	grep -E '^\|' "$sum"
	line=$(grep -E '^torture: [0-9]+ passed, [0-9]+ failed$' "$sum" | tail -n1)
	if [ -n "$line" ]; then
		pass=$((pass + $(cut -d' ' -f2 <<<"$line")))
		fail=$((fail + $(cut -d' ' -f4 <<<"$line")))
		note "${line/torture:/torture$label:}"
	else
		fail=$((fail + 1))
		echo "FAIL torture$label: no summary (see $sum)"
	fi
}

if [ -d "$res/torture" ]; then
	md_args=() wb_args=()
	if [ "$update_docs" = 1 ]; then
		md_args=(--markdown "$out/smbtorture-table.md")
		wb_args=(--markdown "$out/smbtorture-table-winbind.md")
	fi
	summarize_torture "$res/torture" "" "${md_args[@]}"
	if [ -d "$res/torture-winbind" ]; then
		summarize_torture "$res/torture-winbind" "-winbind" --setup winbind "${wb_args[@]}"
	elif [[ " $shares " == *" richacl "* ]]; then
		fail=$((fail + 1))
		echo "FAIL torture-winbind: no results"
	fi
	if [ "$update_docs" = 1 ] && [ -f "$out/smbtorture-table.md" ]; then
		bash testenv/smb/write-results-doc.sh "$out/smbtorture-table.md" "$res" \
			"$(readlink -f "$kernel")" "${module:-none}" \
			"$out/smbtorture-table-winbind.md" >docs/smbtorture-results.md
		note "wrote docs/smbtorture-results.md"
	fi
elif ! printf '%s\n' "${guest_args[@]}" | grep -qx -- --no-torture; then
	fail=$((fail + 1))
	echo "FAIL torture: no results"
fi
[ -f "$res/times" ] && sed 's/^/smb: time /' "$res/times"
note "results in $out; stage took $((SECONDS - start)) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
