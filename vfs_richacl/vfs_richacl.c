/*
 * vfs_richacl: Windows security descriptors stored as Linux richacls
 *
 * The module keeps NT ACLs in the system.richacl extended attribute of a
 * filesystem whose kernel enforces richacls, so that the kernel checks the
 * same ACL as smbd, for SMB clients and local users alike.
 *
 * This file is glue: it converts Samba's security descriptors to and from
 * the mapping library's struct nt_sd (mapping/include/richacl_ntsd.h),
 * resolves SIDs through Samba's idmap, does the xattr I/O through the next
 * VFS module and maps errors to NTSTATUS.  The mapping rules (M1-M13) live
 * in the library; see docs/vfs_richacl.8 for the behaviour and options.
 *
 * Copyright (C) 2026 the richacl project
 *
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 3 of the License, or
 * (at your option) any later version.
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, see <http://www.gnu.org/licenses/>.
 */

#include "includes.h"
#include "system/filesys.h"
#include "smbd/smbd.h"
#include "librpc/gen_ndr/idmap.h"
#include "librpc/gen_ndr/auth.h"
#include "librpc/gen_ndr/ndr_security.h"
#include "../libcli/security/security.h"
#include "passdb/lookup_sid.h"
#include "lib/winbind_util.h"
#include "lib/util_unixsids.h"

#include "richacl.h"
#include "richacl_ntsd.h"
#include "richacl_implicit.h"

#undef DBGC_CLASS
#define DBGC_CLASS DBGC_ACLS

/* What to do when smbd changes the mode of a file that has a richacl. */
enum richacl_chmod_mode {
	RICHACL_CHMOD_IGNORE,	/* keep the acl; apply only setuid/setgid/sticky */
	RICHACL_CHMOD_APPLY,	/* let the kernel apply the mode to the masks */
};

static const struct enum_list richacl_chmod_modes[] = {
	{ RICHACL_CHMOD_IGNORE, "ignore" },
	{ RICHACL_CHMOD_APPLY, "apply" },
	{ -1, NULL },
};

/* What to do with a SID that is known to map to no unix id. */
enum richacl_unmapped_mode {
	RICHACL_UNMAPPED_KEEP,		/* store an entry that matches nobody */
	RICHACL_UNMAPPED_REFUSE,	/* refuse the descriptor */
};

static const struct enum_list richacl_unmapped_modes[] = {
	{ RICHACL_UNMAPPED_KEEP, "keep" },
	{ RICHACL_UNMAPPED_REFUSE, "refuse" },
	{ -1, NULL },
};

/*
 * The SIDs of the uids and gids this connection has shown (see
 * richacl_cached_id_to_sid()).
 */
#define RICHACL_SID_CACHE_SIZE 64

struct richacl_sid_cache_entry {
	bool used;
	bool is_group;
	uint32_t id;
	time_t expires;			/* time_mono() */
	struct nt_sid sid;
};

struct richacl_config {
	enum richacl_chmod_mode chmod_mode;
	enum richacl_unmapped_mode unmapped_sids;
	bool fix_create_masks;
	/*
	 * winbindd answered when the share was connected: a SID without an
	 * id may then mean an identity-mapping outage, not "no mapping".
	 */
	bool winbind_expected;
	bool warned_unsupported;
	/*
	 * Whether a NULL DACL set over SMB is shown as one on files and on
	 * directories (see "NULL DACL marker"); richacl_null_dacl_config().
	 */
	bool null_dacl_files;
	bool null_dacl_dirs;
	/* richacl_fsetxattr() refused smbd's root-acting DOS attribute write */
	bool dos_write_refused;
	/*
	 * The directory richacl_mkdirat() just made, whose inherited acl the
	 * next openat (smbd's open of it in mkdir_internal()) stores in full.
	 */
	bool new_dir_pending;
	dev_t new_dir_dev;
	ino_t new_dir_ino;
	/*
	 * Ids of ID_TYPE_BOTH whose SID's type could not be looked up, met
	 * while mapping the descriptor being set (talloc'ed on the config,
	 * reset by richacl_from_sd()).
	 */
	uint32_t *both_unknown;
	size_t num_both_unknown;
	struct richacl_sid_cache_entry sid_cache[RICHACL_SID_CACHE_SIZE];
	size_t sid_cache_next;		/* the slot to reuse next */
	/*
	 * The ids of the SIDs of the descriptor being set, asked in one
	 * sids_to_unixids() call (richacl_prefetch_ids(); NULL otherwise).
	 */
	struct dom_sid *prefetch_sids;
	struct unixid *prefetch_ids;
	size_t num_prefetched;
	/*
	 * The security descriptor of the create in progress
	 * (richacl_create_file()): smbd's set_sd() passes the same pointer to
	 * SMB_VFS_FSET_NT_ACL once it has made the file.
	 */
	const struct security_descriptor *create_sd;
};

/*
 * Per-fsp state of a handle that created its file or directory.
 *
 * chmod_marker: the file was created by this open with the entries
 * inherited from its parent, with create_mode as the open's mode.  The one
 * chmod smbd issues right after the create (open_file_ntcreate(): back to
 * that mode, to apply "create mask", unless "store dos attributes" made the
 * mode already match) must not cut them.  The first chmod on the handle
 * ends the marker, and only a chmod to create_mode is taken for that one.
 *
 * created: this handle created the object (dev, ino), owned by the
 * connected user; see "The creator's handle" below.
 */
struct richacl_fsp_ext {
	bool chmod_marker;
	mode_t create_mode;
	bool created;
	dev_t dev;
	ino_t ino;
	/*
	 * The new file inherited OWNER RIGHTS: the flag is set when the
	 * creator's handle closes, if the acl is still the one stored at the
	 * create (hash of its value), see richacl_close().
	 */
	bool owner_rights_pending;
	uint64_t created_acl_hash;
};

#define RICHACL_PERM_BITS (S_IRWXU | S_IRWXG | S_IRWXO)
#define RICHACL_SPECIAL_BITS (S_ISUID | S_ISGID | S_ISVTX)

static bool richacl_errno_unsupported(int err)
{
	return err == ENOTSUP || err == EOPNOTSUPP;
}

/* ---- library objects owned by a talloc context ---- */

struct richacl_owner {
	struct richacl *acl;
};

static int richacl_owner_destructor(struct richacl_owner *o)
{
	richacl_free(o->acl);
	return 0;
}

/* Hand acl (malloc'ed by the library) to mem_ctx; frees acl on failure. */
static bool richacl_talloc_own(TALLOC_CTX *mem_ctx, struct richacl *acl)
{
	struct richacl_owner *o = talloc(mem_ctx, struct richacl_owner);

	if (o == NULL) {
		richacl_free(acl);
		return false;
	}
	o->acl = acl;
	talloc_set_destructor(o, richacl_owner_destructor);
	return true;
}

struct nt_sd_owner {
	struct nt_sd *sd;
};

static int nt_sd_owner_destructor(struct nt_sd_owner *o)
{
	nt_sd_free(o->sd);
	return 0;
}

static bool nt_sd_talloc_own(TALLOC_CTX *mem_ctx, struct nt_sd *sd)
{
	struct nt_sd_owner *o = talloc(mem_ctx, struct nt_sd_owner);

	if (o == NULL) {
		nt_sd_free(sd);
		return false;
	}
	o->sd = sd;
	talloc_set_destructor(o, nt_sd_owner_destructor);
	return true;
}

/* ---- SIDs and the resolver ---- */

static void richacl_nt_sid_to_dom_sid(const struct nt_sid *in,
				      struct dom_sid *out)
{
	uint8_t i;

	*out = (struct dom_sid) {
		.sid_rev_num = in->revision,
		.num_auths = in->num_auths,
	};
	memcpy(out->id_auth, in->id_auth, sizeof(out->id_auth));
	for (i = 0; i < in->num_auths && i < ARRAY_SIZE(out->sub_auths); i++) {
		out->sub_auths[i] = in->sub_auths[i];
	}
}

static bool richacl_dom_sid_to_nt_sid(const struct dom_sid *in,
				      struct nt_sid *out)
{
	int8_t i;

	if (in->num_auths < 0 || in->num_auths > NT_SID_MAX_SUB_AUTHS) {
		return false;
	}
	*out = (struct nt_sid) {
		.revision = in->sid_rev_num,
		.num_auths = in->num_auths,
	};
	memcpy(out->id_auth, in->id_auth, sizeof(out->id_auth));
	for (i = 0; i < in->num_auths; i++) {
		out->sub_auths[i] = in->sub_auths[i];
	}
	return true;
}

/*
 * An id of ID_TYPE_BOTH (idmap_rid, idmap_autorid, an AD DC) is a uid and a
 * gid at once.  smbd's process holds it both ways for the SID's owner, but a
 * local login of that user (nss_winbind) holds it only as its uid, and the
 * members of a group with such an id hold it only as a gid.  So the SID's
 * type decides: an account that logs in (a user or a computer) becomes a
 * user entry, a group or alias a group entry.  Any other answer (no
 * lookup, a deleted or unknown account) also gives a group entry (the id
 * then matches the SID's owner over SMB, and every holder of the gid), and
 * is remembered: a deny for it is refused (richacl_denies_both_unknown()).
 */
static int richacl_both_id_type(struct richacl_config *config,
				const struct dom_sid *sid, uint32_t id,
				enum richacl_id_type *type)
{
	TALLOC_CTX *frame = talloc_stackframe();
	enum lsa_SidType sid_type = SID_NAME_UNKNOWN;
	struct dom_sid_buf buf;
	uint32_t *ids = NULL;
	bool ok;

	become_root();
	ok = lookup_sid(frame, sid, NULL, NULL, &sid_type);
	unbecome_root();
	TALLOC_FREE(frame);
	switch (ok ? sid_type : SID_NAME_UNKNOWN) {
	case SID_NAME_USER:
	case SID_NAME_COMPUTER:
		*type = RICHACL_ID_UID;
		return 0;
	case SID_NAME_DOM_GRP:
	case SID_NAME_ALIAS:
	case SID_NAME_WKN_GRP:
		*type = RICHACL_ID_BOTH;
		return 0;
	default:
		break;
	}
	DBG_NOTICE("SID %s maps to uid and gid %" PRIu32 " and its type (%s) "
		   "is not a user's or a group's: an allow entry for it becomes "
		   "a group entry\n", dom_sid_str_buf(sid, &buf), id,
		   ok ? sid_type_lookup(sid_type) : "lookup failed");
	/*
	 * Remembered, so that richacl_from_sd() refuses a deny for it: as
	 * a group entry it would not bind a local login of a user.
	 */
	if (config != NULL) {
		ids = talloc_realloc(config, config->both_unknown, uint32_t,
				     config->num_both_unknown + 1);
		if (ids == NULL) {
			return -ENOMEM;
		}
		ids[config->num_both_unknown++] = id;
		config->both_unknown = ids;
	}
	*type = RICHACL_ID_BOTH;
	return 0;
}

/* The id richacl_prefetch_ids() found for sid, if it asked for it. */
static bool richacl_prefetched_id(const struct richacl_config *config,
				  const struct dom_sid *sid,
				  struct unixid *id)
{
	size_t i;

	for (i = 0; config != NULL && i < config->num_prefetched; i++) {
		if (dom_sid_equal(&config->prefetch_sids[i], sid)) {
			*id = config->prefetch_ids[i];
			return true;
		}
	}
	return false;
}

/*
 * Ask idmap for the ids of every distinct trustee of psd's DACL at once:
 * one sids_to_unixids() call, which asks winbindd or passdb for all the
 * SIDs its cache does not know together, instead of one call per ACE.  The
 * SIDs the mapping resolves itself (Everyone, CREATOR OWNER and GROUP,
 * OWNER RIGHTS, the NULL SID) are left out.  If the call fails, nothing is
 * prefetched and each SID is asked alone.  The arrays live on mem_ctx;
 * richacl_from_sd() forgets them when it is done.
 */
static void richacl_prefetch_ids(TALLOC_CTX *mem_ctx,
				 struct richacl_config *config,
				 const struct security_descriptor *psd)
{
	const struct security_acl *dacl = psd->dacl;
	struct dom_sid *sids = NULL;
	struct unixid *ids = NULL;
	size_t num = 0;
	uint32_t i;
	size_t j;

	config->num_prefetched = 0;
	if (dacl == NULL || dacl->num_aces == 0) {
		return;
	}
	sids = talloc_array(mem_ctx, struct dom_sid, dacl->num_aces);
	ids = talloc_array(mem_ctx, struct unixid, dacl->num_aces);
	if (sids == NULL || ids == NULL) {
		return;
	}
	for (i = 0; i < dacl->num_aces; i++) {
		const struct dom_sid *t = &dacl->aces[i].trustee;

		if (dom_sid_equal(t, &global_sid_World) ||
		    dom_sid_equal(t, &global_sid_Creator_Owner) ||
		    dom_sid_equal(t, &global_sid_Creator_Group) ||
		    dom_sid_equal(t, &global_sid_Owner_Rights) ||
		    dom_sid_equal(t, &global_sid_NULL)) {
			continue;
		}
		for (j = 0; j < num && !dom_sid_equal(&sids[j], t); j++) {
			;
		}
		if (j == num) {
			sids[num++] = *t;
		}
	}
	if (num == 0 || !sids_to_unixids(sids, num, ids)) {
		return;
	}
	config->prefetch_sids = sids;
	config->prefetch_ids = ids;
	config->num_prefetched = num;
}

/*
 * SID -> id through Samba's idmap (ctx: the share's struct richacl_config).
 * sids_to_unixids() answers ID_TYPE_NOT_SPECIFIED both for a SID that has
 * no mapping and for one it could not ask winbindd about.  If winbindd
 * answered at connect time and does not answer now, the SID is refused
 * (-EAGAIN): storing it as an entry that matches nobody would turn a
 * domain deny into one that denies nothing, for good.
 */
static int richacl_resolve_sid(void *ctx, const struct nt_sid *sid,
			       enum richacl_id_type *type, uint32_t *id)
{
	struct richacl_config *config = ctx;
	struct dom_sid dsid;
	struct dom_sid_buf buf;
	struct unixid uxid = { .type = ID_TYPE_NOT_SPECIFIED };
	int ret;

	richacl_nt_sid_to_dom_sid(sid, &dsid);
	if (!richacl_prefetched_id(config, &dsid, &uxid) &&
	    !sids_to_unixids(&dsid, 1, &uxid)) {
		return -EIO;
	}
	if (uxid.type == ID_TYPE_NOT_SPECIFIED && config != NULL &&
	    config->winbind_expected && !winbind_ping()) {
		DBG_ERR("SID %s has no unix id and winbindd does not answer: "
			"refusing it rather than storing an entry that "
			"matches nobody\n", dom_sid_str_buf(&dsid, &buf));
		return -EAGAIN;
	}
	switch (uxid.type) {
	case ID_TYPE_UID:
		*type = RICHACL_ID_UID;
		break;
	case ID_TYPE_GID:
		*type = RICHACL_ID_GID;
		break;
	case ID_TYPE_BOTH:
		ret = richacl_both_id_type(config, &dsid, uxid.id, type);
		if (ret != 0) {
			return ret;
		}
		break;
	default:
		return -ENOENT;
	}
	*id = uxid.id;
	return 0;
}

/*
 * id -> SID, remembered per connection.  Every descriptor read asks for
 * the owner, the group and the id of each entry, mostly the same few ids.
 * uid_to_sid() and gid_to_sid() keep what idmap answers in gencache, but
 * not their fallback for an id idmap does not know (S-1-22-1-uid,
 * S-1-22-2-gid: on a standalone server every unix account outside passdb
 * and every gid without a group mapping), which then costs a winbindd and
 * a passdb query each time.  An answer is kept as long as Samba keeps its
 * own: "idmap cache time" for a mapping, "idmap negative cache time" for a
 * fallback.  Nothing is written to gencache.  ctx NULL: no cache.
 */
static int richacl_cached_id_to_sid(struct richacl_config *config,
				    bool is_group, uint32_t id,
				    struct nt_sid *sid)
{
	struct richacl_sid_cache_entry *e = NULL;
	time_t now = time_mono(NULL);
	struct dom_sid dsid;
	bool fallback;
	size_t i;

	for (i = 0; config != NULL && i < RICHACL_SID_CACHE_SIZE; i++) {
		e = &config->sid_cache[i];
		if (e->used && e->is_group == is_group && e->id == id &&
		    now < e->expires) {
			*sid = e->sid;
			return 0;
		}
	}
	if (is_group) {
		gid_to_sid(&dsid, (gid_t)id);
		fallback = sid_check_is_in_unix_groups(&dsid);
	} else {
		uid_to_sid(&dsid, (uid_t)id);
		fallback = sid_check_is_in_unix_users(&dsid);
	}
	if (is_null_sid(&dsid) || !richacl_dom_sid_to_nt_sid(&dsid, sid)) {
		return -ENOENT;
	}
	if (config == NULL) {
		return 0;
	}
	e = &config->sid_cache[config->sid_cache_next];
	config->sid_cache_next = (config->sid_cache_next + 1) %
				 RICHACL_SID_CACHE_SIZE;
	*e = (struct richacl_sid_cache_entry) {
		.used = true,
		.is_group = is_group,
		.id = id,
		.expires = now + (fallback ? lp_idmap_negative_cache_time()
					   : lp_idmap_cache_time()),
		.sid = *sid,
	};
	return 0;
}

/* Falls back to S-1-22-1-uid for uids idmap does not know. */
static int richacl_resolve_uid(void *ctx, uint32_t uid, struct nt_sid *sid)
{
	return richacl_cached_id_to_sid(ctx, false, uid, sid);
}

/* Falls back to S-1-22-2-gid for gids idmap does not know. */
static int richacl_resolve_gid(void *ctx, uint32_t gid, struct nt_sid *sid)
{
	return richacl_cached_id_to_sid(ctx, true, gid, sid);
}

/* The resolver of a share (config NULL: no policy, no outage check). */
static struct richacl_resolver richacl_resolver(struct richacl_config *config)
{
	return (struct richacl_resolver) {
		.ctx = config,
		.sid_to_id = richacl_resolve_sid,
		.uid_to_sid = richacl_resolve_uid,
		.gid_to_sid = richacl_resolve_gid,
		.refuse_unmapped = config != NULL &&
			config->unmapped_sids == RICHACL_UNMAPPED_REFUSE,
	};
}

/* ---- security descriptor conversion ---- */

/*
 * Samba's descriptor -> the library's.  Only the DACL and the control flags
 * matter for richacl_from_nt_sd(); owner and group are passed as uid/gid.
 */
static NTSTATUS richacl_sd_to_nt_sd(TALLOC_CTX *mem_ctx,
				    const struct security_descriptor *psd,
				    struct nt_sd **_ntsd)
{
	struct nt_sd *ntsd = NULL;
	uint32_t i;

	ntsd = nt_sd_alloc();
	if (ntsd == NULL || !nt_sd_talloc_own(mem_ctx, ntsd)) {
		return NT_STATUS_NO_MEMORY;
	}
	ntsd->revision = psd->revision;
	ntsd->control = psd->type;

	if (psd->dacl == NULL) {
		/* A NULL DACL: the library maps it (M10). */
		ntsd->control |= NT_SD_DACL_PRESENT;
		*_ntsd = ntsd;
		return NT_STATUS_OK;
	}

	/*
	 * In Samba a non-NULL dacl pointer is a present DACL, whatever the
	 * control word says (make_sec_desc() and the NDR marshalling agree).
	 */
	ntsd->control |= NT_SD_DACL_PRESENT;
	ntsd->dacl = nt_acl_alloc(psd->dacl->num_aces);
	if (ntsd->dacl == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	ntsd->dacl->revision = psd->dacl->revision;
	for (i = 0; i < psd->dacl->num_aces; i++) {
		const struct security_ace *ace = &psd->dacl->aces[i];
		struct nt_ace *nace = &ntsd->dacl->aces[i];

		nace->type = ace->type;
		nace->flags = ace->flags;
		nace->mask = ace->access_mask;
		if (!richacl_dom_sid_to_nt_sid(&ace->trustee, &nace->trustee)) {
			struct dom_sid_buf buf;

			DBG_WARNING("ACE %" PRIu32 ": invalid trustee SID %s\n",
				    i, dom_sid_str_buf(&ace->trustee, &buf));
			return NT_STATUS_INVALID_SID;
		}
	}
	*_ntsd = ntsd;
	return NT_STATUS_OK;
}

/* The library's descriptor -> Samba's, allocated on mem_ctx. */
static NTSTATUS richacl_nt_sd_to_sd(TALLOC_CTX *mem_ctx,
				    const struct nt_sd *ntsd,
				    struct security_descriptor **ppdesc)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct dom_sid owner, group;
	struct security_acl *dacl = NULL;
	struct security_descriptor *psd = NULL;
	unsigned int i;

	if (ntsd->has_owner) {
		richacl_nt_sid_to_dom_sid(&ntsd->owner, &owner);
	}
	if (ntsd->has_group) {
		richacl_nt_sid_to_dom_sid(&ntsd->group, &group);
	}
	if (ntsd->dacl != NULL) {
		struct security_ace *aces = NULL;

		aces = talloc_zero_array(frame, struct security_ace,
					 MAX(ntsd->dacl->num_aces, 1));
		if (aces == NULL) {
			TALLOC_FREE(frame);
			return NT_STATUS_NO_MEMORY;
		}
		for (i = 0; i < ntsd->dacl->num_aces; i++) {
			const struct nt_ace *nace = &ntsd->dacl->aces[i];
			struct dom_sid trustee;

			richacl_nt_sid_to_dom_sid(&nace->trustee, &trustee);
			init_sec_ace(&aces[i], &trustee,
				     (enum security_ace_type)nace->type,
				     nace->mask, nace->flags);
		}
		dacl = make_sec_acl(frame,
				    (enum security_acl_revision)ntsd->dacl->revision,
				    ntsd->dacl->num_aces, aces);
		if (dacl == NULL) {
			TALLOC_FREE(frame);
			return NT_STATUS_NO_MEMORY;
		}
	}

	psd = make_sec_desc(mem_ctx, SECURITY_DESCRIPTOR_REVISION_1,
			    ntsd->control | SEC_DESC_SELF_RELATIVE,
			    ntsd->has_owner ? &owner : NULL,
			    ntsd->has_group ? &group : NULL,
			    NULL, dacl, NULL);
	TALLOC_FREE(frame);
	if (psd == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	*ppdesc = psd;
	return NT_STATUS_OK;
}

/* ---- xattr I/O ---- */

static void richacl_note_unsupported(struct vfs_handle_struct *handle,
				     const struct files_struct *fsp)
{
	struct richacl_config *config = NULL;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config, return);
	if (config->warned_unsupported) {
		return;
	}
	config->warned_unsupported = true;
	DBG_WARNING("%s: the filesystem does not support system.richacl "
		    "(not a richacl kernel, or the filesystem lacks the "
		    "richacl feature): ACLs are derived from the file mode and "
		    "only ACLs equivalent to a mode can be set\n",
		    fsp_str_dbg(fsp));
}

/*
 * Read an xattr value of unknown size with get(arg, buf, size), which acts
 * like getxattr().  Returns 0 and the value in *blob (allocated on
 * mem_ctx), or -1 with errno set.
 */
static int richacl_read_value(TALLOC_CTX *mem_ctx,
			      ssize_t (*get)(void *arg, void *buf, size_t size),
			      void *arg, DATA_BLOB *blob)
{
	size_t size = 1024;

	for (;;) {
		uint8_t *buf = talloc_array(mem_ctx, uint8_t, size);
		ssize_t len;
		int err;

		if (buf == NULL) {
			errno = ENOMEM;
			return -1;
		}
		len = get(arg, buf, size);
		if (len >= 0) {
			*blob = data_blob_const(buf, len);
			return 0;
		}
		err = errno;
		TALLOC_FREE(buf);
		if (err != ERANGE || size >= RICHACL_XATTR_MAX_SIZE) {
			errno = err;
			return -1;
		}
		size = RICHACL_XATTR_MAX_SIZE;
	}
}

struct richacl_fsp_source {
	struct vfs_handle_struct *handle;
	struct files_struct *fsp;
};

static ssize_t richacl_get_fsp(void *arg, void *buf, size_t size)
{
	struct richacl_fsp_source *src = arg;

	return SMB_VFS_NEXT_FGETXATTR(src->handle, src->fsp, RICHACL_XATTR,
				      buf, size);
}

static ssize_t richacl_get_path(void *arg, void *buf, size_t size)
{
	return getxattr((const char *)arg, RICHACL_XATTR, buf, size);
}

/*
 * Read system.richacl of fsp (which may be a pathref fsp).  Returns 0 and
 * the value in *blob (allocated on mem_ctx), or -1 with errno set: ENODATA
 * if the file has no richacl (only a mode), ENOTSUP if the filesystem does
 * not support richacls.
 */
static int richacl_read_blob(struct vfs_handle_struct *handle,
			     struct files_struct *fsp,
			     TALLOC_CTX *mem_ctx,
			     DATA_BLOB *blob)
{
	struct richacl_fsp_source src = { .handle = handle, .fsp = fsp };

	return richacl_read_value(mem_ctx, richacl_get_fsp, &src, blob);
}

/*
 * Read and decode the richacl of fsp.  *acl is NULL (and NT_STATUS_OK
 * returned) if the file has none, or if the filesystem does not support
 * richacls; then the file mode is the whole truth (M1).  If _blob is not
 * NULL it gets the value as read (empty without an acl).
 */
static NTSTATUS richacl_fget(struct vfs_handle_struct *handle,
			     struct files_struct *fsp,
			     TALLOC_CTX *mem_ctx,
			     struct richacl **_acl,
			     DATA_BLOB *_blob)
{
	struct richacl_error err = { .code = 0 };
	struct richacl *acl = NULL;
	DATA_BLOB blob = data_blob_null;
	int ret;

	ret = richacl_read_blob(handle, fsp, mem_ctx, &blob);
	if (ret == -1) {
		if (errno == ENODATA) {
			*_acl = NULL;
			return NT_STATUS_OK;
		}
		if (richacl_errno_unsupported(errno)) {
			richacl_note_unsupported(handle, fsp);
			*_acl = NULL;
			return NT_STATUS_OK;
		}
		DBG_NOTICE("%s: reading %s failed: %s\n", fsp_str_dbg(fsp),
			   RICHACL_XATTR, strerror(errno));
		return map_nt_error_from_unix(errno);
	}

	ret = richacl_from_xattr(blob.data, blob.length, &acl, &err);
	if (ret == -ENOMEM) {
		return NT_STATUS_NO_MEMORY;
	}
	if (ret != 0) {
		DBG_ERR("%s: %s is corrupt (%zu bytes): %s\n",
			fsp_str_dbg(fsp), RICHACL_XATTR, blob.length, err.msg);
		return NT_STATUS_INTERNAL_DB_CORRUPTION;
	}
	if (!richacl_talloc_own(mem_ctx, acl)) {
		return NT_STATUS_NO_MEMORY;
	}
	*_acl = acl;
	if (_blob != NULL) {
		*_blob = blob;
	}
	return NT_STATUS_OK;
}

/* Encode acl into a talloc'ed blob. */
static NTSTATUS richacl_encode(TALLOC_CTX *mem_ctx,
			       const char *name,
			       const struct richacl *acl,
			       DATA_BLOB *blob)
{
	size_t size = richacl_xattr_size(acl);
	uint8_t *buf = NULL;
	ssize_t len;

	if (size > RICHACL_XATTR_MAX_SIZE) {
		DBG_WARNING("%s: the ACL needs %zu bytes, more than the %d "
			    "bytes of system.richacl\n",
			    name, size, RICHACL_XATTR_MAX_SIZE);
		return NT_STATUS_INVALID_PARAMETER;
	}
	buf = talloc_array(mem_ctx, uint8_t, size);
	if (buf == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	len = richacl_to_xattr(acl, buf, size);
	if (len < 0) {
		DBG_WARNING("%s: cannot encode the ACL: %s\n",
			    name, strerror((int)-len));
		TALLOC_FREE(buf);
		return map_nt_error_from_unix((int)-len);
	}
	*blob = data_blob_const(buf, len);
	return NT_STATUS_OK;
}

/* ---- NULL DACL marker ---- */

/*
 * A richacl cannot be NULL: a NULL DACL is stored as everyone@ allowed
 * FILE_ALL_ACCESS (M10), the same acl as an explicit "Everyone: Full
 * Control".  Both grant the same access; only what a client reads back
 * differs (Windows shows a NULL DACL as such, and smbtorture checks it).
 * So a set of a NULL DACL leaves this marker, and a set of any other DACL
 * removes it.  The marker only changes how the acl is shown, and only
 * while the acl is still exactly the NULL DACL's (richacl_is_null_dacl()):
 * the kernel never sees it.  It lives in the security namespace, which
 * only a process with CAP_SYS_ADMIN can write, so no user can put it on a
 * file, and smbd never offers it as an extended attribute to clients.
 */
#define RICHACL_NULL_DACL_XATTR "security.richacl.null_dacl"

/*
 * Some of smbd's own code mishandles a NULL DACL that a module returns; the
 * module then shows "Everyone: Full Control" (what the kernel holds):
 *  - vfs_fruit with fruit:nfs_aces (the default) adds its MS-NFS entries to
 *    the descriptor of every file once a client negotiated AAPL; added to a
 *    NULL DACL they make a new DACL of three entries that grant nothing;
 *  - inherit_new_acl() (inherit acls = yes) with inherit owner computes a
 *    child's descriptor from its parent's even if nothing is inheritable,
 *    and se_create_child_secdesc() dereferences the parent's DACL: a NULL
 *    DACL on a directory would crash the smbd of whoever creates in it.
 * smbd's MAXIMUM_ALLOWED computation grants only the owner's implicit
 * rights on a NULL DACL (access_check_max_allowed()), on every share that
 * returns one (acl_xattr too); that is left to smbd.
 */
static void richacl_null_dacl_config(struct richacl_config *config, int snum,
				     const char *service)
{
	const char **objects = lp_vfs_objects(snum);
	size_t i;

	config->null_dacl_files = true;
	config->null_dacl_dirs = true;
	for (i = 0; objects != NULL && objects[i] != NULL; i++) {
		if (strequal(objects[i], "fruit") &&
		    lp_parm_bool(snum, "fruit", "nfs_aces", true)) {
			DBG_NOTICE("[%s]: vfs_fruit with fruit:nfs_aces: NULL "
				   "DACLs are shown as Everyone: Full "
				   "Control\n", service);
			config->null_dacl_files = false;
			config->null_dacl_dirs = false;
			return;
		}
	}
	if (lp_inherit_acls(snum) &&
	    lp_inherit_owner(snum) != INHERIT_OWNER_NO) {
		DBG_NOTICE("[%s]: inherit acls and inherit owner: a NULL DACL "
			   "on a directory is shown as Everyone: Full "
			   "Control\n", service);
		config->null_dacl_dirs = false;
	}
}

/*
 * Read the marker of fsp.  Returns 1 if it is there with its value, 0 if it
 * is missing (or the file system has no security.* attributes), -1 if
 * something else is there (a value of another size, or another error,
 * which is logged).
 */
static int richacl_null_dacl_marker(struct vfs_handle_struct *handle,
				    struct files_struct *fsp)
{
	char value;
	ssize_t len;

	len = SMB_VFS_NEXT_FGETXATTR(handle, fsp, RICHACL_NULL_DACL_XATTR,
				     &value, sizeof(value));
	if (len == 1 && value == '1') {
		return 1;
	}
	if (len == -1 &&
	    (errno == ENODATA || richacl_errno_unsupported(errno))) {
		return 0;	/* none, or no security.* attributes at all */
	}
	if (len == -1 && errno != ERANGE) {
		DBG_NOTICE("%s: reading %s failed: %s\n", fsp_str_dbg(fsp),
			   RICHACL_NULL_DACL_XATTR, strerror(errno));
	}
	return -1;
}

/*
 * Record whether the DACL just stored on fsp was sent as a NULL DACL.
 * Called after the acl is stored, as root (the user cannot write the
 * security namespace); a failure only costs the display, so it is logged.
 */
static void richacl_mark_null_dacl(struct vfs_handle_struct *handle,
				   struct files_struct *fsp,
				   bool null_dacl)
{
	int ret, err;

	if (!null_dacl && richacl_null_dacl_marker(handle, fsp) == 0) {
		return;
	}
	become_root();
	if (null_dacl) {
		ret = SMB_VFS_NEXT_FSETXATTR(handle, fsp,
					     RICHACL_NULL_DACL_XATTR,
					     "1", 1, 0);
	} else {
		ret = SMB_VFS_NEXT_FREMOVEXATTR(handle, fsp,
						RICHACL_NULL_DACL_XATTR);
	}
	err = errno;
	unbecome_root();
	if (ret == -1 && !(err == ENODATA && !null_dacl)) {
		DBG_WARNING("%s: %s %s failed: %s; the DACL reads back as %s\n",
			    fsp_str_dbg(fsp),
			    null_dacl ? "setting" : "removing",
			    RICHACL_NULL_DACL_XATTR, strerror(err),
			    null_dacl ? "Everyone: Full Control" :
			    "a NULL DACL while it grants Everyone Full Control");
	}
}

/* ---- fget_nt_acl ---- */

/*
 * smbd decides with the caller's NT token against the descriptor that
 * richacl_fget_nt_acl() returns: opens, can_write_to_fsp() (DOS
 * attributes, times, "dos filemode"), change notify, delete checks.  An
 * unmapped allow entry (its SID had no unix id when it was stored) matches
 * nobody in the kernel; if the caller's token holds its SID, smbd would
 * grant through it what the kernel refuses the caller (S-K2).  So the
 * caller's view leaves out the effective part of such entries: an entry
 * that is also inheritable (on a directory) stays as an inherit-only one,
 * which grants nothing here; any other is dropped.  What the kernel
 * enforces is unchanged, since those entries match nobody there.  A
 * caller without the SID sees them as stored.
 */
static void richacl_hide_unmatchable(struct vfs_handle_struct *handle,
				     const struct files_struct *fsp,
				     struct richacl *acl, bool isdir)
{
	const struct security_token *token = get_current_nttok(handle->conn);
	const struct auth_session_info *si = handle->conn->session_info;
	struct nt_sid nsid;
	struct dom_sid sid;
	unsigned int i;

	if (token == NULL && si != NULL) {
		token = si->security_token;
	}
	if (token == NULL) {
		return;
	}
	for (i = acl->a_count; i-- > 0;) {
		struct richace *ace = &acl->a_entries[i];

		/*
		 * The SID as the mapping shows it (nt_sid_from_string(), not
		 * Samba's parser, which reads some strings differently).
		 */
		if (!richace_is_unmapped(ace) || !richace_is_allow(ace) ||
		    richace_is_inherit_only(ace) ||
		    nt_sid_from_string(ace->e_who, &nsid) != 0) {
			continue;
		}
		richacl_nt_sid_to_dom_sid(&nsid, &sid);
		if (!security_token_has_sid(token, &sid)) {
			continue;
		}
		DBG_INFO("%s: the caller's token holds %s, whose allow entry "
			 "the kernel cannot match: left out of the caller's "
			 "view\n", fsp_str_dbg(fsp), ace->e_who);
		if (isdir && richace_is_inheritable(ace)) {
			ace->e_flags |= RICHACE_INHERIT_ONLY_ACE;
		} else {
			richacl_delete_entry(acl, i);
		}
	}
}

static NTSTATUS richacl_fget_nt_acl(struct vfs_handle_struct *handle,
				    struct files_struct *fsp,
				    uint32_t security_info,
				    TALLOC_CTX *mem_ctx,
				    struct security_descriptor **ppdesc)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_config *config = NULL;
	struct richacl_error err = { .code = 0 };
	struct richacl_resolver res;
	struct richacl_map_file file;
	struct richacl *acl = NULL;
	struct nt_sd *ntsd = NULL;
	const SMB_STRUCT_STAT *st = NULL;
	bool null_dacl;
	NTSTATUS status;
	int saved_errno = errno;
	int ret;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				TALLOC_FREE(frame);
				return NT_STATUS_INTERNAL_ERROR);
	fsp = metadata_fsp(fsp);

	status = vfs_stat_fsp(fsp);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_DEBUG("%s: stat failed: %s\n", fsp_str_dbg(fsp),
			  nt_errstr(status));
		TALLOC_FREE(frame);
		return status;
	}
	st = &fsp->fsp_name->st;

	status = richacl_fget(handle, fsp, frame, &acl, NULL);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(frame);
		return status;
	}
	null_dacl = (security_info & SECINFO_DACL) &&
		    (S_ISDIR(st->st_ex_mode) ? config->null_dacl_dirs :
					       config->null_dacl_files) &&
		    richacl_is_null_dacl(acl, S_ISDIR(st->st_ex_mode)) &&
		    richacl_null_dacl_marker(handle, fsp) == 1;

	if (acl != NULL) {
		richacl_hide_unmatchable(handle, fsp, acl,
					 S_ISDIR(st->st_ex_mode));
	} else {
		/*
		 * Only a mode (M1): show its classes as Windows' generic
		 * rights, as the kernel grants them (richacl_implicit.h).
		 */
		acl = richacl_from_mode_nt(st->st_ex_mode);
		if (acl == NULL || !richacl_talloc_own(frame, acl)) {
			TALLOC_FREE(frame);
			return NT_STATUS_NO_MEMORY;
		}
	}

	file = (struct richacl_map_file) {
		.owner = st->st_ex_uid,
		.group = st->st_ex_gid,
		.isdir = S_ISDIR(st->st_ex_mode),
	};
	res = richacl_resolver(config);
	ret = richacl_to_nt_sd(acl, st->st_ex_mode, &file, security_info,
			       &res, &ntsd, &err);
	if (ret != 0) {
		if (ret == -ENOMEM) {
			TALLOC_FREE(frame);
			return NT_STATUS_NO_MEMORY;
		}
		DBG_ERR("%s: cannot map %s to a security descriptor: %s\n",
			fsp_str_dbg(fsp),
			RICHACL_XATTR, err.msg);
		TALLOC_FREE(frame);
		return NT_STATUS_INTERNAL_DB_CORRUPTION;
	}
	if (!nt_sd_talloc_own(frame, ntsd)) {
		TALLOC_FREE(frame);
		return NT_STATUS_NO_MEMORY;
	}

	/*
	 * No implicit rights are added: smbd itself gives the owner
	 * READ_CONTROL and WRITE_DAC (unless an OWNER RIGHTS ACE exists), as
	 * Windows does, and checks the rest against exactly these entries.
	 */
	if (null_dacl) {
		/* Shown as it was set: DACL_PRESENT without a DACL. */
		nt_acl_free(ntsd->dacl);
		ntsd->dacl = NULL;
		ntsd->control |= NT_SD_DACL_PRESENT;
	}
	status = richacl_nt_sd_to_sd(mem_ctx, ntsd, ppdesc);
	TALLOC_FREE(frame);
	/*
	 * A read that succeeds leaves errno as it was: smbd looks at errno
	 * after asking for a descriptor (file_ntimes() maps the errno of a
	 * failed utimes after can_write_to_fsp()), and the reads of the
	 * NULL DACL marker and of system.richacl here fail with ENODATA, which
	 * would turn an EPERM into NT_STATUS_NOT_FOUND.
	 */
	if (NT_STATUS_IS_OK(status)) {
		errno = saved_errno;
	}
	return status;
}

/* ---- fset_nt_acl ---- */

/* The acl a descriptor asks for, and the acl stored for it (M12/M13). */
struct richacl_pair {
	struct richacl *asked;
	struct richacl *stored;
};

/*
 * Store acl->stored, whose encoding is blob.  On a filesystem without
 * richacl support an acl equivalent to a mode is stored as that mode
 * (richacl_store_as_mode(): the entries for the file's owner and owning
 * group stand for the mode's owner and group classes, and a descriptor read
 * from a mode-only file can be set back).  Any other acl cannot be stored
 * there.
 */
static int richacl_store(struct vfs_handle_struct *handle,
			 struct files_struct *fsp,
			 const struct richacl_pair *acl,
			 const DATA_BLOB *blob,
			 mode_t cur_mode)
{
	const SMB_STRUCT_STAT *st = &fsp->fsp_name->st;
	mode_t mode = cur_mode;
	int ret;

	ret = SMB_VFS_NEXT_FSETXATTR(handle, fsp, RICHACL_XATTR,
				     blob->data, blob->length, 0);
	if (ret == 0 || !richacl_errno_unsupported(errno)) {
		return ret;
	}
	richacl_note_unsupported(handle, fsp);
	ret = richacl_store_as_mode(acl->asked, st->st_ex_uid, st->st_ex_gid,
				    &mode);
	if (ret == -ENOMEM) {
		errno = ENOMEM;
		return -1;
	}
	if (ret != 0) {
		DBG_NOTICE("%s: the ACL is not equivalent to a file mode and "
			   "the filesystem cannot store richacls\n",
			   fsp_str_dbg(fsp));
		errno = EOPNOTSUPP;
		return -1;
	}
	DBG_INFO("%s: no richacl support, storing the equivalent mode 0%o\n",
		 fsp_str_dbg(fsp), (unsigned int)(mode & 07777));
	return SMB_VFS_NEXT_FCHMOD(handle, fsp, mode & 07777);
}

static void richacl_log_rejected(const char *name,
				 const struct security_descriptor *psd,
				 const struct richacl_error *err)
{
	DBG_WARNING("%s: ACL rejected: %s\n", name, err->msg);
	if (CHECK_DEBUGLVL(DBGLVL_DEBUG)) {
		NDR_PRINT_DEBUG(security_descriptor,
				discard_const_p(struct security_descriptor, psd));
	}
}

/* Log each entry of acl that names a SID without a unix id (DBG_NOTICE). */
static void richacl_log_unmapped(const struct files_struct *fsp,
				 const struct richacl *acl)
{
	const struct richace *ace = NULL;

	if (!CHECK_DEBUGLVL(DBGLVL_NOTICE)) {
		return;
	}
	richacl_for_each_entry(ace, acl) {
		if (!richace_is_unmapped(ace)) {
			continue;
		}
		DBG_NOTICE("%s: storing an %s entry for %s, which has no unix "
			   "id: it grants and denies nobody, in smbd and in "
			   "the kernel alike\n", fsp_str_dbg(fsp),
			   richace_is_deny(ace) ? "inert deny" : "allow",
			   ace->e_who);
	}
}

/*
 * Does acl deny through a group entry whose id came from an ID_TYPE_BOTH
 * SID of unknown type (richacl_both_id_type())?  If that SID is a user's,
 * the entry binds the user's SMB sessions (smbd's process holds the id as
 * a gid too) but not a local login, which holds it only as a uid; as a
 * user entry it would miss members of a group.  Such a deny is refused, as
 * a deny that matches nobody is (docs/mapping.md).
 */
static bool richacl_denies_both_unknown(const char *name,
					const struct richacl_config *config,
					const struct richacl *acl)
{
	const struct richace *ace = NULL;
	size_t i;

	richacl_for_each_entry(ace, acl) {
		if (!richace_is_deny(ace) || !richace_is_unix_group(ace)) {
			continue;
		}
		for (i = 0; i < config->num_both_unknown; i++) {
			if (config->both_unknown[i] == ace->e_id) {
				DBG_WARNING("%s: ACL rejected: a deny for the "
					    "SID with uid and gid %" PRIu32
					    " whose type (user or group) "
					    "cannot be looked up\n",
					    name, ace->e_id);
				return true;
			}
		}
	}
	return false;
}

/*
 * Whether acl has an owner@ entry that applies to the file and is not
 * inherited: in a creator's DACL merged with what the file inherits, only
 * OWNER RIGHTS can give one (CREATOR OWNER is inherit-only), and it is what
 * RICHACL_OWNER_RIGHTS stands for.  Inherited owner@ entries carry the flag
 * only when the parent's OWNER RIGHTS entry is what they inherit
 * (richacl_inherits_owner_rights(), docs/mapping.md, M8).
 */
static bool richacl_has_explicit_owner_rights(const struct richacl *acl)
{
	const struct richace *e;

	richacl_for_each_entry(e, acl) {
		if (richace_is_owner(e) && !richace_is_inherit_only(e) &&
		    !(e->e_flags & RICHACE_INHERITED_ACE)) {
			return true;
		}
	}
	return false;
}

/*
 * A create with a security descriptor whose DACL is neither protected nor
 * NULL: Windows merges the entries the new file inherits from its parent
 * into that DACL (MS-DTYP 2.5.3.4.2 ComputeACL with DACL_AUTO_INHERIT): the
 * creator's entries that are not marked inherited, then the inherited
 * ones, marked inherited; a defaulted DACL gives way to the inherited
 * entries (S-W-merge).  smbd applies the descriptor as sent, replacing what
 * the kernel inherited.  *acl is replaced by the merged acl.
 */
static NTSTATUS richacl_merge_create(TALLOC_CTX *mem_ctx,
				     const char *name,
				     const struct richacl *inherited,
				     struct richacl **acl)
{
	struct richacl *creator = *acl;
	struct richacl *merged = NULL;
	struct richacl_error err = { .code = 0 };

	if (creator->a_flags & RICHACL_DEFAULTED) {
		creator = richacl_alloc(0);
		if (creator == NULL ||
		    !richacl_talloc_own(mem_ctx, creator)) {
			return NT_STATUS_NO_MEMORY;
		}
		creator->a_flags = (*acl)->a_flags;
	}
	merged = richacl_auto_inherit(creator, inherited);
	if (merged == NULL || !richacl_talloc_own(mem_ctx, merged)) {
		return NT_STATUS_NO_MEMORY;
	}
	merged->a_flags &= ~(RICHACL_DEFAULTED | RICHACL_OWNER_RIGHTS);
	merged->a_flags |= RICHACL_AUTO_INHERIT;
	/*
	 * The OWNER RIGHTS ACEs of a defaulted part, and those the creator
	 * marked inherited, are gone; the parent's inherited ones come back.
	 */
	if (richacl_has_explicit_owner_rights(merged) ||
	    (inherited->a_flags & RICHACL_OWNER_RIGHTS)) {
		merged->a_flags |= RICHACL_OWNER_RIGHTS;
	}
	if (richacl_valid(merged, &err) != 0) {
		DBG_WARNING("%s: the DACL with the inherited entries is not "
			    "a valid acl (%s); it is stored as sent\n", name,
			    err.msg);
		return NT_STATUS_OK;
	}
	richacl_compute_max_masks(merged);
	DBG_DEBUG("%s: %u explicit and %u inherited entries\n", name,
		  merged->a_count - inherited->a_count, inherited->a_count);
	*acl = merged;
	return NT_STATUS_OK;
}

/*
 * The DACL of psd as the richacl, and the encoding of the acl to store for
 * it (richacl_to_store()), that a file with the owner, group and type of
 * file gets (M7-M12).  Changes nothing.  A SID without a unix id in a deny
 * ACE (or in any ACE under "richacl:unmapped sids = refuse") is refused
 * with NT_STATUS_NONE_MAPPED, and a SID that cannot be resolved because
 * winbindd does not answer with NT_STATUS_NO_SUCH_DOMAIN.
 */
static NTSTATUS richacl_from_sd(TALLOC_CTX *mem_ctx,
				struct richacl_config *config,
				const char *name,
				const struct security_descriptor *psd,
				const struct richacl_map_file *file,
				const struct richacl *inherited,
				struct richacl_pair *_acl,
				DATA_BLOB *blob)
{
	struct richacl_error err = { .code = 0 };
	struct richacl_resolver res = richacl_resolver(config);
	struct nt_sd *ntsd = NULL;
	struct richacl *acl = NULL;
	struct richacl *stored = NULL;
	NTSTATUS status;
	int ret;

	status = richacl_sd_to_nt_sd(mem_ctx, psd, &ntsd);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	TALLOC_FREE(config->both_unknown);
	config->num_both_unknown = 0;
	richacl_prefetch_ids(mem_ctx, config, psd);
	ret = richacl_from_nt_sd(ntsd, file, &res, &acl, &err);
	config->num_prefetched = 0;
	config->prefetch_sids = NULL;
	config->prefetch_ids = NULL;
	switch (ret) {
	case 0:
		break;
	case -ENOMEM:
		return NT_STATUS_NO_MEMORY;
	case -ENOENT:
		richacl_log_rejected(name, psd, &err);
		return NT_STATUS_NONE_MAPPED;
	case -EAGAIN:
		richacl_log_rejected(name, psd, &err);
		return NT_STATUS_NO_SUCH_DOMAIN;
	case -EINVAL:
		richacl_log_rejected(name, psd, &err);
		return NT_STATUS_INVALID_PARAMETER;
	default:
		richacl_log_rejected(name, psd, &err);
		return map_nt_error_from_unix(-ret);
	}
	if (!richacl_talloc_own(mem_ctx, acl)) {
		return NT_STATUS_NO_MEMORY;
	}
	if (inherited != NULL) {
		status = richacl_merge_create(mem_ctx, name, inherited, &acl);
		if (!NT_STATUS_IS_OK(status)) {
			return status;
		}
	}
	if (richacl_denies_both_unknown(name, config, acl)) {
		return NT_STATUS_NONE_MAPPED;
	}
	/*
	 * What to store so that the descriptor reads back as set, although
	 * the kernel keeps a mode-equivalent acl as the mode alone (M12).
	 */
	ret = richacl_to_store(acl, file->isdir ? S_IFDIR : S_IFREG, &stored);
	if (ret != 0 || !richacl_talloc_own(mem_ctx, stored)) {
		return NT_STATUS_NO_MEMORY;
	}
	status = richacl_encode(mem_ctx, name, stored, blob);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	*_acl = (struct richacl_pair) { .asked = acl, .stored = stored };
	return NT_STATUS_OK;
}

/*
 * The uid and gid for the owner and group SIDs of psd ((uid_t)-1 /
 * (gid_t)-1 if not sent); name is for the log.
 */
static NTSTATUS richacl_unpack_owners(connection_struct *conn,
				      const char *name,
				      uint32_t security_info_sent,
				      const struct security_descriptor *psd,
				      uid_t *uid, gid_t *gid)
{
	NTSTATUS status;

	*uid = (uid_t)-1;
	*gid = (gid_t)-1;
	status = unpack_nt_owners(conn, uid, gid, security_info_sent, psd);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: owner or group cannot be mapped: %s\n",
			   name, nt_errstr(status));
		return status;
	}
	/*
	 * unpack_nt_owners() answers (uid_t)-1 for "not sent" and for a SID
	 * that names id 4294967295 (S-1-22-1-4294967295): the latter is no
	 * owner a file can have.
	 */
	if ((security_info_sent & SECINFO_OWNER) && psd->owner_sid != NULL &&
	    *uid == (uid_t)-1) {
		DBG_NOTICE("%s: the owner SID maps to uid -1\n", name);
		return NT_STATUS_INVALID_OWNER;
	}
	if ((security_info_sent & SECINFO_GROUP) && psd->group_sid != NULL &&
	    *gid == (gid_t)-1) {
		DBG_NOTICE("%s: the group SID maps to gid -1\n", name);
		return NT_STATUS_INVALID_PRIMARY_GROUP;
	}
	return NT_STATUS_OK;
}

/*
 * What a failed request puts back (M7): owner and group.  The set-id bits
 * that the kernel clears on a chown are not put back:
 * between the chown and the failure anybody with write_data may have
 * written the file, and setting the bits again as root would make that
 * content set-user-ID to the old owner (S-K2-attack).  A chown clears them
 * the same way when it succeeds, and Windows has no such bits.
 */
struct richacl_undo {
	uid_t uid;
	gid_t gid;
	mode_t mode;		/* for the log */
};

/* Put owner and group back after a failed request; as root. */
static void richacl_undo_chown(struct vfs_handle_struct *handle,
			       struct files_struct *fsp,
			       const struct richacl_undo *undo)
{
	SMB_STRUCT_STAT st;

	become_root();
	if (SMB_VFS_NEXT_FCHOWN(handle, fsp, undo->uid, undo->gid) == -1) {
		DBG_ERR("%s: could not restore owner %u:%u: %s\n",
			fsp_str_dbg(fsp), (unsigned int)undo->uid,
			(unsigned int)undo->gid, strerror(errno));
	}
	unbecome_root();
	if ((undo->mode & (S_ISUID | S_ISGID)) != 0 &&
	    SMB_VFS_NEXT_FSTAT(handle, fsp, &st) == 0 &&
	    (st.st_ex_mode & 07777) != undo->mode) {
		DBG_WARNING("%s: the request failed after the ownership change "
			    "cleared the set-id bits (mode 0%o, was 0%o); they "
			    "are not set again, as the file may have been "
			    "written meanwhile\n", fsp_str_dbg(fsp),
			    (unsigned int)(st.st_ex_mode & 07777),
			    (unsigned int)undo->mode);
	}
}

/*
 * Change the owner and/or group of fsp ((uid_t)-1 / (gid_t)-1: unchanged)
 * as the kernel lets the connected user: to oneself with write_owner, to a
 * group one is in as owner or with write_owner.  Either both change or
 * nothing does.
 *
 * This replaces smbd's try_chown(), which becomes root on smbd's own
 * verdict: with "dos filemode" any user who smbd thinks may write the file
 * takes ownership, and smbd's verdict can rest on entries the kernel never
 * honours (a SID without a unix id).  As owner, that user would then hold
 * write_acl in the kernel.  What stays root-acting is what Samba's
 * privileges grant, as in try_chown(): SeRestorePrivilege any owner and
 * group, SeTakeOwnershipPrivilege the owner to oneself (the group then
 * changes as the new owner).  *privileged tells whether root did it under
 * SeRestorePrivilege, which may then store the acl as root as well.
 */
static NTSTATUS richacl_chown(struct vfs_handle_struct *handle,
			      struct files_struct *fsp,
			      uid_t uid,
			      gid_t gid,
			      const struct richacl_undo *undo,
			      bool *privileged)
{
	const struct security_token *token = get_current_nttok(handle->conn);
	uid_t me = get_current_uid(handle->conn);
	bool restore = false, take = false;
	uid_t old_uid = undo->uid;
	int ret, saved_errno;

	*privileged = false;
	if (!CAN_WRITE(handle->conn)) {
		return NT_STATUS_MEDIA_WRITE_PROTECTED;
	}
	ret = SMB_VFS_NEXT_FCHOWN(handle, fsp, uid, gid);
	if (ret == 0) {
		return NT_STATUS_OK;
	}
	if (errno != EPERM && errno != EACCES) {
		return map_nt_error_from_unix(errno);
	}

	if (lp_enable_privileges() && token != NULL) {
		restore = security_token_has_privilege(token,
						       SEC_PRIV_RESTORE);
		take = security_token_has_privilege(token,
						    SEC_PRIV_TAKE_OWNERSHIP);
	}
	if (!restore && !(take && uid == me)) {
		return uid != (uid_t)-1 && uid != me && uid != old_uid ?
			NT_STATUS_INVALID_OWNER : NT_STATUS_ACCESS_DENIED;
	}

	become_root();
	ret = SMB_VFS_NEXT_FCHOWN(handle, fsp, uid, restore ? gid : (gid_t)-1);
	saved_errno = errno;
	unbecome_root();
	if (ret == -1) {
		return map_nt_error_from_unix(saved_errno);
	}
	/*
	 * Only SeRestorePrivilege lets root store the acl too: after a take
	 * of ownership the user owns the file, and the kernel's verdict for
	 * the owner (owner_rights may withhold write_acl) is the one to
	 * keep.
	 */
	*privileged = restore;
	if (restore || gid == (gid_t)-1) {
		return NT_STATUS_OK;
	}

	/*
	 * SeTakeOwnershipPrivilege: the group as the new owner, or undo all
	 * of it (the chown cleared the set-id bits).
	 */
	ret = SMB_VFS_NEXT_FCHOWN(handle, fsp, (uid_t)-1, gid);
	if (ret == 0) {
		return NT_STATUS_OK;
	}
	saved_errno = errno;
	richacl_undo_chown(handle, fsp, undo);
	return map_nt_error_from_unix(saved_errno);
}

static char *richacl_parent_path(TALLOC_CTX *mem_ctx, int dirfd,
				 const char *name);

/*
 * The entries that the file made by the create in progress inherits from
 * its parent, for richacl_merge_create(); *_inherited NULL if there is
 * nothing to merge: this is not the create's descriptor, its DACL is not
 * sent, NULL or protected, "richacl:fix create masks = no" (the kernel's
 * create-mode masks are wanted; the merged entries would not have them),
 * or the parent passes nothing on.
 *
 * The parent is found by name, so it is opened (O_PATH, as the user) and
 * used only if it holds the new file under its name: a directory renamed
 * or swapped (RENAME_EXCHANGE) since the create must not lend its entries
 * to the new file.  If it cannot be read or does not hold the file, the
 * DACL is stored as sent (smbd's behaviour), which grants no more than the
 * merged one would.  Only allocation failures are errors.
 */
static NTSTATUS richacl_create_inherited(TALLOC_CTX *mem_ctx,
					 struct richacl_config *config,
					 struct files_struct *fsp,
					 uint32_t security_info_sent,
					 const struct security_descriptor *psd,
					 struct richacl **_inherited)
{
	struct richacl_error err = { .code = 0 };
	const char *base = fsp->fsp_name->base_name;
	const char *slash = strrchr(base, '/');
	const char *last = slash != NULL ? slash + 1 : base;
	struct richacl *dir_acl = NULL;
	struct richacl *acl = NULL;
	DATA_BLOB blob = data_blob_null;
	char *parent = NULL;
	char *parent_fd_path = NULL;
	struct stat st;
	int pfd, ret, saved_errno;
	bool is_dir;

	*_inherited = NULL;
	if (config->create_sd == NULL || psd != config->create_sd) {
		return NT_STATUS_OK;
	}
	config->create_sd = NULL;	/* used once */
	if (!(security_info_sent & SECINFO_DACL) || psd->dacl == NULL ||
	    (psd->type & SEC_DESC_DACL_PROTECTED) ||
	    !config->fix_create_masks) {
		return NT_STATUS_OK;
	}
	parent = richacl_parent_path(mem_ctx,
				     fsp_get_pathref_fd(fsp->conn->cwd_fsp),
				     base);
	if (parent == NULL) {
		return NT_STATUS_NO_MEMORY;
	}
	pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1) {
		DBG_WARNING("%s: cannot open the parent: %s; the DACL is "
			    "stored as sent\n", fsp_str_dbg(fsp),
			    strerror(errno));
		return NT_STATUS_OK;
	}
	if (fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    st.st_dev != fsp->fsp_name->st.st_ex_dev ||
	    st.st_ino != fsp->fsp_name->st.st_ex_ino) {
		DBG_WARNING("%s: the parent no longer holds the new file; "
			    "the DACL is stored as sent\n", fsp_str_dbg(fsp));
		close(pfd);
		return NT_STATUS_OK;
	}
	parent_fd_path = talloc_asprintf(mem_ctx, "/proc/self/fd/%d", pfd);
	if (parent_fd_path == NULL) {
		close(pfd);
		return NT_STATUS_NO_MEMORY;
	}
	ret = richacl_read_value(mem_ctx, richacl_get_path, parent_fd_path,
				 &blob);
	saved_errno = errno;
	close(pfd);
	if (ret == -1) {
		if (saved_errno == ENOMEM) {
			return NT_STATUS_NO_MEMORY;
		}
		if (saved_errno != ENODATA &&
		    !richacl_errno_unsupported(saved_errno)) {
			DBG_WARNING("%s: cannot read the parent's %s: %s; "
				    "the DACL is stored as sent\n",
				    fsp_str_dbg(fsp), RICHACL_XATTR,
				    strerror(saved_errno));
		}
		return NT_STATUS_OK;
	}
	ret = richacl_from_xattr(blob.data, blob.length, &dir_acl, &err);
	if (ret == -ENOMEM || (ret == 0 && !richacl_talloc_own(mem_ctx,
							       dir_acl))) {
		return NT_STATUS_NO_MEMORY;
	}
	if (ret != 0) {
		DBG_ERR("%s: the parent's %s is corrupt: %s; the DACL is "
			"stored as sent\n", fsp_str_dbg(fsp), RICHACL_XATTR,
			err.msg);
		return NT_STATUS_OK;
	}
	is_dir = S_ISDIR(fsp->fsp_name->st.st_ex_mode);
	acl = richacl_inherit(dir_acl, is_dir);
	if (acl == NULL) {
		return errno == ENOMEM ? NT_STATUS_NO_MEMORY : NT_STATUS_OK;
	}
	if (!richacl_talloc_own(mem_ctx, acl)) {
		return NT_STATUS_NO_MEMORY;
	}
	if (richacl_inherits_owner_rights(dir_acl, is_dir)) {
		acl->a_flags |= RICHACL_OWNER_RIGHTS;
	}
	*_inherited = acl;
	return NT_STATUS_OK;
}

static NTSTATUS richacl_fset_nt_acl(struct vfs_handle_struct *handle,
				    struct files_struct *fsp,
				    uint32_t security_info_sent,
				    const struct security_descriptor *psd)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_config *config = NULL;
	struct richacl_pair acl = { .asked = NULL };
	struct richacl *inherited = NULL;
	DATA_BLOB blob = data_blob_null;
	uid_t old_uid, new_uid = (uid_t)-1;
	gid_t old_gid, new_gid = (gid_t)-1;
	struct richacl_map_file file;
	struct richacl_undo undo;
	bool chowned = false, privileged = false;
	NTSTATUS status;
	int ret, saved_errno;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				TALLOC_FREE(frame);
				return NT_STATUS_INTERNAL_ERROR);
	fsp = metadata_fsp(fsp);

	/*
	 * An owner or group flagged as sent but missing is not sent, as in
	 * smbd's set_sd() and the POSIX layer.  Callers other than SMB do
	 * this: samba-tool ntacl set always sends OWNER|GROUP|DACL|SACL, so
	 * an SDDL without "G:" keeps the file's group.
	 */
	if (psd->owner_sid == NULL) {
		security_info_sent &= ~SECINFO_OWNER;
	}
	if (psd->group_sid == NULL) {
		security_info_sent &= ~SECINFO_GROUP;
	}

	if ((security_info_sent &
	     (SECINFO_OWNER | SECINFO_GROUP | SECINFO_DACL)) == 0) {
		/* A SACL alone: richacls have no SACL (M6). */
		DBG_DEBUG("%s: nothing to set (security_info_sent 0x%" PRIx32
			  ")\n", fsp_str_dbg(fsp), security_info_sent);
		TALLOC_FREE(frame);
		return NT_STATUS_OK;
	}

	status = vfs_stat_fsp(fsp);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(frame);
		return status;
	}
	old_uid = fsp->fsp_name->st.st_ex_uid;
	old_gid = fsp->fsp_name->st.st_ex_gid;

	/* Validate everything before changing anything (M7). */
	status = richacl_unpack_owners(fsp->conn, fsp_str_dbg(fsp),
				       security_info_sent, psd,
				       &new_uid, &new_gid);
	if (!NT_STATUS_IS_OK(status)) {
		TALLOC_FREE(frame);
		return status;
	}
	if (new_uid == (uid_t)-1) {
		new_uid = old_uid;
	}
	if (new_gid == (gid_t)-1) {
		new_gid = old_gid;
	}

	file = (struct richacl_map_file) {
		.owner = new_uid,
		.group = new_gid,
		.isdir = S_ISDIR(fsp->fsp_name->st.st_ex_mode),
	};
	if (security_info_sent & SECINFO_DACL) {
		status = richacl_create_inherited(frame, config, fsp,
						  security_info_sent, psd,
						  &inherited);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(frame);
			return status;
		}
		status = richacl_from_sd(frame, config, fsp_str_dbg(fsp), psd,
					 &file, inherited, &acl, &blob);
		if (!NT_STATUS_IS_OK(status)) {
			TALLOC_FREE(frame);
			return status;
		}
	}

	/* Now change: ownership first, as the kernel lets the user. */
	if (new_uid != old_uid || new_gid != old_gid) {
		undo = (struct richacl_undo) {
			.uid = old_uid,
			.gid = old_gid,
			.mode = fsp->fsp_name->st.st_ex_mode & 07777,
		};
		status = richacl_chown(handle, fsp,
				       new_uid != old_uid ? new_uid : (uid_t)-1,
				       new_gid != old_gid ? new_gid : (gid_t)-1,
				       &undo, &privileged);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_NOTICE("%s: chown to %u:%u failed: %s\n",
				   fsp_str_dbg(fsp), (unsigned int)new_uid,
				   (unsigned int)new_gid, nt_errstr(status));
			TALLOC_FREE(frame);
			return status;
		}
		chowned = true;
		/*
		 * The mode fallback of richacl_store() reads the entries of
		 * the owner and group the file now has as owner@ / group@,
		 * and writes the mode that chown left (without
		 * setuid/setgid).
		 */
		status = vfs_stat_fsp(fsp);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_ERR("%s: stat after chown failed: %s\n",
				fsp_str_dbg(fsp), nt_errstr(status));
			richacl_undo_chown(handle, fsp, &undo);
			TALLOC_FREE(frame);
			return status;
		}
	}

	if (acl.asked == NULL) {
		TALLOC_FREE(frame);
		return NT_STATUS_OK;
	}

	/*
	 * The acl is stored as the user: the kernel decides, as it does for
	 * a local setrichacl.  Only an ownership change that a privilege
	 * made (the user may no longer own the file) stores as root.
	 */
	for (;;) {
		ret = richacl_store(handle, fsp, &acl, &blob,
				    fsp->fsp_name->st.st_ex_mode);
		if (ret == -1 && privileged &&
		    (errno == EPERM || errno == EACCES)) {
			become_root();
			ret = richacl_store(handle, fsp, &acl, &blob,
					    fsp->fsp_name->st.st_ex_mode);
			saved_errno = errno;
			unbecome_root();
			errno = saved_errno;
		}
		if (ret == 0 || inherited == NULL ||
		    (errno != ENOSPC && errno != E2BIG)) {
			break;
		}
		/* What the merge added does not fit: store it as sent. */
		DBG_WARNING("%s: the DACL with the inherited entries (%zu "
			    "bytes) does not fit; it is stored as sent\n",
			    fsp_str_dbg(fsp), blob.length);
		inherited = NULL;
		status = richacl_from_sd(frame, config, fsp_str_dbg(fsp), psd,
					 &file, NULL, &acl, &blob);
		if (!NT_STATUS_IS_OK(status)) {
			if (chowned) {
				richacl_undo_chown(handle, fsp, &undo);
			}
			TALLOC_FREE(frame);
			return status;
		}
	}
	if (ret == -1) {
		saved_errno = errno;
		if (saved_errno == ENOSPC || saved_errno == E2BIG) {
			DBG_WARNING("%s: the ACL (%zu bytes) does not fit in "
				    "the file's extended attribute space: "
				    "%s\n", fsp_str_dbg(fsp), blob.length,
				    strerror(saved_errno));
		} else {
			DBG_NOTICE("%s: storing the ACL failed: %s\n",
				   fsp_str_dbg(fsp), strerror(saved_errno));
		}
		if (chowned) {
			richacl_undo_chown(handle, fsp, &undo);
		}
		TALLOC_FREE(frame);
		return map_nt_error_from_unix(saved_errno);
	}
	richacl_log_unmapped(fsp, acl.stored);
	richacl_mark_null_dacl(handle, fsp, psd->dacl == NULL);

	TALLOC_FREE(frame);
	return NT_STATUS_OK;
}

/* ---- create-time inheritance without create-mode masks ---- */

/*
 * The kernel limits the read, write and execute permissions a new file
 * inherits with masks derived from the create mode (smbd's "create mask",
 * default 0744, and "directory mask"), and marks an auto-inherited acl
 * protected; an inherited acl equivalent to a mode becomes that mode cut
 * by the create mode.  Windows gives a new file exactly the inherited
 * entries (S-I3).  Recompute the inheritance from the parent's acl and
 * store it with the maximum masks (M12): the kernel then keeps only the
 * mode if the result is equivalent to one.
 *
 * This runs inside SMB_VFS_OPENAT and SMB_VFS_MKDIRAT, while smbd is still
 * building the files_struct of the new file.  It therefore touches no
 * files_struct at all (no nested pathref opens, no fd lent to an fsp): it
 * works on the descriptors it is given, through the kernel, the way
 * vfs_default reaches the file behind an O_PATH descriptor
 * (/proc/self/fd/N).
 */

/*
 * The path of the directory that holds name, relative to dirfd (AT_FDCWD
 * or an O_PATH or real descriptor), allocated on mem_ctx.
 */
static char *richacl_parent_path(TALLOC_CTX *mem_ctx, int dirfd,
				 const char *name)
{
	const char *slash = strrchr(name, '/');
	char *dir = NULL;

	if (slash != NULL) {
		dir = talloc_strndup(mem_ctx, name,
				     slash == name ? 1 : slash - name);
		if (dir == NULL) {
			return NULL;
		}
		if (dir[0] == '/' || dirfd == AT_FDCWD) {
			return dir;
		}
		return talloc_asprintf(mem_ctx, "/proc/self/fd/%d/%s",
				       dirfd, dir);
	}
	if (dirfd == AT_FDCWD) {
		return talloc_strdup(mem_ctx, ".");
	}
	return talloc_asprintf(mem_ctx, "/proc/self/fd/%d", dirfd);
}

/* FNV-1a of an xattr value: whether an acl is still the one stored */
static uint64_t richacl_blob_hash(const uint8_t *data, size_t length)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < length; i++) {
		hash = (hash ^ data[i]) * 0x100000001b3ULL;
	}
	return hash;
}

/*
 * Give the new file (fd: a descriptor of it, or -1 and path) the entries
 * it inherits from the directory at parent_path, with maximum masks.
 * name is for the log.  Returns true if the new file carries inherited
 * entries.
 *
 * keep_setgid: the new file is a directory that got the set-group-ID bit
 * from its parent.  Setting an acl clears that bit unless the caller is in
 * the owning group or has CAP_FSETID (as chmod does), and the creator of a
 * directory in a setgid directory usually is not in its group.  The kernel
 * gave the bit, so the acl is then stored as root: its value is the
 * parent's inheritable entries, computed here and not from the client, and
 * the caller has checked that the connected user owns the directory (and
 * so may set its acl anyway).  Root adds nothing but keeping the bit.
 */
static bool richacl_inherit_in_full(const char *parent_path,
				    int fd, const char *path,
				    bool is_dir, bool keep_setgid,
				    const char *name,
				    struct richacl_fsp_ext *ext)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_error err = { .code = 0 };
	struct richacl *dir_acl = NULL;
	struct richacl *acl = NULL;
	DATA_BLOB blob = data_blob_null;
	int ret, saved_errno;

	if (richacl_read_value(frame, richacl_get_path,
			       discard_const_p(char, parent_path),
			       &blob) == -1) {
		if (errno != ENODATA && !richacl_errno_unsupported(errno)) {
			DBG_NOTICE("%s: cannot read the parent's %s: %s\n",
				   name, RICHACL_XATTR, strerror(errno));
		}
		/* No richacl on the parent: nothing was inherited. */
		TALLOC_FREE(frame);
		return false;
	}
	ret = richacl_from_xattr(blob.data, blob.length, &dir_acl, &err);
	if (ret != 0) {
		DBG_NOTICE("%s: the parent's %s does not decode: %s\n",
			   name, RICHACL_XATTR,
			   ret == -ENOMEM ? "out of memory" : err.msg);
		TALLOC_FREE(frame);
		return false;
	}
	if (!richacl_talloc_own(frame, dir_acl)) {
		TALLOC_FREE(frame);
		return false;
	}
	acl = richacl_inherit(dir_acl, is_dir);
	if (acl == NULL || !richacl_talloc_own(frame, acl)) {
		TALLOC_FREE(frame);
		return false;
	}
	richacl_compute_max_masks(acl);

	if (!NT_STATUS_IS_OK(richacl_encode(frame, name, acl, &blob))) {
		TALLOC_FREE(frame);
		return false;
	}
	if (keep_setgid) {
		become_root();
	}
	if (fd != -1) {
		ret = fsetxattr(fd, RICHACL_XATTR, blob.data, blob.length, 0);
	} else {
		ret = setxattr(path, RICHACL_XATTR, blob.data, blob.length, 0);
	}
	saved_errno = errno;
	if (keep_setgid) {
		unbecome_root();
	}
	if (ret == -1) {
		DBG_NOTICE("%s: could not lift the create-time masks: %s\n",
			   name, strerror(saved_errno));
		TALLOC_FREE(frame);
		return false;
	}
	DBG_DEBUG("%s: stored the inherited entries with maximum masks\n",
		  name);
	/*
	 * An inherited OWNER RIGHTS entry takes the owner's implicit right to
	 * change the acl away, as on Windows.  Not yet: the creator's handle
	 * still sets the descriptor of the create, and the creator's
	 * delete-on-close and reopen use the owner's right, as Windows gives
	 * the creating handle what it asked for.  richacl_close() sets the
	 * flag.
	 */
	if (ext != NULL && richacl_inherits_owner_rights(dir_acl, is_dir)) {
		ext->owner_rights_pending = true;
		ext->created_acl_hash = richacl_blob_hash(blob.data,
							  blob.length);
	}
	TALLOC_FREE(frame);
	return true;
}

/*
 * True for a data open whose access mask has FILE_APPEND_DATA without
 * FILE_WRITE_DATA (smbd adds FILE_WRITE_DATA to the mask for truncating
 * opens).  smbd sets fsp->access_mask before it opens.
 */
static bool richacl_append_only(const struct files_struct *fsp,
				const struct vfs_open_how *how)
{
	if ((how->flags & O_ACCMODE) == O_RDONLY) {
		return false;
	}
	if (how->flags & (O_TRUNC | O_DIRECTORY)) {
		return false;
	}
	return (fsp->access_mask & (FILE_APPEND_DATA | FILE_WRITE_DATA)) ==
	       FILE_APPEND_DATA;
}

/*
 * True for a data open that smbd makes O_RDWR although the handle may not
 * read: smbd wants read access to the fd for FILE_READ_ATTRIBUTES and
 * FILE_READ_EA too, but those need no readable fd, and the kernel rightly
 * demands read_data for O_RDWR.  smbd reads only through handles with
 * FILE_READ_DATA (or FILE_EXECUTE), so O_WRONLY loses nothing.  DENY_DOS
 * and DENY_FCB opens stay read-write, as smbd wants them.
 */
static bool richacl_write_only(const struct files_struct *fsp,
			       const struct vfs_open_how *how)
{
	uint32_t deny_dos = NTCREATEX_FLAG_DENY_DOS | NTCREATEX_FLAG_DENY_FCB;

	if ((how->flags & O_ACCMODE) != O_RDWR || (how->flags & O_DIRECTORY)) {
		return false;
	}
	if (fsp->fh == NULL || (fh_get_private_options(fsp->fh) & deny_dos)) {
		return false;
	}
	return (fsp->access_mask & (FILE_READ_DATA | FILE_EXECUTE)) == 0;
}

/* ---- byte-range locks on write-only handles ---- */

/*
 * smbd backs a shared (read) byte-range lock with an F_RDLCK fcntl lock,
 * which the kernel refuses (EBADF) on a descriptor that is not open for
 * reading; and richacl_openat() opens write-only and append-only handles
 * O_WRONLY where smbd asked for O_RDWR.  Windows grants shared locks on such
 * handles.  The lock is then kept in smbd's byte-range lock database only,
 * which decides between SMB clients as always; what is left out is the
 * advisory POSIX lock that would show it to local processes and to NFS.
 * Exclusive locks and unlocks go to the kernel unchanged.
 */
static bool richacl_lock(vfs_handle_struct *handle, files_struct *fsp,
			 int op, off_t offset, off_t count, int type)
{
	int fd = fsp_get_io_fd(fsp);
	int flags;

	if (type == F_RDLCK && (op == F_SETLK || op == F_SETLKW) && fd != -1) {
		flags = fcntl(fd, F_GETFL);
		if (flags != -1 && (flags & O_ACCMODE) == O_WRONLY) {
			DBG_INFO("%s: shared lock [%jd, +%jd) on a write-only "
				 "handle: in smbd's lock database only\n",
				 fsp_str_dbg(fsp), (intmax_t)offset,
				 (intmax_t)count);
			return true;
		}
	}
	return SMB_VFS_NEXT_LOCK(handle, fsp, op, offset, count, type);
}

/* ---- the creator's handle ---- */

/* The module's data on fsp, added if fsp has none yet; NULL without memory. */
static struct richacl_fsp_ext *richacl_ext_of(struct vfs_handle_struct *handle,
					      struct files_struct *fsp)
{
	struct richacl_fsp_ext *ext = VFS_FETCH_FSP_EXTENSION(handle, fsp);

	if (ext == NULL) {
		ext = VFS_ADD_FSP_EXTENSION(handle, fsp,
					    struct richacl_fsp_ext, NULL);
	}
	return ext;
}

/*
 * Windows gives the handle that creates a file or directory the access its
 * create asked for, whatever the new object's ACL grants (MS-FSA 2.1.5.1:
 * the access check is made against the parent only).  Linux checks every
 * open and every unlink against the new object's acl, so three steps of
 * smbd fail where Windows succeeds:
 *  - smbd makes a directory with mkdir and then opens it (mkdir_internal(),
 *    and again open_directory() for FILE_LIST_DIRECTORY), and the kernel
 *    refuses the open if the inherited acl grants the creator no list;
 *  - a delete-on-close set on the creator's handle ends in an unlink at
 *    close, which the kernel refuses if neither the parent's delete_child
 *    nor the new object's delete is granted;
 *  - setting delete-on-close on a directory makes smbd list it, as the
 *    user, to see that it is empty (can_delete_directory_fsp()).
 * The creator owns the new object (unless "inherit owner" gave it to
 * somebody else, which is then left alone), and the kernel always lets the
 * owner change the acl: whatever the creator's handle does here, the
 * creator could do with the kernel's consent after granting itself the
 * right.  No other user gains anything.
 *
 * richacl_note_creator() marks the handle; richacl_open_dir_for() and
 * richacl_unlink_as_creator() use the mark.
 */
static void richacl_note_creator(struct vfs_handle_struct *handle,
				 struct files_struct *fsp,
				 const struct stat *st, uid_t uid)
{
	struct richacl_fsp_ext *ext = NULL;

	if (st->st_uid != uid || uid == 0) {
		return;
	}
	ext = richacl_ext_of(handle, fsp);
	if (ext == NULL) {
		return;
	}
	ext->created = true;
	ext->dev = st->st_dev;
	ext->ino = st->st_ino;
}

/* The creator's mark of fsp, if fsp created (dev, ino). */
static bool richacl_is_creator(struct vfs_handle_struct *handle,
			       struct files_struct *fsp,
			       dev_t dev, ino_t ino)
{
	struct richacl_fsp_ext *ext = VFS_FETCH_FSP_EXTENSION(handle, fsp);

	return ext != NULL && ext->created && ext->dev == dev &&
	       ext->ino == ino;
}

/*
 * An open handle of this connection, on the object st describes, that
 * holds DELETE: the creator's handle if creator_only, else any.
 */
static struct files_struct *richacl_delete_handle(
	struct vfs_handle_struct *handle,
	const SMB_STRUCT_STAT *st,
	bool creator_only)
{
	struct file_id id = vfs_file_id_from_sbuf(handle->conn, st);
	struct files_struct *fsp = NULL;

	for (fsp = file_find_di_first(handle->conn->sconn, id, false);
	     fsp != NULL;
	     fsp = file_find_di_next(fsp, false)) {
		if (fsp->conn != handle->conn ||
		    !(fsp->access_mask & SEC_STD_DELETE)) {
			continue;
		}
		if (!creator_only ||
		    richacl_is_creator(handle, fsp, st->st_ex_dev,
				       st->st_ex_ino)) {
			return fsp;
		}
	}
	return NULL;
}

/*
 * Does acl, on a file of owner, group and type isdir, grant ut every bit
 * of mask by the kernel's rules (richacl_permission(), with the owner's
 * implicit write_attributes, write_acl and write_owner; only
 * write_attributes under RICHACL_OWNER_RIGHTS)?  A NULL acl (only a mode)
 * gets no for an answer, as in richacl_kernel_grants().
 */
static bool richacl_acl_grants(const struct richacl *acl,
			       uid_t owner, gid_t group, bool isdir,
			       const struct security_unix_token *ut,
			       uint32_t mask)
{
	struct richacl_cred cred = {
		.uid = ut->uid,
		.gid = ut->gid,
		.ngroups = ut->ngroups,
	};
	struct richacl_file file = {
		.owner = owner,
		.group = group,
		.isdir = isdir,
	};
	uint32_t *groups = NULL;
	uint32_t i;
	bool ok;

	if (owner == ut->uid) {
		uint32_t implicit = RICHACE_POSIX_OWNER_ALLOWED;

		/*
		 * owner_rights: the entries decide the owner's write_acl, and
		 * whether it may give the file to another of its groups
		 * (chgrp_ok(): only if it keeps write_acl, or through
		 * write_owner).  Asking the entries for write_owner where the
		 * kernel would also accept write_acl refuses more, never less.
		 */
		if (acl != NULL && (acl->a_flags & RICHACL_OWNER_RIGHTS)) {
			implicit = RICHACE_WRITE_ATTRIBUTES;
		}
		mask &= ~implicit;
		if (mask == 0) {
			return true;
		}
	}
	if (acl == NULL) {
		errno = EACCES;
		return false;
	}
	groups = talloc_array(NULL, uint32_t, ut->ngroups + 1);
	if (groups == NULL) {
		errno = ENOMEM;
		return false;
	}
	for (i = 0; i < ut->ngroups; i++) {
		groups[i] = ut->groups[i];
	}
	cred.groups = groups;
	ok = richacl_permission(acl, &file, &cred, mask) == 0;
	TALLOC_FREE(groups);
	if (!ok) {
		errno = EACCES;
	}
	return ok;
}

/*
 * The richacl of the file that path names (a /proc/self/fd link), decoded
 * on mem_ctx; *acl is NULL if it has only a mode.  False on any error.
 */
static bool richacl_path_acl(TALLOC_CTX *mem_ctx, const char *path,
			     struct richacl **_acl)
{
	struct richacl_error err = { .code = 0 };
	struct richacl *acl = NULL;
	DATA_BLOB blob = data_blob_null;

	*_acl = NULL;
	if (richacl_read_value(mem_ctx, richacl_get_path,
			       discard_const_p(char, path), &blob) == -1) {
		return errno == ENODATA;
	}
	if (richacl_from_xattr(blob.data, blob.length, &acl, &err) != 0 ||
	    !richacl_talloc_own(mem_ctx, acl)) {
		return false;
	}
	*_acl = acl;
	return true;
}

/*
 * May ut remove the directory fd (opened by root) from its parent, by the
 * kernel's rules?  Either execute and delete_child on the parent (with the
 * sticky-bit rule), or execute on the parent and delete on the directory.
 * The parent is the directory's ".." now, which is the directory an rmdir
 * of it acts on.  Must be called as root: the user may not look up ".." in
 * a directory it cannot search.
 */
static bool richacl_may_delete_dir(int fd, const struct stat *st,
				   const struct security_unix_token *ut)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl *pacl = NULL, *acl = NULL;
	struct stat pst;
	char *ppath = NULL, *path = NULL;
	bool ok = false;
	int pfd;

	pfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1) {
		goto out;
	}
	ppath = talloc_asprintf(frame, "/proc/self/fd/%d", pfd);
	path = talloc_asprintf(frame, "/proc/self/fd/%d", fd);
	if (ppath == NULL || path == NULL || fstat(pfd, &pst) == -1 ||
	    !richacl_path_acl(frame, ppath, &pacl) ||
	    !richacl_acl_grants(pacl, pst.st_uid, pst.st_gid, true, ut,
				RICHACE_EXECUTE)) {
		goto out;
	}
	if (richacl_acl_grants(pacl, pst.st_uid, pst.st_gid, true, ut,
			       RICHACE_DELETE_CHILD) &&
	    (!(pst.st_mode & S_ISVTX) || pst.st_uid == ut->uid ||
	     st->st_uid == ut->uid)) {
		ok = true;
		goto out;
	}
	ok = richacl_path_acl(frame, path, &acl) &&
	     richacl_acl_grants(acl, st->st_uid, st->st_gid, true, ut,
				RICHACE_DELETE);
out:
	if (pfd != -1) {
		close(pfd);
	}
	TALLOC_FREE(frame);
	return ok;
}

/*
 * The kernel refused the user an O_RDONLY|O_DIRECTORY open (EACCES).  If
 * it is one of these, open the directory as root, and keep the descriptor
 * only if it is the directory expected:
 *  - smbd's open of the directory richacl_mkdirat() just made, or a
 *    reopen through the creator's handle: the directory must be the new
 *    one, owned by the user;
 *  - smbd's internal open to see whether a directory is empty before it
 *    sets delete-on-close (an internal directory handle): another handle
 *    of this connection must hold DELETE on it, and the user must own the
 *    directory or be allowed to delete it by the kernel's rules.  Whether
 *    a directory is empty is what that user learns from rmdir anyway;
 *    smbd's internal listings (can_delete_directory_fsp(), the veto files
 *    rmdir_internals() removes, as the user) return no name to a client,
 *    and a client's own listing needs FILE_LIST_DIRECTORY on its handle.
 * Returns the descriptor, or -1 with errno EACCES.
 */
static int richacl_open_dir_for(struct vfs_handle_struct *handle,
				struct richacl_config *config,
				const struct files_struct *dirfsp,
				const struct smb_filename *smb_fname,
				struct files_struct *fsp,
				const struct vfs_open_how *how)
{
	const struct security_unix_token *cur = get_current_utok(handle->conn);
	struct richacl_fsp_ext *ext = VFS_FETCH_FSP_EXTENSION(handle, fsp);
	struct security_unix_token user;
	const struct security_unix_token *ut = &user;
	struct files_struct *deleter = NULL;
	SMB_STRUCT_STAT sbuf;
	bool owner_only = true, same = false, allowed = false;
	const char *why = NULL;
	dev_t dev;
	ino_t ino;
	struct stat st;
	int fd, err;

	if ((how->flags & (O_ACCMODE | O_DIRECTORY | O_CREAT)) !=
	    (O_RDONLY | O_DIRECTORY) || cur == NULL || cur->uid == 0) {
		goto refuse;
	}
	/* become_root() changes what get_current_utok() points to. */
	user = *cur;
	if (config->new_dir_pending) {
		dev = config->new_dir_dev;
		ino = config->new_dir_ino;
		why = "the creator's open of a new directory";
	} else if (ext != NULL && ext->created) {
		dev = ext->dev;
		ino = ext->ino;
		why = "a reopen through the creator's handle";
	} else if (fsp->fsp_flags.is_dirfsp &&
		   fsp->access_mask == FILE_LIST_DIRECTORY &&
		   SMB_VFS_NEXT_FSTATAT(handle, dirfsp, smb_fname, &sbuf,
					AT_SYMLINK_NOFOLLOW) == 0 &&
		   S_ISDIR(sbuf.st_ex_mode)) {
		dev = sbuf.st_ex_dev;
		ino = sbuf.st_ex_ino;
		deleter = richacl_delete_handle(handle, &sbuf, false);
		if (deleter == NULL) {
			goto refuse;
		}
		owner_only = false;
		why = "the emptiness check of a directory to be deleted";
	} else {
		goto refuse;
	}

	become_root();
	fd = SMB_VFS_NEXT_OPENAT(handle, dirfsp, smb_fname, fsp, how);
	err = errno;
	if (fd != -1 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == dev && st.st_ino == ino) {
		allowed = st.st_uid == ut->uid ||
			  (!owner_only && richacl_may_delete_dir(fd, &st, ut));
		same = true;
	}
	unbecome_root();
	if (fd == -1) {
		DBG_INFO("%s: %s: the open as root failed too: %s\n",
			 smb_fname_str_dbg(smb_fname), why, strerror(err));
		goto refuse;
	}
	if (!same) {
		DBG_NOTICE("%s: %s: another directory is there now\n",
			   smb_fname_str_dbg(smb_fname), why);
		goto close_refuse;
	}
	if (!allowed) {
		DBG_INFO("%s: %s: uid %u may not delete it\n",
			 smb_fname_str_dbg(smb_fname), why,
			 (unsigned int)ut->uid);
		goto close_refuse;
	}
	DBG_INFO("%s: %s for uid %u, which the kernel refused\n",
		 smb_fname_str_dbg(smb_fname), why, (unsigned int)ut->uid);
	return fd;

close_refuse:
	close(fd);
refuse:
	errno = EACCES;
	return -1;
}

/*
 * What richacl_stat_open() asks of the object behind the O_PATH descriptor
 * fd (st: its fstat()) before it serves the handle.
 */
typedef bool (*richacl_stat_open_ok)(int fd, const struct stat *st,
				     const struct security_unix_token *ut,
				     uint32_t mask);

/*
 * Serve a handle that the kernel refused to open as smbd asked (how) as a
 * stat open: an O_PATH descriptor (O_DIRECTORY with dir) with is_pathref
 * set, which smbd serves like the handles it opens for attributes or the
 * ACL alone (vfs.h, "The fsp flags is_pathref and is_fsa"), if ok() finds
 * that the kernel grants the user (ut) what the handle is for (mask).
 * what names the handle in the log.  Returns the descriptor, or -1 with
 * errno EACCES.
 */
static int richacl_stat_open(struct vfs_handle_struct *handle,
			     const struct files_struct *dirfsp,
			     const struct smb_filename *smb_fname,
			     struct files_struct *fsp,
			     const struct vfs_open_how *how,
			     bool dir,
			     richacl_stat_open_ok ok,
			     const struct security_unix_token *ut,
			     uint32_t mask,
			     const char *what)
{
	struct vfs_open_how path_how = {
		.flags = O_PATH | (dir ? O_DIRECTORY : 0) |
			 (how->flags & (O_NOFOLLOW | O_CLOEXEC)),
	};
	struct stat st;
	int fd;

	fd = SMB_VFS_NEXT_OPENAT(handle, dirfsp, smb_fname, fsp, &path_how);
	if (fd == -1) {
		goto refuse;
	}
	if (fstat(fd, &st) == -1 || !ok(fd, &st, ut, mask)) {
		DBG_INFO("%s: the kernel does not grant %s either\n",
			 smb_fname_str_dbg(smb_fname), what);
		close(fd);
		goto refuse;
	}
	fsp->fsp_flags.is_pathref = true;
	DBG_INFO("%s: a handle for %s, served as a stat open\n",
		 smb_fname_str_dbg(smb_fname), what);
	return fd;
refuse:
	errno = EACCES;
	return -1;
}

/* A regular file that the kernel lets the user execute (effective ids). */
static bool richacl_may_execute(int fd, const struct stat *st,
				const struct security_unix_token *ut,
				uint32_t mask)
{
	return S_ISREG(st->st_mode) &&
	       faccessat(fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0;
}

/*
 * An open for execute without read_data (FILE_EXECUTE, as GENERIC_EXECUTE
 * maps to): smbd opens a data descriptor O_RDONLY, for which the kernel
 * wants read_data, and Linux has no execute-only open.  When the kernel
 * refused that open, and grants the user execute on the file (faccessat()
 * with the effective ids: the kernel's own verdict), the handle becomes a
 * stat open (richacl_stat_open()).  The handle then exists, as on Windows;
 * a read through it answers ACCESS_DENIED (CHECK_READ_SMB2()), so the
 * kernel still never grants read_data.  Returns the descriptor, or -1
 * with errno EACCES.
 */
static int richacl_open_exec_only(struct vfs_handle_struct *handle,
				  const struct files_struct *dirfsp,
				  const struct smb_filename *smb_fname,
				  struct files_struct *fsp,
				  const struct vfs_open_how *how)
{
	uint32_t data = FILE_READ_DATA | FILE_WRITE_DATA | FILE_APPEND_DATA;

	/*
	 * O_CREAT without O_EXCL (FILE_OPEN_IF) only for a file that
	 * existed: the O_PATH open creates nothing.
	 */
	if ((how->flags & (O_ACCMODE | O_TRUNC | O_DIRECTORY)) != O_RDONLY ||
	    ((how->flags & O_CREAT) &&
	     ((how->flags & O_EXCL) || !VALID_STAT(fsp->fsp_name->st))) ||
	    !(fsp->access_mask & FILE_EXECUTE) ||
	    (fsp->access_mask & data) || fsp->fsp_flags.is_directory ||
	    fsp_is_alternate_stream(fsp) || is_named_stream(smb_fname)) {
		errno = EACCES;
		return -1;
	}
	return richacl_stat_open(handle, dirfsp, smb_fname, fsp, how, false,
				 richacl_may_execute, NULL, 0,
				 "execute without read");
}

/* A directory whose acl grants ut mask by the kernel's rules. */
static bool richacl_may_add(int fd, const struct stat *st,
			    const struct security_unix_token *ut,
			    uint32_t mask)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl *acl = NULL;
	char *path = NULL;
	bool ok;

	path = talloc_asprintf(frame, "/proc/self/fd/%d", fd);
	ok = path != NULL && S_ISDIR(st->st_mode) &&
	     richacl_path_acl(frame, path, &acl) &&
	     richacl_acl_grants(acl, st->st_uid, st->st_gid, true, ut, mask);
	TALLOC_FREE(frame);
	return ok;
}

/*
 * A directory handle that may add files or subdirectories but not list
 * (GENERIC_WRITE on a directory): smbd reopens it O_RDONLY|O_DIRECTORY so
 * that an SMB2 FLUSH has a descriptor (open_directory()), and the kernel
 * wants list_directory for that.  Creating in the directory goes by name
 * and is the kernel's decision each time; the handle itself needs no
 * readable descriptor.  When the kernel refused the reopen, and the acl
 * grants the user the add rights asked for by the kernel's rules
 * (richacl_permission()), the handle becomes a stat open
 * (richacl_stat_open()).  Internal directory opens (is_dirfsp), which
 * list, are never served.  Returns the descriptor, or -1 with errno EACCES.
 */
static int richacl_open_dir_add_only(struct vfs_handle_struct *handle,
				     const struct files_struct *dirfsp,
				     const struct smb_filename *smb_fname,
				     struct files_struct *fsp,
				     const struct vfs_open_how *how)
{
	const struct security_unix_token *ut = get_current_utok(handle->conn);
	uint32_t mask = 0;

	if (fsp->access_mask & FILE_ADD_FILE) {
		mask |= RICHACE_ADD_FILE;
	}
	if (fsp->access_mask & FILE_ADD_SUBDIRECTORY) {
		mask |= RICHACE_ADD_SUBDIRECTORY;
	}
	if ((how->flags & (O_ACCMODE | O_CREAT | O_DIRECTORY)) !=
	    (O_RDONLY | O_DIRECTORY) || mask == 0 || ut == NULL ||
	    (fsp->access_mask & FILE_LIST_DIRECTORY) ||
	    fsp->fsp_flags.is_dirfsp) {
		errno = EACCES;
		return -1;
	}
	return richacl_stat_open(handle, dirfsp, smb_fname, fsp, how, true,
				 richacl_may_add, ut, mask,
				 "adding without listing");
}

/*
 * Take back the delete that richacl_unlink_as_creator() granted: written
 * is the acl it wrote (orig plus grant first).  If the acl is still that
 * one, put orig back.  If somebody with write_acl changed it meanwhile
 * (the object may live on under another link), keep that change and take
 * out only the grant, if it is still the first entry, and the delete it
 * added to the owner mask.  There is no compare-and-swap for xattrs: a
 * write between this read and this write is still lost, a window of two
 * system calls.
 */
static void richacl_take_back_grant(struct vfs_handle_struct *handle,
				    struct files_struct *fsp,
				    const DATA_BLOB *orig,
				    const DATA_BLOB *written,
				    const struct richace *grant,
				    uint32_t mask_had_delete)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_error rerr = { .code = 0 };
	struct richacl *acl = NULL;
	DATA_BLOB now = data_blob_null, blob = data_blob_null;
	const struct richace *first = NULL;
	const char *what = NULL;

	if (richacl_read_blob(handle, fsp, frame, &now) == -1) {
		what = "cannot read it";
		goto fail;
	}
	if (data_blob_cmp(&now, written) == 0) {
		if (SMB_VFS_NEXT_FSETXATTR(handle, fsp, RICHACL_XATTR,
					   orig->data, orig->length, 0) == -1) {
			what = "cannot write it";
			goto fail;
		}
		goto out;
	}
	if (richacl_from_xattr(now.data, now.length, &acl, &rerr) != 0 ||
	    !richacl_talloc_own(frame, acl)) {
		what = "cannot decode it";
		goto fail;
	}
	first = acl->a_count > 0 ? &acl->a_entries[0] : NULL;
	if (first == NULL || first->e_type != grant->e_type ||
	    first->e_flags != grant->e_flags ||
	    first->e_mask != grant->e_mask || first->e_id != grant->e_id) {
		DBG_NOTICE("%s: the acl was changed after the creator's "
			   "grant, and the grant is gone: left as it is\n",
			   fsp_str_dbg(fsp));
		goto out;
	}
	richacl_delete_entry(acl, 0);
	if (!mask_had_delete) {
		acl->a_owner_mask &= ~RICHACE_DELETE;
	}
	if (!NT_STATUS_IS_OK(richacl_encode(frame, fsp_str_dbg(fsp), acl,
					    &blob)) ||
	    SMB_VFS_NEXT_FSETXATTR(handle, fsp, RICHACL_XATTR, blob.data,
				   blob.length, 0) == -1) {
		what = "cannot write it";
		goto fail;
	}
	DBG_NOTICE("%s: the acl was changed after the creator's grant: "
		   "only the grant is taken out\n", fsp_str_dbg(fsp));
	goto out;
fail:
	DBG_ERR("%s: cannot take back the creator's delete grant (%s): "
		"owner@ keeps delete: %s\n", fsp_str_dbg(fsp), what,
		strerror(errno));
out:
	TALLOC_FREE(frame);
}

/*
 * The unlink (or rmdir) of a delete-on-close that the creator's handle
 * set, which the kernel refused: the creator, who owns the object, grants
 * itself delete on it with an owner@ entry put first, through its handle
 * and with the kernel's consent (write_acl), unlinks as itself, and puts
 * the acl back.  The kernel judges every step for the user; a name that
 * now leads to another object is judged for that object.  A file with a
 * set-id bit is left alone: the user's acl write would clear the setgid
 * bit of a group it is not in.
 */
static int richacl_unlink_as_creator(struct vfs_handle_struct *handle,
				     struct files_struct *dirfsp,
				     const struct smb_filename *smb_fname,
				     int flags)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_error rerr = { .code = 0 };
	struct richacl *acl = NULL;
	struct richace grant = {
		.e_type = RICHACE_ACCESS_ALLOWED_ACE_TYPE,
		.e_flags = RICHACE_SPECIAL_WHO,
		.e_mask = RICHACE_DELETE,
		.e_id = RICHACE_OWNER_SPECIAL_ID,
	};
	struct files_struct *fsp = NULL;
	DATA_BLOB orig = data_blob_null, blob = data_blob_null;
	SMB_STRUCT_STAT sbuf;
	NTSTATUS status;
	uint32_t mask_had_delete;
	int ret = -1, err = EACCES;

	if (SMB_VFS_NEXT_FSTATAT(handle, dirfsp, smb_fname, &sbuf,
				 AT_SYMLINK_NOFOLLOW) == -1 ||
	    sbuf.st_ex_uid != get_current_uid(handle->conn) ||
	    (sbuf.st_ex_mode & (S_ISUID | S_ISGID))) {
		goto out;
	}
	fsp = richacl_delete_handle(handle, &sbuf, true);
	if (fsp == NULL || richacl_read_blob(handle, fsp, frame, &orig) == -1) {
		goto out;
	}
	if (richacl_from_xattr(orig.data, orig.length, &acl, &rerr) != 0 ||
	    !richacl_talloc_own(frame, acl) ||
	    richacl_insert_entry(acl, 0, &grant) != 0) {
		goto out;
	}
	mask_had_delete = acl->a_owner_mask & RICHACE_DELETE;
	if (acl->a_flags & RICHACL_MASKED) {
		acl->a_owner_mask |= RICHACE_DELETE;
	}
	status = richacl_encode(frame, fsp_str_dbg(fsp), acl, &blob);
	if (!NT_STATUS_IS_OK(status) ||
	    SMB_VFS_NEXT_FSETXATTR(handle, fsp, RICHACL_XATTR, blob.data,
				   blob.length, 0) == -1) {
		goto out;
	}
	ret = SMB_VFS_NEXT_UNLINKAT(handle, dirfsp, smb_fname, flags);
	err = errno;
	richacl_take_back_grant(handle, fsp, &orig, &blob, &grant,
				mask_had_delete);
	DBG_INFO("%s: the creator's delete-on-close: %s\n",
		 fsp_str_dbg(fsp), ret == 0 ? "done" : strerror(err));
out:
	TALLOC_FREE(frame);
	errno = err;
	return ret;
}

static int richacl_unlinkat(struct vfs_handle_struct *handle,
			    struct files_struct *dirfsp,
			    const struct smb_filename *smb_fname,
			    int flags)
{
	int ret = SMB_VFS_NEXT_UNLINKAT(handle, dirfsp, smb_fname, flags);

	if (ret == 0 || errno != EACCES || is_named_stream(smb_fname)) {
		return ret;
	}
	return richacl_unlink_as_creator(handle, dirfsp, smb_fname, flags);
}

/*
 * The fix-up of a directory richacl_mkdirat() made, if fd is that one.
 * The acl is stored as root to keep the kernel's setgid bit only if uid
 * (the connected user) owns the directory: the name richacl_mkdirat()
 * looked up may by then be another directory that somebody swapped in.
 */
static void richacl_fix_new_dir(struct vfs_handle_struct *handle,
				struct richacl_config *config,
				const struct files_struct *dirfsp,
				const struct smb_filename *smb_fname,
				struct files_struct *fsp,
				int fd, uid_t uid)
{
	TALLOC_CTX *frame = NULL;
	char *parent = NULL;
	char *path = NULL;
	struct stat st;

	if (!config->new_dir_pending) {
		return;
	}
	config->new_dir_pending = false;
	if (dirfsp == NULL || fstat(fd, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_dev != config->new_dir_dev ||
	    st.st_ino != config->new_dir_ino) {
		return;
	}
	richacl_note_creator(handle, fsp, &st, uid);
	if (!config->fix_create_masks) {
		return;
	}
	frame = talloc_stackframe();
	parent = richacl_parent_path(frame, fsp_get_pathref_fd(dirfsp),
				     smb_fname->base_name);
	/* fd may be O_PATH: reach the directory through /proc/self/fd. */
	path = talloc_asprintf(frame, "/proc/self/fd/%d", fd);
	if (parent != NULL && path != NULL) {
		richacl_inherit_in_full(parent, -1, path, true,
					(st.st_mode & S_ISGID) != 0 &&
					st.st_uid == uid,
					smb_fname->base_name,
					richacl_ext_of(handle, fsp));
	}
	TALLOC_FREE(frame);
}

static int richacl_openat(struct vfs_handle_struct *handle,
			  const struct files_struct *dirfsp,
			  const struct smb_filename *smb_fname,
			  struct files_struct *fsp,
			  const struct vfs_open_how *how)
{
	TALLOC_CTX *frame = NULL;
	struct richacl_config *config = NULL;
	char *parent = NULL;
	struct richacl_fsp_ext *ext = NULL;
	struct vfs_open_how my_how;
	struct stat st;
	bool inherited;
	int fd;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return -1);

	my_how = *how;
	if (richacl_write_only(fsp, how)) {
		my_how.flags = (my_how.flags & ~O_ACCMODE) | O_WRONLY;
	}
	if (richacl_append_only(fsp, &my_how)) {
		/*
		 * An append-only handle (S-A4): smbd opens it O_WRONLY, for
		 * which the kernel rightly demands write_data.  O_APPEND asks
		 * for append_data only, and makes every write through the
		 * handle go to the end of the file, as on Windows.
		 */
		my_how.flags |= O_APPEND;
	}
	fd = SMB_VFS_NEXT_OPENAT(handle, dirfsp, smb_fname, fsp, &my_how);
	if (fd == -1 && errno == EACCES) {
		fd = richacl_open_dir_for(handle, config, dirfsp, smb_fname,
					  fsp, &my_how);
	}
	if (fd == -1 && errno == EACCES) {
		fd = richacl_open_exec_only(handle, dirfsp, smb_fname, fsp,
					    &my_how);
	}
	if (fd == -1 && errno == EACCES) {
		fd = richacl_open_dir_add_only(handle, dirfsp, smb_fname, fsp,
					       &my_how);
	}
	if (fd == -1) {
		config->new_dir_pending = false;
		return fd;
	}
	richacl_fix_new_dir(handle, config, dirfsp, smb_fname, fsp, fd,
			    get_current_uid(handle->conn));
	/* smbd creates with O_CREAT|O_EXCL: only then do we know. */
	if ((how->flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL) ||
	    dirfsp == NULL || fsp_is_alternate_stream(fsp) ||
	    is_named_stream(smb_fname)) {
		return fd;
	}
	if (fstat(fd, &st) == 0) {
		richacl_note_creator(handle, fsp, &st,
				     get_current_uid(handle->conn));
	}
	if (!config->fix_create_masks) {
		return fd;
	}

	frame = talloc_stackframe();
	parent = richacl_parent_path(frame, fsp_get_pathref_fd(dirfsp),
				     smb_fname->base_name);
	ext = richacl_ext_of(handle, fsp);
	inherited = parent != NULL &&
		    richacl_inherit_in_full(parent, fd, NULL, false, false,
					    smb_fname->base_name, ext);
	TALLOC_FREE(frame);

	if (inherited && ext != NULL) {
		ext->chmod_marker = true;
		ext->create_mode = how->mode & 07777;
	}
	return fd;
}

/*
 * A new directory gets its inheritance fixed up on the descriptor smbd
 * opens it with, right after the mkdir (mkdir_internal() calls fd_openat()
 * on the new name): richacl_mkdirat() notes the directory's device and
 * inode, looked up through the modules below (name translation, no
 * symlink following), and the next openat fixes up the acl if the
 * descriptor it opened is that inode.  A rename in between, or a mkdir by
 * another module that opens nothing afterwards (vfs_recycle), gets no
 * fix-up: the directory then keeps the kernel's create-time masks.
 */
static int richacl_mkdirat(struct vfs_handle_struct *handle,
			   struct files_struct *dirfsp,
			   const struct smb_filename *smb_fname,
			   mode_t mode)
{
	struct richacl_config *config = NULL;
	struct smb_filename *name = NULL;
	int ret;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return -1);

	config->new_dir_pending = false;
	ret = SMB_VFS_NEXT_MKDIRAT(handle, dirfsp, smb_fname, mode);
	if (ret == -1) {
		return ret;
	}
	name = cp_smb_filename(talloc_tos(), smb_fname);
	if (name == NULL) {
		return ret;
	}
	if (SMB_VFS_NEXT_FSTATAT(handle, dirfsp, name, &name->st,
				 AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(name->st.st_ex_mode)) {
		config->new_dir_pending = true;
		config->new_dir_dev = name->st.st_ex_dev;
		config->new_dir_ino = name->st.st_ex_ino;
	} else {
		DBG_NOTICE("%s: cannot stat the new directory: %s\n",
			   smb_fname_str_dbg(smb_fname), strerror(errno));
	}
	TALLOC_FREE(name);
	return ret;
}

/* ---- smbd's root-acting shortcuts get the kernel's verdict ---- */

/*
 * smbd performs some operations as root (become_root()) once its own
 * check of the descriptor allowed them:
 *  - set_ea_dos_attribute(): DOS attributes and the create time, stored in
 *    user.DOSATTRIB, when smbd's check grants FILE_WRITE_ATTRIBUTES (or,
 *    with "dos filemode", write access);
 *  - file_ntimes(): the times, with "dos filetimes" (default yes);
 *  - file_set_dosmode(): chmod, with "dos filemode";
 *  - try_chown() (not reached from this module, see richacl_chown()) and
 *    the "inherit owner" chowns of new files: fchown.
 * smbd's check can honour an entry the kernel never matches (a SID without
 * a unix id that is in the user's token), so root would do what the
 * kernel refuses the user.  Each of these calls, made as root on behalf of
 * a user who is not root and holds no SeRestorePrivilege, gets the
 * kernel's verdict for that user's uid and groups instead: the owner may
 * set attributes, times and the mode; anybody else needs write_attributes
 * (times, DOS attributes) or write_acl (mode) from the acl, as checked by
 * richacl_permission(), the model the differential tests hold to the
 * kernel.  A refusal is EACCES, so smbd answers ACCESS_DENIED.
 */

/*
 * The user on whose behalf smbd runs as root, or NULL if smbd does not run
 * as root right now, or runs as root for root or for a user holding
 * SeRestorePrivilege (which grants every write, as root's capabilities).
 */
static const struct security_unix_token *richacl_root_acting_for(
	struct vfs_handle_struct *handle)
{
	const struct auth_session_info *si = handle->conn->session_info;

	if (geteuid() != 0 || si == NULL || si->unix_token == NULL ||
	    si->unix_token->uid == 0) {
		return NULL;
	}
	if (lp_enable_privileges() && si->security_token != NULL &&
	    security_token_has_privilege(si->security_token,
					 SEC_PRIV_RESTORE)) {
		return NULL;
	}
	return si->unix_token;
}

/*
 * Does the kernel grant ut every bit of mask on fsp (with the owner's
 * implicit write_attributes, write_acl and write_owner)?  On error the
 * answer is no, with errno set.
 */
static bool richacl_kernel_grants(struct vfs_handle_struct *handle,
				  struct files_struct *fsp,
				  const struct security_unix_token *ut,
				  uint32_t mask)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl *acl = NULL;
	SMB_STRUCT_STAT st;
	NTSTATUS status;
	bool ok = false;

	if (SMB_VFS_NEXT_FSTAT(handle, fsp, &st) == -1) {
		goto out;
	}
	if (st.st_ex_uid != ut->uid ||
	    (mask & ~RICHACE_WRITE_ATTRIBUTES) != 0) {
		status = richacl_fget(handle, fsp, frame, &acl, NULL);
		if (!NT_STATUS_IS_OK(status)) {
			errno = map_errno_from_nt_status(status);
			goto out;
		}
	}
	/*
	 * acl NULL is only a mode: the kernel lets nobody but the owner set
	 * times or the mode, whatever the mode says.
	 */
	ok = richacl_acl_grants(acl, st.st_ex_uid, st.st_ex_gid,
				S_ISDIR(st.st_ex_mode), ut, mask);
out:
	TALLOC_FREE(frame);
	return ok;
}

/*
 * Some of smbd's root-acting calls are made with the user's own
 * credentials instead: chmod and chown (whose set-user-ID and
 * set-group-ID rules, and owner_rights, the kernel applies to the caller:
 * root keeps bits that the user's call clears or is refused) and the read
 * of the DOS attributes (which the kernel lets only readers of the file
 * see).  The kernel then decides as it decides for a local process of the
 * same uid and groups; the module does not model those rules.
 * richacl_become_user() pushes the user's security context on smbd's
 * stack (above the root context of become_root()), richacl_unbecome_user()
 * pops it; each call is logged with its reason at DBG_DEBUG (level 10).
 */
static void richacl_become_user(const struct vfs_handle_struct *handle,
				const struct files_struct *fsp,
				const struct security_unix_token *ut,
				const char *why)
{
	const struct auth_session_info *si = handle->conn->session_info;

	if (!push_sec_ctx()) {
		/*
		 * A failed push leaves the stack in an unknown state, and
		 * the caller's unbecome_root() might then leave smbd root
		 * for the rest of the request: stop, as become_root() does.
		 */
		DBG_ERR("%s: cannot push a security context to %s as uid "
			"%u\n", fsp_str_dbg(fsp), why, (unsigned int)ut->uid);
		smb_panic("vfs_richacl: push_sec_ctx() failed");
	}
	set_sec_ctx(ut->uid, ut->gid, ut->ngroups, ut->groups,
		    si != NULL ? si->security_token : NULL);
	DBG_DEBUG("%s: smbd would %s as root: done as uid %u instead\n",
		  fsp_str_dbg(fsp), why, (unsigned int)ut->uid);
}

static void richacl_unbecome_user(void)
{
	int saved_errno = errno;

	pop_sec_ctx();
	errno = saved_errno;
}

static bool richacl_unix_token_has_gid(const struct security_unix_token *ut,
				       gid_t gid)
{
	uint32_t i;

	if (ut->gid == gid) {
		return true;
	}
	for (i = 0; i < ut->ngroups; i++) {
		if (ut->groups[i] == gid) {
			return true;
		}
	}
	return false;
}

/* Refuse a root-acting call for ut that the kernel would refuse ut. */
static bool richacl_root_call_ok(struct vfs_handle_struct *handle,
				 struct files_struct *fsp,
				 const struct security_unix_token *ut,
				 uint32_t mask,
				 const char *what)
{
	if (richacl_kernel_grants(handle, fsp, ut, mask)) {
		return true;
	}
	DBG_NOTICE("%s: smbd would %s as root for uid %u, which the kernel "
		   "refuses that user: refused\n", fsp_str_dbg(fsp), what,
		   (unsigned int)ut->uid);
	return false;
}

/*
 * fget_ea_dos_attribute() reads user.DOSATTRIB again as root when the
 * user may not read it, so that a directory listing shows every entry's
 * DOS attributes and create time (on Windows, listing a directory lets
 * one read its entries' attributes).  The kernel lets only those who may
 * read a file's user xattrs read them; a local process of the same user
 * gets EACCES.  So the read is repeated as the user, and a refusal stays
 * a refusal: smbd then shows the attributes it derives from the mode.
 */
static ssize_t richacl_fgetxattr(struct vfs_handle_struct *handle,
				 struct files_struct *fsp,
				 const char *name,
				 void *value,
				 size_t size)
{
	const struct security_unix_token *ut = NULL;
	ssize_t ret;

	if (strequal(name, SAMBA_XATTR_DOS_ATTRIB)) {
		ut = richacl_root_acting_for(handle);
	}
	if (ut == NULL) {
		return SMB_VFS_NEXT_FGETXATTR(handle, fsp, name, value, size);
	}
	richacl_become_user(handle, fsp, ut, "read the DOS attributes");
	ret = SMB_VFS_NEXT_FGETXATTR(handle, fsp, name, value, size);
	richacl_unbecome_user();
	if (ret == -1 && (errno == EACCES || errno == EPERM)) {
		DBG_INFO("%s: uid %u may not read the DOS attributes: shown "
			 "from the mode\n", fsp_str_dbg(fsp),
			 (unsigned int)ut->uid);
	}
	return ret;
}

/*
 * A user whom richacl_fgetxattr() refused the DOS attributes of a file
 * sees those that smbd derives from the mode and name, as with "store
 * dos attributes = no" (fdos_mode() falls back to them on
 * NT_STATUS_NOT_IMPLEMENTED only), instead of none.
 */
static NTSTATUS richacl_fget_dos_attributes(struct vfs_handle_struct *handle,
					    struct files_struct *fsp,
					    uint32_t *dosmode)
{
	NTSTATUS status;

	status = SMB_VFS_NEXT_FGET_DOS_ATTRIBUTES(handle, fsp, dosmode);
	if (NT_STATUS_EQUAL(status, NT_STATUS_ACCESS_DENIED)) {
		return NT_STATUS_NOT_IMPLEMENTED;
	}
	return status;
}

/*
 * The asynchronous DOS attribute read ("smbd async dosmode = yes") reads
 * user.DOSATTRIB again as root in a worker thread when the user may not,
 * past richacl_fgetxattr().  Answering NT_STATUS_NOT_IMPLEMENTED makes
 * smbd read them synchronously (fdos_mode()), where the read as root is
 * made as the user.
 */
struct richacl_get_dos_attributes_state {
	uint32_t dosmode;
};

static struct tevent_req *richacl_get_dos_attributes_send(
	TALLOC_CTX *mem_ctx,
	struct tevent_context *ev,
	struct vfs_handle_struct *handle,
	files_struct *dir_fsp,
	struct smb_filename *smb_fname)
{
	struct richacl_get_dos_attributes_state *state = NULL;
	struct tevent_req *req = NULL;

	req = tevent_req_create(mem_ctx, &state,
				struct richacl_get_dos_attributes_state);
	if (req == NULL) {
		return NULL;
	}
	tevent_req_error(req, ENOSYS);
	return tevent_req_post(req, ev);
}

static NTSTATUS richacl_get_dos_attributes_recv(struct tevent_req *req,
						struct vfs_aio_state *aio_state,
						uint32_t *dosmode)
{
	enum tevent_req_state state;
	uint64_t err;

	if (tevent_req_is_error(req, &state, &err)) {
		tevent_req_received(req);
		return NT_STATUS_NOT_IMPLEMENTED;
	}
	tevent_req_received(req);
	return NT_STATUS_OK;
}

static int richacl_fsetxattr(struct vfs_handle_struct *handle,
			     struct files_struct *fsp,
			     const char *name,
			     const void *value,
			     size_t size,
			     int flags)
{
	const struct security_unix_token *ut = richacl_root_acting_for(handle);
	struct richacl_config *config = NULL;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return -1);
	if (ut != NULL && strequal(name, SAMBA_XATTR_DOS_ATTRIB) &&
	    !richacl_root_call_ok(handle, fsp, ut, RICHACE_WRITE_ATTRIBUTES,
				  "set DOS attributes")) {
		config->dos_write_refused = true;
		errno = EACCES;
		return -1;
	}
	return SMB_VFS_NEXT_FSETXATTR(handle, fsp, name, value, size, flags);
}

/*
 * set_ea_dos_attribute() answers NT_STATUS_OK when its root-acting write
 * of user.DOSATTRIB fails (the status of its access check is kept), so
 * the client would be told that attributes it cannot set were set.  Say
 * what happened instead.
 */
static NTSTATUS richacl_fset_dos_attributes(struct vfs_handle_struct *handle,
					    struct files_struct *fsp,
					    uint32_t dosmode)
{
	struct richacl_config *config = NULL;
	NTSTATUS status;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return NT_STATUS_INTERNAL_ERROR);
	config->dos_write_refused = false;
	status = SMB_VFS_NEXT_FSET_DOS_ATTRIBUTES(handle, fsp, dosmode);
	if (NT_STATUS_IS_OK(status) && config->dos_write_refused) {
		status = NT_STATUS_ACCESS_DENIED;
	}
	/*
	 * The flag stays set: vfs_default's fntimes stores the create time
	 * through here and ignores the status; richacl_fntimes() reads it.
	 */
	return status;
}

/*
 * vfs_default stores the create time in user.DOSATTRIB and ignores the
 * result; if richacl_fsetxattr() refused that write, say so.
 */
static int richacl_fntimes(struct vfs_handle_struct *handle,
			   struct files_struct *fsp,
			   struct smb_file_time *ft)
{
	const struct security_unix_token *ut = richacl_root_acting_for(handle);
	struct richacl_config *config = NULL;
	int ret;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return -1);
	if (ut != NULL &&
	    !richacl_root_call_ok(handle, fsp, ut, RICHACE_WRITE_ATTRIBUTES,
				  "set times")) {
		errno = EACCES;
		return -1;
	}
	config->dos_write_refused = false;
	ret = SMB_VFS_NEXT_FNTIMES(handle, fsp, ft);
	if (ret == 0 && config->dos_write_refused) {
		errno = EACCES;
		ret = -1;
	}
	config->dos_write_refused = false;
	return ret;
}

/*
 * fchown as root for a user: what the kernel lets the user do (owner to
 * oneself with write_owner, group to one of the user's groups as owner or
 * with write_owner), done as the user, so that the kernel's rules for the
 * set-id bits apply; and, as root, the "inherit owner" chown of a file the
 * user owns to the owner of its directory, which the administrator asked
 * for.
 */
static int richacl_fchown(struct vfs_handle_struct *handle,
			  struct files_struct *fsp,
			  uid_t uid,
			  gid_t gid)
{
	const struct security_unix_token *ut = richacl_root_acting_for(handle);
	SMB_STRUCT_STAT st;
	int ret;

	if (ut == NULL) {
		return SMB_VFS_NEXT_FCHOWN(handle, fsp, uid, gid);
	}
	if (SMB_VFS_NEXT_FSTAT(handle, fsp, &st) == -1) {
		return -1;
	}
	if (lp_inherit_owner(SNUM(handle->conn)) != INHERIT_OWNER_NO &&
	    st.st_ex_uid == ut->uid && gid == (gid_t)-1) {
		return SMB_VFS_NEXT_FCHOWN(handle, fsp, uid, gid);
	}
	if ((uid != (uid_t)-1 && uid != ut->uid && uid != st.st_ex_uid) ||
	    (gid != (gid_t)-1 && gid != st.st_ex_gid &&
	     !richacl_unix_token_has_gid(ut, gid)) ||
	    !richacl_root_call_ok(handle, fsp, ut, RICHACE_WRITE_OWNER,
				  "change the owner")) {
		errno = EPERM;
		return -1;
	}
	richacl_become_user(handle, fsp, ut, "change the owner");
	ret = SMB_VFS_NEXT_FCHOWN(handle, fsp, uid, gid);
	richacl_unbecome_user();
	return ret;
}

/* ---- fchmod ---- */

/*
 * smbd changes modes behind the client's back ("create mask" after a
 * create, DOS attributes, setgid on new directories).  On a richacl a chmod
 * rewrites the file masks and cuts what the entries grant.  With
 * richacl:chmod = ignore (the default) the permission bits of a file with a
 * richacl are left alone, and a change of the setuid, setgid or sticky bit
 * is refused with EPERM and a log line (see below).
 */
static int richacl_fchmod_mode(struct vfs_handle_struct *handle,
			       struct files_struct *fsp,
			       mode_t mode)
{
	TALLOC_CTX *frame = NULL;
	struct richacl_config *config = NULL;
	struct richacl_fsp_ext *ext = NULL;
	DATA_BLOB blob = data_blob_null;
	SMB_STRUCT_STAT st;
	mode_t special;
	bool keep_perm = false, posix;
	int saved_errno;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return -1);

	posix = (fsp->posix_flags & FSP_POSIX_FLAGS_OPEN) ||
		(fsp->fsp_name->flags & SMB_FILENAME_POSIX_PATH);
	ext = VFS_FETCH_FSP_EXTENSION(handle, fsp);
	if (ext != NULL && ext->chmod_marker) {
		/*
		 * The chmod to "create mask" right after the create (never
		 * made for a POSIX open): the permission bits stay as
		 * inherited, also under "richacl:chmod = apply"; only the
		 * special bits are considered (below).
		 */
		keep_perm = !posix && (mode & 07777) == ext->create_mode;
		ext->chmod_marker = false;
		if (keep_perm) {
			DBG_DEBUG("%s: keeping the permission bits of a file "
				  "that inherited its ACL (chmod 0%o)\n",
				  fsp_str_dbg(fsp), (unsigned int)mode);
		}
	}

	/*
	 * A POSIX open, or a client's own chmod through the SMB1 UNIX
	 * extensions (a request with POSIX pathnames): the client asked for
	 * exactly this mode, so the kernel applies it (or refuses it).
	 */
	if (!keep_perm && (config->chmod_mode == RICHACL_CHMOD_APPLY || posix)) {
		return SMB_VFS_NEXT_FCHMOD(handle, fsp, mode);
	}

	frame = talloc_stackframe();
	if (richacl_read_blob(handle, fsp, frame, &blob) == -1) {
		saved_errno = errno;
		TALLOC_FREE(frame);
		if (saved_errno != ENODATA &&
		    !richacl_errno_unsupported(saved_errno)) {
			errno = saved_errno;
			return -1;
		}
		/* Only a mode: chmod is what it is. */
		if (!keep_perm) {
			return SMB_VFS_NEXT_FCHMOD(handle, fsp, mode);
		}
		if (SMB_VFS_NEXT_FSTAT(handle, fsp, &st) == -1) {
			return -1;
		}
		special = mode & RICHACL_SPECIAL_BITS;
		if (special == (st.st_ex_mode & RICHACL_SPECIAL_BITS)) {
			return 0;
		}
		return SMB_VFS_NEXT_FCHMOD(handle, fsp,
			special | (st.st_ex_mode & RICHACL_PERM_BITS));
	}
	if (SMB_VFS_NEXT_FSTAT(handle, fsp, &st) == -1) {
		saved_errno = errno;
		TALLOC_FREE(frame);
		errno = saved_errno;
		return -1;
	}
	TALLOC_FREE(frame);
	special = mode & RICHACL_SPECIAL_BITS;
	if (special == (st.st_ex_mode & RICHACL_SPECIAL_BITS)) {
		DBG_DEBUG("%s: ignoring chmod 0%o: the file has a richacl\n",
			  fsp_str_dbg(fsp), (unsigned int)mode);
		return 0;
	}

	/*
	 * Only the setuid, setgid or sticky bit is to change.  The kernel's
	 * chmod also sets the file masks from the mode.  Reading the acl,
	 * chmodding and writing the acl back is not atomic (an ACL change in
	 * between would be lost, a failed write would leave the ACL cut), and
	 * neither is a chmod made only where it would leave the acl read here
	 * unchanged (an ACL set in between would be cut).  So the change is
	 * refused: on a file with a richacl only the kernel's own rules (the
	 * setgid bit of a parent directory, a local chmod) set these bits.
	 */
	DBG_WARNING("%s: not changing the setuid/setgid/sticky bits "
		    "(0%o -> 0%o): a chmod would rewrite the file masks of "
		    "its richacl\n", fsp_str_dbg(fsp),
		    (unsigned int)(st.st_ex_mode & RICHACL_SPECIAL_BITS),
		    (unsigned int)special);
	errno = EPERM;
	return -1;
}

/*
 * "dos filemode": file_set_dosmode() retries a chmod that the kernel
 * refused the user as root, once smbd's own check grants write access.
 * The module asks its model whether the user holds write_acl (and logs a
 * refusal), then makes the chmod as the user: the kernel's rules for the
 * set-user-ID and set-group-ID bits (which a non-owner's chmod may not set
 * or keep), and owner_rights, decide as for a local chmod of that user.
 */
static int richacl_fchmod(struct vfs_handle_struct *handle,
			  struct files_struct *fsp,
			  mode_t mode)
{
	const struct security_unix_token *ut = richacl_root_acting_for(handle);
	int ret;

	if (ut == NULL) {
		return richacl_fchmod_mode(handle, fsp, mode);
	}
	if (!richacl_root_call_ok(handle, fsp, ut, RICHACE_WRITE_ACL,
				  "change the mode")) {
		errno = EACCES;
		return -1;
	}
	richacl_become_user(handle, fsp, ut, "change the mode");
	ret = richacl_fchmod_mode(handle, fsp, mode);
	richacl_unbecome_user();
	return ret;
}

/* ---- POSIX ACL entry points: not on a richacl filesystem ---- */

static SMB_ACL_T richacl_sys_acl_get_fd(struct vfs_handle_struct *handle,
					struct files_struct *fsp,
					SMB_ACL_TYPE_T type,
					TALLOC_CTX *mem_ctx)
{
	errno = ENOTSUP;
	return NULL;
}

static int richacl_sys_acl_blob_get_fd(struct vfs_handle_struct *handle,
				       struct files_struct *fsp,
				       TALLOC_CTX *mem_ctx,
				       char **blob_description,
				       DATA_BLOB *blob)
{
	errno = ENOTSUP;
	return -1;
}

static int richacl_sys_acl_set_fd(struct vfs_handle_struct *handle,
				  struct files_struct *fsp,
				  SMB_ACL_TYPE_T type,
				  SMB_ACL_T theacl)
{
	errno = ENOTSUP;
	return -1;
}

static int richacl_sys_acl_delete_def_fd(struct vfs_handle_struct *handle,
					 struct files_struct *fsp)
{
	errno = ENOTSUP;
	return -1;
}

/* ---- connect ---- */

/*
 * An enumerated richacl:NAME parameter; false (after a log line naming it
 * and its values) if its value is not one of list.
 */
static bool richacl_parm_enum(int snum, const char *service,
			      const char *name, const struct enum_list *list,
			      int def, int *value)
{
	const char *str = lp_parm_const_string(snum, "richacl", name, NULL);
	size_t i;

	*value = def;
	if (str == NULL) {
		return true;
	}
	for (i = 0; list[i].name != NULL; i++) {
		if (strequal(str, list[i].name)) {
			*value = list[i].value;
			return true;
		}
	}
	DBG_ERR("[%s]: invalid value \"%s\" for richacl:%s (use %s%s%s)\n",
		service, str, name, list[0].name,
		list[1].name != NULL ? " or " : "",
		list[1].name != NULL ? list[1].name : "");
	return false;
}

/*
 * A boolean richacl:NAME parameter; false (after a log line naming it) if
 * its value is not a boolean.  lp_parm_bool() would use the default.
 */
static bool richacl_parm_bool(int snum, const char *service,
			      const char *name, bool def, bool *value)
{
	const char *str = lp_parm_const_string(snum, "richacl", name, NULL);

	if (str == NULL) {
		*value = def;
		return true;
	}
	if (!set_boolean(str, value)) {
		DBG_ERR("[%s]: invalid value \"%s\" for richacl:%s "
			"(use yes or no)\n", service, str, name);
		return false;
	}
	return true;
}

/*
 * Modules that keep their own NT ACL, or that store xattrs elsewhere: with
 * them, smbd would check an ACL the kernel never sees.
 */
static bool richacl_check_stacking(int snum, const char *service)
{
	static const char *const conflicting[] = {
		"acl_xattr", "acl_tdb", "nfs4acl_xattr", "xattr_tdb",
		"posix_eadb", "zfsacl", "gpfs",
	};
	const char **objects = lp_vfs_objects(snum);
	size_t i, j;

	for (i = 0; objects != NULL && objects[i] != NULL; i++) {
		for (j = 0; j < ARRAY_SIZE(conflicting); j++) {
			if (strequal(objects[i], conflicting[j])) {
				DBG_ERR("[%s]: vfs objects has both richacl "
					"and %s; they keep different ACLs, so "
					"smbd and the kernel would check "
					"different ones: refusing the "
					"connection\n", service, objects[i]);
				return false;
			}
		}
	}
	return true;
}

/*
 * Change notify reports the names of files created, renamed and deleted
 * anywhere below a watched directory.  smbd checks that the watcher may
 * list the directory of each name (and traverse the path to it) only with
 * "honor change notify privilege = yes"; without it, a user who may list
 * the share's root learns every name in directories that the kernel
 * refuses to let him list (an inotify watch there fails).  So the module
 * refuses such a share.  A token holding SeChangeNotifyPrivilege ("bypass
 * traverse checking") still sees every name, as on Windows; the kernel
 * knows no such right, so that is logged.
 */
static bool richacl_check_notify(struct vfs_handle_struct *handle,
				 int snum, const char *service)
{
	const struct auth_session_info *si = handle->conn->session_info;

	if (!lp_change_notify()) {
		return true;
	}
	if (!lp_honor_change_notify_privilege(snum)) {
		DBG_ERR("[%s]: change notify = yes and honor change notify "
			"privilege = no: smbd would report the names of "
			"files in directories that the user may not list; "
			"set honor change notify privilege = yes (or change "
			"notify = no): refusing the connection\n", service);
		return false;
	}
	if (si != NULL && si->security_token != NULL &&
	    security_token_has_privilege(si->security_token,
					 SEC_PRIV_CHANGE_NOTIFY)) {
		DBG_WARNING("[%s]: uid %u holds SeChangeNotifyPrivilege: "
			    "change notify shows it names in directories "
			    "that the kernel does not let it list\n", service,
			    (unsigned int)(si->unix_token != NULL ?
					   si->unix_token->uid : (uid_t)-1));
	}
	return true;
}

/*
 * Log each SID of the connecting user's token that has no gid.  smbd's
 * own access check honours ACEs for such a SID; the kernel cannot, since
 * smbd's process does not hold a gid for it (create_local_token() turns
 * only the SIDs that map to gids into unix groups).  Opens through such an
 * ACE fail in the kernel, and the module refuses smbd's root-acting
 * shortcuts for them; the cure is a gid for the SID (docs/mapping.md).
 * The user and primary group SIDs (the first two), other SIDs of the user
 * (S-1-22-1-uid) and Everyone are skipped.
 */
static void richacl_log_token_sids_without_gid(struct vfs_handle_struct *handle,
					       const char *service)
{
	const struct auth_session_info *si = handle->conn->session_info;
	const struct security_token *token = NULL;
	struct unixid *ids = NULL;
	struct dom_sid_buf buf;
	uint32_t i;

	if (si == NULL || si->security_token == NULL ||
	    si->security_token->num_sids <= 2 ||
	    !CHECK_DEBUGLVL(DBGLVL_WARNING)) {
		return;
	}
	token = si->security_token;
	ids = talloc_array(talloc_tos(), struct unixid, token->num_sids);
	if (ids == NULL) {
		return;
	}
	if (!sids_to_unixids(token->sids, token->num_sids, ids)) {
		TALLOC_FREE(ids);
		return;
	}
	for (i = 2; i < token->num_sids; i++) {
		if (ids[i].type == ID_TYPE_GID || ids[i].type == ID_TYPE_BOTH ||
		    dom_sid_equal(&token->sids[i], &global_sid_World)) {
			continue;
		}
		/* Another SID of the user himself (S-1-22-1-uid) */
		if (ids[i].type == ID_TYPE_UID && si->unix_token != NULL &&
		    ids[i].id == si->unix_token->uid) {
			continue;
		}
		DBG_WARNING("[%s]: the token of uid %u holds %s, which has "
			    "no gid: smbd's access check honours ACEs for it, "
			    "the kernel does not (give it a gid, see "
			    "vfs_richacl(8))\n", service,
			    (unsigned int)(si->unix_token != NULL ?
					   si->unix_token->uid : (uid_t)-1),
			    dom_sid_str_buf(&token->sids[i], &buf));
	}
	TALLOC_FREE(ids);
}

/* Does the filesystem of path support system.richacl? */
static bool richacl_share_supported(const char *path)
{
	if (getxattr(path, RICHACL_XATTR, NULL, 0) >= 0) {
		return true;
	}
	return !richacl_errno_unsupported(errno);
}

static int richacl_connect(struct vfs_handle_struct *handle,
			   const char *service,
			   const char *user)
{
	struct richacl_config *config = NULL;
	int snum = SNUM(handle->conn);
	int chmod_mode, unmapped;
	bool require = false;
	int ret;

	ret = SMB_VFS_NEXT_CONNECT(handle, service, user);
	if (ret < 0) {
		return ret;
	}

	config = talloc_zero(handle->conn, struct richacl_config);
	if (config == NULL) {
		DBG_ERR("talloc_zero() failed\n");
		errno = ENOMEM;
		return -1;
	}

	if (!richacl_parm_enum(snum, service, "chmod", richacl_chmod_modes,
			       RICHACL_CHMOD_IGNORE, &chmod_mode) ||
	    !richacl_parm_enum(snum, service, "unmapped sids",
			       richacl_unmapped_modes, RICHACL_UNMAPPED_KEEP,
			       &unmapped)) {
		TALLOC_FREE(config);
		errno = EINVAL;
		return -1;
	}
	config->chmod_mode = (enum richacl_chmod_mode)chmod_mode;
	config->unmapped_sids = (enum richacl_unmapped_mode)unmapped;
	if (!richacl_parm_bool(snum, service, "fix create masks", true,
			       &config->fix_create_masks) ||
	    !richacl_parm_bool(snum, service, "require", false, &require)) {
		TALLOC_FREE(config);
		errno = EINVAL;
		return -1;
	}
	if (!richacl_check_stacking(snum, service) ||
	    !richacl_check_notify(handle, snum, service)) {
		TALLOC_FREE(config);
		errno = EINVAL;
		return -1;
	}
	if (require && !richacl_share_supported(handle->conn->connectpath)) {
		DBG_ERR("[%s]: richacl:require = yes, and the filesystem of "
			"%s does not support system.richacl (not a richacl "
			"kernel, or no richacl feature): refusing the "
			"connection\n", service, handle->conn->connectpath);
		TALLOC_FREE(config);
		errno = EOPNOTSUPP;
		return -1;
	}
	if (lp_inherit_acls(snum)) {
		DBG_WARNING("[%s]: inherit acls = yes: smbd then computes "
			    "inheritance itself and sets the result; with "
			    "vfs_richacl the kernel inherits, so set "
			    "inherit acls = no\n", service);
	}
	richacl_null_dacl_config(config, snum, service);
	/*
	 * If winbindd answers now, a SID it cannot map later may be an
	 * outage: richacl_resolve_sid() then refuses it.
	 */
	config->winbind_expected = winbind_ping();
	richacl_log_token_sids_without_gid(handle, service);

	SMB_VFS_HANDLE_SET_DATA(handle, config, NULL, struct richacl_config,
				return -1);

	/*
	 * Unlike acl_xattr, which stores the owner SID in its blob, a
	 * richacl's owner and group are the file's uid and gid.  So "force
	 * unknown acl user" is left as configured (default no): an owner or
	 * group SID without an id is refused with NT_STATUS_INVALID_OWNER
	 * instead of silently becoming the connected user.
	 */
	if (lp_force_unknown_acl_user(snum)) {
		DBG_NOTICE("[%s]: force unknown acl user = yes: owner and "
			   "group SIDs without a uid/gid become the connected "
			   "user's\n", service);
	}

	DBG_DEBUG("[%s]: richacl:chmod = %s, richacl:fix create masks = %s, "
		  "richacl:unmapped sids = %s, winbindd %s\n",
		  service,
		  config->chmod_mode == RICHACL_CHMOD_IGNORE ? "ignore" : "apply",
		  config->fix_create_masks ? "yes" : "no",
		  config->unmapped_sids == RICHACL_UNMAPPED_KEEP ? "keep"
								 : "refuse",
		  config->winbind_expected ? "answers" : "does not answer");
	return 0;
}

/* ---- create with a security descriptor ---- */

/*
 * Would smbd's set_sd() after the create refuse sd?  smbd creates the file
 * first and applies the descriptor afterwards; when that fails, it fails
 * the create but leaves the new file in place, with the acl it inherited.
 * Windows creates nothing.  So the parts of the descriptor whose refusal
 * does not depend on the new file are checked before it exists: owner and
 * group SIDs that map to no id, an owner other than the creator without
 * SeRestorePrivilege (the kernel never gives a file away), and a DACL that
 * richacl_fset_nt_acl() would refuse.  What can only be decided on the
 * file (a group change the kernel refuses, a DACL too large for its xattr
 * space) is still decided there.  Changes nothing.
 */
static NTSTATUS richacl_check_create_sd(struct vfs_handle_struct *handle,
					const struct smb_filename *smb_fname,
					uint32_t create_options,
					const struct security_descriptor *sd)
{
	TALLOC_CTX *frame = NULL;
	struct richacl_config *config = NULL;
	const struct security_token *token = NULL;
	const char *name = smb_fname_str_dbg(smb_fname);
	struct richacl_map_file file;
	struct richacl_pair acl;
	DATA_BLOB blob;
	uint32_t secinfo = 0;
	uid_t me = get_current_uid(handle->conn);
	uid_t uid;
	gid_t gid;
	NTSTATUS status;

	SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
				return NT_STATUS_INTERNAL_ERROR);
	if (sd->owner_sid != NULL) {
		secinfo |= SECINFO_OWNER;
	}
	if (sd->group_sid != NULL) {
		secinfo |= SECINFO_GROUP;
	}
	if (sd->type & SEC_DESC_DACL_PRESENT) {
		secinfo |= SECINFO_DACL;
	}
	status = richacl_unpack_owners(handle->conn, name, secinfo, sd,
				       &uid, &gid);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	token = get_current_nttok(handle->conn);
	if (uid != (uid_t)-1 && uid != me &&
	    !(lp_enable_privileges() && token != NULL &&
	      security_token_has_privilege(token, SEC_PRIV_RESTORE))) {
		DBG_NOTICE("%s: refusing the create: the descriptor gives the "
			   "new file to uid %u\n", name, (unsigned int)uid);
		return NT_STATUS_INVALID_OWNER;
	}
	if (!(secinfo & SECINFO_DACL)) {
		return NT_STATUS_OK;
	}
	file = (struct richacl_map_file) {
		.owner = uid != (uid_t)-1 ? uid : me,
		.group = gid != (gid_t)-1 ? gid : get_current_gid(handle->conn),
		.isdir = (create_options & FILE_DIRECTORY_FILE) != 0,
	};
	frame = talloc_stackframe();
	status = richacl_from_sd(frame, config, name, sd, &file, NULL, &acl,
				 &blob);
	TALLOC_FREE(frame);
	return status;
}

/*
 * What Windows asks of a create that replaces an existing file's contents,
 * beyond the access the client asked for.  smbd adds only FILE_WRITE_DATA,
 * for every disposition that truncates.  Windows also wants
 * FILE_WRITE_EA and FILE_WRITE_ATTRIBUTES (the file's extended attributes
 * and attributes are replaced with the create's), and for a supersede,
 * which replaces the file, DELETE with those two.  Added to the access
 * asked for, smbd's check refuses where Windows refuses, before anything
 * is truncated.  A supersede without FILE_WRITE_DATA still fails: smbd
 * supersedes with O_TRUNC, which the kernel grants only with write_data.
 * Named streams and files that do not exist yet are left as they are.
 */
static uint32_t richacl_overwrite_access(const struct smb_filename *smb_fname,
					 uint32_t create_disposition)
{
	if (!VALID_STAT(smb_fname->st) || S_ISDIR(smb_fname->st.st_ex_mode) ||
	    is_named_stream(smb_fname)) {
		return 0;
	}
	switch (create_disposition) {
	case FILE_OVERWRITE:
	case FILE_OVERWRITE_IF:
		return SEC_FILE_WRITE_EA | SEC_FILE_WRITE_ATTRIBUTE;
	case FILE_SUPERSEDE:
		return SEC_STD_DELETE | SEC_FILE_WRITE_EA |
		       SEC_FILE_WRITE_ATTRIBUTE;
	default:
		return 0;
	}
}

/*
 * Creating a named stream needs FILE_WRITE_DATA on its file (MS-FSA
 * 2.1.5.1.2).  smbd opens the file of a new stream as its creator, without
 * checking the file for any access, and leaves the decision to whatever
 * stores the stream: with streams_xattr, the kernel's rule for user.*
 * xattrs (write_data on a richacl inode, the write bit without one).  So
 * smbd's access check is asked for FILE_WRITE_DATA on the file, with the
 * descriptor this module shows the caller, before a stream that does not
 * exist yet may be created, whatever the stream module and the file system
 * below would decide.  A file that does not exist is created along with its
 * stream, by the rules for new files.
 */
static NTSTATUS richacl_check_new_stream(struct vfs_handle_struct *handle,
					 const struct smb_filename *smb_fname,
					 uint32_t create_disposition)
{
	struct smb_filename *base = NULL;
	NTSTATUS status;

	if (!is_named_stream(smb_fname) || VALID_STAT(smb_fname->st) ||
	    create_disposition == FILE_OPEN ||
	    create_disposition == FILE_OVERWRITE) {
		return NT_STATUS_OK;
	}
	status = synthetic_pathref(talloc_tos(), handle->conn->cwd_fsp,
				   smb_fname->base_name, NULL, NULL,
				   smb_fname->twrp, smb_fname->flags, &base);
	if (NT_STATUS_EQUAL(status, NT_STATUS_OBJECT_NAME_NOT_FOUND)) {
		return NT_STATUS_OK;
	}
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: no file to check for the new stream: %s\n",
			   smb_fname_str_dbg(smb_fname), nt_errstr(status));
		return status;
	}
	status = smbd_check_access_rights_fsp(handle->conn->cwd_fsp, base->fsp,
					      false, SEC_FILE_WRITE_DATA);
	if (!NT_STATUS_IS_OK(status)) {
		DBG_NOTICE("%s: creating a stream needs FILE_WRITE_DATA on the "
			   "file: %s\n", smb_fname_str_dbg(smb_fname),
			   nt_errstr(status));
	}
	TALLOC_FREE(base);
	return status;
}

static NTSTATUS richacl_create_file(struct vfs_handle_struct *handle,
				    struct smb_request *req,
				    struct files_struct *dirfsp,
				    struct smb_filename *smb_fname,
				    uint32_t access_mask,
				    uint32_t share_access,
				    uint32_t create_disposition,
				    uint32_t create_options,
				    uint32_t file_attributes,
				    uint32_t oplock_request,
				    const struct smb2_lease *lease,
				    uint64_t allocation_size,
				    uint32_t private_flags,
				    struct security_descriptor *sd,
				    struct ea_list *ea_list,
				    files_struct **result,
				    int *pinfo,
				    const struct smb2_create_blobs *in_context_blobs,
				    struct smb2_create_blobs *out_context_blobs)
{
	struct richacl_config *config = NULL;
	NTSTATUS status;

	/*
	 * Only FILE_CREATE is sure to create: with the other dispositions
	 * an existing file is opened and smbd ignores the descriptor.
	 * "inherit owner" chowns the new file after the create.
	 */
	if (sd != NULL && create_disposition == FILE_CREATE &&
	    lp_nt_acl_support(SNUM(handle->conn)) &&
	    lp_inherit_owner(SNUM(handle->conn)) == INHERIT_OWNER_NO &&
	    !is_named_stream(smb_fname)) {
		status = richacl_check_create_sd(handle, smb_fname,
						 create_options, sd);
		if (!NT_STATUS_IS_OK(status)) {
			DBG_NOTICE("%s: the create's security descriptor is "
				   "refused, nothing is created: %s\n",
				   smb_fname_str_dbg(smb_fname),
				   nt_errstr(status));
			return status;
		}
	}
	if (sd != NULL && !is_named_stream(smb_fname)) {
		SMB_VFS_HANDLE_GET_DATA(handle, config, struct richacl_config,
					return NT_STATUS_INTERNAL_ERROR);
		config->create_sd = sd;
	}
	status = richacl_check_new_stream(handle, smb_fname, create_disposition);
	if (!NT_STATUS_IS_OK(status)) {
		return status;
	}
	access_mask |= richacl_overwrite_access(smb_fname, create_disposition);
	status = SMB_VFS_NEXT_CREATE_FILE(handle, req, dirfsp, smb_fname,
					  access_mask, share_access,
					  create_disposition, create_options,
					  file_attributes, oplock_request,
					  lease, allocation_size,
					  private_flags, sd, ea_list, result,
					  pinfo, in_context_blobs,
					  out_context_blobs);
	if (config != NULL) {
		config->create_sd = NULL;
	}
	return status;
}

/*
 * A file created over SMB that inherited OWNER RIGHTS
 * (richacl_inherit_in_full()) gets the acl flag owner_rights when its
 * creator's handle closes: from then on the kernel, like smbd, leaves its
 * owner only what the entries grant.  Only if the acl is still the one
 * stored at the create: a descriptor set since (on this handle or another)
 * decided the flag itself.  The value written is the stored acl plus the
 * flag, computed here; the owner may write it (the flag is not set yet),
 * root may too.  Like every read-modify-write of an xattr (setrichacl
 * --modify, smbcacls -a), a change that lands between the read and the
 * write here is lost.
 */
static void richacl_set_inherited_owner_rights(
	struct vfs_handle_struct *handle,
	struct files_struct *fsp,
	const struct richacl_fsp_ext *ext)
{
	TALLOC_CTX *frame = talloc_stackframe();
	struct richacl_error err = { .code = 0 };
	struct richacl *acl = NULL;
	DATA_BLOB blob = data_blob_null;
	bool keep_setgid;
	int ret, saved_errno;

	if (richacl_read_blob(handle, fsp, frame, &blob) == -1) {
		DBG_DEBUG("%s: no acl to give the flag owner_rights: %s\n",
			  fsp_str_dbg(fsp), strerror(errno));
		goto out;
	}
	if (richacl_blob_hash(blob.data, blob.length) !=
	    ext->created_acl_hash) {
		DBG_DEBUG("%s: the acl changed since the create; the flag "
			  "owner_rights is not inherited\n", fsp_str_dbg(fsp));
		goto out;
	}
	if (richacl_from_xattr(blob.data, blob.length, &acl, &err) != 0 ||
	    !richacl_talloc_own(frame, acl)) {
		goto out;
	}
	acl->a_flags |= RICHACL_OWNER_RIGHTS;
	if (!NT_STATUS_IS_OK(richacl_encode(frame, fsp_str_dbg(fsp), acl,
					    &blob))) {
		goto out;
	}
	/*
	 * As in richacl_inherit_in_full(): setting an acl clears the
	 * set-group-ID bit that a directory got from its parent unless the
	 * owner is in its group; root keeps it.
	 */
	keep_setgid = NT_STATUS_IS_OK(vfs_stat_fsp(fsp)) &&
		      (fsp->fsp_name->st.st_ex_mode & S_ISGID) != 0 &&
		      fsp->fsp_name->st.st_ex_uid ==
		      get_current_uid(handle->conn);
	if (keep_setgid) {
		become_root();
	}
	ret = SMB_VFS_NEXT_FSETXATTR(handle, fsp, RICHACL_XATTR, blob.data,
				     blob.length, 0);
	saved_errno = errno;
	if (keep_setgid) {
		unbecome_root();
	}
	if (ret == -1) {
		DBG_WARNING("%s: could not set the inherited flag "
			    "owner_rights: %s\n", fsp_str_dbg(fsp),
			    strerror(saved_errno));
		goto out;
	}
	DBG_DEBUG("%s: inherited the flag owner_rights\n", fsp_str_dbg(fsp));
out:
	TALLOC_FREE(frame);
}

/*
 * Whether this close is smbd's reopen of a handle (reopen_from_procfd():
 * the O_PATH descriptor of a pathref handle is closed after the handle got
 * a real one, with is_pathref already cleared), not the close of the
 * handle: a directory opened with FILE_LIST_DIRECTORY or FILE_ADD_FILE is
 * reopened so right after its create.
 */
static bool richacl_closing_for_reopen(struct files_struct *fsp)
{
	int fd = fsp_get_pathref_fd(fsp);
	int flags;

	if (fd == -1 || fsp->fsp_flags.is_pathref) {
		return false;
	}
	flags = fcntl(fd, F_GETFL);
	return flags != -1 && (flags & O_PATH) != 0;
}

static int richacl_close(struct vfs_handle_struct *handle,
			 struct files_struct *fsp)
{
	struct richacl_fsp_ext *ext = VFS_FETCH_FSP_EXTENSION(handle, fsp);

	if (ext != NULL && ext->owner_rights_pending &&
	    !richacl_closing_for_reopen(fsp)) {
		ext->owner_rights_pending = false;
		richacl_set_inherited_owner_rights(handle, fsp, ext);
	}
	return SMB_VFS_NEXT_CLOSE(handle, fsp);
}

static struct vfs_fn_pointers vfs_richacl_fns = {
	.connect_fn = richacl_connect,
	.openat_fn = richacl_openat,
	.close_fn = richacl_close,
	.lock_fn = richacl_lock,
	.create_file_fn = richacl_create_file,
	.mkdirat_fn = richacl_mkdirat,
	.unlinkat_fn = richacl_unlinkat,
	.fchmod_fn = richacl_fchmod,
	.fchown_fn = richacl_fchown,
	.fntimes_fn = richacl_fntimes,
	.fgetxattr_fn = richacl_fgetxattr,
	.fsetxattr_fn = richacl_fsetxattr,
	.fget_dos_attributes_fn = richacl_fget_dos_attributes,
	.get_dos_attributes_send_fn = richacl_get_dos_attributes_send,
	.get_dos_attributes_recv_fn = richacl_get_dos_attributes_recv,
	.fset_dos_attributes_fn = richacl_fset_dos_attributes,
	.fget_nt_acl_fn = richacl_fget_nt_acl,
	.fset_nt_acl_fn = richacl_fset_nt_acl,

	.sys_acl_get_fd_fn = richacl_sys_acl_get_fd,
	.sys_acl_blob_get_fd_fn = richacl_sys_acl_blob_get_fd,
	.sys_acl_set_fd_fn = richacl_sys_acl_set_fd,
	.sys_acl_delete_def_fd_fn = richacl_sys_acl_delete_def_fd,
};

static_decl_vfs;
_PUBLIC_ NTSTATUS vfs_richacl_init(TALLOC_CTX *ctx)
{
	return smb_register_vfs(SMB_VFS_INTERFACE_VERSION, "richacl",
				&vfs_richacl_fns);
}
