/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev database files from any text: a value found is bounded and printable. */
#include "fuzz.h"
#include "sysfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), buf[96];
	const char *keys[] = {"ID_MODEL", "ID_SERIAL", "ID_SERIAL_SHORT", "ID_WWN", "ID_ATA_ROTATION_RATE_RPM", "ID_FS_TYPE"};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
		if (udevdb_lookup(text, keys[k], buf, sizeof buf)) {
			FUZZ_ASSERT(strlen(buf) < sizeof buf);
			for (const char *c = buf; *c; c++)
				FUZZ_ASSERT((unsigned char)*c >= 0x20 && (unsigned char)*c <= 0x7e);
		}
	free(text);
	return 0;
}
