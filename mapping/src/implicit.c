/*
 * implicit.c - the rights a richacl kernel grants outside the acl entries,
 * in Windows DACLs (see richacl_implicit.h).
 */
#include "richacl_implicit.h"

static bool nt_ace_is_effective_allow(const struct nt_ace *ace)
{
	return ace->type == NT_ACE_ACCESS_ALLOWED &&
	       !(ace->flags & NT_ACE_INHERIT_ONLY);
}

/* READ_EA with READ_DATA, WRITE_EA with WRITE_DATA */
static uint32_t implied_named_attrs(uint32_t mask)
{
	uint32_t implied = 0;

	if (mask & RICHACE_READ_DATA)
		implied |= RICHACE_READ_NAMED_ATTRS;
	if (mask & RICHACE_WRITE_DATA)
		implied |= RICHACE_WRITE_NAMED_ATTRS;
	return implied;
}

void nt_acl_show_implicit_rights(struct nt_acl *dacl, const struct nt_sid *owner)
{
	unsigned int i;

	if (!dacl)
		return;
	for (i = 0; i < dacl->num_aces; i++) {
		struct nt_ace *ace = &dacl->aces[i];

		if (!nt_ace_is_effective_allow(ace))
			continue;
		ace->mask |= implied_named_attrs(ace->mask) | NT_IMPLICIT_EVERYONE;
		if (owner && nt_sid_equal(&ace->trustee, owner))
			ace->mask |= NT_IMPLICIT_OWNER;
	}
}

void nt_acl_drop_implied_rights(struct nt_acl *dacl)
{
	unsigned int i;

	if (!dacl)
		return;
	for (i = 0; i < dacl->num_aces; i++) {
		struct nt_ace *ace = &dacl->aces[i];

		if (!nt_ace_is_effective_allow(ace))
			continue;
		/* generic bits would hide READ_DATA / WRITE_DATA (M10) */
		ace->mask = nt_map_generic_file(ace->mask);
		ace->mask &= ~implied_named_attrs(ace->mask);
	}
}
