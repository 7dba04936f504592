/*
 * inherit.c - create-time and automatic inheritance (reference/algorithms.md
 * section 5), with the kernel's semantics where kernel and userspace differ
 * (section 10 item 8: nothing inheritable means "no acl" and the umask
 * applies).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "richacl.h"

#define INHERIT_FLAGS_ALL \
	(RICHACE_FILE_INHERIT_ACE | RICHACE_DIRECTORY_INHERIT_ACE | \
	 RICHACE_NO_PROPAGATE_INHERIT_ACE | RICHACE_INHERIT_ONLY_ACE | \
	 RICHACE_INHERITED_ACE)

/* does a new file (isdir false) or directory inherit this parent entry? */
static bool inherited_by(const struct richace *ace, bool isdir)
{
	if (!isdir)
		return ace->e_flags & RICHACE_FILE_INHERIT_ACE;
	return (ace->e_flags & RICHACE_DIRECTORY_INHERIT_ACE) ||
	       ((ace->e_flags & RICHACE_FILE_INHERIT_ACE) &&
		!(ace->e_flags & RICHACE_NO_PROPAGATE_INHERIT_ACE));
}

/* the flags of the child's copy of a parent entry (before 'inherited') */
static uint16_t child_flags(uint16_t flags, bool isdir)
{
	if (!isdir || (flags & RICHACE_NO_PROPAGATE_INHERIT_ACE))
		return flags & ~INHERIT_FLAGS_ALL;
	if (flags & RICHACE_DIRECTORY_INHERIT_ACE)
		return flags & ~RICHACE_INHERIT_ONLY_ACE;	/* effective, inheritable */
	return flags | RICHACE_INHERIT_ONLY_ACE;		/* passes on to files only */
}

/*
 * The entries a new object inherits from its directory's acl.  *acl_p is
 * NULL if nothing is inheritable (the kernel then stores no acl).  Returns 0
 * or -ENOMEM.
 */
static int inherit_entries(const struct richacl *dir_acl, bool isdir,
			   struct richacl **acl_p)
{
	bool auto_inherit = dir_acl->a_flags & RICHACL_AUTO_INHERIT;
	const struct richace *dir_ace;
	struct richacl *acl = NULL;

	*acl_p = NULL;
	richacl_for_each_entry(dir_ace, dir_acl) {
		struct richace ace = *dir_ace;	/* e_who duplicated on insert */

		if (!inherited_by(dir_ace, isdir))
			continue;
		ace.e_flags = child_flags(ace.e_flags, isdir) & ~RICHACE_INHERITED_ACE;
		if (auto_inherit)
			ace.e_flags |= RICHACE_INHERITED_ACE;
		if (!isdir)
			ace.e_mask &= ~RICHACE_DELETE_CHILD;

		if (!acl) {
			acl = richacl_alloc(0);
			if (!acl)
				return -ENOMEM;
			acl->a_flags = auto_inherit ? RICHACL_AUTO_INHERIT : 0;
		}
		if (richacl_append_entry(acl, &ace)) {
			richacl_free(acl);
			return -ENOMEM;
		}
	}
	*acl_p = acl;
	return 0;
}

/*
 * The acl a new file or directory inherits (masks 0, callers compute them).
 * NULL if nothing is inheritable (errno 0) or on allocation failure (errno
 * ENOMEM).
 */
struct richacl *richacl_inherit(const struct richacl *dir_acl, bool isdir)
{
	struct richacl *acl;
	int ret;

	if (!dir_acl) {
		errno = EINVAL;
		return NULL;
	}
	ret = inherit_entries(dir_acl, isdir, &acl);
	errno = ret ? -ret : 0;
	return acl;
}

bool richacl_inherits_owner_rights(const struct richacl *dir_acl, bool isdir)
{
	const struct richace *ace;

	if (!dir_acl || !(dir_acl->a_flags & RICHACL_OWNER_RIGHTS))
		return false;
	richacl_for_each_entry(ace, dir_acl) {
		/* an inherit-only owner@ entry is CREATOR OWNER's */
		if (!richace_is_owner(ace) || richace_is_inherit_only(ace) ||
		    !inherited_by(ace, isdir))
			continue;
		if (!(child_flags(ace->e_flags, isdir) & RICHACE_INHERIT_ONLY_ACE))
			return true;
	}
	return false;
}

/*
 * The create mode limits every class's mask of an inherited acl to what its
 * permission bits stand for (v28, richacl_inherit_inode()): a program that
 * creates a file with mode 0600 gets a file that nobody else can read or
 * change, whatever the directory's inheritable entries say.  Rights that a
 * mode cannot express (DELETE, WRITE_ACL, WRITE_OWNER, ...) are cleared from
 * all three masks too; otherwise an inherited write_acl would let somebody
 * chmod a private file open again (K-SEC-4).  smbd gives files it creates
 * their inherited rights in full by storing the inherited acl again with
 * maximum masks (vfs_richacl, S-I3).
 */
static uint32_t limit_by_create_mode(uint32_t mask, mode_t bits)
{
	return mask & richacl_mode_to_mask(bits);
}

/*
 * Create-time inheritance as the kernel does it.  dir_acl NULL means the
 * directory has no acl.  If nothing is inherited the umask applies and no
 * acl is stored.  A mode-equivalent inherited acl becomes permission bits
 * (the create mode limits them; the umask does not apply).  Otherwise the
 * acl is masked by the create mode like a chmod would (write_through stays
 * clear), and *mode gets the permission bits the filesystem derives from
 * the masks (the ext4 store rule), keeping the file type and the
 * setuid/setgid/sticky bits of the create mode.
 */
int richacl_inherit_inode(const struct richacl *dir_acl, mode_t *mode, mode_t umask,
			  struct richacl **acl_out)
{
	const mode_t perm_bits = S_IRWXU | S_IRWXG | S_IRWXO;
	struct richacl *acl = NULL;
	mode_t new_mode, equiv;
	int ret;

	if (!mode || !acl_out)
		return -EINVAL;
	new_mode = *mode;

	if (dir_acl) {
		ret = inherit_entries(dir_acl, S_ISDIR(new_mode), &acl);
		if (ret)
			return ret;
	}
	if (!acl) {
		new_mode &= ~(umask & perm_bits);
		goto out;
	}
	equiv = new_mode;
	if (richacl_equiv_mode(acl, &equiv) == 0) {
		new_mode &= equiv;
		richacl_free(acl);
		acl = NULL;
		goto out;
	}
	/* creation acts like a chmod */
	if (acl->a_flags & RICHACL_AUTO_INHERIT)
		acl->a_flags |= RICHACL_PROTECTED;
	richacl_compute_max_masks(acl);
	acl->a_flags |= RICHACL_MASKED;
	acl->a_owner_mask = limit_by_create_mode(acl->a_owner_mask, new_mode >> 6);
	acl->a_group_mask = limit_by_create_mode(acl->a_group_mask, new_mode >> 3);
	acl->a_other_mask = limit_by_create_mode(acl->a_other_mask, new_mode);
	new_mode = (new_mode & ~perm_bits) | richacl_masks_to_mode(acl);
out:
	*mode = new_mode;
	*acl_out = acl;
	return 0;
}

/*
 * Automatic inheritance: a copy of acl (flags and masks as they are) with
 * its inherited entries replaced by the entries of inherited, each marked
 * inherited.  inherited may be NULL (nothing inheritable).  NULL on
 * allocation failure.
 */
struct richacl *richacl_auto_inherit(const struct richacl *acl,
				     const struct richacl *inherited)
{
	const struct richace *ace;
	struct richacl *result;
	unsigned int i;

	if (!acl) {
		errno = EINVAL;
		return NULL;
	}
	result = richacl_clone(acl);
	if (!result)
		return NULL;
	for (i = result->a_count; i > 0; i--) {
		if (result->a_entries[i - 1].e_flags & RICHACE_INHERITED_ACE)
			richacl_delete_entry(result, i - 1);
	}
	if (inherited) {
		richacl_for_each_entry(ace, inherited) {
			struct richace copy = *ace;	/* e_who duplicated on insert */

			copy.e_flags |= RICHACE_INHERITED_ACE;
			if (richacl_append_entry(result, &copy)) {
				richacl_free(result);
				return NULL;
			}
		}
	}
	return result;
}
