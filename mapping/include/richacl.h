/*
 * richacl.h - the richacl model, its system.richacl xattr codec, its text
 * form and the richacl algorithms (masks, inheritance, permission model).
 *
 * Pure C, no global state, no Samba or kernel dependency.  Every function
 * that can fail returns 0 or a negative errno value and, where it takes a
 * struct richacl_error, fills it with a human-readable message.  A function
 * that fails leaves its outputs untouched (no partial results).
 *
 * The constants and the binary format are those of the v28 kernel series
 * (see docs/ and ../shared/reference/kernel-port.md section 2).
 */
#ifndef RICHACL_MAPPING_RICHACL_H
#define RICHACL_MAPPING_RICHACL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* acl flags (a_flags) */
#define RICHACL_AUTO_INHERIT		0x01
#define RICHACL_PROTECTED		0x02
#define RICHACL_DEFAULTED		0x04
#define RICHACL_OWNER_RIGHTS		0x20	/* the owner may change the acl
						   and mode only as its entries
						   allow (Windows OWNER RIGHTS) */
#define RICHACL_WRITE_THROUGH		0x40
#define RICHACL_MASKED			0x80
#define RICHACL_VALID_FLAGS		0xE7

/* entry types (e_type) */
#define RICHACE_ACCESS_ALLOWED_ACE_TYPE	0x0000
#define RICHACE_ACCESS_DENIED_ACE_TYPE	0x0001

/* entry flags (e_flags) */
#define RICHACE_FILE_INHERIT_ACE	0x0001
#define RICHACE_DIRECTORY_INHERIT_ACE	0x0002
#define RICHACE_NO_PROPAGATE_INHERIT_ACE 0x0004
#define RICHACE_INHERIT_ONLY_ACE	0x0008
#define RICHACE_IDENTIFIER_GROUP	0x0040
#define RICHACE_INHERITED_ACE		0x0080
#define RICHACE_UNMAPPED_WHO		0x2000
#define RICHACE_SPECIAL_WHO		0x4000
#define RICHACE_VALID_FLAGS		0x60CF
#define RICHACE_INHERITANCE_FLAGS	0x008F

/* mask bits (e_mask and the three file masks) */
#define RICHACE_READ_DATA		0x00000001
#define RICHACE_LIST_DIRECTORY		0x00000001
#define RICHACE_WRITE_DATA		0x00000002
#define RICHACE_ADD_FILE		0x00000002
#define RICHACE_APPEND_DATA		0x00000004
#define RICHACE_ADD_SUBDIRECTORY	0x00000004
#define RICHACE_READ_NAMED_ATTRS	0x00000008
#define RICHACE_WRITE_NAMED_ATTRS	0x00000010
#define RICHACE_EXECUTE			0x00000020
#define RICHACE_DELETE_CHILD		0x00000040
#define RICHACE_READ_ATTRIBUTES		0x00000080
#define RICHACE_WRITE_ATTRIBUTES	0x00000100
#define RICHACE_WRITE_RETENTION		0x00000200
#define RICHACE_WRITE_RETENTION_HOLD	0x00000400
#define RICHACE_DELETE			0x00010000
#define RICHACE_READ_ACL		0x00020000
#define RICHACE_WRITE_ACL		0x00040000
#define RICHACE_WRITE_OWNER		0x00080000
#define RICHACE_SYNCHRONIZE		0x00100000
#define RICHACE_VALID_MASK		0x001F07FF

#define RICHACE_POSIX_MODE_READ		RICHACE_READ_DATA
#define RICHACE_POSIX_MODE_WRITE	(RICHACE_WRITE_DATA | RICHACE_APPEND_DATA | \
					 RICHACE_DELETE_CHILD)
#define RICHACE_POSIX_MODE_EXEC		RICHACE_EXECUTE
#define RICHACE_POSIX_ALWAYS_ALLOWED	(RICHACE_SYNCHRONIZE | RICHACE_READ_ATTRIBUTES | \
					 RICHACE_READ_ACL)
#define RICHACE_POSIX_OWNER_ALLOWED	(RICHACE_WRITE_ATTRIBUTES | RICHACE_WRITE_OWNER | \
					 RICHACE_WRITE_ACL)

/* special identifiers (e_id with RICHACE_SPECIAL_WHO) */
#define RICHACE_OWNER_SPECIAL_ID	0
#define RICHACE_GROUP_SPECIAL_ID	1
#define RICHACE_EVERYONE_SPECIAL_ID	2

/* the xattr */
#define RICHACL_XATTR			"system.richacl"
#define RICHACL_XATTR_VERSION		0
#define RICHACL_XATTR_HEADER_SIZE	16
#define RICHACL_XATTR_ENTRY_SIZE	12
#define RICHACL_XATTR_MAX_SIZE		65536
#define RICHACL_XATTR_MAX_COUNT		((RICHACL_XATTR_MAX_SIZE - RICHACL_XATTR_HEADER_SIZE) / \
					 RICHACL_XATTR_ENTRY_SIZE)

/*
 * One entry.  The identifier is e_id (uid, gid or special id) unless
 * RICHACE_UNMAPPED_WHO is set, in which case it is the string e_who (owned
 * by the entry, freed with the acl) and e_id is meaningless (0).
 */
struct richace {
	uint16_t e_type;
	uint16_t e_flags;
	uint32_t e_mask;
	uint32_t e_id;
	char *e_who;
};

struct richacl {
	uint8_t a_flags;
	uint32_t a_owner_mask;
	uint32_t a_group_mask;
	uint32_t a_other_mask;
	unsigned int a_count;		/* entries in use */
	unsigned int a_alloc;		/* entries allocated */
	struct richace *a_entries;
};

#define richacl_for_each_entry(_ace, _acl) \
	for ((_ace) = (_acl)->a_entries; (_ace) != (_acl)->a_entries + (_acl)->a_count; (_ace)++)

#define richacl_for_each_entry_reverse(_ace, _acl) \
	for ((_ace) = (_acl)->a_entries + (_acl)->a_count - 1; \
	     (_acl)->a_count && (_ace) != (_acl)->a_entries - 1; (_ace)--)

/* error reporting: code is a negative errno, msg a one-line message */
struct richacl_error {
	int code;
	size_t column;			/* text parser: 1-based column, 0 if n/a */
	char msg[256];
};

/* ---- model (src/richacl.c) ---- */

struct richacl *richacl_alloc(unsigned int count);	/* count zeroed entries */
void richacl_free(struct richacl *acl);
struct richacl *richacl_clone(const struct richacl *acl);
/* insert a copy of *ace (e_who duplicated) before position pos (pos <= a_count) */
int richacl_insert_entry(struct richacl *acl, unsigned int pos, const struct richace *ace);
int richacl_append_entry(struct richacl *acl, const struct richace *ace);
void richacl_delete_entry(struct richacl *acl, unsigned int pos);
/* true if a and b have the same flags, masks and entries (type, flags, mask, identifier) */
bool richacl_equal(const struct richacl *a, const struct richacl *b);

bool richace_is_owner(const struct richace *ace);
bool richace_is_group(const struct richace *ace);
bool richace_is_everyone(const struct richace *ace);
bool richace_is_unmapped(const struct richace *ace);
bool richace_is_unix_user(const struct richace *ace);	/* uid entry, not unmapped */
bool richace_is_unix_group(const struct richace *ace);	/* gid entry, not unmapped */
bool richace_is_allow(const struct richace *ace);
bool richace_is_deny(const struct richace *ace);
bool richace_is_inherit_only(const struct richace *ace);
bool richace_is_inheritable(const struct richace *ace);
bool richace_is_same_identifier(const struct richace *a, const struct richace *b);
void richace_set_special(struct richace *ace, uint32_t special_id);
void richace_set_uid(struct richace *ace, uint32_t uid);
void richace_set_gid(struct richace *ace, uint32_t gid);
/* replaces e_who with a copy of who; is_group selects RICHACE_IDENTIFIER_GROUP */
int richace_set_unmapped(struct richace *ace, const char *who, bool is_group);
int richace_copy(struct richace *dst, const struct richace *src);	/* dst e_who replaced */

/* structural validity as the kernel checks it (flags, masks, types, special ids) */
int richacl_valid(const struct richacl *acl, struct richacl_error *err);

/* ---- system.richacl codec (src/xattr.c) ---- */

size_t richacl_xattr_size(const struct richacl *acl);
/* returns the size written, or -ERANGE if size is too small, -EINVAL if acl is invalid */
ssize_t richacl_to_xattr(const struct richacl *acl, void *buf, size_t size);
/* strict decode: header, sizes, string table and richacl_valid() */
int richacl_from_xattr(const void *buf, size_t size, struct richacl **acl,
		       struct richacl_error *err);

/* ---- text form (src/text.c) ---- */

/* name service supplied by the caller (the tools use getpwnam & co.) */
struct richacl_names {
	void *ctx;
	/* 0 and *id set, or -ENOENT */
	int (*user_to_id)(void *ctx, const char *name, uint32_t *id);
	int (*group_to_id)(void *ctx, const char *name, uint32_t *id);
	/* copy the name into buf (NUL-terminated) and return 0, or -ENOENT */
	int (*id_to_user)(void *ctx, uint32_t id, char *buf, size_t size);
	int (*id_to_group)(void *ctx, uint32_t id, char *buf, size_t size);
};

/* richacl_to_text format bits */
#define RICHACL_TEXT_LONG		0x01
#define RICHACL_TEXT_FILE_CONTEXT	0x02
#define RICHACL_TEXT_DIRECTORY_CONTEXT	0x04
#define RICHACL_TEXT_SHOW_MASKS		0x08
#define RICHACL_TEXT_SIMPLIFY		0x10
#define RICHACL_TEXT_ALIGN		0x20
#define RICHACL_TEXT_NUMERIC_IDS	0x40

/* richacl_from_text "seen" bits */
#define RICHACL_TEXT_OWNER_MASK		0x01
#define RICHACL_TEXT_GROUP_MASK		0x02
#define RICHACL_TEXT_OTHER_MASK		0x04
#define RICHACL_TEXT_FLAGS		0x08

/* names may be NULL: then only numeric ids are accepted/printed */
char *richacl_to_text(const struct richacl *acl, unsigned int fmt,
		      const struct richacl_names *names);
/* mask text in the given format/context (used by getrichacl --access) */
char *richacl_mask_to_text(uint32_t mask, unsigned int fmt);
int richacl_from_text(const char *text, unsigned int *seen,
		      const struct richacl_names *names, struct richacl **acl,
		      struct richacl_error *err);

/* ---- mode and mask algorithms (src/mode.c, src/masks.c) ---- */

uint32_t richacl_mode_to_mask(mode_t mode_bits);	/* low 3 bits */
mode_t richacl_mask_to_mode(uint32_t mask);
mode_t richacl_masks_to_mode(const struct richacl *acl);
struct richacl *richacl_from_mode(mode_t mode);
/* 0 and *mode updated if equivalent, -1 if not (mode untouched) */
int richacl_equiv_mode(const struct richacl *acl, mode_t *mode);
void richacl_compute_max_masks(struct richacl *acl);
void richacl_chmod(struct richacl *acl, mode_t mode);
/* masked acl -> equivalent unmasked acl for the given owner; may reallocate *acl */
int richacl_apply_masks(struct richacl **acl, uint32_t owner);

/* ---- inheritance (src/inherit.c) ---- */

/* entries a new object inherits; NULL with *acl_out untouched if nothing is inheritable */
struct richacl *richacl_inherit(const struct richacl *dir_acl, bool isdir);
/*
 * Does a new file or directory inherit an OWNER RIGHTS entry from dir_acl:
 * an owner@ entry that applied to a directory with RICHACL_OWNER_RIGHTS
 * and applies to the child?  The kernel does not give the child the flag
 * (a create's masks would leave its owner no write_acl); Samba does for
 * what it creates (docs/mapping.md, M8).
 */
bool richacl_inherits_owner_rights(const struct richacl *dir_acl, bool isdir);
/*
 * Create-time inheritance as the kernel does it: *mode is the create mode
 * (type + permission bits).  On return *mode is the new mode and *acl_out the
 * acl to store (NULL if none).  umask applies only if nothing is inherited.
 */
int richacl_inherit_inode(const struct richacl *dir_acl, mode_t *mode, mode_t umask,
			  struct richacl **acl_out);
/* replace the inherited entries of acl by those of inherited (flag set) */
struct richacl *richacl_auto_inherit(const struct richacl *acl,
				     const struct richacl *inherited);

/* ---- permission model (src/permission.c) ---- */

struct richacl_cred {
	uint32_t uid;
	uint32_t gid;			/* primary gid */
	unsigned int ngroups;
	const uint32_t *groups;		/* supplementary groups */
};

struct richacl_file {
	uint32_t owner;
	uint32_t group;
	bool isdir;
};

/*
 * The kernel's check (v28, seed 004): 0 if every bit of mask is granted,
 * -EACCES otherwise.  Unmapped entries match nobody (M9).
 */
int richacl_permission(const struct richacl *acl, const struct richacl_file *file,
		       const struct richacl_cred *cred, uint32_t mask);
/* the set of mask bits the acl grants cred (getrichacl --access) */
uint32_t richacl_access(const struct richacl *acl, const struct richacl_file *file,
			const struct richacl_cred *cred);

#ifdef __cplusplus
}
#endif

#endif
