/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Any pattern the bounds let through compiles within libFuzzer's memory and
 * time limits (-rss_limit_mb, -timeout): the checker's estimate holds. */
#include <regex.h>

#include "fuzz.h"
#include "regex-bound.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	const char *why;
	regex_t re;
	if (regex_compile_bounded(&re, text, REG_EXTENDED | REG_NOSUB, &why) == 0) {
		regexec(&re, "WDC WD40EFAX-68JH4N0 sda nvme0n1", 0, NULL, 0);
		regfree(&re);
	} else {
		FUZZ_ASSERT(why && *why);
	}
	free(text);
	return 0;
}
