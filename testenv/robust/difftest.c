/*
 * difftest.c - differential test of the richacl kernel against the mapping
 * library's permission model (testenv/robust/, run by testenv/run-robust.sh).
 *
 *   difftest --dir DIR [--seed N] [--cases N] [--dry-run] [--max-report N] [--verbose]
 *
 * --max-report N: reproducers printed per kind of mismatch (per operation for
 * permission mismatches), default 3; all mismatches are counted.
 *
 * Runs as root in the QEMU guest on a directory of the richacl ext4 mount.
 * Every round builds a small tree (R, R/D1, R/D2, files D1/a, D1/b, D2/c,
 * empty dirs D1/s, D2/t) with random owners, groups, modes (sticky dirs
 * included) and random richacls (every entry kind incl. unmapped
 * identifiers, inheritance flags, masked / write_through masks) written
 * with setxattr("system.richacl").  Then, as a random credential from the
 * pool (setgroups/setresgid/setresuid, no capabilities left), it performs
 * random operations and compares the kernel's allow / deny with the
 * prediction of the model:
 *
 *   model(object) = the acl the kernel stores after its own store rule
 *     (a mode-equivalent acl is stored as the mode alone, algorithms.md 9:
 *     then richacl_from_mode(mode)), evaluated with richacl_permission()
 *     (mapping/src/permission.c, algorithms.md 6.2);
 *   VFS rules (algorithms.md 6.2 last paragraph, SEMANTICS.md section 3,
 *     the series' fs/namei.c and fs/attr.c): path lookup needs execute on
 *     every directory; open maps O_RDONLY -> r, O_WRONLY -> w, O_TRUNC -> w,
 *     O_APPEND -> p and then plain write is not asked (MAY_APPEND with
 *     MAY_WRITE -> append_data only); create needs add_file (w) or
 *     add_subdirectory (p) plus x on the directory; unlink/rmdir need
 *     (delete_child + x on the dir and the sticky rule) OR (delete on the
 *     victim + x on the dir); rename = delete from the old dir + create
 *     (or replace: delete rights on the target as well) in the new one,
 *     plus write (w) on a directory that changes parent, RENAME_EXCHANGE
 *     replaces on both sides; chmod and setting the acl need ownership or
 *     write_acl; chown to oneself / chgrp to one's own group need ownership
 *     or write_owner; explicit times need ownership or write_attributes,
 *     "now" times ownership, write (w) or write_attributes.
 *
 * Extra checks on the way: the stored state after each setxattr (mode bits
 * and xattr bytes as the store rule predicts), the acl and mode of every
 * object created by a successful create / mkdir (create-time inheritance,
 * richacl_inherit_inode()), and the bytes getxattr returns.
 *
 * Everything is driven by one seeded PRNG (the seed is printed); the same
 * seed and case count replays the same run.  --dry-run touches no file: it
 * generates the same kind of scenarios and predictions (for developing the
 * model on a host without the richacl kernel) and prints the statistics.
 *
 * On a mismatch it prints a reproducer (seed, case, credential, operation,
 * every involved object with owner, group, mode and acl text, expected and
 * actual result) and the exit status is 1.  Last line:
 *   "difftest: N passed, N failed" (every case and every extra check counts
 *   once; failed = mismatches of any kind).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "common.h"

/* the kernel's MAY_* flags (include/linux/fs.h of the series) */
#define K_MAY_EXEC		0x0001
#define K_MAY_WRITE		0x0002
#define K_MAY_READ		0x0004
#define K_MAY_APPEND		0x0008
#define K_MAY_CREATE_FILE	0x0100
#define K_MAY_CREATE_DIR	0x0200
#define K_MAY_DELETE_CHILD	0x0400
#define K_MAY_DELETE_SELF	0x0800
#define K_MAY_TAKE_OWNERSHIP	0x1000
#define K_MAY_CHMOD		0x2000
#define K_MAY_SET_TIMES		0x4000

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static const uint32_t pool_uids[] = { 1001, 1002, 1003, 1004 };
static const uint32_t pool_gids[] = { 2001, 2002, 2003, 1001 };
static const struct id_pool pool = { pool_uids, 4, pool_gids, 4 };

/* ------------------------------------------------------------ the scenario */

enum { O_R, O_D1, O_D2, O_A, O_B, O_C, O_S, O_T, NOBJ };

struct obj {
	const char *name;
	int parent;		/* index, or -1 for the base directory */
	bool isdir;
	uint32_t owner, group;
	mode_t mode;		/* type + permission bits, as the model predicts */
	struct richacl *acl;	/* stored acl, NULL if the mode alone */
	struct richacl *eff;	/* acl or richacl_from_mode(mode) */
	char path[512];
};

static const struct {
	const char *name;
	int parent;
	bool isdir;
} layout[NOBJ] = {
	[O_R] = { "r", -1, true },
	[O_D1] = { "d1", O_R, true },
	[O_D2] = { "d2", O_R, true },
	[O_A] = { "a", O_D1, false },
	[O_B] = { "b", O_D1, false },
	[O_C] = { "c", O_D2, false },
	[O_S] = { "s", O_D1, true },
	[O_T] = { "t", O_D2, true },
};

struct cred {
	uint32_t uid, gid;
	unsigned int ngroups;
	uint32_t groups[8];
	mode_t umask;
};

struct state {
	struct rng rng;
	uint64_t seed;
	const char *base;
	bool dry;
	bool verbose;
	struct obj o[NOBJ];
	unsigned long cases, mismatches, max_report;
	unsigned long allowed, denied;
	unsigned long store_checks, inherit_checks, xattr_checks;
	unsigned long rounds;
	unsigned long op_allow[32], op_deny[32];
	unsigned long kinds[8];
	unsigned long op_mismatch[32];
	int dirty;
	char newpath[3][600];	/* R/new, D1/new, D2/new */
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stdout, "difftest: FATAL: ");
	vfprintf(stdout, fmt, ap);
	fprintf(stdout, "\n");
	va_end(ap);
	fflush(stdout);
	exit(2);
}

/* ------------------------------------------------------------------ model */

static bool cred_in_group(const struct cred *c, uint32_t gid)
{
	unsigned int i;

	if (c->gid == gid)
		return true;
	for (i = 0; i < c->ngroups; i++) {
		if (c->groups[i] == gid)
			return true;
	}
	return false;
}

/* richacl_want_to_mask() of the series: the kernel's request mapping */
static uint32_t want_to_mask(unsigned int want)
{
	uint32_t mask = 0;

	if (want & K_MAY_READ)
		mask |= RICHACE_READ_DATA;
	if (want & K_MAY_EXEC)
		mask |= RICHACE_EXECUTE;
	if (want & K_MAY_DELETE_SELF)
		mask |= RICHACE_DELETE;
	if (want & K_MAY_TAKE_OWNERSHIP)
		mask |= RICHACE_WRITE_OWNER;
	if (want & K_MAY_CHMOD)
		mask |= RICHACE_WRITE_ACL;
	if (want & K_MAY_SET_TIMES)
		mask |= RICHACE_WRITE_ATTRIBUTES;
	if (!(want & K_MAY_WRITE))	/* the refinements only count with MAY_WRITE */
		return mask;
	if (want & (K_MAY_APPEND | K_MAY_CREATE_FILE | K_MAY_CREATE_DIR | K_MAY_DELETE_CHILD)) {
		if (want & K_MAY_APPEND)
			mask |= RICHACE_APPEND_DATA;
		if (want & K_MAY_CREATE_FILE)
			mask |= RICHACE_ADD_FILE;
		if (want & K_MAY_CREATE_DIR)
			mask |= RICHACE_ADD_SUBDIRECTORY;
		if (want & K_MAY_DELETE_CHILD)
			mask |= RICHACE_DELETE_CHILD;
	} else {
		mask |= RICHACE_WRITE_DATA;
	}
	return mask;
}

/* does the model grant c the VFS request want (MAY_* flags) on o? */
static bool may(const struct obj *o, const struct cred *c, unsigned int want)
{
	struct richacl_cred rc = { c->uid, c->gid, c->ngroups, c->groups };
	struct richacl_file f = { o->owner, o->group, o->isdir };
	int ret = richacl_permission(o->eff, &f, &rc, want_to_mask(want));

	if (ret != 0 && ret != -EACCES)
		die("richacl_permission returned %d", ret);
	return ret == 0;
}

/* path lookup of o: execute on every directory above it (base: 0755 root) */
static bool can_reach(const struct state *s, int idx, const struct cred *c)
{
	int p;

	for (p = s->o[idx].parent; p >= 0; p = s->o[p].parent) {
		if (!may(&s->o[p], c, K_MAY_EXEC))
			return false;
	}
	return true;
}

/* lookup of a name inside directory d: reach d, then execute on d */
static bool can_reach_in(const struct state *s, int d, const struct cred *c)
{
	return can_reach(s, d, c) && may(&s->o[d], c, K_MAY_EXEC);
}

static bool is_owner(const struct obj *o, const struct cred *c)
{
	return o->owner == c->uid;
}

/* check_sticky(): refuses unless the caller owns the dir or the victim */
static bool sticky_blocks(const struct obj *dir, const struct obj *victim,
			  const struct cred *c)
{
	if (!(dir->mode & S_ISVTX))
		return false;
	return !is_owner(dir, c) && !is_owner(victim, c);
}

/*
 * may_delete_or_replace() of the series: the directory route (delete_child
 * + x, plus whatever mask adds, then the sticky rule) or the victim route
 * (delete on the victim, and on the directory x plus the create bits of
 * mask: richacl_delete_probe_mask() drops MAY_WRITE unless creating).
 */
static bool model_may_delete(const struct state *s, int dir, int victim,
			     const struct cred *c, unsigned int create_mask)
{
	const struct obj *d = &s->o[dir], *v = &s->o[victim];

	if (may(d, c, K_MAY_WRITE | K_MAY_EXEC | K_MAY_DELETE_CHILD | create_mask) &&
	    !sticky_blocks(d, v, c))
		return true;
	return may(v, c, K_MAY_DELETE_SELF) &&
	       may(d, c, K_MAY_EXEC | (create_mask ? K_MAY_WRITE | create_mask : 0));
}

static unsigned int create_flag(bool isdir)
{
	return isdir ? K_MAY_CREATE_DIR : K_MAY_CREATE_FILE;
}

/* ---------------------------------------------------------------- helpers */

static void obj_set_model_acl(struct obj *o, struct richacl *acl)
{
	richacl_free(o->acl);
	richacl_free(o->eff);
	o->acl = acl;
	o->eff = acl ? richacl_clone(acl) : richacl_from_mode(o->mode);
	if (!o->eff)
		die("out of memory");
}

/*
 * The store rule (set_richacl, ext4_set_richacl): the file masks of an acl
 * without the masked flag are computed (richacl_compute_max_masks); an acl
 * equivalent to the mode is not stored, only the permission bits;
 * otherwise the acl is stored and the permission bits become
 * richacl_masks_to_mode().  Other mode bits stay.
 */
static void model_store(struct obj *o, struct richacl *acl)
{
	mode_t m = o->mode;

	if (acl && !(acl->a_flags & RICHACL_MASKED))
		richacl_compute_max_masks(acl);
	if (acl && richacl_equiv_mode(acl, &m) == 0) {
		o->mode = m;
		richacl_free(acl);
		acl = NULL;
	} else if (acl) {
		o->mode = (o->mode & ~(mode_t)0777) | richacl_masks_to_mode(acl);
	}
	obj_set_model_acl(o, acl);
}

static ssize_t acl_blob(const struct richacl *acl, unsigned char **buf)
{
	size_t size = richacl_xattr_size(acl);
	ssize_t ret;

	*buf = xmalloc(size);
	ret = richacl_to_xattr(acl, *buf, size);
	if (ret < 0)
		die("richacl_to_xattr failed (%zd)", ret);
	return ret;
}

/* --------------------------------------------------- root-side fs actions */

static void rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char sub[1024];

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path))
			die("unlink %s: %s", path, strerror(errno));
		return;
	}
	d = opendir(path);
	if (!d)
		die("opendir %s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_tree(sub);
	}
	closedir(d);
	if (rmdir(path))
		die("rmdir %s: %s", path, strerror(errno));
}

enum kind { K_PERM, K_STORE, K_INHERIT, K_GETXATTR, K_UNEXPECTED, NKINDS };
static const char *const kind_names[NKINDS] = {
	"permission", "store rule", "create-time inheritance", "getxattr", "unexpected errno",
};

/* count a mismatch; true if its reproducer is printed (max_report per kind) */
static int count_mismatch(struct state *s, enum kind k)
{
	s->kinds[k]++;
	s->mismatches++;
	return s->kinds[k] <= s->max_report;
}

/* permission mismatches: max_report reproducers per operation */
static int count_perm_mismatch(struct state *s, enum kind k, int op)
{
	s->kinds[k]++;
	s->mismatches++;
	return s->op_mismatch[op] <= s->max_report;
}

static void print_objects(const struct state *s, FILE *out)
{
	int i;

	for (i = 0; i < NOBJ; i++) {
		const struct obj *o = &s->o[i];
		char *t = acl_text(o->acl, o->isdir);

		fprintf(out, "    %-3s %-28s %s owner %u group %u mode %04o acl: %s\n",
			o->name, o->path, o->isdir ? "dir " : "file", o->owner, o->group,
			(unsigned int)(o->mode & 07777), t);
		free(t);
	}
}

/* compare the kernel's stored state of o with the model (store rule) */
static void check_stored(struct state *s, struct obj *o, const char *what)
{
	struct stat st;
	unsigned char kbuf[65536], *mbuf = NULL;
	ssize_t klen, mlen = 0;
	bool ok = true;
	char why[256] = "";

	if (s->dry)
		return;
	s->store_checks++;
	if (lstat(o->path, &st))
		die("stat %s: %s", o->path, strerror(errno));
	klen = lgetxattr(o->path, RICHACL_XATTR, kbuf, sizeof(kbuf));
	if (klen < 0 && errno != ENODATA)
		die("getxattr %s: %s", o->path, strerror(errno));
	if ((st.st_mode & 07777) != (o->mode & 07777)) {
		ok = false;
		snprintf(why, sizeof(why), "mode %04o, model %04o", (unsigned int)(st.st_mode & 07777),
			 (unsigned int)(o->mode & 07777));
	} else if (st.st_uid != o->owner || st.st_gid != o->group) {
		ok = false;
		snprintf(why, sizeof(why), "owner %u:%u, model %u:%u", st.st_uid, st.st_gid,
			 o->owner, o->group);
	} else if (!o->acl && klen >= 0) {
		ok = false;
		snprintf(why, sizeof(why), "an acl is stored (%zd bytes), the model stores none", klen);
	} else if (o->acl) {
		mlen = acl_blob(o->acl, &mbuf);
		if (klen < 0) {
			ok = false;
			snprintf(why, sizeof(why), "no acl stored (ENODATA), the model stores one");
		} else if (klen != mlen || memcmp(kbuf, mbuf, (size_t)mlen)) {
			struct richacl *k = NULL;
			char *kt;

			ok = false;
			if (richacl_from_xattr(kbuf, (size_t)klen, &k, NULL) == 0) {
				kt = acl_text(k, o->isdir);
				richacl_free(k);
			} else {
				kt = strdup("(undecodable)");
			}
			snprintf(why, sizeof(why), "stored acl differs: %s", kt);
			free(kt);
		}
	}
	free(mbuf);
	if (!ok && count_mismatch(s, strcmp(what, "create-time inheritance") ? K_STORE : K_INHERIT)) {
		char *t = acl_text(o->acl, o->isdir);

		printf("MISMATCH store (%s) seed %llu case %lu: %s: %s\n    model acl: %s\n", what,
		       (unsigned long long)s->seed, s->cases, o->path, why, t);
		free(t);
		print_objects(s, stdout);
	}
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "2", 1) != 1)
		die("cannot drop the inode caches: %s", strerror(errno));
	close(fd);
}

static void build_round(struct state *s)
{
	int i;

	s->rounds++;
	/*
	 * Create every object before any acl is set: nothing is inherited
	 * (the base directory has no acl), so each object starts without an
	 * acl and gets exactly what is set below.
	 */
	if (!s->dry) {
		rm_tree(s->o[O_R].path);
		for (i = 0; i < NOBJ; i++) {
			struct obj *o = &s->o[i];
			int fd;

			if (o->isdir) {
				if (mkdir(o->path, 0700))
					die("mkdir %s: %s", o->path, strerror(errno));
			} else {
				fd = open(o->path, O_CREAT | O_EXCL | O_WRONLY, 0600);
				if (fd < 0 || write(fd, "data\n", 5) != 5)
					die("create %s: %s", o->path, strerror(errno));
				close(fd);
			}
		}
	}
	for (i = 0; i < NOBJ; i++) {
		struct obj *o = &s->o[i];
		int kind = rnd(&s->rng, 100);
		struct richacl *acl = NULL;
		mode_t perm;

		o->owner = chance(&s->rng, 8) ? 0 : pool_uids[rnd(&s->rng, 4)];
		o->group = chance(&s->rng, 8) ? 0 : pool_gids[rnd(&s->rng, 4)];
		perm = rnd(&s->rng, 01000);
		if (o->isdir && chance(&s->rng, 30))
			perm |= S_ISVTX;
		/* keep the tree mostly traversable, or almost nothing gets tested */
		if (o->isdir && chance(&s->rng, 80))
			perm |= 0111;
		o->mode = (o->isdir ? S_IFDIR : S_IFREG) | perm;
		if (kind < 15) {
			acl = NULL;				/* the mode alone */
		} else if (kind < 30) {
			acl = richacl_from_mode(o->mode);	/* equivalent: stored as mode */
		} else {
			acl = random_acl(&s->rng, o->isdir, &pool);
			/* keep directories mostly traversable here, too */
			if (o->isdir && chance(&s->rng, 80)) {
				struct richace x = { 0 };

				richace_set_special(&x, RICHACE_EVERYONE_SPECIAL_ID);
				x.e_mask = RICHACE_EXECUTE;
				richacl_insert_entry(acl, 0, &x);
				if (!(acl->a_flags & RICHACL_MASKED))
					richacl_compute_max_masks(acl);
				else
					acl->a_other_mask |= RICHACE_EXECUTE,
					acl->a_group_mask |= RICHACE_EXECUTE,
					acl->a_owner_mask |= RICHACE_EXECUTE;
			}
		}
		if (!s->dry) {
			if (lchown(o->path, o->owner, o->group))
				die("chown %s: %s", o->path, strerror(errno));
			if (chmod(o->path, o->mode & 07777))
				die("chmod %s: %s", o->path, strerror(errno));
		}
		if (acl && !s->dry) {
			unsigned char *buf;
			ssize_t len = acl_blob(acl, &buf);

			if (lsetxattr(o->path, RICHACL_XATTR, buf, (size_t)len, 0)) {
				char *t = acl_text(acl, o->isdir);

				if (count_mismatch(s, K_STORE))
					printf("MISMATCH setup seed %llu: root's setxattr of a valid acl on %s failed: %s\n    acl: %s\n",
					       (unsigned long long)s->seed, o->path, strerror(errno), t);
				free(t);
				free(buf);
				richacl_free(acl);
				acl = NULL;
				obj_set_model_acl(o, NULL);
				continue;
			}
			free(buf);
		}
		model_store(o, acl);
	}
	for (i = 0; i < NOBJ; i++)
		check_stored(s, &s->o[i], "after setup");
	/*
	 * Now and then forget every cached inode: the next lookups then find
	 * no cached acl, leave RCU-walk mode (-ECHILD) and read the acls in
	 * ref-walk mode, which must give the same answers.
	 */
	if (!s->dry && s->rounds % 8 == 0)
		drop_caches();
	s->dirty = 0;
}

/* --------------------------------------------------------- credentials */

static void random_cred(struct state *s, struct cred *c)
{
	unsigned int i;

	if (chance(&s->rng, 45))
		c->uid = s->o[rnd(&s->rng, NOBJ)].owner;	/* often an owner */
	else
		c->uid = pool_uids[rnd(&s->rng, 4)];
	if (c->uid == 0)
		c->uid = pool_uids[rnd(&s->rng, 4)];
	c->gid = chance(&s->rng, 40) ? s->o[rnd(&s->rng, NOBJ)].group : pool_gids[rnd(&s->rng, 4)];
	if (c->gid == 0)
		c->gid = pool_gids[rnd(&s->rng, 4)];
	c->ngroups = 0;
	for (i = 0; i < 4; i++) {
		if (chance(&s->rng, 30))
			c->groups[c->ngroups++] = pool_gids[i];
	}
	c->umask = chance(&s->rng, 50) ? 022 : rnd(&s->rng, 01000);
}

static void become(const struct state *s, const struct cred *c)
{
	gid_t g[8];
	unsigned int i;
	uid_t r, e, sv;

	if (s->dry)
		return;
	for (i = 0; i < c->ngroups; i++)
		g[i] = c->groups[i];
	/* raw syscalls: per-thread credentials, and the saved uid stays 0 */
	if (syscall(SYS_setgroups, (size_t)c->ngroups, g) ||
	    syscall(SYS_setresgid, c->gid, c->gid, c->gid) ||
	    syscall(SYS_setresuid, c->uid, c->uid, 0))
		die("cannot switch to uid %u: %s", c->uid, strerror(errno));
	if (getresuid(&r, &e, &sv) || e != c->uid || getegid() != c->gid)
		die("credential switch did not take effect");
	umask(c->umask);
}

static void become_root(const struct state *s)
{
	if (s->dry)
		return;
	if (syscall(SYS_setresuid, 0, 0, 0) || syscall(SYS_setresgid, 0, 0, 0) ||
	    syscall(SYS_setgroups, 0, NULL))
		die("cannot switch back to root: %s", strerror(errno));
	umask(022);
}

/* no effective capability may survive the switch (checked once in a while) */
static void check_no_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		die("capget: %s", strerror(errno));
	if (d[0].effective || d[1].effective)
		die("capabilities left after the credential switch");
}

/* ------------------------------------------------------------- operations */

enum op {
	OP_OPEN_R, OP_OPEN_W, OP_OPEN_RW, OP_OPEN_WA, OP_OPEN_RA, OP_OPEN_WT, OP_OPEN_RT,
	OP_OPEN_WAT, OP_TRUNCATE, OP_FTRUNCATE_APPEND, OP_ACCESS, OP_OPENDIR, OP_CHDIR, OP_CREATE, OP_MKDIR,
	OP_UNLINK, OP_RMDIR, OP_RENAME, OP_RENAME_OVER, OP_EXCHANGE,
	OP_CHMOD, OP_CHOWN_SELF, OP_CHGRP, OP_UTIMES_SET, OP_UTIMES_NOW,
	OP_SETACL, OP_REMOVEACL, OP_GETACL, OP_GETXATTR_USER, OP_SETXATTR_USER, NOPS
};

static const char *const op_names[NOPS] = {
	"open(O_RDONLY)", "open(O_WRONLY)", "open(O_RDWR)", "open(O_WRONLY|O_APPEND)",
	"open(O_RDONLY|O_APPEND)", "open(O_WRONLY|O_TRUNC)", "open(O_RDONLY|O_TRUNC)",
	"open(O_WRONLY|O_APPEND|O_TRUNC)",
	"truncate", "ftruncate(O_WRONLY|O_APPEND)", "access", "opendir", "chdir", "create", "mkdir",
	"unlink", "rmdir", "rename", "rename-over", "rename-exchange",
	"chmod", "chown-to-self", "chgrp", "utimensat(explicit)", "utimensat(now)",
	"setxattr(system.richacl)", "removexattr(system.richacl)", "getxattr(system.richacl)",
	"getxattr(user.*)", "setxattr(user.*)",
};

static const int open_flags[] = {
	O_RDONLY, O_WRONLY, O_RDWR, O_WRONLY | O_APPEND, O_RDONLY | O_APPEND,
	O_WRONLY | O_TRUNC, O_RDONLY | O_TRUNC, O_WRONLY | O_APPEND | O_TRUNC,
};

/* build_open_flags() + may_open(): the MAY_* request of an open */
static unsigned int open_want(int flags)
{
	unsigned int want = 0;

	switch (flags & O_ACCMODE) {
	case O_RDONLY: want = K_MAY_READ; break;
	case O_WRONLY: want = K_MAY_WRITE; break;
	case O_RDWR: want = K_MAY_READ | K_MAY_WRITE; break;
	}
	if (flags & O_TRUNC)
		want |= K_MAY_WRITE;
	if (flags & O_APPEND)
		want |= K_MAY_APPEND;
	return want;
}

struct action {
	enum op op;
	int a, b;		/* object indexes (b: target / second object) */
	int dir;		/* destination directory for create / mkdir / rename */
	int arg;		/* access mode, chmod mode, gid */
	struct richacl *acl;	/* setacl */
	char detail[160];
};

static const int files[] = { O_A, O_B, O_C };
static const int dirs[] = { O_R, O_D1, O_D2, O_S, O_T };
static const int movable[] = { O_A, O_B, O_C, O_S, O_T };
static const int parents[] = { O_R, O_D1, O_D2 };

static void random_action(struct state *s, const struct cred *c, struct action *a)
{
	unsigned int w = rnd(&s->rng, 1000);

	memset(a, 0, sizeof(*a));
	a->b = -1;
	a->dir = -1;
	if (w < 200)
		a->op = OP_OPEN_R + (enum op)rnd(&s->rng, 8);
	else if (w < 225)
		a->op = OP_TRUNCATE;
	else if (w < 240)
		a->op = OP_FTRUNCATE_APPEND;
	else if (w < 290)
		a->op = OP_ACCESS;
	else if (w < 320)
		a->op = OP_OPENDIR;
	else if (w < 350)
		a->op = OP_CHDIR;
	else if (w < 420)
		a->op = OP_CREATE;
	else if (w < 470)
		a->op = OP_MKDIR;
	else if (w < 530)
		a->op = OP_UNLINK;
	else if (w < 570)
		a->op = OP_RMDIR;
	else if (w < 620)
		a->op = OP_RENAME;
	else if (w < 660)
		a->op = OP_RENAME_OVER;
	else if (w < 690)
		a->op = OP_EXCHANGE;
	else if (w < 740)
		a->op = OP_CHMOD;
	else if (w < 780)
		a->op = OP_CHOWN_SELF;
	else if (w < 810)
		a->op = OP_CHGRP;
	else if (w < 850)
		a->op = OP_UTIMES_SET;
	else if (w < 880)
		a->op = OP_UTIMES_NOW;
	else if (w < 940)
		a->op = OP_SETACL;
	else if (w < 960)
		a->op = OP_REMOVEACL;
	else if (w < 975)
		a->op = OP_GETACL;
	else if (w < 988)
		a->op = OP_GETXATTR_USER;
	else
		a->op = OP_SETXATTR_USER;

	switch (a->op) {
	case OP_OPEN_R: case OP_OPEN_W: case OP_OPEN_RW: case OP_OPEN_WA:
	case OP_OPEN_RA: case OP_OPEN_WT: case OP_OPEN_RT: case OP_OPEN_WAT:
	case OP_TRUNCATE: case OP_FTRUNCATE_APPEND:
		a->a = files[rnd(&s->rng, 3)];
		break;
	case OP_ACCESS:
		a->a = rnd(&s->rng, NOBJ);
		a->arg = 1 + (int)rnd(&s->rng, 7);	/* R_OK|W_OK|X_OK combination */
		break;
	case OP_OPENDIR: case OP_CHDIR:
		a->a = dirs[rnd(&s->rng, 5)];
		break;
	case OP_CREATE: case OP_MKDIR: {
		static const int modes[] = { 0666, 0777, 0644, 0600, 0750 };

		a->dir = parents[rnd(&s->rng, 3)];
		a->a = a->dir;
		a->arg = chance(&s->rng, 80) ? modes[rnd(&s->rng, 5)] : (int)rnd(&s->rng, 01000);
		break;
	}
	case OP_UNLINK:
		a->a = files[rnd(&s->rng, 3)];
		break;
	case OP_RMDIR:
		a->a = chance(&s->rng, 50) ? O_S : O_T;
		break;
	case OP_RENAME:
		a->a = movable[rnd(&s->rng, 5)];
		a->dir = parents[rnd(&s->rng, 3)];
		break;
	case OP_RENAME_OVER:
		if (chance(&s->rng, 60)) {
			a->a = files[rnd(&s->rng, 3)];
			do
				a->b = files[rnd(&s->rng, 3)];
			while (a->b == a->a);
		} else {
			a->a = chance(&s->rng, 50) ? O_S : O_T;
			a->b = a->a == O_S ? O_T : O_S;
		}
		break;
	case OP_EXCHANGE:
		a->a = movable[rnd(&s->rng, 5)];
		do
			a->b = movable[rnd(&s->rng, 5)];
		while (a->b == a->a);
		break;
	case OP_CHMOD:
		a->a = rnd(&s->rng, NOBJ);
		a->arg = (int)rnd(&s->rng, 01000) | (s->o[a->a].isdir && chance(&s->rng, 20) ? S_ISVTX : 0);
		break;
	case OP_CHOWN_SELF: case OP_UTIMES_SET: case OP_UTIMES_NOW:
	case OP_REMOVEACL: case OP_GETACL: case OP_GETXATTR_USER: case OP_SETXATTR_USER:
		a->a = rnd(&s->rng, NOBJ);
		break;
	case OP_CHGRP:
		a->a = rnd(&s->rng, NOBJ);
		a->arg = chance(&s->rng, 60) && c->ngroups ? (int)c->groups[rnd(&s->rng, c->ngroups)] :
			 chance(&s->rng, 30) ? (int)c->gid : (int)pool_gids[rnd(&s->rng, 4)];
		break;
	case OP_SETACL:
		a->a = rnd(&s->rng, NOBJ);
		a->acl = random_acl(&s->rng, s->o[a->a].isdir, &pool);
		break;
	case NOPS:
		break;
	}
}

static const char *dir_new_path(const struct state *s, int dir)
{
	return s->newpath[dir == O_R ? 0 : dir == O_D1 ? 1 : 2];
}

/* the model's verdict */
static bool predict(const struct state *s, const struct action *a, const struct cred *c)
{
	const struct obj *o = &s->o[a->a];
	unsigned int want;

	switch (a->op) {
	case OP_OPEN_R: case OP_OPEN_W: case OP_OPEN_RW: case OP_OPEN_WA:
	case OP_OPEN_RA: case OP_OPEN_WT: case OP_OPEN_RT:
		return can_reach(s, a->a, c) && may(o, c, open_want(open_flags[a->op - OP_OPEN_R]));
	case OP_OPEN_WAT:
		/* O_TRUNC needs write_data even with O_APPEND (kernel-patches/0020) */
		return can_reach(s, a->a, c) && may(o, c, K_MAY_WRITE | K_MAY_APPEND) &&
		       may(o, c, K_MAY_WRITE);
	case OP_TRUNCATE:
		return can_reach(s, a->a, c) && may(o, c, K_MAY_WRITE);
	case OP_FTRUNCATE_APPEND:
		/* an append-only descriptor cannot truncate (FMODE_APPEND_ONLY) */
		return can_reach(s, a->a, c) && may(o, c, K_MAY_WRITE | K_MAY_APPEND) &&
		       may(o, c, K_MAY_WRITE);
	case OP_ACCESS:
		want = (a->arg & R_OK ? K_MAY_READ : 0) | (a->arg & W_OK ? K_MAY_WRITE : 0) |
		       (a->arg & X_OK ? K_MAY_EXEC : 0);
		return can_reach(s, a->a, c) && may(o, c, want);
	case OP_OPENDIR:
		return can_reach(s, a->a, c) && may(o, c, K_MAY_READ);
	case OP_CHDIR:
		return can_reach(s, a->a, c) && may(o, c, K_MAY_EXEC);
	case OP_CREATE: case OP_MKDIR:
		return can_reach(s, a->dir, c) &&
		       may(o, c, K_MAY_WRITE | K_MAY_EXEC | create_flag(a->op == OP_MKDIR));
	case OP_UNLINK: case OP_RMDIR:
		return can_reach_in(s, o->parent, c) &&
		       model_may_delete(s, o->parent, a->a, c, 0);
	case OP_RENAME: {
		int from = o->parent, to = a->dir;

		if (!can_reach_in(s, from, c) || !can_reach_in(s, to, c))
			return false;
		if (!model_may_delete(s, from, a->a, c, 0))
			return false;
		if (!may(&s->o[to], c, K_MAY_WRITE | K_MAY_EXEC | create_flag(o->isdir)))
			return false;
		if (from != to && o->isdir && !may(o, c, K_MAY_WRITE))
			return false;
		return true;
	}
	case OP_RENAME_OVER: {
		const struct obj *t = &s->o[a->b];
		int from = o->parent, to = t->parent;

		if (!can_reach_in(s, from, c) || !can_reach_in(s, to, c))
			return false;
		if (!model_may_delete(s, from, a->a, c, 0))
			return false;
		if (!model_may_delete(s, to, a->b, c, K_MAY_WRITE | create_flag(o->isdir)))
			return false;
		if (from != to && o->isdir && !may(o, c, K_MAY_WRITE))
			return false;
		return true;
	}
	case OP_EXCHANGE: {
		const struct obj *t = &s->o[a->b];
		int from = o->parent, to = t->parent;

		if (!can_reach_in(s, from, c) || !can_reach_in(s, to, c))
			return false;
		if (!model_may_delete(s, from, a->a, c, K_MAY_WRITE | create_flag(t->isdir)))
			return false;
		if (!model_may_delete(s, to, a->b, c, K_MAY_WRITE | create_flag(o->isdir)))
			return false;
		if (from != to && o->isdir && !may(o, c, K_MAY_WRITE))
			return false;
		if (from != to && t->isdir && !may(t, c, K_MAY_WRITE))
			return false;
		return true;
	}
	case OP_CHMOD: case OP_SETACL: case OP_REMOVEACL:
		return can_reach(s, a->a, c) && (is_owner(o, c) || may(o, c, K_MAY_CHMOD));
	case OP_CHOWN_SELF:
		return can_reach(s, a->a, c) &&
		       (is_owner(o, c) || may(o, c, K_MAY_TAKE_OWNERSHIP));
	case OP_CHGRP: {
		bool mine = cred_in_group(c, (uint32_t)a->arg);

		if (!can_reach(s, a->a, c))
			return false;
		if (is_owner(o, c) && ((uint32_t)a->arg == o->group || mine))
			return true;
		return mine && may(o, c, K_MAY_TAKE_OWNERSHIP);
	}
	case OP_UTIMES_SET:
		return can_reach(s, a->a, c) && (is_owner(o, c) || may(o, c, K_MAY_SET_TIMES));
	case OP_UTIMES_NOW:
		/* kernel-patches 0004: write_attributes may also set "now" */
		return can_reach(s, a->a, c) &&
		       (is_owner(o, c) || may(o, c, K_MAY_WRITE) || may(o, c, K_MAY_SET_TIMES));
	case OP_GETACL:
		return can_reach(s, a->a, c);
	case OP_GETXATTR_USER:
		/* xattr_permission(): read_data; read_named_attrs is not asked */
		return can_reach(s, a->a, c) && may(o, c, K_MAY_READ);
	case OP_SETXATTR_USER:
		/* in a sticky directory only its owner; then write_data */
		if (!can_reach(s, a->a, c))
			return false;
		if (o->isdir && (o->mode & S_ISVTX) && !is_owner(o, c))
			return false;
		return may(o, c, K_MAY_WRITE);
	case NOPS:
		break;
	}
	return false;
}

static bool mutates(enum op op)
{
	switch (op) {
	case OP_CREATE: case OP_MKDIR: case OP_UNLINK: case OP_RMDIR: case OP_RENAME:
	case OP_RENAME_OVER: case OP_EXCHANGE: case OP_CHMOD: case OP_CHOWN_SELF:
	case OP_CHGRP: case OP_SETACL: case OP_REMOVEACL:
		return true;
	default:
		return false;
	}
}

/* perform the action with the current (switched) credentials: 0 or errno */
static int perform(struct state *s, struct action *a, const struct cred *c,
		   unsigned char *gbuf, ssize_t *glen)
{
	const struct obj *o = &s->o[a->a];
	char dst[600];
	int fd, ret = 0, e;

	(void)c;
	errno = 0;
	switch (a->op) {
	case OP_OPEN_R: case OP_OPEN_W: case OP_OPEN_RW: case OP_OPEN_WA:
	case OP_OPEN_RA: case OP_OPEN_WT: case OP_OPEN_RT: case OP_OPEN_WAT:
		fd = open(o->path, open_flags[a->op - OP_OPEN_R]);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case OP_FTRUNCATE_APPEND:
		fd = open(o->path, O_WRONLY | O_APPEND);
		if (fd < 0)
			return errno;
		ret = ftruncate(fd, 5);
		e = errno;
		close(fd);
		errno = e;
		break;
	case OP_TRUNCATE:
		ret = truncate(o->path, 5);
		break;
	case OP_ACCESS:
		ret = access(o->path, a->arg);
		break;
	case OP_OPENDIR:
		fd = open(o->path, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case OP_CHDIR:
		ret = chdir(o->path);
		if (!ret && chdir("/"))
			die("chdir /");
		break;
	case OP_CREATE:
		fd = open(dir_new_path(s, a->dir), O_CREAT | O_EXCL | O_WRONLY, (mode_t)a->arg);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case OP_MKDIR:
		ret = mkdir(dir_new_path(s, a->dir), (mode_t)a->arg);
		break;
	case OP_UNLINK:
		ret = unlink(o->path);
		break;
	case OP_RMDIR:
		ret = rmdir(o->path);
		break;
	case OP_RENAME:
		snprintf(dst, sizeof(dst), "%s", dir_new_path(s, a->dir));
		ret = rename(o->path, dst);
		break;
	case OP_RENAME_OVER:
		ret = rename(o->path, s->o[a->b].path);
		break;
	case OP_EXCHANGE:
		ret = (int)syscall(SYS_renameat2, AT_FDCWD, o->path, AT_FDCWD,
				   s->o[a->b].path, RENAME_EXCHANGE);
		break;
	case OP_CHMOD:
		ret = chmod(o->path, (mode_t)a->arg);
		break;
	case OP_CHOWN_SELF:
		ret = lchown(o->path, c->uid, (gid_t)-1);
		break;
	case OP_CHGRP:
		ret = lchown(o->path, (uid_t)-1, (gid_t)a->arg);
		break;
	case OP_UTIMES_SET: {
		struct timespec ts[2] = { { 1000000, 0 }, { 2000000, 0 } };

		ret = utimensat(AT_FDCWD, o->path, ts, AT_SYMLINK_NOFOLLOW);
		break;
	}
	case OP_UTIMES_NOW:
		ret = utimensat(AT_FDCWD, o->path, NULL, AT_SYMLINK_NOFOLLOW);
		break;
	case OP_SETACL: {
		unsigned char *buf;
		ssize_t len = acl_blob(a->acl, &buf);

		ret = lsetxattr(o->path, RICHACL_XATTR, buf, (size_t)len, 0);
		free(buf);
		break;
	}
	case OP_REMOVEACL:
		ret = lremovexattr(o->path, RICHACL_XATTR);
		if (ret && errno == ENODATA)
			ret = 0;
		break;
	case OP_GETACL:
		*glen = lgetxattr(o->path, RICHACL_XATTR, gbuf, 65536);
		if (*glen < 0 && errno != ENODATA)
			return errno;
		return 0;
	case OP_GETXATTR_USER:
		if (lgetxattr(o->path, "user.difftest", gbuf, 65536) < 0 && errno != ENODATA)
			return errno;
		return 0;
	case OP_SETXATTR_USER:
		ret = lsetxattr(o->path, "user.difftest", "x", 1, 0);
		break;
	case NOPS:
		break;
	}
	return ret ? errno : 0;
}

static void describe(const struct state *s, const struct action *a, const struct cred *c,
		     FILE *out)
{
	unsigned int i;

	fprintf(out, "    cred: uid %u gid %u groups [", c->uid, c->gid);
	for (i = 0; i < c->ngroups; i++)
		fprintf(out, "%s%u", i ? " " : "", c->groups[i]);
	fprintf(out, "] umask %03o\n    op: %s %s", (unsigned int)c->umask, op_names[a->op],
		a->op == OP_CREATE || a->op == OP_MKDIR ? dir_new_path(s, a->dir) : s->o[a->a].path);
	if (a->op == OP_RENAME)
		fprintf(out, " -> %s", dir_new_path(s, a->dir));
	if (a->op == OP_RENAME_OVER || a->op == OP_EXCHANGE)
		fprintf(out, " <-> %s", s->o[a->b].path);
	if (a->op == OP_ACCESS)
		fprintf(out, " mode %s%s%s", a->arg & R_OK ? "R" : "", a->arg & W_OK ? "W" : "",
			a->arg & X_OK ? "X" : "");
	if (a->op == OP_CHMOD)
		fprintf(out, " %04o", (unsigned int)a->arg);
	if (a->op == OP_CHGRP)
		fprintf(out, " gid %d", a->arg);
	if (a->op == OP_SETACL) {
		char *t = acl_text(a->acl, s->o[a->a].isdir);

		fprintf(out, " new acl: %s", t);
		free(t);
	}
	fprintf(out, "\n");
}

/* after a successful create / mkdir: the new object's mode and acl */
static void check_created(struct state *s, const struct action *a, const struct cred *c)
{
	const struct obj *d = &s->o[a->dir];
	struct obj n = { 0 };
	struct richacl *acl = NULL;
	mode_t mode = (a->op == OP_MKDIR ? S_IFDIR : S_IFREG) | (mode_t)a->arg;
	int ret;

	ret = richacl_inherit_inode(d->acl, &mode, c->umask, &acl);
	if (ret)
		die("richacl_inherit_inode: %d", ret);
	n.name = "new";
	n.isdir = a->op == OP_MKDIR;
	n.owner = c->uid;
	n.group = c->gid;
	n.mode = mode;
	snprintf(n.path, sizeof(n.path), "%s", dir_new_path(s, a->dir));
	n.acl = acl;
	n.eff = NULL;
	s->inherit_checks++;
	{
		unsigned long before = s->mismatches;

		check_stored(s, &n, "create-time inheritance");
		if (s->mismatches != before && s->kinds[K_INHERIT] <= s->max_report)
			describe(s, a, c, stdout);
	}
	richacl_free(acl);
	s->store_checks--;	/* counted as an inheritance check */
}

static void check_getacl(struct state *s, const struct action *a, const unsigned char *buf,
			 ssize_t len)
{
	const struct obj *o = &s->o[a->a];
	unsigned char *mbuf;
	ssize_t mlen;
	bool ok;

	s->xattr_checks++;
	if (!o->acl) {
		ok = len < 0;
	} else {
		mlen = acl_blob(o->acl, &mbuf);
		ok = len == mlen && !memcmp(buf, mbuf, (size_t)mlen);
		free(mbuf);
	}
	if (!ok && count_mismatch(s, K_GETXATTR)) {
		printf("MISMATCH getxattr seed %llu case %lu: %s returned %zd bytes, model %s\n",
		       (unsigned long long)s->seed, s->cases, o->path, len,
		       o->acl ? "has an acl" : "has none (ENODATA)");
		print_objects(s, stdout);
	}
}

static void run_case(struct state *s)
{
	struct cred c;
	struct action a;
	bool expect, got;
	int err;
	unsigned char gbuf[65536];
	ssize_t glen = -1;

	if (s->dirty || chance(&s->rng, 10))
		build_round(s);
	random_cred(s, &c);
	random_action(s, &c, &a);
	expect = predict(s, &a, &c);
	s->cases++;

	if (s->dry) {
		err = expect ? 0 : EACCES;
	} else {
		become(s, &c);
		if ((s->cases & 1023) == 1)
			check_no_caps();
		err = perform(s, &a, &c, gbuf, &glen);
		become_root(s);
	}
	got = err == 0;
	if (got)
		s->op_allow[a.op]++, s->allowed++;
	else
		s->op_deny[a.op]++, s->denied++;

	if (err && err != EACCES && err != EPERM) {
		s->op_mismatch[a.op]++;
		if (count_perm_mismatch(s, K_UNEXPECTED, a.op)) {
			printf("UNEXPECTED seed %llu case %lu: %s failed with %s (not a permission error)\n",
			       (unsigned long long)s->seed, s->cases, op_names[a.op], strerror(err));
			describe(s, &a, &c, stdout);
			print_objects(s, stdout);
		}
	} else if (expect != got) {
		s->op_mismatch[a.op]++;
		if (count_perm_mismatch(s, K_PERM, a.op)) {
			printf("MISMATCH seed %llu case %lu: expected %s, kernel %s (%s)\n",
			       (unsigned long long)s->seed, s->cases, expect ? "ALLOW" : "DENY",
			       got ? "ALLOWED" : "DENIED", got ? "success" : strerror(err));
			describe(s, &a, &c, stdout);
			print_objects(s, stdout);
			printf("    replay: difftest --dir %s --seed %llu --cases %lu\n", s->base,
			       (unsigned long long)s->seed, s->cases);
		}
	} else if (s->verbose) {
		printf("ok case %lu %s %s uid %u -> %s\n", s->cases, op_names[a.op],
		       s->o[a.a].name, c.uid, got ? "allow" : "deny");
	}

	if (!s->dry && got && (a.op == OP_CREATE || a.op == OP_MKDIR))
		check_created(s, &a, &c);
	if (!s->dry && got && a.op == OP_GETACL)
		check_getacl(s, &a, gbuf, glen);
	if (got && mutates(a.op))
		s->dirty = 1;
	if (!s->dry && !got && (a.op == OP_SETACL || a.op == OP_REMOVEACL || a.op == OP_CHMOD))
		check_stored(s, &s->o[a.a], "after a refused change");	/* nothing changed */
	richacl_free(a.acl);
}

/*
 * Not part of the model comparison (the model follows the series' mapping:
 * MAY_APPEND turns MAY_WRITE into append_data): can a process that holds
 * append_data but not write_data truncate a file?  open() adds MAY_WRITE
 * for O_TRUNC, but with O_APPEND the request becomes append_data only.
 * Printed as an observation for SEMANTICS.md S-A4 ("write vs append").
 */
static void probe_append_truncate(struct state *s)
{
	char path[600];
	struct richacl *acl = NULL;
	struct cred c = { 1001, 1001, 0, { 0 }, 022 };
	unsigned char *buf;
	ssize_t len;
	struct stat st;
	int fd, err;

	snprintf(path, sizeof(path), "%s/append-probe", s->base);
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		die("probe file: %s", strerror(errno));
	close(fd);
	if (richacl_from_text("owner@:rwpxaAcCoS::allow user:1001:paRcS::allow", NULL, NULL,
			      &acl, NULL))
		die("probe acl");
	richacl_compute_max_masks(acl);
	len = acl_blob(acl, &buf);
	if (lsetxattr(path, RICHACL_XATTR, buf, (size_t)len, 0))
		die("probe setxattr: %s", strerror(errno));
	free(buf);
	richacl_free(acl);
	become(s, &c);
	fd = open(path, O_WRONLY | O_APPEND | O_TRUNC);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	become_root(s);
	if (stat(path, &st))
		die("probe stat");
	printf("difftest: observation (S-A4): uid 1001 with append_data but not write_data: "
	       "open(O_WRONLY|O_APPEND|O_TRUNC) -> %s, size %lld of 10%s\n",
	       err ? strerror(err) : "success", (long long)st.st_size,
	       st.st_size != 10 ? " - TRUNCATED without write_data" : "");
	unlink(path);
}

int main(int argc, char **argv)
{
	struct state s;
	unsigned long ncases = 1000;
	int i;
	time_t t0 = time(NULL);

	memset(&s, 0, sizeof(s));
	s.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
	s.max_report = 3;
	s.base = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			s.base = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			s.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			ncases = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max-report") && i + 1 < argc)
			s.max_report = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--dry-run"))
			s.dry = true;
		else if (!strcmp(argv[i], "--verbose"))
			s.verbose = true;
		else {
			fprintf(stderr, "usage: difftest --dir DIR [--seed N] [--cases N] [--dry-run] "
					"[--max-report N] [--verbose]\n");
			return 2;
		}
	}
	if (!s.base)
		s.base = s.dry ? "/nonexistent/difftest" : NULL;
	if (!s.base) {
		fprintf(stderr, "difftest: --dir is required\n");
		return 2;
	}
	if (!s.dry && geteuid() != 0)
		die("must run as root");
	s.rng.s = s.seed;
	printf("difftest: seed %llu, %lu cases, dir %s%s\n", (unsigned long long)s.seed, ncases,
	       s.base, s.dry ? " (dry run: model only, no system calls)" : "");
	fflush(stdout);
	if (!s.dry) {
		mkdir(s.base, 0755);
		if (chown(s.base, 0, 0) || chmod(s.base, 0755))
			die("cannot prepare %s: %s", s.base, strerror(errno));
		/* the base directory must have no acl: nothing inherited from it */
		if (lremovexattr(s.base, RICHACL_XATTR) && errno != ENODATA)
			die("removexattr %s: %s (is this the richacl mount?)", s.base,
			    strerror(errno));
	}
	for (i = 0; i < NOBJ; i++) {
		struct obj *o = &s.o[i];

		o->name = layout[i].name;
		o->parent = layout[i].parent;
		o->isdir = layout[i].isdir;
		snprintf(o->path, sizeof(o->path), "%s/%s", o->parent < 0 ? s.base :
			 s.o[o->parent].path, o->name);
	}
	snprintf(s.newpath[0], sizeof(s.newpath[0]), "%s/new", s.o[O_R].path);
	snprintf(s.newpath[1], sizeof(s.newpath[1]), "%s/new", s.o[O_D1].path);
	snprintf(s.newpath[2], sizeof(s.newpath[2]), "%s/new", s.o[O_D2].path);
	s.dirty = 1;
	if (!s.dry)
		probe_append_truncate(&s);

	while (s.cases < ncases) {
		run_case(&s);
		if (!s.dry && s.cases % 20000 == 0) {
			printf("difftest: %lu cases, %lu mismatches, %ld s\n", s.cases, s.mismatches,
			       (long)(time(NULL) - t0));
			fflush(stdout);
		}
	}
	if (!s.dry)
		rm_tree(s.o[O_R].path);

	printf("difftest: per operation (allowed/denied):");
	for (i = 0; i < NOPS; i++)
		printf("%s %s %lu/%lu", i ? "," : "", op_names[i], s.op_allow[i], s.op_deny[i]);
	printf("\n");
	printf("difftest: mismatches by kind:");
	for (i = 0; i < NKINDS; i++)
		printf("%s %s %lu", i ? "," : "", kind_names[i], s.kinds[i]);
	printf("\n");
	if (s.kinds[K_PERM] || s.kinds[K_UNEXPECTED]) {
		printf("difftest: permission mismatches by operation:");
		for (i = 0; i < NOPS; i++) {
			if (s.op_mismatch[i])
				printf(" %s %lu", op_names[i], s.op_mismatch[i]);
		}
		printf("\n");
	}
	printf("difftest: seed %llu: %lu cases (%lu allowed, %lu denied) in %lu rounds, "
	       "%lu store checks, %lu inheritance checks, %lu getxattr checks, %ld s\n",
	       (unsigned long long)s.seed, s.cases, s.allowed, s.denied, s.rounds, s.store_checks,
	       s.inherit_checks, s.xattr_checks, (long)(time(NULL) - t0));
	{
		/* every case and every extra check counts once */
		unsigned long checks = s.cases + s.store_checks + s.inherit_checks + s.xattr_checks;

		printf("difftest: %lu passed, %lu failed\n",
		       checks >= s.mismatches ? checks - s.mismatches : 0, s.mismatches);
	}
	return s.mismatches ? 1 : 0;
}
