/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disk's view (core/disk/diskview.c) from a detector fed by hand: the
 * figures it works out once per sample (stalls of the last hour from the
 * detector's ring, stall imminent as the detector decided it, suspect,
 * severity, the pool string) and the latency summaries summed on their
 * first read in a sample. test-daemon-views checks that every view shows
 * them alike.
 */
#include <math.h>

#include "disk.h"
#include "registry.h"
#include "test.h"

static Disk *add(DiskRegistry *r, const char *name)
{
	Disk n = {0}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	disk_facts_init(&n.sys.facts, name);
	n.sys.facts.transport = TRANSPORT_ATA;
	n.sys.facts.rotational = 1;
	n.sys.facts.size_status = 0;
	n.sys.facts.admin_class = -1;
	Verdict v;
	classify_disk(&n.sys.facts, NULL, &v);
	verdict_summarize(&v, &n.verdict);
	n.tuning = (DiskTuning){NAN, NAN, NAN};
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

/* One traced interval of n I/Os of op at lat seconds. */
static void push(Disk *d, int op, unsigned n, double lat)
{
	Hist h = {0};
	for (unsigned i = 0; i < n; i++)
		hist_add(&h, (uint64_t)(lat * 1e9));
	CHECK_INT(disk_latency_push(&d->lat, op, &h, 1), 0);
}

/* What diskview_update works out, from a detector fed by hand. */
static void test_update(const DetectParams *p)
{
	DiskRegistry *r = registry_new();
	Disk *d = add(r, "sdx");
	CHECK(d != NULL);
	if (!d) {
		registry_free(r);
		return;
	}
	detect_init(&d->det);
	d->det_ready = true;
	Memberships ms = {.n = 2, .m = {{.type = MEMBER_ZFS, .name = "tank", .via = "sdx1"},
					{.type = MEMBER_LVM, .name = "vg0", .via = "sdx9"}}};
	CHECK_INT(disk_set_members(d, &ms), 0);
	double now = 100000;
	DiskViewClock c = {.mono = now, .real = 1.7e9, .sample = 1};
	/* stalls: two on record from before a restart (one over an hour old), three now */
	detect_restore(&d->det, p, EVENT_STALL, now - 4000, 2);
	detect_restore(&d->det, p, EVENT_STALL, now - 1800, 2);
	detect_restore_done(&d->det, p, now);
	for (int i = 0; i < 3; i++) {
		DetectSlowIo io = {.op = TRACE_READ, .latency = 2, .still = NAN, .sector = 8, .bytes = 4096,
				   .done = now - 10 + i};
		detect_slow_io(&d->det, p, d->name, 1, &io, 0, NULL, NULL);
	}
	diskview_update(d, p, &c);
	CHECK_INT(d->view.stalls[TRACE_READ], 3);
	CHECK_INT(d->view.stalls_hour, 4);
	CHECK_STR(diskview_pool_str(&d->view), "zfs:tank lvm:vg0");
	CHECK_NEAR(d->view.stall_threshold, 1, 0);
	CHECK(!d->view.suspect);
	CHECK_INT(d->view.severity, DISK_SEVERITY_STALLS);
	c = (DiskViewClock){.mono = now + 3600, .real = 1.7e9 + 3600, .sample = 2};
	diskview_update(d, p, &c);
	CHECK_INT(d->view.stalls_hour, 0);		/* an hour later */
	CHECK_INT(d->view.severity, DISK_SEVERITY_OK);
	/* stall imminent is the detector's decision: the view copies it */
	d->det.forecast = 100;
	diskview_update(d, p, &c);
	CHECK(!d->view.imminent && d->view.severity == DISK_SEVERITY_OK);
	d->det.imminent = true;
	diskview_update(d, p, &c);
	CHECK(d->view.imminent && d->view.severity == DISK_SEVERITY_IMMINENT);
	/* a suspect: what registry_count counts */
	d->det.imminent = false;
	d->det.score.score = 0.9;
	diskview_update(d, p, &c);
	unsigned suspects, storms;
	registry_count(r, &suspects, &storms);
	CHECK(d->view.suspect && suspects == 1 && storms == 0);
	CHECK_INT(d->view.severity, DISK_SEVERITY_SUSPECT);

	/* latency: summed on the first read in a sample, kept until the next */
	push(d, TRACE_WRITE, 10, 0.005);
	c.sample = 3;
	diskview_update(d, p, &c);
	CHECK_INT(diskview_latency(d, TRACE_WRITE, VIEW_1M)->count, 10);
	push(d, TRACE_WRITE, 10, 2);
	CHECK_INT(diskview_latency(d, TRACE_WRITE, VIEW_1M)->count, 10);	/* this sample's */
	c.sample = 4;
	diskview_update(d, p, &c);
	const LatSummary *l = diskview_latency(d, TRACE_WRITE, VIEW_1M);
	CHECK(l->count == 20 && l->max > 1);
	Hist h;
	CHECK_INT(diskview_latency_hist(d, TRACE_WRITE, VIEW_10M, &h)->count, 20);
	CHECK_INT(h.count, 20);
	CHECK_INT(diskview_latency(d, TRACE_READ, VIEW_1M)->count, 0);	/* never traced */
	CHECK(isnan(diskview_latency(d, TRACE_READ, VIEW_1M)->p50));
	CHECK(isnan(diskview_latency(d, TRACE_OPS, VIEW_1M)->p50));
	CHECK_INT(d->verdict.class, DISK_CLASS_CMR);
	registry_free(r);
}

int main(void)
{
	DetectParams p;
	detect_params_init(&p);
	test_update(&p);
	return test_done("diskview");
}
