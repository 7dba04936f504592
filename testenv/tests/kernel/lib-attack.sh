# Helpers of the kernel suite's attack groups (t-60 ... t-72), sourced by
# run.sh after lib.sh.
#
# Some checks need system calls that kt does not offer (mmap writes,
# pwrite/splice/copy_file_range on O_APPEND descriptors, O_TMPFILE, the ext4
# move-extent ioctl): a small helper (ATK_SRC below) is compiled in the guest
# on first use.  Users: alice 1001, bob 1002 (staff), carol 1003 (staff),
# 1005 (no groups, "dave": not in staff).

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

# the set-id bits of a file as 0, 2000, 4000 or 6000 (octal text)
sid_of() { printf '%o' $(($(stat -c 0%a "$1") & 06000)); }
# POSIX acl value: u::rw- u:1005:r-- g::r-x m::r-x o::r-x
A2_POSIX="0200000001000600ffffffff02000400ed03000004000500ffffffff10000500ffffffff20000500ffffffff"
# richacl value: owner@:rwp  user:1005:r  group@:rx  everyone@:rx (not equivalent)
a2_rich() { echo "$(rhdr 0 4 0 0 0)$(race 0 $A_SPECIAL 0x7 0)$(race 0 0 0x1 1005)$(race 0 $A_SPECIAL 0x21 1)$(race 0 $A_SPECIAL 0x21 2)"; }
