/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smrd.conf from any text: refused with a line number, or accepted, and
 * then what --check-config prints reads back to the same configuration. */
#include "config.h"
#include "fuzz.h"

static char *printed(const Config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	config_print(c, f);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *err = NULL;
	Config c;
	if (config_init(&c) < 0)
		abort();
	if (config_parse_text(&c, text, &err) < 0) {
		FUZZ_ASSERT(!err || strstr(err, "line "));
	} else {
		char *once = printed(&c);
		Config again;
		char *err2 = NULL;
		config_init(&again);
		FUZZ_ASSERT(config_parse_text(&again, once, &err2) == 0);
		char *twice = printed(&again);
		FUZZ_ASSERT(strcmp(once, twice) == 0);
		free(once);
		free(twice);
		free(err2);
		config_done(&again);
	}
	config_done(&c);
	free(err);
	free(text);
	return 0;
}
