/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Zero-run packing: round trips of sparse, dense and edge-shaped inputs,
 * the bound held, and every damaged packing refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"
#include "test.h"

static uint64_t rng = 7;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33) % n;
}

static size_t round_trip(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(ZRLE_BOUND(n) + 1), *back = malloc(n + 1);
	size_t len = zrle_pack(src, n, p);
	CHECK(len <= ZRLE_BOUND(n));
	CHECK_INT(zrle_unpack(p, len, back, n), 0);
	CHECK(n == 0 || memcmp(src, back, n) == 0);
	/* one byte short, one byte long, the wrong size: refused */
	if (len > 0)
		CHECK_INT(zrle_unpack(p, len - 1, back, n), -EBADMSG);
	CHECK_INT(zrle_unpack(p, len, back, n + 1), -EBADMSG);
	if (n > 0)
		CHECK_INT(zrle_unpack(p, len, back, n - 1), -EBADMSG);
	free(p);
	free(back);
	return len;
}

int main(void)
{
	uint8_t buf[2048];
	/* what it is for: strings at the start of fixed buffers */
	memset(buf, 0, sizeof buf);
	for (unsigned k = 0; k < 8; k++)
		snprintf((char *)buf + k * 96, 96, "WDC WD40EFAX-68JH4N0 %u", k);
	size_t len = round_trip(buf, 840);
	printf("pack: 840 bytes with 8 short strings in %zu\n", len);
	CHECK(len < 300);
	/* edges */
	round_trip(buf, 0);
	memset(buf, 0, sizeof buf);
	round_trip(buf, 1);
	round_trip(buf, 2);
	round_trip(buf, 128);
	round_trip(buf, 129);
	round_trip(buf, 2048);
	memset(buf, 0xff, sizeof buf);
	round_trip(buf, 1);
	round_trip(buf, 128);
	round_trip(buf, 129);
	CHECK(round_trip(buf, 2048) <= ZRLE_BOUND(2048));
	/* lone zeros, pairs, runs at both ends, random densities */
	for (int i = 0; i < 2000; i++) {
		size_t n = rnd(sizeof buf);
		unsigned density = rnd(100);
		for (size_t k = 0; k < n; k++)
			buf[k] = rnd(100) < density ? (uint8_t)(1 + rnd(255)) : 0;
		round_trip(buf, n);
	}
	/* garbage: never more than asked for, never a crash */
	for (int i = 0; i < 2000; i++) {
		uint8_t g[64], out[100];
		size_t n = rnd(sizeof g);
		for (size_t k = 0; k < n; k++)
			g[k] = (uint8_t)rnd(256);
		int r = zrle_unpack(g, n, out, 100);
		CHECK(r == 0 || r == -EBADMSG);
	}
	return test_done("test-pack");
}
