/*
 * apply_masks.c - rewrite a masked acl into an unmasked acl that grants the
 * same permissions for a given file owner (reference/algorithms.md
 * sections 0.3 and 4).
 *
 * The stages work on entry indexes, never on pointers: inserting an entry
 * may reallocate the entry array.  Every stage keeps inheritance intact: an
 * inheritable entry whose effective permissions change is split into an
 * inherit-only copy (original mask) and an effective copy (new mask).
 *
 * Unmapped identifiers (M9) match no process.  Stages 2 and 5 leave them
 * out: they need no rights propagated from everyone@, and no deny entry that
 * isolates them from it.  Such a deny would deny nobody in the kernel while
 * smbd honours it, and a descriptor write refuses deny entries for unmapped
 * SIDs.  Stages 1 and 3 still rewrite their masks, which changes nobody's
 * access.
 *
 * Two deliberate differences from the algorithm of section 4, both found
 * by the property test (tests/test_apply_masks.c), both invisible in the
 * worked examples of the spec:
 *  - set_effective_mask() also makes a non-inheritable inherit-only entry
 *    effective when it gives it a new mask (else stage 6 could hand the
 *    owner mask to an entry that never applies);
 *  - stages 2 and 5 visit a snapshot of the group-class identifiers instead
 *    of walking the entries by index (a split of an earlier entry made the
 *    walk skip one).
 * A third one closes the imprecision of section 4.10: a process that is in
 * the group class only through named entries that stage 1 or stage 3
 * removes (a deny that an earlier everyone@ entry settled, an allow that
 * the group mask cuts to nothing) ended up in the other class, and got what
 * the other mask gives instead of what the group mask gives (E4: refused
 * read by the masked acl, granted it by the result).  The named identifiers
 * of the acl as it came in (the group class as the kernel sees it; the
 * owner's own uid is in the owner class) stay in the group class: stages 2
 * and 5 also treat those of them that no longer have an entry.
 */
#include <errno.h>
#include <stdlib.h>

#include "richacl.h"

#define FLAGS_INHERITANCE_CLEARED \
	(RICHACE_FILE_INHERIT_ACE | RICHACE_DIRECTORY_INHERIT_ACE | \
	 RICHACE_NO_PROPAGATE_INHERIT_ACE | RICHACE_INHERIT_ONLY_ACE)
#define FLAGS_WHO \
	(RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP | RICHACE_UNMAPPED_WHO)

static struct richace *entry(struct richacl *acl, int i)
{
	return &acl->a_entries[i];
}

static int last_index(const struct richacl *acl)
{
	return (int)acl->a_count - 1;
}

/* the trailing entry, if it is an effective everyone@ entry */
static struct richace *trailing_everyone(struct richacl *acl)
{
	struct richace *ace;

	if (!acl->a_count)
		return NULL;
	ace = entry(acl, last_index(acl));
	if (richace_is_inherit_only(ace) || !richace_is_everyone(ace))
		return NULL;
	return ace;
}

/*
 * set_effective_mask (section 0.3): give the entry at *cursor the effective
 * permissions mask without changing what it passes on to children.
 * Afterwards *cursor names the effective copy, the entry that became
 * inherit-only, or the entry before a deleted one (possibly -1), so that
 * advancing by one continues a forward walk correctly.
 */
static int set_effective_mask(struct richacl *acl, int *cursor, uint32_t mask)
{
	struct richace *ace = entry(acl, *cursor);
	int ret;

	if (mask && mask == ace->e_mask) {
		ace->e_flags &= ~RICHACE_INHERIT_ONLY_ACE;
	} else if (mask & ~RICHACE_POSIX_ALWAYS_ALLOWED) {
		if (richace_is_inheritable(ace)) {
			ret = richacl_insert_entry(acl, *cursor, ace);
			if (ret)
				return ret;
			entry(acl, *cursor)->e_flags |= RICHACE_INHERIT_ONLY_ACE;
			(*cursor)++;
			entry(acl, *cursor)->e_flags &= ~FLAGS_INHERITANCE_CLEARED;
		} else {
			/*
			 * Not in section 0.3: an inherit-only entry without
			 * file/dir-inherit (which only stage 6 passes here)
			 * must become effective too, or the owner loses the
			 * owner mask it is meant to receive.
			 */
			entry(acl, *cursor)->e_flags &= ~RICHACE_INHERIT_ONLY_ACE;
		}
		entry(acl, *cursor)->e_mask = mask;
	} else {
		if (richace_is_inheritable(ace)) {
			ace->e_flags |= RICHACE_INHERIT_ONLY_ACE;
		} else {
			richacl_delete_entry(acl, *cursor);
			(*cursor)--;
		}
	}
	return 0;
}

/* set_effective_mask() for callers that do not continue a walk */
static int set_effective_mask_at(struct richacl *acl, int i, uint32_t mask)
{
	return set_effective_mask(acl, &i, mask);
}

/*
 * Insert before position pos a new entry for the identifier of who, with no
 * inheritance flags.
 */
static int insert_for_who(struct richacl *acl, int pos, const struct richace *who,
			  uint16_t type, uint32_t mask)
{
	struct richace ace = {
		.e_type = type,
		.e_flags = who->e_flags & FLAGS_WHO,
		.e_mask = mask,
		.e_id = who->e_id,
		.e_who = who->e_who,	/* duplicated by richacl_insert_entry */
	};

	return richacl_insert_entry(acl, pos, &ace);
}

static int insert_special(struct richacl *acl, int pos, uint32_t special_id,
			  uint16_t type, uint32_t mask)
{
	struct richace who = {
		.e_flags = RICHACE_SPECIAL_WHO,
		.e_id = special_id,
	};

	return insert_for_who(acl, pos, &who, type, mask);
}

/*
 * A private copy of an entry's identifier: the helpers below may split
 * entries, which moves them in the array.
 */
static int copy_identifier(struct richace *who, const struct richace *ace)
{
	*who = (struct richace){ 0 };
	if (richace_copy(who, ace))
		return -ENOMEM;
	who->e_flags &= FLAGS_WHO;
	return 0;
}

static void free_identifier(struct richace *who)
{
	free(who->e_who);
	who->e_who = NULL;
}

/*
 * The identifiers that stages 2 and 5 treat one by one: those of the
 * effective entries before the trailing one, except owner@, group@ and
 * unmapped identifiers, the last entry first.  Section 4 walks these entries by index while the
 * helpers may split an earlier entry; the split shifts the walk by one, so
 * that an entry is skipped (a skipped user keeps no rights from everyone@ in
 * stage 2, or is not isolated in stage 5).  We take a snapshot instead,
 * which visits the same entries in the same order when nothing is split.
 */
struct identifiers {
	unsigned int count;
	struct richace *who;
};

static void free_identifiers(struct identifiers *ids)
{
	unsigned int i;

	for (i = 0; i < ids->count; i++)
		free_identifier(&ids->who[i]);
	free(ids->who);
	ids->who = NULL;
	ids->count = 0;
}

/*
 * A snapshot of the identifiers of the effective entries from position last
 * down to the first that keep() accepts (owner: the file owner's uid).
 */
static int collect_identifiers(const struct richacl *acl, int last,
			       bool (*keep)(const struct richace *ace, uint32_t owner),
			       uint32_t owner, struct identifiers *ids)
{
	const struct richace *ace;
	int n;

	ids->count = 0;
	ids->who = calloc(acl->a_count ? acl->a_count : 1, sizeof(*ids->who));
	if (!ids->who)
		return -ENOMEM;
	for (n = last; n >= 0; n--) {
		ace = &acl->a_entries[n];
		if (richace_is_inherit_only(ace) || !keep(ace, owner))
			continue;
		if (copy_identifier(&ids->who[ids->count], ace)) {
			free_identifiers(ids);
			return -ENOMEM;
		}
		ids->count++;
	}
	return 0;
}

static bool is_group_class_who(const struct richace *ace, uint32_t owner)
{
	(void)owner;	/* stages 2 and 5 do not tell the owner's uid apart */
	return !richace_is_owner(ace) && !richace_is_group(ace) && !richace_is_unmapped(ace);
}

/* the identifiers of stages 2 and 5, before the trailing entry */
static int collect_group_class(const struct richacl *acl, struct identifiers *ids)
{
	return collect_identifiers(acl, last_index(acl) - 1, is_group_class_who, 0, ids);
}

static bool is_named_who_but_owner(const struct richace *ace, uint32_t owner)
{
	if (richace_is_unix_user(ace))
		return ace->e_id != owner;
	return richace_is_unix_group(ace);
}

/*
 * The identifiers of the effective user and group entries of the acl as it
 * comes in, the last entry first, except unmapped ones (which match nobody)
 * and user entries for the owner (whom the kernel puts in the owner class
 * whatever entry matches): every process they match is in the group class.
 */
static int collect_named(const struct richacl *acl, uint32_t owner,
			 struct identifiers *ids)
{
	return collect_identifiers(acl, last_index(acl), is_named_who_but_owner, owner, ids);
}

/* Does who still have an effective entry? */
static bool has_effective_entry(const struct richacl *acl, const struct richace *who)
{
	const struct richace *ace;

	richacl_for_each_entry(ace, acl) {
		if (!richace_is_inherit_only(ace) && richace_is_same_identifier(ace, who))
			return true;
	}
	return false;
}

/* ---- stage 1: at most one effective everyone@ entry, last, an allow ---- */

static int move_everyone_aces_down(struct richacl *acl)
{
	uint32_t allowed = 0, denied = 0;
	struct richace *ace;
	int i, ret;

	for (i = 0; i < (int)acl->a_count; i++) {
		ace = entry(acl, i);
		if (richace_is_inherit_only(ace))
			continue;
		if (richace_is_everyone(ace)) {
			if (richace_is_allow(ace))
				allowed |= ace->e_mask & ~denied;
			else if (richace_is_deny(ace))
				denied |= ace->e_mask & ~allowed;
			else
				continue;
			ret = set_effective_mask(acl, &i, 0);
		} else if (richace_is_allow(ace)) {
			ret = set_effective_mask(acl, &i, allowed | (ace->e_mask & ~denied));
		} else if (richace_is_deny(ace)) {
			ret = set_effective_mask(acl, &i, denied | (ace->e_mask & ~allowed));
		} else {
			continue;
		}
		if (ret)
			return ret;
	}

	if (allowed & ~RICHACE_POSIX_ALWAYS_ALLOWED) {
		if (acl->a_count) {
			ace = entry(acl, last_index(acl));
			if (richace_is_everyone(ace) && richace_is_allow(ace) &&
			    richace_is_inherit_only(ace) && ace->e_mask == allowed) {
				ace->e_flags &= ~RICHACE_INHERIT_ONLY_ACE;
				return 0;
			}
		}
		return insert_special(acl, (int)acl->a_count, RICHACE_EVERYONE_SPECIAL_ID,
				      RICHACE_ACCESS_ALLOWED_ACE_TYPE, allowed);
	}
	return 0;
}

/* ---- stage 2: grant the owner / group class explicitly what they get from
 *      the trailing everyone@ entry and their masks allow ---- */

static int propagate_for(struct richacl *acl, const struct richace *who,
			 uint32_t allow)
{
	struct richace *ace, *trailing;
	int i, last_allow = -1;

	for (i = 0; i < (int)acl->a_count; i++) {
		ace = entry(acl, i);
		if (richace_is_inherit_only(ace))
			continue;
		if (richace_is_allow(ace) && richace_is_same_identifier(ace, who)) {
			allow &= ~ace->e_mask;
			last_allow = i;
		} else if (richace_is_deny(ace)) {
			if (richace_is_same_identifier(ace, who))
				allow &= ~ace->e_mask;
			else if (allow & ace->e_mask)
				/* cannot widen an allow past another's deny */
				last_allow = -1;
		}
	}

	trailing = entry(acl, last_index(acl));
	if (!richace_is_owner(who) && richace_is_everyone(trailing) &&
	    !(allow & ~(trailing->e_mask & acl->a_other_mask)))
		allow = 0;	/* still granted by the trailing entry */
	if (!allow)
		return 0;
	if (last_allow >= 0)
		return set_effective_mask_at(acl, last_allow,
					     entry(acl, last_allow)->e_mask | allow);
	return insert_for_who(acl, last_index(acl), who,
			      RICHACE_ACCESS_ALLOWED_ACE_TYPE, allow);
}

static int propagate_everyone(struct richacl *acl, const struct identifiers *named)
{
	const struct richace owner = {
		.e_flags = RICHACE_SPECIAL_WHO, .e_id = RICHACE_OWNER_SPECIAL_ID,
	};
	const struct richace group = {
		.e_flags = RICHACE_SPECIAL_WHO, .e_id = RICHACE_GROUP_SPECIAL_ID,
	};
	struct richace *trailing = trailing_everyone(acl);
	struct identifiers ids = { 0 };
	uint32_t owner_allow, group_allow;
	unsigned int i;
	int ret = 0;

	if (!trailing)
		return 0;
	owner_allow = trailing->e_mask & acl->a_owner_mask;
	group_allow = trailing->e_mask & acl->a_group_mask;

	if (owner_allow & ~(acl->a_group_mask & acl->a_other_mask)) {
		ret = propagate_for(acl, &owner, owner_allow);
		if (ret)
			return ret;
	}
	if (group_allow & ~acl->a_other_mask) {
		ret = propagate_for(acl, &group, group_allow);
		if (!ret)
			ret = collect_group_class(acl, &ids);
		for (i = 0; !ret && i < ids.count; i++)
			ret = propagate_for(acl, &ids.who[i], group_allow);
		free_identifiers(&ids);
		/* those whose entries stage 1 dropped */
		for (i = 0; !ret && i < named->count; i++) {
			if (!has_effective_entry(acl, &named->who[i]))
				ret = propagate_for(acl, &named->who[i], group_allow);
		}
	}
	return ret;
}

/* ---- stage 3: apply the masks to the allow entries ---- */

static int mask_entries(struct richacl *acl, uint32_t owner)
{
	struct richace *ace;
	uint32_t mask;
	int i, ret;

	for (i = 0; i < (int)acl->a_count; i++) {
		ace = entry(acl, i);
		if (richace_is_inherit_only(ace) || !richace_is_allow(ace))
			continue;
		if (richace_is_owner(ace) ||
		    (richace_is_unix_user(ace) && ace->e_id == owner))
			mask = acl->a_owner_mask;
		else if (richace_is_everyone(ace))
			mask = acl->a_other_mask;
		else
			mask = acl->a_group_mask;
		ret = set_effective_mask(acl, &i, ace->e_mask & mask);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- stage 4: write-through grants "other" exactly the other mask ---- */

static int set_other_permissions(struct richacl *acl, uint32_t *added)
{
	uint32_t other = acl->a_other_mask & ~RICHACE_POSIX_ALWAYS_ALLOWED;
	struct richace *trailing;

	*added = 0;
	if (!(acl->a_flags & RICHACL_WRITE_THROUGH) || !other)
		return 0;
	*added = other;
	trailing = trailing_everyone(acl);
	if (!trailing)
		return insert_special(acl, (int)acl->a_count, RICHACE_EVERYONE_SPECIAL_ID,
				      RICHACE_ACCESS_ALLOWED_ACE_TYPE, other);
	*added &= ~trailing->e_mask;
	return set_effective_mask_at(acl, last_index(acl), other);
}

/* ---- stage 5: deny the group class what only "other" may have ---- */

static int isolate_who(struct richacl *acl, const struct richace *who, uint32_t deny)
{
	struct richace *ace;
	int n;

	/* bits already allowed or denied to who explicitly need nothing */
	richacl_for_each_entry(ace, acl) {
		if (!richace_is_inherit_only(ace) && richace_is_same_identifier(ace, who))
			deny &= ~ace->e_mask;
	}
	if (!deny)
		return 0;

	/* extend an earlier deny for who, unless an allow for the bits intervenes */
	for (n = last_index(acl) - 1; n >= 0; n--) {
		ace = entry(acl, n);
		if (richace_is_inherit_only(ace))
			continue;
		if (richace_is_deny(ace) && richace_is_same_identifier(ace, who))
			return set_effective_mask_at(acl, n, ace->e_mask | deny);
		if (richace_is_allow(ace) && (ace->e_mask & deny))
			break;
	}
	return insert_for_who(acl, last_index(acl), who,
			      RICHACE_ACCESS_DENIED_ACE_TYPE, deny);
}

static int isolate_group_class(struct richacl *acl, uint32_t added,
			       const struct identifiers *named)
{
	const struct richace group = {
		.e_flags = RICHACE_SPECIAL_WHO, .e_id = RICHACE_GROUP_SPECIAL_ID,
	};
	struct richace *trailing = trailing_everyone(acl);
	struct identifiers ids = { 0 };
	uint32_t deny;
	unsigned int i;
	int ret;

	if (!trailing)
		return 0;
	deny = added | (trailing->e_mask & ~acl->a_group_mask);
	if (!deny)
		return 0;
	ret = isolate_who(acl, &group, deny);
	if (!ret)
		ret = collect_group_class(acl, &ids);
	for (i = 0; !ret && i < ids.count; i++)
		ret = isolate_who(acl, &ids.who[i], deny);
	free_identifiers(&ids);
	/* those whose entries stage 1 or 3 removed */
	for (i = 0; !ret && i < named->count; i++) {
		if (!has_effective_entry(acl, &named->who[i]))
			ret = isolate_who(acl, &named->who[i], deny);
	}
	return ret;
}

/* ---- stage 6: write-through grants the owner exactly the owner mask ---- */

static int set_owner_permissions(struct richacl *acl)
{
	uint32_t owner = acl->a_owner_mask & ~RICHACE_POSIX_ALWAYS_ALLOWED;
	uint32_t denied = 0;
	struct richace *ace;
	int i, ret;

	if (!(acl->a_flags & RICHACL_WRITE_THROUGH))
		return 0;

	/* inherit-only entries included (section 4.8) */
	for (i = 0; i < (int)acl->a_count; i++) {
		ace = entry(acl, i);
		if (richace_is_owner(ace)) {
			if (richace_is_allow(ace) && !(owner & denied)) {
				ret = set_effective_mask(acl, &i, owner);
				owner = 0;	/* the first usable owner@ allow takes it all */
			} else {
				ret = set_effective_mask(acl, &i, 0);
			}
			if (ret)
				return ret;
		} else if (richace_is_deny(ace)) {
			denied |= ace->e_mask;
		}
	}
	if (owner & (denied | ~acl->a_other_mask | ~acl->a_group_mask))
		return insert_special(acl, 0, RICHACE_OWNER_SPECIAL_ID,
				      RICHACE_ACCESS_ALLOWED_ACE_TYPE, owner);
	return 0;
}

/* ---- stage 7: deny the owner what the owner mask does not allow ---- */

static int isolate_owner_class(struct richacl *acl)
{
	uint32_t allowed = 0, deny;
	struct richace *ace;
	int i;

	richacl_for_each_entry_reverse(ace, acl) {
		if (richace_is_inherit_only(ace))
			continue;
		if (richace_is_allow(ace))
			allowed |= ace->e_mask;
		else if (richace_is_deny(ace) && richace_is_everyone(ace))
			allowed &= ~ace->e_mask;
	}
	deny = allowed & ~acl->a_owner_mask;
	if (!deny)
		return 0;

	for (i = 0; i < (int)acl->a_count; i++) {
		ace = entry(acl, i);
		if (richace_is_inherit_only(ace))
			continue;
		if (richace_is_allow(ace))
			break;
		if (richace_is_owner(ace))
			return set_effective_mask_at(acl, i, ace->e_mask | deny);
	}
	return insert_special(acl, 0, RICHACE_OWNER_SPECIAL_ID,
			      RICHACE_ACCESS_DENIED_ACE_TYPE, deny);
}

static int apply_masks_in_place(struct richacl *acl, uint32_t owner)
{
	struct identifiers named = { 0 };
	uint32_t added;
	int ret;

	ret = collect_named(acl, owner, &named);
	if (!ret)
		ret = move_everyone_aces_down(acl);
	if (!ret)
		ret = propagate_everyone(acl, &named);
	if (!ret)
		ret = mask_entries(acl, owner);
	if (!ret)
		ret = set_other_permissions(acl, &added);
	if (!ret)
		ret = isolate_group_class(acl, added, &named);
	free_identifiers(&named);
	if (!ret)
		ret = set_owner_permissions(acl);
	if (!ret)
		ret = isolate_owner_class(acl);
	if (!ret)
		acl->a_flags &= ~(RICHACL_MASKED | RICHACL_WRITE_THROUGH);
	return ret;
}

/*
 * Turn a masked acl into the equivalent unmasked acl for a file owned by
 * owner (M2).  The mask fields are left as they were (now without effect);
 * an acl without the masked flag is returned unchanged.  On error (-ENOMEM,
 * or -EINVAL for a NULL acl) *acl_p is untouched.
 */
int richacl_apply_masks(struct richacl **acl_p, uint32_t owner)
{
	struct richacl *acl;
	int ret;

	if (!acl_p || !*acl_p)
		return -EINVAL;
	if (!((*acl_p)->a_flags & RICHACL_MASKED))
		return 0;
	acl = richacl_clone(*acl_p);
	if (!acl)
		return -ENOMEM;
	ret = apply_masks_in_place(acl, owner);
	if (ret) {
		richacl_free(acl);
		return ret;
	}
	richacl_free(*acl_p);
	*acl_p = acl;
	return 0;
}
