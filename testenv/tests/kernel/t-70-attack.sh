# Outside attack on the richacl series (second round): one group per attack
# area, K-ATTACK-n.  Every check asserts the SECURE outcome (what plain
# ext4/POSIX or the richacl semantics require), so a FAIL is a hole.
#
# Some attacks need system calls that kt does not offer (mmap writes,
# pwrite/splice/copy_file_range on O_APPEND descriptors, O_TMPFILE, the ext4
# move-extent ioctl): a small helper (ATK_SRC below) is compiled in the guest
# on first use.

ATK=/tmp/kt-attack-helper
ATK_SRC=
IFS= read -r -d '' ATK_SRC <<'CEOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

struct move_extent {
	uint32_t reserved, donor_fd;
	uint64_t orig_start, donor_start, len, moved_len;
};
#define EXT4_IOC_MOVE_EXT _IOWR('f', 15, struct move_extent)

static int res(long r, const char *pfx)
{
	if (r < 0) {
		const char *n = strerrorname_np(errno);
		printf("%s%s\n", pfx, n ? n : "E?");
		return 1;
	}
	printf("OK\n");
	return 0;
}

static int oa(const char *p, int fl)
{
	int fd = open(p, fl);
	if (fd < 0) {
		const char *n = strerrorname_np(errno);
		printf("open:%s\n", n ? n : "E?");
		exit(1);
	}
	return fd;
}

static int usock(const char *p, int do_bind)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
		return res(-1, "");
	strncpy(a.sun_path, p, sizeof(a.sun_path) - 1);
	if (do_bind)
		return res(bind(s, (struct sockaddr *)&a, sizeof(a)), "");
	return res(connect(s, (struct sockaddr *)&a, sizeof(a)), "");
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	int fd, fd2;

	if (!strcmp(op, "mmapw") && argc == 4) {	/* PATH DATA */
		size_t n = strlen(argv[3]);
		char *m;
		fd = oa(argv[2], O_RDWR);
		m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return res(-1, "mmap:");
		memcpy(m, argv[3], n);
		return res(msync(m, n, MS_SYNC), "msync:");
	}
	if (!strcmp(op, "apw") && argc == 4) {	/* O_APPEND fd, pwrite at 0 */
		fd = oa(argv[2], O_WRONLY | O_APPEND);
		return res(pwrite(fd, argv[3], strlen(argv[3]), 0), "");
	}
	if (!strcmp(op, "nrw") && argc == 4) {	/* pwritev2 RWF_NOAPPEND (0x20) at 0 */
		struct iovec v = { argv[3], strlen(argv[3]) };
		fd = oa(argv[2], O_WRONLY | O_APPEND);
		return res(syscall(SYS_pwritev2, fd, &v, 1, 0L, 0L, 0x20), "");
	}
	if (!strcmp(op, "cfr") && argc == 4) {	/* SRC DST(O_APPEND) */
		loff_t off = 0;
		fd = oa(argv[2], O_RDONLY);
		fd2 = oa(argv[3], O_WRONLY | O_APPEND);
		return res(copy_file_range(fd, NULL, fd2, &off, 4, 0), "");
	}
	if (!strcmp(op, "sendfile") && argc == 4) {
		fd = oa(argv[2], O_RDONLY);
		fd2 = oa(argv[3], O_WRONLY | O_APPEND);
		return res(sendfile(fd2, fd, NULL, 4), "");
	}
	if (!strcmp(op, "splice") && argc == 4) {	/* pipe -> O_APPEND fd at offset 0 */
		int p[2];
		loff_t off = 0;
		fd = oa(argv[2], O_WRONLY | O_APPEND);
		if (pipe(p) < 0 || write(p[1], argv[3], strlen(argv[3])) < 0)
			return res(-1, "pipe:");
		return res(splice(p[0], NULL, fd, &off, strlen(argv[3]), 0), "");
	}
	if (!strcmp(op, "reopen") && argc == 3) {	/* /proc/self/fd/N O_WRONLY */
		char b[64];
		fd = oa(argv[2], O_WRONLY | O_APPEND);
		snprintf(b, sizeof(b), "/proc/self/fd/%d", fd);
		return res(open(b, O_WRONLY), "");
	}
	if (!strcmp(op, "moveext") && argc == 4) {	/* ORIG(rw) DONOR(O_APPEND) */
		struct move_extent me = { 0 };
		fd = oa(argv[2], O_RDWR);
		fd2 = oa(argv[3], O_RDWR | O_APPEND);
		me.donor_fd = fd2;
		me.len = 1;
		return res(ioctl(fd, EXT4_IOC_MOVE_EXT, &me), "");
	}
	if (!strcmp(op, "tmpfile") && argc == 5) {	/* DIR MODE NEWPATH */
		char b[64];
		fd = open(argv[2], O_TMPFILE | O_WRONLY, (mode_t)strtoul(argv[3], NULL, 8));
		if (fd < 0)
			return res(-1, "open:");
		snprintf(b, sizeof(b), "/proc/self/fd/%d", fd);
		return res(linkat(AT_FDCWD, b, AT_FDCWD, argv[4], AT_SYMLINK_FOLLOW), "link:");
	}
	if (!strcmp(op, "trunc") && argc == 3)		/* truncate(2) by path */
		return res(truncate(argv[2], 0), "");
	if (!strcmp(op, "cfrw") && argc == 4) {		/* SRC -> DST (O_WRONLY) at 0 */
		loff_t off = 0;
		fd = oa(argv[2], O_RDONLY);
		fd2 = oa(argv[3], O_WRONLY);
		return res(copy_file_range(fd, NULL, fd2, &off, 4, 0), "");
	}
	if (!strcmp(op, "fallocz") && argc == 3) {	/* O_WRONLY|O_APPEND, fallocate mode 0 */
		fd = oa(argv[2], O_WRONLY | O_APPEND);
		return res(fallocate(fd, 0, 0, 8192), "");
	}
	if (!strcmp(op, "ubind") && argc == 3)		/* bind a unix socket at PATH */
		return usock(argv[2], 1);
	if (!strcmp(op, "uconn") && argc == 3)		/* connect to the unix socket at PATH */
		return usock(argv[2], 0);
	fprintf(stderr, "atk: bad usage\n");
	return 2;
}
CEOF

# build_c_helper PATH SOURCE NAME: compile SOURCE into PATH once per run;
# prints a FAIL line and returns 1 on error.
build_c_helper() {
	[ -x "$1" ] && return 0
	local out
	printf '%s\n' "$2" >"$1.c"
	if ! out=$(gcc -std=gnu11 -O0 -o "$1" "$1.c" 2>&1); then
		fail "setup: compile the $3" "gcc failed" "$out"
		return 1
	fi
}

atk_build() {
	build_c_helper "$ATK" "$ATK_SRC" "attack helper"
}

# atk_as WHO op args...: the helper as root or as a test user (setpriv).
atk_as() {
	local who=$1
	shift
	as "$who" "$ATK" "$@" 2>&1 | head -n1
}

# expect_atk WANT WHO "description" op args...  (like expect, with the helper)
expect_atk() {
	local want=$1 who=$2 desc=$3
	shift 3
	_expect_outcome "$want" "$desc" "as $who: atk $*" "$(atk_as "$who" "$@")"
}

# Raw system.richacl values in hex (little endian).
h16() { printf '%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
h32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
rhdr() { printf '00%02x' "$1"; h16 "$2"; h32 "$3"; h32 "$4"; h32 "$5"; }	# flags count omask gmask xmask
race() { h16 "$1"; h16 "$2"; h32 "$3"; h32 "$4"; }			# type flags mask id
rstr() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; printf '00'; }
# permission bits
A_R=0x1 A_W=0x2 A_P=0x4 A_X=0x20 A_DEL=0x10000 A_WACL=0x40000 A_WOWN=0x80000
A_SPECIAL=0x4000 A_UNMAPPED=0x2000 A_IDGROUP=0x40 A_MASKED=0x80

setid_of() { echo $(($(stat -c 0%a "$1") & 06000)); }
raw_acl() { (cd "$(dirname "$1")" && "$GETRICHACL" --raw --numeric-ids "$(basename "$1")" 2>&1 | tr '\n' ' '); }

# K-ATTACK-1: an implicit chmod (the kernel clearing S_ISUID/S_ISGID when a
# non-owner writes, truncates or appends) must not turn the coarse permission
# bits back into acl permissions.  The mode shows an upper bound (append_data
# alone sets the w bit); richacl_chmod() then writes masks with write_through
# from those bits, so the "other" class (and masked group class entries) get
# write_data that nobody granted.
t_attack1() {
	group_begin K-ATTACK-1 "kill-suid/kill-sgid by a writer does not widen the acl"
	require_richacl || return
	local B=$R/attack1 f
	fresh_dir "$B"
	for f in su sg cw tr; do echo data >"$B/$f"; done
	S chown alice:alice "$B/su" "$B/sg" "$B/cw" "$B/tr"
	S chmod 4755 "$B/su" "$B/tr"
	S chmod 2775 "$B/sg"
	setacl 'owner@:rwpx::allow everyone@:rpx::allow' "$B/su" "$B/sg"
	S chmod 4775 "$B/cw"
	# masked acl: carol rwp and bob p, cut by the group mask rpx
	S "$KT" setxattr "$B/cw" system.richacl \
		"$(rhdr $A_MASKED 4 0x27 0x25 0x21)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x07 1003)$(race 0 0 $A_P 1002)$(race 0 $A_SPECIAL 0x21 2)"
	setacl 'owner@:rwpx::allow user:1002:rw::allow everyone@:rp::allow' "$B/tr"
	echo "# modes before: su $(mode_of "$B/su") sg $(mode_of "$B/sg") cw $(mode_of "$B/cw") tr $(mode_of "$B/tr")"

	# (a) setuid file, everyone@ may only append
	expect DENIED bob "su: bob (append only) cannot open for writing" open "$B/su" w
	expect OK bob "su: bob appends (the kernel clears S_ISUID)" write "$B/su" wa x
	check_eq "su: S_ISUID cleared by the append" 0 "$(setid_of "$B/su")"
	expect DENIED bob "su: after his append, bob still cannot overwrite" open "$B/su" w
	expect DENIED carol "su: after bob's append, carol still cannot overwrite" open "$B/su" wt
	echo "# su after: mode $(mode_of "$B/su") acl: $(raw_acl "$B/su")"
	# (b) setgid (and group-executable) file, same acl
	expect OK bob "sg: bob appends (the kernel clears S_ISGID)" write "$B/sg" wa x
	expect DENIED bob "sg: after his append, bob still cannot overwrite" open "$B/sg" w
	# (c) masked group class: carol's rwp entry is cut to rp by the group mask
	expect DENIED carol "cw: carol (entry rwp, group mask rpx) cannot write" open "$B/cw" w
	expect OK bob "cw: bob appends (clears S_ISUID)" write "$B/cw" wa x
	expect DENIED carol "cw: after bob's append, the group mask still limits carol" open "$B/cw" w
	echo "# cw after: mode $(mode_of "$B/cw") acl: $(raw_acl "$B/cw")"
	# (d) a write_data holder truncating a setuid file widens it for others
	expect DENIED carol "tr: carol (append only) cannot write" open "$B/tr" w
	expect OK bob "tr: bob (write_data) truncates the setuid file" open "$B/tr" wt
	expect DENIED carol "tr: after bob's truncate, carol still cannot overwrite" open "$B/tr" w
}

# K-ATTACK-2: write_acl (or acl removal) on a set-id file must not leave the
# holder with a set-id program whose content he controls.  write(2) clears
# S_ISUID, but a shared writable mmap does not (as on plain Linux), so the
# set-id bit has to go when a non-owner widens the permissions.
t_attack2() {
	group_begin K-ATTACK-2 "write_acl on a set-id file does not yield a rewritten set-id program"
	require_richacl || return
	atk_build || return
	local B=$R/attack2 f
	fresh_dir "$B"
	for f in rsu csu gsg; do printf 'ORIGINAL' >"$B/$f"; done
	S chmod 4755 "$B/rsu" "$B/csu"
	S chown alice:alice "$B/gsg"
	S chmod 2755 "$B/gsg"
	setacl 'owner@:rwx::allow user:1002:C::allow everyone@:rx::allow' "$B/rsu" "$B/csu"
	setacl 'owner@:rwx::allow user:1002:C::allow everyone@:rpx::allow' "$B/gsg"
	echo "# modes: rsu $(mode_of "$B/rsu") csu $(mode_of "$B/csu") gsg $(mode_of "$B/gsg")"

	# (a) setrichacl by bob on root's setuid file
	expect DENIED bob "rsu: bob cannot write root's setuid file" open "$B/rsu" w
	expect_sh OK bob "rsu: bob (write_acl) grants himself write" \
		'"$1" --set "owner@:rwx::allow user:1002:rwC::allow everyone@:rx::allow" "$2"' \
		"$SETRICHACL" "$B/rsu"
	check_eq "rsu: a non-owner widening the acl clears S_ISUID" 0 "$(setid_of "$B/rsu")"
	atk_as bob mmapw "$B/rsu" EVIL >/dev/null
	check_eq "rsu: no setuid-root file with bob's content (mmap write)" no \
		"$([ "$(setid_of "$B/rsu")" != 0 ] && [ "$(head -c4 "$B/rsu")" = EVIL ] && echo yes || echo no)"
	# (b) chmod by bob keeping S_ISUID while adding write for others
	expect EPERM bob "csu: bob (write_acl) cannot chmod root's setuid file 4777 (keeping S_ISUID)" chmod "$B/csu" 4777
	check_eq "csu: the refused chmod left the mode alone" 4755 "$(mode_of "$B/csu")"
	expect OK bob "csu: bob (write_acl) may chmod it 0777, which clears S_ISUID" chmod "$B/csu" 0777
	echo "# csu after chmod: $(mode_of "$B/csu")"
	atk_as carol mmapw "$B/csu" EVIL >/dev/null
	check_eq "csu: no setuid-root file with another user's content" no \
		"$([ "$(setid_of "$B/csu")" != 0 ] && [ "$(head -c4 "$B/csu")" = EVIL ] && echo yes || echo no)"
	# (c) bob (not in group alice) removes the acl of a setgid file
	expect OK bob "gsg: bob (write_acl) removes the acl" removexattr "$B/gsg" system.richacl
	check_eq "gsg: removing the acl outside the owning group clears S_ISGID" 0 "$(setid_of "$B/gsg")"
	echo "# gsg after removal: $(mode_of "$B/gsg")"
	atk_as bob mmapw "$B/gsg" EVIL >/dev/null
	check_eq "gsg: no setgid-alice program with bob's content" no \
		"$([ "$(setid_of "$B/gsg")" != 0 ] && [ "$(head -c4 "$B/gsg")" = EVIL ] && echo yes || echo no)"
	# sanity: plain write(2) by a writer clears S_ISUID
	printf 'ORIGINAL' >"$B/w"
	S chmod 4755 "$B/w"
	setacl 'owner@:rwx::allow user:1002:rw::allow everyone@:rx::allow' "$B/w"
	expect OK bob "sanity: bob writes a setuid file he may write" write "$B/w" w x
	check_eq "sanity: write(2) cleared S_ISUID" 0 "$(setid_of "$B/w")"
}

# K-ATTACK-3: an append-only descriptor (append_data without write_data)
# cannot be used to overwrite or shrink the file by any system call.
t_attack3() {
	group_begin K-ATTACK-3 "append-only opens stay append-only"
	require_richacl || return
	atk_build || return
	local B=$R/attack3 dev orig got
	fresh_dir "$B"
	printf 'ORIGINAL' >"$B/f"
	printf 'SRC!' >"$B/src"
	printf 'mine' >"$B/own"
	S chown alice:alice "$B/f"
	S chown bob:bob "$B/own"
	S chmod 0644 "$B/src"
	setacl 'owner@:rwp::allow user:1002:rp::allow everyone@:r::allow' "$B/f"

	expect OK bob "bob may append" open "$B/f" wa
	expect EPERM bob "fcntl cannot clear O_APPEND" fdop "$B/f" wa noappend
	expect EPERM bob "ftruncate refused" fdop "$B/f" wa ftruncate
	expect EPERM bob "fallocate PUNCH_HOLE refused" fdop "$B/f" wa punch
	expect DENIED bob "shared mmap of an O_WRONLY|O_APPEND fd refused" fdop "$B/f" wa mmap
	expect DENIED bob "shared mmap of an O_RDWR|O_APPEND fd refused" fdop "$B/f" rwa mmap
	expect DENIED bob "O_APPEND|O_TRUNC refused" open "$B/f" wat
	expect DENIED bob "O_RDONLY|O_APPEND|O_TRUNC refused" open "$B/f" rat
	expect_atk OK bob "pwrite at offset 0 on the O_APPEND fd (appends)" apw "$B/f" EVIL
	expect_atk ERROR bob "pwritev2 RWF_NOAPPEND refused" nrw "$B/f" EVIL
	expect_atk EBADF bob "copy_file_range into the O_APPEND fd refused" cfr "$B/src" "$B/f"
	expect_atk ERROR bob "splice at an offset into the O_APPEND fd refused" splice "$B/f" EVIL
	expect_atk DENIED bob "reopen through /proc/self/fd without O_APPEND refused" reopen "$B/f"
	expect_atk ERROR bob "EXT4_IOC_MOVE_EXT with the append-only file as donor refused" \
		moveext "$B/own" "$B/f"
	expect_atk ERROR bob "sendfile into the O_APPEND fd refused" sendfile "$B/src" "$B/f"
	check_eq "the original data is intact" ORIGINAL "$(head -c8 "$B/f")"
	echo "# f now: $(od -c "$B/f" | head -n2 | tr -s ' ' | tr '\n' ' ')"

	# A block device node with an append-only acl: block devices ignore
	# O_APPEND, so append_data must not be enough to open them.
	if [ "$PLAIN_OK" = 1 ] && [ -b "$PLAIN_DEV" ]; then
		dev=$(stat -c '%t %T' "$PLAIN_DEV")
		S mknod "$B/blk" b $((16#${dev% *})) $((16#${dev#* }))
		S chown alice:alice "$B/blk"
		S chmod 0600 "$B/blk"
		setacl 'owner@:rwp::allow user:1002:p::allow' "$B/blk"
		orig=$(dd if="$PLAIN_DEV" bs=512 count=1 iflag=direct 2>/dev/null | head -c4 | od -An -tx1 | tr -d ' \n')
		expect DENIED bob "blk: bob (append_data only) cannot open the device O_WRONLY" open "$B/blk" w
		kt_as bob write "$B/blk" wa EVIL >/dev/null 2>&1
		sync
		echo 1 >/proc/sys/vm/drop_caches
		got=$(dd if="$PLAIN_DEV" bs=512 count=1 iflag=direct 2>/dev/null | head -c4 | od -An -tx1 | tr -d ' \n')
		check_eq "blk: an O_APPEND write by bob did not overwrite sector 0 of the device" "$orig" "$got"
		# a device cannot be kept append-only: append access alone does
		# not open it for writing at all
		expect DENIED bob "blk: bob (append_data only) cannot open the device O_WRONLY|O_APPEND" \
			open "$B/blk" wa
		expect OK alice "blk: the owner (write_data) still opens it O_WRONLY|O_APPEND" open "$B/blk" wa
		# restore the (unused) first bytes of the plain image
		printf "$(printf '%s' "$orig" | sed 's/../\\x&/g')" | dd of="$PLAIN_DEV" bs=4 count=1 conv=notrunc 2>/dev/null
		sync
	fi
}

# K-ATTACK-4: set-group-ID through creation in setgid directories, O_TMPFILE,
# inheritance, setrichacl and take_ownership of a setgid directory.
t_attack4() {
	group_begin K-ATTACK-4 "no set-group-ID program of a foreign group"
	require_richacl || return
	atk_build || return
	local B=$R/attack4 D T bad
	fresh_dir "$B"
	D=$B/sg
	T=$B/take
	S mkdir "$D" "$T"
	S chown alice:alice "$D" "$T"
	S chmod 2777 "$D"
	S chmod 2775 "$T"
	setacl 'owner@:rwpxdD::allow everyone@:rwpxdDC:fd:allow' "$D"
	setacl 'owner@:rwpxdD::allow user:1002:rwpxo::allow everyone@:rx::allow' "$T"

	expect OK bob "bob creates a 2755 file in alice's setgid dir" create "$D/f1" 2755
	check_eq "f1: no S_ISGID (bob is not in group alice)" 0 "$(setid_of "$D/f1")"
	expect OK bob "bob creates a 2745 file (S_ISGID without group x)" create "$D/f2" 2745
	expect_sh OK bob "bob sets an acl granting group@ x on f2" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow everyone@:r::allow" "$2"' "$SETRICHACL" "$D/f2"
	expect OK bob "bob chmods f2 to 2755" chmod "$D/f2" 2755
	expect OK bob "bob creates 2745 f3" create "$D/f3" 2745
	expect_sh OK bob "bob sets a non-equivalent acl granting group x on f3" \
		'"$1" --set "owner@:rwx::allow group@:rx::allow user:1003:r::allow" "$2"' "$SETRICHACL" "$D/f3"
	expect_atk OK bob "bob creates a 2755 O_TMPFILE and links it in" tmpfile "$D" 2755 "$D/f4"
	expect OK bob "bob mkdirs in the setgid dir" mkdir "$D/sub"
	expect OK bob "bob creates a 2755 file in the subdirectory" create "$D/sub/f5" 2755
	expect OK bob "bob (write_owner) takes ownership of alice's setgid dir" chown "$T" 1002 -1
	expect OK bob "bob creates a 2755 file in it" create "$T/f6" 2755
	expect OK bob "bob chmods that file 2755" chmod "$T/f6" 2755
	expect_atk OK bob "bob creates a 2755 O_TMPFILE in it" tmpfile "$T" 2755 "$T/f7"
	bad=$(find "$B" -type f -user 1002 -group 1001 -perm -2010 -printf '%p %m\n')
	check_eq "no bob-owned file with group alice and S_ISGID|S_IXGRP" "" "$bad"
	bad=$(find "$B" -type f -user 1002 -group 1001 -perm -2000 -printf '%p %m ')
	[ -n "$bad" ] && echo "# (S_ISGID without group x, as on plain ext4): $bad"
}

# K-ATTACK-5: rename/exchange/link/create across directories with
# different acls.
t_attack5() {
	group_begin K-ATTACK-5 "rename, exchange, link and create respect both directories"
	require_richacl || return
	local B=$R/attack5 Y X W S2 old
	fresh_dir "$B"
	Y=$B/y X=$B/x W=$B/w S2=$B/s
	S mkdir "$Y" "$X" "$W" "$S2"
	S mkdir "$Y/d" "$X/e" "$X/e2" "$W/sub"
	echo a >"$Y/f"; echo b >"$X/g"; echo c >"$X/g2"; echo h >"$B/h"; echo s >"$B/su"
	S chown -R alice:alice "$Y" "$W" "$B/h" "$B/su"
	S chown -R bob:bob "$X"
	S chown carol:carol "$S2"
	S chmod 1777 "$S2"
	echo v >"$S2/a"; echo v >"$S2/b"
	S chown alice:alice "$S2/a" "$S2/b"
	S chmod 4755 "$B/su"
	setacl 'owner@:rwpxdD::allow user:1002:xw::allow everyone@:x::allow' "$Y"
	setacl 'owner@:rwpxdD::allow user:1002:xwpd::allow everyone@:x::allow' "$W"
	setacl 'owner@:rwpxdD::allow everyone@:rx::allow' "$W/sub"

	expect DENIED bob "exchange his file with alice's (no delete_child in y)" exchange "$X/g" "$Y/f"
	expect DENIED bob "rename over alice's file (no delete_child in y)" rename "$X/g" "$Y/f"
	expect DENIED bob "exchange his dir with alice's dir in y" exchange "$X/e" "$Y/d"
	expect DENIED bob "move his dir into y (no add_subdirectory)" rename "$X/e" "$Y/e"
	expect DENIED bob "mkdir in y (no add_subdirectory)" mkdir "$Y/m"
	expect DENIED bob "RENAME_NOREPLACE of his dir into y (no add_subdirectory)" noreplace "$X/e2" "$Y/e2"
	expect OK bob "sanity: move his file into y (add_file)" rename "$X/g2" "$Y/g2"
	expect OK bob "sanity: mkfifo in y (add_file)" mknod "$Y/fifo"
	expect DENIED bob "move alice's dir out of w without add_file on the dir itself" rename "$W/sub" "$X/sub"
	check_eq "y/f is still alice's file" a "$(cat "$Y/f")"

	old=$(cat /proc/sys/fs/protected_hardlinks)
	echo 1 >/proc/sys/fs/protected_hardlinks
	setacl 'owner@:rwp::allow user:1002:r::allow' "$B/h"
	expect DENIED bob "protected_hardlinks: link to a file granting only read" link "$B/h" "$X/hl"
	setacl 'owner@:rwx::allow user:1002:rw::allow everyone@:rx::allow' "$B/su"
	S chmod u+s "$B/su"
	expect DENIED bob "protected_hardlinks: link to a setuid file" link "$B/su" "$X/sl"
	echo "$old" >/proc/sys/fs/protected_hardlinks

	expect DENIED bob "sticky dir: unlink alice's file (acl grants bob nothing)" unlink "$S2/a"
	expect DENIED bob "sticky dir: rename alice's file" rename "$S2/a" "$S2/a2"
	expect_cap DENIED bob dac_override "sticky dir: CAP_DAC_OVERRIDE alone cannot unlink" unlink "$S2/a"
	setacl 'owner@:rwp::allow user:1002:D::allow' "$S2/b"
	expect OK bob "sticky dir: the victim's delete permission allows unlink (design)" unlink "$S2/b"
}

# K-ATTACK-6: RCU path walk with cached and uncached acls, deny entries on
# directories, acl changes while cached.
t_attack6() {
	group_begin K-ATTACK-6 "RCU walk honours deny entries and acl updates"
	require_richacl || return
	local B=$R/attack6 P
	fresh_dir "$B"
	P=$B/p
	S mkdir -p "$P/q"
	echo x >"$P/q/f"
	S chown -R alice:alice "$P"
	setacl 'user:1002:x::deny everyone@:rx::allow' "$P"
	expect DENIED bob "deny x on p: stat p/q/f (first)" stat "$P/q/f"
	stat "$P/q/f" >/dev/null
	expect DENIED bob "deny x on p: stat p/q/f (cached dentries)" stat "$P/q/f"
	echo 3 >/proc/sys/vm/drop_caches
	expect DENIED bob "deny x on p: after drop_caches" stat "$P/q/f"
	expect DENIED bob "deny x on p: again (acl cached now)" stat "$P/q/f"
	expect OK carol "carol may traverse p" stat "$P/q/f"
	setacl 'group:2000:x::deny everyone@:rx::allow' "$P"
	expect DENIED bob "group deny (staff): bob" stat "$P/q/f"
	expect DENIED carol "group deny (staff): carol" stat "$P/q/f"
	expect OK alice "group deny (staff): alice (owner, not in staff)" stat "$P/q/f"
	setacl 'everyone@:rx::allow' "$P"
	setacl 'everyone@:rx::allow' "$P/q"
	expect OK bob "acl of p replaced, q equivalent: bob may traverse" stat "$P/q/f"
	setacl 'user:1002:x::deny everyone@:rx::allow' "$P/q"
	expect DENIED bob "the replaced acl of q applies at once" stat "$P/q/f"
	expect DENIED bob "and from a chdir'ed-relative walk too" chdir "$P/q"
	S "$KT" removexattr "$P/q" system.richacl
	expect OK bob "removed acl: the mode applies at once" stat "$P/q/f"
}

# K-ATTACK-7: malformed system.richacl values are refused with EINVAL and
# change nothing; unmapped identifiers never match.
t_attack7() {
	group_begin K-ATTACK-7 "malformed xattr values"
	require_richacl || return
	local B=$R/attack7 f=$R/attack7/f before v desc i big
	fresh_dir "$B"
	echo secret >"$f"
	S chown alice:alice "$f"
	setacl 'owner@:rwp::allow user:1003:r::allow' "$f"
	before=$(xattr_of "$f")
	local -a cases=(
		"15-byte value|$(rhdr 0 0 0 0 0 | cut -c1-30)"
		"version 1|01$(rhdr 0 1 0 0 0 | cut -c3-)$(race 0 $A_SPECIAL 1 2)"
		"unknown acl flag 0x08|$(rhdr 0x08 1 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"count 65535 in a 28-byte value|$(rhdr 0 65535 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"count 2 with one entry|$(rhdr 0 2 0 0 0)$(race 0 $A_SPECIAL 1 2)"
		"entry type 2|$(rhdr 0 1 0 0 0)$(race 2 $A_SPECIAL 1 2)"
		"entry type 0x100 (audit)|$(rhdr 0 1 0 0 0)$(race 256 $A_SPECIAL 1 2)"
		"entry flag 0x100|$(rhdr 0 1 0 0 0)$(race 0 0x4100 1 2)"
		"mask bit 0x800|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x801 2)"
		"mask bit 0x80000000|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x80000001 2)"
		"file mask bit 0x800|$(rhdr $A_MASKED 1 0x800 0 0)$(race 0 $A_SPECIAL 1 2)"
		"special id 3|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 3)"
		"special id 0xffffffff|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 4294967295)"
		"special+group|$(rhdr 0 1 0 0 0)$(race 0 0x4040 1 2)"
		"special+unmapped|$(rhdr 0 1 0 0 0)$(race 0 0x6000 1 2)$(rstr x)"
		"unmapped without string|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)"
		"unmapped, empty string|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)00"
		"unmapped, no NUL|$(rhdr 0 1 0 0 0)$(race 0 $A_UNMAPPED 1 0)4142"
		"two unmapped, one string|$(rhdr 0 2 0 0 0)$(race 0 $A_UNMAPPED 1 0)$(race 0 $A_UNMAPPED 1 0)$(rstr x)"
		"stray string|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 2)$(rstr x)"
		"trailing NUL byte|$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 1 2)00"
		"uid 4294967295|$(rhdr 0 1 0 0 0)$(race 0 0 1 4294967295)"
		"gid 4294967295|$(rhdr 0 1 0 0 0)$(race 0 $A_IDGROUP 1 4294967295)"
	)
	for v in "${cases[@]}"; do
		desc=${v%%|*}
		expect EINVAL root "$desc: EINVAL" setxattr "$f" system.richacl "${v##*|}"
	done
	check_eq "none of them changed the acl" "$before" "$(xattr_of "$f")"
	expect EINVAL alice "the owner gets EINVAL too (count 65535)" setxattr "$f" system.richacl \
		"$(rhdr 0 65535 0 0 0)$(race 0 $A_SPECIAL 1 2)"
	# a near-maximal value: 5459 entries (65524 bytes; 5460 does not fit
	# into one argument of kt as hex)
	big=$(rhdr 0 5459 0 0 0)$(awk 'BEGIN { for (i = 0; i < 5459; i++) { id = 3000 + i;
		printf "0000000001000000%02x%02x%02x00", id % 256, int(id / 256) % 256, int(id / 65536) % 256 } }')
	v=$(kt_as root setxattr "$f" system.richacl "$big" 2>&1 | head -n1)
	echo "# 5459-entry (65524-byte) value: ${v%% *}"
	if [ "${v%% *}" = OK ]; then
		check_eq "the big value reads back unchanged" "$big" "$(xattr_of "$f")"
	else
		check_eq "a refused big value left the acl unchanged" "$before" "$(xattr_of "$f")"
	fi
	# unmapped identifiers that look like special or numeric ids
	echo x >"$B/u"
	S chown alice:alice "$B/u"
	S chmod 0600 "$B/u"
	S "$KT" setxattr "$B/u" system.richacl \
		"$(rhdr 0 3 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 $A_UNMAPPED 3 0)$(race 0 $((A_UNMAPPED | A_IDGROUP)) 3 0)$(rstr everyone@)$(rstr 2000)"
	expect DENIED bob "unmapped 'everyone@' grants bob nothing" open "$B/u" r
	expect DENIED carol "unmapped group '2000' grants carol nothing" open "$B/u" r
	echo "# u: mode $(mode_of "$B/u") acl $(raw_acl "$B/u")"
	check_eq "no kernel warnings" 0 "$(dmesg | grep -c -E 'WARNING|BUG|Oops|general protection')"
}

# K-ATTACK-8: one capability alone buys no acl changes.
t_attack8() {
	group_begin K-ATTACK-8 "capabilities and system.richacl / owner-only attributes"
	require_richacl || return
	local B=$R/attack8 f v
	fresh_dir "$B"
	f=$B/f
	echo x >"$f"
	S chown alice:alice "$f"
	setacl 'owner@:rwp::allow user:1003:r::allow' "$f"
	v=$("$KT" getxattr "$f" system.richacl)
	v=${v#OK }
	local c
	for c in dac_override dac_read_search fsetid chown; do
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot set the acl" setxattr "$f" system.richacl "$v"
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot remove the acl" removexattr "$f" system.richacl
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot set arbitrary times" utimes "$f" 1000000000
	done
	expect_cap DENIED bob dac_override "bob with CAP_DAC_OVERRIDE cannot chmod alice's file" chmod "$f" 666
	expect_cap DENIED bob dac_override "bob with CAP_DAC_OVERRIDE cannot take ownership" chown "$f" 1002 -1
	expect_cap DENIED bob chown "bob with CAP_CHOWN cannot chmod (only chown)" chmod "$f" 666
	expect_cap OK root fowner "sanity: CAP_FOWNER may set the acl" setxattr "$f" system.richacl "$v"
	if [ "$PLAIN_OK" = 1 ]; then
		echo x >"$P/attack8"
		S chown alice:alice "$P/attack8"
		expect_cap DENIED root dac_override "plain reference: CAP_DAC_OVERRIDE cannot setfacl" \
			setxattr "$P/attack8" system.posix_acl_access \
			"0200000001000600ffffffff04000400ffffffff10000400ffffffff20000400ffffffff"
		rm -f "$P/attack8"
	fi
}

# K-ATTACK-9: overlayfs mounted by an unprivileged user in a user namespace,
# and system.richacl from inside a user namespace.
t_attack9() {
	group_begin K-ATTACK-9 "user namespaces: overlayfs and system.richacl"
	require_richacl || return
	local B=$R/attack9 out
	fresh_dir "$B"
	S mkdir "$B/lower"
	echo secret >"$B/lower/f"
	S chmod 0644 "$B/lower/f"
	setacl 'owner@:rwp::allow user:1002:r::deny everyone@:r::allow' "$B/lower/f"
	echo mine >"$B/own"
	S chown bob:bob "$B/own"
	echo x >"$B/alices"
	S chown alice:alice "$B/alices"
	expect DENIED bob "bob cannot read f directly" open "$B/lower/f" r
	[ -w /proc/sys/kernel/unprivileged_userns_clone ] && echo 1 >/proc/sys/kernel/unprivileged_userns_clone
	mkdir -p /tmp/atk9
	chmod 0777 /tmp/atk9
	out=$(as bob unshare -Ur true 2>&1)
	if [ -n "$out" ]; then
		# the test guest runs chrooted, where unshare(CLONE_NEWUSER) is
		# EPERM for everybody: nothing to attack here
		echo "# K-ATTACK-9 not run: cannot create a user namespace ($out)"
		return
	fi
	out=$(as bob unshare -Urm sh -c '
		mount -t tmpfs t /tmp/atk9 || { echo NOTMPFS; exit; }
		mkdir /tmp/atk9/u /tmp/atk9/w /tmp/atk9/m
		if mount -t overlay o -o "lowerdir=$1,upperdir=/tmp/atk9/u,workdir=/tmp/atk9/w" /tmp/atk9/m 2>/dev/null; then
			cat /tmp/atk9/m/f 2>&1 | head -n1
			echo MOUNTED
		else
			echo REFUSED
		fi' _ "$B/lower" 2>&1 | tr '\n' ' ')
	echo "# userns overlay: $out"
	case "$out" in
	*REFUSED*) pass "unprivileged overlay with a richacl lower layer refused" ;;
	*NOTMPFS*) fail "unprivileged overlay with a richacl lower layer refused" "could not set up (no userns?)" "$out" ;;
	*) fail "unprivileged overlay with a richacl lower layer refused" "mounted" "$out" ;;
	esac
	out=$(as bob unshare -Ur "$KT" setxattr "$B/alices" system.richacl \
		"$(rhdr 0 1 0 0 0)$(race 0 $A_SPECIAL 0x27 2)" 2>&1 | head -n1)
	check_eq "userns root (bob) cannot set the acl of alice's file" EPERM "${out%% *}"
	out=$(as bob unshare -Ur "$KT" setxattr "$B/own" system.richacl \
		"$(rhdr 0 2 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x27 1003)" 2>&1 | head -n1)
	check_eq "userns: an entry for an id outside the namespace is EINVAL" EINVAL "${out%% *}"
	out=$(as bob unshare -Ur "$KT" chmod "$B/alices" 666 2>&1 | head -n1)
	check_eq "userns root (bob) cannot chmod alice's file" EPERM "${out%% *}"
}

# K-ATTACK-10: the permission bits after setting an acl.
t_attack10() {
	group_begin K-ATTACK-10 "the file mode covers what the acl grants"
	require_richacl || return
	local B=$R/attack10
	fresh_dir "$B"
	echo x >"$B/g"
	S chown alice:alice "$B/g"
	expect OK alice "alice sets an unmasked non-equivalent acl with zero file masks" setxattr "$B/g" system.richacl \
		"$(rhdr 0 3 0 0 0)$(race 0 $A_SPECIAL 0x27 0)$(race 0 0 0x23 1003)$(race 0 $A_SPECIAL 0x21 2)"
	echo "# g: mode $(mode_of "$B/g") acl $(raw_acl "$B/g")"
	expect OK bob "everyone@ rx: bob can read g" open "$B/g" r
	check_eq "g: the other permission bits show r-x" 5 "$(($(stat -c 0%a "$B/g") & 7))"
	check_eq "g: the group permission bits show rwx (carol rw, everyone@ rx)" 7 "$((($(stat -c 0%a "$B/g") >> 3) & 7))"
}
