/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One read of /proc/diskstats per interval, whatever the number of disks.
 * The timer is rescheduled from its previous deadline so samples do not
 * drift, and a late wake-up is measured, not assumed.
 */
#include "sampler.h"

#include <fcntl.h>
#include <time.h>

#include "discovery.h"
#include "log.h"
#include "monitor.h"
#include "service.h"
#include "tracer.h"

#define DISKSTATS_MAX_BYTES (32 * 1024 * 1024)
#define RESCAN_INTERVAL_USEC (60 * UINT64_C(1000000))

typedef struct SampleRun {
	Context *ctx;
	uint64_t now;
	unsigned duplicates;
} SampleRun;

static void on_line(const DiskstatLine *l, void *userdata)
{
	SampleRun *run = userdata;
	Disk *d = registry_get(run->ctx->disks, l->name);
	if (!d || d->sys.major != l->major || d->sys.minor != l->minor)
		return;
	if (d->seen) {
		run->duplicates++;	/* a second line for one device: the first counts */
		return;
	}
	d->seen = true;
	if (d->ds.primed && run->ctx->last_sample_usec && run->now > run->ctx->last_sample_usec)
		d->interval = (double)(run->now - run->ctx->last_sample_usec) / 1e6;
	uint64_t resets = d->ds.resets;
	diskstats_accumulate(&d->ds, l);
	run->ctx->diskstats_resets += d->ds.resets - resets;
}

int sampler_sample(Context *ctx, uint64_t now_usec)
{
	_cleanup_free_ char *text = NULL;
	const uint64_t log_every = 60;	/* samples between repeated warnings */

	int r = read_file_at(ctx->procfs_fd, "diskstats", DISKSTATS_MAX_BYTES, &text, NULL);
	if (r < 0) {
		if (ctx->diskstats_read_errors++ % log_every == 0)
			log_warning_errno(r, "Failed to read diskstats, keeping the last values: %m");
		return r;
	}
	for (size_t i = 0; i < registry_size(ctx->disks); i++)
		registry_at(ctx->disks, i)->seen = false;

	SampleRun run = {.ctx = ctx, .now = now_usec};
	unsigned bad = diskstats_parse(text, on_line, &run) + run.duplicates;
	if (bad && ctx->diskstats_bad_lines == 0)
		log_warning("diskstats has %u malformed line(s), ignoring them", bad);
	ctx->diskstats_bad_lines += bad;
	ctx->last_sample_usec = now_usec;
	ctx->samples++;

	/* A disk missing from diskstats may be gone: let discovery check. */
	for (size_t i = registry_size(ctx->disks); i-- > 0;) {
		Disk *d = registry_at(ctx->disks, i);
		if (!d->seen) {
			char name[sizeof d->name];
			snprintf(name, sizeof name, "%s", d->name);
			discovery_check(ctx, name);
		}
	}
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	Context *ctx = userdata;
	uint64_t step = (uint64_t)(ctx->config.interval * 1e6), now;

	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	if (!ctx->real_sysfs || now - ctx->last_rescan_usec >= RESCAN_INTERVAL_USEC) {
		discovery_scan(ctx);
		ctx->last_rescan_usec = now;
	}
	sampler_sample(ctx, now);
	tracer_sync(ctx);
	tracer_collect(ctx);
	monitor_tick(ctx, now);
	service_sampled(ctx);
	uint64_t next = usec + step;
	if (next <= now)
		next = now + step;	/* we were late by more than a whole interval */
	sd_event_source_set_time(s, next);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

int sampler_start(Context *ctx)
{
	uint64_t now;
	int r = sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;
	ctx->last_rescan_usec = now;
	r = sd_event_add_time(ctx->event, &ctx->sample_timer, CLOCK_MONOTONIC,
			      now + (uint64_t)(ctx->config.interval * 1e6), 1000, on_timer, ctx);
	if (r < 0)
		return r;
	/* Sampling comes first: a flood of scrapes or clients must not delay it. */
	return sd_event_source_set_priority(ctx->sample_timer, SD_EVENT_PRIORITY_IMPORTANT);
}

void sampler_stop(Context *ctx)
{
	ctx->sample_timer = sd_event_source_disable_unref(ctx->sample_timer);
}
