/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer alone, over fake backends (TraceBackendOps): one that refuses
 * to open, one that records the filter it is given and hands over scripted
 * histograms and slow I/Os, the latter through an eventfd on the loop as
 * the BPF ring does. A fake slow-I/O callback records what reached it.
 */
#include <sys/eventfd.h>

#include "log.h"
#include "test.h"
#include "tracer.h"

#define MAX_DEVS 16

struct TraceBackend {
	uint32_t watched[MAX_DEVS];
	unsigned n_watched;
	unsigned commits;
	uint64_t slow_ns;
	int efd;
	/* scripted for the next poll */
	uint32_t hist_dev;
	int hist_op;
	Hist hist;
	bool have_hist;
	struct trace_slow slow[4];
	unsigned n_slow;
	unsigned polls, polls_without_hist;
};

static struct TraceBackend fake_state;

static int refuse_open(TraceBackend **ret, uint64_t slow_ns, char **why)
{
	(void)ret, (void)slow_ns;
	*why = strdup("no such thing here");
	return -EOPNOTSUPP;
}

static int fake_open(TraceBackend **ret, uint64_t slow_ns, char **why)
{
	(void)why;
	fake_state = (struct TraceBackend){.slow_ns = slow_ns, .efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)};
	*ret = &fake_state;
	return fake_state.efd < 0 ? -errno : 0;
}

static int fake_watch(TraceBackend *b, uint32_t dev, bool on)
{
	for (unsigned i = 0; i < b->n_watched; i++)
		if (b->watched[i] == dev) {
			if (!on)
				b->watched[i] = b->watched[--b->n_watched];
			return 0;
		}
	if (on && b->n_watched < MAX_DEVS)
		b->watched[b->n_watched++] = dev;
	return 0;
}

static int fake_commit(TraceBackend *b)
{
	b->commits++;
	return 0;
}

static int fake_poll(TraceBackend *b, TraceHistFn hist, TraceSlowFn slow, void *userdata)
{
	uint64_t v;
	(void)!read(b->efd, &v, sizeof v);
	b->polls++;
	if (!hist)
		b->polls_without_hist++;
	if (hist && b->have_hist) {
		hist(b->hist_dev, b->hist_op, &b->hist, userdata);
		b->have_hist = false;
	}
	for (unsigned i = 0; i < b->n_slow; i++)
		slow(&b->slow[i], userdata);
	b->n_slow = 0;
	return 0;
}

static unsigned fake_fds(TraceBackend *b, int *fds, unsigned max)
{
	if (!max)
		return 0;
	fds[0] = b->efd;
	return 1;
}

static void fake_counters(TraceBackend *b, TraceCounters *ret)
{
	*ret = (TraceCounters){.completed = 6, .slow_sent = b->polls};
}

static void fake_set_slow(TraceBackend *b, uint64_t slow_ns)
{
	b->slow_ns = slow_ns;
}

static void fake_close(TraceBackend *b)
{
	close(b->efd);
	b->efd = -1;
}

static const TraceBackendOps refusing = {.name = "refusing", .open = refuse_open};
static const TraceBackendOps fake = {
	.name = "fake", .open = fake_open, .watch = fake_watch, .commit = fake_commit, .poll = fake_poll,
	.fds = fake_fds, .counters = fake_counters, .set_slow = fake_set_slow, .close = fake_close,
};

typedef struct SlowHeard {
	unsigned n;
	Disk *disk;
	SlowRecord last;
} SlowHeard;

static void on_slow_io(Disk *d, const SlowRecord *r, void *userdata)
{
	SlowHeard *h = userdata;
	h->n++;
	h->disk = d;
	h->last = *r;
}

static Disk *add(DiskRegistry *r, const char *name, unsigned major, unsigned minor)
{
	Disk n = {.sys = {.major = major, .minor = minor}}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	return registry_add(r, &n, &d) == 0 ? d : NULL;
}

static bool watching(uint32_t dev)
{
	for (unsigned i = 0; i < fake_state.n_watched; i++)
		if (fake_state.watched[i] == dev)
			return true;
	return false;
}

int main(void)
{
	log_set_max_level(LOG_CRIT);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	Disk *sda = add(disks, "sda", 8, 0);
	add(disks, "sdb", 8, 16);
	SlowHeard heard = {0};
	TracerCallbacks cb = {.slow_io = on_slow_io, .userdata = &heard};
	const TraceBackendOps *const backends[] = {&refusing, &fake, NULL};

	/* a captured tree is never traced, whatever the backends */
	Tracer *t = NULL;
	CHECK_INT(tracer_new(e, backends, "auto", false, 1.0, disks, &cb, &t), 0);
	CHECK_STR(tracer_backend(t), "none");
	CHECK(strstr(tracer_refused(t), "not the live /sys") != NULL);
	tracer_sync(t);
	tracer_collect(t, 1, 1);
	t = tracer_free(t);

	/* "none" asks for none */
	CHECK_INT(tracer_new(e, backends, "none", true, 1.0, disks, &cb, &t), 0);
	CHECK_STR(tracer_backend(t), "none");
	t = tracer_free(t);

	/* a backend asked for by name that refuses: none, and why */
	CHECK_INT(tracer_new(e, backends, "refusing", true, 1.0, disks, &cb, &t), 0);
	CHECK_STR(tracer_backend(t), "none");
	CHECK_STR(tracer_refused(t), "refusing: no such thing here");
	t = tracer_free(t);

	/* auto: the first refuses, the second is used, the refusal is kept */
	CHECK_INT(tracer_new(e, backends, "auto", true, 0.5, disks, &cb, &t), 0);
	CHECK_STR(tracer_backend(t), "fake");
	CHECK_STR(tracer_refused(t), "refusing: no such thing here");
	CHECK_INT(fake_state.slow_ns, 500000000);
	/* the filter equals the registry from the start */
	CHECK_INT(fake_state.n_watched, 2);
	CHECK(watching(trace_dev(8, 0)) && watching(trace_dev(8, 16)));
	unsigned commits = fake_state.commits;
	CHECK(commits >= 1);

	/* syncing an unchanged registry changes nothing */
	tracer_sync(t);
	CHECK_INT(fake_state.commits, commits);

	/* a disk comes, another goes: one commit with both changes */
	add(disks, "sdc", 8, 32);
	registry_remove(disks, "sdb");
	sda = registry_get(disks, "sda");
	tracer_sync(t);
	CHECK_INT(fake_state.commits, commits + 1);
	CHECK_INT(fake_state.n_watched, 2);
	CHECK(watching(trace_dev(8, 32)) && !watching(trace_dev(8, 16)));

	/* a histogram delta at the interval reaches the disk's window */
	for (int i = 0; i < 100; i++)
		hist_add(&fake_state.hist, 2000000);
	fake_state.hist_dev = trace_dev(8, 0);
	fake_state.hist_op = TRACE_WRITE;
	fake_state.have_hist = true;
	tracer_collect(t, now_usec(CLOCK_MONOTONIC) + 1000000, now_usec(CLOCK_REALTIME));
	CHECK(sda->lat && sda->lat->op[TRACE_WRITE]);
	CHECK_INT(sda->lat && sda->lat->op[TRACE_WRITE] ? sda->lat->op[TRACE_WRITE]->total.count : 0, 100);
	/* a delta for a device that is not watched goes nowhere */
	fake_state.hist_dev = trace_dev(8, 16);
	fake_state.have_hist = true;
	tracer_collect(t, now_usec(CLOCK_MONOTONIC) + 2000000, now_usec(CLOCK_REALTIME));
	CHECK(registry_get(disks, "sdc")->lat == NULL);

	/* a slow I/O handed over between intervals (the ring's fd) reaches the
	 * callback at once with its disk, and the recent list */
	uint64_t mono = now_usec(CLOCK_MONOTONIC);
	fake_state.slow[0] = (struct trace_slow){.done_ns = mono * 1000, .lat_ns = 1500000000, .sector = 4096,
						 .dev = trace_dev(8, 0), .bytes = 4096, .op = TRACE_WRITE};
	fake_state.slow[1] = (struct trace_slow){.done_ns = mono * 1000, .lat_ns = 900000000,
						 .dev = trace_dev(9, 9), .op = TRACE_WRITE};	/* not watched */
	fake_state.slow[2] = (struct trace_slow){.done_ns = mono * 1000, .lat_ns = 900000000,
						 .dev = trace_dev(8, 0), .op = 77};	/* no such op */
	fake_state.n_slow = 3;
	uint64_t one = 1;
	CHECK_INT(write(fake_state.efd, &one, sizeof one), sizeof one);
	unsigned polls = fake_state.polls_without_hist;
	for (int i = 0; i < 10 && heard.n == 0; i++)
		sd_event_run(e, 100000);
	CHECK_INT(fake_state.polls_without_hist, polls + 1);
	CHECK_INT(heard.n, 1);
	CHECK(heard.disk == sda);
	CHECK_STR(heard.last.device, "sda");
	CHECK_NEAR(heard.last.latency, 1.5, 1e-9);
	CHECK_INT(heard.last.sector, 4096);
	CHECK_INT(tracer_slow_total(t), 1);
	CHECK(tracer_slow_at(t, 0) && tracer_slow_at(t, 0)->latency == 1.5);
	CHECK(tracer_slow_at(t, 1) == NULL);
	CHECK_INT(sda->lat->op[TRACE_WRITE]->slow, 1);
	CHECK_NEAR(sda->lat->op[TRACE_WRITE]->slow_max, 1.5, 1e-9);

	/* the recent list keeps the newest SLOW_QUEUE_LEN */
	for (unsigned i = 0; i < SLOW_QUEUE_LEN + 5; i++) {
		fake_state.slow[0] = (struct trace_slow){.done_ns = mono * 1000, .lat_ns = 1000000000 + i,
							 .dev = trace_dev(8, 0), .op = TRACE_READ};
		fake_state.n_slow = 1;
		tracer_collect(t, mono + 3000000 + i, now_usec(CLOCK_REALTIME));
	}
	CHECK_INT(tracer_slow_total(t), SLOW_QUEUE_LEN + 6);
	CHECK(tracer_slow_at(t, 0) && tracer_slow_at(t, 0)->latency == (1000000000.0 + SLOW_QUEUE_LEN + 4) / 1e9);
	CHECK(tracer_slow_at(t, SLOW_QUEUE_LEN - 1) != NULL);
	CHECK(tracer_slow_at(t, SLOW_QUEUE_LEN) == NULL);

	/* the threshold follows a reload; counters are the backend's */
	tracer_set_slow(t, 2.0, 2.0);
	CHECK_INT(fake_state.slow_ns, 2000000000);
	TraceCounters c;
	tracer_counters(t, &c);
	CHECK_INT(c.completed, 6);

	/* a tracer without a callback still keeps the list */
	t = tracer_free(t);
	CHECK_INT(fake_state.efd, -1);
	CHECK_INT(tracer_new(e, backends, "fake", true, 1.0, disks, NULL, &t), 0);
	fake_state.slow[0] = (struct trace_slow){.done_ns = mono * 1000, .lat_ns = 3000000000,
						 .dev = trace_dev(8, 0), .op = TRACE_WRITE};
	fake_state.n_slow = 1;
	tracer_collect(t, mono + 10000000, now_usec(CLOCK_REALTIME));
	CHECK_INT(tracer_slow_total(t), 1);
	t = tracer_free(t);

	registry_free(disks);
	sd_event_unref(e);
	return test_done("daemon-tracer");
}
