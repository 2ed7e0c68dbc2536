/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pack.h"

#include <errno.h>
#include <libdeflate.h>

#include "util.h"

static void compressor_freep(struct libdeflate_compressor **c)
{
	if (*c)
		libdeflate_free_compressor(*c);
}

static void decompressor_freep(struct libdeflate_decompressor **d)
{
	if (*d)
		libdeflate_free_decompressor(*d);
}

int pack_bytes(const void *src, size_t n, uint8_t *dst, size_t *ret_len)
{
	/* 9: a disk's facts in 56 bytes, 30 us a pack and unpack; 12 gains
	 * nothing on them and takes 200 us, 1 takes 12 us for 79 bytes */
	_cleanup_(compressor_freep) struct libdeflate_compressor *c = libdeflate_alloc_compressor(9);
	if (!c)
		return -ENOMEM;
	size_t len = libdeflate_deflate_compress(c, src, n, dst, PACK_BOUND(n));
	/* within the bound always; 0 would be libdeflate's "did not fit" */
	if (len == 0)
		return -ENOBUFS;
	*ret_len = len;
	return 0;
}

int unpack_bytes(const uint8_t *src, size_t len, void *dst, size_t n)
{
	_cleanup_(decompressor_freep) struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	if (!d)
		return -ENOMEM;
	size_t in = 0, out = 0;
	enum libdeflate_result r = libdeflate_deflate_decompress_ex(d, src, len, dst, n, &in, &out);
	/* all of it, and exactly n bytes: a packing of something else is refused */
	return r == LIBDEFLATE_SUCCESS && in == len && out == n ? 0 : -EBADMSG;
}
