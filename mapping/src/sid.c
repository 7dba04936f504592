/*
 * sid.c - Windows security identifiers: the well-known SIDs the mapping
 * needs, comparison, and the string form of [MS-DTYP] 2.4.2.1.
 *
 * String grammar accepted (ABNF literals are case-insensitive):
 *
 *   SID       = "S-1-" authority *15("-" sub)
 *   authority = 1*10DIGIT          ; decimal, value < 2^32
 *             / "0x" 1*12HEXDIG    ; hexadecimal, value < 2^48
 *   sub       = 1*10DIGIT          ; value < 2^32
 *
 * [MS-DTYP] writes the hexadecimal authority with exactly 12 digits; shorter
 * hexadecimal forms are accepted because Samba prints them that way.  At
 * most 15 sub-authorities; zero are allowed.  Anything else (signs, spaces,
 * empty components, overflow, trailing characters) is -EINVAL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "richacl_ntsd.h"

const struct nt_sid nt_sid_world = {
	.revision = 1, .num_auths = 1, .id_auth = { 0, 0, 0, 0, 0, 1 },
	.sub_auths = { 0 },
};

const struct nt_sid nt_sid_creator_owner = {
	.revision = 1, .num_auths = 1, .id_auth = { 0, 0, 0, 0, 0, 3 },
	.sub_auths = { 0 },
};

const struct nt_sid nt_sid_creator_group = {
	.revision = 1, .num_auths = 1, .id_auth = { 0, 0, 0, 0, 0, 3 },
	.sub_auths = { 1 },
};

const struct nt_sid nt_sid_owner_rights = {
	.revision = 1, .num_auths = 1, .id_auth = { 0, 0, 0, 0, 0, 3 },
	.sub_auths = { 4 },
};

const struct nt_sid nt_sid_nobody = {
	.revision = 1, .num_auths = 1, .id_auth = { 0, 0, 0, 0, 0, 0 },
	.sub_auths = { 0 },
};

bool nt_sid_equal(const struct nt_sid *a, const struct nt_sid *b)
{
	unsigned int i;

	if (a->revision != b->revision || a->num_auths != b->num_auths)
		return false;
	if (memcmp(a->id_auth, b->id_auth, sizeof(a->id_auth)) != 0)
		return false;
	if (a->num_auths > NT_SID_MAX_SUB_AUTHS)
		return false;
	for (i = 0; i < a->num_auths; i++)
		if (a->sub_auths[i] != b->sub_auths[i])
			return false;
	return true;
}

static uint64_t sid_authority(const struct nt_sid *sid)
{
	uint64_t auth = 0;
	unsigned int i;

	for (i = 0; i < 6; i++)
		auth = (auth << 8) | sid->id_auth[i];
	return auth;
}

char *nt_sid_to_string(const struct nt_sid *sid, char *buf, size_t size)
{
	uint64_t auth = sid_authority(sid);
	unsigned int i, n = sid->num_auths;
	size_t len;
	int ret;

	if (!buf || size == 0)
		return buf;
	if (n > NT_SID_MAX_SUB_AUTHS)
		n = NT_SID_MAX_SUB_AUTHS;
	if (auth <= UINT32_MAX)
		ret = snprintf(buf, size, "S-%u-%" PRIu64, sid->revision, auth);
	else
		ret = snprintf(buf, size, "S-%u-0x%012" PRIX64, sid->revision, auth);
	if (ret < 0 || (size_t)ret >= size)
		return buf;
	len = ret;
	for (i = 0; i < n; i++) {
		ret = snprintf(buf + len, size - len, "-%" PRIu32, sid->sub_auths[i]);
		if (ret < 0 || (size_t)ret >= size - len)
			break;
		len += ret;
	}
	return buf;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1..10 decimal digits, value <= UINT32_MAX; advances *p */
static int parse_decimal32(const char **p, uint32_t *value)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned int digits = 0;

	while (is_digit(*s)) {
		if (++digits > 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	if (digits == 0 || v > UINT32_MAX)
		return -EINVAL;
	*value = (uint32_t)v;
	*p = s;
	return 0;
}

/* "0x" 1..12 hex digits; advances *p */
static int parse_hex48(const char **p, uint64_t *value)
{
	const char *s = *p + 2;
	uint64_t v = 0;
	unsigned int digits = 0;
	int d;

	while ((d = hex_value(*s)) >= 0) {
		if (++digits > 12)
			return -EINVAL;
		v = (v << 4) | (uint64_t)d;
		s++;
	}
	if (digits == 0)
		return -EINVAL;
	*value = v;
	*p = s;
	return 0;
}

int nt_sid_from_string(const char *str, struct nt_sid *sid)
{
	struct nt_sid tmp;
	const char *p = str;
	uint64_t auth;
	uint32_t v;
	unsigned int i;

	if (!str || !sid)
		return -EINVAL;
	if ((p[0] != 'S' && p[0] != 's') || p[1] != '-' || p[2] != '1' || p[3] != '-')
		return -EINVAL;
	p += 4;

	memset(&tmp, 0, sizeof(tmp));
	tmp.revision = 1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		if (parse_hex48(&p, &auth))
			return -EINVAL;
	} else {
		if (parse_decimal32(&p, &v))
			return -EINVAL;
		auth = v;
	}
	for (i = 0; i < 6; i++)
		tmp.id_auth[i] = (uint8_t)(auth >> (8 * (5 - i)));

	while (*p == '-') {
		p++;
		if (tmp.num_auths == NT_SID_MAX_SUB_AUTHS)
			return -EINVAL;
		if (parse_decimal32(&p, &v))
			return -EINVAL;
		tmp.sub_auths[tmp.num_auths++] = v;
	}
	if (*p != '\0')
		return -EINVAL;
	*sid = tmp;
	return 0;
}
