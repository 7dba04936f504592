/*
 * tool_common.c - code shared by getrichacl and setrichacl.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tool_common.h"

#define POSIX_ACL_ACCESS	"system.posix_acl_access"
#define POSIX_ACL_DEFAULT	"system.posix_acl_default"
#define NSS_BUFFER_MAX		(1024 * 1024)
#define XATTR_READ_TRIES	8

void tool_error(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
}

int tool_exit_status(const char *progname, int status)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tool_error(progname, errno ? errno : EIO);
		return 1;
	}
	return status;
}

const char *tool_progname(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	return slash ? slash + 1 : argv0;
}

unsigned int tool_context(mode_t mode)
{
	return S_ISDIR(mode) ? RICHACL_TEXT_DIRECTORY_CONTEXT : RICHACL_TEXT_FILE_CONTEXT;
}

/* ---- name service ---- */

/*
 * Look up one passwd entry by name (name != NULL) or by uid.  Returns 0 with
 * *pw filled (its strings live in *buf, which the caller frees), -ENOENT if
 * there is no such user, or another negative errno value.
 */
static int lookup_passwd(const char *name, uid_t uid, struct passwd *pw, char **buf)
{
	struct passwd *found = NULL;
	size_t size = 1024;
	int ret;

	for (;;) {
		char *b = malloc(size);

		if (!b)
			return -ENOMEM;
		if (name)
			ret = getpwnam_r(name, pw, b, size, &found);
		else
			ret = getpwuid_r(uid, pw, b, size, &found);
		if (ret == 0 && found) {
			*buf = b;
			return 0;
		}
		free(b);
		if (ret != ERANGE || size >= NSS_BUFFER_MAX)
			break;
		size *= 2;
	}
	return (ret == 0 || ret == ENOENT || ret == ESRCH) ? -ENOENT : -ret;
}

/* the same for the group database */
static int lookup_group(const char *name, gid_t gid, struct group *gr, char **buf)
{
	struct group *found = NULL;
	size_t size = 1024;
	int ret;

	for (;;) {
		char *b = malloc(size);

		if (!b)
			return -ENOMEM;
		if (name)
			ret = getgrnam_r(name, gr, b, size, &found);
		else
			ret = getgrgid_r(gid, gr, b, size, &found);
		if (ret == 0 && found) {
			*buf = b;
			return 0;
		}
		free(b);
		if (ret != ERANGE || size >= NSS_BUFFER_MAX)
			break;
		size *= 2;
	}
	return (ret == 0 || ret == ENOENT || ret == ESRCH) ? -ENOENT : -ret;
}

static int copy_name(const char *name, char *out, size_t size)
{
	size_t len = strlen(name);

	if (len >= size)
		return -ENOENT;
	memcpy(out, name, len + 1);
	return 0;
}

static int names_user_to_id(void *ctx, const char *name, uint32_t *id)
{
	struct passwd pw;
	char *buf;
	int ret = lookup_passwd(name, 0, &pw, &buf);

	if (ret)
		return ret;
	*id = pw.pw_uid;
	free(buf);
	return 0;
}

static int names_group_to_id(void *ctx, const char *name, uint32_t *id)
{
	struct group gr;
	char *buf;
	int ret = lookup_group(name, 0, &gr, &buf);

	if (ret)
		return ret;
	*id = gr.gr_gid;
	free(buf);
	return 0;
}

static int names_id_to_user(void *ctx, uint32_t id, char *out, size_t size)
{
	struct passwd pw;
	char *buf;
	int ret = lookup_passwd(NULL, id, &pw, &buf);

	if (ret)
		return -ENOENT;
	ret = copy_name(pw.pw_name, out, size);
	free(buf);
	return ret;
}

static int names_id_to_group(void *ctx, uint32_t id, char *out, size_t size)
{
	struct group gr;
	char *buf;
	int ret = lookup_group(NULL, id, &gr, &buf);

	if (ret)
		return -ENOENT;
	ret = copy_name(gr.gr_name, out, size);
	free(buf);
	return ret;
}

const struct richacl_names tool_names = {
	.ctx = NULL,
	.user_to_id = names_user_to_id,
	.group_to_id = names_group_to_id,
	.id_to_user = names_id_to_user,
	.id_to_group = names_id_to_group,
};

/* ---- reading ---- */

/* getxattr into a freshly allocated buffer; returns the size or -errno */
static ssize_t read_xattr(const char *path, const char *name, void **value)
{
	int tries;

	for (tries = 0; tries < XATTR_READ_TRIES; tries++) {
		ssize_t size = getxattr(path, name, NULL, 0);
		ssize_t got;
		void *buf;

		if (size < 0)
			return -errno;
		buf = malloc(size ? (size_t)size : 1);
		if (!buf)
			return -ENOMEM;
		got = getxattr(path, name, buf, (size_t)size);
		if (got >= 0) {
			*value = buf;
			return got;
		}
		free(buf);
		if (errno != ERANGE)	/* ERANGE: the value grew meanwhile */
			return -errno;
	}
	return -ERANGE;
}

int tool_read_richacl(const char *path, struct richacl **acl)
{
	struct richacl_error err;
	void *value = NULL;
	ssize_t size = read_xattr(path, RICHACL_XATTR, &value);
	int ret;

	if (size < 0)
		return (int)size;
	ret = richacl_from_xattr(value, (size_t)size, acl, &err);
	free(value);
	return ret;
}

bool tool_has_posix_acl(const char *path, bool isdir)
{
	if (getxattr(path, POSIX_ACL_ACCESS, NULL, 0) >= 0)
		return true;
	return isdir && getxattr(path, POSIX_ACL_DEFAULT, NULL, 0) >= 0;
}

bool tool_no_acl_error(int err)
{
	return err == ENODATA || err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS;
}

static void report_posix_acl(const char *path)
{
	fprintf(stderr, "%s: File has a posix acl\n", path);
}

int tool_file_acl(const char *path, const struct stat *st, struct richacl **acl)
{
	int ret = tool_read_richacl(path, acl);
	int err = -ret;

	if (ret == 0)
		return 0;
	if (err != ENOSYS && err != ENODATA && tool_has_posix_acl(path, S_ISDIR(st->st_mode))) {
		report_posix_acl(path);
		return -1;
	}
	if (!tool_no_acl_error(err)) {
		tool_error(path, err);
		return -1;
	}
	*acl = richacl_from_mode(st->st_mode);
	if (!*acl) {
		tool_error(path, ENOMEM);
		return -1;
	}
	return 0;
}

/* ---- storing ---- */

/* setxattr system.richacl; returns 0 or a positive errno value */
static int write_richacl(const char *path, const struct richacl *acl)
{
	size_t size = richacl_xattr_size(acl);
	void *buf = malloc(size ? size : 1);
	ssize_t len;
	int err = 0;

	if (!buf)
		return ENOMEM;
	len = richacl_to_xattr(acl, buf, size);
	if (len < 0)
		err = (int)-len;
	else if (setxattr(path, RICHACL_XATTR, buf, (size_t)len, 0) != 0)
		err = errno;
	free(buf);
	return err;
}

static int propagate(const char *dir, const struct richacl *dir_acl);

/* the part of the setxattr failure handling that may fall back to chmod */
static int store_fallback(const char *path, const struct richacl *acl, int set_err)
{
	struct stat st;
	mode_t mode;

	if (stat(path, &st) != 0) {
		tool_error(path, set_err);
		return -1;
	}
	/*
	 * Unlike the original tool we check for a POSIX acl before the chmod
	 * fallback too: chmod on such a file changes its acl mask, not what
	 * the requested richacl says.
	 */
	if (set_err != ENOSYS && tool_has_posix_acl(path, S_ISDIR(st.st_mode))) {
		report_posix_acl(path);
		return -1;
	}
	mode = st.st_mode;
	if (richacl_equiv_mode(acl, &mode) != 0) {
		tool_error(path, set_err);
		return -1;
	}
	if (chmod(path, mode & 07777) != 0) {
		tool_error(path, errno);
		return -1;
	}
	return 0;
}

int tool_store_richacl(const char *path, const struct richacl *acl)
{
	int err = write_richacl(path, acl);

	if (err)
		return store_fallback(path, acl, err);
	if (acl->a_flags & RICHACL_AUTO_INHERIT)
		return propagate(path, acl);
	return 0;
}

/* ---- automatic inheritance (algorithms.md 5.4) ---- */

struct dir_item {
	char *name;
	unsigned char type;
};

static void free_items(struct dir_item *items, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(items[i].name);
	free(items);
}

/*
 * Read the names in dir (without "." and "..") so that no directory stream
 * stays open while we descend.  Returns 0, or a positive errno value.
 */
static int list_dir(const char *dir, struct dir_item **items_out, size_t *count_out)
{
	struct dir_item *items = NULL;
	size_t count = 0, alloc = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return errno;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			err = errno;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (count == alloc) {
			size_t n = alloc ? 2 * alloc : 16;
			struct dir_item *p = realloc(items, n * sizeof(*p));

			if (!p) {
				err = ENOMEM;
				break;
			}
			items = p;
			alloc = n;
		}
		items[count].name = strdup(de->d_name);
		if (!items[count].name) {
			err = ENOMEM;
			break;
		}
		items[count++].type = de->d_type;
	}
	closedir(d);
	if (err) {
		free_items(items, count);
		return err;
	}
	*items_out = items;
	*count_out = count;
	return 0;
}

static char *join_path(const char *dir, const char *name)
{
	size_t dlen = strlen(dir), nlen = strlen(name);
	char *path = malloc(dlen + 1 + nlen + 1);

	if (!path)
		return NULL;
	memcpy(path, dir, dlen);
	path[dlen] = '/';
	memcpy(path + dlen + 1, name, nlen + 1);
	return path;
}

/* what a child of dir_acl inherits; an empty acl if nothing */
static struct richacl *inherited_part(const struct richacl *dir_acl, bool isdir)
{
	struct richacl *part = richacl_inherit(dir_acl, isdir);

	return part ? part : richacl_alloc(0);
}

/* the acl a child should have after propagation, or NULL with *err set */
static struct richacl *child_acl(const struct richacl *old, const struct richacl *inherited,
				 int *err)
{
	struct richacl *base = NULL, *acl;

	if (old->a_flags & RICHACL_DEFAULTED) {
		/* an acl set by a default rule is replaced wholesale */
		base = richacl_alloc(0);
		if (!base) {
			*err = ENOMEM;
			return NULL;
		}
		base->a_flags = RICHACL_AUTO_INHERIT;
	}
	acl = richacl_auto_inherit(base ? base : old, inherited);
	richacl_free(base);
	if (!acl) {
		*err = ENOMEM;
		return NULL;
	}
	richacl_compute_max_masks(acl);
	return acl;
}

static int propagate_entry(const char *path, unsigned char type,
			   const struct richacl *file_part, const struct richacl *dir_part)
{
	struct richacl *old, *acl;
	bool isdir;
	int ret, err;

	if (type == DT_UNKNOWN) {
		struct stat st;

		if (lstat(path, &st) != 0) {
			tool_error(path, errno);
			return -1;
		}
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
	}
	if (type == DT_LNK)
		return 0;
	isdir = type == DT_DIR;

	ret = tool_read_richacl(path, &old);
	if (ret) {
		if (tool_no_acl_error(-ret))
			return 0;
		tool_error(path, -ret);
		return -1;
	}
	if (!(old->a_flags & RICHACL_AUTO_INHERIT) || (old->a_flags & RICHACL_PROTECTED)) {
		richacl_free(old);
		return 0;
	}
	acl = child_acl(old, isdir ? dir_part : file_part, &err);
	if (!acl) {
		richacl_free(old);
		tool_error(path, err);
		return -1;
	}
	if (richacl_equal(acl, old)) {
		/* unchanged: nothing below it changes either */
		richacl_free(old);
		richacl_free(acl);
		return 0;
	}
	richacl_free(old);
	err = write_richacl(path, acl);
	if (err) {
		tool_error(path, err);
		ret = -1;
	} else if (isdir) {
		ret = propagate(path, acl);
	}
	richacl_free(acl);
	return ret;
}

static int propagate(const char *dir, const struct richacl *dir_acl)
{
	struct richacl *file_part = NULL, *dir_part = NULL;
	struct dir_item *items = NULL;
	size_t count = 0, i;
	int err, ret = 0;

	err = list_dir(dir, &items, &count);
	if (err == ENOTDIR)
		return 0;
	if (err) {
		tool_error(dir, err);
		return -1;
	}
	file_part = inherited_part(dir_acl, false);
	dir_part = inherited_part(dir_acl, true);
	if (!file_part || !dir_part) {
		tool_error(dir, ENOMEM);
		ret = -1;
		goto out;
	}
	for (i = 0; i < count; i++) {
		char *path = join_path(dir, items[i].name);

		if (!path) {
			tool_error(dir, ENOMEM);
			ret = -1;
			break;
		}
		if (propagate_entry(path, items[i].type, file_part, dir_part))
			ret = -1;
		free(path);
	}
out:
	richacl_free(file_part);
	richacl_free(dir_part);
	free_items(items, count);
	return ret;
}

/* ---- input ---- */

char *tool_read_stream(FILE *stream, const char *name)
{
	size_t len = 0, alloc = 4096;
	char *text = malloc(alloc);

	if (!text) {
		tool_error(name, ENOMEM);
		return NULL;
	}
	for (;;) {
		size_t got;

		if (alloc - len < 2) {
			char *p = realloc(text, alloc * 2);

			if (!p) {
				free(text);
				tool_error(name, ENOMEM);
				return NULL;
			}
			text = p;
			alloc *= 2;
		}
		errno = 0;
		got = fread(text + len, 1, alloc - len - 1, stream);
		len += got;
		if (got == 0)
			break;
	}
	/* check for read errors before anybody closes the stream */
	if (ferror(stream)) {
		int err = errno ? errno : EIO;

		free(text);
		tool_error(name, err);
		return NULL;
	}
	text[len] = '\0';
	if (memchr(text, '\0', len)) {
		free(text);
		fprintf(stderr, "%s: Text contains a NUL byte\n", name);
		return NULL;
	}
	return text;
}
