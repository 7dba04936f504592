/*
 * test_masks.c - compute_max_masks and chmod (algorithms.md sections 2 and
 * 3.1; rules M9, M12).  Expected values are the spec's worked examples.
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

/* ---- 2. compute_max_masks (M12) ---- */

struct max_masks_case {
	const char *acl;
	const char *owner, *group, *other;
	uint8_t flags_after;
};

static const struct max_masks_case max_masks_cases[] = {
	/* gmask = r: group@ can never get w */
	{ "group@:w::deny everyone@:rw::allow", "rw", "r", "rw", 0 },
	{ "owner@:rwp::allow user:5:rw::allow everyone@:r::allow", "rwp", "rw", "r", 0 },
	/* the first match for rwp is the everyone@ deny */
	{ "everyone@:rwp::deny owner@:rwp::allow", "", "", "", 0 },
	/* inherit-only entry ignored */
	{ "user:5:rwpx:fdi:allow everyone@:r::allow", "r", "r", "r", 0 },
	{ "owner@:w::deny everyone@:rwp::allow", "rp", "rwp", "rwp", 0 },
	/* gmask = rw from group@'s own entries */
	{ "user:5:w::deny group@:rw::allow everyone@:r::allow", "rw", "rw", "r", 0 },
	{ "group@:rwx::allow user:5:w::deny everyone@:rwx::allow", "rwx", "rwx", "rwx", 0 },
	/* masked and write_through cleared */
	{ "flags:mw owner:::mask everyone@:rC::allow", "rC", "rC", "rC", 0 },
	/* other flags untouched */
	{ "flags:mwapd owner:rwp::mask everyone@:r::allow", "r", "r", "r",
	  RICHACL_AUTO_INHERIT | RICHACL_PROTECTED | RICHACL_DEFAULTED },
	/* no effective entries: all zero; d is not stripped (no file type here) */
	{ "", "", "", "", 0 },
	{ "owner@:rwpxd:fdi:allow", "", "", "", 0 },
	{ "owner@:d::allow everyone@:D::allow", "dD", "D", "D", 0 },
	/* 5.2 example d1/d3: a group-class deny restarts with gmask = 0 */
	{ "owner@:rwpx::allow user:101:rw::deny", "rwpx", "", "", 0 },
	/* 5.4 example c1 */
	{ "flags:a user:9:rx:fda:allow everyone@:r:fia:allow", "rx", "rx", "",
	  RICHACL_AUTO_INHERIT },
};

static void test_2_compute_max_masks(void **state)
{
	const struct max_masks_case *c = *state;
	struct richacl *acl = algo_acl(c->acl);
	struct richacl *before = richacl_clone(acl);

	assert_non_null(before);
	richacl_compute_max_masks(acl);
	assert_masks(acl, c->owner, c->group, c->other);
	assert_int_equal(acl->a_flags, c->flags_after);
	/* entries untouched */
	before->a_flags = acl->a_flags;
	before->a_owner_mask = acl->a_owner_mask;
	before->a_group_mask = acl->a_group_mask;
	before->a_other_mask = acl->a_other_mask;
	assert_true(richacl_equal(acl, before));
	richacl_free(before);
	richacl_free(acl);
}

/*
 * M9: unmapped entries match nobody, so they take no part in the masks:
 * an unmapped allow adds nothing, an unmapped deny does not switch on gmask.
 */
static void test_M9_max_masks_ignore_unmapped(void **state)
{
	struct richacl *acl;

	acl = algo_acl("user:S-1-5-21-1-2-3-1001:rwx:u:allow owner@:r::allow");
	richacl_compute_max_masks(acl);
	assert_masks(acl, "r", "", "");
	assert_int_equal(richacl_masks_to_mode(acl), 0400);
	richacl_free(acl);

	/* compare "group@:w::deny everyone@:rw::allow" above: group r there */
	acl = algo_acl("group:S-1-5-21-1-2-3-513:w:u:deny everyone@:rw::allow");
	richacl_compute_max_masks(acl);
	assert_masks(acl, "rw", "rw", "rw");
	richacl_free(acl);

	/* an unmapped identifier does not widen gmask once it is on */
	acl = algo_acl("group@:w::deny user:S-1-5-21-1-2-3-1001:w:u:allow "
		       "everyone@:rw::allow");
	richacl_compute_max_masks(acl);
	assert_masks(acl, "rw", "r", "rw");
	richacl_free(acl);
}

static void compare_with_masks(const struct richacl *plain, const struct richacl *masked,
			       unsigned long *checks)
{
	struct algo_cred_set set;
	uint32_t bits[32];
	unsigned int c, n, i;
	int isdir;

	algo_all_creds(&set);
	n = algo_mask_bits(RICHACE_VALID_MASK, bits);
	for (isdir = 0; isdir < 2; isdir++) {
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };

		for (c = 0; c < set.count; c++) {
			for (i = 0; i < n; i++) {
				int a = richacl_permission(plain, &file, &set.creds[c], bits[i]);
				int b = richacl_permission(masked, &file, &set.creds[c], bits[i]);

				if (a != b) {
					char *t = algo_text(plain);

					print_error("uid %u gid %u ngroups %u bit 0x%x: "
						    "%d unmasked, %d masked (masks 0x%x 0x%x 0x%x)\n%s",
						    set.creds[c].uid, set.creds[c].gid,
						    set.creds[c].ngroups, bits[i], a, b,
						    masked->a_owner_mask, masked->a_group_mask,
						    masked->a_other_mask, t);
					free(t);
					fail();
				}
				(*checks)++;
			}
		}
	}
}

/*
 * Property (M12): the maximum masks never take anything away.  For random
 * acls, setting masked with the computed masks changes no process's access
 * to any bit.
 */
static void test_2_max_masks_never_reduce(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 8,
		.acl_flags = RICHACL_AUTO_INHERIT | RICHACL_PROTECTED,
	};
	unsigned int i, n = algo_iterations(20000);
	unsigned long checks = 0;
	struct algo_rng rng;

	algo_rng_init(&rng, "max masks never reduce");
	for (i = 0; i < n; i++) {
		struct richacl *plain = algo_random_acl(&rng, &shape), *masked;

		masked = richacl_clone(plain);
		assert_non_null(masked);
		richacl_compute_max_masks(masked);
		assert_int_equal(masked->a_flags, plain->a_flags);
		masked->a_flags |= RICHACL_MASKED;
		compare_with_masks(plain, masked, &checks);
		richacl_free(plain);
		richacl_free(masked);
	}
	printf("max masks never reduce: %u acls, %lu checks\n", n, checks);
}

/*
 * compute_max_masks() finds what the group class can get with a table of
 * identifiers (linear time) and falls back to a direct per-entry scan when
 * the table cannot be allocated.  Both must give exactly the same masks,
 * also for long acls with many repeated identifiers.
 */
static void test_2_max_masks_table_matches_scan(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 48,
		.acl_flags = RICHACL_AUTO_INHERIT,
	};
	unsigned int i, n = algo_iterations(5000), fallbacks = 0;
	struct algo_rng rng;

	if (!alloc_fail_available()) {
		print_message("allocation failure injection unavailable (valgrind needs "
			      "--soname-synonyms=somalloc=nouserintercepts)\n");
		skip();
	}
	algo_rng_init(&rng, "max masks table vs scan");
	for (i = 0; i < n; i++) {
		struct richacl *table = algo_random_acl(&rng, &shape), *scan;

		scan = richacl_clone(table);
		assert_non_null(scan);
		richacl_compute_max_masks(table);
		alloc_fail_arm(0);
		richacl_compute_max_masks(scan);
		if (alloc_fail_disarm())
			fallbacks++;
		assert_int_equal(scan->a_owner_mask, table->a_owner_mask);
		assert_int_equal(scan->a_group_mask, table->a_group_mask);
		assert_int_equal(scan->a_other_mask, table->a_other_mask);
		richacl_free(table);
		richacl_free(scan);
	}
	printf("max masks table vs scan: %u acls, %u took the fallback\n", n, fallbacks);
	assert_true(fallbacks > n / 4);
}

/* M9 property: unmapped entries anywhere never change the computed masks */
static void test_M9_max_masks_unmapped_random(void **state)
{
	const struct algo_acl_shape shape = { .max_entries = 6, .no_unmapped = true };
	unsigned int i, n = algo_iterations(20000);
	struct algo_rng rng;

	algo_rng_init(&rng, "max masks ignore unmapped");
	for (i = 0; i < n; i++) {
		struct richacl *acl = algo_random_acl(&rng, &shape);
		struct richacl *with = richacl_clone(acl);
		unsigned int k, extra = 1 + algo_below(&rng, 3);

		assert_non_null(with);
		for (k = 0; k < extra; k++) {
			struct richace ace;

			algo_random_unmapped(&rng, &ace);
			assert_int_equal(richacl_insert_entry(with,
					algo_below(&rng, with->a_count + 1), &ace), 0);
			free(ace.e_who);
		}
		richacl_compute_max_masks(acl);
		richacl_compute_max_masks(with);
		assert_int_equal(with->a_owner_mask, acl->a_owner_mask);
		assert_int_equal(with->a_group_mask, acl->a_group_mask);
		assert_int_equal(with->a_other_mask, acl->a_other_mask);
		richacl_free(acl);
		richacl_free(with);
	}
	printf("max masks ignore unmapped: %u acls\n", n);
}

/* ---- 3.1 chmod ---- */

struct chmod_case {
	const char *acl;
	mode_t mode;
	bool clear_write_through;
	const char *flags_after;		/* acl text of the flags */
	const char *owner, *group, *other;
};

static const struct chmod_case chmod_cases[] = {
	/* d stripped: not a directory */
	{ "flags:a owner@:rwpxd::allow", S_IFREG | 0755, false, "flags:mwap",
	  "rwpx", "rx", "rx" },
	{ "flags:a owner@:rwpxd::allow", S_IFDIR | 0755, false, "flags:mwap",
	  "rwpxd", "rx", "rx" },
	{ "flags:ap", S_IFREG | 0640, false, "flags:mwap", "rwp", "r", "" },
	/* what richacl-apply-masks -c does to model creation */
	{ "flags:mw owner:rwpx::mask", S_IFREG | 0640, true, "flags:m",
	  "rwp", "r", "" },
	/* without auto_inherit, protected is not set */
	{ "owner@:rwpxd::allow", S_IFDIR | 0751, false, "flags:mw",
	  "rwpxd", "rx", "x" },
	{ "flags:d everyone@:r::allow", S_IFREG | 0, false, "flags:mwd", "", "", "" },
};

static void test_3_1_chmod(void **state)
{
	const struct chmod_case *c = *state;
	struct richacl *acl = algo_acl(c->acl);
	struct richacl *flags = algo_acl(c->flags_after);
	struct richacl *before = richacl_clone(acl);

	assert_non_null(before);
	richacl_chmod(acl, c->mode);
	if (c->clear_write_through)
		acl->a_flags &= ~RICHACL_WRITE_THROUGH;
	assert_int_equal(acl->a_flags, flags->a_flags);
	assert_masks(acl, c->owner, c->group, c->other);
	/* entries are never touched */
	before->a_flags = acl->a_flags;
	before->a_owner_mask = acl->a_owner_mask;
	before->a_group_mask = acl->a_group_mask;
	before->a_other_mask = acl->a_other_mask;
	assert_true(richacl_equal(acl, before));
	richacl_free(before);
	richacl_free(flags);
	richacl_free(acl);
}

/* chmod then masks_to_mode gives back the permission bits, for all modes */
static void test_3_1_chmod_round_trip(void **state)
{
	mode_t perm;
	int t;

	for (t = 0; t < 2; t++) {
		for (perm = 0; perm < 01000; perm++) {
			struct richacl *acl = richacl_alloc(0);

			assert_non_null(acl);
			richacl_chmod(acl, (t ? S_IFDIR : S_IFREG) | perm);
			assert_int_equal(richacl_masks_to_mode(acl), perm);
			assert_int_equal(acl->a_flags, RICHACL_MASKED | RICHACL_WRITE_THROUGH);
			richacl_free(acl);
		}
	}
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_M9_max_masks_ignore_unmapped),
		cmocka_unit_test(test_2_max_masks_never_reduce),
		cmocka_unit_test(test_2_max_masks_table_matches_scan),
		cmocka_unit_test(test_M9_max_masks_unmapped_random),
		cmocka_unit_test(test_3_1_chmod_round_trip),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	const size_t nmax = sizeof(max_masks_cases) / sizeof(max_masks_cases[0]);
	const size_t nchmod = sizeof(chmod_cases) / sizeof(chmod_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + nmax + nchmod, sizeof(*tests));
	char (*names)[160] = calloc(nmax + nchmod, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < nmax; i++) {
		snprintf(names[i], sizeof(names[i]), "M12 2 compute_max_masks '%s'",
			 max_masks_cases[i].acl);
		tests[n++] = (struct CMUnitTest){
			.name = names[i], .test_func = test_2_compute_max_masks,
			.initial_state = (void *)&max_masks_cases[i],
		};
	}
	for (i = 0; i < nchmod; i++) {
		char *name = names[nmax + i];

		snprintf(name, sizeof(names[0]), "3.1 chmod %s %04o%s '%s'",
			 S_ISDIR(chmod_cases[i].mode) ? "dir" : "file",
			 (unsigned int)(chmod_cases[i].mode & 07777),
			 chmod_cases[i].clear_write_through ? " -c" : "",
			 chmod_cases[i].acl);
		tests[n++] = (struct CMUnitTest){
			.name = name, .test_func = test_3_1_chmod,
			.initial_state = (void *)&chmod_cases[i],
		};
	}
	for (i = 0; i < nfixed; i++)
		tests[n++] = fixed[i];
	ret = _cmocka_run_group_tests("test_masks", tests, n, NULL, NULL);
	free(tests);
	free(names);
	return ret;
}
