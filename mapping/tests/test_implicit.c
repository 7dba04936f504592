/*
 * test_implicit.c - Windows' view of mode-only files and storing
 * descriptors so that they read back exactly (richacl_implicit.h; rules
 * M1, M8, M12, M13).
 *
 * Expected masks come from the definitions: the richacl_from_mode table of
 * algorithms.md 1.2, the equiv_mode algorithm of algorithms.md 1.3, and
 * Windows' file generic rights ([MS-DTYP] 2.4.3: FILE_GENERIC_READ
 * 0x120089, FILE_GENERIC_WRITE 0x120116, FILE_GENERIC_EXECUTE 0x1200a0,
 * FILE_ALL_ACCESS 0x1f01ff), which are what Samba's POSIX mapping shows
 * for r, w and x.  The smbtorture cases are those of smb2.acls.GENERIC and
 * OWNER (source4/torture/smb2/acls.c): the DACL set must read back as set.
 *
 * The test file: owner uid 1001 (S-1-5-21-1-2-3-1001), group gid 2001
 * (S-1-5-21-1-2-3-2001), see helpers_resolver.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "richacl_ntsd.h"
#include "richacl_implicit.h"
#include "helpers_acl.h"
#include "helpers_resolver.h"
#include "alloc_fail.h"

#define OWNER	1001
#define GROUP	2001
#define OWNER_SID	"S-1-5-21-1-2-3-1001"

#define FILE_GENERIC_READ	0x00120089u
#define FILE_GENERIC_WRITE	0x00120116u
#define FILE_GENERIC_EXECUTE	0x001200a0u
#define FILE_ALL_ACCESS		0x001f01ffu
#define NT_DELETE		0x00010000u
#define NT_WRITE_DAC		0x00040000u
#define NT_WRITE_OWNER		0x00080000u
#define READ_EA			0x00000008u
#define WRITE_EA		0x00000010u
#define READ_ATTRIBUTES		0x00000080u
#define WRITE_ATTRIBUTES	0x00000100u
#define DELETE_CHILD		0x00000040u
/* M1: what the kernel lets the owner do whatever the mode (chmod, chgrp, utimes) */
#define OWNER_ALWAYS		(WRITE_ATTRIBUTES | NT_WRITE_DAC | NT_WRITE_OWNER)

static const struct richacl_map_file a_file = { OWNER, GROUP, false };
static const struct richacl_map_file a_dir = { OWNER, GROUP, true };

static struct richacl *mode_acl(mode_t mode)
{
	struct richacl *acl = richacl_from_mode_nt(mode);

	assert_non_null(acl);
	return acl;
}

static void assert_entry(const struct richacl *acl, unsigned int i, uint16_t type,
			 bool special, uint32_t id, uint32_t mask)
{
	const struct richace *ace;

	assert_true(i < acl->a_count);
	ace = &acl->a_entries[i];
	assert_int_equal(ace->e_type, type);
	assert_int_equal(!!(ace->e_flags & RICHACE_SPECIAL_WHO), special);
	assert_int_equal(ace->e_id, id);
	assert_int_equal(ace->e_mask, mask);
}

#define ALLOW RICHACE_ACCESS_ALLOWED_ACE_TYPE
#define DENY RICHACE_ACCESS_DENIED_ACE_TYPE

/* M1: a 0644 file (owner@:rwp everyone@:r): r -> FILE_GENERIC_READ, rw -> READ|WRITE */
static void test_M1_mode_0644_file_shows_generic_rights(void **state)
{
	struct richacl *acl = mode_acl(S_IFREG | 0644);

	assert_int_equal(acl->a_count, 2);
	/*
	 * the owner also gets what the kernel always lets the owner do, and
	 * DELETE_CHILD (meaningless on a file): FILE_ALL_ACCESS but DELETE and
	 * EXECUTE; DELETE is decided by the parent directory
	 */
	assert_entry(acl, 0, ALLOW, true, RICHACE_OWNER_SPECIAL_ID,
		     FILE_GENERIC_READ | FILE_GENERIC_WRITE | OWNER_ALWAYS | DELETE_CHILD);
	assert_int_equal(acl->a_entries[0].e_mask | NT_DELETE | RICHACE_EXECUTE, FILE_ALL_ACCESS);
	assert_entry(acl, 1, ALLOW, true, RICHACE_EVERYONE_SPECIAL_ID, FILE_GENERIC_READ);
	richacl_free(acl);
}

/* M1: a 0755 directory (owner@:rwpxd everyone@:rx) */
static void test_M1_mode_0755_dir(void **state)
{
	struct richacl *acl = mode_acl(S_IFDIR | 0755);

	assert_int_equal(acl->a_count, 2);
	/* everything but DELETE (decided by the parent directory) */
	assert_entry(acl, 0, ALLOW, true, RICHACE_OWNER_SPECIAL_ID,
		     FILE_ALL_ACCESS & ~NT_DELETE);
	/* Windows "Read & execute" */
	assert_entry(acl, 1, ALLOW, true, RICHACE_EVERYONE_SPECIAL_ID,
		     FILE_GENERIC_READ | FILE_GENERIC_EXECUTE);
	richacl_free(acl);
}

/* M1: x alone is FILE_GENERIC_EXECUTE; mode 000 has no entries */
static void test_M1_execute_only_and_mode_000(void **state)
{
	struct richacl *acl = mode_acl(S_IFREG | 0100);

	assert_int_equal(acl->a_count, 1);
	assert_entry(acl, 0, ALLOW, true, RICHACE_OWNER_SPECIAL_ID,
		     FILE_GENERIC_EXECUTE | OWNER_ALWAYS);
	richacl_free(acl);

	acl = mode_acl(S_IFREG | 0000);
	assert_int_equal(acl->a_count, 0);
	richacl_free(acl);
}

/*
 * M1: deny entries (0461: owner@:wpx deny, owner@:r, group@:x deny,
 * group@:rwp, everyone@:x) deny the EAs with the data, and get no
 * always-allowed bits.
 */
static void test_M1_deny_entries(void **state)
{
	struct richacl *acl = mode_acl(S_IFREG | 0461);

	assert_int_equal(acl->a_count, 5);
	assert_entry(acl, 0, DENY, true, RICHACE_OWNER_SPECIAL_ID,
		     RICHACE_WRITE_DATA | RICHACE_APPEND_DATA | RICHACE_EXECUTE | WRITE_EA);
	assert_entry(acl, 1, ALLOW, true, RICHACE_OWNER_SPECIAL_ID,
		     FILE_GENERIC_READ | OWNER_ALWAYS);
	assert_entry(acl, 2, DENY, true, RICHACE_GROUP_SPECIAL_ID, RICHACE_EXECUTE);
	assert_entry(acl, 3, ALLOW, true, RICHACE_GROUP_SPECIAL_ID,
		     FILE_GENERIC_READ | FILE_GENERIC_WRITE);
	assert_entry(acl, 4, ALLOW, true, RICHACE_EVERYONE_SPECIAL_ID, FILE_GENERIC_EXECUTE);
	richacl_free(acl);
}

/*
 * The kernel's storage rule (M12): an acl equivalent to a mode is kept as
 * the mode, which then reads as richacl_from_mode_nt() (M1).  Returns the
 * acl that a read gives after storing acl on a file of type type.
 */
static struct richacl *kernel_store_and_read(const struct richacl *acl, mode_t type)
{
	mode_t m = type;

	if (richacl_equiv_mode(acl, &m) == 0)
		return mode_acl(m);
	return richacl_clone(acl);
}

static struct richacl *to_store(const struct richacl *acl, mode_t type)
{
	struct richacl *out = NULL;

	assert_int_equal(richacl_to_store(acl, type, &out), 0);
	assert_non_null(out);
	return out;
}

/* M12/M13: what M1 shows for a mode, set back, is stored as that mode again */
static void test_M12_mode_shown_is_stored_as_the_mode(void **state)
{
	mode_t m, type;

	for (type = S_IFREG; type; type = type == S_IFREG ? S_IFDIR : 0) {
		for (m = 0; m <= 0777; m++) {
			struct richacl *shown = mode_acl(type | m);
			struct richacl *stored = to_store(shown, type);
			mode_t back = type;

			if (richacl_equiv_mode(stored, &back) != 0)
				fail_msg("mode 0%o: not stored as a mode", (unsigned int)(type | m));
			if ((back & 0777) != m)
				fail_msg("mode 0%o: stored as 0%o", (unsigned int)(type | m),
					 (unsigned int)back);
			richacl_free(stored);
			richacl_free(shown);
		}
	}
}

/*
 * M13 through the whole chain, for the DACLs smb2.acls.GENERIC and OWNER
 * set (one ACE for the owner's SID): descriptor -> richacl (M8: a user
 * entry) -> richacl_to_store -> kernel storage rule -> descriptor gives the
 * same ACE.
 */
static void check_owner_ace_round_trip(uint32_t set_mask, uint32_t want_mask,
				       const struct richacl_map_file *file)
{
	mode_t type = file->isdir ? S_IFDIR : S_IFREG;
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct nt_sd *sd = nt_sd_alloc(), *back = NULL;
	struct richacl *acl = NULL, *stored, *read;
	int ret;

	assert_non_null(sd);
	sd->revision = 1;
	sd->control = NT_SD_DACL_PRESENT;
	sd->dacl = nt_acl_alloc(1);
	assert_non_null(sd->dacl);
	sd->dacl->revision = 2;
	sd->dacl->aces[0].type = NT_ACE_ACCESS_ALLOWED;
	sd->dacl->aces[0].mask = set_mask;
	sd->dacl->aces[0].trustee = test_sid(OWNER_SID);

	test_resolver_init(&tr);
	ret = richacl_from_nt_sd(sd, file, &tr.res, &acl, &err);
	if (ret)
		fail_msg("0x%x: richacl_from_nt_sd: %d %s", set_mask, ret, err.msg);
	stored = to_store(acl, type);
	read = kernel_store_and_read(stored, type);
	ret = richacl_to_nt_sd(read, type | 0, file, NT_SECINFO_DACL, &tr.res, &back, &err);
	if (ret)
		fail_msg("0x%x: richacl_to_nt_sd: %d %s", set_mask, ret, err.msg);
	if (back->dacl->num_aces != 1)
		fail_msg("0x%x: read back %u ACEs", set_mask, back->dacl->num_aces);
	assert_true(nt_sid_equal(&back->dacl->aces[0].trustee, &sd->dacl->aces[0].trustee));
	if (back->dacl->aces[0].mask != want_mask)
		fail_msg("0x%x: read back 0x%x, want 0x%x", set_mask, back->dacl->aces[0].mask,
			 want_mask);
	assert_int_equal(back->dacl->aces[0].type, NT_ACE_ACCESS_ALLOWED);
	assert_int_equal(back->dacl->aces[0].flags, 0);
	nt_sd_free(back);
	richacl_free(read);
	richacl_free(stored);
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_M13_owner_ace_reads_back_as_set(void **state)
{
	static const struct { uint32_t set, want; } files[] = {
		{ 0, 0 },				/* mode 000 */
		{ NT_GENERIC_READ, FILE_GENERIC_READ },
		{ NT_GENERIC_WRITE, FILE_GENERIC_WRITE },
		{ NT_GENERIC_EXECUTE, FILE_GENERIC_EXECUTE },	/* mode 0100 */
		{ NT_GENERIC_ALL, FILE_ALL_ACCESS },
		{ RICHACE_READ_DATA, RICHACE_READ_DATA },	/* mode 0400 */
		{ READ_ATTRIBUTES, READ_ATTRIBUTES },		/* mode 000 */
		{ RICHACE_WRITE_DATA, RICHACE_WRITE_DATA },	/* smb2.acls.OWNER */
		{ FILE_GENERIC_READ | FILE_GENERIC_WRITE, FILE_GENERIC_READ | FILE_GENERIC_WRITE },
	};
	static const struct { uint32_t set, want; } dirs[] = {
		{ 0, 0 },
		{ NT_GENERIC_READ, FILE_GENERIC_READ },
		{ NT_GENERIC_WRITE, FILE_GENERIC_WRITE },
		{ NT_GENERIC_EXECUTE, FILE_GENERIC_EXECUTE },
		{ NT_GENERIC_ALL, FILE_ALL_ACCESS },
	};
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_owner_ace_round_trip(files[i].set, files[i].want, &a_file);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		check_owner_ace_round_trip(dirs[i].set, dirs[i].want, &a_dir);
}

/*
 * M8/M12: a mode-equivalent acl that the mode would not give back (owner@
 * from OWNER RIGHTS, group@ deny) is stored as it is: owner@ is not pinned
 * to user:owner, which would stop following the owner.  The kernel keeps
 * the mode, whose DACL grants the same (documented loss, docs/mapping.md).
 */
static void test_M12_lossy_mode_equivalent_acl_is_not_pinned(void **state)
{
	const uint32_t chowned_owner = 1005;
	struct richacl *acl = richacl_alloc(2), *stored;
	struct richacl_file moved = { chowned_owner, GROUP, false };
	struct richacl_cred old = { OWNER, 9999, 0, NULL }, now = { chowned_owner, 9999, 0, NULL };
	mode_t m = S_IFREG;

	assert_non_null(acl);
	acl->a_entries[0].e_type = ALLOW;
	richace_set_special(&acl->a_entries[0], RICHACE_OWNER_SPECIAL_ID);
	acl->a_entries[0].e_mask = RICHACE_READ_DATA;
	acl->a_entries[1].e_type = DENY;
	richace_set_special(&acl->a_entries[1], RICHACE_GROUP_SPECIAL_ID);
	acl->a_entries[1].e_mask = RICHACE_READ_DATA;
	assert_int_equal(richacl_equiv_mode(acl, &m), 0);	/* the kernel would keep 0400 */

	stored = to_store(acl, S_IFREG);
	assert_int_equal(stored->a_count, 2);
	assert_entry(stored, 0, ALLOW, true, RICHACE_OWNER_SPECIAL_ID, RICHACE_READ_DATA);
	assert_entry(stored, 1, DENY, true, RICHACE_GROUP_SPECIAL_ID, RICHACE_READ_DATA);
	m = S_IFREG;
	assert_int_equal(richacl_equiv_mode(stored, &m), 0);
	assert_int_equal(m & 0777, 0400);
	/* after a chown the new owner reads, the old one does not */
	assert_true(richacl_access(stored, &moved, &now) & RICHACE_READ_DATA);
	assert_false(richacl_access(stored, &moved, &old) & RICHACE_READ_DATA);
	richacl_free(stored);
	richacl_free(acl);
}

/* M13: an acl that is not mode-equivalent is stored unchanged, EA bits included */
static void test_M13_other_acls_stored_unchanged(void **state)
{
	struct richacl *acl = richacl_alloc(2), *stored;

	assert_non_null(acl);
	acl->a_entries[0].e_type = ALLOW;
	richace_set_special(&acl->a_entries[0], RICHACE_OWNER_SPECIAL_ID);
	acl->a_entries[0].e_mask = FILE_GENERIC_READ;
	acl->a_entries[1].e_type = ALLOW;
	richace_set_uid(&acl->a_entries[1], 1002);
	acl->a_entries[1].e_mask = RICHACE_WRITE_DATA | WRITE_EA;
	stored = to_store(acl, S_IFREG);
	assert_int_equal(stored->a_count, 2);
	assert_entry(stored, 0, ALLOW, true, RICHACE_OWNER_SPECIAL_ID, FILE_GENERIC_READ);
	assert_entry(stored, 1, ALLOW, false, 1002, RICHACE_WRITE_DATA | WRITE_EA);
	richacl_free(stored);
	richacl_free(acl);
}

/*
 * M12: an everyone@-only acl that the mode would not give back cannot be
 * pinned (everyone@ has no user or group form): it is stored as it is,
 * and the kernel keeps the mode (documented loss, docs/mapping.md).
 */
static void test_M12_everyone_only_lossy_acl_left_alone(void **state)
{
	struct richacl *acl = richacl_alloc(1), *stored;
	mode_t m = S_IFREG;

	assert_non_null(acl);
	acl->a_entries[0].e_type = ALLOW;
	richace_set_special(&acl->a_entries[0], RICHACE_EVERYONE_SPECIAL_ID);
	acl->a_entries[0].e_mask = READ_ATTRIBUTES;
	stored = to_store(acl, S_IFREG);
	assert_entry(stored, 0, ALLOW, true, RICHACE_EVERYONE_SPECIAL_ID, READ_ATTRIBUTES);
	assert_int_equal(richacl_equiv_mode(stored, &m), 0);
	assert_int_equal(m & 0777, 0);
	richacl_free(stored);
	richacl_free(acl);
}

/*
 * A file system without richacl support keeps only the mode: a descriptor
 * read from a mode-only file, set back, names the owner's and the group's
 * SIDs (M8), and gives exactly the mode it was read from; every mode, file
 * and directory.
 */
static void test_store_as_mode_every_displayed_mode(void **state)
{
	unsigned int dir;
	mode_t mode;

	(void)state;
	for (dir = 0; dir < 2; dir++) {
		const struct richacl_map_file *file = dir ? &a_dir : &a_file;
		mode_t type = dir ? S_IFDIR : S_IFREG;

		for (mode = 0; mode <= 0777; mode++) {
			struct test_resolver tr;
			struct richacl_error err = { 0 };
			struct nt_sd *sd = NULL;
			struct richacl *acl = NULL;
			mode_t m = type | 0777;

			test_resolver_init(&tr);
			if (richacl_to_nt_sd(NULL, type | mode, file, NT_SECINFO_DACL, &tr.res,
					     &sd, &err) ||
			    richacl_from_nt_sd(sd, file, &tr.res, &acl, &err))
				fail_msg("mode 0%o: %s", (unsigned int)mode, err.msg);
			if (richacl_store_as_mode(acl, OWNER, GROUP, &m) != 0 || m != (type | mode))
				fail_msg("mode 0%o (%s): stored as 0%o", (unsigned int)mode,
					 dir ? "dir" : "file", (unsigned int)(m & 07777));
			richacl_free(acl);
			nt_sd_free(sd);
		}
	}
}

/* entries for anybody but the current owner and group are no mode */
static void test_store_as_mode_refuses_other_entries(void **state)
{
	static const char *const not_modes[] = {
		"user:1005:rw::allow everyone@:r::allow",	/* a named user */
		"user:1001:rw::allow everyone@:r::allow",	/* the owner of before */
		"group:2005:r::allow everyone@:r::allow",	/* another group */
		"user:S-1-5-21-9-9-9-77:r:u:allow",		/* unmapped */
		/* OWNER RIGHTS: the mode of these entries, but no mode says
		 * that the owner may not chmod */
		"flags:o user:1002:rwp::allow everyone@:r::allow",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(not_modes) / sizeof(not_modes[0]); i++) {
		struct richacl *acl = helper_acl(not_modes[i]);
		mode_t m = S_IFREG | 0640;

		/* the file belongs to 1002:2001 now */
		assert_int_equal(richacl_store_as_mode(acl, 1002, GROUP, &m), -1);
		assert_int_equal(m, S_IFREG | 0640);
		richacl_free(acl);
	}
}

/* the set-id and sticky bits and the file type stay as they were */
static void test_store_as_mode_keeps_special_bits(void **state)
{
	struct richacl *acl = helper_acl("user:1002:rwpdx::allow group:2001:rx::allow");
	mode_t m = S_IFDIR | S_ISGID | S_ISVTX | 0777;

	(void)state;
	assert_int_equal(richacl_store_as_mode(acl, 1002, GROUP, &m), 0);
	assert_int_equal(m, S_IFDIR | S_ISGID | S_ISVTX | 0750);
	richacl_free(acl);
}

/* out of memory: -ENOMEM, *mode unchanged, nothing leaked (ASan) */
static void test_store_as_mode_out_of_memory(void **state)
{
	struct richacl *acl = helper_acl("user:1002:rwp::allow group:2001:r::allow");
	unsigned int failures = 0;
	long nth;

	(void)state;
	if (!alloc_fail_available()) {
		richacl_free(acl);
		print_message("allocation failure injection unavailable\n");
		skip();
	}
	for (nth = 0;; nth++) {
		mode_t m = S_IFREG | 0777;
		int ret;

		alloc_fail_arm(nth);
		ret = richacl_store_as_mode(acl, 1002, GROUP, &m);
		if (!alloc_fail_disarm()) {
			assert_int_equal(ret, 0);
			assert_int_equal(m, S_IFREG | 0640);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(m, S_IFREG | 0777);
		failures++;
	}
	assert_true(failures >= 2);
	richacl_free(acl);
}

/* the current owner's and group's entries are the mode's classes */
static void test_store_as_mode_owner_and_group_entries(void **state)
{
	struct richacl *acl = helper_acl("user:1002:rwp::allow group:2001:r::allow");
	mode_t m = S_IFREG | 0777;

	(void)state;
	assert_int_equal(richacl_store_as_mode(acl, 1002, GROUP, &m), 0);
	assert_int_equal(m, S_IFREG | 0640);
	richacl_free(acl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_M1_mode_0644_file_shows_generic_rights),
		cmocka_unit_test(test_M1_mode_0755_dir),
		cmocka_unit_test(test_M1_execute_only_and_mode_000),
		cmocka_unit_test(test_M1_deny_entries),
		cmocka_unit_test(test_M12_mode_shown_is_stored_as_the_mode),
		cmocka_unit_test(test_M13_owner_ace_reads_back_as_set),
		cmocka_unit_test(test_M12_lossy_mode_equivalent_acl_is_not_pinned),
		cmocka_unit_test(test_M13_other_acls_stored_unchanged),
		cmocka_unit_test(test_M12_everyone_only_lossy_acl_left_alone),
		cmocka_unit_test(test_store_as_mode_every_displayed_mode),
		cmocka_unit_test(test_store_as_mode_refuses_other_entries),
		cmocka_unit_test(test_store_as_mode_owner_and_group_entries),
		cmocka_unit_test(test_store_as_mode_keeps_special_bits),
		cmocka_unit_test(test_store_as_mode_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
