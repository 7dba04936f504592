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
	honor change notify privilege = yes

[rich]
	path = $S/share
	read only = no
	vfs objects = richacl

# Module logic without a richacl kernel: xattr_tdb stores system.richacl
# in a tdb (no kernel enforcement, smbd's own checks only).  Never a
# production setup.
[richtdb]
	path = $S/tdbshare
	read only = no
	vfs objects = richacl xattr_tdb
	xattr_tdb:file = $S/state/xattr.tdb
	map readonly = yes
	store dos attributes = no

[richtdbapply]
	copy = richtdb
	richacl:chmod = apply
EOF
mkdir -p "$S/tdbshare"
chmod 0777 "$S/tdbshare"

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

# ACE mask of SID in smbcacls --numeric output ($1 output, $2 SID), or empty
ace_mask() {
	sed -n -E "s|^ACL:$2:(ALLOWED\|0)/0x0/(0x[0-9a-f]+)\$|\2|p" <<<"$1" | head -n1
}

# 2. M1: the DACL of a file without richacl is the one equivalent to its
# mode (algorithms.md 1.2: 0644 -> owner@:rwp everyone@:r), shown with the
# rights the kernel grants outside the entries (richacl_implicit.h):
# Everyone "r" = FILE_GENERIC_READ 0x120089, the owner rwp + implicit
# = 0x1e019f.
chmod 0644 "$S/share/f.txt"
acl=$(cacls f.txt --numeric 2>&1) || true
echo "$acl" | sed 's/^/    /'
usid=$(sed -n 's/^OWNER:\(S-[0-9-]*\)$/\1/p' <<<"$acl")
[ -n "$usid" ] && ok "owner SID $usid" || bad "no owner SID: $acl"
m_owner=$(ace_mask "$acl" "$usid")
m_every=$(ace_mask "$acl" S-1-1-0)
[ "$(grep -c '^ACL:' <<<"$acl")" = 2 ] && ok "M1: two ACEs for mode 0644" ||
	bad "M1: ACE count for 0644"
[ "$m_every" = 0x00120089 ] && ok "M1: Everyone = FILE_GENERIC_READ" ||
	bad "M1: Everyone mask '$m_every'"
[ "$m_owner" = 0x001e019f ] && ok "M1: owner = rwp + implicit rights" ||
	bad "M1: owner mask '$m_owner'"
chmod 0640 "$S/share/f.txt"
acl=$(cacls f.txt --numeric 2>&1) || true
gsid=$(sed -n 's/^GROUP:\(S-[0-9-]*\)$/\1/p' <<<"$acl")
if [ "$(ace_mask "$acl" "$gsid")" = 0x00120089 ] && [ -z "$(ace_mask "$acl" S-1-1-0)" ]; then
	ok "M1: mode 0640 -> group read, no Everyone"
else
	bad "M1: mode 0640: $acl"
fi
chmod 0644 "$S/share/f.txt"

# 3. a DACL no mode can express: refused cleanly, nothing changed
out=$(cacls f.txt --add "ACL:S-1-22-1-4242:ALLOWED/0x0/0x00120089" 2>&1) && rc=0 || rc=$?
if [ "$rc" != 0 ] && grep -q NT_STATUS_NOT_SUPPORTED <<<"$out"; then
	ok "non-mode-equivalent DACL refused with NT_STATUS_NOT_SUPPORTED"
else
	bad "non-mode-equivalent DACL: rc=$rc $out"
fi
[ "$(stat -c %a "$S/share/f.txt")" = 644 ] &&
	ok "mode unchanged after the refused set (644)" ||
	bad "mode changed to $(stat -c %a "$S/share/f.txt")"
grep -q 'not equivalent to a file mode' "$S/smbd.out" &&
	ok "smbd log explains the refusal" || bad "no log line for the refusal"

# 4. the same DACL set back unchanged: stored as the same mode
out=$(cacls f.txt --set "ACL:$usid:ALLOWED/0x0/$m_owner,ACL:S-1-1-0:ALLOWED/0x0/$m_every" 2>&1) &&
	rc=0 || rc=$?
[ "$rc" = 0 ] && [ "$(stat -c %a "$S/share/f.txt")" = 644 ] &&
	ok "the synthesised DACL set back is accepted (mode stays 0644)" ||
	bad "set back: rc=$rc mode=$(stat -c %a "$S/share/f.txt") $out"

# 5. a mode-equivalent DACL: stored as the mode (no Everyone -> 0600)
out=$(cacls f.txt --delete "ACL:S-1-1-0:ALLOWED/0x0/$m_every" 2>&1) && rc=0 || rc=$?
mode_after=$(stat -c %a "$S/share/f.txt")
if [ "$rc" = 0 ] && [ "$mode_after" = 600 ]; then
	ok "mode-equivalent DACL (Everyone removed) stored as mode 0600"
else
	bad "mode-equivalent DACL: rc=$rc mode=$mode_after $out"
fi
acl2=$(cacls f.txt --numeric 2>&1) || true
[ -z "$(ace_mask "$acl2" S-1-1-0)" ] && [ "$(ace_mask "$acl2" "$usid")" = 0x001e019f ] &&
	ok "DACL read back: owner only (M1 on mode 0600)" ||
	bad "read back after removal: $acl2"

# 6. the mode fallback is not a bypass: no ACL change on a file the user
# does not own (smbd refuses WRITE_DAC; the kernel would refuse the chmod)
chown root:root "$S/share/f.txt"
chmod 0666 "$S/share/f.txt"
out=$(cacls f.txt --delete "ACL:S-1-1-0:ALLOWED/0x0/0x0012019f" 2>&1) && rc=0 || rc=$?
if [ "$rc" != 0 ] && [ "$(stat -c %a "$S/share/f.txt")" = 666 ]; then
	ok "ACL change on root's file refused ($(grep -o 'NT_STATUS_[A-Z_]*' <<<"$out" | head -n1))"
else
	bad "ACL change on root's file: rc=$rc mode=$(stat -c %a "$S/share/f.txt") $out"
fi

# 7. directories: mkdir over SMB and read the directory ACL
if smbc -c 'mkdir d' >/dev/null 2>&1 && [ -d "$S/share/d" ]; then
	ok "mkdir over SMB"
else
	bad "mkdir over SMB"
fi
# 0755 directory (owner@:rwpxd everyone@:rx): Everyone = Windows "Read &
# execute" 0x1200a9, the owner everything but DELETE 0x1e01ff
chmod 0755 "$S/share/d"
dacl=$(cacls d --numeric 2>&1) || true
[ "$(ace_mask "$dacl" S-1-1-0)" = 0x001200a9 ] && [ "$(ace_mask "$dacl" "$usid")" = 0x001e01ff ] &&
	ok "directory DACL synthesised from mode 0755" || bad "directory DACL: $dacl"

# ---- part 2: the module's richacl code paths, with xattr_tdb as storage ----
tcacls() { smbcacls //127.0.0.1/richtdb "${auth[@]}" "$@"; }
tsmbc() { smbclient //127.0.0.1/richtdb -p 4445 "${auth[@]}" "$@"; }
T=$S/tdbshare
sorted_aces() { grep '^ACL:' <<<"$1" | sort | tr '\n' ' '; }

tsmbc -c "put $S/hello.txt t.txt; mkdir sub" >/dev/null 2>&1
chmod 0644 "$T/t.txt"
acl=$(tcacls t.txt --numeric 2>&1) || true
usid=$(sed -n 's/^OWNER:\(S-[0-9-]*\)$/\1/p' <<<"$acl")

# a DACL no mode expresses is stored and read back (M5).  smbcacls itself
# sorts the ACEs it sends (denies first), so only the deny's position and
# the set of ACEs are compared.
out=$(tcacls t.txt --set "ACL:S-1-22-1-4242:DENIED/0x0/0x00000002,ACL:$usid:ALLOWED/0x0/0x001e019f,ACL:S-1-22-1-4242:ALLOWED/0x0/0x00120089" 2>&1) &&
	rc=0 || rc=$?
want=$(sorted_aces "ACL:S-1-22-1-4242:1/0x0/0x00000002
ACL:$usid:0/0x0/0x001e019f
ACL:S-1-22-1-4242:0/0x0/0x00120089")
acl=$(tcacls t.txt --numeric 2>&1) || true
got=$(sorted_aces "$acl")
first=$(grep -m1 '^ACL:' <<<"$acl")
[ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$first" = "ACL:S-1-22-1-4242:1/0x0/0x00000002" ] &&
	ok "richacl stored and read back: deny first, the three ACEs unchanged" ||
	bad "richacl round trip: rc=$rc $out / $got"

# bits a richacl cannot hold: rejected before the owner changes (M7, M10)
out=$(tcacls t.txt --set "OWNER:S-1-22-1-0,ACL:$usid:ALLOWED/0x0/0x01000000" 2>&1) && rc=0 || rc=$?
got=$(sorted_aces "$(tcacls t.txt --numeric 2>&1)")
if [ "$rc" != 0 ] && grep -q NT_STATUS_INVALID_PARAMETER <<<"$out" &&
   [ "$(stat -c %U "$T/t.txt")" = "$USER_NAME" ] && [ "$got" = "$want" ]; then
	ok "M7: invalid DACL with an owner change: INVALID_PARAMETER, owner and ACL unchanged"
else
	bad "M7: rc=$rc owner=$(stat -c %U "$T/t.txt") $out / $got"
fi
grep -q 'ACL rejected: ' "$S/smbd.out" && ok "the rejected ACE is logged" ||
	bad "no log line for the rejected ACE"

# smbd's chmod (map readonly) does not cut a richacl with richacl:chmod = ignore
mode0=$(stat -c %a "$T/t.txt")
tsmbc -c 'setmode t.txt +r' >/dev/null 2>&1 || true
[ "$(stat -c %a "$T/t.txt")" = "$mode0" ] &&
	ok "richacl:chmod = ignore: DOS readonly left mode $mode0 alone" ||
	bad "chmod ignored: mode $mode0 -> $(stat -c %a "$T/t.txt")"
smbclient //127.0.0.1/richtdbapply -p 4445 "${auth[@]}" -c 'setmode t.txt +r' >/dev/null 2>&1 || true
m=$(stat -c %a "$T/t.txt")
[ "$m" != "$mode0" ] && [ $((8#$m & 0222)) = 0 ] &&
	ok "richacl:chmod = apply: DOS readonly chmods to $m" ||
	bad "chmod apply: mode $mode0 -> $m"

# create-time inheritance in full (richacl:fix create masks): a directory
# whose DACL passes full control to S-1-22-1-4242 to files (OI) and
# directories (CI); new children carry it.  No kernel inherits here, so
# this is the module's own inheritance run.
out=$(tcacls sub --set "ACL:$usid:ALLOWED/0x3/0x001f01ff,ACL:S-1-22-1-4242:ALLOWED/0x3/0x001f01ff" 2>&1) &&
	rc=0 || rc=$?
[ "$rc" = 0 ] && ok "inheritable DACL set on sub" || bad "inheritable DACL: $out"
tsmbc -c "put $S/hello.txt sub/child.txt; mkdir sub/kid" >/dev/null 2>&1
cacl=$(tcacls sub/child.txt --numeric 2>&1) || true
kacl=$(tcacls sub/kid --numeric 2>&1) || true
# the file: an effective entry without inheritance flags (M11) and without
# DELETE_CHILD, which inheritance clears for files (algorithms.md 5.1)
[ "$(ace_mask "$cacl" S-1-22-1-4242)" = 0x001f01bf ] &&
	ok "new file inherits S-1-22-1-4242 full control (minus DELETE_CHILD)" ||
	bad "file inheritance: $cacl"
grep -q '^ACL:S-1-22-1-4242:0/0x3/0x001f01ff$' <<<"$kacl" &&
	ok "new directory inherits S-1-22-1-4242 full control, still inheritable" ||
	bad "directory inheritance: $kacl"

grep -q 'does not support system.richacl' "$S/smbd.out" &&
	ok "smbd log says that the filesystem has no richacl support" ||
	bad "no log line about the missing richacl support"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
