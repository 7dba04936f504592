/*
 * fuzz_common.h - small helpers shared by the libFuzzer targets: a check
 * that aborts (so libFuzzer records the input), a fixed name service and a
 * fixed SID resolver, so that no target depends on the host's databases.
 */
#ifndef RICHACL_FUZZ_COMMON_H
#define RICHACL_FUZZ_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "richacl.h"
#include "richacl_ntsd.h"

#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

struct fuzz_name {
	const char *name;
	uint32_t id;
};

static const struct fuzz_name fuzz_users[] = {
	{ "root", 0 }, { "daemon", 1 }, { "bin", 2 }, { "alice", 1001 }, { "bob", 1002 },
};
static const struct fuzz_name fuzz_groups[] = {
	{ "root", 0 }, { "adm", 4 }, { "staff", 50 }, { "users", 100 },
};

#define FUZZ_N(a) (sizeof(a) / sizeof((a)[0]))

static inline int fuzz_name_to_id(const struct fuzz_name *t, size_t n, const char *name,
				  uint32_t *id)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(t[i].name, name)) {
			*id = t[i].id;
			return 0;
		}
	}
	return -ENOENT;
}

static inline int fuzz_id_to_name(const struct fuzz_name *t, size_t n, uint32_t id,
				  char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].id == id && strlen(t[i].name) < size) {
			strcpy(buf, t[i].name);
			return 0;
		}
	}
	return -ENOENT;
}

static inline int fuzz_user_to_id(void *ctx, const char *name, uint32_t *id)
{
	return fuzz_name_to_id(fuzz_users, FUZZ_N(fuzz_users), name, id);
}

static inline int fuzz_group_to_id(void *ctx, const char *name, uint32_t *id)
{
	return fuzz_name_to_id(fuzz_groups, FUZZ_N(fuzz_groups), name, id);
}

static inline int fuzz_id_to_user(void *ctx, uint32_t id, char *buf, size_t size)
{
	return fuzz_id_to_name(fuzz_users, FUZZ_N(fuzz_users), id, buf, size);
}

static inline int fuzz_id_to_group(void *ctx, uint32_t id, char *buf, size_t size)
{
	return fuzz_id_to_name(fuzz_groups, FUZZ_N(fuzz_groups), id, buf, size);
}

static const struct richacl_names fuzz_names = {
	NULL, fuzz_user_to_id, fuzz_group_to_id, fuzz_id_to_user, fuzz_id_to_group,
};

/*
 * SIDs: S-1-22-1-N is uid N, S-1-22-2-N is gid N (Samba's Unix Users and
 * Unix Groups); S-1-5-21-1-2-3-R is a uid, a gid or both depending on R % 3;
 * everything else maps to nothing (an unmapped identifier, M9).
 */
static inline int fuzz_sid_to_id(void *ctx, const struct nt_sid *sid,
				 enum richacl_id_type *type, uint32_t *id)
{
	uint64_t auth = 0;
	int i;

	for (i = 0; i < 6; i++)
		auth = auth << 8 | sid->id_auth[i];
	if (sid->revision != 1)
		return -ENOENT;
	if (auth == 22 && sid->num_auths == 2 && (sid->sub_auths[0] == 1 || sid->sub_auths[0] == 2)) {
		*type = sid->sub_auths[0] == 1 ? RICHACL_ID_UID : RICHACL_ID_GID;
		*id = sid->sub_auths[1];
		return 0;
	}
	if (auth == 5 && sid->num_auths == 5 && sid->sub_auths[0] == 21 &&
	    sid->sub_auths[1] == 1 && sid->sub_auths[2] == 2 && sid->sub_auths[3] == 3) {
		static const enum richacl_id_type types[] = {
			RICHACL_ID_UID, RICHACL_ID_GID, RICHACL_ID_BOTH,
		};

		*type = types[sid->sub_auths[4] % 3];
		*id = sid->sub_auths[4];
		return 0;
	}
	return -ENOENT;
}

static inline void fuzz_unix_sid(struct nt_sid *sid, uint32_t kind, uint32_t id)
{
	memset(sid, 0, sizeof(*sid));
	sid->revision = 1;
	sid->num_auths = 2;
	sid->id_auth[5] = 22;
	sid->sub_auths[0] = kind;
	sid->sub_auths[1] = id;
}

static inline int fuzz_uid_to_sid(void *ctx, uint32_t uid, struct nt_sid *sid)
{
	if (uid == 4242)
		return -ENOENT;		/* one uid without a SID */
	fuzz_unix_sid(sid, 1, uid);
	return 0;
}

static inline int fuzz_gid_to_sid(void *ctx, uint32_t gid, struct nt_sid *sid)
{
	if (gid == 4242)
		return -ENOENT;
	fuzz_unix_sid(sid, 2, gid);
	return 0;
}

static const struct richacl_resolver fuzz_resolver = {
	NULL, fuzz_sid_to_id, fuzz_uid_to_sid, fuzz_gid_to_sid,
};

/* an xattr round trip: encode, decode, compare */
static inline void fuzz_check_xattr_round_trip(const struct richacl *acl)
{
	struct richacl_error err;
	struct richacl *back;
	size_t size = richacl_xattr_size(acl);
	unsigned char *buf = malloc(size + 1);
	ssize_t len;

	FUZZ_CHECK(buf);
	if (size > 0)
		FUZZ_CHECK(richacl_to_xattr(acl, buf, size - 1) == -ERANGE);
	len = richacl_to_xattr(acl, buf, size + 1);
	FUZZ_CHECK(len == (ssize_t)size);
	FUZZ_CHECK(richacl_from_xattr(buf, size, &back, &err) == 0);
	FUZZ_CHECK(richacl_equal(acl, back));
	richacl_free(back);
	free(buf);
}

/* whatever richacl_to_text prints parses back to the same acl */
static inline void fuzz_check_text_round_trip(const struct richacl *acl,
					      const struct richacl_names *names,
					      unsigned int fmt)
{
	struct richacl_error err;
	struct richacl *back = NULL;
	unsigned int seen = 0;
	char *text = richacl_to_text(acl, fmt | RICHACL_TEXT_SHOW_MASKS, names);
	int ret;

	FUZZ_CHECK(text);
	ret = richacl_from_text(text, &seen, names, &back, &err);
	if (ret) {
		fprintf(stderr, "text does not parse back (%s, column %zu):\n%s\n",
			err.msg, err.column, text);
		abort();
	}
	if (!richacl_equal(acl, back)) {
		fprintf(stderr, "text parses back to a different acl:\n%s\n", text);
		abort();
	}
	richacl_free(back);
	free(text);
}

/* the text forms the tools print: no crash, no leak */
static inline void fuzz_print_all_formats(const struct richacl *acl,
					  const struct richacl_names *names)
{
	static const unsigned int fmts[] = {
		RICHACL_TEXT_SIMPLIFY | RICHACL_TEXT_ALIGN | RICHACL_TEXT_FILE_CONTEXT,
		RICHACL_TEXT_LONG | RICHACL_TEXT_DIRECTORY_CONTEXT | RICHACL_TEXT_SHOW_MASKS |
			RICHACL_TEXT_ALIGN,
		RICHACL_TEXT_LONG | RICHACL_TEXT_SIMPLIFY | RICHACL_TEXT_SHOW_MASKS |
			RICHACL_TEXT_FILE_CONTEXT | RICHACL_TEXT_DIRECTORY_CONTEXT,
		RICHACL_TEXT_SHOW_MASKS | RICHACL_TEXT_SIMPLIFY | RICHACL_TEXT_ALIGN |
			RICHACL_TEXT_NUMERIC_IDS,
		0,
	};
	size_t i;

	for (i = 0; i < FUZZ_N(fmts); i++) {
		char *text = richacl_to_text(acl, fmts[i], names);

		FUZZ_CHECK(text);
		free(text);
	}
}

#endif

#ifndef RICHACL_FUZZ_ALGORITHMS
#define RICHACL_FUZZ_ALGORITHMS
#include <sys/stat.h>

/* the encoder knows the bodies of ACE types 0-3 only (src/ntsd.c) */
static inline bool fuzz_acl_encodable(const struct nt_acl *acl)
{
	unsigned int i;

	for (i = 0; acl && i < acl->num_aces; i++) {
		if (acl->aces[i].type > NT_ACE_SYSTEM_ALARM)
			return false;
	}
	return true;
}

/* a descriptor survives encode -> decode -> encode byte for byte */
static inline void fuzz_check_sd_round_trip(const struct nt_sd *sd)
{
	struct richacl_error err;
	struct nt_sd *back;
	ssize_t size;
	unsigned char *buf, *buf2;

	if (!fuzz_acl_encodable(sd->dacl) || !fuzz_acl_encodable(sd->sacl))
		return;
	size = nt_sd_encode(sd, NULL, 0);

	FUZZ_CHECK(size > 0);
	buf = malloc((size_t)size);
	buf2 = malloc((size_t)size);
	FUZZ_CHECK(buf && buf2);
	FUZZ_CHECK(nt_sd_encode(sd, buf, (size_t)size) == size);
	if (size > 1)
		FUZZ_CHECK(nt_sd_encode(sd, buf, (size_t)size - 1) < 0);
	FUZZ_CHECK(nt_sd_decode(buf, (size_t)size, &back, &err) == 0);
	FUZZ_CHECK(nt_sd_encode(back, buf2, (size_t)size) == size);
	FUZZ_CHECK(memcmp(buf, buf2, (size_t)size) == 0);
	nt_sd_free(back);
	free(buf);
	free(buf2);
}

/*
 * Run every algorithm on acl with parameters taken from seed.  Checks only
 * what holds for any input: memory safety (the sanitizers), invariants the
 * spec states, and that what the mapping produces maps back.
 */
static inline void fuzz_algorithms(const struct richacl *acl, uint32_t seed)
{
	static const uint32_t groups[] = { 100, 4 };
	bool isdir = seed & 0x10000;
	mode_t type = isdir ? S_IFDIR : S_IFREG;
	mode_t mode = seed & 07777, m;
	uint32_t owner = (seed >> 17) & 1 ? 1000 : 0;
	struct richacl_file file = { owner, 100, isdir };
	struct richacl_map_file mfile = { owner, 100, isdir };
	struct richacl_cred creds[] = {
		{ owner, 100, 0, NULL },
		{ 5, 100, 2, groups },
		{ 1001, 50, 0, NULL },
		{ 1002, 4, 2, groups },
	};
	struct richacl_error err;
	struct richacl *c, *inh, *out = NULL;
	struct nt_sd *sd;
	size_t i;

	/* 2: compute_max_masks clears masked and write_through */
	c = richacl_clone(acl);
	FUZZ_CHECK(c);
	richacl_compute_max_masks(c);
	FUZZ_CHECK(!(c->a_flags & (RICHACL_MASKED | RICHACL_WRITE_THROUGH)));
	richacl_free(c);

	/* 4: apply_masks gives an unmasked acl */
	c = richacl_clone(acl);
	FUZZ_CHECK(c);
	if (richacl_apply_masks(&c, owner) == 0)
		FUZZ_CHECK(!(c->a_flags & RICHACL_MASKED));
	richacl_free(c);

	/* 1.3/1.2: an equivalent mode gives back an equivalent acl */
	m = type | mode;
	if (richacl_equiv_mode(acl, &m) == 0) {
		mode_t m2 = m;

		c = richacl_from_mode(m);
		FUZZ_CHECK(c);
		FUZZ_CHECK(richacl_equiv_mode(c, &m2) == 0);
		FUZZ_CHECK(m2 == m);
		richacl_free(c);
	}

	/* 3.1: chmod sets masks whose mode is the new mode */
	c = richacl_clone(acl);
	FUZZ_CHECK(c);
	richacl_chmod(c, type | mode);
	FUZZ_CHECK(richacl_masks_to_mode(c) == (mode & 0777));
	FUZZ_CHECK(c->a_flags & RICHACL_MASKED);
	richacl_free(c);

	/* 5: inheritance */
	inh = richacl_inherit(acl, isdir);
	if (inh) {
		c = richacl_auto_inherit(acl, inh);
		richacl_free(c);
	}
	m = type | 0666;
	if (richacl_inherit_inode(acl, &m, 022, &out) == 0)
		richacl_free(out);
	richacl_free(inh);

	/* 6: access never reports bits outside the valid mask */
	for (i = 0; i < FUZZ_N(creds); i++) {
		uint32_t granted = richacl_access(acl, &file, &creds[i]);

		FUZZ_CHECK(!(granted & ~RICHACE_VALID_MASK));
		if (!isdir)
			FUZZ_CHECK(!(granted & RICHACE_DELETE_CHILD));
		(void)richacl_permission(acl, &file, &creds[i], seed & RICHACE_VALID_MASK);
	}

	/* M1-M6 and back (M13): what the mapping returns, it accepts */
	if (richacl_to_nt_sd(acl, type | mode, &mfile, NT_SECINFO_OWNER | NT_SECINFO_GROUP |
			     NT_SECINFO_DACL | NT_SECINFO_SACL, &fuzz_resolver, &sd, &err) == 0) {
		struct richacl *back;

		fuzz_check_sd_round_trip(sd);
		int ret = richacl_from_nt_sd(sd, &mfile, &fuzz_resolver, &back, &err);

		/*
		 * The one documented refusal: a local acl's deny entry for a
		 * SID without an id reads as a deny that a write refuses.
		 */
		if (ret == -ENOENT && strstr(err.msg, "deny entry for SID"))
			back = NULL;
		else if (ret != 0) {
			fprintf(stderr, "richacl_from_nt_sd refuses what richacl_to_nt_sd "
				"returned: %s\n", err.msg);
			abort();
		}
		richacl_free(back);
		nt_sd_free(sd);
	}
}
#endif
