/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "service.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"
#include "monitor.h"

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

static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata)
{
	Context *ctx = userdata;
	sd_notify(0, "WATCHDOG=1");
	return sd_event_source_set_time(s, usec + ctx->watchdog_period_usec);
}

int service_watchdog(Context *ctx)
{
	uint64_t usec;
	/* A timer on the loop itself: a loop stuck anywhere stops the pings.
	 * Every quarter of the period, so that one late wake-up never costs a
	 * restart. */
	int r = sd_watchdog_enabled(0, &usec);
	if (r <= 0)
		return r;
	ctx->watchdog_period_usec = usec / 4 ? usec / 4 : 1;
	uint64_t now;
	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	r = sd_event_add_time(ctx->event, &ctx->watchdog_timer, CLOCK_MONOTONIC, now, ctx->watchdog_period_usec / 10,
			      on_watchdog, ctx);
	if (r < 0)
		return r;
	r = sd_event_source_set_enabled(ctx->watchdog_timer, SD_EVENT_ON);
	if (r >= 0)
		r = sd_event_source_set_priority(ctx->watchdog_timer, SD_EVENT_PRIORITY_IMPORTANT);
	if (r < 0)
		return r;
	log_info("watchdog: pinging every %.1f s (WatchdogSec=%.1f s)", (double)ctx->watchdog_period_usec / 1e6,
		 (double)usec / 1e6);
	return 0;
}

static void status_line(Context *ctx, char *buf, size_t n)
{
	unsigned suspects = 0, storms = 0;
	for (size_t i = 0; i < registry_size(ctx->disks); i++) {
		const Disk *d = registry_at(ctx->disks, i);
		suspects += monitor_smr_confidence(ctx, d) >= SMR_CONF_TRIM_HINT;
		storms += d->det_ready && d->det.storm;
	}
	snprintf(buf, n, "Watching %zu disk%s: %u SMR suspect%s, %u destage storm%s active", registry_size(ctx->disks),
		 registry_size(ctx->disks) == 1 ? "" : "s", suspects, suspects == 1 ? "" : "s", storms,
		 storms == 1 ? "" : "s");
}

void service_sampled(Context *ctx)
{
	char status[160];
	/* Outside a service manager nobody reads STATUS=: skip the disk walk. */
	if (!getenv("NOTIFY_SOCKET"))
		return;
	status_line(ctx, status, sizeof status);
	if (!ctx->notified_ready) {
		ctx->notified_ready = true;
		sd_notifyf(0, "READY=1\nSTATUS=%s", status);
		snprintf(ctx->last_status, sizeof ctx->last_status, "%s", status);
		return;
	}
	if (!streq(status, ctx->last_status)) {
		sd_notifyf(0, "STATUS=%s", status);
		snprintf(ctx->last_status, sizeof ctx->last_status, "%s", status);
	}
}

void service_reloading(Context *ctx)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	(void)ctx;
	sd_notifyf(0, "RELOADING=1\nSTATUS=Reloading the configuration\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000);
}

void service_reloaded(Context *ctx)
{
	char status[160];
	status_line(ctx, status, sizeof status);
	snprintf(ctx->last_status, sizeof ctx->last_status, "%s", status);
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
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

void service_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=Stopping");
}
