/*
 * mode.c - conversions between POSIX permission bits and richacls, and the
 * mode-equivalence test (reference/algorithms.md section 1, seed patch 006).
 */
#include <sys/stat.h>

#include "richacl.h"

uint32_t richacl_mode_to_mask(mode_t mode_bits)
{
	uint32_t mask = 0;

	if (mode_bits & S_IROTH)
		mask |= RICHACE_POSIX_MODE_READ;
	if (mode_bits & S_IWOTH)
		mask |= RICHACE_POSIX_MODE_WRITE;	/* includes delete_child */
	if (mode_bits & S_IXOTH)
		mask |= RICHACE_POSIX_MODE_EXEC;
	return mask;
}

mode_t richacl_mask_to_mode(uint32_t mask)
{
	mode_t mode = 0;

	if (mask & RICHACE_POSIX_MODE_READ)
		mode |= S_IROTH;
	if (mask & RICHACE_POSIX_MODE_WRITE)	/* any of w, p, d */
		mode |= S_IWOTH;
	if (mask & RICHACE_POSIX_MODE_EXEC)
		mode |= S_IXOTH;
	return mode;
}

mode_t richacl_masks_to_mode(const struct richacl *acl)
{
	return richacl_mask_to_mode(acl->a_owner_mask) << 6 |
	       richacl_mask_to_mode(acl->a_group_mask) << 3 |
	       richacl_mask_to_mode(acl->a_other_mask);
}

/*
 * The acl that describes a file without a stored acl: at most five owner@,
 * group@ and everyone@ entries, each allow carrying its whole class mask.
 */
struct richacl *richacl_from_mode(mode_t mode)
{
	uint32_t x = S_ISDIR(mode) ? 0 : RICHACE_DELETE_CHILD;
	uint32_t owner = richacl_mode_to_mask(mode >> 6) & ~x;
	uint32_t group = richacl_mode_to_mask(mode >> 3) & ~x;
	uint32_t other = richacl_mode_to_mask(mode) & ~x;
	const struct {
		uint16_t type;
		uint32_t id;
		uint32_t mask;		/* 0: entry not needed */
	} entries[] = {
		{ RICHACE_ACCESS_DENIED_ACE_TYPE, RICHACE_OWNER_SPECIAL_ID,
		  ~owner & (group | other) },
		{ RICHACE_ACCESS_ALLOWED_ACE_TYPE, RICHACE_OWNER_SPECIAL_ID,
		  (owner & ~(group & other)) ? owner : 0 },
		{ RICHACE_ACCESS_DENIED_ACE_TYPE, RICHACE_GROUP_SPECIAL_ID,
		  ~group & other },
		{ RICHACE_ACCESS_ALLOWED_ACE_TYPE, RICHACE_GROUP_SPECIAL_ID,
		  (group & ~other) ? group : 0 },
		{ RICHACE_ACCESS_ALLOWED_ACE_TYPE, RICHACE_EVERYONE_SPECIAL_ID,
		  other },
	};
	struct richacl *acl;
	unsigned int i;

	acl = richacl_alloc(0);
	if (!acl)
		return NULL;
	acl->a_owner_mask = owner;
	acl->a_group_mask = group;
	acl->a_other_mask = other;
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		struct richace ace = {
			.e_type = entries[i].type,
			.e_flags = RICHACE_SPECIAL_WHO,
			.e_mask = entries[i].mask,
			.e_id = entries[i].id,
		};

		if (!ace.e_mask)
			continue;
		if (richacl_append_entry(acl, &ace)) {
			richacl_free(acl);
			return NULL;
		}
	}
	return acl;
}

/* what a file class has been allowed, and what has been decided for it */
struct class_state {
	uint32_t allowed;
	uint32_t defined;	/* allowed or denied */
};

/*
 * What a group@ entry decides for the processes it matches.  In a masked acl
 * the permission check cuts group-class allows down to the group mask, also
 * for an owner who is matched through group@ (seed 004); the bits cut off
 * stay open and later entries decide them.
 */
static uint32_t effective_group_mask(const struct richacl *acl,
				     const struct richace *ace)
{
	if ((acl->a_flags & RICHACL_MASKED) && richace_is_allow(ace))
		return ace->e_mask & acl->a_group_mask;
	return ace->e_mask;
}

/*
 * Is acl exactly representable by permission bits?  The kernel's test (seed
 * patch 006): only owner@, group@ and everyone@ entries without any other
 * entry flag, the owner's rights must not depend on membership in the owning
 * group, and each class must end up with a union of {r}, {w,p,d}, {x}.
 *
 * Any entry flag other than special_who makes the acl non-equivalent; in
 * particular an unmapped identifier (M9) is never mode-equivalent: a mode
 * cannot carry it, so storing the mode alone would lose the entry.
 *
 * One deliberate difference from v28: in a masked acl a group@ allow only
 * counts with the bits the group mask lets through (effective_group_mask()).
 * v28 used the whole entry mask and so found
 *     flags:m owner:rwpx::mask group:rx::mask other:::mask
 *     group@:rwpx::allow group@:wp::deny owner@:rwpx::allow
 * equivalent to 0750, although the permission check refuses w to an owner
 * who is in the owning group (the group@ allow is masked to rx, so the
 * group@ deny decides w).  Storing the mode alone would grant that owner
 * more than the acl did.
 */
int richacl_equiv_mode(const struct richacl *acl, mode_t *mode_p)
{
	mode_t mode = *mode_p;
	uint32_t x = S_ISDIR(mode) ? 0 : RICHACE_DELETE_CHILD;	/* meaningless for files */
	struct class_state owner = {
		.defined = RICHACE_POSIX_ALWAYS_ALLOWED | RICHACE_POSIX_OWNER_ALLOWED | x,
	};
	struct class_state group = { .defined = RICHACE_POSIX_ALWAYS_ALLOWED | x };
	struct class_state everyone = { .defined = RICHACE_POSIX_ALWAYS_ALLOWED | x };
	const struct richace *ace;
	uint32_t new;

	if (acl->a_flags & ~(RICHACL_MASKED | RICHACL_WRITE_THROUGH))
		return -1;

	richacl_for_each_entry(ace, acl) {
		if (ace->e_flags & ~RICHACE_SPECIAL_WHO)
			return -1;	/* inheritance, user/group, unmapped */

		if (richace_is_owner(ace) || richace_is_everyone(ace)) {
			new = ace->e_mask & ~owner.defined;
			if (richace_is_allow(ace)) {
				/* owner would need membership in the group */
				if (new & (group.defined & ~group.allowed))
					return -1;
				owner.allowed |= new;
			} else if (new & group.allowed) {
				return -1;
			}
			owner.defined |= new;

			if (richace_is_everyone(ace)) {
				if (richace_is_allow(ace)) {
					group.allowed |= ace->e_mask & ~group.defined;
					everyone.allowed |= ace->e_mask & ~everyone.defined;
				}
				group.defined |= ace->e_mask;
				everyone.defined |= ace->e_mask;
			}
		} else if (richace_is_group(ace)) {
			new = effective_group_mask(acl, ace) & ~group.defined;
			if (richace_is_allow(ace))
				group.allowed |= new;
			group.defined |= new;
		} else {
			return -1;	/* unknown special identifier */
		}
	}

	if (group.allowed & ~owner.defined)
		return -1;

	if (acl->a_flags & RICHACL_MASKED) {
		if (acl->a_flags & RICHACL_WRITE_THROUGH) {
			owner.allowed = acl->a_owner_mask;
			everyone.allowed = acl->a_other_mask;
		} else {
			owner.allowed &= acl->a_owner_mask;
			everyone.allowed &= acl->a_other_mask;
		}
		group.allowed &= acl->a_group_mask;
	}

	mode = (mode & ~(mode_t)(S_IRWXU | S_IRWXG | S_IRWXO)) |
	       richacl_mask_to_mode(owner.allowed) << 6 |
	       richacl_mask_to_mode(group.allowed) << 3 |
	       richacl_mask_to_mode(everyone.allowed);

	if (((richacl_mode_to_mask(mode >> 6) ^ owner.allowed) & ~x) ||
	    ((richacl_mode_to_mask(mode >> 3) ^ group.allowed) & ~x) ||
	    ((richacl_mode_to_mask(mode) ^ everyone.allowed) & ~x))
		return -1;

	*mode_p = mode;
	return 0;
}
