/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The FARM reader with real children: a shell script standing in for
 * smartctl (no Seagate disk here) prints the recordings of
 * tests/fixtures/smartctl when asked exactly what smrd asks (-n standby,
 * so that a spun-down drive is never woken), in the C locale, and logs
 * each call. A device node made here (mknod: the test needs root), never
 * opened. An SMR log, a drive in standby, one disk asked twice (one run),
 * a node that is not the disk's device (no run), an output past the bound;
 * smartctl 7.3 refusing -l farm and a smartctl-command that is not there:
 * given up on (nothing told, nothing more run) until reset; an empty
 * smartctl-command: never run.
 */
#include "farmreader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "test.h"
#include "unit-tree.h"
#include "util.h"

static const char *root;
static char dir[] = "/tmp/test-farmreader-XXXXXX";

typedef struct Heard {
	unsigned n;
	char name[8][32];
	unsigned major[8], minor[8];
	FarmReading r[8];
} Heard;

static void on_read(const char *name, unsigned major, unsigned minor, const FarmReading *r, void *userdata)
{
	Heard *h = userdata;
	if (h->n < 8) {
		snprintf(h->name[h->n], sizeof h->name[0], "%s", name);
		h->major[h->n] = major;
		h->minor[h->n] = minor;
		h->r[h->n] = *r;
	}
	h->n++;
}

/* A smartctl that answers with the recording the file "mode" names. */
static void smartctl_script(const char *path)
{
	char text[2048];
	snprintf(text, sizeof text, "#!/bin/sh\n"
		 "echo \"$*\" >> '%s/calls'\n"
		 "[ \"$LC_ALL\" = C ] || exit 8\n"
		 "case \"$*\" in \"-n standby -l farm --json %s/dev/\"*) ;; *) exit 9;; esac\n"
		 "F='%s/tests/fixtures/smartctl'\n"
		 "case \"$(cat '%s/mode')\" in\n"
		 "smr) exec cat \"$F/farm-ata-smr.json\";;\n"
		 "standby) cat \"$F/farm-standby.json\"; exit 2;;\n"
		 "7.3) cat \"$F/farm-7.3-refused.txt\"; exit 1;;\n"
		 "big) exec yes '{\"seagate_farm_log\": {'\n;;\n"
		 "esac\nexit 7\n",
		 dir, dir, root, dir);
	CHECK_INT(unit_script(path, text), 0);
}

static void mode(const char *m)
{
	char p[128];
	snprintf(p, sizeof p, "%s/mode", dir);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(m, f);
		fclose(f);
	}
}

static unsigned calls(void) { return unit_lines(dir, "calls"); }

/* Runs the loop until nothing waits, or 15 s passed. */
static void drain(sd_event *e, FarmReader *r)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	while (farmreader_waiting(r) > 0 && now_usec(CLOCK_MONOTONIC) < until)
		CHECK(sd_event_run(e, 100000) >= 0);
	CHECK_INT(farmreader_waiting(r), 0);
}

static void test_reads(sd_event *e, char *smartctl)
{
	char *cmd = smartctl;
	Heard h = {0};
	FarmReaderCallbacks cb = {.read = on_read, .userdata = &h};
	char devdir[128];
	snprintf(devdir, sizeof devdir, "%s/dev", dir);
	FarmReader *r = NULL;
	CHECK_INT(farmreader_new(e, NULL, &cmd, devdir, &cb, &r), 0);
	if (!r)
		return;

	mode("smr");
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);	/* waiting already: one run */
	drain(e, r);
	CHECK_INT(h.n, 1);
	CHECK_INT(calls(), 1);
	CHECK(streq(h.name[0], "sdb") && h.major[0] == 8 && h.minor[0] == 16);
	CHECK_INT(h.r[0].state, FARM_SMR);
	CHECK_STR(h.r[0].smartctl, "7.5");

	mode("standby");
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	drain(e, r);
	CHECK_INT(h.n, 2);
	CHECK_INT(h.r[1].state, FARM_STANDBY);

	/* sdc's node is another device's: smartctl is not run on it */
	CHECK_INT(farmreader_ask(r, "sdc", 8, 32), 0);
	drain(e, r);
	CHECK_INT(h.n, 3);
	CHECK_INT(h.r[2].state, FARM_FAILED);
	CHECK(strstr(h.r[2].detail, "is not device 8:32") != NULL);
	CHECK_INT(calls(), 2);
	CHECK_INT(farmreader_ask(r, "../sdb", 8, 16), -EINVAL);

	mode("big");
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	drain(e, r);
	CHECK_INT(h.n, 4);
	CHECK_INT(h.r[3].state, FARM_FAILED);
	CHECK(strstr(h.r[3].detail, "more than") != NULL);

	/* smartctl 7.3: said once, nothing told, what waits dropped, nothing more asked */
	mode("7.3");
	unsigned before = calls();
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	CHECK_INT(farmreader_ask(r, "sdd", 8, 48), 0);
	drain(e, r);
	CHECK_INT(h.n, 4);
	CHECK_INT(calls(), before + 1);
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), -ENOTSUP);
	/* a reload tries it again */
	farmreader_reset(r);
	mode("smr");
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	drain(e, r);
	CHECK_INT(h.n, 5);
	CHECK_INT(h.r[4].state, FARM_SMR);

	/* a smartctl-command that is not there: given up on at once */
	char missing[160];
	snprintf(missing, sizeof missing, "%s/no-such-smartctl", dir);
	cmd = missing;
	farmreader_reset(r);
	uint64_t runs = farmreader_runs(r);
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), 0);
	drain(e, r);
	CHECK_INT(h.n, 5);
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), -ENOTSUP);
	CHECK_INT(farmreader_runs(r), runs + 1);

	/* empty: never run */
	cmd = (char *)"";
	farmreader_reset(r);
	CHECK_INT(farmreader_ask(r, "sdb", 8, 16), -ENOTSUP);
	CHECK_INT(farmreader_runs(r), runs + 1);
	farmreader_free(r);
}

int main(int argc, char **argv)
{
	log_set_max_level(LOG_EMERG);
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-farmreader SRCDIR\n");
		return 2;
	}
	root = argv[1];
	CHECK(mkdtemp(dir) != NULL);
	char p[160], smartctl[160];
	snprintf(p, sizeof p, "%s/dev", dir);
	CHECK(mkdir(p, 0755) == 0);
	/* sdb is 8:16 as asked; "sdc" is 8:16 too, so not the 8:32 asked */
	snprintf(p, sizeof p, "%s/dev/sdb", dir);
	int k = mknod(p, S_IFBLK | 0600, makedev(8, 16));
	if (k < 0)
		fprintf(stderr, "mknod %s: %m (the test needs root)\n", p);
	CHECK_INT(k, 0);
	snprintf(p, sizeof p, "%s/dev/sdc", dir);
	CHECK_INT(mknod(p, S_IFBLK | 0600, makedev(8, 16)), 0);
	snprintf(p, sizeof p, "%s/dev/sdd", dir);
	CHECK_INT(mknod(p, S_IFBLK | 0600, makedev(8, 48)), 0);
	snprintf(smartctl, sizeof smartctl, "%s/smartctl", dir);
	smartctl_script(smartctl);
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (e && k == 0)
		test_reads(e, smartctl);
	sd_event_unref(e);
	char rm[200];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	CHECK(system(rm) == 0);
	return test_done("test-daemon-farmreader");
}
