/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The detector's parameters: each a config key "detect.<name>" and a flag
 * --detect.<name>, with its default, its range and one line of why; the
 * reasons at length are in docs/detection.md.
 */
#include "detect.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "format.h"
#include "util.h"

typedef struct Param {
	const char *name;
	size_t offset;
	double def, min, max;
	const char *help;
} Param;

#define P(n, f, d, lo, hi, h) {n, offsetof(DetectParams, f), d, lo, hi, h}
static const Param params[] = {
	P("fast-latency", fast_latency, 0.001, 1e-5, 1,
	  "seconds of busy time per write at or under which writes are faster than platters (a cache)"),
	P("fast-transfer", fast_transfer, 52428800, 1048576, 1e12,
	  "bytes a second: a write of B bytes may take B / fast-transfer more than fast-latency"),
	P("fast-iops", fast_iops, 100, 1, 1e7, "and at least this many a second"),
	P("fast-memory", fast_memory, 1800, 10, 86400, "seconds a fast phase is remembered as a storm's prelude"),
	P("collapse-ratio", collapse_ratio, 3, 1.5, 1e4,
	  "write completions a second fall at least this factor below the fast phase's, with the queue busy"),
	P("collapse-stall", collapse_stall, 0.1, 0.001, 60,
	  "seconds: a write waiting this long, and longer than queue-wait per I/O in flight, waits for a band rewrite"),
	P("queue-wait", queue_wait, 0.005, 0.0001, 10,
	  "seconds per I/O in flight that a write may wait behind the others on a disk that only queues"),
	P("stall-spread", stall_spread, 10, 2, 1e4, "and this many times the interval's median write latency"),
	P("collapse-service", collapse_service, 0.05, 0.001, 60,
	  "seconds of busy time per completed I/O that, with writes crawling, show them waiting"),
	P("crawl-rate", crawl_rate, 2097152, 1024, 1e10,
	  "bytes written a second of busy time at or under which writes are waiting, not transferring"),
	P("busy", busy, 0.8, 0.1, 1, "share of the interval with I/O in flight that counts as a busy queue"),
	P("wait-share", wait_share, 0.25, 0.01, 1,
	  "share of a storm's slow time that writes spent waiting (a 3x fall made by waits loses two thirds)"),
	P("host-steal", host_steal, 0.2, 0.01, 1,
	  "share of an interval a CPU lost to the hypervisor (/proc/stat steal) that counts as a host stall "
	  "(a write's wait counts only beyond the steal)"),
	P("storm-confirm", storm_confirm, 2.5, 1, 30, "seconds of collapse within storm-window that start a storm"),
	P("storm-window", storm_window, 3, 1, 30,
	  "seconds (shorter than the ~5 s between a DM-SMR disk's hiccups in its fast phase)"),
	P("storm-end", storm_end, 5, 1, 3600, "seconds without collapse that end a storm"),
	P("storm-onset", storm_onset, 10, 2, 3600,
	  "seconds after the fall within which writes must start waiting: an SSD past its SLC cache falls without a wait"),
	P("slow-confirm", slow_confirm, 20, 3, 3600,
	  "seconds of busy writing, with no fast phase seen, that recognise a disk already in its slow phase"),
	P("slow-fast-share", slow_fast_share, 0.25, 0.01, 1,
	  "... from this share of writes acknowledged faster than platters (fast-latency per I/O in flight)"),
	P("slow-stall", slow_stall, 0.25, 0.01, 60,
	  "... mixed with at least three writes waiting this long (and queue-wait per I/O in flight)"),
	P("slow-service", slow_service, 0.2, 0.01, 60,
	  "... or from this many seconds of busy time per completed write (every write waits)"),
	P("stall-threshold", stall_threshold, 1, 0.001, 3600,
	  "seconds: slower I/Os are stall events (stall-threshold.DEVICE for one disk)"),
	P("timeout-share", timeout_share, 0.5, 0.05, 1,
	  "a stall this share of queue/io_timeout raises a timeout-risk warning"),
	P("band-window", band_window, 600, 10, 600, "seconds of per-op histogram searched for latency bands"),
	P("band-min-share", band_min_share, 0.02, 0, 0.5, "a band holds at least this share of the I/Os"),
	P("band-min-count", band_min_count, 5, 1, 1e6, "and at least this many I/Os"),
	P("band-valley", band_valley, 0.5, 0.01, 0.99,
	  "peaks are separate bands only if the density between them drops below this share of the smaller"),
	P("band-slow", band_slow, 0.1, 0.001, 100,
	  "seconds: a read band this slow is not seek and rotation (SMR evidence)"),
	P("band-ratio", band_ratio, 10, 1.5, 1e4, "and at least this many times the fastest read band"),
	P("idle-max-iops", idle_max_iops, 50, 1, 1e6, "the host sends little: at most this many I/Os a second"),
	P("idle-read-slow", idle_read_slow, 0.1, 0.001, 100, "seconds: a read this slow on a quiet disk waits for cleaning"),
	P("idle-after", idle_after, 600, 10, 86400, "seconds after a destage storm that idle cleaning is looked for"),
	P("idle-confirm", idle_confirm, 2, 1, 100, "slow quiet seconds within idle-end that start an idle-cleaning episode"),
	P("idle-end", idle_end, 30, 1, 3600, "seconds without one that end it"),
	P("half-life", half_life, 86400, 60, 1e8, "seconds for a piece of behavioural evidence to lose half its weight"),
	P("weight-storm", w_storm, 0.9, 0, 1, "GC score weight of a destage storm"),
	P("weight-idle", w_idle, 0.35, 0, 1, "of idle-time cleaning (CMR disks with a media cache do it too)"),
	P("weight-band", w_band, 0.35, 0, 1, "of a slow read band"),
	P("weight-stall", w_stall, 0.25, 0, 1, "of a stall (failing CMR disks stall too)"),
	P("score-without-storm", score_without_storm, 0.2, 0, 1,
	  "the highest GC score without a destage storm on record: idle seeking, slow reads and stalls have other causes"),
	P("cache-seq-size", cache_seq_size, 262144, 4096, 1e10,
	  "bytes: writes this large on average are a sequential stream, which a DM-SMR disk sends to its bands, not its media cache"),
	P("cache-rate-window", cache_rate_window, 10, 1, 15, "seconds the media cache's fill rate is averaged over for the forecast"),
	P("forecast-warn", forecast_warn, 300, 10, 86400,
	  "seconds: a stall forecast this near is a stall-imminent warning (and the SMRDiskStallImminent alert)"),
	P("forecast-min", forecast_min, 30, 0, 3600,
	  "seconds: a fill first forecast nearer than this has no forecast (nobody can act in time; the storm says it)"),
	P("behaviour-score", behaviour_score, 0.5, 0, 1,
	  "a disk without static SMR evidence that storms and reaches this score becomes dm-smr (behaviour)"),
};

static double *param_slot(DetectParams *p, const Param *it) { return (double *)((char *)p + it->offset); }

void detect_params_init(DetectParams *p)
{
	*p = (DetectParams){0};
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		*param_slot(p, &params[i]) = params[i].def;
}

static const Param *find_param(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		if (streq(params[i].name, name))
			return &params[i];
	return NULL;
}

#define OVERRIDE_PREFIX "stall-threshold."

/* Names that meant something once: accepted, with a warning, so that an
 * old smrd.conf still loads. */
static const struct {
	const char *name, *why;
} retired[] = {
	{"idle-burst", "idle cleaning is looked for after a destage storm, not after any write burst"},
};

static const char *retired_why(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(retired); i++)
		if (streq(retired[i].name, name))
			return retired[i].why;
	return NULL;
}

bool detect_param_known(const char *name)
{
	return find_param(name) || retired_why(name) || (startswith(name, OVERRIDE_PREFIX) && name[strlen(OVERRIDE_PREFIX)]);
}


static int out_of_range(const Param *it, const char *name, const char *value, char **ret_error)
{
	char lo[32], hi[32];
	return set_errorf(ret_error, -EINVAL, "detect.%s: '%s' is not a number from %s to %s", name, value,
			  format_exact(lo, it->min), format_exact(hi, it->max));
}

int detect_param_set(DetectParams *p, const char *name, const char *value, char **ret_error)
{
	const Param *it = find_param(name);
	double v;

	if (startswith(name, OVERRIDE_PREFIX)) {
		const char *dev = name + strlen(OVERRIDE_PREFIX);
		it = find_param("stall-threshold");
		if (!*dev || strlen(dev) >= sizeof p->overrides[0].device || strchr(dev, '/'))
			return set_errorf(ret_error, -EINVAL, "detect.%s: '%s' is not a device name", name, dev);
		if (parse_double(value, &v) < 0 || v < it->min || v > it->max)
			return out_of_range(it, name, value, ret_error);
		unsigned i = 0;
		while (i < p->n_overrides && !streq(p->overrides[i].device, dev))
			i++;
		if (i == DETECT_MAX_OVERRIDES)
			return set_errorf(ret_error, -EINVAL, "detect.%s: at most %d per-disk stall thresholds", name,
				    DETECT_MAX_OVERRIDES);
		if (i == p->n_overrides)
			p->n_overrides++;
		snprintf(p->overrides[i].device, sizeof p->overrides[i].device, "%s", dev);
		p->overrides[i].stall_threshold = v;
		return 0;
	}
	if (!it && retired_why(name))
		return set_errorf(ret_error, 0, "detect.%s is no longer used (%s), ignoring", name, retired_why(name));
	if (!it)
		return set_errorf(ret_error, -EINVAL, "unknown setting 'detect.%s'", name);
	if (parse_double(value, &v) < 0 || v < it->min || v > it->max)
		return out_of_range(it, name, value, ret_error);
	*param_slot(p, it) = v;
	return 0;
}

void detect_params_help(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(params); i++) {
		char d[32], lo[32], hi[32];
		format_number(d, params[i].def, 6);
		format_number(lo, params[i].min, 6);
		format_number(hi, params[i].max, 6);
		fprintf(f, "  --detect.%s VALUE\n                           %s (default %s, %s to %s)\n", params[i].name,
			params[i].help, d, lo, hi);
	}
	fprintf(f, "  --detect.stall-threshold.DEVICE SECONDS\n"
		   "                           one disk's stall threshold, by kernel name\n");
}

void detect_params_print(const DetectParams *p, FILE *f)
{
	char num[32];
	for (size_t i = 0; i < ELEMENTSOF(params); i++)
		fprintf(f, "# %s\ndetect.%s = %s\n", params[i].help, params[i].name,
			format_exact(num, *param_slot((DetectParams *)p, &params[i])));
	for (unsigned i = 0; i < p->n_overrides; i++)
		fprintf(f, "detect." OVERRIDE_PREFIX "%s = %s\n", p->overrides[i].device,
			format_exact(num, p->overrides[i].stall_threshold));
}

double detect_stall_threshold(const DetectParams *p, const char *device)
{
	for (unsigned i = 0; device && i < p->n_overrides; i++)
		if (streq(p->overrides[i].device, device))
			return p->overrides[i].stall_threshold;
	return p->stall_threshold;
}
