/*
 * map.c - Windows security descriptor <-> richacl (SEMANTICS.md M1-M13).
 *
 * Reading (richacl_to_nt_sd): the stored acl, or the acl equivalent to the
 * mode (M1), is turned into an unmasked acl (M2) and each entry into one
 * ACE, or two for an inheritable owner@ / group@ entry (M4).  Flags and
 * masks keep their numbers (M5); no SACL is ever produced (M6).
 *
 * Writing (richacl_from_nt_sd): the whole DACL is validated first (M7,
 * M10), then each ACE becomes one entry (M8, M9); inheritance flags are
 * dropped on non-directories (M11); the result carries the maximum masks
 * (M12).
 *
 * Decisions beyond SEMANTICS.md are documented in docs/mapping.md; the
 * short form is in the comments of the functions that implement them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "richacl_ntsd.h"

#define NT_FILE_GENERIC_READ	0x00120089
#define NT_FILE_GENERIC_WRITE	0x00120116
#define NT_FILE_GENERIC_EXECUTE	0x001200A0
#define NT_FILE_ALL_ACCESS	0x001F01FF

#define NT_ACE_VALID_FLAGS	(NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT | \
				 NT_ACE_NO_PROPAGATE_INHERIT | NT_ACE_INHERIT_ONLY | \
				 NT_ACE_INHERITED)

/* Samba's "Unix Users" / "Unix Groups" domains: S-1-22-1-<uid>, S-1-22-2-<gid> */
#define UNIX_SID_AUTHORITY	22
#define UNIX_SID_USERS		1
#define UNIX_SID_GROUPS		2
/* MS-NFS (macOS clients): S-1-5-88-1-<uid>, S-1-5-88-2-<gid>, S-1-5-88-3-<mode> */
#define MS_NFS_AUTHORITY	5
#define MS_NFS_RID		88
#define MS_NFS_USERS		1
#define MS_NFS_GROUPS		2

struct map_ctx {
	const struct richacl_map_file *file;
	const struct richacl_resolver *res;
	struct richacl_error *err;
	struct nt_sid owner_sid;
	struct nt_sid group_sid;
	bool owner_rights;	/* reading an acl with RICHACL_OWNER_RIGHTS */
};

static int map_error(struct richacl_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int map_error(struct richacl_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		err->column = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

uint32_t nt_map_generic_file(uint32_t mask)
{
	uint32_t out = mask & ~(NT_GENERIC_READ | NT_GENERIC_WRITE |
				NT_GENERIC_EXECUTE | NT_GENERIC_ALL);

	if (mask & NT_GENERIC_READ)
		out |= NT_FILE_GENERIC_READ;
	if (mask & NT_GENERIC_WRITE)
		out |= NT_FILE_GENERIC_WRITE;
	if (mask & NT_GENERIC_EXECUTE)
		out |= NT_FILE_GENERIC_EXECUTE;
	if (mask & NT_GENERIC_ALL)
		out |= NT_FILE_ALL_ACCESS;
	return out;
}

/* ---- SID <-> id through the resolver, with the Unix SID fallback ---- */

static void unix_sid(struct nt_sid *sid, uint32_t domain, uint32_t id)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 2;
	sid->id_auth[5] = UNIX_SID_AUTHORITY;
	sid->sub_auths[0] = domain;
	sid->sub_auths[1] = id;
}

static bool sid_is_valid(const struct nt_sid *sid)
{
	return sid->revision == 1 && sid->num_auths <= NT_SID_MAX_SUB_AUTHS;
}

/*
 * uid/gid -> SID.  The resolver decides; if it knows no SID (-ENOENT) the
 * Unix SID S-1-22-1-<uid> / S-1-22-2-<gid> is used, as Samba's idmap does.
 * Any other resolver error is returned.
 */
static int id_to_sid(const struct richacl_resolver *res, bool is_group, uint32_t id,
		     struct nt_sid *sid)
{
	int (*fn)(void *, uint32_t, struct nt_sid *) = NULL;
	int ret = -ENOENT;

	if (res)
		fn = is_group ? res->gid_to_sid : res->uid_to_sid;
	if (fn) {
		ret = fn(res->ctx, id, sid);
		if (ret == 0 && !sid_is_valid(sid))
			return -EINVAL;
	}
	if (ret == -ENOENT) {
		unix_sid(sid, is_group ? UNIX_SID_GROUPS : UNIX_SID_USERS, id);
		ret = 0;
	}
	return ret;
}

static bool sid_authority_is(const struct nt_sid *sid, uint8_t authority)
{
	return !sid->id_auth[0] && !sid->id_auth[1] && !sid->id_auth[2] &&
	       !sid->id_auth[3] && !sid->id_auth[4] && sid->id_auth[5] == authority;
}

/*
 * An MS-NFS user or group SID, as macOS clients send them: S-1-5-88-1-<uid>
 * names the uid and S-1-5-88-2-<gid> the gid, exactly like Samba's Unix
 * SIDs.  (S-1-5-88-3-<mode> carries the mode, not an identity.)
 */
static bool ms_nfs_sid_to_id(const struct nt_sid *sid, enum richacl_id_type *type,
			     uint32_t *id)
{
	if (sid->num_auths != 3 || !sid_authority_is(sid, MS_NFS_AUTHORITY) ||
	    sid->sub_auths[0] != MS_NFS_RID ||
	    (sid->sub_auths[1] != MS_NFS_USERS && sid->sub_auths[1] != MS_NFS_GROUPS))
		return false;
	*type = sid->sub_auths[1] == MS_NFS_USERS ? RICHACL_ID_UID : RICHACL_ID_GID;
	*id = sid->sub_auths[2];
	return true;
}

/*
 * SID -> uid/gid.  The resolver decides; if it does not know the SID, a
 * Unix SID (the fallback of id_to_sid) or an MS-NFS user/group SID still
 * maps to its id.  Returns -ENOENT if the SID maps to nothing.
 */
static int sid_to_id(const struct richacl_resolver *res, const struct nt_sid *sid,
		     enum richacl_id_type *type, uint32_t *id)
{
	int ret = -ENOENT;

	if (res && res->sid_to_id)
		ret = res->sid_to_id(res->ctx, sid, type, id);
	if (ret != -ENOENT)
		return ret;
	if (sid->num_auths == 2 && sid->sub_auths[0] >= UNIX_SID_USERS &&
	    sid->sub_auths[0] <= UNIX_SID_GROUPS && sid_authority_is(sid, UNIX_SID_AUTHORITY)) {
		*type = sid->sub_auths[0] == UNIX_SID_USERS ? RICHACL_ID_UID : RICHACL_ID_GID;
		*id = sid->sub_auths[1];
		return 0;
	}
	if (ms_nfs_sid_to_id(sid, type, id))
		return 0;
	return -ENOENT;
}

static int lookup_file_sids(struct map_ctx *ctx, bool need_owner, bool need_group)
{
	int ret;

	if (need_owner) {
		ret = id_to_sid(ctx->res, false, ctx->file->owner, &ctx->owner_sid);
		if (ret)
			return map_error(ctx->err, ret,
					 "cannot map the file owner uid %u to a SID (error %d)",
					 ctx->file->owner, ret);
	}
	if (need_group) {
		ret = id_to_sid(ctx->res, true, ctx->file->group, &ctx->group_sid);
		if (ret)
			return map_error(ctx->err, ret,
					 "cannot map the file group gid %u to a SID (error %d)",
					 ctx->file->group, ret);
	}
	return 0;
}

/* ---- reading: richacl -> descriptor ---- */

static uint8_t richace_flags_to_nt(uint16_t flags)
{
	uint8_t nt = 0;

	if (flags & RICHACE_FILE_INHERIT_ACE)
		nt |= NT_ACE_OBJECT_INHERIT;
	if (flags & RICHACE_DIRECTORY_INHERIT_ACE)
		nt |= NT_ACE_CONTAINER_INHERIT;
	if (flags & RICHACE_NO_PROPAGATE_INHERIT_ACE)
		nt |= NT_ACE_NO_PROPAGATE_INHERIT;
	if (flags & RICHACE_INHERIT_ONLY_ACE)
		nt |= NT_ACE_INHERIT_ONLY;
	if (flags & RICHACE_INHERITED_ACE)
		nt |= NT_ACE_INHERITED;
	return nt;
}

static uint16_t richacl_flags_to_control(uint8_t flags)
{
	uint16_t control = 0;

	if (flags & RICHACL_AUTO_INHERIT)
		control |= NT_SD_DACL_AUTO_INHERITED;
	if (flags & RICHACL_PROTECTED)
		control |= NT_SD_DACL_PROTECTED;
	if (flags & RICHACL_DEFAULTED)
		control |= NT_SD_DACL_DEFAULTED;
	return control;
}

static void emit_ace(struct nt_acl *dacl, const struct richace *e, uint8_t flags,
		     const struct nt_sid *sid)
{
	struct nt_ace *ace = &dacl->aces[dacl->num_aces++];

	ace->type = e->e_type == RICHACE_ACCESS_DENIED_ACE_TYPE ?
		    NT_ACE_ACCESS_DENIED : NT_ACE_ACCESS_ALLOWED;
	ace->flags = flags;
	ace->mask = e->e_mask;
	ace->trustee = *sid;
}

/* an inheritable inherit-only owner@ / group@ entry: CREATOR OWNER / GROUP */
static bool shown_as_creator(uint8_t flags)
{
	return (flags & (NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT)) &&
	       (flags & NT_ACE_INHERIT_ONLY);
}

/*
 * Whether acl, read with RICHACL_OWNER_RIGHTS, shows an OWNER RIGHTS ACE
 * that applies to the object: an owner@ entry that is not inherit-only.
 */
static bool shows_owner_rights(const struct richacl *acl)
{
	const struct richace *e;

	richacl_for_each_entry(e, acl) {
		if (richace_is_owner(e) && !richace_is_inherit_only(e))
			return true;
	}
	return false;
}

/*
 * owner@ / group@ (M4): the effective part names the owner / group SID,
 * the inheritable part CREATOR OWNER / CREATOR GROUP (inherit-only).  An
 * entry without file/dir-inherit names the SID even when it is
 * inherit-only (it is then inert, and maps back to the same entry).
 */
static void emit_owner_or_group(struct nt_acl *dacl, const struct richace *e, uint8_t flags,
				const struct nt_sid *sid, const struct nt_sid *creator)
{
	const uint8_t inherit = NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT;
	const uint8_t inheritance = inherit | NT_ACE_NO_PROPAGATE_INHERIT | NT_ACE_INHERIT_ONLY;

	if (!(flags & inherit)) {
		emit_ace(dacl, e, flags, sid);
		return;
	}
	if (!(flags & NT_ACE_INHERIT_ONLY))
		emit_ace(dacl, e, flags & ~inheritance, sid);
	emit_ace(dacl, e, flags | NT_ACE_INHERIT_ONLY, creator);
}

/*
 * M5: delete_child means nothing on a non-directory, and create-time
 * inheritance drops it there (richacl_inherit()), while Windows keeps it: a
 * file that inherits Full Control shows FILE_ALL_ACCESS on Windows.  So an
 * allow entry of a non-directory that grants every other right of
 * FILE_ALL_ACCESS shows delete_child too.
 */
static uint32_t shown_mask(const struct richace *e, bool isdir)
{
	const uint32_t all_but_dc = NT_FILE_ALL_ACCESS & ~RICHACE_DELETE_CHILD;

	if (!isdir && richace_is_allow(e) && (e->e_mask & all_but_dc) == all_but_dc)
		return e->e_mask | RICHACE_DELETE_CHILD;
	return e->e_mask;
}

static int richace_to_nt(struct map_ctx *ctx, struct nt_acl *dacl, const struct richace *entry,
			 unsigned int i)
{
	struct richace shown = *entry;
	const struct richace *e = &shown;
	uint16_t flags = e->e_flags;
	struct nt_sid sid;
	int ret;

	if (e->e_type != RICHACE_ACCESS_ALLOWED_ACE_TYPE &&
	    e->e_type != RICHACE_ACCESS_DENIED_ACE_TYPE)
		return map_error(ctx->err, -EINVAL, "entry %u: type %u is neither allow nor deny",
				 i, e->e_type);
	if (e->e_mask & ~RICHACE_VALID_MASK)
		return map_error(ctx->err, -EINVAL, "entry %u: invalid mask bits 0x%x", i,
				 e->e_mask & ~RICHACE_VALID_MASK);
	/* M11: on files an inherit-only entry does nothing; the rest lose f/d/n */
	if (!ctx->file->isdir) {
		if (flags & RICHACE_INHERIT_ONLY_ACE)
			return 0;
		flags &= ~(RICHACE_FILE_INHERIT_ACE | RICHACE_DIRECTORY_INHERIT_ACE |
			   RICHACE_NO_PROPAGATE_INHERIT_ACE);
	}
	shown.e_mask = shown_mask(entry, ctx->file->isdir);

	if (richace_is_owner(e)) {
		uint8_t ntflags = richace_flags_to_nt(flags);

		if (ctx->owner_rights && !shown_as_creator(ntflags))
			emit_ace(dacl, e, ntflags, &nt_sid_owner_rights);
		else
			emit_owner_or_group(dacl, e, ntflags, &ctx->owner_sid,
					    &nt_sid_creator_owner);
		return 0;
	}
	if (richace_is_group(e)) {
		emit_owner_or_group(dacl, e, richace_flags_to_nt(flags), &ctx->group_sid,
				    &nt_sid_creator_group);
		return 0;
	}
	if (richace_is_everyone(e)) {
		emit_ace(dacl, e, richace_flags_to_nt(flags), &nt_sid_world);
		return 0;
	}
	if (e->e_flags & RICHACE_SPECIAL_WHO)
		return map_error(ctx->err, -EINVAL, "entry %u: unknown special identifier %u",
				 i, e->e_id);
	if (e->e_flags & RICHACE_UNMAPPED_WHO) {
		/*
		 * An unmapped identifier that is not a SID (an NFSv4
		 * principal set locally) matches nobody, as S-1-0-0 does:
		 * show it as that SID rather than fail the whole file.
		 */
		if (!e->e_who || nt_sid_from_string(e->e_who, &sid) != 0)
			sid = nt_sid_nobody;
	} else {
		bool is_group = e->e_flags & RICHACE_IDENTIFIER_GROUP;

		ret = id_to_sid(ctx->res, is_group, e->e_id, &sid);
		if (ret)
			return map_error(ctx->err, ret,
					 "entry %u: cannot map %s %u to a SID (error %d)", i,
					 is_group ? "gid" : "uid", e->e_id, ret);
	}
	emit_ace(dacl, e, richace_flags_to_nt(flags), &sid);
	return 0;
}

static int richacl_to_dacl(struct map_ctx *ctx, const struct richacl *acl,
			   struct nt_acl **out)
{
	struct nt_acl *dacl;
	unsigned int i;
	int ret;

	/* at most two ACEs per entry (M4 split), and one OWNER RIGHTS ACE */
	dacl = nt_acl_alloc(2 * acl->a_count + 1);
	if (!dacl)
		return map_error(ctx->err, -ENOMEM, "out of memory");
	dacl->num_aces = 0;
	for (i = 0; i < acl->a_count; i++) {
		ret = richace_to_nt(ctx, dacl, &acl->a_entries[i], i);
		if (ret) {
			nt_acl_free(dacl);
			return ret;
		}
	}
	/*
	 * An acl with RICHACL_OWNER_RIGHTS but no owner@ entry that reads
	 * back as OWNER RIGHTS (a local setrichacl can write one): the kernel
	 * gives the owner nothing implicitly, so the DACL gets an OWNER
	 * RIGHTS ACE that grants nothing, which takes the owner's implicit
	 * READ_CONTROL and WRITE_DAC away in smbd's check as well
	 * ([MS-DTYP] 2.5.3.2).  It goes before the inherited ACEs, where an
	 * explicit ACE belongs in a canonical DACL.
	 */
	if (ctx->owner_rights && !shows_owner_rights(acl)) {
		unsigned int at = 0;

		while (at < dacl->num_aces && !(dacl->aces[at].flags & NT_ACE_INHERITED))
			at++;
		memmove(&dacl->aces[at + 1], &dacl->aces[at],
			(dacl->num_aces - at) * sizeof(dacl->aces[0]));
		dacl->num_aces++;
		memset(&dacl->aces[at], 0, sizeof(dacl->aces[at]));
		dacl->aces[at].type = NT_ACE_ACCESS_ALLOWED;
		dacl->aces[at].trustee = nt_sid_owner_rights;
	}
	*out = dacl;
	return 0;
}

/* M1 + M2: the acl whose entries show exactly what the kernel grants */
static int effective_acl(const struct richacl *acl, mode_t mode,
			 const struct richacl_map_file *file, struct richacl **out,
			 struct richacl_error *err)
{
	struct richacl *work;
	int ret;

	if (!acl) {
		mode = (mode & ~(mode_t)S_IFMT) | (file->isdir ? S_IFDIR : S_IFREG);
		work = richacl_from_mode(mode);
	} else {
		ret = richacl_valid(acl, err);
		if (ret)
			return ret;
		work = richacl_clone(acl);
	}
	if (!work)
		return map_error(err, -ENOMEM, "out of memory");
	if (work->a_flags & RICHACL_MASKED) {
		ret = richacl_apply_masks(&work, file->owner);
		if (ret) {
			richacl_free(work);
			return map_error(err, ret, "cannot apply the file masks (error %d)", ret);
		}
	}
	*out = work;
	return 0;
}

int richacl_to_nt_sd(const struct richacl *acl, mode_t mode,
		     const struct richacl_map_file *file, uint32_t security_info,
		     const struct richacl_resolver *res, struct nt_sd **sd,
		     struct richacl_error *err)
{
	struct map_ctx ctx = { .file = file, .res = res, .err = err };
	bool want_dacl = security_info & NT_SECINFO_DACL;
	struct richacl *work = NULL;
	struct nt_sd *out;
	int ret;

	if (!file || !sd)
		return map_error(err, -EINVAL, "no file or no descriptor pointer");
	ret = lookup_file_sids(&ctx, want_dacl || (security_info & NT_SECINFO_OWNER),
			       want_dacl || (security_info & NT_SECINFO_GROUP));
	if (ret)
		return ret;

	out = nt_sd_alloc();
	if (!out)
		return map_error(err, -ENOMEM, "out of memory");
	if (security_info & NT_SECINFO_OWNER) {
		out->has_owner = true;
		out->owner = ctx.owner_sid;
	}
	if (security_info & NT_SECINFO_GROUP) {
		out->has_group = true;
		out->group = ctx.group_sid;
	}
	if (want_dacl) {
		ret = effective_acl(acl, mode, file, &work, err);
		if (!ret) {
			ctx.owner_rights = work->a_flags & RICHACL_OWNER_RIGHTS;
			ret = richacl_to_dacl(&ctx, work, &out->dacl);
		}
		if (ret) {
			richacl_free(work);
			nt_sd_free(out);
			return ret;
		}
		out->control |= NT_SD_DACL_PRESENT | richacl_flags_to_control(work->a_flags);
		richacl_free(work);
	}
	/* M6: never a SACL, even when NT_SECINFO_SACL is asked for */
	*sd = out;
	return 0;
}

/* ---- writing: descriptor -> richacl ---- */

static const char *nt_ace_type_name(uint8_t type)
{
	static const char *const names[] = {
		"access-allowed", "access-denied", "system-audit", "system-alarm",
		"access-allowed-compound", "access-allowed-object", "access-denied-object",
		"system-audit-object", "system-alarm-object", "access-allowed-callback",
		"access-denied-callback", "access-allowed-callback-object",
		"access-denied-callback-object", "system-audit-callback",
		"system-alarm-callback", "system-audit-callback-object",
		"system-alarm-callback-object", "system-mandatory-label",
		"system-resource-attribute", "system-scoped-policy-id",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

/* M7 / M10: everything that can be wrong with one ACE, before any mapping */
static int validate_ace(const struct nt_ace *ace, unsigned int i, struct richacl_error *err)
{
	uint32_t mask;

	if (ace->type != NT_ACE_ACCESS_ALLOWED && ace->type != NT_ACE_ACCESS_DENIED)
		return map_error(err, -EINVAL,
				 "ACE %u: type 0x%02x (%s) is not supported, only access-allowed and access-denied ACEs can be stored",
				 i, ace->type, nt_ace_type_name(ace->type));
	if (ace->flags & ~NT_ACE_VALID_FLAGS)
		return map_error(err, -EINVAL,
				 "ACE %u: flags 0x%02x not supported (audit flags 0x40/0x80 and unknown flags cannot be stored)",
				 i, ace->flags & ~NT_ACE_VALID_FLAGS);
	if (!sid_is_valid(&ace->trustee))
		return map_error(err, -EINVAL, "ACE %u: invalid trustee SID (revision %u, %u sub-authorities)",
				 i, ace->trustee.revision, ace->trustee.num_auths);
	mask = nt_map_generic_file(ace->mask);
	if (mask & ~RICHACE_VALID_MASK)
		return map_error(err, -EINVAL,
				 "ACE %u: access mask 0x%08x has bits 0x%08x that a richacl cannot hold (ACCESS_SYSTEM_SECURITY, MAXIMUM_ALLOWED or reserved)",
				 i, ace->mask, mask & ~RICHACE_VALID_MASK);
	return 0;
}

static int validate_dacl(const struct nt_acl *dacl, struct richacl_error *err)
{
	unsigned int i;
	int ret;

	if (dacl->revision < NT_ACL_REVISION_MIN || dacl->revision > NT_ACL_REVISION_MAX)
		return map_error(err, -EINVAL, "DACL revision %u is not supported (2 to 4)",
				 dacl->revision);
	if (dacl->num_aces > RICHACL_XATTR_MAX_COUNT)
		return map_error(err, -EINVAL, "DACL has %u ACEs, at most %u can be stored",
				 dacl->num_aces, (unsigned int)RICHACL_XATTR_MAX_COUNT);
	if (dacl->num_aces && !dacl->aces)
		return map_error(err, -EINVAL, "DACL has %u ACEs but no ACE array",
				 dacl->num_aces);
	for (i = 0; i < dacl->num_aces; i++) {
		ret = validate_ace(&dacl->aces[i], i, err);
		if (ret)
			return ret;
	}
	return 0;
}

static uint16_t nt_flags_to_richace(uint8_t nt)
{
	uint16_t flags = 0;

	if (nt & NT_ACE_OBJECT_INHERIT)
		flags |= RICHACE_FILE_INHERIT_ACE;
	if (nt & NT_ACE_CONTAINER_INHERIT)
		flags |= RICHACE_DIRECTORY_INHERIT_ACE;
	if (nt & NT_ACE_NO_PROPAGATE_INHERIT)
		flags |= RICHACE_NO_PROPAGATE_INHERIT_ACE;
	if (nt & NT_ACE_INHERIT_ONLY)
		flags |= RICHACE_INHERIT_ONLY_ACE;
	if (nt & NT_ACE_INHERITED)
		flags |= RICHACE_INHERITED_ACE;
	return flags;
}

static uint8_t control_to_richacl_flags(uint16_t control)
{
	uint8_t flags = 0;

	if (control & NT_SD_DACL_AUTO_INHERITED)
		flags |= RICHACL_AUTO_INHERIT;
	if (control & NT_SD_DACL_PROTECTED)
		flags |= RICHACL_PROTECTED;
	if (control & NT_SD_DACL_DEFAULTED)
		flags |= RICHACL_DEFAULTED;
	return flags;
}

static int set_unmapped_sid(struct richace *e, const struct nt_sid *sid, bool is_group,
			    struct richacl_error *err)
{
	char buf[NT_SID_STRING_MAX];

	if (richace_set_unmapped(e, nt_sid_to_string(sid, buf, sizeof(buf)), is_group))
		return map_error(err, -ENOMEM, "out of memory");
	return 0;
}

/*
 * The identifier of one entry (M8, M9).  CREATOR OWNER / CREATOR GROUP
 * become owner@ / group@ inherit-only when the ACE is inheritable; without
 * file/dir-inherit such an ACE matches nobody and is never inherited, as on
 * Windows, and is kept as an unmapped entry naming the creator SID.  OWNER
 * RIGHTS is the entry that follows the owner: owner@.  Every other SID is
 * its user:uid / group:gid entry, also the SID of the file's current owner
 * or owning group: an ACE names its SID for good, so an ACE for alice keeps
 * granting alice, and only alice, after bob takes ownership.
 */
static int map_trustee(struct map_ctx *ctx, const struct nt_ace *ace, unsigned int i,
		       struct richace *e)
{
	bool inheritable = e->e_flags & (RICHACE_FILE_INHERIT_ACE |
					 RICHACE_DIRECTORY_INHERIT_ACE);
	enum richacl_id_type type;
	char buf[NT_SID_STRING_MAX];
	uint32_t id;
	int ret;

	if (nt_sid_equal(&ace->trustee, &nt_sid_world)) {
		richace_set_special(e, RICHACE_EVERYONE_SPECIAL_ID);
		return 0;
	}
	if (nt_sid_equal(&ace->trustee, &nt_sid_creator_owner) ||
	    nt_sid_equal(&ace->trustee, &nt_sid_creator_group)) {
		bool owner = nt_sid_equal(&ace->trustee, &nt_sid_creator_owner);

		if (!inheritable)
			return set_unmapped_sid(e, &ace->trustee, !owner, ctx->err);
		richace_set_special(e, owner ? RICHACE_OWNER_SPECIAL_ID :
					       RICHACE_GROUP_SPECIAL_ID);
		e->e_flags |= RICHACE_INHERIT_ONLY_ACE;
		return 0;
	}
	/*
	 * OWNER RIGHTS applies to whoever owns the object, in smbd's check
	 * as in the kernel's for owner@; a gid an idmap backend gives the SID
	 * (winbindd does) is held by no process and is not looked up.  That
	 * it takes the owner's implicit rights away is the acl flag
	 * RICHACL_OWNER_RIGHTS (dacl_has_owner_rights()).
	 */
	if (nt_sid_equal(&ace->trustee, &nt_sid_owner_rights)) {
		richace_set_special(e, RICHACE_OWNER_SPECIAL_ID);
		return 0;
	}
	if (nt_sid_equal(&ace->trustee, &nt_sid_nobody))	/* matches nobody anywhere */
		return set_unmapped_sid(e, &ace->trustee, false, ctx->err);
	ret = sid_to_id(ctx->res, &ace->trustee, &type, &id);
	/*
	 * A deny entry for a SID without an id would deny nobody in the
	 * kernel, while smbd's own check honours it.  One that denies no
	 * bits (the MS-NFS mode ACE S-1-5-88-3-<mode> has mask 0) is inert
	 * on Windows as well.
	 */
	if (ret == -ENOENT && e->e_type == RICHACE_ACCESS_DENIED_ACE_TYPE && e->e_mask)
		return map_error(ctx->err, -ENOENT,
				 "ACE %u: deny entry for SID %s, which maps to no unix id: "
				 "the kernel would deny nobody", i,
				 nt_sid_to_string(&ace->trustee, buf, sizeof(buf)));
	if (ret == -ENOENT && ctx->res && ctx->res->refuse_unmapped)
		return map_error(ctx->err, -ENOENT,
				 "ACE %u: SID %s maps to no unix id (unmapped SIDs are refused)",
				 i, nt_sid_to_string(&ace->trustee, buf, sizeof(buf)));
	if (ret == -ENOENT)
		return set_unmapped_sid(e, &ace->trustee, false, ctx->err);
	if (ret)
		return map_error(ctx->err, ret, "ACE %u: cannot resolve SID %s (error %d)", i,
				 nt_sid_to_string(&ace->trustee, buf, sizeof(buf)), ret);
	switch (type) {
	case RICHACL_ID_UID:
		richace_set_uid(e, id);
		break;
	case RICHACL_ID_GID:
	case RICHACL_ID_BOTH:	/* a group entry: the id is in its owner's token as a gid */
		richace_set_gid(e, id);
		break;
	default:
		return map_error(ctx->err, -EINVAL, "ACE %u: resolver returned id type %d for SID %s",
				 i, (int)type, nt_sid_to_string(&ace->trustee, buf, sizeof(buf)));
	}
	return 0;
}

static int nt_ace_to_richace(struct map_ctx *ctx, struct richacl *acl, const struct nt_ace *ace,
			     unsigned int i)
{
	struct richace e = { 0 };
	int ret;

	e.e_type = ace->type == NT_ACE_ACCESS_DENIED ? RICHACE_ACCESS_DENIED_ACE_TYPE :
						       RICHACE_ACCESS_ALLOWED_ACE_TYPE;
	e.e_mask = nt_map_generic_file(ace->mask);
	e.e_flags = nt_flags_to_richace(ace->flags);
	/* M11: an inherit-only ACE does nothing on a file; the others lose OI/CI/NP */
	if (!ctx->file->isdir) {
		if (e.e_flags & RICHACE_INHERIT_ONLY_ACE)
			return 0;
		e.e_flags &= ~(RICHACE_FILE_INHERIT_ACE | RICHACE_DIRECTORY_INHERIT_ACE |
			       RICHACE_NO_PROPAGATE_INHERIT_ACE);
	}
	ret = map_trustee(ctx, ace, i, &e);
	if (!ret) {
		ret = richacl_append_entry(acl, &e);
		if (ret)
			ret = map_error(ctx->err, ret, "out of memory");
	}
	free(e.e_who);
	return ret;
}

/* M10: a NULL DACL grants everybody everything */
static int null_dacl_acl(struct richacl *acl, struct richacl_error *err)
{
	struct richace e = { 0 };

	e.e_type = RICHACE_ACCESS_ALLOWED_ACE_TYPE;
	e.e_mask = NT_FILE_ALL_ACCESS;
	richace_set_special(&e, RICHACE_EVERYONE_SPECIAL_ID);
	if (richacl_append_entry(acl, &e))
		return map_error(err, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Whether the DACL has an OWNER RIGHTS ACE that applies to the object (one
 * that is not inherit-only): then the owner has no implicit READ_CONTROL
 * and WRITE_DAC ([MS-DTYP] 2.5.3.2), and the acl gets RICHACL_OWNER_RIGHTS,
 * with which the kernel, too, lets the owner change the acl and the mode
 * only as the entries allow (M8).
 */
static bool dacl_has_owner_rights(const struct nt_acl *dacl)
{
	uint32_t i;

	for (i = 0; i < dacl->num_aces; i++) {
		if (!(dacl->aces[i].flags & NT_ACE_INHERIT_ONLY) &&
		    nt_sid_equal(&dacl->aces[i].trustee, &nt_sid_owner_rights))
			return true;
	}
	return false;
}

bool richacl_is_null_dacl(const struct richacl *acl, bool isdir)
{
	const uint32_t all_but_dc = NT_FILE_ALL_ACCESS & ~RICHACE_DELETE_CHILD;
	const struct richace *e;

	if (!acl || acl->a_count != 1)
		return false;
	e = &acl->a_entries[0];
	if (!richace_is_allow(e) || !richace_is_everyone(e) ||
	    (e->e_flags & ~RICHACE_SPECIAL_WHO))
		return false;
	if (e->e_mask != NT_FILE_ALL_ACCESS && (isdir || e->e_mask != all_but_dc))
		return false;
	if (!(acl->a_flags & RICHACL_MASKED))
		return true;
	return (acl->a_owner_mask & e->e_mask) == e->e_mask &&
	       (acl->a_group_mask & e->e_mask) == e->e_mask &&
	       (acl->a_other_mask & e->e_mask) == e->e_mask;
}

int richacl_from_nt_sd(const struct nt_sd *sd, const struct richacl_map_file *file,
		       const struct richacl_resolver *res, struct richacl **acl,
		       struct richacl_error *err)
{
	struct map_ctx ctx = { .file = file, .res = res, .err = err };
	struct richacl *out;
	unsigned int i;
	int ret;

	if (!sd || !file || !acl)
		return map_error(err, -EINVAL, "no descriptor, file or acl pointer");
	/*
	 * Without DACL_PRESENT a descriptor has a NULL DACL ([MS-DTYP] 2.4.6);
	 * a DACL pointer without the flag is a contradiction, not a NULL DACL.
	 */
	if (sd->dacl && !(sd->control & NT_SD_DACL_PRESENT))
		return map_error(err, -EINVAL, "descriptor has a DACL but control 0x%04x lacks DACL_PRESENT",
				 sd->control);
	if (sd->dacl) {
		ret = validate_dacl(sd->dacl, err);
		if (ret)
			return ret;
	}
	out = richacl_alloc(0);
	if (!out)
		return map_error(err, -ENOMEM, "out of memory");
	out->a_flags = control_to_richacl_flags(sd->control);
	if (sd->dacl && dacl_has_owner_rights(sd->dacl))
		out->a_flags |= RICHACL_OWNER_RIGHTS;
	if (!sd->dacl) {
		ret = null_dacl_acl(out, err);
	} else {
		for (i = 0, ret = 0; i < sd->dacl->num_aces && !ret; i++)
			ret = nt_ace_to_richace(&ctx, out, &sd->dacl->aces[i], i);
	}
	if (!ret)
		ret = richacl_valid(out, err);
	if (ret) {
		richacl_free(out);
		return ret;
	}
	richacl_compute_max_masks(out);	/* M12 */
	*acl = out;
	return 0;
}
