/*
 * test_model.c - the richacl model (src/richacl.c): allocation, entry
 * editing, identifier predicates and setters, equality, validity.
 *
 * Expected values come from algorithms.md section 0 (data model, 0.2
 * identifier predicates) and kernel-port.md 2.1 (the kernel's validity
 * rules).  Unmapped entries match nobody (SEMANTICS.md M9).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_acl.h"

static struct richace make_ace(uint16_t type, uint16_t flags, uint32_t mask,
			       uint32_t id)
{
	struct richace ace = { type, flags, mask, id, NULL };

	return ace;
}

/* ---- allocation ---- */

static void test_alloc_gives_count_zeroed_entries(void **state)
{
	struct richacl *acl = richacl_alloc(3);
	unsigned int i;

	assert_non_null(acl);
	assert_int_equal(acl->a_count, 3);
	assert_true(acl->a_alloc >= 3);
	assert_int_equal(acl->a_flags, 0);
	assert_int_equal(acl->a_owner_mask | acl->a_group_mask | acl->a_other_mask, 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(acl->a_entries[i].e_type, 0);
		assert_int_equal(acl->a_entries[i].e_flags, 0);
		assert_int_equal(acl->a_entries[i].e_mask, 0);
		assert_int_equal(acl->a_entries[i].e_id, 0);
		assert_null(acl->a_entries[i].e_who);
	}
	richacl_free(acl);
}

static void test_alloc_zero_has_entry_array(void **state)
{
	struct richacl *acl = richacl_alloc(0);
	struct richace *ace;
	unsigned int n = 0;

	assert_non_null(acl);
	assert_non_null(acl->a_entries);
	richacl_for_each_entry(ace, acl)
		n++;
	richacl_for_each_entry_reverse(ace, acl)
		n++;
	assert_int_equal(n, 0);
	richacl_free(acl);
}

static void test_free_null_is_noop(void **state)
{
	richacl_free(NULL);
}

static void test_clone_is_deep_and_equal(void **state)
{
	struct richacl *acl = helper_acl(
		"flags:am owner:rwp::mask group:r::mask other:r::mask "
		"owner@:rwp:fd:allow user:S-1-5-21-1-2-3-1000:r:u:allow "
		"group:staff:w::deny");
	struct richacl *dup = richacl_clone(acl);

	assert_non_null(dup);
	assert_acl_equal(dup, acl);
	assert_ptr_not_equal(dup->a_entries, acl->a_entries);
	assert_ptr_not_equal(dup->a_entries[1].e_who, acl->a_entries[1].e_who);
	assert_string_equal(dup->a_entries[1].e_who, "S-1-5-21-1-2-3-1000");
	richacl_free(acl);
	/* the clone survives the original */
	assert_string_equal(dup->a_entries[1].e_who, "S-1-5-21-1-2-3-1000");
	richacl_free(dup);
}

/* ---- entry editing ---- */

static void test_insert_at_start_middle_end(void **state)
{
	struct richacl *acl = richacl_alloc(0);
	struct richace a = make_ace(0, 0, 1, 10);
	struct richace b = make_ace(0, 0, 2, 20);
	struct richace c = make_ace(1, 0, 4, 30);

	assert_int_equal(richacl_append_entry(acl, &b), 0);	/* b */
	assert_int_equal(richacl_insert_entry(acl, 0, &a), 0);	/* a b */
	assert_int_equal(richacl_insert_entry(acl, 2, &c), 0);	/* a b c */
	assert_int_equal(richacl_insert_entry(acl, 1, &c), 0);	/* a c b c */
	assert_acl_equal_text(acl, "user:10:r::allow user:30:p::deny "
				   "user:20:w::allow user:30:p::deny");
	richacl_free(acl);
}

static void test_insert_past_end_is_einval_and_unchanged(void **state)
{
	struct richacl *acl = helper_acl("owner@:r::allow");
	struct richace a = make_ace(0, 0, 1, 10);

	assert_int_equal(richacl_insert_entry(acl, 2, &a), -EINVAL);
	assert_acl_equal_text(acl, "owner@:r::allow");
	richacl_free(acl);
}

static void test_insert_grows_past_initial_allocation(void **state)
{
	struct richacl *acl = richacl_alloc(0);
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		struct richace ace = make_ace(0, 0, 1, i);

		assert_int_equal(richacl_append_entry(acl, &ace), 0);
	}
	assert_int_equal(acl->a_count, 1000);
	for (i = 0; i < 1000; i++)
		assert_int_equal(acl->a_entries[i].e_id, i);
	richacl_free(acl);
}

/* inserting a copy of one of the acl's own entries while it reallocates */
static void test_insert_copy_of_own_entry_survives_realloc(void **state)
{
	struct richacl *acl = richacl_alloc(0);
	struct richace ace = make_ace(0, 0, 1, 0);
	unsigned int i;

	assert_int_equal(richace_set_unmapped(&ace, "S-1-5-32-544", true), 0);
	assert_int_equal(richacl_append_entry(acl, &ace), 0);
	free(ace.e_who);
	for (i = 0; i < 40; i++)
		assert_int_equal(richacl_insert_entry(acl, 0,
						      &acl->a_entries[acl->a_count - 1]), 0);
	assert_int_equal(acl->a_count, 41);
	for (i = 0; i < acl->a_count; i++) {
		assert_string_equal(acl->a_entries[i].e_who, "S-1-5-32-544");
		assert_true(acl->a_entries[i].e_flags & RICHACE_IDENTIFIER_GROUP);
	}
	/* every copy owns its string */
	assert_ptr_not_equal(acl->a_entries[0].e_who, acl->a_entries[1].e_who);
	richacl_free(acl);
}

static void test_delete_entry_shifts_and_frees_who(void **state)
{
	struct richacl *acl = helper_acl(
		"owner@:r::allow user:S-1-1-1:w:u:allow everyone@:x::allow");

	richacl_delete_entry(acl, 1);
	assert_acl_equal_text(acl, "owner@:r::allow everyone@:x::allow");
	richacl_delete_entry(acl, 5);	/* out of range: no-op */
	assert_acl_equal_text(acl, "owner@:r::allow everyone@:x::allow");
	richacl_delete_entry(acl, 1);
	richacl_delete_entry(acl, 0);
	assert_int_equal(acl->a_count, 0);
	richacl_free(acl);
}

/* ---- equality ---- */

static void test_equal_compares_every_field(void **state)
{
	static const char *const variants[] = {
		"flags:a owner:r::mask user:5:r:f:allow",	/* flags */
		"owner:w::mask user:5:r:f:allow",		/* owner mask */
		"owner:r::mask group:r::mask user:5:r:f:allow",	/* group mask */
		"owner:r::mask other:r::mask user:5:r:f:allow",	/* other mask */
		"owner:r::mask user:5:r:f:deny",		/* type */
		"owner:r::mask user:5:r:d:allow",		/* flags */
		"owner:r::mask user:5:w:f:allow",		/* mask */
		"owner:r::mask user:6:r:f:allow",		/* id */
		"owner:r::mask group:5:r:f:allow",		/* user vs group */
		"owner:r::mask user:5:r:fu:allow",		/* unmapped "5" */
		"owner:r::mask",				/* count */
		"owner:r::mask user:5:r:f:allow user:5:r:f:allow",
	};
	struct richacl *base = helper_acl("owner:r::mask user:5:r:f:allow");
	struct richacl *same = helper_acl("user:5:r:f:allow owner:r::mask");
	size_t i;

	assert_true(richacl_equal(base, same));
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		struct richacl *other = helper_acl(variants[i]);

		if (richacl_equal(base, other) || richacl_equal(other, base))
			fail_msg("'%s' compares equal to the base acl", variants[i]);
		richacl_free(other);
	}
	richacl_free(base);
	richacl_free(same);
}

static void test_equal_unmapped_compares_strings_not_ids(void **state)
{
	struct richacl *a = helper_acl("user:S-1-5-21-9:r:u:allow");
	struct richacl *b = helper_acl("user:S-1-5-21-9:r:u:allow");
	struct richacl *c = helper_acl("user:S-1-5-21-8:r:u:allow");

	b->a_entries[0].e_id = 1234;	/* meaningless for unmapped entries */
	assert_true(richacl_equal(a, b));
	assert_false(richacl_equal(a, c));
	richacl_free(a);
	richacl_free(b);
	richacl_free(c);
}

/* ---- predicates (algorithms.md 0.2) ---- */

static void test_special_predicates(void **state)
{
	struct richacl *acl = helper_acl(
		"owner@:r::allow group@:r::allow everyone@:r::allow "
		"user:0:r::allow group:1:r::allow");
	const struct richace *e = acl->a_entries;

	assert_true(richace_is_owner(&e[0]));
	assert_false(richace_is_group(&e[0]) || richace_is_everyone(&e[0]));
	assert_true(richace_is_group(&e[1]));
	assert_false(richace_is_owner(&e[1]) || richace_is_everyone(&e[1]));
	assert_true(richace_is_everyone(&e[2]));
	/* uid 0 is not owner@, gid 1 is not group@ */
	assert_false(richace_is_owner(&e[3]));
	assert_false(richace_is_group(&e[4]));
	assert_false(richace_is_unix_user(&e[0]) || richace_is_unix_group(&e[1]));
	richacl_free(acl);
}

static void test_unix_user_and_group_predicates(void **state)
{
	struct richacl *acl = helper_acl("user:1000:r::allow group:100:r::allow");

	assert_true(richace_is_unix_user(&acl->a_entries[0]));
	assert_false(richace_is_unix_group(&acl->a_entries[0]));
	assert_true(richace_is_unix_group(&acl->a_entries[1]));
	assert_false(richace_is_unix_user(&acl->a_entries[1]));
	assert_false(richace_is_unmapped(&acl->a_entries[0]));
	richacl_free(acl);
}

/* M9: unmapped entries are neither unix users nor unix groups */
static void test_m9_unmapped_is_not_unix_user_or_group(void **state)
{
	struct richacl *acl = helper_acl(
		"user:S-1-5-21-1-2-3-500:r:u:allow group:S-1-5-21-1-2-3-513:r:u:allow");

	assert_true(richace_is_unmapped(&acl->a_entries[0]));
	assert_true(richace_is_unmapped(&acl->a_entries[1]));
	assert_false(richace_is_unix_user(&acl->a_entries[0]));
	assert_false(richace_is_unix_group(&acl->a_entries[0]));
	assert_false(richace_is_unix_user(&acl->a_entries[1]));
	assert_false(richace_is_unix_group(&acl->a_entries[1]));
	assert_false(richace_is_owner(&acl->a_entries[0]));
	assert_false(richace_is_everyone(&acl->a_entries[0]));
	richacl_free(acl);
}

static void test_type_and_inheritance_predicates(void **state)
{
	struct richacl *acl = helper_acl(
		"owner@:r::allow owner@:r:f:deny owner@:r:d:allow "
		"owner@:r:fi:allow owner@:r:na:allow owner@:r::5");
	const struct richace *e = acl->a_entries;

	assert_true(richace_is_allow(&e[0]) && !richace_is_deny(&e[0]));
	assert_true(richace_is_deny(&e[1]) && !richace_is_allow(&e[1]));
	assert_false(richace_is_allow(&e[5]) || richace_is_deny(&e[5]));
	assert_false(richace_is_inheritable(&e[0]));
	assert_true(richace_is_inheritable(&e[1]));
	assert_true(richace_is_inheritable(&e[2]));
	assert_true(richace_is_inheritable(&e[3]));
	assert_true(richace_is_inherit_only(&e[3]));
	assert_false(richace_is_inherit_only(&e[1]));
	/* no_propagate and inherited alone do not make an entry inheritable */
	assert_false(richace_is_inheritable(&e[4]));
	richacl_free(acl);
}

static void test_same_identifier_rules(void **state)
{
	struct richacl *acl = helper_acl(
		"group@:r::allow group:1:r::allow user:1:r::allow group:1:w:f:deny "
		"user:x:r:u:allow group:x:r:u:allow user:x:w:u:deny user:y:r:u:allow "
		"owner@:r::allow owner@:w:fd:deny");
	const struct richace *e = acl->a_entries;

	/* group@ never equals gid 1: special_who differs */
	assert_false(richace_is_same_identifier(&e[0], &e[1]));
	assert_false(richace_is_same_identifier(&e[1], &e[2]));
	assert_true(richace_is_same_identifier(&e[1], &e[3]));
	assert_false(richace_is_same_identifier(&e[4], &e[5]));
	assert_true(richace_is_same_identifier(&e[4], &e[6]));
	assert_false(richace_is_same_identifier(&e[4], &e[7]));
	assert_true(richace_is_same_identifier(&e[8], &e[9]));
	assert_false(richace_is_same_identifier(&e[8], &e[0]));
	richacl_free(acl);
}

/* ---- setters ---- */

static void test_set_special_clears_group_unmapped_and_who(void **state)
{
	struct richace ace = make_ace(0, RICHACE_FILE_INHERIT_ACE, 1, 0);

	assert_int_equal(richace_set_unmapped(&ace, "S-1-1-0", true), 0);
	richace_set_special(&ace, RICHACE_EVERYONE_SPECIAL_ID);
	assert_null(ace.e_who);
	assert_int_equal(ace.e_flags, RICHACE_FILE_INHERIT_ACE | RICHACE_SPECIAL_WHO);
	assert_true(richace_is_everyone(&ace));
}

static void test_set_uid_and_gid(void **state)
{
	struct richace ace = make_ace(0, RICHACE_INHERITED_ACE | RICHACE_SPECIAL_WHO,
				      1, 2);

	richace_set_gid(&ace, 100);
	assert_int_equal(ace.e_flags, RICHACE_INHERITED_ACE | RICHACE_IDENTIFIER_GROUP);
	assert_int_equal(ace.e_id, 100);
	assert_true(richace_is_unix_group(&ace));
	richace_set_uid(&ace, 1000);
	assert_int_equal(ace.e_flags, RICHACE_INHERITED_ACE);
	assert_int_equal(ace.e_id, 1000);
	assert_true(richace_is_unix_user(&ace));
	assert_int_equal(richace_set_unmapped(&ace, "nfs@example", false), 0);
	richace_set_uid(&ace, 7);
	assert_null(ace.e_who);
	assert_int_equal(ace.e_flags, RICHACE_INHERITED_ACE);
}

static void test_set_unmapped_copies_and_keeps_other_flags(void **state)
{
	char who[] = "S-1-5-21-1-2-3-1001";
	struct richace ace = make_ace(1, RICHACE_DIRECTORY_INHERIT_ACE |
				      RICHACE_SPECIAL_WHO, 2, 1);

	assert_int_equal(richace_set_unmapped(&ace, who, false), 0);
	who[0] = 'X';
	assert_string_equal(ace.e_who, "S-1-5-21-1-2-3-1001");
	assert_int_equal(ace.e_flags, RICHACE_DIRECTORY_INHERIT_ACE |
			 RICHACE_UNMAPPED_WHO);
	assert_int_equal(ace.e_id, 0);
	assert_int_equal(richace_set_unmapped(&ace, "other", true), 0);
	assert_string_equal(ace.e_who, "other");
	assert_int_equal(ace.e_flags, RICHACE_DIRECTORY_INHERIT_ACE |
			 RICHACE_UNMAPPED_WHO | RICHACE_IDENTIFIER_GROUP);
	free(ace.e_who);
}

static void test_set_unmapped_rejects_empty_and_null(void **state)
{
	struct richace ace = make_ace(0, 0, 1, 42);

	assert_int_equal(richace_set_unmapped(&ace, "", false), -EINVAL);
	assert_int_equal(richace_set_unmapped(&ace, NULL, false), -EINVAL);
	/* unchanged */
	assert_int_equal(ace.e_flags, 0);
	assert_int_equal(ace.e_id, 42);
	assert_null(ace.e_who);
}

static void test_copy_replaces_destination_who(void **state)
{
	struct richace src = make_ace(1, 0, 7, 0);
	struct richace dst = make_ace(0, 0, 1, 0);

	assert_int_equal(richace_set_unmapped(&src, "source", false), 0);
	assert_int_equal(richace_set_unmapped(&dst, "old", true), 0);
	assert_int_equal(richace_copy(&dst, &src), 0);
	assert_string_equal(dst.e_who, "source");
	assert_ptr_not_equal(dst.e_who, src.e_who);
	assert_int_equal(dst.e_type, 1);
	assert_int_equal(dst.e_mask, 7);
	assert_int_equal(dst.e_flags, RICHACE_UNMAPPED_WHO);
	assert_int_equal(richace_copy(&dst, &dst), 0);	/* self copy */
	assert_string_equal(dst.e_who, "source");
	richace_set_uid(&src, 5);
	assert_int_equal(richace_copy(&dst, &src), 0);
	assert_null(dst.e_who);
	assert_int_equal(dst.e_id, 5);
}

/* ---- validity (kernel-port.md 2.1, algorithms.md 8) ---- */

static void test_valid_accepts_all_valid_bits(void **state)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = helper_acl(
		"flags:mwapd owner:rwpxdDaARWcCoSeE::mask group:r::mask other:0x1F07FF::mask "
		"owner@:rwpxdDaARWcCoSeE:fdnia:allow group@:r::deny everyone@:r::allow "
		"user:S-1:r:u:allow group:S-2:r:fdu:deny user:4294967295:r::allow "
		"group:0:r::deny");

	assert_int_equal(richacl_valid(acl, &err), 0);
	assert_int_equal(richacl_valid(acl, NULL), 0);
	richacl_free(acl);
}

struct invalid_case {
	void (*damage)(struct richacl *acl);	/* makes a valid acl invalid */
	const char *msg;
};

static void damage_acl_flags(struct richacl *acl) { acl->a_flags |= 0x08; }
static void damage_owner_mask(struct richacl *acl) { acl->a_owner_mask = 0x800; }
static void damage_group_mask(struct richacl *acl) { acl->a_group_mask = 0x200000; }
static void damage_other_mask(struct richacl *acl) { acl->a_other_mask = 0x80000000; }
static void damage_type(struct richacl *acl) { acl->a_entries[1].e_type = 2; }
static void damage_flags(struct richacl *acl) { acl->a_entries[1].e_flags |= 0x10; }
static void damage_mask(struct richacl *acl) { acl->a_entries[1].e_mask |= 0x1000; }
static void damage_special_id(struct richacl *acl) { acl->a_entries[0].e_id = 3; }
static void damage_special_unmapped(struct richacl *acl)
{
	acl->a_entries[0].e_flags |= RICHACE_UNMAPPED_WHO;
}
static void damage_special_group(struct richacl *acl)
{
	acl->a_entries[0].e_flags |= RICHACE_IDENTIFIER_GROUP;
}
static void damage_unmapped_empty(struct richacl *acl)
{
	acl->a_entries[2].e_who[0] = '\0';
}
static void damage_unmapped_null(struct richacl *acl)
{
	free(acl->a_entries[2].e_who);
	acl->a_entries[2].e_who = NULL;
}

static void test_valid_rejects_each_invalid_field_naming_the_entry(void **state)
{
	static const struct invalid_case cases[] = {
		{ damage_acl_flags, "invalid acl flags 0x8" },
		{ damage_owner_mask, "invalid owner mask bits 0x800" },
		{ damage_group_mask, "invalid group mask bits 0x200000" },
		{ damage_other_mask, "invalid other mask bits 0x80000000" },
		{ damage_type, "entry 1: invalid type 2" },
		{ damage_flags, "entry 1: invalid flags 0x10" },
		{ damage_mask, "entry 1: invalid mask bits 0x1000" },
		{ damage_special_id, "entry 0: invalid special identifier 3" },
		{ damage_special_unmapped,
		  "entry 0: special identifier combined with unmapped or group flag" },
		{ damage_special_group,
		  "entry 0: special identifier combined with unmapped or group flag" },
		{ damage_unmapped_empty, "entry 2: unmapped identifier is empty" },
		{ damage_unmapped_null, "entry 2: unmapped identifier is empty" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct richacl_error err = { 0 };
		struct richacl *acl = helper_acl(
			"owner@:r::allow user:5:w::deny group:S-1-5-32-544:r:u:allow");

		cases[i].damage(acl);
		assert_int_equal(richacl_valid(acl, &err), -EINVAL);
		assert_int_equal(err.code, -EINVAL);
		assert_string_equal(err.msg, cases[i].msg);
		assert_int_equal(richacl_valid(acl, NULL), -EINVAL);
		richacl_free(acl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_gives_count_zeroed_entries),
		cmocka_unit_test(test_alloc_zero_has_entry_array),
		cmocka_unit_test(test_free_null_is_noop),
		cmocka_unit_test(test_clone_is_deep_and_equal),
		cmocka_unit_test(test_insert_at_start_middle_end),
		cmocka_unit_test(test_insert_past_end_is_einval_and_unchanged),
		cmocka_unit_test(test_insert_grows_past_initial_allocation),
		cmocka_unit_test(test_insert_copy_of_own_entry_survives_realloc),
		cmocka_unit_test(test_delete_entry_shifts_and_frees_who),
		cmocka_unit_test(test_equal_compares_every_field),
		cmocka_unit_test(test_equal_unmapped_compares_strings_not_ids),
		cmocka_unit_test(test_special_predicates),
		cmocka_unit_test(test_unix_user_and_group_predicates),
		cmocka_unit_test(test_m9_unmapped_is_not_unix_user_or_group),
		cmocka_unit_test(test_type_and_inheritance_predicates),
		cmocka_unit_test(test_same_identifier_rules),
		cmocka_unit_test(test_set_special_clears_group_unmapped_and_who),
		cmocka_unit_test(test_set_uid_and_gid),
		cmocka_unit_test(test_set_unmapped_copies_and_keeps_other_flags),
		cmocka_unit_test(test_set_unmapped_rejects_empty_and_null),
		cmocka_unit_test(test_copy_replaces_destination_who),
		cmocka_unit_test(test_valid_accepts_all_valid_bits),
		cmocka_unit_test(test_valid_rejects_each_invalid_field_naming_the_entry),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
