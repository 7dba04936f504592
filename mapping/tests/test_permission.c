/*
 * test_permission.c - the kernel's permission check and richacl_access
 * (algorithms.md sections 6.2-6.5, 10 items 9 and 11; rules M9, S-K1).
 * Expected values are the spec's worked examples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers_algo.h"

#define GRANTED 0
#define DENIED (-EACCES)

struct perm_case {
	const char *name;
	const char *acl;
	uint32_t uid, gid;		/* gid: the process's primary group */
	const char *request;
	int expected;
};

/* 6.5: owner 1000, owning group 100 (examples observed in userspace; the
 * kernel agrees on all of them) */
static const struct perm_case perm_cases[] = {
	{ "owner asks w", "owner@:rwp::allow everyone@:r::allow", 1000, 300, "w", GRANTED },
	{ "other asks w", "owner@:rwp::allow everyone@:r::allow", 2000, 300, "w", DENIED },
	{ "user deny w", "user:5:w::deny everyone@:rw::allow", 5, 300, "w", DENIED },
	{ "user deny, asks r", "user:5:w::deny everyone@:rw::allow", 5, 300, "r", GRANTED },
	{ "user deny, asks rw", "user:5:w::deny everyone@:rw::allow", 5, 300, "rw", DENIED },
	/* group@ allow masked to r also for the owner */
	{ "owner in group, group@ masked, w",
	  "flags:m owner:rw::mask group:r::mask other:r::mask group@:rw::allow",
	  1000, 100, "w", DENIED },
	{ "owner in group, group@ masked, r",
	  "flags:m owner:rw::mask group:r::mask other:r::mask group@:rw::allow",
	  1000, 100, "r", GRANTED },
	{ "owner, write-through",
	  "flags:mw owner:rwp::mask group:::mask other:::mask user:5:r::allow",
	  1000, 300, "w", GRANTED },
	{ "owner, masked only",
	  "flags:m owner:rwp::mask group:::mask other:::mask user:5:r::allow",
	  1000, 300, "w", DENIED },
	{ "other, write-through", "flags:mw other:r::mask owner@:rwp::allow",
	  9, 300, "r", GRANTED },
	{ "other, masked only", "flags:m other:r::mask owner@:rwp::allow",
	  9, 300, "r", DENIED },
	{ "other class, everyone@ r",
	  "flags:m owner:rwp::mask group:r::mask other:::mask everyone@:r::allow",
	  9, 300, "r", DENIED },
	{ "group class via owning group",
	  "flags:m owner:rwp::mask group:r::mask other:::mask everyone@:r::allow",
	  9, 100, "r", GRANTED },
	{ "group class via user entry",
	  "flags:m owner:rwp::mask group:r::mask other:::mask everyone@:r::allow "
	  "user:9:x::allow", 9, 300, "r", GRANTED },
	/* 6.3 / 10 item 9: the kernel grants the other mask (userspace refused) */
	{ "kernel: other class under write-through ignores everyone@ deny",
	  "flags:mw owner:::mask group:::mask other:r::mask everyone@:r::deny",
	  5, 300, "r", GRANTED },
	/* the apply_masks view of the same acl agrees */
	{ "6.3 apply_masks result", "owner@:r::deny group@:r::deny everyone@:r::allow",
	  5, 300, "r", GRANTED },
	/* the first entry that mentions a bit decides it */
	{ "allow before deny", "user:5:r::allow user:5:r::deny", 5, 300, "r", GRANTED },
	{ "deny before allow", "everyone@:r::deny user:5:r::allow", 5, 300, "r", DENIED },
	{ "nothing mentioned", "user:5:r::allow", 5, 300, "x", DENIED },
	{ "empty request", "", 5, 300, "", GRANTED },
	{ "inherit-only ignored", "user:5:r:fi:allow", 5, 300, "r", DENIED },
	/* a user entry for the owner is owner class, not group-masked */
	{ "user entry for the owner",
	  "flags:m owner:rw::mask group:::mask other:::mask user:1000:rw::allow",
	  1000, 300, "rw", GRANTED },
	{ "named group", "group:7:w::allow", 5, 7, "w", GRANTED },
	{ "supplementary group via cred", "group:8:w::allow", 5, 300, "w", GRANTED },
};

static void test_6_5_permission(void **state)
{
	const struct perm_case *c = *state;
	const uint32_t groups[] = { 8 };
	const struct richacl_cred cred = { c->uid, c->gid, 1, groups };
	const struct richacl_file file = { 1000, 100, false };
	struct richacl *acl = algo_acl(c->acl);

	assert_int_equal(richacl_permission(acl, &file, &cred, algo_perms(c->request)),
			 c->expected);
	richacl_free(acl);
}

/* 6.5: getrichacl --access on the chmod-640 file of 3.3 (owner 0, group 0) */
static void test_6_5_access(void **state)
{
	const uint32_t group0[] = { 0 };
	const struct {
		struct richacl_cred cred;
		const char *granted;
	} cases[] = {
		{ { 0, 0, 0, NULL }, "rwp" },		/* owner: write-through owner mask */
		{ { 5, 300, 0, NULL }, "r" },		/* group class via user:5, group mask r */
		{ { 6, 300, 0, NULL }, "" },		/* other class, write-through: none */
		{ { 6, 300, 1, group0 }, "r" },		/* member of the owning group */
	};
	const struct richacl_file file = { 0, 0, false };
	struct richacl *acl = algo_acl("flags:a user:5:rwpx::allow everyone@:r::allow");
	size_t i;

	richacl_chmod(acl, S_IFREG | 0640);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(richacl_access(acl, &file, &cases[i].cred),
				 algo_perms(cases[i].granted));
	richacl_free(acl);
}

/* 10 item 11: delete_child is never reported for a file, also not for the owner */
static void test_10_11_access_owner_no_d_on_files(void **state)
{
	const struct richacl_cred owner = { 1000, 300, 0, NULL };
	const struct richacl_file file = { 1000, 100, false };
	const struct richacl_file dir = { 1000, 100, true };
	struct richacl *acl = algo_acl("flags:mw owner:rwpdD::mask everyone@:rwpd::allow");

	assert_int_equal(richacl_access(acl, &file, &owner), algo_perms("rwpD"));
	assert_int_equal(richacl_access(acl, &dir, &owner), algo_perms("rwpdD"));
	/* the same rule without the shortcut */
	acl->a_flags = 0;
	assert_int_equal(richacl_access(acl, &file, &owner), algo_perms("rwp"));
	assert_int_equal(richacl_access(acl, &dir, &owner), algo_perms("rwpd"));
	richacl_free(acl);
}

/* ---- M9: unmapped identifiers match nobody ---- */

static void test_M9_unmapped_matches_nobody(void **state)
{
	const struct richacl_file file = { 1000, 100, false };
	const uint32_t groups[] = { 7, 100 };
	const struct richacl_cred creds[] = {
		{ 1000, 100, 0, NULL }, { 5, 300, 2, groups }, { 0, 0, 0, NULL },
	};
	struct richacl *allow = algo_acl("user:S-1-5-21-1-2-3-1001:rwx:u:allow "
					 "group:S-1-5-21-1-2-3-513:rwx:u:allow");
	/* v28 sent unmapped entries to the everyone@ branch: this denied everybody */
	struct richacl *deny = algo_acl("user:S-1-5-21-1-2-3-1001:r:u:deny "
					"everyone@:r::allow");
	/* an unmapped entry does not make a process group class */
	struct richacl *masked = algo_acl("flags:m owner:::mask group:::mask other:r::mask "
					  "user:S-1-5-21-1-2-3-1001:r:u:allow "
					  "everyone@:r::allow");
	size_t i;

	for (i = 0; i < sizeof(creds) / sizeof(creds[0]); i++) {
		const struct richacl_cred *cred = &creds[i];

		assert_int_equal(richacl_permission(allow, &file, cred, RICHACE_READ_DATA),
				 DENIED);
		assert_int_equal(richacl_access(allow, &file, cred), 0);
		assert_int_equal(richacl_permission(deny, &file, cred, RICHACE_READ_DATA),
				 GRANTED);
	}
	assert_int_equal(richacl_permission(masked, &file, &creds[2], RICHACE_READ_DATA),
			 GRANTED);

	/* the id field of an unmapped entry means nothing, even if it equals the uid */
	allow->a_entries[0].e_id = 5;
	allow->a_entries[1].e_id = 7;
	assert_int_equal(richacl_permission(allow, &file, &creds[1], RICHACE_READ_DATA),
			 DENIED);
	richacl_free(allow);
	richacl_free(deny);
	richacl_free(masked);
}

/* entries the kernel's validity check rejects also match nobody */
static void test_invalid_entries_match_nobody(void **state)
{
	const struct richacl_file file = { 1000, 100, false };
	const struct richacl_cred cred = { 5, 300, 0, NULL };
	struct richacl *acl = algo_acl("everyone@:r::deny everyone@:r::allow");

	acl->a_entries[0].e_id = 3;		/* unknown special identifier */
	assert_int_equal(richacl_permission(acl, &file, &cred, RICHACE_READ_DATA), GRANTED);
	acl->a_entries[0].e_id = RICHACE_EVERYONE_SPECIAL_ID;
	acl->a_entries[0].e_type = 2;		/* unknown type */
	assert_int_equal(richacl_permission(acl, &file, &cred, RICHACE_READ_DATA), GRANTED);
	richacl_free(acl);
}

static void test_permission_bad_input(void **state)
{
	const struct richacl_file file = { 1000, 100, false };
	const struct richacl_cred cred = { 5, 300, 0, NULL };
	const struct richacl_cred broken = { 5, 300, 2, NULL };	/* groups missing */
	struct richacl *acl = algo_acl("everyone@:r::allow");

	assert_int_equal(richacl_permission(NULL, &file, &cred, 1), -EINVAL);
	assert_int_equal(richacl_permission(acl, NULL, &cred, 1), -EINVAL);
	assert_int_equal(richacl_permission(acl, &file, NULL, 1), -EINVAL);
	assert_int_equal(richacl_permission(acl, &file, &broken, 1), -EINVAL);
	assert_int_equal(richacl_access(NULL, &file, &cred), 0);
	assert_int_equal(richacl_access(acl, NULL, &cred), 0);
	assert_int_equal(richacl_access(acl, &file, NULL), 0);
	assert_int_equal(richacl_access(acl, &file, &broken), 0);
	richacl_free(acl);
}

/* ---- properties ---- */

/*
 * Property (6.2, 10 item 9): the kernel check decides each bit on its own:
 * a request is granted iff each of its bits is, and richacl_access() is the
 * set of single bits granted (without d on files).
 */
static void test_6_2_per_bit_and_access(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 8,
		.acl_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH | RICHACL_AUTO_INHERIT,
	};
	unsigned int i, n = algo_iterations(20000), nbits, c, b, r;
	unsigned long checks = 0;
	struct algo_cred_set set;
	struct algo_rng rng;
	uint32_t bits[32];

	algo_all_creds(&set);
	nbits = algo_mask_bits(RICHACE_VALID_MASK, bits);
	algo_rng_init(&rng, "per-bit decision and access");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape);
		bool isdir = algo_below(&rng, 2);
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };

		for (c = 0; c < set.count; c++) {
			const struct richacl_cred *cred = &set.creds[c];
			uint32_t granted = 0;

			for (b = 0; b < nbits; b++) {
				if (richacl_permission(acl, &file, cred, bits[b]) == 0)
					granted |= bits[b];
			}
			if (!isdir)
				granted &= ~RICHACE_DELETE_CHILD;
			assert_int_equal(richacl_access(acl, &file, cred), granted);
			for (r = 0; r < 4; r++) {
				uint32_t req = algo_rand(&rng) & RICHACE_VALID_MASK &
					       algo_rand(&rng);
				uint32_t single = granted |
					(isdir ? 0 : (richacl_permission(acl, &file, cred,
							RICHACE_DELETE_CHILD) ? 0 :
							RICHACE_DELETE_CHILD));

				assert_int_equal(richacl_permission(acl, &file, cred, req),
						 (req & ~single) ? DENIED : GRANTED);
			}
			checks++;
		}
		richacl_free(acl);
	}
	printf("per-bit decision and access: %u acls, %lu acl x process pairs\n", n, checks);
}

static bool model_in_group(const struct richacl_cred *cred, uint32_t gid)
{
	unsigned int i;

	for (i = 0; i < cred->ngroups; i++) {
		if (cred->groups[i] == gid)
			return true;
	}
	return cred->gid == gid;
}

enum model_match { NO, OWNER_CLASS, GROUP_CLASS, EVERYONE };

static enum model_match model_match(const struct richace *ace,
				    const struct richacl_file *file,
				    const struct richacl_cred *cred)
{
	uint16_t who = ace->e_flags & (RICHACE_SPECIAL_WHO | RICHACE_IDENTIFIER_GROUP |
				       RICHACE_UNMAPPED_WHO);

	if (who & RICHACE_UNMAPPED_WHO)
		return NO;				/* M9 */
	if (who == RICHACE_SPECIAL_WHO) {
		switch (ace->e_id) {
		case RICHACE_OWNER_SPECIAL_ID:
			return cred->uid == file->owner ? OWNER_CLASS : NO;
		case RICHACE_GROUP_SPECIAL_ID:
			return model_in_group(cred, file->group) ? GROUP_CLASS : NO;
		case RICHACE_EVERYONE_SPECIAL_ID:
			return EVERYONE;
		}
		return NO;
	}
	if (who == 0 && ace->e_id == cred->uid)
		return cred->uid == file->owner ? OWNER_CLASS : GROUP_CLASS;
	if (who == RICHACE_IDENTIFIER_GROUP && model_in_group(cred, ace->e_id))
		return GROUP_CLASS;
	return NO;
}

/*
 * An independent model of 6.1/6.2, written from the prose rather than the
 * loop: a bit is decided by the first matching entry that mentions it (for
 * masked acls, a group-class allow only mentions what the group mask lets
 * through); the class is owner, group (owning group or any matching user /
 * group entry) or other; masked acls then apply the class's mask, and
 * write_through gives owner and other exactly their masks.
 */
static bool model_grants(const struct richacl *acl, const struct richacl_file *file,
			 const struct richacl_cred *cred, uint32_t bit)
{
	bool masked = acl->a_flags & RICHACL_MASKED;
	bool write_through = acl->a_flags & RICHACL_WRITE_THROUGH;
	bool group_class = model_in_group(cred, file->group), granted = false;
	bool decided = false;
	const struct richace *ace;

	if (masked && write_through && cred->uid == file->owner)
		return bit & acl->a_owner_mask;
	richacl_for_each_entry(ace, acl) {
		enum model_match match;
		uint32_t mask = ace->e_mask;

		if (ace->e_flags & RICHACE_INHERIT_ONLY_ACE || ace->e_type > 1)
			continue;
		match = model_match(ace, file, cred);
		if (match == NO)
			continue;
		if (match == GROUP_CLASS) {
			group_class = true;
			if (masked && ace->e_type == RICHACE_ACCESS_ALLOWED_ACE_TYPE)
				mask &= acl->a_group_mask;
		}
		if (!decided && (mask & bit)) {
			decided = true;
			granted = ace->e_type == RICHACE_ACCESS_ALLOWED_ACE_TYPE;
		}
	}
	if (!masked)
		return granted;
	if (cred->uid == file->owner)
		return granted && (bit & acl->a_owner_mask);
	if (group_class)
		return granted && (bit & acl->a_group_mask);
	if (write_through)
		return bit & acl->a_other_mask;
	return granted && (bit & acl->a_other_mask);
}

static void test_6_2_independent_model(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 8,
		.acl_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH | RICHACL_AUTO_INHERIT,
	};
	unsigned int i, n = algo_iterations(20000), nbits, c, b;
	unsigned long checks = 0;
	struct algo_cred_set set;
	struct algo_rng rng;
	uint32_t bits[32];

	algo_all_creds(&set);
	nbits = algo_mask_bits(RICHACE_VALID_MASK, bits);
	algo_rng_init(&rng, "permission vs independent model");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape);
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, algo_below(&rng, 2) };

		for (c = 0; c < set.count; c++) {
			for (b = 0; b < nbits; b++) {
				bool model = model_grants(acl, &file, &set.creds[c], bits[b]);
				int ret = richacl_permission(acl, &file, &set.creds[c], bits[b]);

				if (ret != (model ? GRANTED : DENIED)) {
					char *t = algo_text(acl);

					print_error("uid %u gid %u bit 0x%x: %d, model %d\n%s",
						    set.creds[c].uid, set.creds[c].gid, bits[b],
						    ret, model, t);
					free(t);
					fail();
				}
				checks++;
			}
		}
		richacl_free(acl);
	}
	printf("permission vs independent model: %u acls, %lu checks\n", n, checks);
}

/* M9 property: unmapped entries anywhere never change anybody's access */
static void test_M9_unmapped_never_changes_access(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 6, .no_unmapped = true,
		.acl_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH,
	};
	unsigned int i, n = algo_iterations(20000), c;
	unsigned long checks = 0;
	struct algo_cred_set set;
	struct algo_rng rng;

	algo_all_creds(&set);
	algo_rng_init(&rng, "unmapped never changes access");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape);
		struct richacl *with = richacl_clone(acl);
		bool isdir = algo_below(&rng, 2);
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };
		unsigned int k, extra = 1 + algo_below(&rng, 3);

		assert_non_null(with);
		for (k = 0; k < extra; k++) {
			struct richace ace;

			algo_random_unmapped(&rng, &ace);
			ace.e_flags &= ~RICHACE_INHERIT_ONLY_ACE;
			assert_int_equal(richacl_insert_entry(with,
					algo_below(&rng, with->a_count + 1), &ace), 0);
			free(ace.e_who);
		}
		for (c = 0; c < set.count; c++) {
			assert_int_equal(richacl_access(with, &file, &set.creds[c]),
					 richacl_access(acl, &file, &set.creds[c]));
			checks++;
		}
		richacl_free(acl);
		richacl_free(with);
	}
	printf("unmapped never changes access: %u acls, %lu acl x process pairs\n",
	       n, checks);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_6_5_access),
		cmocka_unit_test(test_10_11_access_owner_no_d_on_files),
		cmocka_unit_test(test_M9_unmapped_matches_nobody),
		cmocka_unit_test(test_invalid_entries_match_nobody),
		cmocka_unit_test(test_permission_bad_input),
		cmocka_unit_test(test_6_2_per_bit_and_access),
		cmocka_unit_test(test_6_2_independent_model),
		cmocka_unit_test(test_M9_unmapped_never_changes_access),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	const size_t ncases = sizeof(perm_cases) / sizeof(perm_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + ncases, sizeof(*tests));
	char (*names)[160] = calloc(ncases, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ncases; i++) {
		snprintf(names[i], sizeof(names[i]), "S-K1 6.5 permission: %s (uid %u asks %s)",
			 perm_cases[i].name, perm_cases[i].uid, perm_cases[i].request);
		tests[n++] = (struct CMUnitTest){
			.name = names[i], .test_func = test_6_5_permission,
			.initial_state = (void *)&perm_cases[i],
		};
	}
	for (i = 0; i < nfixed; i++)
		tests[n++] = fixed[i];
	ret = _cmocka_run_group_tests("test_permission", tests, n, NULL, NULL);
	free(tests);
	free(names);
	return ret;
}
