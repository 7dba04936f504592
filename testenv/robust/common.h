/*
 * common.h - small helpers shared by the robustness programs in
 * testenv/robust/ (seeded PRNG, acl printing, random acls).
 *
 * Header-only on purpose: each program is one translation unit compiled
 * together with the library sources (mapping/src) by testenv/run-robust.sh.
 */
#ifndef RICHACL_ROBUST_COMMON_H
#define RICHACL_ROBUST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "richacl.h"

/* splitmix64: tiny, seedable, and the same sequence on every machine */
struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0) */
static inline uint32_t rnd(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

/* true with probability pct percent */
static inline int chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

static inline void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* text of an acl (masks shown, numeric ids); "(null)" for none; caller frees */
static inline char *acl_text(const struct richacl *acl, int isdir)
{
	char *t;

	if (!acl)
		return strdup("(no acl stored: the mode alone)");
	t = richacl_to_text(acl, RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_NUMERIC_IDS |
			    (isdir ? RICHACL_TEXT_DIRECTORY_CONTEXT :
				     RICHACL_TEXT_FILE_CONTEXT), NULL);
	if (!t)
		return strdup("(acl not printable)");
	/* one line: entries are separated by newlines in the text form */
	for (char *p = t; *p; p++) {
		if (*p == '\n')
			*p = ' ';
	}
	return t;
}

/* the permission bits that matter for the VFS, and the rest */
#define RELEVANT_BITS (RICHACE_READ_DATA | RICHACE_WRITE_DATA | RICHACE_APPEND_DATA | \
		       RICHACE_EXECUTE | RICHACE_DELETE_CHILD | RICHACE_DELETE | \
		       RICHACE_WRITE_ATTRIBUTES | RICHACE_WRITE_ACL | RICHACE_WRITE_OWNER)

/* a random subset of the valid mask bits, biased towards the relevant ones */
static inline uint32_t random_mask(struct rng *r, unsigned int pct)
{
	static const uint32_t bits[] = {
		RICHACE_READ_DATA, RICHACE_WRITE_DATA, RICHACE_APPEND_DATA,
		RICHACE_EXECUTE, RICHACE_DELETE_CHILD, RICHACE_DELETE,
		RICHACE_WRITE_ATTRIBUTES, RICHACE_WRITE_ACL, RICHACE_WRITE_OWNER,
	};
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (chance(r, pct))
			m |= bits[i];
	}
	if (chance(r, 15))
		m |= (uint32_t)rng_next(r) & RICHACE_VALID_MASK;
	return m;
}

/* who pools: the differential test and the blob fuzzer use the same ids */
struct id_pool {
	const uint32_t *uids;
	unsigned int nuids;
	const uint32_t *gids;
	unsigned int ngids;
};

static const char *const unmapped_sids[] = {
	"S-1-5-21-1004336348-1177238915-682003330-1105",
	"S-1-5-21-1004336348-1177238915-682003330-513",
	"S-1-5-32-545",
	"joe@example.com",
};

/*
 * A random valid acl: 0-7 entries of every kind (owner@, group@, everyone@,
 * users and groups from the pool and outside it, unmapped identifiers),
 * random entry flags (inheritance flags more often on directories), random
 * acl flags, and either the maximum masks (unmasked or masked) or random
 * masks with masked and maybe write_through.
 */
static inline struct richacl *random_acl(struct rng *r, int isdir, const struct id_pool *pool)
{
	unsigned int n = rnd(r, 8), i;
	struct richacl *acl = richacl_alloc(0);

	if (!acl)
		exit(2);
	for (i = 0; i < n; i++) {
		struct richace ace = { 0 };
		unsigned int w = rnd(r, 100);

		ace.e_type = chance(r, 70) ? RICHACE_ACCESS_ALLOWED_ACE_TYPE :
					     RICHACE_ACCESS_DENIED_ACE_TYPE;
		if (w < 18)
			richace_set_special(&ace, RICHACE_OWNER_SPECIAL_ID);
		else if (w < 32)
			richace_set_special(&ace, RICHACE_GROUP_SPECIAL_ID);
		else if (w < 52)
			richace_set_special(&ace, RICHACE_EVERYONE_SPECIAL_ID);
		else if (w < 72)
			richace_set_uid(&ace, pool->uids[rnd(r, pool->nuids)]);
		else if (w < 88)
			richace_set_gid(&ace, pool->gids[rnd(r, pool->ngids)]);
		else if (w < 95) {
			if (richace_set_unmapped(&ace, unmapped_sids[rnd(r, 4)], chance(r, 50)))
				exit(2);
		} else if (chance(r, 50))
			richace_set_uid(&ace, 7777);
		else
			richace_set_gid(&ace, 7777);
		if (chance(r, isdir ? 35 : 8))
			ace.e_flags |= (uint16_t)(rnd(r, 16) & (RICHACE_FILE_INHERIT_ACE |
					RICHACE_DIRECTORY_INHERIT_ACE |
					RICHACE_NO_PROPAGATE_INHERIT_ACE |
					RICHACE_INHERIT_ONLY_ACE));
		if (chance(r, 10))
			ace.e_flags |= RICHACE_INHERITED_ACE;
		ace.e_mask = random_mask(r, 50);
		if (richacl_append_entry(acl, &ace))
			exit(2);
		free(ace.e_who);
	}
	if (chance(r, 15))
		acl->a_flags |= (uint8_t)(rnd(r, 8) & (RICHACL_AUTO_INHERIT | RICHACL_PROTECTED |
						      RICHACL_DEFAULTED));
	if (chance(r, 50)) {
		richacl_compute_max_masks(acl);
		if (chance(r, 30))
			acl->a_flags |= RICHACL_MASKED;
	} else {
		acl->a_flags |= RICHACL_MASKED;
		if (chance(r, 50))
			acl->a_flags |= RICHACL_WRITE_THROUGH;
		acl->a_owner_mask = random_mask(r, 60);
		acl->a_group_mask = random_mask(r, 50);
		acl->a_other_mask = random_mask(r, 40);
	}
	return acl;
}

#endif
