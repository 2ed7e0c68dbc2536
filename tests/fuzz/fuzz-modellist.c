/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model list (and drivedb.h) from any text: parsed or refused with a reason, never a
 * pattern that costs gigabytes (libFuzzer's -rss_limit_mb and -timeout
 * catch one), and a parsed list matches without trouble. */
#include <errno.h>

#include "fuzz.h"
#include "modellist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *err = NULL;
	ModelList *ml = NULL;
	int r = modellist_parse(text, &ml, &err);
	if (r < 0)
		FUZZ_ASSERT(err && *err);
	else {
		(void)modellist_match(ml, "WDC WD40EFAX-68JH4N0");
		(void)modellist_match(ml, text);
	}
	modellist_free(ml);
	free(err);
	/* the same text as smartmontools' drivedb.h */
	ml = NULL;
	err = NULL;
	r = modellist_parse_drivedb(text, &ml, NULL, &err);
	if (r == -EINVAL || r == -E2BIG)
		FUZZ_ASSERT(err && *err);
	if (r >= 0)
		(void)modellist_match(ml, text);
	modellist_free(ml);
	free(err);
	free(text);
	return 0;
}
