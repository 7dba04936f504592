/*
 * setrichacl - set, modify or remove the richacl of files (algorithms.md
 * section 7.4).
 *
 * The acl text is parsed and checked once, before any file is touched.  On a
 * filesystem without richacl support an acl equivalent to a mode is applied
 * with chmod; any other acl is refused there and the file is left alone.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "richacl.h"
#include "tool_common.h"

#define ALL_MASKS (RICHACL_TEXT_OWNER_MASK | RICHACL_TEXT_GROUP_MASK | RICHACL_TEXT_OTHER_MASK)

enum action {
	ACTION_NONE,
	ACTION_SET,
	ACTION_MODIFY,
	ACTION_REMOVE,
};

struct request {
	enum action action;
	unsigned int actions;		/* action options given */
	const char *text;		/* --set / --modify argument */
	const char *text_file;		/* --set-file / --modify-file argument */
	struct richacl *acl;		/* the parsed text */
	unsigned int seen;		/* what the text gave explicitly */
};

static const struct option long_options[] = {
	{ "modify", required_argument, NULL, 'm' },
	{ "modify-file", required_argument, NULL, 'M' },
	{ "set", required_argument, NULL, 's' },
	{ "set-file", required_argument, NULL, 'S' },
	{ "remove", no_argument, NULL, 'b' },
	{ "version", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(const char *progname)
{
	fprintf(stderr, "SYNOPSIS: %s {options} file ...\n"
		"Try '%s --help' for more information.\n", progname, progname);
}

static void help(const char *progname)
{
	printf("SYNOPSIS: %s {options} file ...\n"
	       "\n"
	       "Set, modify or remove the richacl of each file.\n"
	       "\n"
	       "Options:\n"
	       "  --set ACL, -s ACL            Replace the acl.\n"
	       "  --set-file FILE, -S FILE     Replace the acl with the one in FILE ('-': stdin).\n"
	       "  --modify ACL, -m ACL         Change the acl: an entry replaces the first entry\n"
	       "                               with the same who, type and inherited flag; an\n"
	       "                               entry with no permissions removes such entries.\n"
	       "  --modify-file FILE, -M FILE  The same with the changes read from FILE.\n"
	       "  --remove, -b                 Remove the acl (the mode stays).\n"
	       "  --version, -v                Show the version and exit.\n"
	       "  --help, -h                   Show this help and exit.\n"
	       "\n"
	       "ACL is a list of entries <who>:<permissions>:<flags>:<type> separated by\n"
	       "white space or commas, where who is owner@, group@, everyone@,\n"
	       "user:<name or uid> or group:<name or gid> and type is allow or deny.\n"
	       "'flags:<acl flags>' sets the acl flags and 'owner:<permissions>::mask'\n"
	       "(likewise group and other) sets a file mask; masks not given are computed.\n"
	       "A first line ending in ':' (as printed by getrichacl) is ignored in files.\n"
	       "See getrichacl --help for the letters and names.\n"
	       "\n"
	       "An acl with auto_inherit is propagated to the files below a directory.\n"
	       "Without richacl support only acls equivalent to a file mode can be set.\n",
	       progname);
}

/* skip a getrichacl header line ("name:" right before the first newline) */
static const char *skip_header(const char *text)
{
	const char *nl = strchr(text, '\n');
	const char *p = text;

	if (!nl)
		return text;
	while ((p = memchr(p, ':', (size_t)(nl - p))) != NULL) {
		if (p[1] == '\n')
			return nl + 1;
		p += p[1] == ':' ? 2 : 1;	/* "::" is an empty field, not an end */
	}
	return text;
}

static void report_parse_error(const struct richacl_error *err, const char *text,
			       size_t skipped, bool from_file)
{
	size_t len = strcspn(err->msg, "\n");
	size_t offset, line = 1, column, i;

	if (!err->column) {
		fprintf(stderr, "%.*s\n", (int)len, err->msg);
		return;
	}
	offset = skipped + err->column - 1;
	column = offset + 1;
	for (i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			line++;
			column = offset - i;
		}
	}
	if (line == 1 && !from_file)
		fprintf(stderr, "%.*s (column %zu)\n", (int)len, err->msg, column);
	else
		fprintf(stderr, "%.*s (line %zu, column %zu)\n", (int)len, err->msg, line, column);
}

static char *read_text_file(const char *name)
{
	FILE *f;
	char *text;

	if (!strcmp(name, "-"))
		return tool_read_stream(stdin, name);
	f = fopen(name, "r");
	if (!f) {
		tool_error(name, errno);
		return NULL;
	}
	text = tool_read_stream(f, name);
	fclose(f);
	return text;
}

/* compute the masks the text did not give (flags kept if given) */
static void compute_masks(struct richacl *acl, unsigned int seen)
{
	uint8_t flags = acl->a_flags;
	uint32_t owner = acl->a_owner_mask;
	uint32_t group = acl->a_group_mask;
	uint32_t other = acl->a_other_mask;

	if ((seen & ALL_MASKS) == ALL_MASKS)
		return;
	richacl_compute_max_masks(acl);
	if (seen & RICHACL_TEXT_FLAGS)
		acl->a_flags = flags;
	if (seen & RICHACL_TEXT_OWNER_MASK)
		acl->a_owner_mask = owner;
	if (seen & RICHACL_TEXT_GROUP_MASK)
		acl->a_group_mask = group;
	if (seen & RICHACL_TEXT_OTHER_MASK)
		acl->a_other_mask = other;
}

/* parse and check the acl text once, before any file is touched */
static int parse_request(struct request *req)
{
	struct richacl_error err = { 0 };
	char *buffer = NULL;
	const char *text = req->text, *start;
	int ret;

	if (req->text_file) {
		buffer = read_text_file(req->text_file);
		if (!buffer)
			return -1;
		text = buffer;
	}
	start = req->text_file ? skip_header(text) : text;
	ret = richacl_from_text(start, &req->seen, &tool_names, &req->acl, &err);
	if (ret) {
		if (!err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "%s", strerror(-ret));
		report_parse_error(&err, text, (size_t)(start - text), req->text_file != NULL);
		free(buffer);
		return -1;
	}
	free(buffer);
	if (req->action == ACTION_SET)
		compute_masks(req->acl, req->seen);
	if (richacl_valid(req->acl, &err)) {
		fprintf(stderr, "%.*s\n", (int)strcspn(err.msg, "\n"), err.msg);
		return -1;
	}
	return 0;
}

static bool same_slot(const struct richace *e, const struct richace *m)
{
	return e->e_type == m->e_type &&
	       (e->e_flags & RICHACE_INHERITED_ACE) == (m->e_flags & RICHACE_INHERITED_ACE) &&
	       richace_is_same_identifier(e, m);
}

static bool is_inherited(const struct richace *ace)
{
	return ace->e_flags & RICHACE_INHERITED_ACE;
}

/* where a new entry goes (algorithms.md 7.4) */
static unsigned int insert_position(const struct richacl *acl, const struct richace *m)
{
	const struct richace *e = acl->a_entries;
	unsigned int n = acl->a_count, pos, start;

	if (!is_inherited(m)) {
		/* denies after the leading own denies, allows before inherited entries */
		for (pos = 0; pos < n && !is_inherited(&e[pos]); pos++) {
			if (richace_is_deny(m) && !richace_is_deny(&e[pos]))
				break;
		}
		return pos;
	}
	if (!richace_is_deny(m))
		return n;
	for (start = n; start > 0 && is_inherited(&e[start - 1]); start--)
		;
	for (pos = start; pos < n && richace_is_deny(&e[pos]); pos++)
		;
	return pos;
}

static int modify_entry(struct richacl *acl, const struct richace *m)
{
	unsigned int i, j;

	for (i = 0; i < acl->a_count; i++) {
		if (same_slot(&acl->a_entries[i], m))
			break;
	}
	if (i < acl->a_count) {
		if (m->e_mask)
			return richace_copy(&acl->a_entries[i], m);
		/* an empty mask removes every matching entry */
		for (j = acl->a_count; j-- > i; ) {
			if (same_slot(&acl->a_entries[j], m))
				richacl_delete_entry(acl, j);
		}
		return 0;
	}
	if (!m->e_mask)
		return 0;
	return richacl_insert_entry(acl, insert_position(acl, m), m);
}

static int modify_acl(struct richacl *acl, const struct richacl *mod, unsigned int seen)
{
	const struct richace *m;
	int ret;

	richacl_for_each_entry(m, mod) {
		ret = modify_entry(acl, m);
		if (ret)
			return ret;
	}
	if (seen & RICHACL_TEXT_FLAGS)
		acl->a_flags = mod->a_flags;
	if (seen & RICHACL_TEXT_OWNER_MASK)
		acl->a_owner_mask = mod->a_owner_mask;
	if (seen & RICHACL_TEXT_GROUP_MASK)
		acl->a_group_mask = mod->a_group_mask;
	if (seen & RICHACL_TEXT_OTHER_MASK)
		acl->a_other_mask = mod->a_other_mask;
	compute_masks(acl, seen);
	return 0;
}

static int set_file(const char *path, const struct request *req)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		tool_error(path, errno);
		return -1;
	}
	return tool_store_richacl(path, req->acl);
}

static int modify_file(const char *path, const struct request *req)
{
	struct richacl *acl;
	struct stat st;
	int ret;

	if (stat(path, &st) != 0) {
		tool_error(path, errno);
		return -1;
	}
	if (tool_file_acl(path, &st, &acl))
		return -1;
	ret = richacl_apply_masks(&acl, st.st_uid);
	if (!ret)
		ret = modify_acl(acl, req->acl, req->seen);
	if (ret) {
		tool_error(path, -ret);
		richacl_free(acl);
		return -1;
	}
	ret = tool_store_richacl(path, acl);
	richacl_free(acl);
	return ret;
}

static int remove_file(const char *path)
{
	if (removexattr(path, RICHACL_XATTR) != 0 && errno != ENODATA) {
		tool_error(path, errno);
		return -1;
	}
	return 0;
}

static int process_file(const char *path, const struct request *req)
{
	switch (req->action) {
	case ACTION_SET:
		return set_file(path, req);
	case ACTION_MODIFY:
		return modify_file(path, req);
	default:
		return remove_file(path);
	}
}

static void want_action(struct request *req, enum action action)
{
	req->action = action;
	req->actions++;
}

int main(int argc, char *argv[])
{
	const char *progname = tool_progname(argv[0]);
	struct request req = { 0 };
	unsigned int sources = 0;
	int c, i, status = 0;

	while ((c = getopt_long(argc, argv, "m:M:s:S:bvh", long_options, NULL)) != -1) {
		switch (c) {
		case 'm':
		case 's':
			want_action(&req, c == 's' ? ACTION_SET : ACTION_MODIFY);
			req.text = optarg;
			sources++;
			break;
		case 'M':
		case 'S':
			want_action(&req, c == 'S' ? ACTION_SET : ACTION_MODIFY);
			req.text_file = optarg;
			sources++;
			break;
		case 'b':
			want_action(&req, ACTION_REMOVE);
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
	/*
	 * Exactly one action, at most one text, at least one file.  (The
	 * original printed the help on stdout and exited 0 when files were
	 * given; a usage error is an error.)
	 */
	if (req.actions != 1 || sources > 1 || optind == argc) {
		usage(progname);
		return 1;
	}
	if (req.action != ACTION_REMOVE && parse_request(&req))
		return 1;

	for (i = optind; i < argc; i++) {
		if (process_file(argv[i], &req))
			status = 1;
	}
	richacl_free(req.acl);
	return status;
}
