/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The slots behind replay.h: one sweep over issue and completion times in
 * order builds them; a replay sums them into intervals, so that hours of
 * traffic replay in a second.
 */
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "trace-abi.h"
#include "util.h"

static const char OPS[] = "RWDF";

typedef struct Edge {
	double t;
	int64_t io;		/* index; completion when negative: -(index + 1) */
} Edge;

static int cmp_edge(const void *a, const void *b)
{
	const Edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->io < 0) - (y->io < 0);	/* an issue before a completion at the same time */
}

void replay_trace_free(ReplayTrace *t)
{
	free(t->slot);
	free(t->bucket);
	free(t->slow);
	*t = (ReplayTrace){0};
}

static size_t slot_of(const ReplayTrace *t, double at)
{
	double k = floor((at - t->t0) / REPLAY_SLOT + 1e-9);
	return k < 0 ? 0 : (size_t)k;
}

static int add_bucket(ReplayTrace *t, size_t *cap, uint8_t op, uint8_t bucket, uint32_t count)
{
	if (t->n_buckets == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		ReplayBucket *n = realloc(t->bucket, ncap * sizeof *n);
		if (!n)
			return -ENOMEM;
		t->bucket = n;
		*cap = ncap;
	}
	t->bucket[t->n_buckets++] = (ReplayBucket){op, bucket, count};
	return 0;
}

/* Closes slot k: its histograms into the pool. */
static int close_slot(ReplayTrace *t, size_t k, Hist h[2], size_t *cap)
{
	ReplaySlot *s = &t->slot[k];
	s->first = (uint32_t)t->n_buckets;
	for (int op = 0; op < 2; op++) {
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			if (h[op].bucket[b] && add_bucket(t, cap, (uint8_t)op, (uint8_t)b, (uint32_t)h[op].bucket[b]) < 0)
				return -ENOMEM;
		h[op] = (Hist){0};
	}
	s->count = (uint32_t)(t->n_buckets - s->first);
	return 0;
}

int replay_trace_from_io(const ReplayIo *io, size_t n, ReplayTrace *ret)
{
	ReplayTrace t = {0};
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++)
		lo = fmin(lo, io[i].submit), hi = fmax(hi, io[i].done);
	if (!n)
		lo = hi = 0;
	t.t0 = floor(lo);
	t.ios = n;
	t.n_slots = slot_of(&t, hi) + 1;
	t.slot = calloc(t.n_slots, sizeof *t.slot);
	Edge *e = malloc((2 * n + 1) * sizeof *e);
	size_t n_slow = 0;
	for (size_t i = 0; i < n; i++)
		n_slow += io[i].done - io[i].submit >= REPLAY_KEEP;
	t.slow = malloc((n_slow + 1) * sizeof *t.slow);
	if (!t.slot || !e || !t.slow) {
		free(e);
		replay_trace_free(&t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		e[2 * i] = (Edge){io[i].submit, (int64_t)i};
		e[2 * i + 1] = (Edge){io[i].done, -(int64_t)i - 1};
	}
	qsort(e, 2 * n, sizeof *e, cmp_edge);

	Hist h[2];
	memset(h, 0, sizeof h);
	size_t cap = 0, k = 0;
	unsigned inflight = 0;
	double from = t.t0, busy = 0;	/* busy time of slot k, counted up to `from` */
	struct trace_still still = {0};
	int r = 0;
	for (size_t i = 0; r >= 0 && i <= 2 * n; i++) {
		/* close every slot that ends before the next edge (or all at the end) */
		size_t until = i < 2 * n ? slot_of(&t, e[i].t) : t.n_slots;
		for (; r >= 0 && k < until; k++) {
			double end = t.t0 + (double)(k + 1) * REPLAY_SLOT;
			if (inflight)
				busy += end - from;
			t.slot[k].busy_us = (uint32_t)llround(busy * 1e6);
			busy = 0;
			from = end;
			t.slot[k].in_flight = inflight;
			r = close_slot(&t, k, h, &cap);
		}
		if (i == 2 * n || r < 0)
			break;
		if (inflight)
			busy += e[i].t - from;
		from = e[i].t;
		if (e[i].io >= 0) {
			inflight++;
			continue;
		}
		inflight--;
		const ReplayIo *x = &io[-e[i].io - 1];
		double lat = x->done - x->submit;
		/* still_ns as the tracer gives it, with the daemon's slow threshold */
		uint64_t done_ns = (uint64_t)llround((x->done - t.t0 + 1) * 1e9), lat_ns = (uint64_t)llround(lat * 1e9);
		struct trace_still before = still;
		trace_still_done(&still, done_ns, REPLAY_STILL_GAP_NS);
		if (lat >= REPLAY_KEEP) {
			t.slow[t.n_slow] = *x;
			t.slow[t.n_slow++].still = (double)trace_still_of(&before, done_ns, lat_ns) / 1e9;
		}
		ReplaySlot *s = &t.slot[k];
		s->n[x->op]++;
		s->bytes[x->op] += x->bytes;
		s->lat[x->op] += lat;
		if (x->op < 2)
			hist_add(&h[x->op], (uint64_t)(lat * 1e9));
	}
	free(e);
	if (r < 0) {
		replay_trace_free(&t);
		return r;
	}
	*ret = t;
	return 0;
}

typedef struct Run {
	DetectEmit emit;
	void *userdata;
	double *now_out;
	ReplayResult *res;
	double now;
} Run;

static void on_event(const DetectEvent *e, void *userdata)
{
	Run *r = userdata;
	if ((unsigned)e->kind < _EVENT_KIND_MAX)
		r->res->events[e->kind]++;
	if (e->kind == EVENT_STORM_START && isnan(r->res->first_storm))
		r->res->first_storm = r->now;
	if (r->now_out)
		*r->now_out = r->now;
	if (r->emit)
		r->emit(e, r->userdata);
}

/* The daemon's clock: the trace's, shifted so that no time is near zero. */
#define CLOCK_BASE REPLAY_CLOCK_BASE

int replay_detect(const ReplayTrace *t, const DetectParams *p, const ReplayOptions *o, DetectEmit emit,
		  void *userdata, double *now_out, ReplayResult *ret)
{
	*ret = (ReplayResult){.first_storm = NAN, .seconds = (double)t->n_slots * REPLAY_SLOT};
	DiskDetect d;
	detect_init(&d);
	LatWindow win[2];
	lat_window_init(&win[0]);
	lat_window_init(&win[1]);
	Run run = {.emit = emit, .userdata = userdata, .now_out = now_out, .res = ret};
	const size_t per = (size_t)llround(1 / REPLAY_SLOT);
	size_t phase = (size_t)llround(o->phase / REPLAY_SLOT) % per, slow = 0;
	size_t tail = (size_t)llround(fmax(o->tail, 0) / REPLAY_SLOT);
	double threshold = o->slow > 0 ? o->slow : 0.1;
	/* interval j covers slots [phase + (j - 1) * per, phase + j * per) */
	for (size_t end = phase; end < t->n_slots + tail + per; end += per) {
		size_t begin = end >= per ? end - per : 0;
		Hist h[2];
	memset(h, 0, sizeof h);
		double busy = 0;
		DetectSample s = {.now = CLOCK_BASE + t->t0 + (double)end * REPLAY_SLOT, .dt = 1, .read_max = NAN,
				  .write_max = NAN};
		run.now = t->t0 + (double)end * REPLAY_SLOT;
		for (size_t k = begin; k < end && k < t->n_slots; k++) {
			const ReplaySlot *x = &t->slot[k];
			busy += x->busy_us / 1e6;
			s.reads += x->n[TRACE_READ], s.writes += x->n[TRACE_WRITE];
			s.discards += x->n[TRACE_DISCARD], s.flushes += x->n[TRACE_FLUSH];
			s.read_bytes += x->bytes[TRACE_READ], s.write_bytes += x->bytes[TRACE_WRITE];
			s.read_time += x->lat[TRACE_READ], s.write_time += x->lat[TRACE_WRITE];
			s.discard_time += x->lat[TRACE_DISCARD], s.flush_time += x->lat[TRACE_FLUSH];
			for (int op = 0; op < TRACE_OPS; op++)
				s.queue += x->lat[op];
			for (uint32_t b = 0; b < x->count; b++) {
				const ReplayBucket *c = &t->bucket[x->first + b];
				h[c->op].bucket[c->bucket] += c->count;
				h[c->op].count += c->count;
			}
		}
		s.in_flight = end > 0 && end - 1 < t->n_slots ? t->slot[end - 1].in_flight : 0;
		s.wall = o->wall0 > 0 ? o->wall0 + run.now : 0;
		s.smr_static = o->smr_static;
		s.busy = fmin(busy, 1);
		/* the tracer hands slow I/Os over as they complete */
		for (; slow < t->n_slow && slot_of(t, t->slow[slow].done) < end; slow++) {
			const ReplayIo *x = &t->slow[slow];
			double lat = x->done - x->submit;
			if (!o->untraced && lat >= threshold)
				detect_slow_io(&d, p, "replay", detect_stall_threshold(p, NULL),
					       &(DetectSlowIo){.op = x->op, .latency = lat, .still = x->still,
							       .bytes = x->bytes, .done = CLOCK_BASE + x->done},
					       0, on_event, &run);
		}
		Hist sums[2];
		for (int op = 0; op < 2; op++) {
			lat_window_push(&win[op], &h[op], 1);
			if (o->untraced)
				continue;
			s.interval[op] = &h[op];
			if (op == TRACE_READ)
				s.read_max = h[op].count ? hist_max(&h[op]) : NAN;
			else
				s.write_max = h[op].count ? hist_max(&h[op]) : NAN;
			if (s.now >= d.bands.next) {
				lat_window_sum(&win[op], p->band_window, &sums[op]);
				s.window[op] = &sums[op];
			}
		}
		detect_interval(&d, p, &s, o->reclassify, on_event, &run);
		DetectScore sc;
		detect_score(&d, p, s.now, &sc);
		ret->max_score = fmax(ret->max_score, sc.score);
		ret->forecasts += isfinite(d.forecast);
		ret->cache_known |= disk_model_known(&d.cache.model);
		ret->cache_bytes = d.cache.model.media_cache_bytes;
		if (o->after)
			o->after(&s, &d, userdata);
	}
	lat_window_free(&win[0]);
	lat_window_free(&win[1]);
	detect_done(&d);
	return 0;
}

int replay_trace_write(const ReplayTrace *t, FILE *f)
{
	for (size_t k = 0; k < t->n_slots; k++) {
		const ReplaySlot *x = &t->slot[k];
		bool any = x->busy_us || x->in_flight;
		for (int op = 0; op < TRACE_OPS; op++)
			any |= x->n[op] > 0;
		if (!any)
			continue;
		fprintf(f, "S %zu %u %u", k, x->busy_us, x->in_flight);
		for (int op = 0; op < TRACE_OPS; op++) {
			if (!x->n[op])
				continue;
			fprintf(f, " %c:%u:%.0f:%.0f", OPS[op], x->n[op], x->bytes[op] / 512, x->lat[op] * 1e6);
			const char *sep = ":";
			for (uint32_t b = 0; b < x->count; b++)
				if (t->bucket[x->first + b].op == op) {
					fprintf(f, "%s%u=%u", sep, t->bucket[x->first + b].bucket, t->bucket[x->first + b].count);
					sep = ",";
				}
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < t->n_slow; i++) {
		const ReplayIo *x = &t->slow[i];
		fprintf(f, "I %.0f %.0f %c %u %.0f\n", (x->submit - t->t0) * 1e6, (x->done - x->submit) * 1e6, OPS[x->op],
			x->bytes / 512, x->still * 1e6);
	}
	return ferror(f) ? -EIO : 0;
}

/* gzip's trailer holds the size mod 2^32: the traces are far below it. */
static int gunzip(const char *in, size_t len, char **ret)
{
	if (len < 18)
		return -EBADMSG;
	uint32_t size = (uint32_t)(uint8_t)in[len - 4] | (uint32_t)(uint8_t)in[len - 3] << 8 |
			(uint32_t)(uint8_t)in[len - 2] << 16 | (uint32_t)(uint8_t)in[len - 1] << 24;
	char *out = malloc((size_t)size + 1);
	struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
	size_t got = 0;
	int r = out && z && libdeflate_gzip_decompress(z, in, len, out, size, &got) == LIBDEFLATE_SUCCESS ? 0 : -EBADMSG;
	if (z)
		libdeflate_free_decompressor(z);
	if (r < 0 || got != size) {
		free(out);
		return r < 0 ? r : -EBADMSG;
	}
	out[size] = 0;
	*ret = out;
	return 0;
}

static int op_of(char c)
{
	const char *w = c ? strchr(OPS, c) : NULL;
	return w ? (int)(w - OPS) : -1;
}

/* "R:N:SECTORS:LAT_US[:B=C,...]" into slot x, its buckets into t's pool. */
static int parse_op(ReplayTrace *t, size_t *cap, ReplaySlot *x, char *tok)
{
	unsigned n;
	double sectors, lat_us;
	int used = 0, op = op_of(tok[0]);
	if (op < 0 || tok[1] != ':' || sscanf(tok + 2, "%u:%lf:%lf%n", &n, &sectors, &lat_us, &used) != 3)
		return -EBADMSG;
	x->n[op] = n;
	x->bytes[op] = sectors * 512;
	x->lat[op] = lat_us / 1e6;
	char *rest = tok + 2 + used;
	if (*rest == ':')
		for (char *save = NULL, *b = strtok_r(rest + 1, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
			unsigned idx, count;
			if (op >= 2 || sscanf(b, "%u=%u", &idx, &count) != 2 || idx >= HIST_BUCKETS)
				return -EBADMSG;
			if (add_bucket(t, cap, (uint8_t)op, (uint8_t)idx, count) < 0)
				return -ENOMEM;
			x->count++;
		}
	return 0;
}

/* A trace recorded before the tracer gave still_ns: the longest run of
 * slots without a completion in the slow I/O's flight, and the time since
 * the last completion before it: the last kept I/O's, the end of the last
 * slot before its own with one, or its own slot's start if others
 * completed in it (a slot's completions are known only to REPLAY_SLOT).
 * Short, never long: a wait is never made up. */
static void guess_still(ReplayTrace *t)
{
	for (size_t i = 0; i < t->n_slow; i++) {
		ReplayIo *x = &t->slow[i];
		if (!isnan(x->still))
			continue;
		/* kept I/Os are in completion order */
		double lat = x->done - x->submit, prev = i > 0 ? t->slow[i - 1].done : -INFINITY;
		size_t k = slot_of(t, x->done), first = slot_of(t, x->submit);
		unsigned in_k = 0;
		for (int op = 0; k < t->n_slots && op < TRACE_OPS; op++)
			in_k += t->slot[k].n[op];
		if (in_k > 1)	/* the others in its own slot may have come first */
			prev = fmax(prev, t->t0 + (double)k * REPLAY_SLOT);
		for (size_t j = k; j-- > first && prev < t->t0 + (double)(j + 1) * REPLAY_SLOT;)
			for (int op = 0; op < TRACE_OPS; op++)
				if (j < t->n_slots && t->slot[j].n[op])
					prev = fmax(prev, t->t0 + (double)(j + 1) * REPLAY_SLOT);
		double gap = 0, run_from = x->submit;
		for (size_t j = first; j < k && j < t->n_slots; j++) {
			bool any = false;
			for (int op = 0; op < TRACE_OPS; op++)
				any |= t->slot[j].n[op] > 0;
			if (any) {
				gap = fmax(gap, t->t0 + (double)j * REPLAY_SLOT - run_from);
				run_from = t->t0 + (double)(j + 1) * REPLAY_SLOT;
			}
		}
		x->still = fmin(lat, fmax(fmax(x->done - prev, gap), 0));
	}
}

static int parse_slots(char *text, ReplayTrace *ret)
{
	ReplayTrace t = {0};
	size_t cap_slots = 0, cap_buckets = 0, cap_slow = 0;
	int r = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); r >= 0 && l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		if (l[0] == 'I') {
			double at, lat, still = NAN;
			char op;
			unsigned sectors;
			int got = sscanf(l, "I %lf %lf %c %u %lf", &at, &lat, &op, &sectors, &still);
			if (got < 4 || op_of(op) < 0) {
				r = -EBADMSG;
				break;
			}
			if (t.n_slow == cap_slow) {
				cap_slow = cap_slow ? cap_slow * 2 : 256;
				ReplayIo *more = realloc(t.slow, cap_slow * sizeof *more);
				if (!more) {
					r = -ENOMEM;
					break;
				}
				t.slow = more;
			}
			t.slow[t.n_slow++] = (ReplayIo){.submit = at / 1e6, .done = (at + lat) / 1e6,
							.still = got == 5 ? still / 1e6 : NAN,
							.bytes = sectors * 512, .op = (uint8_t)op_of(op)};
			continue;
		}
		size_t k;
		unsigned busy, inflight;
		int used = 0;
		if (sscanf(l, "S %zu %u %u%n", &k, &busy, &inflight, &used) != 3 || k > 100000000 || k < t.n_slots) {
			r = -EBADMSG;
			break;
		}
		if (k >= cap_slots) {
			size_t ncap = cap_slots ? cap_slots : 4096;
			while (ncap <= k)
				ncap *= 2;
			ReplaySlot *more = realloc(t.slot, ncap * sizeof *more);
			if (!more) {
				r = -ENOMEM;
				break;
			}
			memset(more + cap_slots, 0, (ncap - cap_slots) * sizeof *more);
			t.slot = more;
			cap_slots = ncap;
		}
		ReplaySlot *x = &t.slot[k];
		*x = (ReplaySlot){.busy_us = busy, .in_flight = inflight, .first = (uint32_t)t.n_buckets};
		t.n_slots = k + 1;
		for (char *s2 = NULL, *tok = strtok_r(l + used, " ", &s2); r >= 0 && tok; tok = strtok_r(NULL, " ", &s2))
			r = parse_op(&t, &cap_buckets, x, tok);
		for (int op = 0; op < TRACE_OPS; op++)
			t.ios += x->n[op];
	}
	if (r < 0) {
		replay_trace_free(&t);
		return r;
	}
	guess_still(&t);
	*ret = t;
	return 0;
}

static int parse_ios(char *text, ReplayTrace *ret)
{
	size_t cap = 4096, n = 0;
	ReplayIo *io = malloc(cap * sizeof *io);
	if (!io)
		return -ENOMEM;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long at, lat, sectors;
		char op;
		if (l[0] == '#')
			continue;
		if (sscanf(l, "%llu %llu %c %llu", &at, &lat, &op, &sectors) != 4 || op_of(op) < 0) {
			free(io);
			return -EBADMSG;
		}
		if (n == cap) {
			ReplayIo *more = realloc(io, (cap *= 2) * sizeof *io);
			if (!more) {
				free(io);
				return -ENOMEM;
			}
			io = more;
		}
		io[n++] = (ReplayIo){.submit = (double)at / 1e6, .done = (double)(at + lat) / 1e6,
				     .bytes = (uint32_t)(sectors * 512), .op = (uint8_t)op_of(op)};
	}
	int r = replay_trace_from_io(io, n, ret);
	free(io);
	return r;
}

int replay_trace_load(const char *path, ReplayTrace *ret)
{
	_cleanup_free_ char *raw = NULL, *text = NULL;
	size_t len;
	int r = read_file_at(AT_FDCWD, path, 512 << 20, &raw, &len);
	if (r < 0)
		return r;
	if (len >= 2 && (uint8_t)raw[0] == 0x1f && (uint8_t)raw[1] == 0x8b) {
		if ((r = gunzip(raw, len, &text)) < 0)
			return r;
	} else {
		text = TAKE_PTR(raw);
	}
	const char *first = text;
	while (*first == '#') {
		first = strchr(first, '\n');
		first = first ? first + 1 : "";
	}
	return *first == 'S' || *first == 'I' ? parse_slots(text, ret) : parse_ios(text, ret);
}
