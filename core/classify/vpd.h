/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoders for the SCSI VPD pages the classifier reads: 0xB1 (Block
 * Device Characteristics) and 0x89 (ATA Information, which carries the ATA
 * IDENTIFY DEVICE data). They take bytes and never trust a length field.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct VpdB1 {
	uint16_t rotation_rate;		/* 0 not reported, 1 non-rotating, else rpm */
	uint8_t form_factor;		/* byte 7 bits 3:0 */
	uint8_t zoned;			/* byte 8 bits 5:4: 0 not reported, 1 HA, 2 DM */
	bool has_zoned;			/* the page was long enough for byte 8 */
} VpdB1;

/* -EBADMSG for a page that is not 0xB1, -ENODATA for one too short for the rotation rate. */
int vpd_decode_b1(const uint8_t *p, size_t len, VpdB1 *ret);

#define ATA_MODEL_LEN 40
#define ATA_SERIAL_LEN 20
#define ATA_FIRMWARE_LEN 8

typedef struct AtaIdentify {
	uint16_t word69_zoned;		/* bits 1:0: 0 not reported, 1 HA, 2 DM */
	bool trim;			/* word 169 bit 0 */
	uint16_t rotation_rate;		/* word 217 */
	bool checksum_ok;		/* word 255 signature 0xA5 with a valid sum */
	bool has_checksum;
	char model[ATA_MODEL_LEN + 1];	/* words 27-46, trimmed */
	char serial[ATA_SERIAL_LEN + 1];	/* words 10-19, trimmed */
	char firmware[ATA_FIRMWARE_LEN + 1];	/* words 23-26, trimmed */
} AtaIdentify;

/* Decodes VPD 0x89; -EBADMSG on a wrong page code or a failed IDENTIFY checksum,
 * -ENODATA when the page is too short to hold the IDENTIFY data. */
int vpd_decode_89(const uint8_t *p, size_t len, AtaIdentify *ret);

/* Zoned capability value names: "none" (not reported), "host-aware", "drive-managed". */
const char *vpd_zoned_to_string(unsigned v);
