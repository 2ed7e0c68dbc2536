/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sd_notify is cheap, but what it says is not always: the STATUS= counts
 * walk every disk, so they are only computed when NOTIFY_SOCKET says that
 * somebody listens.
 */
#include "service.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"
#include "util.h"

#define STATUS_MAX 512

struct Service {
	sd_event *event;
	bool notify;			/* NOTIFY_SOCKET is set: someone reads what we say */
	bool ready;
	sd_event_source *watchdog;
	uint64_t watchdog_period_usec;
	char last_status[STATUS_MAX];
	char reload_error[STATUS_MAX / 2];	/* why the last reload failed; "" after a good one */
};

int service_listen_fds(int *ret_control, int *ret_http)
{
	char **names = NULL;
	*ret_control = *ret_http = -1;
	int n = sd_listen_fds_with_names(1, &names);
	if (n < 0)
		return log_error_errno(n, "Failed to read the sockets passed by the service manager: %m");
	for (int i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;
		const char *name = names && names[i] ? names[i] : "unknown";
		int *slot = NULL;
		if (streq(name, "control") || (!streq(name, "http") && sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0))
			slot = ret_control;
		else if (streq(name, "http") || sd_is_socket_inet(fd, 0, SOCK_STREAM, 1, 0) > 0)
			slot = ret_http;
		if (!slot || *slot >= 0) {
			log_warning("ignoring passed socket %d (%s): not a listening control or HTTP socket, or a second one",
				    fd, name);
			close(fd);
			continue;
		}
		*slot = fd;
		log_info("using the %s socket passed by the service manager (fd %d, name %s)",
			 slot == ret_control ? "control" : "HTTP", fd, name);
	}
	for (char **p = names; p && *p; p++)
		free(*p);
	free(names);
	return 0;
}

static int on_watchdog(sd_event_source *src, uint64_t usec, void *userdata)
{
	Service *s = userdata;
	sd_notify(0, "WATCHDOG=1");
	return sd_event_source_set_time(src, usec + s->watchdog_period_usec);
}

static int start_watchdog(Service *s)
{
	uint64_t usec;
	/* Every quarter of the period, so that one late wake-up never costs a
	 * restart; above sampling and HTTP in priority. */
	int r = sd_watchdog_enabled(0, &usec);
	if (r <= 0)
		return r;
	s->watchdog_period_usec = usec / 4 ? usec / 4 : 1;
	uint64_t now;
	sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	r = sd_event_add_time(s->event, &s->watchdog, CLOCK_MONOTONIC, now, s->watchdog_period_usec / 10, on_watchdog, s);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->watchdog, SD_EVENT_ON);
	if (r >= 0)
		r = sd_event_source_set_priority(s->watchdog, SD_EVENT_PRIORITY_IMPORTANT);
	if (r < 0)
		return r;
	log_info("watchdog: pinging every %.1f s (WatchdogSec=%.1f s)", (double)s->watchdog_period_usec / 1e6,
		 (double)usec / 1e6);
	return 0;
}

int service_new(sd_event *e, Service **ret)
{
	Service *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->event = sd_event_ref(e);
	s->notify = getenv("NOTIFY_SOCKET") != NULL;
	int r = start_watchdog(s);
	if (r < 0) {
		service_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

Service *service_free(Service *s)
{
	if (!s)
		return NULL;
	sd_event_source_disable_unref(s->watchdog);
	sd_event_unref(s->event);
	free(s);
	return NULL;
}

bool service_wants_status(const Service *s) { return s && s->notify; }

static void status_line(const Service *s, char *buf, size_t n, unsigned disks, unsigned suspects, unsigned storms)
{
	/* a failed reload stays in `systemctl status` until one succeeds:
	 * SIGHUP cannot tell systemctl reload it failed */
	snprintf(buf, n, "Watching %u disk%s: %u SMR suspect%s, %u destage storm%s active%s%s", disks,
		 disks == 1 ? "" : "s", suspects, suspects == 1 ? "" : "s", storms, storms == 1 ? "" : "s",
		 s->reload_error[0] ? "; the last reload FAILED: " : "", s->reload_error);
}

void service_sampled(Service *s, unsigned disks, unsigned suspects, unsigned storms)
{
	char status[STATUS_MAX];
	if (!s || !s->notify)
		return;
	status_line(s, status, sizeof status, disks, suspects, storms);
	if (!s->ready) {
		s->ready = true;
		sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	} else if (!streq(status, s->last_status)) {
		sd_notifyf(0, "STATUS=%s", status);
	}
	snprintf(s->last_status, sizeof s->last_status, "%s", status);
}

void service_reloading(Service *s)
{
	if (!s || !s->notify)
		return;
	sd_notifyf(0, "RELOADING=1\nSTATUS=Reloading the configuration\nMONOTONIC_USEC=%llu",
		   (unsigned long long)now_usec(CLOCK_MONOTONIC));
}

void service_reloaded(Service *s, unsigned disks, unsigned suspects, unsigned storms, const char *error)
{
	if (!s)
		return;
	snprintf(s->reload_error, sizeof s->reload_error, "%s", error ? error : "");
	if (!s->notify)
		return;
	status_line(s, s->last_status, sizeof s->last_status, disks, suspects, storms);
	sd_notifyf(0, "READY=1\nSTATUS=%s", s->last_status);
}

void service_stopping(Service *s)
{
	if (s && s->notify)
		sd_notify(0, "STOPPING=1\nSTATUS=Stopping");
}

int service_drop_tracing_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	const unsigned caps[] = {CAP_BPF, CAP_PERFMON};
	bool had = false;
	for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
		uint32_t bit = UINT32_C(1) << (caps[i] % 32);
		struct __user_cap_data_struct *d = &data[caps[i] / 32];
		had |= (d->permitted | d->effective | d->inheritable) & bit;
		d->effective &= ~bit;
		d->permitted &= ~bit;
		d->inheritable &= ~bit;
		/* ambient caps would survive an exec; we exec nothing, but say so */
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, caps[i], 0, 0);
	}
	if (!had)
		return 0;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 1;
}
