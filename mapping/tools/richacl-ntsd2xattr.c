/*
 * richacl-ntsd2xattr - turn a Windows security descriptor (self-relative
 * binary form) into the system.richacl value that vfs_richacl would store
 * for it.  The helper of tools/richacl-migrate-ntacl, usable on its own.
 *
 * The mapping is the module's (vfs_richacl.c, richacl_from_sd()):
 * richacl_from_nt_sd() for the file's owner, group and type, then
 * richacl_to_store() and the xattr encoding.  The SID <-> id answers come
 * from a table the caller built with Samba's identity mapping, so this
 * program needs no Samba library:
 *
 *   S-1-5-21-...-1001 U 1001     SID -> uid
 *   S-1-5-11 G 3011              SID -> gid
 *   S-1-5-21-...-1105 B 1105     SID -> id usable as uid and gid, a group
 *                                entry (ID_TYPE_BOTH of a group or alias)
 *   S-1-5-21-...-1106 X 1106     ID_TYPE_BOTH whose type (user or group)
 *                                could not be looked up: a group entry, and a
 *                                deny for it is refused (as the module does)
 *   S-1-5-2 N 0                  no unix id (same as not listed)
 *   S-1-5-21-...-1107 E 0        the lookup failed (winbindd did not
 *                                answer): the descriptor is refused
 *   U 1001 S-1-5-21-...-1001     uid -> SID (the file owner's SID)
 *   G 1001 S-1-22-2-1001         gid -> SID
 *
 * Before the mapping, the descriptor is cleaned of what smbd's own access
 * check (se_access_check()) never used, so that what a stored NTACL granted
 * is kept exactly; every change is reported as a note "KIND DETAIL":
 *   sacl               the SACL is dropped (richacls have none)
 *   null-dacl          a NULL DACL becomes everyone@ full control (M10)
 *   no-dacl            no DACL at all (DACL_PRESENT clear): smbd granted
 *                      nobody anything, stored as an empty acl
 *   object-ace         ACCESS_ALLOWED_OBJECT dropped (ignored by smbd),
 *                      ACCESS_DENIED_OBJECT stored as a plain deny (smbd
 *                      applies it as one)
 *   ace-type           other ACE types in the DACL (audit, alarm, callback,
 *                      label, ...) dropped: smbd ignores them
 *   audit-flags        SUCCESSFUL/FAILED_ACCESS and unknown ACE flags cleared
 *   mask-bits          ACCESS_SYSTEM_SECURITY, MAXIMUM_ALLOWED and reserved
 *                      mask bits cleared (a richacl has none of them)
 *   generic-rights     GENERIC_* bits dropped: smbd never matched them in a
 *                      stored ACE (an ACE left empty is dropped)
 *   file-inherit-only  inherit-only ACE of a non-directory dropped
 *   file-inherit-flags OI/CI/NP of a non-directory dropped
 *   unmapped-sid       a SID without a unix id: an entry that matches nobody
 *   owner-rights       an OWNER RIGHTS ACE that applies to the object
 *                      (not inherit-only): stored as owner@ with the acl
 *                      flag owner_rights, with which the kernel, like smbd,
 *                      lets the owner change the acl only as the entries
 *                      allow; files created later inherit such an ACE as
 *                      owner@ without the flag, so their owners keep the
 *                      implicit right
 *
 * usage:
 *   richacl-ntsd2xattr [--dir|--file] [--owner UID --group GID]
 *                      [--ids FILE | --ids-fd N] [--refuse-unmapped] [--notes]
 *                      [--set PATH | --output FILE]  < descriptor
 *   richacl-ntsd2xattr --batch [--refuse-unmapped]
 *
 * Batch mode reads requests on stdin and answers on stdout:
 *   "I <table line>\n"                        add an identity (no answer)
 *   "M <d|f> <uid> <gid> <len>\n" <len bytes> map; answer: "N <kind> <detail>\n"
 *                                             lines, then "OK <hex blob>\n" or
 *                                             "E <ERRNO> <message>\n"
 *   "Q\n" or end of input                     quit
 *
 * Exit status: 0 done, 1 the descriptor was refused, 2 usage, 3 I/O error.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "richacl.h"
#include "richacl_ntsd.h"
#include "richacl_implicit.h"
#include "tool_common.h"

#define EXIT_REFUSED	1
#define EXIT_USAGE	2
#define EXIT_IO		3

/* ---- the identity table ---- */

enum id_answer {
	ANS_UID = 'U',
	ANS_GID = 'G',
	ANS_BOTH = 'B',
	ANS_BOTH_UNKNOWN = 'X',
	ANS_NONE = 'N',
	ANS_ERROR = 'E',
};

struct sid_entry {
	struct nt_sid sid;
	char answer;
	uint32_t id;
};

struct id_entry {
	bool is_group;
	uint32_t id;
	struct nt_sid sid;
};

struct table {
	struct sid_entry *sids;
	size_t num_sids, max_sids;
	struct id_entry *ids;
	size_t num_ids, max_ids;
	/* BOTH_UNKNOWN ids met while mapping the current descriptor */
	uint32_t both_unknown[64];
	size_t num_both_unknown;
	bool both_unknown_overflow;
	/* the first lookup error of the current descriptor */
	char failed_sid[NT_SID_STRING_MAX];
};

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long n;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)n;
	return 0;
}

/* one table line (without newline); 0 or -EINVAL / -ENOMEM */
static int table_add(struct table *t, char *line)
{
	char *tok[4];
	char *save = NULL, *p;
	int n = 0;

	for (p = strtok_r(line, " \t\r", &save); p && n < 4; p = strtok_r(NULL, " \t\r", &save))
		tok[n++] = p;
	if (n == 0)
		return 0;		/* empty line */
	if (n != 3)
		return -EINVAL;
	if (!strncasecmp(tok[0], "S-", 2)) {
		struct sid_entry e = { .answer = 0 };
		size_t i;

		if (nt_sid_from_string(tok[0], &e.sid) || strlen(tok[1]) != 1 ||
		    !strchr("UGBXNE", tok[1][0]) || parse_u32(tok[2], &e.id))
			return -EINVAL;
		e.answer = tok[1][0];
		if (e.id == UINT32_MAX && strchr("UGBX", e.answer))
			return -EINVAL;		/* (uid_t)-1 is no id */
		for (i = 0; i < t->num_sids; i++) {
			if (nt_sid_equal(&t->sids[i].sid, &e.sid)) {
				t->sids[i] = e;
				return 0;
			}
		}
		if (t->num_sids == t->max_sids) {
			size_t m = t->max_sids ? 2 * t->max_sids : 64;
			struct sid_entry *s = realloc(t->sids, m * sizeof(*s));

			if (!s)
				return -ENOMEM;
			t->sids = s;
			t->max_sids = m;
		}
		t->sids[t->num_sids++] = e;
		return 0;
	}
	if ((!strcmp(tok[0], "U") || !strcmp(tok[0], "G"))) {
		struct id_entry e = { .is_group = tok[0][0] == 'G' };
		size_t i;

		if (parse_u32(tok[1], &e.id) || nt_sid_from_string(tok[2], &e.sid))
			return -EINVAL;
		for (i = 0; i < t->num_ids; i++) {
			if (t->ids[i].is_group == e.is_group && t->ids[i].id == e.id) {
				t->ids[i] = e;
				return 0;
			}
		}
		if (t->num_ids == t->max_ids) {
			size_t m = t->max_ids ? 2 * t->max_ids : 16;
			struct id_entry *s = realloc(t->ids, m * sizeof(*s));

			if (!s)
				return -ENOMEM;
			t->ids = s;
			t->max_ids = m;
		}
		t->ids[t->num_ids++] = e;
		return 0;
	}
	return -EINVAL;
}

static int table_load(struct table *t, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;

	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#')
			continue;
		ret = table_add(t, line);
		if (ret) {
			fprintf(stderr, "%s:%u: %s\n", name, lineno,
				ret == -ENOMEM ? strerror(ENOMEM) :
				"not \"SID U|G|B|X|N|E ID\" or \"U|G ID SID\"");
			break;
		}
	}
	free(line);
	if (!ret && ferror(f)) {
		tool_error(name, errno);
		ret = -EIO;
	}
	return ret;
}

static int res_sid_to_id(void *ctx, const struct nt_sid *sid, enum richacl_id_type *type,
			 uint32_t *id)
{
	struct table *t = ctx;
	size_t i;

	for (i = 0; i < t->num_sids; i++) {
		const struct sid_entry *e = &t->sids[i];

		if (!nt_sid_equal(&e->sid, sid))
			continue;
		switch (e->answer) {
		case ANS_UID:
			*type = RICHACL_ID_UID;
			break;
		case ANS_GID:
			*type = RICHACL_ID_GID;
			break;
		case ANS_BOTH:
			*type = RICHACL_ID_BOTH;
			break;
		case ANS_BOTH_UNKNOWN:
			*type = RICHACL_ID_BOTH;
			if (t->num_both_unknown < sizeof(t->both_unknown) / sizeof(t->both_unknown[0]))
				t->both_unknown[t->num_both_unknown++] = e->id;
			else
				t->both_unknown_overflow = true;
			break;
		case ANS_ERROR:
			if (!t->failed_sid[0])
				nt_sid_to_string(sid, t->failed_sid, sizeof(t->failed_sid));
			return -EAGAIN;
		default:
			return -ENOENT;
		}
		*id = e->id;
		return 0;
	}
	return -ENOENT;
}

static int res_id_to_sid(struct table *t, bool is_group, uint32_t id, struct nt_sid *sid)
{
	size_t i;

	for (i = 0; i < t->num_ids; i++) {
		if (t->ids[i].is_group == is_group && t->ids[i].id == id) {
			*sid = t->ids[i].sid;
			return 0;
		}
	}
	return -ENOENT;		/* the library falls back to S-1-22-1/2-id */
}

static int res_uid_to_sid(void *ctx, uint32_t uid, struct nt_sid *sid)
{
	return res_id_to_sid(ctx, false, uid, sid);
}

static int res_gid_to_sid(void *ctx, uint32_t gid, struct nt_sid *sid)
{
	return res_id_to_sid(ctx, true, gid, sid);
}

/* ---- notes ---- */

struct notes {
	FILE *out;		/* NULL: not printed */
	const char *prefix;	/* "N " in batch mode, "note " otherwise */
	unsigned int count;
};

static void note(struct notes *n, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct notes *n, const char *kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char *p;

	n->count++;
	if (!n->out)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (p = buf; *p; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}
	fprintf(n->out, "%s%s %s\n", n->prefix, kind, buf);
}

static const char *ace_type_name(uint8_t type)
{
	static const char *const names[] = {
		"access allowed", "access denied", "system audit", "system alarm",
		"compound", "access allowed object", "access denied object",
		"system audit object", "system alarm object", "access allowed callback",
		"access denied callback", "access allowed callback object",
		"access denied callback object", "system audit callback",
		"system alarm callback", "system audit callback object",
		"system alarm callback object", "mandatory label",
		"resource attribute", "scoped policy id",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

/* ---- the mapping ---- */

struct request {
	bool isdir;
	uint32_t owner, group;
	bool refuse_unmapped;
};

struct result {
	int err;			/* 0 or negative errno */
	char msg[512];
	void *blob;
	size_t size;
};

static void set_error(struct result *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct result *r, int err, const char *fmt, ...)
{
	va_list ap;
	char *p;

	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	for (p = r->msg; *p; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}
}

/*
 * What smbd's access check never used is removed from sd's DACL (in place),
 * and every lossy or visible change is noted.  Returns 0 or -ENOMEM.
 */
static int clean_descriptor(struct nt_sd *sd, bool isdir, struct notes *n)
{
	struct nt_acl *dacl = sd->dacl;
	unsigned int i, out = 0;

	if (sd->sacl || (sd->control & NT_SD_SACL_PRESENT))
		note(n, "sacl", "SACL with %u ACEs dropped (richacls have no SACL)",
		     sd->sacl ? sd->sacl->num_aces : 0);
	if (!dacl) {
		if (sd->control & NT_SD_DACL_PRESENT) {
			note(n, "null-dacl", "NULL DACL stored as everyone@ full control "
			     "(0x1f01ff); anonymous sessions without Everyone lose access");
			return 0;
		}
		/*
		 * No DACL at all.  smbd's se_access_check() grants nobody
		 * anything on such a descriptor (the owner keeps READ_CONTROL
		 * and WRITE_DAC), so it becomes an empty DACL, not the NULL
		 * DACL the module makes of a descriptor a client *sets*.
		 */
		note(n, "no-dacl", "descriptor without DACL (smbd granted nobody access): "
		     "stored as an empty acl");
		sd->dacl = nt_acl_alloc(0);
		if (!sd->dacl)
			return -ENOMEM;
		sd->dacl->revision = NT_ACL_REVISION;
		sd->control |= NT_SD_DACL_PRESENT;
		return 0;
	}
	for (i = 0; i < dacl->num_aces; i++) {
		struct nt_ace ace = dacl->aces[i];
		uint32_t bad, generic;

		switch (ace.type) {
		case NT_ACE_ACCESS_ALLOWED:
		case NT_ACE_ACCESS_DENIED:
			break;
		case NT_ACE_ACCESS_ALLOWED_OBJECT:
			note(n, "object-ace", "ACE %u: access allowed object ACE dropped "
			     "(smbd's access check ignores it)", i);
			continue;
		case NT_ACE_ACCESS_DENIED_OBJECT:
			note(n, "object-ace", "ACE %u: access denied object ACE stored as a "
			     "plain deny (smbd's access check applies it as one)", i);
			ace.type = NT_ACE_ACCESS_DENIED;
			break;
		default:
			note(n, "ace-type", "ACE %u: type %u (%s) dropped (smbd's access "
			     "check ignores it)", i, ace.type, ace_type_name(ace.type));
			continue;
		}
		if (ace.flags & ~0x1Fu) {
			note(n, "audit-flags", "ACE %u: flags 0x%02x cleared (audit or unknown "
			     "flags, ignored by smbd's access check)", i, ace.flags & ~0x1Fu);
			ace.flags &= 0x1F;
		}
		/*
		 * smbd maps generic rights only in a descriptor that a client
		 * sends; se_access_check() never matches them in a stored ACE,
		 * and se_create_child_secdesc() copies them unmapped into the
		 * ACEs of new files: they granted (and denied) nothing.
		 */
		generic = ace.mask & (NT_GENERIC_READ | NT_GENERIC_WRITE |
				      NT_GENERIC_EXECUTE | NT_GENERIC_ALL);
		if (generic) {
			ace.mask &= ~generic;
			note(n, "generic-rights", "ACE %u: generic rights 0x%08" PRIx32
			     " dropped (smbd's access check never matched them in a "
			     "stored ACE, nor in the ACEs inherited from it)%s", i, generic,
			     ace.mask ? "" : "; the ACE, left empty, is dropped");
			if (!ace.mask)
				continue;
		}
		bad = ace.mask & ~(uint32_t)RICHACE_VALID_MASK;
		if (bad) {
			note(n, "mask-bits", "ACE %u: mask bits 0x%08" PRIx32 " cleared "
			     "(ACCESS_SYSTEM_SECURITY, MAXIMUM_ALLOWED or reserved: no "
			     "richacl permission)", i, bad);
			ace.mask &= ~bad;
		}
		if (!isdir) {
			if (ace.flags & NT_ACE_INHERIT_ONLY) {
				note(n, "file-inherit-only", "ACE %u: inherit-only ACE of a "
				     "non-directory dropped (it grants nothing)", i);
				/* the library drops it too; keep it for its checks */
			} else if (ace.flags & (NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT |
						NT_ACE_NO_PROPAGATE_INHERIT)) {
				note(n, "file-inherit-flags", "ACE %u: inheritance flags 0x%02x "
				     "of a non-directory dropped", i,
				     ace.flags & (NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT |
						  NT_ACE_NO_PROPAGATE_INHERIT));
			}
		}
		dacl->aces[out++] = ace;
	}
	dacl->num_aces = out;
	return 0;
}

static bool acl_denies_both_unknown(const struct richacl *acl, const struct table *t,
				    uint32_t *id)
{
	const struct richace *ace;
	size_t i;

	richacl_for_each_entry(ace, acl) {
		if (!richace_is_deny(ace) || !richace_is_unix_group(ace))
			continue;
		for (i = 0; i < t->num_both_unknown; i++) {
			if (t->both_unknown[i] == ace->e_id) {
				*id = ace->e_id;
				return true;
			}
		}
	}
	return false;
}

static void note_unmapped(const struct richacl *acl, struct notes *n)
{
	const struct richace *ace;

	richacl_for_each_entry(ace, acl) {
		const char *who = ace->e_who;

		if (!richace_is_unmapped(ace) || !who)
			continue;
		/* exact on both sides: match nobody on Windows too */
		if (!strcmp(who, "S-1-0-0") || !strcmp(who, "S-1-3-0") ||
		    !strcmp(who, "S-1-3-1"))
			continue;
		note(n, "unmapped-sid", "%s has no unix id: its %s entry matches nobody", who,
		     richace_is_deny(ace) ? "deny" : "allow");
	}
}

/*
 * OWNER RIGHTS becomes owner@ and the acl flag owner_rights (M8); what
 * changes is that files created later do not inherit the flag.
 */
static void note_owner_rights(const struct nt_sd *sd, struct notes *n)
{
	unsigned int i;

	for (i = 0; sd->dacl && i < sd->dacl->num_aces; i++) {
		const struct nt_ace *ace = &sd->dacl->aces[i];

		if (!nt_sid_equal(&ace->trustee, &nt_sid_owner_rights) ||
		    (ace->flags & NT_ACE_INHERIT_ONLY))
			continue;
		note(n, "owner-rights", "ACE %u for OWNER RIGHTS (S-1-3-4) stored as owner@ with "
		     "the acl flag owner_rights (the owner changes the acl only as the entries "
		     "allow); new files inherit it as owner@ without the flag", i);
		return;
	}
}

/* map one descriptor; on success r->blob/r->size hold the xattr value */
static void map_descriptor(const void *buf, size_t len, const struct request *req,
			   struct table *t, struct notes *n, struct result *r)
{
	struct richacl_error err = { .code = 0 };
	struct richacl_resolver res = {
		.ctx = t,
		.sid_to_id = res_sid_to_id,
		.uid_to_sid = res_uid_to_sid,
		.gid_to_sid = res_gid_to_sid,
		.refuse_unmapped = req->refuse_unmapped,
	};
	struct richacl_map_file file = {
		.owner = req->owner,
		.group = req->group,
		.isdir = req->isdir,
	};
	struct nt_sd *sd = NULL;
	struct richacl *acl = NULL, *stored = NULL;
	uint32_t id;
	ssize_t size;
	int ret;

	memset(r, 0, sizeof(*r));
	t->num_both_unknown = 0;
	t->both_unknown_overflow = false;
	t->failed_sid[0] = '\0';

	ret = nt_sd_decode(buf, len, &sd, &err);
	if (ret) {
		set_error(r, ret, "damaged security descriptor: %s",
			  err.msg[0] ? err.msg : strerror(-ret));
		return;
	}
	ret = clean_descriptor(sd, req->isdir, n);
	if (ret) {
		set_error(r, ret, "%s", strerror(-ret));
		goto out;
	}
	ret = richacl_from_nt_sd(sd, &file, &res, &acl, &err);
	if (ret) {
		if (ret == -EAGAIN)
			set_error(r, ret, "identity lookup failed for %s (winbindd?): %s",
				  t->failed_sid[0] ? t->failed_sid : "a SID", err.msg);
		else
			set_error(r, ret, "%s", err.msg[0] ? err.msg : strerror(-ret));
		goto out;
	}
	if (t->both_unknown_overflow) {
		set_error(r, -E2BIG, "too many SIDs of unknown type");
		goto out;
	}
	if (acl_denies_both_unknown(acl, t, &id)) {
		set_error(r, -ENOENT, "deny entry for the SID with uid and gid %" PRIu32
			  " whose type (user or group) cannot be looked up", id);
		goto out;
	}
	note_unmapped(acl, n);
	note_owner_rights(sd, n);
	ret = richacl_to_store(acl, req->isdir ? S_IFDIR : S_IFREG, &stored);
	if (ret) {
		set_error(r, ret, "%s", strerror(-ret));
		goto out;
	}
	r->size = richacl_xattr_size(stored);
	if (r->size > RICHACL_XATTR_MAX_SIZE) {
		set_error(r, -E2BIG, "the acl needs %zu bytes, more than the %d bytes of "
			  RICHACL_XATTR, r->size, RICHACL_XATTR_MAX_SIZE);
		goto out;
	}
	r->blob = malloc(r->size ? r->size : 1);
	if (!r->blob) {
		set_error(r, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	size = richacl_to_xattr(stored, r->blob, r->size);
	if (size < 0) {
		set_error(r, (int)size, "cannot encode the acl: %s", strerror((int)-size));
		free(r->blob);
		r->blob = NULL;
		goto out;
	}
	r->size = (size_t)size;
out:
	richacl_free(stored);
	richacl_free(acl);
	nt_sd_free(sd);
}

static const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	case EIO: return "EIO";
	case ERANGE: return "ERANGE";
	default: return "EOTHER";
	}
}

/* ---- batch mode ---- */

static int read_full(FILE *f, void *buf, size_t len)
{
	return fread(buf, 1, len, f) == len ? 0 : -1;
}

static int batch(bool refuse_unmapped)
{
	struct table t = { .sids = NULL };
	struct notes n = { .out = stdout, .prefix = "N " };
	char *line = NULL;
	size_t cap = 0;
	void *buf = NULL;
	int status = 0;

	while (getline(&line, &cap, stdin) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'Q' && line[1] == '\0')
			break;
		if (line[0] == 'I' && line[1] == ' ') {
			if (table_add(&t, line + 2)) {
				fprintf(stderr, "richacl-ntsd2xattr: bad identity line\n");
				status = EXIT_USAGE;
				break;
			}
			continue;
		}
		if (line[0] == 'M' && line[1] == ' ') {
			struct request req = { .refuse_unmapped = refuse_unmapped };
			struct result r;
			char kind;
			unsigned long len;
			size_t i;

			if (sscanf(line + 2, "%c %" SCNu32 " %" SCNu32 " %lu", &kind,
				   &req.owner, &req.group, &len) != 4 ||
			    (kind != 'd' && kind != 'f') || len > (1UL << 24)) {
				fprintf(stderr, "richacl-ntsd2xattr: bad request line\n");
				status = EXIT_USAGE;
				break;
			}
			req.isdir = kind == 'd';
			free(buf);
			buf = malloc(len ? len : 1);
			if (!buf || read_full(stdin, buf, len)) {
				fprintf(stderr, "richacl-ntsd2xattr: short request\n");
				status = EXIT_IO;
				break;
			}
			n.count = 0;
			map_descriptor(buf, len, &req, &t, &n, &r);
			if (r.err) {
				printf("E %s %s\n", errno_name(-r.err), r.msg);
			} else {
				fputs("OK ", stdout);
				for (i = 0; i < r.size; i++)
					printf("%02x", ((unsigned char *)r.blob)[i]);
				putchar('\n');
			}
			free(r.blob);
			if (fflush(stdout)) {
				status = EXIT_IO;
				break;
			}
			continue;
		}
		fprintf(stderr, "richacl-ntsd2xattr: unknown request\n");
		status = EXIT_USAGE;
		break;
	}
	free(buf);
	free(line);
	free(t.sids);
	free(t.ids);
	return status;
}

/* ---- single descriptor ---- */

static const struct option long_options[] = {
	{ "dir", no_argument, NULL, 'd' },
	{ "file", no_argument, NULL, 'f' },
	{ "owner", required_argument, NULL, 'u' },
	{ "group", required_argument, NULL, 'g' },
	{ "ids", required_argument, NULL, 'i' },
	{ "ids-fd", required_argument, NULL, 'I' },
	{ "refuse-unmapped", no_argument, NULL, 'r' },
	{ "notes", no_argument, NULL, 'n' },
	{ "set", required_argument, NULL, 's' },
	{ "output", required_argument, NULL, 'o' },
	{ "batch", no_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--dir|--file] [--owner UID --group GID] [--ids FILE|--ids-fd N]\n"
		"       %*s [--refuse-unmapped] [--notes] [--set PATH|--output FILE] < SD\n"
		"       %s --batch [--refuse-unmapped]\n"
		"Map a self-relative security descriptor to the system.richacl value that\n"
		"vfs_richacl stores for it.  --set stores it on PATH (owner, group and type\n"
		"from PATH unless given); else the value goes to --output or stdout.\n"
		"The id table has lines \"SID U|G|B|X|N|E ID\" and \"U|G ID SID\".\n",
		prog, (int)strlen(prog), "", prog);
}

static void *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *nb;
	size_t got;

	if (!buf)
		return NULL;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= (1U << 24)) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

int main(int argc, char *argv[])
{
	const char *prog = tool_progname(argv[0]);
	const char *ids = NULL, *set_path = NULL, *output = NULL;
	int ids_fd = -1, c, kind = 0;
	bool have_owner = false, have_group = false, refuse = false, notes = false;
	bool batch_mode = false;
	struct request req = { .isdir = false };
	struct table t = { .sids = NULL };
	struct notes n = { .out = NULL, .prefix = "note " };
	struct result r = { .err = 0 };
	void *sdbuf;
	size_t sdlen;
	int status;

	while ((c = getopt_long(argc, argv, "dfu:g:i:I:rns:o:bh", long_options, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'f':
			kind = c;
			break;
		case 'u':
			if (parse_u32(optarg, &req.owner) || req.owner == UINT32_MAX) {
				fprintf(stderr, "%s: bad --owner '%s'\n", prog, optarg);
				return EXIT_USAGE;
			}
			have_owner = true;
			break;
		case 'g':
			if (parse_u32(optarg, &req.group) || req.group == UINT32_MAX) {
				fprintf(stderr, "%s: bad --group '%s'\n", prog, optarg);
				return EXIT_USAGE;
			}
			have_group = true;
			break;
		case 'i':
			ids = optarg;
			break;
		case 'I': {
			uint32_t fd;

			if (parse_u32(optarg, &fd) || fd > 65535) {
				fprintf(stderr, "%s: bad --ids-fd '%s'\n", prog, optarg);
				return EXIT_USAGE;
			}
			ids_fd = (int)fd;
			break;
		}
		case 'r':
			refuse = true;
			break;
		case 'n':
			notes = true;
			break;
		case 's':
			set_path = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'b':
			batch_mode = true;
			break;
		case 'h':
			usage(stdout, prog);
			return 0;
		default:
			usage(stderr, prog);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || (ids && ids_fd >= 0) || (set_path && output)) {
		usage(stderr, prog);
		return EXIT_USAGE;
	}
	if (batch_mode) {
		if (ids || ids_fd >= 0 || set_path || output || kind || have_owner || have_group) {
			usage(stderr, prog);
			return EXIT_USAGE;
		}
		return batch(refuse);
	}
	req.refuse_unmapped = refuse;
	if (set_path) {
		struct stat st;

		if (stat(set_path, &st)) {
			tool_error(set_path, errno);
			return EXIT_IO;
		}
		if (!have_owner)
			req.owner = st.st_uid;
		if (!have_group)
			req.group = st.st_gid;
		if (!kind)
			kind = S_ISDIR(st.st_mode) ? 'd' : 'f';
	} else if (!have_owner || !have_group) {
		fprintf(stderr, "%s: --owner and --group are needed without --set\n", prog);
		return EXIT_USAGE;
	}
	req.isdir = kind == 'd';

	if (ids || ids_fd >= 0) {
		FILE *f = ids ? fopen(ids, "r") : fdopen(ids_fd, "r");
		int ret;

		if (!f) {
			tool_error(ids ? ids : "--ids-fd", errno);
			return EXIT_IO;
		}
		ret = table_load(&t, f, ids ? ids : "--ids-fd");
		fclose(f);
		if (ret)
			return ret == -EINVAL ? EXIT_USAGE : EXIT_IO;
	}

	sdbuf = read_all(stdin, &sdlen);
	if (!sdbuf) {
		tool_error("stdin", errno ? errno : EIO);
		return EXIT_IO;
	}
	if (notes)
		n.out = stderr;
	map_descriptor(sdbuf, sdlen, &req, &t, &n, &r);
	free(sdbuf);
	free(t.sids);
	free(t.ids);
	if (r.err) {
		fprintf(stderr, "%s: %s\n", prog, r.msg);
		return r.err == -ENOMEM ? EXIT_IO : EXIT_REFUSED;
	}
	status = 0;
	if (set_path) {
		if (setxattr(set_path, RICHACL_XATTR, r.blob, r.size, 0)) {
			tool_error(set_path, errno);
			status = EXIT_IO;
		}
	} else {
		FILE *f = output ? fopen(output, "wb") : stdout;

		if (!f) {
			tool_error(output, errno);
			status = EXIT_IO;
		} else {
			if (fwrite(r.blob, 1, r.size, f) != r.size || fflush(f))
				status = EXIT_IO;
			if (output && fclose(f))
				status = EXIT_IO;
			if (status)
				tool_error(output ? output : "stdout", errno ? errno : EIO);
		}
	}
	free(r.blob);
	return status;
}
