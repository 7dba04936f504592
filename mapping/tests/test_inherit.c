/*
 * test_inherit.c - create-time and automatic inheritance (algorithms.md
 * sections 5.1-5.4, kernel semantics of 10 item 8; rules M9, M11, M12,
 * S-I1).  Expected values are the spec's worked examples and its table.
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

#define F RICHACE_FILE_INHERIT_ACE
#define D RICHACE_DIRECTORY_INHERIT_ACE
#define N RICHACE_NO_PROPAGATE_INHERIT_ACE
#define I RICHACE_INHERIT_ONLY_ACE
#define A RICHACE_INHERITED_ACE

/* ---- 5.1 the table: all 32 combinations of f d n i a on the parent entry ---- */

enum outcome { NOTHING, CLEARED, FI, DIR_D, FD };

/*
 * The table of 5.1, by the parent's f d n (i and a do not matter): what a
 * new file and a new directory get.
 */
static void table_5_1(uint16_t flags, enum outcome *file, enum outcome *dir)
{
	static const struct {
		uint16_t fdn;
		enum outcome file, dir;
	} rows[] = {
		{ 0,		NOTHING, NOTHING },
		{ F,		CLEARED, FI },
		{ D,		NOTHING, DIR_D },
		{ F | D,	CLEARED, FD },
		{ N,		NOTHING, NOTHING },
		{ F | N,	CLEARED, NOTHING },
		{ D | N,	NOTHING, CLEARED },
		{ F | D | N,	CLEARED, CLEARED },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].fdn == (flags & (F | D | N))) {
			*file = rows[i].file;
			*dir = rows[i].dir;
			return;
		}
	}
	fail();
}

static uint16_t outcome_flags(enum outcome o)
{
	switch (o) {
	case FI:
		return F | I;
	case DIR_D:
		return D;
	case FD:
		return F | D;
	default:
		return 0;
	}
}

static void check_child(const struct richacl *parent, bool isdir, enum outcome o,
			bool auto_inherit)
{
	struct richacl *child;

	errno = 12345;
	child = richacl_inherit(parent, isdir);
	if (o == NOTHING) {
		/* kernel semantics (10 item 8): no acl at all, not an empty one */
		assert_null(child);
		assert_int_equal(errno, 0);
		return;
	}
	assert_non_null(child);
	assert_int_equal(child->a_count, 1);
	assert_int_equal(child->a_flags, auto_inherit ? RICHACL_AUTO_INHERIT : 0);
	assert_int_equal(child->a_owner_mask, 0);
	assert_int_equal(child->a_group_mask, 0);
	assert_int_equal(child->a_other_mask, 0);
	assert_int_equal(child->a_entries[0].e_flags,
			 outcome_flags(o) | (auto_inherit ? A : 0) |
			 RICHACE_IDENTIFIER_GROUP);
	assert_int_equal(child->a_entries[0].e_type, RICHACE_ACCESS_DENIED_ACE_TYPE);
	assert_int_equal(child->a_entries[0].e_id, 7);
	/* delete_child is cleared for files, kept for directories */
	assert_int_equal(child->a_entries[0].e_mask,
			 algo_perms(isdir ? "rwpxdD" : "rwpxD"));
	richacl_free(child);
}

static void test_5_1_table(void **state)
{
	uint16_t flags = (uint16_t)(uintptr_t)*state;
	enum outcome file = NOTHING, dir = NOTHING;
	int auto_inherit;

	table_5_1(flags, &file, &dir);
	for (auto_inherit = 0; auto_inherit < 2; auto_inherit++) {
		struct richacl *parent = algo_acl("group:7:rwpxdD::deny");

		parent->a_entries[0].e_flags |= flags;
		/* the parent's masks and masked flag play no role */
		parent->a_flags = RICHACL_MASKED | RICHACL_WRITE_THROUGH | RICHACL_PROTECTED |
				  (auto_inherit ? RICHACL_AUTO_INHERIT : 0);
		parent->a_owner_mask = parent->a_group_mask = parent->a_other_mask = 0;
		check_child(parent, false, file, auto_inherit);
		check_child(parent, true, dir, auto_inherit);
		richacl_free(parent);
	}
}

/* ---- 5.1 examples ---- */

static void test_5_1_examples(void **state)
{
	struct richacl *parent = algo_acl(
		"owner@:rwpxd:fd:allow, user:5:rwxd:f:allow, user:6:r:d:deny, "
		"user:7:rwx:fdn:allow, user:8:r:fn:allow, user:9:rw:fi:allow, "
		"everyone@:rx::allow");
	struct richacl *child;

	child = richacl_inherit(parent, false);
	assert_non_null(child);
	assert_entries(child, "owner@:rwpx::allow user:5:rwx::allow user:7:rwx::allow "
			      "user:8:r::allow user:9:rw::allow");
	richacl_free(child);

	child = richacl_inherit(parent, true);
	assert_non_null(child);
	assert_entries(child, "owner@:rwpxd:fd:allow user:5:rwxd:fi:allow "
			      "user:6:r:d:deny user:7:rwx::allow user:9:rw:fi:allow");
	richacl_free(child);
	richacl_free(parent);
}

static void test_5_1_examples_auto_inherit(void **state)
{
	struct richacl *parent = algo_acl("flags:ap user:5:r:fa:allow user:6:w:d:deny");
	struct richacl *child;

	child = richacl_inherit(parent, true);
	assert_non_null(child);
	assert_entries(child, "flags:a user:5:r:fia:allow user:6:w:da:deny");
	richacl_free(child);

	child = richacl_inherit(parent, false);
	assert_non_null(child);
	assert_entries(child, "flags:a user:5:r:a:allow");
	richacl_free(child);
	richacl_free(parent);
}

/* nothing inheritable: the kernel returns "no acl" (userspace: empty flags:a) */
static void test_5_1_nothing_inheritable(void **state)
{
	struct richacl *parent = algo_acl("flags:a owner@:rwp::allow");

	errno = 0;
	assert_null(richacl_inherit(parent, false));
	assert_int_equal(errno, 0);
	assert_null(richacl_inherit(parent, true));
	assert_int_equal(errno, 0);
	richacl_free(parent);

	parent = algo_acl("");
	assert_null(richacl_inherit(parent, true));
	assert_int_equal(errno, 0);
	richacl_free(parent);
}

/*
 * M8: which children inherit an OWNER RIGHTS entry (the owner@ entries that
 * apply to a directory with the flag owner_rights), as Windows decides
 * which of them get an effective inherited OWNER RIGHTS ACE.
 */
static void test_M8_inherits_owner_rights(void **state)
{
	static const struct {
		const char *acl;
		bool file, dir;
	} cases[] = {
		{ "flags:o owner@:rwp:fd:allow", true, true },
		/* passed on to files only: inherit-only in a subdirectory */
		{ "flags:o owner@:rwp:f:allow", true, false },
		{ "flags:o owner@:rwp:d:allow", false, true },
		/* not propagated further, but effective in a subdirectory */
		{ "flags:o owner@:rwp:fdn:allow", true, true },
		/* inherit-only: CREATOR OWNER's, not OWNER RIGHTS */
		{ "flags:o owner@:rwp:fdi:allow", false, false },
		/* OWNER RIGHTS that is not inheritable */
		{ "flags:o owner@:rwp::allow everyone@:r:fd:allow", false, false },
		/* no flag: the owner's SID and CREATOR OWNER */
		{ "owner@:rwp:fd:allow", false, false },
		{ "flags:o owner@:w:fd:deny everyone@:r::allow", true, true },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct richacl *parent = algo_acl(cases[i].acl);

		if (richacl_inherits_owner_rights(parent, false) != cases[i].file ||
		    richacl_inherits_owner_rights(parent, true) != cases[i].dir)
			fail_msg("%s: file %d dir %d", cases[i].acl,
				 richacl_inherits_owner_rights(parent, false),
				 richacl_inherits_owner_rights(parent, true));
		richacl_free(parent);
	}
	assert_false(richacl_inherits_owner_rights(NULL, false));
}

/* M9: an unmapped identifier is inherited like any other, string and all */
static void test_M9_inherit_unmapped(void **state)
{
	struct richacl *parent = algo_acl(
		"flags:a group:S-1-5-21-1-2-3-513:rwpxd:fdu:allow "
		"user:S-1-5-21-1-2-3-1001:r:fu:deny");
	struct richacl *child;

	child = richacl_inherit(parent, true);
	assert_non_null(child);
	assert_entries(child, "flags:a group:S-1-5-21-1-2-3-513:rwpxd:fdau:allow "
			      "user:S-1-5-21-1-2-3-1001:r:fiau:deny");
	richacl_free(child);
	child = richacl_inherit(parent, false);
	assert_non_null(child);
	assert_entries(child, "flags:a group:S-1-5-21-1-2-3-513:rwpx:au:allow "
			      "user:S-1-5-21-1-2-3-1001:r:au:deny");
	richacl_free(child);
	richacl_free(parent);
}

/* ---- 5.2 create-time inheritance, kernel semantics ---- */

struct create_case {
	const char *name;
	const char *parent;		/* NULL: the directory has no acl */
	mode_t mode, umask;
	mode_t mode_after;		/* the stored mode */
	const char *acl;		/* NULL: no acl stored */
	const char *owner, *group, *other;
};

static const struct create_case create_cases[] = {
	/* the inherited acl is equivalent to 0666: umask ignored */
	{ "equivalent, umask ignored", "everyone@:rwp:f:allow",
	  S_IFREG | 0666, 022, S_IFREG | 0666, NULL, NULL, NULL, NULL },
	{ "equivalent, create mode 0644", "everyone@:rwp:f:allow",
	  S_IFREG | 0644, 022, S_IFREG | 0644, NULL, NULL, NULL, NULL },
	{ "mkdir 0750", "everyone@:rwpxd:fd:allow",
	  S_IFDIR | 0750, 022, S_IFDIR | 0750, "flags:m everyone@:rwpxd:fd:allow",
	  "rwpxd", "rx", "" },
	{ "auto-inherit file 0666", "flags:a owner@:rwpx:fd:allow user:101:rw:fd:deny",
	  S_IFREG | 0666, 022, S_IFREG | 0600,
	  "flags:map owner@:rwpx:a:allow user:101:rw:a:deny", "rwp", "", "" },
	{ "inherit-only for a directory", "user:5:r:f:allow",
	  S_IFDIR | 0777, 022, S_IFDIR | 0000, "flags:m user:5:r:fi:allow", "", "", "" },
	/* kernel: nothing inherited -> the umask applies (userspace gave 0000) */
	{ "nothing inheritable, umask applies", "owner@:rwpx::allow",
	  S_IFREG | 0666, 022, S_IFREG | 0644, NULL, NULL, NULL, NULL },
	{ "directory without acl", NULL, S_IFDIR | 0777, 027, S_IFDIR | 0750,
	  NULL, NULL, NULL, NULL },
	/* the non-permission bits of the create mode are kept */
	{ "setgid directory", "everyone@:rwpxd:fd:allow",
	  S_IFDIR | S_ISGID | 0750, 022, S_IFDIR | S_ISGID | 0750,
	  "flags:m everyone@:rwpxd:fd:allow", "rwpxd", "rx", "" },
	/* 5.2 auto-inheritance scenario: d1 -> mkdir d1/d2 0777, touch d1/d3 0666 */
	{ "auto-inheritance d1/d2", "flags:a owner:rwpxd::mask group:rx::mask "
	  "other:rx::mask user:101:rw:fd:deny user:102:rw:f:deny user:103:rw:d:deny "
	  "group:101:rw:fdi:deny owner@:rwpxd:fd:allow everyone@:rx::allow",
	  S_IFDIR | 0777, 022, S_IFDIR | 0700,
	  "flags:map user:101:rw:fda:deny user:102:rw:fia:deny user:103:rw:da:deny "
	  "group:101:rw:fda:deny owner@:rwpxd:fda:allow", "rwpxd", "", "" },
	{ "auto-inheritance d1/d3", "flags:a owner:rwpxd::mask group:rx::mask "
	  "other:rx::mask user:101:rw:fd:deny user:102:rw:f:deny user:103:rw:d:deny "
	  "group:101:rw:fdi:deny owner@:rwpxd:fd:allow everyone@:rx::allow",
	  S_IFREG | 0666, 022, S_IFREG | 0600,
	  "flags:map user:101:rw:a:deny user:102:rw:a:deny group:101:rw:a:deny "
	  "owner@:rwpx:a:allow", "rwp", "", "" },
	/*
	 * K-SEC-4 (v28): the create mode limits every class's mask, also in
	 * the rights a mode cannot express.  owner: rwpxDC & rwpd = rwp;
	 * group: rwD & r = r; other: nothing; mode 0640 from the masks.
	 */
	{ "K-SEC-4 the create mode limits every right",
	  "owner@:rwpxDC:fd:allow user:1002:rwD:f:allow",
	  S_IFREG | 0644, 022, S_IFREG | 0640,
	  "flags:m owner@:rwpxDC::allow user:1002:rwD::allow", "rwp", "r", "" },
	/* the same with create mode 0666: still no DELETE or WRITE_ACL */
	{ "K-SEC-4 create mode 0666 grants no DELETE",
	  "owner@:rwpxDC:fd:allow user:1002:rwD:f:allow",
	  S_IFREG | 0666, 022, S_IFREG | 0660,
	  "flags:m owner@:rwpxDC::allow user:1002:rwD::allow", "rwp", "rw", "" },
};

static void test_5_2_inherit_inode(void **state)
{
	const struct create_case *c = *state;
	struct richacl *parent = c->parent ? algo_acl(c->parent) : NULL;
	struct richacl *acl = (struct richacl *)&acl;	/* must be overwritten */
	mode_t mode = c->mode;

	assert_int_equal(richacl_inherit_inode(parent, &mode, c->umask, &acl), 0);
	assert_int_equal(mode, c->mode_after);
	if (!c->acl) {
		assert_null(acl);
	} else {
		assert_non_null(acl);
		assert_entries(acl, c->acl);
		assert_masks(acl, c->owner, c->group, c->other);
		/* the ext4 store rule: the mode comes from the masks */
		assert_int_equal(richacl_masks_to_mode(acl), mode & 0777);
		richacl_free(acl);
	}
	richacl_free(parent);
}

/*
 * K-SEC-4: a file created with mode 0600 under a directory whose inheritable
 * entries grant a group everything is private: the group can neither read
 * it nor take the rights back with a chmod (write_acl) or delete it.  smbd
 * restores the inherited rights in full on its own creates (vfs_richacl,
 * S-I3); the library follows the kernel.
 */
static void test_K_SEC_4_create_mode_0600_is_private(void **state)
{
	struct richacl *parent = algo_acl("owner@:rwpxd:fd:allow "
					  "group:2000:rwpxDCo:fd:allow");
	const uint32_t staff[] = { 2000 };
	const struct richacl_cred bob = { 1002, 1002, 1, staff };
	const struct richacl_cred alice = { 1001, 1001, 0, NULL };
	const struct richacl_file file = { 1001, 1001, false };
	struct richacl *acl = NULL;
	mode_t mode = S_IFREG | 0600;

	(void)state;
	assert_int_equal(richacl_inherit_inode(parent, &mode, 077, &acl), 0);
	assert_non_null(acl);
	assert_int_equal(mode, S_IFREG | 0600);
	assert_masks(acl, "rwp", "", "");
	assert_int_equal(richacl_permission(acl, &file, &bob, RICHACE_READ_DATA), -EACCES);
	assert_int_equal(richacl_permission(acl, &file, &bob, RICHACE_WRITE_ACL), -EACCES);
	assert_int_equal(richacl_permission(acl, &file, &bob, RICHACE_WRITE_OWNER), -EACCES);
	assert_int_equal(richacl_permission(acl, &file, &bob, RICHACE_DELETE), -EACCES);
	/* the owner keeps what the owner class bits stand for */
	assert_int_equal(richacl_permission(acl, &file, &alice, RICHACE_READ_DATA |
					    RICHACE_WRITE_DATA | RICHACE_APPEND_DATA), 0);
	richacl_free(acl);
	richacl_free(parent);
}

/* ---- 5.3 auto_inherit ---- */

static void test_5_3_auto_inherit(void **state)
{
	struct richacl *acl = algo_acl("flags:ap owner:rwp::mask group:r::mask "
				       "user:7:r::allow user:8:w:a:allow "
				       "owner@:rwpxd::allow group@:r:fa:allow");
	struct richacl *inherited = algo_acl("user:9:rx:fd:allow everyone@:r:fi:allow");
	struct richacl *merged;

	merged = richacl_auto_inherit(acl, inherited);
	assert_non_null(merged);
	/* own entries first, in order; flags and masks as they were */
	assert_entries(merged, "flags:ap user:7:r::allow owner@:rwpxd::allow "
			       "user:9:rx:fda:allow everyone@:r:fia:allow");
	assert_masks(merged, "rwp", "r", "");
	richacl_free(merged);

	/* nothing inheritable: the inherited entries just go */
	merged = richacl_auto_inherit(acl, NULL);
	assert_non_null(merged);
	assert_entries(merged, "flags:ap user:7:r::allow owner@:rwpxd::allow");
	richacl_free(merged);

	/* the input acls are not modified */
	assert_entries(acl, "flags:ap user:7:r::allow user:8:w:a:allow "
			    "owner@:rwpxd::allow group@:r:fa:allow");
	assert_entries(inherited, "user:9:rx:fd:allow everyone@:r:fi:allow");
	richacl_free(inherited);
	richacl_free(acl);
}

/* ---- 5.4 the merge setrichacl performs for each child ---- */

static struct richacl *propagate_to(const struct richacl *parent, const char *child,
				    bool isdir)
{
	struct richacl *old = algo_acl(child), *part, *merged;

	if (old->a_flags & RICHACL_DEFAULTED) {
		richacl_free(old);
		old = algo_acl("flags:a");
	}
	part = richacl_inherit(parent, isdir);
	merged = richacl_auto_inherit(old, part);
	assert_non_null(merged);
	richacl_compute_max_masks(merged);
	richacl_free(part);
	richacl_free(old);
	return merged;
}

static void test_5_4_merge(void **state)
{
	struct richacl *parent = algo_acl("flags:a owner@:rwpxd::allow "
					  "user:9:rx:fd:allow everyone@:r:f:allow");
	struct richacl *acl;

	/* defaulted: replaced */
	acl = propagate_to(parent, "flags:ad user:7:r::allow owner@:rwpxd::allow", true);
	assert_entries(acl, "flags:a user:9:rx:fda:allow everyone@:r:fia:allow");
	assert_masks(acl, "rx", "rx", "");
	richacl_free(acl);

	/* old inherited user:8 entry dropped */
	acl = propagate_to(parent, "flags:a user:7:r::allow user:8:w:a:allow "
				   "owner@:rwpxd::allow", true);
	assert_entries(acl, "flags:a user:7:r::allow owner@:rwpxd::allow "
			    "user:9:rx:fda:allow everyone@:r:fia:allow");
	richacl_free(acl);

	acl = propagate_to(parent, "flags:a user:7:r::allow owner@:rwp::allow", false);
	assert_entries(acl, "flags:a user:7:r::allow owner@:rwp::allow "
			    "user:9:rx:a:allow everyone@:r:a:allow");
	richacl_free(acl);
	richacl_free(parent);
}

/* ---- properties ---- */

/* inheritable for a new object? (the table of 5.1, independently) */
static bool has_inheritable(const struct richacl *acl, bool isdir)
{
	const struct richace *ace;

	richacl_for_each_entry(ace, acl) {
		if (isdir ? (ace->e_flags & D) || ((ace->e_flags & F) && !(ace->e_flags & N))
			  : (ace->e_flags & F))
			return true;
	}
	return false;
}

/*
 * Property (5.2): for random parent acls, create modes and umasks:
 * nothing inheritable -> mode & ~umask and no acl; otherwise nobody gets a
 * right beyond what the create mode gives the class (K-SEC-4), nobody gets more
 * than the inherited acl grants, and a stored acl is masked (not
 * write_through) with the mode derived from its masks.
 */
static void test_5_2_inherit_inode_random(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 6, .acl_flags = RICHACL_AUTO_INHERIT | RICHACL_PROTECTED,
	};
	unsigned int i, n = algo_iterations(10000), stored = 0, as_mode = 0, none = 0;
	unsigned long checks = 0;
	struct algo_cred_set set;
	struct algo_rng rng;
	uint32_t bits[32];
	unsigned int nbits = algo_mask_bits(RICHACE_VALID_MASK, bits);

	algo_all_creds(&set);
	algo_rng_init(&rng, "inherit_inode");
	for (i = 0; i < n; i++) {
		struct richacl *parent = algo_random_acl(&rng, &shape);
		bool isdir = algo_below(&rng, 2);
		mode_t create = (isdir ? S_IFDIR : S_IFREG) | algo_below(&rng, 01000);
		mode_t umask = algo_below(&rng, 01000), mode = create;
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };
		struct richacl *acl, *inherited, *effective;
		unsigned int c, b, e;

		/* most entries inheritable */
		for (e = 0; e < parent->a_count; e++) {
			if (algo_below(&rng, 3))
				parent->a_entries[e].e_flags |= algo_below(&rng, 3) + 1;
		}

		assert_int_equal(richacl_inherit_inode(parent, &mode, umask, &acl), 0);
		inherited = richacl_inherit(parent, isdir);
		if (!has_inheritable(parent, isdir)) {
			assert_null(inherited);
			assert_null(acl);
			assert_int_equal(mode, create & ~umask);
			none++;
			goto next;
		}
		assert_non_null(inherited);
		assert_int_equal(mode & ~(mode_t)0777, create & ~(mode_t)0777);
		if (acl) {
			stored++;
			assert_int_equal(acl->a_flags & (RICHACL_MASKED | RICHACL_WRITE_THROUGH),
					 RICHACL_MASKED);
			assert_int_equal(mode & 0777, richacl_masks_to_mode(acl));
			effective = acl;
		} else {
			as_mode++;
			assert_int_equal(mode & ~create & 0777, 0);
			effective = richacl_from_mode(mode);
			assert_non_null(effective);
		}
		for (c = 0; c < set.count; c++) {
			const struct richacl_cred *cred = &set.creds[c];
			uint32_t limit = richacl_mode_to_mask(create >> 6);

			if (cred->uid != ALGO_OWNER)
				limit = richacl_mode_to_mask(create >> 3) |
					richacl_mode_to_mask(create);
			for (b = 0; b < nbits; b++) {
				if (richacl_permission(effective, &file, cred, bits[b]))
					continue;
				checks++;
				assert_int_equal(richacl_permission(inherited, &file, cred,
								    bits[b]), 0);
				/* K-SEC-4: the create mode limits every right */
				assert_true(bits[b] & limit);
			}
		}
		if (effective != acl)
			richacl_free(effective);
next:
		richacl_free(acl);
		richacl_free(inherited);
		richacl_free(parent);
	}
	printf("inherit_inode: %u creates: %u nothing inherited, %u as mode, "
	       "%u with acl; %lu granted bits checked\n", n, none, as_mode, stored, checks);
}

/* ---- error paths ---- */

static void test_inherit_bad_input(void **state)
{
	struct richacl *parent = algo_acl("owner@:rwp:fd:allow");
	struct richacl *acl = parent;
	mode_t mode = S_IFREG | 0644;

	errno = 0;
	assert_null(richacl_inherit(NULL, false));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(richacl_auto_inherit(NULL, parent));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(richacl_inherit_inode(parent, NULL, 022, &acl), -EINVAL);
	assert_ptr_equal(acl, parent);
	assert_int_equal(richacl_inherit_inode(parent, &mode, 022, NULL), -EINVAL);
	assert_int_equal(mode, S_IFREG | 0644);
	richacl_free(parent);
}

/* every allocation failure: an error, outputs untouched, nothing leaked */
static void test_inherit_enomem(void **state)
{
	struct richacl *parent, *old;
	unsigned int failures = 0;
	long nth;

	if (!alloc_fail_available()) {
		print_message("allocation failure injection unavailable (valgrind needs "
			      "--soname-synonyms=somalloc=nouserintercepts)\n");
		skip();
	}
	parent = algo_acl("flags:a user:S-1-5-21-1-2-3-1001:rwx:fdu:allow "
			  "user:5:rw:fd:deny owner@:rwpxd:fd:allow everyone@:r:fd:allow");
	old = algo_acl("flags:a user:7:r::allow user:8:w:a:allow");

	mode_t ref_mode = S_IFREG | 0666;
	struct richacl *ref = NULL;

	assert_int_equal(richacl_inherit_inode(parent, &ref_mode, 022, &ref), 0);
	assert_non_null(ref);
	for (nth = 0;; nth++) {
		struct richacl *acl = (struct richacl *)&acl;
		mode_t mode = S_IFREG | 0666;
		int ret;

		alloc_fail_arm(nth);
		ret = richacl_inherit_inode(parent, &mode, 022, &acl);
		if (!alloc_fail_disarm()) {
			assert_int_equal(ret, 0);
			assert_non_null(acl);
			richacl_free(acl);
			break;
		}
		if (ret == 0) {
			/*
			 * compute_max_masks() falls back to its direct scan
			 * when its identifier table cannot be allocated: the
			 * result must be exactly the same.
			 */
			assert_true(richacl_equal(acl, ref));
			assert_int_equal(mode, ref_mode);
			richacl_free(acl);
			continue;
		}
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(mode, S_IFREG | 0666);
		assert_ptr_equal(acl, (struct richacl *)&acl);
		failures++;
	}
	richacl_free(ref);
	for (nth = 0;; nth++) {
		struct richacl *acl;

		alloc_fail_arm(nth);
		errno = 0;
		acl = richacl_inherit(parent, true);
		if (!alloc_fail_disarm()) {
			assert_non_null(acl);
			richacl_free(acl);
			break;
		}
		assert_null(acl);
		assert_int_equal(errno, ENOMEM);
		failures++;
	}
	for (nth = 0;; nth++) {
		struct richacl *acl;

		alloc_fail_arm(nth);
		acl = richacl_auto_inherit(old, parent);
		if (!alloc_fail_disarm()) {
			assert_non_null(acl);
			richacl_free(acl);
			break;
		}
		assert_null(acl);
		failures++;
	}
	printf("inheritance: %u injected allocation failures\n", failures);
	assert_true(failures >= 6);
	richacl_free(old);
	richacl_free(parent);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_5_1_examples),
		cmocka_unit_test(test_5_1_examples_auto_inherit),
		cmocka_unit_test(test_5_1_nothing_inheritable),
		cmocka_unit_test(test_M8_inherits_owner_rights),
		cmocka_unit_test(test_M9_inherit_unmapped),
		cmocka_unit_test(test_5_3_auto_inherit),
		cmocka_unit_test(test_K_SEC_4_create_mode_0600_is_private),
		cmocka_unit_test(test_5_4_merge),
		cmocka_unit_test(test_5_2_inherit_inode_random),
		cmocka_unit_test(test_inherit_bad_input),
		cmocka_unit_test(test_inherit_enomem),
	};
	static const uint16_t bit_of[5] = { F, D, N, I, A };
	static const char letter_of[5] = { 'f', 'd', 'n', 'i', 'a' };
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	const size_t ncreate = sizeof(create_cases) / sizeof(create_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + 32 + ncreate, sizeof(*tests));
	char (*names)[120] = calloc(32 + ncreate, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < 32; i++) {
		uint16_t flags = 0;
		char letters[6];
		int k, len = 0;

		for (k = 0; k < 5; k++) {
			if (i & (1u << k)) {
				flags |= bit_of[k];
				letters[len++] = letter_of[k];
			}
		}
		letters[len] = '\0';
		snprintf(names[i], sizeof(names[i]),
			 "S-I1 5.1 inherit table, parent entry flags '%s'", letters);
		tests[n++] = (struct CMUnitTest){
			.name = names[i], .test_func = test_5_1_table,
			.initial_state = (void *)(uintptr_t)flags,
		};
	}
	for (i = 0; i < ncreate; i++) {
		snprintf(names[32 + i], sizeof(names[0]), "5.2 inherit_inode: %s",
			 create_cases[i].name);
		tests[n++] = (struct CMUnitTest){
			.name = names[32 + i], .test_func = test_5_2_inherit_inode,
			.initial_state = (void *)&create_cases[i],
		};
	}
	for (i = 0; i < nfixed; i++)
		tests[n++] = fixed[i];
	ret = _cmocka_run_group_tests("test_inherit", tests, n, NULL, NULL);
	free(tests);
	free(names);
	return ret;
}
