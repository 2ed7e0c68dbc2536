/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rebuild's forecast before it starts: the bytes, the duration from
 * qualify's figures, from learnt ones, from none (the published DM-SMR
 * spread, or a 3.5" disk's for one with no cliff), each saying which; the
 * advice lines with what they rest on (zed's slow I/O diagnosis, a
 * rebuild in order where the layout allows one, the command timeout
 * against the worst stall); the verdict a script gates on.
 */
#include <math.h>
#include <string.h>

#include "forecast.h"
#include "test.h"

#define MIB 1048576.0

static ForecastFacts facts(DiskClass c, const DiskModel *m)
{
	ForecastFacts f = {
		.disk = {.disk_class = c, .basis = "model list", .model = m, .size_bytes = 4e12, .fast_bps = NAN,
			 .storm_seconds = NAN},
		.device = "sdb", .tuned_cache = NAN, .tuned_rate = NAN, .join = REBUILD_JOIN_NONE,
		.layout = _VDEV_LAYOUT_INVALID, .bytes = NAN, .io_timeout = NAN, .worst_stall = NAN,
	};
	return f;
}

static const ForecastAdvice *line(const RebuildForecast *r, const char *word)
{
	for (unsigned i = 0; i < r->n_advice; i++)
		if (strstr(r->advice[i].text, word))
			return &r->advice[i];
	return NULL;
}

/* qualify's figures, a ZFS mirror that zed may fault it in, a timeout too short */
static void test_qualified_mirror(void)
{
	DiskModel m;
	disk_model_init(&m);
	ForecastFacts f = facts(DISK_CLASS_DM_SMR, &m);
	f.tuned_cache = 128 * MIB, f.tuned_rate = 10 * MIB;
	f.disk.qualified = true;
	f.join = REBUILD_JOIN_ZFS, f.where = "ZFS pool tank", f.vdev = "mirror-0", f.layout = VDEV_LAYOUT_MIRROR;
	f.children = 2, f.bytes = 256 * MIB, f.bytes_from = "mirror-0's share";
	f.slow_io = FORECAST_SLOW_IO_CAN_TRIP;
	f.slow_io_setting = (SlowIoSetting){.n = 5, .t = 60, .n_from = "mirror-0", .t_from = "mirror-0", .armed = true,
					    .can_trip = true};
	f.io_timeout = 30, f.worst_stall = 21;
	RebuildForecast r;
	rebuild_forecast(&f, &r);
	CHECK_INT(r.check.risk, REBUILD_RISK_SMR);
	CHECK_NEAR(r.bytes, 256 * MIB, 0);
	CHECK_STR(r.bytes_from, "mirror-0's share");
	/* 128 MiB at 150 MB/s, 128 MiB at 10 MiB/s */
	double want = 128 * MIB / REBUILD_FAST_BPS_DEFAULT + 12.8;
	CHECK_NEAR(r.expected, want, 1e-9);
	CHECK_NEAR(r.low, 0.8 * want, 1e-9);
	CHECK_NEAR(r.high, 1.2 * want, 1e-9);
	CHECK_INT(r.figures, REBUILD_FIGURES_QUALIFY);
	CHECK(strstr(r.figures_text, "smrctl qualify") != NULL);
	const ForecastAdvice *a = line(&r, "zpool set slow_io_events=off tank VDEV");
	CHECK(a && a->warns && strstr(a->measured, "slow_io_n=5 on mirror-0"));
	a = line(&r, "zpool replace -s");
	CHECK(a && !a->warns && strstr(a->measured, "mirror-0 is a mirror"));
	a = line(&r, "device/timeout");
	CHECK(a && a->warns && strstr(a->text, "echo 42 > /sys/block/sdb/device/timeout"));
	CHECK(a && strstr(a->measured, "30 s") && strstr(a->measured, "21 s"));
	CHECK(r.warn);
}

/* learnt figures, a raidz, slow I/O unset, a long enough timeout */
static void test_learnt_raidz(void)
{
	DiskModel m;
	disk_model_init(&m);
	disk_model_add_cache(&m, 64 * MIB, true);
	m.slow_write_bps = 20 * MIB;
	ForecastFacts f = facts(DISK_CLASS_DM_SMR, &m);
	f.disk.storms = 2;
	f.join = REBUILD_JOIN_ZFS, f.where = "ZFS pool rz", f.vdev = "raidz1-0", f.layout = VDEV_LAYOUT_RAIDZ;
	f.children = 4, f.bytes = 1024 * MIB;
	f.slow_io = FORECAST_SLOW_IO_UNSET;
	f.io_timeout = 180, f.worst_stall = 21;
	RebuildForecast r;
	rebuild_forecast(&f, &r);
	CHECK_INT(r.figures, REBUILD_FIGURES_LEARNT);
	double want = 64 * MIB / REBUILD_FAST_BPS_DEFAULT + 960.0 / 20;
	CHECK_NEAR(r.expected, want, 1e-9);
	CHECK_NEAR(r.high, 1.3 * want, 1e-9);
	const ForecastAdvice *a = line(&r, "keep slow_io_n and slow_io_t unset");
	CHECK(a && !a->warns);
	a = line(&r, "raidz resilvers only by healing");
	CHECK(a && a->warns && strstr(a->text, "CMR disk") && strstr(a->measured, "raidz of 4 disks"));
	a = line(&r, "over twice its worst stall");
	CHECK(a && !a->warns);
	CHECK(r.warn);	/* the guard's: DM-SMR */
}

/* none of its own: a range from the published shapes; btrfs */
static void test_published_btrfs(void)
{
	DiskModel m;
	disk_model_init(&m);
	ForecastFacts f = facts(DISK_CLASS_DM_SMR, &m);
	f.join = REBUILD_JOIN_BTRFS, f.where = "btrfs file system /srv", f.vdev = "/srv", f.bytes = 400e9;
	RebuildForecast r;
	rebuild_forecast(&f, &r);
	CHECK_INT(r.figures, REBUILD_FIGURES_PUBLISHED);
	CHECK(isnan(r.expected));
	/* a 40 GB cache (1% of 4 TB) at 150 MB/s, 360 GB at 90 MB/s to 5 MB/s */
	CHECK_NEAR(r.low, 40e9 / 150e6 + 360e9 / 90e6, 1e-6);
	CHECK_NEAR(r.high, 40e9 / 150e6 + 360e9 / 5e6, 1e-6);
	const ForecastAdvice *a = line(&r, "btrfs replace cancel /srv");
	CHECK(a && !a->warns);
	CHECK(!line(&r, "slow_io"));	/* no zed on btrfs */
	CHECK(!line(&r, "timeout"));	/* its timeout not known */
	/* a cliff seen but no storm's end yet: its own cache, the published rates past it */
	disk_model_add_cache(&m, 64 * MIB, true);
	rebuild_forecast(&f, &r);
	CHECK_INT(r.figures, REBUILD_FIGURES_PUBLISHED);
	CHECK_NEAR(r.low, 64 * MIB / 150e6 + (400e9 - 64 * MIB) / 90e6, 1e-6);
	CHECK(strstr(r.figures_text, "its media cache (64M) but no rate past it") != NULL);
}

/* CMR: no cliff, a 3.5" disk's rate; the verdict fine */
static void test_cmr(void)
{
	DiskModel m;
	disk_model_init(&m);
	ForecastFacts f = facts(DISK_CLASS_CMR, &m);
	f.join = REBUILD_JOIN_ZFS, f.where = "ZFS pool tank", f.vdev = "mirror-0", f.layout = VDEV_LAYOUT_MIRROR;
	f.bytes = 300e9, f.slow_io = FORECAST_SLOW_IO_SAFE;
	f.slow_io_setting = (SlowIoSetting){.n = 10000, .t = 10, .armed = true};
	f.io_timeout = 30;
	RebuildForecast r;
	rebuild_forecast(&f, &r);
	CHECK_INT(r.check.risk, REBUILD_RISK_NONE);
	CHECK_NEAR(r.expected, 300e9 / REBUILD_FAST_BPS_DEFAULT, 1e-9);
	CHECK_NEAR(r.low, 300e9 / FORECAST_CMR_HIGH_BPS, 1e-9);
	CHECK_NEAR(r.high, 300e9 / FORECAST_CMR_LOW_BPS, 1e-9);
	CHECK(strstr(r.figures_text, "no cliff (cmr)") != NULL);
	CHECK(line(&r, "cannot trip") && !line(&r, "cannot trip")->warns);
	CHECK(line(&r, "stalls are not known yet"));
	CHECK(!r.warn);
	/* armed so that it can trip: said, not a warning on a disk without storms */
	f.slow_io = FORECAST_SLOW_IO_CAN_TRIP;
	f.slow_io_setting = (SlowIoSetting){.n = 5, .t = 60, .n_from = "mirror-0", .t_from = "mirror-0", .armed = true,
					    .can_trip = true};
	rebuild_forecast(&f, &r);
	CHECK(line(&r, "seldom delays I/O") && !line(&r, "seldom delays I/O")->warns);
	CHECK(!r.warn);
	/* the same disk once a storm was seen on it: a warning */
	f.disk.storms = 1;
	rebuild_forecast(&f, &r);
	CHECK(line(&r, "zpool set slow_io_events=off tank VDEV") && line(&r, "slow_io_events=off")->warns);
	CHECK(r.warn);
}

/* unknown and never qualified: a warning, the range from no cliff to DM-SMR; no pool named: the whole disk */
static void test_unknown(void)
{
	DiskModel m;
	disk_model_init(&m);
	ForecastFacts f = facts(DISK_CLASS_UNKNOWN, &m);
	RebuildForecast r;
	rebuild_forecast(&f, &r);
	CHECK_INT(r.check.risk, REBUILD_RISK_UNTESTED);
	CHECK_NEAR(r.bytes, 4e12, 0);
	CHECK(strstr(r.bytes_from, "the whole disk at most") != NULL);
	CHECK_NEAR(r.low, 4e12 / FORECAST_CMR_HIGH_BPS, 1e-6);
	CHECK(r.high > 10 * r.low);
	CHECK_INT(r.n_advice, 0);
	CHECK(r.warn);
	CHECK_STR(rebuild_figures_to_string(REBUILD_FIGURES_LEARNT), "learnt");
	CHECK(!rebuild_figures_to_string(_REBUILD_FIGURES_MAX));
}

int main(void)
{
	test_qualified_mirror();
	test_learnt_raidz();
	test_published_btrfs();
	test_cmr();
	test_unknown();
	return test_done("rebuild-forecast");
}
