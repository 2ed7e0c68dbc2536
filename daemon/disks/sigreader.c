/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job is everything its thread needs (copies of the root fds, the name),
 * so that a thread outlives the SigReader that started it: its result then
 * meets a closed socket, and the thread frees the job itself. Results come
 * back as the job's pointer in one datagram.
 */
#include "sigreader.h"

#include <blkid/blkid.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "log.h"
#include "sysfs.h"
#include "util.h"

typedef struct Job {
	struct Job *next;
	char name[32];
	unsigned major, minor;
	int sysfs_fd, udev_fd, reply_fd;
	uint64_t started;	/* CLOCK_MONOTONIC, when its thread began; 0 queued */
	bool abandoned;
	int r;
	Memberships result;
} Job;

struct SigReader {
	sd_event *event;
	int sysfs_fd, udev_fd;
	int sock[2];		/* [0] the loop's end, [1] the threads' */
	sd_event_source *io, *timer, *kick;
	SigReadDone done;
	void *userdata;
	Job *queued, *running;	/* running: started, not yet back (abandoned ones included) */
	unsigned n_running, n_abandoned, abandoned_total;
};

/* libblkid on the device node, for a device udev knows nothing about. Only
 * the node that is major:minor, opened read-only and never exclusively. */
static int blkid_signature(const char *device, unsigned major, unsigned minor, MemberSignature *s, void *userdata)
{
	(void)userdata;
	char node[64];
	snprintf(node, sizeof node, "/dev/%s", device);
	_cleanup_close_ int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(major, minor))
		return -ENODEV;
	blkid_probe pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	int r = -ENODATA;
	if (blkid_probe_set_device(pr, fd, 0, 0) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID);
		if (blkid_do_safeprobe(pr) == 0) {
			static const struct { const char *key; size_t off, len; } keys[] = {
				{"TYPE", offsetof(MemberSignature, fs_type), sizeof s->fs_type},
				{"LABEL", offsetof(MemberSignature, label), sizeof s->label},
				{"UUID", offsetof(MemberSignature, uuid), sizeof s->uuid},
				{"UUID_SUB", offsetof(MemberSignature, uuid_sub), sizeof s->uuid_sub},
			};
			for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
				const char *v;
				if (blkid_probe_lookup_value(pr, keys[i].key, &v, NULL) == 0) {
					_cleanup_free_ char *clean = str_sanitize(v);
					if (clean)
						snprintf((char *)s + keys[i].off, keys[i].len, "%s", clean);
				}
			}
			r = 0;
		}
	}
	blkid_free_probe(pr);
	return r;
}

static void job_free(Job *j)
{
	if (!j)
		return;
	int fds[] = {j->sysfs_fd, j->udev_fd, j->reply_fd};
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(j);
}

static void *job_run(void *arg)
{
	Job *j = arg;
	j->r = sysfs_read_memberships(j->sysfs_fd, j->udev_fd, j->name, NULL, blkid_signature, NULL, &j->result);
	/* the loop takes it from here, or nobody is there: free it ourselves */
	if (send(j->reply_fd, &j, sizeof j, MSG_NOSIGNAL) != (ssize_t)sizeof j)
		job_free(j);
	return NULL;
}

static int dup_or(int fd) { return fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1; }

static void unlink_job(Job **list, Job *j)
{
	for (Job **p = list; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			return;
		}
}

/* Starts what is queued, as far as the limits allow. */
static void start_more(SigReader *s)
{
	while (s->queued && s->n_running - s->n_abandoned < SIGREADER_RUNNING) {
		Job *j = s->queued;
		s->queued = j->next;
		j->reply_fd = dup_or(s->sock[1]);
		j->started = now_usec(CLOCK_MONOTONIC);
		pthread_attr_t a;
		pthread_t t;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 256 * 1024);
		int r = j->reply_fd < 0 ? -errno : -pthread_create(&t, &a, job_run, j);
		pthread_attr_destroy(&a);
		if (r < 0) {
			log_warning_errno(r, "Cannot read the signatures of %s off the event loop, ignoring: %m", j->name);
			job_free(j);
			continue;
		}
		j->next = s->running;
		s->running = j;
		s->n_running++;
	}
	if (s->running)
		sd_event_source_set_enabled(s->timer, SD_EVENT_ON);
}

/* Reads start from the loop, never from where they are queued: a disk
 * that has just come is handed to the tracer after it is queued, and a
 * read issued before the tracer watches the disk and completed after is a
 * completion without its issue (the perf backend counted one lost in every
 * run). At start the tracer is set up before the loop runs. */
static int on_kick(sd_event_source *src, void *userdata)
{
	(void)src;
	start_more(userdata);
	return 0;
}

static int on_done(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	SigReader *s = userdata;
	(void)src, (void)revents;
	Job *j;
	while (recv(fd, &j, sizeof j, MSG_DONTWAIT) == (ssize_t)sizeof j) {
		unlink_job(&s->running, j);
		s->n_running--;
		if (j->abandoned)
			s->n_abandoned--;
		else if (s->done)
			s->done(j->name, j->major, j->minor, j->r, &j->result, s->userdata);
		job_free(j);
	}
	start_more(s);
	return 0;
}

/* Reads past their deadline are given up on: the loop stops waiting for
 * them, and the next ones start. */
static int on_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	SigReader *s = userdata;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	for (Job *j = s->running; j; j = j->next)
		if (!j->abandoned && now - j->started >= SIGREADER_DEADLINE_USEC) {
			j->abandoned = true;
			s->n_abandoned++;
			s->abandoned_total++;
			log_warning("reading the signatures of %s took over %.0f s: its memberships stay as they were "
				    "(the read goes on in the background)", j->name, SIGREADER_DEADLINE_USEC / 1e6);
		}
	start_more(s);
	if (!s->running)
		return sd_event_source_set_enabled(src, SD_EVENT_OFF);
	return sd_event_source_set_time(src, usec + 1000000);
}

int sigreader_new(sd_event *e, int sysfs_fd, int udev_fd, SigReadDone done, void *userdata, SigReader **ret)
{
	SigReader *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	*s = (SigReader){.event = sd_event_ref(e), .sysfs_fd = sysfs_fd, .udev_fd = udev_fd, .done = done,
			 .userdata = userdata, .sock = {-1, -1}};
	int r = socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, s->sock) < 0 ? -errno : 0;
	if (r == 0)
		r = sd_event_add_io(e, &s->io, s->sock[0], EPOLLIN, on_done, s);
	if (r == 0)
		r = sd_event_add_time_relative(e, &s->timer, CLOCK_MONOTONIC, 1000000, 100000, on_timer, s);
	if (r == 0)
		r = sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
	if (r == 0)
		r = sd_event_add_defer(e, &s->kick, on_kick, s);
	if (r == 0)
		r = sd_event_source_set_enabled(s->kick, SD_EVENT_OFF);
	if (r < 0) {
		sigreader_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

SigReader *sigreader_free(SigReader *s)
{
	if (!s)
		return NULL;
	for (Job *j = s->queued, *n; j; j = n) {
		n = j->next;
		job_free(j);
	}
	/* Replies already sent and not yet read: their jobs are ours (a
	 * read that ended just before the loop stopped; LeakSanitizer found
	 * one at a SIGTERM in 80-systemd). Running threads own theirs: with
	 * our end closed their reply fails and they free them. */
	Job *j;
	while (s->sock[0] >= 0 && recv(s->sock[0], &j, sizeof j, MSG_DONTWAIT) == (ssize_t)sizeof j) {
		unlink_job(&s->running, j);
		job_free(j);
	}
	sd_event_source_disable_unref(s->io);
	sd_event_source_disable_unref(s->timer);
	sd_event_source_disable_unref(s->kick);
	if (s->sock[0] >= 0)
		close(s->sock[0]);
	if (s->sock[1] >= 0)
		close(s->sock[1]);
	sd_event_unref(s->event);
	free(s);
	return NULL;
}

static bool in_list(const Job *j, const char *name)
{
	for (; j; j = j->next)
		if (!j->abandoned && streq(j->name, name))
			return true;
	return false;
}

bool sigreader_pending(const SigReader *s, const char *name)
{
	return s && (in_list(s->queued, name) || in_list(s->running, name));
}

bool sigreader_queue(SigReader *s, const char *name, unsigned major, unsigned minor)
{
	if (!s || sigreader_pending(s, name) || s->n_abandoned >= SIGREADER_ABANDONED || strlen(name) >= 32)
		return false;
	Job *j = calloc(1, sizeof *j);
	if (!j)
		return false;
	*j = (Job){.major = major, .minor = minor, .sysfs_fd = dup_or(s->sysfs_fd), .udev_fd = dup_or(s->udev_fd),
		   .reply_fd = -1};
	memcpy(j->name, name, strlen(name) + 1);
	if (j->sysfs_fd < 0) {
		job_free(j);
		return false;
	}
	Job **tail = &s->queued;
	while (*tail)
		tail = &(*tail)->next;
	*tail = j;
	sd_event_source_set_enabled(s->kick, SD_EVENT_ONESHOT);
	return true;
}

unsigned sigreader_abandoned(const SigReader *s) { return s ? s->abandoned_total : 0; }
