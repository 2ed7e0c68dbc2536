/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start-up and shutdown in one place, in mirror order, so that every module
 * is set up once and torn down once. Reload builds a complete new config
 * first and applies it only if all of it is valid.
 */
#include "context.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "control.h"
#include "discovery.h"
#include "exporter.h"
#include "http.h"
#include "log.h"
#include "monitor.h"
#include "regex-bound.h"
#include "sampler.h"
#include "service.h"
#include "tracer.h"

extern const char smrd_builtin_models[];

static int open_root(const char *path, int *ret)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*ret = fd;
	return 0;
}

int context_load_config(Context *ctx, Config *ret, char **ret_error)
{
	Config c;
	int r = config_init(&c);
	if (r < 0)
		return r;
	bool is_default = streq(ctx->config_path, SMRD_CONFIG_PATH);
	r = config_load(&c, ctx->config_path, is_default, ret_error);
	for (size_t i = 0; r >= 0 && i < ctx->n_cli; i++)
		r = config_set(&c, ctx->cli[i].key, ctx->cli[i].value, ret_error);
	if (r < 0) {
		config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

static int compile_filter(const char *pattern, regex_t *re, bool *have)
{
	if (*have)
		regfree(re);
	*have = false;
	if (!pattern[0])
		return 0;
	_cleanup_free_ char *posix = config_regex_to_posix(pattern);
	if (!posix)
		return -ENOMEM;
	const char *why;
	if (regex_compile_bounded(re, posix, REG_EXTENDED | REG_NOSUB, &why) < 0)
		return -EINVAL;
	*have = true;
	return 0;
}

bool context_wants_device(const Context *ctx, const char *name)
{
	if (ctx->have_include && regexec(&ctx->include_re, name, 0, NULL, 0) != 0)
		return false;
	if (ctx->have_exclude && regexec(&ctx->exclude_re, name, 0, NULL, 0) == 0)
		return false;
	return true;
}

static int load_models(Context *ctx, const Config *c, char **ret_error)
{
	_cleanup_free_ char *err = NULL;
	ModelList *ml = NULL;
	const char *origin = c->model_list;
	int r;

	if (streq(c->model_list, "builtin"))
		r = modellist_parse(smrd_builtin_models, &ml, &err);
	else {
		r = modellist_load(c->model_list, &ml, &err);
		if (r == -ENOENT && streq(c->model_list, SMRD_MODEL_LIST_PATH)) {
			log_notice("%s is not installed, using the built-in model list", c->model_list);
			origin = "builtin";
			free(err);
			err = NULL;
			r = modellist_parse(smrd_builtin_models, &ml, &err);
		}
	}
	if (r < 0) {
		if (ret_error && asprintf(ret_error, "model list %s: %s", c->model_list, err ? err : strerror(-r)) < 0)
			*ret_error = NULL;
		return log_error_errno(r, "Failed to load model list %s: %s", c->model_list, err ? err : strerror(-r));
	}
	modellist_free(ctx->models);
	ctx->models = ml;
	free(ctx->models_origin);
	ctx->models_origin = strdup(origin);
	log_debug("model list %s: %u entries", origin, modellist_size(ml));
	return 0;
}

static int apply_log_level(const char *level)
{
	static const struct { const char *name; int level; } map[] = {
		{"error", LOG_ERR}, {"warning", LOG_WARNING}, {"notice", LOG_NOTICE},
		{"info", LOG_INFO}, {"debug", LOG_DEBUG},
	};
	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (streq(map[i].name, level))
			log_set_max_level(map[i].level);
	return 0;
}

static int open_roots(Context *ctx)
{
	int r = open_root(ctx->config.sysfs_root, &ctx->sysfs_fd);
	if (r < 0)
		return log_error_errno(r, "Failed to open sysfs root %s: %m", ctx->config.sysfs_root);
	r = open_root(ctx->config.procfs_root, &ctx->procfs_fd);
	if (r < 0)
		return log_error_errno(r, "Failed to open procfs root %s: %m", ctx->config.procfs_root);
	/* No udev database is normal in containers: udev properties are then unknown. */
	if (open_root(ctx->config.udev_root, &ctx->udev_fd) < 0)
		log_debug("no udev database at %s", ctx->config.udev_root);
	ctx->real_sysfs = streq(ctx->config.sysfs_root, "/sys");
	return 0;
}

static int make_state_dir(const char *path)
{
	_cleanup_free_ char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	if (mkdir(p, 0750) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

double context_slow_threshold(const Context *ctx)
{
	const DetectParams *p = &ctx->config.detect;
	double t = fmin(ctx->config.slow_io, p->stall_threshold);
	for (unsigned i = 0; i < p->n_overrides; i++)
		t = fmin(t, p->overrides[i].stall_threshold);
	return t;
}

/* The page is rendered at most once per sample: what it shows changes at
 * the sample, and any number of scrapers in between are sent the same
 * bytes, so a flood of scrapes costs copies, not renders. */
static int render_metrics(void *userdata, HttpBody **ret)
{
	Context *ctx = userdata;
	uint64_t now;
	sd_event_now(ctx->event, CLOCK_MONOTONIC, &now);
	if (!ctx->page || ctx->page_samples != ctx->samples || now - ctx->page_usec >= (uint64_t)(ctx->config.interval * 1e6)) {
		Buf b = {0};
		int r = exporter_render(ctx, &b);
		if (r < 0) {
			buf_free(&b);
			return r;
		}
		HttpBody *body = http_body_new(&b);
		if (!body)
			return -ENOMEM;
		http_body_unref(ctx->page);
		ctx->page = body;
		ctx->page_samples = ctx->samples;
		ctx->page_usec = now;
	}
	*ret = http_body_ref(ctx->page);
	return 0;
}

static int start_services(Context *ctx)
{
	int r = make_state_dir(ctx->config.state_dir);
	if (r < 0)
		return log_error_errno(r, "Failed to create state directory %s: %m", ctx->config.state_dir);
	r = monitor_start(ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the detector: %m");
	r = sampler_start(ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to start the sampling timer: %m");
	r = tracer_start(ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to set up tracing: %m");
	r = service_drop_tracing_caps();
	if (r < 0)
		log_warning_errno(r, "Failed to drop CAP_BPF and CAP_PERFMON, keeping them: %m");
	else if (r > 0)
		log_info("dropped CAP_BPF and CAP_PERFMON: %s", streq(tracer_backend(ctx), "none") ? "no tracer uses them"
				 : "the tracer is attached and needs them no more");
	int control_fd, http_fd;
	r = service_listen_fds(&control_fd, &http_fd);
	if (r < 0)
		return r;
	_cleanup_free_ char *web_err = NULL;
	r = http_new(ctx->event, ctx->config.listen, http_fd, ctx->config.web_config, render_metrics, ctx, &ctx->http,
		     &web_err);
	if (r < 0 && web_err)
		return log_error_errno(r, "Bad web configuration: %s", web_err);
	if (r < 0)
		return log_error_errno(r, "Failed to listen on %s: %m", http_fd >= 0 ? "the passed socket" : ctx->config.listen);
	r = control_new(ctx->event, ctx->config.socket_path, control_fd, ctx->config.socket_group, commands_dispatch, ctx,
			&ctx->control);
	if (r < 0)
		return log_error_errno(r, "Failed to create control socket %s: %m", ctx->config.socket_path);
	r = service_watchdog(ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the watchdog: %m");
	log_info("serving metrics on %s (port %u), control socket %s, sampling every %gs",
		 http_fd >= 0 ? "the passed socket" : ctx->config.listen, http_port(ctx->http),
		 control_fd >= 0 ? "passed by the service manager" : ctx->config.socket_path, ctx->config.interval);
	return 0;
}

int context_init(Context *ctx)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ctx->start_realtime_usec = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	ctx->sysfs_fd = ctx->procfs_fd = ctx->udev_fd = -1;
	apply_log_level(ctx->config.log_level);

	int r = open_roots(ctx);
	if (r < 0)
		return r;
	if (compile_filter(ctx->config.include, &ctx->include_re, &ctx->have_include) < 0 ||
	    compile_filter(ctx->config.exclude, &ctx->exclude_re, &ctx->have_exclude) < 0)
		return log_error_errno(-EINVAL, "Invalid --include/--exclude pattern");
	r = load_models(ctx, &ctx->config, NULL);
	if (r < 0)
		return r;
	r = sd_event_default(&ctx->event);
	if (r < 0)
		return log_error_errno(r, "Failed to create event loop: %m");
	ctx->disks = registry_new();
	if (!ctx->disks)
		return log_error_errno(-ENOMEM, "Out of memory");
	r = discovery_new(ctx, &ctx->discovery);
	if (r < 0)
		return log_error_errno(r, "Failed to set up disk discovery: %m");
	discovery_scan(ctx);
	if (ctx->oneshot)
		return 0;
	return start_services(ctx);
}

void context_done(Context *ctx)
{
	ctx->control = control_free(ctx->control);
	ctx->http = http_free(ctx->http);
	ctx->page = http_body_unref(ctx->page);
	sampler_stop(ctx);
	ctx->watchdog_timer = sd_event_source_disable_unref(ctx->watchdog_timer);
	tracer_stop(ctx);
	monitor_stop(ctx);
	ctx->discovery = discovery_free(ctx->discovery);
	ctx->disks = registry_free(ctx->disks);
	ctx->event = sd_event_unref(ctx->event);
	ctx->models = modellist_free(ctx->models);
	free(ctx->models_origin);
	ctx->models_origin = NULL;
	if (ctx->have_include)
		regfree(&ctx->include_re);
	if (ctx->have_exclude)
		regfree(&ctx->exclude_re);
	ctx->have_include = ctx->have_exclude = false;
	int *fds[] = {&ctx->sysfs_fd, &ctx->procfs_fd, &ctx->udev_fd};
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	config_done(&ctx->config);
}

static void warn_restart_only(const Config *old, const Config *new)
{
	const struct { const char *key, *a, *b; } keys[] = {
		{"listen", old->listen, new->listen}, {"socket", old->socket_path, new->socket_path},
		{"socket-group", old->socket_group, new->socket_group},
		{"state-dir", old->state_dir, new->state_dir}, {"sysfs-root", old->sysfs_root, new->sysfs_root},
		{"procfs-root", old->procfs_root, new->procfs_root}, {"udev-root", old->udev_root, new->udev_root},
		{"trace-backend", old->trace_backend, new->trace_backend},
	};
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (!streq(keys[i].a, keys[i].b))
			log_warning("%s changed from \"%s\" to \"%s\": takes effect after a restart, ignoring for now",
				    keys[i].key, keys[i].a, keys[i].b);
}

static void swap_str(char **a, char **b)
{
	char *t = *a;
	*a = *b;
	*b = t;
}

/* Says why a reload failed, to the log and to whoever asked. */
static int reload_failed(Context *ctx, int r, const char *why, char **ret_error)
{
	log_error("Failed to reload %s, keeping the old configuration: %s", ctx->config_path, why);
	if (ret_error && asprintf(ret_error, "%s: %s; the old configuration stays", ctx->config_path, why) < 0)
		*ret_error = NULL;
	return r < 0 ? r : -EINVAL;
}

int context_reload(Context *ctx, char **ret_error)
{
	_cleanup_free_ char *err = NULL;
	Config n;
	int r = context_load_config(ctx, &n, &err);
	if (r < 0)
		return reload_failed(ctx, r, err ? err : strerror(-r), ret_error);
	regex_t inc, exc;
	bool hi = false, he = false;
	if (compile_filter(n.include, &inc, &hi) < 0 || compile_filter(n.exclude, &exc, &he) < 0 ||
	    load_models(ctx, &n, &err) < 0 ||
	    (ctx->http && http_reload(ctx->http, n.web_config, &err) < 0)) {
		if (hi)
			regfree(&inc);
		if (he)
			regfree(&exc);
		config_done(&n);
		return reload_failed(ctx, -EINVAL, err ? err : "invalid --include or --exclude pattern", ret_error);
	}
	warn_restart_only(&ctx->config, &n);
	/* Keep the values that only a restart can change, so status tells the truth. */
	Config applied;
	r = config_copy(&ctx->config, &applied);
	if (r < 0)
		return log_error_errno(r, "Out of memory");
	applied.interval = n.interval;
	applied.slow_io = n.slow_io;
	applied.detect = n.detect;
	applied.history_days = n.history_days;
	applied.history_max_events = n.history_max_events;
	applied.probe = n.probe;
	applied.probe_interval = n.probe_interval;
	swap_str(&applied.include, &n.include);
	swap_str(&applied.exclude, &n.exclude);
	swap_str(&applied.model_list, &n.model_list);
	swap_str(&applied.log_level, &n.log_level);
	swap_str(&applied.web_config, &n.web_config);
	config_done(&n);
	config_done(&ctx->config);
	ctx->config = applied;
	if (ctx->have_include)
		regfree(&ctx->include_re);
	if (ctx->have_exclude)
		regfree(&ctx->exclude_re);
	ctx->include_re = inc, ctx->have_include = hi;
	ctx->exclude_re = exc, ctx->have_exclude = he;
	apply_log_level(ctx->config.log_level);
	tracer_set_slow(ctx, context_slow_threshold(ctx));
	discovery_reclassify(ctx);
	log_info("reloaded %s", ctx->config_path);
	return 0;
}
