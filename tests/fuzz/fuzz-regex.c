/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Any pattern compiles and matches within libFuzzer's memory and time
 * limits (-rss_limit_mb, -timeout): PCRE2's limits hold for every input. */
#include <errno.h>

#include "fuzz.h"
#include "pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	char why[PATTERN_WHY_MAX] = "";
	Pattern *p = NULL;
	for (unsigned flags = 0; flags <= PATTERN_WHOLE; flags += PATTERN_WHOLE) {
		if (pattern_new(text, flags, &p, why) == 0) {
			int r = pattern_match(p, "WDC WD40EFAX-68JH4N0 sda nvme0n1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");
			FUZZ_ASSERT(r == 0 || r == 1 || r == -E2BIG || r == -ENOMEM);
			p = pattern_free(p);
		} else {
			FUZZ_ASSERT(why[0]);
		}
	}
	free(text);
	return 0;
}
