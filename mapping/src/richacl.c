/*
 * richacl.c - the richacl model: allocation, entry list editing, identifier
 * predicates and setters, equality and structural validity.
 *
 * An acl owns its entry array and the e_who strings of its unmapped
 * entries.  The entry array always has room for at least one entry, so
 * a_entries is never NULL for an allocated acl.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "richacl.h"

#define RICHACL_MIN_ALLOC 4

struct richacl *richacl_alloc(unsigned int count)
{
	struct richacl *acl;
	unsigned int alloc = count < RICHACL_MIN_ALLOC ? RICHACL_MIN_ALLOC : count;

	acl = calloc(1, sizeof(*acl));
	if (!acl)
		return NULL;
	acl->a_entries = calloc(alloc, sizeof(*acl->a_entries));
	if (!acl->a_entries) {
		free(acl);
		return NULL;
	}
	acl->a_count = count;
	acl->a_alloc = alloc;
	return acl;
}

void richacl_free(struct richacl *acl)
{
	unsigned int i;

	if (!acl)
		return;
	for (i = 0; i < acl->a_count; i++)
		free(acl->a_entries[i].e_who);
	free(acl->a_entries);
	free(acl);
}

struct richacl *richacl_clone(const struct richacl *acl)
{
	struct richacl *dup;
	unsigned int i;

	dup = richacl_alloc(acl->a_count);
	if (!dup)
		return NULL;
	dup->a_flags = acl->a_flags;
	dup->a_owner_mask = acl->a_owner_mask;
	dup->a_group_mask = acl->a_group_mask;
	dup->a_other_mask = acl->a_other_mask;
	for (i = 0; i < acl->a_count; i++) {
		if (richace_copy(&dup->a_entries[i], &acl->a_entries[i])) {
			richacl_free(dup);
			return NULL;
		}
	}
	return dup;
}

/* make room for at least one more entry; 0 or -ENOMEM (acl unchanged) */
static int richacl_grow(struct richacl *acl)
{
	struct richace *entries;
	unsigned int alloc;

	if (acl->a_count < acl->a_alloc)
		return 0;
	if (acl->a_alloc > UINT_MAX / 2)
		return -ENOMEM;
	alloc = acl->a_alloc ? acl->a_alloc * 2 : RICHACL_MIN_ALLOC;
	entries = reallocarray(acl->a_entries, alloc, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	memset(entries + acl->a_alloc, 0,
	       (size_t)(alloc - acl->a_alloc) * sizeof(*entries));
	acl->a_entries = entries;
	acl->a_alloc = alloc;
	return 0;
}

int richacl_insert_entry(struct richacl *acl, unsigned int pos,
			 const struct richace *ace)
{
	struct richace copy = *ace;	/* ace may point into acl->a_entries */

	if (pos > acl->a_count)
		return -EINVAL;
	copy.e_who = NULL;
	if (ace->e_who) {
		copy.e_who = strdup(ace->e_who);
		if (!copy.e_who)
			return -ENOMEM;
	}
	if (richacl_grow(acl)) {
		free(copy.e_who);
		return -ENOMEM;
	}
	memmove(acl->a_entries + pos + 1, acl->a_entries + pos,
		(acl->a_count - pos) * sizeof(*acl->a_entries));
	acl->a_entries[pos] = copy;
	acl->a_count++;
	return 0;
}

int richacl_append_entry(struct richacl *acl, const struct richace *ace)
{
	return richacl_insert_entry(acl, acl->a_count, ace);
}

void richacl_delete_entry(struct richacl *acl, unsigned int pos)
{
	if (pos >= acl->a_count)
		return;
	free(acl->a_entries[pos].e_who);
	memmove(acl->a_entries + pos, acl->a_entries + pos + 1,
		(acl->a_count - pos - 1) * sizeof(*acl->a_entries));
	acl->a_count--;
	memset(acl->a_entries + acl->a_count, 0, sizeof(*acl->a_entries));
}

bool richacl_equal(const struct richacl *a, const struct richacl *b)
{
	unsigned int i;

	if (a->a_flags != b->a_flags ||
	    a->a_owner_mask != b->a_owner_mask ||
	    a->a_group_mask != b->a_group_mask ||
	    a->a_other_mask != b->a_other_mask ||
	    a->a_count != b->a_count)
		return false;
	for (i = 0; i < a->a_count; i++) {
		const struct richace *ea = &a->a_entries[i];
		const struct richace *eb = &b->a_entries[i];

		if (ea->e_type != eb->e_type || ea->e_flags != eb->e_flags ||
		    ea->e_mask != eb->e_mask ||
		    !richace_is_same_identifier(ea, eb))
			return false;
	}
	return true;
}

/* ---- identifier predicates ---- */

static bool richace_is_special(const struct richace *ace, uint32_t id)
{
	return (ace->e_flags & RICHACE_SPECIAL_WHO) && ace->e_id == id;
}

bool richace_is_owner(const struct richace *ace)
{
	return richace_is_special(ace, RICHACE_OWNER_SPECIAL_ID);
}

bool richace_is_group(const struct richace *ace)
{
	return richace_is_special(ace, RICHACE_GROUP_SPECIAL_ID);
}

bool richace_is_everyone(const struct richace *ace)
{
	return richace_is_special(ace, RICHACE_EVERYONE_SPECIAL_ID);
}

bool richace_is_unmapped(const struct richace *ace)
{
	return ace->e_flags & RICHACE_UNMAPPED_WHO;
}

bool richace_is_unix_user(const struct richace *ace)
{
	return !(ace->e_flags & (RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP |
				 RICHACE_UNMAPPED_WHO));
}

bool richace_is_unix_group(const struct richace *ace)
{
	return (ace->e_flags & (RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP |
				RICHACE_UNMAPPED_WHO)) == RICHACE_IDENTIFIER_GROUP;
}

bool richace_is_allow(const struct richace *ace)
{
	return ace->e_type == RICHACE_ACCESS_ALLOWED_ACE_TYPE;
}

bool richace_is_deny(const struct richace *ace)
{
	return ace->e_type == RICHACE_ACCESS_DENIED_ACE_TYPE;
}

bool richace_is_inherit_only(const struct richace *ace)
{
	return ace->e_flags & RICHACE_INHERIT_ONLY_ACE;
}

bool richace_is_inheritable(const struct richace *ace)
{
	return ace->e_flags & (RICHACE_FILE_INHERIT_ACE |
			       RICHACE_DIRECTORY_INHERIT_ACE);
}

bool richace_is_same_identifier(const struct richace *a, const struct richace *b)
{
	const uint16_t who_bits = RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP |
				  RICHACE_UNMAPPED_WHO;

	if ((a->e_flags & who_bits) != (b->e_flags & who_bits))
		return false;
	if (a->e_flags & RICHACE_UNMAPPED_WHO) {
		if (!a->e_who || !b->e_who)
			return a->e_who == b->e_who;
		return strcmp(a->e_who, b->e_who) == 0;
	}
	return a->e_id == b->e_id;
}

/* ---- identifier setters ---- */

static void richace_set_id(struct richace *ace, uint32_t id, uint16_t who_flags)
{
	free(ace->e_who);
	ace->e_who = NULL;
	ace->e_flags &= ~(RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP |
			  RICHACE_UNMAPPED_WHO);
	ace->e_flags |= who_flags;
	ace->e_id = id;
}

void richace_set_special(struct richace *ace, uint32_t special_id)
{
	richace_set_id(ace, special_id, RICHACE_SPECIAL_WHO);
}

void richace_set_uid(struct richace *ace, uint32_t uid)
{
	richace_set_id(ace, uid, 0);
}

void richace_set_gid(struct richace *ace, uint32_t gid)
{
	richace_set_id(ace, gid, RICHACE_IDENTIFIER_GROUP);
}

int richace_set_unmapped(struct richace *ace, const char *who, bool is_group)
{
	char *dup;

	if (!who || !*who)
		return -EINVAL;
	dup = strdup(who);
	if (!dup)
		return -ENOMEM;
	richace_set_id(ace, 0, RICHACE_UNMAPPED_WHO |
		       (is_group ? RICHACE_IDENTIFIER_GROUP : 0));
	ace->e_who = dup;
	return 0;
}

int richace_copy(struct richace *dst, const struct richace *src)
{
	char *who = NULL;

	if (dst == src)
		return 0;
	if (src->e_who) {
		who = strdup(src->e_who);
		if (!who)
			return -ENOMEM;
	}
	free(dst->e_who);
	*dst = *src;
	dst->e_who = who;
	return 0;
}

/* ---- validity ---- */

static int richacl_invalid(struct richacl_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int richacl_invalid(struct richacl_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = -EINVAL;
		err->column = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int richace_valid(const struct richace *ace, unsigned int i,
			 struct richacl_error *err)
{
	if (ace->e_type > RICHACE_ACCESS_DENIED_ACE_TYPE)
		return richacl_invalid(err, "entry %u: invalid type %u", i,
				       ace->e_type);
	if (ace->e_flags & ~RICHACE_VALID_FLAGS)
		return richacl_invalid(err, "entry %u: invalid flags 0x%x", i,
				       ace->e_flags & ~RICHACE_VALID_FLAGS);
	if (ace->e_mask & ~RICHACE_VALID_MASK)
		return richacl_invalid(err, "entry %u: invalid mask bits 0x%x",
				       i, ace->e_mask & ~RICHACE_VALID_MASK);
	if (ace->e_flags & RICHACE_SPECIAL_WHO) {
		if (ace->e_flags & (RICHACE_UNMAPPED_WHO | RICHACE_IDENTIFIER_GROUP))
			return richacl_invalid(err,
				"entry %u: special identifier combined with unmapped or group flag",
				i);
		if (ace->e_id > RICHACE_EVERYONE_SPECIAL_ID)
			return richacl_invalid(err,
				"entry %u: invalid special identifier %u", i,
				ace->e_id);
	} else if (ace->e_flags & RICHACE_UNMAPPED_WHO) {
		if (!ace->e_who || !*ace->e_who)
			return richacl_invalid(err,
				"entry %u: unmapped identifier is empty", i);
	}
	return 0;
}

int richacl_valid(const struct richacl *acl, struct richacl_error *err)
{
	unsigned int i;
	int ret;

	if (acl->a_flags & ~RICHACL_VALID_FLAGS)
		return richacl_invalid(err, "invalid acl flags 0x%x",
				       acl->a_flags & ~RICHACL_VALID_FLAGS);
	if (acl->a_owner_mask & ~RICHACE_VALID_MASK)
		return richacl_invalid(err, "invalid owner mask bits 0x%x",
				       acl->a_owner_mask & ~RICHACE_VALID_MASK);
	if (acl->a_group_mask & ~RICHACE_VALID_MASK)
		return richacl_invalid(err, "invalid group mask bits 0x%x",
				       acl->a_group_mask & ~RICHACE_VALID_MASK);
	if (acl->a_other_mask & ~RICHACE_VALID_MASK)
		return richacl_invalid(err, "invalid other mask bits 0x%x",
				       acl->a_other_mask & ~RICHACE_VALID_MASK);
	for (i = 0; i < acl->a_count; i++) {
		ret = richace_valid(&acl->a_entries[i], i, err);
		if (ret)
			return ret;
	}
	return 0;
}
