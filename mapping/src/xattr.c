/*
 * xattr.c - the system.richacl codec (v28 binary format, little endian).
 *
 *   header  16 bytes: u8 version, u8 flags, le16 count,
 *                     le32 owner_mask, le32 group_mask, le32 other_mask
 *   entries 12 bytes each: le16 type, le16 flags, le32 mask, le32 id
 *   strings one NUL-terminated identifier per unmapped entry, in entry
 *           order, concatenated without padding
 *
 * All fields are assembled byte by byte, so neither the host byte order nor
 * the alignment of the buffer matters.  The decoder is strict: anything
 * that is not exactly one well-formed, valid acl is rejected with -EINVAL
 * and a message, and nothing is returned.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "richacl.h"

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint16_t get_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t richacl_strings_size(const struct richacl *acl)
{
	const struct richace *ace;
	size_t size = 0;

	richacl_for_each_entry(ace, acl) {
		if (richace_is_unmapped(ace) && ace->e_who)
			size += strlen(ace->e_who) + 1;
	}
	return size;
}

size_t richacl_xattr_size(const struct richacl *acl)
{
	return RICHACL_XATTR_HEADER_SIZE +
	       (size_t)acl->a_count * RICHACL_XATTR_ENTRY_SIZE +
	       richacl_strings_size(acl);
}

ssize_t richacl_to_xattr(const struct richacl *acl, void *buf, size_t size)
{
	const struct richace *ace;
	unsigned char *p = buf, *s;
	size_t needed;

	if (richacl_valid(acl, NULL) ||
	    acl->a_count > RICHACL_XATTR_MAX_COUNT)
		return -EINVAL;
	needed = richacl_xattr_size(acl);
	if (needed > RICHACL_XATTR_MAX_SIZE)
		return -EINVAL;
	if (size < needed)
		return -ERANGE;

	p[0] = RICHACL_XATTR_VERSION;
	p[1] = acl->a_flags;
	put_le16(p + 2, (uint16_t)acl->a_count);
	put_le32(p + 4, acl->a_owner_mask);
	put_le32(p + 8, acl->a_group_mask);
	put_le32(p + 12, acl->a_other_mask);
	p += RICHACL_XATTR_HEADER_SIZE;
	s = p + (size_t)acl->a_count * RICHACL_XATTR_ENTRY_SIZE;

	richacl_for_each_entry(ace, acl) {
		put_le16(p, ace->e_type);
		put_le16(p + 2, ace->e_flags & RICHACE_VALID_FLAGS);
		put_le32(p + 4, ace->e_mask);
		if (richace_is_unmapped(ace)) {
			size_t len = strlen(ace->e_who) + 1;

			/* the id of an unmapped entry has no meaning: write 0 */
			put_le32(p + 8, 0);
			memcpy(s, ace->e_who, len);
			s += len;
		} else {
			put_le32(p + 8, ace->e_id);
		}
		p += RICHACL_XATTR_ENTRY_SIZE;
	}
	return (ssize_t)needed;
}

static int xattr_invalid(struct richacl_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int xattr_invalid(struct richacl_error *err, const char *fmt, ...)
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

static int xattr_nomem(struct richacl_error *err)
{
	if (err) {
		err->code = -ENOMEM;
		err->column = 0;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	}
	return -ENOMEM;
}

/* check the header and the sizes; *count and *strings describe the layout */
static int xattr_check_layout(const unsigned char *p, size_t size,
			      unsigned int *count, size_t *strings,
			      struct richacl_error *err)
{
	size_t entries_size;

	if (size < RICHACL_XATTR_HEADER_SIZE)
		return xattr_invalid(err,
			"richacl xattr too short: %zu bytes, the header alone is %d",
			size, RICHACL_XATTR_HEADER_SIZE);
	if (size > RICHACL_XATTR_MAX_SIZE)
		return xattr_invalid(err,
			"richacl xattr too long: %zu bytes, the limit is %d",
			size, RICHACL_XATTR_MAX_SIZE);
	if (p[0] != RICHACL_XATTR_VERSION)
		return xattr_invalid(err,
			"unsupported richacl xattr version %u (expected %d)",
			p[0], RICHACL_XATTR_VERSION);
	*count = get_le16(p + 2);
	if (*count > RICHACL_XATTR_MAX_COUNT)
		return xattr_invalid(err,
			"richacl xattr entry count %u exceeds the limit of %d",
			*count, RICHACL_XATTR_MAX_COUNT);
	entries_size = (size_t)*count * RICHACL_XATTR_ENTRY_SIZE;
	if (size - RICHACL_XATTR_HEADER_SIZE < entries_size)
		return xattr_invalid(err,
			"richacl xattr truncated: %u entries need %zu bytes, got %zu",
			*count, RICHACL_XATTR_HEADER_SIZE + entries_size, size);
	*strings = size - RICHACL_XATTR_HEADER_SIZE - entries_size;
	return 0;
}

/* the number of entries with the unmapped flag, and the first of them */
static unsigned int xattr_count_unmapped(const unsigned char *e,
					 unsigned int count, unsigned int *first)
{
	unsigned int i, n = 0;

	for (i = 0; i < count; i++, e += RICHACL_XATTR_ENTRY_SIZE) {
		if (get_le16(e + 2) & RICHACE_UNMAPPED_WHO) {
			if (!n)
				*first = i;
			n++;
		}
	}
	return n;
}

static int xattr_check_strings(const unsigned char *e, unsigned int count,
			       const unsigned char *s, size_t strings,
			       struct richacl_error *err)
{
	unsigned int first = 0;
	unsigned int unmapped = xattr_count_unmapped(e, count, &first);

	if (!unmapped && strings)
		return xattr_invalid(err,
			"richacl xattr has %zu byte(s) after its entries, but no entry is unmapped",
			strings);
	if (unmapped && !strings)
		return xattr_invalid(err,
			"entry %u: unmapped identifier missing (no string area)",
			first);
	if (strings && s[strings - 1] != '\0')
		return xattr_invalid(err,
			"richacl xattr string area does not end in a NUL byte");
	return 0;
}

/* fill entry i from its 12 bytes; unmapped identifiers come from *s */
static int xattr_decode_entry(struct richace *ace, unsigned int i,
			      const unsigned char *e, const char **s,
			      const char *end, struct richacl_error *err)
{
	size_t len;

	ace->e_type = get_le16(e);
	ace->e_flags = get_le16(e + 2);
	ace->e_mask = get_le32(e + 4);
	ace->e_id = get_le32(e + 8);
	if (!(ace->e_flags & RICHACE_UNMAPPED_WHO))
		return 0;

	ace->e_id = 0;	/* meaningless for unmapped entries */
	if (*s == end)
		return xattr_invalid(err,
			"entry %u: unmapped identifier missing (string area exhausted)",
			i);
	len = strlen(*s);	/* bounded: the area ends in NUL */
	if (!len)
		return xattr_invalid(err, "entry %u: unmapped identifier is empty", i);
	ace->e_who = strdup(*s);
	if (!ace->e_who)
		return xattr_nomem(err);
	*s += len + 1;
	return 0;
}

int richacl_from_xattr(const void *buf, size_t size, struct richacl **aclp,
		       struct richacl_error *err)
{
	const unsigned char *p = buf, *e;
	const char *s, *end;
	struct richacl *acl;
	unsigned int count = 0, i;
	size_t strings = 0;
	int ret;

	ret = xattr_check_layout(p, size, &count, &strings, err);
	if (ret)
		return ret;
	e = p + RICHACL_XATTR_HEADER_SIZE;
	s = (const char *)e + (size_t)count * RICHACL_XATTR_ENTRY_SIZE;
	end = s + strings;
	ret = xattr_check_strings(e, count, (const unsigned char *)s, strings, err);
	if (ret)
		return ret;

	acl = richacl_alloc(count);
	if (!acl)
		return xattr_nomem(err);
	acl->a_flags = p[1];
	acl->a_owner_mask = get_le32(p + 4);
	acl->a_group_mask = get_le32(p + 8);
	acl->a_other_mask = get_le32(p + 12);
	for (i = 0; i < count; i++, e += RICHACL_XATTR_ENTRY_SIZE) {
		ret = xattr_decode_entry(&acl->a_entries[i], i, e, &s, end, err);
		if (ret)
			goto fail;
	}
	if (s != end) {
		ret = xattr_invalid(err,
			"richacl xattr string area has %zu bytes not used by any entry",
			(size_t)(end - s));
		goto fail;
	}
	ret = richacl_valid(acl, err);
	if (ret)
		goto fail;
	*aclp = acl;
	return 0;

fail:
	richacl_free(acl);
	return ret;
}
