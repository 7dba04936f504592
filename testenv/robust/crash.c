/*
 * crash.c - crash consistency of richacl writes (testenv/robust/, run in the
 * QEMU guest by testenv/robust/guest.sh; the host kills QEMU at random).
 *
 *   crash write --dir DIR --log FILE [--seed N] [--files N] [--ready FILE]
 *   crash check --dir DIR --log FILE
 *
 * write: makes DIR/f0 .. DIR/f<N-1> (once), then loops forever: picks a file
 *   and a random acl (random entries, or an acl equivalent to a mode, which
 *   the kernel stores as the mode alone), appends "I <file> <hex blob>" to
 *   the log and fsyncs the log, sets the acl with setxattr, fsyncs the file,
 *   appends "D <file>" and fsyncs the log.  The log lives on the host
 *   (the results share), so it survives the kill.  --ready is touched once
 *   the loop runs.
 *
 * check: replays the log.  For every file the last acl with a "D" record is
 *   durable (old); an "I" record after it (new) may or may not have reached
 *   the disk.  The file must exist and its stored state (the system.richacl
 *   bytes, or ENODATA and the equivalent mode bits) must be exactly the
 *   state of the old or of the new acl: never torn, never missing, never an
 *   older one.  Prints one line per file on failure, then
 *   "crash-check: N passed, N failed" (N files).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define MAXFILES 64

static const uint32_t pool_uids[] = { 1001, 1002, 1003, 1004 };
static const uint32_t pool_gids[] = { 2001, 2002, 2003, 1001 };
static const struct id_pool pool = { pool_uids, 4, pool_gids, 4 };

static void die(const char *what)
{
	printf("crash: FATAL: %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(2);
}

static void log_line(int fd, const char *line)
{
	size_t n = strlen(line);

	if (write(fd, line, n) != (ssize_t)n || fsync(fd))
		die("log write");
}

static int do_write(const char *dir, const char *logpath, uint64_t seed, int nfiles,
		    const char *ready)
{
	struct rng r = { seed };
	char path[600], *line;
	int logfd, i;
	unsigned long n = 0;

	mkdir(dir, 0755);
	for (i = 0; i < nfiles; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			die("create");
		fsync(fd);
		close(fd);
	}
	logfd = open(logpath, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (logfd < 0)
		die("open log");
	line = xmalloc(2 * RICHACL_XATTR_MAX_SIZE + 64);
	if (ready) {
		int fd = open(ready, O_CREAT | O_WRONLY, 0644);

		if (fd >= 0)
			close(fd);
	}
	for (;;) {
		int f = (int)rnd(&r, (uint32_t)nfiles), fd;
		struct richacl *acl;
		unsigned char blob[4096];
		ssize_t len;
		size_t k;
		char *p;

		acl = chance(&r, 20) ? richacl_from_mode(rnd(&r, 01000)) : random_acl(&r, false, &pool);
		len = richacl_to_xattr(acl, blob, sizeof(blob));
		richacl_free(acl);
		if (len < 0)
			continue;
		p = line + sprintf(line, "I %d ", f);
		for (k = 0; k < (size_t)len; k++)
			p += sprintf(p, "%02x", blob[k]);
		strcpy(p, "\n");
		log_line(logfd, line);

		snprintf(path, sizeof(path), "%s/f%d", dir, f);
		if (lsetxattr(path, RICHACL_XATTR, blob, (size_t)len, 0))
			die("setxattr");
		fd = open(path, O_RDONLY);
		if (fd < 0 || fsync(fd))
			die("fsync");
		close(fd);
		sprintf(line, "D %d\n", f);
		log_line(logfd, line);
		if (++n % 500 == 0) {
			printf("crash-write: %lu acls written\n", n);
			fflush(stdout);
		}
	}
	return 0;
}

struct cand {
	unsigned char *blob;	/* NULL: none recorded yet */
	size_t len;
};

static int hexval(int c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* does the stored state of path equal what setting blob gives? */
static bool state_is(const char *path, const struct cand *c, const unsigned char *kbuf,
		     ssize_t klen, mode_t kmode)
{
	struct richacl *acl = NULL;
	mode_t m = kmode;
	bool ok;

	(void)path;
	if (!c->blob)
		return klen < 0;	/* never set: no acl */
	if (richacl_from_xattr(c->blob, c->len, &acl, NULL))
		return false;
	if (richacl_equiv_mode(acl, &m) == 0)
		ok = klen < 0 && m == kmode;
	else
		ok = klen == (ssize_t)c->len && !memcmp(kbuf, c->blob, c->len) &&
		     (kmode & 0777) == richacl_masks_to_mode(acl);
	richacl_free(acl);
	return ok;
}

static int do_check(const char *dir, const char *logpath)
{
	struct cand done[MAXFILES] = { { 0 } }, pending[MAXFILES] = { { 0 } };
	bool has_pending[MAXFILES] = { 0 }, seen[MAXFILES] = { 0 };
	FILE *log = fopen(logpath, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long records = 0, passed = 0, failed = 0, newer = 0;
	int f;

	if (!log) {
		printf("crash-check: no log yet (%s): nothing to check\n", logpath);
		printf("crash-check: 0 passed, 0 failed\n");
		return 0;
	}
	while ((n = getline(&line, &cap, log)) > 0) {
		if (line[n - 1] != '\n')
			break;		/* torn last line of the log itself: ignore */
		if (line[0] == 'I' && sscanf(line, "I %d", &f) == 1 && f >= 0 && f < MAXFILES) {
			char *hex = strchr(line + 2, ' ');
			size_t k, len;

			if (!hex)
				continue;
			hex++;
			len = strcspn(hex, "\n") / 2;
			free(pending[f].blob);
			pending[f].blob = xmalloc(len);
			pending[f].len = len;
			for (k = 0; k < len; k++)
				pending[f].blob[k] = (unsigned char)(hexval(hex[2 * k]) << 4 |
								     hexval(hex[2 * k + 1]));
			has_pending[f] = true;
			seen[f] = true;
			records++;
		} else if (line[0] == 'D' && sscanf(line, "D %d", &f) == 1 && f >= 0 &&
			   f < MAXFILES && has_pending[f]) {
			free(done[f].blob);
			done[f] = pending[f];
			pending[f].blob = NULL;
			has_pending[f] = false;
		}
	}
	fclose(log);
	free(line);

	for (f = 0; f < MAXFILES; f++) {
		char path[600];
		unsigned char kbuf[RICHACL_XATTR_MAX_SIZE];
		ssize_t klen;
		struct stat st;

		if (!seen[f])
			continue;
		snprintf(path, sizeof(path), "%s/f%d", dir, f);
		if (lstat(path, &st)) {
			printf("FAIL %s: missing after the crash: %s\n", path, strerror(errno));
			failed++;
			continue;
		}
		klen = lgetxattr(path, RICHACL_XATTR, kbuf, sizeof(kbuf));
		if (klen < 0 && errno != ENODATA) {
			printf("FAIL %s: getxattr: %s\n", path, strerror(errno));
			failed++;
			continue;
		}
		if (state_is(path, &done[f], kbuf, klen, st.st_mode)) {
			passed++;
		} else if (has_pending[f] && state_is(path, &pending[f], kbuf, klen, st.st_mode)) {
			passed++;
			newer++;
		} else {
			struct richacl *k = NULL;
			char *t = NULL;

			if (klen >= 0 && !richacl_from_xattr(kbuf, (size_t)klen, &k, NULL))
				t = acl_text(k, false);
			printf("FAIL %s: neither the old nor the new acl: mode %04o, %s%s\n", path,
			       (unsigned int)(st.st_mode & 07777),
			       klen < 0 ? "no acl stored" : "stored acl ",
			       klen < 0 ? "" : t ? t : "(undecodable)");
			free(t);
			richacl_free(k);
			failed++;
		}
	}
	printf("crash-check: %lu acl writes in the log; %lu files hold their last completed acl, "
	       "%lu the acl being written at the kill\n", records, passed - newer, newer);
	printf("crash-check: %lu passed, %lu failed\n", passed, failed);
	for (f = 0; f < MAXFILES; f++) {
		free(done[f].blob);
		free(pending[f].blob);
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *logpath = NULL, *ready = NULL;
	uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	int files = 16, i;

	if (argc < 2)
		goto usage;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			logpath = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc)
			files = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			ready = argv[++i];
		else
			goto usage;
	}
	if (!dir || !logpath || files < 1 || files > MAXFILES)
		goto usage;
	if (!strcmp(argv[1], "write")) {
		printf("crash-write: seed %llu, %d files\n", (unsigned long long)seed, files);
		fflush(stdout);
		return do_write(dir, logpath, seed, files, ready);
	}
	if (!strcmp(argv[1], "check"))
		return do_check(dir, logpath);
usage:
	fprintf(stderr, "usage: crash write|check --dir DIR --log FILE [--seed N] [--files N] "
			"[--ready FILE]\n");
	return 2;
}
