/*
 * test_map_property.c - M13 round trips, property-tested on random inputs.
 *
 * The seed is printed; RICHACL_TEST_SEED=N reproduces a run and
 * RICHACL_TEST_SCALE=P runs P percent of the default case counts.
 *
 * (a) Random descriptors that M7-M11 accept.  sd2 = get(set(sd)), i.e.
 *     richacl_to_nt_sd(richacl_from_nt_sd(sd)).  For every token of a pool
 *     (owner, group, users and groups with memberships, ID_BOTH ids, tokens
 *     with unmapped SIDs, an anonymous token) an ordered-ACE evaluator
 *     written here (first matching ACE decides each bit, inherit-only ACEs
 *     skipped) grants the same access under sd and sd2; and a simulation
 *     of Windows inheritance (CREATOR OWNER/GROUP replaced by the creator)
 *     gives children and grandchildren that grant every token the same
 *     access under sd and sd2.  A third check compares the evaluator on sd
 *     with the kernel's richacl check (richacl_access) on set(sd), for every
 *     token of a Linux process: Windows and the kernel must agree.
 * (b) Random richacls, masked ones included.  acl2 = set(get(acl)).  Every
 *     credential gets the same richacl_access from acl2 as from the
 *     unmasked form of acl (M2), and the children a new file / directory
 *     inherits from acl and acl2 grant every credential the same.  The
 *     masked acl itself grants every credential what its unmasked form
 *     grants, but for the always-allowed bits a/c/S (counted): no
 *     exception for the imprecision of algorithms.md 4.10, which
 *     apply_masks.c closes.
 * (c) Every mode, file and directory: get(mode) -> set gives an acl that the
 *     kernel stores as exactly that mode (M1 + M12).
 *
 * Documented normalisations (docs/mapping.md): a NULL DACL becomes
 * everyone@ allowed 0x1F01FF; on files inheritance flags go and
 * inherit-only ACEs are dropped; a SID that maps to an id comes back as that
 * id's canonical SID (all SIDs of one id are in the same tokens, as in
 * Samba, whose tokens carry S-1-22-1-<uid> / S-1-22-2-<gid> too);
 * CREATOR OWNER/GROUP ACEs come back inherit-only; an effective + inheritable
 * ACE for owner@ / group@ comes back as two ACEs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "richacl_ntsd.h"
#include "richacl_implicit.h"
#include "helpers_resolver.h"

/* ---- PRNG ---- */

struct rng {
	uint64_t s;
};

static uint64_t run_seed;

static uint32_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (uint32_t)((r->s * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned int below(struct rng *r, unsigned int n)
{
	return rnd(r) % n;
}

static bool chance(struct rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

static unsigned int scaled(unsigned int n)
{
	const char *env = getenv("RICHACL_TEST_SCALE");
	unsigned long pct = env ? strtoul(env, NULL, 0) : 100;

	n = (unsigned int)((unsigned long)n * pct / 100);
	return n ? n : 1;
}

static void rng_init(struct rng *r, const char *name, unsigned int salt)
{
	uint64_t z = run_seed + (uint64_t)salt * 0x9E3779B97F4A7C15ULL;

	/* splitmix64 of seed and salt: nearby seeds give unrelated streams */
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	r->s = (z ^ (z >> 31)) | 1;
	printf("%s: seed %" PRIu64 " (RICHACL_TEST_SEED)\n", name, run_seed);
}

/* ---- the world: users, groups, tokens ---- */

#define DOM(rid) "S-1-5-21-1-2-3-" #rid

struct person {
	uint32_t uid;
	uint32_t gid;
	unsigned int ngroups;
	uint32_t groups[4];		/* supplementary, the primary gid included */
};

/* BOTH ids 3001/3002: gid 3001 is only in uid 3001's token (Samba's ID_TYPE_BOTH) */
static const struct person people[] = {
	{ 1001, 2001, 2, { 2001, 2003 } },
	{ 1002, 2002, 1, { 2002 } },
	{ 1003, 2001, 3, { 2001, 2002, 100 } },
	{ 500, 100, 1, { 100 } },
	{ 3001, 3001, 2, { 3001, 2003 } },
	{ 3002, 3002, 1, { 3002 } },
	{ 1004, 9999, 1, { 9999 } },
	{ 1005, 2004, 2, { 2004, 2002 } },
};
#define NPEOPLE (sizeof(people) / sizeof(people[0]))

static const uint32_t file_owners[] = { 1001, 1002, 500, 3001, 1004 };
static const uint32_t file_groups[] = { 2001, 2002, 100, 3002, 2004 };

#define MAX_TOKEN_SIDS 16

struct token {
	unsigned int n;
	struct nt_sid sids[MAX_TOKEN_SIDS];
	int person;			/* index into people, -1 for no Linux process */
};

#define NTOKENS (NPEOPLE + 3)

static struct test_resolver world_resolver;

static void token_add(struct token *t, const struct nt_sid *sid)
{
	assert_true(t->n < MAX_TOKEN_SIDS);
	t->sids[t->n++] = *sid;
}

static void token_add_str(struct token *t, const char *s)
{
	struct nt_sid sid = test_sid(s);

	token_add(t, &sid);
}

/* the SID the resolver gives an id, or the Unix SID (as the library does) */
static void canonical_sid(bool group, uint32_t id, struct nt_sid *sid)
{
	const struct richacl_resolver *res = &world_resolver.res;
	int ret = group ? res->gid_to_sid(res->ctx, id, sid) : res->uid_to_sid(res->ctx, id, sid);

	if (ret == -ENOENT)
		test_unix_sid(sid, group, id);
	else
		assert_int_equal(ret, 0);
}

/* Samba-like token: every SID of the uid and of each gid, and Everyone */
static void person_token(const struct person *p, struct token *t, int index)
{
	struct nt_sid sid;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->person = index;
	canonical_sid(false, p->uid, &sid);
	token_add(t, &sid);
	test_unix_sid(&sid, false, p->uid);
	token_add(t, &sid);
	for (i = 0; i < p->ngroups; i++) {
		canonical_sid(true, p->groups[i], &sid);
		token_add(t, &sid);
		test_unix_sid(&sid, true, p->groups[i]);
		token_add(t, &sid);
	}
	token_add(t, &nt_sid_world);
}

static void all_tokens(struct token *tokens)
{
	unsigned int i;

	for (i = 0; i < NPEOPLE; i++)
		person_token(&people[i], &tokens[i], (int)i);
	/* a Linux user who also carries an unmapped SID */
	person_token(&people[7], &tokens[NPEOPLE], -1);
	token_add_str(&tokens[NPEOPLE], "S-1-5-21-9-9-9-77");
	/* SIDs that map to nothing (a foreign domain user, SYSTEM) */
	memset(&tokens[NPEOPLE + 1], 0, sizeof(struct token));
	tokens[NPEOPLE + 1].person = -1;
	token_add_str(&tokens[NPEOPLE + 1], "S-1-5-21-9-9-9-78");
	token_add_str(&tokens[NPEOPLE + 1], "S-1-5-18");
	token_add_str(&tokens[NPEOPLE + 1], "S-1-5-32-544");
	token_add(&tokens[NPEOPLE + 1], &nt_sid_world);
	/* anonymous: no SID at all */
	memset(&tokens[NPEOPLE + 2], 0, sizeof(struct token));
	tokens[NPEOPLE + 2].person = -1;
}

static bool token_has(const struct token *t, const struct nt_sid *sid)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (nt_sid_equal(&t->sids[i], sid))
			return true;
	return false;
}

static struct richacl_cred person_cred(const struct person *p)
{
	struct richacl_cred c = { p->uid, p->gid, p->ngroups, p->groups };

	return c;
}

/* ---- the NT side: an ordered-ACE evaluator and Windows inheritance ---- */

#define UNIVERSE RICHACE_VALID_MASK

/*
 * First matching ACE decides each bit; inherit-only ACEs do not apply.  An
 * OWNER RIGHTS ACE matches the token that holds owner, the SID of the
 * object's owner.  The owner's implicit READ_CONTROL and WRITE_DAC are left
 * out here; check_owner_write_dac() compares the owner's right to change the
 * DACL on its own (the kernel's is richacl_may_set(), not an acl entry).
 */
static uint32_t nt_access(const struct nt_sd *sd, const struct token *t,
			  const struct nt_sid *owner)
{
	uint32_t granted = 0, decided = 0;
	unsigned int i;

	if (!sd->dacl)
		return UNIVERSE;	/* NULL DACL: everything */
	for (i = 0; i < sd->dacl->num_aces; i++) {
		const struct nt_ace *ace = &sd->dacl->aces[i];
		uint32_t m = nt_map_generic_file(ace->mask);

		if (ace->flags & NT_ACE_INHERIT_ONLY)
			continue;
		if (!token_has(t, &ace->trustee) &&
		    !(nt_sid_equal(&ace->trustee, &nt_sid_owner_rights) && token_has(t, owner)))
			continue;
		if (ace->type == NT_ACE_ACCESS_ALLOWED)
			granted |= m & ~decided;
		decided |= m;
	}
	return granted & UNIVERSE;
}

static void acl_push(struct nt_acl *acl, const struct nt_ace *ace)
{
	acl->aces[acl->num_aces++] = *ace;
}

/*
 * The DACL a new child gets from its parent's DACL on Windows ([MS-DTYP]
 * 2.5.3.4, without object types): OI reaches files, CI directories (OI
 * alone reaches a directory as inherit-only, unless NP); NP stops after one
 * level; CREATOR OWNER / GROUP give an effective ACE for the creator and,
 * where inheritance goes on, an inherit-only copy of the creator ACE.
 */
static struct nt_sd *nt_inherit(const struct nt_sd *parent, bool child_is_dir,
				const struct nt_sid *creator, const struct nt_sid *creator_group)
{
	const uint8_t inherit = NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT;
	struct nt_sd *child = nt_sd_alloc();
	unsigned int i, n = parent->dacl ? parent->dacl->num_aces : 0;

	assert_non_null(child);
	child->control |= NT_SD_DACL_PRESENT;
	child->dacl = nt_acl_alloc(2 * n);
	child->dacl->num_aces = 0;
	for (i = 0; i < n; i++) {
		struct nt_ace ace = parent->dacl->aces[i];
		bool co = nt_sid_equal(&ace.trustee, &nt_sid_creator_owner);
		bool cg = nt_sid_equal(&ace.trustee, &nt_sid_creator_group);
		uint8_t f = ace.flags;

		ace.mask = nt_map_generic_file(ace.mask);
		if (child_is_dir) {
			if (f & NT_ACE_CONTAINER_INHERIT) {
				if (f & NT_ACE_NO_PROPAGATE_INHERIT)
					ace.flags = NT_ACE_INHERITED;
				else
					ace.flags = (f & inherit) | NT_ACE_INHERITED;
			} else if ((f & NT_ACE_OBJECT_INHERIT) &&
				   !(f & NT_ACE_NO_PROPAGATE_INHERIT)) {
				ace.flags = NT_ACE_OBJECT_INHERIT | NT_ACE_INHERIT_ONLY |
					    NT_ACE_INHERITED;
			} else {
				continue;
			}
		} else {
			if (!(f & NT_ACE_OBJECT_INHERIT))
				continue;
			ace.flags = NT_ACE_INHERITED;
		}
		if (co || cg) {
			if (!(ace.flags & NT_ACE_INHERIT_ONLY)) {
				struct nt_ace eff = ace;

				eff.flags = NT_ACE_INHERITED;
				eff.trustee = co ? *creator : *creator_group;
				acl_push(child->dacl, &eff);
			}
			if (ace.flags & inherit) {
				ace.flags |= NT_ACE_INHERIT_ONLY;
				acl_push(child->dacl, &ace);
			}
			continue;
		}
		acl_push(child->dacl, &ace);
	}
	return child;
}

/* ---- mapping calls ---- */

static struct richacl *set_acl(const struct nt_sd *sd, const struct richacl_map_file *f)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;
	int ret = richacl_from_nt_sd(sd, f, &world_resolver.res, &acl, &err);

	if (ret)
		fail_msg("seed %" PRIu64 ": richacl_from_nt_sd failed: %d %s", run_seed, ret,
			 err.msg);
	return acl;
}

static struct nt_sd *get_sd(const struct richacl *acl, mode_t mode,
			    const struct richacl_map_file *f)
{
	struct richacl_error err = { 0 };
	struct nt_sd *sd = NULL;
	int ret = richacl_to_nt_sd(acl, mode, f, NT_SECINFO_OWNER | NT_SECINFO_GROUP |
				   NT_SECINFO_DACL, &world_resolver.res, &sd, &err);

	if (ret)
		fail_msg("seed %" PRIu64 ": richacl_to_nt_sd failed: %d %s", run_seed, ret,
			 err.msg);
	return sd;
}

static void print_sd(const char *what, const struct nt_sd *sd)
{
	char buf[NT_SID_STRING_MAX];
	unsigned int i;

	fprintf(stderr, "%s: control 0x%04x%s\n", what, sd->control,
		sd->dacl ? "" : " (NULL DACL)");
	for (i = 0; sd->dacl && i < sd->dacl->num_aces; i++) {
		const struct nt_ace *a = &sd->dacl->aces[i];

		fprintf(stderr, "  %s 0x%02x 0x%08x %s\n", a->type ? "deny " : "allow", a->flags,
			a->mask, nt_sid_to_string(&a->trustee, buf, sizeof(buf)));
	}
}

static void print_acl(const char *what, const struct richacl *acl)
{
	char *t = acl ? richacl_to_text(acl, RICHACL_TEXT_NUMERIC_IDS |
					RICHACL_TEXT_SHOW_MASKS, NULL) : NULL;

	fprintf(stderr, "%s:\n%s\n", what, t ? t : "(none)");
	free(t);
}

/* ---- (a) random descriptors ---- */

static const char *const sid_pool[] = {
	DOM(1001), DOM(1002), DOM(1003), DOM(1004), DOM(1005),
	DOM(2001), DOM(2002), DOM(2003), DOM(2004), DOM(3001), DOM(3002),
	"S-1-22-1-500", "S-1-22-1-1001", "S-1-22-1-3001", "S-1-22-2-100", "S-1-22-2-2001",
	"S-1-22-2-9999", "S-1-22-2-3002",
	"S-1-5-21-9-9-9-77", "S-1-5-21-9-9-9-78", DOM(4000), "S-1-5-18", "S-1-5-32-544",
	"S-1-3-4", "S-1-1-0", "S-1-1-0", "S-1-3-0", "S-1-3-0", "S-1-3-1",
};
#define SID_POOL (sizeof(sid_pool) / sizeof(sid_pool[0]))

static uint32_t random_nt_mask(struct rng *r)
{
	static const uint32_t generic[] = { NT_GENERIC_READ, NT_GENERIC_WRITE,
					    NT_GENERIC_EXECUTE, NT_GENERIC_ALL };
	uint32_t m = 0;
	unsigned int i;

	switch (below(r, 5)) {
	case 0:			/* a few of r w p x d D */
		m = rnd(r) & 0x67;
		if (chance(r, 30))
			m |= RICHACE_DELETE;
		break;
	case 1:			/* anything valid */
		m = rnd(r) & RICHACE_VALID_MASK;
		break;
	case 2:			/* generic rights */
		for (i = 0; i < 4; i++)
			if (chance(r, 35))
				m |= generic[i];
		m |= rnd(r) & 0x7;
		break;
	case 3:			/* the usual file rights */
		m = chance(r, 50) ? 0x1F01FF : 0x1200A9;
		break;
	default:		/* one bit */
		m = 1u << below(r, 21);
		m &= RICHACE_VALID_MASK;
		break;
	}
	return m;
}

/* a SID that the mapping turns into an unmapped entry (M9) */
static bool sid_is_unmappable(const struct nt_sid *sid)
{
	static const char *const special[] = { "S-1-1-0", "S-1-3-0", "S-1-3-1" };
	char buf[NT_SID_STRING_MAX];
	enum richacl_id_type type;
	uint32_t id;
	unsigned int i;

	nt_sid_to_string(sid, buf, sizeof(buf));
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(buf, special[i]))
			return false;
	if (!strncmp(buf, "S-1-22-", 7))
		return false;
	return world_resolver.res.sid_to_id(world_resolver.res.ctx, sid, &type, &id) == -ENOENT;
}

static struct nt_sd *random_sd(struct rng *r, const struct richacl_map_file *f)
{
	struct nt_sd *sd = nt_sd_alloc();
	unsigned int i, n;

	sd->control |= NT_SD_DACL_PRESENT;
	if (chance(r, 30))
		sd->control |= NT_SD_DACL_AUTO_INHERITED;
	if (chance(r, 20))
		sd->control |= NT_SD_DACL_PROTECTED;
	if (chance(r, 10))
		sd->control |= NT_SD_DACL_DEFAULTED;
	if (chance(r, 4))
		return sd;		/* NULL DACL */
	n = below(r, 11);
	sd->dacl = nt_acl_alloc(n);
	sd->dacl->revision = chance(r, 50) ? NT_ACL_REVISION : NT_ACL_REVISION_DS;
	for (i = 0; i < n; i++) {
		struct nt_ace *ace = &sd->dacl->aces[i];
		unsigned int pick = below(r, SID_POOL + 6);

		ace->type = chance(r, 35) ? NT_ACE_ACCESS_DENIED : NT_ACE_ACCESS_ALLOWED;
		ace->flags = (uint8_t)(rnd(r) & 0x1F);
		if (chance(r, 40))
			ace->flags &= NT_ACE_INHERITED;	/* plenty of plain ACEs */
		ace->mask = random_nt_mask(r);
		if (pick < SID_POOL)
			ace->trustee = test_sid(sid_pool[pick]);
		else if (pick < SID_POOL + 3)
			canonical_sid(false, f->owner, &ace->trustee);
		else
			canonical_sid(true, f->group, &ace->trustee);
		/* deny entries for unmappable SIDs are refused (test_map.c) */
		if (ace->type == NT_ACE_ACCESS_DENIED && sid_is_unmappable(&ace->trustee))
			ace->type = NT_ACE_ACCESS_ALLOWED;
	}
	return sd;
}

/* forward: defined with the inheritance checks */
static bool sd_owner_rights(const struct nt_sd *sd);

/*
 * Whether the owner may change the DACL ([MS-DTYP] 2.5.3.2): implicitly,
 * unless an OWNER RIGHTS ACE applies to the object; then as the ACEs that
 * match it (OWNER RIGHTS included) grant WRITE_DAC.
 */
static bool nt_owner_write_dac(const struct nt_sd *sd, const struct token *t,
			       const struct nt_sid *owner)
{
	if (!sd->dacl || !sd_owner_rights(sd))
		return true;
	return nt_access(sd, t, owner) & RICHACE_WRITE_ACL;	/* WRITE_DAC, the same bit */
}

struct stats_a;
static void fail_sd_case(unsigned int n, const char *what, const struct nt_sd *sd,
			 const struct richacl *acl, const struct nt_sd *sd2,
			 const struct richacl_map_file *f, unsigned int tok);

/*
 * The owner's right to change the acl, three ways: Windows on the
 * descriptor sent, smbd on the descriptor read back, and the kernel
 * (richacl_may_set(): implicit unless the acl has owner_rights, then
 * write_acl from the entries, k).  All three agree.
 */
static void check_owner_write_dac(const struct nt_sd *sd, const struct nt_sd *sd2,
				  const struct richacl *acl, uint32_t k,
				  const struct token *t, const struct nt_sid *owner,
				  unsigned int n, const struct richacl_map_file *f,
				  unsigned int tok, struct stats_a *st);

static void random_file(struct rng *r, struct richacl_map_file *f)
{
	f->owner = file_owners[below(r, sizeof(file_owners) / sizeof(file_owners[0]))];
	f->group = file_groups[below(r, sizeof(file_groups) / sizeof(file_groups[0]))];
	f->isdir = chance(r, 50);
}

static void fail_sd_case(unsigned int n, const char *what, const struct nt_sd *sd,
			 const struct richacl *acl, const struct nt_sd *sd2,
			 const struct richacl_map_file *f, unsigned int tok)
{
	fprintf(stderr, "case %u (owner %u group %u %s), token %u: %s\n", n, f->owner, f->group,
		f->isdir ? "dir" : "file", tok, what);
	print_sd("sd", sd);
	print_acl("set(sd)", acl);
	if (sd2)
		print_sd("get(set(sd))", sd2);
	fail_msg("seed %" PRIu64 " case %u: %s", run_seed, n, what);
}

struct stats_a {
	unsigned int cases, dirs, null_dacls, token_checks, inherit_checks, kernel_checks;
	unsigned int owner_checks, owner_refused;
	unsigned int stored_checks, stored_as_mode;
	unsigned int null_dacl_no_everyone, inheritable_lists;
};

/* the SID the library writes back for sid: that of its id, if it has one */
static struct nt_sid canonical_of(const struct nt_sid *sid)
{
	const struct richacl_resolver *res = &world_resolver.res;
	enum richacl_id_type type;
	struct nt_sid out = *sid;
	uint32_t id;

	if (res->sid_to_id(res->ctx, sid, &type, &id) == 0) {
		canonical_sid(type != RICHACL_ID_UID, id, &out);
	} else if (sid->num_auths == 2 && sid->id_auth[5] == 22 &&
		   (sid->sub_auths[0] == 1 || sid->sub_auths[0] == 2)) {
		canonical_sid(sid->sub_auths[0] == 2, sid->sub_auths[1], &out);
	}
	return out;
}

/*
 * The inheritable ACEs (OI or CI) of a directory's DACL, normalised as
 * docs/mapping.md says: generic rights mapped, CREATOR OWNER / GROUP ACEs
 * inherit-only, SIDs that map to an id replaced by that id's SID.  OWNER
 * RIGHTS is owner@: if the DACL has one that applies to the object (the
 * acl then has the flag owner_rights), it stays OWNER RIGHTS unless it is
 * inherit-only, which reads back as CREATOR OWNER; otherwise its
 * inheritable part always reads back as CREATOR OWNER.
 */
static unsigned int inheritable_aces(const struct nt_sd *sd, bool owner_rights,
				     struct nt_ace *out)
{
	const uint8_t inherit = NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT;
	unsigned int i, n = 0;

	for (i = 0; sd->dacl && i < sd->dacl->num_aces; i++) {
		struct nt_ace ace = sd->dacl->aces[i];

		if (!(ace.flags & inherit))
			continue;
		ace.mask = nt_map_generic_file(ace.mask);
		if (nt_sid_equal(&ace.trustee, &nt_sid_owner_rights) &&
		    (!owner_rights || (ace.flags & NT_ACE_INHERIT_ONLY)))
			ace.trustee = nt_sid_creator_owner;
		if (nt_sid_equal(&ace.trustee, &nt_sid_creator_owner) ||
		    nt_sid_equal(&ace.trustee, &nt_sid_creator_group))
			ace.flags |= NT_ACE_INHERIT_ONLY;
		else
			ace.trustee = canonical_of(&ace.trustee);
		out[n++] = ace;
	}
	return n;
}

/* whether a DACL has an OWNER RIGHTS ACE that is not inherit-only */
static bool sd_owner_rights(const struct nt_sd *sd)
{
	unsigned int i;

	for (i = 0; sd->dacl && i < sd->dacl->num_aces; i++)
		if (!(sd->dacl->aces[i].flags & NT_ACE_INHERIT_ONLY) &&
		    nt_sid_equal(&sd->dacl->aces[i].trustee, &nt_sid_owner_rights))
			return true;
	return false;
}

static void check_owner_write_dac(const struct nt_sd *sd, const struct nt_sd *sd2,
				  const struct richacl *acl, uint32_t k,
				  const struct token *t, const struct nt_sid *owner,
				  unsigned int n, const struct richacl_map_file *f,
				  unsigned int tok, struct stats_a *st)
{
	bool win = nt_owner_write_dac(sd, t, owner);
	bool smbd = nt_owner_write_dac(sd2, t, owner);
	bool kernel = !(acl->a_flags & RICHACL_OWNER_RIGHTS) || (k & RICHACE_WRITE_ACL);

	if (win != smbd || smbd != kernel) {
		fprintf(stderr, "owner may change the DACL: Windows %d, smbd %d, kernel %d\n",
			win, smbd, kernel);
		fail_sd_case(n, "the owner's WRITE_DAC differs", sd, acl, sd2, f, tok);
	}
	st->owner_checks++;
	st->owner_refused += !kernel;
}

/* M13: the inheritable ACEs of a directory are identical up to the normalisations */
static void check_inheritable_aces(const struct nt_sd *sd, const struct nt_sd *sd2,
				   unsigned int n, const struct richacl_map_file *f,
				   const struct richacl *acl)
{
	struct nt_ace a[16], b[32];
	unsigned int na, nb, i;

	assert_true(!sd->dacl || sd->dacl->num_aces <= 16);
	assert_true(!sd2->dacl || sd2->dacl->num_aces <= 32);
	na = inheritable_aces(sd, sd_owner_rights(sd), a);
	nb = inheritable_aces(sd2, sd_owner_rights(sd), b);
	for (i = 0; i < na && i < nb; i++)
		if (a[i].type != b[i].type || a[i].flags != b[i].flags ||
		    a[i].mask != b[i].mask || !nt_sid_equal(&a[i].trustee, &b[i].trustee))
			break;
	if (na != nb || i != na) {
		fprintf(stderr, "inheritable ACE %u differs (%u vs %u inheritable ACEs)\n", i, na, nb);
		fail_sd_case(n, "inheritable ACEs differ", sd, acl, sd2, f, 0);
	}
}

/* children and grandchildren of sd and sd2 grant every token the same */
static void check_inheritance_nt(const struct nt_sd *sd, const struct nt_sd *sd2,
				 const struct token *tokens, unsigned int n,
				 const struct richacl_map_file *f, const struct richacl *acl,
				 struct stats_a *st)
{
	static const int creators[] = { 0, 1, 4 };	/* people who create children */
	unsigned int c, t, kind;

	for (c = 0; c < sizeof(creators) / sizeof(creators[0]); c++) {
		const struct person *p = &people[creators[c]];
		struct nt_sid cs, cg;

		canonical_sid(false, p->uid, &cs);
		canonical_sid(true, p->gid, &cg);
		for (kind = 0; kind < 3; kind++) {
			struct nt_sd *k1, *k2, *tmp;

			/* 0: file child, 1: dir child, 2: file in the dir child */
			k1 = nt_inherit(sd, kind == 1, &cs, &cg);
			k2 = nt_inherit(sd2, kind == 1, &cs, &cg);
			if (kind == 2) {
				nt_sd_free(k1);
				nt_sd_free(k2);
				tmp = nt_inherit(sd, true, &cs, &cg);
				k1 = nt_inherit(tmp, false, &cs, &cg);
				nt_sd_free(tmp);
				tmp = nt_inherit(sd2, true, &cs, &cg);
				k2 = nt_inherit(tmp, false, &cs, &cg);
				nt_sd_free(tmp);
			}
			for (t = 0; t < NTOKENS; t++) {
				if (nt_access(k1, &tokens[t], &cs) !=
				    nt_access(k2, &tokens[t], &cs)) {
					print_sd("child of sd", k1);
					print_sd("child of get(set(sd))", k2);
					fail_sd_case(n, "inherited access differs", sd, acl, sd2,
						     f, t);
				}
				st->inherit_checks++;
			}
			nt_sd_free(k1);
			nt_sd_free(k2);
		}
	}
}

/*
 * What is stored (richacl_to_store(), and the mode alone where the kernel
 * keeps an acl equivalent to a mode as its mode) grants every person what
 * the mapped acl grants, for the file's owner and after a chown to
 * another: storing never pins owner@ (OWNER RIGHTS) to the owner of the
 * moment, and never lets a named entry follow the owner.
 */
static void check_stored(const struct richacl *acl, const struct richacl_map_file *f,
			 unsigned int n, struct stats_a *st)
{
	const uint32_t owners[] = { f->owner, f->owner == 1005 ? 1002 : 1005 };
	mode_t type = f->isdir ? S_IFDIR : S_IFREG, m = type;
	struct richacl *stored = NULL, *kept;
	uint32_t compared = ~(uint32_t)RICHACE_POSIX_ALWAYS_ALLOWED;
	unsigned int o, i;

	assert_int_equal(richacl_to_store(acl, type, &stored), 0);
	if (richacl_equiv_mode(stored, &m) == 0) {
		/* a mode: what its bits say (the rest is implicit, M1) */
		kept = richacl_from_mode(m);
		assert_non_null(kept);
		richacl_free(stored);
		compared = richacl_mode_to_mask(7);
		st->stored_as_mode++;
	} else {
		kept = stored;
	}
	for (o = 0; o < 2; o++) {
		struct richacl_file rf = { owners[o], f->group, f->isdir };

		for (i = 0; i < NPEOPLE; i++) {
			struct richacl_cred c = person_cred(&people[i]);
			uint32_t want = richacl_access(acl, &rf, &c), got = richacl_access(kept, &rf, &c);

			if ((want ^ got) & compared) {
				print_acl("acl", acl);
				print_acl("kept", kept);
				fail_msg("seed %" PRIu64 " case %u: owner %u, uid %u: the acl grants 0x%x, "
					 "what is kept 0x%x", run_seed, n, owners[o], people[i].uid,
					 want, got);
			}
			st->stored_checks++;
		}
	}
	richacl_free(kept);
}

static void test_M13a_random_descriptors_round_trip(void **state)
{
	struct stats_a st = { 0 };
	struct token tokens[NTOKENS];
	unsigned int n, t, count = scaled(6000);
	struct rng r;

	(void)state;
	rng_init(&r, "test_M13a_random_descriptors_round_trip", 1);
	test_resolver_init(&world_resolver);
	all_tokens(tokens);
	for (n = 0; n < count; n++) {
		struct richacl_map_file f;
		struct nt_sd *sd, *sd2;
		struct richacl *acl;
		struct nt_sid owner;

		random_file(&r, &f);
		canonical_sid(false, f.owner, &owner);
		sd = random_sd(&r, &f);
		acl = set_acl(sd, &f);
		sd2 = get_sd(acl, 0, &f);
		st.cases++;
		st.dirs += f.isdir;
		st.null_dacls += !sd->dacl;
		for (t = 0; t < NTOKENS; t++) {
			uint32_t a1 = nt_access(sd, &tokens[t], &owner);
			uint32_t a2 = nt_access(sd2, &tokens[t], &owner);
			uint32_t k;

			/*
			 * normalisation: a NULL DACL becomes everyone@ (S-1-1-0)
			 * allowed FILE_ALL_ACCESS (0x1F01FF); a token without
			 * Everyone (anonymous) then gets nothing.
			 */
			if (!sd->dacl) {
				a1 &= 0x1F01FF;
				if (!token_has(&tokens[t], &nt_sid_world)) {
					if (a2 != 0)
						fail_sd_case(n, "NULL DACL grants a token without Everyone",
							     sd, acl, sd2, &f, t);
					st.null_dacl_no_everyone++;
					continue;
				}
			}
			/*
			 * M5: delete_child means nothing on a file, and a file's
			 * near-full-control entry shows it (docs/mapping.md).
			 */
			if (!f.isdir && ((a1 ^ a2) & ~(uint32_t)RICHACE_DELETE_CHILD) == 0)
				a2 = a1;
			if (a1 != a2)
				fail_sd_case(n, "access differs", sd, acl, sd2, &f, t);
			st.token_checks++;
			/* Windows (this evaluator) and the kernel agree on Linux processes */
			if (tokens[t].person >= 0) {
				struct richacl_file rf = { f.owner, f.group, f.isdir };
				struct richacl_cred c = person_cred(&people[tokens[t].person]);

				k = richacl_access(acl, &rf, &c);
				if (!f.isdir)
					a1 &= ~RICHACE_DELETE_CHILD;
				if (k != a1)
					fail_sd_case(n, "kernel check disagrees with the NT evaluator",
						     sd, acl, sd2, &f, t);
				st.kernel_checks++;
				if (c.uid == f.owner)
					check_owner_write_dac(sd, sd2, acl, k, &tokens[t], &owner,
							      n, &f, t, &st);
			}
		}
		if (f.isdir) {
			check_inheritable_aces(sd, sd2, n, &f, acl);
			st.inheritable_lists++;
			check_inheritance_nt(sd, sd2, tokens, n, &f, acl, &st);
		}
		check_stored(acl, &f, n, &st);
		nt_sd_free(sd2);
		richacl_free(acl);
		nt_sd_free(sd);
	}
	printf("M13(a): %u descriptors (%u directories, %u NULL DACLs), %u token checks, "
	       "%u kernel-vs-NT checks, %u inheritance checks\n", st.cases, st.dirs,
	       st.null_dacls, st.token_checks, st.kernel_checks, st.inherit_checks);
	printf("M13(a): the owner's right to change the DACL agrees (Windows, smbd, kernel): "
	       "%u checks, %u refused\n", st.owner_checks, st.owner_refused);
	printf("M13(a): %u directory DACLs with identical inheritable ACEs after normalisation\n",
	       st.inheritable_lists);
	printf("M13(a): NULL DACL normalisation: %u checks of a token without Everyone "
	       "(granted all before, nothing after; documented)\n", st.null_dacl_no_everyone);
	printf("M13(a): what is stored grants the same, also after a chown: %u checks "
	       "(%u kept as a mode)\n", st.stored_checks, st.stored_as_mode);
}

/* ---- (b) random richacls ---- */

static const char *const unmapped_pool[] = {
	"S-1-5-21-9-9-9-77", "S-1-5-21-9-9-9-79", "S-1-5-18", "S-1-5-32-545", DOM(4001),
};

static uint32_t random_rich_mask(struct rng *r)
{
	uint32_t m;

	if (chance(r, 60)) {
		m = rnd(r) & 0x67;	/* r w p x d */
		if (chance(r, 20))
			m |= RICHACE_DELETE;
		if (chance(r, 15))
			m |= RICHACE_WRITE_ACL;
		return m;
	}
	return rnd(r) & RICHACE_VALID_MASK;
}

static struct richacl *random_richacl(struct rng *r)
{
	unsigned int i, n = below(r, 9);
	struct richacl *acl = richacl_alloc(0);

	assert_non_null(acl);
	for (i = 0; i < n; i++) {
		struct richace e = { 0 };

		e.e_type = chance(r, 35) ? RICHACE_ACCESS_DENIED_ACE_TYPE :
					   RICHACE_ACCESS_ALLOWED_ACE_TYPE;
		e.e_mask = random_rich_mask(r);
		e.e_flags = (uint16_t)(rnd(r) & (RICHACE_FILE_INHERIT_ACE |
						 RICHACE_DIRECTORY_INHERIT_ACE |
						 RICHACE_NO_PROPAGATE_INHERIT_ACE |
						 RICHACE_INHERIT_ONLY_ACE | RICHACE_INHERITED_ACE));
		if (chance(r, 40))
			e.e_flags &= RICHACE_INHERITED_ACE;
		switch (below(r, 9)) {
		case 0:
			richace_set_special(&e, RICHACE_OWNER_SPECIAL_ID);
			break;
		case 1:
			richace_set_special(&e, RICHACE_GROUP_SPECIAL_ID);
			break;
		case 2:
		case 3:
			richace_set_special(&e, RICHACE_EVERYONE_SPECIAL_ID);
			break;
		case 4:
		case 5:
			richace_set_uid(&e, people[below(r, NPEOPLE)].uid);
			break;
		case 6:
		case 7: {
			const struct person *p = &people[below(r, NPEOPLE)];

			richace_set_gid(&e, p->groups[below(r, p->ngroups)]);
			break;
		}
		default:
			assert_int_equal(richace_set_unmapped(&e,
				unmapped_pool[below(r, sizeof(unmapped_pool) / sizeof(unmapped_pool[0]))],
				chance(r, 50)), 0);
			/*
			 * an unmapped deny reads back as a deny ACE that a
			 * write refuses (it would deny nobody): allow only
			 */
			e.e_type = RICHACE_ACCESS_ALLOWED_ACE_TYPE;
			break;
		}
		assert_int_equal(richacl_append_entry(acl, &e), 0);
		free(e.e_who);
	}
	acl->a_flags = (uint8_t)(rnd(r) & (RICHACL_AUTO_INHERIT | RICHACL_PROTECTED |
					   RICHACL_DEFAULTED));
	if (chance(r, 25)) {
		richacl_chmod(acl, (mode_t)below(r, 01000));
	} else if (chance(r, 25)) {
		acl->a_flags |= RICHACL_MASKED;
		if (chance(r, 50))
			acl->a_flags |= RICHACL_WRITE_THROUGH;
		acl->a_owner_mask = random_rich_mask(r);
		acl->a_group_mask = random_rich_mask(r);
		acl->a_other_mask = random_rich_mask(r);
	} else {
		richacl_compute_max_masks(acl);
	}
	return acl;
}

struct stats_b {
	unsigned int cases, masked, dirs, cred_checks, inherit_checks, exact, exact_class;
	unsigned int always_allowed_creds;
};

static bool acl_uses_both_ids_or_unmapped_groups(const struct richacl *acl)
{
	const struct richace *e;

	richacl_for_each_entry(e, acl) {
		if (richace_is_unmapped(e))
			continue;
		if (!(e->e_flags & RICHACE_SPECIAL_WHO) && e->e_id >= 3000 && e->e_id < 3100)
			return true;
	}
	richacl_for_each_entry(e, acl)
		if (richace_is_unmapped(e) && (e->e_flags & RICHACE_IDENTIFIER_GROUP))
			return true;
	return false;
}

/*
 * The "plain" class must round-trip structurally: unmasked acls on
 * directories without owner@/group@ entries, without entries that name the
 * file owner or group, without ID_BOTH ids and unmapped group entries.
 */
static bool acl_is_plain(const struct richacl *acl, const struct richacl_map_file *f)
{
	const struct richace *e;

	if (!f->isdir || (acl->a_flags & RICHACL_MASKED) || acl_uses_both_ids_or_unmapped_groups(acl))
		return false;
	richacl_for_each_entry(e, acl) {
		if (richace_is_owner(e) || richace_is_group(e))
			return false;
		if (richace_is_unix_user(e) && e->e_id == f->owner)
			return false;
		if (richace_is_unix_group(e) && e->e_id == f->group)
			return false;
	}
	return true;
}

static void check_inheritance_rich(const struct richacl *acl, const struct richacl *acl2,
				   unsigned int n, struct stats_b *st)
{
	static const int creators[] = { 0, 3, 4 };
	unsigned int c, i, kind;

	for (kind = 0; kind < 2; kind++) {
		struct richacl *k1 = richacl_inherit(acl, kind == 1);
		struct richacl *k2 = richacl_inherit(acl2, kind == 1);

		if (!k1 != !k2) {
			print_acl("acl", acl);
			print_acl("set(get(acl))", acl2);
			fail_msg("seed %" PRIu64 " case %u: only one acl passes entries on to a new %s",
				 run_seed, n, kind ? "directory" : "file");
		}
		for (c = 0; k1 && c < sizeof(creators) / sizeof(creators[0]); c++) {
			const struct person *cr = &people[creators[c]];
			struct richacl_file child = { cr->uid, cr->gid, kind == 1 };

			for (i = 0; i < NPEOPLE; i++) {
				struct richacl_cred cred = person_cred(&people[i]);

				if (richacl_access(k1, &child, &cred) !=
				    richacl_access(k2, &child, &cred)) {
					print_acl("acl", acl);
					print_acl("set(get(acl))", acl2);
					print_acl("child of acl", k1);
					print_acl("child of set(get(acl))", k2);
					fail_msg("seed %" PRIu64 " case %u: inherited access differs for uid %u (creator %u)",
						 run_seed, n, people[i].uid, cr->uid);
				}
				st->inherit_checks++;
			}
		}
		richacl_free(k1);
		richacl_free(k2);
	}
}

static void test_M13b_random_richacls_round_trip(void **state)
{
	struct stats_b st = { 0 };
	struct token tokens[NTOKENS];
	unsigned int n, i, count = scaled(6000);
	struct rng r;

	(void)state;
	rng_init(&r, "test_M13b_random_richacls_round_trip", 2);
	test_resolver_init(&world_resolver);
	all_tokens(tokens);
	for (n = 0; n < count; n++) {
		struct richacl_map_file f;
		struct richacl_file rf;
		struct nt_sid owner;
		struct richacl *acl, *unmasked, *acl2, *want;
		struct nt_sd *sd;

		random_file(&r, &f);
		rf = (struct richacl_file){ f.owner, f.group, f.isdir };
		canonical_sid(false, f.owner, &owner);
		acl = random_richacl(&r);
		assert_int_equal(richacl_valid(acl, NULL), 0);
		unmasked = richacl_clone(acl);
		assert_int_equal(richacl_apply_masks(&unmasked, f.owner), 0);
		sd = get_sd(acl, 0, &f);
		acl2 = set_acl(sd, &f);
		st.cases++;
		st.masked += !!(acl->a_flags & RICHACL_MASKED);
		st.dirs += f.isdir;
		for (i = 0; i < NPEOPLE; i++) {
			struct richacl_cred c = person_cred(&people[i]);
			uint32_t a0 = richacl_access(acl, &rf, &c);
			uint32_t a1 = richacl_access(unmasked, &rf, &c);
			uint32_t a2 = richacl_access(acl2, &rf, &c);
			uint32_t nt = nt_access(sd, &tokens[i], &owner);

			if (!f.isdir)
				nt &= ~RICHACE_DELETE_CHILD;
			if (a2 != a1 || nt != a1) {
				print_acl("acl", acl);
				print_acl("unmasked", unmasked);
				print_sd("get(acl)", sd);
				print_acl("set(get(acl))", acl2);
				fail_msg("seed %" PRIu64 " case %u (owner %u group %u %s): uid %u gets 0x%x from the unmasked acl, 0x%x from set(get(acl)), 0x%x from the NT evaluator on get(acl)",
					 run_seed, n, f.owner, f.group, f.isdir ? "dir" : "file",
					 people[i].uid, a1, a2, nt);
			}
			if ((a0 ^ a1) & ~RICHACE_POSIX_ALWAYS_ALLOWED) {
				print_acl("acl", acl);
				print_acl("unmasked", unmasked);
				fail_msg("seed %" PRIu64 " case %u (owner %u group %u %s): uid %u gets 0x%x from the masked acl, 0x%x from its unmasked form",
					 run_seed, n, f.owner, f.group, f.isdir ? "dir" : "file",
					 people[i].uid, a0, a1);
			} else if (a0 != a1) {
				st.always_allowed_creds++;
			}
			st.cred_checks++;
		}
		if (f.isdir)
			check_inheritance_rich(acl, acl2, n, &st);
		/* the plain class comes back entry for entry, masks recomputed (M12) */
		if (acl_is_plain(acl, &f)) {
			want = richacl_clone(acl);
			want->a_flags &= ~RICHACL_WRITE_THROUGH;
			richacl_compute_max_masks(want);
			for (i = 0; i < want->a_count; i++)
				if (richace_is_unmapped(&want->a_entries[i]))
					want->a_entries[i].e_flags &= ~RICHACE_IDENTIFIER_GROUP;
			if (!richacl_equal(acl2, want)) {
				print_acl("acl", acl);
				print_acl("set(get(acl))", acl2);
				fail_msg("seed %" PRIu64 " case %u: plain acl did not come back unchanged",
					 run_seed, n);
			}
			richacl_free(want);
			st.exact_class++;
		}
		richacl_free(acl2);
		nt_sd_free(sd);
		richacl_free(unmasked);
		richacl_free(acl);
	}
	printf("M13(b): %u richacls (%u masked, %u directories), %u credential checks, "
	       "%u inheritance checks, %u plain acls identical after the round trip\n",
	       st.cases, st.masked, st.dirs, st.cred_checks, st.inherit_checks, st.exact_class);
	printf("M13(b): masked acl vs its unmasked form differing only in the always-allowed "
	       "bits a/c/S (0x120080): %u credentials\n", st.always_allowed_creds);
}

/* ---- (c) every mode ---- */

static bool dacl_names(const struct nt_sd *sd, const struct nt_sid *sid)
{
	unsigned int i;

	for (i = 0; sd->dacl && i < sd->dacl->num_aces; i++)
		if (nt_sid_equal(&sd->dacl->aces[i].trustee, sid))
			return true;
	return false;
}

/*
 * After the file of acl (set from sd) went to rf->owner: cred, whose token
 * holds sid, group (if any) and Everyone, gets from the acl what sd gives
 * that token on Windows (always-allowed bits and, on files, delete_child
 * aside).  who names the owner ("old" / "new") in the message.
 */
static void check_after_chown(const struct richacl *acl, const struct nt_sd *sd,
			      const struct richacl_file *rf, const struct richacl_cred *cred,
			      const struct nt_sid *sid, const struct nt_sid *group,
			      const char *who, mode_t mode)
{
	struct token t = { .n = 0 };
	uint32_t k, w;

	token_add(&t, sid);
	if (group)
		token_add(&t, group);
	token_add(&t, &nt_sid_world);
	k = richacl_access(acl, rf, cred) & ~RICHACE_POSIX_ALWAYS_ALLOWED;
	w = nt_access(sd, &t, sid) & ~RICHACE_POSIX_ALWAYS_ALLOWED;
	if (!rf->isdir)
		w &= ~RICHACE_DELETE_CHILD;
	if (k != w) {
		print_acl("set(get(mode))", acl);
		fail_msg("mode %04o (%s): after a chown the %s owner gets 0x%x, on Windows 0x%x",
			 mode, rf->isdir ? "dir" : "file", who, k, w);
	}
}

/*
 * The DACL shown for a mode, set back: every person gets what the mode
 * gives, the same DACL reads back, and (M8) the acl is the mode alone only
 * if that DACL names neither the owner's nor the owning group's SID.  An
 * ACE for either names that SID for good, so the acl keeps it as a user or
 * group entry: after a chown the old owner keeps what the mode gave him.
 */
static void test_M13c_every_mode_round_trips(void **state)
{
	static const uint32_t owners[] = { 1001, 500 };
	unsigned int dir, o, checks = 0, as_mode = 0;
	mode_t mode;

	(void)state;
	test_resolver_init(&world_resolver);
	for (dir = 0; dir < 2; dir++) {
		for (o = 0; o < 2; o++) {
			struct richacl_map_file f = { owners[o], o ? 100 : 2001, dir };
			struct richacl_map_file chowned = { 1003, f.group, dir };
			struct nt_sid owner_sid, group_sid;

			canonical_sid(false, f.owner, &owner_sid);
			canonical_sid(true, f.group, &group_sid);
			for (mode = 0; mode <= 0777; mode++) {
				mode_t type = dir ? S_IFDIR : S_IFREG, back = type | 0777;
				struct richacl *from_mode = richacl_from_mode(type | mode), *acl;
				struct richacl_file rf = { f.owner, f.group, f.isdir };
				struct richacl_file rf2 = { chowned.owner, f.group, f.isdir };
				struct nt_sd *sd = get_sd(NULL, mode, &f), *sd2, *sd3;
				bool named = dacl_names(sd, &owner_sid) || dacl_names(sd, &group_sid);
				bool is_mode;
				unsigned int i;

				acl = set_acl(sd, &f);
				is_mode = richacl_equiv_mode(acl, &back) == 0;
				if (is_mode == named || (is_mode && back != (type | mode))) {
					print_acl("set(get(mode))", acl);
					fail_msg("mode %04o (%s): stored as %s (%04o), the DACL %s the owner or group",
						 mode, dir ? "dir" : "file", is_mode ? "a mode" : "an acl",
						 back & 07777, named ? "names" : "does not name");
				}
				as_mode += is_mode;
				for (i = 0; i < NPEOPLE; i++) {
					struct richacl_cred c = person_cred(&people[i]);

					assert_int_equal(richacl_access(acl, &rf, &c),
							 richacl_access(from_mode, &rf, &c));
					checks++;
				}
				/* the same DACL reads back */
				sd2 = get_sd(acl, 0, &f);
				sd3 = get_sd(NULL, mode, &f);
				assert_int_equal(sd2->dacl->num_aces, sd3->dacl->num_aces);
				for (i = 0; i < sd3->dacl->num_aces; i++) {
					const struct nt_ace *a = &sd2->dacl->aces[i], *b = &sd3->dacl->aces[i];

					if (a->type != b->type || a->flags != b->flags ||
					    a->mask != b->mask || !nt_sid_equal(&a->trustee, &b->trustee))
						fail_msg("mode %04o (%s): ACE %u reads back differently",
							 mode, dir ? "dir" : "file", i);
				}
				/* after a chown the old owner keeps what the owner ACE gave */
				if (dacl_names(sd, &owner_sid)) {
					struct richacl_cred old = { f.owner, 9999, 0, NULL };

					check_after_chown(acl, sd, &rf2, &old, &owner_sid, NULL,
							  "old", mode);
					checks++;
				}
				/* and the new owner gets only what the DACL gives his SID */
				if (!is_mode) {	/* a mode follows the owner */
					const uint32_t g2001[] = { 2001 };
					struct richacl_cred now = { 1003, 2001, 1, g2001 };
					struct nt_sid sid1003, gsid2001;

					canonical_sid(false, 1003, &sid1003);
					canonical_sid(true, 2001, &gsid2001);
					check_after_chown(acl, sd, &rf2, &now, &sid1003, &gsid2001,
							  "new", mode);
					checks++;
				}
				nt_sd_free(sd3);
				nt_sd_free(sd2);
				richacl_free(acl);
				richacl_free(from_mode);
				nt_sd_free(sd);
			}
		}
	}
	printf("M13(c): 2048 modes (file/dir, two owners), %u credential checks, %u stored as "
	       "the mode\n", checks, as_mode);
}

int main(void)
{
	const char *env = getenv("RICHACL_TEST_SEED");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_M13a_random_descriptors_round_trip),
		cmocka_unit_test(test_M13b_random_richacls_round_trip),
		cmocka_unit_test(test_M13c_every_mode_round_trips),
	};

	run_seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
