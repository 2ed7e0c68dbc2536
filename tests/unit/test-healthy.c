/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector on real host traffic of healthy (non-SMR) disks: every
 * trace of tests/fixtures/real (the root disk of this project's machines,
 * loop devices over files and tmpfs, under page-cache writeback and sync,
 * fstrim, fsync-heavy databases, parallel builds, package unpacking,
 * backups, mixed I/O: make.sh there) replayed at two sampling offsets
 * traced and once from diskstats alone. A false "this disk is SMR" pages
 * someone at night: no storm, no behaviour verdict, no idle-cleaning
 * episode, a GC score never above 0.2. Prints the hours replayed and what
 * each trace held (slow flushes, discards, stalls). argv[1]: the folder.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>

#include "replay.h"
#include "test.h"
#include "trace-abi.h"

typedef struct Totals {
	double seconds;
	uint64_t ios, slow_flushes, slow_discards, stalls;
	unsigned traces, events[_EVENT_KIND_MAX];
	double max_score;
} Totals;

static void on_event(const DetectEvent *e, void *userdata)
{
	const char *name = userdata;
	if (e->kind != EVENT_STALL && e->kind != EVENT_TIMEOUT_RISK)
		fprintf(stderr, "%s: unexpected %s\n", name, e->message);
}

static void replay_one(const char *dir, const char *file, Totals *t)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	ReplayTrace tr;
	int r = replay_trace_load(path, &tr);
	if (r < 0)
		fprintf(stderr, "%s: cannot load: %s\n", file, strerror(-r));
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	uint64_t flushes = 0, discards = 0;
	for (size_t i = 0; i < tr.n_slow; i++) {
		double lat = tr.slow[i].done - tr.slow[i].submit;
		flushes += tr.slow[i].op == TRACE_FLUSH && lat >= 0.1;
		discards += tr.slow[i].op == TRACE_DISCARD && lat >= 0.1;
	}
	DetectParams p;
	detect_params_init(&p);
	static const struct {
		double phase;
		bool untraced;
	} runs[] = {{0, false}, {0.5, false}, {0.25, true}};
	unsigned ev[_EVENT_KIND_MAX] = {0};
	double score = 0, seconds = 0;
	unsigned forecasts = 0;
	bool cache = false;
	for (size_t k = 0; k < ELEMENTSOF(runs); k++) {
		ReplayOptions o = {.phase = runs[k].phase, .untraced = runs[k].untraced, .reclassify = true, .tail = 60};
		ReplayResult res;
		CHECK_INT(replay_detect(&tr, &p, &o, on_event, (void *)file, NULL, &res), 0);
		for (int i = 0; i < _EVENT_KIND_MAX; i++)
			ev[i] += res.events[i];
		score = fmax(score, res.max_score);
		seconds = res.seconds;
		forecasts += res.forecasts;
		cache |= res.cache_known;
	}
	printf("%-34s %8" PRIu64 " I/Os %6.1f min: %u storm(s), %u behaviour, %u idle, %u bands, %u stalls "
	       "(%" PRIu64 " flushes and %" PRIu64 " discards over 100 ms); GC score at most %.2f\n",
	       file, tr.ios, seconds / 60, ev[EVENT_STORM_START], ev[EVENT_BEHAVIOUR], ev[EVENT_IDLE_START], ev[EVENT_BANDS],
	       ev[EVENT_STALL], flushes, discards, score);
	CHECK_INT(ev[EVENT_STORM_START], 0);
	CHECK_INT(ev[EVENT_BEHAVIOUR], 0);
	CHECK_INT(ev[EVENT_IDLE_START], 0);
	CHECK(score <= 0.2);
	/* no media cache is learnt on a healthy disk, and no stall is ever forecast */
	CHECK(!cache);
	CHECK_INT(forecasts, 0);
	CHECK_INT(ev[EVENT_MEDIA_CACHE] + ev[EVENT_STALL_IMMINENT], 0);
	t->traces++;
	t->seconds += seconds;
	t->ios += tr.ios;
	t->slow_flushes += flushes;
	t->slow_discards += discards;
	t->stalls += ev[EVENT_STALL];
	for (int i = 0; i < _EVENT_KIND_MAX; i++)
		t->events[i] += ev[i];
	t->max_score = fmax(t->max_score, score);
	replay_trace_free(&tr);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fixtures/real";
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		return test_done("healthy");
	char *names[256];
	size_t n = 0;
	for (struct dirent *de; (de = readdir(d)) && n < ELEMENTSOF(names);) {
		size_t l = strlen(de->d_name);
		if (l > 6 && streq(de->d_name + l - 6, ".io.gz"))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	Totals t = {0};
	for (size_t i = 0; i < n; i++) {
		replay_one(dir, names[i], &t);
		free(names[i]);
	}
	/* the corpus is there and is what make.sh records: at least an hour */
	CHECK(t.traces >= 14);
	CHECK(t.seconds >= 3600);
	printf("healthy disks: %.2f hours of real traffic (%u traces, %" PRIu64 " I/Os; %" PRIu64 " flushes and %" PRIu64
	       " discards over 100 ms), each replayed 3 times: %u storms, %u behaviour verdicts, %u idle-cleaning "
	       "episodes, %u band events, %" PRIu64 " stall events; GC score at most %.2f; media caches learnt %u, "
	       "stall forecasts %u\n",
	       t.seconds / 3600, t.traces, t.ios, t.slow_flushes, t.slow_discards, t.events[EVENT_STORM_START],
	       t.events[EVENT_BEHAVIOUR], t.events[EVENT_IDLE_START], t.events[EVENT_BANDS], t.stalls, t.max_score,
	       t.events[EVENT_MEDIA_CACHE], t.events[EVENT_STALL_IMMINENT]);
	return test_done("healthy");
}
