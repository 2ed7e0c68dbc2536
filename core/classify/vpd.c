/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * VPD decoding per SBC-4 (page 0xB1) and SAT-5 (page 0x89). The 0x89 page
 * holds IDENTIFY DEVICE at offset 60: word N at byte 60 + 2N, little-endian,
 * and ATA strings with the two bytes of each word swapped.
 */
#include "vpd.h"

#include <errno.h>
#include <string.h>

#define VPD89_IDENTIFY_OFFSET 60
#define IDENTIFY_LEN 512

/* A page's own length field (bytes 2-3) bounds what we read, as does the file. */
static size_t vpd_usable_len(const uint8_t *p, size_t len)
{
	if (len < 4)
		return 0;
	size_t declared = ((size_t)p[2] << 8 | p[3]) + 4;
	return declared < len ? declared : len;
}

int vpd_decode_b1(const uint8_t *p, size_t len, VpdB1 *ret)
{
	if (len < 4 || p[1] != 0xb1)
		return -EBADMSG;
	len = vpd_usable_len(p, len);
	if (len < 6)
		return -ENODATA;
	VpdB1 b = {.rotation_rate = (uint16_t)(p[4] << 8 | p[5])};
	if (len >= 8)
		b.form_factor = p[7] & 0x0f;
	if (len >= 9) {
		b.zoned = (p[8] >> 4) & 0x03;
		b.has_zoned = true;
	}
	*ret = b;
	return 0;
}

static uint16_t id_word(const uint8_t *id, unsigned n)
{
	return (uint16_t)(id[2 * n] | id[2 * n + 1] << 8);
}

static void id_string(const uint8_t *id, unsigned first, unsigned nwords, char *out)
{
	size_t k = 0;
	for (unsigned w = first; w < first + nwords; w++) {
		char c[2] = {(char)id[2 * w + 1], (char)id[2 * w]};
		for (int i = 0; i < 2; i++)
			out[k++] = (c[i] >= 0x20 && c[i] < 0x7f) ? c[i] : ' ';
	}
	out[k] = 0;
	while (k > 0 && out[k - 1] == ' ')
		out[--k] = 0;
	size_t lead = strspn(out, " ");
	memmove(out, out + lead, k - lead + 1);
}

int vpd_decode_89(const uint8_t *p, size_t len, AtaIdentify *ret)
{
	if (len < 4 || p[1] != 0x89)
		return -EBADMSG;
	len = vpd_usable_len(p, len);
	if (len < VPD89_IDENTIFY_OFFSET + IDENTIFY_LEN)
		return -ENODATA;
	const uint8_t *id = p + VPD89_IDENTIFY_OFFSET;
	AtaIdentify a = {0};

	/* ATA8-ACS: word 255 low byte 0xA5 means the high byte makes the sum 0. */
	if ((id_word(id, 255) & 0xff) == 0xa5) {
		uint8_t sum = 0;
		for (unsigned i = 0; i < IDENTIFY_LEN; i++)
			sum = (uint8_t)(sum + id[i]);
		a.has_checksum = true;
		a.checksum_ok = sum == 0;
		if (!a.checksum_ok)
			return -EBADMSG;
	}
	a.word69_zoned = id_word(id, 69) & 0x3;
	a.trim = id_word(id, 169) & 0x1;
	a.rotation_rate = id_word(id, 217);
	id_string(id, 27, 20, a.model);
	id_string(id, 10, 10, a.serial);
	id_string(id, 23, 4, a.firmware);
	*ret = a;
	return 0;
}

const char *vpd_zoned_to_string(unsigned v)
{
	switch (v) {
	case 1: return "host-aware";
	case 2: return "drive-managed";
	case 0: return "none";
	default: return "reserved";
	}
}
