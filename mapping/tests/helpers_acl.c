/*
 * helpers_acl.c - shared test helpers (see helpers_acl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_acl.h"

struct helper_name {
	const char *name;
	uint32_t id;
};

static const struct helper_name helper_users[] = {
	{ "root", 0 }, { "daemon", 1 }, { "bin", 2 },
	{ "alice", 1001 }, { "bob", 1002 }, { "carol", 1003 }, { NULL, 0 }
};

static const struct helper_name helper_groups[] = {
	{ "root", 0 }, { "adm", 4 }, { "staff", 50 }, { "users", 100 },
	{ NULL, 0 }
};

static int helper_name_to_id(const struct helper_name *table,
			     const char *name, uint32_t *id)
{
	for (; table->name; table++) {
		if (!strcmp(table->name, name)) {
			*id = table->id;
			return 0;
		}
	}
	return -ENOENT;
}

static int helper_id_to_name(const struct helper_name *table, uint32_t id,
			     char *buf, size_t size)
{
	for (; table->name; table++) {
		if (table->id == id) {
			snprintf(buf, size, "%s", table->name);
			return 0;
		}
	}
	return -ENOENT;
}

static int helper_user_to_id(void *ctx, const char *name, uint32_t *id)
{
	return helper_name_to_id(helper_users, name, id);
}

static int helper_group_to_id(void *ctx, const char *name, uint32_t *id)
{
	return helper_name_to_id(helper_groups, name, id);
}

static int helper_id_to_user(void *ctx, uint32_t id, char *buf, size_t size)
{
	return helper_id_to_name(helper_users, id, buf, size);
}

static int helper_id_to_group(void *ctx, uint32_t id, char *buf, size_t size)
{
	return helper_id_to_name(helper_groups, id, buf, size);
}

const struct richacl_names helper_names = {
	.ctx = NULL,
	.user_to_id = helper_user_to_id,
	.group_to_id = helper_group_to_id,
	.id_to_user = helper_id_to_user,
	.id_to_group = helper_id_to_group,
};

struct richacl *helper_acl_at(const char *text, const char *file, int line)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	if (richacl_from_text(text, NULL, &helper_names, &acl, &err)) {
		print_error("cannot parse acl \"%s\": %s (column %zu)\n",
			    text, err.msg, err.column);
		_fail(file, line);
	}
	return acl;
}

char *helper_acl_text(const struct richacl *acl)
{
	return richacl_to_text(acl, RICHACL_TEXT_SHOW_MASKS |
			       RICHACL_TEXT_NUMERIC_IDS, NULL);
}

/* the first difference between two acls, as a short description */
static void helper_describe_difference(const struct richacl *a,
				       const struct richacl *b,
				       char *buf, size_t size)
{
	unsigned int i;

	if (a->a_flags != b->a_flags) {
		snprintf(buf, size, "acl flags 0x%x != 0x%x", a->a_flags, b->a_flags);
		return;
	}
	if (a->a_owner_mask != b->a_owner_mask ||
	    a->a_group_mask != b->a_group_mask ||
	    a->a_other_mask != b->a_other_mask) {
		snprintf(buf, size, "masks 0x%x/0x%x/0x%x != 0x%x/0x%x/0x%x",
			 a->a_owner_mask, a->a_group_mask, a->a_other_mask,
			 b->a_owner_mask, b->a_group_mask, b->a_other_mask);
		return;
	}
	for (i = 0; i < a->a_count && i < b->a_count; i++) {
		const struct richace *x = &a->a_entries[i], *y = &b->a_entries[i];

		if (x->e_type != y->e_type || x->e_flags != y->e_flags ||
		    x->e_mask != y->e_mask || !richace_is_same_identifier(x, y)) {
			snprintf(buf, size,
				 "entry %u: type %u flags 0x%x mask 0x%x id %u who '%s' != "
				 "type %u flags 0x%x mask 0x%x id %u who '%s'", i,
				 x->e_type, x->e_flags, x->e_mask, x->e_id,
				 x->e_who ? x->e_who : "", y->e_type, y->e_flags,
				 y->e_mask, y->e_id, y->e_who ? y->e_who : "");
			return;
		}
	}
	snprintf(buf, size, "entry count %u != %u", a->a_count, b->a_count);
}

/* true if equal; otherwise prints both acls and returns false */
static bool helper_acls_match(const struct richacl *actual,
			      const struct richacl *expected)
{
	char diff[512];
	char *ta, *te;

	if (!actual || !expected) {
		print_error("acl is NULL (actual %p, expected %p)\n",
			    (const void *)actual, (const void *)expected);
		return false;
	}
	if (richacl_equal(actual, expected))
		return true;
	helper_describe_difference(actual, expected, diff, sizeof(diff));
	ta = helper_acl_text(actual);
	te = helper_acl_text(expected);
	print_error("acls differ: %s\n--- actual:\n%s--- expected:\n%s",
		    diff, ta ? ta : "(no memory)\n", te ? te : "(no memory)\n");
	free(ta);
	free(te);
	return false;
}

void helper_assert_acl_equal(const struct richacl *actual,
			     const struct richacl *expected,
			     const char *file, int line)
{
	if (!helper_acls_match(actual, expected))
		_fail(file, line);
}

void helper_assert_acl_equal_text(const struct richacl *actual,
				  const char *expected_text,
				  const char *file, int line)
{
	struct richacl *expected = helper_acl_at(expected_text, file, line);
	bool match = helper_acls_match(actual, expected);

	richacl_free(expected);
	if (!match)
		_fail(file, line);
}
