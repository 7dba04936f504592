/*
 * test_xattr.c - the system.richacl codec (src/xattr.c).
 *
 * Expected bytes are the hand-derived hex examples of algorithms.md
 * section 8 and the layout of kernel-port.md 2.1.  Every decoder error path
 * has a test that checks the message and that nothing is returned.  A
 * seeded property test round-trips thousands of random valid acls through
 * the xattr and the text form, and feeds mutated blobs to the decoder
 * (they must decode to a valid acl that re-encodes to the same bytes, or
 * fail cleanly).  Seed: printed; override with RICHACL_TEST_SEED.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers_acl.h"

/* a pointer that a failed decode must leave alone */
static struct richacl sentinel_acl;
#define SENTINEL (&sentinel_acl)

static void assert_bytes_equal(const unsigned char *actual,
			       const unsigned char *expected, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (actual[i] != expected[i])
			fail_msg("byte %zu: got 0x%02x, expected 0x%02x", i,
				 actual[i], expected[i]);
	}
}

/* encode acl and compare with expected, byte for byte */
static void assert_encodes_to(const struct richacl *acl,
			      const unsigned char *expected, size_t size)
{
	unsigned char buf[256];

	assert_int_equal(richacl_xattr_size(acl), size);
	assert_int_equal(richacl_to_xattr(acl, buf, sizeof(buf)), (ssize_t)size);
	assert_bytes_equal(buf, expected, size);
}

static void assert_decodes_to(const unsigned char *blob, size_t size,
			      const char *text)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	if (richacl_from_xattr(blob, size, &acl, &err))
		fail_msg("decode failed: %s", err.msg);
	assert_acl_equal_text(acl, text);
	richacl_free(acl);
}

/* ---- the examples of algorithms.md 8 ---- */

static const unsigned char example_mode_0644[] = {
	0x00, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x40, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
};
static const char example_mode_0644_text[] =
	"owner:rwp::mask group:r::mask other:r::mask "
	"owner@:rwp::allow everyone@:r::allow";

static const unsigned char example_user_group[] = {
	0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x03, 0x00, 0x23, 0x00, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00,
	0x00, 0x00, 0xc0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,
};
static const char example_user_group_text[] =
	"flags:a user:1000:rwx:fd:deny group:100:r:a:allow";

static const unsigned char example_unmapped[] = {
	0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x20, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6a, 0x6f, 0x65, 0x40, 0x78, 0x00,
};
static const char example_unmapped_text[] = "user:joe@x:r:u:allow";

static void test_spec8_example_from_mode_0644_encodes_byte_exact(void **state)
{
	struct richacl *acl = helper_acl(example_mode_0644_text);

	assert_int_equal(sizeof(example_mode_0644), 40);
	assert_encodes_to(acl, example_mode_0644, sizeof(example_mode_0644));
	richacl_free(acl);
}

static void test_spec8_example_from_mode_0644_decodes(void **state)
{
	assert_decodes_to(example_mode_0644, sizeof(example_mode_0644),
			  example_mode_0644_text);
}

static void test_spec8_example_user_group_encodes_byte_exact(void **state)
{
	struct richacl *acl = helper_acl(example_user_group_text);

	assert_encodes_to(acl, example_user_group, sizeof(example_user_group));
	richacl_free(acl);
}

static void test_spec8_example_user_group_decodes(void **state)
{
	assert_decodes_to(example_user_group, sizeof(example_user_group),
			  example_user_group_text);
}

/* the writer stores id 0 for an unmapped entry, whatever e_id holds */
static void test_spec8_example_unmapped_encodes_with_id_zero(void **state)
{
	struct richacl *acl = helper_acl(example_unmapped_text);

	acl->a_entries[0].e_id = 0xdeadbeef;
	assert_int_equal(sizeof(example_unmapped), 34);
	assert_encodes_to(acl, example_unmapped, sizeof(example_unmapped));
	richacl_free(acl);
}

/* readers ignore the id of an unmapped entry (upstream wrote garbage) */
static void test_spec8_example_unmapped_decodes_ignoring_id(void **state)
{
	unsigned char blob[sizeof(example_unmapped)];
	struct richacl *acl = NULL;

	memcpy(blob, example_unmapped, sizeof(blob));
	blob[24] = 0xde;
	blob[25] = 0xad;
	blob[26] = 0xbe;
	blob[27] = 0xef;
	assert_decodes_to(blob, sizeof(blob), example_unmapped_text);
	assert_int_equal(richacl_from_xattr(blob, sizeof(blob), &acl, NULL), 0);
	assert_int_equal(acl->a_entries[0].e_id, 0);
	assert_string_equal(acl->a_entries[0].e_who, "joe@x");
	richacl_free(acl);
}

static void test_fields_are_little_endian(void **state)
{
	static const unsigned char expected[] = {
		0x00, 0xc7, 0x01, 0x00, 0xff, 0x07, 0x1f, 0x00,
		0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x01, 0x00, 0x8f, 0x00, 0x00, 0x00, 0x01, 0x00,
		0x78, 0x56, 0x34, 0x12,
	};
	struct richacl *acl = helper_acl(
		"flags:mwapd owner:0x1F07FF::mask group:0x201::mask other:0x100000::mask "
		"user:0x12345678:0x10000:fdnia:deny");

	assert_encodes_to(acl, expected, sizeof(expected));
	assert_decodes_to(expected, sizeof(expected),
			  "flags:mwapd owner:0x1F07FF::mask group:0x201::mask "
			  "other:0x100000::mask user:0x12345678:0x10000:fdnia:deny");
	richacl_free(acl);
}

/* no alignment assumptions: encode and decode at an odd address */
static void test_unaligned_buffers(void **state)
{
	unsigned char buf[1 + sizeof(example_user_group)];
	struct richacl *acl = helper_acl(example_user_group_text);
	struct richacl *back = NULL;

	assert_int_equal(richacl_to_xattr(acl, buf + 1, sizeof(buf) - 1),
			 sizeof(example_user_group));
	assert_bytes_equal(buf + 1, example_user_group, sizeof(example_user_group));
	assert_int_equal(richacl_from_xattr(buf + 1, sizeof(buf) - 1, &back, NULL), 0);
	assert_acl_equal(back, acl);
	richacl_free(acl);
	richacl_free(back);
}

static void test_empty_acl_is_header_only(void **state)
{
	static const unsigned char expected[16] = { 0 };
	struct richacl *acl = richacl_alloc(0);

	assert_encodes_to(acl, expected, sizeof(expected));
	assert_decodes_to(expected, sizeof(expected), "");
	richacl_free(acl);
}

/* ---- encoder errors ---- */

static void test_encode_short_buffer_is_erange_and_writes_nothing(void **state)
{
	struct richacl *acl = helper_acl(example_mode_0644_text);
	unsigned char buf[64];
	size_t i;

	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(richacl_to_xattr(acl, buf, 39), -ERANGE);
	assert_int_equal(richacl_to_xattr(acl, buf, 0), -ERANGE);
	for (i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xaa);
	assert_int_equal(richacl_to_xattr(acl, buf, 40), 40);
	assert_int_equal(richacl_to_xattr(acl, buf, sizeof(buf)), 40);
	assert_int_equal(buf[40], 0xaa);
	richacl_free(acl);
}

static void test_encode_invalid_acl_is_einval_and_writes_nothing(void **state)
{
	struct richacl *acl = helper_acl(example_mode_0644_text);
	unsigned char buf[64];
	size_t i;

	memset(buf, 0xaa, sizeof(buf));
	acl->a_entries[1].e_type = 2;
	assert_int_equal(richacl_to_xattr(acl, buf, sizeof(buf)), -EINVAL);
	acl->a_entries[1].e_type = 0;
	acl->a_entries[1].e_flags |= 0x10;
	assert_int_equal(richacl_to_xattr(acl, buf, sizeof(buf)), -EINVAL);
	acl->a_entries[1].e_flags &= ~0x10;
	acl->a_other_mask = 0x800;
	assert_int_equal(richacl_to_xattr(acl, buf, sizeof(buf)), -EINVAL);
	for (i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xaa);
	richacl_free(acl);
}

static struct richacl *acl_with_entries(unsigned int count)
{
	struct richacl *acl = richacl_alloc(count);
	unsigned int i;

	assert_non_null(acl);
	for (i = 0; i < count; i++) {
		acl->a_entries[i].e_mask = RICHACE_READ_DATA;
		acl->a_entries[i].e_id = i;
	}
	return acl;
}

/* 5460 entries fill exactly 65536 bytes; both directions work */
static void test_max_count_round_trips(void **state)
{
	struct richacl *acl = acl_with_entries(RICHACL_XATTR_MAX_COUNT);
	struct richacl *back = NULL;
	unsigned char *buf = malloc(RICHACL_XATTR_MAX_SIZE);

	assert_non_null(buf);
	assert_int_equal(richacl_xattr_size(acl), RICHACL_XATTR_MAX_SIZE);
	assert_int_equal(richacl_to_xattr(acl, buf, RICHACL_XATTR_MAX_SIZE),
			 RICHACL_XATTR_MAX_SIZE);
	assert_int_equal(buf[2], 0x54);	/* 5460 = 0x1554 */
	assert_int_equal(buf[3], 0x15);
	assert_int_equal(richacl_from_xattr(buf, RICHACL_XATTR_MAX_SIZE, &back, NULL), 0);
	assert_acl_equal(back, acl);
	richacl_free(back);
	richacl_free(acl);
	free(buf);
}

static void test_encode_too_many_entries_is_einval(void **state)
{
	struct richacl *acl = acl_with_entries(RICHACL_XATTR_MAX_COUNT + 1);
	size_t size = richacl_xattr_size(acl);
	unsigned char *buf = malloc(size);

	assert_non_null(buf);
	assert_int_equal(richacl_to_xattr(acl, buf, size), -EINVAL);
	richacl_free(acl);
	free(buf);
}

static void test_encode_larger_than_xattr_limit_is_einval(void **state)
{
	struct richacl *acl = acl_with_entries(1);
	char *who = malloc(70000);
	unsigned char *buf = malloc(80000);

	assert_non_null(who);
	assert_non_null(buf);
	memset(who, 'S', 69999);
	who[69999] = '\0';
	assert_int_equal(richace_set_unmapped(&acl->a_entries[0], who, false), 0);
	assert_int_equal(richacl_xattr_size(acl), 16 + 12 + 70000);
	assert_int_equal(richacl_to_xattr(acl, buf, 80000), -EINVAL);
	richacl_free(acl);
	free(who);
	free(buf);
}

/* ---- decoder errors: every one is -EINVAL, a message, no result ---- */

struct decode_error_case {
	const char *name;
	const unsigned char *blob;
	size_t size;
	const char *msg;
};

#define HDR(flags, count) 0x00, (flags), (count), 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
#define ALLOW_EVERYONE_R 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00
#define UNMAPPED_USER_R 0x00, 0x00, 0x00, 0x20, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00

static const unsigned char blob_header_only[] = { HDR(0, 0) };
static const unsigned char blob_version_1[] = { 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const unsigned char blob_count_5461[] = { 0x00, 0, 0x55, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const unsigned char blob_truncated[] = { HDR(0, 2), ALLOW_EVERYONE_R };
static const unsigned char blob_trailing[] = { HDR(0, 1), ALLOW_EVERYONE_R, 0x00 };
static const unsigned char blob_no_strings[] = { HDR(0, 2), ALLOW_EVERYONE_R, UNMAPPED_USER_R };
static const unsigned char blob_no_nul[] = { HDR(0, 1), UNMAPPED_USER_R, 'a', 'b' };
static const unsigned char blob_exhausted[] = {
	HDR(0, 2), UNMAPPED_USER_R, UNMAPPED_USER_R, 'a', 0x00 };
static const unsigned char blob_empty_string[] = { HDR(0, 1), UNMAPPED_USER_R, 0x00, 'a', 0x00 };
static const unsigned char blob_unused_string[] = {
	HDR(0, 1), UNMAPPED_USER_R, 'a', 0x00, 'b', 'c', 'd', 0x00 };
static const unsigned char blob_acl_flags[] = { HDR(0x08, 0) };
static const unsigned char blob_owner_mask[] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0 };
static const unsigned char blob_group_mask[] = {
	0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0x00, 0x00, 0x20, 0x00, 0, 0, 0, 0 };
static const unsigned char blob_other_mask[] = {
	0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x80 };
static const unsigned char blob_type[] = {
	HDR(0, 2), ALLOW_EVERYONE_R,
	0x02, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00 };
static const unsigned char blob_entry_flags[] = {
	HDR(0, 1), 0x00, 0x00, 0x10, 0x40, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00 };
static const unsigned char blob_entry_mask[] = {
	HDR(0, 1), 0x00, 0x00, 0x00, 0x40, 0x01, 0x08, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00 };
static const unsigned char blob_special_id[] = {
	HDR(0, 2), ALLOW_EVERYONE_R,
	0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00 };
static const unsigned char blob_special_unmapped[] = {
	HDR(0, 1), 0x00, 0x00, 0x00, 0x60, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
	'x', 0x00 };

#define CASE(name, blob, size, msg) { name, blob, size, msg }

static const struct decode_error_case decode_error_cases[] = {
	CASE("empty", blob_header_only, 0,
	     "richacl xattr too short: 0 bytes, the header alone is 16"),
	CASE("short header", blob_header_only, 15,
	     "richacl xattr too short: 15 bytes, the header alone is 16"),
	CASE("bad version", blob_version_1, sizeof(blob_version_1),
	     "unsupported richacl xattr version 1 (expected 0)"),
	CASE("count > 5460", blob_count_5461, sizeof(blob_count_5461),
	     "richacl xattr entry count 5461 exceeds the limit of 5460"),
	CASE("entries truncated", blob_truncated, sizeof(blob_truncated),
	     "richacl xattr truncated: 2 entries need 40 bytes, got 28"),
	CASE("entry cut short", blob_truncated, sizeof(blob_truncated) - 5,
	     "richacl xattr truncated: 2 entries need 40 bytes, got 23"),
	CASE("trailing bytes", blob_trailing, sizeof(blob_trailing),
	     "richacl xattr has 1 byte(s) after its entries, but no entry is unmapped"),
	CASE("unmapped without string area", blob_no_strings, sizeof(blob_no_strings),
	     "entry 1: unmapped identifier missing (no string area)"),
	CASE("string area without NUL", blob_no_nul, sizeof(blob_no_nul),
	     "richacl xattr string area does not end in a NUL byte"),
	CASE("string area exhausted", blob_exhausted, sizeof(blob_exhausted),
	     "entry 1: unmapped identifier missing (string area exhausted)"),
	CASE("empty string", blob_empty_string, sizeof(blob_empty_string),
	     "entry 0: unmapped identifier is empty"),
	CASE("unused string bytes", blob_unused_string, sizeof(blob_unused_string),
	     "richacl xattr string area has 4 bytes not used by any entry"),
	CASE("acl flags", blob_acl_flags, sizeof(blob_acl_flags),
	     "invalid acl flags 0x8"),
	CASE("owner mask", blob_owner_mask, sizeof(blob_owner_mask),
	     "invalid owner mask bits 0x800"),
	CASE("group mask", blob_group_mask, sizeof(blob_group_mask),
	     "invalid group mask bits 0x200000"),
	CASE("other mask", blob_other_mask, sizeof(blob_other_mask),
	     "invalid other mask bits 0x80000000"),
	CASE("entry type", blob_type, sizeof(blob_type),
	     "entry 1: invalid type 2"),
	CASE("entry flags", blob_entry_flags, sizeof(blob_entry_flags),
	     "entry 0: invalid flags 0x10"),
	CASE("entry mask", blob_entry_mask, sizeof(blob_entry_mask),
	     "entry 0: invalid mask bits 0x800"),
	CASE("special id", blob_special_id, sizeof(blob_special_id),
	     "entry 1: invalid special identifier 3"),
	CASE("special and unmapped", blob_special_unmapped, sizeof(blob_special_unmapped),
	     "entry 0: special identifier combined with unmapped or group flag"),
};

static void test_decode_errors_are_einval_with_message_and_no_result(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(decode_error_cases) / sizeof(decode_error_cases[0]); i++) {
		const struct decode_error_case *c = &decode_error_cases[i];
		struct richacl_error err = { 0 };
		struct richacl *acl = SENTINEL;
		int ret;

		ret = richacl_from_xattr(c->blob, c->size, &acl, &err);
		if (ret != -EINVAL)
			fail_msg("%s: returned %d, expected -EINVAL", c->name, ret);
		if (acl != SENTINEL)
			fail_msg("%s: result pointer was changed", c->name);
		assert_int_equal(err.code, -EINVAL);
		if (strcmp(err.msg, c->msg))
			fail_msg("%s: message '%s', expected '%s'", c->name,
				 err.msg, c->msg);
		/* err is optional */
		assert_int_equal(richacl_from_xattr(c->blob, c->size, &acl, NULL),
				 -EINVAL);
		assert_ptr_equal(acl, SENTINEL);
	}
}

static void test_decode_larger_than_xattr_limit_is_einval(void **state)
{
	unsigned char *blob = calloc(1, RICHACL_XATTR_MAX_SIZE + 1);
	struct richacl_error err = { 0 };
	struct richacl *acl = SENTINEL;

	assert_non_null(blob);
	blob[2] = 1;
	blob[16 + 3] = 0x20;	/* one unmapped entry, a huge string */
	memset(blob + 28, 'S', RICHACL_XATTR_MAX_SIZE - 28);
	assert_int_equal(richacl_from_xattr(blob, RICHACL_XATTR_MAX_SIZE + 1, &acl, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "richacl xattr too long: 65537 bytes, the limit is 65536");
	assert_ptr_equal(acl, SENTINEL);
	free(blob);
}

/* ---- property tests ---- */

static uint64_t rng_state;

/* splitmix64 */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)(rng_next() % n);
}

static int setup_rng(void **state)
{
	const char *env = getenv("RICHACL_TEST_SEED");
	uint64_t seed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
	rng_state = seed;
	printf("property tests: RICHACL_TEST_SEED=%" PRIu64 "\n", seed);
	return 0;
}

/* a non-empty who string, sometimes with characters the text form escapes */
static char *random_who(void)
{
	static const char plain[] = "S-1-5-21-0123456789abcdefxyzXYZ@._";
	static const char awkward[] = " :,\t\n\r\\\x01\x7f\xc3\xa9\\0";
	size_t len = 1 + rng_below(rng_below(8) ? 20 : 200), i;
	char *who = malloc(len + 1);

	assert_non_null(who);
	for (i = 0; i < len; i++) {
		uint32_t pick = rng_below(20);

		if (pick == 0)
			who[i] = (char)(1 + rng_below(255));
		else if (pick < 4)
			who[i] = awkward[rng_below(sizeof(awkward) - 1)];
		else
			who[i] = plain[rng_below(sizeof(plain) - 1)];
	}
	who[len] = '\0';
	return who;
}

static uint32_t random_id(void)
{
	switch (rng_below(4)) {
	case 0:
		return rng_below(10);
	case 1:
		return 1000 + rng_below(100);
	case 2:
		return UINT32_MAX - rng_below(3);	/* printed negative */
	default:
		return (uint32_t)rng_next();
	}
}

static struct richacl *random_acl(void)
{
	unsigned int count = rng_below(8) ? rng_below(12) : rng_below(60);
	struct richacl *acl = richacl_alloc(count);
	unsigned int i;

	assert_non_null(acl);
	acl->a_flags = (uint8_t)(rng_next() & RICHACL_VALID_FLAGS);
	acl->a_owner_mask = (uint32_t)rng_next() & RICHACE_VALID_MASK;
	acl->a_group_mask = (uint32_t)rng_next() & RICHACE_VALID_MASK;
	acl->a_other_mask = (uint32_t)rng_next() & RICHACE_VALID_MASK;
	for (i = 0; i < count; i++) {
		struct richace *ace = &acl->a_entries[i];
		char *who;

		ace->e_type = (uint16_t)rng_below(2);
		ace->e_flags = (uint16_t)(rng_next() & RICHACE_INHERITANCE_FLAGS);
		ace->e_mask = (uint32_t)rng_next() & RICHACE_VALID_MASK;
		switch (rng_below(7)) {
		case 0: case 1: case 2:
			richace_set_special(ace, rng_below(3));
			break;
		case 3:
			richace_set_uid(ace, random_id());
			break;
		case 4:
			richace_set_gid(ace, random_id());
			break;
		default:
			who = random_who();
			assert_int_equal(richace_set_unmapped(ace, who, rng_below(2)), 0);
			free(who);
			break;
		}
	}
	assert_int_equal(richacl_valid(acl, NULL), 0);
	return acl;
}

#define PROPERTY_ITERATIONS 3000

static void test_property_xattr_round_trip(void **state)
{
	static unsigned char buf[RICHACL_XATTR_MAX_SIZE];
	unsigned int n;

	for (n = 0; n < PROPERTY_ITERATIONS; n++) {
		struct richacl *acl = random_acl(), *back = NULL;
		struct richacl_error err = { 0 };
		ssize_t size = richacl_to_xattr(acl, buf, sizeof(buf));

		assert_int_equal(size, richacl_xattr_size(acl));
		if (richacl_from_xattr(buf, (size_t)size, &back, &err))
			fail_msg("iteration %u: decode failed: %s", n, err.msg);
		assert_acl_equal(back, acl);
		richacl_free(back);
		richacl_free(acl);
	}
}

static void test_property_text_round_trip(void **state)
{
	static const unsigned int formats[] = {
		RICHACL_TEXT_SHOW_MASKS,
		RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_ALIGN,
		RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_LONG | RICHACL_TEXT_FILE_CONTEXT,
		RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_LONG | RICHACL_TEXT_ALIGN |
			RICHACL_TEXT_DIRECTORY_CONTEXT,
	};
	unsigned int n;

	for (n = 0; n < PROPERTY_ITERATIONS; n++) {
		struct richacl *acl = random_acl();
		size_t f;

		for (f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
			unsigned int fmt = formats[f] | RICHACL_TEXT_NUMERIC_IDS;
			struct richacl_error err = { 0 };
			struct richacl *back = NULL;
			unsigned int seen = 0;
			char *text = richacl_to_text(acl, fmt, NULL);

			assert_non_null(text);
			if (richacl_from_text(text, &seen, NULL, &back, &err))
				fail_msg("iteration %u, format 0x%x: '%s' does not parse: %s",
					 n, fmt, text, err.msg);
			assert_acl_equal(back, acl);
			assert_int_equal(seen & 7, 7);
			richacl_free(back);
			free(text);
		}
		richacl_free(acl);
	}
}

/* zero the id field of unmapped entries: it is not part of the acl */
static void blob_clear_unmapped_ids(unsigned char *blob, size_t size)
{
	unsigned int count = blob[2] | blob[3] << 8, i;

	for (i = 0; i < count && 16 + 12 * (i + 1) <= size; i++) {
		unsigned char *e = blob + 16 + 12 * i;

		if (e[3] & 0x20)
			memset(e + 8, 0, 4);
	}
}

static size_t mutate(unsigned char *blob, size_t size, size_t cap)
{
	unsigned int k, rounds = 1 + rng_below(3);

	for (k = 0; k < rounds; k++) {
		switch (rng_below(6)) {
		case 0:	/* flip a bit */
			if (size)
				blob[rng_below((uint32_t)size)] ^= (unsigned char)(1 << rng_below(8));
			break;
		case 1:	/* random byte */
			if (size)
				blob[rng_below((uint32_t)size)] = (unsigned char)rng_next();
			break;
		case 2:	/* truncate */
			if (size)
				size = rng_below((uint32_t)size + 1);
			break;
		case 3:	/* append */
			if (size < cap)
				blob[size++] = (unsigned char)(rng_below(2) ? 0 : rng_next());
			break;
		case 4:	/* change the entry count */
			if (size >= 4)
				blob[2] = (unsigned char)(blob[2] + rng_below(5) - 2);
			break;
		default:	/* flip the unmapped flag of some entry */
			if (size >= 28)
				blob[16 + 12 * rng_below((uint32_t)(size - 16) / 12) + 3] ^= 0x20;
			break;
		}
	}
	return size;
}

static void test_property_mutated_blobs_decode_valid_or_fail_cleanly(void **state)
{
	static unsigned char blob[RICHACL_XATTR_MAX_SIZE + 64];
	static unsigned char again[RICHACL_XATTR_MAX_SIZE + 64];
	unsigned int n, decoded = 0, rejected = 0;

	for (n = 0; n < 4 * PROPERTY_ITERATIONS; n++) {
		struct richacl *acl = random_acl(), *back = SENTINEL;
		struct richacl_error err = { 0 };
		ssize_t size = richacl_to_xattr(acl, blob, sizeof(blob));
		size_t msize;
		int ret;

		assert_true(size > 0);
		msize = mutate(blob, (size_t)size, sizeof(blob));
		ret = richacl_from_xattr(blob, msize, &back, &err);
		if (ret) {
			assert_int_equal(ret, -EINVAL);
			assert_int_equal(err.code, -EINVAL);
			assert_ptr_equal(back, SENTINEL);
			assert_true(strlen(err.msg) > 0);
			rejected++;
		} else {
			assert_int_equal(richacl_valid(back, NULL), 0);
			/* what decodes re-encodes to the same bytes */
			assert_int_equal(richacl_to_xattr(back, again, sizeof(again)),
					 (ssize_t)msize);
			blob_clear_unmapped_ids(blob, msize);
			assert_bytes_equal(again, blob, msize);
			richacl_free(back);
			decoded++;
		}
		richacl_free(acl);
	}
	printf("mutated blobs: %u decoded, %u rejected\n", decoded, rejected);
	assert_true(decoded > 0 && rejected > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec8_example_from_mode_0644_encodes_byte_exact),
		cmocka_unit_test(test_spec8_example_from_mode_0644_decodes),
		cmocka_unit_test(test_spec8_example_user_group_encodes_byte_exact),
		cmocka_unit_test(test_spec8_example_user_group_decodes),
		cmocka_unit_test(test_spec8_example_unmapped_encodes_with_id_zero),
		cmocka_unit_test(test_spec8_example_unmapped_decodes_ignoring_id),
		cmocka_unit_test(test_fields_are_little_endian),
		cmocka_unit_test(test_unaligned_buffers),
		cmocka_unit_test(test_empty_acl_is_header_only),
		cmocka_unit_test(test_encode_short_buffer_is_erange_and_writes_nothing),
		cmocka_unit_test(test_encode_invalid_acl_is_einval_and_writes_nothing),
		cmocka_unit_test(test_max_count_round_trips),
		cmocka_unit_test(test_encode_too_many_entries_is_einval),
		cmocka_unit_test(test_encode_larger_than_xattr_limit_is_einval),
		cmocka_unit_test(test_decode_errors_are_einval_with_message_and_no_result),
		cmocka_unit_test(test_decode_larger_than_xattr_limit_is_einval),
		cmocka_unit_test(test_property_xattr_round_trip),
		cmocka_unit_test(test_property_text_round_trip),
		cmocka_unit_test(test_property_mutated_blobs_decode_valid_or_fail_cleanly),
	};

	return cmocka_run_group_tests_name("xattr", tests, setup_rng, NULL);
}
