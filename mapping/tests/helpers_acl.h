/*
 * helpers_acl.h - small shared helpers for the cmocka tests: build an acl
 * from text, compare acls with a readable message, and a fixed name
 * service so that tests never depend on the host's passwd/group files.
 */
#ifndef RICHACL_TESTS_HELPERS_ACL_H
#define RICHACL_TESTS_HELPERS_ACL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "richacl.h"

/*
 * Fixed names (the ones algorithms.md 7.3 uses, plus a few):
 *   users:  root 0, daemon 1, bin 2, alice 1001, bob 1002, carol 1003
 *   groups: root 0, adm 4, staff 50, users 100
 */
extern const struct richacl_names helper_names;

/* parse text (names: helper_names) or fail the test at file:line */
struct richacl *helper_acl_at(const char *text, const char *file, int line);
#define helper_acl(text) helper_acl_at((text), __FILE__, __LINE__)

/* the acl as numeric, unaligned text with flags and mask lines (free it) */
char *helper_acl_text(const struct richacl *acl);

/* fail at file:line, printing both acls, unless they are richacl_equal */
void helper_assert_acl_equal(const struct richacl *actual,
			     const struct richacl *expected,
			     const char *file, int line);
#define assert_acl_equal(actual, expected) \
	helper_assert_acl_equal((actual), (expected), __FILE__, __LINE__)

/* compare with the acl that expected_text parses to */
void helper_assert_acl_equal_text(const struct richacl *actual,
				  const char *expected_text,
				  const char *file, int line);
#define assert_acl_equal_text(actual, expected_text) \
	helper_assert_acl_equal_text((actual), (expected_text), __FILE__, __LINE__)

#endif
