/*
 * permission.c - the kernel's richacl permission check (v28, seed patch
 * 004; reference/algorithms.md section 6), for a given file and process.
 *
 * Where the userspace library and the kernel differ, this follows the
 * kernel (section 6.3, section 10 items 9 and 11): deny entries accumulate
 * rather than refuse at once, and an other-class process under
 * masked|write_through gets exactly the other mask.
 *
 * Deliberate differences from the v28 loop: an entry the loop cannot match
 * against a process - an unmapped identifier (M9), an unknown special
 * identifier, or an unknown entry type - matches nobody.  The v28 loop sends
 * every unrecognised identifier to the everyone@ branch; the kernel never
 * sees unknown specials or types (its validity check rejects them), but it
 * does see unmapped identifiers.
 */
#include <errno.h>

#include "richacl.h"

enum match {
	MATCH_NONE,
	MATCH_OWNER,		/* owner class: owner@, or a user entry for the owner */
	MATCH_GROUP,		/* group class: group@, other users, groups */
	MATCH_EVERYONE,
};

static bool in_group(const struct richacl_cred *cred, uint32_t gid)
{
	unsigned int i;

	if (cred->gid == gid)
		return true;
	for (i = 0; i < cred->ngroups; i++) {
		if (cred->groups[i] == gid)
			return true;
	}
	return false;
}

static enum match match_entry(const struct richace *ace,
			      const struct richacl_file *file,
			      const struct richacl_cred *cred)
{
	if (!richace_is_allow(ace) && !richace_is_deny(ace))
		return MATCH_NONE;
	if (richace_is_unmapped(ace))
		return MATCH_NONE;	/* M9: no process has this identifier */
	if (richace_is_owner(ace))
		return cred->uid == file->owner ? MATCH_OWNER : MATCH_NONE;
	if (richace_is_group(ace))
		return in_group(cred, file->group) ? MATCH_GROUP : MATCH_NONE;
	if (richace_is_everyone(ace))
		return MATCH_EVERYONE;
	if (richace_is_unix_user(ace)) {
		if (cred->uid != ace->e_id)
			return MATCH_NONE;
		return cred->uid == file->owner ? MATCH_OWNER : MATCH_GROUP;
	}
	if (richace_is_unix_group(ace))
		return in_group(cred, ace->e_id) ? MATCH_GROUP : MATCH_NONE;
	return MATCH_NONE;	/* unknown special identifier */
}

/* the subset of requested that acl does not grant to cred */
static uint32_t denied_bits(const struct richacl *acl, const struct richacl_file *file,
			    const struct richacl_cred *cred, uint32_t requested)
{
	bool masked = acl->a_flags & RICHACL_MASKED;
	bool is_owner = cred->uid == file->owner;
	/* owner or group class; the class only matters for masked acls */
	bool in_class = !masked || in_group(cred, file->group);
	uint32_t remaining = requested, denied = 0;
	const struct richace *ace;

	if (masked && (acl->a_flags & RICHACL_WRITE_THROUGH) && is_owner)
		return requested & ~acl->a_owner_mask;

	richacl_for_each_entry(ace, acl) {
		uint32_t mask = ace->e_mask;

		if (richace_is_inherit_only(ace))
			continue;
		switch (match_entry(ace, file, cred)) {
		case MATCH_NONE:
			continue;
		case MATCH_GROUP:
			/*
			 * Group-class allows count only as far as the group
			 * mask goes, also for an owner matched this way: this
			 * is what richacl_apply_masks() can represent.
			 */
			if (masked && richace_is_allow(ace))
				mask &= acl->a_group_mask;
			/* fall through */
		case MATCH_OWNER:
			in_class = true;
			/* fall through */
		case MATCH_EVERYONE:
			break;
		}
		/* the first entry that mentions a bit decides it */
		if (richace_is_deny(ace))
			denied |= mask & remaining;
		remaining &= ~mask;
		/* keep going until the file class is known */
		if (!remaining && in_class)
			break;
	}
	denied |= remaining;

	if (masked) {
		if (is_owner)
			denied |= requested & ~acl->a_owner_mask;
		else if (in_class)
			denied |= requested & ~acl->a_group_mask;
		else if (acl->a_flags & RICHACL_WRITE_THROUGH)
			denied = requested & ~acl->a_other_mask;	/* replaces */
		else
			denied |= requested & ~acl->a_other_mask;
	}
	return denied;
}

static bool args_valid(const struct richacl *acl, const struct richacl_file *file,
		       const struct richacl_cred *cred)
{
	return acl && file && cred && (!cred->ngroups || cred->groups);
}

int richacl_permission(const struct richacl *acl, const struct richacl_file *file,
		       const struct richacl_cred *cred, uint32_t mask)
{
	if (!args_valid(acl, file, cred))
		return -EINVAL;
	return denied_bits(acl, file, cred, mask) ? -EACCES : 0;
}

/*
 * The bits the acl grants cred: the union of the single bits for which
 * richacl_permission() succeeds (the file class does not depend on what is
 * requested).  delete_child means nothing on a non-directory and is never
 * reported there - also not in the owner/write-through case, where the
 * userspace library returned the raw owner mask (section 10 item 11).
 * 0 for invalid arguments.
 */
uint32_t richacl_access(const struct richacl *acl, const struct richacl_file *file,
			const struct richacl_cred *cred)
{
	uint32_t granted;

	if (!args_valid(acl, file, cred))
		return 0;
	granted = RICHACE_VALID_MASK & ~denied_bits(acl, file, cred, RICHACE_VALID_MASK);
	if (!file->isdir)
		granted &= ~RICHACE_DELETE_CHILD;
	return granted;
}
