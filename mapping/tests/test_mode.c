/*
 * test_mode.c - mode <-> mask conversions, from_mode and equiv_mode
 * (algorithms.md sections 1.1-1.3; rules M1, M9, M12).  Expected values are
 * the spec's worked examples.
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
#include "alloc_fail.h"

/* ---- 1.1 mode_to_mask, mask_to_mode, masks_to_mode ---- */

static void test_1_1_mode_to_mask(void **state)
{
	assert_int_equal(richacl_mode_to_mask(6), 0x47);	/* rwpd: d included */
	assert_int_equal(richacl_mode_to_mask(5), 0x21);	/* rx */
	assert_int_equal(richacl_mode_to_mask(4), algo_perms("r"));
	assert_int_equal(richacl_mode_to_mask(2), algo_perms("wpd"));
	assert_int_equal(richacl_mode_to_mask(1), algo_perms("x"));
	assert_int_equal(richacl_mode_to_mask(0), 0);
	/* only the low three bits count */
	assert_int_equal(richacl_mode_to_mask(0750), algo_perms(""));
	assert_int_equal(richacl_mode_to_mask(S_IFDIR | 07), algo_perms("rwpdx"));
}

static void test_1_1_mask_to_mode(void **state)
{
	mode_t bits;

	assert_int_equal(richacl_mask_to_mode(algo_perms("p")), 2);	/* any of w, p, d */
	assert_int_equal(richacl_mask_to_mode(algo_perms("w")), 2);
	assert_int_equal(richacl_mask_to_mode(algo_perms("d")), 2);
	assert_int_equal(richacl_mask_to_mode(algo_perms("r")), 4);
	assert_int_equal(richacl_mask_to_mode(algo_perms("x")), 1);
	/* bits without a mode representation never show */
	assert_int_equal(richacl_mask_to_mode(algo_perms("DaARWcCoSeE")), 0);
	for (bits = 0; bits < 8; bits++)
		assert_int_equal(richacl_mask_to_mode(richacl_mode_to_mask(bits)), bits);
}

static void test_1_1_masks_to_mode(void **state)
{
	struct richacl *acl = richacl_alloc(0);

	assert_non_null(acl);
	acl->a_owner_mask = algo_perms("rwp");
	acl->a_group_mask = algo_perms("r");
	acl->a_other_mask = 0;
	assert_int_equal(richacl_masks_to_mode(acl), 0640);
	richacl_free(acl);
}

/*
 * 1.1, emulated fs: when an acl is stored, the mode comes from the maximum
 * masks (M12).  None of these acls is mode-equivalent, so they are stored.
 */
static void test_1_1_store_rule(void **state)
{
	static const struct {
		mode_t type;
		const char *acl, *owner, *group, *other;
		mode_t mode;
	} cases[] = {
		{ S_IFREG, "owner@:p::allow user:5:D::allow", "pD", "D", "", 0200 },
		{ S_IFDIR, "user:5:d::allow everyone@:x::allow", "xd", "xd", "x", 0331 },
		{ S_IFREG, "flags:w everyone@:rwp::allow user:5:x::allow",
		  "rwpx", "rwpx", "rwp", 0776 },
		{ S_IFREG, "flags:a user:5:rwpx::allow everyone@:r::allow",
		  "rwpx", "rwpx", "r", 0774 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct richacl *acl = algo_acl(cases[i].acl);
		mode_t mode = cases[i].type | 0777;

		assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
		assert_int_equal(mode, cases[i].type | 0777);	/* untouched */
		richacl_compute_max_masks(acl);
		assert_masks(acl, cases[i].owner, cases[i].group, cases[i].other);
		assert_int_equal(richacl_masks_to_mode(acl), cases[i].mode);
		richacl_free(acl);
	}
}

/* ---- 1.2 from_mode (M1) ---- */

struct from_mode_case {
	mode_t mode;
	const char *entries;
	const char *owner, *group, *other;
};

static const struct from_mode_case from_mode_cases[] = {
	{ S_IFREG | 0644, "owner@:rwp::allow everyone@:r::allow", "rwp", "r", "r" },
	{ S_IFREG | 0640, "owner@:rwp::allow group@:r::allow", "rwp", "r", "" },
	{ S_IFREG | 0604, "owner@:rwp::allow group@:r::deny everyone@:r::allow",
	  "rwp", "", "r" },
	{ S_IFREG | 0461, "owner@:wpx::deny owner@:r::allow group@:x::deny "
			  "group@:rwp::allow everyone@:x::allow", "r", "rwp", "x" },
	{ S_IFREG | 0777, "everyone@:rwpx::allow", "rwpx", "rwpx", "rwpx" },
	{ S_IFDIR | 0755, "owner@:rwpxd::allow everyone@:rx::allow", "rwpxd", "rx", "rx" },
	{ S_IFDIR | 0570, "owner@:wpd::deny owner@:rx::allow group@:rwpxd::allow",
	  "rx", "rwpxd", "" },
	{ S_IFDIR | 0002, "owner@:wpd::deny group@:wpd::deny everyone@:wpd::allow",
	  "", "", "wpd" },
	{ S_IFREG | 0000, "", "", "", "" },
	{ S_IFDIR | 0000, "", "", "", "" },
};

static void test_1_2_from_mode(void **state)
{
	const struct from_mode_case *c = *state;
	struct richacl *acl = richacl_from_mode(c->mode);

	assert_non_null(acl);
	assert_entries(acl, c->entries);	/* flags 0: unmasked */
	assert_masks(acl, c->owner, c->group, c->other);
	richacl_free(acl);
}

/* the file type only matters for d; setuid & co. are ignored */
static void test_1_2_from_mode_type_bits(void **state)
{
	struct richacl *acl = richacl_from_mode(S_IFREG | S_ISUID | S_ISVTX | 0644);

	assert_non_null(acl);
	assert_entries(acl, "owner@:rwp::allow everyone@:r::allow");
	richacl_free(acl);
	acl = richacl_from_mode(0644);		/* no type: not a directory */
	assert_non_null(acl);
	assert_entries(acl, "owner@:rwp::allow everyone@:r::allow");
	richacl_free(acl);
}

/* 1.2: the masked route chmod + apply_masks gives group@ allow/deny swapped */
static void test_1_2_masked_route_0461(void **state)
{
	struct richacl *acl = algo_acl("everyone@:rwpx::allow");

	richacl_chmod(acl, S_IFREG | 0461);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl, "owner@:wpx::deny owner@:r::allow group@:rwp::allow "
			    "group@:x::deny everyone@:x::allow");
	richacl_free(acl);
}

static void compare_permissions(const struct richacl *a, const struct richacl *b,
				bool isdir, uint32_t bits_mask, unsigned long *checks)
{
	const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };
	struct algo_cred_set set;
	uint32_t bits[32];
	unsigned int c, n, i;

	algo_all_creds(&set);
	n = algo_mask_bits(bits_mask, bits);
	for (c = 0; c < set.count; c++) {
		for (i = 0; i < n; i++) {
			int pa = richacl_permission(a, &file, &set.creds[c], bits[i]);
			int pb = richacl_permission(b, &file, &set.creds[c], bits[i]);

			if (pa != pb) {
				char *ta = algo_text(a), *tb = algo_text(b);

				print_error("uid %u gid %u: bit 0x%x: %d vs %d\n%s---\n%s",
					    set.creds[c].uid, set.creds[c].gid, bits[i],
					    pa, pb, ta, tb);
				free(ta);
				free(tb);
				fail();
			}
			(*checks)++;
		}
	}
}

/*
 * 1.2 property: for every mode and type, from_mode(mode) grants every
 * process what the masked route apply_masks(chmod(everyone@:rwpx[d])) does.
 */
static void test_1_2_from_mode_matches_masked_route(void **state)
{
	unsigned long checks = 0;
	mode_t perm;
	int t;

	for (t = 0; t < 2; t++) {
		mode_t type = t ? S_IFDIR : S_IFREG;

		for (perm = 0; perm < 01000; perm++) {
			struct richacl *plain = richacl_from_mode(type | perm);
			struct richacl *masked = algo_acl(t ? "everyone@:rwpxd::allow"
							    : "everyone@:rwpx::allow");

			assert_non_null(plain);
			richacl_chmod(masked, type | perm);
			assert_int_equal(richacl_apply_masks(&masked, ALGO_OWNER), 0);
			compare_permissions(plain, masked, t, RICHACE_VALID_MASK, &checks);
			richacl_free(plain);
			richacl_free(masked);
		}
	}
	printf("from_mode vs masked route: 1024 modes, %lu checks\n", checks);
}

/* M1/M12 property: from_mode(m) is mode-equivalent to m, all 4096 x file/dir */
static void test_1_2_from_mode_is_equivalent(void **state)
{
	unsigned int checks = 0;
	mode_t bits;
	int t;

	for (t = 0; t < 2; t++) {
		mode_t type = t ? S_IFDIR : S_IFREG;

		for (bits = 0; bits < 010000; bits++) {
			struct richacl *acl = richacl_from_mode(type | bits);
			mode_t mode = type | (bits & ~(mode_t)0777);

			assert_non_null(acl);
			assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
			assert_int_equal(mode, type | bits);
			richacl_free(acl);
			checks++;
		}
	}
	assert_int_equal(checks, 8192);
	printf("from_mode equivalent: %u modes\n", checks);
}

/* ---- 1.3 equiv_mode (M12) ---- */

struct equiv_case {
	const char *acl;
	bool isdir;
	int chmod;		/* -1: no chmod first */
	int expected;		/* permission bits, or -1 for "no" */
};

static const struct equiv_case equiv_cases[] = {
	{ "everyone@:rwpxacS::allow", false, -1, 0777 },
	{ "owner@:rwpxaAcCoS::allow", false, -1, 0700 },
	{ "owner@:rwpx::deny,group@:rwpx::allow", false, -1, 0070 },
	{ "owner@:rwpx::deny,group@:rwpx::deny,everyone@:rwpx::allow", false, -1, 0007 },
	{ "everyone@:wp::allow", false, -1, 0222 },
	{ "everyone@:w::allow", false, -1, -1 },
	{ "group@:rwpx::allow", false, -1, -1 },
	{ "group@:wpx::deny,owner@:rwpx::allow", false, -1, -1 },
	{ "group@:r::allow,everyone@:r::allow", false, -1, 0444 },
	{ "owner@:r::allow,everyone@:rw::deny,group@:r::allow", false, -1, 0400 },
	{ "owner@:rwp::allow,user:5:r::allow", false, -1, -1 },
	{ "flags:a,owner@:rwp::allow", false, -1, -1 },
	{ "everyone@:rA::allow", false, -1, -1 },
	{ "owner@:rwCo::allow", false, -1, -1 },
	{ "owner@:rwpCo::allow", false, -1, 0600 },
	{ "everyone@:rwpxd::allow", true, -1, 0777 },
	{ "everyone@:rwpx::allow", true, -1, -1 },
	{ "everyone@:rwpxdDaARWcCoSeE::allow", true, 0751, 0751 },
	{ "everyone@:rx::allow", true, 0777, 0757 },
	{ "flags:m,owner:rwp::mask,group:r::mask,other:::mask,everyone@:rwp::allow",
	  false, -1, 0640 },
	{ "flags:mw,owner:rwpx::mask,group:r::mask,other:r::mask,owner@:r::allow",
	  false, -1, 0704 },
	{ "", false, -1, 0000 },
	/* 1.3 "write_through without masked is accepted and ignored" */
	{ "flags:w,owner:::mask,everyone@:rwp::allow", false, -1, 0666 },
	/* 7.4 (plain filesystem fallback), all on files mode 0644 unless said */
	{ "owner@:rw::allow", false, -1, -1 },
	{ "owner@:rwp::allow group@:r::allow", false, -1, 0640 },
	{ "owner@:rwpx::allow group@:r::allow everyone@:r::allow", false, -1, 0744 },
	/* 7.4: "chmod 640 d; --modify owner@:rwp::allow d": w,p without d */
	{ "owner@:rwp::allow group@:r::allow", true, -1, -1 },
	/* 7.4: "chmod 4755 z; --modify group@:r::deny z": deny goes first */
	{ "group@:r::deny owner@:rwpx::allow everyone@:rx::allow", false, -1, -1 },
};

static void test_1_3_equiv_mode(void **state)
{
	const struct equiv_case *c = *state;
	struct richacl *acl = algo_acl(c->acl);
	mode_t type = c->isdir ? S_IFDIR : S_IFREG;
	mode_t mode = type;

	if (c->chmod >= 0)
		richacl_chmod(acl, type | (mode_t)c->chmod);
	if (c->expected < 0) {
		mode = type | 0123;
		assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
		assert_int_equal(mode, type | 0123);	/* untouched */
	} else {
		assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
		assert_int_equal(mode, type | (mode_t)c->expected);
	}
	richacl_free(acl);
}

/* 7.4: the non-permission bits of the mode are kept (suid stays) */
static void test_1_3_equiv_keeps_type_and_suid(void **state)
{
	struct richacl *acl = algo_acl("owner@:rwpx::allow,everyone@:rx::allow");
	mode_t mode = S_IFREG | S_ISUID | S_ISGID | S_ISVTX | 0000;

	assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
	assert_int_equal(mode, S_IFREG | S_ISUID | S_ISGID | S_ISVTX | 0755);
	richacl_free(acl);
}

/* M9: an unmapped identifier is never mode-equivalent (it would be lost) */
static void test_M9_unmapped_never_equivalent(void **state)
{
	static const char *const acls[] = {
		"owner@:rwp::allow user:S-1-5-21-1-2-3-1001:r:u:allow",
		"group:S-1-5-21-1-2-3-513::u:allow everyone@:r::allow",
		"owner@:rwp::allow group:S-1-5-21-1-2-3-513:rwp:u:deny everyone@:rwp::allow",
	};
	size_t i;

	for (i = 0; i < sizeof(acls) / sizeof(acls[0]); i++) {
		struct richacl *acl = algo_acl(acls[i]);
		mode_t mode = S_IFREG | 0644;

		assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
		assert_int_equal(mode, S_IFREG | 0644);
		richacl_free(acl);
	}
}

/* M9 property: adding an unmapped entry anywhere makes any acl non-equivalent */
static void test_M9_unmapped_never_equivalent_random(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 5, .specials_only = true, .no_entry_flags = true,
		.acl_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH,
	};
	unsigned int i, n = algo_iterations(5000), were_equivalent = 0;
	struct algo_rng rng;

	algo_rng_init(&rng, "unmapped never equivalent");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape);
		mode_t mode = algo_below(&rng, 2) ? S_IFDIR : S_IFREG;
		mode_t before = mode;
		struct richace ace;

		if (richacl_equiv_mode(acl, &mode) == 0)
			were_equivalent++;
		mode = before;
		algo_random_unmapped(&rng, &ace);
		ace.e_flags &= ~RICHACE_INHERITANCE_FLAGS;
		assert_int_equal(richacl_insert_entry(acl, algo_below(&rng, acl->a_count + 1),
						      &ace), 0);
		free(ace.e_who);
		assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
		assert_int_equal(mode, before);
		richacl_free(acl);
	}
	printf("unmapped never equivalent: %u acls (%u equivalent before)\n", n,
	       were_equivalent);
}

/*
 * 1.3 property: if equiv_mode(acl) gives mode, every process gets from acl
 * exactly what it gets from from_mode(mode), for the bits a mode can carry
 * (r w p x, and d on directories).
 */
static void test_1_3_equivalent_acls_grant_the_mode(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 5, .specials_only = true, .no_entry_flags = true,
		.acl_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH,
	};
	unsigned int i, n = algo_iterations(40000), equivalent = 0;
	unsigned long checks = 0;
	struct algo_rng rng;

	algo_rng_init(&rng, "equivalent acls grant the mode");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape), *plain;
		bool isdir = algo_below(&rng, 2);
		mode_t mode = isdir ? S_IFDIR : S_IFREG;
		uint32_t bits = algo_perms("rwpx") | (isdir ? algo_perms("d") : 0);

		if (richacl_equiv_mode(acl, &mode) == 0) {
			equivalent++;
			plain = richacl_from_mode(mode);
			assert_non_null(plain);
			compare_permissions(acl, plain, isdir, bits, &checks);
			richacl_free(plain);
		}
		richacl_free(acl);
	}
	printf("equivalent acls grant the mode: %u acls, %u equivalent, %lu checks\n",
	       n, equivalent, checks);
	assert_true(equivalent > n / 100);
}

/*
 * Deviation from v28 (documented in mode.c): a masked group@ allow only
 * counts up to the group mask.  The owner in the owning group is refused w
 * here, so the acl is not equivalent to 0750 (v28 said it was).
 */
static void test_1_3_equiv_masked_group_allow(void **state)
{
	struct richacl *acl = algo_acl("flags:m owner:rwpx::mask group:rx::mask "
				       "other:::mask group@:rwpx::allow "
				       "group@:wp::deny owner@:rwpx::allow");
	const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, false };
	const struct richacl_cred owner_in_group = { ALGO_OWNER, ALGO_GROUP, 0, NULL };
	const struct richacl_cred owner_outside = { ALGO_OWNER, 300, 0, NULL };
	mode_t mode = S_IFREG;

	assert_int_equal(richacl_permission(acl, &file, &owner_in_group,
					    RICHACE_WRITE_DATA), -EACCES);
	assert_int_equal(richacl_permission(acl, &file, &owner_outside,
					    RICHACE_WRITE_DATA), 0);
	assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
	assert_int_equal(mode, S_IFREG);
	/* unmasked, the owner gets w either way: equivalent to 0770 */
	acl->a_flags = 0;
	assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
	assert_int_equal(mode, S_IFREG | 0770);
	richacl_free(acl);
}

static void test_from_mode_and_equiv_bad_input(void **state)
{
	/* an entry with an unknown special id is not equivalent either */
	struct richacl *acl = algo_acl("everyone@:rwp::allow");
	mode_t mode = S_IFREG;

	acl->a_entries[0].e_id = 3;
	assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
	assert_int_equal(mode, S_IFREG);
	richacl_free(acl);
}

/* every allocation failure: NULL, nothing leaked */
static void test_1_2_from_mode_enomem(void **state)
{
	unsigned int failures = 0;
	long nth;

	if (!alloc_fail_available()) {
		print_message("allocation failure injection unavailable (valgrind needs "
			      "--soname-synonyms=somalloc=nouserintercepts)\n");
		skip();
	}
	for (nth = 0;; nth++) {
		struct richacl *acl;

		alloc_fail_arm(nth);
		acl = richacl_from_mode(S_IFREG | 0461);	/* five entries */
		if (!alloc_fail_disarm()) {
			assert_non_null(acl);
			assert_int_equal(acl->a_count, 5);
			richacl_free(acl);
			break;
		}
		assert_null(acl);
		failures++;
	}
	assert_true(failures >= 2);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_1_1_mode_to_mask),
		cmocka_unit_test(test_1_1_mask_to_mode),
		cmocka_unit_test(test_1_1_masks_to_mode),
		cmocka_unit_test(test_1_1_store_rule),
		cmocka_unit_test(test_1_2_from_mode_type_bits),
		cmocka_unit_test(test_1_2_masked_route_0461),
		cmocka_unit_test(test_1_2_from_mode_matches_masked_route),
		cmocka_unit_test(test_1_2_from_mode_is_equivalent),
		cmocka_unit_test(test_1_3_equiv_keeps_type_and_suid),
		cmocka_unit_test(test_M9_unmapped_never_equivalent),
		cmocka_unit_test(test_M9_unmapped_never_equivalent_random),
		cmocka_unit_test(test_1_3_equivalent_acls_grant_the_mode),
		cmocka_unit_test(test_1_3_equiv_masked_group_allow),
		cmocka_unit_test(test_from_mode_and_equiv_bad_input),
		cmocka_unit_test(test_1_2_from_mode_enomem),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	const size_t nfrom = sizeof(from_mode_cases) / sizeof(from_mode_cases[0]);
	const size_t nequiv = sizeof(equiv_cases) / sizeof(equiv_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + nfrom + nequiv, sizeof(*tests));
	char (*names)[160] = calloc(nfrom + nequiv, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < nfixed; i++)
		tests[n++] = fixed[i];
	for (i = 0; i < nfrom; i++) {
		snprintf(names[i], sizeof(names[i]), "M1 1.2 from_mode %s %04o",
			 S_ISDIR(from_mode_cases[i].mode) ? "dir" : "file",
			 (unsigned int)(from_mode_cases[i].mode & 07777));
		tests[n++] = (struct CMUnitTest){
			.name = names[i], .test_func = test_1_2_from_mode,
			.initial_state = (void *)&from_mode_cases[i],
		};
	}
	for (i = 0; i < nequiv; i++) {
		char *name = names[nfrom + i];

		snprintf(name, sizeof(names[0]), "M12 1.3 equiv_mode %s%s '%s'",
			 equiv_cases[i].isdir ? "-d " : "",
			 equiv_cases[i].chmod >= 0 ? "-m" : "", equiv_cases[i].acl);
		tests[n++] = (struct CMUnitTest){
			.name = name, .test_func = test_1_3_equiv_mode,
			.initial_state = (void *)&equiv_cases[i],
		};
	}
	ret = _cmocka_run_group_tests("test_mode", tests, n, NULL, NULL);
	free(tests);
	free(names);
	return ret;
}
