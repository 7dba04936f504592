/*
 * masks.c - the file masks: computing the maximum masks of an acl and
 * chmod (reference/algorithms.md sections 2 and 3).
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "richacl.h"

/*
 * Entries that no process can ever match (M9): unmapped identifiers, and
 * special identifiers other than owner@, group@ and everyone@ (which
 * richacl_valid() rejects anyway).  Like inherit-only entries, they neither
 * grant nor deny anything, so they play no part in the mask computation.
 */
static bool matches_nobody(const struct richace *ace)
{
	return richace_is_unmapped(ace) ||
	       ((ace->e_flags & RICHACE_SPECIAL_WHO) &&
		ace->e_id > RICHACE_EVERYONE_SPECIAL_ID);
}

static bool ignored_for_masks(const struct richace *ace)
{
	return richace_is_inherit_only(ace) || matches_nobody(ace);
}

/* first entry mentioning a bit decides it: walk backwards, later wins */
static uint32_t settle(uint32_t mask, const struct richace *ace)
{
	if (richace_is_allow(ace))
		return mask | ace->e_mask;
	if (richace_is_deny(ace))
		return mask & ~ace->e_mask;
	return mask;
}

/* what the identifier of who gets from its own entries and from everyone@ */
static uint32_t allowed_to_who(const struct richacl *acl, const struct richace *who)
{
	const struct richace *ace;
	uint32_t allowed = 0;

	richacl_for_each_entry_reverse(ace, acl) {
		if (ignored_for_masks(ace))
			continue;
		if (richace_is_same_identifier(ace, who) || richace_is_everyone(ace))
			allowed = settle(allowed, ace);
	}
	return allowed;
}

/*
 * An upper bound of what any group-class process can be granted: the union
 * over the group-class identifiers of what each gets on its own, plus what
 * everyone@ grants if there is no group@ entry (the owning group then only
 * gets everyone@'s permissions).
 *
 * This is the direct form: one allowed_to_who() scan per entry, quadratic
 * in the number of entries.  group_class_allowed() below computes the same
 * in one pass with a table of identifiers, and falls back to this when the
 * table cannot be allocated.
 */
static uint32_t group_class_allowed_scan(const struct richacl *acl)
{
	const struct richace *ace;
	uint32_t everyone = 0, allowed = 0;
	bool had_group_entry = false;

	richacl_for_each_entry_reverse(ace, acl) {
		if (ignored_for_masks(ace) || richace_is_owner(ace))
			continue;
		if (richace_is_everyone(ace)) {
			everyone = settle(everyone, ace);
		} else {
			allowed |= allowed_to_who(acl, ace);
			if (richace_is_group(ace))
				had_group_entry = true;
		}
	}
	if (!had_group_entry)
		allowed |= everyone;
	return allowed;
}

/*
 * One group-class identifier in the one-pass form: the bits it decides
 * itself (its own entry mentions them before any everyone@ entry does) and
 * which of those it allows.  Unmapped entries never get here, so an
 * identifier is its kind (user, group, group@) and a number.
 */
struct who_state {
	uint64_t key;			/* 0: free slot */
	uint32_t own;
	uint32_t allowed;
};

static uint64_t who_key(const struct richace *ace)
{
	uint64_t kind = ace->e_flags & (RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP);

	return (kind + 1) << 32 | ace->e_id;	/* never 0 */
}

static struct who_state *who_lookup(struct who_state *table, size_t size, uint64_t key)
{
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (size - 1);

	while (table[i].key && table[i].key != key)
		i = (i + 1) & (size - 1);
	table[i].key = key;
	return &table[i];
}

/*
 * What an identifier gets from its own entries and everyone@ is decided,
 * bit by bit, by the first entry of either that mentions the bit.  Walking
 * forward, a bit that an everyone@ entry has already mentioned is settled
 * for every identifier at once, so each identifier only records the bits its
 * own entries mention first; at the end it gets those it allowed plus what
 * everyone@ allowed of the rest.  Linear in the number of entries.
 */
static uint32_t group_class_allowed(const struct richacl *acl)
{
	uint32_t everyone_seen = 0, everyone_allowed = 0, allowed = 0;
	bool had_group_entry = false;
	struct who_state *table;
	const struct richace *ace;
	size_t size = 4, i;

	while (size < 2 * (size_t)acl->a_count)
		size *= 2;
	table = calloc(size, sizeof(*table));
	if (!table)
		return group_class_allowed_scan(acl);

	richacl_for_each_entry(ace, acl) {
		struct who_state *who;
		uint32_t first;

		if (ignored_for_masks(ace) || richace_is_owner(ace))
			continue;
		if (richace_is_everyone(ace)) {
			first = ace->e_mask & ~everyone_seen;
			if (richace_is_allow(ace))
				everyone_allowed |= first;
			if (richace_is_allow(ace) || richace_is_deny(ace))
				everyone_seen |= ace->e_mask;
			continue;
		}
		if (richace_is_group(ace))
			had_group_entry = true;
		who = who_lookup(table, size, who_key(ace));
		if (!richace_is_allow(ace) && !richace_is_deny(ace))
			continue;	/* names the identifier, decides nothing */
		first = ace->e_mask & ~who->own & ~everyone_seen;
		who->own |= first;
		if (richace_is_allow(ace))
			who->allowed |= first;
	}
	for (i = 0; i < size; i++) {
		if (table[i].key)
			allowed |= table[i].allowed | (everyone_allowed & ~table[i].own);
	}
	free(table);
	if (!had_group_entry)
		allowed |= everyone_allowed;
	return allowed;
}

/*
 * Compute the tightest owner, group and other masks that take nothing away
 * from what the entries grant to any process, whoever owns the file and
 * whatever groups the process is in.  Clears masked and write_through.
 *
 * Group-class deny entries never clear a mask bit (the process may not
 * match them); their only effect is to switch on gmask, which stops
 * everyone@ and group-class allows from adding bits that no group-class
 * process can actually obtain.
 *
 * Unmapped identifiers (M9) are group-class entries that no process can
 * match.  We skip them entirely, here and in group_class_allowed():
 *  - an unmapped allow grants nobody anything, so its bits do not enter the
 *    owner or group mask (the mode derived from the masks would otherwise
 *    advertise group permissions that no process can get);
 *  - an unmapped deny restricts nobody, so it does not switch on gmask, and
 *    no unmapped identifier contributes to gmask (no process is in the
 *    group class because of it).
 * The masks therefore stay the tightest bound of what real processes can
 * get.  The price: when such an acl is later masked (chmod, create), the
 * masks may cut the unmapped entries in the apply_masks view; access is not
 * affected, as they never match.
 */
void richacl_compute_max_masks(struct richacl *acl)
{
	uint32_t gmask = ~(uint32_t)0;
	const struct richace *ace;

restart:
	acl->a_owner_mask = 0;
	acl->a_group_mask = 0;
	acl->a_other_mask = 0;

	richacl_for_each_entry_reverse(ace, acl) {
		if (ignored_for_masks(ace))
			continue;

		if (richace_is_owner(ace)) {
			acl->a_owner_mask = settle(acl->a_owner_mask, ace);
		} else if (richace_is_everyone(ace)) {
			if (richace_is_allow(ace)) {
				acl->a_owner_mask |= ace->e_mask;
				acl->a_group_mask |= ace->e_mask & gmask;
				acl->a_other_mask |= ace->e_mask;
			} else if (richace_is_deny(ace)) {
				acl->a_owner_mask &= ~ace->e_mask;
				acl->a_group_mask &= ~ace->e_mask;
				acl->a_other_mask &= ~ace->e_mask;
			}
		} else {	/* group@, users, groups */
			if (richace_is_allow(ace)) {
				acl->a_owner_mask |= ace->e_mask & gmask;
				acl->a_group_mask |= ace->e_mask & gmask;
			} else if (richace_is_deny(ace) && gmask == ~(uint32_t)0) {
				gmask = group_class_allowed(acl);
				if (gmask != ~(uint32_t)0)
					goto restart;
			}
		}
	}
	acl->a_flags &= ~(RICHACL_MASKED | RICHACL_WRITE_THROUGH);
}

/*
 * chmod: the masks become the permission bits of mode (delete_child only
 * for directories) and take full effect (masked and write_through).  A
 * chmod protects an auto-inherited acl from automatic inheritance.  The
 * entries are never touched.
 */
void richacl_chmod(struct richacl *acl, mode_t mode)
{
	uint32_t x = S_ISDIR(mode) ? 0 : RICHACE_DELETE_CHILD;

	acl->a_flags |= RICHACL_MASKED | RICHACL_WRITE_THROUGH;
	acl->a_owner_mask = richacl_mode_to_mask(mode >> 6) & ~x;
	acl->a_group_mask = richacl_mode_to_mask(mode >> 3) & ~x;
	acl->a_other_mask = richacl_mode_to_mask(mode) & ~x;
	if (acl->a_flags & RICHACL_AUTO_INHERIT)
		acl->a_flags |= RICHACL_PROTECTED;
}
