/*
 * fake_wbclient.c - a stand-in for libwbclient.so.0 with the five calls
 * richacl-migrate-ntacl makes, for test_migrate.py (loaded through the
 * tool's test hook RICHACL_MIGRATE_WBCLIENT; never installed).
 *
 * It answers like winbindd with an idmap that hands out ID_TYPE_BOTH
 * (idmap_rid), for SIDs S-1-5-21-77-77-77-RID:
 *   RID 1000-1999  uid and gid RID, a user          (wbcLookupSid: 1)
 *   RID 2000-2999  uid and gid RID, a domain group  (wbcLookupSid: 2)
 *   RID 3000-3999  uid and gid RID, type unknown    (wbcLookupSid fails)
 *   RID 4000-4999  uid RID;  RID 5000-5999  gid RID
 *   RID 9999       winbindd "goes away": this lookup and every wbcPing
 *                  after it fail
 * any other SID: no mapping.  uid/gid -> SID: not known (passdb answers).
 */
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

struct wbcDomainSid {
	uint8_t sid_rev_num;
	uint8_t num_auths;
	uint8_t id_auth[6];
	uint32_t sub_auths[15];
};

struct wbcUnixId {
	int type;		/* 0 none, 1 uid, 2 gid, 3 both */
	union { uid_t uid; gid_t gid; } id;
};

int wbcPing(void);
int wbcSidsToUnixIds(const struct wbcDomainSid *sids, uint32_t num, struct wbcUnixId *ids);
int wbcLookupSid(const struct wbcDomainSid *sid, char **domain, char **name, int *type);
int wbcUidToSid(uid_t uid, struct wbcDomainSid *sid);
int wbcGidToSid(gid_t gid, struct wbcDomainSid *sid);
void wbcFreeMemory(void *p);

static int gone;

/* the RID of S-1-5-21-77-77-77-RID, or -1 */
static long rid_of(const struct wbcDomainSid *s)
{
	static const uint8_t nt_auth[6] = { 0, 0, 0, 0, 0, 5 };

	if (s->sid_rev_num != 1 || s->num_auths != 5 || memcmp(s->id_auth, nt_auth, 6) ||
	    s->sub_auths[0] != 21 || s->sub_auths[1] != 77 || s->sub_auths[2] != 77 ||
	    s->sub_auths[3] != 77)
		return -1;
	return s->sub_auths[4];
}

int wbcPing(void)
{
	return gone ? 5 : 0;
}

int wbcSidsToUnixIds(const struct wbcDomainSid *sids, uint32_t num, struct wbcUnixId *ids)
{
	uint32_t i;

	for (i = 0; i < num; i++) {
		long rid = rid_of(&sids[i]);

		ids[i].type = 0;
		ids[i].id.uid = (uid_t)-1;
		if (rid == 9999) {
			gone = 1;
			return 5;
		}
		if (rid >= 1000 && rid < 4000)
			ids[i].type = 3;
		else if (rid >= 4000 && rid < 5000)
			ids[i].type = 1;
		else if (rid >= 5000 && rid < 6000)
			ids[i].type = 2;
		if (ids[i].type)
			ids[i].id.uid = (uid_t)rid;
	}
	return 0;
}

int wbcLookupSid(const struct wbcDomainSid *sid, char **domain, char **name, int *type)
{
	static char dom[] = "FAKE", nm[] = "name";
	long rid = rid_of(sid);

	if (rid >= 1000 && rid < 2000)
		*type = 1;
	else if (rid >= 2000 && rid < 3000)
		*type = 2;
	else
		return 3;
	*domain = dom;
	*name = nm;
	return 0;
}

int wbcUidToSid(uid_t uid, struct wbcDomainSid *sid)
{
	(void)uid;
	(void)sid;
	return 3;
}

int wbcGidToSid(gid_t gid, struct wbcDomainSid *sid)
{
	(void)gid;
	(void)sid;
	return 3;
}

void wbcFreeMemory(void *p)
{
	(void)p;
}
