/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated disk's model, fed with a clock and requests (no FUSE): the
 * DM-SMR cliff where the cache size predicts it, no cliff for sequential
 * writes or on CMR, read bands after a burst, draining when idle, TRIM;
 * and the corpus's shapes: a mixed slow phase, hiccups in the fast phase,
 * small sequential writes that do fill the cache, collapses, an SSD whose
 * SLC cache runs out. */
#define SMR_EMU_MODEL_ONLY
#include "../emu/smr-emu.c"
#include "test.h"

typedef struct Run {
	uint64_t n, fast, slow, t_end, cliff_at;
	double mean_lat_slow;
} Run;

/* QD1 closed loop: each request is issued when the previous completes. */
static Run qd1(EmuModel *m, uint64_t *now, EmuOp op, uint64_t count, uint64_t bs, bool seq)
{
	Run r = {0};
	uint64_t off = 0, slow_sum = 0;
	for (uint64_t i = 0; i < count; i++) {
		if (!seq)
			off = emu_rand(m, m->p.size / bs) * bs;
		uint64_t done = emu_submit(m, *now, op, off, bs), lat = done - *now;
		if (lat < 1000)
			r.fast++;
		if (lat > 100000) {
			if (!r.cliff_at)
				r.cliff_at = *now;
			r.slow++;
			slow_sum += lat;
		}
		*now = done;
		off += bs;
		r.n++;
	}
	r.t_end = *now;
	r.mean_lat_slow = r.slow ? (double)slow_sum / r.slow : 0;
	return r;
}

/* QD-n closed loop: a new request is issued whenever one completes. */
static void qdn_op(EmuModel *m, uint64_t *now, unsigned n, uint64_t count, uint64_t bs, double *mean_ms, double *iops)
{
	uint64_t out[64], t0 = *now, lat_sum = 0;
	for (unsigned i = 0; i < n; i++)
		out[i] = *now;
	for (uint64_t done_n = 0; done_n < count; done_n++) {
		unsigned next = 0;
		for (unsigned i = 1; i < n; i++)
			if (out[i] < out[next])
				next = i;
		*now = out[next];
		uint64_t off = emu_rand(m, m->p.size / bs) * bs;
		out[next] = emu_submit(m, *now, EMU_WRITE, off, bs);
		lat_sum += out[next] - *now;
	}
	*mean_ms = lat_sum / 1000.0 / count;
	*iops = count / ((*now - t0) / 1e6);
}

/* QD1 random 4 KiB writes up to the first that waits for a rewrite
 * (the cliff), and `after` more: the slow phase's first writes, whatever
 * the cleaning order makes of its length. */
static Run to_cliff(EmuModel *m, uint64_t *now, uint64_t after)
{
	Run r = {0};
	while (!r.cliff_at && r.n < 1000000) {
		Run one = qd1(m, now, EMU_WRITE, 1, 4096, false);
		r.fast += one.fast;
		r.n++;
		if (one.slow)
			r.cliff_at = one.cliff_at, r.slow = 1, r.mean_lat_slow = one.mean_lat_slow;
	}
	Run rest = qd1(m, now, EMU_WRITE, after, 4096, false);
	r.mean_lat_slow = (r.mean_lat_slow * r.slow + rest.mean_lat_slow * rest.slow) / fmax(r.slow + rest.slow, 1);
	r.n += rest.n, r.fast += rest.fast, r.slow += rest.slow, r.t_end = rest.t_end;
	return r;
}

static void qdn(EmuModel *m, uint64_t *now, unsigned n, uint64_t count, double *mean_ms, double *iops)
{
	qdn_op(m, now, n, count, 4096, mean_ms, iops);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Shape 1: most writes still acked fast after the cliff, a share waits. */
static void test_mixed(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_DMSMR);
	p.slow = EMU_SLOW_MIXED;
	p.stall_share = 0.03;
	CHECK_INT(emu_init(&m, &p), 0);
	/* fast until the cache is full: all of it, not high water */
	uint64_t written = 0, first_stall = 0;
	while (!first_stall) {
		uint64_t off = emu_rand(&m, p.size / 4096) * 4096;
		uint64_t done = emu_submit(&m, now, EMU_WRITE, off, 4096);
		if (done - now > 100000)
			first_stall = written;
		written += 4096;
		now = done;
	}
	printf("mixed: first stall after %.3f MiB (cache %.0f MiB)\n", first_stall / 1048576.0, p.cache_bytes / 1048576.0);
	CHECK(first_stall >= p.cache_bytes * 99 / 100 && first_stall <= p.cache_bytes * 101 / 100);
	/* after it: ~3% stalled, the median still fast, the rate down >10x */
	enum { N = 4000 };
	static uint64_t lat[N];
	uint64_t t0 = now, slow = 0;
	for (int i = 0; i < N; i++) {
		uint64_t off = emu_rand(&m, p.size / 4096) * 4096;
		uint64_t done = emu_submit(&m, now, EMU_WRITE, off, 4096);
		lat[i] = done - now;
		slow += lat[i] > 100000;
		now = done;
	}
	qsort(lat, N, sizeof *lat, cmp_u64);
	double iops = N / ((now - t0) / 1e6);
	printf("mixed slow phase: %.1f%% of writes over 100 ms, median %.2f ms, %.0f IOPS\n", 100.0 * slow / N,
	       lat[N / 2] / 1000.0, iops);
	CHECK(slow >= N * 2 / 100 && slow <= N * 5 / 100);
	CHECK(lat[N / 2] < 1000);
	CHECK(iops < 2000 / 10);
	emu_done(&m);
}

/* Shape 3: a ~1 s hiccup per hiccup_bytes in the fast phase, no rewrite. */
static void test_hiccups(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_DMSMR);
	p.hiccup_bytes = 4ULL << 20;
	p.hiccup_us = 800000;
	CHECK_INT(emu_init(&m, &p), 0);
	Run r = qd1(&m, &now, EMU_WRITE, 6000, 4096, false);	/* 23 MiB: under high water */
	printf("hiccups: %llu writes over 100 ms in the first 23 MiB, %llu hiccups, %llu bands cleaned\n",
	       (unsigned long long)r.slow, (unsigned long long)m.hiccups, (unsigned long long)m.bands_cleaned);
	CHECK_INT(r.slow, 5);
	CHECK_INT(m.hiccups, 5);
	CHECK_INT(m.bands_cleaned, 0);
	CHECK(r.mean_lat_slow >= 600000 && r.mean_lat_slow <= 1000000);
	emu_done(&m);
}

/* Shape 4: 1 MiB sequential bypasses the cache, 32 KiB sequential does not. */
static void test_small_sequential(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_DMSMR);
	p.seq_min = 64 << 10;
	CHECK_INT(emu_init(&m, &p), 0);
	Run big = qd1(&m, &now, EMU_WRITE, 200, 1 << 20, true);
	CHECK_INT(big.slow, 0);
	CHECK(m.fill <= 2 << 20);
	Run small = qd1(&m, &now, EMU_WRITE, 2000, 32 << 10, true);	/* 62 MiB */
	printf("sequential: 1 MiB writes %llu slow; 32 KiB writes %llu slow, cache %.1f MiB\n",
	       (unsigned long long)big.slow, (unsigned long long)small.slow, m.fill / 1048576.0);
	CHECK(small.slow > 0);
	CHECK(small.cliff_at > 0);
	emu_done(&m);
}

/* Shape 5: now and then a rewrite that a write waits for takes tens of seconds. */
static void test_collapse(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_DMSMR);
	p.collapse_every = 4;
	p.collapse_us = 20000000;
	CHECK_INT(emu_init(&m, &p), 0);
	to_cliff(&m, &now, 0);
	uint64_t worst = 0;
	for (int i = 0; i < 12; i++) {
		uint64_t off = emu_rand(&m, p.size / 4096) * 4096;
		uint64_t done = emu_submit(&m, now, EMU_WRITE, off, 4096);
		worst = max_u64(worst, done - now);
		now = done;
	}
	printf("collapse: worst write %.1f s, %llu collapses\n", worst / 1e6, (unsigned long long)m.collapses);
	CHECK(worst >= 20000000);
	CHECK(m.collapses >= 2);
	emu_done(&m);
}

/* Shape 7: an SSD whose SLC cache runs out: a flat slower rate after it,
 * random and sequential alike, never a stall; idle time restores it. */
static void test_slc(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_SLC);
	p.slc_bytes = 16ULL << 20;
	p.slc_rate = 1000ULL << 20;
	p.slc_slow_rate = 20ULL << 20;
	CHECK_INT(emu_init(&m, &p), 0);
	double ms_fast, iops_fast, ms_slow, iops_slow, ms_seq, iops_seq;
	qdn_op(&m, &now, 4, 4096, 4096, &ms_fast, &iops_fast);		/* 16 MiB: in SLC */
	qdn_op(&m, &now, 4, 4096, 4096, &ms_slow, &iops_slow);		/* past it */
	qdn_op(&m, &now, 1, 20, 1 << 20, &ms_seq, &iops_seq);
	printf("slc-ssd: %.0f IOPS at %.3f ms, then %.0f IOPS at %.3f ms; 1 MiB writes %.1f MiB/s\n", iops_fast,
	       ms_fast, iops_slow, ms_slow, iops_seq);
	CHECK(iops_fast > 5 * iops_slow);
	CHECK(ms_slow < 5);		/* slower, never stalled */
	CHECK(iops_seq < 25 && iops_seq > 15);	/* sequential at the native rate too */
	now += 5000000;			/* idle: SLC folded back */
	double ms_again, iops_again;
	qdn_op(&m, &now, 4, 1024, 4096, &ms_again, &iops_again);
	CHECK(iops_again > 5 * iops_slow);
	emu_done(&m);
}

static void test_dmsmr_cliff(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 5000000000ULL;	/* like CLOCK_MONOTONIC hours after boot */
	emu_defaults(&p, EMU_DMSMR);
	CHECK_INT(emu_init(&m, &p), 0);
	Run r = to_cliff(&m, &now, 0);
	/* The cache holds 8192 writes of 4 KiB: the cliff comes no sooner. */
	r.cliff_at -= 5000000000ULL;
	printf("dm-smr QD1 randwrite: first >100ms write after %.2fs (%llu fast, %llu slow, slow mean %.0f ms)\n",
	       r.cliff_at / 1e6, (unsigned long long)r.fast, (unsigned long long)r.slow, r.mean_lat_slow / 1000);
	CHECK(r.cliff_at > 0);
	CHECK(r.fast >= 7000 && r.fast <= 7400);	/* 90% of 8192 */
	CHECK(r.slow == 1);
	/* After the cliff: well under 50 IOPS. */
	uint64_t t0 = now;
	Run after = qd1(&m, &now, EMU_WRITE, 100, 4096, false);
	double iops = 100 / ((after.t_end - t0) / 1e6);
	printf("dm-smr after the cliff: %.1f IOPS\n", iops);
	CHECK(iops < 50);

	/* Reads now show two bands: the head alone, and behind a band rewrite. */
	Run rd = qd1(&m, &now, EMU_READ, 300, 4096, false);
	printf("dm-smr reads after the burst: %llu slower than 100 ms of %llu\n", (unsigned long long)rd.slow,
	       (unsigned long long)rd.n);
	CHECK(rd.slow > 0 && rd.slow < rd.n / 2);

	/* Idle: the cache drains by itself, and then writes are fast again. */
	now += 3600ULL * 1000000;
	emu_advance(&m, now);
	CHECK_INT(m.fill, 0);
	Run again = qd1(&m, &now, EMU_WRITE, 1000, 4096, false);
	CHECK_INT(again.slow, 0);
	emu_done(&m);
}

static void test_sequential_and_cmr(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 0;
	emu_defaults(&p, EMU_DMSMR);
	emu_init(&m, &p);
	Run seq = qd1(&m, &now, EMU_WRITE, 2000, 1 << 20, true);
	printf("dm-smr sequential 1 MiB: %llu writes over 100 ms\n", (unsigned long long)seq.slow);
	CHECK_INT(seq.slow, 0);
	CHECK(m.fill <= 2 << 20);	/* only the stream's first two writes, before it is known sequential */
	emu_done(&m);

	emu_defaults(&p, EMU_CMR);
	emu_init(&m, &p);
	now = 0;
	Run cmr = qd1(&m, &now, EMU_WRITE, 5000, 4096, false);
	double mean_ms = cmr.t_end / 1000.0 / cmr.n;
	printf("cmr QD1 randwrite, write cache on: mean %.2f ms (%.0f IOPS), %llu over 100 ms\n", mean_ms,
	       1000 / mean_ms, (unsigned long long)cmr.slow);
	CHECK(mean_ms > 1 && mean_ms < 4);	/* the fio thread's 490 IOPS at 2-4 ms */
	CHECK_INT(cmr.slow, 0);
	double qd4_ms, qd4_iops;
	qdn(&m, &now, 4, 5000, &qd4_ms, &qd4_iops);
	printf("cmr QD4 randwrite: mean %.2f ms, %.0f IOPS\n", qd4_ms, qd4_iops);
	CHECK(qd4_ms > 5 && qd4_ms < 15);
	/* Reads share the head with destaging but stay near one access. */
	uint64_t t0 = now;
	Run rd = qd1(&m, &now, EMU_READ, 1000, 4096, false);
	double rd_ms = (rd.t_end - t0) / 1000.0 / rd.n;
	printf("cmr QD1 reads after writes: mean %.1f ms, %llu over 100 ms\n", rd_ms, (unsigned long long)rd.slow);
	CHECK(rd_ms > 4 && rd_ms < 25);
	CHECK_INT(rd.slow, 0);
	/* A flush returns only when the write cache is empty. */
	qd1(&m, &now, EMU_WRITE, 10, 4096, false);
	CHECK(m.wc_count > 0);
	uint64_t f = emu_submit(&m, now, EMU_FLUSH, 0, 0);
	CHECK_INT(m.wc_count, 0);
	CHECK(f >= m.head_free);
	emu_done(&m);

	p.write_cache = 0;
	emu_init(&m, &p);
	now = 0;
	cmr = qd1(&m, &now, EMU_WRITE, 5000, 4096, false);
	mean_ms = cmr.t_end / 1000.0 / cmr.n;
	printf("cmr QD1 randwrite, write-through: mean %.1f ms\n", mean_ms);
	CHECK(mean_ms > 4 && mean_ms < 15);
	emu_done(&m);

	emu_defaults(&p, EMU_SSD);
	emu_init(&m, &p);
	now = 0;
	Run ssd = qd1(&m, &now, EMU_WRITE, 1000, 4096, false);
	CHECK(ssd.t_end / ssd.n < 1000);
	emu_done(&m);
}

/* Requests arrive a little after the previous one completes, on a clock that
 * started long ago: nothing may be cleaned before the cache reaches high
 * water, and then no faster than one band per band_size/clean_rate. */
static void test_no_imaginary_history(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 5000000000ULL, t_pressure = 0;
	emu_defaults(&p, EMU_DMSMR);
	emu_init(&m, &p);
	for (int i = 0; i < 10000; i++) {
		uint64_t off = emu_rand(&m, p.size / 4096) * 4096;
		now = emu_submit(&m, now, EMU_WRITE, off, 4096) + 140;
		if (!t_pressure && under_pressure(&m))
			t_pressure = now;
		if (!t_pressure)
			CHECK_INT(m.bands_cleaned, 0);
	}
	uint64_t allowed = (now - t_pressure) / transfer_us(m.p.band_bytes, m.p.clean_rate) + 2;
	printf("cleaned %llu bands in %.2fs of pressure (at most %llu possible)\n",
	       (unsigned long long)m.bands_cleaned, (now - t_pressure) / 1e6, (unsigned long long)allowed);
	CHECK(m.bands_cleaned <= allowed);
	emu_done(&m);
}

/* Idle cleaning is greedy: each band rewrite frees at most what the one
 * before it freed (the dirtiest first), so each second of a longer rest
 * gives back less than a second of a shorter one; and no band left in the
 * cache holds more than the last one cleaned. */
static void test_greedy(void)
{
	EmuParams p;
	EmuModel m;
	uint64_t now = 1000000;
	emu_defaults(&p, EMU_DMSMR);
	CHECK_INT(emu_init(&m, &p), 0);
	to_cliff(&m, &now, 0);
	uint64_t rest0 = now + p.idle_us, step = transfer_us(p.band_bytes, p.clean_rate), last = UINT64_MAX;
	uint64_t bytes0 = m.bytes_cleaned, freed_at[4] = {0}, rising = 0, singles = 0;
	static const uint64_t rests_s[4] = {10, 20, 40, 80};
	for (uint64_t t = rest0 + step / 2, k = 0; k < 4; t += step) {
		uint64_t bands = m.bands_cleaned, bytes = m.bytes_cleaned;
		emu_advance(&m, t);
		if (m.bands_cleaned == bands + 1) {	/* one rewrite: what it freed */
			singles++;
			rising += m.bytes_cleaned - bytes > last;
			last = m.bytes_cleaned - bytes;
		}
		if (t >= now + rests_s[k] * 1000000)
			freed_at[k++] = m.bytes_cleaned - bytes0;
	}
	uint64_t most = 0;
	for (uint64_t b = 0; b < m.nbands; b++)
		most = max_u64(most, m.dirty[b]);
	printf("greedy: rests of 10, 20, 40, 80 s freed %.2f, %.2f, %.2f, %.2f MiB; %llu rewrites, none freed more "
	       "than the one before: %s; the dirtiest band left holds %llu bytes, the last cleaned freed %llu\n",
	       freed_at[0] / 1048576.0, freed_at[1] / 1048576.0, freed_at[2] / 1048576.0, freed_at[3] / 1048576.0,
	       (unsigned long long)singles, rising ? "no" : "yes", (unsigned long long)most, (unsigned long long)last);
	CHECK(singles > 100);
	CHECK_INT(rising, 0);
	CHECK(most <= last);
	/* the longer the rest, the less each of its seconds gives back */
	for (int k = 1; k < 4; k++)
		CHECK((double)(freed_at[k] - freed_at[k - 1]) / (double)(rests_s[k] - rests_s[k - 1]) <
		      (double)(freed_at[k - 1] - (k > 1 ? freed_at[k - 2] : 0)) / (double)(rests_s[k - 1] - (k > 1 ? rests_s[k - 2] : 0)));
	emu_done(&m);
}

static void test_trim_and_determinism(void)
{
	EmuParams p;
	EmuModel a, b;
	uint64_t ta = 0, tb = 0;
	emu_defaults(&p, EMU_DMSMR);
	emu_init(&a, &p);
	emu_init(&b, &p);
	qd1(&a, &ta, EMU_WRITE, 3000, 4096, false);
	qd1(&b, &tb, EMU_WRITE, 3000, 4096, false);
	CHECK_INT(ta, tb);	/* same seed, same story */
	CHECK(a.fill > 0);
	emu_submit(&a, ta, EMU_DISCARD, 0, a.p.size);
	CHECK_INT(a.fill, 0);
	emu_done(&a);
	emu_done(&b);
	EmuParams bad = p;
	bad.band_bytes = 0;
	CHECK(emu_init(&a, &bad) < 0);
}

/* A volatile write cache: a FLUSH writes back what was written since the
 * last one (up to the cache) at the drain rate, and a write issued
 * meanwhile waits behind it. A slow TRIM holds the queue the same way. */
static void test_flush_and_trim(void)
{
	EmuParams p;
	EmuModel m;
	emu_defaults(&p, EMU_CMR);
	p.volatile_bytes = 64ULL << 20;
	p.drain_rate = 32ULL << 20;
	CHECK_INT(emu_init(&m, &p), 0);
	uint64_t now = 1000000;
	qd1(&m, &now, EMU_WRITE, 2048, 16384, false);	/* 32 MiB */
	uint64_t t = now, f = emu_submit(&m, t, EMU_FLUSH, 0, 0);
	CHECK(f - t >= 950000 && f - t <= 1100000);	/* 32 MiB at 32 MiB/s */
	uint64_t w = emu_submit(&m, t + 1000, EMU_WRITE, 0, 4096);
	CHECK(w >= f);					/* behind the flush */
	CHECK((emu_submit(&m, f + 10, EMU_FLUSH, 0, 0) - f) < 100000);	/* nothing left to write back */
	qd1(&m, &now, EMU_WRITE, 8192, 16384, false);	/* 128 MiB: the cache holds 64 */
	t = now;
	f = emu_submit(&m, t, EMU_FLUSH, 0, 0);
	CHECK(f - t >= 1900000 && f - t <= 2200000);
	emu_done(&m);

	emu_defaults(&p, EMU_SSD);
	p.trim_rate = 2ULL << 30;
	CHECK_INT(emu_init(&m, &p), 0);
	t = 5000000;
	uint64_t d = emu_submit(&m, t, EMU_DISCARD, 0, 4ULL << 30);
	CHECK(d - t >= 1990000 && d - t <= 2010000);	/* 4 GiB at 2 GiB/s */
	CHECK(emu_submit(&m, t + 500000, EMU_WRITE, 0, 4096) >= d);
	CHECK(emu_submit(&m, d + 1000, EMU_WRITE, 0, 4096) - (d + 1000) < 1000);
	CHECK_INT(m.discards, 1);
	emu_done(&m);
}

/* A virtual disk: a burst into the host's page cache at once, then writes
 * at the host's write-back rate, each still quick; a FLUSH drains it. */
static void test_vdisk(void)
{
	EmuParams p;
	EmuModel m;
	emu_defaults(&p, EMU_VDISK);
	p.host_cache = 16ULL << 20;
	p.cap_rate = 8ULL << 20;
	p.ssd_us = 40;
	CHECK_INT(emu_init(&m, &p), 0);
	uint64_t now = 1000000;
	Run fast = qd1(&m, &now, EMU_WRITE, 2048, 4096, false);	/* 8 MiB: in the host's cache */
	CHECK_INT(fast.fast, 2048);
	CHECK(m.cliff_at == 0);
	uint64_t t0 = now;
	Run capped = qd1(&m, &now, EMU_WRITE, 8192, 4096, false);	/* 32 MiB more */
	double iops = 8192 / ((now - t0) / 1e6);
	CHECK(m.cliff_at > 0);
	CHECK_INT(capped.slow, 0);			/* no wait over 100 ms: the rate is capped */
	CHECK(iops > 1500 && iops < 4000);		/* mostly at 8 MiB/s of 4 KiB: 2048/s */
	uint64_t f = emu_submit(&m, now, EMU_FLUSH, 0, 0);
	CHECK(f - now >= 1500000);			/* ~16 MiB dirty at 8 MiB/s */
	CHECK(emu_submit(&m, f, EMU_WRITE, 0, 4096) - f < 1000);	/* drained: fast again */
	printf("vdisk: %.0f IOPS once the host's cache is full, a flush of %.1f s after it\n", iops, (f - now) / 1e6);
	emu_done(&m);
}

/* The options a corpus case gives the emulator, read by the model half:
 * the virtual-time harness runs the same case as the live emulator. */
static void test_options(void)
{
	EmuParams p;
	char *ok[] = {"smr-emu", "--model", "slc-ssd", "--seed", "7", "--slc-mib", "12.5", "--ack-us", "150:400",
		      "--slow", "mixed", "--stats", "--backing", "/x", "/mnt"};
	CHECK_INT(emu_parse_model((int)(sizeof ok / sizeof *ok), ok, &p), 0);
	CHECK_INT(p.kind, EMU_SLC);
	CHECK_INT(p.seed, 7);
	CHECK_INT(p.slc_bytes, 12.5 * 1048576);
	CHECK_INT(p.ack_min_us, 150);
	CHECK_INT(p.ack_max_us, 400);
	CHECK_INT(p.slow, EMU_SLOW_MIXED);
	CHECK_INT(p.ssd_us, 30);	/* the kind's default, not overridden */
	char *bad_number[] = {"smr-emu", "--cache-mib", "12x"}, *bad_shape[] = {"smr-emu", "--slow", "both"},
	     *bad_model[] = {"smr-emu", "--model", "tape"}, *negative[] = {"smr-emu", "--seek-ms", "-1"};
	CHECK(emu_parse_model(3, bad_number, &p) < 0);
	CHECK(emu_parse_model(3, bad_shape, &p) < 0);
	CHECK(emu_parse_model(3, bad_model, &p) < 0);
	CHECK(emu_parse_model(3, negative, &p) < 0);
	CHECK_INT(emu_model_opt(&p, "--backing", "/x"), 1);
}

int main(void)
{
	test_options();
	test_dmsmr_cliff();
	test_sequential_and_cmr();
	test_trim_and_determinism();
	test_no_imaginary_history();
	test_greedy();
	test_mixed();
	test_hiccups();
	test_small_sequential();
	test_collapse();
	test_slc();
	test_flush_and_trim();
	test_vdisk();
	return test_done("test-emu-model");
}
