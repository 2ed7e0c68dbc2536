/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild guard's judgement and sentences. A disk is a risk when it
 * is SMR, or when it was seen destaging (storms are what make a resilver
 * slow, whatever the label says), or when smrd knows nothing of it: an
 * unknown disk never qualified may be a DM-SMR disk its maker does not
 * declare, which is how the disks of the 2020 resilver reports were sold.
 */
#include "guard.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "eta.h"
#include "format.h"
#include "util.h"

static const char *const risk_names[_REBUILD_RISK_MAX] = {
	[REBUILD_RISK_NONE] = "none", [REBUILD_RISK_UNTESTED] = "untested",
	[REBUILD_RISK_STORMS] = "storms", [REBUILD_RISK_SMR] = "smr",
};

const char *rebuild_risk_to_string(RebuildRisk r)
{
	return (unsigned)r < _REBUILD_RISK_MAX ? risk_names[r] : NULL;
}

static RebuildRisk risk_of(const RebuildFacts *f)
{
	switch (f->disk_class) {
	case DISK_CLASS_DM_SMR: case DISK_CLASS_HOST_AWARE: case DISK_CLASS_HOST_MANAGED:
		return REBUILD_RISK_SMR;
	case DISK_CLASS_CMR: case DISK_CLASS_SSD: case DISK_CLASS_UNKNOWN:
		break;
	case _DISK_CLASS_MAX: case _DISK_CLASS_INVALID:
		break;
	}
	if (f->storms || f->storm_now)
		return REBUILD_RISK_STORMS;
	if (f->disk_class == DISK_CLASS_UNKNOWN && !f->qualified)
		return REBUILD_RISK_UNTESTED;
	return REBUILD_RISK_NONE;
}

static void evidence(const RebuildFacts *f, RebuildRisk risk, char *buf, size_t n)
{
	char d[FORMAT_MAX];
	const char *basis = f->basis && *f->basis ? f->basis : "no evidence";
	int k = 0;
	switch (risk) {
	case REBUILD_RISK_SMR:
		k = snprintf(buf, n, "%s (%s)", f->by_behaviour ? "dm-smr by behaviour" : disk_class_to_string(f->disk_class),
			     basis);
		break;
	case REBUILD_RISK_STORMS:
		k = snprintf(buf, n, "%s, but seen in destage storms", disk_class_to_string(f->disk_class));
		break;
	case REBUILD_RISK_UNTESTED:
		k = snprintf(buf, n, "class unknown (%s) and never qualified", basis);
		break;
	case REBUILD_RISK_NONE: case _REBUILD_RISK_MAX: case _REBUILD_RISK_INVALID:
		k = snprintf(buf, n, "%s (%s)", disk_class_to_string(f->disk_class), basis);
		break;
	}
	if (k < 0 || (size_t)k >= n)
		return;
	if (f->storms)
		k += snprintf(buf + k, n - (size_t)k, "; %" PRIu64 " destage storm(s) on record", f->storms);
	if ((size_t)k < n && f->storm_now)
		snprintf(buf + k, n - (size_t)k, "; in a destage storm for %s", format_duration(d, f->storm_seconds));
}

static double expected(const RebuildFacts *f, RebuildRisk risk)
{
	double fast = isfinite(f->fast_bps) && f->fast_bps > 0 ? f->fast_bps : REBUILD_FAST_BPS_DEFAULT;
	if (!(f->size_bytes > 0))
		return NAN;
	if (f->model && disk_model_known(f->model))
		return rebuild_expected_seconds(f->model, f->size_bytes, fast);
	/* no cliff known: only a disk without one has an estimate */
	return risk == REBUILD_RISK_NONE ? rebuild_expected_seconds(NULL, f->size_bytes, fast) : NAN;
}

void rebuild_check(const RebuildFacts *f, RebuildCheck *ret)
{
	RebuildCheck c = {.risk = risk_of(f)};
	c.warn = c.risk != REBUILD_RISK_NONE;
	evidence(f, c.risk, c.evidence, sizeof c.evidence);
	c.expected_seconds = expected(f, c.risk);
	const char *advice = "";
	switch (c.risk) {
	case REBUILD_RISK_SMR:
	case REBUILD_RISK_STORMS:
		/* what else the rebuild risks (zed's slow I/O diagnosis) is the forecast's advice, per pool */
		advice = "a rebuild onto it may take many times as long as onto a CMR disk: replace onto a CMR disk if "
			 "you can";
		break;
	case REBUILD_RISK_UNTESTED:
		advice = "smrd cannot tell whether it is SMR: run smrctl qualify on it before zpool replace, or "
			 "watch the resilver for destage storms";
		break;
	case REBUILD_RISK_NONE: case _REBUILD_RISK_MAX: case _REBUILD_RISK_INVALID:
		advice = "no SMR evidence: a rebuild runs at the disk's own rate";
		break;
	}
	snprintf(c.advice, sizeof c.advice, "%s", advice);
	*ret = c;
}

void zfs_event_text(const ZfsEvent *e, const char *device, const char *disk_class, double storm_seconds,
		    char buf[static REBUILD_TEXT_MAX])
{
	char d[FORMAT_MAX], st[FORMAT_MAX];
	const char *where = device ? device : e->vdev_path[0] ? e->vdev_path : "";
	int k = snprintf(buf, REBUILD_TEXT_MAX, "ZFS %s on %s%s%s", e->subclass, e->pool, *where ? "/" : "", where);
	if (k < 0 || k >= REBUILD_TEXT_MAX)
		return;
	bool slow_io = e->kind == ZFS_EVENT_DELAY || e->kind == ZFS_EVENT_DEADMAN || e->kind == ZFS_EVENT_SITOUT;
	if (e->has_zio_delay)
		k += snprintf(buf + k, REBUILD_TEXT_MAX - (size_t)k, " (an I/O took %s)",
			      format_duration(d, (double)e->zio_delay_ns / 1e9));
	if (k < REBUILD_TEXT_MAX && e->vdev_state[0])
		k += snprintf(buf + k, REBUILD_TEXT_MAX - (size_t)k, " (now %s)", e->vdev_state);
	if (k >= REBUILD_TEXT_MAX || !device)
		return;
	bool smr = disk_class && (streq(disk_class, "dm-smr") || streq(disk_class, "host-aware"));
	if (isfinite(storm_seconds))
		snprintf(buf + k, REBUILD_TEXT_MAX - (size_t)k, ", a%s disk in a destage storm for %s%s",
			 smr ? " DM-SMR" : "", format_duration(st, storm_seconds),
			 slow_io ? ": the storm explains the slow I/O" : "");
	else if (smr && slow_io)
		snprintf(buf + k, REBUILD_TEXT_MAX - (size_t)k, ", a DM-SMR disk (no destage storm under way)");
}
