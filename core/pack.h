/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zero-run packing: a fixed-size struct of mostly empty string buffers
 * (what the classifier reads of a disk: ~0.8 KiB, a quarter of it used)
 * kept in as many bytes as it holds, and restored byte for byte.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The most bytes zrle_pack writes for n. */
#define ZRLE_BOUND(n) ((n) + (n) / 128 + 1)

/* Packs src[0..n) into dst (ZRLE_BOUND(n) bytes); returns the length. */
size_t zrle_pack(const void *src, size_t n, uint8_t *dst);
/* Restores exactly n bytes into dst; -EBADMSG if src is not a packing of n bytes. */
int zrle_unpack(const uint8_t *src, size_t len, void *dst, size_t n);
