/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The arithmetic the BPF programs and user space share: ns_to_us() is the
 * division it replaces at every value near a multiple of 1000 up to where
 * it falls back to the division, and at random ones past it. */
#include <stdint.h>

#include "test.h"
#include "trace-abi.h"

int main(void)
{
	unsigned long wrong = 0, checked = 0;
	for (__u64 k = 0; k <= (1ULL << 32) / 1000 + 1; k++)
		for (int d = -2; d <= 2; d++) {
			__u64 ns = k * 1000 + (__u64)(__s64)d;
			if (k == 0 && d < 0)
				continue;
			checked++;
			wrong += ns_to_us(ns) != ns / 1000;
		}
	__u64 x = 88172645463325252ULL;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		__u64 ns = x >> (x & 31);
		checked++;
		wrong += ns_to_us(ns) != ns / 1000;
	}
	printf("ns_to_us: %lu values, %lu unlike ns / 1000\n", checked, wrong);
	CHECK(wrong == 0);
	CHECK(ns_to_us((1ULL << 32) - 1) == ((1ULL << 32) - 1) / 1000);
	CHECK(ns_to_us(UINT64_MAX) == UINT64_MAX / 1000);
	/* buckets never go down as latency grows */
	unsigned last = 0;
	for (__u64 us = 0; us < 100000000; us = us < 1000 ? us + 1 : us + us / 97) {
		unsigned b = hist_bucket(us);
		CHECK(b >= last && b < HIST_BUCKETS);
		last = b;
	}
	return test_done("trace-abi");
}
