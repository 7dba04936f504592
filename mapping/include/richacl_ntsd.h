/*
 * richacl_ntsd.h - a small Windows security descriptor type and the mapping
 * between security descriptors and richacls (rules M1-M13 of SEMANTICS.md).
 *
 * No Samba types: the Samba module converts struct security_descriptor to
 * and from struct nt_sd.  SID <-> uid/gid resolution is supplied by the
 * caller as a struct richacl_resolver.
 */
#ifndef RICHACL_MAPPING_NTSD_H
#define RICHACL_MAPPING_NTSD_H

#include "richacl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NT_SID_MAX_SUB_AUTHS		15
#define NT_SID_STRING_MAX		190	/* "S-1-" + 15 * ("-" + 10 digits) + margin */

struct nt_sid {
	uint8_t revision;		/* 1 */
	uint8_t num_auths;		/* 0..15 */
	uint8_t id_auth[6];		/* big endian 48-bit authority */
	uint32_t sub_auths[NT_SID_MAX_SUB_AUTHS];
};

/* ACE types */
#define NT_ACE_ACCESS_ALLOWED		0x00
#define NT_ACE_ACCESS_DENIED		0x01
#define NT_ACE_SYSTEM_AUDIT		0x02
#define NT_ACE_SYSTEM_ALARM		0x03
#define NT_ACE_ACCESS_ALLOWED_OBJECT	0x05
#define NT_ACE_ACCESS_DENIED_OBJECT	0x06

/* ACE flags */
#define NT_ACE_OBJECT_INHERIT		0x01
#define NT_ACE_CONTAINER_INHERIT	0x02
#define NT_ACE_NO_PROPAGATE_INHERIT	0x04
#define NT_ACE_INHERIT_ONLY		0x08
#define NT_ACE_INHERITED		0x10
#define NT_ACE_SUCCESSFUL_ACCESS	0x40
#define NT_ACE_FAILED_ACCESS		0x80

/* access mask: generic bits and the file generic mapping */
#define NT_GENERIC_READ			0x80000000
#define NT_GENERIC_WRITE		0x40000000
#define NT_GENERIC_EXECUTE		0x20000000
#define NT_GENERIC_ALL			0x10000000
#define NT_MAXIMUM_ALLOWED		0x02000000
#define NT_ACCESS_SYSTEM_SECURITY	0x01000000

/* control flags (sd type) */
#define NT_SD_OWNER_DEFAULTED		0x0001
#define NT_SD_GROUP_DEFAULTED		0x0002
#define NT_SD_DACL_PRESENT		0x0004
#define NT_SD_DACL_DEFAULTED		0x0008
#define NT_SD_SACL_PRESENT		0x0010
#define NT_SD_SACL_DEFAULTED		0x0020
#define NT_SD_DACL_AUTO_INHERIT_REQ	0x0100
#define NT_SD_SACL_AUTO_INHERIT_REQ	0x0200
#define NT_SD_DACL_AUTO_INHERITED	0x0400
#define NT_SD_SACL_AUTO_INHERITED	0x0800
#define NT_SD_DACL_PROTECTED		0x1000
#define NT_SD_SACL_PROTECTED		0x2000
#define NT_SD_SELF_RELATIVE		0x8000

#define NT_ACL_REVISION			2
#define NT_ACL_REVISION_DS		4
/* Windows accepts revisions 2 to 4 (MIN_ACL_REVISION .. MAX_ACL_REVISION);
 * Samba's smbcacls sends 3, which has the ACE types of revision 2 */
#define NT_ACL_REVISION_MIN		2
#define NT_ACL_REVISION_MAX		4

struct nt_ace {
	uint8_t type;
	uint8_t flags;
	uint32_t mask;
	struct nt_sid trustee;
};

struct nt_acl {
	uint16_t revision;
	unsigned int num_aces;
	struct nt_ace *aces;
};

struct nt_sd {
	uint8_t revision;		/* 1 */
	uint16_t control;
	bool has_owner, has_group;
	struct nt_sid owner;
	struct nt_sid group;
	struct nt_acl *dacl;		/* NULL: no DACL (with DACL_PRESENT: NULL DACL) */
	struct nt_acl *sacl;
};

/* well-known SIDs */
extern const struct nt_sid nt_sid_world;		/* S-1-1-0 */
extern const struct nt_sid nt_sid_creator_owner;	/* S-1-3-0 */
extern const struct nt_sid nt_sid_creator_group;	/* S-1-3-1 */
extern const struct nt_sid nt_sid_owner_rights;	/* S-1-3-4 */
extern const struct nt_sid nt_sid_nobody;		/* S-1-0-0, the NULL SID */

/* ---- SIDs (src/sid.c) ---- */
bool nt_sid_equal(const struct nt_sid *a, const struct nt_sid *b);
/* "S-1-5-21-..." into buf (at least NT_SID_STRING_MAX); returns buf */
char *nt_sid_to_string(const struct nt_sid *sid, char *buf, size_t size);
int nt_sid_from_string(const char *str, struct nt_sid *sid);	/* 0 or -EINVAL */

/* ---- descriptors (src/ntsd.c) ---- */
struct nt_sd *nt_sd_alloc(void);
void nt_sd_free(struct nt_sd *sd);
struct nt_acl *nt_acl_alloc(unsigned int num_aces);
void nt_acl_free(struct nt_acl *acl);
/* self-relative binary form ([MS-DTYP] 2.4.6), strict */
int nt_sd_decode(const void *buf, size_t size, struct nt_sd **sd, struct richacl_error *err);
/* returns the size written or needed (buf may be NULL), or negative errno */
ssize_t nt_sd_encode(const struct nt_sd *sd, void *buf, size_t size);

/* ---- the resolver supplied by the caller ---- */
enum richacl_id_type {
	RICHACL_ID_UID,
	RICHACL_ID_GID,
	RICHACL_ID_BOTH,		/* Samba's ID_TYPE_BOTH: one id usable as uid and gid */
};

struct richacl_resolver {
	void *ctx;
	/*
	 * 0 with *type and *id set, -ENOENT if the SID maps to no id.  Deny
	 * ACEs for such SIDs are always refused (they would deny nobody);
	 * allow ACEs become unmapped entries, or are refused as well when
	 * refuse_unmapped is set.  richacl_from_nt_sd() then fails with
	 * -ENOENT and says which ACE and SID.
	 */
	int (*sid_to_id)(void *ctx, const struct nt_sid *sid, enum richacl_id_type *type,
			 uint32_t *id);
	/* 0 with *sid set, -ENOENT if no SID is known */
	int (*uid_to_sid)(void *ctx, uint32_t uid, struct nt_sid *sid);
	int (*gid_to_sid)(void *ctx, uint32_t gid, struct nt_sid *sid);
	/* see sid_to_id */
	bool refuse_unmapped;
};

/* ---- the mapping (src/map.c) ---- */

/*
 * File facts the mapping needs.  An acl with RICHACL_OWNER_RIGHTS was set
 * from a DACL with an OWNER RIGHTS ACE, whose entries became owner@ (M8):
 * its owner@ entries read back as OWNER RIGHTS ACEs, except inherit-only
 * ones that are inheritable, which read back as CREATOR OWNER.  Otherwise
 * an owner@ entry reads back as the owner's SID (M4).
 */
struct richacl_map_file {
	uint32_t owner;
	uint32_t group;
	bool isdir;
};

/*
 * richacl -> descriptor (M1-M6).  acl may be NULL: then the acl equivalent
 * to mode is used (M1).  security_info selects owner (0x1), group (0x2),
 * dacl (0x4) as in SECINFO_*; the sacl (0x8) is never returned (M6).
 */
#define NT_SECINFO_OWNER	0x1
#define NT_SECINFO_GROUP	0x2
#define NT_SECINFO_DACL		0x4
#define NT_SECINFO_SACL		0x8
int richacl_to_nt_sd(const struct richacl *acl, mode_t mode,
		     const struct richacl_map_file *file, uint32_t security_info,
		     const struct richacl_resolver *res, struct nt_sd **sd,
		     struct richacl_error *err);

/*
 * descriptor DACL -> richacl (M7-M12).  file gives the owner/group the acl
 * will have (after any ownership change in the same request).  Validates
 * everything before producing anything (M7); on error *acl is untouched and
 * err says which ACE and why.  The result carries the maximum masks (M12).
 */
int richacl_from_nt_sd(const struct nt_sd *sd, const struct richacl_map_file *file,
		       const struct richacl_resolver *res, struct richacl **acl,
		       struct richacl_error *err);

/*
 * Whether acl is exactly what richacl_from_nt_sd() stores for a NULL DACL
 * (M10): a single everyone@ entry allowing FILE_ALL_ACCESS (on a
 * non-directory delete_child may be missing, see M5), without inheritance
 * flags, and file masks (if any) that take nothing away from it.  Such an
 * acl grants everybody what a NULL DACL grants.  Whether a NULL DACL or an
 * explicit "Everyone: Full Control" entry was set cannot be told from the
 * acl; the caller keeps track of that.
 */
bool richacl_is_null_dacl(const struct richacl *acl, bool isdir);

/* generic rights -> specific rights with the file generic mapping (M10) */
uint32_t nt_map_generic_file(uint32_t mask);

#ifdef __cplusplus
}
#endif

#endif
