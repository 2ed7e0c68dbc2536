/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A rebuild followed onto one disk, fed the parsed outputs of
 * tests/fixtures/zpool and tests/fixtures/btrfs in the order a rebuild
 * prints them: the first reading starts it and fixes the estimate, later
 * ones refine the rate and the ETA, a storm during it marks the cliff, the
 * finish ends it with the real duration beside the estimate; a rebuild
 * that vanishes ends as canceled; a new one after an ended one starts
 * afresh.
 */
#include "rebuildstate.h"

#include <fcntl.h>
#include <math.h>
#include <string.h>

#include "test.h"
#include "util.h"

static const char *root;

static ZpoolStatus *zpool(const char *name)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/tests/fixtures/zpool/%s", root, name);
	_cleanup_free_ char *text = NULL, *err = NULL;
	size_t n = 0;
	CHECK_INT(read_file_at(AT_FDCWD, p, ZPOOL_INPUT_MAX, &text, &n), 0);
	ZpoolStatus *s = NULL;
	CHECK_INT(zpool_status_parse(text ?: "", n, &s, &err), 0);
	return s;
}

/* The kernel's status as tests/fixtures/btrfs/'s recordings printed it
 * (test-btrfsreplace.c says which), epoch seconds for the times. */
static BtrfsReplaceStatus btrfs(uint64_t state, uint64_t per_mille, uint64_t started, uint64_t stopped)
{
	struct btrfs_ioctl_dev_replace_status_params p = {.replace_state = state, .progress_1000 = per_mille,
							  .time_started = started, .time_stopped = stopped};
	BtrfsReplaceStatus b;
	CHECK_INT(btrfs_replace_from_ioctl(&p, &b), 0);
	return b;
}

/* A DM-SMR disk's model: 20 GB of cache, 20 MB/s sustained after it. */
static DiskModel smr_model(void)
{
	DiskModel m;
	disk_model_init(&m);
	disk_model_add_cache(&m, 20e9, true);
	m.slow_write_bps = 20e6;
	return m;
}

static void test_zfs_json_sequence(void)
{
	DiskModel m = smr_model();
	RebuildDiskFacts f = {.model = &m, .cache_free_bytes = NAN, .fast_bps = 150e6};
	RebuildState s;
	rebuild_state_init(&s);

	ZpoolStatus *a = zpool("json-resilver.json");
	CHECK(a && a->n_pools == 1 && a->pools[0].n_leaves == 1);
	if (!a || !a->n_pools || !a->pools[0].n_leaves)
		return;
	RebuildSample o;
	CHECK_INT(rebuild_sample_from_zpool(&a->pools[0], &a->pools[0].leaves[0], 0, &o), 0);
	CHECK_INT(o.kind, REBUILD_KIND_RESILVER);
	CHECK_INT(o.phase, REBUILD_PHASE_RUNNING);
	CHECK_STR(o.pool, "dpool");
	CHECK_NEAR(o.started, 1592830709, 0);
	CHECK_NEAR(o.done_bytes, 564788199424, 0);
	/* a mirror: written and issued grow together; the rest of the pool is still to write */
	CHECK(o.total_bytes > o.done_bytes && o.total_bytes < 1.1 * 984621252608);

	double t0 = 1592830709 + 3600;
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0), REBUILD_CHANGE_STARTED);
	CHECK_INT(s.phase, REBUILD_PHASE_RUNNING);
	CHECK_NEAR(s.elapsed, 3600, 1e-6);
	/* the estimate at the start: 20 GB fast, the rest at 20 MB/s */
	CHECK_NEAR(s.expected, 20e9 / 150e6 + (o.total_bytes - 20e9) / 20e6, 1);
	CHECK(isnan(s.rate));	/* one reading: no rate yet */
	CHECK(isfinite(s.eta) && s.eta > 0);

	/* ten minutes later, 6 GB more written: a rate of 10 MB/s */
	RebuildSample o2 = o;
	o2.done_bytes += 6e9;
	CHECK_INT(rebuild_state_observe(&s, &o2, &f, t0 + 600), REBUILD_CHANGE_PROGRESS);
	CHECK_NEAR(s.rate, 10e6, 1);
	CHECK(!s.cliff_seen);
	/* a storm: the cliff, where it happened */
	f.storm = true;
	RebuildSample o3 = o2;
	o3.done_bytes += 1e9;
	CHECK_INT(rebuild_state_observe(&s, &o3, &f, t0 + 700), REBUILD_CHANGE_PROGRESS);
	CHECK(s.cliff_seen);
	CHECK_NEAR(s.cliff_bytes, o3.done_bytes, 0);
	CHECK_NEAR(s.cliff_elapsed, 3600 + 700, 1e-6);
	double expected = s.expected;
	CHECK(isfinite(expected));

	/* the finish: the real duration from zpool, the estimate kept; the
	 * leaf is no longer listed, the pool's scan says how it ended */
	ZpoolStatus *b = zpool("json-resilvered.json");
	CHECK(b && b->n_pools == 1 && b->pools[0].n_leaves == 0);
	if (b && b->n_pools) {
		CHECK_INT(rebuild_sample_from_zpool(&b->pools[0], NULL, 0, &o), 0);
		CHECK_INT(o.phase, REBUILD_PHASE_FINISHED);
		CHECK_INT(rebuild_state_observe(&s, &o, &f, 1594264481 + 5), REBUILD_CHANGE_ENDED);
		CHECK_INT(s.phase, REBUILD_PHASE_FINISHED);
		CHECK_NEAR(s.duration, 1594264481 - 1592830709, 1e-6);
		CHECK_NEAR(s.eta, 0, 0);
		CHECK_NEAR(s.expected, expected, 0);
		char text[REBUILD_DONE_TEXT_MAX];
		double err = rebuild_done_text(&s, "sdb", text);
		CHECK_NEAR(err, s.duration / expected - 1, 1e-9);
		CHECK(strstr(text, "resilver of dpool onto sdb finished in ") == text);
		CHECK(strstr(text, "; estimated ") != NULL);
		CHECK(strstr(text, "at the start (") != NULL);
		/* an ended one stays ended: the same output again changes nothing */
		CHECK_INT(rebuild_state_observe(&s, &o, &f, 1594264481 + 15), REBUILD_CHANGE_NONE);
		CHECK_INT(s.phase, REBUILD_PHASE_FINISHED);
	}
	zpool_status_free(a);
	zpool_status_free(b);
}

static void test_zfs_text(void)
{
	/* 2.1's text: local dates (here one hour ahead of UTC), no leaf figures */
	ZpoolStatus *a = zpool("text-resilver-togo.txt");
	CHECK(a && a->n_pools >= 1);
	if (!a || !a->n_pools)
		return;
	const ZpoolScan *p = &a->pools[0];
	RebuildSample o;
	const ZpoolLeaf *leaf = p->n_leaves ? &p->leaves[0] : NULL;
	CHECK_INT(rebuild_sample_from_zpool(p, leaf, 3600, &o), 0);
	CHECK_NEAR(o.started, p->start_time - 3600, 0);
	CHECK_NEAR(o.done_bytes, p->processed, 0);
	/* 77.3G written for 81.5G issued, of 5.32T: about 5 TB to write */
	CHECK(o.total_bytes > 4.9e12 && o.total_bytes < 5.6e12);
	/* a CMR disk: no model, all at the fast rate */
	RebuildDiskFacts f = {.model = NULL, .cache_free_bytes = NAN, .fast_bps = 150e6};
	RebuildState s;
	rebuild_state_init(&s);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, o.started + 100), REBUILD_CHANGE_STARTED);
	CHECK_NEAR(s.expected, o.total_bytes / 150e6, 1e-3);
	/* a storm on a disk with no cliff model is no cliff */
	f.storm = true;
	CHECK_INT(rebuild_state_observe(&s, &o, &f, o.started + 200), REBUILD_CHANGE_PROGRESS);
	CHECK(!s.cliff_seen);
	/* the pool gone from the output: canceled */
	CHECK_INT(rebuild_state_gone(&s, o.started + 300), REBUILD_CHANGE_ENDED);
	CHECK_INT(s.phase, REBUILD_PHASE_CANCELED);
	CHECK(isnan(s.eta));
	char text[REBUILD_DONE_TEXT_MAX];
	CHECK(isnan(rebuild_done_text(&s, "sdc", text)));
	CHECK(strstr(text, "ended unfinished in ") != NULL);
	CHECK_INT(rebuild_state_gone(&s, o.started + 400), REBUILD_CHANGE_NONE);
	/* a new resilver of the same pool later: started afresh */
	o.started += 1000;
	CHECK_INT(rebuild_state_observe(&s, &o, &f, o.started + 10), REBUILD_CHANGE_STARTED);
	CHECK_INT(s.phase, REBUILD_PHASE_RUNNING);
	/* a scrub is no rebuild onto a disk */
	ZpoolStatus *c = zpool("text-scrub.txt");
	CHECK(c && c->n_pools >= 1);
	if (c && c->n_pools)
		CHECK_INT(rebuild_sample_from_zpool(&c->pools[0], NULL, 0, &o), -ENOENT);
	zpool_status_free(a);
	zpool_status_free(c);
}

static void test_btrfs_sequence(void)
{
	DiskModel m = smr_model();
	RebuildDiskFacts f = {.model = &m, .cache_free_bytes = NAN, .fast_bps = 150e6};
	RebuildState s;
	rebuild_state_init(&s);
	/* 5 Dec 2026 06:07:05 UTC, the fixtures' day */
	double now = 1796450825;
	BtrfsReplaceStatus b = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_NEVER_STARTED, 0, 0, 0);
	RebuildSample o;
	CHECK_INT(rebuild_sample_from_btrfs(&b, "/mnt/r", 10e9, now, &o), -ENOENT);
	b = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_STARTED, 438, 1796450821, 0);
	CHECK_INT(rebuild_sample_from_btrfs(&b, "/mnt/r", 10e9, now, &o), 0);
	CHECK_INT(o.kind, REBUILD_KIND_BTRFS_REPLACE);
	CHECK_NEAR(o.done_bytes, 0.438 * 10e9, 1);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, now), REBUILD_CHANGE_STARTED);
	CHECK_STR(s.pool, "/mnt/r");
	b = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_FINISHED, 1000, 1796450821, 1796450828);
	CHECK_INT(rebuild_sample_from_btrfs(&b, "/mnt/r", 10e9, now + 10, &o), 0);
	CHECK_INT(o.phase, REBUILD_PHASE_FINISHED);
	CHECK_NEAR(o.started, 1796450821, 0);
	CHECK_NEAR(o.duration, 7, 0);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, now + 10), REBUILD_CHANGE_ENDED);
	CHECK_INT(s.phase, REBUILD_PHASE_FINISHED);
	CHECK_NEAR(s.duration, 7, 0);
	/* a start the clock has not reached (it went back): the first reading stands for it */
	CHECK_INT(rebuild_sample_from_btrfs(&b, "/mnt/r", 10e9, 1796450821 - 86400, &o), 0);
	CHECK(isnan(o.started));
	b = btrfs(BTRFS_IOCTL_DEV_REPLACE_STATE_CANCELED, 0, 1796450828, 1796450828);
	CHECK_INT(rebuild_sample_from_btrfs(&b, "/mnt/r", 10e9, now + 20, &o), 0);
	CHECK_INT(o.phase, REBUILD_PHASE_CANCELED);
}

/* Between a btrfs replace's chunk steps the bytes come from the disk's own
 * write counter since the rebuild was first seen: never below the tool's
 * figure, never past the total. zpool's figure is bytes, coarse in its
 * text: the counter adds at most the tool's largest step to it. */
static void test_between_steps(void)
{
	DiskModel m = smr_model();
	RebuildDiskFacts f = {.model = &m, .cache_free_bytes = NAN, .fast_bps = 150e6, .written_bytes = 5e9};
	RebuildState s;
	rebuild_state_init(&s);
	double t0 = 1796450825;
	RebuildSample o = {.kind = REBUILD_KIND_BTRFS_REPLACE, .phase = REBUILD_PHASE_RUNNING, .pool = "/mnt/r",
			   .started = t0, .duration = NAN, .total_bytes = 10e9, .done_bytes = 0};
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0), REBUILD_CHANGE_STARTED);
	CHECK_NEAR(s.done_bytes, 0, 0);
	f.written_bytes = 5e9 + 0.5e9;
	rebuild_state_observe(&s, &o, &f, t0 + 10);
	CHECK_NEAR(s.done_bytes, 0.5e9, 1);
	CHECK(s.rate > 0 && isfinite(s.eta));
	/* the tool's step to 1 GB (a chunk), the counter a little ahead: kept */
	o.done_bytes = 1e9, f.written_bytes = 5e9 + 1.1e9;
	rebuild_state_observe(&s, &o, &f, t0 + 20);
	CHECK_NEAR(s.done_bytes, 1.1e9, 1);
	/* flat figure, the disk writing on: what it took is added */
	f.written_bytes = 5e9 + 1.7e9;
	rebuild_state_observe(&s, &o, &f, t0 + 30);
	CHECK_NEAR(s.done_bytes, 1.7e9, 1);
	CHECK_NEAR(s.rate, 1.7e9 / 30, 1);	/* the rate (and the ETA) from what the disk took */
	/* the tool ahead of the counter: never below its figure */
	o.done_bytes = 2e9;
	rebuild_state_observe(&s, &o, &f, t0 + 40);
	CHECK_NEAR(s.done_bytes, 2e9, 0);
	/* the counter going back (reset): re-based where it was */
	f.written_bytes = 1e6;
	rebuild_state_observe(&s, &o, &f, t0 + 50);
	CHECK_NEAR(s.done_bytes, 2e9, 0);
	/* never past the total */
	f.written_bytes = 1e6 + 9e9;
	rebuild_state_observe(&s, &o, &f, t0 + 60);
	CHECK_NEAR(s.done_bytes, 10e9, 1);

	/* a resilver: the counter goes no more than zpool's largest step past its figure */
	rebuild_state_init(&s);
	o = (RebuildSample){.kind = REBUILD_KIND_RESILVER, .phase = REBUILD_PHASE_RUNNING, .pool = "tank",
			    .started = t0, .duration = NAN, .total_bytes = 100e9, .done_bytes = 10.0e9};
	f.written_bytes = 0;
	rebuild_state_observe(&s, &o, &f, t0);
	f.written_bytes = 0.05e9;
	rebuild_state_observe(&s, &o, &f, t0 + 10);
	CHECK_NEAR(s.done_bytes, 10.0e9, 0);	/* no step seen: its figure */
	o.done_bytes = 10.1e9, f.written_bytes = 0.1e9;
	rebuild_state_observe(&s, &o, &f, t0 + 20);
	CHECK_NEAR(s.done_bytes, 10.1e9, 1);
	f.written_bytes = 0.15e9;
	rebuild_state_observe(&s, &o, &f, t0 + 30);
	CHECK_NEAR(s.done_bytes, 10.15e9, 1);
	f.written_bytes = 1e9;
	rebuild_state_observe(&s, &o, &f, t0 + 40);
	CHECK_NEAR(s.done_bytes, 10.2e9, 1);
}

/* One rebuild-warning per rebuild: one recorded at zed's attach, just
 * before the resilver was first read, counts for it; one long before does
 * not; one recorded while it runs marks it. */
static void test_warning_once(void)
{
	RebuildDiskFacts f = {.model = NULL, .cache_free_bytes = NAN, .fast_bps = NAN, .written_bytes = NAN};
	RebuildState s;
	memset(&s, 0, sizeof s);	/* as a disk's record starts */
	double t0 = 1796450825;
	RebuildSample o = {.kind = REBUILD_KIND_RESILVER, .phase = REBUILD_PHASE_RUNNING, .pool = "tank",
			   .started = t0, .duration = NAN, .total_bytes = 10e9, .done_bytes = 0};
	CHECK(!rebuild_state_wants_warning(&s));	/* none followed */
	rebuild_state_warned(&s, t0 - 1);		/* the attach */
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 5), REBUILD_CHANGE_STARTED);
	CHECK(!rebuild_state_wants_warning(&s));
	/* canceled; a new one two hours later: the old warning is not its */
	rebuild_state_gone(&s, t0 + 10);
	CHECK(!rebuild_state_wants_warning(&s));
	o.started = t0 + 7200;
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 7205), REBUILD_CHANGE_STARTED);
	CHECK(rebuild_state_wants_warning(&s));
	rebuild_state_warned(&s, t0 + 7205);
	CHECK(!rebuild_state_wants_warning(&s));
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 7215), REBUILD_CHANGE_PROGRESS);
	CHECK(!rebuild_state_wants_warning(&s));
	/* a disk's zeroed record: no warning taken for granted */
	memset(&s, 0, sizeof s);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 7205), REBUILD_CHANGE_STARTED);
	CHECK(rebuild_state_wants_warning(&s));
}

/* A balance's readings: no start time (the first reading stands for it);
 * paused or told to cancel, its going is no finish; a balance read with
 * none followed is nothing; the counter between chunks bounded by the total. */
static void test_balance(void)
{
	RebuildState s;
	rebuild_state_init(&s);
	RebuildDiskFacts f = {.model = NULL, .cache_free_bytes = NAN, .fast_bps = 100e6, .written_bytes = 0};
	BtrfsBalanceStatus none = {.state = BTRFS_BALANCE_NONE}, run = {.state = BTRFS_BALANCE_RUNNING},
			   paused = {.state = BTRFS_BALANCE_PAUSED}, cancel = {.state = BTRFS_BALANCE_RUNNING, .cancel_requested = true};
	RebuildSample o;
	CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, false, &s, &o), -ENOENT);
	CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, false, NULL, &o), -ENOENT);
	BtrfsBalanceStatus junk = {.state = _BTRFS_BALANCE_STATE_MAX};
	CHECK_INT(rebuild_sample_from_balance(&junk, "/m", NAN, NAN, false, &s, &o), -ENOENT);
	double t0 = 1796450825;
	CHECK_INT(rebuild_sample_from_balance(&run, "/m", 1e9, 0, false, &s, &o), 0);
	CHECK_INT(o.kind, REBUILD_KIND_BTRFS_BALANCE);
	CHECK(isnan(o.started) && !o.stopping);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0), REBUILD_CHANGE_STARTED);
	CHECK_NEAR(s.started, t0, 0);
	/* the disk wrote 2 GB meanwhile (other writes too): no more than the
	 * total counts, and while it runs the total was short: never all done */
	f.written_bytes = 2e9;
	CHECK_INT(rebuild_sample_from_balance(&run, "/m", NAN, 0.25e9, false, &s, &o), 0);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 10), REBUILD_CHANGE_PROGRESS);
	CHECK_NEAR(s.done_bytes, 1e9, 0);
	CHECK_NEAR(s.total_bytes, 1e9 / REBUILD_RUNNING_SHARE_MAX, 1);
	CHECK(s.eta > 0);
	CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, false, &s, &o), 0);
	CHECK_INT(o.phase, REBUILD_PHASE_FINISHED);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 20), REBUILD_CHANGE_ENDED);
	CHECK_NEAR(s.duration, 20, 0);
	/* told to cancel, then gone; paused, then gone */
	const BtrfsBalanceStatus *stops[] = {&cancel, &paused};
	for (size_t i = 0; i < ELEMENTSOF(stops); i++) {
		CHECK_INT(rebuild_sample_from_balance(&run, "/m", 1e9, 0, false, &s, &o), 0);
		CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 30), REBUILD_CHANGE_STARTED);
		CHECK_INT(rebuild_sample_from_balance(stops[i], "/m", NAN, NAN, false, &s, &o), 0);
		CHECK_INT(o.phase, REBUILD_PHASE_RUNNING);
		CHECK(o.stopping);
		CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 35), REBUILD_CHANGE_PROGRESS);
		CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, false, &s, &o), 0);
		CHECK_INT(o.phase, REBUILD_PHASE_CANCELED);
		CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 40), REBUILD_CHANGE_ENDED);
	}
	/* paused, then gone with the disk at its share: resumed to its end between two readings */
	CHECK_INT(rebuild_sample_from_balance(&paused, "/m", 1e9, 0, false, &s, &o), 0);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 45), REBUILD_CHANGE_STARTED);
	CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, true, &s, &o), 0);
	CHECK_INT(o.phase, REBUILD_PHASE_FINISHED);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 48), REBUILD_CHANGE_ENDED);
	/* resumed after a pause: followed on, and its end a finish */
	CHECK_INT(rebuild_sample_from_balance(&paused, "/m", 1e9, 0, false, &s, &o), 0);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 50), REBUILD_CHANGE_STARTED);
	CHECK_INT(rebuild_sample_from_balance(&run, "/m", NAN, NAN, false, &s, &o), 0);
	CHECK_INT(rebuild_state_observe(&s, &o, &f, t0 + 55), REBUILD_CHANGE_PROGRESS);
	CHECK_INT(rebuild_sample_from_balance(&none, "/m", NAN, NAN, false, &s, &o), 0);
	CHECK_INT(o.phase, REBUILD_PHASE_FINISHED);
	CHECK(rebuild_kind_btrfs(REBUILD_KIND_BTRFS_BALANCE) && rebuild_kind_btrfs(REBUILD_KIND_BTRFS_REPLACE) &&
	      rebuild_kind_btrfs(REBUILD_KIND_BTRFS_REMOVE));
	CHECK(!rebuild_kind_btrfs(REBUILD_KIND_RESILVER));
}

static void test_names(void)
{
	CHECK_STR(rebuild_kind_to_string(REBUILD_KIND_BTRFS_REPLACE), "btrfs-replace");
	CHECK_STR(rebuild_kind_to_string(REBUILD_KIND_BTRFS_BALANCE), "balance");
	CHECK(rebuild_kind_to_string(_REBUILD_KIND_MAX) == NULL);
	CHECK_STR(rebuild_phase_to_string(REBUILD_PHASE_CANCELED), "canceled");
	CHECK(rebuild_phase_to_string(_REBUILD_PHASE_INVALID) == NULL);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-rebuildstate SOURCE_ROOT\n");
		return 1;
	}
	root = argv[1];
	test_zfs_json_sequence();
	test_zfs_text();
	test_btrfs_sequence();
	test_between_steps();
	test_warning_once();
	test_balance();
	test_names();
	return test_done("test-rebuildstate");
}
