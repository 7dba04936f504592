/*
 * test_implicit.c - the rights a richacl kernel grants outside the acl
 * entries, shown in a Windows DACL (richacl_implicit.h; rules M1, M2, M12,
 * M13).
 *
 * Expected masks come from the definitions: RICHACE_POSIX_ALWAYS_ALLOWED
 * and RICHACE_POSIX_OWNER_ALLOWED (kernel-port.md), the richacl_from_mode
 * table of algorithms.md 1.2, and Windows' file generic rights
 * ([MS-DTYP] 2.4.3: FILE_GENERIC_READ 0x120089, FILE_GENERIC_EXECUTE
 * 0x1200a0; FILE_ALL_ACCESS 0x1f01ff).
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
#include "helpers_resolver.h"

#define OWNER	1001
#define GROUP	2001

#define FILE_GENERIC_READ	0x00120089u
#define FILE_GENERIC_EXECUTE	0x001200a0u
#define FILE_ALL_ACCESS		0x001f01ffu
#define NT_DELETE		0x00010000u
#define READ_EA			0x00000008u
#define WRITE_EA		0x00000010u
#define WRITE_ATTRIBUTES	0x00000100u

static const struct richacl_map_file a_file = { OWNER, GROUP, false };
static const struct richacl_map_file a_dir = { OWNER, GROUP, true };

static struct nt_acl *acl_with(unsigned int n)
{
	struct nt_acl *dacl = nt_acl_alloc(n);

	assert_non_null(dacl);
	return dacl;
}

static void set_ace(struct nt_ace *ace, uint8_t type, uint8_t flags, uint32_t mask,
		    const char *sid)
{
	ace->type = type;
	ace->flags = flags;
	ace->mask = mask;
	ace->trustee = test_sid(sid);
}

/* the mask of the (single) ACE for sid, or ~0 if there is none */
static uint32_t mask_of(const struct nt_acl *dacl, const char *sid)
{
	struct nt_sid want = test_sid(sid);
	unsigned int i;

	for (i = 0; i < dacl->num_aces; i++)
		if (nt_sid_equal(&dacl->aces[i].trustee, &want))
			return dacl->aces[i].mask;
	return ~0u;
}

static struct nt_sd *mode_sd(mode_t mode, const struct richacl_map_file *file)
{
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct nt_sd *sd = NULL;
	int ret;

	test_resolver_init(&tr);
	ret = richacl_to_nt_sd(NULL, mode, file, NT_SECINFO_OWNER | NT_SECINFO_GROUP |
			       NT_SECINFO_DACL, &tr.res, &sd, &err);
	if (ret)
		fail_msg("richacl_to_nt_sd: %d %s", ret, err.msg);
	return sd;
}

/*
 * M1 + implicit rights: a 0644 file (owner@:rwp everyone@:r, algorithms.md
 * 1.2).  Everyone's "r" becomes exactly FILE_GENERIC_READ, so a Windows
 * GENERIC_READ open passes smbd's check as it passes the kernel's.
 */
static void test_mode_0644_file_reads_as_generic_read(void **state)
{
	struct nt_sd *sd = mode_sd(S_IFREG | 0644, &a_file);

	assert_non_null(sd->dacl);
	assert_true(sd->has_owner);
	nt_acl_show_implicit_rights(sd->dacl, &sd->owner);

	assert_int_equal(sd->dacl->num_aces, 2);
	assert_int_equal(mask_of(sd->dacl, "S-1-1-0"), FILE_GENERIC_READ);
	/* rwp + READ_EA + WRITE_EA + always allowed + owner allowed */
	assert_int_equal(mask_of(sd->dacl, "S-1-5-21-1-2-3-1001"),
			 RICHACE_READ_DATA | RICHACE_WRITE_DATA | RICHACE_APPEND_DATA |
			 READ_EA | WRITE_EA | RICHACE_POSIX_ALWAYS_ALLOWED |
			 RICHACE_POSIX_OWNER_ALLOWED);
	assert_int_equal(mask_of(sd->dacl, "S-1-5-21-1-2-3-1001"), 0x001e019fu);
	nt_sd_free(sd);
}

/* M1 + implicit rights: a 0755 directory (owner@:rwpxd everyone@:rx) */
static void test_mode_0755_dir(void **state)
{
	struct nt_sd *sd = mode_sd(S_IFDIR | 0755, &a_dir);

	nt_acl_show_implicit_rights(sd->dacl, &sd->owner);
	assert_int_equal(sd->dacl->num_aces, 2);
	/* Windows "Read & execute" */
	assert_int_equal(mask_of(sd->dacl, "S-1-1-0"), FILE_GENERIC_READ | FILE_GENERIC_EXECUTE);
	/* everything but DELETE: deleting the directory itself is decided by its parent */
	assert_int_equal(mask_of(sd->dacl, "S-1-5-21-1-2-3-1001"), FILE_ALL_ACCESS & ~NT_DELETE);
	nt_sd_free(sd);
}

/* x alone is FILE_GENERIC_EXECUTE */
static void test_execute_only(void **state)
{
	struct nt_acl *dacl = acl_with(1);

	set_ace(&dacl->aces[0], NT_ACE_ACCESS_ALLOWED, 0, RICHACE_EXECUTE, "S-1-5-21-1-2-3-1002");
	nt_acl_show_implicit_rights(dacl, NULL);
	assert_int_equal(dacl->aces[0].mask, FILE_GENERIC_EXECUTE);
	nt_acl_free(dacl);
}

/*
 * Only the owner may set times: a non-owner with write gets WRITE_EA but
 * not WRITE_ATTRIBUTES (so not FILE_GENERIC_WRITE), and no WRITE_DAC /
 * WRITE_OWNER.
 */
static void test_non_owner_gets_no_owner_rights(void **state)
{
	struct nt_acl *dacl = acl_with(2);
	struct nt_sid owner = test_sid("S-1-5-21-1-2-3-1001");

	set_ace(&dacl->aces[0], NT_ACE_ACCESS_ALLOWED, 0, RICHACE_WRITE_DATA | RICHACE_APPEND_DATA,
		"S-1-5-21-1-2-3-1002");
	set_ace(&dacl->aces[1], NT_ACE_ACCESS_ALLOWED, 0, RICHACE_WRITE_DATA | RICHACE_APPEND_DATA,
		"S-1-5-21-1-2-3-1001");
	nt_acl_show_implicit_rights(dacl, &owner);
	assert_int_equal(dacl->aces[0].mask, RICHACE_WRITE_DATA | RICHACE_APPEND_DATA | WRITE_EA |
			 RICHACE_POSIX_ALWAYS_ALLOWED);
	assert_int_equal(dacl->aces[0].mask & WRITE_ATTRIBUTES, 0);
	assert_int_equal(dacl->aces[1].mask, RICHACE_WRITE_DATA | RICHACE_APPEND_DATA | WRITE_EA |
			 RICHACE_POSIX_ALWAYS_ALLOWED | RICHACE_POSIX_OWNER_ALLOWED);
	nt_acl_free(dacl);
}

/* Deny ACEs and inherit-only ACEs are left alone; so is everything without an owner SID. */
static void test_deny_and_inherit_only_untouched(void **state)
{
	struct nt_acl *dacl = acl_with(4);
	struct nt_sid owner = test_sid("S-1-5-21-1-2-3-1001");

	set_ace(&dacl->aces[0], NT_ACE_ACCESS_DENIED, 0, RICHACE_READ_DATA, "S-1-5-21-1-2-3-1002");
	set_ace(&dacl->aces[1], NT_ACE_ACCESS_ALLOWED,
		NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT | NT_ACE_INHERIT_ONLY,
		RICHACE_READ_DATA, "S-1-3-0");
	set_ace(&dacl->aces[2], NT_ACE_ACCESS_ALLOWED, NT_ACE_OBJECT_INHERIT | NT_ACE_INHERITED,
		RICHACE_READ_DATA, "S-1-5-21-1-2-3-2001");
	set_ace(&dacl->aces[3], NT_ACE_ACCESS_DENIED, 0, RICHACE_WRITE_DATA,
		"S-1-5-21-1-2-3-1001");
	nt_acl_show_implicit_rights(dacl, &owner);
	assert_int_equal(dacl->aces[0].mask, RICHACE_READ_DATA);
	assert_int_equal(dacl->aces[1].mask, RICHACE_READ_DATA);
	/* inheritable but effective: changed */
	assert_int_equal(dacl->aces[2].mask, FILE_GENERIC_READ);
	assert_int_equal(dacl->aces[3].mask, RICHACE_WRITE_DATA);
	nt_acl_free(dacl);

	dacl = acl_with(1);
	set_ace(&dacl->aces[0], NT_ACE_ACCESS_ALLOWED, 0, RICHACE_READ_DATA, "S-1-5-21-1-2-3-1001");
	nt_acl_show_implicit_rights(dacl, NULL);
	assert_int_equal(dacl->aces[0].mask, FILE_GENERIC_READ);
	nt_acl_free(dacl);

	nt_acl_show_implicit_rights(NULL, &owner);
	nt_acl_drop_implied_rights(NULL);
}

/* drop: READ_EA next to READ_DATA and WRITE_EA next to WRITE_DATA go, nothing else */
static void test_drop_implied(void **state)
{
	struct nt_acl *dacl = acl_with(5);

	set_ace(&dacl->aces[0], NT_ACE_ACCESS_ALLOWED, 0, FILE_GENERIC_READ, "S-1-1-0");
	set_ace(&dacl->aces[1], NT_ACE_ACCESS_ALLOWED, 0, READ_EA | WRITE_EA, "S-1-5-21-1-2-3-1002");
	set_ace(&dacl->aces[2], NT_ACE_ACCESS_DENIED, 0, READ_EA | RICHACE_READ_DATA,
		"S-1-5-21-1-2-3-1003");
	set_ace(&dacl->aces[3], NT_ACE_ACCESS_ALLOWED, NT_ACE_OBJECT_INHERIT | NT_ACE_INHERIT_ONLY,
		FILE_GENERIC_READ, "S-1-3-0");
	set_ace(&dacl->aces[4], NT_ACE_ACCESS_ALLOWED, 0, NT_GENERIC_READ, "S-1-5-21-1-2-3-1004");
	nt_acl_drop_implied_rights(dacl);
	assert_int_equal(dacl->aces[0].mask, FILE_GENERIC_READ & ~READ_EA);
	/* named attributes without data: kept (stored, ignored by the kernel) */
	assert_int_equal(dacl->aces[1].mask, READ_EA | WRITE_EA);
	assert_int_equal(dacl->aces[2].mask, READ_EA | RICHACE_READ_DATA);
	assert_int_equal(dacl->aces[3].mask, FILE_GENERIC_READ);
	/* generic read is FILE_GENERIC_READ (M10) */
	assert_int_equal(dacl->aces[4].mask, FILE_GENERIC_READ & ~READ_EA);

	/* shown again: the same masks as before the drop */
	nt_acl_show_implicit_rights(dacl, NULL);
	assert_int_equal(dacl->aces[0].mask, FILE_GENERIC_READ);
	assert_int_equal(dacl->aces[4].mask, FILE_GENERIC_READ);
	nt_acl_free(dacl);
}

/*
 * M1/M12/M13: the descriptor shown for a mode-only file, set back, is
 * still equivalent to the same mode (so the kernel keeps storing only the
 * mode), for every permission mode of a file and of a directory.
 */
static void check_mode_round_trip(mode_t mode, const struct richacl_map_file *file)
{
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct nt_sd *sd = mode_sd(mode, file);
	struct richacl *acl = NULL;
	mode_t back = mode & S_IFMT;
	int ret;

	nt_acl_show_implicit_rights(sd->dacl, &sd->owner);
	nt_acl_drop_implied_rights(sd->dacl);
	test_resolver_init(&tr);
	ret = richacl_from_nt_sd(sd, file, &tr.res, &acl, &err);
	if (ret)
		fail_msg("mode 0%o: richacl_from_nt_sd: %d %s", (unsigned int)mode, ret, err.msg);
	if (richacl_equiv_mode(acl, &back) != 0)
		fail_msg("mode 0%o: the shown descriptor is no longer mode-equivalent",
			 (unsigned int)mode);
	if ((back & 0777) != (mode & 0777))
		fail_msg("mode 0%o: set back as mode 0%o", (unsigned int)mode,
			 (unsigned int)back);
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_mode_round_trip_all_modes(void **state)
{
	mode_t m;

	for (m = 0; m <= 0777; m++) {
		check_mode_round_trip(S_IFREG | m, &a_file);
		check_mode_round_trip(S_IFDIR | m, &a_dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_0644_file_reads_as_generic_read),
		cmocka_unit_test(test_mode_0755_dir),
		cmocka_unit_test(test_execute_only),
		cmocka_unit_test(test_non_owner_gets_no_owner_rights),
		cmocka_unit_test(test_deny_and_inherit_only_untouched),
		cmocka_unit_test(test_drop_implied),
		cmocka_unit_test(test_mode_round_trip_all_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
