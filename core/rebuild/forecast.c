/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rebuild's forecast and advice (forecast.h). The duration is the media
 * cache at the fast rate and the rest at the rate past it (eta.h's
 * model); the range around it is how far the figures can be trusted:
 * qualify's measured ones within a fifth, the ones learnt from storms
 * (another workload than a rebuild's) within a third, and with none of the
 * disk's own, the published spread of DM-SMR disks, or of a 3.5" disk's
 * sequential rate where there is no cliff.
 */
#include "forecast.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "eta.h"
#include "format.h"
#include "util.h"

static const char *const figures_names[_REBUILD_FIGURES_MAX] = {
	[REBUILD_FIGURES_QUALIFY] = "qualify", [REBUILD_FIGURES_LEARNT] = "learnt",
	[REBUILD_FIGURES_PUBLISHED] = "published",
};

const char *rebuild_figures_to_string(RebuildFigures f)
{
	return (unsigned)f < _REBUILD_FIGURES_MAX ? figures_names[f] : NULL;
}

/* The cache at fast, the rest at rate. */
static double seconds(double bytes, double cache, double fast, double rate)
{
	double in_cache = isfinite(cache) && cache > 0 ? fmin(cache, bytes) : 0;
	return in_cache / fast + fmax(bytes - in_cache, 0) / rate;
}

static bool cliff(const ForecastFacts *f)
{
	DiskClass c = f->disk.disk_class;
	return !(c == DISK_CLASS_CMR || c == DISK_CLASS_SSD) || f->disk.storms || f->disk.storm_now;
}

static void duration(const ForecastFacts *f, RebuildForecast *r)
{
	double fast = isfinite(f->disk.fast_bps) && f->disk.fast_bps > 0 ? f->disk.fast_bps : REBUILD_FAST_BPS_DEFAULT;
	double b = r->bytes, size = f->disk.size_bytes > 0 ? f->disk.size_bytes : b;
	const DiskModel *m = f->disk.model;
	/* a storm's end gives the rate past the cliff; its cliff alone, the cache */
	double learnt_cache = m && disk_model_known(m) ? m->media_cache_bytes : NAN;
	bool learnt = isfinite(learnt_cache) && isfinite(m->slow_write_bps) && m->slow_write_bps > 0;
	char c1[FORMAT_MAX], c2[FORMAT_MAX], c3[FORMAT_MAX];
	r->expected = r->low = r->high = NAN;
	if (!cliff(f)) {
		/* its own rate never measured: a 3.5" disk's */
		r->figures = REBUILD_FIGURES_PUBLISHED;
		r->expected = b / REBUILD_FAST_BPS_DEFAULT;
		r->low = b / FORECAST_CMR_HIGH_BPS, r->high = b / FORECAST_CMR_LOW_BPS;
		snprintf(r->figures_text, sizeof r->figures_text, "no cliff (%s): a 3.5\" disk's sequential %s to %s",
			 disk_class_to_string(f->disk.disk_class), format_rate(c1, FORECAST_CMR_LOW_BPS),
			 format_rate(c2, FORECAST_CMR_HIGH_BPS));
		return;
	}
	if (isfinite(f->tuned_cache) && f->tuned_cache > 0 && isfinite(f->tuned_rate) && f->tuned_rate > 0) {
		r->figures = REBUILD_FIGURES_QUALIFY;
		r->expected = seconds(b, f->tuned_cache, fast, f->tuned_rate);
		r->low = r->expected * 0.8, r->high = r->expected * 1.2;
		snprintf(r->figures_text, sizeof r->figures_text, "smrctl qualify's: a %s media cache, %s past it",
			 format_size(c1, f->tuned_cache), format_rate(c2, f->tuned_rate));
		return;
	}
	if (learnt) {
		double cache = isfinite(f->tuned_cache) && f->tuned_cache > 0 ? f->tuned_cache : m->media_cache_bytes;
		r->figures = REBUILD_FIGURES_LEARNT;
		r->expected = seconds(b, cache, fast, m->slow_write_bps);
		r->low = r->expected * 0.7, r->high = r->expected * 1.3;
		snprintf(r->figures_text, sizeof r->figures_text, "learnt from its storms: a %s media cache, %s past it",
			 format_size(c1, cache), format_rate(c2, m->slow_write_bps));
		return;
	}
	/* no rate of its own: the published DM-SMR shapes, a range only */
	r->figures = REBUILD_FIGURES_PUBLISHED;
	bool own_cache = (isfinite(f->tuned_cache) && f->tuned_cache > 0) || isfinite(learnt_cache);
	double cache = isfinite(f->tuned_cache) && f->tuned_cache > 0 ? f->tuned_cache
		       : isfinite(learnt_cache)			      ? learnt_cache
									      : size * FORECAST_SMR_CACHE_SHARE;
	r->low = seconds(b, cache, fast, FORECAST_SMR_HIGH_BPS);
	r->high = seconds(b, cache, fast, FORECAST_SMR_LOW_BPS);
	if (f->disk.disk_class == DISK_CLASS_UNKNOWN && !f->disk.storms)
		r->low = b / FORECAST_CMR_HIGH_BPS;	/* it may have no cliff at all */
	if (own_cache)
		snprintf(r->figures_text, sizeof r->figures_text,
			 "its media cache (%s) but no rate past it (smrctl qualify measures it): DM-SMR disks publish %s "
			 "to %s", format_size(c3, cache), format_rate(c1, FORECAST_SMR_LOW_BPS),
			 format_rate(c2, FORECAST_SMR_HIGH_BPS));
	else
		snprintf(r->figures_text, sizeof r->figures_text,
			 "none of its own (smrctl qualify measures them): DM-SMR disks publish %s to %s past a cache of "
			 "~1%% of their size", format_rate(c1, FORECAST_SMR_LOW_BPS), format_rate(c2, FORECAST_SMR_HIGH_BPS));
}

static ForecastAdvice *advise(RebuildForecast *r, bool warns, const char *measured_fmt, ...) _printf_(3, 4);
static ForecastAdvice *advise(RebuildForecast *r, bool warns, const char *measured_fmt, ...)
{
	if (r->n_advice == FORECAST_ADVICE_MAX)
		return NULL;
	ForecastAdvice *a = &r->advice[r->n_advice++];
	*a = (ForecastAdvice){.warns = warns};
	va_list ap;
	va_start(ap, measured_fmt);
	vsnprintf(a->measured, sizeof a->measured, measured_fmt, ap);
	va_end(ap);
	return a;
}

/* zed's slow I/O diagnosis of the vdev the disk would join. */
static void advise_slow_io(const ForecastFacts *f, RebuildForecast *r)
{
	const SlowIoSetting *s = &f->slow_io_setting;
	const char *vdev = f->vdev && *f->vdev ? f->vdev : "its vdev";
	ForecastAdvice *a;
	switch (f->slow_io) {
	case FORECAST_SLOW_IO_CAN_TRIP:
		/* armed on any disk; a storm is what delays most of a disk's I/O at once */
		a = advise(r, cliff(f), "slow_io_n=%llu on %.80s, slow_io_t=%llu on %.80s (zpool get); ZFS posts up to %d "
			   "delay events a second of a disk, and a destage storm delays most of its I/O",
			   (unsigned long long)s->n, s->n_from, (unsigned long long)s->t, s->t_from, SLOW_IO_EVENTS_PER_SECOND);
		if (a && !a->warns)
			snprintf(a->text, sizeof a->text, "zed's slow I/O diagnosis is armed there, but a disk without "
				 "destage storms (%s) seldom delays I/O past zio_slow_io_ms",
				 disk_class_to_string(f->disk.disk_class));
		else if (a)
			/* zio.c reads slow_io_events on the leaf alone: the disk's own vdev, once added */
			snprintf(a->text, sizeof a->text, "zed may fault it mid-rebuild for slow I/O: once the replace added "
				 "it, zpool set slow_io_events=off %.40s VDEV, VDEV its vdev as zpool status names it "
				 "(OpenZFS 2.4 and later; read on the disk's own vdev only), or unset slow_io_n and "
				 "slow_io_t where set",
				 f->where ? f->where + (startswith(f->where, "ZFS pool ") ? 9 : 0) : "POOL");
		break;
	case FORECAST_SLOW_IO_SAFE:
		a = advise(r, false, "slow_io_n=%llu slow_io_t=%llu (zpool get): more delay events than ZFS posts in "
			   "that time", (unsigned long long)s->n, (unsigned long long)s->t);
		if (a)
			snprintf(a->text, sizeof a->text, "zed's slow I/O diagnosis cannot trip on it as set");
		break;
	case FORECAST_SLOW_IO_UNSET:
		a = advise(r, false, "slow_io_n and slow_io_t not set on %.80s nor above it (zpool get)", vdev);
		if (a)
			snprintf(a->text, sizeof a->text, "zed does not fault it for slow I/O: keep slow_io_n and slow_io_t "
				 "unset during the rebuild (OpenZFS 2.4 and later: slow_io_events=off stops even the events)");
		break;
	default:
		a = advise(r, false, "%.200s", f->slow_io_why && *f->slow_io_why ? f->slow_io_why : "not read");
		if (a)
			snprintf(a->text, sizeof a->text, "whether zed may fault it for slow I/O is not known: check "
				 "zpool get slow_io_n,slow_io_t POOL all-vdevs");
		break;
	}
}

/* A rebuild in order, where the layout allows one. */
static void advise_order(const ForecastFacts *f, RebuildForecast *r, bool risky)
{
	const char *vdev = f->vdev && *f->vdev ? f->vdev : "";
	ForecastAdvice *a = NULL;
	if (f->join == REBUILD_JOIN_BTRFS) {
		a = advise(r, false, "%.200s", f->where ? f->where : "a btrfs file system");
		if (a)
			snprintf(a->text, sizeof a->text, "btrfs replace start (not device add with remove or balance) "
				 "copies only the source's chunks, in order; btrfs replace cancel %.120s stops it", vdev);
		return;
	}
	switch (f->layout) {
	case VDEV_LAYOUT_MIRROR:
	case VDEV_LAYOUT_DRAID:
		a = advise(r, false, "%.80s is a %s (zpool status -P)", vdev, vdev_layout_to_string(f->layout));
		if (a)
			snprintf(a->text, sizeof a->text, "zpool replace -s (a sequential rebuild) writes the vdev in "
				 "order, what a DM-SMR disk takes best; a scrub verifies it when it is done");
		break;
	case VDEV_LAYOUT_RAIDZ:
		a = advise(r, risky, "%.80s is a raidz of %u disks (zpool status -P)", vdev, f->children);
		if (a)
			snprintf(a->text, sizeof a->text, "a raidz resilvers only by healing (no zpool replace -s): it "
				 "writes small chunks, what a DM-SMR disk takes slowest%s",
				 risky ? ": replace onto a CMR disk if you can" : "");
		break;
	default:
		break;
	}
}

/* The kernel aborts a command past its timeout: a stall must fit in it. */
static void advise_timeout(const ForecastFacts *f, RebuildForecast *r)
{
	char t[FORMAT_MAX], w[FORMAT_MAX];
	if (!isfinite(f->io_timeout) || f->io_timeout <= 0)
		return;
	ForecastAdvice *a;
	if (!(f->worst_stall > 0)) {
		a = advise(r, false, "command timeout %s (queue/io_timeout); no stall seen by smrd yet",
			   format_duration(t, f->io_timeout));
		if (a)
			snprintf(a->text, sizeof a->text, "its stalls are not known yet: a DM-SMR disk's reach tens of "
				 "seconds (published: up to 200 s)");
		return;
	}
	bool short_ = f->io_timeout < 2 * f->worst_stall;
	a = advise(r, short_, "command timeout %s (queue/io_timeout), its worst stall %s", format_duration(t, f->io_timeout),
		   format_duration(w, f->worst_stall));
	if (!a)
		return;
	if (short_)
		snprintf(a->text, sizeof a->text, "raise its command timeout to twice its worst stall or more: echo %.0f > "
			 "/sys/block/%.31s/device/timeout (seconds; SCSI and SATA disks)", ceil(2 * f->worst_stall),
			 f->device ? f->device : "DEV");
	else
		snprintf(a->text, sizeof a->text, "its command timeout is over twice its worst stall");
}

void rebuild_forecast(const ForecastFacts *f, RebuildForecast *ret)
{
	RebuildForecast r = {0};
	rebuild_check(&f->disk, &r.check);
	if (isfinite(f->bytes) && f->bytes >= 0) {
		r.bytes = f->bytes;
		snprintf(r.bytes_from, sizeof r.bytes_from, "%s", f->bytes_from ? f->bytes_from : "");
	} else {
		r.bytes = f->disk.size_bytes;
		snprintf(r.bytes_from, sizeof r.bytes_from, "%s",
			 f->join == REBUILD_JOIN_NONE ? "the whole disk at most (name the pool or file system it joins)"
						      : "the whole disk at most (what it would take is not known)");
	}
	duration(f, &r);
	if (f->join == REBUILD_JOIN_ZFS)
		advise_slow_io(f, &r);
	advise_order(f, &r, r.check.warn);
	advise_timeout(f, &r);
	r.warn = r.check.warn;
	for (unsigned i = 0; i < r.n_advice; i++)
		r.warn |= r.advice[i].warns;
	*ret = r;
}
