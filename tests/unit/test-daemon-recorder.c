/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one event path on a scratch history: every kind counted; untrusted
 * text stored, logged and handed on as one printable line; what a sample
 * records heard only once it is released (and not at all for a disk gone
 * within it); zed's replayed events and a second warning for one rebuild
 * stopped at the door, also after a restart (a new recorder on the same
 * history), while a new rebuild warns again; the repeating kinds logged
 * within a disk's budget, the rest counted; a null sink that only counts.
 * Every kind reaches the journal with its kind's MESSAGE_ID and priority:
 * read back from the journal's native socket, which this test (as root)
 * binds in a mount namespace of its own.
 */
#include "recorder.h"

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "rebuildstate.h"
#include "test.h"
#include "unit-tree.h"

typedef struct Heard {
	unsigned n;
	DetectEventKind kinds[64];
	char message[400];
} Heard;

static void heard(Disk *d, const Recorded *r, void *userdata)
{
	Heard *x = userdata;
	(void)d;
	if (!r->event)
		return;
	if (x->n < 64)
		x->kinds[x->n] = r->kind;
	x->n++;
	snprintf(x->message, sizeof x->message, "%s", r->event->message);
}

static Disk *add(DiskRegistry *r, const char *name, const char *wwn)
{
	Disk n = {0}, *d = NULL;
	snprintf(n.name, sizeof n.name, "%s", name);
	snprintf(n.sys.wwn, sizeof n.sys.wwn, "%s", wwn);
	diskview_init(&n.view);
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

static int count(const HistoryEvent *e, void *userdata)
{
	(*(unsigned *)userdata)++;
	(void)e;
	return 0;
}

static unsigned stored(History *h, const char *kind)
{
	unsigned n = 0;
	HistoryFilter f = {.kind = kind, .limit = 10000};
	history_query(h, &f, count, &n);
	return n;
}

static EventRecord stall(Disk *d, const char *message)
{
	return (EventRecord){.kind = EVENT_STALL, .disk = d, .op = "write", .latency = 2.5, .duration = NAN,
			     .value = NAN, .count = 1, .message = message};
}

/* Every kind reaches the count; the text is one printable line wherever it goes. */
static void test_kinds_and_text(Recorder *rec, History *h, Disk *d, Heard *x)
{
	uint64_t now = now_usec(CLOCK_REALTIME);
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		EventRecord r = {.kind = k, .disk = k == EVENT_REBUILD_END ? NULL : d, .duration = NAN, .latency = NAN,
				 .value = NAN, .message = "one of each"};
		CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	}
	for (int k = 0; k < _EVENT_KIND_MAX; k++)
		CHECK_INT(recorder_total(rec, k), 1);
	CHECK_INT(x->n, _EVENT_KIND_MAX - 1);	/* a pool's own event is heard by no disk's notifier */
	CHECK_INT(recorder_record(rec, &(EventRecord){.kind = _EVENT_KIND_MAX}, now, NULL), -EINVAL);

	EventRecord r = stall(d, "btrfs file system /mnt/j\n<2>smrd: forged\x1b[31m\x7f");
	HistoryEvent got;
	CHECK_INT(recorder_record(rec, &r, now, &got), 0);
	CHECK_STR(got.message, "btrfs file system /mnt/j\\x0a<2>smrd: forged\\x1b[31m\\x7f");
	CHECK_STR(x->message, got.message);
	CHECK_STR(got.severity, "warning");
	CHECK_STR(got.serial, "0x5000c500a1b2c3d4");
	CHECK_INT(stored(h, "stall"), 2);
}

/* Within a sample: heard at its release, in order; a disk gone meanwhile not at all. */
static void test_hold(Recorder *rec, DiskRegistry *disks, Disk *d, Heard *x)
{
	Disk *gone = add(disks, "sdz", "0x5000c500a1b2c3ff");
	uint64_t now = now_usec(CLOCK_REALTIME);
	unsigned before = x->n;
	recorder_hold(rec);
	EventRecord r = stall(d, "first");
	CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	r = stall(gone, "of a disk that goes");
	CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	r = (EventRecord){.kind = EVENT_STORM_START, .disk = d, .duration = NAN, .latency = 9, .value = NAN,
			  .message = "second"};
	CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	CHECK_INT(x->n, before);
	registry_remove(disks, "sdz");
	recorder_release(rec);
	CHECK_INT(x->n, before + 2);
	CHECK_INT(x->kinds[before], EVENT_STALL);
	CHECK_INT(x->kinds[before + 1], EVENT_STORM_START);
	CHECK_STR(x->message, "second");
	r = stall(d, "off the tick");
	CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	CHECK_INT(x->n, before + 3);
}

/* zed's replays, and one warning per rebuild, across a restart. */
static void test_dedup(Recorder **rec, History *h, const Config *cfg, DiskRegistry *disks, Disk *d, Heard *x)
{
	uint64_t now = now_usec(CLOCK_REALTIME);
	RecorderCallbacks cb = {.heard = heard, .userdata = x};
	/* as zfsevents gives it: the EID as its value, dated by zed's time; the
	 * first opens an incident (a row), the other is counted in it */
	unsigned delays = stored(h, "zfs-delay");
	EventRecord z = {.kind = EVENT_ZFS_DELAY, .disk = d, .time_usec = now - 1000000, .duration = NAN, .latency = 31,
			 .value = 5000, .count = 1, .message = "ZFS delay", .has_eid = true, .eid = 5000,
			 .eid_time_usec = now - 1000000};
	CHECK_INT(recorder_record(*rec, &z, now, NULL), 0);
	CHECK_INT(recorder_record(*rec, &z, now, NULL), -EALREADY);
	uint64_t first = z.time_usec;
	z.eid_time_usec = z.time_usec -= 1000000;	/* the same number, another event (the module reloaded) */
	CHECK_INT(recorder_record(*rec, &z, now, NULL), 0);
	CHECK_INT(stored(h, "zfs-delay"), delays + 1);
	const Incident *inc = incidentlog_open_of(recorder_incidents(*rec), d);
	CHECK(inc && inc->zfs_delays == 2 && inc->zfs_worst == 31);

	/* a btrfs replace followed onto d, warned once */
	RebuildState *s = disk_rebuild_mut(d);
	CHECK(s != NULL);
	if (!s)
		return;
	RebuildSample o = {.kind = REBUILD_KIND_BTRFS_REPLACE, .phase = REBUILD_PHASE_RUNNING, .started = NAN,
			   .duration = NAN, .total_bytes = 256e6, .done_bytes = 0};
	snprintf(o.pool, sizeof o.pool, "/mnt/r");
	RebuildDiskFacts f = {.fast_bps = NAN, .cache_free_bytes = NAN, .written_bytes = NAN};
	double t = (double)now / 1e6;
	CHECK_INT(rebuild_state_observe(s, &o, &f, t), REBUILD_CHANGE_STARTED);
	EventRecord w = {.kind = EVENT_REBUILD_WARNING, .disk = d, .once_per_rebuild = true, .duration = NAN,
			 .latency = NAN, .value = NAN, .message = "btrfs file system /mnt/r is rebuilding onto sda"};
	CHECK_INT(recorder_record(*rec, &w, now, NULL), 0);
	CHECK_INT(recorder_record(*rec, &w, now + 1, NULL), -EALREADY);

	/* a restart, the replace picked up again an hour on (no start of its
	 * own from sysfs: its first reading): neither the replay nor the warning again */
	*rec = recorder_free(*rec);
	CHECK_INT(recorder_new(h, cfg, disks, &cb, rec), 0);
	z.eid_time_usec = z.time_usec = first;
	CHECK_INT(recorder_record(*rec, &z, now + 3600000000, NULL), -EALREADY);
	/* the incident goes on where it was (taken back from the history) */
	inc = incidentlog_open_of(recorder_incidents(*rec), d);
	CHECK(inc && inc->zfs_delays == 2);
	rebuild_state_init(s);
	CHECK_INT(rebuild_state_observe(s, &o, &f, t + 3600), REBUILD_CHANGE_STARTED);
	CHECK_INT(recorder_record(*rec, &w, now + 3600000000, NULL), -EALREADY);
	CHECK_INT(stored(h, "rebuild-warning"), 2);	/* test_kinds_and_text's, and this one */

	/* its end, then another replace: warned again */
	o.phase = REBUILD_PHASE_FINISHED;
	CHECK_INT(rebuild_state_observe(s, &o, &f, t + 7200), REBUILD_CHANGE_ENDED);
	EventRecord done = {.kind = EVENT_REBUILD_DONE, .disk = d, .duration = 7200, .latency = NAN, .value = NAN,
			    .message = "btrfs-replace of /mnt/r onto sda finished"};
	CHECK_INT(recorder_record(*rec, &done, now + 7200000000, NULL), 0);
	o.phase = REBUILD_PHASE_RUNNING;
	o.started = t + 8000;
	CHECK_INT(rebuild_state_observe(s, &o, &f, t + 8000), REBUILD_CHANGE_STARTED);
	CHECK_INT(recorder_record(*rec, &w, now + 8000000000, NULL), 0);
	CHECK_INT(stored(h, "rebuild-warning"), 3);
}

/* A flood of a repeating kind: a disk's budget of lines a minute, the
 * rest said as a count once the minute is over; each line one line. */
static void test_log_budget(Recorder *rec, DiskRegistry *disks)
{
	Disk *d = add(disks, "sdl", "0x5000c500a1b2c3e0");
	char path[] = "/tmp/smrd-recorder-log.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	log_set_max_level(LOG_INFO);
	TickTime t = tick_time_now();
	EventRecord r = stall(d, "line\none");
	for (int i = 0; i < 1000; i++)
		(void)recorder_record(rec, &r, t.real_usec, NULL);
	r.kind = EVENT_STORM_END;
	(void)recorder_record(rec, &r, t.real_usec, NULL);	/* not a repeating kind: always said */
	t.mono_usec += 61 * 1000000ULL, t.real_usec += 61 * 1000000ULL;
	recorder_upkeep(rec, &t);
	log_set_max_level(LOG_EMERG);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	FILE *f = fopen(path, "r");
	unsigned lines = 0, stalls = 0, summary = 0, ends = 0;
	char line[1024];
	while (f && fgets(line, sizeof line, f)) {
		lines++;
		stalls += strstr(line, "sdl: line\\x0aone") != NULL && !strstr(line, "storm");
		summary += strstr(line, "990 more event(s) not logged") != NULL;
		ends += strncmp(line, "smrd[notice]: sdl: line", 23) == 0;
	}
	if (f)
		fclose(f);
	close(fd);
	unlink(path);
	CHECK_INT(stalls, RECORDER_LOGS_PER_MINUTE + 1);	/* ten stalls, and the storm's end */
	CHECK_INT(ends, 1);
	CHECK_INT(summary, 1);
	CHECK(lines <= RECORDER_LOGS_PER_MINUTE + 4);
}

/* The journal's native socket, bound here (a private /run/systemd); -1 when it cannot be. */
static int journal_socket(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	mkdir("/run/systemd", 0755);
	if (mount("tmpfs", "/run/systemd", "tmpfs", 0, "mode=0755") < 0 || mkdir("/run/systemd/journal", 0755) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket"};
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One of each kind recorded: each entry read back has the kind's MESSAGE_ID
 * and PRIORITY (the catalog's, contrib/systemd/smrd.catalog), one line of
 * MESSAGE, its SMRD_EVENT and, for a disk's, DEVICE. */
static void test_journal(const Config *cfg, DiskRegistry *disks, Disk *d, const char *state)
{
	int fd = journal_socket();
	if (fd < 0) {
		fprintf(stderr, "test-daemon-recorder: no private journal socket (needs root): journal entries not read\n");
		return;
	}
	History *h = NULL;
	_cleanup_free_ char *err = NULL;
	CHECK(history_open(state, &h, &err) >= 0 && h);
	Recorder *rec = NULL;
	CHECK_INT(recorder_new(h, cfg, disks, NULL, &rec), 0);
	uint64_t now = now_usec(CLOCK_REALTIME);
	for (int k = 0; rec && k < _EVENT_KIND_MAX; k++) {
		EventRecord r = {.kind = k, .disk = k == EVENT_REBUILD_END ? NULL : d, .duration = NAN, .latency = NAN,
				 .value = NAN, .message = "a line\nand <2>another"};
		CHECK_INT(recorder_record(rec, &r, now, NULL), 0);
	}
	bool seen[_EVENT_KIND_MAX] = {0};
	char buf[8192];
	ssize_t n;
	while ((n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
		buf[n] = 0;
		char kind[32] = "", id[40] = "", prio[8] = "", msg[400] = "", dev[48] = "";
		for (char *l = buf, *e; l && *l; l = e ? e + 1 : NULL) {
			e = strchr(l, '\n');
			if (e)
				*e = 0;
			sscanf(l, "SMRD_EVENT=%31s", kind), sscanf(l, "MESSAGE_ID=%39s", id), sscanf(l, "PRIORITY=%7s", prio);
			sscanf(l, "DEVICE=%47s", dev);
			if (startswith(l, "MESSAGE="))
				snprintf(msg, sizeof msg, "%s", l + 8);
		}
		DetectEventKind k = detect_event_kind_from_string(kind);
		CHECK(k >= 0);
		if (k < 0)
			continue;
		seen[k] = true;
		CHECK_STR(id, event_kind_info(k)->message_id);
		CHECK_INT(atoi(prio), event_kind_info(k)->priority);
		CHECK(strstr(msg, "a line\\x0aand <2>another") != NULL);
		CHECK_STR(dev, k == EVENT_REBUILD_END ? "" : "/dev/sda");
	}
	for (int k = 0; k < _EVENT_KIND_MAX; k++) {
		if (!seen[k])
			fprintf(stderr, "  %s: no journal entry\n", detect_event_kind_to_string(k));
		CHECK(seen[k]);
	}
	recorder_free(rec);
	history_close(h);
	close(fd);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	_cleanup_(unit_tree_freep) char *state = unit_tree_empty();
	CHECK(state != NULL);
	if (!state)
		return test_done("daemon-recorder");
	Config cfg;
	CHECK_INT(config_init(&cfg), 0);
	DiskRegistry *disks = registry_new();
	Disk *d = add(disks, "sda", "0x5000c500a1b2c3d4");
	History *h = NULL;
	_cleanup_free_ char *err = NULL;
	CHECK(history_open(state, &h, &err) >= 0 && h);
	Heard x = {0};
	RecorderCallbacks cb = {.heard = heard, .userdata = &x};
	Recorder *rec = NULL;
	CHECK_INT(recorder_new(h, &cfg, disks, &cb, &rec), 0);
	if (d && h && rec) {
		test_kinds_and_text(rec, h, d, &x);
		test_hold(rec, disks, d, &x);
		test_dedup(&rec, h, &cfg, disks, add(disks, "sdr", "0x5000c500a1b2c3e1"), &x);
		test_log_budget(rec, disks);
	}
	recorder_free(rec);
	history_close(h);

	/* --oneshot's null sink: counted, nothing stored, logged or heard */
	Recorder *null = NULL;
	CHECK_INT(recorder_new(NULL, &cfg, disks, &cb, &null), 0);
	unsigned before = x.n;
	EventRecord r = stall(d, "nowhere");
	CHECK_INT(recorder_record(null, &r, now_usec(CLOCK_REALTIME), NULL), 0);
	CHECK_INT(recorder_total(null, EVENT_STALL), 1);
	CHECK(recorder_history(null) == NULL);
	recorder_free(null);
	CHECK_INT(x.n, before);

	test_journal(&cfg, disks, d, state);
	registry_free(disks);
	config_done(&cfg);
	return test_done("daemon-recorder");
}
