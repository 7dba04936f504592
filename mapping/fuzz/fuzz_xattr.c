/*
 * fuzz_xattr.c - libFuzzer target for the system.richacl decoder
 * (algorithms.md section 8) and everything that consumes a decoded acl.
 *
 * Input: a raw xattr value.  A value the decoder accepts must re-encode to
 * an equal acl, print as text that parses back to it, and go through every
 * algorithm and the descriptor mapping without a sanitizer report.
 */
#include <stdint.h>
#include <stddef.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct richacl_error err;
	struct richacl *acl;
	uint32_t seed = 0;
	size_t i;

	if (richacl_from_xattr(data, size, &acl, &err) != 0)
		return 0;
	FUZZ_CHECK(richacl_valid(acl, &err) == 0);
	fuzz_check_xattr_round_trip(acl);
	fuzz_check_text_round_trip(acl, NULL, RICHACL_TEXT_NUMERIC_IDS);
	fuzz_check_text_round_trip(acl, &fuzz_names, RICHACL_TEXT_LONG | RICHACL_TEXT_ALIGN);
	fuzz_print_all_formats(acl, &fuzz_names);
	for (i = 0; i < size; i++)
		seed = seed * 31 + data[i];
	fuzz_algorithms(acl, seed);
	richacl_free(acl);
	return 0;
}
