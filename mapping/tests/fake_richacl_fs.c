/*
 * fake_richacl_fs.c - an LD_PRELOAD shim that makes an ordinary filesystem
 * look like a richacl filesystem to getrichacl and setrichacl, so that
 * test_tools can check their richacl-filesystem behaviour on a host without
 * a richacl kernel.
 *
 * It emulates the kernel store rule (algorithms.md section 9):
 *  - get system.richacl: the stored acl, ENODATA if there is none;
 *  - set system.richacl: decode and validate (EINVAL otherwise); if the acl
 *    is equivalent to a mode, only the permission bits are set and any stored
 *    acl is removed; otherwise the acl is stored and the permission bits
 *    become masks_to_mode(acl) (file type, setuid, setgid, sticky kept);
 *  - remove system.richacl: removes the stored acl;
 *  - chmod of a file with a stored acl applies richacl_chmod and stores the
 *    result with the same rule;
 *  - POSIX acls are not supported (EOPNOTSUPP), as on a richacl filesystem.
 * The acl is kept, re-encoded, in the user xattr FAKE_RICHACL_STORE.
 *
 * Built together with the library sources (see test_tools.c); link with
 * -Wl,-Bsymbolic so that the shim uses its own copy of the library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "richacl.h"

#define FAKE_RICHACL_STORE "user.fake_richacl"

/* visible so that the library copy in the shim need not be hidden */
ssize_t getxattr(const char *path, const char *name, void *value, size_t size);
ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size);
int setxattr(const char *path, const char *name, const void *value, size_t size, int flags);
int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags);
int removexattr(const char *path, const char *name);
int lremovexattr(const char *path, const char *name);
int chmod(const char *path, mode_t mode);
int fchmodat(int dirfd, const char *path, mode_t mode, int flags);
int fchmod(int fd, mode_t mode);

typedef ssize_t (*getxattr_fn)(const char *, const char *, void *, size_t);
typedef int (*setxattr_fn)(const char *, const char *, const void *, size_t, int);
typedef int (*removexattr_fn)(const char *, const char *);
typedef int (*chmod_fn)(const char *, mode_t);

static void *real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn) {
		fprintf(stderr, "fake_richacl_fs: no %s\n", name);
		abort();
	}
	return fn;
}

static ssize_t real_getxattr(const char *path, const char *name, void *value, size_t size,
			     bool follow)
{
	getxattr_fn fn = (getxattr_fn)real(follow ? "getxattr" : "lgetxattr");

	return fn(path, name, value, size);
}

static int real_setxattr(const char *path, const char *name, const void *value, size_t size,
			 int flags, bool follow)
{
	setxattr_fn fn = (setxattr_fn)real(follow ? "setxattr" : "lsetxattr");

	return fn(path, name, value, size, flags);
}

static int real_removexattr(const char *path, const char *name, bool follow)
{
	removexattr_fn fn = (removexattr_fn)real(follow ? "removexattr" : "lremovexattr");

	return fn(path, name);
}

static int real_chmod(const char *path, mode_t mode)
{
	chmod_fn fn = (chmod_fn)real("chmod");

	return fn(path, mode);
}

static bool is_posix_acl(const char *name)
{
	return !strcmp(name, "system.posix_acl_access") ||
	       !strcmp(name, "system.posix_acl_default");
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* the store rule; returns 0 or -1 with errno set */
static int store_acl(const char *path, const struct richacl *acl, bool follow)
{
	struct stat st;
	mode_t mode;
	ssize_t len;
	size_t size;
	void *buf;
	int ret;

	if ((follow ? stat(path, &st) : lstat(path, &st)) != 0)
		return -1;
	mode = st.st_mode;
	if (richacl_equiv_mode(acl, &mode) == 0) {
		if (real_chmod(path, mode & 07777) != 0)
			return -1;
		if (real_removexattr(path, FAKE_RICHACL_STORE, follow) != 0 && errno != ENODATA)
			return -1;
		return 0;
	}
	size = richacl_xattr_size(acl);
	buf = malloc(size);
	if (!buf)
		return fail(ENOMEM);
	len = richacl_to_xattr(acl, buf, size);
	if (len < 0) {
		free(buf);
		return fail((int)-len);
	}
	ret = real_setxattr(path, FAKE_RICHACL_STORE, buf, (size_t)len, 0, follow);
	free(buf);
	if (ret != 0)
		return -1;
	return real_chmod(path, (st.st_mode & 07000) | richacl_masks_to_mode(acl));
}

/* the stored acl: 0, 1 if there is none, -1 with errno set on error */
static int load_acl(const char *path, struct richacl **acl, bool follow)
{
	struct richacl_error err;
	ssize_t size = real_getxattr(path, FAKE_RICHACL_STORE, NULL, 0, follow);
	void *buf;
	int ret;

	if (size < 0)
		return errno == ENODATA ? 1 : -1;
	buf = malloc(size ? (size_t)size : 1);
	if (!buf)
		return fail(ENOMEM);
	size = real_getxattr(path, FAKE_RICHACL_STORE, buf, (size_t)size, follow);
	if (size < 0) {
		free(buf);
		return -1;
	}
	ret = richacl_from_xattr(buf, (size_t)size, acl, &err);
	free(buf);
	return ret ? fail(-ret) : 0;
}

static ssize_t fake_get(const char *path, const char *name, void *value, size_t size,
			bool follow)
{
	if (is_posix_acl(name))
		return fail(EOPNOTSUPP);
	if (!strcmp(name, RICHACL_XATTR))
		name = FAKE_RICHACL_STORE;
	return real_getxattr(path, name, value, size, follow);
}

static int fake_set(const char *path, const char *name, const void *value, size_t size,
		    int flags, bool follow)
{
	struct richacl_error err;
	struct richacl *acl;
	int ret;

	if (is_posix_acl(name))
		return fail(EOPNOTSUPP);
	if (strcmp(name, RICHACL_XATTR))
		return real_setxattr(path, name, value, size, flags, follow);
	if (richacl_from_xattr(value, size, &acl, &err))
		return fail(EINVAL);
	ret = store_acl(path, acl, follow);
	richacl_free(acl);
	return ret;
}

static int fake_remove(const char *path, const char *name, bool follow)
{
	if (is_posix_acl(name))
		return fail(EOPNOTSUPP);
	if (!strcmp(name, RICHACL_XATTR))
		name = FAKE_RICHACL_STORE;
	return real_removexattr(path, name, follow);
}

/* after the mode of path was changed to mode: update a stored acl */
static int fake_after_chmod(const char *path, mode_t mode)
{
	struct richacl *acl;
	struct stat st;
	int ret;

	ret = load_acl(path, &acl, true);
	if (ret)
		return ret > 0 ? 0 : -1;
	if (stat(path, &st) != 0) {
		richacl_free(acl);
		return -1;
	}
	richacl_chmod(acl, (st.st_mode & S_IFMT) | (mode & 07777));
	ret = store_acl(path, acl, true);
	richacl_free(acl);
	return ret;
}

ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	return fake_get(path, name, value, size, true);
}

ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	return fake_get(path, name, value, size, false);
}

int setxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	return fake_set(path, name, value, size, flags, true);
}

int lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)
{
	return fake_set(path, name, value, size, flags, false);
}

int removexattr(const char *path, const char *name)
{
	return fake_remove(path, name, true);
}

int lremovexattr(const char *path, const char *name)
{
	return fake_remove(path, name, false);
}

int chmod(const char *path, mode_t mode)
{
	if (real_chmod(path, mode) != 0)
		return -1;
	return fake_after_chmod(path, mode);
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	char buf[64 + 4096];

	if (path[0] != '/' && dirfd != AT_FDCWD) {
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d/%s", dirfd, path);
		path = buf;
	}
	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return fail(EINVAL);
	if (flags & AT_SYMLINK_NOFOLLOW) {
		struct stat st;

		if (lstat(path, &st) != 0)
			return -1;
		if (S_ISLNK(st.st_mode))
			return fail(EOPNOTSUPP);
	}
	return chmod(path, mode);
}

int fchmod(int fd, mode_t mode)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	return chmod(buf, mode);
}
