/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zfs-annotate with real children: a shell script standing in for zpool
 * (no ZFS module here) that logs its arguments and keeps the two vdev user
 * properties as OpenZFS 2.2 does: `zpool set PROP=VALUE POOL VDEV` stores
 * one, `zpool get -H -o value PROPS POOL VDEV` prints each value on a line
 * in the order asked, "-" when unset (zprop_print_one_property() under
 * -H; vdevprops(7), "User Properties"); as OpenZFS 2.1 it refuses the
 * property (a usage error, exit 2). Off: nothing runs. On: read, then each
 * property that differs set, logged; nothing written again while nothing
 * changed (a confidence that moved less than 0.1 is no change); a class
 * change written; a restart reads and writes nothing; an old zpool or a
 * missing one: said, tried again ten minutes later; disks smrd cannot name
 * to zpool (no vdev GUID, a pool name zpool would take for an option) or
 * has not classified: left alone.
 */
#include "zfsannotate.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "log.h"
#include "test.h"
#include "unit-tree.h"
#include "util.h"

#define GUID "9000000000000000000"

static char dir[] = "/tmp/test-zfsannotate-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char p[160];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void zpool_script(const char *path)
{
	char text[2048];
	snprintf(text, sizeof text, "#!/bin/sh\n"
		 "S='%s'\n"
		 "echo \"$*\" >> \"$S/calls\"\n"
		 "[ \"$LC_ALL\" = C ] || exit 8\n"
		 "[ \"$(cat \"$S/version\")\" = 2.1 ] && { echo \"bad property list: invalid property '$2'\" >&2; exit 2; }\n"
		 "if [ \"$1\" = set ] && [ \"$3 $4 $#\" = \"tank " GUID " 4\" ]; then\n"
		 "  case \"$2\" in org.smrd:class=*) echo \"${2#*=}\" > \"$S/class\";;\n"
		 "  org.smrd:smr_confidence=*) echo \"${2#*=}\" > \"$S/conf\";; *) exit 9;; esac; exit 0\n"
		 "fi\n"
		 "[ \"$*\" = \"get -H -o value org.smrd:class,org.smrd:smr_confidence tank " GUID "\" ] || exit 9\n"
		 "cat \"$S/class\" 2>/dev/null || echo -\n"
		 "cat \"$S/conf\" 2>/dev/null || echo -\n",
		 dir);
	CHECK_INT(unit_script(path, text), 0);
}

static unsigned calls(void) { return unit_lines(dir, "calls"); }

/* The n-th call zpool saw (0 the first), "" if none. */
static const char *call(unsigned k, char *buf, size_t size)
{
	char p[160];
	snprintf(p, sizeof p, "%s/calls", dir);
	_cleanup_free_ char *text = NULL;
	buf[0] = 0;
	if (read_file_at(AT_FDCWD, p, 1 << 20, &text, NULL) < 0)
		return buf;
	const char *s = text;
	for (unsigned i = 0; i < k && s; i++)
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	if (s)
		snprintf(buf, size, "%.*s", (int)strcspn(s, "\n"), s);
	return buf;
}

static void sync_and_wait(sd_event *e, ZfsAnnotate *z, DiskRegistry *disks, double now)
{
	zfsannotate_sync(z, disks, now);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	while (zfsannotate_busy(z) && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK(!zfsannotate_busy(z));
}

static Disk *add_disk(DiskRegistry *r, const char *name, unsigned minor, DiskClass cls, double smr, const char *pool,
		      const char *guid)
{
	Disk n = {0}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	n.sys = (SysfsDisk){.major = 8, .minor = minor};
	disk_facts_init(&n.sys.facts, name);
	n.verdict = (VerdictSummary){.class = cls, .confidence = 0.85, .smr_confidence = smr};
	n.tuning = (DiskTuning){NAN, NAN, NAN};
	CHECK_INT(registry_add(r, &n, &d), 0);
	if (d && pool) {
		Memberships ms = {.n = 1};
		ms.m[0] = (Membership){.type = MEMBER_ZFS};
		snprintf(ms.m[0].name, sizeof ms.m[0].name, "%s", pool);
		snprintf(ms.m[0].via, sizeof ms.m[0].via, "%s1", name);
		snprintf(ms.m[0].vdev_guid, sizeof ms.m[0].vdev_guid, "%s", guid);
		CHECK_INT(disk_set_members(d, &ms), 0);
	}
	return d;
}

static void test_annotate(sd_event *e, const char *zpool)
{
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	free(cfg.zpool_command);
	cfg.zpool_command = strdup(zpool);
	DiskRegistry *disks = registry_new();
	Disk *sdb = add_disk(disks, "sdb", 16, DISK_CLASS_DM_SMR, 0.85, "tank", GUID);
	add_disk(disks, "sdc", 32, DISK_CLASS_UNKNOWN, 0.1, "tank", "9000000000000000001");	/* not classified */
	add_disk(disks, "sdd", 48, DISK_CLASS_CMR, 0.1, "tank", "");		/* no vdev GUID */
	add_disk(disks, "sde", 64, DISK_CLASS_CMR, 0.1, "-o", "9000000000000000002");	/* an option, not a pool */
	add_disk(disks, "sdf", 80, DISK_CLASS_CMR, 0.1, NULL, NULL);		/* in no pool */
	ZfsAnnotate *z = NULL;
	char buf[256];
	CHECK_INT(zfsannotate_new(e, NULL, &cfg, &z), 0);
	if (!z || !sdb)
		return;

	sync_and_wait(e, z, disks, 1000);	/* off by default */
	CHECK_INT(zfsannotate_runs(z), 0);
	CHECK(zfsannotate_of(z, sdb) == NULL);

	cfg.zfs_annotate = 1;
	sync_and_wait(e, z, disks, 1000);
	CHECK_INT(calls(), 3);
	CHECK_STR(call(0, buf, sizeof buf), "get -H -o value org.smrd:class,org.smrd:smr_confidence tank " GUID);
	CHECK_STR(call(1, buf, sizeof buf), "set org.smrd:class=dm-smr tank " GUID);
	CHECK_STR(call(2, buf, sizeof buf), "set org.smrd:smr_confidence=0.85 tank " GUID);
	const ZfsAnnotation *a = zfsannotate_of(z, sdb);
	CHECK(a && a->read && streq(a->have.class, "dm-smr") && streq(a->have.confidence, "0.85"));
	CHECK(a && a->written == 1000 && !a->error[0]);
	static const char *const alone[] = {"sdc", "sdd", "sde", "sdf"};
	for (size_t i = 0; i < ELEMENTSOF(alone); i++)
		CHECK(zfsannotate_of(z, registry_get(disks, alone[i])) == NULL);

	/* nothing changed; then a confidence that moved less than a step */
	sync_and_wait(e, z, disks, 1011);
	sdb->verdict.smr_confidence = 0.9;
	sync_and_wait(e, z, disks, 1022);
	CHECK_INT(calls(), 3);
	/* the class changes: written, both */
	sdb->verdict.class = DISK_CLASS_CMR;
	sdb->verdict.smr_confidence = 0.02;
	sync_and_wait(e, z, disks, 1033);
	CHECK_INT(calls(), 6);
	CHECK_STR(call(4, buf, sizeof buf), "set org.smrd:class=cmr tank " GUID);
	CHECK_STR(call(5, buf, sizeof buf), "set org.smrd:smr_confidence=0.02 tank " GUID);
	zfsannotate_free(z);

	/* a restart: read, and nothing to write */
	CHECK_INT(zfsannotate_new(e, NULL, &cfg, &z), 0);
	sync_and_wait(e, z, disks, 2000);
	CHECK_INT(calls(), 7);
	a = zfsannotate_of(z, sdb);
	CHECK(a && a->read && streq(a->have.class, "cmr") && a->written == 0);
	zfsannotate_free(z);

	/* OpenZFS 2.1: no vdev properties; said, left alone ten minutes */
	write_file("version", "2.1");
	sdb->verdict.class = DISK_CLASS_DM_SMR;
	CHECK_INT(zfsannotate_new(e, NULL, &cfg, &z), 0);
	sync_and_wait(e, z, disks, 3000);
	a = zfsannotate_of(z, sdb);
	CHECK(a && !a->read && strstr(a->error, "older than 2.2") != NULL);
	CHECK_INT(calls(), 8);
	sync_and_wait(e, z, disks, 3011);
	CHECK_INT(calls(), 8);
	write_file("version", "2.2");
	sync_and_wait(e, z, disks, 3601);
	CHECK_INT(calls(), 10);		/* get, set the class */
	a = zfsannotate_of(z, sdb);
	CHECK(a && a->read && streq(a->have.class, "dm-smr") && !a->error[0]);
	zfsannotate_free(z);

	/* a zpool-command that is not there */
	free(cfg.zpool_command);
	cfg.zpool_command = strdup("/nonexistent/zpool");
	CHECK_INT(zfsannotate_new(e, NULL, &cfg, &z), 0);
	sync_and_wait(e, z, disks, 4000);
	a = zfsannotate_of(z, sdb);
	CHECK(a && !a->read && strstr(a->error, "could not run") != NULL);
	zfsannotate_free(z);
	registry_free(disks);
	config_done(&cfg);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	CHECK(mkdtemp(dir) != NULL);
	char zpool[160];
	snprintf(zpool, sizeof zpool, "%s/zpool", dir);
	zpool_script(zpool);
	write_file("version", "2.2");
	/* sd-event reaps children only with SIGCHLD blocked, as the daemon has it */
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	CHECK(sigprocmask(SIG_BLOCK, &ss, NULL) == 0);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	if (e)
		test_annotate(e, zpool);
	sd_event_unref(e);
	char rm[200];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	return test_done("test-daemon-zfsannotate");
}
