/*
 * test_apply_masks.c - apply_masks (algorithms.md sections 0.3, 3.3, 4 and
 * the tool examples of 6.3 and 7.4; rules M2, M9, M12).  Expected values
 * are the spec's worked examples.
 *
 * The stage traces of 4.11 need the individual stages, which are static:
 * this file includes the implementation.  (The static library's
 * apply_masks.o is then not linked in: nothing else needs its one symbol.)
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
#include "../src/apply_masks.c"

/* ---- 4.11 worked examples ---- */

struct apply_case {
	const char *name;
	bool isdir;
	int chmod;		/* -1: no chmod */
	bool clear_write_through;	/* -c: chmod without write_through */
	const char *acl;
	const char *expected;
};

static const struct apply_case apply_cases[] = {
	{ "not masked", false, -1, false, "everyone@:rwpx::allow", "everyone@:rwpx::allow" },
	{ "-m 644", false, 0644, false, "everyone@:rwpx::allow",
	  "owner@:rwp::allow everyone@:r::allow" },
	{ "-d -m 755", true, 0755, false, "everyone@:rwpxd::allow",
	  "owner@:rwpxd::allow everyone@:rx::allow" },
	{ "-m 640", false, 0640, false, "everyone@:rwpx::allow",
	  "owner@:rwp::allow group@:r::allow" },
	{ "-m 644 group deny", false, 0644, false, "group@:wp::deny,everyone@:rwpx::allow",
	  "owner@:rwp::allow group@:wp::deny everyone@:r::allow" },
	{ "-m 640 group deny", false, 0640, false, "group@:wp::deny,everyone@:rwpx::allow",
	  "owner@:rwp::allow group@:wp::deny group@:r::allow" },
	/* uid 0 = owner -> owner mask */
	{ "-m 640 user = owner", false, 0640, false,
	  "owner@:rwp::allow,user:0:rwpx::allow,group@:rwpx::allow",
	  "owner@:rwp::allow user:0:rwp::allow group@:r::allow" },
	{ "-m 600 user = owner", false, 0600, false, "user:0:rwpx::allow",
	  "owner@:rwp::allow user:0:rwp::allow" },
	/* no write-through: no owner@ added */
	{ "-c 600 user = owner", false, 0600, true, "user:0:rwpx::allow",
	  "user:0:rwp::allow" },
	{ "-m 0", false, 0, false, "everyone@:rwpx::allow", "" },
	{ "-m 664 user deny", false, 0664, false, "user:1234:x::deny,everyone@:rwpx::allow",
	  "user:1234:x::deny owner@:rwp::allow group@:rwp::allow "
	  "user:1234:rwp::allow everyone@:r::allow" },
	{ "-d -m 700 inheritable", true, 0700, false, "owner@:rwpxd:fd:allow",
	  "owner@:rwpxd:fd:allow" },
	{ "-m 406", false, 0406, false, "everyone@:rwpx::allow",
	  "owner@:wp::deny owner@:r::allow group@:rwp::deny everyone@:rwp::allow" },
	{ "-c 406", false, 0406, true, "everyone@:rwx::allow",
	  "owner@:w::deny owner@:r::allow group@:rw::deny everyone@:rw::allow" },
	{ "-m 777 group@", false, 0777, false, "group@:r::allow",
	  "owner@:rwpx::allow group@:r::allow group@:wpx::deny everyone@:rwpx::allow" },
	{ "-m 077 group@", false, 0077, false, "group@:r::allow",
	  "owner@:rwpx::deny group@:r::allow group@:wpx::deny everyone@:rwpx::allow" },
	{ "E1", false, 0600, false,
	  "owner@:rwp::allow,group@:r::allow,everyone@:r::allow", "owner@:rwp::allow" },
	{ "E2", false, 0660, false, "everyone@:rwp::allow",
	  "owner@:rwp::allow group@:rwp::allow" },
	{ "E3", false, 0640, false,
	  "user:5:rwp::allow,group:7:rw::allow,everyone@:r::allow",
	  "user:5:r::allow group:7:r::allow owner@:rwp::allow group@:r::allow" },
	/*
	 * Not the spec's output (4.10): user 5, whose entry the group mask
	 * cuts to nothing, stays in the group class and is denied the r
	 * that everyone@ gives the other class (see apply_masks.c).
	 */
	{ "E4", false, 0604, false, "user:5:rw::allow,owner@:rwp::allow",
	  "owner@:rwp::allow group@:r::deny user:5:r::deny everyone@:r::allow" },
	/* write-through widens owner@ */
	{ "E5", false, 0751, false,
	  "owner@:rwx::allow,group:7:rwx::allow,everyone@:rx::allow",
	  "owner@:rwpx::allow group:7:rx::allow group@:rx::allow everyone@:x::allow" },
	{ "E6", false, 0640, true, "user:5:rwp::allow,everyone@:rwp::allow",
	  "user:5:r::allow owner@:rwp::allow group@:r::allow" },
	{ "E7", false, 0666, false, "everyone@:w::deny,everyone@:rwp::allow",
	  "owner@:rwp::allow group@:w::deny everyone@:rwp::allow" },
	{ "E8", false, 0644, false,
	  "user:5:w::deny,group@:rwp::allow,everyone@:r::allow",
	  "owner@:rwp::allow user:5:w::deny group@:r::allow everyone@:r::allow" },
	/* split: inherit-only original + masked effective copy */
	{ "E9", true, 0750, false,
	  "owner@:rwpxd:fd:allow,user:5:rwx:fd:allow,everyone@:rx:fd:allow",
	  "owner@:rwpxd:fd:allow user:5:rwx:fdi:allow user:5:rx::allow "
	  "group@:rx::allow everyone@:rx:fdi:allow" },
	{ "E10", false, -1, false,
	  "flags:m,owner:rwp::mask,group:r::mask,other:::mask,owner@:rwpx::allow,"
	  "user:5:rwpx::allow,everyone@:rx::allow",
	  "owner@:rwp::allow user:5:r::allow group@:r::allow" },
	{ "E11", false, -1, false,
	  "flags:mw,owner:rwp::mask,group:r::mask,other:r::mask,user:5:rwp::allow",
	  "owner@:rwp::allow user:5:r::allow group@:r::deny everyone@:r::allow" },
	/* no write-through: no widening */
	{ "E12", false, -1, false,
	  "flags:m,owner:rwpx::mask,group:rwpx::mask,other:rwpx::mask,owner@:rwp::allow",
	  "owner@:rwp::allow" },
	{ "E13", false, 0070, false, "owner@:rwpx::allow,group@:rwpx::allow",
	  "owner@:rwpx::deny group@:rwpx::allow" },
	/* 4.11 trace examples, end results */
	{ "trace -m 646", false, 0646, false, "user:77:rwp::allow,everyone@:rwp::allow",
	  "user:77:r::allow owner@:rwp::allow group@:wp::deny user:77:wp::deny "
	  "everyone@:rwp::allow" },
	{ "trace -m 640 split", false, 0640, false,
	  "owner@:rw:fd:allow,everyone@:r:fd:allow,group@:x:fd:allow",
	  "owner@:rw:fdi:allow owner@:rwp::allow everyone@:r:fdi:allow "
	  "group@:x:fdi:allow group@:r::allow" },
	{ "trace -m 644 reactivate", false, 0644, false, "everyone@:r:fd:allow",
	  "owner@:rwp::allow everyone@:r:fd:allow" },
	/* 3.3: chmod 640 after setting the acl; flags a kept, p from chmod */
	{ "3.3 file chmod 640", false, 0640, false,
	  "flags:a user:5:rwpx::allow everyone@:r::allow",
	  "flags:ap user:5:r::allow owner@:rwp::allow group@:r::allow" },
	/* 3.3: the group@ deny is right: no entry grants the owning group x */
	{ "3.3 dir chmod 711", true, 0711, false,
	  "user:5:rwpxd:fd:allow owner@:rwpxd::allow",
	  "user:5:rwpxd:fdi:allow user:5:x::allow owner@:rwpxd::allow "
	  "group@:x::deny everyone@:x::allow" },
	/* 6.3: what the kernel grants other-class processes */
	{ "6.3 everyone@ deny under write-through", false, -1, false,
	  "flags:mw owner:::mask group:::mask other:r::mask everyone@:r::deny",
	  "owner@:r::deny group@:r::deny everyone@:r::allow" },
	/* 7.4: getrichacl of a stored masked acl */
	{ "7.4 stored masked acl", false, -1, false,
	  "flags:m owner:rwp::mask group:r::mask other:::mask everyone@:rwp::allow "
	  "user:5:x::allow",
	  "user:5:r::allow owner@:rwp::allow group@:r::allow" },
	/* a lone write_through (no masked) is left completely alone */
	{ "write_through only", false, -1, false,
	  "flags:w owner:::mask everyone@:rwp::allow", "flags:w everyone@:rwp::allow" },
};

static struct richacl *prepare(const struct apply_case *c)
{
	struct richacl *acl = algo_acl(c->acl);

	if (c->chmod >= 0) {
		richacl_chmod(acl, (c->isdir ? S_IFDIR : S_IFREG) | (mode_t)c->chmod);
		if (c->clear_write_through)
			acl->a_flags &= ~RICHACL_WRITE_THROUGH;
	}
	return acl;
}

static void test_4_11_apply_masks(void **state)
{
	const struct apply_case *c = *state;
	struct richacl *acl = prepare(c);
	uint32_t owner = acl->a_owner_mask, group = acl->a_group_mask;
	uint32_t other = acl->a_other_mask;

	assert_int_equal(richacl_apply_masks(&acl, 0), 0);	/* owner uid 0 */
	assert_entries(acl, c->expected);
	/* the mask fields are left as they were */
	assert_int_equal(acl->a_owner_mask, owner);
	assert_int_equal(acl->a_group_mask, group);
	assert_int_equal(acl->a_other_mask, other);
	richacl_free(acl);
}

/* ---- 4.11 stage traces ---- */

typedef int (*stage_fn)(struct richacl *acl, uint32_t owner, uint32_t *added,
			const struct identifiers *named);

static int stage1(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return move_everyone_aces_down(acl);
}

static int stage2(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return propagate_everyone(acl, named);
}

static int stage3(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return mask_entries(acl, owner);
}

static int stage4(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return set_other_permissions(acl, added);
}

static int stage5(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return isolate_group_class(acl, *added, named);
}

static int stage6(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return set_owner_permissions(acl);
}

static int stage7(struct richacl *acl, uint32_t owner, uint32_t *added,
		  const struct identifiers *named)
{
	return isolate_owner_class(acl);
}

static const stage_fn stages[7] = { stage1, stage2, stage3, stage4, stage5, stage6, stage7 };

/* run the seven stages, checking the acl after each (flags still mw) */
static void check_trace(const char *acl_text, mode_t mode, const char *const after[7],
			uint32_t expected_added)
{
	struct richacl *acl = algo_acl(acl_text);
	struct identifiers named = { 0 };
	uint32_t added = 0xdeadbeef;
	int i;

	richacl_chmod(acl, mode);
	assert_int_equal(collect_named(acl, 0, &named), 0);
	for (i = 0; i < 7; i++) {
		assert_int_equal(stages[i](acl, 0, &added, &named), 0);
		if (i == 3)
			assert_int_equal(added, expected_added);
		assert_entries(acl, after[i]);
	}
	free_identifiers(&named);
	richacl_free(acl);
}

static void test_4_11_trace_406(void **state)
{
	static const char *const after[7] = {
		"flags:mw everyone@:rwpx::allow",			/* already last */
		"flags:mw owner@:r::allow everyone@:rwpx::allow",	/* owner_allow r */
		"flags:mw owner@:r::allow everyone@:rwp::allow",	/* other mask rwp */
		"flags:mw owner@:r::allow everyone@:rwp::allow",	/* added = 0 */
		"flags:mw owner@:r::allow group@:rwp::deny everyone@:rwp::allow",
		"flags:mw owner@:r::allow group@:rwp::deny everyone@:rwp::allow",
		"flags:mw owner@:wp::deny owner@:r::allow group@:rwp::deny "
		"everyone@:rwp::allow",
	};

	check_trace("everyone@:rwpx::allow", S_IFREG | 0406, after, 0);
}

static void test_4_11_trace_646(void **state)
{
	static const char *const after[7] = {
		"flags:mw user:77:rwp::allow everyone@:rwp::allow",
		"flags:mw user:77:rwp::allow owner@:rwp::allow everyone@:rwp::allow",
		"flags:mw user:77:r::allow owner@:rwp::allow everyone@:rwp::allow",
		"flags:mw user:77:r::allow owner@:rwp::allow everyone@:rwp::allow",
		"flags:mw user:77:r::allow owner@:rwp::allow group@:wp::deny "
		"user:77:wp::deny everyone@:rwp::allow",
		"flags:mw user:77:r::allow owner@:rwp::allow group@:wp::deny "
		"user:77:wp::deny everyone@:rwp::allow",
		"flags:mw user:77:r::allow owner@:rwp::allow group@:wp::deny "
		"user:77:wp::deny everyone@:rwp::allow",
	};

	check_trace("user:77:rwp::allow,everyone@:rwp::allow", S_IFREG | 0646, after, 0);
}

static void test_4_11_trace_640_split(void **state)
{
	static const char *const after[7] = {
		/* everyone@ becomes inherit-only; group@:x split into x:fdi + rx */
		"flags:mw owner@:rw:fd:allow everyone@:r:fdi:allow group@:x:fdi:allow "
		"group@:rx::allow everyone@:r::allow",
		"flags:mw owner@:rw:fd:allow everyone@:r:fdi:allow group@:x:fdi:allow "
		"group@:rx::allow everyone@:r::allow",
		/* group@ & r, everyone@ & other (empty) removed */
		"flags:mw owner@:rw:fd:allow everyone@:r:fdi:allow group@:x:fdi:allow "
		"group@:r::allow",
		"flags:mw owner@:rw:fd:allow everyone@:r:fdi:allow group@:x:fdi:allow "
		"group@:r::allow",
		"flags:mw owner@:rw:fd:allow everyone@:r:fdi:allow group@:x:fdi:allow "
		"group@:r::allow",
		/* owner@:rw:fd must become rwp: split */
		"flags:mw owner@:rw:fdi:allow owner@:rwp::allow everyone@:r:fdi:allow "
		"group@:x:fdi:allow group@:r::allow",
		"flags:mw owner@:rw:fdi:allow owner@:rwp::allow everyone@:r:fdi:allow "
		"group@:x:fdi:allow group@:r::allow",
	};

	check_trace("owner@:rw:fd:allow,everyone@:r:fd:allow,group@:x:fd:allow",
		    S_IFREG | 0640, after, 0);
}

/* 4.11: stage 1 re-activates the inherit-only everyone@ instead of appending */
static void test_4_11_trace_644_reactivate(void **state)
{
	struct richacl *acl = algo_acl("everyone@:r:fd:allow");

	richacl_chmod(acl, S_IFREG | 0644);
	assert_int_equal(move_everyone_aces_down(acl), 0);
	assert_entries(acl, "flags:mw everyone@:r:fd:allow");
	richacl_free(acl);
}

/* 4.3: later entries absorb what earlier everyone@ entries settled */
static void test_4_3_stage1_examples(void **state)
{
	struct richacl *acl = algo_acl("everyone@:rx::allow, group@:w::allow");

	assert_int_equal(move_everyone_aces_down(acl), 0);
	assert_entries(acl, "group@:rwx::allow everyone@:rx::allow");
	richacl_free(acl);

	acl = algo_acl("everyone@:w::deny, everyone@:rx::allow, group@:w::allow");
	assert_int_equal(move_everyone_aces_down(acl), 0);
	assert_entries(acl, "group@:rx::allow everyone@:rx::allow");
	richacl_free(acl);
}

/* ---- 0.3 set_effective_mask ---- */

static void test_0_3_set_effective_mask(void **state)
{
	struct richacl *acl;
	int cursor;

	/* same non-zero mask: clears inherit_only, nothing else */
	acl = algo_acl("owner@:r:fdi:allow everyone@:x::allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, algo_perms("r")), 0);
	assert_int_equal(cursor, 0);
	assert_entries(acl, "owner@:r:fd:allow everyone@:x::allow");
	richacl_free(acl);

	/* inheritable entry: split, the inherit-only copy first; 'inherited' kept */
	acl = algo_acl("user:5:rwx:fdna:allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, algo_perms("rx")), 0);
	assert_int_equal(cursor, 1);
	assert_entries(acl, "user:5:rwx:fdnia:allow user:5:rx:a:allow");
	richacl_free(acl);

	/* non-inheritable entry: mask replaced in place */
	acl = algo_acl("user:5:rwx::deny");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, algo_perms("w")), 0);
	assert_int_equal(cursor, 0);
	assert_entries(acl, "user:5:w::deny");
	richacl_free(acl);

	/* empty mask: inheritable entry becomes inherit-only, mask kept */
	acl = algo_acl("group@:rw:d:allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, 0), 0);
	assert_int_equal(cursor, 0);
	assert_entries(acl, "group@:rw:di:allow");
	richacl_free(acl);

	/* empty mask: non-inheritable entry deleted, cursor on the previous entry */
	acl = algo_acl("owner@:r::allow group@:rw::allow everyone@:r::allow");
	cursor = 1;
	assert_int_equal(set_effective_mask(acl, &cursor, 0), 0);
	assert_int_equal(cursor, 0);
	assert_entries(acl, "owner@:r::allow everyone@:r::allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, 0), 0);
	assert_int_equal(cursor, -1);
	assert_entries(acl, "everyone@:r::allow");
	richacl_free(acl);

	/* asymmetry: only always-allowed bits delete unless identical */
	acl = algo_acl("user:5:rc::allow user:6:c::allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, algo_perms("c")), 0);
	assert_int_equal(cursor, -1);
	assert_entries(acl, "user:6:c::allow");
	cursor = 0;
	assert_int_equal(set_effective_mask(acl, &cursor, algo_perms("c")), 0);
	assert_int_equal(cursor, 0);
	assert_entries(acl, "user:6:c::allow");
	richacl_free(acl);
}

/* ---- M9: unmapped identifiers match nobody ---- */

static void test_M9_apply_masks_unmapped(void **state)
{
	/*
	 * Unmapped users get their allow entries masked (stage 3), but no
	 * deny entry that isolates them from everyone@ (stage 5): it would
	 * deny nobody in the kernel, and a descriptor write refuses it.  The
	 * mapped group@ still gets its deny.
	 */
	struct richacl *acl = algo_acl(
		"user:S-1-5-21-1-2-3-1001:rwp:u:allow user:S-1-5-21-1-2-3-1002:r:u:allow "
		"everyone@:rwp::allow");

	richacl_chmod(acl, S_IFREG | 0646);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl,
		"user:S-1-5-21-1-2-3-1001:r:u:allow user:S-1-5-21-1-2-3-1002:r:u:allow "
		"owner@:rwp::allow group@:wp::deny everyone@:rwp::allow");
	richacl_free(acl);

	/* nor do they get rights propagated from everyone@ (stage 2) */
	acl = algo_acl("user:S-1-5-21-1-2-3-1001:r:u:allow everyone@:rw::allow");
	richacl_chmod(acl, S_IFREG | 0664);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl,
		"user:S-1-5-21-1-2-3-1001:r:u:allow owner@:rwp::allow group@:rw::allow "
		"everyone@:r::allow");
	richacl_free(acl);

	/* an unmapped user never counts as the owner (uid 0 here), a uid does */
	acl = algo_acl("user:0:rwpx:u:allow user:0:rwpx::allow");
	richacl_chmod(acl, S_IFREG | 0640);
	acl->a_flags &= ~RICHACL_WRITE_THROUGH;
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl, "user:0:r:u:allow user:0:rwp::allow");
	richacl_free(acl);
}

/* ---- emulated filesystem: the store rule of 9, chmod of 3.2 ---- */

struct emu_file {
	mode_t mode;
	struct richacl *acl;		/* NULL: mode only */
};

/* kernel set: a mode-equivalent acl is stored as the mode only (M12) */
static void emu_store(struct emu_file *f, struct richacl *acl)
{
	mode_t mode = f->mode;

	richacl_free(f->acl);
	f->acl = NULL;
	if (richacl_equiv_mode(acl, &mode) == 0) {
		f->mode = mode;
		richacl_free(acl);
	} else {
		f->mode = (f->mode & ~(mode_t)0777) | richacl_masks_to_mode(acl);
		f->acl = acl;
	}
}

/* setrichacl --set: compute the masks not given, then store */
static void emu_set(struct emu_file *f, const char *text)
{
	const unsigned int all = RICHACL_TEXT_OWNER_MASK | RICHACL_TEXT_GROUP_MASK |
				 RICHACL_TEXT_OTHER_MASK;
	struct richacl_error err;
	struct richacl *acl;
	unsigned int seen;

	assert_int_equal(richacl_from_text(text, &seen, NULL, &acl, &err), 0);
	if ((seen & all) != all) {
		struct richacl given = *acl;

		richacl_compute_max_masks(acl);
		if (seen & RICHACL_TEXT_FLAGS)
			acl->a_flags = given.a_flags;
		if (seen & RICHACL_TEXT_OWNER_MASK)
			acl->a_owner_mask = given.a_owner_mask;
		if (seen & RICHACL_TEXT_GROUP_MASK)
			acl->a_group_mask = given.a_group_mask;
		if (seen & RICHACL_TEXT_OTHER_MASK)
			acl->a_other_mask = given.a_other_mask;
	}
	emu_store(f, acl);
}

static void emu_chmod(struct emu_file *f, mode_t perm)
{
	f->mode = (f->mode & ~(mode_t)07777) | perm;
	if (f->acl) {
		struct richacl *acl = f->acl;

		f->acl = NULL;
		richacl_chmod(acl, f->mode);
		emu_store(f, acl);
	}
}

/* getrichacl: the stored acl with the masks applied, or from_mode (M1, M2) */
static struct richacl *emu_get(const struct emu_file *f)
{
	struct richacl *acl = f->acl ? richacl_clone(f->acl) : richacl_from_mode(f->mode);

	assert_non_null(acl);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	return acl;
}

static void emu_check(const struct emu_file *f, const char *expected)
{
	struct richacl *acl = emu_get(f);

	assert_entries(acl, expected);
	richacl_free(acl);
}

/* 4.11 end-to-end, the upstream apply-masks test: set, chmod, get */
static void test_4_11_emulated_fs(void **state)
{
	struct emu_file f = { S_IFREG | 0644, NULL };

	emu_set(&f, "everyone@:wp::allow owner@:r::allow group@:r::allow");
	emu_chmod(&f, 0664);
	emu_check(&f, "owner@:rwp::allow group@:rwp::allow everyone@:r::allow");

	emu_set(&f, "u:77:rwp::allow");
	emu_chmod(&f, 0664);
	emu_check(&f, "owner@:rwp::allow user:77:rwp::allow group@:r::deny "
		      "everyone@:r::allow");
	emu_chmod(&f, 0644);
	emu_check(&f, "owner@:rwp::allow user:77:r::allow group@:r::deny "
		      "everyone@:r::allow");
	emu_chmod(&f, 0664);		/* entries were never modified */
	emu_check(&f, "owner@:rwp::allow user:77:rwp::allow group@:r::deny "
		      "everyone@:r::allow");

	emu_set(&f, "u:77:r::allow everyone@:rwp::allow");
	emu_chmod(&f, 0664);
	emu_check(&f, "user:77:rwp::allow owner@:rwp::allow group@:rwp::allow "
		      "everyone@:r::allow");

	emu_set(&f, "everyone@:rwp::allow");
	emu_chmod(&f, 0066);
	emu_check(&f, "owner@:rwp::deny everyone@:rwp::allow");
	emu_chmod(&f, 0006);
	emu_check(&f, "owner@:rwp::deny group@:rwp::deny everyone@:rwp::allow");
	emu_chmod(&f, 0606);
	emu_check(&f, "owner@:rwp::allow group@:rwp::deny everyone@:rwp::allow");

	/* not equivalent (w without p): stored */
	emu_set(&f, "owner@:rwCo::allow");
	assert_non_null(f.acl);
	emu_check(&f, "owner@:rwCo::allow");
	richacl_free(f.acl);
}

/* 7.4 on the emulated richacl filesystem: what is stored, and the mode */
static void test_7_4_emulated_fs(void **state)
{
	struct emu_file f = { S_IFREG | 0644, NULL };

	/* equivalent (masked, owner mask r): mode -r--rw-rw-, nothing stored */
	emu_set(&f, "flags:m owner:r::mask everyone@:rwp::allow");
	assert_null(f.acl);
	assert_int_equal(f.mode, S_IFREG | 0466);

	/* all masks given, no flags: masks inert -> -rw-rw-rw- */
	emu_set(&f, "owner:rwp::mask group:r::mask other:::mask everyone@:rwp::allow");
	assert_null(f.acl);
	assert_int_equal(f.mode, S_IFREG | 0666);

	emu_set(&f, "flags:mw owner:rwp::mask group:r::mask other:::mask "
		    "everyone@:rwp::allow");
	assert_null(f.acl);
	assert_int_equal(f.mode, S_IFREG | 0640);

	emu_set(&f, "flags:m owner:rwp::mask group:r::mask other:::mask "
		    "everyone@:rwp::allow user:5:x::allow");
	assert_non_null(f.acl);
	assert_int_equal(f.mode, S_IFREG | 0640);
	assert_entries(f.acl, "flags:m everyone@:rwp::allow user:5:x::allow");
	assert_masks(f.acl, "rwp", "r", "");
	emu_check(&f, "user:5:r::allow owner@:rwp::allow group@:r::allow");

	/* w alone is kept but inert */
	emu_set(&f, "flags:w everyone@:rwp::allow user:5:x::allow");
	assert_non_null(f.acl);
	assert_int_equal(f.acl->a_flags, RICHACL_WRITE_THROUGH);
	assert_int_equal(f.mode, S_IFREG | 0776);
	richacl_free(f.acl);
}

/* ---- properties ---- */

static bool same_inheritance(const struct richacl *a, const struct richacl *b, bool isdir)
{
	struct richacl *ia = richacl_inherit(a, isdir), *ib = richacl_inherit(b, isdir);
	bool same = (!ia && !ib) || (ia && ib && richacl_equal(ia, ib));

	richacl_free(ia);
	richacl_free(ib);
	return same;
}

/*
 * Property (M2): for random masked acls, every process gets the same
 * permissions (each single bit, apart from the always-allowed a/c/S which
 * apply_masks treats as granted anyway) from the masked acl and from
 * apply_masks' result, including the processes that are in the group class
 * only through named entries that apply_masks removes (the imprecision of
 * 4.10, which apply_masks.c closes).  Also: inheritance is untouched, and
 * only masked/write_through are cleared.
 */
static void test_M2_apply_masks_preserves_access(void **state)
{
	const struct algo_acl_shape shape = {
		.max_entries = 8,
		.acl_flags = RICHACL_WRITE_THROUGH | RICHACL_AUTO_INHERIT | RICHACL_PROTECTED,
	};
	const uint32_t checked = RICHACE_VALID_MASK & ~RICHACE_POSIX_ALWAYS_ALLOWED;
	unsigned int i, n = algo_iterations(20000), nbits, c, b;
	unsigned long checks = 0, always_allowed_differ = 0;
	struct algo_cred_set set;
	struct algo_rng rng;
	uint32_t bits[32];

	algo_all_creds(&set);
	nbits = algo_mask_bits(RICHACE_VALID_MASK, bits);
	algo_rng_init(&rng, "apply_masks preserves access");
	for (i = 0; i < n; i++) {
		struct richacl *masked = algo_random_acl(&rng, &shape), *applied;
		bool isdir = algo_below(&rng, 2);
		const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, isdir };

		masked->a_flags |= RICHACL_MASKED;
		applied = richacl_clone(masked);
		assert_non_null(applied);
		assert_int_equal(richacl_apply_masks(&applied, ALGO_OWNER), 0);
		assert_int_equal(applied->a_flags,
				 masked->a_flags & ~(RICHACL_MASKED | RICHACL_WRITE_THROUGH));
		assert_true(same_inheritance(masked, applied, false));
		assert_true(same_inheritance(masked, applied, true));

		for (c = 0; c < set.count; c++) {
			const struct richacl_cred *cred = &set.creds[c];

			for (b = 0; b < nbits; b++) {
				int before = richacl_permission(masked, &file, cred, bits[b]);
				int after = richacl_permission(applied, &file, cred, bits[b]);

				if (before == after)
					goto next;
				if (!(bits[b] & checked)) {
					always_allowed_differ++;
					goto next;
				}
				{
					char *tm = richacl_to_text(masked, RICHACL_TEXT_NUMERIC_IDS |
								   RICHACL_TEXT_SHOW_MASKS, NULL);
					char *ta = algo_text(applied);

					print_error("uid %u gid %u ngroups %u bit 0x%x %s: "
						    "%d masked, %d applied\n%s->\n%s",
						    cred->uid, cred->gid, cred->ngroups, bits[b],
						    isdir ? "dir" : "file", before, after,
						    tm, ta);
					free(tm);
					free(ta);
					fail();
				}
next:
				checks++;
			}
		}
		richacl_free(masked);
		richacl_free(applied);
	}
	printf("apply_masks preserves access: %u acls, %lu checks; "
	       "always-allowed bits differing (not checked): %lu\n", n, checks,
	       always_allowed_differ);
}

/* entry k of the exhaustive set below (2 x 8 x 3 x 2 = 96 entries) */
static void small_entry(unsigned int k, struct richace *ace)
{
	static const uint32_t masks[] = {
		RICHACE_READ_DATA, RICHACE_WRITE_DATA,
		RICHACE_READ_DATA | RICHACE_WRITE_DATA,
	};

	*ace = (struct richace){
		.e_type = k % 2 ? RICHACE_ACCESS_DENIED_ACE_TYPE : RICHACE_ACCESS_ALLOWED_ACE_TYPE,
		.e_mask = masks[k / 16 % 3],
	};
	switch (k / 2 % 8) {
	case 0: richace_set_special(ace, RICHACE_OWNER_SPECIAL_ID); break;
	case 1: richace_set_special(ace, RICHACE_GROUP_SPECIAL_ID); break;
	case 2: richace_set_special(ace, RICHACE_EVERYONE_SPECIAL_ID); break;
	case 3: richace_set_uid(ace, ALGO_OWNER); break;
	case 4: richace_set_uid(ace, 5); break;
	case 5: richace_set_gid(ace, ALGO_GROUP); break;
	case 6: richace_set_gid(ace, 7); break;
	default: richace_set_gid(ace, 8); break;
	}
	if (k / 48)
		ace->e_flags |= RICHACE_INHERIT_ONLY_ACE | RICHACE_FILE_INHERIT_ACE;
}

/*
 * Every acl of one and two entries over r and w (owner@, group@,
 * everyone@, the owner's uid, another uid, the owning group's gid and two
 * other gids; allow and deny; effective or inherit-only): with every
 * setting of the three masks over r and w and of write_through for one
 * entry, and with eight of them for two.  apply_masks' result must grant
 * every process what the masked acl grants, r and w one at a time.
 */
static void test_M2_apply_masks_every_small_acl(void **state)
{
	const struct richacl_file file = { ALGO_OWNER, ALGO_GROUP, false };
	const uint32_t bits[] = { RICHACE_READ_DATA, RICHACE_WRITE_DATA };
	unsigned long acls = 0, checks = 0;
	struct algo_cred_set set;
	unsigned int a, b, m, c, i;

	algo_all_creds(&set);
	for (a = 0; a < 96; a++) {
		for (b = 0; b <= 96; b++) {	/* b == 96: a alone */
			for (m = 0; m < 128; m += (b < 96 ? 16 : 1)) {
				unsigned int setting = b < 96 ? (m + a + b) % 128 : m;
				struct richacl *masked = richacl_alloc(0), *applied;
				struct richace ace;

				assert_non_null(masked);
				small_entry(a, &ace);
				assert_int_equal(richacl_append_entry(masked, &ace), 0);
				if (b < 96) {
					small_entry(b, &ace);
					assert_int_equal(richacl_append_entry(masked, &ace), 0);
				}
				masked->a_flags = RICHACL_MASKED |
						  (setting & 64 ? RICHACL_WRITE_THROUGH : 0);
				masked->a_owner_mask = ((setting & 1) ? RICHACE_READ_DATA : 0) |
						       ((setting & 2) ? RICHACE_WRITE_DATA : 0);
				masked->a_group_mask = ((setting & 4) ? RICHACE_READ_DATA : 0) |
						       ((setting & 8) ? RICHACE_WRITE_DATA : 0);
				masked->a_other_mask = ((setting & 16) ? RICHACE_READ_DATA : 0) |
						       ((setting & 32) ? RICHACE_WRITE_DATA : 0);
				applied = richacl_clone(masked);
				assert_non_null(applied);
				assert_int_equal(richacl_apply_masks(&applied, ALGO_OWNER), 0);
				for (c = 0; c < set.count; c++) {
					for (i = 0; i < 2; i++) {
						int before = richacl_permission(masked, &file,
										&set.creds[c], bits[i]);
						int after = richacl_permission(applied, &file,
									       &set.creds[c], bits[i]);

						if (before != after) {
							char *tm = richacl_to_text(masked,
								RICHACL_TEXT_NUMERIC_IDS |
								RICHACL_TEXT_SHOW_MASKS, NULL);
							char *ta = algo_text(applied);

							print_error("uid %u gid %u ngroups %u bit 0x%x: "
								    "%d masked, %d applied\n%s->\n%s",
								    set.creds[c].uid, set.creds[c].gid,
								    set.creds[c].ngroups, bits[i],
								    before, after, tm, ta);
							free(tm);
							free(ta);
							fail();
						}
						checks++;
					}
				}
				acls++;
				richacl_free(masked);
				richacl_free(applied);
			}
		}
	}
	printf("apply_masks, every small acl: %lu acls, %lu checks\n", acls, checks);
}

/*
 * E4 through the permission check: the masked acl refuses user 5 read
 * (group class, group mask empty), and so does apply_masks' result, where
 * the spec's algorithm let everyone@ grant it (4.10).
 */
static void test_4_10_E4_stays_in_group_class(void **state)
{
	const struct richacl_file file = { 0, 100, false };
	const struct richacl_cred user5 = { 5, 300, 0, NULL };
	struct richacl *acl = algo_acl("user:5:rw::allow,owner@:rwp::allow");

	richacl_chmod(acl, S_IFREG | 0604);
	assert_int_equal(richacl_permission(acl, &file, &user5, RICHACE_READ_DATA), -EACCES);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_int_equal(richacl_permission(acl, &file, &user5, RICHACE_READ_DATA), -EACCES);
	richacl_free(acl);
}

/*
 * The other way into the imprecision of 4.10: the user:6 deny denies
 * nothing (everyone@ settled w first) but makes uid 6 a group-class
 * process, so the masked acl grants it w (group mask rw).  Stage 1 drops
 * the deny; in the spec's algorithm uid 6 was then "other", and the other
 * mask (r) refused w.  Stage 2 now grants uid 6 what the group class gets.
 */
static void test_4_10_shadowed_deny_stays_in_group_class(void **state)
{
	const struct richacl_file file = { 0, 100, false };
	const struct richacl_cred user6 = { 6, 300, 0, NULL };
	struct richacl *acl = algo_acl("flags:m owner:rwp::mask group:rw::mask "
				       "other:r::mask everyone@:rw::allow user:6:w::deny");

	assert_int_equal(richacl_permission(acl, &file, &user6, RICHACE_WRITE_DATA), 0);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl, "owner@:rw::allow group@:rw::allow user:6:rw::allow "
			    "everyone@:r::allow");
	assert_int_equal(richacl_permission(acl, &file, &user6, RICHACE_WRITE_DATA), 0);
	richacl_free(acl);
}

/*
 * Deviation from 4.4 (see apply_masks.c): the propagation for user:5 splits
 * its earlier inheritable allow, which shifted the index walk of 4.4 past
 * user:6, so user:6 lost the x that everyone@ gives the group class.
 * Walking a snapshot of the identifiers, user:6 gets its own x allow.
 */
static void test_4_4_split_does_not_skip(void **state)
{
	const struct richacl_file file = { 0, 100, false };
	const struct richacl_cred user6 = { 6, 300, 0, NULL };
	struct richacl *acl = algo_acl("flags:m owner:::mask group:x::mask other:::mask "
				       "user:5:r:d:allow user:6:r::deny user:5:w::deny "
				       "everyone@:x::allow");

	assert_int_equal(richacl_permission(acl, &file, &user6, RICHACE_EXECUTE), 0);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	/* the index walk of 4.4 would give the same without user:6:x::allow */
	assert_entries(acl, "owner@:x::deny user:5:r:di:allow user:5:x::allow "
			    "user:6:r::deny user:5:w::deny group@:x::allow user:6:x::allow");
	assert_int_equal(richacl_permission(acl, &file, &user6, RICHACE_EXECUTE), 0);
	richacl_free(acl);
}

/*
 * Deviation from 0.3 (see apply_masks.c): stage 6 hands the owner mask to
 * the first owner@ allow, here an inherit-only one without file/dir-inherit.
 * As specified it would stay inherit-only ("owner@:rwp:i:allow") and the
 * owner would get nothing instead of the owner mask.
 */
static void test_0_3_inherit_only_not_inheritable(void **state)
{
	const struct richacl_file file = { 0, 100, false };
	const struct richacl_cred owner = { 0, 300, 0, NULL };
	struct richacl *acl = algo_acl("flags:mw owner:rwp::mask group:::mask other:::mask "
				       "owner@:r:i:allow");

	assert_int_equal(richacl_permission(acl, &file, &owner, algo_perms("rwp")), 0);
	assert_int_equal(richacl_apply_masks(&acl, 0), 0);
	assert_entries(acl, "owner@:rwp::allow");
	assert_int_equal(richacl_permission(acl, &file, &owner, algo_perms("rwp")), 0);
	richacl_free(acl);
}

/* ---- error paths ---- */

static void test_apply_masks_bad_input(void **state)
{
	struct richacl *acl = NULL;

	assert_int_equal(richacl_apply_masks(NULL, 0), -EINVAL);
	assert_int_equal(richacl_apply_masks(&acl, 0), -EINVAL);
	assert_null(acl);
}

/* every allocation failure leaves *acl exactly as it was, and leaks nothing */
static void test_apply_masks_enomem(void **state)
{
	static const char *const texts[] = {
		"owner@:rw:fd:allow,everyone@:r:fd:allow,group@:x:fd:allow",
		"user:S-1-5-21-1-2-3-1001:rwp:u:allow user:77:rwp::allow "
		"everyone@:rwp::allow",
	};
	unsigned int failures = 0;
	size_t t;

	if (!alloc_fail_available()) {
		print_message("allocation failure injection unavailable (valgrind needs "
			      "--soname-synonyms=somalloc=nouserintercepts)\n");
		skip();
	}

	for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		long nth;

		for (nth = 0;; nth++) {
			struct richacl *acl = algo_acl(texts[t]), *orig, *old;
			bool fired;
			int ret;

			richacl_chmod(acl, S_IFREG | 0646);
			orig = richacl_clone(acl);
			assert_non_null(orig);
			old = acl;
			alloc_fail_arm(nth);
			ret = richacl_apply_masks(&acl, 0);
			fired = alloc_fail_disarm();
			if (!fired) {
				assert_int_equal(ret, 0);
				richacl_free(acl);
				richacl_free(orig);
				break;
			}
			assert_int_equal(ret, -ENOMEM);
			assert_ptr_equal(acl, old);
			assert_true(richacl_equal(acl, orig));
			failures++;
			richacl_free(acl);
			richacl_free(orig);
		}
	}
	printf("apply_masks: %u injected allocation failures\n", failures);
	assert_true(failures >= 4);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_4_11_trace_406),
		cmocka_unit_test(test_4_11_trace_646),
		cmocka_unit_test(test_4_11_trace_640_split),
		cmocka_unit_test(test_4_11_trace_644_reactivate),
		cmocka_unit_test(test_4_3_stage1_examples),
		cmocka_unit_test(test_0_3_set_effective_mask),
		cmocka_unit_test(test_M9_apply_masks_unmapped),
		cmocka_unit_test(test_4_11_emulated_fs),
		cmocka_unit_test(test_7_4_emulated_fs),
		cmocka_unit_test(test_M2_apply_masks_every_small_acl),
		cmocka_unit_test(test_4_10_E4_stays_in_group_class),
		cmocka_unit_test(test_4_10_shadowed_deny_stays_in_group_class),
		cmocka_unit_test(test_4_4_split_does_not_skip),
		cmocka_unit_test(test_0_3_inherit_only_not_inheritable),
		cmocka_unit_test(test_M2_apply_masks_preserves_access),
		cmocka_unit_test(test_apply_masks_bad_input),
		cmocka_unit_test(test_apply_masks_enomem),
	};
	const size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	const size_t ncases = sizeof(apply_cases) / sizeof(apply_cases[0]);
	struct CMUnitTest *tests = calloc(nfixed + ncases, sizeof(*tests));
	char (*names)[200] = calloc(ncases, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ncases; i++) {
		snprintf(names[i], sizeof(names[i]), "M2 4.11 apply_masks %s: '%s'",
			 apply_cases[i].name, apply_cases[i].acl);
		tests[n++] = (struct CMUnitTest){
			.name = names[i], .test_func = test_4_11_apply_masks,
			.initial_state = (void *)&apply_cases[i],
		};
	}
	for (i = 0; i < nfixed; i++)
		tests[n++] = fixed[i];
	ret = _cmocka_run_group_tests("test_apply_masks", tests, n, NULL, NULL);
	free(tests);
	free(names);
	return ret;
}
