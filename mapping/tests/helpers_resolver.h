/*
 * helpers_resolver.h - a deterministic SID <-> id resolver for the tests.
 *
 * Domain SIDs S-1-5-21-1-2-3-<rid>:
 *   rid 1000..1999  <-> uid rid             (RICHACL_ID_UID)
 *   rid 2000..2999  <-> gid rid             (RICHACL_ID_GID)
 *   rid 3000..3099  <-> uid and gid rid     (RICHACL_ID_BOTH)
 * Everything else is -ENOENT (so S-1-22-* is left to the library's
 * fallback).  A lookup can be made to fail: set fail_code (e.g. -EIO) and
 * fail_id (a rid/uid/gid), or fail_all to fail every lookup.
 */
#ifndef RICHACL_TEST_HELPERS_RESOLVER_H
#define RICHACL_TEST_HELPERS_RESOLVER_H

#include "richacl_ntsd.h"

#define TEST_RID_USER_MIN	1000
#define TEST_RID_USER_MAX	1999
#define TEST_RID_GROUP_MIN	2000
#define TEST_RID_GROUP_MAX	2999
#define TEST_RID_BOTH_MIN	3000
#define TEST_RID_BOTH_MAX	3099

struct test_resolver {
	struct richacl_resolver res;	/* pass &tr.res to the library */
	int fail_code;			/* 0: lookups never fail */
	uint32_t fail_id;		/* the id / rid whose lookup returns fail_code */
	bool fail_all;			/* every lookup returns fail_code */
	unsigned int calls;		/* number of lookups made */
};

void test_resolver_init(struct test_resolver *tr);
/* S-1-5-21-1-2-3-<rid> */
void test_domain_sid(struct nt_sid *sid, uint32_t rid);
/* S-1-22-1-<uid> (user) or S-1-22-2-<gid> (group) */
void test_unix_sid(struct nt_sid *sid, bool group, uint32_t id);
/* parse a SID string that the test knows to be valid (asserts) */
struct nt_sid test_sid(const char *str);

#endif
