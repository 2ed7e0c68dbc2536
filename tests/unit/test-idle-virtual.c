/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The idle-recovery curve smrd learns from a disk's own rests and the idle
 * budget it works out from it, in model time on the emulator's greedy
 * DM-SMR model (tests/emu/smr-emu.c, model half), the I/O replayed
 * through the daemon's detector as diskstats and the tracer give it
 * (replay.c), at four sampling offsets:
 *
 *  - five bursts into a storm, each followed by a rest (8, 15, 30, 60 and
 *    120 s) and writes up to the next cliff: the points learnt, and the
 *    fit at each rest, within 30% of the fast space the model had when
 *    the writes resumed;
 *  - then, after a long idle, a steady write load with a rest after every
 *    stretch of writes: the budget's first storm from a clean cache, from
 *    the figures of the stretches before it, and the storm interval after
 *    it, within 30% of the model's; it needs more idle than it gets;
 *  - an hour later, a light load with the same rests: no storm in the
 *    model, none forecast, and it needs less idle than it gets;
 *  - a restart: the curve refitted from the idle-recovery and media-cache
 *    events the history would give back is the one learnt.
 *
 * The disks are tests/emu/qmodel.py's draws (cache, band, cleaning rate,
 * idle delay, slow shape, queue depth) of the seeds in tests/seeds/idle.txt;
 * argv[1]: `qmodel.py table`'s lines.
 */
#define SMR_EMU_MODEL_ONLY
#include "../emu/smr-emu.c"

#include <math.h>

#include "detect.h"
#include "replay.h"
#include "test.h"
#include "util.h"

#define DISK_BYTES (512ULL << 20)	/* qmodel.py's disk */
#define START_US 5000000ULL
#define GAP_US 80			/* the host's time per I/O */
#define BS 4096
#define HOLD_US 8000000ULL		/* slow phase after each cliff: the storm is flagged */
#define CURVE_TOL 0.30
#define STORM_TOL 0.30
#define LONG_IDLE_US 900000000ULL	/* before the steady load: every band clean */
#define CYCLES 40
#define STRETCH_S 20.0			/* the steady load's stretch of writes */
#define MAX_QD 8
#define HOUR0 1767225600.0		/* a local midnight: the load starts on an hour */
static const double rests[] = {8, 15, 30, 60, 120};
#define N_RESTS (sizeof rests / sizeof *rests)

/* A steady load: its start, rate, stretches' starts and their first waits. */
typedef struct Load {
	double from, rate;
	double stretch[CYCLES], first_wait[CYCLES];
} Load;

typedef struct Sim {
	EmuModel m;
	ReplayIo *io;
	size_t n, cap;
	bool failed;
	unsigned qd;
	/* the model's truth after each rest of phase A, in order */
	double room[N_RESTS];
	unsigned n_room;
	Load heavy, light;		/* phases B and C */
	double rest_s;
	double learnt_end;		/* the last write of phase A */
} Sim;

static void record(Sim *s, uint64_t submit, uint64_t done, EmuOp op)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 65536;
		ReplayIo *more = realloc(s->io, cap * sizeof *more);
		if (!more) {
			s->failed = true;
			return;
		}
		s->io = more, s->cap = cap;
	}
	s->io[s->n++] = (ReplayIo){.submit = submit / 1e6, .done = done / 1e6, .bytes = BS, .op = TRACE_WRITE};
	(void)op;
}

static uint64_t write_at(Sim *s, uint64_t at)
{
	uint64_t off = emu_rand(&s->m, s->m.p.size / BS) * BS;
	uint64_t done = emu_submit(&s->m, at, EMU_WRITE, off, BS);
	record(s, at, done, EMU_WRITE);
	return done;
}

/* A burst at the draw's queue depth from `t` until a write waits, then
 * HOLD_US more of the slow phase; returns when the last one completed. */
static uint64_t burst(Sim *s, uint64_t t)
{
	uint64_t slot[MAX_QD], until = UINT64_MAX, last = t, waited = s->m.waited;
	for (unsigned i = 0; i < s->qd; i++)
		slot[i] = t;
	for (;;) {
		unsigned k = 0;
		for (unsigned i = 1; i < s->qd; i++)
			if (slot[i] < slot[k])
				k = i;
		uint64_t at = slot[k] + GAP_US;
		if (at >= until || s->failed)
			break;
		slot[k] = write_at(s, at);
		last = slot[k] > last ? slot[k] : last;
		if (until == UINT64_MAX && s->m.waited != waited)
			until = at + HOLD_US;
	}
	for (unsigned i = 0; i < s->qd; i++)
		last = slot[i] > last ? slot[i] : last;
	return last;
}

/* Phase A: from clean to the cliff, then each rest and a burst after it;
 * the model's fast space after each rest (emu_room) is the truth. */
static uint64_t learn(Sim *s)
{
	uint64_t t = burst(s, START_US);
	for (unsigned i = 0; i < N_RESTS && !s->failed; i++) {
		t += (uint64_t)(rests[i] * 1e6);
		emu_advance(&s->m, t);
		s->room[s->n_room++] = (double)emu_room(&s->m);
		t = burst(s, t);
	}
	return t;
}

/* A steady load from `t`: stretches of STRETCH_S of writes at one a
 * `gap` (a steady writer: the next when the last is done and its time
 * has come), each followed by a rest of rest_s; the first write of each
 * stretch that waited for a band rewrite. */
static uint64_t steady(Sim *s, Load *l, uint64_t t)
{
	uint64_t gap = (uint64_t)(BS / l->rate * 1e6);
	l->from = t / 1e6;
	for (unsigned c = 0; c < CYCLES && !s->failed; c++) {
		uint64_t end = t + (uint64_t)(STRETCH_S * 1e6), next = t, last = t, waited = s->m.waited;
		l->stretch[c] = t / 1e6;
		l->first_wait[c] = NAN;
		emu_advance(&s->m, t);
		while (next < end) {
			uint64_t at = next > last + GAP_US ? next : last + GAP_US;
			if (at >= end)
				break;
			last = write_at(s, at);
			if (isnan(l->first_wait[c]) && s->m.waited != waited)
				l->first_wait[c] = at / 1e6;
			next = at + gap;
		}
		t = last + (uint64_t)(s->rest_s * 1e6);
	}
	return t;
}

/* What the detector made of it, at one sampling offset. */
typedef struct Seen {
	const Sim *s;
	double learnt_at;		/* the end of phase A */
	CacheTrack cache;		/* as it was then */
	IdlePoint cache_points[IDLE_POINTS_MAX];	/* its points then (cache.points) */
	double predict_at[2];		/* the intervals to take the budget's forecasts at */
	BudgetForecast at[2];		/* the heavy load's hour, the light one's */
	bool have[2];
	CacheTrack end;			/* at the end */
	/* what the history would give back: the newest idle-recovery events
	 * and media-cache event */
	DetectEvent *points, cache_event;
	unsigned n_events;
} Seen;

static void emitted(const DetectEvent *e, void *userdata)
{
	Seen *v = userdata;
	if (e->kind == EVENT_MEDIA_CACHE)
		v->cache_event = *e;
	if (e->kind != EVENT_IDLE_RECOVERY)
		return;
	if (!v->points)
		return;
	if (v->n_events == IDLE_RESTORE_EVENTS)
		memmove(v->points, v->points + 1, (IDLE_RESTORE_EVENTS - 1) * sizeof *v->points), v->n_events--;
	v->points[v->n_events++] = *e;
}

/* A restart: the curve back from the events as the daemon restores them
 * (daemon/monitor.c), the one learnt (within 2%: the live curve waits for
 * its cache to move 1% before it is refitted). */
static void check_restore(const Seen *v)
{
	DiskDetect d;
	DetectParams p;
	detect_params_init(&p);
	detect_init(&d);
	detect_restore_cache(&d, &v->cache_event);
	for (unsigned i = 0; i < v->n_events; i++)
		detect_restore_point(&d, &v->points[i]);
	detect_restore_done(&d, &p, 0);
	const IdleFit *a = &v->end.model.curve, *b = &d.cache.model.curve;
	CHECK_INT(d.cache.n_points, v->end.n_points);
	CHECK(idle_fit_known(b) && d.cache.model.recovery_samples == v->end.model.recovery_samples);
	for (unsigned i = 0; i < N_RESTS; i++)
		CHECK(fabs(idle_fit_bytes(b, rests[i]) / idle_fit_bytes(a, rests[i]) - 1) < 0.02);
	CHECK(fabs(d.cache.model.recovery_rest - v->end.model.recovery_rest) < 0.01);
	detect_done(&d);
}

static void after(const DetectSample *x, const DiskDetect *d, void *userdata)
{
	Seen *v = userdata;
	double t = x->now - REPLAY_CLOCK_BASE;
	v->end = d->cache;
	v->end.points = NULL;		/* the tracker's own, freed with it: only its count and model are read */
	if (t <= v->learnt_at) {
		/* the points as they were then, not the tracker's own */
		v->cache = d->cache;
		if (d->cache.n_points)
			memcpy(v->cache_points, d->cache.points, d->cache.n_points * sizeof *v->cache_points);
		v->cache.points = v->cache_points;
	}
	/* kept from the first interval, the disk saying SMR (smr_static):
	 * without it nothing is taken, and check_budget fails */
	for (int i = 0; d->budget && i < 2; i++)
		if (!v->have[i] && t >= v->predict_at[i]) {
			int h = (int)fmod(floor(x->wall / 3600), BUDGET_HOURS);
			BudgetDisk k = {.curve = &d->cache.model.curve, .cache = d->cache.model.media_cache_bytes};
			idle_budget_hour(d->budget, h, &k, &v->at[i]);
			v->have[i] = true;
		}
}

static void near(const char *what, double got, double want, double tol, double *worst)
{
	test_checks++;
	double e = got / want - 1;
	bool ok = isfinite(e) && fabs(e) <= tol;
	test_failures += !ok;
	if (isfinite(e))
		*worst = fmax(*worst, fabs(e));
	printf("  %s: %s: %.4g against the model's %.4g (%+.1f%%, within %.0f%%)\n", ok ? "ok" : "FAIL", what, got,
	       want, e * 100, tol * 100);
}

typedef struct Worst {
	double point, fit, storm, every;
	unsigned draws;
} Worst;

static void check_curve(const Sim *s, const CacheTrack *c, Worst *w)
{
	const IdleFit *f = &c->model.curve;
	printf("  the fit: cache %.0f, room %.0f, delay %.2f s, clean %.1f s, shape %.2f (the model: delay %.2f s, %.0f bands "
	       "of %.2f s: %.1f s); rewrite %.3f s\n", f->cache, f->room, f->delay, f->clean_seconds, f->shape,
	       s->m.p.idle_us / 1e6, (double)s->m.nbands, (double)s->m.p.band_bytes / (double)s->m.p.clean_rate,
	       (double)s->m.nbands * (double)s->m.p.band_bytes / (double)s->m.p.clean_rate, c->model.rewrite_seconds);
	CHECK_INT(c->n_points, N_RESTS);
	for (unsigned i = 0; i < c->n_points && i < N_RESTS; i++) {
		const IdlePoint *p = &c->points[i];
		char what[64];
		printf("  rest %.0f s: learnt %.1f s, %.0f bytes +- %.0f, the fit %.0f\n", rests[i], p->rest, p->bytes,
		       p->err, idle_fit_bytes(&c->model.curve, rests[i]));
		CHECK(fabs(p->rest - rests[i]) <= 1.5);
		snprintf(what, sizeof what, "point after %.0f s", rests[i]);
		near(what, p->bytes, s->room[i], CURVE_TOL, &w->point);
		snprintf(what, sizeof what, "the fit at %.0f s", rests[i]);
		near(what, idle_fit_bytes(&c->model.curve, rests[i]), s->room[i], CURVE_TOL, &w->fit);
	}
}

/* The model's storms: the first stretch with a wait, from the load's
 * start; and how far apart the stretches with one are after it. */
static void model_storms(const Load *s, unsigned *ret_first, double *ret_first_s, double *ret_every)
{
	unsigned first = CYCLES, later = 0;
	double sum = 0, prev = NAN;
	for (unsigned c = 0; c < CYCLES; c++) {
		if (isnan(s->first_wait[c]))
			continue;
		if (first == CYCLES)
			first = c;
		else
			sum += s->first_wait[c] - prev, later++;
		prev = s->first_wait[c];
	}
	*ret_first = first;
	*ret_first_s = first < CYCLES ? s->first_wait[first] - s->from : INFINITY;
	*ret_every = later ? sum / later : INFINITY;
}

/* The budget against the model: under the heavy load the first storm from
 * a clean cache and the storms' interval after it within 30% (once full,
 * every stretch that writes more than its rest gives back meets the
 * cliff); under the light one none, and none forecast within ten times
 * its length. */
static void check_budget(const Sim *s, const Seen *v, Worst *w)
{
	unsigned first;
	double first_s, every;
	model_storms(&s->heavy, &first, &first_s, &every);
	const BudgetForecast *f = &v->at[0];
	CHECK(v->have[0] && first < CYCLES);
	printf("  steady load %.0f K/s, %.0f s stretches, %.1f s rests: the budget saw %.1fM/h, %.0f runs/h, %.0f s/h of "
	       "idle (it needs %.0f s/h); the model's first storm in stretch %u\n", f->write_per_hour / 3600 / 1024,
	       STRETCH_S, s->rest_s, f->write_per_hour / 1048576, f->runs_per_hour, f->idle_per_hour,
	       f->need_per_hour, first + 1);
	near("first storm from clean", f->first_storm, first_s, STORM_TOL, &w->storm);
	CHECK(f->need_per_hour > f->idle_per_hour);	/* short of its need: it storms */
	if (isfinite(every))	/* once storming, the storm interval */
		near("then a storm every", f->storm_every, every, STORM_TOL, &w->every);
	/* the light load: no storm, and none forecast */
	f = &v->at[1];
	model_storms(&s->light, &first, &first_s, &every);
	CHECK(v->have[1] && first == CYCLES);
	printf("  light load %.0f K/s: the budget needs %.0f s/h of idle, it gets %.0f; first storm %.0f s (none in the "
	       "model)\n", f->write_per_hour / 3600 / 1024, f->need_per_hour, f->idle_per_hour, f->first_storm);
	CHECK(f->need_per_hour < f->idle_per_hour);
	CHECK(!(f->first_storm < 10 * CYCLES * (STRETCH_S + s->rest_s)));
}

/* The steady load for a draw, from the draw's figures (not from what smrd
 * learnt): rests that clean a tenth of its bands, but no shorter than the
 * shortest rest smrd learnt from (what a rest shorter than any it saw
 * gives back is the fit's guess), and stretches that write B, what storms
 * halfway through stretch m from a clean cache when each rest cleans its
 * share k of the bands: (m - 1) B - k B (m - 1) m / 2 + B / 2 = A. The
 * gate's m is 2; IDLE_STORM_IN=3 (or more) puts the storm further away,
 * where the forecast leans on how much of the bands a rest cleans, which
 * a curve learnt from a full cache says only roughly (docs/detection.md
 * has the figures). Both keep clear of the boundary between a storm and
 * none (B (1/(2k) + 1/2) = A), where a few percent of the rest decide
 * whether it storms at all. */
static void load_of(Sim *s)
{
	double bands = (double)s->m.nbands, band_s = (double)s->m.p.band_bytes / (double)s->m.p.clean_rate;
	double cache = s->m.p.slow == EMU_SLOW_SERIAL ? s->m.p.high_water * (double)s->m.p.cache_bytes
						      : (double)s->m.p.cache_bytes;
	double delay = s->m.p.idle_us / 1e6, clean = bands * band_s, m = 2;
	const char *in = getenv("IDLE_STORM_IN");
	if (in && atoi(in) >= 2)
		m = atoi(in);
	s->rest_s = fmax(delay + 0.1 * clean, rests[0]);
	/* no stretch near the whole cache: a learnt cache a tenth short would
	 * storm in the first */
	double k = fmin((s->rest_s - delay) / clean, 1), div = fmax(m - 0.5 - k * (m - 1) * m / 2, 1.25);
	s->heavy.rate = cache / div / STRETCH_S;
	/* the light load: at its fullest, a quarter of the cache (a curve
	 * that says half the share a rest cleans still keeps it under half) */
	s->light.rate = cache * k / (2 * (1 + k)) / STRETCH_S;
}

static void run_draw(char *line, Worst *w)
{
	char *seed = strtok(line, "|"), *opts = strtok(NULL, "|"), *qd = strtok(NULL, "|");
	if (!seed || !opts || !qd) {
		CHECK(!"a draw is 'SEED I|OPTIONS|QD|BACK'");
		return;
	}
	printf("draw %s: dm-smr %s, queue depth %s\n", seed, opts, qd);
	char *argv[64] = {"emu", "--model", "dm-smr"};
	int argc = 3;
	for (char *save = NULL, *tok = strtok_r(opts, " ", &save); tok && argc < 64; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	Sim s = {.qd = (unsigned)atoi(qd)};
	EmuParams p;
	CHECK(emu_parse_model(argc, argv, &p) == 0 && s.qd >= 1 && s.qd <= MAX_QD);
	p.size = DISK_BYTES;
	if (s.qd < 1 || s.qd > MAX_QD || emu_init(&s.m, &p) < 0)
		return;
	load_of(&s);
	uint64_t learnt = learn(&s);
	s.learnt_end = learnt / 1e6;
	/* each load after a long idle (every band clean), the light one at the
	 * start of the next hour of the day */
	steady(&s, &s.heavy, learnt + LONG_IDLE_US);
	steady(&s, &s.light, (uint64_t)((s.heavy.from + 3600) * 1e6));
	CHECK(!s.failed);
	ReplayTrace t;
	if (!s.failed && replay_trace_from_io(s.io, s.n, &t) == 0) {
		DetectParams dp;
		detect_params_init(&dp);
		unsigned first;
		double first_s, every;
		model_storms(&s.heavy, &first, &first_s, &every);
		for (int k = 0; k < 4; k++) {
			/* the forecast from the stretches before the first storm: at the
			 * first interval of its stretch, its rest just counted; the
			 * light load's after most of it */
			Seen v = {.s = &s, .learnt_at = s.learnt_end + 60, .points = calloc(IDLE_RESTORE_EVENTS, sizeof(DetectEvent)),
				  .predict_at = {first < CYCLES ? s.heavy.stretch[first] + 1 : s.heavy.stretch[2],
						 s.light.stretch[CYCLES - 2]}};
			ReplayOptions o = {.phase = k * 0.25, .reclassify = true, .tail = 6,
					   .wall0 = HOUR0 - s.heavy.from, .smr_static = true, .after = after};
			ReplayResult res;
			CHECK_INT(replay_detect(&t, &dp, &o, emitted, &v, NULL, &res), 0);
			printf(" sampling at +%.2f s:\n", k * 0.25);
			check_curve(&s, &v.cache, w);
			CHECK(v.points != NULL);
			check_restore(&v);
			free(v.points);
			check_budget(&s, &v, w);
		}
		replay_trace_free(&t);
	}
	w->draws++;
	free(s.io);
	emu_done(&s.m);
}

int main(int argc, char **argv)
{
	Worst w = {0};
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "re");
		CHECK(f != NULL);
		char line[1024];
		while (f && fgets(line, sizeof line, f))
			if (line[0] != '#' && line[0] != '\n')
				run_draw(line, &w);
		if (f)
			fclose(f);
	}
	CHECK(w.draws > 0);
	printf("%u draw(s) at 4 sampling offsets; worst: the curve's points %.1f%%, the fit %.1f%%, the first storm "
	       "%.1f%%, the storms after it %.1f%%\n", w.draws, w.point * 100, w.fit * 100, w.storm * 100, w.every * 100);
	return test_done("idle-virtual");
}
