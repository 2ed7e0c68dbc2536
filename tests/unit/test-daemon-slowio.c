/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The slow I/O check with real children: shell scripts standing in for
 * zpool (the real one cannot run here: no ZFS module) print the fixtures of
 * tests/fixtures/zpool when asked exactly what smrd asks, with leaves named
 * by their paths (ZPOOL_VDEV_NAME_PATH=1) in the C locale. slow_io_n/t set
 * on the disk's mirror: found, said once, not read again within the hour;
 * set nowhere: nothing said; an OpenZFS 2.1 zpool (no vdev properties, a
 * usage error), a pool that lists no leaf on the disk, an output past the
 * bound: "not known", nothing said; a pool name zpool would take for an
 * option: refused. The loop is never blocked.
 */
#include "slowio.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "test.h"
#include "util.h"

#define NEW "/dev/disk/by-id/ata-ST5000LM000-2AN170_WCJ13R2Q-part1"
#define ASKED_GET "get -H -p -o name,property,value,source " SLOWIO_PROPERTIES " dpool all-vdevs"

static const char *root;

typedef struct Heard {
	Disk disk;			/* the disk NEW is on */
	bool map_none;			/* map nothing: the pool lists no leaf on the disk */
	unsigned found;
	char text[SLOW_IO_TEXT_MAX];
} Heard;

static int on_map(const char *path, Disk **ret, void *userdata)
{
	Heard *h = userdata;
	if (h->map_none || !streq(path, NEW))
		return -ENXIO;
	*ret = &h->disk;
	return 0;
}

static void on_found(Disk *d, const SlowIoResult *r, void *userdata)
{
	Heard *h = userdata;
	CHECK(d == &h->disk);
	h->found++;
	snprintf(h->text, sizeof h->text, "%s", r->text);
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	CHECK(chmod(path, 0755) == 0);
}

/* A zpool that answers smrd's two questions with fixture `get` (or, for
 * "2.1", a usage error as OpenZFS 2.1 gives), logging each call. */
static void zpool_script(const char *path, const char *t, const char *get)
{
	char body[4096], answer[1024];
	if (streq(get, "2.1"))
		snprintf(answer, sizeof answer, "echo \"bad property list: invalid property 'slow_io_n'\" >&2; exit 2");
	else if (streq(get, "big"))
		snprintf(answer, sizeof answer, "exec yes 'root-0\tslow_io_n\t-\tdefault'");
	else
		snprintf(answer, sizeof answer, "exec cat '%s/tests/fixtures/zpool/%s'", root, get);
	snprintf(body, sizeof body,
		 "echo \"$*\" >> '%s/calls'\n"
		 "[ \"$ZPOOL_VDEV_NAME_PATH\" = 1 ] && [ \"$LC_ALL\" = C ] || exit 8\n"
		 "case \"$*\" in\n\"status -P dpool\") exec cat '%s/tests/fixtures/zpool/status-P-replacing.txt';;\n"
		 "\"" ASKED_GET "\") %s;;\n*) exit 9;;\nesac",
		 t, root, answer);
	script(path, body);
}

static unsigned calls(const char *t)
{
	char p[600];
	snprintf(p, sizeof p, "%s/calls", t);
	_cleanup_free_ char *text = NULL;
	if (read_file_at(AT_FDCWD, p, 1 << 20, &text, NULL) < 0)
		return 0;
	unsigned n = 0;
	for (const char *s = text; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

/* Runs the loop until d's result is in, or 15 s passed. */
static const SlowIoResult *run_until_done(sd_event *e, SlowIo *w, const Disk *d)
{
	uint64_t until = now_usec(CLOCK_MONOTONIC) + 15000000;
	const SlowIoResult *r = slowio_result(w, d);
	while (r && r->state == SLOWIO_CHECKING && now_usec(CLOCK_MONOTONIC) < until) {
		CHECK(sd_event_run(e, 100000) >= 0);
		r = slowio_result(w, d);
	}
	CHECK(r && r->state != SLOWIO_CHECKING);
	return r;
}

/* One check with fixture `get`: its result's state, what was heard. */
static SlowIoState check_with(sd_event *e, const char *t, const char *get, Heard *h, char *ret_text)
{
	char zpool_path[512];
	snprintf(zpool_path, sizeof zpool_path, "%s/zpool-%s", t, get);
	zpool_script(zpool_path, t, get);
	char *zpool = zpool_path;
	SlowIoCallbacks cb = {.map = on_map, .found = on_found, .userdata = h};
	SlowIo *w = NULL;
	CHECK_INT(slowio_new(e, NULL, &zpool, &cb, &w), 0);
	if (!w)
		return _SLOWIO_STATE_MAX;
	CHECK(!slowio_result(w, &h->disk));
	CHECK_INT(slowio_check(w, &h->disk, "dpool", 1000), 0);
	CHECK_INT(slowio_result(w, &h->disk)->state, SLOWIO_CHECKING);
	const SlowIoResult *r = run_until_done(e, w, &h->disk);
	SlowIoState s = r ? r->state : _SLOWIO_STATE_MAX;
	snprintf(ret_text, SLOW_IO_TEXT_MAX, "%s", r ? r->text : "");
	if (s == SLOWIO_CAN_TRIP) {
		/* the same disk and pool within the hour: not read again */
		unsigned before = calls(t);
		CHECK_INT(slowio_check(w, &h->disk, "dpool", r->when + 60), 0);
		CHECK_INT(slowio_result(w, &h->disk)->state, SLOWIO_CAN_TRIP);
		CHECK_INT(calls(t), before);
	} else if (s == SLOWIO_NOT_KNOWN && r) {
		/* not known: asked again after a minute, not before */
		double when = r->when;
		CHECK_INT(slowio_check(w, &h->disk, "dpool", when + 30), 0);
		CHECK_INT(slowio_result(w, &h->disk)->state, SLOWIO_NOT_KNOWN);
		CHECK_INT(slowio_check(w, &h->disk, "dpool", when + 61), 0);
		r = run_until_done(e, w, &h->disk);
		CHECK(r && r->state == SLOWIO_NOT_KNOWN && r->when > when);
	}
	slowio_free(w);
	return s;
}

static void test_results(sd_event *e, const char *t)
{
	Heard h = {0};
	snprintf(h.disk.name, sizeof h.disk.name, "sdb");
	h.disk.sys.major = 8, h.disk.sys.minor = 16;
	char text[SLOW_IO_TEXT_MAX];

	CHECK_INT(check_with(e, t, "get-slowio-mirror.txt", &h, text), SLOWIO_CAN_TRIP);
	CHECK_INT(h.found, 1);
	CHECK(strstr(h.text, "ZFS pool dpool has slow_io_n=5 slow_io_t=60 on mirror-0: zed may degrade sdb"));
	CHECK_INT(calls(t), 2);

	CHECK_INT(check_with(e, t, "get-slowio-unset.txt", &h, text), SLOWIO_UNSET);
	CHECK_INT(h.found, 1);

	CHECK_INT(check_with(e, t, "2.1", &h, text), SLOWIO_NOT_KNOWN);
	CHECK(strstr(text, "exit 2 (an OpenZFS older than 2.2.4?)"));
	CHECK_INT(h.found, 1);

	CHECK_INT(check_with(e, t, "big", &h, text), SLOWIO_NOT_KNOWN);
	CHECK(strstr(text, "printed more than"));
	CHECK_INT(h.found, 1);

	h.map_none = true;
	CHECK_INT(check_with(e, t, "get-slowio-mirror.txt", &h, text), SLOWIO_NOT_KNOWN);
	CHECK(strstr(text, "lists no leaf on sdb"));
	CHECK_INT(h.found, 1);
}

static void test_refused(sd_event *e, const char *t)
{
	char missing[512];
	snprintf(missing, sizeof missing, "%s/no-such-zpool", t);
	char *zpool = missing;
	Heard h = {0};
	snprintf(h.disk.name, sizeof h.disk.name, "sdb");
	SlowIoCallbacks cb = {.map = on_map, .found = on_found, .userdata = &h};
	SlowIo *w = NULL;
	CHECK_INT(slowio_new(e, NULL, &zpool, &cb, &w), 0);
	CHECK_INT(slowio_check(w, &h.disk, "-o", 1000), -EINVAL);
	CHECK_INT(slowio_check(w, &h.disk, "", 1000), -EINVAL);
	CHECK_INT(slowio_check(w, &h.disk, "tank;x", 1000), -EINVAL);
	CHECK(!slowio_result(w, &h.disk));
	/* a command that is not there: not known, said at once */
	CHECK_INT(slowio_check(w, &h.disk, "dpool", 1000), 0);
	const SlowIoResult *r = run_until_done(e, w, &h.disk);
	CHECK(r && r->state == SLOWIO_NOT_KNOWN);
	CHECK_INT(h.found, 0);
	slowio_free(w);
	CHECK_INT(slowio_check(NULL, &h.disk, "dpool", 1000), 0);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-daemon-slowio SOURCE_ROOT\n");
		return 1;
	}
	root = argv[1];
	/* sd-event reaps children only with SIGCHLD blocked, as the daemon has it */
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	CHECK(sigprocmask(SIG_BLOCK, &ss, NULL) == 0);
	/* what the daemon's own environment may hold is not what zpool gets */
	setenv("ZPOOL_VDEV_NAME_PATH", "0", 1);
	setenv("LC_ALL", "de_DE.UTF-8", 1);
	char t[] = "/tmp/test-slowio.XXXXXX";
	CHECK(mkdtemp(t) != NULL);
	sd_event *e = NULL;
	CHECK(sd_event_new(&e) >= 0);
	test_results(e, t);
	test_refused(e, t);
	sd_event_unref(e);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t);
	CHECK(system(cmd) == 0);
	return test_done("test-daemon-slowio");
}
