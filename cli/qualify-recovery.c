/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's writes after the checks, on whatever disk the Engine drives
 * (the real one, or a model in a test's virtual time): every rest and
 * every elapsed time is the engine's clock's.
 */
#include "qualify-recovery.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>

#include "format.h"
#include "qualify-report.h"
#include "util.h"

#define GiB (1024.0 * 1024 * 1024)
#define SEQ_BLOCK (1u << 20)

uint64_t qualify_write_budget(const Opts *o, uint64_t size)
{
	uint64_t budget = o->budget;
	if (!budget)
		budget = (uint64_t)fmin(fmax((double)size * 0.002, 4 * GiB), 64 * GiB);
	return budget > size ? size : budget;
}

typedef struct WriteStop {
	uint64_t budget;
	CliffScan *scan;		/* the cliff so far, fed as the writes complete */
	double hold, last_check;
	int error;
} WriteStop;

/* Stop once the rate has fallen and stayed down for --hold seconds, or at
 * the budget. */
static bool write_stop(Phase *p, double elapsed, void *userdata)
{
	WriteStop *w = userdata;
	if (p->bytes >= w->budget) {
		p->stopped = "write budget";
		return true;
	}
	if ((w->error = cliff_scan_feed(w->scan, p->rec, p->n)) < 0) {
		p->stopped = "out of memory";
		return true;
	}
	if (elapsed - w->last_check < 1 && elapsed >= w->last_check)
		return false;
	w->last_check = elapsed;
	CliffResult c;
	if ((w->error = cliff_scan_fall(w->scan, p->rec, p->n, elapsed, &c)) < 0) {
		p->stopped = "out of memory";
		return true;
	}
	if (c.fell && elapsed - c.cliff_t >= w->hold) {
		p->stopped = c.found ? "cliff seen" : "write rate fell";
		return true;
	}
	return false;
}

int qualify_write_run(Engine *e, Phase *p, const Opts *o, uint64_t size, uint64_t budget,
		      const volatile sig_atomic_t *interrupt, bool live, CliffResult *ret_cliff)
{
	_cleanup_(cliff_scan_freep) CliffScan *scan = NULL;
	WriteStop ws = {.budget = budget, .hold = o->hold};
	CliffRules rules;
	cliff_rules_init(&rules, o->iodepth, o->confirm_s);
	*p = (Phase){.name = "write", .write = true, .io_bytes = o->bs};
	int k = cliff_scan_new(&rules, &scan);
	if (k < 0)
		return k;
	ws.scan = scan;
	k = engine_run(e, p, size, o->time_limit, write_stop, &ws, interrupt, live);
	/* the whole run once more: the cliff with every figure of it */
	cliff_find(p->rec, p->n, p->duration, &rules, ret_cliff);
	return k < 0 ? k : ws.error;
}

static bool seq_stop(Phase *p, double elapsed, void *userdata)
{
	(void)elapsed;
	if (p->bytes < *(const uint64_t *)userdata)
		return false;
	p->stopped = "write budget";
	return true;
}

int qualify_seq_run(Engine *e, Phase *p, const Opts *o, uint64_t size, uint64_t left,
		    const volatile sig_atomic_t *interrupt, bool live)
{
	*p = (Phase){.name = "sequential", .write = true, .sequential = true, .io_bytes = SEQ_BLOCK};
	if (left < SEQ_BLOCK)
		return -ENOSPC;
	return engine_run(e, p, size, o->seq_seconds, seq_stop, &left, interrupt, live);
}

/* A progress line, in text mode (out set) only. */
static void say(const Recovery *r, const char *fmt, ...) _printf_(2, 3);
static void say(const Recovery *r, const char *fmt, ...)
{
	if (!r->out)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
}

void recovery_done(Recovery *r)
{
	for (unsigned i = 0; i < MAX_REFILLS; i++)
		phase_free(&r->fp[i]);
}

typedef struct RefillStop {
	WaitScan scan;
	double cap;
	bool waited;
} RefillStop;

/* Stop at the first write that waited and was no hiccup, or once it took
 * more than the cache (it was clean). */
static bool refill_stop(Phase *p, double elapsed, void *userdata)
{
	RefillStop *s = userdata;
	if (wait_scan_feed(&s->scan, p->rec, p->n, elapsed)) {
		p->stopped = "a write waited";
		s->waited = true;
		return true;
	}
	if ((double)p->bytes >= s->cap) {
		p->stopped = "took more than the cache";
		return true;
	}
	return false;
}

static int refill(Recovery *r, Engine *e, double rest, double limit, unsigned *ret)
{
	char b[FORMAT_MAX];
	if (r->n_fp == MAX_REFILLS)
		return -E2BIG;
	unsigned i = *ret = r->n_fp++;
	if (rest > 0) {
		say(r, "resting %.0f s, then writing until a write waits\n", rest);
		engine_rest(e, rest, r->interrupt);
	}
	if (*r->interrupt)
		return -EINTR;
	RefillStop st = {.cap = 1.5 * r->model->m.media_cache_bytes + (double)(r->o->iodepth * r->o->bs)};
	double window = qualify_model_wait_window(r->model);
	wait_scan_init(&st.scan, qualify_model_wait_floor(r->model, r->cliff), window,
		       qualify_model_max_fast(r->model, window, r->o->bs));
	r->fp[i] = (Phase){.name = i ? "refill after a rest" : "refill", .write = true, .io_bytes = r->o->bs};
	int k = engine_run(e, &r->fp[i], r->size, limit, refill_stop, &st, r->interrupt,
			   r->live);
	if (k < 0)
		return k;
	if (r->fp[i].error[0])
		return -EIO;
	/* a phase cut short by the time limit with a wait pending: that wait */
	bool waited = st.waited || st.scan.candidate;
	unsigned slow = 0;
	for (size_t j = 0; j < r->fp[i].n; j++)
		slow += r->fp[i].rec[j].lat >= st.scan.floor;
	/* stopped by the cap after waits none of which held: no threshold */
	bool muddled = !st.waited && slow > 0 && (double)r->fp[i].bytes >= st.cap;
	r->refill[i] = (Refill){.rest = rest, .waited = waited, .muddled = muddled,
				.bytes = qualify_refill_bytes(r->fp[i].rec, r->fp[i].n, r->o->bs,
							      waited ? st.scan.cand_sent : INFINITY)};
	if (i)
		say(r, "  took %s %s\n", format_size(b, r->refill[i].bytes),
			waited ? "before a write waited" : "without a wait: the rest cleaned it all");
	return 0;
}

/* A refill that took next to nothing: the disk still made the first
 * writes wait, its forced cleaning still running (a drive's hysteresis:
 * it cleans down to a low water mark before it takes writes fast again). */
static bool took_nothing(const Recovery *r, unsigned i)
{
	return r->refill[i].waited && r->refill[i].bytes <= (double)((r->o->iodepth + 1) * r->o->bs);
}

/* To the wait threshold: writes until one waits, and while the disk
 * still makes the first ones wait, a rest and writes again, each rest
 * twice the last. Only a refill that took something ended at the
 * threshold; a timed rest must start there. Returns the last rest, or
 * -1 when even `max` was not enough. */
static double to_threshold(Recovery *r, Engine *e, double limit, double max)
{
	unsigned k;
	for (double rest = 0;; rest = rest ? 2 * rest : 1) {
		if (rest > max || refill(r, e, rest, limit, &k) < 0)
			return -1;
		if (!took_nothing(r, k))
			return rest;
	}
}

#define MUDDLED                                                                                                 \
	"idle recovery: a refill ran past the media cache with writes waiting now and then but none for long, so " \
	"where it is full could not be told (a drive that cleans as it takes writes)"

/* Bytes the refills so far wrote. */
static double refilled(const Recovery *r)
{
	double b = 0;
	for (unsigned i = 0; i < r->n_fp; i++)
		b += (double)r->fp[i].bytes;
	return b;
}

/* Whether another rest of `rest` and its refill fit in what is left of
 * the time limit and the write budget; else says which stopped it. */
static bool room_for(const Recovery *r, Engine *e, double t0, double rest, double refill_s, const char **why)
{
	if (engine_now(e) - t0 + rest + refill_s > r->time_left) {
		*why = "idle recovery: the time limit (--time-limit) ended the rests before --recovery-rest";
		return false;
	}
	if (r->bytes_left - refilled(r) < 1.5 * r->model->m.media_cache_bytes) {
		*why = "idle recovery: the write budget (--write-budget) ended the rests before --recovery-rest";
		return false;
	}
	return true;
}

static void report_refills(const Recovery *r, const bool *point, json_object *phases)
{
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < r->n_fp; i++) {
		json_object *x = report_refill(&r->fp[i], &r->refill[i]);
		json_object_object_add(x, "used", json_object_new_string(point[i] ? "curve" : "warm-up"));
		json_object_array_add(a, x);
	}
	json_object_object_add(phases, "refills", a);
}

/* Idle recovery: from the wait threshold, rests of growing length (each
 * twice the last, up to --recovery-rest), each followed by writes until
 * one waits, which ends at the threshold again: what each took is the
 * fast space its rest gave back, a point on the curve. Stops early once a
 * rest cleaned it all, or where the time or the write budget left would
 * not cover the next; skipped, with the reason, where they cover no two. */
void recovery_run(Recovery *r, Engine *e, json_object *phases)
{
	QualifyModel *q = r->model;
	if (!isfinite(q->m.media_cache_bytes) || *r->interrupt)
		return;
	double max = r->o->recovery_rest, cache = q->m.media_cache_bytes;
	if (max <= 0)
		return qualify_model_skip(q, "idle recovery: not asked for (--recovery-rest 0)");
	double fill_s = cache / q->fast_bps;	/* one refill from clean */
	double refill_s = 1.5 * fill_s + qualify_model_wait_window(q) + 2;
	double first = fmax(1, fmin(10, max / 16));
	if (r->time_left < 3 * first + 3 * refill_s + 10)
		return qualify_model_skip(q, "idle recovery: the time limit (--time-limit) left too little for two rests and refills");
	if (r->bytes_left < 3 * 1.5 * cache)
		return qualify_model_skip(q, "idle recovery: the write budget (--write-budget) left too little for three refills");
	say(r, "measuring idle recovery: rests from %.0f s growing to %.0f s, each from where writes wait and followed "
	       "by writes until one waits\n", first, max);
	double limit = 1.5 * fill_s * 3 + 30;	/* per refill: a slow disk's refill is no endless write */
	double t0 = engine_now(e);
	double warm = to_threshold(r, e, limit, max / 2);
	if (warm < 0 || *r->interrupt)
		return qualify_model_skip(q, *r->interrupt ? "idle recovery: interrupted"
						     : "idle recovery: the disk still made writes wait after every rest "
						       "that fitted in --recovery-rest (or a refill failed)");
	/* a rest that passes the hysteresis from a lower fill may not from
	 * the threshold: half as long again */
	double rest = fmin(fmax(first, 1.5 * warm), max);
	bool point[MAX_REFILLS] = {false};
	Refill pts[MAX_REFILLS];
	unsigned n = 0, k;
	const char *why = NULL;
	while (room_for(r, e, t0, rest, refill_s, &why)) {
		if (refill(r, e, rest, limit, &k) < 0)
			return qualify_model_skip(q, *r->interrupt ? "idle recovery: interrupted" : "idle recovery: a refill failed");
		if (r->refill[k].muddled)
			return qualify_model_skip(q, MUDDLED);
		if (took_nothing(r, k)) {
			/* still cleaning down to its low water mark when the writes
			 * resumed (a rest after a refill that ended deeper in its
			 * forced cleaning than the one before): no point */
			say(r, "  it is still cleaning: resting longer\n");
			rest = fmin(2 * rest, max);
			if (rest >= max && r->refill[k].rest >= max)
				break;
			continue;
		}
		point[k] = true;
		pts[n++] = r->refill[k];
		/* a rest that cleaned it all: a longer one gives nothing new */
		if (!r->refill[k].waited || r->refill[k].bytes >= 0.9 * cache || rest >= max)
			break;
		rest = fmin(2 * rest, max);
	}
	if (why)
		qualify_model_skip(q, why);
	if (n == 0)
		return qualify_model_skip(q, "idle recovery: no rest that fitted in --recovery-rest gave anything back");
	qualify_model_curve(q, pts, n, r->o->iodepth, r->o->bs);
	report_refills(r, point, phases);
}
