/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packing a fixed-size struct of mostly empty string buffers (what the
 * classifier reads of a disk: ~0.8 KiB, a quarter of it used) into about
 * as many bytes as it holds, and restoring it byte for byte: raw DEFLATE
 * through libdeflate, which the daemon links for gzip already.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The most bytes pack_bytes writes for n: DEFLATE's stored blocks, at worst. */
#define PACK_BOUND(n) ((n) + 5 * ((n) / 16384 + 1) + 16)

/* Packs src[0..n) into dst (PACK_BOUND(n) bytes): 0 and *ret_len, or -ENOMEM. */
int pack_bytes(const void *src, size_t n, uint8_t *dst, size_t *ret_len);
/* Restores exactly n bytes into dst; -EBADMSG if src is not a packing of n bytes. */
int unpack_bytes(const uint8_t *src, size_t len, void *dst, size_t n);
