/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Issue/complete pairing from any sequence of events (out of order,
 * duplicated, lost, requeued): memory stays bounded, every pair's latency is
 * what its timestamps say, and nothing is paired twice. */
#include "fuzz.h"
#include "pairing.h"

typedef struct Seen {
	uint64_t pairs, issues;
} Seen;

static void on_pair(uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t lat_ns, uint64_t done_ns,
		    void *userdata)
{
	Seen *s = userdata;
	(void)dev, (void)sector, (void)bytes;
	FUZZ_ASSERT(op >= 0 && op < 4);
	FUZZ_ASSERT(lat_ns <= done_ns);
	s->pairs++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Pairing p;
	Seen s = {0};
	if (pairing_init(&p, 64, 1000000) < 0)
		abort();
	/* 8 bytes an event: kind, dev, op, sector, time step */
	uint64_t now = 1000000000;
	for (size_t i = 0; i + 8 <= size; i += 8) {
		const uint8_t *e = data + i;
		uint32_t dev = e[1] & 3;
		int op = e[2] & 3;
		uint64_t sector = e[3] | (uint64_t)e[4] << 8;
		now += (uint64_t)(e[5] | e[6] << 8) * 100;
		switch (e[0] & 3) {
		case 0: pairing_issue(&p, dev, op, sector, 4096, now, on_pair, &s); s.issues++; break;
		case 1: pairing_complete(&p, dev, op, sector, now, on_pair, &s); break;
		case 2: pairing_expire(&p, now); break;
		default: pairing_forget_dev(&p, dev); break;
		}
		FUZZ_ASSERT(p.used <= p.cap);
	}
	FUZZ_ASSERT(s.pairs <= s.issues && s.pairs == p.st.paired);
	pairing_free(&p);
	return 0;
}
