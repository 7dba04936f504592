// SPDX-License-Identifier: GPL-2.0
/*
 * kt - perform exactly one system call for the in-guest kernel tests and
 * report its outcome in a form a shell script can compare.
 *
 *   kt [-u UID -g GID [-G GID,...]] [-C CAPS] OP ARGS...
 *
 * With -u, the helper first drops to that user (setgroups to the -G list,
 * which may be empty, then setresgid/setresuid to GID/UID; all capabilities
 * are lost with the root uids unless -C keeps some), so that a check costs
 * one exec and not a setpriv plus an exec.
 *
 * -C CAPS gives the caller exactly the capabilities CAPS, a comma-separated
 * list of names without the CAP_ prefix (dac_override, dac_read_search,
 * fowner, chown, fsetid, mknod, sys_admin, ...; any case) or "none":
 *   with -u     the new uid holds exactly CAPS in its permitted, effective,
 *               inheritable and ambient sets (PR_SET_KEEPCAPS across the
 *               uid change, then capset and PR_CAP_AMBIENT_RAISE);
 *   without -u  the process stays uid 0 ("root with a reduced bounding
 *               set"): every other capability is dropped from the bounding
 *               set (PR_CAPBSET_DROP), and the permitted, effective and
 *               inheritable sets become exactly CAPS (ambient: empty).
 * The result is verified with capget (and prctl); a mismatch is a usage
 * error (exit 2).
 *
 * Prints "OK" (plus a value for getxattr) and exits 0 on success, or the
 * errno name (EACCES, EPERM, EINVAL, ...) and exits 1 on failure.  Usage
 * errors print a message on stderr and exit 2.
 *
 * Operations:
 *   create PATH [MODE]          open(O_CREAT|O_EXCL|O_WRONLY), mode 0666
 *   mkdir PATH [MODE]           mkdir, mode 0777
 *   mknod PATH                  a FIFO, mode 0666
 *   symlink TARGET PATH
 *   link OLD NEW
 *   unlink PATH
 *   rmdir PATH
 *   rename OLD NEW              renameat2(flags 0)
 *   exchange OLD NEW            renameat2(RENAME_EXCHANGE)
 *   whiteout OLD NEW            renameat2(RENAME_WHITEOUT) (needs CAP_MKNOD)
 *   noreplace OLD NEW           renameat2(RENAME_NOREPLACE)
 *   open PATH FLAGS             FLAGS: r (read), w (write), rw, plus
 *                               a (O_APPEND) and t (O_TRUNC), e.g. "wa"
 *   write PATH FLAGS DATA       open with FLAGS (as above) and write DATA
 *   fdop PATH FLAGS ACTION      open with FLAGS, then on the descriptor:
 *                               ftruncate (to 0), punch (fallocate
 *                               PUNCH_HOLE|KEEP_SIZE of the first byte),
 *                               allocate (fallocate KEEP_SIZE), noappend
 *                               (fcntl F_SETFL without O_APPEND), mmap
 *                               (MAP_SHARED, PROT_READ|PROT_WRITE) or
 *                               write (write "x"); a failed open prints
 *                               "open:ERRNO" so that it never passes for a
 *                               refused action
 *   chmod PATH MODE             MODE in octal
 *   chown PATH UID GID          -1 leaves the id unchanged
 *   utimes PATH now|SECONDS     utimensat: NULL times, or atime = mtime = SECONDS
 *   stat PATH
 *   chdir PATH
 *   readdir PATH                open the directory and read its entries
 *   setxattr PATH NAME HEX      value given as hex digits ("" = empty value)
 *   getxattr PATH NAME          prints "OK <hex value>"
 *   removexattr PATH NAME
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

static void usage(const char *msg)
{
	fprintf(stderr, "kt: %s (see the comment at the top of kt.c)\n", msg);
	exit(2);
}

static int result(int ret)
{
	if (ret < 0) {
		const char *name = strerrorname_np(errno);

		printf("%s\n", name ? name : "E?");
		return 1;
	}
	printf("OK\n");
	return 0;
}

static unsigned long parse_octal(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 8);

	if (!*s || *end)
		usage("bad octal mode");
	return v;
}

static long parse_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end)
		usage("bad number");
	return v;
}

static int open_flags(const char *s)
{
	int acc = -1, extra = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'r':
			acc = acc == O_WRONLY ? O_RDWR : O_RDONLY;
			break;
		case 'w':
			acc = acc == O_RDONLY ? O_RDWR : O_WRONLY;
			break;
		case 'a':
			extra |= O_APPEND;
			break;
		case 't':
			extra |= O_TRUNC;
			break;
		default:
			usage("bad open flags");
		}
	}
	if (acc < 0)
		usage("open flags need r or w");
	return acc | extra;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t parse_hex(const char *s, unsigned char **out)
{
	size_t len = strlen(s), n = 0, i;
	unsigned char *buf;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	buf = malloc(len / 2 + 1);
	if (!buf)
		usage("out of memory");
	for (i = 0; i < len;) {
		int hi, lo;

		if (s[i] == ' ' || s[i] == ':') {
			i++;
			continue;
		}
		hi = hexval(s[i]);
		lo = i + 1 < len ? hexval(s[i + 1]) : -1;
		if (hi < 0 || lo < 0)
			usage("bad hex value");
		buf[n++] = hi << 4 | lo;
		i += 2;
	}
	*out = buf;
	return n;
}

static int do_readdir(const char *path)
{
	DIR *dir = opendir(path);

	if (!dir)
		return -1;
	errno = 0;
	while (readdir(dir))
		;
	if (errno) {
		int e = errno;

		closedir(dir);
		errno = e;
		return -1;
	}
	closedir(dir);
	return 0;
}

/* one operation on a file descriptor opened with FLAGS; see fdop above */
static int do_fdop(const char *path, const char *flags, const char *action)
{
	int fd = open(path, open_flags(flags));
	int ret, e;

	if (fd < 0) {
		const char *name = strerrorname_np(errno);

		printf("open:%s\n", name ? name : "E?");
		exit(1);
	}
	if (!strcmp(action, "ftruncate")) {
		ret = ftruncate(fd, 0);
	} else if (!strcmp(action, "punch")) {
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1);
	} else if (!strcmp(action, "allocate")) {
		ret = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096);
	} else if (!strcmp(action, "noappend")) {
		ret = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_APPEND);
	} else if (!strcmp(action, "mmap")) {
		void *p = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		ret = p == MAP_FAILED ? -1 : munmap(p, 1);
	} else if (!strcmp(action, "write")) {
		ret = write(fd, "x", 1) == 1 ? 0 : -1;
	} else {
		usage("bad fdop action");
	}
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

static int do_write(const char *path, const char *flags, const char *data)
{
	int fd = open(path, open_flags(flags));
	ssize_t len = strlen(data);

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != len) {
		int e = errno;

		close(fd);
		errno = e ? e : EIO;
		return -1;
	}
	return close(fd);
}

static int do_getxattr(const char *path, const char *name)
{
	unsigned char buf[65536];
	ssize_t len = getxattr(path, name, buf, sizeof(buf));
	ssize_t i;

	if (len < 0)
		return result(-1);
	printf("OK ");
	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
	return 0;
}

static int do_utimes(const char *path, const char *when)
{
	struct timespec ts[2];

	if (!strcmp(when, "now"))
		return utimensat(AT_FDCWD, path, NULL, 0);
	ts[0].tv_sec = parse_long(when);
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	return utimensat(AT_FDCWD, path, ts, 0);
}

static void parse_groups(const char *s, gid_t *groups, int *count)
{
	char *copy = strdup(s), *tok, *save = NULL;

	*count = 0;
	if (!copy)
		usage("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*count == 32)
			usage("too many groups");
		groups[(*count)++] = (gid_t)parse_long(tok);
	}
	free(copy);
}

/* Become UID/GID with the supplementary GROUPS; exits on failure. */
static void become(long uid, long gid, const gid_t *groups, int count)
{
	if (setgroups(count, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "kt: cannot become uid %ld gid %ld: %s\n",
			uid, gid, strerror(errno));
		exit(2);
	}
}

/* capability names for -C, indexed by number (CAP_CHOWN = 0, ...) */
static const char *const cap_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill",
	"setgid", "setuid", "setpcap", "linux_immutable", "net_bind_service",
	"net_broadcast", "net_admin", "net_raw", "ipc_lock", "ipc_owner",
	"sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
	"sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time",
	"sys_tty_config", "mknod", "lease", "audit_write", "audit_control",
	"setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};
#define NCAPS ((int)(sizeof(cap_names) / sizeof(cap_names[0])))

/* "none" or a comma-separated list of capability names -> bit mask */
static uint64_t parse_caps(const char *s)
{
	char *copy, *tok, *save = NULL;
	uint64_t mask = 0;
	int i;

	if (!strcasecmp(s, "none"))
		return 0;
	copy = strdup(s);
	if (!copy)
		usage("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strncasecmp(tok, "cap_", 4))
			tok += 4;
		for (i = 0; i < NCAPS; i++)
			if (!strcasecmp(tok, cap_names[i]))
				break;
		if (i == NCAPS)
			usage("unknown capability name");
		mask |= (uint64_t)1 << i;
	}
	free(copy);
	if (!mask)
		usage("empty capability list (use \"none\")");
	return mask;
}

static void cap_die(const char *what)
{
	fprintf(stderr, "kt: -C: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* capget/capset through the raw system calls (no libcap) */
static void caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		cap_die("capget");
	*eff = data[0].effective | (uint64_t)data[1].effective << 32;
	*prm = data[0].permitted | (uint64_t)data[1].permitted << 32;
	*inh = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
}

static void caps_set(uint64_t caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int i;

	for (i = 0; i < 2; i++) {
		data[i].effective = (uint32_t)(caps >> (32 * i));
		data[i].permitted = data[i].effective;
		data[i].inheritable = data[i].effective;
	}
	if (syscall(SYS_capset, &hdr, data))
		cap_die("capset");
}

/*
 * -C: the calling process (uid 0) gets exactly CAPS.  With CHANGED_UID == 0
 * (no -u) the bounding set is reduced to CAPS first; otherwise the caller has
 * already set PR_SET_KEEPCAPS and changed its uids, and CAPS are raised into
 * the ambient set as well.
 */
static void restrict_caps(uint64_t caps, int changed_uid)
{
	uint64_t eff, prm, inh;
	int cap;

	if (!changed_uid) {
		for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
			if (!(cap < 64 && caps >> cap & 1) &&
			    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
				cap_die("PR_CAPBSET_DROP");
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
			cap_die("PR_CAP_AMBIENT_CLEAR_ALL");
	}
	caps_set(caps);
	if (changed_uid) {
		for (cap = 0; cap < 64; cap++)
			if (caps >> cap & 1 &&
			    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0))
				cap_die("PR_CAP_AMBIENT_RAISE");
	}
	caps_get(&eff, &prm, &inh);
	if (eff != caps || prm != caps || inh != caps) {
		fprintf(stderr, "kt: -C: wanted %#llx, have effective %#llx "
			"permitted %#llx inheritable %#llx\n",
			(unsigned long long)caps, (unsigned long long)eff,
			(unsigned long long)prm, (unsigned long long)inh);
		exit(2);
	}
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		int want = cap < 64 && caps >> cap & 1;

		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) !=
		    (changed_uid && want) ||
		    (!changed_uid && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != want)) {
			fprintf(stderr, "kt: -C: ambient or bounding set wrong "
				"for capability %d\n", cap);
			exit(2);
		}
	}
}

#define NEED(n) do { if (argc != (n) + 2) usage("wrong number of arguments"); } while (0)

int main(int argc, char *argv[])
{
	long uid = -1, gid = -1;
	gid_t groups[32];
	int ngroups = 0, opt, have_caps = 0;
	uint64_t caps = 0;
	const char *op;
	unsigned char *val;
	size_t len;

	while ((opt = getopt(argc, argv, "+u:g:G:C:")) != -1) {
		switch (opt) {
		case 'u':
			uid = parse_long(optarg);
			break;
		case 'g':
			gid = parse_long(optarg);
			break;
		case 'G':
			parse_groups(optarg, groups, &ngroups);
			break;
		case 'C':
			caps = parse_caps(optarg);
			have_caps = 1;
			break;
		default:
			usage("unknown option");
		}
	}
	if ((uid < 0) != (gid < 0))
		usage("-u and -g go together");
	if (have_caps && uid >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		cap_die("PR_SET_KEEPCAPS");
	if (uid >= 0)
		become(uid, gid, groups, ngroups);
	if (have_caps)
		restrict_caps(caps, uid >= 0);
	/* from here on, argv[1] is the operation */
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3)
		usage("usage: kt [-u UID -g GID [-G GIDS]] [-C CAPS] OP ARGS...");
	op = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(op, "create")) {
		int fd;

		if (argc != 3 && argc != 4)
			usage("wrong number of arguments");
		fd = open(argv[2], O_CREAT | O_EXCL | O_WRONLY,
			  argc == 4 ? parse_octal(argv[3]) : 0666);
		return result(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "mkdir")) {
		if (argc != 3 && argc != 4)
			usage("wrong number of arguments");
		return result(mkdir(argv[2], argc == 4 ? parse_octal(argv[3]) : 0777));
	}
	if (!strcmp(op, "mknod")) {
		NEED(1);
		return result(mknod(argv[2], S_IFIFO | 0666, 0));
	}
	if (!strcmp(op, "symlink")) {
		NEED(2);
		return result(symlink(argv[2], argv[3]));
	}
	if (!strcmp(op, "link")) {
		NEED(2);
		return result(link(argv[2], argv[3]));
	}
	if (!strcmp(op, "unlink")) {
		NEED(1);
		return result(unlink(argv[2]));
	}
	if (!strcmp(op, "rmdir")) {
		NEED(1);
		return result(rmdir(argv[2]));
	}
	if (!strcmp(op, "rename") || !strcmp(op, "exchange") || !strcmp(op, "noreplace") ||
	    !strcmp(op, "whiteout")) {
		unsigned int flags = !strcmp(op, "exchange") ? RENAME_EXCHANGE :
				     !strcmp(op, "noreplace") ? RENAME_NOREPLACE :
				     !strcmp(op, "whiteout") ? RENAME_WHITEOUT : 0;
		NEED(2);
		return result(renameat2(AT_FDCWD, argv[2], AT_FDCWD, argv[3], flags));
	}
	if (!strcmp(op, "open")) {
		int fd;

		NEED(2);
		fd = open(argv[2], open_flags(argv[3]));
		return result(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "write")) {
		NEED(3);
		return result(do_write(argv[2], argv[3], argv[4]));
	}
	if (!strcmp(op, "fdop")) {
		NEED(3);
		return result(do_fdop(argv[2], argv[3], argv[4]));
	}
	if (!strcmp(op, "chmod")) {
		NEED(2);
		return result(chmod(argv[2], parse_octal(argv[3])));
	}
	if (!strcmp(op, "chown")) {
		NEED(3);
		return result(chown(argv[2], (uid_t)parse_long(argv[3]),
				    (gid_t)parse_long(argv[4])));
	}
	if (!strcmp(op, "utimes")) {
		NEED(2);
		return result(do_utimes(argv[2], argv[3]));
	}
	if (!strcmp(op, "stat")) {
		struct stat st;

		NEED(1);
		return result(stat(argv[2], &st));
	}
	if (!strcmp(op, "chdir")) {
		NEED(1);
		return result(chdir(argv[2]));
	}
	if (!strcmp(op, "readdir")) {
		NEED(1);
		return result(do_readdir(argv[2]));
	}
	if (!strcmp(op, "setxattr")) {
		int ret;

		NEED(3);
		len = parse_hex(argv[4], &val);
		ret = setxattr(argv[2], argv[3], val, len, 0);
		free(val);
		return result(ret);
	}
	if (!strcmp(op, "getxattr")) {
		NEED(2);
		return do_getxattr(argv[2], argv[3]);
	}
	if (!strcmp(op, "removexattr")) {
		NEED(2);
		return result(removexattr(argv[2], argv[3]));
	}
	usage("unknown operation");
	return 2;
}
