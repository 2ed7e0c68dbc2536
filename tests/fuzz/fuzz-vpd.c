/* SPDX-License-Identifier: GPL-2.0-or-later */
/* VPD pages 0xB1 and 0x89 from any bytes: decoded values stay in range and
 * the strings are terminated and printable. */
#include <ctype.h>
#include <errno.h>

#include "fuzz.h"
#include "vpd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	VpdB1 b1;
	if (vpd_decode_b1(data, size, &b1) == 0)
		FUZZ_ASSERT(b1.zoned <= 3 && b1.form_factor <= 15);
	AtaIdentify id;
	int r = vpd_decode_89(data, size, &id);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG || r == -ENODATA);
	if (r == 0) {
		FUZZ_ASSERT(strlen(id.model) <= ATA_MODEL_LEN && strlen(id.serial) <= ATA_SERIAL_LEN);
		FUZZ_ASSERT(id.word69_zoned <= 3);
	}
	return 0;
}
