/*
 * richacl_implicit.h - Windows' view of a file that has no stored richacl,
 * and storing a descriptor so that it reads back exactly.
 *
 * smbd checks access itself against the descriptor the VFS module returns
 * (Windows semantics: the owner implicitly gets only READ_CONTROL and
 * WRITE_DAC) before the kernel checks again.  So the descriptor of a file
 * with a stored richacl shows exactly its entries: no rights the kernel
 * grants outside the entries (the owner's write_attributes, write_acl and
 * write_owner; everybody's read_attributes, read_acl and synchronize) are
 * added.  smbd is then at most stricter than the kernel, as Windows is.
 *
 * A file without a stored richacl (M1) is described by its mode, whose
 * rwx classes mean more than the bare data bits to a Windows client: the
 * kernel lets everybody read attributes and the acl, and checks user.*
 * xattrs (SMB EAs) like the data.  richacl_from_mode_nt() shows each allowed
 * class the way Samba's POSIX mapping does: r as FILE_GENERIC_READ, w as
 * FILE_GENERIC_WRITE, x as FILE_GENERIC_EXECUTE, and the owner@ entry also
 * shows the rights the kernel always grants the owner (RICHACL_MODE_SHOWN_OWNER).
 *
 * The kernel stores an acl that is equivalent to a mode as that mode alone
 * (M12), and reading gives richacl_from_mode_nt() of it.  richacl_to_store()
 * picks what to store so that reading gives back exactly the entries that
 * were set (M13).
 */
#ifndef RICHACL_MAPPING_IMPLICIT_H
#define RICHACL_MAPPING_IMPLICIT_H

#include "richacl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* what every allowed class of a mode-only file shows */
#define RICHACL_MODE_SHOWN_ALWAYS	RICHACE_POSIX_ALWAYS_ALLOWED
/* shown next to read_data (FILE_GENERIC_READ) */
#define RICHACL_MODE_SHOWN_READ		RICHACE_READ_NAMED_ATTRS
/* shown next to write_data (FILE_GENERIC_WRITE) */
#define RICHACL_MODE_SHOWN_WRITE	(RICHACE_WRITE_NAMED_ATTRS | RICHACE_WRITE_ATTRIBUTES)
/*
 * shown in the owner@ allow entry: what the kernel lets the owner do
 * whatever the mode (set times and attributes, chmod, chgrp); on a file
 * whose owner may write, also delete_child, which means nothing on a
 * non-directory, so that the owner sees FILE_ALL_ACCESS as with Samba's
 * POSIX mapping.  DELETE is not shown: the kernel decides it on the parent
 * directory (delete_child there), and smbd asks the parent too.
 */
#define RICHACL_MODE_SHOWN_OWNER	RICHACE_POSIX_OWNER_ALLOWED

/*
 * The acl shown for a file that has only the mode (M1): richacl_from_mode()
 * with RICHACL_MODE_SHOWN_* added to its allow entries (deny entries get the
 * named-attribute bit of the data bit they deny).  NULL if out of memory.
 */
struct richacl *richacl_from_mode_nt(mode_t mode);

/*
 * The acl to store for acl (M12/M13), on a file of type mode (the
 * permission bits do not matter):
 *  - if acl without the RICHACL_MODE_SHOWN_* bits is equivalent to a mode
 *    whose richacl_from_mode_nt() has exactly the entries of acl, that
 *    stripped acl (the kernel then keeps only the mode);
 *  - else a copy of acl.  If that copy is equivalent to a mode, the kernel
 *    keeps only the mode, and reading gives that mode's DACL, which grants
 *    the same.  Since the mapping writes the owner's and the group's SIDs
 *    as user / group entries (M8), and an acl with owner@ from OWNER
 *    RIGHTS has the flag owner_rights, only acls of everyone@ entries can
 *    get there.
 * The result has the maximum masks.  *out is set to a new acl; returns 0,
 * or -ENOMEM.
 */
int richacl_to_store(const struct richacl *acl, mode_t mode, struct richacl **out);

/*
 * The mode to store for acl on a file system that keeps only the mode (no
 * richacl support).  A mode follows the owner and the owning group, so
 * there the entries that name the file's current owner (user:owner) and
 * owning group (group:group) are taken as owner@ and group@: they grant
 * the same processes now, and nothing else can be stored.  As
 * richacl_to_store(), an acl that is exactly what a mode shows
 * (richacl_from_mode_nt()) gives that mode.  *mode holds the file type (and
 * the bits richacl_equiv_mode() keeps) on entry, the mode on success.
 * Returns 0, -1 if acl is equivalent to no mode (*mode unchanged), or
 * -ENOMEM.
 */
int richacl_store_as_mode(const struct richacl *acl, uint32_t owner, uint32_t group,
			  mode_t *mode);

#ifdef __cplusplus
}
#endif

#endif
