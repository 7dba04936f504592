/*
 * test_map.c - the descriptor <-> richacl mapping, rule by rule
 * (SEMANTICS.md M1-M12; the M13 property tests are in test_map_property.c).
 *
 * The test file: owner uid 1001 (S-1-5-21-1-2-3-1001), group gid 2001
 * (S-1-5-21-1-2-3-2001), see helpers_resolver.h.  Expected descriptors
 * and acls come from the rules and from the worked examples of
 * algorithms.md (sections 1.2, 2 and 4.11), not from the code's output.
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
#include <sys/stat.h>

#include "richacl_ntsd.h"
#include "helpers_resolver.h"

#define OWNER	1001
#define GROUP	2001

#define R	RICHACE_READ_DATA
#define W	RICHACE_WRITE_DATA
#define P	RICHACE_APPEND_DATA
#define X	RICHACE_EXECUTE
#define D	RICHACE_DELETE_CHILD

#define OI	NT_ACE_OBJECT_INHERIT
#define CI	NT_ACE_CONTAINER_INHERIT
#define NP	NT_ACE_NO_PROPAGATE_INHERIT
#define IO	NT_ACE_INHERIT_ONLY
#define INH	NT_ACE_INHERITED

#define ALL_SECINFO	(NT_SECINFO_OWNER | NT_SECINFO_GROUP | NT_SECINFO_DACL)

static const struct richacl_map_file a_file = { OWNER, GROUP, false };
static const struct richacl_map_file a_dir = { OWNER, GROUP, true };

/* ---- helpers ---- */

static struct richacl *acl_of(const char *text)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	if (richacl_from_text(text, NULL, NULL, &acl, &err))
		fail_msg("bad acl text \"%s\": %s", text, err.msg);
	return acl;
}

static char *text_of(const struct richacl *acl)
{
	return richacl_to_text(acl, RICHACL_TEXT_NUMERIC_IDS | RICHACL_TEXT_SHOW_MASKS, NULL);
}

/* entries and acl flags equal to those of text (masks not compared) */
static void check_entries(const struct richacl *acl, const char *text, int line)
{
	struct richacl *want = acl_of(text);
	char *a, *b;

	want->a_owner_mask = acl->a_owner_mask;
	want->a_group_mask = acl->a_group_mask;
	want->a_other_mask = acl->a_other_mask;
	if (!richacl_equal(acl, want)) {
		a = text_of(acl);
		b = text_of(want);
		fail_msg("line %d: acl\n%s\nexpected\n%s", line, a, b);
	}
	richacl_free(want);
}
#define assert_entries(acl, text) check_entries((acl), (text), __LINE__)

static struct nt_sid sid_of(const char *s)
{
	return test_sid(s);
}

static const char *dom(uint32_t rid)
{
	static char buf[4][40];
	static unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, 40, "S-1-5-21-1-2-3-%u", rid);
	return p;
}

static void check_ace(const struct nt_acl *dacl, unsigned int i, uint8_t type, uint8_t flags,
		      uint32_t mask, const char *sid, int line)
{
	struct nt_sid want = sid_of(sid);
	char buf[NT_SID_STRING_MAX];
	const struct nt_ace *ace;

	if (i >= dacl->num_aces)
		fail_msg("line %d: ACE %u missing (%u ACEs)", line, i, dacl->num_aces);
	ace = &dacl->aces[i];
	if (ace->type != type || ace->flags != flags || ace->mask != mask ||
	    !nt_sid_equal(&ace->trustee, &want))
		fail_msg("line %d: ACE %u is type %u flags 0x%02x mask 0x%06x %s, expected type %u flags 0x%02x mask 0x%06x %s",
			 line, i, ace->type, ace->flags, ace->mask,
			 nt_sid_to_string(&ace->trustee, buf, sizeof(buf)), type, flags, mask, sid);
}
#define assert_ace(dacl, i, type, flags, mask, sid) \
	check_ace((dacl), (i), (type), (flags), (mask), (sid), __LINE__)
#define ALLOW	NT_ACE_ACCESS_ALLOWED
#define DENY	NT_ACE_ACCESS_DENIED

static struct nt_sd *get_sd(const struct richacl *acl, mode_t mode,
			    const struct richacl_map_file *file, uint32_t secinfo)
{
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct nt_sd *sd = NULL;
	int ret;

	test_resolver_init(&tr);
	ret = richacl_to_nt_sd(acl, mode, file, secinfo, &tr.res, &sd, &err);
	if (ret)
		fail_msg("richacl_to_nt_sd: %d %s", ret, err.msg);
	assert_non_null(sd);
	return sd;
}

static struct nt_sd *get_sd_text(const char *text, const struct richacl_map_file *file)
{
	struct richacl *acl = acl_of(text);
	struct nt_sd *sd = get_sd(acl, 0, file, ALL_SECINFO);

	richacl_free(acl);
	return sd;
}

/* a descriptor with a DACL of n ACEs, to be filled in */
static struct nt_sd *new_sd(unsigned int n)
{
	struct nt_sd *sd = nt_sd_alloc();

	assert_non_null(sd);
	sd->control |= NT_SD_DACL_PRESENT;
	sd->dacl = nt_acl_alloc(n);
	assert_non_null(sd->dacl);
	return sd;
}

static void set_ace(struct nt_sd *sd, unsigned int i, uint8_t type, uint8_t flags,
		    uint32_t mask, const char *sid)
{
	sd->dacl->aces[i] = (struct nt_ace){ type, flags, mask, sid_of(sid) };
}

static struct richacl *set_sd(const struct nt_sd *sd, const struct richacl_map_file *file)
{
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;
	int ret;

	test_resolver_init(&tr);
	ret = richacl_from_nt_sd(sd, file, &tr.res, &acl, &err);
	if (ret)
		fail_msg("richacl_from_nt_sd: %d %s", ret, err.msg);
	assert_non_null(acl);
	return acl;
}

/* the write must fail with code and a message containing want; *acl untouched */
static void set_sd_fails(const struct nt_sd *sd, const struct richacl_map_file *file,
			 struct test_resolver *tr, int code, const char *want)
{
	struct richacl_error err = { 0 };
	struct richacl *sentinel = (struct richacl *)(uintptr_t)0x1, *acl = sentinel;
	int ret = richacl_from_nt_sd(sd, file, &tr->res, &acl, &err);

	if (ret != code)
		fail_msg("richacl_from_nt_sd returned %d (%s), expected %d", ret, err.msg, code);
	assert_ptr_equal(acl, sentinel);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void get_sd_fails(const struct richacl *acl, const struct richacl_map_file *file,
			 uint32_t secinfo, struct test_resolver *tr, int code, const char *want)
{
	struct richacl_error err = { 0 };
	struct nt_sd *sentinel = (struct nt_sd *)(uintptr_t)0x1, *sd = sentinel;
	int ret = richacl_to_nt_sd(acl, 0644, file, secinfo, &tr->res, &sd, &err);

	if (ret != code)
		fail_msg("richacl_to_nt_sd returned %d (%s), expected %d", ret, err.msg, code);
	assert_ptr_equal(sd, sentinel);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static uint32_t access_of(const struct richacl *acl, const struct richacl_map_file *f,
			  uint32_t uid, uint32_t gid)
{
	struct richacl_file file = { f->owner, f->group, f->isdir };
	struct richacl_cred cred = { uid, gid, 0, NULL };

	return richacl_access(acl, &file, &cred);
}

/* ---- M1: no stored acl -> the acl of the mode ---- */

/* algorithms.md 1.2: 0640 (file) -> owner@:rwp::allow group@:r::allow */
static void test_M1_no_acl_file_0640_uses_mode(void **state)
{
	struct nt_sd *sd = get_sd(NULL, S_IFREG | 0640, &a_file, ALL_SECINFO);

	(void)state;
	assert_int_equal(sd->control, NT_SD_SELF_RELATIVE | NT_SD_DACL_PRESENT);
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, 0, R, dom(GROUP));
	nt_sd_free(sd);
}

/* algorithms.md 1.2: 0755 (dir) -> owner@:rwpxd::allow everyone@:rx::allow */
static void test_M1_no_acl_dir_0755_uses_mode(void **state)
{
	struct nt_sd *sd = get_sd(NULL, 0755, &a_dir, ALL_SECINFO);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P | X | D, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, 0, R | X, "S-1-1-0");
	nt_sd_free(sd);
}

/* algorithms.md 1.2: 0461 (file) -> five entries, denies included */
static void test_M1_no_acl_file_0461_with_denies(void **state)
{
	struct nt_sd *sd = get_sd(NULL, 0461, &a_file, ALL_SECINFO);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 5);
	assert_ace(sd->dacl, 0, DENY, 0, W | P | X, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, 0, R, dom(OWNER));
	assert_ace(sd->dacl, 2, DENY, 0, X, dom(GROUP));
	assert_ace(sd->dacl, 3, ALLOW, 0, R | W | P, dom(GROUP));
	assert_ace(sd->dacl, 4, ALLOW, 0, X, "S-1-1-0");
	nt_sd_free(sd);
}

/* M1: never an empty DACL for a non-000 mode; 000 is the empty DACL */
static void test_M1_never_empty_dacl_unless_mode_000(void **state)
{
	mode_t mode;
	int dir;

	(void)state;
	for (dir = 0; dir < 2; dir++) {
		for (mode = 0; mode <= 0777; mode++) {
			struct nt_sd *sd = get_sd(NULL, mode, dir ? &a_dir : &a_file,
						  NT_SECINFO_DACL);

			assert_non_null(sd->dacl);
			if (mode == 0)
				assert_int_equal(sd->dacl->num_aces, 0);
			else if (sd->dacl->num_aces == 0)
				fail_msg("mode %04o (%s) gave an empty DACL", mode,
					 dir ? "dir" : "file");
			nt_sd_free(sd);
		}
	}
}

/* M1: file->isdir decides the type, whatever type bits mode carries */
static void test_M1_isdir_decides_delete_child(void **state)
{
	struct nt_sd *sd = get_sd(NULL, S_IFDIR | 0700, &a_file, NT_SECINFO_DACL);

	(void)state;
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P | X, dom(OWNER));	/* no d on a file */
	nt_sd_free(sd);
	sd = get_sd(NULL, S_IFREG | 0700, &a_dir, NT_SECINFO_DACL);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P | X | D, dom(OWNER));
	nt_sd_free(sd);
}

/* ---- M2: masked acls are shown as the equivalent unmasked acl ---- */

/* algorithms.md 4.11 E1: -m 600 owner@:rwp group@:r everyone@:r -> owner@:rwp */
static void test_M2_masked_E1(void **state)
{
	struct nt_sd *sd = get_sd_text("flags:mw owner:rwp::mask group:::mask other:::mask "
				       "owner@:rwp::allow group@:r::allow everyone@:r::allow",
				       &a_file);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 1);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P, dom(OWNER));
	nt_sd_free(sd);
}

/*
 * algorithms.md 4.11 E3: -m 640 user:5:rwp group:7:rw everyone@:r
 *   -> user:5:r group:7:r owner@:rwp group@:r   (uid 5 -> 1005, gid 7 -> 2007)
 */
static void test_M2_masked_E3(void **state)
{
	struct nt_sd *sd = get_sd_text("flags:mw owner:rwp::mask group:r::mask other:::mask "
				       "user:1005:rwp::allow group:2007:rw::allow everyone@:r::allow",
				       &a_file);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 4);
	assert_ace(sd->dacl, 0, ALLOW, 0, R, dom(1005));
	assert_ace(sd->dacl, 1, ALLOW, 0, R, dom(2007));
	assert_ace(sd->dacl, 2, ALLOW, 0, R | W | P, dom(OWNER));
	assert_ace(sd->dacl, 3, ALLOW, 0, R, dom(GROUP));
	assert_int_equal(sd->control & ~(NT_SD_SELF_RELATIVE | NT_SD_DACL_PRESENT), 0);
	nt_sd_free(sd);
}

/* algorithms.md 4.11 E9 (directory): inheritable entries survive the masking */
static void test_M2_masked_E9_keeps_inheritance(void **state)
{
	struct nt_sd *sd = get_sd_text("flags:mw owner:rwpxd::mask group:rx::mask other:::mask "
				       "owner@:rwpxd:fd:allow user:1005:rwx:fd:allow "
				       "everyone@:rx:fd:allow", &a_dir);

	(void)state;
	/*
	 * E9 -> owner@:rwpxd:fd user:5:rwx:fdi user:5:rx group@:rx everyone@:rx:fdi;
	 * owner@:fd splits into the owner SID and CREATOR OWNER (M4).
	 */
	assert_int_equal(sd->dacl->num_aces, 6);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P | X | D, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, OI | CI | IO, R | W | P | X | D, "S-1-3-0");
	assert_ace(sd->dacl, 2, ALLOW, OI | CI | IO, R | W | X, dom(1005));
	assert_ace(sd->dacl, 3, ALLOW, 0, R | X, dom(1005));
	assert_ace(sd->dacl, 4, ALLOW, 0, R | X, dom(GROUP));
	assert_ace(sd->dacl, 5, ALLOW, OI | CI | IO, R | X, "S-1-1-0");
	nt_sd_free(sd);
}

/* M2 does not touch the caller's acl */
static void test_M2_input_acl_unchanged(void **state)
{
	struct richacl *acl = acl_of("flags:mw owner:rwp::mask group:::mask other:::mask "
				     "everyone@:rwpx::allow");
	struct richacl *copy = richacl_clone(acl);
	struct nt_sd *sd = get_sd(acl, 0, &a_file, ALL_SECINFO);

	(void)state;
	assert_true(richacl_equal(acl, copy));
	nt_sd_free(sd);
	richacl_free(acl);
	richacl_free(copy);
}

/* ---- M3: owner and group SIDs ---- */

static void test_M3_owner_group_sids_from_resolver(void **state)
{
	struct nt_sd *sd = get_sd(NULL, 0644, &a_file, ALL_SECINFO);
	struct nt_sid o = sid_of(dom(OWNER)), g = sid_of(dom(GROUP));

	(void)state;
	assert_true(sd->has_owner && sd->has_group);
	assert_true(nt_sid_equal(&sd->owner, &o));
	assert_true(nt_sid_equal(&sd->group, &g));
	nt_sd_free(sd);
}

/* M3: no SID from the resolver -> Samba's Unix SIDs S-1-22-1-uid / S-1-22-2-gid */
static void test_M3_unix_sid_fallback(void **state)
{
	const struct richacl_map_file f = { 500, 100, false };
	struct nt_sd *sd = get_sd(NULL, 0640, &f, ALL_SECINFO);
	struct nt_sid o = sid_of("S-1-22-1-500"), g = sid_of("S-1-22-2-100");
	struct richacl_error err;

	(void)state;
	assert_true(nt_sid_equal(&sd->owner, &o));
	assert_true(nt_sid_equal(&sd->group, &g));
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P, "S-1-22-1-500");
	assert_ace(sd->dacl, 1, ALLOW, 0, R, "S-1-22-2-100");
	nt_sd_free(sd);
	/* and without any resolver at all */
	sd = NULL;
	assert_int_equal(richacl_to_nt_sd(NULL, 0640, &a_file, ALL_SECINFO, NULL, &sd, &err), 0);
	o = sid_of("S-1-22-1-1001");
	assert_true(nt_sid_equal(&sd->owner, &o));
	nt_sd_free(sd);
}

static void test_M3_security_info_selects_parts(void **state)
{
	struct nt_sd *sd;

	(void)state;
	sd = get_sd(NULL, 0644, &a_file, NT_SECINFO_OWNER);
	assert_true(sd->has_owner);
	assert_false(sd->has_group);
	assert_null(sd->dacl);
	assert_int_equal(sd->control, NT_SD_SELF_RELATIVE);
	nt_sd_free(sd);
	sd = get_sd(NULL, 0644, &a_file, NT_SECINFO_GROUP);
	assert_false(sd->has_owner);
	assert_true(sd->has_group);
	assert_null(sd->dacl);
	nt_sd_free(sd);
	sd = get_sd(NULL, 0644, &a_file, NT_SECINFO_DACL);
	assert_false(sd->has_owner || sd->has_group);
	assert_non_null(sd->dacl);
	nt_sd_free(sd);
}

static void test_M3_owner_lookup_failure(void **state)
{
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	tr.fail_code = -EIO;
	tr.fail_id = OWNER;
	get_sd_fails(NULL, &a_file, NT_SECINFO_OWNER, &tr, -EIO,
		     "cannot map the file owner uid 1001 to a SID");
	tr.fail_id = GROUP;
	get_sd_fails(NULL, &a_file, NT_SECINFO_GROUP, &tr, -EIO,
		     "cannot map the file group gid 2001 to a SID");
}

/* ---- M4: who ---- */

static void test_M4_named_who(void **state)
{
	struct nt_sd *sd = get_sd_text("everyone@:r::allow user:1005:w::deny group:2007:x::allow "
				       "user:3005:p::allow group:3006:p::allow user:500:r::allow "
				       "group:100:r::allow "
				       "user:S-1-5-21-9-9-9-77:r:u:allow group:S-1-5-32-544:w:u:deny",
				       &a_file);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 9);
	assert_ace(sd->dacl, 0, ALLOW, 0, R, "S-1-1-0");
	assert_ace(sd->dacl, 1, DENY, 0, W, dom(1005));
	assert_ace(sd->dacl, 2, ALLOW, 0, X, dom(2007));
	assert_ace(sd->dacl, 3, ALLOW, 0, P, dom(3005));
	assert_ace(sd->dacl, 4, ALLOW, 0, P, dom(3006));
	assert_ace(sd->dacl, 5, ALLOW, 0, R, "S-1-22-1-500");
	assert_ace(sd->dacl, 6, ALLOW, 0, R, "S-1-22-2-100");
	assert_ace(sd->dacl, 7, ALLOW, 0, R, "S-1-5-21-9-9-9-77");
	assert_ace(sd->dacl, 8, DENY, 0, W, "S-1-5-32-544");
	nt_sd_free(sd);
}

static void test_M4_owner_inheritable_splits_into_creator_owner(void **state)
{
	struct nt_sd *sd = get_sd_text("owner@:rwpx:fd:allow", &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W | P | X, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, OI | CI | IO, R | W | P | X, "S-1-3-0");
	nt_sd_free(sd);
}

static void test_M4_group_inheritable_splits_into_creator_group(void **state)
{
	struct nt_sd *sd = get_sd_text("group@:r:dn:deny group@:x:f:allow", &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 4);
	assert_ace(sd->dacl, 0, DENY, 0, R, dom(GROUP));
	assert_ace(sd->dacl, 1, DENY, CI | NP | IO, R, "S-1-3-1");
	assert_ace(sd->dacl, 2, ALLOW, 0, X, dom(GROUP));
	assert_ace(sd->dacl, 3, ALLOW, OI | IO, X, "S-1-3-1");
	nt_sd_free(sd);
}

static void test_M4_inherit_only_owner_is_only_creator_owner(void **state)
{
	struct nt_sd *sd = get_sd_text("owner@:rw:fdi:allow group@:r:fi:allow", &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, OI | CI | IO, R | W, "S-1-3-0");
	assert_ace(sd->dacl, 1, ALLOW, OI | IO, R, "S-1-3-1");
	nt_sd_free(sd);
}

/* the inherited flag stays on both halves of a split */
static void test_M4_split_keeps_inherited_flag(void **state)
{
	struct nt_sd *sd = get_sd_text("owner@:r:fda:allow", &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, INH, R, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, OI | CI | IO | INH, R, "S-1-3-0");
	nt_sd_free(sd);
}

/* owner@ without file/dir-inherit is never split, even when inert (i alone) */
static void test_M4_owner_without_inheritance_names_owner_sid(void **state)
{
	struct nt_sd *sd = get_sd_text("owner@:r::allow owner@:w:i:allow group@:x:n:allow",
				       &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_ace(sd->dacl, 0, ALLOW, 0, R, dom(OWNER));
	assert_ace(sd->dacl, 1, ALLOW, IO, W, dom(OWNER));
	assert_ace(sd->dacl, 2, ALLOW, NP, X, dom(GROUP));
	nt_sd_free(sd);
}

/*
 * An unmapped identifier that is not a SID (an NFSv4 principal set locally)
 * matches nobody: it reads as S-1-0-0, which matches nobody on Windows, and
 * the file stays readable.  Writing that back keeps an entry that matches
 * nobody, also for a deny (S-1-0-0 is not refused: it is inert everywhere).
 */
static void test_M4_unmapped_who_not_a_sid_reads_as_nobody(void **state)
{
	struct richacl *acl = acl_of("everyone@:r::allow user:alice@EXAMPLE:r:u:allow "
				     "user:bob@EXAMPLE:w:u:deny");
	struct richacl *back;
	struct nt_sd *sd;

	(void)state;
	sd = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_ace(sd->dacl, 0, ALLOW, 0, R, "S-1-1-0");
	assert_ace(sd->dacl, 1, ALLOW, 0, R, "S-1-0-0");
	assert_ace(sd->dacl, 2, DENY, 0, W, "S-1-0-0");
	back = set_sd(sd, &a_file);
	assert_entries(back, "everyone@:r::allow user:S-1-0-0:r:u:allow user:S-1-0-0:w:u:deny");
	richacl_free(back);
	nt_sd_free(sd);
	richacl_free(acl);
}

static void test_M4_user_lookup_failure_names_entry(void **state)
{
	struct richacl *acl = acl_of("everyone@:r::allow group:2007:r::allow");
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	tr.fail_code = -EIO;
	tr.fail_id = 2007;
	get_sd_fails(acl, &a_file, NT_SECINFO_DACL, &tr, -EIO, "entry 1: cannot map gid 2007");
	richacl_free(acl);
}

static void test_M4_invalid_acl_is_an_error(void **state)
{
	struct richacl *acl = acl_of("everyone@:r::allow");
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	acl->a_entries[0].e_type = 5;
	get_sd_fails(acl, &a_file, NT_SECINFO_DACL, &tr, -EINVAL, "entry 0");
	/* but an invalid acl does not matter when the DACL is not asked for */
	{
		struct nt_sd *sd = get_sd(acl, 0, &a_file, NT_SECINFO_OWNER);

		nt_sd_free(sd);
	}
	richacl_free(acl);
}

/* ---- M5: flags, masks, order ---- */

static void test_M5_entry_flags(void **state)
{
	struct nt_sd *sd = get_sd_text("user:1005:r:f:allow user:1005:r:d:allow "
				       "user:1005:r:fn:allow user:1005:r:fi:allow "
				       "user:1005:r:a:allow user:1005:r:fdnia:deny", &a_dir);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 6);
	assert_ace(sd->dacl, 0, ALLOW, OI, R, dom(1005));
	assert_ace(sd->dacl, 1, ALLOW, CI, R, dom(1005));
	assert_ace(sd->dacl, 2, ALLOW, OI | NP, R, dom(1005));
	assert_ace(sd->dacl, 3, ALLOW, OI | IO, R, dom(1005));
	assert_ace(sd->dacl, 4, ALLOW, INH, R, dom(1005));
	assert_ace(sd->dacl, 5, DENY, OI | CI | NP | IO | INH, R, dom(1005));
	nt_sd_free(sd);
}

static void test_M5_acl_flags_to_control(void **state)
{
	struct nt_sd *sd;

	(void)state;
	sd = get_sd_text("flags:a everyone@:r::allow", &a_dir);
	assert_int_equal(sd->control, 0x8004 | NT_SD_DACL_AUTO_INHERITED);
	nt_sd_free(sd);
	sd = get_sd_text("flags:p everyone@:r::allow", &a_dir);
	assert_int_equal(sd->control, 0x8004 | NT_SD_DACL_PROTECTED);
	nt_sd_free(sd);
	sd = get_sd_text("flags:d everyone@:r::allow", &a_dir);
	assert_int_equal(sd->control, 0x8004 | NT_SD_DACL_DEFAULTED);
	nt_sd_free(sd);
	sd = get_sd_text("flags:apd everyone@:r::allow", &a_dir);
	assert_int_equal(sd->control, 0x8004 | NT_SD_DACL_AUTO_INHERITED |
			 NT_SD_DACL_PROTECTED | NT_SD_DACL_DEFAULTED);
	nt_sd_free(sd);
}

static void test_M5_control_to_acl_flags(void **state)
{
	struct nt_sd *sd = new_sd(0);
	struct richacl *acl;

	(void)state;
	sd->control |= NT_SD_DACL_AUTO_INHERITED | NT_SD_DACL_PROTECTED | NT_SD_DACL_DEFAULTED |
		       NT_SD_DACL_AUTO_INHERIT_REQ | NT_SD_OWNER_DEFAULTED;
	acl = set_sd(sd, &a_dir);
	assert_int_equal(acl->a_flags, RICHACL_AUTO_INHERIT | RICHACL_PROTECTED |
			 RICHACL_DEFAULTED);
	richacl_free(acl);
	sd->control = NT_SD_SELF_RELATIVE | NT_SD_DACL_PRESENT | NT_SD_DACL_PROTECTED;
	acl = set_sd(sd, &a_dir);
	assert_int_equal(acl->a_flags, RICHACL_PROTECTED);
	richacl_free(acl);
	nt_sd_free(sd);
}

/* M5: the mask numbers are the same on both sides, every valid bit */
static void test_M5_masks_identical(void **state)
{
	struct richacl *acl = acl_of("everyone@:r::allow");
	struct nt_sd *sd;
	uint32_t bit;

	(void)state;
	for (bit = 1; bit; bit <<= 1) {
		if (!(bit & RICHACE_VALID_MASK))
			continue;
		acl->a_entries[0].e_mask = bit;
		sd = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
		assert_ace(sd->dacl, 0, ALLOW, 0, bit, "S-1-1-0");
		{
			struct richacl *back = set_sd(sd, &a_file);

			assert_int_equal(back->a_entries[0].e_mask, bit);
			richacl_free(back);
		}
		nt_sd_free(sd);
	}
	richacl_free(acl);
}

/*
 * M5: a non-directory's allow entry that grants all of FILE_ALL_ACCESS but
 * delete_child (which inheritance drops on files) shows FILE_ALL_ACCESS, as
 * a file that inherits Full Control does on Windows; nothing else changes.
 */
static void test_M5_file_full_control_shows_delete_child(void **state)
{
	struct richacl *dir_acl = acl_of("flags:a everyone@:rwpxdDaARWcCoS:fd:allow "
					 "user:1005:rwpxDaARWcS:fd:allow "
					 "user:1006:rwpxDaARWcCoS:fd:deny");
	struct richacl *file_acl = richacl_inherit(dir_acl, false);
	struct richacl *back;
	struct nt_sd *sd;

	(void)state;
	assert_non_null(file_acl);
	/* the kernel's inheritance drops delete_child on the file */
	assert_int_equal(file_acl->a_entries[0].e_mask, 0x1F01BF);
	sd = get_sd(file_acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_ace(sd->dacl, 0, ALLOW, INH, 0x1F01FF, "S-1-1-0");	/* Full Control */
	assert_ace(sd->dacl, 1, ALLOW, INH, 0x1301BF, dom(1005));	/* Modify stays */
	assert_ace(sd->dacl, 2, DENY, INH, 0x1F01BF, dom(1006));	/* denies unchanged */
	/* set back: the same access (delete_child means nothing on a file) */
	back = set_sd(sd, &a_file);
	assert_int_equal(back->a_entries[0].e_mask, 0x1F01FF);
	assert_int_equal(access_of(back, &a_file, 1007, 1007),
			 access_of(file_acl, &a_file, 1007, 1007));
	assert_int_equal(access_of(back, &a_file, 1005, 1005),
			 access_of(file_acl, &a_file, 1005, 1005));
	richacl_free(back);
	nt_sd_free(sd);
	richacl_free(file_acl);
	/* a directory shows exactly its entries */
	file_acl = richacl_inherit(dir_acl, true);
	assert_non_null(file_acl);
	sd = get_sd(file_acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_ace(sd->dacl, 0, ALLOW, INH | OI | CI, 0x1F01FF, "S-1-1-0");
	assert_ace(sd->dacl, 1, ALLOW, INH | OI | CI, 0x1301BF, dom(1005));
	nt_sd_free(sd);
	richacl_free(file_acl);
	richacl_free(dir_acl);
}

static void test_M5_order_preserved_both_ways(void **state)
{
	struct nt_sd *sd = new_sd(5);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");			/* allow before deny: kept */
	set_ace(sd, 1, DENY, 0, R, dom(1005));
	set_ace(sd, 2, ALLOW, INH, W, dom(2007));		/* inherited before explicit */
	set_ace(sd, 3, DENY, 0, W, dom(1006));
	set_ace(sd, 4, ALLOW, 0, X, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "everyone@:r::allow user:1005:r::deny group:2007:w:a:allow "
			    "user:1006:w::deny everyone@:x::allow");
	nt_sd_free(sd);
	sd = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(sd->dacl->num_aces, 5);
	assert_ace(sd->dacl, 0, ALLOW, 0, R, "S-1-1-0");
	assert_ace(sd->dacl, 1, DENY, 0, R, dom(1005));
	assert_ace(sd->dacl, 2, ALLOW, INH, W, dom(2007));
	assert_ace(sd->dacl, 3, DENY, 0, W, dom(1006));
	assert_ace(sd->dacl, 4, ALLOW, 0, X, "S-1-1-0");
	nt_sd_free(sd);
	richacl_free(acl);
}

/* ---- M6: no SACL ---- */

static void test_M6_no_sacl_returned(void **state)
{
	struct nt_sd *sd = get_sd(NULL, 0644, &a_file, ALL_SECINFO | NT_SECINFO_SACL);

	(void)state;
	assert_null(sd->sacl);
	assert_int_equal(sd->control & (NT_SD_SACL_PRESENT | NT_SD_SACL_AUTO_INHERITED |
					NT_SD_SACL_PROTECTED | NT_SD_SACL_DEFAULTED), 0);
	nt_sd_free(sd);
	sd = get_sd(NULL, 0644, &a_file, NT_SECINFO_SACL);
	assert_null(sd->sacl);
	assert_null(sd->dacl);
	assert_false(sd->has_owner || sd->has_group);
	nt_sd_free(sd);
}

static void test_M6_sacl_ignored_on_write(void **state)
{
	struct nt_sd *sd = new_sd(1);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	sd->sacl = nt_acl_alloc(1);
	sd->sacl->aces[0] = (struct nt_ace){ NT_ACE_SYSTEM_AUDIT, 0xC0, 0x01000000, nt_sid_world };
	sd->control |= NT_SD_SACL_PRESENT;
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "everyone@:r::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/* ---- M7: validate everything first ---- */

static void test_M7_bad_last_ace_rejects_before_any_lookup(void **state)
{
	struct nt_sd *sd = new_sd(4);
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, dom(1005));
	set_ace(sd, 1, ALLOW, 0, R, dom(2007));
	set_ace(sd, 2, ALLOW, 0, R, "S-1-5-21-9-9-9-77");
	set_ace(sd, 3, NT_ACE_SYSTEM_ALARM, 0, R, dom(1006));
	set_sd_fails(sd, &a_file, &tr, -EINVAL, "ACE 3: type 0x03 (system-alarm)");
	assert_int_equal(tr.calls, 0);		/* nothing was even looked up */
	nt_sd_free(sd);
}

static void test_M7_resolver_failure_leaves_acl_untouched(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, dom(1005));
	set_ace(sd, 1, ALLOW, 0, R, "S-1-5-21-9-9-9-77");
	set_ace(sd, 2, ALLOW, 0, R, dom(2007));
	tr.fail_code = -EIO;
	tr.fail_id = 2007;
	set_sd_fails(sd, &a_file, &tr, -EIO, "ACE 2: cannot resolve SID S-1-5-21-1-2-3-2007");
	nt_sd_free(sd);
	/* the owner's SID is resolved like any other trustee (M8) */
	sd = new_sd(1);
	set_ace(sd, 0, ALLOW, 0, R, dom(OWNER));
	tr.fail_id = OWNER;
	set_sd_fails(sd, &a_file, &tr, -EIO, "ACE 0: cannot resolve SID S-1-5-21-1-2-3-1001");
	nt_sd_free(sd);
}

static void test_M7_argument_errors(void **state)
{
	struct nt_sd *sd = new_sd(0);
	struct test_resolver tr;
	struct richacl_error err;
	struct richacl *acl = NULL;

	(void)state;
	test_resolver_init(&tr);
	assert_int_equal(richacl_from_nt_sd(NULL, &a_file, &tr.res, &acl, &err), -EINVAL);
	assert_int_equal(richacl_from_nt_sd(sd, NULL, &tr.res, &acl, &err), -EINVAL);
	assert_int_equal(richacl_from_nt_sd(sd, &a_file, &tr.res, NULL, &err), -EINVAL);
	assert_null(acl);
	nt_sd_free(sd);
}

/* ---- M8: SIDs -> identifiers ---- */

/*
 * The file's owner and owning group SIDs are named like any other SID
 * (M8 as corrected): user:uid / group:gid entries, not owner@ / group@.
 */
static void test_M8_everyone_owner_group_sids(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R | W, dom(OWNER));
	set_ace(sd, 1, ALLOW, 0, R, dom(GROUP));
	set_ace(sd, 2, DENY, 0, W, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "user:1001:rw::allow group:2001:r::allow everyone@:w::deny");
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * OWNER RIGHTS is the entry that follows the owner: owner@, allow and deny,
 * with its inheritance flags (an inheritable OWNER RIGHTS ACE applies to
 * each child's owner, as owner@ does).
 */
static void test_M8_owner_rights_is_owner_entry(void **state)
{
	const struct richacl_map_file chowned = { 1002, GROUP, false };
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, DENY, 0, W, "S-1-3-4");
	set_ace(sd, 1, ALLOW, OI | CI, R | W, "S-1-3-4");
	set_ace(sd, 2, ALLOW, CI | IO, X, "S-1-3-4");
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "flags:o owner@:w::deny owner@:rw:fd:allow owner@:x:di:allow");
	richacl_free(acl);
	/* on a file: the owner, whoever that is, gets r but not w */
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "flags:o owner@:w::deny owner@:rw::allow");
	assert_int_equal(access_of(acl, &a_file, OWNER, 9) & (R | W), R);
	assert_int_equal(access_of(acl, &chowned, 1002, 9) & (R | W), R);
	assert_int_equal(access_of(acl, &chowned, OWNER, 9) & (R | W), 0);
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_M8_creator_owner_group_become_inherit_only(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, OI | CI, R | W, "S-1-3-0");
	set_ace(sd, 1, ALLOW, CI | NP | IO, R, "S-1-3-1");
	set_ace(sd, 2, DENY, OI | INH, W, "S-1-3-0");
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "owner@:rw:fdi:allow group@:r:dni:allow owner@:w:fia:deny");
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * A CREATOR OWNER / GROUP ACE that is not inheritable matches no token and
 * is never inherited (Windows keeps it, inert): kept, inert, as an unmapped
 * entry naming the creator SID.
 */
static void test_M8_creator_owner_without_inheritance_is_kept_inert(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R | W, "S-1-3-0");
	set_ace(sd, 1, ALLOW, IO, R, "S-1-3-1");
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "user:S-1-3-0:rw:u:allow group:S-1-3-1:r:ui:allow");
	assert_int_equal(access_of(acl, &a_dir, OWNER, GROUP), 0);
	nt_sd_free(sd);
	/* and it comes back as the same ACEs */
	sd = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(sd->dacl->num_aces, 2);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W, "S-1-3-0");
	assert_ace(sd->dacl, 1, ALLOW, IO, R, "S-1-3-1");
	nt_sd_free(sd);
	richacl_free(acl);
}

/*
 * An ACE naming the owner's SID passes that SID on (Windows semantics),
 * inheritable or not: a user entry, not owner@ (which would give children
 * their creator instead).
 */
static void test_M8_inheritable_owner_sid_stays_named(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, OI | CI, R, dom(OWNER));
	set_ace(sd, 1, ALLOW, OI | CI | IO, W, dom(GROUP));
	set_ace(sd, 2, ALLOW, NP, X, dom(OWNER));	/* NP alone is not inheritable */
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "user:1001:r:fd:allow group:2001:w:fdi:allow user:1001:x:n:allow");
	richacl_free(acl);
	/* on a file the flags go first (M11); the SID stays named */
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "user:1001:r::allow user:1001:x::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * The old M8 rule stored an ACE for the owner's SID as owner@, so after bob
 * took ownership alice's ACE granted bob and no longer alice.  Now the
 * mapping does not depend on who owns the file, and the ACE keeps granting
 * its SID only.
 */
static void test_M8_owner_sid_ace_does_not_follow_ownership(void **state)
{
	const struct richacl_map_file chowned = { 1002, GROUP, false };
	struct nt_sd *sd = new_sd(1);
	struct richacl *acl, *acl2;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R | W, dom(OWNER));
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "user:1001:rw::allow");
	/* after chown to 1002: 1001 keeps rw, 1002 gets nothing from it */
	assert_int_equal(access_of(acl, &chowned, OWNER, 9) & (R | W), R | W);
	assert_int_equal(access_of(acl, &chowned, 1002, 9) & (R | W), 0);
	/* the same descriptor written for another owner gives the same acl */
	acl2 = set_sd(sd, &chowned);
	assert_true(richacl_equal(acl, acl2));
	richacl_free(acl2);
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * A DACL with an OWNER RIGHTS ACE that applies to the object gives the acl
 * the flag owner_rights (the kernel then lets the owner change the acl
 * only as the entries allow, as smbd does); its owner@ entries read back
 * as the OWNER RIGHTS ACEs that were set, flags included; an inheritable
 * inherit-only one as CREATOR OWNER (the same entry).  Without the flag
 * they read back as the owner's SID (M4).
 */
static void test_M8_owner_rights_read_back(void **state)
{
	struct nt_sd *sd = new_sd(5), *back;
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, DENY, 0, W, "S-1-3-4");
	set_ace(sd, 1, ALLOW, OI | CI, R, "S-1-3-4");
	set_ace(sd, 2, ALLOW, CI | IO, X, "S-1-3-4");
	set_ace(sd, 3, ALLOW, 0, R | W, dom(OWNER));
	set_ace(sd, 4, ALLOW, IO, P, "S-1-3-4");	/* inert, not inheritable */
	acl = set_sd(sd, &a_dir);
	assert_int_equal(acl->a_flags & RICHACL_OWNER_RIGHTS, RICHACL_OWNER_RIGHTS);
	back = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 5);
	assert_ace(back->dacl, 0, DENY, 0, W, "S-1-3-4");
	assert_ace(back->dacl, 1, ALLOW, OI | CI, R, "S-1-3-4");
	assert_ace(back->dacl, 2, ALLOW, CI | IO, X, "S-1-3-0");
	assert_ace(back->dacl, 3, ALLOW, 0, R | W, dom(OWNER));
	assert_ace(back->dacl, 4, ALLOW, IO, P, "S-1-3-4");
	nt_sd_free(back);
	/* without the flag: the owner's SID, inheritable part split (M4) */
	acl->a_flags &= ~RICHACL_OWNER_RIGHTS;
	back = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 6);
	assert_ace(back->dacl, 0, DENY, 0, W, dom(OWNER));
	assert_ace(back->dacl, 1, ALLOW, 0, R, dom(OWNER));
	assert_ace(back->dacl, 2, ALLOW, OI | CI | IO, R, "S-1-3-0");
	assert_ace(back->dacl, 3, ALLOW, CI | IO, X, "S-1-3-0");
	nt_sd_free(back);
	richacl_free(acl);
	/* on a file, too */
	acl = set_sd(sd, &a_file);
	assert_int_equal(acl->a_flags & RICHACL_OWNER_RIGHTS, RICHACL_OWNER_RIGHTS);
	richacl_free(acl);
	nt_sd_free(sd);

	/* only CREATOR OWNER and the owner's SID: no flag */
	sd = new_sd(2);
	set_ace(sd, 0, ALLOW, OI | CI, R, "S-1-3-0");
	set_ace(sd, 1, ALLOW, 0, R, dom(OWNER));
	acl = set_sd(sd, &a_dir);
	assert_int_equal(acl->a_flags & RICHACL_OWNER_RIGHTS, 0);
	richacl_free(acl);
	nt_sd_free(sd);

	/*
	 * only inherit-only OWNER RIGHTS ACEs: they do not apply to the
	 * object, and smbd's check ignores them for its owner ([MS-DTYP]
	 * 2.5.3.2): no flag
	 */
	sd = new_sd(2);
	set_ace(sd, 0, ALLOW, OI | CI | IO, R, "S-1-3-4");
	set_ace(sd, 1, ALLOW, IO, R, "S-1-3-4");
	acl = set_sd(sd, &a_dir);
	assert_int_equal(acl->a_flags & RICHACL_OWNER_RIGHTS, 0);
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * The flag without an owner@ entry that applies (a local setrichacl can
 * write that): the kernel gives the owner nothing implicitly, so the DACL
 * shows an OWNER RIGHTS ACE that grants nothing, which withholds the same
 * in smbd's check.  Written back, it keeps the flag, and reads back the
 * same.
 */
static void test_M8_owner_rights_flag_alone(void **state)
{
	struct richacl *acl = acl_of("flags:o everyone@:r::allow owner@:w:fdi:allow");
	struct nt_sd *back, *again;
	struct richacl *acl2;

	(void)state;
	back = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 3);
	assert_ace(back->dacl, 0, ALLOW, 0, R, "S-1-1-0");
	assert_ace(back->dacl, 1, ALLOW, OI | CI | IO, W, "S-1-3-0");
	assert_ace(back->dacl, 2, ALLOW, 0, 0, "S-1-3-4");
	acl2 = set_sd(back, &a_dir);
	assert_int_equal(acl2->a_flags & RICHACL_OWNER_RIGHTS, RICHACL_OWNER_RIGHTS);
	again = get_sd(acl2, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(again->dacl->num_aces, 3);
	assert_ace(again->dacl, 2, ALLOW, 0, 0, "S-1-3-4");
	nt_sd_free(again);
	richacl_free(acl2);
	nt_sd_free(back);
	richacl_free(acl);

	/* before the inherited ACEs, where explicit ones go (canonical order) */
	acl = acl_of("flags:ao user:1005:w::allow everyone@:r:a:allow");
	back = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 3);
	assert_ace(back->dacl, 0, ALLOW, 0, W, dom(1005));
	assert_ace(back->dacl, 1, ALLOW, 0, 0, "S-1-3-4");
	assert_ace(back->dacl, 2, ALLOW, INH, R, "S-1-1-0");
	nt_sd_free(back);
	richacl_free(acl);
}

static void test_M8_other_sids_through_resolver(void **state)
{
	struct nt_sd *sd = new_sd(5);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R, dom(1005));
	set_ace(sd, 1, ALLOW, 0, W, dom(2007));
	set_ace(sd, 2, ALLOW, 0, X, dom(3005));		/* RICHACL_ID_BOTH -> group */
	set_ace(sd, 3, ALLOW, 0, P, "S-1-22-1-500");	/* Unix SIDs without resolver help */
	set_ace(sd, 4, ALLOW, 0, D, "S-1-22-2-100");
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "user:1005:r::allow group:2007:w::allow group:3005:x::allow "
			    "user:500:p::allow group:100:d::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/* RICHACL_ID_BOTH maps to a group entry, and comes back as the same SID */
static void test_M8_id_both_round_trip(void **state)
{
	struct nt_sd *sd = new_sd(1), *back;
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R, dom(3005));
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "group:3005:r::allow");
	/* uid 3005's token carries gid 3005 */
	{
		struct richacl_file f = { OWNER, GROUP, false };
		uint32_t g = 3005;
		struct richacl_cred c = { 3005, 3005, 1, &g };

		assert_true(richacl_access(acl, &f, &c) & R);
	}
	back = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_ace(back->dacl, 0, ALLOW, 0, R, dom(3005));
	nt_sd_free(back);
	richacl_free(acl);
	nt_sd_free(sd);
}

/* ---- M9: unmapped SIDs are kept, and match nobody ---- */

static void test_M9_unmapped_sid_kept(void **state)
{
	struct nt_sd *sd = new_sd(4);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, W, "S-1-5-21-9-9-9-77");
	set_ace(sd, 1, ALLOW, 0, R | W, "S-1-5-18");
	set_ace(sd, 2, ALLOW, OI | CI, R, "S-1-0x010203040506-7");
	set_ace(sd, 3, ALLOW, 0, R, dom(4000));		/* domain SID the resolver lacks */
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "user:S-1-5-21-9-9-9-77:w:u:allow user:S-1-5-18:rw:u:allow "
			    "user:S-1-0x010203040506-7:r:fdu:allow "
			    "user:S-1-5-21-1-2-3-4000:r:u:allow");
	nt_sd_free(sd);
	/* the SIDs come back exactly */
	sd = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(sd->dacl->num_aces, 4);
	assert_ace(sd->dacl, 0, ALLOW, 0, W, "S-1-5-21-9-9-9-77");
	assert_ace(sd->dacl, 1, ALLOW, 0, R | W, "S-1-5-18");
	assert_ace(sd->dacl, 2, ALLOW, OI | CI, R, "S-1-0x010203040506-7");
	assert_ace(sd->dacl, 3, ALLOW, 0, R, dom(4000));
	nt_sd_free(sd);
	richacl_free(acl);
}

/* M9: an unmapped allow grants nobody anything (unmapped denies are refused) */
static void test_M9_unmapped_entries_match_nobody(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, W, "S-1-5-21-9-9-9-77");
	set_ace(sd, 1, ALLOW, 0, W, "S-1-5-21-9-9-9-78");
	set_ace(sd, 2, ALLOW, 0, R, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_int_equal(access_of(acl, &a_file, 1005, 2007) & (R | W), R);
	assert_int_equal(access_of(acl, &a_file, OWNER, GROUP) & (R | W), R);
	assert_int_equal(access_of(acl, &a_file, 0, 0) & (R | W), R);
	/* and the masks ignore them (M12): nothing grants w */
	assert_int_equal(acl->a_owner_mask & W, 0);
	assert_int_equal(acl->a_group_mask & W, 0);
	assert_int_equal(acl->a_other_mask & W, 0);
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * Issue 12: a deny entry for a SID that maps to no id would deny nobody in
 * the kernel while smbd's own check honours it: refused, nothing produced.
 */
static void test_unmapped_deny_refused(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	set_ace(sd, 1, DENY, OI | CI, W, "S-1-5-11");	/* Authenticated Users */
	set_sd_fails(sd, &a_dir, &tr, -ENOENT,
		     "ACE 1: deny entry for SID S-1-5-11, which maps to no unix id");
	/* a deny for a SID the resolver knows is fine */
	set_ace(sd, 1, DENY, OI | CI, W, dom(OWNER));
	richacl_free(set_sd(sd, &a_dir));
	nt_sd_free(sd);
}

/*
 * MS-NFS SIDs from macOS clients: S-1-5-88-1-<uid> and S-1-5-88-2-<gid> name
 * their ids (as Samba's Unix SIDs do); the mode ACE S-1-5-88-3-<mode> has
 * mask 0, so even as a deny it denies nothing, here and on Windows, and it
 * is kept as an unmapped entry.
 */
static void test_ms_nfs_sids(void **state)
{
	struct nt_sd *sd = new_sd(4);
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	(void)state;
	test_resolver_init(&tr);
	tr.res.refuse_unmapped = true;		/* none of these counts as unmapped... */
	set_ace(sd, 0, ALLOW, 0, R | W, "S-1-5-88-1-1005");
	set_ace(sd, 1, DENY, 0, W, "S-1-5-88-2-2009");
	set_ace(sd, 2, ALLOW, 0, R, "S-1-1-0");
	set_ace(sd, 3, DENY, 0, 0, "S-1-5-88-3-420");
	/* ...except the mode ACE, which the policy refuses like any unmapped SID */
	set_sd_fails(sd, &a_file, &tr, -ENOENT,
		     "ACE 3: SID S-1-5-88-3-420 maps to no unix id (unmapped SIDs are refused)");
	tr.res.refuse_unmapped = false;
	assert_int_equal(richacl_from_nt_sd(sd, &a_file, &tr.res, &acl, &err), 0);
	assert_entries(acl, "user:1005:rw::allow group:2009:w::deny everyone@:r::allow "
			    "user:S-1-5-88-3-420::u:deny");
	richacl_free(acl);
	/* a mode ACE that does deny bits would deny nobody: refused */
	set_ace(sd, 3, DENY, 0, W, "S-1-5-88-3-420");
	set_sd_fails(sd, &a_file, &tr, -ENOENT,
		     "ACE 3: deny entry for SID S-1-5-88-3-420, which maps to no unix id");
	nt_sd_free(sd);
}

/*
 * OWNER RIGHTS is never resolved, even by a resolver that has a gid for it
 * (winbindd allocates one): no process holds that gid.  Allow and deny
 * become owner@, which the kernel applies to the owner as smbd does.
 */
/* a resolver like winbindd's: every SID of authority 1, 3 or 5 has a gid */
static int allocating_sid_to_id(void *ctx, const struct nt_sid *sid,
				enum richacl_id_type *type, uint32_t *id)
{
	(void)ctx;
	*type = RICHACL_ID_GID;
	*id = 100000 + sid->id_auth[5] * 100 + sid->sub_auths[0];
	return 0;
}

static void test_owner_rights_never_resolved(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct richacl_resolver res = { .sid_to_id = allocating_sid_to_id };
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R, "S-1-3-4");
	set_ace(sd, 1, ALLOW, 0, R, "S-1-5-11");
	assert_int_equal(richacl_from_nt_sd(sd, &a_file, &res, &acl, &err), 0);
	assert_entries(acl, "flags:o owner@:r::allow group:100511:r::allow");
	richacl_free(acl);
	acl = NULL;
	/* a deny binds the owner in the kernel too */
	set_ace(sd, 0, DENY, 0, W, "S-1-3-4");
	assert_int_equal(richacl_from_nt_sd(sd, &a_file, &res, &acl, &err), 0);
	assert_entries(acl, "flags:o owner@:w::deny group:100511:r::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/* refuse_unmapped: allow entries for unmappable SIDs are refused too */
static void test_unmapped_allow_refused_by_policy(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct test_resolver tr;
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	(void)state;
	test_resolver_init(&tr);
	tr.res.refuse_unmapped = true;
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	set_ace(sd, 1, ALLOW, 0, W, "S-1-5-21-9-9-9-77");
	set_sd_fails(sd, &a_file, &tr, -ENOENT,
		     "ACE 1: SID S-1-5-21-9-9-9-77 maps to no unix id (unmapped SIDs are refused)");
	/* everyone@ and unix SIDs still work under the policy */
	set_ace(sd, 1, ALLOW, 0, W, "S-1-22-1-1005");
	assert_int_equal(richacl_from_nt_sd(sd, &a_file, &tr.res, &acl, &err), 0);
	assert_entries(acl, "everyone@:r::allow user:1005:w::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/* ---- M10: generic mapping and everything that is refused ---- */

static void test_M10_generic_mapping(void **state)
{
	(void)state;
	assert_int_equal(nt_map_generic_file(NT_GENERIC_READ), 0x120089);
	assert_int_equal(nt_map_generic_file(NT_GENERIC_WRITE), 0x120116);
	assert_int_equal(nt_map_generic_file(NT_GENERIC_EXECUTE), 0x1200A0);
	assert_int_equal(nt_map_generic_file(NT_GENERIC_ALL), 0x1F01FF);
	assert_int_equal(nt_map_generic_file(NT_GENERIC_READ | NT_GENERIC_EXECUTE), 0x1200A9);
	assert_int_equal(nt_map_generic_file(NT_GENERIC_WRITE | 0x10000), 0x130116);
	assert_int_equal(nt_map_generic_file(0x3), 0x3);
	assert_int_equal(nt_map_generic_file(0), 0);
	/* non-generic high bits are left for the validator to refuse */
	assert_int_equal(nt_map_generic_file(NT_MAXIMUM_ALLOWED | NT_GENERIC_READ),
			 NT_MAXIMUM_ALLOWED | 0x120089);
}

static void test_M10_generic_rights_in_aces(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, NT_GENERIC_ALL, dom(OWNER));
	set_ace(sd, 1, ALLOW, 0, NT_GENERIC_READ | NT_GENERIC_EXECUTE, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_int_equal(acl->a_count, 2);
	assert_int_equal(acl->a_entries[0].e_mask, 0x1F01FF);
	assert_int_equal(acl->a_entries[1].e_mask, 0x1200A9);
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_M10_rejects_ace_types(void **state)
{
	static const struct { uint8_t type; const char *name; } bad[] = {
		{ 0x02, "ACE 1: type 0x02 (system-audit)" },
		{ 0x03, "ACE 1: type 0x03 (system-alarm)" },
		{ 0x04, "ACE 1: type 0x04 (access-allowed-compound)" },
		{ 0x05, "ACE 1: type 0x05 (access-allowed-object)" },
		{ 0x06, "ACE 1: type 0x06 (access-denied-object)" },
		{ 0x09, "ACE 1: type 0x09 (access-allowed-callback)" },
		{ 0x0A, "ACE 1: type 0x0a (access-denied-callback)" },
		{ 0x0B, "ACE 1: type 0x0b (access-allowed-callback-object)" },
		{ 0x11, "ACE 1: type 0x11 (system-mandatory-label)" },
		{ 0x42, "ACE 1: type 0x42 (unknown)" },
	};
	struct nt_sd *sd = new_sd(2);
	struct test_resolver tr;
	unsigned int i;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	set_ace(sd, 1, ALLOW, 0, R, "S-1-1-0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sd->dacl->aces[1].type = bad[i].type;
		set_sd_fails(sd, &a_dir, &tr, -EINVAL, bad[i].name);
	}
	nt_sd_free(sd);
}

/* object / callback ACEs straight from the wire decoder are refused by type */
static void test_M10_rejects_decoded_object_ace(void **state)
{
	static const uint8_t blob[] = {
		0x01, 0x00, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
		0x04, 0x00, 0x24, 0x00, 0x01, 0x00, 0x00, 0x00,
		/* allowed-object, no GUIDs: 4 + 4 + 4 + 12 = 24 ... padded to 28 */
		0x05, 0x00, 0x1C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	struct richacl_error err;
	struct test_resolver tr;
	struct nt_sd *sd = NULL;

	(void)state;
	test_resolver_init(&tr);
	assert_int_equal(nt_sd_decode(blob, sizeof(blob), &sd, &err), 0);
	set_sd_fails(sd, &a_dir, &tr, -EINVAL, "ACE 0: type 0x05 (access-allowed-object)");
	nt_sd_free(sd);
}

static void test_M10_rejects_masks(void **state)
{
	static const struct { uint32_t mask; const char *msg; } bad[] = {
		{ NT_ACCESS_SYSTEM_SECURITY, "ACE 0: access mask 0x01000000 has bits 0x01000000" },
		{ NT_MAXIMUM_ALLOWED | 1, "ACE 0: access mask 0x02000001 has bits 0x02000000" },
		{ 0x00200000, "has bits 0x00200000" },
		{ 0x04000000, "has bits 0x04000000" },
		{ 0x08000000, "has bits 0x08000000" },
		{ 0x00000800, "has bits 0x00000800" },
		{ 0x00008000, "has bits 0x00008000" },
		{ NT_GENERIC_ALL | NT_ACCESS_SYSTEM_SECURITY, "has bits 0x01000000" },
	};
	struct nt_sd *sd = new_sd(1);
	struct test_resolver tr;
	unsigned int i;

	(void)state;
	test_resolver_init(&tr);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_ace(sd, 0, ALLOW, 0, bad[i].mask, "S-1-1-0");
		set_sd_fails(sd, &a_file, &tr, -EINVAL, bad[i].msg);
	}
	/* the retention bits 0x200 / 0x400 are richacl bits: accepted (M5) */
	set_ace(sd, 0, ALLOW, 0, 0x600 | 0x1F01FF, "S-1-1-0");
	{
		struct richacl *acl = set_sd(sd, &a_file);

		assert_int_equal(acl->a_entries[0].e_mask, RICHACE_VALID_MASK);
		richacl_free(acl);
	}
	nt_sd_free(sd);
}

static void test_M10_rejects_flags(void **state)
{
	static const uint8_t bad[] = { NT_ACE_SUCCESSFUL_ACCESS, NT_ACE_FAILED_ACCESS, 0x20,
				       0x40 | OI };
	struct nt_sd *sd = new_sd(1);
	struct test_resolver tr;
	unsigned int i;

	(void)state;
	test_resolver_init(&tr);
	for (i = 0; i < sizeof(bad); i++) {
		char want[64];

		set_ace(sd, 0, ALLOW, bad[i], R, "S-1-1-0");
		snprintf(want, sizeof(want), "ACE 0: flags 0x%02x not supported",
			 bad[i] & 0xE0);
		set_sd_fails(sd, &a_dir, &tr, -EINVAL, want);
	}
	nt_sd_free(sd);
}

static void test_M10_acl_revisions(void **state)
{
	static const uint16_t bad[] = { 0, 1, 5, 0x102 };
	struct nt_sd *sd = new_sd(1);
	struct test_resolver tr;
	struct richacl *acl;
	unsigned int i;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	sd->dacl->revision = NT_ACL_REVISION;
	acl = set_sd(sd, &a_file);
	richacl_free(acl);
	sd->dacl->revision = NT_ACL_REVISION_DS;
	acl = set_sd(sd, &a_file);
	richacl_free(acl);
	sd->dacl->revision = 3;		/* what smbcacls sends */
	acl = set_sd(sd, &a_file);
	richacl_free(acl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		sd->dacl->revision = bad[i];
		snprintf(want, sizeof(want), "DACL revision %u is not supported", bad[i]);
		set_sd_fails(sd, &a_file, &tr, -EINVAL, want);
	}
	nt_sd_free(sd);
}

static void test_M10_rejects_bad_trustee_and_size(void **state)
{
	struct nt_sd *sd = new_sd(1);
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	set_ace(sd, 0, ALLOW, 0, R, "S-1-1-0");
	sd->dacl->aces[0].trustee.num_auths = 16;
	set_sd_fails(sd, &a_file, &tr, -EINVAL, "ACE 0: invalid trustee SID");
	sd->dacl->aces[0].trustee.num_auths = 1;
	sd->dacl->aces[0].trustee.revision = 0;
	set_sd_fails(sd, &a_file, &tr, -EINVAL, "ACE 0: invalid trustee SID");
	nt_sd_free(sd);
	sd = new_sd(RICHACL_XATTR_MAX_COUNT + 1);
	set_sd_fails(sd, &a_file, &tr, -EINVAL, "at most 5460 can be stored");
	nt_sd_free(sd);
}

/* NULL DACL -> everyone@ allowed everything (documented normalisation) */
static void test_M10_null_dacl(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();
	struct richacl *acl;

	(void)state;
	sd->control |= NT_SD_DACL_PRESENT | NT_SD_DACL_PROTECTED;
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "flags:p everyone@:0x1f01ff::allow");
	assert_int_equal(acl->a_other_mask, 0x1F01FF);
	richacl_free(acl);
	/* without DACL_PRESENT a descriptor has a NULL DACL too ([MS-DTYP] 2.4.6) */
	sd->control = NT_SD_SELF_RELATIVE;
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "everyone@:0x1f01ff::allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

/* what a NULL DACL stores is recognised, and nothing else is */
static void test_M10_is_null_dacl(void **state)
{
	static const struct {
		const char *text;
		bool isdir, want;
	} cases[] = {
		{ "everyone@:0x1f01ff::allow", false, true },
		{ "everyone@:0x1f01ff::allow", true, true },
		{ "flags:p everyone@:0x1f01ff::allow", true, true },
		/* a file's inherited Full Control lacks delete_child (M5) */
		{ "everyone@:0x1f01bf::allow", false, true },
		{ "everyone@:0x1f01bf::allow", true, false },
		{ "everyone@:0x1f01fe::allow", false, false },
		{ "everyone@:0x1f07ff::allow", false, false },
		{ "everyone@:0x1f01ff::deny", false, false },
		{ "everyone@:0x1f01ff:fd:allow", true, false },
		{ "everyone@:0x1f01ff:a:allow", false, false },
		{ "owner@:0x1f01ff::allow", false, false },
		{ "user:7:0x1f01ff::allow", false, false },
		{ "everyone@:0x1f01ff::allow everyone@:0x1f01ff::allow", false, false },
		{ "everyone@:0x1f01ff::allow user:7:r::deny", false, false },
		{ "", false, false },
		/* masks that take nothing away, and masks that do (a chmod) */
		{ "flags:m owner:0x1f01ff::mask group:0x1f01ff::mask other:0x1f01ff::mask "
		  "everyone@:0x1f01ff::allow", false, true },
		{ "flags:m owner:0x1f01ff::mask group:0x1f01ff::mask other:0x1f01fb::mask "
		  "everyone@:0x1f01ff::allow", false, false },
		{ "flags:m owner:0x1f01ff::mask group:0x1f01bf::mask other:0x1f01ff::mask "
		  "everyone@:0x1f01ff::allow", true, false },
		{ "flags:mw owner:0x1f01bf::mask group:0x1f01ff::mask other:0x1f01ff::mask "
		  "everyone@:0x1f01ff::allow", true, false },
	};
	struct richacl *acl;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		acl = acl_of(cases[i].text);
		if (richacl_is_null_dacl(acl, cases[i].isdir) != cases[i].want)
			fail_msg("case %u \"%s\" (%s): want %d", i, cases[i].text,
				 cases[i].isdir ? "dir" : "file", cases[i].want);
		richacl_free(acl);
	}
	assert_false(richacl_is_null_dacl(NULL, false));
}

/* what richacl_from_nt_sd() stores for a NULL DACL is recognised */
static void test_M10_null_dacl_is_recognised(void **state)
{
	struct nt_sd *sd = nt_sd_alloc();
	struct richacl *acl;

	(void)state;
	sd->control |= NT_SD_DACL_PRESENT | NT_SD_DACL_AUTO_INHERITED;
	acl = set_sd(sd, &a_dir);
	assert_true(richacl_is_null_dacl(acl, true));
	richacl_free(acl);
	acl = set_sd(sd, &a_file);
	assert_true(richacl_is_null_dacl(acl, false));
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_M10_dacl_without_dacl_present_is_refused(void **state)
{
	struct nt_sd *sd = new_sd(0);
	struct test_resolver tr;

	(void)state;
	test_resolver_init(&tr);
	sd->control = NT_SD_SELF_RELATIVE;
	set_sd_fails(sd, &a_file, &tr, -EINVAL, "lacks DACL_PRESENT");
	nt_sd_free(sd);
}

/* an empty DACL denies everything: an acl without entries, masks 0 */
static void test_M10_empty_dacl(void **state)
{
	struct nt_sd *sd = new_sd(0);
	struct richacl *acl = set_sd(sd, &a_file);
	mode_t mode = S_IFREG | 0777;

	(void)state;
	assert_int_equal(acl->a_count, 0);
	assert_int_equal(acl->a_owner_mask | acl->a_group_mask | acl->a_other_mask, 0);
	assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
	assert_int_equal(mode & 0777, 0);
	richacl_free(acl);
	nt_sd_free(sd);
}

/* ---- M11: inheritance flags on non-directories ---- */

static void test_M11_write_file_drops_inheritance(void **state)
{
	struct nt_sd *sd = new_sd(4);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, OI | CI | NP, R, dom(1005));
	set_ace(sd, 1, ALLOW, OI | IO, W, dom(1005));		/* inert on a file: dropped */
	set_ace(sd, 2, ALLOW, CI | INH, X, dom(2007));		/* inherited stays */
	set_ace(sd, 3, ALLOW, OI | CI | IO, R, "S-1-3-0");	/* inert on a file: dropped */
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "user:1005:r::allow group:2007:x:a:allow");
	richacl_free(acl);
	/* the same descriptor on a directory keeps everything */
	acl = set_sd(sd, &a_dir);
	assert_entries(acl, "user:1005:r:fdn:allow user:1005:w:fi:allow group:2007:x:da:allow "
			    "owner@:r:fdi:allow");
	richacl_free(acl);
	nt_sd_free(sd);
}

static void test_M11_read_file_drops_inheritance(void **state)
{
	struct nt_sd *sd = get_sd_text("owner@:rw:fd:allow user:1005:r:fdn:allow "
				       "user:1005:w:fi:allow group:2007:x:da:allow", &a_file);

	(void)state;
	assert_int_equal(sd->dacl->num_aces, 3);
	assert_ace(sd->dacl, 0, ALLOW, 0, R | W, dom(OWNER));	/* no CREATOR OWNER split */
	assert_ace(sd->dacl, 1, ALLOW, 0, R, dom(1005));
	assert_ace(sd->dacl, 2, ALLOW, INH, X, dom(2007));
	nt_sd_free(sd);
}

/* ---- M12: maximum masks ---- */

/*
 * owner@:w::deny everyone@:rw::allow (OWNER RIGHTS denied w) -> owner r,
 * group rw, other rw: the deny takes w from the owner class only.
 */
static void test_M12_max_masks_spec_example_1(void **state)
{
	struct nt_sd *sd = new_sd(2);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, DENY, 0, W, "S-1-3-4");
	set_ace(sd, 1, ALLOW, 0, R | W, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "flags:o owner@:w::deny everyone@:rw::allow");
	assert_int_equal(acl->a_owner_mask, R);
	assert_int_equal(acl->a_group_mask, R | W);
	assert_int_equal(acl->a_other_mask, R | W);
	assert_int_equal(acl->a_flags & (RICHACL_MASKED | RICHACL_WRITE_THROUGH), 0);
	richacl_free(acl);
	nt_sd_free(sd);
}

/* algorithms.md 2: owner@:rwp user:5:rw everyone@:r -> owner rwp, group rw, other r */
static void test_M12_max_masks_spec_example_2(void **state)
{
	struct nt_sd *sd = new_sd(3);
	struct richacl *acl;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R | W | P, "S-1-3-4");	/* OWNER RIGHTS: owner@ */
	set_ace(sd, 1, ALLOW, 0, R | W, dom(1005));
	set_ace(sd, 2, ALLOW, 0, R, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_entries(acl, "flags:o owner@:rwp::allow user:1005:rw::allow everyone@:r::allow");
	assert_int_equal(acl->a_owner_mask, R | W | P);
	assert_int_equal(acl->a_group_mask, R | W);
	assert_int_equal(acl->a_other_mask, R);
	richacl_free(acl);
	nt_sd_free(sd);
}

/*
 * M12 + M1: OWNER RIGHTS rwp and Everyone r grant what mode 0644 grants,
 * but the acl carries the flag owner_rights, which a mode cannot: it is not
 * equivalent to a mode, stays an acl and reads back as set.  The same
 * descriptor with the owner's SID instead names that SID (M8), so it is
 * not a mode either.
 */
static void test_M12_mode_equivalent_descriptor_reads_back_via_M1(void **state)
{
	struct nt_sd *sd = new_sd(2), *back;
	struct richacl *acl;
	mode_t mode = S_IFREG | 0777;

	(void)state;
	set_ace(sd, 0, ALLOW, 0, R | W | P, "S-1-3-4");
	set_ace(sd, 1, ALLOW, 0, R, "S-1-1-0");
	acl = set_sd(sd, &a_file);
	assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
	back = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 2);
	assert_ace(back->dacl, 0, ALLOW, 0, R | W | P, "S-1-3-4");
	assert_ace(back->dacl, 1, ALLOW, 0, R, "S-1-1-0");
	nt_sd_free(back);
	/* without the flag the same entries are mode 0644 */
	acl->a_flags &= ~RICHACL_OWNER_RIGHTS;
	mode = S_IFREG | 0777;
	assert_int_equal(richacl_equiv_mode(acl, &mode), 0);
	assert_int_equal(mode, S_IFREG | 0644);
	richacl_free(acl);

	set_ace(sd, 0, ALLOW, 0, R | W | P, dom(OWNER));
	acl = set_sd(sd, &a_file);
	mode = S_IFREG | 0777;
	assert_int_equal(richacl_equiv_mode(acl, &mode), -1);
	back = get_sd(acl, 0, &a_file, NT_SECINFO_DACL);
	assert_int_equal(back->dacl->num_aces, 2);
	assert_ace(back->dacl, 0, ALLOW, 0, R | W | P, dom(OWNER));
	assert_ace(back->dacl, 1, ALLOW, 0, R, "S-1-1-0");
	nt_sd_free(back);
	richacl_free(acl);
	nt_sd_free(sd);
}

/* ---- M13: a few fixed round trips (random ones in test_map_property.c) ---- */

static void test_M13_fixed_sd_round_trip(void **state)
{
	struct nt_sd *sd = new_sd(6), *back;
	struct richacl *acl;
	unsigned int i;

	(void)state;
	sd->control |= NT_SD_DACL_AUTO_INHERITED;
	set_ace(sd, 0, DENY, 0, W, dom(1005));
	set_ace(sd, 1, ALLOW, 0, 0x1F01FF, dom(OWNER));
	set_ace(sd, 2, ALLOW, OI | CI | IO, 0x1F01FF, "S-1-3-0");
	set_ace(sd, 3, ALLOW, OI | CI | INH, 0x1200A9, dom(2007));
	set_ace(sd, 4, ALLOW, INH, 0x1200A9, "S-1-5-21-9-9-9-77");
	set_ace(sd, 5, ALLOW, OI | CI, 0x1200A9, "S-1-1-0");
	acl = set_sd(sd, &a_dir);
	back = get_sd(acl, 0, &a_dir, NT_SECINFO_DACL);
	assert_int_equal(back->control, sd->control | NT_SD_SELF_RELATIVE);
	assert_int_equal(back->dacl->num_aces, sd->dacl->num_aces);
	for (i = 0; i < sd->dacl->num_aces; i++) {
		char buf[NT_SID_STRING_MAX];

		nt_sid_to_string(&sd->dacl->aces[i].trustee, buf, sizeof(buf));
		assert_ace(back->dacl, i, sd->dacl->aces[i].type, sd->dacl->aces[i].flags,
			   sd->dacl->aces[i].mask, buf);
	}
	nt_sd_free(back);
	richacl_free(acl);
	nt_sd_free(sd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_M1_no_acl_file_0640_uses_mode),
		cmocka_unit_test(test_M1_no_acl_dir_0755_uses_mode),
		cmocka_unit_test(test_M1_no_acl_file_0461_with_denies),
		cmocka_unit_test(test_M1_never_empty_dacl_unless_mode_000),
		cmocka_unit_test(test_M1_isdir_decides_delete_child),
		cmocka_unit_test(test_M2_masked_E1),
		cmocka_unit_test(test_M2_masked_E3),
		cmocka_unit_test(test_M2_masked_E9_keeps_inheritance),
		cmocka_unit_test(test_M2_input_acl_unchanged),
		cmocka_unit_test(test_M3_owner_group_sids_from_resolver),
		cmocka_unit_test(test_M3_unix_sid_fallback),
		cmocka_unit_test(test_M3_security_info_selects_parts),
		cmocka_unit_test(test_M3_owner_lookup_failure),
		cmocka_unit_test(test_M4_named_who),
		cmocka_unit_test(test_M4_owner_inheritable_splits_into_creator_owner),
		cmocka_unit_test(test_M4_group_inheritable_splits_into_creator_group),
		cmocka_unit_test(test_M4_inherit_only_owner_is_only_creator_owner),
		cmocka_unit_test(test_M4_split_keeps_inherited_flag),
		cmocka_unit_test(test_M4_owner_without_inheritance_names_owner_sid),
		cmocka_unit_test(test_M4_unmapped_who_not_a_sid_reads_as_nobody),
		cmocka_unit_test(test_M4_user_lookup_failure_names_entry),
		cmocka_unit_test(test_M4_invalid_acl_is_an_error),
		cmocka_unit_test(test_M5_entry_flags),
		cmocka_unit_test(test_M5_acl_flags_to_control),
		cmocka_unit_test(test_M5_control_to_acl_flags),
		cmocka_unit_test(test_M5_masks_identical),
		cmocka_unit_test(test_M5_file_full_control_shows_delete_child),
		cmocka_unit_test(test_M5_order_preserved_both_ways),
		cmocka_unit_test(test_M6_no_sacl_returned),
		cmocka_unit_test(test_M6_sacl_ignored_on_write),
		cmocka_unit_test(test_M7_bad_last_ace_rejects_before_any_lookup),
		cmocka_unit_test(test_M7_resolver_failure_leaves_acl_untouched),
		cmocka_unit_test(test_M7_argument_errors),
		cmocka_unit_test(test_M8_everyone_owner_group_sids),
		cmocka_unit_test(test_M8_creator_owner_group_become_inherit_only),
		cmocka_unit_test(test_M8_creator_owner_without_inheritance_is_kept_inert),
		cmocka_unit_test(test_M8_inheritable_owner_sid_stays_named),
		cmocka_unit_test(test_M8_owner_sid_ace_does_not_follow_ownership),
		cmocka_unit_test(test_M8_owner_rights_is_owner_entry),
		cmocka_unit_test(test_M8_owner_rights_read_back),
		cmocka_unit_test(test_M8_owner_rights_flag_alone),
		cmocka_unit_test(test_M8_other_sids_through_resolver),
		cmocka_unit_test(test_M8_id_both_round_trip),
		cmocka_unit_test(test_M9_unmapped_sid_kept),
		cmocka_unit_test(test_M9_unmapped_entries_match_nobody),
		cmocka_unit_test(test_unmapped_deny_refused),
		cmocka_unit_test(test_unmapped_allow_refused_by_policy),
		cmocka_unit_test(test_ms_nfs_sids),
		cmocka_unit_test(test_owner_rights_never_resolved),
		cmocka_unit_test(test_M10_generic_mapping),
		cmocka_unit_test(test_M10_generic_rights_in_aces),
		cmocka_unit_test(test_M10_rejects_ace_types),
		cmocka_unit_test(test_M10_rejects_decoded_object_ace),
		cmocka_unit_test(test_M10_rejects_masks),
		cmocka_unit_test(test_M10_rejects_flags),
		cmocka_unit_test(test_M10_acl_revisions),
		cmocka_unit_test(test_M10_rejects_bad_trustee_and_size),
		cmocka_unit_test(test_M10_null_dacl),
		cmocka_unit_test(test_M10_is_null_dacl),
		cmocka_unit_test(test_M10_null_dacl_is_recognised),
		cmocka_unit_test(test_M10_dacl_without_dacl_present_is_refused),
		cmocka_unit_test(test_M10_empty_dacl),
		cmocka_unit_test(test_M11_write_file_drops_inheritance),
		cmocka_unit_test(test_M11_read_file_drops_inheritance),
		cmocka_unit_test(test_M12_max_masks_spec_example_1),
		cmocka_unit_test(test_M12_max_masks_spec_example_2),
		cmocka_unit_test(test_M12_mode_equivalent_descriptor_reads_back_via_M1),
		cmocka_unit_test(test_M13_fixed_sd_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
