/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "format.h"
#include "util.h"

/* Fewer than this and a median or a rate is not worth printing. */
#define MIN_SAMPLES 3

void qualify_model_skip(QualifyModel *q, const char *why)
{
	if (q->n_skipped < MODEL_MAX_SKIPPED)
		q->skipped[q->n_skipped++] = why;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* A gap in the completions this long is a wait: ten fast writes' time. */
static double wait_gap(const CliffResult *c)
{
	return fmax(10 / fmax(c->fast_iops, 1), 0.002);
}

/* The gaps in the completion stream after the cliff that are waits: far
 * longer than the fast phase's time between completions. While a drive
 * rewrites a band it completes nothing, whatever is queued, so a gap is
 * one rewrite at any queue depth; a write's own latency is not (at queue
 * depth 32 it waits for the rewrites of the 31 in front of it). */
/* The completions of the writes sent after the cliff, in order (*ret,
 * freed by the caller); their number, or -1 out of memory. */
static ssize_t completions_after(const IoRec *r, size_t n, const CliffResult *c, double **ret)
{
	double *done = malloc((n ? n : 1) * sizeof *done);
	if (!done)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].t >= c->cliff_t)
			done[k++] = r[i].t + r[i].lat;
	qsort(done, k, sizeof *done, cmp_double);
	*ret = done;
	return (ssize_t)k;
}

static void rewrite_time(const IoRec *r, size_t n, const CliffResult *c, QualifyModel *q)
{
	_cleanup_free_ double *done = NULL;
	ssize_t k = completions_after(r, n, c, &done);
	if (k < 0)
		return qualify_model_skip(q, "rewrite time: out of memory");
	double floor = wait_gap(c);
	size_t w = 0;
	for (ssize_t i = 1; i < k; i++)
		if (done[i] - done[i - 1] >= floor)
			done[w++] = done[i] - done[i - 1];	/* in place: w < i */
	if (w < MIN_SAMPLES)
		return qualify_model_skip(q, "rewrite time: fewer than 3 waits after the cliff (a longer --hold gives more)");
	qsort(done, w, sizeof *done, cmp_double);
	q->m.rewrite_seconds = quantile_sorted(done, w, 0.5);
	/* the median's standard error from the spread: 1.25 sigma/sqrt(n),
	 * sigma from the interquartile range */
	q->rewrite_err = 1.25 * (quantile_sorted(done, w, 0.75) - quantile_sorted(done, w, 0.25)) / 1.349 / sqrt((double)w);
	q->rewrites = (unsigned)w;
}

/* The completion that ended the last wait after the cliff; NaN if none. */
static double last_wait(const IoRec *r, size_t n, const CliffResult *c)
{
	_cleanup_free_ double *done = NULL;
	ssize_t k = completions_after(r, n, c, &done);
	double end = NAN, floor = wait_gap(c);
	for (ssize_t i = 1; i < k; i++)
		if (done[i] - done[i - 1] >= floor)
			end = done[i];
	return end;
}

void qualify_model_writes(const IoRec *r, size_t n, double duration, const CliffResult *c, uint64_t bs,
			  unsigned qd, QualifyModel *ret)
{
	QualifyModel q = {.cache_err = NAN, .slow_err = NAN, .rewrite_err = NAN, .recovery_err = NAN, .fast_bps = NAN,
			  .seq_bps = NAN};
	disk_model_init(&q.m);
	if (!c->fell || !c->found) {
		qualify_model_skip(&q, "no cliff with writes waiting: no media cache to measure");
		*ret = q;
		return;
	}
	q.fast_bps = c->fast_iops * (double)bs;
	/* The cliff is the submit time of the first write that waited; the
	 * ones in flight with it may have gone in fast or not. */
	disk_model_add_cache(&q.m, (double)(c->fast_ios * bs), true);
	q.cache_err = (double)((qd ? qd : 1) * bs);
	/* Up to the last write that waited: whole cycles of waits and what
	 * the drive let through between them (one with hysteresis takes a
	 * burst fast once it has cleaned down to its low water mark), not a
	 * burst cut off by the end of the phase. */
	double end = last_wait(r, n, c);
	if (!(end > c->cliff_t))
		end = duration;
	double slow_t = end - c->cliff_t;
	uint64_t ios = 0;
	for (size_t i = 0; i < n; i++)
		ios += r[i].t >= c->cliff_t && r[i].t + r[i].lat <= end + 1e-9;
	if (ios >= MIN_SAMPLES && slow_t > 0) {
		q.m.slow_write_bps = (double)(ios * bs) / slow_t;
		/* counting noise, and the queue's worth of writes that straddle
		 * the cliff or the end */
		double share = fmax(1 / sqrt((double)ios), (double)qd / (double)ios);
		q.slow_err = q.m.slow_write_bps * fmin(share, 1);
	} else {
		qualify_model_skip(&q, "sustained rate: fewer than 3 writes after the cliff (a longer --hold gives more)");
	}
	rewrite_time(r, n, c, &q);
	*ret = q;
}

double qualify_model_wait_floor(const QualifyModel *q, const CliffResult *c)
{
	/* half a rewrite: a write that waited for one took at least that;
	 * never under ten fast writes' time */
	double fast = isfinite(c->fast_lat) ? 10 * c->fast_lat : 0.001;
	return isfinite(q->m.rewrite_seconds) ? fmax(0.5 * q->m.rewrite_seconds, fast) : fmax(c->stall_floor, fast);
}

void wait_scan_init(WaitScan *w, double floor, double window, unsigned max_fast)
{
	*w = (WaitScan){.floor = floor, .window = window, .max_fast = max_fast};
}

/* The share of a candidate's window that other waits must cover for it to
 * be the threshold at once, whatever the fast writes between them: a drive
 * with hysteresis waits a few band rewrites, then takes a burst fast,
 * which the count alone would call a hiccup. A hiccup is one wait;
 * another in the same window covers little of it. */
#define WAIT_COVER 0.25

static void wait_scan_cover(WaitScan *w, const IoRec *x)
{
	double from = fmax(fmax((double)x->t, w->cand_done), w->cover_end);
	double to = fmin(x->t + x->lat, w->cand_done + w->window);
	if (to > from)
		w->cover += to - from;
	w->cover_end = fmax(w->cover_end, to);
}

/* Fast writes sent after r[at] that completed before it (at queue depth
 * above 1): they count as run after it. A write held up by a band
 * rewrite the drive had begun, while the cache takes the others at its
 * fast rate, is overtaken by hundreds; one that met a full cache by no
 * more than the room its wait made. */
static unsigned overtaken(const WaitScan *w, const IoRec *r, size_t at)
{
	unsigned n = 0;
	double sent = r[at].t;
	for (size_t i = at; i-- > 0 && r[i].t + r[i].lat > sent;)
		n += r[i].t > sent && r[i].lat < w->floor;
	return n;
}

static void wait_scan_seat(WaitScan *w, const IoRec *r)
{
	const IoRec *x = &r[w->seen];
	unsigned ahead = overtaken(w, r, w->seen);
	*w = (WaitScan){.floor = w->floor, .window = w->window, .max_fast = w->max_fast, .seen = w->seen,
			.cand = w->seen, .candidate = true, .cand_sent = x->t, .cand_done = x->t + x->lat,
			.cover_end = x->t + x->lat, .fast_run = ahead, .last_done = x->t + x->lat,
			.any_fast = w->any_fast, .at_start = !w->any_fast && ahead == 0};
}

/* Waits that end within this share of the wait floor of each other ended
 * with one band rewrite: the writes queued behind the one that met it (at
 * queue depth 4, four of them), one event. */
#define SAME_REWRITE 0.05

/* A run of fast writes before a wait, and the most between the waits on
 * one side of it: long enough, and many times longer, to say that the
 * waits before it were no threshold (a write that met a band rewrite the
 * drive had begun in the rest, or its own flush). A cache that ran out
 * lets a like number of writes through between its waits from the first
 * one on (the emulator's mixed shape with 8 MiB bands: ~280 a wait). */
#define LONE_RUN 8
#define LONE_RATIO 3

static bool long_run(unsigned run, unsigned others)
{
	return run >= LONE_RUN && run > LONE_RATIO * (others ? others : 1);
}

static unsigned max_run(const WaitScan *w, unsigned from, unsigned to)
{
	unsigned m = 0;
	for (unsigned j = from; j < to; j++)
		m = w->ev_run[j] > m ? w->ev_run[j] : m;
	return m;
}

/* Where the threshold is, once the waits confirm one: the candidate, or
 * the last wait after a long run that is followed by shorter ones. False
 * while the newest wait came after a run longer than all before it (a
 * threshold, maybe, that only the waits after it can tell from a lone
 * one; or a cache of a few large bands, which lets as many writes through
 * after each wait: the emulator's 32 MiB bands in a 32 MiB cache, ~900):
 * then the next wait decides, or the window's end. */
static bool wait_scan_settle(WaitScan *w, bool at_end)
{
	unsigned n = w->n_ev;
	if (!at_end && n >= 1 && long_run(w->ev_run[n - 1], max_run(w, 0, n - 1)))
		return false;
	/* Waits from the first write on: a drive still cleaning down to its
	 * low water mark after a rest too short to let it get there, or one
	 * at its threshold from the start. Only a run of fast writes and the
	 * waits after it tell the first from the second; the window's end
	 * without one says the second. */
	if (!at_end && w->at_start && !long_run(max_run(w, 0, n), 0))
		return false;
	for (unsigned j = n >= 2 ? n - 1 : 0; j-- > 0;)
		if (long_run(w->ev_run[j], max_run(w, j + 1, n))) {
			w->cand_sent = w->ev_sent[j];
			break;
		}
	return w->confirmed = true;
}

bool wait_scan_feed(WaitScan *w, const IoRec *r, size_t n, double elapsed)
{
	if (w->confirmed)
		return true;
	for (; w->seen < n; w->seen++) {
		const IoRec *x = &r[w->seen];
		if (!w->candidate) {
			if (x->lat >= w->floor)
				wait_scan_seat(w, r);
			else
				w->any_fast = true;
			continue;
		}
		double done = x->t + x->lat;
		if (done <= w->cand_done || done > w->cand_done + w->window)
			continue;
		if (x->lat >= w->floor) {
			/* Lone waits, a long run of fast writes, then the
			 * threshold: wait_scan_settle() takes the threshold (draw
			 * 3 of seed 248384215 at queue depth 4: two lone waits,
			 * 538 fast writes, then the threshold, which confirmed the
			 * first and cut the refill's bytes short). */
			bool same = done - w->last_done < SAME_REWRITE * w->floor;
			w->last_done = fmax(w->last_done, done);
			if (!same && w->n_ev < WAIT_EVENTS) {
				w->ev_sent[w->n_ev] = x->t;
				w->ev_run[w->n_ev++] = w->fast_run;
				w->fast_run = 0;
			}
			wait_scan_cover(w, x);
			if (w->cover >= WAIT_COVER * w->window && wait_scan_settle(w, false))
				return true;	/* waits, whatever comes between them */
		} else {
			if (++w->fast_run > w->max_fast) {
				/* fast again before the waits went on: a hiccup;
				 * look again from the write after it */
				w->candidate = false;
				w->seen = w->cand;
			}
		}
	}
	if (!w->candidate || elapsed < w->cand_done + w->window)
		return false;
	return wait_scan_settle(w, true);
}

double qualify_model_wait_window(const QualifyModel *q)
{
	return isfinite(q->m.rewrite_seconds) ? fmax(2, 3 * q->m.rewrite_seconds) : 2;
}

unsigned qualify_model_max_fast(const QualifyModel *q, double window, uint64_t bs)
{
	/* a fifth: a host that is itself busy may not write at the fast rate
	 * again at once; a cache that ran out falls further (20-1000x) */
	double n = isfinite(q->fast_bps) && bs ? q->fast_bps / (double)bs * window / 5 : 0;
	return (unsigned)fmax(10, fmin(n, 1e9));
}

double qualify_refill_bytes(const IoRec *r, size_t n, uint64_t bs, double sent)
{
	size_t before = 0;
	for (size_t i = 0; i < n; i++)
		before += r[i].t < sent;
	return (double)before * (double)bs;
}

void qualify_model_curve(QualifyModel *q, const Refill *r, unsigned n, unsigned qd, uint64_t bs)
{
	/* each refill starts and ends at the threshold, each end known to a
	 * queue's worth of writes */
	double err = 2.0 * (double)((qd ? qd : 1) + 1) * (double)bs;
	const Refill *last = NULL;
	q->n_curve = 0;
	for (unsigned i = 0; i < n && q->n_curve < IDLE_POINTS_MAX; i++) {
		if (!(r[i].rest > 0))
			continue;
		q->curve[q->n_curve++] = (IdlePoint){.rest = r[i].rest, .bytes = r[i].bytes, .err = err,
						     .at_least = !r[i].waited};
		if (!last || r[i].rest >= last->rest)
			last = &r[i];
	}
	if (!last || !(last->bytes > err))
		return qualify_model_skip(q, "idle recovery: the longest rest gave back nothing a refill could tell "
					     "(a drive that cleans only after a long idle, or not at all)");
	/* the average over the longest rest: what one rest of that length is worth */
	q->m.idle_recovery_bps = last->bytes / last->rest;
	q->m.recovery_rest = last->rest;
	q->m.recovery_samples = q->n_curve;
	q->recovery_err = err / last->rest;
	q->recovery_lower_bound = !last->waited;
	idle_fit(q->curve, q->n_curve, q->m.media_cache_bytes, &q->m.curve);
}

const char *qualify_model_meaning(const QualifyModel *q, char *buf, size_t n)
{
	const DiskModel *m = &q->m;
	char c[FORMAT_MAX], s[FORMAT_MAX], w[FORMAT_MAX], rec[FORMAT_MAX], slow[FORMAT_MAX], fast[FORMAT_MAX],
		seq[FORMAT_MAX];
	if (!isfinite(m->media_cache_bytes) || !isfinite(m->slow_write_bps)) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	int k = snprintf(buf, n, "after ~%s of random writes this disk sustains ~%s", format_size(c, m->media_cache_bytes),
			 format_rate(s, m->slow_write_bps));
	if (isfinite(m->rewrite_seconds) && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, " with ~%s waits", format_duration(w, m->rewrite_seconds));
	if (isfinite(m->idle_recovery_bps) && k >= 0 && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, "; idle time gives back %s%s", q->recovery_lower_bound ? "at least " : "~",
			      format_rate(rec, m->idle_recovery_bps));
	double t_random = disk_model_write_seconds(m, RESILVER_BYTES, q->fast_bps);
	if (!(k >= 0 && (size_t)k < n))
		return buf;
	if (isfinite(q->seq_bps) && q->seq_bps > 0)
		k += snprintf(buf + k, n - (size_t)k, "; a rebuild writing 1 TB in order in large writes would take ~%s at "
			      "the %s they ran at past the cache", format_duration(fast, RESILVER_BYTES / q->seq_bps),
			      format_rate(seq, q->seq_bps));
	else
		k += snprintf(buf + k, n - (size_t)k, "; a rebuild's rate (large writes in order past the cache) was not "
			      "measured (--seq-seconds)");
	if (isfinite(t_random) && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, " (1 TB of random blocks at the rate above: ~%s)",
			 format_duration(slow, t_random));
	return buf;
}
