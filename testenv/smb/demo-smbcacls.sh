#!/bin/bash
# Run smbcacls against the demo share from the host, through the running demo
# guest (testenv/demo.sh).  smbcacls of Samba 4.17 ignores "smb ports" and
# only reaches port 445, so the request goes to the guest, which runs
#   smbcacls //127.0.0.1/richacl ARGS...
# there and sends back its output and exit status.
#
#   testenv/smb/demo-smbcacls.sh FILE -U alice%alice-pw [smbcacls options...]
set -uo pipefail
dir=${RICHACL_DEMO_DIR:-/tmp/richacl-demo}/guest/demo-cmd
[ -d "$dir" ] || { echo "demo-smbcacls: no running demo (no $dir); start bash testenv/demo.sh" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 FILE -U USER%PASSWORD [smbcacls options...]" >&2; exit 2; }
id=$dir/$$-$RANDOM
printf '%s\0' "$@" >"$id.tmp"
mv "$id.tmp" "$id.req"
for _ in $(seq 1 600); do
	if [ -f "$id.rc" ]; then
		cat "$id.out"
		rc=$(cat "$id.rc")
		rm -f "$id.out" "$id.rc"
		exit "$rc"
	fi
	sleep 0.2
done
rm -f "$id.req"
echo "demo-smbcacls: no answer from the guest after 120 s" >&2
exit 1
