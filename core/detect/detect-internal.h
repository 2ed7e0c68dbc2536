/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the detector's files share and nobody else uses: detect.c (storms,
 * waits, stalls) and detect-evidence.c (idle cleaning, bands, the score).
 */
#pragma once

#include "detect.h"

static inline const char *detect_op_name(int op)
{
	static const char *const n[] = {"read", "write", "discard", "flush"};
	return op >= 0 && op < 4 ? n[op] : "io";
}

static inline void detect_emit(DetectEmit emit, void *userdata, DetectEvent *e)
{
	if (emit)
		emit(e, userdata);
}

static inline DetectInterval *detect_ring(const DiskDetect *d)
{
	return d->ring.heap ? d->ring.heap : (DetectInterval *)d->ring.slots;
}

/* Whether a flush or discard that took collapse-stall or longer was in
 * flight during [start, end]: what waited then waited for it. */
bool detect_shadowed(const DiskDetect *d, double start, double end);
/* A flush or discard in flight from start to end (detect-waits.c). */
void detect_shadow_add(DiskDetect *d, double start, double end);
/* What the hypervisor took from the CPUs while something waited from start to end. */
double detect_stolen_during(const DiskDetect *d, double start, double end);
/* An interval in which the hypervisor stole CPU time. */
void detect_steal_add(DiskDetect *d, double start, double end, double stolen);
/* Frees the stolen intervals (detect-waits.c). */
void detect_waits_done(DiskDetect *d);
/* Idle cleaning: within idle-after of a storm, no storm under way. */
bool detect_after_storm(const DiskDetect *d, const DetectParams *p, double now);
void detect_idle_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt, DetectEmit emit,
		       void *userdata);
void detect_bands_check(DiskDetect *d, const DetectParams *p, const DetectSample *s, DetectEmit emit, void *userdata);
void detect_cache_params(const DetectParams *p, CacheParams *ret);
/* The cache model changed: a media-cache event carries it to the history. */
void detect_cache_changed(DiskDetect *d, double now, DetectEmit emit, void *userdata);
/* Frees what the media cache and the idle budget allocated. */
void detect_cache_done(DiskDetect *d);
/* The media cache's and the idle budget's share of an interval. */
void detect_cache_interval(DiskDetect *d, const DetectParams *p, const DetectSample *s, double dt);
/* The idle-recovery event of a point the last cliff gave, if it gave one. */
void detect_idle_point(DiskDetect *d, double now, DetectEmit emit, void *userdata);
/* One stall event at time t: counted in its minute of the hour's ring. */
void detect_stall_minute(DiskDetect *d, double t);
/* The forecast for this interval, and a stall-imminent warning once per fill. */
void detect_forecast(DiskDetect *d, const DetectParams *p, double now, DetectEmit emit, void *userdata);
