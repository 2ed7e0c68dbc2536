/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The prober alone, on a loop device of its own (root: the suite runs as
 * root), with a fake result callback. It checks that probes complete on the
 * loop and reach the callback, one at a time and spaced, that a node that
 * is not the disk's device is never read, and that a disk going away with
 * a probe in flight is drained without a callback for it.
 */
#include <linux/loop.h>
#include <math.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "prober.h"
#include "test.h"
#include "unit-tree.h"

typedef struct Results {
	unsigned n;
	Disk *disk;
	double latency;
} Results;

static void on_result(Disk *d, double latency, double now, void *userdata)
{
	Results *r = userdata;
	(void)now;
	r->n++;
	r->disk = d;
	r->latency = latency;
}

/* A loop device over a new 1 MiB file, detached when its last fd closes. */
static int attach_loop(const char *dir, char *name, size_t n, int *ret_fd)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/backing", dir);
	_cleanup_close_ int file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (file < 0 || ftruncate(file, 1 << 20) < 0)
		return -errno;
	_cleanup_close_ int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	for (int tries = 0; tries < 8; tries++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0)
			return -errno;
		snprintf(name, n, "loop%d", nr);
		snprintf(path, sizeof path, "/dev/loop%d", nr);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		struct loop_config cfg = {.fd = (unsigned)file, .info = {.lo_flags = LO_FLAGS_AUTOCLEAR}};
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			*ret_fd = fd;
			return 0;
		}
		int r = -errno;
		close(fd);
		if (r != -EBUSY)
			return r;
	}
	return -EBUSY;
}

static void run_until(sd_event *e, const Results *r, unsigned n)
{
	for (int i = 0; i < 200 && r->n < n; i++)
		sd_event_run(e, 10000);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);	/* refusals are logged as warnings: checked here by their effect */
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-prober");
	char name[32];
	_cleanup_close_ int loop = -1;
	if (geteuid() != 0 || access("/dev/loop-control", R_OK | W_OK) < 0)
		return test_unavailable("loop", "no loop device to attach: the test needs root and /dev/loop-control");
	int r = attach_loop(dir, name, sizeof name, &loop);
	if (r < 0)
		fprintf(stderr, "cannot attach a loop device: %s\n", strerror(-r));
	CHECK_INT(r, 0);
	if (r < 0)
		return test_done("daemon-prober");
	struct stat st;
	CHECK_INT(fstat(loop, &st), 0);

	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	Results res = {0};
	ProberCallbacks cb = {.result = on_result, .userdata = &res};
	Prober *p = NULL;
	CHECK_INT(prober_new(e, "/dev", &cb, &p), 0);
	Disk d = {.sys = {.major = major(st.st_rdev), .minor = minor(st.st_rdev), .size_sectors = 2048}};
	snprintf(d.name, sizeof d.name, "%s", name);

	ProbeSlot ds = {0};
	/* one probe, completed through the loop's eventfd */
	double now = now_seconds(CLOCK_MONOTONIC);
	prober_maybe(p, &ds, &d, now, 10);
	CHECK(!ds.failed && ds.probe != NULL);
	run_until(e, &res, 1);
	CHECK_INT(res.n, 1);
	CHECK(res.disk == &d);
	CHECK(res.latency >= 0 && res.latency < 5);
	double secs;
	CHECK_INT(prober_take_completed(&ds, &secs), 1);
	CHECK_NEAR(secs, res.latency, 1e-9);
	CHECK_INT(prober_take_completed(&ds, &secs), 0);

	/* spaced: not again within `spacing`, again after it */
	prober_maybe(p, &ds, &d, now + 5, 10);
	run_until(e, &res, 2);
	CHECK_INT(res.n, 1);
	prober_maybe(p, &ds, &d, now + 11, 10);
	run_until(e, &res, 2);
	CHECK_INT(res.n, 2);

	/* one in flight at a time: a second ask before it completes adds none */
	prober_maybe(p, &ds, &d, now + 30, 10);
	prober_maybe(p, &ds, &d, now + 60, 10);
	run_until(e, &res, 4);
	CHECK_INT(res.n, 3);

	/* gone with a probe in flight: drained, no callback about a freed disk */
	prober_maybe(p, &ds, &d, now + 100, 10);
	prober_disk_gone(p, &ds);
	CHECK(ds.probe == NULL);
	for (int i = 0; i < 50; i++)
		sd_event_run(e, 10000);
	CHECK_INT(res.n, 3);

	/* a node that is some other device: refused, never read */
	Disk other = d;
	ProbeSlot os = {0};
	other.sys.minor = d.sys.minor + 1000;
	prober_maybe(p, &os, &other, now, 10);
	CHECK(os.failed && os.probe == NULL);
	/* a regular file where the node should be */
	Prober *q = NULL;
	CHECK_INT(prober_new(e, dir, &cb, &q), 0);
	Disk plain = d;
	ProbeSlot ps = {0};
	snprintf(plain.name, sizeof plain.name, "backing");
	prober_maybe(q, &ps, &plain, now, 10);
	CHECK(ps.failed);
	/* once refused, never retried */
	prober_maybe(q, &ps, &plain, now + 100, 10);
	CHECK(ps.probe == NULL);
	/* a disk too small for a probe */
	Disk tiny = d;
	ProbeSlot ts = {0};
	tiny.sys.size_sectors = 8;
	prober_maybe(p, &ts, &tiny, now, 10);
	CHECK(ts.probe == NULL && !ts.failed);
	for (int i = 0; i < 20; i++)
		sd_event_run(e, 10000);
	CHECK_INT(res.n, 3);

	prober_free(q);
	prober_free(p);
	sd_event_unref(e);
	return test_done("daemon-prober");
}
