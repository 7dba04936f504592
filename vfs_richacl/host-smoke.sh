#!/bin/bash
# Smoke test of vfs_richacl with Debian's packaged smbd on the host, which
# has no richacl kernel: the module must load by name, serve a share, show
# the ACL derived from the mode (M1), store a mode-equivalent ACL as a mode
# and refuse any other ACL cleanly (NT_STATUS_NOT_SUPPORTED, nothing
# changed).  The real semantics are tested in the QEMU guest (testenv/).
#
#   vfs_richacl/host-smoke.sh          (as root)
#
# Side effects on the host, all reverted or harmless:
#  - installs the module as /usr/lib/x86_64-linux-gnu/samba/vfs/richacl.so
#    (Samba only loads VFS modules by name from there);
#  - creates the local user "richacltest" if missing (no home, no shell);
#  - runs smbd on 127.0.0.1 ports 4445 and 445 while the test runs, with all
#    state in a scratch directory, and stops it (by its pid) at the end.
# Prints "N passed, N failed"; exit status 0 only if nothing failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ "$(id -u)" = 0 ] || { echo "host-smoke: run as root" >&2; exit 2; }

MODDIR=/usr/lib/x86_64-linux-gnu/samba/vfs
USER_NAME=richacltest
USER_PASS='Rich-acl-1'

so=$(bash "$here/build.sh")
install -m 0644 "$so" "$MODDIR/richacl.so"

S=$(mktemp -d /tmp/richacl-smoke.XXXXXX)
chmod 0755 "$S"
mkdir -p "$S"/{private,lock,state,cache,pid,log,ncalrpc,share}
chmod 0777 "$S/share"
conf=$S/smb.conf
cat > "$conf" <<EOF
[global]
	workgroup = RICHACL
	netbios name = RICHACLSMOKE
	server role = standalone server
	interfaces = lo
	bind interfaces only = yes
	smb ports = 4445 445
	private dir = $S/private
	lock directory = $S/lock
	state directory = $S/state
	cache directory = $S/cache
	pid directory = $S/pid
	ncalrpc dir = $S/ncalrpc
	log file = $S/log/log.%m
	passdb backend = tdbsam:$S/private/passdb.tdb
	load printers = no
	printing = bsd
	printcap name = /dev/null
	disable spoolss = yes

[rich]
	path = $S/share
	read only = no
	vfs objects = richacl
EOF

id "$USER_NAME" >/dev/null 2>&1 ||
	useradd --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
printf '%s\n%s\n' "$USER_PASS" "$USER_PASS" |
	smbpasswd -c "$conf" -s -a "$USER_NAME" >/dev/null

smbd -F --no-process-group -s "$conf" --debug-stdout -d3 > "$S/smbd.out" 2>&1 &
smbd_pid=$!
cleanup() {
	kill "$smbd_pid" 2>/dev/null || true
	wait "$smbd_pid" 2>/dev/null || true
	echo "host-smoke: scratch dir $S (smbd log: $S/smbd.out)" >&2
}
trap cleanup EXIT
for _ in $(seq 50); do
	ss -ltn 2>/dev/null | grep -q '127.0.0.1:4445' && break
	sleep 0.2
done

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

auth=(-U "$USER_NAME%$USER_PASS")
smbc() { smbclient //127.0.0.1/rich -p 4445 "${auth[@]}" "$@"; }
cacls() { smbcacls //127.0.0.1/rich "${auth[@]}" "$@"; }

# 1. the module loads by name and the share serves files
echo hello > "$S/hello.txt"
if out=$(smbc -c "put $S/hello.txt f.txt; ls" 2>&1) && grep -q 'f.txt' <<<"$out"; then
	ok "smbclient as $USER_NAME lists the share after a put"
else
	bad "smbclient: $out"
fi
grep -q "error probing vfs module 'richacl'" "$S/smbd.out" &&
	bad "smbd could not load the module"
owner=$(stat -c %U "$S/share/f.txt" 2>/dev/null || echo none)
[ "$owner" = "$USER_NAME" ] && ok "f.txt created as $USER_NAME" ||
	bad "f.txt owner is $owner"

# 2. M1: the DACL is the one equivalent to the mode (0644 here)
chmod 0644 "$S/share/f.txt"
acl=$(cacls f.txt --numeric 2>&1) || true
echo "$acl" | sed 's/^/    /'
usid=$(echo "$acl" | sed -n 's/^OWNER:\(S-[0-9-]*\)$/\1/p')
gsid=$(echo "$acl" | sed -n 's/^GROUP:\(S-[0-9-]*\)$/\1/p')
if [ -n "$usid" ] && [ -n "$gsid" ] &&
   grep -q "^ACL:$usid:ALLOWED/0x0/" <<<"$acl" &&
   grep -q "^ACL:$gsid:ALLOWED/0x0/" <<<"$acl" &&
   grep -q '^ACL:S-1-1-0:ALLOWED/0x0/' <<<"$acl"; then
	ok "M1: owner, group and Everyone ACEs synthesised from mode 0644"
else
	bad "M1: unexpected DACL"
fi
# Everyone may read (r) but not write in 0644: READ_DATA set, WRITE_DATA not
every=$(sed -n 's|^ACL:S-1-1-0:ALLOWED/0x0/\(0x[0-9a-f]*\)$|\1|p' <<<"$acl")
if [ -n "$every" ] && (( (every & 0x1) && !(every & 0x2) )); then
	ok "M1: Everyone gets read, not write ($every)"
else
	bad "M1: Everyone mask '$every'"
fi

# 3. a DACL no mode can express: refused cleanly, nothing changed
mode_before=$(stat -c %a "$S/share/f.txt")
out=$(cacls f.txt --add "ACL:S-1-22-1-4242:ALLOWED/0x0/0x1" 2>&1) && rc=0 || rc=$?
if [ "$rc" != 0 ] && grep -q NT_STATUS_NOT_SUPPORTED <<<"$out"; then
	ok "non-mode-equivalent DACL refused with NT_STATUS_NOT_SUPPORTED"
else
	bad "non-mode-equivalent DACL: rc=$rc $out"
fi
[ "$(stat -c %a "$S/share/f.txt")" = "$mode_before" ] &&
	ok "mode unchanged after the refused set ($mode_before)" ||
	bad "mode changed to $(stat -c %a "$S/share/f.txt")"
grep -q 'not equivalent to a file mode' "$S/smbd.out" &&
	ok "smbd log explains the refusal" || bad "no log line for the refusal"

# 4. a mode-equivalent DACL: stored as the mode (0640 = drop Everyone)
ace_every=$(grep '^ACL:S-1-1-0:' <<<"$acl" | head -n1)
out=$(cacls f.txt --delete "$ace_every" 2>&1) && rc=0 || rc=$?
mode_after=$(stat -c %a "$S/share/f.txt")
if [ "$rc" = 0 ] && [ "$mode_after" = 640 ]; then
	ok "mode-equivalent DACL (no Everyone) stored as mode 0640"
else
	bad "mode-equivalent DACL: rc=$rc mode=$mode_after $out"
fi
acl2=$(cacls f.txt --numeric 2>&1) || true
grep -q '^ACL:S-1-1-0:' <<<"$acl2" &&
	bad "Everyone still present after removal" ||
	ok "DACL read back without Everyone (M1 on the new mode)"

# 5. the mode fallback is not a bypass: the user cannot change a file he
# does not own (the chmod runs as the user)
chown root:root "$S/share/f.txt"
chmod 0666 "$S/share/f.txt"
acl3=$(cacls f.txt --numeric 2>&1) || true
ace_every=$(grep '^ACL:S-1-1-0:' <<<"$acl3" | head -n1)
out=$(cacls f.txt --delete "$ace_every" 2>&1) && rc=0 || rc=$?
if [ "$rc" != 0 ] && [ "$(stat -c %a "$S/share/f.txt")" = 666 ]; then
	ok "ACL change on another user's file refused ($(grep -o 'NT_STATUS_[A-Z_]*' <<<"$out" | head -n1))"
else
	bad "ACL change on root's file: rc=$rc mode=$(stat -c %a "$S/share/f.txt") $out"
fi

# 6. directories: mkdir over SMB and read the directory ACL
if smbc -c 'mkdir d' >/dev/null 2>&1 && [ -d "$S/share/d" ]; then
	ok "mkdir over SMB"
else
	bad "mkdir over SMB"
fi
dacl=$(cacls d --numeric 2>&1) || true
grep -q '^ACL:S-1-1-0:ALLOWED/' <<<"$dacl" &&
	ok "directory DACL synthesised from its mode" || bad "directory DACL: $dacl"

grep -q 'does not support system.richacl' "$S/smbd.out" &&
	ok "smbd log says that the filesystem has no richacl support" ||
	bad "no log line about the missing richacl support"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
