/*
 * test_sid.c - SIDs: well-known values, equality, the string form of
 * [MS-DTYP] 2.4.2.1 (strict parser).  The SID string is what M9 stores as
 * the who of an unmapped entry and what M4 turns back into a SID, so the
 * parser's strictness and the exact round trip matter for those rules.
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

static const char *sid_str(const struct nt_sid *sid)
{
	static char buf[NT_SID_STRING_MAX];

	return nt_sid_to_string(sid, buf, sizeof(buf));
}

static void test_wellknown_sids(void **state)
{
	(void)state;
	assert_string_equal(sid_str(&nt_sid_world), "S-1-1-0");
	assert_string_equal(sid_str(&nt_sid_creator_owner), "S-1-3-0");
	assert_string_equal(sid_str(&nt_sid_creator_group), "S-1-3-1");
}

static void test_to_string_domain_sid(void **state)
{
	struct nt_sid sid;

	(void)state;
	test_domain_sid(&sid, 1001);
	assert_string_equal(sid_str(&sid), "S-1-5-21-1-2-3-1001");
}

static void test_to_string_no_sub_authorities(void **state)
{
	struct nt_sid sid = { .revision = 1, .num_auths = 0, .id_auth = { 0, 0, 0, 0, 0, 5 } };

	(void)state;
	assert_string_equal(sid_str(&sid), "S-1-5");
}

/* [MS-DTYP] 2.4.2.1: authority < 2^32 decimal, else "0x" and 12 hex digits */
static void test_to_string_authority_boundaries(void **state)
{
	struct nt_sid sid = { .revision = 1, .num_auths = 1,
			      .id_auth = { 0, 0, 0xFF, 0xFF, 0xFF, 0xFF }, .sub_auths = { 7 } };

	(void)state;
	assert_string_equal(sid_str(&sid), "S-1-4294967295-7");
	memcpy(sid.id_auth, (uint8_t[6]){ 0, 1, 0, 0, 0, 0 }, 6);
	assert_string_equal(sid_str(&sid), "S-1-0x000100000000-7");
	memcpy(sid.id_auth, (uint8_t[6]){ 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45 }, 6);
	assert_string_equal(sid_str(&sid), "S-1-0xABCDEF012345-7");
}

static void test_to_string_fifteen_max_sub_authorities(void **state)
{
	struct nt_sid sid = { .revision = 1, .num_auths = 15,
			      .id_auth = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF } };
	char expect[NT_SID_STRING_MAX] = "S-1-0xFFFFFFFFFFFF";
	struct nt_sid back;
	unsigned int i;

	(void)state;
	for (i = 0; i < 15; i++) {
		sid.sub_auths[i] = UINT32_MAX;
		strcat(expect, "-4294967295");
	}
	assert_true(strlen(expect) < NT_SID_STRING_MAX);
	assert_string_equal(sid_str(&sid), expect);
	assert_int_equal(nt_sid_from_string(expect, &back), 0);
	assert_true(nt_sid_equal(&sid, &back));
}

static void test_to_string_small_buffer_is_terminated(void **state)
{
	struct nt_sid sid;
	char buf[8];

	(void)state;
	test_domain_sid(&sid, 1001);
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(nt_sid_to_string(&sid, buf, sizeof(buf)), buf);
	assert_true(memchr(buf, '\0', sizeof(buf)) != NULL);
	assert_int_equal(strncmp(buf, "S-1-5-2", 7), 0);
}

static void test_from_string_valid_forms(void **state)
{
	struct nt_sid sid, expect = { .revision = 1, .num_auths = 2,
				      .id_auth = { 0, 0, 0, 0, 0, 5 }, .sub_auths = { 32, 544 } };

	(void)state;
	assert_int_equal(nt_sid_from_string("S-1-5-32-544", &sid), 0);
	assert_true(nt_sid_equal(&sid, &expect));
	/* ABNF literals are case-insensitive */
	assert_int_equal(nt_sid_from_string("s-1-5-32-544", &sid), 0);
	assert_true(nt_sid_equal(&sid, &expect));
	/* hexadecimal authority, 12 digits as in [MS-DTYP], and shorter as Samba prints */
	assert_int_equal(nt_sid_from_string("S-1-0x000000000005-32-544", &sid), 0);
	assert_true(nt_sid_equal(&sid, &expect));
	assert_int_equal(nt_sid_from_string("S-1-0X5-32-544", &sid), 0);
	assert_true(nt_sid_equal(&sid, &expect));
	/* 1*10DIGIT allows leading zeros */
	assert_int_equal(nt_sid_from_string("S-1-05-0032-0000000544", &sid), 0);
	assert_true(nt_sid_equal(&sid, &expect));
}

static void test_from_string_zero_sub_authorities(void **state)
{
	struct nt_sid sid;

	(void)state;
	assert_int_equal(nt_sid_from_string("S-1-5", &sid), 0);
	assert_int_equal(sid.num_auths, 0);
	assert_int_equal(sid.id_auth[5], 5);
}

static void test_from_string_limits(void **state)
{
	struct nt_sid sid;

	(void)state;
	assert_int_equal(nt_sid_from_string("S-1-4294967295-4294967295", &sid), 0);
	assert_int_equal(sid.sub_auths[0], UINT32_MAX);
	assert_int_equal(sid.id_auth[2], 0xFF);
	assert_int_equal(sid.id_auth[1], 0);
	assert_int_equal(nt_sid_from_string("S-1-0xFFFFFFFFFFFF-0", &sid), 0);
	assert_int_equal(sid.id_auth[0], 0xFF);
	assert_int_equal(nt_sid_from_string("S-1-0-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15", &sid), 0);
	assert_int_equal(sid.num_auths, 15);
	assert_int_equal(sid.sub_auths[14], 15);
}

static void test_from_string_rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", "S", "S-", "S-1", "S-1-", "S-2-5-32", "S-0-5", "S-11-5", "X-1-5",
		"S-1-5-", "S-1-5--1", "S-1--5", "S-1-+5", "S-1--5-1", "S-1- 5",
		" S-1-5", "S-1-5 ", "S-1-5-32-544\n", "S-1-5-1x", "S-1-5-0x10",
		"S-1-0x", "S-1-0x-1", "S-1-0xG", "S-1-0x1000000000000",	/* 13 hex digits */
		"S-1-4294967296",					/* authority overflow */
		"S-1-5-4294967296",					/* sub-authority overflow */
		"S-1-5-99999999999999999999999",
		"S-1-5-00000000001",					/* 11 digits */
		"S-1-0-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16",		/* 16 sub-authorities */
		"S-1-5-21-1-2-3-1001-", "S-1-5,21", "S-1-5-2 1", "S-1-5-\xff",
	};
	struct nt_sid sid, untouched;
	unsigned int i;

	(void)state;
	memset(&untouched, 0xA5, sizeof(untouched));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sid = untouched;
		if (nt_sid_from_string(bad[i], &sid) != -EINVAL)
			fail_msg("\"%s\" was accepted", bad[i]);
		assert_memory_equal(&sid, &untouched, sizeof(sid));
	}
	assert_int_equal(nt_sid_from_string(NULL, &sid), -EINVAL);
	assert_int_equal(nt_sid_from_string("S-1-5", NULL), -EINVAL);
}

static void test_equal(void **state)
{
	struct nt_sid a, b;

	(void)state;
	test_domain_sid(&a, 1001);
	test_domain_sid(&b, 1001);
	assert_true(nt_sid_equal(&a, &b));
	/* unused sub-authorities do not count */
	b.sub_auths[10] = 99;
	assert_true(nt_sid_equal(&a, &b));
	b.sub_auths[4] = 1002;
	assert_false(nt_sid_equal(&a, &b));
	test_domain_sid(&b, 1001);
	b.num_auths = 4;
	assert_false(nt_sid_equal(&a, &b));
	test_domain_sid(&b, 1001);
	b.id_auth[0] = 1;
	assert_false(nt_sid_equal(&a, &b));
	test_domain_sid(&b, 1001);
	b.revision = 2;
	assert_false(nt_sid_equal(&a, &b));
	assert_false(nt_sid_equal(&nt_sid_creator_owner, &nt_sid_creator_group));
	assert_false(nt_sid_equal(&nt_sid_world, &nt_sid_creator_owner));
}

/* M9: an unmapped who must survive string -> SID -> string exactly */
static void test_M9_random_sid_string_round_trip(void **state)
{
	const char *env = getenv("RICHACL_TEST_SEED");
	unsigned int seed = env ? (unsigned int)strtoul(env, NULL, 0) : 0x5EED51D;
	char buf[NT_SID_STRING_MAX], buf2[NT_SID_STRING_MAX];
	struct nt_sid sid, back;
	unsigned int n, i, j;

	(void)state;
	printf("test_M9_random_sid_string_round_trip: seed %u (RICHACL_TEST_SEED)\n", seed);
	srand(seed);
	for (n = 0; n < 20000; n++) {
		memset(&sid, 0, sizeof(sid));
		sid.revision = 1;
		sid.num_auths = (uint8_t)(rand() % 16);
		for (i = 0; i < 6; i++)
			sid.id_auth[i] = (rand() % 3) ? 0 : (uint8_t)rand();
		for (j = 0; j < sid.num_auths; j++)
			sid.sub_auths[j] = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
		nt_sid_to_string(&sid, buf, sizeof(buf));
		if (nt_sid_from_string(buf, &back) != 0)
			fail_msg("seed %u case %u: \"%s\" does not parse", seed, n, buf);
		if (!nt_sid_equal(&sid, &back))
			fail_msg("seed %u case %u: \"%s\" parses to another SID", seed, n, buf);
		nt_sid_to_string(&back, buf2, sizeof(buf2));
		assert_string_equal(buf, buf2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wellknown_sids),
		cmocka_unit_test(test_to_string_domain_sid),
		cmocka_unit_test(test_to_string_no_sub_authorities),
		cmocka_unit_test(test_to_string_authority_boundaries),
		cmocka_unit_test(test_to_string_fifteen_max_sub_authorities),
		cmocka_unit_test(test_to_string_small_buffer_is_terminated),
		cmocka_unit_test(test_from_string_valid_forms),
		cmocka_unit_test(test_from_string_zero_sub_authorities),
		cmocka_unit_test(test_from_string_limits),
		cmocka_unit_test(test_from_string_rejects_malformed),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_M9_random_sid_string_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
