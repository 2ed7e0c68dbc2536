/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tracepoint format files: a layout accepted from any text never points a
 * field outside the record it says it needs. */
#include "fuzz.h"
#include "tpformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	TpFormat f;
	if (tpformat_parse(text, &f) == 0) {
		FUZZ_ASSERT(f.n_fields <= TP_FIELDS_MAX);
		BlockRqLayout l;
		if (block_rq_layout(&f, &l) == 0) {
			FUZZ_ASSERT(l.dev + 4 <= l.min_size && l.sector + 8 <= l.min_size);
			FUZZ_ASSERT(l.rwbs + l.rwbs_size <= l.min_size);
			FUZZ_ASSERT(l.bytes < 0 || (unsigned)l.bytes + 4 <= l.min_size);
		}
	}
	(void)rwbs_op(text, (unsigned)(size < 16 ? size : 16));
	free(text);
	return 0;
}
