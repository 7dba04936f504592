/*
 * getrichacl - show the richacl of files (algorithms.md section 7.3).
 *
 * Without a stored acl (or on a filesystem without richacl support) the acl
 * equivalent to the file mode is shown.  Unless --raw is given, the file
 * masks are applied first, so the entries show what the kernel grants.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "richacl.h"
#include "tool_common.h"

#define GROUPS_MAX	65536

struct options {
	unsigned int fmt;
	bool raw;
	bool access;
	const char *access_arg;
};

/* the process whose access --access reports */
struct access_who {
	struct richacl_cred cred;
	uint32_t *groups;
};

static const struct option long_options[] = {
	{ "access", optional_argument, NULL, 'a' },
	{ "long", no_argument, NULL, 'l' },
	{ "raw", no_argument, NULL, 'R' },
	{ "full", no_argument, NULL, 'F' },
	{ "unaligned", no_argument, NULL, 'U' },
	{ "numeric-ids", no_argument, NULL, 'N' },
	{ "version", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(const char *progname)
{
	fprintf(stderr, "SYNOPSIS: %s [options] file ...\n"
		"Try '%s --help' for more information.\n", progname, progname);
}

static void help(const char *progname)
{
	printf("SYNOPSIS: %s [options] file ...\n"
	       "\n"
	       "Show the richacl of each file.  A file without a richacl (or on a file\n"
	       "system without richacl support) shows the acl equivalent to its mode.\n"
	       "\n"
	       "Options:\n"
	       "  --long, -l       Show permissions and flags by name instead of by letter.\n"
	       "  --full           Also show the permissions that are always granted (a, c, S).\n"
	       "  --raw            Show the acl as stored, with its file masks, instead of the\n"
	       "                   equivalent acl with the masks applied.\n"
	       "  --unaligned      Do not align the entries.\n"
	       "  --numeric-ids    Show user and group ids instead of names.\n"
	       "  --access[=USER[:GROUP:...]], -a[USER[:GROUP:...]]\n"
	       "                   Instead of the acl, show the permissions the acl grants to\n"
	       "                   the current process, or to USER (a name or uid) with the\n"
	       "                   given groups (names or gids; default: USER's groups).\n"
	       "  --version, -v    Show the version and exit.\n"
	       "  --help, -h       Show this help and exit.\n"
	       "\n"
	       "Each entry is shown as <who>:<permissions>:<flags>:<type>, where who is\n"
	       "owner@, group@, everyone@, user:<name> or group:<name>, and type is allow\n"
	       "or deny.  Permissions: r(ead_data)/list_directory, w(rite_data)/add_file,\n"
	       "p (append_data/add_subdirectory), x (execute), d (delete_child), D (delete),\n"
	       "a (read_attributes), A (write_attributes), R (read_named_attrs),\n"
	       "W (write_named_attrs), c (read_acl), C (write_acl), o (write_owner),\n"
	       "S (synchronize), e (write_retention), E (write_retention_hold).\n"
	       "Entry flags: f (file_inherit), d (dir_inherit), n (no_propagate),\n"
	       "i (inherit_only), a (inherited), u (unmapped).  Acl flags: m (masked),\n"
	       "w (write_through), a (auto_inherit), p (protected), d (defaulted).\n",
	       progname);
}

/* a decimal id that fits in 32 bits (and is not the invalid id -1) */
static bool parse_id(const char *s, uint32_t *id)
{
	unsigned long long v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v >= UINT32_MAX)
			return false;
	}
	*id = (uint32_t)v;
	return true;
}

static int add_group(struct access_who *who, uint32_t gid)
{
	uint32_t *p;

	if (who->cred.ngroups >= GROUPS_MAX)
		return -E2BIG;
	p = realloc(who->groups, (who->cred.ngroups + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	who->groups = p;
	who->groups[who->cred.ngroups++] = gid;
	who->cred.groups = who->groups;
	return 0;
}

/* the current process: effective uid, effective gid and supplementary groups */
static int who_is_me(struct access_who *who)
{
	int n = getgroups(0, NULL), i;
	gid_t *list;

	who->cred.uid = geteuid();
	who->cred.gid = getegid();
	if (n < 0)
		return -errno;
	list = calloc((size_t)n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	n = getgroups(n, list);
	if (n < 0) {
		free(list);
		return -errno;
	}
	for (i = 0; i < n; i++) {
		if (add_group(who, list[i])) {
			free(list);
			return -ENOMEM;
		}
	}
	free(list);
	return 0;
}

/* the groups of a user from the group database */
static int user_groups(struct access_who *who, const char *name, gid_t primary)
{
	int n = 32, i;
	gid_t *list = NULL;

	for (;;) {
		int want = n;
		gid_t *p = realloc(list, (size_t)n * sizeof(*list));

		if (!p) {
			free(list);
			return -ENOMEM;
		}
		list = p;
		if (getgrouplist(name, primary, list, &n) >= 0)
			break;
		if (n <= want)
			n = want * 2;
		if (n > GROUPS_MAX) {
			free(list);
			return -E2BIG;
		}
	}
	for (i = 0; i < n; i++) {
		if (add_group(who, list[i])) {
			free(list);
			return -ENOMEM;
		}
	}
	free(list);
	return 0;
}

static void no_such(const char *what, const char *kind)
{
	fprintf(stderr, "%s: No such %s\n", what, kind);
}

/* "USER" or "USER:GROUP:..." (an empty group list means no groups) */
static int who_from_arg(struct access_who *who, char *arg)
{
	char *groups = strchr(arg, ':');
	struct passwd *pw;
	uint32_t id;

	if (groups)
		*groups++ = '\0';
	errno = 0;
	if (parse_id(arg, &id)) {
		who->cred.uid = id;
		pw = getpwuid(id);
	} else {
		pw = getpwnam(arg);
		if (!pw) {
			no_such(arg, "user");
			return -1;
		}
		who->cred.uid = pw->pw_uid;
	}
	/* a gid no process has: only the listed groups count */
	who->cred.gid = (uint32_t)-1;

	if (!groups) {
		if (!pw)
			return 0;
		who->cred.gid = pw->pw_gid;
		if (user_groups(who, pw->pw_name, pw->pw_gid)) {
			tool_error(arg, ENOMEM);
			return -1;
		}
		return 0;
	}
	while (groups && *groups) {
		char *next = strchr(groups, ':');

		if (next)
			*next++ = '\0';
		if (!parse_id(groups, &id) && tool_names.group_to_id(NULL, groups, &id)) {
			no_such(groups, "group");
			return -1;
		}
		if (add_group(who, id)) {
			tool_error(groups, ENOMEM);
			return -1;
		}
		groups = next;
	}
	if (who->cred.ngroups)
		who->cred.gid = who->groups[0];
	return 0;
}

static int show_access(const char *path, const struct stat *st, const struct options *opt,
		       const struct access_who *who)
{
	struct richacl_file file = {
		.owner = st->st_uid,
		.group = st->st_gid,
		.isdir = S_ISDIR(st->st_mode),
	};
	struct richacl *acl;
	uint32_t granted;
	char *text;

	if (tool_file_acl(path, st, &acl))
		return -1;
	granted = richacl_access(acl, &file, &who->cred);
	richacl_free(acl);
	text = richacl_mask_to_text(granted, opt->fmt | tool_context(st->st_mode));
	if (!text) {
		tool_error(path, ENOMEM);
		return -1;
	}
	printf("%s  %s\n", *text ? text : "-", path);
	free(text);
	return 0;
}

static int show_acl(const char *path, const struct stat *st, const struct options *opt)
{
	struct richacl *acl;
	char *text;
	int ret;

	if (tool_file_acl(path, st, &acl))
		return -1;
	if (!opt->raw) {
		ret = richacl_apply_masks(&acl, st->st_uid);
		if (ret) {
			richacl_free(acl);
			tool_error(path, -ret);
			return -1;
		}
	}
	text = richacl_to_text(acl, opt->fmt | tool_context(st->st_mode), &tool_names);
	richacl_free(acl);
	if (!text) {
		tool_error(path, ENOMEM);
		return -1;
	}
	printf("%s:\n%s\n", path, text);
	free(text);
	return 0;
}

static int show_file(const char *path, const struct options *opt, const struct access_who *who)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		tool_error(path, errno);
		return -1;
	}
	if (opt->access)
		return show_access(path, &st, opt, who);
	return show_acl(path, &st, opt);
}

int main(int argc, char *argv[])
{
	const char *progname = tool_progname(argv[0]);
	struct options opt = {
		.fmt = RICHACL_TEXT_SIMPLIFY | RICHACL_TEXT_ALIGN,
	};
	struct access_who who = { { 0 }, NULL };
	int c, i, status = 0;

	while ((c = getopt_long(argc, argv, "a::lvh", long_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt.access = true;
			opt.access_arg = optarg;
			break;
		case 'l':
			opt.fmt |= RICHACL_TEXT_LONG;
			break;
		case 'R':
			opt.raw = true;
			opt.fmt |= RICHACL_TEXT_SHOW_MASKS;
			opt.fmt &= ~RICHACL_TEXT_SIMPLIFY;
			break;
		case 'F':
			opt.fmt &= ~RICHACL_TEXT_SIMPLIFY;
			break;
		case 'U':
			opt.fmt &= ~RICHACL_TEXT_ALIGN;
			break;
		case 'N':
			opt.fmt |= RICHACL_TEXT_NUMERIC_IDS;
			break;
		case 'v':
			printf("%s %s\n", progname, TOOL_VERSION);
			return tool_exit_status(progname, 0);
		case 'h':
			help(progname);
			return tool_exit_status(progname, 0);
		default:
			usage(progname);
			return 1;
		}
	}
	if (optind == argc) {
		usage(progname);
		return 1;
	}
	if (opt.access) {
		char *arg = opt.access_arg ? strdup(opt.access_arg) : NULL;

		if (opt.access_arg && !arg) {
			tool_error(progname, ENOMEM);
			return 1;
		}
		int ret = arg ? who_from_arg(&who, arg) : who_is_me(&who);

		if (ret) {
			if (!arg)
				tool_error(progname, -ret);
			free(arg);
			free(who.groups);
			return 1;
		}
		free(arg);
	}
	for (i = optind; i < argc; i++) {
		if (show_file(argv[i], &opt, &who))
			status = 1;
	}
	free(who.groups);
	return tool_exit_status(progname, status);
}
