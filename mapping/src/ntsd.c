/*
 * ntsd.c - the small security descriptor type and its self-relative binary
 * form ([MS-DTYP] 2.4.6 SECURITY_DESCRIPTOR, 2.4.5 ACL, 2.4.4 ACE,
 * 2.4.2.2 SID).  All integers are little endian except the 48-bit SID
 * identifier authority, which is big endian.
 *
 * The decoder is strict: any truncation, bad revision, offset outside the
 * buffer or inside the header, overlapping components, a component present
 * in the offsets but not in the control word (or the reverse for the SACL),
 * ACEs that do not fit the ACL size, ACE sizes that are too small or not a
 * multiple of 4, and SIDs with more than 15 sub-authorities are -EINVAL
 * with a message naming the offset.  An ACL may have unused space after its
 * last ACE and an ACE may be longer than its body ([MS-DTYP] allows both).
 *
 * ACE types whose body is known (allow, deny, audit, alarm, their object
 * and callback variants, mandatory label, resource attribute, scoped
 * policy) are decoded into type, flags, mask and trustee (object GUIDs and
 * callback data are skipped).  Any other type is decoded with mask and
 * trustee zeroed.  The decoder never rejects a type: deciding what is
 * acceptable is the mapping's job (M10), which then names the ACE.
 *
 * The encoder writes SACL, DACL, owner, group after the header, in that
 * order (as Windows' MakeSelfRelativeSD does), and only knows the bodies of
 * the four basic ACE types (0-3); others are -EINVAL since their extra
 * fields are not kept.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "richacl_ntsd.h"

#define SD_HEADER_SIZE		20
#define ACL_HEADER_SIZE		8
#define ACE_HEADER_SIZE		4
#define SID_HEADER_SIZE		8
#define SID_MAX_SIZE		(SID_HEADER_SIZE + 4 * NT_SID_MAX_SUB_AUTHS)
#define ACL_MAX_SIZE		0xFFFF

/* ACE types with a known body ([MS-DTYP] 2.4.4.1) */
#define ACE_TYPE_ALLOWED_COMPOUND	0x04
#define ACE_TYPE_AUDIT_OBJECT		0x07
#define ACE_TYPE_ALARM_OBJECT		0x08
#define ACE_TYPE_ALLOWED_CALLBACK	0x09
#define ACE_TYPE_DENIED_CALLBACK	0x0A
#define ACE_TYPE_ALLOWED_CALLBACK_OBJECT 0x0B
#define ACE_TYPE_DENIED_CALLBACK_OBJECT	0x0C
#define ACE_TYPE_AUDIT_CALLBACK		0x0D
#define ACE_TYPE_ALARM_CALLBACK		0x0E
#define ACE_TYPE_AUDIT_CALLBACK_OBJECT	0x0F
#define ACE_TYPE_ALARM_CALLBACK_OBJECT	0x10
#define ACE_TYPE_MANDATORY_LABEL	0x11
#define ACE_TYPE_RESOURCE_ATTRIBUTE	0x12
#define ACE_TYPE_SCOPED_POLICY_ID	0x13

#define ACE_OBJECT_TYPE_PRESENT			0x1
#define ACE_INHERITED_OBJECT_TYPE_PRESENT	0x2

/* ---- allocation ---- */

struct nt_sd *nt_sd_alloc(void)
{
	struct nt_sd *sd = calloc(1, sizeof(*sd));

	if (sd) {
		sd->revision = 1;
		sd->control = NT_SD_SELF_RELATIVE;
	}
	return sd;
}

void nt_sd_free(struct nt_sd *sd)
{
	if (!sd)
		return;
	nt_acl_free(sd->dacl);
	nt_acl_free(sd->sacl);
	free(sd);
}

struct nt_acl *nt_acl_alloc(unsigned int num_aces)
{
	struct nt_acl *acl = calloc(1, sizeof(*acl));

	if (!acl)
		return NULL;
	acl->revision = NT_ACL_REVISION;
	acl->num_aces = num_aces;
	acl->aces = calloc(num_aces ? num_aces : 1, sizeof(*acl->aces));
	if (!acl->aces) {
		free(acl);
		return NULL;
	}
	return acl;
}

void nt_acl_free(struct nt_acl *acl)
{
	if (!acl)
		return;
	free(acl->aces);
	free(acl);
}

/* ---- little-endian helpers ---- */

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* ---- decoding ---- */

static int decode_error(struct richacl_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int decode_error(struct richacl_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = -EINVAL;
		err->column = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * Decode a SID at buf[off], which must end at or before limit.  what names
 * the SID in messages.  *len receives its size.
 */
static int decode_sid(const uint8_t *buf, size_t off, size_t limit, const char *what,
		      struct nt_sid *sid, size_t *len, struct richacl_error *err)
{
	unsigned int i, n;

	if (off > limit || limit - off < SID_HEADER_SIZE)
		return decode_error(err, "%s at offset %zu: truncated SID header", what, off);
	if (buf[off] != 1)
		return decode_error(err, "%s at offset %zu: SID revision %u, expected 1",
				    what, off, buf[off]);
	n = buf[off + 1];
	if (n > NT_SID_MAX_SUB_AUTHS)
		return decode_error(err,
				    "%s at offset %zu: %u sub-authorities, at most %u allowed",
				    what, off, n, NT_SID_MAX_SUB_AUTHS);
	if (limit - off < SID_HEADER_SIZE + 4 * (size_t)n)
		return decode_error(err, "%s at offset %zu: truncated SID (%u sub-authorities)",
				    what, off, n);
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = (uint8_t)n;
	memcpy(sid->id_auth, buf + off + 2, 6);
	for (i = 0; i < n; i++)
		sid->sub_auths[i] = get_le32(buf + off + SID_HEADER_SIZE + 4 * i);
	*len = SID_HEADER_SIZE + 4 * (size_t)n;
	return 0;
}

static bool ace_type_is_object(uint8_t type)
{
	switch (type) {
	case NT_ACE_ACCESS_ALLOWED_OBJECT:
	case NT_ACE_ACCESS_DENIED_OBJECT:
	case ACE_TYPE_AUDIT_OBJECT:
	case ACE_TYPE_ALARM_OBJECT:
	case ACE_TYPE_ALLOWED_CALLBACK_OBJECT:
	case ACE_TYPE_DENIED_CALLBACK_OBJECT:
	case ACE_TYPE_AUDIT_CALLBACK_OBJECT:
	case ACE_TYPE_ALARM_CALLBACK_OBJECT:
		return true;
	}
	return false;
}

/* types whose body is Mask followed by a SID (and maybe extra data) */
static bool ace_type_is_mask_sid(uint8_t type)
{
	switch (type) {
	case NT_ACE_ACCESS_ALLOWED:
	case NT_ACE_ACCESS_DENIED:
	case NT_ACE_SYSTEM_AUDIT:
	case NT_ACE_SYSTEM_ALARM:
	case ACE_TYPE_ALLOWED_CALLBACK:
	case ACE_TYPE_DENIED_CALLBACK:
	case ACE_TYPE_AUDIT_CALLBACK:
	case ACE_TYPE_ALARM_CALLBACK:
	case ACE_TYPE_MANDATORY_LABEL:
	case ACE_TYPE_RESOURCE_ATTRIBUTE:
	case ACE_TYPE_SCOPED_POLICY_ID:
		return true;
	}
	return false;
}

/* the ACE at buf[off] with size ace_size (already bounds-checked) */
static int decode_ace_body(const uint8_t *buf, size_t off, size_t ace_size,
			   const char *what, unsigned int index, struct nt_ace *ace,
			   struct richacl_error *err)
{
	size_t end = off + ace_size, pos = off + ACE_HEADER_SIZE, sid_len;
	char name[64];
	uint32_t oflags;

	if (!ace_type_is_mask_sid(ace->type) && !ace_type_is_object(ace->type))
		return 0;	/* unknown body: mask and trustee stay zero */
	if (end - pos < 4)
		return decode_error(err, "%s ACE %u at offset %zu: size %zu too small for a mask",
				    what, index, off, ace_size);
	ace->mask = get_le32(buf + pos);
	pos += 4;
	if (ace_type_is_object(ace->type)) {
		if (end - pos < 4)
			return decode_error(err,
					    "%s ACE %u at offset %zu: size %zu too small for object flags",
					    what, index, off, ace_size);
		oflags = get_le32(buf + pos);
		pos += 4;
		if (oflags & ACE_OBJECT_TYPE_PRESENT)
			pos += 16;
		if (oflags & ACE_INHERITED_OBJECT_TYPE_PRESENT)
			pos += 16;
		if (pos > end)
			return decode_error(err,
					    "%s ACE %u at offset %zu: size %zu too small for its object GUIDs",
					    what, index, off, ace_size);
	}
	snprintf(name, sizeof(name), "%s ACE %u trustee", what, index);
	return decode_sid(buf, pos, end, name, &ace->trustee, &sid_len, err);
}

/* the ACL at buf[off]; *acl_size receives its AclSize */
static int decode_acl(const uint8_t *buf, size_t size, size_t off, const char *what,
		      struct nt_acl **out, size_t *acl_size, struct richacl_error *err)
{
	unsigned int i, count;
	size_t len, pos, ace_size;
	struct nt_acl *acl;
	uint8_t rev;
	int ret;

	if (size - off < ACL_HEADER_SIZE)
		return decode_error(err, "%s at offset %zu: truncated ACL header", what, off);
	rev = buf[off];
	if (rev < NT_ACL_REVISION_MIN || rev > NT_ACL_REVISION_MAX)
		return decode_error(err, "%s at offset %zu: ACL revision %u, expected 2 to 4",
				    what, off, rev);
	len = get_le16(buf + off + 2);
	count = get_le16(buf + off + 4);
	if (len < ACL_HEADER_SIZE)
		return decode_error(err, "%s at offset %zu: ACL size %zu smaller than its header",
				    what, off, len);
	if (len > size - off)
		return decode_error(err,
				    "%s at offset %zu: ACL size %zu exceeds the %zu bytes left in the buffer",
				    what, off, len, size - off);
	if ((size_t)count * ACE_HEADER_SIZE > len - ACL_HEADER_SIZE)
		return decode_error(err, "%s at offset %zu: %u ACEs cannot fit in ACL size %zu",
				    what, off, count, len);

	acl = nt_acl_alloc(count);
	if (!acl)
		return -ENOMEM;
	acl->revision = rev;
	pos = off + ACL_HEADER_SIZE;
	for (i = 0; i < count; i++) {
		struct nt_ace *ace = &acl->aces[i];

		if (off + len - pos < ACE_HEADER_SIZE) {
			ret = decode_error(err,
					   "%s ACE %u at offset %zu: beyond the ACL size %zu (ACE count %u)",
					   what, i, pos, len, count);
			goto fail;
		}
		ace->type = buf[pos];
		ace->flags = buf[pos + 1];
		ace_size = get_le16(buf + pos + 2);
		if (ace_size < ACE_HEADER_SIZE || ace_size % 4 != 0) {
			ret = decode_error(err,
					   "%s ACE %u at offset %zu: ACE size %zu is below 4 or not a multiple of 4",
					   what, i, pos, ace_size);
			goto fail;
		}
		if (ace_size > off + len - pos) {
			ret = decode_error(err,
					   "%s ACE %u at offset %zu: ACE size %zu runs past the end of the ACL (size %zu)",
					   what, i, pos, ace_size, len);
			goto fail;
		}
		ret = decode_ace_body(buf, pos, ace_size, what, i, ace, err);
		if (ret)
			goto fail;
		pos += ace_size;
	}
	*out = acl;
	*acl_size = len;
	return 0;

fail:
	nt_acl_free(acl);
	return ret;
}

struct sd_region {
	const char *what;
	size_t off, len;
};

static int check_offset(size_t off, size_t size, const char *what, struct richacl_error *err)
{
	if (off < SD_HEADER_SIZE)
		return decode_error(err, "%s offset %zu points into the 20-byte header", what, off);
	if (off >= size)
		return decode_error(err, "%s offset %zu is beyond the end of the %zu-byte buffer",
				    what, off, size);
	return 0;
}

static int check_overlaps(const struct sd_region *r, unsigned int n, struct richacl_error *err)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (r[i].off < r[j].off + r[j].len && r[j].off < r[i].off + r[i].len)
				return decode_error(err,
						    "%s at offset %zu (%zu bytes) overlaps %s at offset %zu (%zu bytes)",
						    r[i].what, r[i].off, r[i].len, r[j].what,
						    r[j].off, r[j].len);
	return 0;
}

int nt_sd_decode(const void *buf, size_t size, struct nt_sd **out, struct richacl_error *err)
{
	const uint8_t *b = buf;
	struct sd_region regions[4];
	unsigned int nregions = 0;
	size_t off_owner, off_group, off_sacl, off_dacl, len;
	struct nt_sd *sd;
	int ret;

	if (!buf || !out)
		return decode_error(err, "no buffer");
	if (size < SD_HEADER_SIZE)
		return decode_error(err, "descriptor of %zu bytes is shorter than the 20-byte header",
				    size);
	if (b[0] != 1)
		return decode_error(err, "descriptor at offset 0: revision %u, expected 1", b[0]);

	sd = nt_sd_alloc();
	if (!sd)
		return -ENOMEM;
	sd->control = get_le16(b + 2);
	off_owner = get_le32(b + 4);
	off_group = get_le32(b + 8);
	off_sacl = get_le32(b + 12);
	off_dacl = get_le32(b + 16);

	if (!(sd->control & NT_SD_SELF_RELATIVE)) {
		ret = decode_error(err, "descriptor at offset 2: control 0x%04x lacks SELF_RELATIVE",
				   sd->control);
		goto fail;
	}
	if (off_dacl && !(sd->control & NT_SD_DACL_PRESENT)) {
		ret = decode_error(err, "DACL offset %zu given but control 0x%04x lacks DACL_PRESENT",
				   off_dacl, sd->control);
		goto fail;
	}
	if (off_sacl && !(sd->control & NT_SD_SACL_PRESENT)) {
		ret = decode_error(err, "SACL offset %zu given but control 0x%04x lacks SACL_PRESENT",
				   off_sacl, sd->control);
		goto fail;
	}

	if (off_owner) {
		ret = check_offset(off_owner, size, "owner SID", err);
		if (!ret)
			ret = decode_sid(b, off_owner, size, "owner SID", &sd->owner, &len, err);
		if (ret)
			goto fail;
		sd->has_owner = true;
		regions[nregions++] = (struct sd_region){ "owner SID", off_owner, len };
	}
	if (off_group) {
		ret = check_offset(off_group, size, "group SID", err);
		if (!ret)
			ret = decode_sid(b, off_group, size, "group SID", &sd->group, &len, err);
		if (ret)
			goto fail;
		sd->has_group = true;
		regions[nregions++] = (struct sd_region){ "group SID", off_group, len };
	}
	if (off_sacl) {
		ret = check_offset(off_sacl, size, "SACL", err);
		if (!ret)
			ret = decode_acl(b, size, off_sacl, "SACL", &sd->sacl, &len, err);
		if (ret)
			goto fail;
		regions[nregions++] = (struct sd_region){ "SACL", off_sacl, len };
	}
	if (off_dacl) {
		ret = check_offset(off_dacl, size, "DACL", err);
		if (!ret)
			ret = decode_acl(b, size, off_dacl, "DACL", &sd->dacl, &len, err);
		if (ret)
			goto fail;
		regions[nregions++] = (struct sd_region){ "DACL", off_dacl, len };
	}
	ret = check_overlaps(regions, nregions, err);
	if (ret)
		goto fail;
	*out = sd;
	return 0;

fail:
	nt_sd_free(sd);
	return ret;
}

/* ---- encoding ---- */

static ssize_t sid_size(const struct nt_sid *sid)
{
	if (sid->revision != 1 || sid->num_auths > NT_SID_MAX_SUB_AUTHS)
		return -EINVAL;
	return SID_HEADER_SIZE + 4 * (ssize_t)sid->num_auths;
}

static bool ace_type_encodable(uint8_t type)
{
	return type <= NT_ACE_SYSTEM_ALARM;
}

static ssize_t acl_size(const struct nt_acl *acl)
{
	ssize_t total = ACL_HEADER_SIZE, len;
	unsigned int i;

	if (acl->revision < NT_ACL_REVISION_MIN || acl->revision > NT_ACL_REVISION_MAX)
		return -EINVAL;
	if (acl->num_aces > 0xFFFF || (acl->num_aces && !acl->aces))
		return -EINVAL;
	for (i = 0; i < acl->num_aces; i++) {
		if (!ace_type_encodable(acl->aces[i].type))
			return -EINVAL;
		len = sid_size(&acl->aces[i].trustee);
		if (len < 0)
			return len;
		total += ACE_HEADER_SIZE + 4 + len;
		if (total > ACL_MAX_SIZE)
			return -EINVAL;
	}
	return total;
}

static size_t encode_sid(uint8_t *p, const struct nt_sid *sid)
{
	unsigned int i;

	p[0] = sid->revision;
	p[1] = sid->num_auths;
	memcpy(p + 2, sid->id_auth, 6);
	for (i = 0; i < sid->num_auths; i++)
		put_le32(p + SID_HEADER_SIZE + 4 * i, sid->sub_auths[i]);
	return SID_HEADER_SIZE + 4 * (size_t)sid->num_auths;
}

static size_t encode_acl(uint8_t *p, const struct nt_acl *acl, size_t size)
{
	size_t pos = ACL_HEADER_SIZE, len;
	unsigned int i;

	p[0] = (uint8_t)acl->revision;
	p[1] = 0;
	put_le16(p + 2, (uint16_t)size);
	put_le16(p + 4, (uint16_t)acl->num_aces);
	put_le16(p + 6, 0);
	for (i = 0; i < acl->num_aces; i++) {
		const struct nt_ace *ace = &acl->aces[i];

		len = ACE_HEADER_SIZE + 4 + SID_HEADER_SIZE + 4 * (size_t)ace->trustee.num_auths;
		p[pos] = ace->type;
		p[pos + 1] = ace->flags;
		put_le16(p + pos + 2, (uint16_t)len);
		put_le32(p + pos + 4, ace->mask);
		encode_sid(p + pos + 8, &ace->trustee);
		pos += len;
	}
	return pos;
}

ssize_t nt_sd_encode(const struct nt_sd *sd, void *buf, size_t size)
{
	ssize_t sacl_len = 0, dacl_len = 0, owner_len = 0, group_len = 0;
	size_t total, pos;
	uint16_t control;
	uint8_t *b = buf;

	if (!sd || sd->revision != 1)
		return -EINVAL;
	if (sd->sacl && (sacl_len = acl_size(sd->sacl)) < 0)
		return sacl_len;
	if (sd->dacl && (dacl_len = acl_size(sd->dacl)) < 0)
		return dacl_len;
	if (sd->has_owner && (owner_len = sid_size(&sd->owner)) < 0)
		return owner_len;
	if (sd->has_group && (group_len = sid_size(&sd->group)) < 0)
		return group_len;
	total = SD_HEADER_SIZE + (size_t)(sacl_len + dacl_len + owner_len + group_len);
	if (!buf)
		return (ssize_t)total;
	if (size < total)
		return -ERANGE;

	control = sd->control | NT_SD_SELF_RELATIVE;
	if (sd->dacl)
		control |= NT_SD_DACL_PRESENT;
	if (sd->sacl)
		control |= NT_SD_SACL_PRESENT;
	memset(b, 0, SD_HEADER_SIZE);
	b[0] = 1;
	put_le16(b + 2, control);
	pos = SD_HEADER_SIZE;
	if (sd->sacl) {
		put_le32(b + 12, (uint32_t)pos);
		pos += encode_acl(b + pos, sd->sacl, (size_t)sacl_len);
	}
	if (sd->dacl) {
		put_le32(b + 16, (uint32_t)pos);
		pos += encode_acl(b + pos, sd->dacl, (size_t)dacl_len);
	}
	if (sd->has_owner) {
		put_le32(b + 4, (uint32_t)pos);
		pos += encode_sid(b + pos, &sd->owner);
	}
	if (sd->has_group) {
		put_le32(b + 8, (uint32_t)pos);
		pos += encode_sid(b + pos, &sd->group);
	}
	return (ssize_t)pos;
}
