/*
 * helpers_resolver.c - the deterministic test resolver (helpers_resolver.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_resolver.h"

static const uint32_t test_domain[4] = { 21, 1, 2, 3 };

void test_domain_sid(struct nt_sid *sid, uint32_t rid)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 5;
	sid->id_auth[5] = 5;
	memcpy(sid->sub_auths, test_domain, sizeof(test_domain));
	sid->sub_auths[4] = rid;
}

void test_unix_sid(struct nt_sid *sid, bool group, uint32_t id)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 2;
	sid->id_auth[5] = 22;
	sid->sub_auths[0] = group ? 2 : 1;
	sid->sub_auths[1] = id;
}

struct nt_sid test_sid(const char *str)
{
	struct nt_sid sid;

	if (nt_sid_from_string(str, &sid) != 0) {
		fprintf(stderr, "test_sid: invalid SID string \"%s\"\n", str);
		abort();
	}
	return sid;
}

static bool in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi;
}

static int injected_failure(struct test_resolver *tr, uint32_t id)
{
	tr->calls++;
	if (tr->fail_code && (tr->fail_all || tr->fail_id == id))
		return tr->fail_code;
	return 0;
}

static int tr_sid_to_id(void *ctx, const struct nt_sid *sid, enum richacl_id_type *type,
			uint32_t *id)
{
	struct test_resolver *tr = ctx;
	struct nt_sid domain;
	uint32_t rid;
	int ret;

	if (sid->num_auths != 5) {
		ret = injected_failure(tr, UINT32_MAX);
		return ret ? ret : -ENOENT;
	}
	rid = sid->sub_auths[4];
	ret = injected_failure(tr, rid);
	if (ret)
		return ret;
	test_domain_sid(&domain, rid);
	if (!nt_sid_equal(sid, &domain))
		return -ENOENT;
	if (in_range(rid, TEST_RID_USER_MIN, TEST_RID_USER_MAX))
		*type = RICHACL_ID_UID;
	else if (in_range(rid, TEST_RID_GROUP_MIN, TEST_RID_GROUP_MAX))
		*type = RICHACL_ID_GID;
	else if (in_range(rid, TEST_RID_BOTH_MIN, TEST_RID_BOTH_MAX))
		*type = RICHACL_ID_BOTH;
	else
		return -ENOENT;
	*id = rid;
	return 0;
}

static int tr_uid_to_sid(void *ctx, uint32_t uid, struct nt_sid *sid)
{
	int ret = injected_failure(ctx, uid);

	if (ret)
		return ret;
	if (!in_range(uid, TEST_RID_USER_MIN, TEST_RID_USER_MAX) &&
	    !in_range(uid, TEST_RID_BOTH_MIN, TEST_RID_BOTH_MAX))
		return -ENOENT;
	test_domain_sid(sid, uid);
	return 0;
}

static int tr_gid_to_sid(void *ctx, uint32_t gid, struct nt_sid *sid)
{
	int ret = injected_failure(ctx, gid);

	if (ret)
		return ret;
	if (!in_range(gid, TEST_RID_GROUP_MIN, TEST_RID_GROUP_MAX) &&
	    !in_range(gid, TEST_RID_BOTH_MIN, TEST_RID_BOTH_MAX))
		return -ENOENT;
	test_domain_sid(sid, gid);
	return 0;
}

void test_resolver_init(struct test_resolver *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->res.ctx = tr;
	tr->res.sid_to_id = tr_sid_to_id;
	tr->res.uid_to_sid = tr_uid_to_sid;
	tr->res.gid_to_sid = tr_gid_to_sid;
}
