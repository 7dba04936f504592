/*
 * richacl_implicit.h - the rights the Linux kernel grants whatever a
 * richacl's entries say, shown in and taken out of a Windows DACL.
 *
 * A richacl kernel (the v28 model, kernel-port.md; algorithms.md 6.2)
 * grants some rights outside the acl entries:
 *   - everybody may read a file's attributes and acl, and synchronize
 *     (RICHACE_POSIX_ALWAYS_ALLOWED: READ_ATTRIBUTES, READ_ACL, SYNCHRONIZE);
 *   - the owner may set times, change the acl and the owner
 *     (RICHACE_POSIX_OWNER_ALLOWED: WRITE_ATTRIBUTES, WRITE_ACL, WRITE_OWNER);
 *   - named attributes (user.* xattrs) are checked like file data: reading
 *     them needs READ_DATA, writing them WRITE_DATA; the READ_NAMED_ATTRS
 *     and WRITE_NAMED_ATTRS bits of an entry are stored but never checked.
 *
 * Samba checks access itself against the descriptor the VFS module returns
 * (Windows semantics: no implicit rights except READ_CONTROL and WRITE_DAC
 * for the owner) before the kernel checks again.  Without these rights in
 * the descriptor smbd refuses what the kernel allows, e.g. every Windows
 * GENERIC_READ open (FILE_GENERIC_READ = READ_DATA | READ_EA |
 * READ_ATTRIBUTES | READ_CONTROL | SYNCHRONIZE) of a file whose acl only
 * grants READ_DATA, which is every file without a stored acl (M1).
 *
 * Only effective (not inherit-only) allow ACEs are changed: a deny ACE or
 * a missing ACE makes smbd stricter than the kernel, never more lenient.
 */
#ifndef RICHACL_MAPPING_IMPLICIT_H
#define RICHACL_MAPPING_IMPLICIT_H

#include "richacl_ntsd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* what every effective allow ACE gets */
#define NT_IMPLICIT_EVERYONE	RICHACE_POSIX_ALWAYS_ALLOWED
/* what an effective allow ACE for the owner's SID gets in addition */
#define NT_IMPLICIT_OWNER	RICHACE_POSIX_OWNER_ALLOWED

/*
 * Descriptor read from a richacl: add the implicit rights to the effective
 * allow ACEs of dacl (READ_EA where READ_DATA is allowed, WRITE_EA where
 * WRITE_DATA is allowed, NT_IMPLICIT_EVERYONE to all, NT_IMPLICIT_OWNER to
 * those whose trustee is owner).  dacl and owner may be NULL.
 */
void nt_acl_show_implicit_rights(struct nt_acl *dacl, const struct nt_sid *owner);

/*
 * Descriptor about to become a richacl: remove from the effective allow
 * ACEs the named-attribute bits that nt_acl_show_implicit_rights() derives
 * from the data bits (READ_EA next to READ_DATA, WRITE_EA next to
 * WRITE_DATA), after mapping generic rights.  The kernel ignores them, and they would make an acl that is
 * equivalent to a file mode (and stored as that mode, M12) non-equivalent.
 * The other implicit rights stay: the kernel's mode-equivalence test
 * ignores them.  Reading the result back with nt_acl_show_implicit_rights()
 * gives the same masks again.  dacl may be NULL.
 */
void nt_acl_drop_implied_rights(struct nt_acl *dacl);

#ifdef __cplusplus
}
#endif

#endif
