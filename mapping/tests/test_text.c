/*
 * test_text.c - the text form (src/text.c).
 *
 * Every expected string is taken from algorithms.md: the observed parse
 * results and error messages of 7.1, the observed formatting of 7.2, and
 * the getrichacl outputs of 7.3 (whose formats are: default = SIMPLIFY |
 * ALIGN, --long adds LONG, --full drops SIMPLIFY, --raw = SHOW_MASKS |
 * ALIGN, --unaligned drops ALIGN; context = the file type).  Where text.c
 * deliberately deviates from upstream (D1-D7 in text.c), the test says so.
 * Names come from helpers_acl.c (daemon 1, bin 2, adm 4; 1234 and 4321
 * have no name), as in 7.3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_acl.h"

#define FILE_CTX RICHACL_TEXT_FILE_CONTEXT
#define DIR_CTX RICHACL_TEXT_DIRECTORY_CONTEXT
#define ALIGN RICHACL_TEXT_ALIGN
#define SIMPLIFY RICHACL_TEXT_SIMPLIFY
#define LONG RICHACL_TEXT_LONG
#define MASKS RICHACL_TEXT_SHOW_MASKS
#define NUMERIC RICHACL_TEXT_NUMERIC_IDS

/* getrichacl's formats (7.3) */
#define GET_DEFAULT (SIMPLIFY | ALIGN)
#define GET_RAW (MASKS | ALIGN)

static void assert_text(const struct richacl *acl, unsigned int fmt,
			const struct richacl_names *names, const char *expected)
{
	char *text = richacl_to_text(acl, fmt, names);

	assert_non_null(text);
	assert_string_equal(text, expected);
	free(text);
}

/* parse (helper names) and print unaligned, numeric, no masks */
static void assert_parses_to(const char *input, const char *expected)
{
	struct richacl *acl = helper_acl(input);

	assert_text(acl, 0, NULL, expected);
	richacl_free(acl);
}

static void assert_parse_error(const char *input,
			       const struct richacl_names *names, int code,
			       size_t column, const char *msg)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = (struct richacl *)&err;	/* must stay untouched */
	unsigned int seen = 0xdead;
	int ret;

	ret = richacl_from_text(input, &seen, names, &acl, &err);
	if (ret != code)
		fail_msg("'%s': returned %d (%s), expected %d", input, ret,
			 err.msg, code);
	assert_int_equal(err.code, code);
	if (strcmp(err.msg, msg))
		fail_msg("'%s': message \"%s\", expected \"%s\"", input, err.msg, msg);
	if (err.column != column)
		fail_msg("'%s': column %zu, expected %zu", input, err.column, column);
	assert_ptr_equal(acl, (struct richacl *)&err);
	assert_int_equal(seen, 0xdead);
	/* err is optional */
	assert_int_equal(richacl_from_text(input, NULL, names, &acl, NULL), code);
}

/* ---- 7.1: observed parse results ---- */

static void test_7_1_numbers_in_masks_flags_and_types(void **state)
{
	assert_parses_to("everyone@:rw/0x800::allow", "everyone@:rw/0x800::allow\n");
	assert_parses_to("everyone@:r:0x10:allow", "everyone@:r:0x10:allow\n");
	assert_parses_to("everyone@:r::5", "everyone@:r::5\n");
	assert_parses_to("everyone@:r::0x1", "everyone@:r::deny\n");
	assert_parses_to("flags:0x10", "flags:0x10\n");
	assert_parses_to("flags:a-p", "flags:ap\n");
	assert_parses_to("flags:oa", "flags:ao\n");
	assert_parses_to("flags:Owner_Rights/masked", "flags:mo\n");
	assert_parses_to("flags:0x20", "flags:o\n");
}

static void test_7_1_case_insensitive_names_case_sensitive_letters(void **state)
{
	assert_parses_to("EVERYONE@:R::ALLOW", "everyone@:R::allow\n");
	assert_parses_to("Owner@:READ_DATA/Write_Data::Allow", "owner@:rw::allow\n");
}

static void test_7_1_prefixes_and_numeric_ids(void **state)
{
	assert_parses_to("u:5:r::allow", "user:5:r::allow\n");
	assert_parses_to("G:5:r::allow", "group:5:r::allow\n");
	assert_parses_to("USER:5:r::allow Group:6:r::allow",
			 "user:5:r::allow\ngroup:6:r::allow\n");
	assert_parses_to("user:0x10:r::allow", "user:16:r::allow\n");
	assert_parses_to("user:010:r::allow", "user:8:r::allow\n");
}

static void test_7_1_unmapped_who_is_stored_verbatim(void **state)
{
	struct richacl *acl = helper_acl("user:foo:r:u:allow group:S-1-5-32-544@x:r:u:allow");

	assert_text(acl, 0, NULL, "user:foo:r:u:allow\ngroup:S-1-5-32-544@x:r:u:allow\n");
	assert_true(richace_is_unmapped(&acl->a_entries[0]));
	assert_string_equal(acl->a_entries[0].e_who, "foo");
	assert_false(acl->a_entries[0].e_flags & RICHACE_IDENTIFIER_GROUP);
	assert_true(acl->a_entries[1].e_flags & RICHACE_IDENTIFIER_GROUP);
	richacl_free(acl);
}

static void test_7_1_separators(void **state)
{
	struct richacl *acl = helper_acl(" , everyone@:r::allow,,  owner@:w::deny ");

	assert_acl_equal_text(acl, "everyone@:r::allow owner@:w::deny");
	assert_int_equal(acl->a_count, 2);
	richacl_free(acl);
	assert_parses_to("\towner@:r::allow\r\n\v\fgroup@:w::allow\n",
			 "owner@:r::allow\ngroup@:w::allow\n");
	assert_parses_to("", "");
	assert_parses_to(" ,\n", "");
}

static void test_7_1_long_permission_names_all_nineteen(void **state)
{
	assert_parses_to("owner@:read_data/list_directory/write_data/add_file/"
			 "append_data/add_subdirectory/execute/delete_child/delete/"
			 "read_attributes/write_attributes/read_named_attrs/"
			 "write_named_attrs/read_acl/write_acl/write_owner/synchronize/"
			 "write_retention/write_retention_hold::allow",
			 "owner@:rwpxdDaARWcCoSeE::allow\n");
	assert_parses_to("owner@:r-w-p/x//0x10000::allow", "owner@:rwpxD::allow\n");
}

static void test_7_1_flag_names(void **state)
{
	assert_parses_to("owner@:r:file_inherit/dir_inherit/no_propagate/inherit_only/"
			 "inherited:allow user:x:r:unmapped:allow",
			 "owner@:r:fdnia:allow\nuser:x:r:u:allow\n");
	assert_parses_to("flags:masked/write_through/auto_inherit/protected/defaulted",
			 "flags:mwapd\n");
	assert_parses_to("flags:a flags:p", "flags:p\n");	/* replaces */
}

static void test_7_1_seen_bits(void **state)
{
	struct richacl *acl = NULL;
	unsigned int seen = 0;

	assert_int_equal(richacl_from_text("owner:rwp::mask other:r::mask flags:m",
					   &seen, NULL, &acl, NULL), 0);
	assert_int_equal(seen, RICHACL_TEXT_OWNER_MASK | RICHACL_TEXT_OTHER_MASK |
			 RICHACL_TEXT_FLAGS);
	assert_int_equal(acl->a_owner_mask, 0x7);
	assert_int_equal(acl->a_group_mask, 0);
	assert_int_equal(acl->a_other_mask, 0x1);
	assert_int_equal(acl->a_flags, RICHACL_MASKED);
	richacl_free(acl);
	assert_int_equal(richacl_from_text("GROUP:x::MASK", &seen, NULL, &acl, NULL), 0);
	assert_int_equal(seen, RICHACL_TEXT_GROUP_MASK);
	assert_int_equal(acl->a_group_mask, RICHACE_EXECUTE);
	richacl_free(acl);
	assert_int_equal(richacl_from_text("owner@:r::allow", &seen, NULL, &acl, NULL), 0);
	assert_int_equal(seen, 0);
	richacl_free(acl);
}

/* special who sets special_who and nothing else; prefix sets identifier_group */
static void test_7_1_identifier_flags(void **state)
{
	struct richacl *acl = helper_acl("group@:r::allow group:adm:r::allow user:daemon:r::allow");

	assert_int_equal(acl->a_entries[0].e_flags, RICHACE_SPECIAL_WHO);
	assert_int_equal(acl->a_entries[0].e_id, RICHACE_GROUP_SPECIAL_ID);
	assert_int_equal(acl->a_entries[1].e_flags, RICHACE_IDENTIFIER_GROUP);
	assert_int_equal(acl->a_entries[1].e_id, 4);
	assert_int_equal(acl->a_entries[2].e_flags, 0);
	assert_int_equal(acl->a_entries[2].e_id, 1);
	richacl_free(acl);
}

/* ---- 7.1: observed error messages (code, column = 1-based offset) ---- */

static void test_7_1_error_prefixed_special_who(void **state)
{
	assert_parse_error("user:owner@:r::allow", &helper_names, -EINVAL, 6,
			   "Invalid entry 'owner@:r::allow'");
	assert_parse_error("group:everyone@:r::allow", &helper_names, -EINVAL, 7,
			   "Invalid entry 'everyone@:r::allow'");
}

static void test_7_1_error_domain_and_special_user(void **state)
{
	assert_parse_error("everyone@foo:r::allow", &helper_names, -ENOENT, 1,
			   "Domain name not supported in 'everyone@foo'");
	assert_parse_error("foo@:r::allow", &helper_names, -ENOENT, 1,
			   "Special user 'foo@' not supported");
}

static void test_7_1_error_unknown_user_and_group(void **state)
{
	assert_parse_error("user:nosuchuser:r::allow", &helper_names, -ENOENT, 6,
			   "User 'nosuchuser' does not exist");
	assert_parse_error("group:nosuchgroup:r::allow", &helper_names, -ENOENT, 7,
			   "Group 'nosuchgroup' does not exist");
	/* a bare name is looked up as a user before the prefix check */
	assert_parse_error("joe:r::allow", &helper_names, -ENOENT, 1,
			   "User 'joe' does not exist");
	assert_parse_error("root:r::allow", &helper_names, -EINVAL, 1,
			   "Invalid entry 'root:r::allow'");
	/* names == NULL: numeric ids only */
	assert_parse_error("user:daemon:r::allow", NULL, -ENOENT, 6,
			   "User 'daemon' does not exist");
	assert_parse_error("owner@:r::allow g:adm:r::allow", NULL, -ENOENT, 19,
			   "Group 'adm' does not exist");
}

static void test_7_1_error_type_mask_and_flags(void **state)
{
	assert_parse_error("everyone@:r::maybe", NULL, -EINVAL, 14,
			   "Invalid entry type 'maybe'");
	assert_parse_error("everyone@:rz::allow", NULL, -EINVAL, 11,
			   "Invalid access mask 'rz'");
	assert_parse_error("everyone@:r/rz::allow", NULL, -EINVAL, 13,
			   "Invalid access mask 'rz'");
	assert_parse_error("everyone@:r:z:allow", NULL, -EINVAL, 13,
			   "Invalid entry flag 'z'");
	/* 'i' and 'd' are letters; the rest is reported */
	assert_parse_error("everyone@:r:identifier_group:allow", NULL, -EINVAL, 15,
			   "Invalid entry flag 'entifier_group'");
	assert_parse_error("flags:mz", NULL, -EINVAL, 8, "Invalid acl flag 'z'");
}

static void test_7_1_error_file_masks(void **state)
{
	assert_parse_error("bogus:r::mask", NULL, -EINVAL, 1,
			   "Invalid file mask 'bogus'");
	assert_parse_error("user:owner:r::mask", NULL, -EINVAL, 6,
			   "Invalid entry 'owner:r::mask'");
}

static void test_7_1_error_missing_fields(void **state)
{
	assert_parse_error("everyone@:r", NULL, -EINVAL, 1,
			   "Invalid entry 'everyone@:r'");
	assert_parse_error("everyone@", NULL, -EINVAL, 1, "Invalid entry 'everyone@'");
	assert_parse_error("everyone@:r:", NULL, -EINVAL, 1,
			   "Invalid entry 'everyone@:r:'");
	/* the flags value is empty, so 'a' is an item of its own */
	assert_parse_error("flags: a", NULL, -EINVAL, 8, "Invalid entry 'a'");
	/* four colons but no prefix: who "x", perms "5", flags "r" */
	assert_parse_error("owner@:r::allow x:5:r::allow", NULL, -EINVAL, 21,
			   "Invalid entry flag 'r'");
}

static void test_error_missing_user_callback_means_no_such_user(void **state)
{
	struct richacl_names failing = helper_names;

	failing.user_to_id = NULL;	/* no user database: ENOENT */
	assert_parse_error("user:alice:r::allow", &failing, -ENOENT, 6,
			   "User 'alice' does not exist");
}

static int lookup_eio(void *ctx, const char *name, uint32_t *id)
{
	return -EIO;
}

static void test_error_lookup_failure_keeps_its_errno(void **state)
{
	struct richacl_names failing = helper_names;

	failing.group_to_id = lookup_eio;
	assert_parse_error("g:staff:r::allow", &failing, -EIO, 3,
			   "Looking up group 'staff' failed: Input/output error");
}

static void test_error_null_text(void **state)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;

	assert_int_equal(richacl_from_text(NULL, NULL, NULL, &acl, &err), -EINVAL);
	assert_string_equal(err.msg, "No acl text");
	assert_null(acl);
}

/* ---- deliberate deviations (text.c D1-D7) ---- */

/* D2: numbers inside flag lists work (upstream: "Invalid entry flag '0x10'") */
static void test_d2_numbers_inside_flag_lists(void **state)
{
	assert_parses_to("everyone@:r:f/0x10:allow", "everyone@:r:f/0x10:allow\n");
	assert_parses_to("flags:a/0x10", "flags:a/0x10\n");
	assert_parses_to("owner@:r:0x1/d:allow", "owner@:r:fd:allow\n");
}

/* D3: numbers that do not fit their field are errors, not truncated */
static void test_d3_out_of_range_numbers_are_errors(void **state)
{
	assert_parse_error("everyone@:0x100000000::allow", NULL, -EINVAL, 11,
			   "Invalid access mask '0x100000000'");
	assert_parse_error("everyone@:r::0x10000", NULL, -EINVAL, 14,
			   "Invalid entry type '0x10000'");
	assert_parse_error("everyone@:r:0x10000:allow", NULL, -EINVAL, 13,
			   "Invalid entry flag '0x10000'");
	assert_parse_error("flags:0x100", NULL, -EINVAL, 7, "Invalid acl flag '0x100'");
	assert_parse_error("user:4294967296:r::allow", NULL, -ENOENT, 6,
			   "User '4294967296' does not exist");
	assert_parse_error("user:-2147483649:r::allow", NULL, -ENOENT, 6,
			   "User '-2147483649' does not exist");
	/* ids print signed (7.2), so negative ids parse back */
	assert_parses_to("user:-1:r::allow group:-2147483648:r::allow",
			 "user:-1:r::allow\ngroup:-2147483648:r::allow\n");
}

/* D4: identifier bits cannot be smuggled in through numeric entry flags */
static void test_d4_numeric_identifier_flags_rejected(void **state)
{
	assert_parse_error("user:5:r:0x40:allow", NULL, -EINVAL, 10,
			   "Invalid entry flag '0x40'");
	assert_parse_error("1:r:0x4000:allow", NULL, -EINVAL, 5,
			   "Invalid entry flag '0x4000'");
	assert_parses_to("user:x:r:0x2000:allow", "user:x:r:u:allow\n");
}

/* D5: flags of a file mask must be empty; an empty who is an error */
static void test_d5_mask_flags_and_empty_who(void **state)
{
	assert_parse_error("owner:r:f:mask", NULL, -EINVAL, 9,
			   "Invalid file mask flags 'f'");
	assert_parse_error("user::r::allow", NULL, -EINVAL, 6,
			   "Invalid entry ':r::allow'");
	assert_parse_error("user::r:u:allow", NULL, -EINVAL, 6,
			   "Invalid entry ':r:u:allow'");
}

/* D1: fields end at the separator that ends the item */
static void test_d1_fields_do_not_cross_separators(void **state)
{
	assert_parse_error("flags: a owner@:r::allow", NULL, -EINVAL, 8,
			   "Invalid entry 'a'");
	assert_parse_error("owner@:r: :allow", NULL, -EINVAL, 1,
			   "Invalid entry 'owner@:r:'");
}

/* D6: awkward unmapped identifiers are escaped and round-trip */
static void test_d6_unmapped_who_escapes(void **state)
{
	struct richacl *acl = richacl_alloc(0), *back = NULL;
	struct richace ace = { 0, 0, RICHACE_READ_DATA, 0, NULL };
	char *text;

	assert_int_equal(richace_set_unmapped(&ace, "a b:c,d\\e\\101\n", false), 0);
	assert_int_equal(richacl_append_entry(acl, &ace), 0);
	free(ace.e_who);
	text = richacl_to_text(acl, 0, NULL);
	assert_string_equal(text, "user:a\\040b\\072c\\054d\\e\\134101\\012:r:u:allow\n");
	assert_int_equal(richacl_from_text(text, NULL, NULL, &back, NULL), 0);
	assert_acl_equal(back, acl);
	free(text);
	richacl_free(back);
	richacl_free(acl);
	/* a literal backslash that is not an escape stays: DOMAIN\user */
	acl = helper_acl("user:DOMAIN\\user:r:u:allow");
	assert_string_equal(acl->a_entries[0].e_who, "DOMAIN\\user");
	assert_text(acl, 0, NULL, "user:DOMAIN\\user:r:u:allow\n");
	richacl_free(acl);
	/* \000 would truncate the identifier */
	assert_parse_error("user:a\\000:r:u:allow", NULL, -EINVAL, 6,
			   "Invalid entry 'a\\000:r:u:allow'");
}

static int odd_names(void *ctx, uint32_t id, char *buf, size_t size)
{
	static const char *const names[] = { "12", "x@y", "a b", "", "ok" };

	if (id >= 5)
		return -ENOENT;
	snprintf(buf, size, "%s", names[id]);
	return 0;
}

/* fills the whole buffer: the real name may be longer */
static int huge_name(void *ctx, uint32_t id, char *buf, size_t size)
{
	memset(buf, 'n', size - 1);
	buf[size - 1] = '\0';
	return 0;
}

/* D7: names that would not parse back are printed as numbers */
static void test_d7_names_that_do_not_round_trip_print_numeric(void **state)
{
	struct richacl_names names = { 0 };
	struct richacl *acl = helper_acl(
		"user:0:r::allow user:1:r::allow user:2:r::allow user:3:r::allow "
		"user:4:r::allow group:4:r::allow");

	names.id_to_user = odd_names;
	assert_text(acl, 0, &names,
		    "user:0:r::allow\nuser:1:r::allow\nuser:2:r::allow\n"
		    "user:3:r::allow\nuser:ok:r::allow\ngroup:4:r::allow\n");
	names.id_to_group = huge_name;
	assert_text(acl, 0, &names,
		    "user:0:r::allow\nuser:1:r::allow\nuser:2:r::allow\n"
		    "user:3:r::allow\nuser:ok:r::allow\ngroup:4:r::allow\n");
	richacl_free(acl);
}

/* ---- 7.2: observed formatting of unusual values ---- */

static void test_7_2_unusual_values(void **state)
{
	struct richacl *acl = helper_acl("everyone@:rwaS/0x800:0x10:5");

	assert_text(acl, ALIGN | SIMPLIFY | FILE_CTX, NULL,
		    " everyone@:rw-----------/0x800:0x10:5\n");
	assert_text(acl, ALIGN | FILE_CTX, NULL,
		    " everyone@:rw----a------S--/0x800:0x10:5\n");
	assert_text(acl, SIMPLIFY | FILE_CTX, NULL, "everyone@:rw/0x800:0x10:5\n");
	assert_text(acl, LONG | SIMPLIFY | FILE_CTX, NULL,
		    "everyone@:read_data/write_data/0x800:0x10:5\n");
	richacl_free(acl);
}

static void test_7_2_ids_print_signed(void **state)
{
	struct richacl *acl = helper_acl("user:4294967294:r::allow group:-1:r::allow");

	assert_int_equal(acl->a_entries[0].e_id, 4294967294u);
	assert_int_equal(acl->a_entries[1].e_id, 4294967295u);
	assert_text(acl, NUMERIC, &helper_names, "user:-2:r::allow\ngroup:-1:r::allow\n");
	richacl_free(acl);
}

/* ---- 7.3: getrichacl outputs (formatting part) ---- */

static struct richacl *acl_mode_0644(void)
{
	return helper_acl("owner:rwp::mask group:r::mask other:r::mask "
			  "owner@:rwp::allow everyone@:r::allow");
}

static struct richacl *acl_mode_0755(void)
{
	return helper_acl("owner:rwpxd::mask group:rx::mask other:rx::mask "
			  "owner@:rwpxd::allow everyone@:rx::allow");
}

static void test_7_3_default_format(void **state)
{
	struct richacl *f = acl_mode_0644(), *d = acl_mode_0755();

	assert_text(f, GET_DEFAULT | FILE_CTX, &helper_names,
		    "    owner@:rwp----------::allow\n"
		    " everyone@:r------------::allow\n");
	assert_text(d, GET_DEFAULT | DIR_CTX, &helper_names,
		    "    owner@:rwpxd--------::allow\n"
		    " everyone@:r--x---------::allow\n");
	richacl_free(f);
	richacl_free(d);
}

static void test_7_3_long_format(void **state)
{
	struct richacl *f = acl_mode_0644(), *d = acl_mode_0755();

	assert_text(f, GET_DEFAULT | LONG | FILE_CTX, &helper_names,
		    "    owner@:read_data/write_data/append_data::allow\n"
		    " everyone@:read_data::allow\n");
	assert_text(d, GET_DEFAULT | LONG | DIR_CTX, &helper_names,
		    "    owner@:list_directory/add_file/add_subdirectory/execute/delete_child::allow\n"
		    " everyone@:list_directory/execute::allow\n");
	richacl_free(f);
	richacl_free(d);
}

static void test_7_3_full_and_unaligned(void **state)
{
	struct richacl *f = acl_mode_0644(), *d = acl_mode_0755();

	assert_text(f, ALIGN | FILE_CTX, &helper_names,
		    "    owner@:rwp-------------::allow\n"
		    " everyone@:r---------------::allow\n");
	assert_text(f, SIMPLIFY | FILE_CTX, &helper_names,
		    "owner@:rwp::allow\neveryone@:r::allow\n");
	assert_text(d, SIMPLIFY | DIR_CTX, &helper_names,
		    "owner@:rwpxd::allow\neveryone@:rx::allow\n");
	richacl_free(f);
	richacl_free(d);
}

static void test_7_3_raw_shows_masks(void **state)
{
	struct richacl *f = acl_mode_0644(), *d = acl_mode_0755();

	assert_text(f, GET_RAW | FILE_CTX, &helper_names,
		    "     owner:rwp-------------::mask\n"
		    "     group:r---------------::mask\n"
		    "     other:r---------------::mask\n"
		    "    owner@:rwp-------------::allow\n"
		    " everyone@:r---------------::allow\n");
	assert_text(d, GET_RAW | DIR_CTX, &helper_names,
		    "     owner:rwpxd-----------::mask\n"
		    "     group:r--x------------::mask\n"
		    "     other:r--x------------::mask\n"
		    "    owner@:rwpxd-----------::allow\n"
		    " everyone@:r--x------------::allow\n");
	assert_text(d, GET_RAW | LONG | DIR_CTX, &helper_names,
		    "     owner:list_directory/add_file/add_subdirectory/execute/delete_child::mask\n"
		    "     group:list_directory/execute::mask\n"
		    "     other:list_directory/execute::mask\n"
		    "    owner@:list_directory/add_file/add_subdirectory/execute/delete_child::allow\n"
		    " everyone@:list_directory/execute::allow\n");
	richacl_free(f);
	richacl_free(d);
}

static void test_7_3_empty_acl(void **state)
{
	struct richacl *z = richacl_alloc(0);

	assert_text(z, GET_DEFAULT | FILE_CTX, &helper_names, "");
	assert_text(z, GET_RAW | FILE_CTX, &helper_names,
		    " owner:----------------::mask\n"
		    " group:----------------::mask\n"
		    " other:----------------::mask\n");
	richacl_free(z);
}

static void test_7_3_names_and_numeric_ids(void **state)
{
	struct richacl *acl = helper_acl(
		"owner:rwpx::mask group:rx::mask other:r::mask "
		"owner@:rwp::allow user:daemon:r::allow group:adm:rw::deny "
		"u:1234:x::allow g:4321:r::allow everyone@:r::allow");

	assert_text(acl, GET_DEFAULT | FILE_CTX, &helper_names,
		    "      owner@:rwp----------::allow\n"
		    " user:daemon:r------------::allow\n"
		    "   group:adm:rw-----------::deny\n"
		    "   user:1234:---x---------::allow\n"
		    "  group:4321:r------------::allow\n"
		    "   everyone@:r------------::allow\n");
	assert_text(acl, GET_DEFAULT | NUMERIC | FILE_CTX, &helper_names,
		    "     owner@:rwp----------::allow\n"
		    "     user:1:r------------::allow\n"
		    "    group:4:rw-----------::deny\n"
		    "  user:1234:---x---------::allow\n"
		    " group:4321:r------------::allow\n"
		    "  everyone@:r------------::allow\n");
	/* names == NULL prints numeric ids too */
	assert_text(acl, GET_DEFAULT | FILE_CTX, NULL,
		    "     owner@:rwp----------::allow\n"
		    "     user:1:r------------::allow\n"
		    "    group:4:rw-----------::deny\n"
		    "  user:1234:---x---------::allow\n"
		    " group:4321:r------------::allow\n"
		    "  everyone@:r------------::allow\n");
	assert_text(acl, GET_RAW | FILE_CTX, &helper_names,
		    "       owner:rwpx------------::mask\n"
		    "       group:r--x------------::mask\n"
		    "       other:r---------------::mask\n"
		    "      owner@:rwp-------------::allow\n"
		    " user:daemon:r---------------::allow\n"
		    "   group:adm:rw--------------::deny\n"
		    "   user:1234:---x------------::allow\n"
		    "  group:4321:r---------------::allow\n"
		    "   everyone@:r---------------::allow\n");
	richacl_free(acl);
}

/* per-entry contexts: inherit-only drops the base, f/d add theirs */
static void test_7_3_directory_with_flags_and_contexts(void **state)
{
	struct richacl *d = helper_acl(
		"flags:a owner@:rwpxd:fd:allow everyone@:rwp:fdi:allow user:bin:D:d:deny");

	assert_text(d, GET_DEFAULT | DIR_CTX, &helper_names,
		    "     flags:a\n"
		    "    owner@:rwpxd--------:fd:allow\n"
		    " everyone@:rwp----------:fdi:allow\n"
		    "  user:bin:-----D-------:d:deny\n");
	assert_text(d, GET_DEFAULT | LONG | DIR_CTX, &helper_names,
		    "     flags:auto_inherit\n"
		    "    owner@:read_data/list_directory/write_data/add_file/append_data/"
		    "add_subdirectory/execute/delete_child:file_inherit/dir_inherit:allow\n"
		    " everyone@:read_data/list_directory/write_data/add_file/append_data/"
		    "add_subdirectory:file_inherit/dir_inherit/inherit_only:allow\n"
		    "  user:bin:delete:dir_inherit:deny\n");
	d->a_owner_mask = 0x67;	/* rwpxd */
	assert_text(d, MASKS | ALIGN | LONG | DIR_CTX, &helper_names,
		    "     flags:auto_inherit\n"
		    "     owner:read_data/list_directory/write_data/add_file/append_data/"
		    "add_subdirectory/execute/delete_child::mask\n"
		    "     group:::mask\n"
		    "     other:::mask\n"
		    "    owner@:read_data/list_directory/write_data/add_file/append_data/"
		    "add_subdirectory/execute/delete_child:file_inherit/dir_inherit:allow\n"
		    " everyone@:read_data/list_directory/write_data/add_file/append_data/"
		    "add_subdirectory:file_inherit/dir_inherit/inherit_only:allow\n"
		    "  user:bin:delete:dir_inherit:deny\n");
	richacl_free(d);
}

/* getrichacl --access prints richacl_mask_to_text of the granted set */
static void test_7_3_mask_to_text(void **state)
{
	static const struct {
		uint32_t mask;
		unsigned int fmt;
		const char *text;
	} cases[] = {
		{ 0x7, GET_DEFAULT | FILE_CTX, "rwp----------" },
		{ 0x67, GET_DEFAULT | DIR_CTX, "rwpxd--------" },
		{ 0x1, GET_DEFAULT | FILE_CTX, "r------------" },
		{ 0x20, GET_DEFAULT | FILE_CTX, "---x---------" },
		{ 0x1, GET_DEFAULT | LONG | FILE_CTX, "read_data" },
		{ 0x1, SIMPLIFY | FILE_CTX, "r" },
		{ 0x0, SIMPLIFY | FILE_CTX, "" },
		{ 0x1, ALIGN, "r---------------" },
		{ 0x1, LONG, "read_data/list_directory" },
		{ 0x1, LONG | FILE_CTX | DIR_CTX, "read_data/list_directory" },
		{ 0x120080, LONG | SIMPLIFY, "" },
		{ 0x120080, LONG, "read_attributes/read_acl/synchronize" },
		{ 0x800, 0, "0x800" },
		{ 0x800, LONG, "0x800" },
		{ 0x801, LONG | DIR_CTX, "list_directory/0x800" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = richacl_mask_to_text(cases[i].mask, cases[i].fmt);

		assert_non_null(text);
		if (strcmp(text, cases[i].text))
			fail_msg("mask 0x%x fmt 0x%x: '%s', expected '%s'",
				 cases[i].mask, cases[i].fmt, text, cases[i].text);
		free(text);
	}
}

/* ---- other formatting rules of 7.2 ---- */

static void test_7_2_alignment_is_at_least_six_with_flags_or_masks(void **state)
{
	struct richacl *acl = helper_acl("flags:p");

	assert_text(acl, ALIGN, NULL, " flags:p\n");
	assert_text(acl, 0, NULL, "flags:p\n");
	richacl_free(acl);
	acl = helper_acl("flags:d user:0:r::allow");
	assert_text(acl, ALIGN | SIMPLIFY, NULL, "  flags:d\n user:0:r------------::allow\n");
	richacl_free(acl);
}

static void test_7_2_flag_texts_and_unknown_bits(void **state)
{
	struct richacl *acl = helper_acl("flags:mwapd owner@:r:fdnia:allow");

	assert_text(acl, 0, NULL, "flags:mwapd\nowner@:r:fdnia:allow\n");
	assert_text(acl, LONG, NULL,
		    "flags:masked/write_through/auto_inherit/protected/defaulted\n"
		    "owner@:read_data/list_directory:file_inherit/dir_inherit/"
		    "no_propagate/inherit_only/inherited:allow\n");
	acl->a_flags |= 0x08;
	acl->a_entries[0].e_flags = RICHACE_SPECIAL_WHO | 0x10;
	assert_text(acl, 0, NULL, "flags:mwapd/0x8\nowner@:r:0x10:allow\n");
	acl->a_flags = 0x18;
	assert_text(acl, LONG, NULL,
		    "flags:0x18\nowner@:read_data/list_directory:0x10:allow\n");
	acl->a_flags = 0x30;
	assert_text(acl, LONG, NULL,
		    "flags:owner_rights/0x10\nowner@:read_data/list_directory:0x10:allow\n");
	assert_text(acl, 0, NULL, "flags:o/0x10\nowner@:r:0x10:allow\n");
	richacl_free(acl);
}

/* SHOW_MASKS with SIMPLIFY: masks cut to what effective allow entries grant */
static void test_7_2_simplified_masks_are_cut_to_effective_allows(void **state)
{
	struct richacl *acl = helper_acl(
		"owner:rwpxaS::mask group:rwp::mask other:rwxc::mask "
		"owner@:rw::allow everyone@:x::allow user:1:p:fi:allow group:2:D::deny");

	assert_text(acl, MASKS | SIMPLIFY, NULL,
		    "owner:rwx::mask\ngroup:rw::mask\nother:rwx::mask\n"
		    "owner@:rw::allow\neveryone@:x::allow\nuser:1:p:fi:allow\n"
		    "group:2:D::deny\n");
	assert_text(acl, MASKS, NULL,
		    "owner:rwpxaS::mask\ngroup:rwp::mask\nother:rwxc::mask\n"
		    "owner@:rw::allow\neveryone@:x::allow\nuser:1:p:fi:allow\n"
		    "group:2:D::deny\n");
	richacl_free(acl);
}

/* mask-line context: base plus f/d of effective entries only */
static void test_7_2_mask_line_context(void **state)
{
	struct richacl *acl = helper_acl("owner:r::mask owner@:r:fi:allow");

	assert_text(acl, MASKS | LONG | DIR_CTX, NULL,
		    "owner:list_directory::mask\ngroup:::mask\nother:::mask\n"
		    "owner@:read_data:file_inherit/inherit_only:allow\n");
	richacl_free(acl);
	acl = helper_acl("owner:r::mask owner@:r:f:allow");
	assert_text(acl, MASKS | LONG | DIR_CTX, NULL,
		    "owner:read_data/list_directory::mask\ngroup:::mask\nother:::mask\n"
		    "owner@:read_data/list_directory:file_inherit:allow\n");
	richacl_free(acl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_7_1_numbers_in_masks_flags_and_types),
		cmocka_unit_test(test_7_1_case_insensitive_names_case_sensitive_letters),
		cmocka_unit_test(test_7_1_prefixes_and_numeric_ids),
		cmocka_unit_test(test_7_1_unmapped_who_is_stored_verbatim),
		cmocka_unit_test(test_7_1_separators),
		cmocka_unit_test(test_7_1_long_permission_names_all_nineteen),
		cmocka_unit_test(test_7_1_flag_names),
		cmocka_unit_test(test_7_1_seen_bits),
		cmocka_unit_test(test_7_1_identifier_flags),
		cmocka_unit_test(test_7_1_error_prefixed_special_who),
		cmocka_unit_test(test_7_1_error_domain_and_special_user),
		cmocka_unit_test(test_7_1_error_unknown_user_and_group),
		cmocka_unit_test(test_7_1_error_type_mask_and_flags),
		cmocka_unit_test(test_7_1_error_file_masks),
		cmocka_unit_test(test_7_1_error_missing_fields),
		cmocka_unit_test(test_error_missing_user_callback_means_no_such_user),
		cmocka_unit_test(test_error_lookup_failure_keeps_its_errno),
		cmocka_unit_test(test_error_null_text),
		cmocka_unit_test(test_d1_fields_do_not_cross_separators),
		cmocka_unit_test(test_d2_numbers_inside_flag_lists),
		cmocka_unit_test(test_d3_out_of_range_numbers_are_errors),
		cmocka_unit_test(test_d4_numeric_identifier_flags_rejected),
		cmocka_unit_test(test_d5_mask_flags_and_empty_who),
		cmocka_unit_test(test_d6_unmapped_who_escapes),
		cmocka_unit_test(test_d7_names_that_do_not_round_trip_print_numeric),
		cmocka_unit_test(test_7_2_unusual_values),
		cmocka_unit_test(test_7_2_ids_print_signed),
		cmocka_unit_test(test_7_2_alignment_is_at_least_six_with_flags_or_masks),
		cmocka_unit_test(test_7_2_flag_texts_and_unknown_bits),
		cmocka_unit_test(test_7_2_simplified_masks_are_cut_to_effective_allows),
		cmocka_unit_test(test_7_2_mask_line_context),
		cmocka_unit_test(test_7_3_default_format),
		cmocka_unit_test(test_7_3_long_format),
		cmocka_unit_test(test_7_3_full_and_unaligned),
		cmocka_unit_test(test_7_3_raw_shows_masks),
		cmocka_unit_test(test_7_3_empty_acl),
		cmocka_unit_test(test_7_3_names_and_numeric_ids),
		cmocka_unit_test(test_7_3_directory_with_flags_and_contexts),
		cmocka_unit_test(test_7_3_mask_to_text),
	};

	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
