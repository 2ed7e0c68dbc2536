/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The behaviour corpus in virtual time: each case drawn by tests/emu/corpus.py
 * (the same emulator options the live smr-emu gets) runs its fio workload
 * against the emulator's pure model (tests/emu/smr-emu.c, model half), and
 * the I/Os go through the daemon's detector and qualify's analysis as in
 * test-traces. What 55-corpus judges on the wall clock of a loaded host is
 * judged here in model time, deterministically, on fixed seeds
 * (tests/seeds/corpus.txt). The 'fs' shape needs ext4 and the page cache:
 * 55-corpus keeps it. argv[1]: the cases, `corpus.py draw --format lines`.
 */
#define SMR_EMU_MODEL_ONLY
#include "../emu/smr-emu.c"

#include <fcntl.h>
#include <stdarg.h>

#include "cliff.h"
#include "detect.h"
#include "qualify-model.h"
#include "qualify-verdict.h"
#include "replay.h"
#include "test.h"
#include "trace-abi.h"
#include "util.h"

/* What 55-corpus asserts (tests/emu/corpus.py's cmd_judge). */
#define STORM_DELAY_MAX 5.0
#define SLOW_RECOGNISE_MAX 60.0
#define GC_LOOKALIKE_MAX 0.2
#define FAST_BYTES_TOLERANCE 0.10
#define CACHE_TOLERANCE 0.2
/* corpus.py's timeline: the late smrd starts LATE_START s in, or 6 s into
 * the slow phase if that is later, and the writes go on LATE_WINDOW s after. */
#define LATE_START 12.0
#define LATE_WINDOW 45.0
#define NO_CLIFF_GIVE_UP 300.0	/* seconds of writing without a cliff */
#define START_US 5300000ULL	/* the workload's start, off the sampling grid */
#define GAP_US 80		/* the host's time per I/O: fio, the loop device, FUSE */
#define TRIM_EVERY_US 4000000ULL
#define MAX_QD 64
#define MIB 1048576.0

typedef struct Case {
	char seed[16], name[48], shape[16];
	unsigned qd;
	bool smr;
	uint64_t bs, cliff_bytes, fsync, trim_gib, daemon_bs, fio_seed;
	double fast_seconds;
	EmuParams p;
} Case;

typedef struct Sim {
	const Case *c;
	EmuModel m;
	uint64_t rng;		/* fio's offsets, apart from the model's stream */
	uint64_t host_free;	/* when the submitting thread can issue again */
	ReplayIo *io;		/* every I/O, for the daemon's view */
	size_t n_io, cap_io;
	IoRec *rec;		/* qualify's records, completion order, when keep_rec */
	size_t n_rec, cap_rec;
	bool keep_rec;
	uint64_t rec_t0;
	uint64_t cliff_us;	/* the model's cliff; 0 none */
	double absorbed;	/* bytes the media cache had taken by then */
	uint64_t wait_at;	/* the first write since wait_at was last zeroed that waited for a rewrite */
	uint64_t wait_done;	/* ... and its completion */
	bool failed;		/* out of memory */
} Sim;

typedef struct Load {
	unsigned qd;
	uint64_t bs, span;	/* offsets in [0, span) */
	EmuOp op;
	bool seq;
	uint64_t seq_off;
	uint64_t fsync;		/* a FLUSH after this many writes, the queue drained first */
	uint64_t trim_bytes;	/* a DISCARD of this many every 4 s, from another process */
	uint64_t rate_us;	/* at most one I/O per this long (fio's rate_iops) */
	uint64_t end_us;	/* no submission from then; 0: the corpus timeline decides */
	bool (*stop)(Sim *s, double elapsed, uint64_t bytes, void *userdata);
	void *userdata;
} Load;

typedef struct Slot {
	uint64_t submit, done, bytes;
	bool busy;
} Slot;

static void fail(const Case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const Case *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "FAIL: %s/%s: ", c->seed, c->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A check with the case's name in what it prints. */
#define EXPECT(c, cond, ...) do { test_checks++; if (!(cond)) { test_failures++; fail(c, __VA_ARGS__); } } while (0)

static int parse_kv(Case *c, const char *tok)
{
	unsigned long long v;
	double x;
	char key[32];
	if (sscanf(tok, "%31[^=]=%lf", key, &x) != 2)
		return -EINVAL;
	v = (unsigned long long)x;
	if (streq(key, "qd"))
		c->qd = (unsigned)v;
	else if (streq(key, "bs"))
		c->bs = v;
	else if (streq(key, "smr"))
		c->smr = v;
	else if (streq(key, "cliff_bytes"))
		c->cliff_bytes = v;
	else if (streq(key, "fast_seconds"))
		c->fast_seconds = x;
	else if (streq(key, "fsync"))
		c->fsync = v;
	else if (streq(key, "trim_gib"))
		c->trim_gib = v;
	else if (streq(key, "daemon_bs"))
		c->daemon_bs = v;
	else if (streq(key, "fio_seed"))
		c->fio_seed = v;
	return 0;
}

/* "SEED NAME SHAPE k=v... : --model KIND --opt value..." */
static int parse_case(char *line, Case *c)
{
	*c = (Case){0};
	char *colon = strstr(line, " : ");
	if (!colon)
		return -EINVAL;
	*colon = 0;
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	for (int i = 0; tok; tok = strtok_r(NULL, " ", &save), i++) {
		int r = i == 0 ? snprintf(c->seed, sizeof c->seed, "%s", tok)
			: i == 1 ? snprintf(c->name, sizeof c->name, "%s", tok)
			: i == 2 ? snprintf(c->shape, sizeof c->shape, "%s", tok) : parse_kv(c, tok);
		if (r < 0)
			return r;
	}
	char *argv[64] = {"virtual"};
	int argc = 1;
	for (tok = strtok_r(colon + 3, " ", &save); tok && argc < 64; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	if (emu_parse_model(argc, argv, &c->p) < 0)
		return -EINVAL;
	return c->qd && c->qd <= MAX_QD && c->bs && c->shape[0] ? 0 : -EINVAL;
}

static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 65536;
	void *more = realloc(*v, ncap * size);
	if (!more)
		return false;
	*v = more;
	*cap = ncap;
	return true;
}

static void sim_done(Sim *s)
{
	emu_done(&s->m);
	free(s->io);
	free(s->rec);
}

static int sim_init(Sim *s, const Case *c, uint64_t seed)
{
	*s = (Sim){.c = c, .rng = seed * 0x9e3779b97f4a7c15ULL + 7};
	return emu_init(&s->m, &c->p) < 0 ? -EINVAL : 0;
}

static uint64_t sim_rand(Sim *s, uint64_t n)
{
	s->rng = s->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return n ? (s->rng >> 11) % n : 0;
}

static void record(Sim *s, uint64_t submit, uint64_t done, uint64_t bytes, EmuOp op)
{
	static const uint8_t ops[] = {[EMU_READ] = TRACE_READ, [EMU_WRITE] = TRACE_WRITE,
				      [EMU_DISCARD] = TRACE_DISCARD, [EMU_FLUSH] = TRACE_FLUSH};
	if (!grow((void **)&s->io, s->n_io, &s->cap_io, sizeof *s->io)) {
		s->failed = true;
		return;
	}
	s->io[s->n_io++] = (ReplayIo){.submit = submit / 1e6, .done = done / 1e6,
				      .bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes, .op = ops[op]};
	if (!s->keep_rec || op != EMU_WRITE)
		return;
	if (!grow((void **)&s->rec, s->n_rec, &s->cap_rec, sizeof *s->rec)) {
		s->failed = true;
		return;
	}
	s->rec[s->n_rec++] = (IoRec){.t = (submit - s->rec_t0) / 1e6, .lat = (float)((done - submit) / 1e6)};
}

/* One request into the model; notes the cliff when the model first says so. */
static uint64_t submit(Sim *s, uint64_t now, EmuOp op, uint64_t off, uint64_t len)
{
	uint64_t waited = s->m.waited;
	uint64_t done = emu_submit(&s->m, now, op, off, len);
	if (s->m.waited > waited && !s->wait_at) {
		s->wait_at = now;
		s->wait_done = done;
	}
	if (!s->cliff_us && s->m.cliff_at) {
		s->cliff_us = s->m.cliff_at;
		s->absorbed = (double)(s->m.fill + s->m.bytes_cleaned);
	}
	return done;
}

/* corpus.py's timeline: the late smrd starts in the slow phase, and the
 * writes go on LATE_WINDOW after it. */
static double late_from(const Sim *s)
{
	double at = START_US / 1e6 + fmax(LATE_START, s->c->smr ? s->c->fast_seconds + 6 : 0);
	if (s->c->smr && s->cliff_us)
		at = fmax(at, s->cliff_us / 1e6 + 6);
	return at;
}

static uint64_t load_end(const Sim *s, const Load *l)
{
	if (l->end_us)
		return l->end_us;
	if (s->c->smr && !s->cliff_us)
		return START_US + (uint64_t)(NO_CLIFF_GIVE_UP * 1e6);
	return (uint64_t)((late_from(s) + LATE_WINDOW) * 1e6);
}

static unsigned earliest(const Slot *slot, unsigned n)
{
	unsigned best = 0;
	for (unsigned i = 1; i < n; i++)
		if (slot[i].done < slot[best].done)
			best = i;
	return best;
}

static void reap(Sim *s, const Load *l, Slot *x)
{
	if (x->busy)
		record(s, x->submit, x->done, x->bytes, l->op);
	x->busy = false;
}

/* Every I/O in flight completes (in completion order); returns the last. */
static uint64_t drain(Sim *s, const Load *l, Slot *slot)
{
	uint64_t last = 0;
	for (unsigned k = 0; k < l->qd; k++) {
		unsigned i = 0;
		for (unsigned j = 0; j < l->qd; j++)
			if (slot[j].busy && (!slot[i].busy || slot[j].done < slot[i].done))
				i = j;
		last = slot[i].done > last ? slot[i].done : last;
		reap(s, l, &slot[i]);
	}
	return last;
}

/* fio's --fsync: the queue drained, then one FLUSH, then on. */
static void flush_after_drain(Sim *s, const Load *l, Slot *slot)
{
	uint64_t t = max_u64(drain(s, l, slot) + GAP_US, s->host_free);
	uint64_t done = submit(s, t, EMU_FLUSH, 0, 0);
	record(s, t, done, 0, EMU_FLUSH);
	s->host_free = t + GAP_US;
	for (unsigned i = 0; i < l->qd; i++)
		slot[i] = (Slot){.done = done};
}

static uint64_t next_offset(Sim *s, const Load *l, uint64_t *seq)
{
	if (!l->seq)
		return sim_rand(s, l->span / l->bs) * l->bs;
	uint64_t off = *seq;
	*seq = *seq + l->bs < l->span ? *seq + l->bs : 0;
	return off;
}

/* A closed loop at the load's queue depth from `start`, as fio runs one:
 * a slot's next I/O goes out when it completes and the host is free.
 * Returns when the last one completed. */
static uint64_t run_load(Sim *s, const Load *l, uint64_t start)
{
	Slot slot[MAX_QD];
	for (unsigned i = 0; i < l->qd; i++)
		slot[i] = (Slot){.done = start};
	uint64_t next_trim = start + TRIM_EVERY_US, next_rate = start, seq = l->seq_off, since_sync = 0, bytes = 0;
	while (!s->failed) {
		Slot *x = &slot[earliest(slot, l->qd)];
		reap(s, l, x);
		uint64_t t = max_u64(max_u64(x->done + GAP_US, s->host_free), next_rate);
		if (t >= load_end(s, l) || (l->stop && l->stop(s, (t - start) / 1e6, bytes, l->userdata)))
			break;
		for (; l->trim_bytes && next_trim <= t; next_trim += TRIM_EVERY_US)
			record(s, next_trim, submit(s, next_trim, EMU_DISCARD, 4ULL << 30, l->trim_bytes), l->trim_bytes,
			       EMU_DISCARD);
		uint64_t off = next_offset(s, l, &seq);
		*x = (Slot){.submit = t, .done = submit(s, t, l->op, off, l->bs), .bytes = l->bs, .busy = true};
		s->host_free = t + GAP_US;
		next_rate = l->rate_us ? t + l->rate_us : 0;
		bytes += l->bs;
		if (l->fsync && ++since_sync == l->fsync) {
			since_sync = 0;
			flush_after_drain(s, l, slot);
		}
	}
	uint64_t last = drain(s, l, slot);
	for (unsigned i = 0; i < l->qd; i++)
		last = max_u64(last, slot[i].done);
	return last;
}

/* corpus.py's workload() for the case's shape, from START_US. */
static void workload(Sim *s)
{
	const Case *c = s->c;
	uint64_t size = c->p.size, t = START_US;
	Load rand = {.qd = c->qd, .bs = c->bs, .span = size, .op = EMU_WRITE};
	if (streq(c->shape, "seqsmall")) {
		/* 1 MiB sequential past several caches (no storm), then small sequential from the middle */
		Load big = {.qd = 1, .bs = 1 << 20, .span = size, .op = EMU_WRITE, .seq = true, .end_us = t + 6000000};
		t = run_load(s, &big, t);
		Load small = {.qd = c->qd, .bs = c->daemon_bs, .span = size, .op = EMU_WRITE, .seq = true,
			      .seq_off = size / 2};
		run_load(s, &small, t);
	} else if (streq(c->shape, "idle")) {
		/* a burst past the cliff, then two 4 KiB reads a second */
		rand.end_us = t + (uint64_t)(fmax(20, c->fast_seconds * 2.5 + 8) * 1e6);
		t = run_load(s, &rand, t);
		Load reads = {.qd = 1, .bs = 4096, .span = size, .op = EMU_READ, .rate_us = 500000, .end_us = t + 25000000};
		run_load(s, &reads, t);
	} else if (streq(c->shape, "slc")) {
		/* random, then 8 s of 1 MiB sequential */
		rand.end_us = (uint64_t)((late_from(s) + LATE_WINDOW - 8) * 1e6);
		t = run_load(s, &rand, t);
		Load seq = {.qd = 1, .bs = 1 << 20, .span = size, .op = EMU_WRITE, .seq = true, .end_us = t + 8000000};
		run_load(s, &seq, t);
	} else {
		rand.fsync = c->fsync;	/* cmr-flush, vdisk */
		if (c->trim_gib) {	/* ssd-trim: writes over the first quarter, discards past it */
			rand.span = size / 4;
			rand.trim_bytes = c->trim_gib << 30;
		}
		run_load(s, &rand, t);
	}
}

typedef struct Seen {
	double delay[4];	/* first storm from the cliff, per sampling phase */
	double gc_max, cache_err, late;
	const char *qualify;
	double fast_err;
} Seen;

static void debug_interval(const DetectSample *x, const DiskDetect *d, void *userdata)
{
	fprintf(stderr, "%s %7.2f writes=%5.0f MB=%6.1f busy=%.2f in_flight=%u max=%.3fs fast_iops=%.0f storm=%d\n",
		(const char *)userdata, x->now - 1000, x->writes, x->write_bytes / 1e6, x->busy, x->in_flight,
		isfinite(x->write_max) ? x->write_max : 0, d->fast.iops, d->storm.active);
}

static int replay_with(const ReplayIo *io, size_t n, double phase, DetectEmit emit,
		       void (*after)(const DetectSample *, const DiskDetect *, void *), void *userdata, double *now_out,
		       ReplayResult *res)
{
	ReplayTrace tr;
	int r = replay_trace_from_io(io, n, &tr);
	if (r < 0)
		return r;
	DetectParams p;
	detect_params_init(&p);
	ReplayOptions o = {.phase = phase, .reclassify = true, .tail = 6, .after = after};
	r = replay_detect(&tr, &p, &o, emit, userdata, now_out, res);
	replay_trace_free(&tr);
	return r;
}

static int replay(const ReplayIo *io, size_t n, double phase, const char *name, ReplayResult *res)
{
	/* VIRTUAL_DEBUG=1: what the detector was given and made of it, per interval */
	return replay_with(io, n, phase, NULL, getenv("VIRTUAL_DEBUG") ? debug_interval : NULL, (void *)name, NULL,
			   res);
}

/* The first smrd, watching from before the writes, at four sampling
 * offsets: the cliff falls anywhere in an interval. */
static void check_first(const Sim *s, Seen *seen)
{
	const Case *c = s->c;
	double cliff = s->cliff_us / 1e6, first_small = NAN;
	for (size_t i = 0; i < s->n_io; i++)	/* large writes go around the cache */
		if (s->io[i].op == TRACE_WRITE && s->io[i].bytes < 262144)
			first_small = fmin(first_small, s->io[i].submit);
	for (int k = 0; k < 4; k++) {
		ReplayResult res;
		int r = replay(s->io, s->n_io, k * 0.25, c->name, &res);
		EXPECT(c, r == 0, "replay: %s", strerror(-r));
		if (r < 0)
			return;
		seen->gc_max = fmax(seen->gc_max, res.max_score);
		seen->delay[k] = res.first_storm - cliff;
		if (!c->smr) {
			EXPECT(c, res.events[EVENT_STORM_START] == 0, "%u storm(s) on a look-alike at +%.2f",
			       res.events[EVENT_STORM_START], k * 0.25);
			EXPECT(c, res.max_score <= GC_LOOKALIKE_MAX, "GC score %.2f on a look-alike at +%.2f", res.max_score,
			       k * 0.25);
			EXPECT(c, !res.cache_known, "a media cache learnt on a look-alike at +%.2f", k * 0.25);
			EXPECT(c, res.forecasts == 0, "a stall forecast on a look-alike at +%.2f", k * 0.25);
			continue;
		}
		EXPECT(c, res.events[EVENT_STORM_START] >= 1, "no storm at +%.2f", k * 0.25);
		EXPECT(c, !(res.first_storm < cliff - 0.5), "a storm %.1f s before the cliff at +%.2f",
		       cliff - res.first_storm, k * 0.25);
		EXPECT(c, !(seen->delay[k] > STORM_DELAY_MAX), "storm %.1f s after the cliff at +%.2f", seen->delay[k],
		       k * 0.25);
		if (streq(c->shape, "idle"))
			EXPECT(c, res.events[EVENT_IDLE_START] >= 1, "no idle cleaning seen at +%.2f", k * 0.25);
		/* within 20%; a cache that fills in under three intervals only to
		 * within one interval's bytes (where in it the cliff fell is unknown) */
		double err = res.cache_bytes / s->absorbed - 1, fill_s = cliff - first_small;
		if (isnan(seen->cache_err) || !(fabs(err) <= fabs(seen->cache_err)))
			seen->cache_err = err;	/* the worst, NaN for none learnt */
		EXPECT(c, fabs(err) <= (fill_s >= 3 ? CACHE_TOLERANCE : CACHE_TOLERANCE + 1 / fill_s),
		       "media cache %.1f MiB learnt against %.1f MiB absorbed at +%.2f", res.cache_bytes / MIB,
		       s->absorbed / MIB, k * 0.25);
	}
}

/* The second smrd, started in the slow phase with no past: it recognises
 * the storm within SLOW_RECOGNISE_MAX of write traffic; on a look-alike it
 * stays as quiet as the first. */
static void check_late(const Sim *s, Seen *seen)
{
	const Case *c = s->c;
	double from = late_from(s);
	size_t n = 0;
	ReplayIo *io = malloc((s->n_io + 1) * sizeof *io);
	if (!io)
		return;
	for (size_t i = 0; i < s->n_io; i++)
		if (s->io[i].submit >= from)
			io[n++] = s->io[i];
	seen->late = NAN;
	for (int k = 0; k < 4; k++) {
		ReplayResult res;
		int r = replay(io, n, k * 0.25, c->name, &res);
		EXPECT(c, r == 0, "replay: %s", strerror(-r));
		if (r < 0)
			break;
		if (c->smr) {
			double late = res.first_storm - from;
			seen->late = isnan(seen->late) || late > seen->late || isnan(late) ? late : seen->late;
			EXPECT(c, res.events[EVENT_STORM_START] >= 1, "a late smrd never recognised it at +%.2f", k * 0.25);
			EXPECT(c, !(late > SLOW_RECOGNISE_MAX), "a late smrd recognised it after %.0f s at +%.2f", late,
			       k * 0.25);
		} else {
			EXPECT(c, res.events[EVENT_STORM_START] == 0 && res.max_score <= GC_LOOKALIKE_MAX && !res.cache_known,
			       "a late smrd: %u storm(s), GC %.2f, cache %s at +%.2f", res.events[EVENT_STORM_START],
			       res.max_score, res.cache_known ? "learnt" : "none", k * 0.25);
		}
	}
	free(io);
}

typedef struct WriteStop {
	uint64_t budget;
	CliffRules rules;
	double hold, last_check;
} WriteStop;

/* qualify's write_stop (cli/qualify.c): the budget, or the fall held for --hold. */
static bool write_stop(Sim *s, double elapsed, uint64_t bytes, void *userdata)
{
	WriteStop *w = userdata;
	if (bytes >= w->budget)
		return true;
	if (elapsed - w->last_check < 1)
		return false;
	w->last_check = elapsed;
	CliffResult c;
	cliff_find(s->rec, s->n_rec, elapsed, &w->rules, &c);
	return c.fell && elapsed - c.cliff_t >= w->hold;
}

static bool budget_stop(Sim *s, double elapsed, uint64_t bytes, void *userdata)
{
	(void)s, (void)elapsed;
	return bytes >= *(const uint64_t *)userdata;
}

/* `smrctl qualify --destructive` as 55-corpus runs it on a fresh twin:
 * random writes until the cliff held 4 s, the budget or the time limit,
 * then 3 s of 1 MiB sequential ones; the verdict from those two. */
static void check_qualify(const Case *c, Seen *seen)
{
	Sim s;
	if (sim_init(&s, c, c->fio_seed ^ 0x5175616c) < 0) {
		EXPECT(c, false, "the twin's model did not start");
		return;
	}
	uint64_t budget = (uint64_t)fmax(c->cliff_bytes * 3.0, 64 * MIB);
	WriteStop ws = {.budget = budget, .hold = 4};
	cliff_rules_init(&ws.rules, c->qd, 3);
	s.keep_rec = true;
	s.rec_t0 = START_US;
	double limit = floor((c->smr ? 30 : 20) + c->fast_seconds);
	Load w = {.qd = c->qd, .bs = c->bs, .span = c->p.size, .op = EMU_WRITE, .stop = write_stop, .userdata = &ws,
		  .end_us = START_US + (uint64_t)(limit * 1e6)};
	uint64_t t = run_load(&s, &w, START_US);
	double duration = (t - START_US) / 1e6;
	uint64_t written = s.n_rec * c->bs, left = budget > written ? budget - written : 0;
	s.keep_rec = false;
	Load seq = {.qd = c->qd, .bs = 1 << 20, .span = c->p.size, .op = EMU_WRITE, .seq = true, .stop = budget_stop,
		    .userdata = &left, .end_us = t + 3000000};
	uint64_t t_seq = left >= 1 << 20 ? run_load(&s, &seq, t) : t;
	uint64_t seq_bytes = s.m.written - written;
	CliffResult cl;
	QualifyModel qm;
	QualifyVerdict v;
	cliff_find(s.rec, s.n_rec, duration, &ws.rules, &cl);
	qualify_model_writes(s.rec, s.n_rec, duration, &cl, c->bs, c->qd, &qm);
	QualifyFacts f = {.destructive = true, .static_class = DISK_CLASS_UNKNOWN, .wrote = true, .cliff = cl,
			  .block_size = c->bs, .written = written, .seq_ran = seq_bytes > 0,
			  .seq_rate = t_seq > t ? seq_bytes / ((t_seq - t) / 1e6) : 0};
	qualify_verdict(&f, &v);
	seen->qualify = v.smr_like ? "smr" : strstr(v.text, "SSD write cache exhausted") ? "ssd-cache" : "not-smr";
	seen->fast_err = c->smr && s.m.cliff_written ? (double)(cl.fast_ios * c->bs) / (double)s.m.cliff_written - 1 : NAN;
	if (c->smr) {
		EXPECT(c, v.smr_like, "qualify: %s", v.text);
		EXPECT(c, s.m.cliff_written, "the qualified twin never reached its cliff");
		EXPECT(c, !(fabs(seen->fast_err) > FAST_BYTES_TOLERANCE),
		       "qualify's fast phase %.1f MiB against %.1f MiB the model filled", cl.fast_ios * c->bs / MIB,
		       s.m.cliff_written / MIB);
	} else {
		EXPECT(c, !v.smr_like, "qualify called a look-alike SMR-like: %s", v.text);
		if (streq(c->shape, "slc"))
			EXPECT(c, streq(seen->qualify, "ssd-cache"), "qualify did not name the SSD's cache: %s", v.text);
	}
	EXPECT(c, !s.failed, "out of memory");
	sim_done(&s);
}

typedef struct Tally {
	unsigned smr_flagged, smr_missed, look_flagged, look_clear, cases, skipped;
	double delay_min, delay_max, delay_sum;
	unsigned delays;
} Tally;

static void print_row(const Case *c, const Sim *s, const Seen *x)
{
	printf("%-10s %-12s qd%-2u %3luk cliff %5.1f s storm %+5.1f %+5.1f %+5.1f %+5.1f s  GC %.2f  cache %+4.0f%%  "
	       "late %4.1f s  qualify %-9s fast %+5.1f%%  (%zu I/Os)\n",
	       c->seed, c->name, c->qd, (unsigned long)(c->bs >> 10), s->cliff_us / 1e6, x->delay[0], x->delay[1],
	       x->delay[2], x->delay[3], x->gc_max, x->cache_err * 100, x->late, x->qualify ? x->qualify : "?",
	       x->fast_err * 100, s->n_io);
}

static void tally(Tally *t, const Case *c, const Seen *x)
{
	bool flagged = false;
	for (int k = 0; k < 4; k++)
		if (isfinite(x->delay[k])) {
			flagged = true;
			if (c->smr) {
				t->delay_min = t->delays ? fmin(t->delay_min, x->delay[k]) : x->delay[k];
				t->delay_max = t->delays ? fmax(t->delay_max, x->delay[k]) : x->delay[k];
				t->delay_sum += x->delay[k];
				t->delays++;
			}
		}
	if (c->smr)
		flagged ? t->smr_flagged++ : t->smr_missed++;
	else
		flagged ? t->look_flagged++ : t->look_clear++;
	t->cases++;
}

static void run_case(const Case *c, Tally *t)
{
	Sim s;
	Seen x = {.delay = {NAN, NAN, NAN, NAN}, .cache_err = NAN, .late = NAN, .fast_err = NAN};
	if (sim_init(&s, c, c->fio_seed) < 0) {
		EXPECT(c, false, "the model's options are bad");
		return;
	}
	workload(&s);
	EXPECT(c, !s.failed, "out of memory");
	if (c->smr)
		EXPECT(c, s.cliff_us, "the emulated disk never reached its cliff (drawn: %.1f MiB)", c->cliff_bytes / MIB);
	if (!s.failed && (!c->smr || s.cliff_us)) {
		check_first(&s, &x);
		if (!streq(c->shape, "idle"))	/* its writes stop before a late smrd sees 20 s of them */
			check_late(&s, &x);
	}
	check_qualify(c, &x);
	print_row(c, &s, &x);
	tally(t, c, &x);
	sim_done(&s);
}

/* ------------------------------------------------------------------ bursts
 * Every storm, not only the first: a DM-SMR disk written in bursts of
 * random writes with rests between (a resilver, a restore or a backup that
 * pauses and resumes). The first burst runs past the cliff; each later one
 * meets a cache that the rest left full, partly cleaned or clean, as the
 * drive's idle cleaning goes (the primer: "after a few minutes of rest the
 * cache is cleaned and the pattern repeats"). Each burst whose writes wait
 * is a storm within STORM_DELAY_MAX of its first wait, or the storm before
 * it still going on (a rest under storm-end); its storm-start gives the
 * slow phase's own rate and latency. The look-alikes, under the same
 * bursts, never storm. */
#define BURST_SECONDS 25.0
#define BURST_FIRST_AFTER_CLIFF 10.0
#define BURST_LOOKALIKE_FIRST 40.0
/* the storm-start's against the steady phase, from 3 writes in its first
 * slow seconds (74-storm-again asks 20% of a 2.5/s phase live) */
#define BURST_FIGURE_TOLERANCE 0.2
#define BURST_END_TOLERANCE 0.2		/* the storm-end's, over the whole slow phase */
#define BURST_MAX_SAMPLES 4096
static const double burst_rests[] = {3, 6, 30, 300};
#define N_BURSTS (1 + sizeof burst_rests / sizeof burst_rests[0])

typedef enum CacheState { CACHE_FULL, CACHE_PARTLY, CACHE_CLEAN, _CACHE_STATES } CacheState;
static const char *const cache_state_name[_CACHE_STATES] = {"full", "partly", "clean"};

typedef struct Burst {
	double start, end;		/* its first submission, its last completion */
	double first_wait;		/* its first write that waited for a band rewrite; NaN none */
	double first_wait_done;		/* ... completed: a wait is seen when it ends */
	double iops, lat;		/* from that write on: writes completed a second, and their mean latency */
	double waited;			/* ... and the share of them that took 100 ms or more */
} Burst;

/* What one replay made of the bursts: the detector after each interval. */
typedef struct Timeline {
	unsigned n;
	double now[BURST_MAX_SAMPLES];
	bool active[BURST_MAX_SAMPLES];
	uint64_t count[BURST_MAX_SAMPLES];
	float iops[BURST_MAX_SAMPLES], lat[BURST_MAX_SAMPLES];	/* the storm's figures as it began */
	float slow_seconds[BURST_MAX_SAMPLES], slow_writes[BURST_MAX_SAMPLES];	/* ... over these */
} Timeline;

static void timeline_after(const DetectSample *x, const DiskDetect *d, void *userdata)
{
	Timeline *t = userdata;
	if (getenv("VIRTUAL_DEBUG"))
		debug_interval(x, d, (void *)"burst");
	if (t->n >= BURST_MAX_SAMPLES)
		return;
	t->now[t->n] = x->now - REPLAY_CLOCK_BASE;
	t->active[t->n] = d->storm.active;
	t->count[t->n] = d->storm.count;
	t->iops[t->n] = (float)d->storm.iops;
	t->lat[t->n] = (float)d->storm.latency;
	t->slow_seconds[t->n] = (float)d->storm.slow_seconds;
	t->slow_writes[t->n] = (float)d->storm.slow_writes;
	t->n++;
}

typedef struct BurstStop {
	double after_cliff;
} BurstStop;

static bool stop_after_cliff(Sim *s, double elapsed, uint64_t bytes, void *userdata)
{
	(void)elapsed, (void)bytes;
	const BurstStop *b = userdata;
	return s->cliff_us && s->host_free > s->cliff_us + (uint64_t)(b->after_cliff * 1e6);
}

/* The model's truth for a burst as a host sees it: the writes completed
 * from its first wait on to end, a second, and their mean latency. */
static void burst_truth(const Sim *s, Burst *b)
{
	double n = 0, lat = 0, waited = 0, from = b->first_wait;
	for (size_t i = 0; i < s->n_io; i++) {
		const ReplayIo *x = &s->io[i];
		if (x->op != TRACE_WRITE || x->done < from || x->done > b->end)
			continue;
		n++;
		lat += x->done - x->submit;
		waited += x->done - x->submit >= 0.1;
	}
	b->waited = n > 0 ? waited / n : 0;
	b->iops = b->end > from ? n / (b->end - from) : NAN;
	b->lat = n > 0 ? lat / n : NAN;
}

/* The case's model with the drive's idle cleaning set for the state the
 * rests leave its cache in: none within the longest rest, a third of the
 * cache in the 30 s rest, or at the band rewrite rate. */
static void burst_model(const Case *c, CacheState st, Case *ret)
{
	*ret = *c;
	if (!c->smr)
		return;
	if (st == CACHE_FULL)
		ret->p.idle_us = 1000ULL * 1000000;
	else if (st == CACHE_PARTLY)
		ret->p.idle_clean_rate = c->p.cache_bytes / 90;
}

static void run_bursts(Sim *s, Burst *b)
{
	const Case *c = s->c;
	uint64_t t = START_US;
	for (unsigned i = 0; i < N_BURSTS && !s->failed; i++) {
		BurstStop stop = {.after_cliff = BURST_FIRST_AFTER_CLIFF};
		Load l = {.qd = c->qd, .bs = c->bs, .span = c->p.size, .op = EMU_WRITE};
		if (i == 0 && c->smr) {
			l.stop = stop_after_cliff, l.userdata = &stop;
			l.end_us = t + (uint64_t)(NO_CLIFF_GIVE_UP * 1e6);
		} else {
			l.end_us = t + (uint64_t)((i == 0 ? BURST_LOOKALIKE_FIRST : BURST_SECONDS) * 1e6);
		}
		s->wait_at = 0;
		b[i] = (Burst){.start = t / 1e6, .first_wait = NAN};
		uint64_t end = run_load(s, &l, t);
		b[i].end = end / 1e6;
		if (s->wait_at) {
			b[i].first_wait = s->wait_at / 1e6;
			b[i].first_wait_done = s->wait_done / 1e6;
		}
		if (isfinite(b[i].first_wait))
			burst_truth(s, &b[i]);
		if (i + 1 < N_BURSTS)
			t = end + (uint64_t)(burst_rests[i] * 1e6);
	}
}

static unsigned tl_at(const Timeline *tl, double t)	/* the first interval ending at or after t */
{
	unsigned i = 0;
	while (i < tl->n && tl->now[i] < t)
		i++;
	return i;
}

typedef struct BurstTally {
	unsigned bursts, waited, flagged, ongoing, unjudged, missed, look_bursts, look_storms;
	unsigned steady, few;
	double delay_max, fig_err_max, end_err_max;
} BurstTally;

static void check_bursts(const Sim *s, const Burst *b, CacheState st, BurstTally *t)
{
	const Case *c = s->c;
	if (getenv("VIRTUAL_DEBUG"))
		for (size_t i = 0; i < s->n_io; i++)
			if (s->io[i].done - s->io[i].submit >= 0.1)
				fprintf(stderr, "slow io op %u at %.3f took %.3f s\n", s->io[i].op, s->io[i].submit,
					s->io[i].done - s->io[i].submit);
	for (int k = 0; k < 4; k++) {
		Timeline *tl = calloc(1, sizeof *tl);
		ReplayResult res;
		if (!tl) {
			EXPECT(c, false, "out of memory");
			return;
		}
		int r = replay_with(s->io, s->n_io, k * 0.25, NULL, timeline_after, tl, NULL, &res);
		EXPECT(c, r == 0, "replay: %s", strerror(-r));
		if (r < 0 || !c->smr) {
			if (r == 0) {
				t->look_bursts += N_BURSTS;
				t->look_storms += res.events[EVENT_STORM_START];
				EXPECT(c, res.events[EVENT_STORM_START] == 0 && res.max_score <= GC_LOOKALIKE_MAX &&
					   !res.cache_known && res.forecasts == 0,
				       "bursts (%s): %u storm(s), GC %.2f, cache %s, %u forecast(s) on a look-alike at +%.2f",
				       cache_state_name[st], res.events[EVENT_STORM_START], res.max_score,
				       res.cache_known ? "learnt" : "none", res.forecasts, k * 0.25);
			}
			free(tl);
			continue;
		}
		for (unsigned i = 1; i < N_BURSTS; i++) {
			t->bursts++;
			if (!isfinite(b[i].first_wait))
				continue;
			t->waited++;
			/* a burst whose cache lasted almost to its end has no time left to be judged in */
			if (b[i].end - fmax(b[i].first_wait + STORM_DELAY_MAX, b[i].first_wait_done + 1) < 1) {
				t->unjudged++;
				continue;
			}
			unsigned j = tl_at(tl, b[i].first_wait);
			uint64_t before = j > 0 ? tl->count[j - 1] : 0;
			if (j > 0 && tl->active[j - 1] && j < tl->n && tl->active[j] && tl->count[j] == before) {
				t->ongoing++;	/* the storm before it, still under way */
				continue;
			}
			unsigned f = j;
			while (f < tl->n && tl->count[f] == before)
				f++;
			/* within STORM_DELAY_MAX of the first wait, or a second after it ended if it
			 * lasted longer: the tracer sees a write when it completes */
			double delay = f < tl->n ? tl->now[f] - b[i].first_wait : INFINITY;
			bool ok = delay <= fmax(STORM_DELAY_MAX, b[i].first_wait_done - b[i].first_wait + 1);
			ok ? t->flagged++ : t->missed++;
			EXPECT(c, ok, "bursts (%s): burst %u after a %.0f s rest, first wait at %.1f s: storm %s at +%.2f",
			       cache_state_name[st], i, burst_rests[i - 1], b[i].first_wait - b[i].start,
			       isfinite(delay) ? "late" : "never flagged", k * 0.25);
			if (!ok)
				continue;
			t->delay_max = fmax(t->delay_max, delay);
			/* The figures, where the model's are unambiguous: a serial slow
			 * phase at QD1 from the burst's first write (the cache full) to
			 * its end, where every write waits alike (nine in ten or more). Elsewhere the first slow
			 * seconds are a ramp (QD > 1) or a mixture, and are printed. */
			Burst truth = b[i];	/* the steady phase's, as fio sees it live (74-storm-again) */
			bool steady = streq(c->shape, "serial") && c->qd == 1 && b[i].first_wait - b[i].start < 0.5 &&
				      b[i].waited >= 0.9;
			double grain = 1.5 / fmax(tl->slow_seconds[f], 1);	/* a write or so */
			double ei = fmax(fabs(tl->iops[f] - truth.iops) - grain, 0) / truth.iops, el = tl->lat[f] / truth.lat - 1;
			if (steady && tl->slow_writes[f] < 3) {
				t->few++;	/* one or two writes: the first seconds of a 1/s phase */
			} else if (steady) {
				t->steady++;
				t->fig_err_max = fmax(t->fig_err_max, fmax(fabs(ei), fabs(el)));
				EXPECT(c, fabs(ei) <= BURST_FIGURE_TOLERANCE && fabs(el) <= BURST_FIGURE_TOLERANCE,
				       "bursts (%s): burst %u's storm-start says %.2f/s at %.0f ms, the model %.2f/s at %.0f ms "
				       "at +%.2f", cache_state_name[st], i, tl->iops[f], tl->lat[f] * 1e3, truth.iops,
				       truth.lat * 1e3, k * 0.25);
			}
			/* the storm-end, if it ended within the rest that followed: the whole slow phase's */
			unsigned e = f;
			while (e < tl->n && tl->active[e] && tl->count[e] == tl->count[f])
				e++;
			bool ended = e < tl->n && !tl->active[e] && (i + 1 == N_BURSTS || tl->now[e] < b[i + 1].start);
			if (ended && steady) {
				double ee = tl->iops[e] / b[i].iops - 1, le = tl->lat[e] / b[i].lat - 1;
				t->end_err_max = fmax(t->end_err_max, fmax(fabs(ee), fabs(le)));
				EXPECT(c, fabs(ee) <= BURST_END_TOLERANCE && fabs(le) <= BURST_END_TOLERANCE,
				       "bursts (%s): burst %u's storm-end says %.2f/s at %.0f ms, the model %.2f/s at %.0f ms "
				       "at +%.2f", cache_state_name[st], i, tl->iops[e], tl->lat[e] * 1e3, b[i].iops,
				       b[i].lat * 1e3, k * 0.25);
			}
			if (getenv("VIRTUAL_DEBUG"))
				fprintf(stderr, "%s/%s %s burst %u: delay %.1f s, says %.2f/s at %.0f ms, model %.2f/s at %.0f ms\n",
					c->seed, c->name, cache_state_name[st], i, delay, tl->iops[f], tl->lat[f] * 1e3, truth.iops,
					truth.lat * 1e3);
		}
		free(tl);
	}
}

static void run_bursts_case(const Case *c0, BurstTally *t)
{
	for (int st = 0; st < (c0->smr ? _CACHE_STATES : 1); st++) {
		Case c;
		Sim s;
		Burst b[N_BURSTS];
		burst_model(c0, (CacheState)st, &c);
		if (sim_init(&s, &c, c.fio_seed) < 0) {
			EXPECT(c0, false, "the model's options are bad");
			return;
		}
		run_bursts(&s, b);
		EXPECT(c0, !s.failed, "out of memory");
		if (c.smr)
			EXPECT(c0, s.cliff_us, "bursts: the emulated disk never reached its cliff");
		if (!s.failed && (!c.smr || s.cliff_us))
			check_bursts(&s, b, (CacheState)st, t);
		printf("%-10s %-12s %-6s", c.seed, c.name, c.smr ? cache_state_name[st] : "-");
		for (unsigned i = 1; i < N_BURSTS; i++)
			printf("  rest %3.0f s: wait %5.1f s", burst_rests[i - 1],
			       isfinite(b[i].first_wait) ? b[i].first_wait - b[i].start : NAN);
		printf("\n");
		sim_done(&s);
	}
}

static int run_file(const char *path, Tally *t, BurstTally *bt)
{
	_cleanup_free_ char *text = NULL;
	int r = read_file_at(AT_FDCWD, path, 16 << 20, &text, NULL);
	if (r < 0)
		return r;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		Case c;
		if (l[0] == '#') {
			printf("%s\n", l);
			continue;
		}
		r = parse_case(l, &c);
		CHECK_INT(r, 0);
		if (r < 0)
			continue;
		if (streq(c.shape, "fs")) {	/* ext4 and the page cache: 55-corpus runs it live */
			t->skipped++;
			continue;
		}
		if (!bt)
			run_case(&c, t);
		else if (!streq(c.shape, "seqsmall") && !streq(c.shape, "idle"))	/* their own timelines */
			run_bursts_case(&c, bt);
	}
	return 0;
}

int main(int argc, char **argv)
{
	Tally t = {0};
	BurstTally bt = {0};
	bool bursts = argc > 2 && streq(argv[1], "--bursts");
	if (argc < 2) {
		fprintf(stderr, "usage: test-virtual [--bursts] CASES (corpus.py draw --format lines)\n");
		return 1;
	}
	const char *path = argv[bursts ? 2 : 1];
	int r = run_file(path, &t, bursts ? &bt : NULL);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
	CHECK_INT(r, 0);
	if (bursts) {
		CHECK(bt.bursts > 0);
		printf("bursts after a rest (4 sampling offsets): %u on DM-SMR disks, %u with waits: %u flagged (at most "
		       "%.1f s after the first wait was sent), %u the storm before going on, %u missed, %u with too little time left "
		       "to judge; %u on a steady serial phase at QD1 (and %u with under 3 writes at the "
		       "start): storm-start figures within %.0f%% of the model's, storm-end's within %.0f%%; look-alikes: %u storm(s) in %u bursts\n",
		       bt.bursts, bt.waited,
		       bt.flagged, bt.delay_max, bt.ongoing, bt.missed, bt.unjudged, bt.steady, bt.few, bt.fig_err_max * 100,
		       bt.end_err_max * 100, bt.look_storms, bt.look_bursts);
		return test_done("virtual-bursts");
	}
	CHECK(t.cases > 0);
	printf("%u cases (%u 'fs' left to 55-corpus); daemon storm: SMR shapes %u flagged, %u missed; "
	       "look-alikes %u flagged, %u clear\n", t.cases, t.skipped, t.smr_flagged, t.smr_missed, t.look_flagged,
	       t.look_clear);
	if (t.delays)
		printf("delay from cliff to storm (model time, 4 sampling offsets): %.1f..%.1f s (mean %.1f)\n",
		       t.delay_min, t.delay_max, t.delay_sum / t.delays);
	return test_done("virtual");
}
