/*
 * map_roundtrip.c - how many Windows security descriptors per second the
 * mapping library carries through the path a Samba SET + GET takes:
 *
 *     nt_sd -> richacl (richacl_from_nt_sd, M7-M12)
 *           -> system.richacl xattr value (richacl_to_xattr)
 *           -> richacl (richacl_from_xattr)
 *           -> nt_sd (richacl_to_nt_sd, M1-M6)
 *
 * for descriptors of 3, 10 and 100 ACEs on a directory (so inheritance
 * flags are kept).  Each size is timed in several runs of at least
 * --seconds each; the table shows the median rate and the spread.
 *
 *     build/bench/map_roundtrip [--runs N] [--seconds S]
 *     build/bench/map_roundtrip --insns ACES ROUND_TRIPS   (under callgrind)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "richacl.h"
#include "richacl_ntsd.h"

#define OWNER_UID	1000
#define OWNER_GID	100
#define BATCH		200

/* Samba's Unix Users / Unix Groups SIDs: S-1-22-1-<uid>, S-1-22-2-<gid> */
static void unix_sid(struct nt_sid *sid, uint32_t kind, uint32_t id)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 2;
	sid->id_auth[5] = 22;
	sid->sub_auths[0] = kind;
	sid->sub_auths[1] = id;
}

static int sid_to_id(void *ctx, const struct nt_sid *sid, enum richacl_id_type *type,
		     uint32_t *id)
{
	if (sid->revision != 1 || sid->num_auths != 2 || sid->id_auth[5] != 22 ||
	    (sid->sub_auths[0] != 1 && sid->sub_auths[0] != 2))
		return -ENOENT;
	*type = sid->sub_auths[0] == 1 ? RICHACL_ID_UID : RICHACL_ID_GID;
	*id = sid->sub_auths[1];
	return 0;
}

static int uid_to_sid(void *ctx, uint32_t uid, struct nt_sid *sid)
{
	unix_sid(sid, 1, uid);
	return 0;
}

static int gid_to_sid(void *ctx, uint32_t gid, struct nt_sid *sid)
{
	unix_sid(sid, 2, gid);
	return 0;
}

static const struct richacl_resolver resolver = { NULL, sid_to_id, uid_to_sid, gid_to_sid };

/*
 * A descriptor with count ACEs in a typical mix: the owner, named users and
 * groups (some denied, some inheritable), everyone, CREATOR OWNER.
 */
static struct nt_sd *make_sd(unsigned int count)
{
	struct nt_sd *sd = nt_sd_alloc();
	unsigned int i;

	if (!sd)
		return NULL;
	sd->control = NT_SD_SELF_RELATIVE | NT_SD_DACL_PRESENT | NT_SD_DACL_AUTO_INHERITED;
	sd->has_owner = sd->has_group = true;
	unix_sid(&sd->owner, 1, OWNER_UID);
	unix_sid(&sd->group, 2, OWNER_GID);
	sd->dacl = nt_acl_alloc(count);
	if (!sd->dacl) {
		nt_sd_free(sd);
		return NULL;
	}
	for (i = 0; i < count; i++) {
		struct nt_ace *ace = &sd->dacl->aces[i];

		switch (i % 5) {
		case 0:
			ace->type = NT_ACE_ACCESS_ALLOWED;
			ace->mask = 0x001F01FF;		/* full control */
			if (i == 0)
				unix_sid(&ace->trustee, 1, OWNER_UID);
			else
				unix_sid(&ace->trustee, 1, 2000 + i);
			break;
		case 1:
			ace->type = NT_ACE_ACCESS_DENIED;
			ace->mask = 0x00000116;		/* write data/attrs/ea */
			unix_sid(&ace->trustee, 1, 2000 + i);
			break;
		case 2:
			ace->type = NT_ACE_ACCESS_ALLOWED;
			ace->flags = NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT;
			ace->mask = 0x001200A9;		/* read and execute */
			unix_sid(&ace->trustee, 2, 3000 + i);
			break;
		case 3:
			ace->type = NT_ACE_ACCESS_ALLOWED;
			ace->mask = 0x001200A9;
			ace->trustee = nt_sid_world;
			break;
		default:
			ace->type = NT_ACE_ACCESS_ALLOWED;
			ace->flags = NT_ACE_OBJECT_INHERIT | NT_ACE_CONTAINER_INHERIT |
				     NT_ACE_INHERIT_ONLY;
			ace->mask = 0x001F01FF;
			ace->trustee = nt_sid_creator_owner;
			break;
		}
	}
	return sd;
}

static const struct richacl_map_file dir_file = { OWNER_UID, OWNER_GID, true };

/*
 * The SET half: descriptor -> richacl -> system.richacl value in buf.
 * Returns the length of the value, or -1.  Not inlined, so that callgrind
 * can attribute the instructions of each half (--insns).
 */
static __attribute__((noinline)) ssize_t sd_to_xattr(const struct nt_sd *sd, unsigned char *buf,
						     size_t size)
{
	struct richacl_error err;
	struct richacl *acl;
	ssize_t len;

	if (richacl_from_nt_sd(sd, &dir_file, &resolver, &acl, &err))
		return -1;
	len = richacl_to_xattr(acl, buf, size);
	richacl_free(acl);
	return len;
}

/* The GET half: system.richacl value -> richacl -> descriptor; ACEs out or -1. */
static __attribute__((noinline)) int xattr_to_sd(const unsigned char *buf, size_t len)
{
	struct richacl_error err;
	struct richacl *back;
	struct nt_sd *out;
	int aces;

	if (richacl_from_xattr(buf, len, &back, &err))
		return -1;
	if (richacl_to_nt_sd(back, 040755, &dir_file, NT_SECINFO_OWNER | NT_SECINFO_GROUP |
			     NT_SECINFO_DACL, &resolver, &out, &err)) {
		richacl_free(back);
		return -1;
	}
	richacl_free(back);
	aces = out->dacl ? (int)out->dacl->num_aces : 0;
	nt_sd_free(out);
	return aces;
}

/* one SET + GET; returns the number of ACEs returned, or -1 */
static int round_trip(const struct nt_sd *sd)
{
	unsigned char buf[RICHACL_XATTR_MAX_SIZE];
	ssize_t len = sd_to_xattr(sd, buf, sizeof(buf));

	if (len < 0)
		return -1;
	return xattr_to_sd(buf, (size_t)len);
}

/* the round trips that callgrind counts (--toggle-collect=measured_round_trips) */
static __attribute__((noinline)) int measured_round_trips(const struct nt_sd *sd, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (round_trip(sd) < 0)
			return -1;
	}
	return 0;
}

/*
 * --insns: a fixed amount of work for an instruction count.  Two round trips
 * first (lazy binding, the allocator's first chunks), then n measured ones:
 *
 *   valgrind --tool=callgrind --collect-atstart=no \
 *            --toggle-collect=measured_round_trips map_roundtrip --insns 100 20
 *
 * and callgrind_annotate --inclusive=yes gives sd_to_xattr and xattr_to_sd.
 */
static int insns_mode(unsigned int count, int n)
{
	struct nt_sd *sd = make_sd(count);
	int rc;

	if (!sd || round_trip(sd) < 0 || round_trip(sd) < 0) {
		fprintf(stderr, "%u ACEs: the round trip fails\n", count);
		nt_sd_free(sd);
		return 1;
	}
	rc = measured_round_trips(sd, n);
	nt_sd_free(sd);
	if (rc) {
		fprintf(stderr, "%u ACEs: the round trip fails\n", count);
		return 1;
	}
	printf("insns %u ACEs: %d round trips done\n", count, n);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* round trips per second over at least seconds */
static double timed_run(const struct nt_sd *sd, double seconds)
{
	double start = now(), elapsed;
	unsigned long done = 0;
	int i;

	do {
		for (i = 0; i < BATCH; i++) {
			if (round_trip(sd) < 0)
				return -1;
		}
		done += BATCH;
		elapsed = now() - start;
	} while (elapsed < seconds);
	return (double)done / elapsed;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char *argv[])
{
	static const unsigned int sizes[] = { 3, 10, 100 };
	double seconds = 0.5, rates[99];
	int runs = 7, i, n;
	size_t s;

	if (argc == 4 && !strcmp(argv[1], "--insns")) {
		int count = atoi(argv[2]), trips = atoi(argv[3]);

		if (count < 1 || count > 1000 || trips < 1) {
			fprintf(stderr, "%s: --insns wants 1..1000 ACEs and a positive count\n", argv[0]);
			return 2;
		}
		return insns_mode((unsigned int)count, trips);
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--runs N] [--seconds S]\n"
				"       %s --insns ACES ROUND_TRIPS\n", argv[0], argv[0]);
			return 2;
		}
	}
	if (runs < 1 || runs > 99 || seconds <= 0) {
		fprintf(stderr, "%s: --runs must be 1..99 and --seconds positive\n", argv[0]);
		return 2;
	}

	printf("sd -> richacl -> xattr -> richacl -> sd, directory, median of %d runs of >= %.2f s\n\n",
	       runs, seconds);
	printf("%7s %9s %9s %16s %12s %25s\n", "ACEs in", "entries", "ACEs out",
	       "round trips/s", "us/trip", "min .. max round trips/s");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct nt_sd *sd = make_sd(sizes[s]);
		struct richacl_error err;
		struct richacl *acl;
		int aces_out;
		unsigned int entries;

		if (!sd || richacl_from_nt_sd(sd, &dir_file, &resolver, &acl, &err)) {
			fprintf(stderr, "%u ACEs: the descriptor does not map: %s\n", sizes[s],
				sd ? err.msg : "out of memory");
			return 1;
		}
		entries = acl->a_count;
		richacl_free(acl);
		aces_out = round_trip(sd);
		if (aces_out < 0) {
			fprintf(stderr, "%u ACEs: the round trip fails\n", sizes[s]);
			return 1;
		}
		for (n = 0; n < runs; n++) {
			rates[n] = timed_run(sd, seconds);
			if (rates[n] < 0) {
				fprintf(stderr, "%u ACEs: the round trip fails\n", sizes[s]);
				return 1;
			}
		}
		qsort(rates, (size_t)runs, sizeof(rates[0]), cmp_double);
		printf("%7u %9u %9d %16.0f %12.2f %12.0f .. %10.0f\n", sizes[s], entries, aces_out,
		       rates[runs / 2], 1e6 / rates[runs / 2], rates[0], rates[runs - 1]);
		nt_sd_free(sd);
	}
	return 0;
}
