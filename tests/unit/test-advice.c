/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The advice by the disk's state (core/advice.h): while a rebuild writes
 * onto a shingled disk, what to do about that rebuild (let it finish and
 * for how long, or how to move it onto a CMR disk for its kind, what not to
 * run meanwhile), never "do not start a rebuild"; onto a CMR disk, let it
 * finish; its end, by how it ended; no rebuild: by what happened.
 */
#include "advice.h"

#include <math.h>
#include <string.h>

#include "test.h"

static RebuildState running(RebuildKind k)
{
	RebuildState s;
	rebuild_state_init(&s);
	s.phase = REBUILD_PHASE_RUNNING;
	s.kind = k;
	snprintf(s.pool, sizeof s.pool, "%s", k == REBUILD_KIND_RESILVER ? "tank" : "/srv");
	s.total_bytes = 256e6, s.done_bytes = 64e6, s.eta = 5400, s.expected = 7200;
	return s;
}

static bool has(const Advice *a, const char *s)
{
	return strstr(a->text, s) != NULL;
}

int main(void)
{
	Advice a;
	RebuildState s = running(REBUILD_KIND_BTRFS_REPLACE);
	AdviceFacts f = {.disk_class = DISK_CLASS_DM_SMR, .storm = true, .rebuild = &s, .kind = EVENT_STORM_START,
			 .device = "sdb"};
	advice_for(&f, &a);
	CHECK(advice_rebuilding(&f));
	CHECK(has(&a, "btrfs-replace of /srv onto sdb is under way: 25% written, about 90 min left (120 min in all"));
	CHECK(has(&a, "Let it finish if the pool can go that long"));
	/* commands to paste: the file system's mount and the disk by name */
	CHECK(has(&a, "btrfs replace cancel /srv (wipe sdb before using it again), then btrfs replace start SOURCE CMRDISK /srv"));
	CHECK(has(&a, "keep scrubs, backups and other heavy writes off the pool"));
	CHECK(!has(&a, "Do not start"));
	CHECK_STR(a.anchor, "smrrebuildslow");
	/* the same for every event of the rebuild, a stall's too */
	f.kind = EVENT_STALL;
	Advice b;
	advice_for(&f, &b);
	CHECK_STR(b.text, a.text);
	/* a resilver: a sequential rebuild, or onto a CMR disk */
	s = running(REBUILD_KIND_RESILVER);
	advice_for(&f, &a);
	CHECK(has(&a, "zpool detach tank sdb") && has(&a, "zpool replace -s tank OLD sdb") &&
	      has(&a, "zpool replace tank OLD CMRDISK"));
	/* a pool not known (yet): a word to fill in, never an empty argument */
	s.pool[0] = 0;
	advice_for(&f, &a);
	CHECK(has(&a, "zpool detach POOL sdb") && has(&a, "zpool replace POOL OLD CMRDISK"));
	s = running(REBUILD_KIND_BTRFS_BALANCE);
	advice_for(&f, &a);
	CHECK(has(&a, "btrfs balance cancel /srv, btrfs device remove /dev/sdb /srv"));
	/* onto a CMR disk that never stormed: let it finish */
	s = running(REBUILD_KIND_RESILVER);
	f = (AdviceFacts){.disk_class = DISK_CLASS_CMR, .rebuild = &s, .kind = EVENT_REBUILD_START, .device = "sdc"};
	advice_for(&f, &a);
	CHECK(has(&a, "resilver of tank onto sdc is under way: 25% written, about 90 min left") &&
	      has(&a, "let it finish") && !has(&a, "CMR disk"));
	/* figures unknown: said without them */
	s.eta = NAN, s.total_bytes = NAN, s.expected = NAN;
	advice_for(&f, &a);
	CHECK(has(&a, "resilver of tank onto sdc is under way: let it finish"));
	/* its end */
	s.phase = REBUILD_PHASE_FINISHED;
	f = (AdviceFacts){.disk_class = DISK_CLASS_DM_SMR, .rebuild = &s, .kind = EVENT_REBUILD_DONE, .device = "sdb"};
	advice_for(&f, &a);
	CHECK(!advice_rebuilding(&f));
	CHECK(has(&a, "redundancy back") && has(&a, "sdb is a shingled disk: plan to replace it with a CMR disk"));
	s.phase = REBUILD_PHASE_CANCELED;
	advice_for(&f, &a);
	CHECK(has(&a, "ended unfinished"));
	f.disk_class = DISK_CLASS_CMR, s.phase = REBUILD_PHASE_FINISHED;
	advice_for(&f, &a);
	CHECK(has(&a, "Nothing to do") && !*a.anchor);
	/* no rebuild: a storm says not to start one now; a verdict; the state alone */
	f = (AdviceFacts){.disk_class = DISK_CLASS_DM_SMR, .storm = true, .kind = EVENT_STORM_START};
	advice_for(&f, &a);
	CHECK(has(&a, "Do not start a resilver or rebuild onto it now"));
	CHECK_STR(a.anchor, "smrdestagestorm");
	f.kind = EVENT_BEHAVIOUR;
	advice_for(&f, &a);
	CHECK_STR(a.anchor, "smrdiskundeclaredsmr");
	f.kind = EVENT_ZFS_DELAY;
	advice_for(&f, &a);
	CHECK(has(&a, "comes from the disk's destage storm"));
	f = (AdviceFacts){.disk_class = DISK_CLASS_DM_SMR, .kind = _EVENT_KIND_INVALID};
	advice_for(&f, &a);
	CHECK(has(&a, "Keep this disk out of pools that resilver"));
	f.disk_class = DISK_CLASS_CMR;
	advice_for(&f, &a);
	CHECK_STR(a.text, "");
	return test_done("advice");
}
