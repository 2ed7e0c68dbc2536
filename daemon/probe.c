/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Safety first: only with the real /sys (never against a fixture tree), only
 * on a device node whose st_rdev is the disk's major:minor, read-only,
 * O_DIRECT (the page cache must not answer), and never more than one I/O in
 * flight per disk. io_destroy() waits for in-flight I/O, so a disk that goes
 * away with a probe outstanding hands it to a drain list reaped from the
 * eventfd, instead of blocking the loop behind a stalled disk.
 */
#include "probe.h"

#include <fcntl.h>
#include <libaio.h>
#include <math.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "log.h"
#include "monitor.h"

#define PROBE_BYTES 4096

struct Probe {
	Context *ctx;
	Disk *disk;			/* NULL once the disk is gone (draining) */
	int fd, efd;
	io_context_t aio;
	void *buf;
	sd_event_source *src;
	bool inflight;
	double sent, last;		/* monotonic seconds */
	unsigned completed;		/* since probe_take_completed */
	double completed_seconds;
	uint64_t rng;
	Probe *next_drain;
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static Probe *probe_free(Probe *p)
{
	if (!p)
		return NULL;
	sd_event_source_disable_unref(p->src);
	if (p->aio)
		io_destroy(p->aio);
	if (p->efd >= 0)
		close(p->efd);
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	free(p);
	return NULL;
}

static void unlink_drain(Context *ctx, Probe *p)
{
	for (Probe **q = (Probe **)&ctx->probe_drain; *q; q = &(*q)->next_drain)
		if (*q == p) {
			*q = p->next_drain;
			return;
		}
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Probe *p = userdata;
	uint64_t n;
	struct io_event ev[1];
	struct timespec zero = {0};
	(void)s, (void)revents;
	if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
		return 0;
	int got = io_getevents(p->aio, 0, 1, ev, &zero);
	if (got <= 0)
		return 0;
	p->inflight = false;
	if (!p->disk) {		/* drained: the disk is gone */
		Context *ctx = p->ctx;
		unlink_drain(ctx, p);
		probe_free(p);
		return 0;
	}
	double now = mono_now(), lat = now - p->sent;
	long res = (long)ev[0].res;
	if (res != PROBE_BYTES) {
		log_warning("%s: probe read failed (%s), probing stops for this disk", p->disk->name,
			    res < 0 ? strerror((int)-res) : "short read");
		p->last = INFINITY;
		return 0;
	}
	p->completed++;
	p->completed_seconds += lat;
	monitor_probe_result(p->ctx, p->disk, lat, now);
	return 0;
}

static int probe_open(Context *ctx, Disk *d, Probe **ret)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/dev/%s", d->name);
	Probe *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	*p = (Probe){.ctx = ctx, .disk = d, .fd = -1, .efd = -1, .last = -INFINITY,
		     .rng = (uint64_t)d->sys.major << 32 ^ d->sys.minor ^ (uint64_t)time(NULL)};
	int r = 0;
	p->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC | O_NONBLOCK);
	if (p->fd < 0)
		r = -errno;
	else if (fstat(p->fd, &st) < 0)
		r = -errno;
	else if (!S_ISBLK(st.st_mode) || major(st.st_rdev) != d->sys.major || minor(st.st_rdev) != d->sys.minor)
		r = -ENODEV;	/* /dev/NAME is some other device: never read it */
	else if ((p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		r = -errno;
	else if ((r = io_setup(1, &p->aio)) < 0)
		p->aio = 0;
	else if ((r = -posix_memalign(&p->buf, PROBE_BYTES, PROBE_BYTES)) < 0)
		p->buf = NULL;
	else
		r = sd_event_add_io(ctx->event, &p->src, p->efd, EPOLLIN, on_done, p);
	if (r < 0) {
		log_warning_errno(r, "%s: cannot probe %s, not probing this disk: %m", d->name, path);
		probe_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

void probe_maybe(Context *ctx, Disk *d, double now)
{
	if (!ctx->config.probe || !ctx->real_sysfs || d->sys.size_sectors * 512 < 2 * PROBE_BYTES)
		return;
	if (d->probe_failed || !detect_wants_probe(&d->det, &ctx->config.detect, now))
		return;
	if (!d->probe && probe_open(ctx, d, &d->probe) < 0) {
		d->probe_failed = true;
		return;
	}
	Probe *p = d->probe;
	if (p->inflight || now - p->last < ctx->config.probe_interval)
		return;
	p->rng = p->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t blocks = d->sys.size_sectors * 512 / PROBE_BYTES;
	long long off = (long long)((p->rng >> 17) % blocks) * PROBE_BYTES;
	struct iocb cb, *cbs[1] = {&cb};
	io_prep_pread(&cb, p->fd, p->buf, PROBE_BYTES, off);
	io_set_eventfd(&cb, p->efd);
	p->sent = mono_now();
	int r = io_submit(p->aio, 1, cbs);
	if (r != 1) {
		log_warning_errno(r < 0 ? r : -EIO, "%s: probe submit failed, not probing this disk: %m", d->name);
		d->probe_failed = true;
		return;
	}
	p->inflight = true;
	p->last = now;
}

unsigned probe_take_completed(Disk *d, double *ret_seconds)
{
	Probe *p = d->probe;
	*ret_seconds = 0;
	if (!p)
		return 0;
	unsigned n = p->completed;
	*ret_seconds = p->completed_seconds;
	p->completed = 0;
	p->completed_seconds = 0;
	return n;
}

void probe_disk_gone(Context *ctx, Disk *d)
{
	Probe *p = d->probe;
	if (!p)
		return;
	d->probe = NULL;
	if (!p->inflight) {
		probe_free(p);
		return;
	}
	p->disk = NULL;
	p->next_drain = ctx->probe_drain;
	ctx->probe_drain = p;
}

void probe_stop_all(Context *ctx)
{
	for (size_t i = 0; ctx->disks && i < registry_size(ctx->disks); i++)
		probe_disk_gone(ctx, registry_at(ctx->disks, i));
	/* At exit the kernel waits for in-flight probes whatever we do. */
	while (ctx->probe_drain) {
		Probe *p = ctx->probe_drain;
		ctx->probe_drain = p->next_drain;
		probe_free(p);
	}
}
