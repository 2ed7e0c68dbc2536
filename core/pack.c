/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "pack.h"

#include <errno.h>
#include <string.h>

/* A token byte t < 128 is followed by t + 1 literal bytes; t >= 128 stands
 * for t - 127 zero bytes. */
size_t zrle_pack(const void *src, size_t n, uint8_t *dst)
{
	const uint8_t *s = src;
	size_t i = 0, o = 0;
	while (i < n) {
		size_t z = 0;
		while (i + z < n && z < 128 && s[i + z] == 0)
			z++;
		if (z >= 2 || (z == 1 && i + 1 == n)) {
			dst[o++] = (uint8_t)(127 + z);
			i += z;
			continue;
		}
		/* literals up to the next run of two zeros (a lone zero rides along) */
		size_t l = 0;
		while (i + l < n && l < 128 && !(s[i + l] == 0 && i + l + 1 < n && s[i + l + 1] == 0))
			l++;
		if (l == 0)
			l = 1;
		dst[o++] = (uint8_t)(l - 1);
		memcpy(dst + o, s + i, l);
		o += l;
		i += l;
	}
	return o;
}

int zrle_unpack(const uint8_t *src, size_t len, void *dst, size_t n)
{
	uint8_t *d = dst;
	size_t i = 0, o = 0;
	while (i < len) {
		uint8_t t = src[i++];
		size_t k = t < 128 ? (size_t)t + 1 : (size_t)t - 127;
		if (o + k > n || (t < 128 && i + k > len))
			return -EBADMSG;
		if (t < 128) {
			memcpy(d + o, src + i, k);
			i += k;
		} else {
			memset(d + o, 0, k);
		}
		o += k;
	}
	return o == n ? 0 : -EBADMSG;
}
