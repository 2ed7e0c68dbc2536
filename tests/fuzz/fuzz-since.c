/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --since from any text: accepted values are finite and not negative. */
#include <math.h>

#include "fuzz.h"
#include "since.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size > 256 ? 256 : size);
	double t;
	if (parse_since(text, 1764486000, &t) == 0)
		FUZZ_ASSERT(isfinite(t) && t >= -1e11 && t <= 1e12);
	free(text);
	return 0;
}
