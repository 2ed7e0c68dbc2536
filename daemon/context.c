/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start-up and shutdown in one place, in mirror order, so that every module
 * is set up once and torn down once; the wiring between modules in one
 * place (a module reports through the callbacks it was given, never by
 * calling another by name); and the sampling tick, whose order is the
 * daemon's data flow. Reload builds a complete new config first and
 * applies it only if all of it is valid.
 */
#include "context.h"

#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <sys/stat.h>

#include "commands.h"
#include "control.h"
#include "discovery.h"
#include "exporter.h"
#include "format.h"
#include "web.h"
#include "http.h"
#include "log.h"
#include "monitor.h"
#include "notifier.h"
#include "recorder.h"
#include "sampler.h"
#include "service.h"
#include "statedir.h"
#include "tracer.h"
#include "rebuildwatch.h"
#include "zfsannotate.h"

extern const char smrd_builtin_models[];

#define RESCAN_INTERVAL_USEC (60 * UINT64_C(1000000))
/* A captured tree tells nobody of a change. Its block/ is listed again
 * whenever it changes (a disk added or removed), and its disks' files are
 * re-read in turn: a small tree's every sample (a fixture that a test
 * edits), a large one's each within CAPTURED_ROUND_USEC, when a full scan
 * also finds what no turn covers (a device that was not a disk at the last
 * listing and is now); a sample's cost stays small however many disks. */
#define CAPTURED_RESCAN_DISKS 16
#define CAPTURED_ROUND_USEC (600 * UINT64_C(1000000))

int context_load_config(Context *ctx, Config *ret, char **ret_error)
{
	Config c;
	int r = config_init(&c);
	if (r < 0)
		return r;
	bool is_default = streq(ctx->config_path, SMRD_CONFIG_PATH);
	_cleanup_free_ char *err = NULL;
	r = config_load(&c, ctx->config_path, is_default, &err);
	if (r < 0) {
		/* the source first, as compilers do: "PATH:LINE: ..." or "PATH: ..." */
		unsigned line;
		int at = 0;
		if (err && sscanf(err, "line %u: %n", &line, &at) == 1 && at > 0)
			set_errorf(ret_error, 0, "%s:%u: %s", ctx->config_path, line, err + at);
		else
			set_errorf(ret_error, 0, "%s: %s", ctx->config_path, err ? err : strerror(-r));
	}
	for (size_t i = 0; r >= 0 && i < ctx->cli.n; i++) {
		_cleanup_free_ char *warn = NULL, *flag = NULL, *abs = NULL;
		const char *key = ctx->cli.items[i].key, *value = ctx->cli.items[i].value;
		if (config_key_is_path(key) && value[0] && value[0] != '/' && !streq(value, "builtin") &&
		    !streq(value, "auto") && !streq(value, "none") && (abs = absolute_path(value)))
			value = abs;
		r = config_set(&c, key, value, &warn);
		if (r < 0) {
			/* "interval: '0' is not ..." came from --interval, not the file */
			size_t k = strlen(key);
			const char *why = warn && strncmp(warn, key, k) == 0 && startswith(warn + k, ": ") ? warn + k + 2 : warn;
			set_errorf(ret_error, 0, "--%s: %s", key, why ? why : strerror(-r));
		} else if (warn && asprintf(&flag, "--%s", key) >= 0) {
			r = config_warn(&c, flag, warn);
		}
	}
	if (r < 0) {
		config_done(&c);
		return r;
	}
	/* what was accepted but changes nothing: "line N: ..." of the file, "--flag: ..." */
	for (const char *w = c.warnings; w && *w;) {
		size_t n = strcspn(w, "\n");
		log_warning("%s%s%.*s", startswith(w, "line ") ? ctx->config_path : "", startswith(w, "line ") ? ", " : "",
			    (int)n, w);
		w += n + (w[n] == '\n');
	}
	*ret = c;
	return 0;
}

/* ------------------------------------------------------------ settings */

/* The model lists (core/classify/modellist.c reads them, as smrctl
 * qualify does), and what loading them says, in the log. */
static int load_models(const Config *c, Models *ret, char **ret_error)
{
	ModelSettings s = {.model_list = c->model_list, .installed = SMRD_MODEL_LIST_PATH,
			   .builtin = smrd_builtin_models, .drivedb = c->drivedb};
	ModelLists m;
	_cleanup_free_ char *err = NULL;
	int r = modellist_load_settings(&s, &m, &err);
	if (r < 0) {
		log_error_errno(r, "Failed to load %s", err ? err : strerror(-r));
		if (ret_error)
			*ret_error = TAKE_PTR(err);
		return r;
	}
	if (m.drivedb_warning)
		log_warning("Ignoring smartmontools' drive database %s", m.drivedb_warning);
	if (m.drivedb_path)
		log_debug("drivedb %s: %u SMR or CMR families (%u firmware-specific left out)", m.drivedb_path,
			  m.drivedb_entries, m.drivedb_skipped);
	if (m.builtin_instead)
		log_notice("%s is not installed, using the built-in model list", c->model_list);
	log_debug("model list %s: %u entries; %s: %u match steps a pattern", m.list_origin, m.list_entries, m.origin,
		  modellist_match_limit(m.list));
	*ret = (Models){.list = TAKE_PTR(m.list), .origin = TAKE_PTR(m.origin)};
	modellists_done(&m);
	return 0;
}

static void models_done(Models *m)
{
	m->list = modellist_free(m->list);
	free(m->origin);
	m->origin = NULL;
}

static void apply_log_level(const char *level)
{
	static const struct { const char *name; int level; } map[] = {
		{"error", LOG_ERR}, {"warning", LOG_WARNING}, {"notice", LOG_NOTICE},
		{"info", LOG_INFO}, {"debug", LOG_DEBUG},
	};
	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (streq(map[i].name, level))
			log_set_max_level(map[i].level);
}

static int open_root(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int open_roots(const Config *c, DiskSources *src)
{
	*src = (DiskSources){.sysfs_fd = open_root(c->sysfs_root), .procfs_fd = open_root(c->procfs_root),
			     .udev_fd = open_root(c->udev_root), .live = streq(c->sysfs_root, "/sys")};
	if (src->sysfs_fd < 0)
		return log_error_errno(src->sysfs_fd, "Failed to open sysfs root %s: %m", c->sysfs_root);
	if (src->procfs_fd < 0)
		return log_error_errno(src->procfs_fd, "Failed to open procfs root %s: %m", c->procfs_root);
	/* No udev database is normal in containers: udev properties are then unknown. */
	if (src->udev_fd < 0)
		log_debug("no udev database at %s", c->udev_root);
	return 0;
}

static void close_roots(DiskSources *src)
{
	int *fds[] = {&src->sysfs_fd, &src->procfs_fd, &src->udev_fd};
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

double context_slow_threshold(const Context *ctx)
{
	const DetectParams *p = &ctx->config.detect;
	double t = fmin(ctx->config.slow_io, p->stall_threshold);
	for (unsigned i = 0; i < p->n_overrides; i++)
		t = fmin(t, p->overrides[i].stall_threshold);
	for (unsigned i = 0; i < ctx->config.disks.n; i++)
		if (isfinite(ctx->config.disks.r[i].stall_threshold))
			t = fmin(t, ctx->config.disks.r[i].stall_threshold);
	return t;
}

/* -------------------------------------------------------------- wiring */

/* What the view says of a disk before its first sample (its threshold,
 * its pools) is true from the start: a scrape may come first. */
static void on_disk_added(Disk *d, void *userdata)
{
	Context *ctx = userdata;
	diskview_derive(d, &ctx->config.detect);
}

static void on_disk_removed(Disk *d, void *userdata)
{
	Context *ctx = userdata;
	if (ctx->monitor)
		monitor_disk_gone(ctx->monitor, d);
}

static void on_disks_changed(void *userdata)
{
	Context *ctx = userdata;
	tracer_sync(ctx->tracer);
}

static void on_slow_io(Disk *d, const SlowRecord *r, void *userdata)
{
	Context *ctx = userdata;
	if (ctx->monitor)
		monitor_slow_io(ctx->monitor, d, r, &ctx->now);
}

static void on_missing(const char *name, void *userdata)
{
	Context *ctx = userdata;
	discovery_check(ctx->discovery, name);
}

/* ---------------------------------------------------------------- tick */

const char *const tick_step_names[_TICK_STEP_MAX] = {
	[TICK_DISCOVERY] = "discovery", [TICK_DISKSTATS] = "diskstats", [TICK_TRACER] = "tracer",
	[TICK_DETECTOR] = "detector", [TICK_NOTIFIER] = "notifier",
};

/* The loop's thread's CPU time: the sigreader threads' is not a sample's. */
static double thread_cpu(void)
{
	struct timespec ts;
	return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 : 0;
}

/* Adds the CPU since *mark to step, and moves the mark. */
static void step_done(Context *ctx, TickStep step, double *mark)
{
	double t = thread_cpu();
	ctx->step_cpu[step] += fmax(t - *mark, 0);
	*mark = t;
}

static unsigned captured_rescan_budget(const Context *ctx)
{
	size_t n = registry_size(ctx->disks);
	if (n <= CAPTURED_RESCAN_DISKS)
		return CAPTURED_RESCAN_DISKS;
	return (unsigned)fmax(ceil((double)n * ctx->config.interval * 1e6 / CAPTURED_ROUND_USEC), 1);
}

void context_tick(Context *ctx, const TickTime *tick)
{
	uint64_t now = tick->mono_usec;
	double mark = thread_cpu();
	ctx->now = *tick;
	/* The live /sys tells us of changes (uevents): scan it rarely, as a
	 * safety net; a captured tree tells nobody: read its disks in turn. */
	if (now - ctx->last_rescan_usec >= (ctx->src.live ? RESCAN_INTERVAL_USEC : CAPTURED_ROUND_USEC)) {
		discovery_scan(ctx->discovery);
		ctx->last_rescan_usec = now;
	} else if (!ctx->src.live)
		discovery_scan_some(ctx->discovery, captured_rescan_budget(ctx));
	step_done(ctx, TICK_DISCOVERY, &mark);
	sampler_sample(ctx->sampler, now, on_missing, ctx);
	step_done(ctx, TICK_DISKSTATS, &mark);
	if (ctx->oneshot)
		return;		/* one page of counters: no tracer, detector, notifier or service */
	/* what the sample records waits for its views: the notifier reads them */
	recorder_hold(ctx->recorder);
	tracer_collect(ctx->tracer, now, tick->real_usec);
	step_done(ctx, TICK_TRACER, &mark);
	recorder_upkeep(ctx->recorder, tick);
	monitor_tick(ctx->monitor, tick, sampler_stats(ctx->sampler)->steal_last);
	zfsannotate_sync(ctx->annotate, ctx->disks, (double)tick->real_usec / 1e6);
	step_done(ctx, TICK_DETECTOR, &mark);
	recorder_release(ctx->recorder);
	notifier_tick(ctx->notifier, tick->real_usec);
	step_done(ctx, TICK_NOTIFIER, &mark);
	if (service_wants_status(ctx->service)) {
		unsigned suspects, storms;
		registry_count(ctx->disks, &suspects, &storms);
		service_sampled(ctx->service, (unsigned)registry_size(ctx->disks), suspects, storms);
	}
}

void context_note_lag(Context *ctx, uint64_t due_usec, uint64_t ran_usec)
{
	uint64_t since = due_usec > ctx->lag.from_usec ? due_usec : ctx->lag.from_usec;
	uint64_t n = ran_usec / LOOP_LAG_SLOT_USEC, lag = ran_usec > since ? ran_usec - since : 0;
	size_t i = n % LOOP_LAG_SLOTS;
	if (ctx->lag.slot[i] != n) {
		ctx->lag.slot[i] = n;
		ctx->lag.worst_usec[i] = 0;
	}
	if (lag > ctx->lag.worst_usec[i])
		ctx->lag.worst_usec[i] = lag;
}

double context_loop_lag(const Context *ctx, uint64_t at_usec)
{
	uint64_t n = at_usec / LOOP_LAG_SLOT_USEC, worst = 0;
	for (size_t i = 0; i < LOOP_LAG_SLOTS; i++)
		if (ctx->lag.slot[i] + LOOP_LAG_SLOTS > n && ctx->lag.worst_usec[i] > worst)
			worst = ctx->lag.worst_usec[i];
	return (double)worst / 1e6;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	Context *ctx = userdata;
	uint64_t step = (uint64_t)(ctx->config.interval * 1e6), now;
	TickTime tick;
	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	/* the loop's cached time: one reading of each clock for the whole sample */
	tick.mono_usec = now;
	if (sd_event_now(ctx->event, CLOCK_REALTIME, &tick.real_usec) < 0)
		tick.real_usec = now_usec(CLOCK_REALTIME);
	/* The timer has the loop's first priority: its lateness is how long
	 * the loop was held by something else (a handler that blocks, or a
	 * host that gives the daemon no CPU), the figure clients under load
	 * cannot measure without their own start-up in it. */
	context_note_lag(ctx, usec, now);
	context_tick(ctx, &tick);
	/* From the previous deadline, so that samples do not drift. */
	uint64_t next = usec + step;
	if (next <= now)
		next = now + step;	/* we were late by more than a whole interval */
	sd_event_source_set_time(s, next);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int start_tick(Context *ctx)
{
	uint64_t now;
	int r = sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;
	ctx->last_rescan_usec = now;
	r = sd_event_add_time(ctx->event, &ctx->tick, CLOCK_MONOTONIC, now + (uint64_t)(ctx->config.interval * 1e6), 1000,
			      on_tick, ctx);
	if (r < 0)
		return r;
	/* The baseline now, not at the first tick: writes in the first
	 * interval are the start of a fill the media cache took, and a fill
	 * counted from one interval late learns a cache that much too small. */
	sampler_sample(ctx->sampler, now, NULL, NULL);
	/* Sampling comes first: a flood of scrapes or clients must not delay it. */
	return sd_event_source_set_priority(ctx->tick, SD_EVENT_PRIORITY_IMPORTANT);
}

/* ---------------------------------------------------------- lifecycle */

static int start_tracer(Context *ctx)
{
	static const TraceBackendOps *const backends[] = {&trace_bpf_ops, &trace_perf_ops, NULL};
	TracerCallbacks cb = {.slow_io = on_slow_io, .userdata = ctx};
	/* the detector needs every write that waited collapse-stall or longer */
	double deliver = fmin(context_slow_threshold(ctx), ctx->config.detect.collapse_stall);
	int r = tracer_new(ctx->event, backends, ctx->config.trace_backend, ctx->src.live, deliver,
			   ctx->disks, &cb, &ctx->tracer);
	if (r < 0)
		return log_error_errno(r, "Failed to set up tracing: %m");
	tracer_set_slow(ctx->tracer, deliver, context_slow_threshold(ctx));
	r = service_drop_tracing_caps();
	if (r < 0)
		log_warning_errno(r, "Failed to drop CAP_BPF and CAP_PERFMON, keeping them: %m");
	else if (r > 0)
		log_info("dropped CAP_BPF and CAP_PERFMON: %s", streq(tracer_backend(ctx->tracer), "none")
				 ? "no tracer uses them" : "the tracer is attached and needs them no more");
	return 0;
}

static int start_servers(Context *ctx)
{
	int control_fd, http_fd;
	int r = service_listen_fds(&control_fd, &http_fd);
	if (r < 0)
		return r;
	ctx->http_passed = http_fd >= 0;
	ctx->control_passed = control_fd >= 0;
	_cleanup_free_ char *web_err = NULL;
	ctx->web = web_new(ctx, commands_dispatch, ctx);
	if (!ctx->web)
		return log_error_errno(-ENOMEM, "Out of memory");
	r = http_new(ctx->event, ctx->config.listen, http_fd, ctx->config.web_config, web_handle, ctx->web, &ctx->http,
		     &web_err);
	if (r < 0 && web_err)
		return log_error_errno(r, "Bad web configuration: %s", web_err);
	if (r < 0)
		return log_error_errno(r, "Failed to listen on %s: %m", http_fd >= 0 ? "the passed socket" : ctx->config.listen);
	/* The service manager's socket wins over `listen`: an admin who set
	 * listen = 127.0.0.1:9863 to keep serial numbers off the network must
	 * hear that it changed nothing. */
	char bound[80];
	if (http_fd >= 0 && !streq(ctx->config.listen, CONFIG_DEFAULT_LISTEN) &&
	    !http_listens_on(http_fd, ctx->config.listen, bound, sizeof bound))
		log_warning("listen = %s is not where the socket the service manager passed listens (%s): that socket "
			    "is used, and listen is ignored; to listen on %s, change ListenStream= of smrd-metrics.socket "
			    "(systemctl edit smrd-metrics.socket, docs/systemd.md)", ctx->config.listen, bound,
			    ctx->config.listen);
	r = control_new(ctx->event, ctx->config.socket_path, control_fd, ctx->config.socket_group, commands_dispatch, ctx,
			&ctx->control);
	if (r == -EADDRINUSE)
		return log_error_errno(r, "Another smrd answers on %s: not starting a second one (give this one "
				       "another --socket, or stop the other)", ctx->config.socket_path);
	if (r < 0)
		return log_error_errno(r, "Failed to create control socket %s: %m", ctx->config.socket_path);
	char every[FORMAT_MAX], url[320], host[256];
	/* notifications link the pages where they are served */
	if (gethostname(host, sizeof host - 1) < 0)
		snprintf(host, sizeof host, "localhost");
	host[sizeof host - 1] = 0;
	if (http_url(ctx->http, host, url, sizeof url) == 0)
		notifier_set_url(ctx->notifier, url);
	log_info("serving metrics on %s (port %u), control socket %s, sampling every %s",
		 http_fd >= 0 ? "the passed socket" : ctx->config.listen, http_port(ctx->http),
		 control_fd >= 0 ? "passed by the service manager" : ctx->config.socket_path,
		 format_duration(every, ctx->config.interval));
	return 0;
}

/* An event was recorded: the notifier decides whether it is news. */
static void on_recorded(Disk *d, const Recorded *r, void *userdata)
{
	Context *ctx = userdata;
	notifier_event(ctx->notifier, d, r);
}

static int start_services(Context *ctx)
{
	/* One smrd per state directory, reached through nothing another user could change. */
	_cleanup_free_ char *why = NULL;
	int r = statedir_open(ctx->config.state_dir, &ctx->state, NULL, &why);
	if (r == -EBUSY)
		return log_error_errno(r, "State directory %s: not using it; each smrd needs a state directory of its own",
				       why ? why : ctx->config.state_dir);
	if (r < 0)
		return log_error_errno(r, "State directory %s: %s: not using it", ctx->config.state_dir,
				       why ? why : strerror(-r));
	RecorderCallbacks ecb = {.heard = on_recorded, .userdata = ctx};
	if ((r = recorder_open(ctx->config.state_dir, &ctx->config, ctx->disks, &ecb, &ctx->recorder)) < 0)
		return r;
	ctx->history = recorder_history(ctx->recorder);
	r = monitor_new(ctx->event, &ctx->config, ctx->disks, ctx->history, ctx->recorder, ctx->src.live, &ctx->monitor);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the detector: %m");
	/* before anything runs a child: what children leave comes to smrd */
	r = reaper_new(ctx->event, &ctx->reaper);
	if (r < 0)
		log_warning_errno(r, "Cannot become the subreaper of smrd's children (what a zpool, btrfs or hook "
				  "leaves outside its process group is not killed): %m");
	r = notifier_new(ctx->event, &ctx->config, ctx->history, ctx->disks, &ctx->notifier);
	if (r < 0)
		return log_error_errno(r, "Failed to set up notifications: %m");
	notifier_set_reaper(ctx->notifier, ctx->reaper);
	if (ctx->src.live && (discovery_read_farm(ctx->discovery, &ctx->config.smartctl_command, "/dev", ctx->reaper) < 0 ||
			      zfsannotate_new(ctx->event, ctx->reaper, &ctx->config, &ctx->annotate) < 0))
		return log_error_errno(-ENOMEM, "Out of memory");
	r = rebuildwatch_new(ctx->event, &ctx->config, ctx->disks, ctx->recorder, &ctx->src, ctx->reaper, &ctx->rebuild);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the rebuild watcher: %m");
	r = start_tick(ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to start the sampling timer: %m");
	if ((r = start_tracer(ctx)) < 0 || (r = start_servers(ctx)) < 0)
		return r;
	r = service_new(ctx->event, &ctx->service);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the watchdog: %m");
	/* Loading the tracer or many disks may outlast the first interval:
	 * that is start-up (the log says how long), not the loop held. */
	ctx->lag.from_usec = now_usec(CLOCK_MONOTONIC);
	return 0;
}

int context_init(Context *ctx)
{
	ctx->start_realtime_usec = now_usec(CLOCK_REALTIME);
	ctx->start_mono_usec = now_usec(CLOCK_MONOTONIC);
	apply_log_level(ctx->config.log_level);
	char why[PATTERN_WHY_MAX] = "";
	int r = open_roots(&ctx->config, &ctx->src);
	if (r < 0)
		return r;
	if (filter_new(ctx->config.include, ctx->config.exclude, ctx->config.watch_stacked, &ctx->filter, why) < 0)
		return log_error_errno(-EINVAL, "Invalid --include/--exclude pattern: %s", why);
	if ((r = load_models(&ctx->config, &ctx->models, NULL)) < 0)
		return r;
	r = sd_event_default(&ctx->event);
	if (r < 0)
		return log_error_errno(r, "Failed to create event loop: %m");
	ctx->disks = registry_new();
	if (!ctx->disks)
		return log_error_errno(-ENOMEM, "Out of memory");
	DiscoveryCallbacks cb = {.added = on_disk_added, .removed = on_disk_removed, .changed = on_disks_changed,
				 .userdata = ctx};
	r = discovery_new(ctx->event, &ctx->src, ctx->disks, &cb, ctx->src.live && !ctx->oneshot, &ctx->discovery);
	if (r < 0)
		return log_error_errno(r, "Failed to set up disk discovery: %m");
	discovery_set_rules(ctx->discovery, ctx->filter, ctx->models.list);
	discovery_set_disk_rules(ctx->discovery, &ctx->config.disks);
	discovery_scan(ctx->discovery);
	discovery_report_disk_rules(ctx->discovery);
	r = sampler_new(ctx->src.procfs_fd, ctx->disks, &ctx->sampler);
	if (r < 0)
		return log_error_errno(r, "Out of memory");
	/* --oneshot: one page of counters, whose events go nowhere but the counts */
	if (ctx->oneshot && recorder_new(NULL, &ctx->config, ctx->disks, NULL, &ctx->recorder) < 0)
		return log_error_errno(-ENOMEM, "Out of memory");
	return ctx->oneshot ? 0 : start_services(ctx);
}

void context_done(Context *ctx)
{
	ctx->service = service_free(ctx->service);
	ctx->control = control_free(ctx->control);
	ctx->http = http_free(ctx->http);
	ctx->web = web_free(ctx->web);
	ctx->tracer = tracer_free(ctx->tracer);
	ctx->tick = sd_event_source_disable_unref(ctx->tick);
	ctx->rebuild = rebuildwatch_free(ctx->rebuild);
	ctx->notifier = notifier_free(ctx->notifier);
	ctx->annotate = zfsannotate_free(ctx->annotate);
	discovery_stop_farm(ctx->discovery);	/* its run is the reaper's */
	ctx->reaper = reaper_free(ctx->reaper);
	ctx->monitor = monitor_free(ctx->monitor);
	ctx->history = NULL;
	ctx->recorder = recorder_free(ctx->recorder);	/* and the history */
	ctx->state = statedir_free(ctx->state);	/* the history is closed: the next smrd may have it */
	ctx->sampler = sampler_free(ctx->sampler);
	ctx->discovery = discovery_free(ctx->discovery);
	ctx->disks = registry_free(ctx->disks);
	ctx->event = sd_event_unref(ctx->event);
	models_done(&ctx->models);
	ctx->filter = filter_free(ctx->filter);
	close_roots(&ctx->src);
	config_done(&ctx->config);
}

/* -------------------------------------------------------------- reload */

/* Says what only a restart applies; the keys, comma-separated, into
 * ctx->restart_needed (the reload's reply lists them). */
static void restart_needed(const char *key, const char *was, const char *now, void *userdata)
{
	Context *ctx = userdata;
	size_t at = strlen(ctx->restart_needed);
	/* under socket activation the address is the socket unit's: no restart applies it */
	const char *unit = streq(key, "listen") && ctx->http_passed ? "smrd-metrics.socket"
			   : (streq(key, "socket") || streq(key, "socket-group")) && ctx->control_passed ? "smrd.socket"
			   : NULL;
	if (unit) {
		log_warning("%s changed from \"%s\" to \"%s\", but the socket %s passed is used, not %s: change "
			    "%s there (systemctl edit %s, docs/systemd.md)", key, was, now, unit, key,
			    streq(key, "socket-group") ? "SocketGroup=" : "ListenStream=", unit);
		return;
	}
	log_warning("%s changed from \"%s\" to \"%s\": takes effect after a restart, ignoring for now", key, was, now);
	int k = snprintf(ctx->restart_needed + at, sizeof ctx->restart_needed - at, "%s%s", at ? "," : "", key);
	if (k < 0 || (size_t)k >= sizeof ctx->restart_needed - at)
		ctx->restart_needed[at] = 0;	/* a key cut short would name another */
}

/* Says why a reload failed, to the log and to whoever asked. */
static int reload_failed(Context *ctx, int r, const char *why, char **ret_error)
{
	log_error("Failed to reload, keeping the old configuration: %s", why);
	set_errorf(ret_error, 0, "%s; the old configuration stays", why);
	return r < 0 ? r : -EINVAL;
}

/* Everything the new file says but what only a restart can change, whose
 * running values stay, so status tells the truth. */
static int apply_config(Context *ctx, Config *n)
{
	ctx->restart_needed[0] = 0;
	int r = config_keep_restart_keys(n, &ctx->config, restart_needed, ctx);
	if (r < 0)
		return r;
	config_done(&ctx->config);
	ctx->config = *n;	/* in place: the monitor reads it through its pointer */
	*n = (Config){0};
	return 0;
}

static int reload_config(Context *ctx, char **ret_error)
{
	_cleanup_free_ char *err = NULL;
	char why[PATTERN_WHY_MAX] = "";
	Config n;
	int r = context_load_config(ctx, &n, &err);
	if (r < 0)
		return reload_failed(ctx, r, err ? err : strerror(-r), ret_error);
	DeviceFilter *filter = NULL;
	Models models = {0};
	if (filter_new(n.include, n.exclude, n.watch_stacked, &filter, why) < 0 || load_models(&n, &models, &err) < 0 ||
	    (ctx->http && http_reload(ctx->http, n.web_config, &err) < 0)) {
		filter_free(filter);
		models_done(&models);
		config_done(&n);
		_cleanup_free_ char *said = NULL;
		set_errorf(&said, 0, "%s: %s", ctx->config_path, err ? err : why[0] ? why : "invalid include or exclude pattern");
		return reload_failed(ctx, -EINVAL, said ? said : "out of memory", ret_error);
	}
	r = apply_config(ctx, &n);
	config_done(&n);
	if (r < 0) {
		filter_free(filter);
		models_done(&models);
		return reload_failed(ctx, r, "out of memory", ret_error);
	}
	filter_free(ctx->filter);
	ctx->filter = filter;
	models_done(&ctx->models);
	ctx->models = models;
	apply_log_level(ctx->config.log_level);
	notifier_configure(ctx->notifier);
	rebuildwatch_configure(ctx->rebuild);
	tracer_set_slow(ctx->tracer, fmin(context_slow_threshold(ctx), ctx->config.detect.collapse_stall),
			context_slow_threshold(ctx));
	discovery_set_rules(ctx->discovery, ctx->filter, ctx->models.list);
	discovery_set_disk_rules(ctx->discovery, &ctx->config.disks);
	discovery_reclassify(ctx->discovery);
	discovery_report_disk_rules(ctx->discovery);
	log_info("reloaded %s", ctx->config_path);
	return 0;
}

int context_reload(Context *ctx, char **ret_error)
{
	_cleanup_free_ char *why = NULL;
	unsigned suspects, storms;
	service_reloading(ctx->service);
	int r = reload_config(ctx, &why);
	registry_count(ctx->disks, &suspects, &storms);
	service_reloaded(ctx->service, (unsigned)registry_size(ctx->disks), suspects, storms,
			 r < 0 ? (why ? why : strerror(-r)) : NULL);
	if (ret_error)
		*ret_error = TAKE_PTR(why);
	return r;
}
