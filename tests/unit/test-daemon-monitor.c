/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The monitor alone: a registry filled by hand, diskstats intervals set on
 * the disk as the sampler would, slow I/Os handed in as the tracer's
 * callback does, a scratch state directory for its history and the real
 * recorder in front of it. It checks what reaches the history (the
 * monitor's output), the verdict it gives, and that a restart restores
 * what it knew.
 */
#include "log.h"
#include "monitor.h"
#include "recorder.h"
#include "test.h"
#include "unit-tree.h"

/* The context's part: the history and the one event path in front of it. */
static History *hist;
static Recorder *rec;

static void store_open(const Config *cfg, DiskRegistry *disks)
{
	_cleanup_free_ char *err = NULL;
	CHECK(history_open(cfg->state_dir, &hist, &err) >= 0 && hist);
	CHECK_INT(recorder_new(hist, cfg, disks, NULL, &rec), 0);
}

static void store_close(void)
{
	rec = recorder_free(rec);
	hist = history_close(hist);
}

static Monitor *monitor_start(sd_event *e, const Config *cfg, DiskRegistry *disks)
{
	Monitor *m = NULL;
	store_open(cfg, disks);
	CHECK_INT(monitor_new(e, cfg, disks, hist, rec, false, &m), 0);
	return m;
}

static void monitor_stop(Monitor *m)
{
	monitor_free(m);
	store_close();
}

typedef struct Seen {
	unsigned n;
	char kinds[64][32];
} Seen;

static int on_stored(const HistoryEvent *e, void *userdata)
{
	Seen *s = userdata;
	if (s->n < 64)
		snprintf(s->kinds[s->n], 32, "%s", e->kind);
	s->n++;
	return 0;
}

/* The disk_id its first event was recorded under. */
static int first_key(const HistoryEvent *e, void *userdata)
{
	char *key = userdata;
	if (!key[0])
		snprintf(key, sizeof ((HistoryEvent *)NULL)->serial, "%s", e->serial);
	return 0;
}

static unsigned stored(Monitor *m, const char *device, const char *kind)
{
	Seen s = {0};
	HistoryFilter f = {.device = device, .limit = 1000};
	(void)m;
	history_query(hist, &f, on_stored, &s);
	unsigned n = 0;
	for (unsigned i = 0; i < s.n && i < 64; i++)
		n += !kind || streq(s.kinds[i], kind);
	return n;
}

/* One second of writes as the sampler leaves it: n completed, each lat s. */
static void interval(Disk *d, double n, double lat)
{
	memset(d->ds.delta, 0, sizeof d->ds.delta);
	d->ds.primed = true;
	d->interval = 1;
	d->ds.delta[DS_WRITES] = (uint64_t)n;
	d->ds.delta[DS_WRITE_SECTORS] = (uint64_t)n * 32;
	d->ds.delta[DS_WRITE_MS] = (uint64_t)(n * lat * 1000);
	d->ds.delta[DS_IO_MS] = n ? 1000 : 0;
	d->ds.total[DS_IN_FLIGHT] = n ? 1 : 0;
}

/* declared: the class smrd.conf gives it, or -1; stacked: its slaves/, or "" */
static Disk *add_as(DiskRegistry *r, const char *name, DiskClass class, const char *wwn, int declared,
		    const char *stacked)
{
	Disk n = {0}, *d = NULL;
	SysfsDisk s = {.major = 8, .io_timeout_ms = 30000};
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(s.wwn, sizeof s.wwn, "%s", wwn);
	/* a rotating ATA disk with nothing else known: classify_disk says cmr */
	disk_facts_init(&s.facts, name);
	s.facts.transport = TRANSPORT_ATA;
	s.facts.rotational = 1;
	s.facts.size_status = 0;
	s.facts.admin_class = declared;
	snprintf(s.facts.stacked, sizeof s.facts.stacked, "%s", stacked);
	n.sys = s;
	n.verdict.class = class;
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

static Disk *add(DiskRegistry *r, const char *name, DiskClass class, const char *wwn)
{
	return add_as(r, name, class, wwn, -1, "");
}

/* A storm and a behavioural verdict, recorded as an smrd that kept the
 * plain identity on every row did (and does for a disk alone with it). */
static void old_rows(History *h, const char *device, const char *identity, uint64_t when)
{
	const char *kinds[] = {"storm-start", "behaviour", "storm-end"};
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		HistoryEvent ev = {.time_usec = when + i * 1000000, .logged_usec = when + i * 1000000, .latency = 10,
				   .duration = 30, .value = NAN};
		snprintf(ev.device, sizeof ev.device, "%s", device);
		snprintf(ev.serial, sizeof ev.serial, "%s", identity);
		snprintf(ev.kind, sizeof ev.kind, "%s", kinds[i]);
		snprintf(ev.severity, sizeof ev.severity, "warning");
		snprintf(ev.message, sizeof ev.message, "as recorded before");
		CHECK_INT(history_add(h, &ev), 0);
	}
}

static Monitor *restart(sd_event *e, const Config *cfg, DiskRegistry *disks, Monitor *m)
{
	monitor_stop(m);
	m = monitor_start(e, cfg, disks);
	monitor_tick(m, &(TickTime){now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME)}, NAN);
	return m;
}

/* Two disks behind one USB-SATA bridge present one WWN. Each is recorded
 * under a key that tells them apart, and a restart gives each its own past
 * only: sdd's storm and verdict are not sde's. A database from before keys
 * had a name (the plain WWN on every row) is read by name the same way; a
 * disk alone with its identity again keeps what it did in company. */
static void collide(sd_event *e, const Config *cfg, DiskRegistry *disks)
{
	const char *wwn = "0x5000000000000001", *old = "0x5000000000000002";
	Disk *a = add(disks, "sdd", DISK_CLASS_CMR, wwn), *b = add(disks, "sde", DISK_CLASS_CMR, wwn);
	Monitor *m = monitor_start(e, cfg, disks);
	uint64_t now = now_usec(CLOCK_MONOTONIC), base = now > 200000000 ? now - 200000000 : 1;
	for (int t = 1; t <= 75; t++) {
		interval(a, t <= 70 ? 2500 : 3, t <= 70 ? 0.0004 : 0.333);
		interval(b, 0, 0);
		monitor_tick(m, &(TickTime){base + (uint64_t)t * 1000000, now_usec(CLOCK_REALTIME)}, NAN);
	}
	monitor_disk_gone(m, a);
	CHECK_INT(stored(m, "sdd", "storm-start"), 1);
	CHECK_INT(stored(m, "sdd", "behaviour"), 1);
	CHECK_INT(stored(m, "sde", NULL), 0);
	char key[96] = "";
	history_query(hist, &(HistoryFilter){.device = "sdd"}, first_key, key);
	CHECK_STR(key, "0x5000000000000001@sdd");
	old_rows(hist, "sdf", old, now_usec(CLOCK_REALTIME) - 100000000);

	/* a restart, the same disks: each its own past, or none */
	registry_remove(disks, "sdd");
	registry_remove(disks, "sde");
	a = add(disks, "sdd", DISK_CLASS_CMR, wwn), b = add(disks, "sde", DISK_CLASS_CMR, wwn);
	Disk *f = add(disks, "sdf", DISK_CLASS_CMR, old), *g = add(disks, "sdg", DISK_CLASS_CMR, old);
	m = restart(e, cfg, disks, m);
	CHECK_INT(a->det.storm.known, 1);
	CHECK_INT(b->det.storm.known, 0);
	CHECK(disk_model_known(&a->view.cache) && !disk_model_known(&b->view.cache));
	CHECK(disk_by_behaviour(a) && !disk_by_behaviour(b));
	CHECK_INT(f->det.storm.known, 1);
	CHECK_INT(g->det.storm.known, 0);
	CHECK(disk_by_behaviour(f) && !disk_by_behaviour(g));

	/* sde and sdg gone, sdf renamed sdh: each alone with its identity again,
	 * sdd gets what it did beside sde, sdh what sdf did (its identity is enough) */
	const char *gone[] = {"sdd", "sde", "sdf", "sdg"};
	for (size_t i = 0; i < ELEMENTSOF(gone); i++)
		registry_remove(disks, gone[i]);
	a = add(disks, "sdd", DISK_CLASS_CMR, wwn);
	f = add(disks, "sdh", DISK_CLASS_CMR, old);
	m = restart(e, cfg, disks, m);
	CHECK_INT(a->det.storm.known, 1);
	CHECK(disk_by_behaviour(a));
	CHECK_INT(f->det.storm.known, 1);
	CHECK(disk_by_behaviour(f));
	monitor_stop(m);
	registry_remove(disks, "sdd");
	registry_remove(disks, "sdh");
}

int main(void)
{
	log_set_max_level(LOG_EMERG);	/* timeout risks are logged as crit */
	_cleanup_(unit_tree_freep) char *state = unit_tree_empty();
	CHECK(state != NULL);
	if (!state)
		return test_done("daemon-monitor");
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	free(cfg.state_dir);
	cfg.state_dir = strdup(state);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	DiskRegistry *disks = registry_new();
	Disk *sda = add(disks, "sda", DISK_CLASS_CMR, "0x5000c500a1b2c3d4");
	Disk *sdb = add(disks, "sdb", DISK_CLASS_CMR, "0x5000c500a1b2c3d5");
	/* the same cliff on a disk smrd.conf declares cmr and on a stacked one */
	Disk *sdx = add_as(disks, "sdx", DISK_CLASS_CMR, "0x5000c500a1b2c3d6", DISK_CLASS_CMR, "");
	Disk *dm = add_as(disks, "dm-7", DISK_CLASS_UNKNOWN, "", -1, "slaves/");
	Monitor *m = monitor_start(e, &cfg, disks);
	CHECK(history_persistent(hist));

	/* The primer's DM-SMR write cliff on sda, sdb idle: 70 s fast, then slow.
	 * The clock is the caller's and in the past, so that what the monitor
	 * reads from the real clock afterwards (a slow I/O, a disk going) is later. */
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	uint64_t base = now > 200000000 ? now - 200000000 : 1;
	int t = 1;
	for (; t <= 70; t++) {
		interval(sda, 2500, 0.0004);
		interval(sdx, 2500, 0.0004);
		interval(dm, 2500, 0.0004);
		interval(sdb, 0, 0);
		monitor_tick(m, &(TickTime){base + (uint64_t)t * 1000000, now_usec(CLOCK_REALTIME)}, NAN);
	}
	CHECK_INT(stored(m, NULL, NULL), 0);
	for (; t <= 75; t++) {
		interval(sda, 3, 0.333);
		interval(sdx, 3, 0.333);
		interval(dm, 3, 0.333);
		monitor_tick(m, &(TickTime){base + (uint64_t)t * 1000000, now_usec(CLOCK_REALTIME)}, NAN);
	}
	CHECK_INT(stored(m, "sda", "storm-start"), 1);
	CHECK_INT(stored(m, "sda", "behaviour"), 1);
	CHECK_INT(stored(m, "sdb", NULL), 0);
	/* declared and stacked disks: the storm is an event all the same, the
	 * verdict stays theirs, and what they did is in the evidence */
	CHECK_INT(stored(m, "sdx", "storm-start"), 1);
	CHECK_INT(stored(m, "sdx", "behaviour"), 0);
	CHECK_INT(stored(m, "dm-7", "storm-start"), 1);
	CHECK_INT(stored(m, "dm-7", "behaviour"), 0);
	CHECK(!disk_by_behaviour(sdx) && !disk_by_behaviour(dm));
	/* the views: filled by the monitor at every tick, from the detector's state */
	CHECK_INT(sda->view.sample, 75);
	CHECK(sda->view.storm && sda->det_ready && sdb->det_ready && !sdb->view.storm);
	CHECK(isfinite(sda->view.storm_since));
	CHECK_NEAR(sda->view.score.score, sda->det.score.score, 1e-12);
	CHECK(sda->view.score.score > 0.5);
	CHECK_INT(sda->view.storms, 1);
	CHECK_INT(disk_class(sdx), DISK_CLASS_CMR);
	CHECK_INT(disk_class(dm), DISK_CLASS_UNKNOWN);
	Verdict vx;
	disk_verdict(sdx, &vx);
	CHECK_INT(vx.class, DISK_CLASS_CMR);
	CHECK(vx.n_evidence >= 2 && strstr(vx.evidence[vx.n_evidence - 1].value, "1 destage storm(s) on record") &&
	      strstr(vx.evidence[vx.n_evidence - 1].implies, "declared in smrd.conf is kept") &&
	      !vx.evidence[vx.n_evidence - 1].decisive);
	CHECK_INT(recorder_total(rec, EVENT_STORM_START), 3);
	registry_remove(disks, "sdx");
	registry_remove(disks, "dm-7");
	unsigned suspects, storms;
	registry_count(disks, &suspects, &storms);
	CHECK_INT(storms, 1);
	CHECK_INT(suspects, 1);

	/* behaviour turns a CMR verdict into dm-smr, with the detector as evidence */
	Verdict v;
	disk_verdict(sda, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(v.n_evidence >= 1 && v.evidence[v.n_evidence - 1].decisive);
	CHECK(strstr(v.basis, "behaviour") != NULL);
	disk_verdict(sdb, &v);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK(disk_by_behaviour(sda) && !disk_by_behaviour(sdb));

	/* a slow I/O from the tracer: a stall, and near the kernel's timeout a
	 * timeout risk (io_timeout 30 s) */
	SlowRecord stall = {.op = 1, .sector = 8, .bytes = 4096, .latency = 6.0, .done_mono_usec = now_usec(CLOCK_MONOTONIC)};
	snprintf(stall.device, sizeof stall.device, "sdb");
	monitor_slow_io(m, sdb, &stall, &(TickTime){now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME)});
	CHECK_INT(stored(m, "sdb", "stall"), 1);
	stall.latency = 20.0;
	monitor_slow_io(m, sdb, &stall, &(TickTime){now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME)});
	/* the second stall counted in the incident the first opened, its timeout risk a step of it */
	CHECK_INT(stored(m, "sdb", "stall"), 1);
	CHECK_INT(stored(m, "sdb", "timeout-risk"), 1);
	CHECK_INT(recorder_total(rec, EVENT_STALL), 2);
	const Incident *inc = incidentlog_open_of(recorder_incidents(rec), sdb);
	CHECK(inc && inc->kind == INCIDENT_STALLS && inc->slow_ios == 2 && inc->slow_worst == 20.0 &&
	      inc->priority == LOG_CRIT);

	/* a disk going away closes its open storm */
	monitor_disk_gone(m, sda);
	CHECK_INT(stored(m, "sda", "storm-end"), 1);
	registry_count(disks, &suspects, &storms);
	CHECK_INT(storms, 0);
	registry_remove(disks, "sda");

	/* a restart: the disk, seen again (same WWN, even renamed), gets back
	 * what it did: its storm and the behavioural verdict */
	monitor_stop(m);
	sda = add(disks, "sdc", DISK_CLASS_CMR, "0x5000c500a1b2c3d4");
	m = monitor_start(e, &cfg, disks);
	monitor_tick(m, &(TickTime){now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME)}, NAN);
	CHECK(sda->det_ready);
	CHECK_INT(sda->det.storm.known, 1);
	CHECK_INT(sda->view.storms_known, 1);
	CHECK_INT(sda->view.storms, 0);
	disk_verdict(sda, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(disk_smr_confidence(sda) > 0.5);
	/* and its media cache as learnt: 70 s of 2500 writes of 16 KiB, the fill a guess now */
	CHECK(disk_model_known(&sda->view.cache));
	CHECK_NEAR(sda->view.cache.media_cache_bytes, 70 * 2500 * 16384.0, 2 * 2500 * 16384.0);
	CHECK(!sda->view.cache_sure);
	CHECK(isnan(sda->view.forecast));

	/* forgetting a replaced disk deletes its events and its past */
	CHECK_INT(monitor_forget(m, sda), 5);	/* storm-start, media-cache, behaviour, storm-end, media-cache */
	CHECK_INT(sda->det.storm.known, 0);
	CHECK_INT(sda->view.storms_known, 0);	/* the view follows at once, not at the next tick */
	disk_verdict(sda, &v);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK_INT(stored(m, "sdb", NULL), 2);

	monitor_stop(m);
	registry_remove(disks, "sdb");
	registry_remove(disks, "sdc");
	collide(e, &cfg, disks);
	registry_free(disks);
	config_done(&cfg);
	sd_event_unref(e);
	return test_done("daemon-monitor");
}
