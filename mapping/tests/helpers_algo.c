/*
 * helpers_algo.c - shared helpers for the algorithm tests; see
 * helpers_algo.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers_algo.h"

struct richacl *algo_acl(const char *text)
{
	struct richacl_error err = { 0 };
	struct richacl *acl = NULL;
	int ret;

	ret = richacl_from_text(text, NULL, NULL, &acl, &err);
	if (ret) {
		print_error("cannot parse acl '%s': %s\n", text, err.msg);
		fail();
	}
	return acl;
}

uint32_t algo_perms(const char *letters)
{
	static const struct {
		char letter;
		uint32_t bit;
	} table[] = {
		{ 'r', RICHACE_READ_DATA }, { 'w', RICHACE_WRITE_DATA },
		{ 'p', RICHACE_APPEND_DATA }, { 'x', RICHACE_EXECUTE },
		{ 'd', RICHACE_DELETE_CHILD }, { 'D', RICHACE_DELETE },
		{ 'a', RICHACE_READ_ATTRIBUTES }, { 'A', RICHACE_WRITE_ATTRIBUTES },
		{ 'R', RICHACE_READ_NAMED_ATTRS }, { 'W', RICHACE_WRITE_NAMED_ATTRS },
		{ 'c', RICHACE_READ_ACL }, { 'C', RICHACE_WRITE_ACL },
		{ 'o', RICHACE_WRITE_OWNER }, { 'S', RICHACE_SYNCHRONIZE },
		{ 'e', RICHACE_WRITE_RETENTION }, { 'E', RICHACE_WRITE_RETENTION_HOLD },
	};
	uint32_t mask = 0;
	const char *p;
	size_t i;

	for (p = letters; *p; p++) {
		for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
			if (table[i].letter == *p)
				break;
		}
		if (i == sizeof(table) / sizeof(table[0])) {
			print_error("bad permission letter '%c' in test\n", *p);
			fail();
		}
		mask |= table[i].bit;
	}
	return mask;
}

char *algo_text(const struct richacl *acl)
{
	char *text = richacl_to_text(acl, RICHACL_TEXT_NUMERIC_IDS, NULL);

	return text ? text : strdup("(richacl_to_text failed)");
}

static bool same_entries(const struct richacl *a, const struct richacl *b)
{
	unsigned int i;

	if (a->a_flags != b->a_flags || a->a_count != b->a_count)
		return false;
	for (i = 0; i < a->a_count; i++) {
		const struct richace *x = &a->a_entries[i], *y = &b->a_entries[i];

		if (x->e_type != y->e_type || x->e_flags != y->e_flags ||
		    x->e_mask != y->e_mask || !richace_is_same_identifier(x, y))
			return false;
	}
	return true;
}

void algo_check_entries(const struct richacl *acl, const char *expected,
			const char *file, int line)
{
	struct richacl *want = algo_acl(expected);
	bool ok = same_entries(acl, want);

	if (!ok) {
		char *got = algo_text(acl), *exp = algo_text(want);

		print_error("acl differs from the spec\nexpected:\n%sgot:\n%s", exp, got);
		free(got);
		free(exp);
	}
	richacl_free(want);
	if (!ok)
		_fail(file, line);
}

void algo_check_masks(const struct richacl *acl, const char *owner,
		      const char *group, const char *other,
		      const char *file, int line)
{
	uint32_t o = algo_perms(owner), g = algo_perms(group), t = algo_perms(other);

	if (acl->a_owner_mask != o || acl->a_group_mask != g || acl->a_other_mask != t) {
		print_error("masks owner 0x%" PRIx32 " group 0x%" PRIx32 " other 0x%" PRIx32
			    ", expected owner '%s' (0x%" PRIx32 ") group '%s' (0x%" PRIx32
			    ") other '%s' (0x%" PRIx32 ")\n",
			    acl->a_owner_mask, acl->a_group_mask, acl->a_other_mask,
			    owner, o, group, g, other, t);
		_fail(file, line);
	}
}

/* ---- PRNG: splitmix64 seeding, xorshift64* ---- */

void algo_rng_init(struct algo_rng *rng, const char *name)
{
	const char *env = getenv("RICHACL_TEST_SEED");
	uint64_t seed;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	else
		seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
	printf("%s: seed %" PRIu64 " (set RICHACL_TEST_SEED to repeat)\n", name, seed);
	seed += 0x9E3779B97F4A7C15ull;
	seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ull;
	seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBull;
	rng->state = (seed ^ (seed >> 31)) | 1;
}

uint32_t algo_rand(struct algo_rng *rng)
{
	uint64_t x = rng->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng->state = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

unsigned int algo_below(struct algo_rng *rng, unsigned int n)
{
	return n ? (unsigned int)(((uint64_t)algo_rand(rng) * n) >> 32) : 0;
}

unsigned int algo_iterations(unsigned int n)
{
	const char *env = getenv("RICHACL_TEST_SCALE");
	unsigned long scale = env && *env ? strtoul(env, NULL, 10) : 100;
	unsigned long scaled = (unsigned long)n * scale / 100;

	return scaled ? (unsigned int)scaled : 1;
}

/* ---- random acls ---- */

static const char *const unmapped_names[] = {
	"S-1-5-21-1004336348-1177238915-682003330-1001",
	"S-1-5-21-1004336348-1177238915-682003330-1002",
};

static uint32_t random_mask(struct algo_rng *rng)
{
	static const uint32_t posix[] = {
		RICHACE_READ_DATA, RICHACE_WRITE_DATA, RICHACE_APPEND_DATA,
		RICHACE_EXECUTE, RICHACE_DELETE_CHILD,
	};
	uint32_t mask = 0;
	unsigned int i;

	switch (algo_below(rng, 8)) {
	case 0:		/* anything valid */
		return algo_rand(rng) & RICHACE_VALID_MASK;
	case 1:		/* rwpxd plus always-allowed bits */
		mask = algo_rand(rng) & RICHACE_POSIX_ALWAYS_ALLOWED;
		break;
	default:
		break;
	}
	for (i = 0; i < sizeof(posix) / sizeof(posix[0]); i++) {
		if (algo_below(rng, 2))
			mask |= posix[i];
	}
	return mask;
}

static uint32_t random_file_mask(struct algo_rng *rng)
{
	uint32_t mask = richacl_mode_to_mask(algo_below(rng, 8));

	if (!algo_below(rng, 4))
		mask |= algo_rand(rng) & RICHACE_VALID_MASK;
	if (!algo_below(rng, 4))
		mask &= ~RICHACE_DELETE_CHILD;
	return mask;
}

void algo_random_unmapped(struct algo_rng *rng, struct richace *ace)
{
	*ace = (struct richace){
		.e_type = algo_below(rng, 2) ? RICHACE_ACCESS_ALLOWED_ACE_TYPE
					     : RICHACE_ACCESS_DENIED_ACE_TYPE,
		.e_mask = random_mask(rng),
	};
	if (!algo_below(rng, 3))
		ace->e_flags |= algo_rand(rng) & RICHACE_INHERITANCE_FLAGS;
	if (richace_set_unmapped(ace, unmapped_names[algo_below(rng, 2)],
				 algo_below(rng, 2)))
		fail();
}

static void random_entry(struct algo_rng *rng, const struct algo_acl_shape *shape,
			 struct richace *ace)
{
	static const uint32_t uids[] = { ALGO_OWNER, 5, 6 };
	static const uint32_t gids[] = { ALGO_GROUP, 7, 8 };
	unsigned int kinds = shape->specials_only ? 3 : (shape->no_unmapped ||
				shape->no_entry_flags) ? 5 : 6;

	*ace = (struct richace){
		.e_type = algo_below(rng, 2) ? RICHACE_ACCESS_ALLOWED_ACE_TYPE
					     : RICHACE_ACCESS_DENIED_ACE_TYPE,
		.e_mask = random_mask(rng),
	};
	switch (algo_below(rng, kinds)) {
	case 0:
		richace_set_special(ace, RICHACE_OWNER_SPECIAL_ID);
		break;
	case 1:
		richace_set_special(ace, RICHACE_GROUP_SPECIAL_ID);
		break;
	case 2:
		richace_set_special(ace, RICHACE_EVERYONE_SPECIAL_ID);
		break;
	case 3:
		richace_set_uid(ace, uids[algo_below(rng, 3)]);
		break;
	case 4:
		richace_set_gid(ace, gids[algo_below(rng, 3)]);
		break;
	default: {
		uint16_t type = ace->e_type;

		algo_random_unmapped(rng, ace);
		ace->e_type = type;
		ace->e_flags &= ~RICHACE_INHERITANCE_FLAGS;
		break;
	}
	}
	if (!shape->no_entry_flags && !algo_below(rng, 3))
		ace->e_flags |= algo_rand(rng) & RICHACE_INHERITANCE_FLAGS;
}

struct richacl *algo_random_acl(struct algo_rng *rng, const struct algo_acl_shape *shape)
{
	unsigned int n = algo_below(rng, shape->max_entries + 1), i;
	struct richacl *acl = richacl_alloc(0);

	if (!acl)
		fail();
	acl->a_flags = algo_rand(rng) & shape->acl_flags;
	acl->a_owner_mask = random_file_mask(rng);
	acl->a_group_mask = random_file_mask(rng);
	acl->a_other_mask = random_file_mask(rng);
	for (i = 0; i < n; i++) {
		struct richace ace;

		random_entry(rng, shape, &ace);
		if (richacl_append_entry(acl, &ace))
			fail();
		free(ace.e_who);
	}
	return acl;
}

/* ---- processes ---- */

void algo_all_creds(struct algo_cred_set *set)
{
	static const uint32_t uids[] = { ALGO_OWNER, 5, 6, 9 };
	static const struct {
		uint32_t gid;
		unsigned int ngroups;
		uint32_t groups[3];
	} memberships[] = {
		{ 300, 0, { 0 } },			/* no group of the acls */
		{ ALGO_GROUP, 0, { 0 } },		/* owning group as primary */
		{ 300, 1, { 7 } },			/* a named group */
		{ 300, 2, { 8, ALGO_GROUP } },		/* owning + named, supplementary */
		{ 300, 2, { 7, 8 } },			/* two named groups */
	};
	unsigned int u, m;

	memset(set, 0, sizeof(*set));
	for (u = 0; u < 4; u++) {
		for (m = 0; m < 5; m++) {
			unsigned int i = set->count++;

			memcpy(set->groups[i], memberships[m].groups, sizeof(set->groups[i]));
			set->creds[i] = (struct richacl_cred){
				.uid = uids[u],
				.gid = memberships[m].gid,
				.ngroups = memberships[m].ngroups,
				.groups = set->groups[i],
			};
		}
	}
}

unsigned int algo_mask_bits(uint32_t mask, uint32_t *bits)
{
	unsigned int n = 0, i;

	for (i = 0; i < 32; i++) {
		if (mask & ((uint32_t)1 << i))
			bits[n++] = (uint32_t)1 << i;
	}
	return n;
}
