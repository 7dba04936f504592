/*
 * test_ntsd_codec.c - the self-relative security descriptor codec
 * ([MS-DTYP] 2.4.6 SECURITY_DESCRIPTOR, 2.4.5 ACL, 2.4.4 ACE, 2.4.2.2 SID).
 *
 * Expected bytes are written out by hand from the spec layout, field by
 * field, not produced by the encoder:
 *   SD header:  Revision(1)=1 Sbz1(1) Control(2 LE) OffsetOwner(4 LE)
 *               OffsetGroup(4 LE) OffsetSacl(4 LE) OffsetDacl(4 LE)
 *   ACL header: AclRevision(1) Sbz1(1) AclSize(2 LE) AceCount(2 LE) Sbz2(2)
 *   ACE:        AceType(1) AceFlags(1) AceSize(2 LE) Mask(4 LE) Sid
 *   SID:        Revision(1)=1 SubAuthorityCount(1) IdentifierAuthority(6 BE)
 *               SubAuthority[n](4 LE each)
 * The encoder places SACL, DACL, owner, group after the header (the order
 * of Windows' MakeSelfRelativeSD); a decoder accepts any order.
 *
 * The codec is the first line of M7 / M10: a malformed blob must be refused
 * with a message naming the offset before any mapping starts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "richacl_ntsd.h"
#include "helpers_resolver.h"

/* ---- hand-written descriptors ---- */

/*
 * Example A: owner S-1-5-32-544, group S-1-5-18, DACL with one ACE:
 * allow, OI|CI, FILE_ALL_ACCESS (0x1F01FF), S-1-1-0.  Control SR|DP.
 *   header 0..19, DACL 20..47 (8 + ACE 20), owner 48..63, group 64..75
 */
static const uint8_t example_a[] = {
	/* header */
	0x01, 0x00, 0x04, 0x80,			/* rev 1, sbz1, control 0x8004 */
	0x30, 0x00, 0x00, 0x00,			/* owner at 48 */
	0x40, 0x00, 0x00, 0x00,			/* group at 64 */
	0x00, 0x00, 0x00, 0x00,			/* no SACL */
	0x14, 0x00, 0x00, 0x00,			/* DACL at 20 */
	/* DACL: revision 2, size 28, 1 ACE */
	0x02, 0x00, 0x1C, 0x00, 0x01, 0x00, 0x00, 0x00,
	/* ACE: allowed, flags 0x03, size 20, mask 0x001F01FF, S-1-1-0 */
	0x00, 0x03, 0x14, 0x00, 0xFF, 0x01, 0x1F, 0x00,
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* owner S-1-5-32-544 */
	0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x20, 0x00, 0x00, 0x00,
	0x20, 0x02, 0x00, 0x00,
	/* group S-1-5-18 */
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x12, 0x00, 0x00, 0x00,
};

/* Example B: NULL DACL (DP set, OffsetDacl 0), nothing else */
static const uint8_t example_b[] = {
	0x01, 0x00, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* Example C: empty DACL (deny everything), control SR|DP|PD|DI = 0x9404 */
static const uint8_t example_c[] = {
	0x01, 0x00, 0x04, 0x94, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/*
 * Example D: SACL (revision 2) with one audit ACE (type 2, flags 0xC0,
 * mask DELETE 0x10000, S-1-1-0) and a DACL (revision 4) with
 *   deny  0x00  mask 0x00000002  S-1-5-21-1-2-3-1001
 *   allow 0x1B  mask 0x001200A9  S-1-3-0   (OI|CI|IO|INHERITED)
 * owner S-1-5-21-1-2-3-1001, no group.  Control SR|SP|DP = 0x8014.
 *   header 0..19; SACL 20..47 (8 + 20); DACL 48..111 (8 + 36 + 20);
 *   owner 112..139
 */
static const uint8_t example_d[] = {
	0x01, 0x00, 0x14, 0x80,
	0x70, 0x00, 0x00, 0x00,			/* owner at 112 */
	0x00, 0x00, 0x00, 0x00,			/* no group */
	0x14, 0x00, 0x00, 0x00,			/* SACL at 20 */
	0x30, 0x00, 0x00, 0x00,			/* DACL at 48 */
	/* SACL: revision 2, size 28, 1 ACE */
	0x02, 0x00, 0x1C, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x02, 0xC0, 0x14, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* DACL: revision 4, size 64, 2 ACEs */
	0x04, 0x00, 0x40, 0x00, 0x02, 0x00, 0x00, 0x00,
	/* deny, size 36 = 4 + 4 + SID of 28 bytes */
	0x01, 0x00, 0x24, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x15, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00,
	/* allow, flags 0x1B, size 20 */
	0x00, 0x1B, 0x14, 0x00, 0xA9, 0x00, 0x12, 0x00,
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
	/* owner S-1-5-21-1-2-3-1001 */
	0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x15, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0xE9, 0x03, 0x00, 0x00,
};

/* Example E: owner only, with a 48-bit authority (S-1-0x010203040506-7) */
static const uint8_t example_e[] = {
	0x01, 0x00, 0x00, 0x80, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x00, 0x00,
};

/* ---- helpers ---- */

static struct nt_sid sid_of(const char *s)
{
	return test_sid(s);
}

static struct nt_sd *decode_ok(const uint8_t *buf, size_t size)
{
	struct richacl_error err = { 0 };
	struct nt_sd *sd = NULL;
	int ret = nt_sd_decode(buf, size, &sd, &err);

	if (ret)
		fail_msg("decode failed (%d): %s", ret, err.msg);
	assert_non_null(sd);
	return sd;
}

/* decoding must fail with -EINVAL, a message containing want, *sd untouched */
static void decode_bad(const uint8_t *buf, size_t size, const char *want)
{
	struct richacl_error err = { 0 };
	struct nt_sd *sentinel = (struct nt_sd *)(uintptr_t)0x1;
	struct nt_sd *sd = sentinel;
	int ret = nt_sd_decode(buf, size, &sd, &err);

	if (ret != -EINVAL)
		fail_msg("decode returned %d, expected -EINVAL (want \"%s\")", ret, want);
	assert_ptr_equal(sd, sentinel);
	assert_int_equal(err.code, -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void encode_expect(const struct nt_sd *sd, const uint8_t *expect, size_t size)
{
	uint8_t buf[512];
	ssize_t len;

	assert_true(size <= sizeof(buf));
	assert_int_equal(nt_sd_encode(sd, NULL, 0), (ssize_t)size);
	memset(buf, 0xEE, sizeof(buf));
	len = nt_sd_encode(sd, buf, sizeof(buf));
	assert_int_equal(len, (ssize_t)size);
	assert_memory_equal(buf, expect, size);
}

static uint8_t *copy_of(const uint8_t *src, size_t size)
{
	uint8_t *p = malloc(size);

	assert_non_null(p);
	memcpy(p, src, size);
	return p;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

/* ---- encoding: byte-exact ---- */

static struct nt_sd *build_example_a(void)
{
	struct nt_sd *sd = nt_sd_alloc();

	assert_non_null(sd);
	sd->has_owner = sd->has_group = true;
	sd->owner = sid_of("S-1-5-32-544");
	sd->group = sid_of("S-1-5-18");
	sd->dacl = nt_acl_alloc(1);
	assert_non_null(sd->dacl);
	sd->dacl->aces[0] = (struct nt_ace){ NT_ACE_ACCESS_ALLOWED,
		NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT, 0x1F01FF, nt_sid_world };
	sd->control |= NT_SD_DACL_PRESENT;
	return sd;
}

static void test_encode_example_a(void **state)
{
	struct nt_sd *sd = build_example_a();

	(void)state;
	encode_expect(sd, example_a, sizeof(example_a));
	/* DACL_PRESENT is implied by a DACL even if the caller forgot it */
	sd->control = 0;
	encode_expect(sd, example_a, sizeof(example_a));
	nt_sd_free(sd);
}

static void test_encode_null_dacl(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();

	(void)state;
	sd->control |= NT_SD_DACL_PRESENT;
	encode_expect(sd, example_b, sizeof(example_b));
	nt_sd_free(sd);
}

static void test_encode_empty_dacl_with_control_flags(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();

	(void)state;
	sd->control = NT_SD_DACL_PROTECTED | NT_SD_DACL_AUTO_INHERITED;
	sd->dacl = nt_acl_alloc(0);
	encode_expect(sd, example_c, sizeof(example_c));
	nt_sd_free(sd);
}

static void test_encode_sacl_dacl_owner(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();

	(void)state;
	sd->has_owner = true;
	test_domain_sid(&sd->owner, 1001);
	sd->sacl = nt_acl_alloc(1);
	sd->sacl->aces[0] = (struct nt_ace){ NT_ACE_SYSTEM_AUDIT,
		NT_ACE_SUCCESSFUL_ACCESS | NT_ACE_FAILED_ACCESS, 0x10000, nt_sid_world };
	sd->dacl = nt_acl_alloc(2);
	sd->dacl->revision = NT_ACL_REVISION_DS;
	sd->dacl->aces[0] = (struct nt_ace){ NT_ACE_ACCESS_DENIED, 0, 0x2, sd->owner };
	sd->dacl->aces[1] = (struct nt_ace){ NT_ACE_ACCESS_ALLOWED, 0x1B, 0x1200A9,
		nt_sid_creator_owner };
	encode_expect(sd, example_d, sizeof(example_d));
	nt_sd_free(sd);
}

static void test_encode_48bit_authority(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();

	(void)state;
	sd->has_owner = true;
	sd->owner = sid_of("S-1-0x010203040506-7");
	encode_expect(sd, example_e, sizeof(example_e));
	nt_sd_free(sd);
}

static void test_encode_errors(void **state)
{
	struct nt_sd *sd = build_example_a();
	uint8_t buf[sizeof(example_a)];

	(void)state;
	/* too small a buffer: -ERANGE, exact size works */
	assert_int_equal(nt_sd_encode(sd, buf, sizeof(buf) - 1), -ERANGE);
	assert_int_equal(nt_sd_encode(sd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	/* ACE types whose extra fields are not kept cannot be encoded */
	sd->dacl->aces[0].type = NT_ACE_ACCESS_ALLOWED_OBJECT;
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	sd->dacl->aces[0].type = NT_ACE_ACCESS_ALLOWED;
	/* SID with 16 sub-authorities */
	sd->dacl->aces[0].trustee.num_auths = 16;
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	sd->dacl->aces[0].trustee.num_auths = 1;
	sd->owner.revision = 2;
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	sd->owner.revision = 1;
	sd->dacl->revision = 5;
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	sd->dacl->revision = 2;
	sd->revision = 0;
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	sd->revision = 1;
	assert_int_equal(nt_sd_encode(NULL, NULL, 0), -EINVAL);
	nt_sd_free(sd);
}

static void test_encode_acl_size_limit(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();
	unsigned int i;

	(void)state;
	/* each ACE with a 15-sub-authority SID takes 4 + 4 + 68 = 76 bytes */
	sd->dacl = nt_acl_alloc(862);	/* 8 + 862 * 76 = 65520 <= 65535 */
	for (i = 0; i < sd->dacl->num_aces; i++) {
		sd->dacl->aces[i].trustee.revision = 1;
		sd->dacl->aces[i].trustee.num_auths = 15;
	}
	assert_int_equal(nt_sd_encode(sd, NULL, 0), 20 + 65520);
	nt_acl_free(sd->dacl);
	sd->dacl = nt_acl_alloc(863);	/* 65596 > 65535: AclSize cannot hold it */
	for (i = 0; i < sd->dacl->num_aces; i++) {
		sd->dacl->aces[i].trustee.revision = 1;
		sd->dacl->aces[i].trustee.num_auths = 15;
	}
	assert_int_equal(nt_sd_encode(sd, NULL, 0), -EINVAL);
	nt_sd_free(sd);
}

/* ---- decoding valid descriptors ---- */

static void test_decode_example_a(void **state)
{
	struct nt_sd *sd = decode_ok(example_a, sizeof(example_a));
	struct nt_sid sys = sid_of("S-1-5-18"), adm = sid_of("S-1-5-32-544");

	(void)state;
	assert_int_equal(sd->revision, 1);
	assert_int_equal(sd->control, 0x8004);
	assert_true(sd->has_owner && sd->has_group);
	assert_true(nt_sid_equal(&sd->owner, &adm));
	assert_true(nt_sid_equal(&sd->group, &sys));
	assert_null(sd->sacl);
	assert_non_null(sd->dacl);
	assert_int_equal(sd->dacl->revision, 2);
	assert_int_equal(sd->dacl->num_aces, 1);
	assert_int_equal(sd->dacl->aces[0].type, NT_ACE_ACCESS_ALLOWED);
	assert_int_equal(sd->dacl->aces[0].flags, 0x03);
	assert_int_equal(sd->dacl->aces[0].mask, 0x1F01FF);
	assert_true(nt_sid_equal(&sd->dacl->aces[0].trustee, &nt_sid_world));
	nt_sd_free(sd);
}

static void test_decode_null_and_empty_dacl(void **state)
{
	struct nt_sd *sd = decode_ok(example_b, sizeof(example_b));

	(void)state;
	assert_true(sd->control & NT_SD_DACL_PRESENT);
	assert_null(sd->dacl);			/* NULL DACL */
	assert_false(sd->has_owner || sd->has_group);
	nt_sd_free(sd);
	sd = decode_ok(example_c, sizeof(example_c));
	assert_non_null(sd->dacl);		/* empty DACL */
	assert_int_equal(sd->dacl->num_aces, 0);
	assert_int_equal(sd->control, 0x9404);
	nt_sd_free(sd);
}

static void test_decode_example_d(void **state)
{
	struct nt_sd *sd = decode_ok(example_d, sizeof(example_d));
	struct nt_sid u;

	(void)state;
	test_domain_sid(&u, 1001);
	assert_true(sd->has_owner);
	assert_false(sd->has_group);
	assert_true(nt_sid_equal(&sd->owner, &u));
	assert_non_null(sd->sacl);
	assert_int_equal(sd->sacl->num_aces, 1);
	assert_int_equal(sd->sacl->aces[0].type, NT_ACE_SYSTEM_AUDIT);
	assert_int_equal(sd->sacl->aces[0].flags, 0xC0);
	assert_int_equal(sd->dacl->revision, 4);
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_int_equal(sd->dacl->aces[0].type, NT_ACE_ACCESS_DENIED);
	assert_int_equal(sd->dacl->aces[0].mask, 2);
	assert_true(nt_sid_equal(&sd->dacl->aces[0].trustee, &u));
	assert_int_equal(sd->dacl->aces[1].flags, 0x1B);
	assert_int_equal(sd->dacl->aces[1].mask, 0x1200A9);
	assert_true(nt_sid_equal(&sd->dacl->aces[1].trustee, &nt_sid_creator_owner));
	nt_sd_free(sd);
}

static void test_decode_encode_round_trip(void **state)
{
	const struct { const uint8_t *p; size_t n; } ex[] = {
		{ example_a, sizeof(example_a) }, { example_b, sizeof(example_b) },
		{ example_c, sizeof(example_c) }, { example_d, sizeof(example_d) },
		{ example_e, sizeof(example_e) },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct nt_sd *sd = decode_ok(ex[i].p, ex[i].n);

		encode_expect(sd, ex[i].p, ex[i].n);
		nt_sd_free(sd);
	}
}

/* components in another order (owner, group, DACL: Samba's NDR order) */
static void test_decode_other_component_order(void **state)
{
	static const uint8_t blob[] = {
		0x01, 0x00, 0x04, 0x80,
		0x14, 0x00, 0x00, 0x00,		/* owner at 20 */
		0x20, 0x00, 0x00, 0x00,		/* group at 32 */
		0x00, 0x00, 0x00, 0x00,
		0x2C, 0x00, 0x00, 0x00,		/* DACL at 44 */
		0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x12, 0x00, 0x00, 0x00,
		0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x13, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct nt_sd *sd = decode_ok(blob, sizeof(blob));
	struct nt_sid s18 = sid_of("S-1-5-18"), s19 = sid_of("S-1-5-19");

	(void)state;
	assert_true(nt_sid_equal(&sd->owner, &s18));
	assert_true(nt_sid_equal(&sd->group, &s19));
	assert_int_equal(sd->dacl->num_aces, 0);
	nt_sd_free(sd);
}

/* [MS-DTYP] 2.4.4.1: AceSize may exceed the body; 2.4.5: AclSize may leave free space */
static void test_decode_ace_and_acl_slack(void **state)
{
	static const uint8_t blob[] = {
		0x01, 0x00, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
		/* ACL size 40: header 8 + ACE 24 + 8 free bytes */
		0x02, 0x00, 0x28, 0x00, 0x01, 0x00, 0x00, 0x00,
		/* ACE size 24: 20 bytes of body + 4 bytes of padding */
		0x01, 0x10, 0x18, 0x00, 0x20, 0x00, 0x00, 0x00,
		0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0xAA, 0xBB, 0xCC, 0xDD,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct nt_sd *sd = decode_ok(blob, sizeof(blob));

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 1);
	assert_int_equal(sd->dacl->aces[0].type, NT_ACE_ACCESS_DENIED);
	assert_int_equal(sd->dacl->aces[0].flags, NT_ACE_INHERITED);
	assert_int_equal(sd->dacl->aces[0].mask, 0x20);
	assert_true(nt_sid_equal(&sd->dacl->aces[0].trustee, &nt_sid_world));
	nt_sd_free(sd);
}

/*
 * Object, callback and unknown ACE types are decoded (so that the mapping
 * can name them, M10): object ACEs skip their GUIDs, callback ACEs their
 * application data, unknown types keep mask and trustee zero.
 */
static const uint8_t typed_aces[] = {
	0x01, 0x00, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
	/* ACL size 8 + 56 + 60 + 24 + 8 = 156, 4 ACEs */
	0x04, 0x00, 0x9C, 0x00, 0x04, 0x00, 0x00, 0x00,
	/* 0: allowed-object, both GUIDs: 4 + 4 + 4 + 16 + 16 + 12 = 56 */
	0x05, 0x02, 0x38, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	/* 1: denied-object, inherited-object GUID only: 4 + 4 + 4 + 16 + 32 (SID with 6) = 60 */
	0x06, 0x00, 0x3C, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	0x01, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x15, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xE9, 0x03, 0, 0, 7, 0, 0, 0,
	/* 2: allowed-callback with 4 bytes of application data: 4 + 4 + 12 + 4 = 24 */
	0x09, 0x00, 0x18, 0x00, 0x04, 0x00, 0x00, 0x00,
	0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00,
	'a', 'r', 't', 'x',
	/* 3: unknown type 0x42, size 8 */
	0x42, 0x01, 0x08, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,
};

static void test_decode_object_callback_and_unknown_types(void **state)
{
	struct nt_sd *sd = decode_ok(typed_aces, sizeof(typed_aces));
	struct nt_sid six = sid_of("S-1-5-21-1-2-3-1001-7"), zero = { 0 };
	const struct nt_ace *a = sd->dacl->aces;

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 4);
	assert_int_equal(a[0].type, NT_ACE_ACCESS_ALLOWED_OBJECT);
	assert_int_equal(a[0].flags, 2);
	assert_int_equal(a[0].mask, 1);
	assert_true(nt_sid_equal(&a[0].trustee, &nt_sid_world));
	assert_int_equal(a[1].type, NT_ACE_ACCESS_DENIED_OBJECT);
	assert_int_equal(a[1].mask, 2);
	assert_true(nt_sid_equal(&a[1].trustee, &six));
	assert_int_equal(a[2].type, 0x09);
	assert_int_equal(a[2].mask, 4);
	assert_true(nt_sid_equal(&a[2].trustee, &nt_sid_creator_group));
	assert_int_equal(a[3].type, 0x42);
	assert_int_equal(a[3].flags, 1);
	assert_int_equal(a[3].mask, 0);
	assert_memory_equal(&a[3].trustee, &zero, sizeof(zero));
	nt_sd_free(sd);
}

/* bytes after the last component are not part of any component */
static void test_decode_trailing_bytes_ignored(void **state)
{
	uint8_t blob[sizeof(example_a) + 8];
	struct nt_sd *sd;

	(void)state;
	memcpy(blob, example_a, sizeof(example_a));
	memset(blob + sizeof(example_a), 0x77, 8);
	sd = decode_ok(blob, sizeof(blob));
	assert_int_equal(sd->dacl->num_aces, 1);
	nt_sd_free(sd);
}

/* ---- decoding malformed descriptors ---- */

static void test_decode_rejects_short_header(void **state)
{
	(void)state;
	decode_bad(example_a, 0, "shorter than the 20-byte header");
	decode_bad(example_a, 19, "shorter than the 20-byte header");
	decode_bad(NULL, 20, "no buffer");
}

static void test_decode_rejects_bad_revision_and_control(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));

	(void)state;
	b[0] = 2;
	decode_bad(b, sizeof(example_a), "offset 0: revision 2");
	b[0] = 0;
	decode_bad(b, sizeof(example_a), "offset 0: revision 0");
	b[0] = 1;
	put16(b + 2, 0x0004);			/* not SELF_RELATIVE */
	decode_bad(b, sizeof(example_a), "lacks SELF_RELATIVE");
	put16(b + 2, 0x8000);			/* DACL offset but no DACL_PRESENT */
	decode_bad(b, sizeof(example_a), "DACL offset 20 given but control 0x8000 lacks DACL_PRESENT");
	put16(b + 2, 0x8004);
	put32(b + 12, 20);			/* SACL offset without SACL_PRESENT */
	decode_bad(b, sizeof(example_a), "SACL offset 20 given");
	free(b);
}

static void test_decode_rejects_bad_offsets(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));
	size_t n = sizeof(example_a);

	(void)state;
	put32(b + 4, 4);
	decode_bad(b, n, "owner SID offset 4 points into the 20-byte header");
	put32(b + 4, 76);
	decode_bad(b, n, "owner SID offset 76 is beyond the end");
	put32(b + 4, 0xFFFFFFFF);
	decode_bad(b, n, "owner SID offset 4294967295 is beyond the end");
	put32(b + 4, 72);			/* 4 bytes left: truncated SID header */
	decode_bad(b, n, "owner SID at offset 72: truncated SID header");
	put32(b + 4, 48);
	put32(b + 8, 19);
	decode_bad(b, n, "group SID offset 19 points into the 20-byte header");
	put32(b + 8, 64);
	put32(b + 16, 70);			/* DACL header would need 8 bytes, 6 left */
	decode_bad(b, n, "DACL at offset 70: truncated ACL header");
	put32(b + 16, 100);
	decode_bad(b, n, "DACL offset 100 is beyond the end");
	free(b);
}

static void test_decode_rejects_overlaps(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));
	size_t n = sizeof(example_a);

	(void)state;
	put32(b + 8, 48);			/* group == owner */
	decode_bad(b, n, "owner SID at offset 48 (16 bytes) overlaps group SID at offset 48");
	put32(b + 8, 52);			/* group starts inside the owner */
	b[52] = 1;
	b[53] = 0;				/* a valid 8-byte SID S-1-? at 52 */
	decode_bad(b, n, "overlaps group SID at offset 52");
	free(b);
	b = copy_of(example_a, n);
	put32(b + 4, 40);			/* owner inside the DACL (20..47) */
	b[40] = 1;
	b[41] = 0;
	decode_bad(b, n, "overlaps DACL at offset 20 (28 bytes)");
	free(b);
}

static void test_decode_rejects_bad_sids(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));
	size_t n = sizeof(example_a);

	(void)state;
	b[48] = 2;				/* owner SID revision */
	decode_bad(b, n, "owner SID at offset 48: SID revision 2, expected 1");
	b[48] = 1;
	b[49] = 16;				/* 16 sub-authorities */
	decode_bad(b, n, "owner SID at offset 48: 16 sub-authorities, at most 15");
	b[49] = 3;				/* 3 sub-auths need 20 bytes; the group follows at 64 */
	decode_bad(b, n, "overlaps group SID at offset 64");
	b[49] = 2;
	b[65] = 2;				/* group S-1-5-18 claims 2 sub-auths: 16 bytes, 12 left */
	decode_bad(b, n, "group SID at offset 64: truncated SID (2 sub-authorities)");
	b[65] = 1;
	b[36] = 0;				/* ACE trustee revision */
	decode_bad(b, n, "DACL ACE 0 trustee at offset 36: SID revision 0");
	b[36] = 1;
	b[37] = 2;				/* ACE trustee needs 16 bytes, AceSize leaves 12 */
	decode_bad(b, n, "DACL ACE 0 trustee at offset 36: truncated SID");
	b[37] = 200;
	decode_bad(b, n, "DACL ACE 0 trustee at offset 36: 200 sub-authorities");
	free(b);
}

static void test_decode_rejects_bad_acls(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));
	size_t n = sizeof(example_a);
	static const uint8_t bad_revs[] = { 0, 1, 5, 0xFF };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad_revs); i++) {
		char want[64];

		b[20] = bad_revs[i];
		snprintf(want, sizeof(want), "DACL at offset 20: ACL revision %u, expected 2 to 4",
			 bad_revs[i]);
		decode_bad(b, n, want);
	}
	b[20] = 2;
	put16(b + 22, 7);			/* AclSize below its header */
	decode_bad(b, n, "DACL at offset 20: ACL size 7 smaller than its header");
	put16(b + 22, 57);			/* 56 bytes left from offset 20 */
	decode_bad(b, n, "DACL at offset 20: ACL size 57 exceeds the 56 bytes left");
	put16(b + 22, 28);
	put16(b + 24, 6);			/* 6 ACEs cannot fit in 20 bytes */
	decode_bad(b, n, "DACL at offset 20: 6 ACEs cannot fit in ACL size 28");
	put16(b + 24, 2);			/* 2 ACEs: the second is past AclSize */
	decode_bad(b, n, "DACL ACE 1 at offset 48: beyond the ACL size 28 (ACE count 2)");
	put16(b + 24, 0xFFFF);
	decode_bad(b, n, "65535 ACEs cannot fit");
	free(b);
}

static void test_decode_rejects_bad_ace_sizes(void **state)
{
	uint8_t *b = copy_of(example_a, sizeof(example_a));
	size_t n = sizeof(example_a);

	(void)state;
	put16(b + 30, 0);
	decode_bad(b, n, "DACL ACE 0 at offset 28: ACE size 0 is below 4 or not a multiple of 4");
	put16(b + 30, 2);
	decode_bad(b, n, "DACL ACE 0 at offset 28: ACE size 2 is below 4 or not a multiple of 4");
	put16(b + 30, 22);
	decode_bad(b, n, "DACL ACE 0 at offset 28: ACE size 22 is below 4 or not a multiple of 4");
	put16(b + 30, 24);			/* ACL ends at 48, ACE would end at 52 */
	decode_bad(b, n, "DACL ACE 0 at offset 28: ACE size 24 runs past the end of the ACL");
	put16(b + 30, 4);
	decode_bad(b, n, "DACL ACE 0 at offset 28: size 4 too small for a mask");
	put16(b + 30, 12);			/* header + mask + 4 bytes: no room for the SID header */
	decode_bad(b, n, "DACL ACE 0 trustee at offset 36: truncated SID header");
	free(b);
}

static void test_decode_rejects_short_object_ace(void **state)
{
	uint8_t *b = copy_of(typed_aces, sizeof(typed_aces));
	size_t n = sizeof(typed_aces);

	(void)state;
	/* shrink ACE 0 to 40 bytes: mask + flags + 2 GUIDs need 44 */
	put16(b + 30, 40);
	decode_bad(b, n, "DACL ACE 0 at offset 28: size 40 too small for its object GUIDs");
	put16(b + 30, 8);
	decode_bad(b, n, "DACL ACE 0 at offset 28: size 8 too small for object flags");
	free(b);
}

static void test_decode_rejects_bad_sacl(void **state)
{
	uint8_t *b = copy_of(example_d, sizeof(example_d));
	size_t n = sizeof(example_d);

	(void)state;
	b[20] = 5;
	decode_bad(b, n, "SACL at offset 20: ACL revision 5");
	b[20] = 2;
	put16(b + 30, 6);
	decode_bad(b, n, "SACL ACE 0 at offset 28: ACE size 6");
	free(b);
}

/* every proper prefix of a valid descriptor is refused (truncation anywhere) */
static void test_decode_rejects_every_truncation(void **state)
{
	const struct { const uint8_t *p; size_t n; } ex[] = {
		{ example_a, sizeof(example_a) }, { example_c, sizeof(example_c) },
		{ example_d, sizeof(example_d) }, { example_e, sizeof(example_e) },
		{ typed_aces, sizeof(typed_aces) },
	};
	struct richacl_error err;
	unsigned int i;
	size_t len;

	(void)state;
	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		for (len = 0; len < ex[i].n; len++) {
			struct nt_sd *sd = NULL;
			uint8_t *b = copy_of(ex[i].p, len ? len : 1);

			if (nt_sd_decode(b, len, &sd, &err) != -EINVAL)
				fail_msg("example %u truncated to %zu bytes was accepted", i, len);
			assert_null(sd);
			assert_true(err.msg[0] != '\0');
			free(b);
		}
	}
}

static bool acl_equal(const struct nt_acl *a, const struct nt_acl *b)
{
	unsigned int i;

	if (!a || !b)
		return a == b;
	if (a->revision != b->revision || a->num_aces != b->num_aces)
		return false;
	for (i = 0; i < a->num_aces; i++)
		if (a->aces[i].type != b->aces[i].type || a->aces[i].flags != b->aces[i].flags ||
		    a->aces[i].mask != b->aces[i].mask ||
		    !nt_sid_equal(&a->aces[i].trustee, &b->aces[i].trustee))
			return false;
	return true;
}

static bool sd_equal(const struct nt_sd *a, const struct nt_sd *b)
{
	return a->revision == b->revision && a->control == b->control &&
	       a->has_owner == b->has_owner && a->has_group == b->has_group &&
	       (!a->has_owner || nt_sid_equal(&a->owner, &b->owner)) &&
	       (!a->has_group || nt_sid_equal(&a->group, &b->group)) &&
	       acl_equal(a->dacl, b->dacl) && acl_equal(a->sacl, b->sacl);
}

static bool acl_encodable(const struct nt_acl *acl)
{
	unsigned int i;

	for (i = 0; acl && i < acl->num_aces; i++)
		if (acl->aces[i].type > NT_ACE_SYSTEM_ALARM)
			return false;
	return true;
}

/*
 * Random byte flips never crash the decoder (run it under ASan: waf
 * configure --sanitize); whatever decodes re-encodes (unless it holds ACE
 * types whose bodies are not kept) and decodes back to the same descriptor.
 */
static void test_decode_random_corruption(void **state)
{
	const char *env = getenv("RICHACL_TEST_SEED");
	unsigned int seed = env ? (unsigned int)strtoul(env, NULL, 0) : 0xC0DEC;
	const struct { const uint8_t *p; size_t n; } ex[] = {
		{ example_a, sizeof(example_a) }, { example_d, sizeof(example_d) },
		{ typed_aces, sizeof(typed_aces) },
	};
	uint8_t b[256], out[256];
	unsigned int n, accepted = 0, reencoded = 0;

	(void)state;
	printf("test_decode_random_corruption: seed %u (RICHACL_TEST_SEED)\n", seed);
	srand(seed);
	for (n = 0; n < 30000; n++) {
		unsigned int k, flips = 1 + rand() % 3, which = rand() % 3;
		size_t size = ex[which].n;
		struct richacl_error err;
		struct nt_sd *sd = NULL, *back = NULL;
		ssize_t len;

		memcpy(b, ex[which].p, size);
		for (k = 0; k < flips; k++)
			b[rand() % size] ^= (uint8_t)(1 + rand() % 255);
		if (nt_sd_decode(b, size, &sd, &err) != 0) {
			assert_null(sd);
			assert_true(err.msg[0] != '\0');
			continue;
		}
		accepted++;
		len = nt_sd_encode(sd, out, sizeof(out));
		if (!acl_encodable(sd->dacl) || !acl_encodable(sd->sacl)) {
			assert_int_equal(len, -EINVAL);
		} else {
			if (len <= 0)
				fail_msg("seed %u case %u: decoded but encode gave %zd", seed, n, len);
			if (nt_sd_decode(out, (size_t)len, &back, &err) != 0)
				fail_msg("seed %u case %u: re-encoded blob fails: %s", seed, n, err.msg);
			if (!sd_equal(sd, back))
				fail_msg("seed %u case %u: decode(encode(sd)) differs", seed, n);
			nt_sd_free(back);
			reencoded++;
		}
		nt_sd_free(sd);
	}
	printf("test_decode_random_corruption: %u of 30000 corrupted blobs decoded, %u re-encoded\n",
	       accepted, reencoded);
	assert_true(accepted > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_example_a),
		cmocka_unit_test(test_encode_null_dacl),
		cmocka_unit_test(test_encode_empty_dacl_with_control_flags),
		cmocka_unit_test(test_encode_sacl_dacl_owner),
		cmocka_unit_test(test_encode_48bit_authority),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_encode_acl_size_limit),
		cmocka_unit_test(test_decode_example_a),
		cmocka_unit_test(test_decode_null_and_empty_dacl),
		cmocka_unit_test(test_decode_example_d),
		cmocka_unit_test(test_decode_encode_round_trip),
		cmocka_unit_test(test_decode_other_component_order),
		cmocka_unit_test(test_decode_ace_and_acl_slack),
		cmocka_unit_test(test_decode_object_callback_and_unknown_types),
		cmocka_unit_test(test_decode_trailing_bytes_ignored),
		cmocka_unit_test(test_decode_rejects_short_header),
		cmocka_unit_test(test_decode_rejects_bad_revision_and_control),
		cmocka_unit_test(test_decode_rejects_bad_offsets),
		cmocka_unit_test(test_decode_rejects_overlaps),
		cmocka_unit_test(test_decode_rejects_bad_sids),
		cmocka_unit_test(test_decode_rejects_bad_acls),
		cmocka_unit_test(test_decode_rejects_bad_ace_sizes),
		cmocka_unit_test(test_decode_rejects_short_object_ace),
		cmocka_unit_test(test_decode_rejects_bad_sacl),
		cmocka_unit_test(test_decode_rejects_every_truncation),
		cmocka_unit_test(test_decode_random_corruption),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
