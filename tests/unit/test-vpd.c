/* SPDX-License-Identifier: GPL-2.0-or-later */
/* VPD 0xB1 and 0x89 decoders on the primer's real page and on crafted ones. */
#include <stdint.h>

#include "test.h"
#include "vpd.h"

static void test_b1(void)
{
	/* WD140EMFZ over USB, from the fio thread: 5400 rpm, ZONED = 0. */
	uint8_t real[64] = {0x00, 0xb1, 0x00, 0x3c, 0x15, 0x18};
	VpdB1 b;
	CHECK_INT(vpd_decode_b1(real, sizeof real, &b), 0);
	CHECK_INT(b.rotation_rate, 5400);
	CHECK_INT(b.zoned, 0);
	CHECK(b.has_zoned);

	uint8_t dm[64] = {0x00, 0xb1, 0x00, 0x3c, 0x1c, 0x20, 0, 0x02, 0x20};
	CHECK_INT(vpd_decode_b1(dm, sizeof dm, &b), 0);
	CHECK_INT(b.zoned, 2);
	CHECK_INT(b.form_factor, 2);
	CHECK_INT(b.rotation_rate, 7200);
	dm[8] = 0x10;
	CHECK_INT(vpd_decode_b1(dm, sizeof dm, &b), 0);
	CHECK_INT(b.zoned, 1);

	/* Truncated: the file is short, or the page says it is. */
	CHECK_INT(vpd_decode_b1(dm, 5, &b), -ENODATA);
	CHECK_INT(vpd_decode_b1(dm, 3, &b), -EBADMSG);
	CHECK_INT(vpd_decode_b1(dm, 7, &b), 0);
	CHECK(!b.has_zoned);
	uint8_t shortlen[64] = {0x00, 0xb1, 0x00, 0x02, 0x1c, 0x20, 0, 0, 0x20};
	CHECK_INT(vpd_decode_b1(shortlen, sizeof shortlen, &b), 0);
	CHECK(!b.has_zoned);	/* byte 8 lies beyond the page's own length */
	uint8_t wrong[64] = {0x00, 0xb0, 0x00, 0x3c};
	CHECK_INT(vpd_decode_b1(wrong, sizeof wrong, &b), -EBADMSG);
}

static void put_word(uint8_t *id, unsigned n, uint16_t v)
{
	id[2 * n] = v & 0xff;
	id[2 * n + 1] = v >> 8;
}

static void put_string(uint8_t *id, unsigned first, unsigned nwords, const char *s)
{
	char pad[80];
	snprintf(pad, sizeof pad, "%-*s", (int)(nwords * 2), s);
	for (unsigned i = 0; i < nwords; i++) {
		id[2 * (first + i)] = (uint8_t)pad[2 * i + 1];
		id[2 * (first + i) + 1] = (uint8_t)pad[2 * i];
	}
}

static void seal(uint8_t *id)
{
	id[510] = 0xa5;
	uint8_t sum = 0;
	for (int i = 0; i < 511; i++)
		sum = (uint8_t)(sum + id[i]);
	id[511] = (uint8_t)-sum;
}

static void test_89(void)
{
	uint8_t page[572] = {0x00, 0x89, 0x02, 0x38};
	uint8_t *id = page + 60;
	AtaIdentify a;
	put_string(id, 27, 20, "WDC WD60EZAZ-00SF3B0");
	put_string(id, 10, 10, "WD-WX12345");
	put_word(id, 69, 2);
	put_word(id, 169, 1);
	put_word(id, 217, 5400);
	seal(id);
	CHECK_INT(vpd_decode_89(page, sizeof page, &a), 0);
	CHECK_STR(a.model, "WDC WD60EZAZ-00SF3B0");
	CHECK_STR(a.serial, "WD-WX12345");
	CHECK_INT(a.word69_zoned, 2);
	CHECK(a.trim);
	CHECK_INT(a.rotation_rate, 5400);
	CHECK(a.checksum_ok);

	id[100] ^= 1;	/* a flipped bit fails the checksum */
	CHECK_INT(vpd_decode_89(page, sizeof page, &a), -EBADMSG);
	id[100] ^= 1;
	CHECK_INT(vpd_decode_89(page, 300, &a), -ENODATA);
	page[1] = 0x88;
	CHECK_INT(vpd_decode_89(page, sizeof page, &a), -EBADMSG);
	CHECK_STR(vpd_zoned_to_string(2), "drive-managed");
}

int main(void)
{
	test_b1();
	test_89();
	return test_done("test-vpd");
}
