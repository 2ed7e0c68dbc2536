/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure detectors on recorded per-I/O traces of every corpus shape
 * (tests/fixtures/traces, recorded by make.sh from fio on the emulated
 * disks): the daemon's detector fed one-second intervals rebuilt from the
 * trace as diskstats and the tracer would give them, and qualify's cliff
 * finder and verdict fed the I/Os themselves. For each shape the .meta file
 * says what must come out. argv[1]: tests/fixtures/traces.
 */
#include <dirent.h>
#include <fcntl.h>

#include "cliff.h"
#include "detect.h"
#include "qualify-verdict.h"
#include "test.h"
#include "trace-abi.h"
#include "util.h"

typedef struct Io {
	double submit, done;	/* seconds */
} Io;

typedef struct Trace {
	char name[64];
	Io *io;
	size_t n;
	uint64_t bs, cliff_bytes;
	unsigned qd;
	bool storm;
	char qualify[32];
	double seq_rate;
} Trace;

static int load(const char *dir, const char *name, Trace *t)
{
	char path[4096];
	_cleanup_free_ char *text = NULL, *meta = NULL;
	*t = (Trace){0};
	snprintf(t->name, sizeof t->name, "%s", name);
	snprintf(path, sizeof path, "%s/%s.trace", dir, name);
	int r = read_file_at(AT_FDCWD, path, 64 << 20, &text, NULL);
	if (r < 0)
		return r;
	snprintf(path, sizeof path, "%s/%s.meta", dir, name);
	if ((r = read_file_at(AT_FDCWD, path, 65536, &meta, NULL)) < 0)
		return r;
	size_t cap = 1024;
	t->io = malloc(cap * sizeof *t->io);
	if (!t->io)
		return -ENOMEM;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, lat;
		if (l[0] == '#' || sscanf(l, "%llu %llu", &s, &lat) != 2)
			continue;
		if (t->n == cap) {
			Io *more = realloc(t->io, (cap *= 2) * sizeof *t->io);
			if (!more) {
				free(t->io);
				*t = (Trace){0};
				return -ENOMEM;
			}
			t->io = more;
		}
		t->io[t->n++] = (Io){.submit = (double)s / 1e6, .done = (double)(s + lat) / 1e6};
	}
	for (char *save = NULL, *l = strtok_r(meta, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		double x;
		if (sscanf(l, "bs=%llu", &v) == 1)
			t->bs = v;
		else if (sscanf(l, "qd=%llu", &v) == 1)
			t->qd = (unsigned)v;
		else if (sscanf(l, "cliff_bytes=%llu", &v) == 1)
			t->cliff_bytes = v;
		else if (sscanf(l, "storm=%llu", &v) == 1)
			t->storm = v;
		else if (sscanf(l, "qualify=%31s", t->qualify) == 1)
			;
		else if (sscanf(l, "seq_rate=%lf", &x) == 1)
			t->seq_rate = x;
	}
	return t->io && t->n && t->bs && t->qd ? 0 : -EINVAL;
}

/* When the modelled cache filled: the completion of the write that took
 * the bytes written past cliff_bytes (completions in order). */
static int cmp_done(const void *a, const void *b)
{
	double x = ((const Io *)a)->done, y = ((const Io *)b)->done;
	return (x > y) - (x < y);
}

static double cliff_time(const Trace *t)
{
	if (!t->cliff_bytes)
		return NAN;
	Io *byd = malloc(t->n * sizeof *byd);
	memcpy(byd, t->io, t->n * sizeof *byd);
	qsort(byd, t->n, sizeof *byd, cmp_done);
	double at = NAN;
	for (size_t i = 0; i < t->n; i++)
		if ((i + 1) * t->bs >= t->cliff_bytes) {
			at = byd[i].done;
			break;
		}
	free(byd);
	return at;
}

typedef struct Seen {
	double first_storm;		/* when the first storm-start was emitted */
	double now;
	unsigned storms;
} Seen;

static void on_event(const DetectEvent *e, void *userdata)
{
	Seen *s = userdata;
	if (e->kind == EVENT_STORM_START && s->storms++ == 0)
		s->first_storm = s->now;
}

static double overlap(double a0, double a1, double b0, double b1)
{
	double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* The daemon's view, one second at a time: what diskstats (completions,
 * their summed latency, busy time, time-weighted queue, in flight at the
 * sample) and the tracer (the interval's histogram, its slowest) say. */
static void replay_daemon(const Trace *t, Seen *seen)
{
	DetectParams p;
	DiskDetect d;
	detect_params_init(&p);
	detect_init(&d);
	double end = 0;
	for (size_t i = 0; i < t->n; i++)
		end = fmax(end, t->io[i].done);
	for (double a = 0; a < end + 6; a += 1) {
		double b = a + 1, busy_until = a, busy = 0, queue = 0;
		Hist h = {0};
		DetectSample s = {.now = 1000 + b, .dt = 1, .read_max = NAN, .write_max = NAN};
		/* I/Os in submit order: the busy time is the union of their spans */
		for (size_t i = 0; i < t->n && t->io[i].submit < b; i++) {
			const Io *io = &t->io[i];
			if (io->done <= a)
				continue;
			queue += overlap(io->submit, io->done, a, b);
			double s0 = fmax(io->submit, busy_until), s1 = fmin(io->done, b);
			if (s1 > s0) {
				busy += s1 - s0;
				busy_until = s1;
			}
			if (io->done > b)
				s.in_flight++;
			else {
				s.writes++;
				s.write_time += io->done - io->submit;
				hist_add(&h, (uint64_t)((io->done - io->submit) * 1e9));
			}
		}
		s.write_bytes = s.writes * (double)t->bs;
		s.busy = fmin(busy, 1);
		s.queue = queue;
		s.write_max = h.count ? hist_max(&h) : NAN;
		s.interval[TRACE_WRITE] = &h;
		seen->now = s.now - 1000;
		detect_interval(&d, &p, &s, false, on_event, seen);
	}
}

static const char *qualify_says(const Trace *t, CliffResult *c, QualifyVerdict *v)
{
	IoRec *r = malloc(t->n * sizeof *r);
	double duration = 0;
	for (size_t i = 0; i < t->n; i++) {
		r[i] = (IoRec){.t = t->io[i].submit, .lat = (float)(t->io[i].done - t->io[i].submit)};
		duration = fmax(duration, t->io[i].done);
	}
	CliffRules rules;
	cliff_rules_init(&rules, t->qd, 3);
	cliff_find(r, t->n, duration, &rules, c);
	free(r);
	QualifyFacts f = {.destructive = true, .static_class = DISK_CLASS_UNKNOWN, .wrote = true, .cliff = *c,
			  .block_size = t->bs, .written = t->n * t->bs, .seq_ran = t->seq_rate > 0, .seq_rate = t->seq_rate};
	qualify_verdict(&f, v);
	return v->smr_like ? "smr" : strstr(v->text, "SSD write cache exhausted") ? "ssd-cache" : "not-smr";
}

static void check_trace(const char *dir, const char *name)
{
	Trace t;
	int r = load(dir, name, &t);
	if (r < 0)
		fprintf(stderr, "%s: cannot load: %s\n", name, strerror(-r));
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	double cliff = cliff_time(&t);
	Seen seen = {.first_storm = NAN};
	replay_daemon(&t, &seen);
	CliffResult c;
	QualifyVerdict v;
	const char *q = qualify_says(&t, &c, &v);
	printf("%-9s %6zu I/Os, cliff %5.1f s: daemon %u storm(s), first %+.1f s from the cliff; qualify %s "
	       "(fast %.1f of %.1f MiB): %s\n", name, t.n, cliff, seen.storms, seen.first_storm - cliff, q,
	       (double)(c.fast_ios * t.bs) / 1048576, (double)t.cliff_bytes / 1048576, v.text);
	if (t.storm) {
		CHECK(seen.storms >= 1);
		CHECK(seen.first_storm >= cliff - 0.5);	/* none before the cliff */
		CHECK(seen.first_storm - cliff <= 5);	/* and within 5 s of it */
	} else {
		CHECK_INT(seen.storms, 0);
	}
	CHECK_STR(q, t.qualify);
	if (streq(t.qualify, "smr"))
		CHECK(fabs((double)(c.fast_ios * t.bs) / (double)t.cliff_bytes - 1) <= 0.10);
	free(t.io);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fixtures/traces";
	static const char *const shapes[] = {"mixed", "serial", "hiccup", "seqsmall", "collapse", "slc", "cmr"};
	for (size_t i = 0; i < ELEMENTSOF(shapes); i++)
		check_trace(dir, shapes[i]);
	return test_done("traces");
}
