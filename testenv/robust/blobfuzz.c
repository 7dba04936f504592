/*
 * blobfuzz.c - hostile system.richacl values against the kernel
 * (testenv/robust/, run by testenv/run-robust.sh in the QEMU guest as root).
 *
 *   blobfuzz --dir DIR [--seed N] [--count N] [--max-report N]
 *
 * Starts from valid blobs (random acls encoded with richacl_to_xattr) and
 * mutates them: bit flips, random bytes, inserted and deleted bytes,
 * truncation, extension, header fields (version, flags, count, masks),
 * entry fields (type, flags - unmapped / special / group bits -, ids,
 * masks), string areas without NUL, empty strings, extra strings; one blob
 * in ten is random bytes.  Each blob is set with setxattr("system.richacl")
 * on a file or directory that carries a known acl, and:
 *
 *  - a blob the library's strict decoder (richacl_from_xattr, which
 *    includes richacl_valid) rejects must get EINVAL, and the old acl and
 *    mode must be intact afterwards (SEMANTICS.md section 3: "invalid xattr
 *    values get EINVAL and change nothing");
 *  - a blob it accepts must be accepted, and the stored state must then be
 *    what the store rule predicts (getxattr gives richacl_to_xattr of the
 *    decoded acl, or ENODATA and the equivalent mode);
 *  - values over 65536 bytes are refused by the VFS with E2BIG before any
 *    richacl code runs (checked as such); a zero-length value is an empty
 *    value for the VFS (not a removal), so it is simply invalid (EINVAL);
 *  - one kernel rule is stricter than the library: a uid / gid entry with
 *    id 4294967295 ((uid_t)-1, no mapping in any user namespace) is
 *    rejected by the kernel (make_kuid fails) and accepted by the library
 *    decoder.  Such blobs are expected to get EINVAL and are counted
 *    separately ("kernel-only rejections") so the divergence stays visible.
 *
 * dmesg is checked by the caller (Oops / BUG / WARNING).  Last line:
 *   "blobfuzz: N passed, N failed" (N blobs).
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

static const uint32_t pool_uids[] = { 1001, 1002, 1003, 1004 };
static const uint32_t pool_gids[] = { 2001, 2002, 2003, 1001 };
static const struct id_pool pool = { pool_uids, 4, pool_gids, 4 };

#define MAXBLOB (RICHACL_XATTR_MAX_SIZE + 64)

struct target {
	char path[512];
	bool isdir;
	unsigned char blob[MAXBLOB];	/* stored value, as getxattr returns it */
	ssize_t len;			/* -1: no acl stored */
	mode_t mode;
};

struct stats {
	unsigned long tried, valid, invalid, kernel_only, oversize, empty, too_big_for_fs;
	unsigned long failures, max_report;
	uint64_t seed;
};

static void fatal(const char *what, const char *path)
{
	printf("blobfuzz: FATAL: %s %s: %s\n", what, path, strerror(errno));
	exit(2);
}

static void snapshot(struct target *t)
{
	struct stat st;

	if (lstat(t->path, &st))
		fatal("stat", t->path);
	t->mode = st.st_mode;
	t->len = lgetxattr(t->path, RICHACL_XATTR, t->blob, sizeof(t->blob));
	if (t->len < 0 && errno != ENODATA)
		fatal("getxattr", t->path);
}

static void hexdump(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 256; i++)
		printf("%02x%s", p[i], (i % 4 == 3) ? " " : "");
	if (n > 256)
		printf("... (%zu bytes)", n);
	printf("\n");
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static size_t valid_blob(struct rng *r, bool isdir, unsigned char *buf)
{
	struct richacl *acl = random_acl(r, isdir, &pool);
	ssize_t n = richacl_to_xattr(acl, buf, MAXBLOB);

	richacl_free(acl);
	if (n < 0) {
		printf("blobfuzz: FATAL: richacl_to_xattr of a random acl failed\n");
		exit(2);
	}
	return (size_t)n;
}

/* one mutation of buf[0..*len) */
static void mutate(struct rng *r, unsigned char *buf, size_t *len)
{
	size_t n = *len, pos, k;
	unsigned int count = n >= 4 ? (unsigned int)(buf[2] | buf[3] << 8) : 0;
	size_t entry = count ? 16 + 12 * rnd(r, count) : 16;

	switch (rnd(r, 16)) {
	case 0:	/* bit flip */
		if (n)
			buf[rnd(r, (uint32_t)n)] ^= (unsigned char)(1u << rnd(r, 8));
		break;
	case 1:	/* random byte */
		if (n)
			buf[rnd(r, (uint32_t)n)] = (unsigned char)rng_next(r);
		break;
	case 2:	/* insert bytes */
		k = 1 + rnd(r, 16);
		if (n + k <= MAXBLOB) {
			pos = rnd(r, (uint32_t)n + 1);
			memmove(buf + pos + k, buf + pos, n - pos);
			for (size_t i = 0; i < k; i++)
				buf[pos + i] = chance(r, 30) ? 0 : (unsigned char)rng_next(r);
			*len = n + k;
		}
		break;
	case 3:	/* delete bytes */
		if (n) {
			pos = rnd(r, (uint32_t)n);
			k = 1 + rnd(r, 16);
			if (k > n - pos)
				k = n - pos;
			memmove(buf + pos, buf + pos + k, n - pos - k);
			*len = n - k;
		}
		break;
	case 4:	/* truncate */
		*len = rnd(r, (uint32_t)n + 1);
		break;
	case 5:	/* version */
		if (n >= 1)
			buf[0] = (unsigned char)(chance(r, 50) ? 1 : rng_next(r));
		break;
	case 6:	/* acl flags */
		if (n >= 2)
			buf[1] = (unsigned char)(chance(r, 50) ? (buf[1] | (1u << rnd(r, 8))) :
						 rng_next(r));
		break;
	case 7:	/* count */
		if (n >= 4) {
			static const uint16_t counts[] = { 0, 1, 2, 5460, 5461, 0xffff };

			put16(buf + 2, chance(r, 50) ? (uint16_t)(count + rnd(r, 3) - 1) :
				       counts[rnd(r, 6)]);
		}
		break;
	case 8:	/* a file mask */
		if (n >= 16)
			put32(buf + 4 + 4 * rnd(r, 3), chance(r, 50) ? (uint32_t)rng_next(r) :
				  RICHACE_VALID_MASK + 1);
		break;
	case 9:	/* entry type */
		if (entry + 12 <= n)
			put16(buf + entry, (uint16_t)(chance(r, 50) ? 2 + rnd(r, 3) : rng_next(r)));
		break;
	case 10: /* entry flags: who bits */
		if (entry + 12 <= n) {
			static const uint16_t bits[] = { RICHACE_UNMAPPED_WHO, RICHACE_SPECIAL_WHO,
							 RICHACE_IDENTIFIER_GROUP, 0x0010, 0x0100,
							 0x8000, 0x1000 };

			buf[entry + 2 + 0] ^= (unsigned char)bits[rnd(r, 7)];
			buf[entry + 2 + 1] ^= (unsigned char)(bits[rnd(r, 7)] >> 8);
		}
		break;
	case 11: /* entry id */
		if (entry + 12 <= n) {
			static const uint32_t ids[] = { 0, 1, 2, 3, 0xffffffff, 0xfffffffe, 65534,
							1001 };

			put32(buf + entry + 8, ids[rnd(r, 8)]);
		}
		break;
	case 12: /* entry mask */
		if (entry + 12 <= n)
			put32(buf + entry + 4, chance(r, 50) ? (uint32_t)rng_next(r) :
				  (1u << rnd(r, 32)));
		break;
	case 13: /* string area: append a string, maybe without NUL or empty */
		k = rnd(r, 8);
		if (n + k + 1 <= MAXBLOB) {
			for (size_t i = 0; i < k; i++)
				buf[n + i] = (unsigned char)('A' + rnd(r, 26));
			buf[n + k] = chance(r, 70) ? 0 : 'Z';
			*len = n + k + 1;
		}
		break;
	case 14: /* make an entry unmapped without a string, or vice versa */
		if (entry + 12 <= n)
			buf[entry + 3] ^= RICHACE_UNMAPPED_WHO >> 8;
		break;
	default: /* a NUL in the middle of the string area */
		if (n > 16 + 12 * (size_t)count)
			buf[16 + 12 * count + rnd(r, (uint32_t)(n - 16 - 12 * count))] = 0;
		break;
	}
}

/* the library's verdict; *kernel_only if only the kernel's id rule rejects */
static bool library_valid(const unsigned char *buf, size_t len, bool *kernel_only,
			  struct richacl **acl_out)
{
	struct richacl *acl = NULL;
	const struct richace *ace;

	*kernel_only = false;
	*acl_out = NULL;
	if (richacl_from_xattr(buf, len, &acl, NULL))
		return false;
	richacl_for_each_entry(ace, acl) {
		if (!(ace->e_flags & (RICHACE_SPECIAL_WHO | RICHACE_UNMAPPED_WHO)) &&
		    ace->e_id == 0xffffffffu)
			*kernel_only = true;
	}
	*acl_out = acl;
	return true;
}

static void report(struct stats *st, const char *what, const struct target *t,
		   const unsigned char *buf, size_t len, int err)
{
	st->failures++;
	if (st->failures > st->max_report)
		return;
	printf("FAIL seed %llu blob %lu on %s (%s): %s; setxattr -> %s\n    blob: ",
	       (unsigned long long)st->seed, st->tried, t->path, t->isdir ? "dir" : "file", what,
	       err ? strerror(err) : "success");
	hexdump(buf, len);
}

/* the stored state must be exactly t's snapshot (nothing changed) */
static bool unchanged(const struct target *t)
{
	struct target now = *t;

	snapshot(&now);
	return now.mode == t->mode && now.len == t->len &&
	       (t->len < 0 || !memcmp(now.blob, t->blob, (size_t)t->len));
}

/*
 * after an accepted set: the store rule applied to the decoded acl (the
 * kernel computes the file masks of an acl that is not masked)
 */
static bool stored_as(const struct target *t, struct richacl *acl)
{
	struct target now = *t;
	mode_t m = t->mode;
	unsigned char buf[MAXBLOB];
	ssize_t n;

	snapshot(&now);
	if (!acl)	/* removed */
		return now.len < 0 && now.mode == t->mode;
	if (!(acl->a_flags & RICHACL_MASKED))
		richacl_compute_max_masks(acl);
	if (richacl_equiv_mode(acl, &m) == 0)
		return now.len < 0 && now.mode == m;
	n = richacl_to_xattr(acl, buf, sizeof(buf));
	return n == now.len && !memcmp(buf, now.blob, (size_t)n) &&
	       (now.mode & 07777) == ((t->mode & 07000) | richacl_masks_to_mode(acl));
}

static void set_known_acl(struct rng *r, struct target *t)
{
	unsigned char buf[MAXBLOB];
	size_t len = valid_blob(r, t->isdir, buf);

	if (lsetxattr(t->path, RICHACL_XATTR, buf, len, 0))
		fatal("setxattr of a valid acl on", t->path);
	snapshot(t);
}

int main(int argc, char **argv)
{
	struct stats st = { 0 };
	struct rng r;
	struct target tg[2];
	const char *dir = NULL;
	unsigned long count = 1000;
	static unsigned char buf[MAXBLOB + 70000];
	time_t t0 = time(NULL);
	int i;

	st.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	st.max_report = 10;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			st.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max-report") && i + 1 < argc)
			st.max_report = strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: blobfuzz --dir DIR [--seed N] [--count N] [--max-report N]\n");
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "blobfuzz: --dir is required\n");
		return 2;
	}
	r.s = st.seed;
	printf("blobfuzz: seed %llu, %lu blobs, dir %s\n", (unsigned long long)st.seed, count, dir);
	fflush(stdout);
	mkdir(dir, 0755);
	snprintf(tg[0].path, sizeof(tg[0].path), "%s/file", dir);
	snprintf(tg[1].path, sizeof(tg[1].path), "%s/dir", dir);
	tg[0].isdir = false;
	tg[1].isdir = true;
	{
		int fd = open(tg[0].path, O_CREAT | O_WRONLY, 0644);

		if (fd < 0)
			fatal("create", tg[0].path);
		close(fd);
		if (mkdir(tg[1].path, 0755) && errno != EEXIST)
			fatal("mkdir", tg[1].path);
	}
	set_known_acl(&r, &tg[0]);
	set_known_acl(&r, &tg[1]);

	while (st.tried < count) {
		struct target *t = &tg[rnd(&r, 2)];
		size_t len;
		bool valid, kernel_only;
		struct richacl *acl;
		int err, m, nmut;

		if (chance(&r, 5))
			set_known_acl(&r, t);
		if (chance(&r, 10)) {
			len = rnd(&r, chance(&r, 90) ? 200 : 4000);
			for (size_t k = 0; k < len; k++)
				buf[k] = (unsigned char)rng_next(&r);
		} else {
			len = valid_blob(&r, t->isdir, buf);
			nmut = chance(&r, 15) ? 0 : 1 + (int)rnd(&r, 4);
			for (m = 0; m < nmut; m++)
				mutate(&r, buf, &len);
		}
		if (chance(&r, 1)) {
			/* over the VFS limit, or empty */
			len = chance(&r, 50) ? RICHACL_XATTR_MAX_SIZE + 1 + rnd(&r, 1000) : 0;
			if (len)
				memset(buf + 16, 0, len - 16);
		}
		st.tried++;
		valid = library_valid(buf, len, &kernel_only, &acl);
		if (len == 0)
			st.empty++;
		err = lsetxattr(t->path, RICHACL_XATTR, buf, len, 0) ? errno : 0;

		if (len > RICHACL_XATTR_MAX_SIZE) {
			st.oversize++;
			if (err != E2BIG)
				report(&st, "oversize value not refused with E2BIG", t, buf, 64, err);
			else if (!unchanged(t))
				report(&st, "acl changed after a refused oversize value", t, buf, 64, err);
		} else if (!valid || kernel_only) {
			if (valid)
				st.kernel_only++;
			else
				st.invalid++;
			if (err != EINVAL)
				report(&st, valid ? "uid/gid 4294967295 not refused with EINVAL" :
					    "invalid blob not refused with EINVAL", t, buf, len, err);
			else if (!unchanged(t))
				report(&st, "acl or mode changed after a rejected blob", t, buf, len, err);
		} else {
			st.valid++;
			if (err == ENOSPC || err == E2BIG) {
				/* valid, but larger than an ext4 xattr can be */
				st.too_big_for_fs++;
				if (len < 3000)
					report(&st, "small valid blob refused for its size", t, buf, len, err);
				else if (!unchanged(t))
					report(&st, "acl changed after a refused set", t, buf, len, err);
			} else if (err) {
				report(&st, "valid blob refused", t, buf, len, err);
			} else if (!stored_as(t, acl)) {
				report(&st, "stored state is not what the store rule predicts", t, buf,
				       len, err);
			}
		}
		richacl_free(acl);
		snapshot(t);
		if (st.tried % 20000 == 0) {
			printf("blobfuzz: %lu blobs, %lu failures, %ld s\n", st.tried, st.failures,
			       (long)(time(NULL) - t0));
			fflush(stdout);
		}
	}
	printf("blobfuzz: seed %llu: %lu blobs: %lu valid (accepted), %lu invalid (EINVAL), "
	       "%lu kernel-only rejections (uid/gid 4294967295), %lu oversize (E2BIG), %lu empty "
	       "(EINVAL), %lu valid but too big for an ext4 xattr; %ld s\n",
	       (unsigned long long)st.seed, st.tried, st.valid, st.invalid, st.kernel_only,
	       st.oversize, st.empty, st.too_big_for_fs, (long)(time(NULL) - t0));
	printf("blobfuzz: %lu passed, %lu failed\n", st.tried - st.failures, st.failures);
	return st.failures ? 1 : 0;
}
