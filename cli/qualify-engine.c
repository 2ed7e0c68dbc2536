/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One loop per phase: keep qd I/Os in flight, reap completions with a
 * 200 ms timeout (so that the live line and Ctrl-C are never late), stop
 * submitting when told to, and drain what is in flight before returning:
 * an I/O is never left behind on the disk.
 */
#include "qualify-engine.h"

#include <libaio.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "output.h"
#include "util.h"

struct Engine {
	int fd;
	io_context_t aio;
	unsigned qd;
	void *buf[ENGINE_MAX_QD];
	struct iocb cb[ENGINE_MAX_QD];
	double submitted[ENGINE_MAX_QD];
	uint64_t offset[ENGINE_MAX_QD];
	uint64_t rng, next_seq;
};

static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

const char *fmt_bytes(char *buf, size_t n, double b)
{
	const double gib = 1024.0 * 1024 * 1024;
	if (b >= gib)
		snprintf(buf, n, "%.2f GiB", b / gib);
	else if (b >= 1024 * 1024)
		snprintf(buf, n, "%.1f MiB", b / 1024 / 1024);
	else
		snprintf(buf, n, "%.0f KiB", b / 1024);
	return buf;
}

Engine *engine_free(Engine *e)
{
	if (!e)
		return NULL;
	if (e->aio)
		io_destroy(e->aio);	/* waits for whatever is in flight */
	for (unsigned i = 0; i < e->qd; i++)
		free(e->buf[i]);
	free(e);
	return NULL;
}

int engine_new(int fd, unsigned qd, uint64_t bufsize, uint64_t seed, Engine **ret)
{
	if (qd < 1 || qd > ENGINE_MAX_QD)
		return -EINVAL;
	Engine *e = calloc(1, sizeof *e);
	if (!e)
		return -ENOMEM;
	*e = (Engine){.fd = fd, .qd = qd, .rng = seed ^ 0x5deece66dULL};
	int r = io_setup((int)qd, &e->aio);
	if (r < 0) {
		e->aio = 0;
		engine_free(e);
		return r;
	}
	for (unsigned i = 0; i < qd; i++) {
		if (posix_memalign(&e->buf[i], 4096, bufsize)) {
			engine_free(e);
			return -ENOMEM;
		}
		/* incompressible data: a drive that compresses must not look fast */
		for (uint64_t k = 0; k < bufsize / 8; k++)
			((uint64_t *)e->buf[i])[k] = next_rand(&e->rng) * 2654435761u;
	}
	*ret = e;
	return 0;
}

void phase_free(Phase *p)
{
	free(p->rec);
	free(p->offsets);
	free(p->sec);
	p->rec = NULL;
	p->offsets = NULL;
	p->sec = NULL;
}

/* ▁▂▃▄▅▆▇█ of the last seconds' IOPS, on a log scale */
static void sparkline(char *buf, size_t n, const Second *s, size_t k)
{
	static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	size_t from = k > 24 ? k - 24 : 0;
	double mx = 1;
	for (size_t i = from; i < k; i++)
		mx = fmax(mx, s[i].iops);
	buf[0] = 0;
	for (size_t i = from; i < k; i++) {
		double f = s[i].iops > 0 ? log10(s[i].iops + 1) / log10(mx + 1) : 0;
		int b = (int)(f * 7.99);
		strncat(buf, bars[b < 0 ? 0 : b > 7 ? 7 : b], n - strlen(buf) - 1);
	}
}

static uint64_t next_offset(Engine *e, const Phase *p, uint64_t blocks)
{
	if (!p->sequential)
		return next_rand(&e->rng) % blocks * p->io_bytes;
	uint64_t off = e->next_seq % blocks * p->io_bytes;
	e->next_seq++;
	return off;
}

static int submit_one(Engine *e, Phase *p, struct iocb *cb, uint64_t blocks)
{
	unsigned slot = (unsigned)(cb - e->cb);
	uint64_t off = next_offset(e, p, blocks);
	if (p->write)
		io_prep_pwrite(cb, e->fd, e->buf[slot], p->io_bytes, (long long)off);
	else
		io_prep_pread(cb, e->fd, e->buf[slot], p->io_bytes, (long long)off);
	cb->data = (void *)(uintptr_t)slot;
	e->submitted[slot] = now_seconds(CLOCK_MONOTONIC);
	e->offset[slot] = off;
	struct iocb *one[1] = {cb};
	int r = io_submit(e->aio, 1, one);
	return r == 1 ? 0 : r < 0 ? r : -EIO;
}

typedef struct Tally {
	double t0, last_sec;
	size_t ios;
	double lat, max;
} Tally;

static void second_done(Phase *p, Tally *t, double done, size_t cap, bool live)
{
	double dt = done - t->last_sec;
	if (p->n_sec < cap)
		p->sec[p->n_sec++] = (Second){.t = done - t->t0, .iops = (double)t->ios / dt,
					      .lat_mean = t->ios ? t->lat / (double)t->ios : NAN, .lat_max = t->max};
	if (live) {
		char spark[128], b[32], l[32];
		sparkline(spark, sizeof spark, p->sec, p->n_sec);
		fprintf(stderr, "\r\033[K[%s] %5.0f s  %s %s  %7.0f IOPS  %s  %s", p->name, done - t->t0,
			p->write ? "written" : "read", fmt_bytes(b, sizeof b, (double)p->bytes), (double)t->ios / dt,
			output_seconds(t->ios ? t->lat / (double)t->ios : NAN, l, sizeof l), spark);
	}
	t->last_sec = done;
	t->ios = 0;
	t->lat = t->max = 0;
}

int engine_run(Engine *e, Phase *p, uint64_t range, double limit, EngineStopFn stop, void *userdata,
	       const volatile sig_atomic_t *interrupt, bool live)
{
	uint64_t blocks = p->io_bytes ? range / p->io_bytes : 0;
	size_t cap_sec = (size_t)limit + 16;
	if (blocks == 0)
		return -EINVAL;
	p->rec = calloc(ENGINE_MAX_IOS, sizeof *p->rec);
	p->offsets = p->write ? calloc(ENGINE_MAX_IOS, sizeof *p->offsets) : NULL;
	p->sec = calloc(cap_sec, sizeof *p->sec);
	if (!p->rec || !p->sec || (p->write && !p->offsets))
		return -ENOMEM;
	Tally t = {.t0 = now_seconds(CLOCK_MONOTONIC)};
	t.last_sec = t.t0;
	unsigned inflight = 0, n_free = 0;
	struct iocb *free_cb[ENGINE_MAX_QD];
	for (unsigned i = 0; i < e->qd; i++)
		free_cb[n_free++] = &e->cb[i];
	bool stopping = false;
	int err = 0;
	for (;;) {
		double now = now_seconds(CLOCK_MONOTONIC);
		if (!stopping && ((interrupt && *interrupt) || now - t.t0 >= limit || p->n + inflight >= ENGINE_MAX_IOS ||
				  (stop && stop(p, now - t.t0, userdata)))) {
			stopping = true;
			p->interrupted = interrupt && *interrupt;
			if (!p->stopped)
				p->stopped = p->interrupted ? "interrupted" : now - t.t0 >= limit ? "time limit" : "stop rule";
		}
		while (!stopping && n_free) {
			struct iocb *cb = free_cb[--n_free];
			int r = submit_one(e, p, cb, blocks);
			if (r < 0) {
				free_cb[n_free++] = cb;
				p->stopped = "submit failed";
				stopping = true;
				err = r;
				break;
			}
			inflight++;
		}
		if (!inflight)
			break;
		struct io_event ev[ENGINE_MAX_QD];
		struct timespec wait = {0, 200 * 1000 * 1000};	/* wake for the live line and Ctrl-C */
		int got = io_getevents(e->aio, 1, (long)inflight, ev, &wait);
		if (got < 0 && got != -EINTR)
			return got;	/* io_destroy in engine_free drains the rest */
		double done = now_seconds(CLOCK_MONOTONIC);
		for (int i = 0; i < (got > 0 ? got : 0); i++) {
			unsigned slot = (unsigned)(uintptr_t)ev[i].data;
			inflight--;
			free_cb[n_free++] = &e->cb[slot];
			if ((long)ev[i].res != (long)p->io_bytes) {
				if (!p->error[0])
					snprintf(p->error, sizeof p->error, "%s at offset %llu failed: %s",
						 p->write ? "a write" : "a read", (unsigned long long)e->offset[slot],
						 (long)ev[i].res < 0 ? strerror((int)-(long)ev[i].res) : "short transfer");
				fprintf(stderr, "\nsmrctl: qualify: %s\n", p->error);
				p->stopped = "I/O error";
				stopping = true;
				err = -EIO;
				if ((long)ev[i].res <= 0)
					continue;
			}
			double lat = done - e->submitted[slot];
			if (p->n < ENGINE_MAX_IOS) {
				if (p->offsets)
					p->offsets[p->n] = e->offset[slot];
				p->rec[p->n++] = (IoRec){.t = e->submitted[slot] - t.t0, .lat = (float)lat};
			}
			p->bytes += p->io_bytes;
			hist_add(&p->hist, (uint64_t)(lat * 1e9));
			t.ios++;
			t.lat += lat;
			t.max = fmax(t.max, lat);
		}
		if (done - t.last_sec >= 1 || (!inflight && stopping))
			second_done(p, &t, done, cap_sec, live);
	}
	p->duration = now_seconds(CLOCK_MONOTONIC) - t.t0;
	if (live)
		fprintf(stderr, "\n");
	return err == -EIO ? 0 : err;	/* an I/O error ends the phase; what it learned stands */
}
