/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Safety first: only on a device node whose st_rdev is the disk's
 * major:minor (the monitor asks only with the real /sys), read-only,
 * O_DIRECT (the page cache must not answer), and never more than one I/O in
 * flight per disk. io_destroy() waits for in-flight I/O, so a disk that goes
 * away with a probe outstanding hands it to a drain list reaped from the
 * eventfd, instead of blocking the loop behind a stalled disk.
 */
#include "prober.h"

#include <fcntl.h>
#include <libaio.h>
#include <math.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "log.h"

#define PROBE_BYTES 4096

struct Prober {
	sd_event *event;
	char *dev_dir;
	ProberCallbacks cb;
	struct Probe *drain;		/* probes of vanished disks, still in flight */
};

typedef struct Probe Probe;

struct Probe {
	Prober *owner;
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

static void unlink_drain(Prober *owner, Probe *p)
{
	for (Probe **q = &owner->drain; *q; q = &(*q)->next_drain)
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
		unlink_drain(p->owner, p);
		probe_free(p);
		return 0;
	}
	double now = now_seconds(CLOCK_MONOTONIC), lat = now - p->sent;
	long res = (long)ev[0].res;
	if (res != PROBE_BYTES) {
		log_warning("%s: probe read failed (%s), probing stops for this disk", p->disk->name,
			    res < 0 ? strerror((int)-res) : "short read");
		p->last = INFINITY;
		return 0;
	}
	p->completed++;
	p->completed_seconds += lat;
	if (p->owner->cb.result)
		p->owner->cb.result(p->disk, lat, now, p->owner->cb.userdata);
	return 0;
}

static int probe_open(Prober *owner, Disk *d, Probe **ret)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", owner->dev_dir, d->name);
	Probe *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	*p = (Probe){.owner = owner, .disk = d, .fd = -1, .efd = -1, .last = -INFINITY,
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
		r = sd_event_add_io(owner->event, &p->src, p->efd, EPOLLIN, on_done, p);
	if (r < 0) {
		log_warning_errno(r, "%s: cannot probe %s, not probing this disk: %m", d->name, path);
		probe_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

void prober_maybe(Prober *owner, ProbeSlot *slot, Disk *d, double now, double spacing)
{
	if (!owner || slot->failed || d->sys.size_sectors * 512 < 2 * PROBE_BYTES)
		return;
	if (!slot->probe && probe_open(owner, d, &slot->probe) < 0) {
		slot->failed = true;
		return;
	}
	Probe *p = slot->probe;
	if (p->inflight || now - p->last < spacing)
		return;
	p->rng = p->rng * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t blocks = d->sys.size_sectors * 512 / PROBE_BYTES;
	long long off = (long long)((p->rng >> 17) % blocks) * PROBE_BYTES;
	struct iocb cb, *cbs[1] = {&cb};
	io_prep_pread(&cb, p->fd, p->buf, PROBE_BYTES, off);
	io_set_eventfd(&cb, p->efd);
	p->sent = now_seconds(CLOCK_MONOTONIC);
	int r = io_submit(p->aio, 1, cbs);
	if (r != 1) {
		log_warning_errno(r < 0 ? r : -EIO, "%s: probe submit failed, not probing this disk: %m", d->name);
		slot->failed = true;
		return;
	}
	p->inflight = true;
	p->last = now;
}

unsigned prober_take_completed(ProbeSlot *slot, double *ret_seconds)
{
	Probe *p = slot->probe;
	*ret_seconds = 0;
	if (!p)
		return 0;
	unsigned n = p->completed;
	*ret_seconds = p->completed_seconds;
	p->completed = 0;
	p->completed_seconds = 0;
	return n;
}

void prober_disk_gone(Prober *owner, ProbeSlot *slot)
{
	Probe *p = slot->probe;
	if (!p)
		return;
	slot->probe = NULL;
	if (!p->inflight) {
		probe_free(p);
		return;
	}
	p->disk = NULL;
	p->next_drain = owner->drain;
	owner->drain = p;
}

int prober_new(sd_event *e, const char *dev_dir, const ProberCallbacks *cb, Prober **ret)
{
	Prober *p = calloc(1, sizeof *p);
	if (!p || !(p->dev_dir = strdup(dev_dir))) {
		free(p);
		return -ENOMEM;
	}
	p->event = sd_event_ref(e);
	p->cb = cb ? *cb : (ProberCallbacks){0};
	*ret = p;
	return 0;
}

Prober *prober_free(Prober *owner)
{
	if (!owner)
		return NULL;
	/* At exit the kernel waits for in-flight probes whatever we do. */
	while (owner->drain) {
		Probe *p = owner->drain;
		owner->drain = p->next_drain;
		probe_free(p);
	}
	sd_event_unref(owner->event);
	free(owner->dev_dir);
	free(owner);
	return NULL;
}
