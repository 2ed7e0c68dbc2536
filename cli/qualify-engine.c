/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One loop per phase: keep qd I/Os in flight, reap completions with a
 * 200 ms timeout (so that the live line and Ctrl-C are never late), stop
 * submitting when told to, and drain what is in flight before returning:
 * an I/O is never left behind on the disk. The model backend keeps the
 * same loop on a virtual clock: a reap moves it to the next completion,
 * or 200 ms on if none comes sooner, as io_getevents' timeout would.
 */
#include "qualify-engine.h"

#include <libaio.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
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
	/* the model backend (submit set): its clock, and each slot's I/O */
	EngineSubmitFn submit;
	void *userdata;
	double clock;
	double due[ENGINE_MAX_QD];
	long res[ENGINE_MAX_QD];
	bool busy[ENGINE_MAX_QD];
};

/* What io_getevents waits at most: the live line and Ctrl-C are never later. */
#define REAP_WAIT_NS (200 * 1000 * 1000)

static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
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

int engine_new_model(EngineSubmitFn submit, void *userdata, unsigned qd, uint64_t seed, double start,
		     Engine **ret)
{
	if (!submit || qd < 1 || qd > ENGINE_MAX_QD)
		return -EINVAL;
	Engine *e = calloc(1, sizeof *e);
	if (!e)
		return -ENOMEM;
	*e = (Engine){.fd = -1, .qd = qd, .rng = seed ^ 0x5deece66dULL, .submit = submit, .userdata = userdata,
		      .clock = start};
	*ret = e;
	return 0;
}

double engine_now(const Engine *e)
{
	return e->submit ? e->clock : now_seconds(CLOCK_MONOTONIC);
}

void engine_rest(Engine *e, double seconds, const volatile sig_atomic_t *interrupt)
{
	if (e->submit) {
		if (!(interrupt && *interrupt) && seconds > 0)
			e->clock += seconds;
		return;
	}
	for (double t0 = engine_now(e); !(interrupt && *interrupt) && engine_now(e) - t0 < seconds;)
		usleep(50000);
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

/* The model's I/O: its completion time now, its result then. */
static int model_submit(Engine *e, const Phase *p, unsigned slot, uint64_t off)
{
	double done = e->clock;
	int r = e->submit(e->userdata, e->clock, p->write, off, p->io_bytes, &done);
	e->submitted[slot] = e->clock;
	e->offset[slot] = off;
	e->due[slot] = fmax(done, e->clock);
	e->res[slot] = r < 0 ? r : (long)p->io_bytes;
	e->busy[slot] = true;
	return 0;
}

static int submit_one(Engine *e, Phase *p, struct iocb *cb, uint64_t blocks)
{
	unsigned slot = (unsigned)(cb - e->cb);
	uint64_t off = next_offset(e, p, blocks);
	if (e->submit)
		return model_submit(e, p, slot, off);
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

typedef struct Done {
	unsigned slot;
	long res;		/* bytes, or -errno */
} Done;

/* The model's completions: every I/O due by the first one, in completion
 * order (ties in submit order), or none and 200 ms later. */
static int model_reap(Engine *e, Done *out)
{
	double first = INFINITY;
	for (unsigned i = 0; i < e->qd; i++)
		if (e->busy[i])
			first = fmin(first, e->due[i]);
	if (first > e->clock + REAP_WAIT_NS / 1e9) {
		e->clock += REAP_WAIT_NS / 1e9;
		return 0;
	}
	e->clock = fmax(e->clock, first);
	int n = 0;
	for (unsigned i = 0; i < e->qd; i++) {
		if (!e->busy[i] || e->due[i] > e->clock)
			continue;
		e->busy[i] = false;
		int k = n++;
		for (; k > 0 && (e->due[out[k - 1].slot] > e->due[i] ||
				 (e->due[out[k - 1].slot] == e->due[i] && e->submitted[out[k - 1].slot] > e->submitted[i]));
		     k--)
			out[k] = out[k - 1];
		out[k] = (Done){.slot = i, .res = e->res[i]};
	}
	return n;
}

/* Up to 200 ms for at least one completion: how many, or -errno. */
static int reap(Engine *e, unsigned inflight, Done *out)
{
	if (e->submit)
		return model_reap(e, out);
	struct io_event ev[ENGINE_MAX_QD];
	struct timespec wait = {0, REAP_WAIT_NS};
	int got = io_getevents(e->aio, 1, (long)inflight, ev, &wait);
	for (int i = 0; i < got; i++)
		out[i] = (Done){.slot = (unsigned)(uintptr_t)ev[i].data, .res = (long)ev[i].res};
	return got;
}

/* Records for what is in flight and free to submit: doubled as a phase
 * goes on, up to ENGINE_MAX_IOS (past which records are dropped), so a
 * short phase does not take the 192 MiB a long one may. */
#define RECORDS_FIRST (64u << 10)

static int records_room(Phase *p, size_t *cap, size_t want)
{
	if (want <= *cap || *cap == ENGINE_MAX_IOS)
		return 0;
	size_t n = *cap * 2 > want ? *cap * 2 : want;
	n = n > ENGINE_MAX_IOS ? ENGINE_MAX_IOS : n;
	IoRec *rec = realloc(p->rec, n * sizeof *rec);
	if (!rec)
		return -ENOMEM;
	p->rec = rec;
	if (p->offsets) {
		uint64_t *off = realloc(p->offsets, n * sizeof *off);
		if (!off)
			return -ENOMEM;
		p->offsets = off;
	}
	*cap = n;
	return 0;
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
		char spark[128], b[FORMAT_MAX], l[32];
		sparkline(spark, sizeof spark, p->sec, p->n_sec);
		fprintf(stderr, "\r\033[K[%s] %5.0f s  %s %s  %7.0f IOPS  %s  %s", p->name, done - t->t0,
			p->write ? "written" : "read", format_size(b, (double)p->bytes), (double)t->ios / dt,
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
	size_t cap = RECORDS_FIRST < ENGINE_MAX_IOS ? RECORDS_FIRST : ENGINE_MAX_IOS;
	p->rec = calloc(cap, sizeof *p->rec);
	p->offsets = p->write ? calloc(cap, sizeof *p->offsets) : NULL;
	p->sec = calloc(cap_sec, sizeof *p->sec);
	if (!p->rec || !p->sec || (p->write && !p->offsets))
		return -ENOMEM;
	Tally t = {.t0 = engine_now(e)};
	t.last_sec = t.t0;
	unsigned inflight = 0, n_free = 0;
	struct iocb *free_cb[ENGINE_MAX_QD];
	for (unsigned i = 0; i < e->qd; i++)
		free_cb[n_free++] = &e->cb[i];
	bool stopping = false;
	int err = 0;
	for (;;) {
		double now = engine_now(e);
		if (!stopping && records_room(p, &cap, p->n + e->qd) < 0) {
			p->stopped = "out of memory";
			stopping = true;
			err = -ENOMEM;
		}
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
		Done ev[ENGINE_MAX_QD];
		int got = reap(e, inflight, ev);
		if (got < 0 && got != -EINTR)
			return got;	/* io_destroy in engine_free drains the rest */
		double done = engine_now(e);
		for (int i = 0; i < (got > 0 ? got : 0); i++) {
			unsigned slot = ev[i].slot;
			inflight--;
			free_cb[n_free++] = &e->cb[slot];
			if (ev[i].res != (long)p->io_bytes) {
				if (!p->error[0])
					snprintf(p->error, sizeof p->error, "%s at offset %llu failed: %s",
						 p->write ? "a write" : "a read", (unsigned long long)e->offset[slot],
						 ev[i].res < 0 ? strerror((int)-ev[i].res) : "short transfer");
				fprintf(stderr, "\nsmrctl: qualify: %s\n", p->error);
				p->stopped = "I/O error";
				stopping = true;
				err = -EIO;
				if (ev[i].res <= 0)
					continue;
			}
			double lat = done - e->submitted[slot];
			if (p->n < cap) {
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
	p->duration = engine_now(e) - t.t0;
	if (live)
		fprintf(stderr, "\n");
	return err == -EIO ? 0 : err;	/* an I/O error ends the phase; what it learned stands */
}
