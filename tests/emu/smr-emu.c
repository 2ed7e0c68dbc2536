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
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ model */

typedef enum EmuKind { EMU_CMR, EMU_DMSMR, EMU_SSD, _EMU_KIND_MAX } EmuKind;
typedef enum EmuOp { EMU_READ, EMU_WRITE, EMU_DISCARD, EMU_FLUSH } EmuOp;

/* All times in microseconds, sizes in bytes. Defaults in emu_defaults(). */
typedef struct EmuParams {
	EmuKind kind;
	uint64_t size;
	uint64_t seek_us, rot_us;	/* seek + uniform 0..rot_us rotational delay */
	uint64_t media_rate;		/* bytes/s streaming to or from the platter */
	uint64_t ack_min_us, ack_max_us;	/* DM-SMR write into the media cache */
	uint64_t cache_bytes;		/* DM-SMR media cache */
	uint64_t band_bytes;		/* DM-SMR band: the unit of cleaning */
	uint64_t clean_rate;		/* bytes/s of band rewrite */
	uint64_t idle_us;		/* host idle this long: clean in the background */
	double high_water;		/* cache fill share above which cleaning is forced */
	double low_water;		/* ... until the fill is back under this share */
	uint64_t host_slice_us;		/* under pressure: host time between band rewrites */
	uint64_t ssd_us;
	uint64_t write_cache;		/* CMR: writes the DRAM cache holds (0: write-through) */
	uint64_t seed;
} EmuParams;

typedef struct EmuModel {
	EmuParams p;
	uint64_t rng;
	uint64_t head_free;		/* when the head is next free */
	uint64_t last_host;		/* end of the last host I/O */
	uint64_t next_forced;		/* earliest next forced clean (host slice) */
	uint64_t last_write_end;	/* byte offset: detects sequential streams */
	bool wrote;
	uint64_t fill;			/* bytes in the media cache */
	uint64_t nbands;
	uint64_t *dirty;		/* cached bytes per band */
	/* Bands in the order they entered the cache: a media cache is a log,
	 * so the drive cleans the oldest first, not the one that frees most. */
	uint64_t *queue, q_head, q_len;
	bool *queued;
	bool started;			/* clocks anchored at the first request */
	bool pressed;			/* forced cleaning: between high and low water */
	uint64_t wc_count;		/* CMR: writes in the DRAM cache; while any, one
					 * is being destaged, done at head_free */
	uint64_t bands_cleaned, bytes_cleaned;
} EmuModel;

static void emu_defaults(EmuParams *p, EmuKind kind)
{
	*p = (EmuParams){
		.kind = kind, .size = 16ULL << 30, .seek_us = 4000, .rot_us = 8300,
		.media_rate = 150ULL << 20, .ack_min_us = 200, .ack_max_us = 500,
		/* Scaled down: few KiB of cache per band, so that a full cache
		 * frees little per band rewrite, as on a multi-TB disk. */
		.cache_bytes = 32ULL << 20, .band_bytes = 4ULL << 20, .clean_rate = 10ULL << 20,
		.idle_us = 500000, .high_water = 0.9, .low_water = 0.8, .host_slice_us = 100000, .ssd_us = 100,
		.write_cache = 32,
		.seed = 1,
	};
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
	if (!p->size || !p->band_bytes || !p->clean_rate || !p->media_rate || p->kind >= _EMU_KIND_MAX ||
	    p->low_water > p->high_water)
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
 * water, which is why a real drive stays slow long after the cliff. */
static void update_pressure(EmuModel *m)
{
	double fill = (double)m->fill, cache = (double)m->p.cache_bytes;
	if (fill > m->p.high_water * cache)
		m->pressed = true;
	else if (fill <= m->p.low_water * cache)
		m->pressed = false;
}

static void cache_add(EmuModel *m, uint64_t band, uint64_t bytes)
{
	if (!m->queued[band]) {
		m->queue[(m->q_head + m->q_len++) % m->nbands] = band;
		m->queued[band] = true;
	}
	m->dirty[band] += bytes;
	m->fill += bytes;
	update_pressure(m);
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t transfer_us(uint64_t len, uint64_t rate) { return len * 1000000 / rate; }
static uint64_t band_time(const EmuModel *m) { return transfer_us(m->p.band_bytes, m->p.clean_rate); }

/* Rewrites the oldest band in the cache, starting at `start`. A band that
 * TRIM emptied since it was queued costs nothing. */
static void clean_one(EmuModel *m, uint64_t start)
{
	uint64_t best;
	do {
		if (!m->q_len)
			return;
		best = m->queue[m->q_head];
		m->q_head = (m->q_head + 1) % m->nbands;
		m->q_len--;
		m->queued[best] = false;
	} while (!m->dirty[best]);
	m->fill -= m->dirty[best];
	update_pressure(m);
	m->bytes_cleaned += m->dirty[best];
	m->dirty[best] = 0;
	m->bands_cleaned++;
	m->head_free = start + band_time(m);
	m->next_forced = m->head_free + m->p.host_slice_us;
}


/* Runs the cleaning that would have started before `now`: forced cleaning
 * when the cache is above high water (one band, then a host slice), and
 * back-to-back cleaning once the host has been idle for idle_us. */
static void emu_advance(EmuModel *m, uint64_t now)
{
	if (m->p.kind != EMU_DMSMR)
		return;
	while (m->fill > 0) {
		uint64_t start = max_u64(m->head_free, m->last_host + m->p.idle_us);
		if (under_pressure(m))
			start = max_u64(m->head_free, m->next_forced < start ? m->next_forced : start);
		if (start > now)	/* a tie goes to the cleaner: the host request queues */
			return;
		clean_one(m, start);
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

#define SEQ_WINDOW (2ULL << 20)

static uint64_t dmsmr_write(EmuModel *m, uint64_t now, uint64_t off, uint64_t len)
{
	/* A stream is a write near where the last one ended: the loop device
	 * splits large writes and the pieces arrive out of order, as they would
	 * in a drive's command queue. */
	uint64_t e = m->last_write_end, win = SEQ_WINDOW;
	bool sequential = m->wrote && off + win >= e && off <= e + win;
	m->last_write_end = off + len;
	m->wrote = true;
	/* Whole bands and continuing streams go straight to the shingled
	 * tracks: no read-modify-write is needed, so no cache. */
	if (sequential || len >= m->p.band_bytes)
		return media_access(m, now, len, sequential);
	uint64_t band = off / m->p.band_bytes;
	uint64_t add = len;
	if (m->dirty[band] + add > m->p.band_bytes)
		add = m->p.band_bytes - m->dirty[band];
	/* Above high water the drive makes room before it takes more: each
	 * write waits for a band rewrite (the destage storm), and a full cache
	 * admits a write only once enough has been freed. */
	bool waited = false;
	if (under_pressure(m) && add) {
		clean_one(m, max_u64(now, m->head_free));
		waited = true;
	}
	while (m->fill + add > m->p.cache_bytes && m->fill > 0) {
		clean_one(m, max_u64(now, m->head_free));
		waited = true;
	}
	bool was_pressed = under_pressure(m);
	cache_add(m, band, add);
	if (!was_pressed && under_pressure(m))	/* forced cleaning starts now, not in the past */
		m->next_forced = max_u64(m->next_forced, now);
	uint64_t at = waited ? max_u64(now, m->head_free) : now;
	return at + m->p.ack_min_us + emu_rand(m, m->p.ack_max_us - m->p.ack_min_us + 1);
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
	if (!m->p.write_cache)
		return media_access(m, now, len, false);
	uint64_t at = now;
	cmr_advance(m, now);
	if (m->wc_count >= m->p.write_cache) {	/* full: wait for the destage under way */
		at = m->head_free;
		cmr_advance(m, at);
	}
	if (m->wc_count++ == 0)
		m->head_free = max_u64(at, m->head_free) + destage_cost(m, 1, len);
	return at + m->p.ack_min_us + emu_rand(m, m->p.ack_max_us - m->p.ack_min_us + 1);
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

/* Submits one request at `now`; returns when it completes. */
static uint64_t emu_submit(EmuModel *m, uint64_t now, EmuOp op, uint64_t off, uint64_t len)
{
	uint64_t done;
	if (!m->started) {	/* the clock may start anywhere (CLOCK_MONOTONIC: at boot) */
		m->head_free = m->last_host = m->next_forced = now;
		m->started = true;
	}
	emu_advance(m, now);
	if (m->p.kind == EMU_SSD) {
		done = now + m->p.ssd_us + transfer_us(len, 10 * m->p.media_rate);
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
	m->last_host = max_u64(m->last_host, done);
	return done;
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
	bool stats, trace;
	uint64_t bad_off, bad_len;	/* reads touching [bad_off, bad_off + bad_len) fail with EIO */
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

/* Asks the model, then waits as long as the disk would have. */
static void emu_delay(Emu *e, EmuOp op, uint64_t off, uint64_t len)
{
	pthread_mutex_lock(&e->lock);
	uint64_t now = mono_us(), done = emu_submit(&e->model, now, op, off, len);
	pthread_mutex_unlock(&e->lock);
	if (e->trace)
		fprintf(stderr, "smr-emu: %c %" PRIu64 "+%" PRIu64 " %" PRIu64 " us\n", "RWDF"[op], off, len, done - now);
	sleep_until(done);
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
		fprintf(stderr, "smr-emu: cache %.1f/%.1f MiB, bands dirty %" PRIu64 ", cleaning %s, bands cleaned %" PRIu64 "\n",
			e->model.fill / 1048576.0, e->model.p.cache_bytes / 1048576.0, dirty,
			e->model.head_free > now ? "busy" : "idle", e->model.bands_cleaned);
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
		"  --model cmr|dm-smr|ssd   (dm-smr)\n"
		"  --backing FILE           data store; its size is the disk's size\n"
		"  --cache-mib N            DM-SMR media cache (32)\n"
		"  --band-mib N             DM-SMR band size (4)\n"
		"  --clean-mibs N           DM-SMR band rewrite rate, MiB/s (10)\n"
		"  --idle-ms N              idle time before background cleaning (500)\n"
		"  --high-water F           cache share that forces cleaning (0.9)\n"
		"  --low-water F            ... until the fill is back under it (0.8)\n"
		"  --seek-ms N, --rot-ms N  head: seek + uniform rotational delay (4, 8.3)\n"
		"  --write-cache N          CMR: writes held in DRAM, destaged shortest\n"
		"                           access first (32; 0 = write-through)\n"
		"  --ssd-us N               ssd: fixed latency of every request (100)\n"
		"  --seed N                 (1)\n"
		"  --bad-range OFF:LEN      reads touching these bytes fail with EIO\n"
		"  --stats                  one line of model state per second on stderr\n"
		"  --trace                  one line per request on stderr (op offset+length latency)\n");
}

static int parse(int argc, char **argv, EmuParams *p, const char **backing, const char **mnt, Emu *e)
{
	emu_defaults(p, EMU_DMSMR);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x = v ? strtod(v, NULL) : 0;
		if (strcmp(a, "--stats") == 0) { e->stats = true; continue; }
		if (strcmp(a, "--trace") == 0) { e->trace = true; continue; }
		if (a[0] != '-') { *mnt = a; continue; }
		if (!v) return -1;
		i++;
		if (strcmp(a, "--model") == 0)
			p->kind = strcmp(v, "cmr") == 0 ? EMU_CMR : strcmp(v, "ssd") == 0 ? EMU_SSD
				: strcmp(v, "dm-smr") == 0 ? EMU_DMSMR : _EMU_KIND_MAX;
		else if (strcmp(a, "--backing") == 0) *backing = v;
		else if (strcmp(a, "--cache-mib") == 0) p->cache_bytes = (uint64_t)(x * 1048576);
		else if (strcmp(a, "--band-mib") == 0) p->band_bytes = (uint64_t)(x * 1048576);
		else if (strcmp(a, "--clean-mibs") == 0) p->clean_rate = (uint64_t)(x * 1048576);
		else if (strcmp(a, "--idle-ms") == 0) p->idle_us = (uint64_t)(x * 1000);
		else if (strcmp(a, "--high-water") == 0) p->high_water = x;
		else if (strcmp(a, "--low-water") == 0) p->low_water = x;
		else if (strcmp(a, "--seek-ms") == 0) p->seek_us = (uint64_t)(x * 1000);
		else if (strcmp(a, "--rot-ms") == 0) p->rot_us = (uint64_t)(x * 1000);
		else if (strcmp(a, "--seed") == 0) p->seed = (uint64_t)x;
		else if (strcmp(a, "--write-cache") == 0) p->write_cache = (uint64_t)x;
		else if (strcmp(a, "--ssd-us") == 0) p->ssd_us = (uint64_t)x;
		else if (strcmp(a, "--bad-range") == 0) {
			unsigned long long o, l;
			if (sscanf(v, "%llu:%llu", &o, &l) != 2)
				return -1;
			e->bad_off = o, e->bad_len = l;
		}
		else return -1;
	}
	return *backing && *mnt && p->kind < _EMU_KIND_MAX ? 0 : -1;
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
