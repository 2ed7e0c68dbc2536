/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hub on a captured tree (fixtures/sysfs/mixed), every module real but
 * the tracer (trace-backend none) and the network (127.0.0.1:0, a socket in
 * a scratch directory): the config's precedence (defaults < file < flags),
 * start-up in order, the tick's data flow into every disk's view, reload in
 * one place (flags kept over the new file; a bad file changes nothing), and
 * shutdown.
 */
#include <json-c/json.h>
#include <time.h>

#include "commands.h"
#include "context.h"
#include "log.h"
#include "sampler.h"
#include "test.h"
#include "unit-tree.h"

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

static void set_flags(Context *ctx, const char *const (*flags)[2], size_t n)
{
	ctx->cli.items = calloc(n, sizeof *ctx->cli.items);
	ctx->cli.n = n;
	for (size_t i = 0; i < n; i++)
		ctx->cli.items[i] = (CliSetting){.key = strdup(flags[i][0]), .value = strdup(flags[i][1])};
}

static void free_flags(Context *ctx)
{
	for (size_t i = 0; i < ctx->cli.n; i++) {
		free(ctx->cli.items[i].key);
		free(ctx->cli.items[i].value);
	}
	free(ctx->cli.items);
	ctx->cli = (CliSettings){0};
}

/* key = value lines of what config_print() says of c, quotes removed. */
static char *printed(const Config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	config_print(c, f);
	fclose(f);
	return text;
}

/* The value printed for key, or NULL. */
static const char *value_of(const char *text, const char *key, char out[static 512])
{
	size_t n = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, n) == 0 && strncmp(l + n, " = ", 3) == 0) {
			const char *v = l + n + 3, *end = strchr(v, '\n');
			size_t len = end ? (size_t)(end - v) : strlen(v);
			if (len && v[0] == '"')
				v++, len -= 2;
			snprintf(out, 512, "%.*s", (int)len, v);
			return out;
		}
	return NULL;
}

/* Every key smrd.conf(5) does not mark "(restart)" takes effect on
 * reload: a file that sets each one to something not its default, then
 * what the running configuration prints. A key added to the config table
 * without a line here fails the test, so the walk stays whole. Keys given
 * as flags keep the flag's value (flags win over the file). */
static void test_reload_every_key(Context *ctx, const char *conf, const char *dir, const char *const (*flags)[2],
				  size_t n_flags)
{
	char web[512], text[4096];
	snprintf(web, sizeof web, "%s/web.yml", dir);
	CHECK_INT(write_text(web, ""), 0);
	const char *const every[][2] = {
		{"web.config.file", web}, {"include", "^(sd|nvme)"}, {"exclude", "^loop"}, {"watch-stacked", "yes"},
		{"drivedb", "none"}, {"slow-io", "0.25"}, {"history-days", "30"}, {"history-max-events", "5000"},
		{"history-retry", "2"},
		{"probe", "no"}, {"probe-interval", "20"}, {"notify-command", "/bin/true"}, {"notify-min-severity", "crit"},
		{"notify-interval", "600"}, {"notify-timeout", "10"}, {"notify-mailto", "admin@example.org"},
		{"notify-webhook-url", "https://example.org/hook"}, {"notify-url", "https://nas.example/smrd"},
		{"notify-coalesce", "5"}, {"zpool-command", "/usr/sbin/zpool"},
		{"rebuild-interval", "30"}, {"smartctl-command", "/usr/sbin/smartctl"},
		{"zfs-annotate", "yes"},
	};
	size_t at = 0;
	for (size_t i = 0; i < ELEMENTSOF(every); i++)
		at += (size_t)snprintf(text + at, sizeof text - at, "%s = \"%s\"\n", every[i][0], every[i][1]);
	CHECK_INT(write_text(conf, text), 0);
	_cleanup_free_ char *before = printed(&ctx->config);
	char *err = NULL;
	CHECK_INT(context_reload(ctx, &err), 0);
	CHECK(err == NULL);
	free(err);
	CHECK_STR(ctx->restart_needed, "");
	_cleanup_free_ char *after = printed(&ctx->config);
	CHECK(before && after);
	unsigned keys = 0;
	for (const char *l = after; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char key[64], was[512], now[512];
		if (l[0] == '#' || sscanf(l, "%63s = ", key) != 1 || (strchr(key, '.') && !streq(key, "web.config.file")))
			continue;	/* comments, detect.* and disk.* (their own tests) */
		keys++;
		bool flag = false;
		for (size_t i = 0; i < n_flags; i++)
			flag |= streq(flags[i][0], key);
		const char *want = NULL;
		for (size_t i = 0; i < ELEMENTSOF(every); i++)
			if (streq(every[i][0], key))
				want = every[i][1];
		if (flag || config_key_needs_restart(key))
			want = value_of(before, key, was);	/* the flag's, or the running one */
		if (!want)
			fprintf(stderr, "%s: a key the reload test does not set\n", key);
		else if (!streq(value_of(after, key, now) ? now : "", want))
			fprintf(stderr, "%s = %s after the reload, where %s was wanted\n", key, now, want);
		CHECK(want && streq(now, want));
	}
	CHECK(keys >= 27);
	/* what the notifier runs comes from the reload, at once */
	CHECK_STR(ctx->config.notify_command, "/bin/true");
	CHECK_NEAR(ctx->config.notify_interval, 600, 0);
}

int main(int argc, char **argv)
{
	log_set_max_level(LOG_EMERG);
	const char *fixtures = argc > 1 ? argv[1] : "tests/fixtures/sysfs";
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-context");
	char conf[512], state[512], sock[512], sys[512], proc[512], udev[512];
	snprintf(conf, sizeof conf, "%s/smrd.conf", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	snprintf(sock, sizeof sock, "%s/smrd.sock", dir);
	snprintf(sys, sizeof sys, "%s/mixed/sys", fixtures);
	snprintf(proc, sizeof proc, "%s/mixed/proc", fixtures);
	snprintf(udev, sizeof udev, "%s/mixed/udev", fixtures);
	CHECK_INT(write_text(conf, "interval = 2\nslow-io = 0.5\ndetect.stall-threshold = 0.3\nprobe = yes\n"), 0);

	Context ctx = {.src = {.sysfs_fd = -1, .procfs_fd = -1, .udev_fd = -1}, .config_path = strdup(conf)};
	const char *const flags[][2] = {
		{"interval", "0.5"}, {"sysfs-root", sys}, {"procfs-root", proc}, {"udev-root", udev},
		{"state-dir", state}, {"socket", sock}, {"listen", "127.0.0.1:0"}, {"trace-backend", "none"},
		{"model-list", "builtin"}, {"socket-group", ""}, {"log-level", "error"},
	};
	set_flags(&ctx, flags, ELEMENTSOF(flags));

	/* defaults < file < flags */
	char *err = NULL;
	int r = context_load_config(&ctx, &ctx.config, &err);
	CHECK_INT(r, 0);
	if (r < 0) {
		fprintf(stderr, "config: %s\n", err ? err : "?");
		return test_done("daemon-context");
	}
	CHECK_NEAR(ctx.config.interval, 0.5, 0);		/* the flag over the file */
	CHECK_NEAR(ctx.config.slow_io, 0.5, 0);			/* the file over the default */
	CHECK_NEAR(ctx.config.history_days, 90, 0);		/* the default */
	CHECK_NEAR(context_slow_threshold(&ctx), 0.3, 0);	/* a stall threshold under slow-io */
	/* a bad flag is refused, naming it; nothing is half applied */
	Context bad = {.config_path = strdup(conf)};
	const char *const bad_flags[][2] = {{"interval", "fast"}};
	set_flags(&bad, bad_flags, 1);
	Config c;
	CHECK(context_load_config(&bad, &c, &err) < 0);
	CHECK(err && strstr(err, "interval"));
	free(err);
	err = NULL;
	free_flags(&bad);
	free(bad.config_path);

	/* start-up on the captured tree: its three disks, classified */
	CHECK_INT(context_init(&ctx), 0);
	CHECK_INT(registry_size(ctx.disks), 3);
	const Disk *sda = registry_get(ctx.disks, "sda"), *nvme = registry_get(ctx.disks, "nvme0n1");
	CHECK(sda && nvme);
	if (!sda || !nvme) {
		context_done(&ctx);
		return test_done("daemon-context");
	}
	CHECK_INT(sda->verdict.class, DISK_CLASS_DM_SMR);
	CHECK_INT(nvme->verdict.class, DISK_CLASS_SSD);
	CHECK_INT(sda->view.sample, 0);		/* no sample yet */
	/* but the baseline is taken: the first interval's writes count */
	CHECK(sda->ds.primed);
	CHECK_INT(sampler_stats(ctx.sampler)->samples, 1);

	/* the tick: diskstats, the detector, every disk's view */
	uint64_t t0 = now_usec(CLOCK_MONOTONIC);
	for (int i = 1; i <= 3; i++)
		context_tick(&ctx, &(TickTime){t0 + (uint64_t)i * 500000, now_usec(CLOCK_REALTIME)});
	for (size_t i = 0; i < registry_size(ctx.disks); i++) {
		const Disk *d = registry_at(ctx.disks, i);
		CHECK_INT(d->view.sample, 3);
		CHECK(d->det_ready);
		CHECK(d->ds.primed);
	}
	/* the captured tree's counters do not move: no traffic, no storm */
	CHECK_NEAR(sda->view.rates.writes, 0, 0);
	CHECK(!sda->view.storm);

	/* the sampling timer's lateness: the worst of the last minute, kept
	 * through reads (two scrapers see the same) and forgotten after it */
	const uint64_t m = 60 * UINT64_C(1000000), b = (now_usec(CLOCK_MONOTONIC) / m + 10) * m;
	CHECK_NEAR(context_loop_lag(&ctx, b), 0, 0);
	context_note_lag(&ctx, b, b + 300000);
	context_note_lag(&ctx, b + 1000000, b + 1000000);		/* on time */
	context_note_lag(&ctx, b + 2000000, b + 1999000);		/* early counts as on time */
	CHECK_NEAR(context_loop_lag(&ctx, b + 2000000), 0.3, 1e-9);
	CHECK_NEAR(context_loop_lag(&ctx, b + 2000000), 0.3, 1e-9);
	context_note_lag(&ctx, b + 30000000, b + 30050000);
	CHECK_NEAR(context_loop_lag(&ctx, b + 50000000), 0.3, 1e-9);
	CHECK_NEAR(context_loop_lag(&ctx, b + m + 5000000), 0.05, 1e-9);	/* the 0.3 s is over a minute old */
	CHECK_NEAR(context_loop_lag(&ctx, b + 2 * m), 0, 0);
	context_note_lag(&ctx, b + 2 * m, b + 2 * m + 2000);			/* a slot reused starts afresh */
	CHECK_NEAR(context_loop_lag(&ctx, b + 2 * m), 0.002, 1e-9);
	/* a timer due during start-up counts only from its end */
	ctx.lag.from_usec = b + 3 * m;
	context_note_lag(&ctx, b + 3 * m - 1000000, b + 3 * m + 200000);
	CHECK_NEAR(context_loop_lag(&ctx, b + 3 * m + 200000), 0.2, 1e-9);

	/* what smrctl gets through the command table, from the same state */
	json_object *res = NULL;
	ProtoError perr;
	char *msg = NULL;
	struct ucred root = {.uid = 0};
	CHECK_INT(commands_dispatch(&ctx, "status", NULL, &root, &res, &perr, &msg), 0);
	json_object *x;
	CHECK(json_object_object_get_ex(res, "disks_watched", &x) && json_object_get_int(x) == 3);
	CHECK(json_object_object_get_ex(res, "samples", &x) && json_object_get_int(x) == 4);	/* the baseline and three ticks */
	json_object_put(res);

	/* reload: the new file, the flags again over it */
	CHECK_INT(write_text(conf, "interval = 5\ndetect.stall-threshold = 0.2\nhistory-days = 7\n"), 0);
	CHECK_INT(context_reload(&ctx, &err), 0);
	CHECK(err == NULL);
	CHECK_NEAR(ctx.config.interval, 0.5, 0);		/* still the flag's */
	CHECK_NEAR(ctx.config.history_days, 7, 0);
	CHECK_NEAR(ctx.config.detect.stall_threshold, 0.2, 0);
	CHECK_NEAR(context_slow_threshold(&ctx), 0.1, 0);	/* slow-io back at its default, under it */
	CHECK_NEAR(ctx.config.slow_io, 0.1, 0);			/* gone from the file: the default */
	/* the same through the command, which needs root */
	res = NULL;
	struct ucred user = {.uid = 1000};
	CHECK_INT(commands_dispatch(&ctx, "reload", NULL, &user, &res, &perr, &msg), -EPERM);
	free(msg);
	msg = NULL;
	json_object_put(res);
	res = NULL;
	CHECK_INT(commands_dispatch(&ctx, "reload", NULL, &root, &res, &perr, &msg), 0);
	json_object_put(res);
	res = NULL;
	/* a bad file: refused, said why, the old configuration stays */
	CHECK_INT(write_text(conf, "history-days = 7\ninterval = nonsense\n"), 0);
	CHECK(context_reload(&ctx, &err) < 0);
	/* the source as PATH:LINE, as the compilers say it */
	CHECK(err && strstr(err, "smrd.conf:2: interval") && strstr(err, "the old configuration stays"));
	free(err);
	err = NULL;
	CHECK_NEAR(ctx.config.history_days, 7, 0);
	CHECK_NEAR(ctx.config.detect.stall_threshold, 0.2, 0);
	CHECK(commands_dispatch(&ctx, "reload", NULL, &root, &res, &perr, &msg) < 0);
	CHECK(msg && strstr(msg, "the old configuration stays"));
	free(msg);
	json_object_put(res);

	test_reload_every_key(&ctx, conf, dir, flags, ELEMENTSOF(flags));

	/* the disks still sample after all that */
	context_tick(&ctx, &(TickTime){t0 + 4 * 500000, now_usec(CLOCK_REALTIME)});
	CHECK_INT(sda->view.sample, 4);

	context_done(&ctx);
	free_flags(&ctx);
	free(ctx.config_path);
	return test_done("daemon-context");
}
