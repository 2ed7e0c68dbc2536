/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The perf backend's issue/complete pairing: in order, out of order across
 * CPUs, requeued, duplicated and lost events, a full table, and a random
 * soak against a reference. */
#include "pairing.h"
#include "test.h"

typedef struct Got {
	unsigned n;
	uint64_t lat[64];
	uint32_t bytes[64];
} Got;

static void on_pair(uint32_t dev, int op, uint64_t sector, uint32_t bytes, uint64_t lat, uint64_t done, void *ud)
{
	Got *g = ud;
	(void)dev, (void)op, (void)sector, (void)done;
	if (g->n < 64) {
		g->lat[g->n] = lat;
		g->bytes[g->n] = bytes;
	}
	g->n++;
}

static void test_cases(void)
{
	Pairing p;
	Got g = {0};
	CHECK_INT(pairing_init(&p, 64, 1000000), 0);

	/* In order. */
	pairing_issue(&p, 7, 1, 100, 4096, 1000, on_pair, &g);
	pairing_complete(&p, 7, 1, 100, 1500, on_pair, &g);
	CHECK_INT(g.n, 1);
	CHECK_INT(g.lat[0], 500);
	CHECK_INT(g.bytes[0], 4096);
	CHECK_INT(p.used, 0);

	/* The completion read first (another CPU's ring was drained earlier). */
	pairing_complete(&p, 7, 0, 200, 2600, on_pair, &g);
	CHECK_INT(g.n, 1);
	pairing_issue(&p, 7, 0, 200, 512, 2000, on_pair, &g);
	CHECK_INT(g.n, 2);
	CHECK_INT(g.lat[1], 600);
	CHECK_INT(p.used, 0);

	/* Requeued: issued twice, the latency counts from the second issue. */
	pairing_issue(&p, 7, 1, 300, 4096, 3000, on_pair, &g);
	pairing_issue(&p, 7, 1, 300, 4096, 3400, on_pair, &g);
	pairing_complete(&p, 7, 1, 300, 3500, on_pair, &g);
	CHECK_INT(g.n, 3);
	CHECK_INT(g.lat[2], 100);
	CHECK_INT(p.st.reissued, 1);

	/* Duplicated completion: paired once, the copy is unmatched. */
	pairing_issue(&p, 7, 1, 400, 4096, 4000, on_pair, &g);
	pairing_complete(&p, 7, 1, 400, 4100, on_pair, &g);
	pairing_complete(&p, 7, 1, 400, 4100, on_pair, &g);
	CHECK_INT(g.n, 4);
	pairing_expire(&p, 4100 + PAIRING_ORPHAN_AGE_NS + 1);
	CHECK_INT(p.st.unmatched, 1);
	CHECK_INT(p.used, 0);

	/* Same sector on two devices, and two ops on one sector, stay apart. */
	pairing_issue(&p, 7, 0, 500, 1, 5000, on_pair, &g);
	pairing_issue(&p, 8, 0, 500, 2, 5010, on_pair, &g);
	pairing_issue(&p, 7, 1, 500, 3, 5020, on_pair, &g);
	pairing_complete(&p, 8, 0, 500, 5100, on_pair, &g);
	CHECK_INT(g.bytes[4], 2);
	pairing_complete(&p, 7, 1, 500, 5200, on_pair, &g);
	CHECK_INT(g.bytes[5], 3);
	pairing_complete(&p, 7, 0, 500, 5300, on_pair, &g);
	CHECK_INT(g.bytes[6], 1);
	CHECK_INT(g.lat[6], 300);

	/* Lost completion: the issue expires after max_age, counted. */
	pairing_issue(&p, 7, 1, 600, 1, 6000, on_pair, &g);
	pairing_expire(&p, 6000 + 999999);
	CHECK_INT(p.used, 1);
	pairing_expire(&p, 6000 + 1000001);
	CHECK_INT(p.used, 0);
	CHECK_INT(p.st.expired, 1);

	/* A completion older than the pending issue is not its completion. */
	pairing_issue(&p, 7, 1, 700, 1, 7000, on_pair, &g);
	unsigned before = g.n;
	pairing_complete(&p, 7, 1, 700, 6990, on_pair, &g);
	CHECK_INT(g.n, before);

	/* Full table: issues are dropped and counted, memory stays bounded. */
	Pairing small;
	pairing_init(&small, 16, 1000);
	for (int i = 0; i < 100; i++)
		pairing_issue(&small, 1, 1, (uint64_t)i, 1, 10, on_pair, &g);
	CHECK(small.used <= 16);
	CHECK(small.st.table_full >= 84);
	/* A disk that vanished: its entries go without counting as losses. */
	pairing_forget_dev(&small, 1);
	CHECK_INT(small.used, 0);
	CHECK_INT(small.st.expired, 0);
	pairing_free(&small);
	pairing_free(&p);
}

/* Random soak: many concurrent I/Os, completions fed in a shuffled order
 * within a window (as per-CPU rings deliver them); every one must pair with
 * the right latency, and the table must end empty. */
static void test_soak(void)
{
	Pairing p;
	pairing_init(&p, 4096, UINT64_C(1) << 62);
	uint64_t rng = 42, t = 1000, bad = 0, n_ok = 0;
	typedef struct { uint64_t issue, done, sector; bool is_complete; } Ev;
	enum { N = 20000, W = 64 };
	static Ev ev[2 * N];
	unsigned n = 0;
	for (unsigned i = 0; i < N; i++) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t sector = (rng >> 20) % 1000000 * 8 + i % 8;	/* unique enough, never equal in flight */
		uint64_t lat = 100 + (rng >> 40) % 5000;
		ev[n++] = (Ev){t, t + lat, sector + (uint64_t)i * 8000000, false};
		ev[n++] = (Ev){t, t + lat, sector + (uint64_t)i * 8000000, true};
		t += 50;
	}
	/* Shuffle within windows of W events. */
	for (unsigned i = 0; i + 1 < n; i++) {
		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned j = i + (unsigned)((rng >> 33) % W);
		if (j < n) {
			Ev x = ev[i];
			ev[i] = ev[j];
			ev[j] = x;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		Got g = {0};
		if (ev[i].is_complete)
			pairing_complete(&p, 3, 1, ev[i].sector, ev[i].done, on_pair, &g);
		else
			pairing_issue(&p, 3, 1, ev[i].sector, 4096, ev[i].issue, on_pair, &g);
		if (g.n) {
			n_ok++;
			if (g.lat[0] != ev[i].done - ev[i].issue)
				bad++;
		}
	}
	printf("soak: %llu of %u paired, %llu with a wrong latency, %u left in the table\n",
	       (unsigned long long)n_ok, N, (unsigned long long)bad, p.used);
	CHECK_INT(n_ok, N);
	CHECK_INT(bad, 0);
	CHECK_INT(p.used, 0);
	pairing_free(&p);
}

int main(void)
{
	test_cases();
	test_soak();
	return test_done("test-pairing");
}
