/*
 * helpers_algo.h - shared helpers for the algorithm tests (test_mode,
 * test_masks, test_apply_masks, test_inherit, test_permission): acls from
 * text, comparisons against the spec's expected text, a seeded PRNG and
 * random acls / processes for the property tests.
 */
#ifndef RICHACL_TESTS_HELPERS_ALGO_H
#define RICHACL_TESTS_HELPERS_ALGO_H

#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#include "richacl.h"

/* parse acl text with numeric ids (names NULL); fails the test on error */
struct richacl *algo_acl(const char *text);

/* a mask from permission letters of algorithms.md 0.1 ("rwpx", "" = 0) */
uint32_t algo_perms(const char *letters);

/* unaligned numeric text of acl, for failure messages (caller frees) */
char *algo_text(const struct richacl *acl);

/*
 * Fail unless acl has exactly the entries (type, flags, mask, identifier,
 * in order) and the acl flags of expected (acl text).  Masks not compared.
 */
void algo_check_entries(const struct richacl *acl, const char *expected,
			const char *file, int line);
#define assert_entries(acl, expected) \
	algo_check_entries((acl), (expected), __FILE__, __LINE__)

/* fail unless the three masks are these permission letters */
void algo_check_masks(const struct richacl *acl, const char *owner,
		      const char *group, const char *other,
		      const char *file, int line);
#define assert_masks(acl, o, g, t) \
	algo_check_masks((acl), (o), (g), (t), __FILE__, __LINE__)

/* ---- seeded PRNG: seed printed, RICHACL_TEST_SEED overrides ---- */

struct algo_rng {
	uint64_t state;
};

/* seed from RICHACL_TEST_SEED or the clock; prints "<name>: seed N" */
void algo_rng_init(struct algo_rng *rng, const char *name);
uint32_t algo_rand(struct algo_rng *rng);
/* uniform in [0, n) */
unsigned int algo_below(struct algo_rng *rng, unsigned int n);
/* scale an iteration count by RICHACL_TEST_SCALE (percent, default 100) */
unsigned int algo_iterations(unsigned int n);

/* ---- random acls and processes ---- */

/* the file every property test uses */
#define ALGO_OWNER	1000
#define ALGO_GROUP	100

struct algo_acl_shape {
	unsigned int max_entries;
	bool specials_only;		/* only owner@, group@, everyone@ */
	bool no_entry_flags;		/* no inheritance flags, no unmapped */
	bool no_unmapped;
	uint8_t acl_flags;		/* candidate acl flags, each set at random */
};

/*
 * A random acl: owner@/group@/everyone@, users (the owner, 5, 6), groups
 * (the owning group, 7, 8) and unmapped identifiers; allow and deny;
 * random masks drawn mostly from r w p x d, sometimes any valid bit
 * (always-allowed ones included); random inheritance flags; random
 * candidate acl flags and random file masks.
 */
struct richacl *algo_random_acl(struct algo_rng *rng, const struct algo_acl_shape *shape);

/* a random unmapped entry (user or group, random type, mask and flags) */
void algo_random_unmapped(struct algo_rng *rng, struct richace *ace);

/* the processes tried against every random acl */
struct algo_cred_set {
	unsigned int count;
	struct richacl_cred creds[20];
	uint32_t groups[20][3];
};

void algo_all_creds(struct algo_cred_set *set);

/* the valid mask bits one at a time: bit i of RICHACE_VALID_MASK */
unsigned int algo_mask_bits(uint32_t mask, uint32_t *bits);

#endif
