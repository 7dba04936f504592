// SPDX-License-Identifier: GPL-2.0
/*
 * kt - perform exactly one system call for the in-guest kernel tests and
 * report its outcome in a form a shell script can compare.
 *
 *   kt [-u UID -g GID [-G GID,...]] OP ARGS...
 *
 * With -u, the helper first drops to that user (setgroups to the -G list,
 * which may be empty, then setresgid/setresuid to GID/UID; all capabilities
 * are lost with the root uids), so that a check costs one exec and not a
 * setpriv plus an exec.  Prints "OK" (plus a value for getxattr) and exits 0 on success, or the
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
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
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

#define NEED(n) do { if (argc != (n) + 2) usage("wrong number of arguments"); } while (0)

int main(int argc, char *argv[])
{
	long uid = -1, gid = -1;
	gid_t groups[32];
	int ngroups = 0, opt;
	const char *op;
	unsigned char *val;
	size_t len;

	while ((opt = getopt(argc, argv, "+u:g:G:")) != -1) {
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
		default:
			usage("unknown option");
		}
	}
	if ((uid < 0) != (gid < 0))
		usage("-u and -g go together");
	if (uid >= 0)
		become(uid, gid, groups, ngroups);
	/* from here on, argv[1] is the operation */
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 3)
		usage("usage: kt [-u UID -g GID [-G GIDS]] OP ARGS...");
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
	if (!strcmp(op, "rename") || !strcmp(op, "exchange") || !strcmp(op, "noreplace")) {
		unsigned int flags = !strcmp(op, "exchange") ? RENAME_EXCHANGE :
				     !strcmp(op, "noreplace") ? RENAME_NOREPLACE : 0;
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
