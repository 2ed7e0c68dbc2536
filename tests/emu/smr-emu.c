/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smr-emu: a FUSE file whose reads and writes take as long as a disk model
 * says, so that `losetup --direct-io=on` on it gives a real block device
 * that behaves like a CMR, DM-SMR or solid-state disk: real /proc/diskstats,
 * real block tracepoints, real fio. The model (top half) is pure: it takes
 * an explicit clock and returns completion times; the FUSE glue (bottom
 * half, left out with -DSMR_EMU_MODEL_ONLY) sleeps until then.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ model */

typedef enum EmuKind { EMU_CMR, EMU_DMSMR, EMU_SSD, EMU_SLC, EMU_VDISK, _EMU_KIND_MAX } EmuKind;
typedef enum EmuOp { EMU_READ, EMU_WRITE, EMU_DISCARD, EMU_FLUSH } EmuOp;
/* What a DM-SMR disk does once its media cache is full (tests/emu/README.md). */
typedef enum EmuSlow {
	EMU_SLOW_SERIAL,	/* every write waits for a band rewrite (RAIDIX, Tom's Hardware) */
	EMU_SLOW_MIXED,		/* most are acked fast, a share waits (aicodix/smr) */
	_EMU_SLOW_MAX,
} EmuSlow;

/* All times in microseconds, sizes in bytes. Defaults in emu_defaults(). */
typedef struct EmuParams {
	EmuKind kind;
	uint64_t size;
	uint64_t seek_us, rot_us;	/* seek + uniform 0..rot_us rotational delay */
	uint64_t media_rate;		/* bytes/s streaming to or from the platter */
	uint64_t ack_min_us, ack_max_us;	/* DM-SMR write into the media cache */
	uint64_t cache_rate;		/* DM-SMR: bytes/s into the media cache, one write at a time */
	uint64_t cache_bytes;		/* DM-SMR media cache */
	uint64_t band_bytes;		/* DM-SMR band: the unit of cleaning */
	uint64_t clean_rate;		/* bytes/s of band rewrite */
	uint64_t idle_us;		/* host idle this long: clean in the background */
	uint64_t idle_clean_rate;	/* bytes/s of bands rewritten in the background, on average (0:
					 * clean_rate): a drive that pauses between bands cleans slower idle */
	double high_water;		/* serial: cache fill share above which cleaning is forced */
	double low_water;		/* ... until the fill is back under this share */
	uint64_t host_slice_us;		/* serial, under pressure: host time between band rewrites */
	EmuSlow slow;			/* DM-SMR: the shape of the slow phase */
	double stall_share;		/* mixed: share of writes that wait for a rewrite once full */
	uint64_t seq_min;		/* DM-SMR: sequential writes under this size still go to the cache */
	uint64_t hiccup_bytes, hiccup_us;	/* one hiccup per hiccup_bytes written (0: none) */
	uint64_t collapse_every, collapse_us;	/* DM-SMR: every Nth forced rewrite takes collapse_us */
	uint64_t ssd_us;		/* ssd, slc: base latency of every request */
	uint64_t slc_bytes;		/* slc: the SLC write cache */
	uint64_t slc_rate, slc_slow_rate;	/* slc: write bytes/s into SLC, and once it is full */
	uint64_t slc_recover_rate;	/* slc: bytes/s of SLC freed while the host is idle */
	uint64_t write_cache;		/* CMR: writes the DRAM cache holds (0: write-through) */
	uint64_t volatile_bytes;	/* any: bytes written since the last FLUSH a volatile cache holds (0: none) */
	uint64_t drain_rate;		/* ... and the bytes/s at which a FLUSH writes them back */
	uint64_t trim_rate;		/* any: bytes/s a DISCARD takes (0: at once) */
	uint64_t host_cache;		/* vdisk: bytes the host's page cache takes at once */
	uint64_t cap_rate;		/* vdisk: bytes/s the host writes back, and takes writes at once it is full */
	uint64_t seed;
} EmuParams;

typedef struct EmuModel {
	EmuParams p;
	uint64_t rng;
	uint64_t head_free;		/* when the head is next free */
	uint64_t chan_free;		/* when the media-cache (DM-SMR) or NAND (slc) channel is next free */
	uint64_t last_host;		/* end of the last host I/O */
	uint64_t next_forced;		/* earliest next forced clean (host slice) */
	uint64_t idle_next;		/* earliest next background clean (idle_clean_rate's pause) */
	uint64_t last_write_end;	/* byte offset: detects sequential streams */
	unsigned near_run;		/* writes in a row that began near where the one before ended */
	bool wrote;
	uint64_t fill;			/* bytes in the media cache */
	uint64_t nbands;
	uint64_t *dirty;		/* cached bytes per band */
	/* The bands with data in the cache, in the order they entered it.
	 * Rewriting a band costs the same however little of it is cached, so
	 * the drive cleans the one that frees most first (greedily), the
	 * oldest of equals: the space a rest frees grows ever more slowly
	 * with its length, as the dirtiest bands run out. */
	uint64_t *queue, q_len;
	bool *queued;
	bool started;			/* clocks anchored at the first request */
	bool pressed;			/* forced cleaning: between high and low water */
	uint64_t wc_count;		/* CMR: writes in the DRAM cache; while any, one
					 * is being destaged, done at head_free */
	uint64_t since_hiccup;		/* bytes written since the last hiccup */
	uint64_t forced;		/* rewrites a write waited for (collapse_every counts them) */
	uint64_t slc_used, slc_clock;	/* slc: bytes in SLC, and when that was last brought up to date */
	uint64_t bands_cleaned, bytes_cleaned, hiccups, collapses;
	uint64_t written;		/* bytes the host wrote */
	uint64_t unflushed;		/* bytes written since the last FLUSH */
	uint64_t blocked_until;		/* a FLUSH or DISCARD holds every request until then */
	uint64_t host_dirty, host_clock;	/* vdisk: bytes in the host's cache, as of host_clock */
	uint64_t flushes, flush_us_max, discards;
	uint64_t cliff_at, cliff_written;	/* when the cache first ran out (0: not yet), and the bytes by then */
	/* The slow phase, from the cliff to the host's first idle second or
	 * sequential write after it: what qualify's disk model is judged against. */
	uint64_t slow_bytes, slow_end;	/* bytes written into the cache after the cliff; the last wait's completion */
	uint64_t slow_wait_bytes;	/* ... of them, up to that wait */
	uint64_t waits, wait_us;	/* band rewrites a write waited for, and their total length */
	uint64_t waited;		/* ... in any slow phase, not only the first */
	bool slow_over;
	/* The last idle second or more of the host: how long, and what the
	 * drive cleaned meanwhile (idle_seq counts them, for the glue). */
	uint64_t clean_mark;		/* bytes_cleaned when the host's last request was submitted */
	uint64_t idle_us, idle_cleaned, idle_seq;
	uint64_t idle_room;		/* ... and the fast space it had at its end (emu_room) */
} EmuModel;

static void emu_defaults(EmuParams *p, EmuKind kind)
{
	*p = (EmuParams){
		.kind = kind, .size = 16ULL << 30, .seek_us = 4000, .rot_us = 8300,
		.media_rate = 150ULL << 20, .ack_min_us = 200, .ack_max_us = 500, .cache_rate = 200ULL << 20,
		/* Scaled down: few KiB of cache per band, so that a full cache
		 * frees little per band rewrite, as on a multi-TB disk. */
		.cache_bytes = 32ULL << 20, .band_bytes = 4ULL << 20, .clean_rate = 10ULL << 20,
		.idle_us = 500000, .high_water = 0.9, .low_water = 0.8, .host_slice_us = 100000,
		.slow = EMU_SLOW_SERIAL, .stall_share = 0.05,
		.ssd_us = 100,
		/* Crucial P1 1 TB: ~130 GB at 1.6 GB/s, then 150 MB/s (scaled) */
		.slc_bytes = 64ULL << 20, .slc_rate = 1600ULL << 20, .slc_slow_rate = 150ULL << 20,
		.slc_recover_rate = 64ULL << 20,
		.write_cache = 32,
		.seed = 1,
	};
	if (kind == EMU_SLC)
		p->ssd_us = 30;
	if (kind == EMU_VDISK) {
		/* a virtio disk in front of a host's page cache: 42000 writes/s at
		 * 58 us, then 11000/s at 0.2 ms here, and a 1-3 s FLUSH after a
		 * large buffered write (scaled) */
		p->ssd_us = 60;
		p->host_cache = 256ULL << 20;
		p->cap_rate = 60ULL << 20;
	}
}

static uint64_t emu_rand(EmuModel *m, uint64_t n)	/* xorshift64*: deterministic per seed */
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return n ? (m->rng * 2685821657736338717ULL) % n : 0;
}

static int emu_init(EmuModel *m, const EmuParams *p)
{
	if (!p->size || !p->band_bytes || !p->clean_rate || !p->media_rate || !p->cache_rate || p->kind >= _EMU_KIND_MAX ||
	    p->low_water > p->high_water || p->slow >= _EMU_SLOW_MAX || !(p->stall_share > 0 && p->stall_share <= 1) ||
	    (p->hiccup_bytes && !p->hiccup_us) || (p->collapse_every && !p->collapse_us) ||
	    (p->kind == EMU_SLC && (!p->slc_rate || !p->slc_slow_rate)) ||
	    (p->kind == EMU_VDISK && !p->cap_rate) || (p->volatile_bytes && !p->drain_rate))
		return -1;
	*m = (EmuModel){.p = *p, .rng = p->seed * 0x9e3779b97f4a7c15ULL + 1};
	m->nbands = (p->size + p->band_bytes - 1) / p->band_bytes;
	m->dirty = calloc(m->nbands, sizeof *m->dirty);
	m->queue = calloc(m->nbands, sizeof *m->queue);
	m->queued = calloc(m->nbands, sizeof *m->queued);
	return m->dirty && m->queue && m->queued ? 0 : -1;
}

static void emu_done(EmuModel *m)
{
	free(m->dirty);
	free(m->queue);
	free(m->queued);
	m->dirty = m->queue = NULL;
	m->queued = NULL;
}

static bool under_pressure(const EmuModel *m) { return m->pressed; }

/* Hysteresis: once forced, cleaning goes on until the fill is under low
 * water, which is why a real drive stays slow long after the cliff. Only
 * the serial shape forces cleaning; the mixed one cleans when it must. */
static void update_pressure(EmuModel *m)
{
	double fill = (double)m->fill, cache = (double)m->p.cache_bytes;
	if (m->p.slow != EMU_SLOW_SERIAL)
		m->pressed = false;
	else if (fill > m->p.high_water * cache)
		m->pressed = true;
	else if (fill <= m->p.low_water * cache)
		m->pressed = false;
}

static void cache_add(EmuModel *m, uint64_t band, uint64_t bytes)
{
	if (!m->queued[band]) {
		m->queue[m->q_len++] = band;
		m->queued[band] = true;
	}
	m->dirty[band] += bytes;
	m->fill += bytes;
	update_pressure(m);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t transfer_us(uint64_t len, uint64_t rate) { return len * 1000000 / rate; }

/* Takes the band with the most data in the cache off the list (the oldest
 * of equals); false when none has any. */
static bool pop_band(EmuModel *m)
{
	uint64_t at = 0, best = 0;
	for (uint64_t i = 0; i < m->q_len; i++)
		if (m->dirty[m->queue[i]] > best) {
			best = m->dirty[m->queue[i]];
			at = i;
		}
	if (!best) {	/* only bands a TRIM emptied are left */
		for (uint64_t i = 0; i < m->q_len; i++)
			m->queued[m->queue[i]] = false;
		m->q_len = 0;
		return false;
	}
	uint64_t band = m->queue[at];
	memmove(&m->queue[at], &m->queue[at + 1], (m->q_len - at - 1) * sizeof *m->queue);
	m->q_len--;
	m->queued[band] = false;
	m->fill -= best;
	m->bytes_cleaned += best;
	m->dirty[band] = 0;
	m->bands_cleaned++;
	return true;
}

/* One band rewrite starting at `start`, which frees at least `want` bytes
 * (the dirtiest bands, as many as that takes: a drive that consolidates frees
 * more than one band's worth a pass). A write that waits for it may hit a
 * collapse: every collapse_every-th such rewrite takes collapse_us. */
static void clean_one(EmuModel *m, uint64_t start, uint64_t want, bool host_waits)
{
	uint64_t freed = 0, before = m->fill;
	while (pop_band(m)) {
		freed = before - m->fill;
		if (freed >= want)
			break;
	}
	update_pressure(m);
	uint64_t took = transfer_us(m->p.band_bytes, m->p.clean_rate);
	if (host_waits && m->p.collapse_every && ++m->forced % m->p.collapse_every == 0) {
		took = m->p.collapse_us;
		m->collapses++;
	}
	m->waited += host_waits;
	if (host_waits && !m->slow_over) {
		m->waits++;
		m->wait_us += took;
	}
	m->head_free = start + took;
	m->next_forced = m->head_free + m->p.host_slice_us;
}

/* Runs the cleaning that would have started before `now`: forced cleaning
 * when the cache is above high water (one band, then a host slice), and
 * back-to-back cleaning once the host has been idle for idle_us. */
static void emu_advance(EmuModel *m, uint64_t now)
{
	if (m->p.kind == EMU_SLC && now > m->last_host + m->p.idle_us) {
		/* the SSD folds its SLC cache into QLC while the host is away */
		uint64_t from = max_u64(m->slc_clock, m->last_host + m->p.idle_us);
		uint64_t freed = (uint64_t)((double)(now - from) / 1e6 * (double)m->p.slc_recover_rate);
		m->slc_used = m->slc_used > freed ? m->slc_used - freed : 0;
		m->slc_clock = now;
	}
	if (m->p.kind != EMU_DMSMR)
		return;
	while (m->fill > 0) {
		uint64_t start = max_u64(max_u64(m->head_free, m->idle_next), m->last_host + m->p.idle_us);
		bool forced = under_pressure(m);
		if (forced)
			start = max_u64(m->head_free, m->next_forced < start ? m->next_forced : start);
		if (start > now)	/* a tie goes to the cleaner: the host request queues */
			return;
		clean_one(m, start, 0, false);
		/* slower in the background: a pause after each band, in which
		 * the host finds the head free (not a slower rewrite) */
		uint64_t r = m->p.idle_clean_rate;
		if (!forced && r && r < m->p.clean_rate)
			m->idle_next = m->head_free + transfer_us(m->p.band_bytes, r) -
				       transfer_us(m->p.band_bytes, m->p.clean_rate);
	}
}

static uint64_t media_access(EmuModel *m, uint64_t now, uint64_t len, bool sequential)
{
	uint64_t start = max_u64(now, m->head_free);
	uint64_t service = transfer_us(len, m->p.media_rate);
	if (!sequential)
		service += m->p.seek_us + emu_rand(m, m->p.rot_us + 1);
	m->head_free = start + service;
	return m->head_free;
}

/* A hiccup is due after every hiccup_bytes written: its length, else 0. */
static uint64_t hiccup(EmuModel *m, uint64_t len)
{
	if (!m->p.hiccup_bytes)
		return 0;
	m->since_hiccup += len;
	if (m->since_hiccup < m->p.hiccup_bytes)
		return 0;
	m->since_hiccup -= m->p.hiccup_bytes;
	m->hiccups++;
	/* +-25%: a drive's own flushes are not a metronome */
	return m->p.hiccup_us * 3 / 4 + emu_rand(m, m->p.hiccup_us / 2 + 1);
}

#define SEQ_WINDOW (2ULL << 20)
#define SEQ_PIECES 16

static uint64_t dmsmr_write(EmuModel *m, uint64_t now, uint64_t off, uint64_t len)
{
	/* A stream is writes near where the one before ended, two in a row:
	 * the loop device splits large writes and the pieces arrive out of
	 * order, as they would in a drive's command queue; near is a few
	 * pieces of its size, at most SEQ_WINDOW. A random 4 KiB write that
	 * lands near the last one by chance (one in 4096 on a 512 MiB disk,
	 * a few in every burst past a cache) is no stream, and would otherwise
	 * wait for the head like one. */
	uint64_t e = m->last_write_end, win = len * SEQ_PIECES < SEQ_WINDOW ? len * SEQ_PIECES : SEQ_WINDOW;
	m->near_run = m->wrote && off + win >= e && off <= e + win ? m->near_run + 1 : 0;
	bool sequential = m->near_run >= 2;
	m->last_write_end = off + len;
	m->wrote = true;
	/* Whole bands and continuing streams of large enough writes go
	 * straight to the shingled tracks: no read-modify-write is needed, so
	 * no cache. Small sequential writes (RAIDZ's 32 KiB) still go through it. */
	if ((sequential && len >= m->p.seq_min) || len >= m->p.band_bytes) {
		/* a stream of large writes ends the random writes' slow phase (a
		 * small random write that lands by chance near the last one does not) */
		m->slow_over |= m->cliff_at != 0 && len >= (128u << 10);
		return media_access(m, now, len, sequential);
	}
	uint64_t band = off / m->p.band_bytes;
	uint64_t add = len;
	if (m->dirty[band] + add > m->p.band_bytes)
		add = m->p.band_bytes - m->dirty[band];
	bool waited = false;
	if (m->p.slow == EMU_SLOW_SERIAL) {
		/* Above high water the drive makes room before it takes more:
		 * each write waits for a band rewrite (the destage storm), and a
		 * full cache admits a write only once enough has been freed. */
		if (under_pressure(m) && add) {
			clean_one(m, max_u64(now, m->head_free), 0, true);
			waited = true;
		}
		while (m->fill + add > m->p.cache_bytes && m->fill > 0) {
			clean_one(m, max_u64(now, m->head_free), 0, true);
			waited = true;
		}
	} else if (m->fill + add > m->p.cache_bytes && m->fill > 0) {
		/* Mixed: writes are acked fast while there is room; the one that
		 * finds the cache full waits for a rewrite that frees room for
		 * about 1/stall_share - 1 more. */
		uint64_t room = (uint64_t)((double)len * (1 / m->p.stall_share - 1) * (0.75 + emu_rand(m, 501) / 1000.0));
		clean_one(m, max_u64(now, m->head_free), max_u64(room, add), true);
		waited = true;
	}
	bool was_pressed = under_pressure(m);
	cache_add(m, band, add);
	if (!was_pressed && under_pressure(m))	/* forced cleaning starts now, not in the past */
		m->next_forced = max_u64(m->next_forced, now);
	if (!m->cliff_at && (waited || under_pressure(m))) {
		m->cliff_at = now;
		m->cliff_written = m->written;
	}
	/* Into the media cache one write at a time, after the rewrite waited for. */
	uint64_t at = max_u64(waited ? max_u64(now, m->head_free) : now, m->chan_free);
	if (!waited && m->fill < m->p.high_water * (double)m->p.cache_bytes)
		at += hiccup(m, len);	/* in the fast phase: a flush of the drive's own */
	uint64_t done = at + m->p.ack_min_us + emu_rand(m, m->p.ack_max_us - m->p.ack_min_us + 1) +
			transfer_us(len, m->p.cache_rate);
	m->chan_free = done;
	if (m->cliff_at && !m->slow_over && len < (128u << 10)) {	/* the random writes, not a stream's first piece */
		m->slow_bytes += len;
		/* up to the last write that waited: whole cycles of waits and
		 * what the drive let through between them */
		if (waited) {
			m->slow_end = max_u64(m->slow_end, done);
			m->slow_wait_bytes = m->slow_bytes;
		}
	}
	return done;
}

static void dmsmr_discard(EmuModel *m, uint64_t off, uint64_t len)
{
	/* TRIM frees the cached data of every band it covers entirely. */
	uint64_t first = (off + m->p.band_bytes - 1) / m->p.band_bytes;
	uint64_t end = (off + len) / m->p.band_bytes;
	for (uint64_t b = first; b < end && b < m->nbands; b++) {
		m->fill -= m->dirty[b];
		m->dirty[b] = 0;
	}
	update_pressure(m);
}

/* Destaging with shortest-access-time-first over the k cached writes: the
 * head takes the cheapest of k random positions, so a full write cache
 * turns 8 ms random writes into ~2 ms ones (490 IOPS at QD1 on the fio
 * thread's CMR disk) without any cliff. */
static uint64_t destage_cost(EmuModel *m, uint64_t k, uint64_t len)
{
	uint64_t best = UINT64_MAX;
	for (uint64_t i = 0; i < k; i++) {
		uint64_t c = emu_rand(m, 2 * m->p.seek_us + 1) + emu_rand(m, m->p.rot_us + 1);
		if (c < best)
			best = c;
	}
	return best + transfer_us(len, m->p.media_rate);
}

static void cmr_advance(EmuModel *m, uint64_t now)
{
	while (m->wc_count > 0 && m->head_free <= now)
		if (--m->wc_count > 0)
			m->head_free += destage_cost(m, m->wc_count, 4096);
}

static uint64_t cmr_write(EmuModel *m, uint64_t now, uint64_t len)
{
	/* A CMR disk's occasional slow write (a retry, a recalibration): one
	 * hiccup of its own, with no cliff behind it. */
	uint64_t extra = hiccup(m, len);
	if (!m->p.write_cache)
		return media_access(m, now, len, false) + extra;
	uint64_t at = now;
	cmr_advance(m, now);
	if (m->wc_count >= m->p.write_cache) {	/* full: wait for the destage under way */
		at = m->head_free;
		cmr_advance(m, at);
	}
	if (m->wc_count++ == 0)
		m->head_free = max_u64(at, m->head_free) + destage_cost(m, 1, len);
	return at + m->p.ack_min_us + emu_rand(m, m->p.ack_max_us - m->p.ack_min_us + 1) + extra;
}

/* A read takes the head after the destage under way, then destaging resumes. */
static uint64_t cmr_read(EmuModel *m, uint64_t now, uint64_t len)
{
	cmr_advance(m, now);
	if (m->wc_count > 0)
		m->wc_count--;
	uint64_t done = media_access(m, now, len, false);
	if (m->wc_count > 0)
		m->head_free += destage_cost(m, m->wc_count, 4096);
	return done;
}

/* An SSD with an SLC write cache: writes at the SLC rate until it holds
 * slc_bytes, then at the native (QLC) rate, random or sequential alike;
 * one program at a time; no stalls. Idle time folds the SLC back. */
static uint64_t slc_write(EmuModel *m, uint64_t now, uint64_t len)
{
	bool room = m->slc_used + len <= m->p.slc_bytes;
	if (!room && !m->cliff_at) {
		m->cliff_at = now;
		m->cliff_written = m->written;
	}
	uint64_t start = max_u64(now, m->chan_free);
	uint64_t done = start + m->p.ssd_us + transfer_us(len, room ? m->p.slc_rate : m->p.slc_slow_rate);
	if (room)
		m->slc_used += len;
	m->chan_free = done;
	m->slc_clock = max_u64(m->slc_clock, done);
	return done;
}

/* A virtual disk: writes land in the host's page cache at once while it
 * has room, and the host writes it back at cap_rate; once it is full, a
 * write is taken as the write-back makes room: the rate capped, each
 * write still quick (no wait of its own beyond the queue's). */
static void vdisk_drain(EmuModel *m, uint64_t now)
{
	if (now > m->host_clock) {
		uint64_t freed = (uint64_t)((double)(now - m->host_clock) / 1e6 * (double)m->p.cap_rate);
		m->host_dirty = m->host_dirty > freed ? m->host_dirty - freed : 0;
		m->host_clock = now;
	}
}

static uint64_t vdisk_write(EmuModel *m, uint64_t now, uint64_t len)
{
	vdisk_drain(m, now);
	uint64_t done = now + m->p.ssd_us;
	if (m->host_dirty + len > m->p.host_cache) {
		if (!m->cliff_at) {
			m->cliff_at = now;
			m->cliff_written = m->written;
		}
		done = max_u64(now, m->chan_free) + transfer_us(len, m->p.cap_rate);
		m->chan_free = done;
	}
	m->host_dirty += len;
	return done;
}

/* A FLUSH waits for the volatile cache (a CMR disk's DRAM, the host's page
 * cache of a virtual disk) to be written back; a DISCARD for the trim. The
 * device takes nothing else meanwhile (ATA's FLUSH CACHE and TRIM are not
 * queued): what arrives waits behind them. */
static uint64_t hold(EmuModel *m, uint64_t now, EmuOp op, uint64_t len)
{
	uint64_t took = 0;
	if (op == EMU_FLUSH && m->p.kind == EMU_VDISK) {
		vdisk_drain(m, now);
		took = transfer_us(m->host_dirty, m->p.cap_rate);
		m->host_dirty = 0;
	} else if (op == EMU_FLUSH && m->p.volatile_bytes) {
		uint64_t dirty = m->unflushed < m->p.volatile_bytes ? m->unflushed : m->p.volatile_bytes;
		took = transfer_us(dirty, m->p.drain_rate);
	} else if (op == EMU_DISCARD && m->p.trim_rate) {
		took = transfer_us(len, m->p.trim_rate);
	}
	if (op == EMU_FLUSH)
		m->unflushed = 0, m->flushes++, m->flush_us_max = max_u64(m->flush_us_max, took);
	if (op == EMU_DISCARD)
		m->discards++;
	if (took)
		m->blocked_until = now + took;
	return took;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x < y) - (x > y);
}

/* DM-SMR: the fast space the cache has now, what it takes before a write
 * must wait: to high water (serial) or full (mixed). A serial drive still
 * cleaning down to its low water mark makes a write or two wait for its
 * last forced rewrites first: its space is what it has once those are
 * done, the dirtiest bands rewritten until the fill is under low water.
 * The ground truth for idle recovery: what a rest gave back. */
static uint64_t emu_room(const EmuModel *m)
{
	double cache = (double)m->p.cache_bytes, fill = (double)m->fill;
	if (m->p.kind != EMU_DMSMR)
		return 0;
	if (m->p.slow != EMU_SLOW_SERIAL)
		return fill < cache ? (uint64_t)(cache - fill) : 0;
	if (under_pressure(m)) {
		uint64_t *v = malloc((m->q_len + 1) * sizeof *v);
		for (uint64_t i = 0; v && i < m->q_len; i++)
			v[i] = m->dirty[m->queue[i]];
		if (v)
			qsort(v, m->q_len, sizeof *v, cmp_desc);
		for (uint64_t i = 0; v && i < m->q_len && fill > m->p.low_water * cache; i++)
			fill -= (double)v[i];
		free(v);
	}
	return fill < m->p.high_water * cache ? (uint64_t)(m->p.high_water * cache - fill) : 0;
}

/* Submits one request at `now`; returns when it completes. */
static uint64_t emu_submit(EmuModel *m, uint64_t now, EmuOp op, uint64_t off, uint64_t len)
{
	uint64_t done;
	if (!m->started) {	/* the clock may start anywhere (CLOCK_MONOTONIC: at boot) */
		m->head_free = m->last_host = m->next_forced = m->chan_free = m->slc_clock = m->host_clock = now;
		m->started = true;
	}
	now = max_u64(now, m->blocked_until);	/* behind a FLUSH or DISCARD */
	emu_advance(m, now);
	if (now >= m->last_host + 1000000) {
		m->idle_us = now - m->last_host;
		m->idle_cleaned = m->bytes_cleaned - m->clean_mark;
		m->idle_room = emu_room(m);
		m->idle_seq++;
		m->slow_over |= m->cliff_at != 0;
	}
	if (op == EMU_WRITE) {
		m->written += len;
		m->unflushed += len;
	}
	uint64_t held = op == EMU_FLUSH || op == EMU_DISCARD ? hold(m, now, op, len) : 0;
	if (m->p.kind == EMU_VDISK) {
		done = op == EMU_WRITE ? vdisk_write(m, now, len) : now + m->p.ssd_us + held;
	} else if (m->p.kind == EMU_SSD || (m->p.kind == EMU_SLC && op != EMU_WRITE)) {
		/* a discard or a flush moves no data: what it takes is hold()'s */
		done = now + m->p.ssd_us + (op == EMU_READ || op == EMU_WRITE ? transfer_us(len, 10 * m->p.media_rate) : 0);
	} else if (m->p.kind == EMU_SLC) {
		done = slc_write(m, now, len);
	} else if (op == EMU_FLUSH || op == EMU_DISCARD) {
		if (op == EMU_DISCARD && m->p.kind == EMU_DMSMR)
			dmsmr_discard(m, off, len);
		if (m->p.kind == EMU_CMR)	/* a flush waits for the whole write cache */
			while (m->wc_count > 0)
				cmr_advance(m, m->head_free);
		done = max_u64(now, m->head_free) + 100;
	} else if (m->p.kind == EMU_DMSMR && op == EMU_WRITE) {
		done = dmsmr_write(m, now, off, len);
	} else if (m->p.kind == EMU_CMR) {
		done = op == EMU_WRITE ? cmr_write(m, now, len) : cmr_read(m, now, len);
	} else {
		done = media_access(m, now, len, false);
	}
	if (held && m->p.kind != EMU_VDISK)
		done = max_u64(done, now + held);
	if (held)
		m->blocked_until = max_u64(m->blocked_until, done);
	m->last_host = max_u64(m->last_host, done);
	m->clean_mark = m->bytes_cleaned;
	return done;
}

/* ------------------------------------------------------------ options */

static EmuKind kind_of(const char *v)
{
	return strcmp(v, "cmr") == 0 ? EMU_CMR : strcmp(v, "ssd") == 0 ? EMU_SSD : strcmp(v, "dm-smr") == 0 ? EMU_DMSMR
		: strcmp(v, "slc-ssd") == 0 ? EMU_SLC : strcmp(v, "vdisk") == 0 ? EMU_VDISK : _EMU_KIND_MAX;
}

/* One model option (--cache-mib 32 ...) over p; 1 if a is none of them
 * (the glue's own), -1 if its value is bad. The FUSE glue and the
 * virtual-time harness (tests/unit/test-virtual.c) read the same options,
 * so a corpus case is one list of them wherever it runs. */
static int emu_model_opt(EmuParams *p, const char *a, const char *v)
{
	char *end = NULL;
	double x = strtod(v, &end);
	bool number = end && end != v && *end == 0 && x >= 0;
	if (!number)
		x = 0;	/* refused below, but converted first: a negative double is no unsigned */
	if (strcmp(a, "--model") == 0) return 0;
	else if (strcmp(a, "--slow") == 0) {
		p->slow = strcmp(v, "serial") == 0 ? EMU_SLOW_SERIAL : strcmp(v, "mixed") == 0 ? EMU_SLOW_MIXED : _EMU_SLOW_MAX;
		return p->slow == _EMU_SLOW_MAX ? -1 : 0;
	} else if (strcmp(a, "--ack-us") == 0) {
		unsigned long long lo, hi;
		if (sscanf(v, "%llu:%llu", &lo, &hi) != 2 || lo > hi) return -1;
		p->ack_min_us = lo, p->ack_max_us = hi;
		return 0;
	}
	else if (strcmp(a, "--cache-mib") == 0) p->cache_bytes = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--cache-mibs") == 0) p->cache_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--band-mib") == 0) p->band_bytes = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--clean-mibs") == 0) p->clean_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--idle-ms") == 0) p->idle_us = (uint64_t)(x * 1000);
	else if (strcmp(a, "--idle-clean-mibs") == 0) p->idle_clean_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--high-water") == 0) p->high_water = x;
	else if (strcmp(a, "--low-water") == 0) p->low_water = x;
	else if (strcmp(a, "--stall-share") == 0) p->stall_share = x;
	else if (strcmp(a, "--seq-min-kib") == 0) p->seq_min = (uint64_t)(x * 1024);
	else if (strcmp(a, "--hiccup-mib") == 0) p->hiccup_bytes = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--hiccup-ms") == 0) p->hiccup_us = (uint64_t)(x * 1000);
	else if (strcmp(a, "--collapse-every") == 0) p->collapse_every = (uint64_t)x;
	else if (strcmp(a, "--collapse-s") == 0) p->collapse_us = (uint64_t)(x * 1e6);
	else if (strcmp(a, "--seek-ms") == 0) p->seek_us = (uint64_t)(x * 1000);
	else if (strcmp(a, "--rot-ms") == 0) p->rot_us = (uint64_t)(x * 1000);
	else if (strcmp(a, "--seed") == 0) p->seed = (uint64_t)x;
	else if (strcmp(a, "--write-cache") == 0) p->write_cache = (uint64_t)x;
	else if (strcmp(a, "--ssd-us") == 0) p->ssd_us = (uint64_t)x;
	else if (strcmp(a, "--slc-mib") == 0) p->slc_bytes = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--slc-mibs") == 0) p->slc_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--slow-mibs") == 0) p->slc_slow_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--recover-mibs") == 0) p->slc_recover_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--volatile-mib") == 0) p->volatile_bytes = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--drain-mibs") == 0) p->drain_rate = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--trim-gibs") == 0) p->trim_rate = (uint64_t)(x * 1073741824.0);
	else if (strcmp(a, "--host-cache-mib") == 0) p->host_cache = (uint64_t)(x * 1048576);
	else if (strcmp(a, "--cap-mibs") == 0) p->cap_rate = (uint64_t)(x * 1048576);
	else return 1;
	return number ? 0 : -1;
}

/* The model's defaults for its --model, then every model option in argv
 * over them; options that are not the model's are left to the caller. */
static int emu_parse_model(int argc, char **argv, EmuParams *p)
{
	EmuKind kind = EMU_DMSMR;
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--model") == 0)
			kind = kind_of(argv[i + 1]);
	if (kind >= _EMU_KIND_MAX)
		return -1;
	emu_defaults(p, kind);
	for (int i = 1; i + 1 < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] == '-' && strcmp(argv[i], "--stats") && strcmp(argv[i], "--trace")) {
			if (emu_model_opt(p, argv[i], argv[i + 1]) < 0)
				return -1;
			i++;
		}
	return 0;
}

#ifndef SMR_EMU_MODEL_ONLY
/* ------------------------------------------------------------- FUSE glue */
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <fuse3/fuse.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

typedef struct Emu {
	EmuModel model;
	pthread_mutex_t lock;
	int backing_fd;
	bool stats, trace, cliff_said, slow_said;
	uint64_t idle_said;
	uint64_t bad_off, bad_len;	/* reads touching [bad_off, bad_off + bad_len) fail with EIO */
	uint64_t badw_off, badw_len;	/* writes touching these bytes fail with EIO */
} Emu;

static Emu *emu_ctx(void) { return fuse_get_context()->private_data; }

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void sleep_until(uint64_t us)
{
	struct timespec ts = {.tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One request as the model served it, for judges that must tell the model
 * from the host: its arrival on the monotonic clock, the latency the model
 * gave it, and how late the wake-up came after the modelled completion (a
 * host that did not run us; the model never sees it). */
static void emu_trace(EmuOp op, uint64_t off, uint64_t len, uint64_t arrived, uint64_t done)
{
	uint64_t woke = mono_us();
	fprintf(stderr, "smr-emu: %c %" PRIu64 "+%" PRIu64 " at %" PRIu64 " model %" PRIu64 " us late %" PRIu64 " us\n",
		"RWDF"[op], off, len, arrived, done - arrived, woke > done ? woke - done : 0);
}

/* Asks the model, then waits as long as the disk would have. */
static void emu_delay(Emu *e, EmuOp op, uint64_t off, uint64_t len)
{
	pthread_mutex_lock(&e->lock);
	uint64_t now = mono_us(), done = emu_submit(&e->model, now, op, off, len);
	bool cliff = e->model.cliff_at && !e->cliff_said;
	e->cliff_said |= cliff;
	uint64_t cliff_written = e->model.cliff_written;
	EmuModel snap = e->model;	/* the counters, read under the lock */
	bool slow = e->stats && snap.slow_over && !e->slow_said && snap.p.kind == EMU_DMSMR;
	e->slow_said |= slow;
	bool idle = e->stats && snap.idle_seq != e->idle_said && snap.p.kind == EMU_DMSMR;
	e->idle_said = snap.idle_seq;
	pthread_mutex_unlock(&e->lock);
	if (slow)
		fprintf(stderr, "smr-emu: slow phase %.6f s: %" PRIu64 " bytes into the cache, %" PRIu64
			" waits for band rewrites of %.1f us on average\n", (double)(snap.slow_end - snap.cliff_at) / 1e6,
			snap.slow_wait_bytes, snap.waits, snap.waits ? (double)snap.wait_us / (double)snap.waits : 0.0);
	if (idle)
		fprintf(stderr, "smr-emu: idle %.6f s: cleaned %" PRIu64 " bytes, then %" PRIu64 " bytes fast\n",
			(double)snap.idle_us / 1e6, snap.idle_cleaned, snap.idle_room);
	if (cliff) {	/* for judges of detectors: when, by the model, the cache ran out */
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		fprintf(stderr, "smr-emu: cliff at %.6f after %" PRIu64 " bytes written\n",
			(double)rt.tv_sec + (double)rt.tv_nsec / 1e9, cliff_written);
	}
	sleep_until(done);
	if (e->trace)
		emu_trace(op, off, len, now, done);
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof *st);
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/disk") == 0) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = (off_t)emu_ctx()->model.p.size;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off, (void)fi, (void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "disk", NULL, 0, 0);
	return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/disk") != 0)
		return -ENOENT;
	fi->direct_io = 1;	/* every request reaches us: no page cache in between */
	return 0;
}

static int op_read(const char *path, char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	Emu *e = emu_ctx();
	(void)path, (void)fi;
	if ((uint64_t)off >= e->model.p.size)
		return 0;
	if ((uint64_t)off + len > e->model.p.size)
		len = e->model.p.size - (uint64_t)off;
	emu_delay(e, EMU_READ, (uint64_t)off, len);
	if (e->bad_len && (uint64_t)off < e->bad_off + e->bad_len && (uint64_t)off + len > e->bad_off)
		return -EIO;	/* an unreadable sector */
	ssize_t n = pread(e->backing_fd, buf, len, off);
	if (n < 0)
		return -errno;
	memset(buf + n, 0, len - (size_t)n);	/* a sparse tail reads as zeros */
	return (int)len;
}

static int op_write(const char *path, const char *buf, size_t len, off_t off, struct fuse_file_info *fi)
{
	Emu *e = emu_ctx();
	(void)path, (void)fi;
	if ((uint64_t)off + len > e->model.p.size)
		return -ENOSPC;
	emu_delay(e, EMU_WRITE, (uint64_t)off, len);
	if (e->badw_len && (uint64_t)off < e->badw_off + e->badw_len && (uint64_t)off + len > e->badw_off)
		return -EIO;	/* a sector that cannot be written */
	ssize_t n = pwrite(e->backing_fd, buf, len, off);
	return n < 0 ? -errno : (int)n;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	(void)path, (void)datasync, (void)fi;
	emu_delay(emu_ctx(), EMU_FLUSH, 0, 0);
	return 0;
}

static int op_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	Emu *e = emu_ctx();
	(void)path, (void)fi;
	if (!(mode & FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	emu_delay(e, EMU_DISCARD, (uint64_t)off, (uint64_t)len);
	return fallocate(e->backing_fd, mode, off, len) < 0 ? -errno : 0;
}

static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)path, (void)fi;
	return (uint64_t)size == emu_ctx()->model.p.size ? 0 : -EPERM;
}

static void *stats_thread(void *arg)
{
	Emu *e = arg;
	for (;;) {
		sleep(1);
		pthread_mutex_lock(&e->lock);
		uint64_t now = mono_us(), dirty = 0;
		emu_advance(&e->model, now);
		for (uint64_t b = 0; b < e->model.nbands; b++)
			dirty += e->model.dirty[b] > 0;
		fprintf(stderr, "smr-emu: cache %.1f/%.1f MiB, bands dirty %" PRIu64 ", cleaning %s, bands cleaned %" PRIu64
			", hiccups %" PRIu64 ", collapses %" PRIu64 ", slc %.1f/%.1f MiB\n",
			e->model.fill / 1048576.0, e->model.p.cache_bytes / 1048576.0, dirty,
			e->model.head_free > now ? "busy" : "idle", e->model.bands_cleaned, e->model.hiccups,
			e->model.collapses, e->model.slc_used / 1048576.0, e->model.p.slc_bytes / 1048576.0);
		pthread_mutex_unlock(&e->lock);
	}
	return NULL;
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	Emu *e = emu_ctx();
	(void)conn;
	cfg->direct_io = 1;
	cfg->attr_timeout = 3600;
	pthread_t t;
	if (e->stats && pthread_create(&t, NULL, stats_thread, e) == 0)
		pthread_detach(t);
	return e;
}

static const struct fuse_operations ops = {
	.init = op_init, .getattr = op_getattr, .readdir = op_readdir, .open = op_open,
	.read = op_read, .write = op_write, .fsync = op_fsync, .fallocate = op_fallocate,
	.truncate = op_truncate,
};

static void usage(void)
{
	fprintf(stderr,
		"usage: smr-emu [options] --backing FILE MOUNTPOINT\n"
		"Serves MOUNTPOINT/disk with the delays of a disk model; attach it with\n"
		"  losetup --direct-io=on -f --show MOUNTPOINT/disk\n"
		"  --model cmr|dm-smr|ssd|slc-ssd|vdisk   (dm-smr)\n"
		"  --backing FILE           data store; its size is the disk's size\n"
		"  --cache-mib N            DM-SMR media cache (32)\n"
		"  --cache-mibs N           DM-SMR rate into the media cache, MiB/s (200)\n"
		"  --ack-us MIN:MAX         DM-SMR write acknowledgement from the cache (200:500)\n"
		"  --band-mib N             DM-SMR band size (4)\n"
		"  --clean-mibs N           DM-SMR band rewrite rate, MiB/s (10)\n"
		"  --idle-ms N              idle time before background cleaning (500)\n"
		"  --idle-clean-mibs N      background cleaning, MiB/s of bands on average (--clean-mibs)\n"
		"  --high-water F           serial: cache share that forces cleaning (0.9)\n"
		"  --low-water F            ... until the fill is back under it (0.8)\n"
		"  --slow serial|mixed      DM-SMR slow phase: every write waits for a band\n"
		"                           rewrite, or only --stall-share of them (serial)\n"
		"  --stall-share F          mixed: share of writes that wait (0.05)\n"
		"  --seq-min-kib N          sequential writes smaller than this go through the\n"
		"                           cache like random ones (0: all bypass it)\n"
		"  --hiccup-mib N           one hiccup per N MiB written (DM-SMR: fast phase only)\n"
		"  --hiccup-ms N            its length, +-25%% (0: none)\n"
		"  --collapse-every N       DM-SMR: every Nth rewrite a write waits for takes\n"
		"  --collapse-s N           ... this long instead (0: never)\n"
		"  --seek-ms N, --rot-ms N  head: seek + uniform rotational delay (4, 8.3)\n"
		"  --write-cache N          CMR: writes held in DRAM, destaged shortest\n"
		"                           access first (32; 0 = write-through)\n"
		"  --ssd-us N               ssd, slc-ssd: base latency of every request (100, 30)\n"
		"  --slc-mib N              slc-ssd: SLC write cache (64)\n"
		"  --slc-mibs N             slc-ssd: write rate into SLC, MiB/s (1600)\n"
		"  --slow-mibs N            slc-ssd: write rate once SLC is full, MiB/s (150)\n"
		"  --recover-mibs N         slc-ssd: SLC freed per idle second, MiB (64)\n"
		"  --volatile-mib N         a volatile write cache: a FLUSH writes back what was\n"
		"                           written since the last one, up to N MiB (0: none)\n"
		"  --drain-mibs N           ... at N MiB/s; nothing else is served meanwhile\n"
		"  --trim-gibs N            a DISCARD takes its length at N GiB/s (0: at once)\n"
		"  --host-cache-mib N       vdisk: the host's page cache (256)\n"
		"  --cap-mibs N             vdisk: the host's write-back rate, MiB/s (60)\n"
		"  --seed N                 (1)\n"
		"  --bad-range OFF:LEN      reads touching these bytes fail with EIO\n"
		"  --bad-write-range OFF:LEN  writes touching these bytes fail with EIO\n"
		"  --stats                  one line of model state per second on stderr, the slow\n"
		"                           phase's figures once, and what each idle second cleaned\n"
		"  --trace                  one line per request on stderr once served: op\n"
		"                           offset+length, arrival (monotonic us), the modelled\n"
		"                           latency and the wake-up's lateness past it\n");
}

static int parse(int argc, char **argv, EmuParams *p, const char **backing, const char **mnt, Emu *e)
{
	if (emu_parse_model(argc, argv, p) < 0)
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--stats") == 0) { e->stats = true; continue; }
		if (strcmp(a, "--trace") == 0) { e->trace = true; continue; }
		if (a[0] != '-') { *mnt = a; continue; }
		if (!v) return -1;
		i++;
		if (strcmp(a, "--backing") == 0) *backing = v;
		else if (strcmp(a, "--bad-range") == 0 || strcmp(a, "--bad-write-range") == 0) {
			unsigned long long o, l;
			if (sscanf(v, "%llu:%llu", &o, &l) != 2)
				return -1;
			if (strcmp(a, "--bad-write-range") == 0)
				e->badw_off = o, e->badw_len = l;
			else
				e->bad_off = o, e->bad_len = l;
		}
		else if (emu_model_opt(p, a, v) != 0) return -1;
	}
	return *backing && *mnt ? 0 : -1;
}

int main(int argc, char **argv)
{
	static Emu e = {.lock = PTHREAD_MUTEX_INITIALIZER};
	const char *backing = NULL, *mnt = NULL;
	EmuParams p;
	if (parse(argc, argv, &p, &backing, &mnt, &e) < 0) {
		usage();
		return 2;
	}
	e.backing_fd = open(backing, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (e.backing_fd < 0 || fstat(e.backing_fd, &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "smr-emu: cannot use %s as backing file (it must exist, non-empty)\n", backing);
		return 1;
	}
	p.size = (uint64_t)st.st_size & ~UINT64_C(4095);
	if (emu_init(&e.model, &p) < 0) {
		fprintf(stderr, "smr-emu: invalid model parameters\n");
		return 2;
	}
	char *fargv[] = {argv[0], "-f", "-o", "fsname=smr-emu", (char *)mnt, NULL};
	int r = fuse_main(5, fargv, &ops, &e);
	emu_done(&e.model);
	return r;
}
#endif
