/*
 * implicit.c - Windows' view of mode-only files, and storing descriptors
 * so that they read back exactly (see richacl_implicit.h).
 */
#include <errno.h>
#include <sys/stat.h>

#include "richacl_implicit.h"

/* the bits richacl_from_mode_nt() adds to an allow entry with mask */
static uint32_t shown_allow_bits(uint32_t mask)
{
	uint32_t shown = RICHACL_MODE_SHOWN_ALWAYS;

	if (mask & RICHACE_READ_DATA)
		shown |= RICHACL_MODE_SHOWN_READ;
	if (mask & RICHACE_WRITE_DATA)
		shown |= RICHACL_MODE_SHOWN_WRITE;
	return shown;
}

/* the bits it adds to a deny entry: a denied data bit denies the EAs too */
static uint32_t shown_deny_bits(uint32_t mask)
{
	uint32_t shown = 0;

	if (mask & RICHACE_READ_DATA)
		shown |= RICHACE_READ_NAMED_ATTRS;
	if (mask & RICHACE_WRITE_DATA)
		shown |= RICHACE_WRITE_NAMED_ATTRS;
	return shown;
}

/* the bits it adds to the owner@ allow entry of a file of type mode */
static uint32_t shown_owner_bits(uint32_t mask, mode_t mode)
{
	uint32_t shown = RICHACL_MODE_SHOWN_OWNER;

	if (!S_ISDIR(mode) && (mask & RICHACE_WRITE_DATA))
		shown |= RICHACE_DELETE_CHILD;
	return shown;
}

struct richacl *richacl_from_mode_nt(mode_t mode)
{
	struct richacl *acl = richacl_from_mode(mode);
	struct richace *ace;

	if (!acl)
		return NULL;
	richacl_for_each_entry(ace, acl) {
		if (!richace_is_allow(ace)) {
			ace->e_mask |= shown_deny_bits(ace->e_mask);
			continue;
		}
		ace->e_mask |= shown_allow_bits(ace->e_mask);
		if (richace_is_owner(ace))
			ace->e_mask |= shown_owner_bits(ace->e_mask, mode);
	}
	return acl;
}

/* the inverse of richacl_from_mode_nt() on the entries of acl */
static void strip_shown_bits(struct richacl *acl, mode_t type)
{
	struct richace *ace;

	richacl_for_each_entry(ace, acl) {
		uint32_t data = ace->e_mask & (RICHACE_READ_DATA | RICHACE_WRITE_DATA);

		if (!richace_is_allow(ace)) {
			ace->e_mask &= ~shown_deny_bits(data);
			continue;
		}
		if (richace_is_owner(ace))
			ace->e_mask &= ~shown_owner_bits(data, type);
		ace->e_mask &= ~shown_allow_bits(data);
	}
}

/* same entries (type, flags, mask, identifier) in the same order */
static bool same_entries(const struct richacl *a, const struct richacl *b)
{
	unsigned int i;

	if (a->a_count != b->a_count)
		return false;
	for (i = 0; i < a->a_count; i++) {
		const struct richace *x = &a->a_entries[i], *y = &b->a_entries[i];

		if (x->e_type != y->e_type || x->e_flags != y->e_flags ||
		    x->e_mask != y->e_mask || !richace_is_same_identifier(x, y))
			return false;
	}
	return true;
}

/* true if the kernel keeps acl as the mode m and reading gives want back */
static int collapses_exactly(const struct richacl *acl, mode_t type,
			     const struct richacl *want, bool *exact)
{
	mode_t m = type;
	struct richacl *shown;

	*exact = false;
	if (richacl_equiv_mode(acl, &m) != 0)
		return 0;
	shown = richacl_from_mode_nt(m);
	if (!shown)
		return -ENOMEM;
	*exact = same_entries(shown, want);
	richacl_free(shown);
	return 0;
}

int richacl_to_store(const struct richacl *acl, mode_t mode, struct richacl **out)
{
	mode_t type = mode & S_IFMT;
	struct richacl *copy;
	bool exact;
	int ret;

	copy = richacl_clone(acl);
	if (!copy)
		return -ENOMEM;
	strip_shown_bits(copy, type);
	ret = collapses_exactly(copy, type, acl, &exact);
	if (ret)
		goto fail;
	if (exact)
		goto done;

	richacl_free(copy);
	copy = richacl_clone(acl);
	if (!copy)
		return -ENOMEM;
done:
	richacl_compute_max_masks(copy);
	*out = copy;
	return 0;
fail:
	richacl_free(copy);
	return ret;
}

/* user:owner -> owner@, group:group -> group@ (the same processes, now) */
static void unpin_owner_and_group(struct richacl *acl, uint32_t owner, uint32_t group)
{
	struct richace *ace;

	richacl_for_each_entry(ace, acl) {
		if (richace_is_unix_user(ace) && ace->e_id == owner)
			richace_set_special(ace, RICHACE_OWNER_SPECIAL_ID);
		else if (richace_is_unix_group(ace) && ace->e_id == group)
			richace_set_special(ace, RICHACE_GROUP_SPECIAL_ID);
	}
}

int richacl_store_as_mode(const struct richacl *acl, uint32_t owner, uint32_t group,
			  mode_t *mode)
{
	mode_t type = *mode & S_IFMT, m = *mode;
	struct richacl *asked, *stripped;
	bool exact;
	int ret;

	asked = richacl_clone(acl);
	if (!asked)
		return -ENOMEM;
	unpin_owner_and_group(asked, owner, group);
	stripped = richacl_clone(asked);
	if (!stripped) {
		richacl_free(asked);
		return -ENOMEM;
	}
	strip_shown_bits(stripped, type);
	ret = collapses_exactly(stripped, type, asked, &exact);
	if (!ret) {
		if (!exact || richacl_equiv_mode(stripped, &m) != 0) {
			m = *mode;
			ret = richacl_equiv_mode(asked, &m) ? -1 : 0;
		}
	}
	richacl_free(stripped);
	richacl_free(asked);
	if (!ret)
		*mode = m;
	return ret;
}
