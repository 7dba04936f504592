/*
 * fuzz_text.c - libFuzzer target for the text parser (algorithms.md 7.1,
 * with the deviations D1-D7 documented in src/text.c).
 *
 * Input: acl text.  Text the parser accepts must print as text that parses
 * back to the same acl (numeric and with names); a valid acl must also
 * survive the xattr codec and every algorithm.
 */
#include <stdint.h>
#include <stddef.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct richacl_error err;
	struct richacl *acl;
	unsigned int seen = 0;
	char *text = malloc(size + 1);
	char *mask_text;
	uint32_t seed = 0;
	size_t i;

	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0; i < size; i++)
		seed = seed * 31 + data[i];
	mask_text = richacl_mask_to_text(seed, seed >> 25);
	FUZZ_CHECK(mask_text);
	free(mask_text);

	if (richacl_from_text(text, &seen, &fuzz_names, &acl, &err) != 0) {
		FUZZ_CHECK(err.code < 0);
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)));
		FUZZ_CHECK(err.column <= size + 1);
		free(text);
		return 0;
	}
	FUZZ_CHECK(!(seen & ~0xfu));
	fuzz_check_text_round_trip(acl, NULL, RICHACL_TEXT_NUMERIC_IDS);
	fuzz_check_text_round_trip(acl, &fuzz_names, RICHACL_TEXT_ALIGN);
	fuzz_check_text_round_trip(acl, &fuzz_names, RICHACL_TEXT_LONG);
	fuzz_print_all_formats(acl, &fuzz_names);
	if (richacl_valid(acl, &err) == 0) {
		fuzz_check_xattr_round_trip(acl);
		fuzz_algorithms(acl, seed);
	}
	richacl_free(acl);
	free(text);
	return 0;
}
