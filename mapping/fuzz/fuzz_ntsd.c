/*
 * fuzz_ntsd.c - libFuzzer target for the self-relative security descriptor
 * decoder and the descriptor -> richacl mapping (SEMANTICS.md M7-M12).
 *
 * Input: a self-relative security descriptor.  A descriptor the decoder
 * accepts must re-encode byte-identically after one decode; what the mapping
 * accepts must be a valid richacl that the codec, the text form and the
 * reverse mapping all take.
 */
#include <stdint.h>
#include <stddef.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void map_one(const struct nt_sd *sd, bool isdir, uint32_t seed)
{
	struct richacl_map_file file = { 1000, 100, isdir };
	struct richacl_error err;
	struct richacl *acl;

	if (richacl_from_nt_sd(sd, &file, &fuzz_resolver, &acl, &err) != 0) {
		FUZZ_CHECK(err.code < 0);
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
		return;
	}
	FUZZ_CHECK(richacl_valid(acl, &err) == 0);
	FUZZ_CHECK(!(acl->a_flags & (RICHACL_MASKED | RICHACL_WRITE_THROUGH)));
	if (!isdir) {
		const struct richace *ace;

		/* M11: no inheritance flags on non-directories */
		richacl_for_each_entry(ace, acl)
			FUZZ_CHECK(!(ace->e_flags & (RICHACE_FILE_INHERIT_ACE |
						     RICHACE_DIRECTORY_INHERIT_ACE |
						     RICHACE_NO_PROPAGATE_INHERIT_ACE |
						     RICHACE_INHERIT_ONLY_ACE)));
	}
	fuzz_check_xattr_round_trip(acl);
	fuzz_check_text_round_trip(acl, NULL, RICHACL_TEXT_NUMERIC_IDS);
	fuzz_algorithms(acl, (seed & ~0x30000u) | (isdir ? 0x10000u : 0) | 0x20000u);
	richacl_free(acl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct richacl_error err;
	struct nt_sd *sd;
	uint32_t seed = 0;
	size_t i;

	if (nt_sd_decode(data, size, &sd, &err) != 0) {
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
		return 0;
	}
	for (i = 0; i < size; i++)
		seed = seed * 31 + data[i];
	fuzz_check_sd_round_trip(sd);
	map_one(sd, false, seed);
	map_one(sd, true, seed);
	nt_sd_free(sd);
	return 0;
}
