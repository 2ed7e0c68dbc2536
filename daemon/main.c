/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrd: watches disks for shingled-magnetic-recording behaviour and exports
 * what it sees to Prometheus and smrctl. main() parses the command line,
 * builds the context, runs the loop and tears down.
 */
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>

#include "context.h"
#include "exporter.h"
#include "http.h"
#include "log.h"
#include "monitor.h"
#include "service.h"
#include "websetup.h"

static void usage(void)
{
	printf("Usage: smrd [OPTION]...\n"
	       "Watch disks for SMR (shingled) behaviour; serve Prometheus metrics, status pages and smrctl.\n\n"
	       "  --config PATH            configuration file (default %s; /dev/null for none)\n"
	       "  --oneshot                sample once, print the metrics page and exit\n"
	       "  --check-config           print the effective configuration and exit\n"
	       "  --help, --version\n\n"
	       "Every setting of the configuration file is also a flag, and overrides it\n"
	       "(--KEY VALUE or --KEY=VALUE):\n",
	       SMRD_CONFIG_PATH);
	config_print_help(stdout);
	printf("\nThe detector's settings (docs/detection.md):\n");
	detect_params_help(stdout);
	printf("\nPer disk, by WWN, serial or model (docs/membership.md, smrd.conf(5)):\n"
	       "  --disk.ID.expect CLASS   the class the disk is declared to have\n"
	       "  --disk.ID.stall-threshold SECONDS\n"
	       "                           its stall threshold\n");
}

typedef enum Action { ACTION_RUN, ACTION_ONESHOT, ACTION_CHECK, ACTION_EXIT } Action;

static int add_cli(CliSettings *cli, const char *key, const char *value)
{
	CliSetting *n = realloc(cli->items, (cli->n + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	cli->items = n;
	n[cli->n] = (CliSetting){strdup(key), strdup(value)};
	if (!n[cli->n].key || !n[cli->n].value)
		return -ENOMEM;
	cli->n++;
	return 0;
}

static int parse_argv(Context *ctx, int argc, char **argv, Action *action)
{
	*action = ACTION_RUN;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (streq(a, "--help") || streq(a, "-h")) {
			usage();
			*action = ACTION_EXIT;
			return 0;
		}
		if (streq(a, "--version")) {
			printf("smrd %s\n", SMRD_VERSION);
			*action = ACTION_EXIT;
			return 0;
		}
		if (streq(a, "--oneshot")) {
			*action = ACTION_ONESHOT;
			continue;
		}
		if (streq(a, "--check-config")) {
			*action = ACTION_CHECK;
			continue;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(stderr, "smrd: unexpected argument '%s' (see --help)\n", a);
			return -EINVAL;
		}
		_cleanup_free_ char *key = strdup(a + 2);
		if (!key)
			return -ENOMEM;
		char *eq = strchr(key, '='), *value;
		if (eq)
			*eq = 0;
		if (!streq(key, "config") && !config_has_key(key)) {
			fprintf(stderr, "smrd: unknown option --%s (see --help)\n", key);
			return -EINVAL;
		}
		if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			fprintf(stderr, "smrd: --%s needs a value\n", key);
			return -EINVAL;
		}
		if (streq(key, "config")) {
			free(ctx->config_path);
			ctx->config_path = strdup(value);
		} else if (add_cli(&ctx->cli, key, value) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	Context *ctx = userdata;
	(void)s;
	if (si->ssi_signo == SIGHUP) {
		context_reload(ctx, NULL);
		return 0;
	}
	log_info("received %s, exiting", si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
	service_stopping(ctx->service);
	return sd_event_exit(ctx->event, 0);
}

static int run_loop(Context *ctx)
{
	int r = 0;
	for (int sig = 0; r >= 0 && sig < 3; sig++)
		r = sd_event_add_signal(ctx->event, NULL, (int[]){SIGTERM, SIGINT, SIGHUP}[sig], on_signal, ctx);
	if (r < 0)
		return log_error_errno(r, "Failed to set up signal handling: %m");
	return sd_event_loop(ctx->event);
}

static int oneshot(Context *ctx)
{
	Buf b = {0};
	TickTime now = tick_time_now();
	context_tick(ctx, &now);
	int r = exporter_render(ctx, &b, METRIC_FORMAT_TEXT);
	if (r >= 0)
		fwrite(b.data ? b.data : "", 1, b.len, stdout);
	buf_free(&b);
	return r;
}

static void free_cli(Context *ctx)
{
	for (size_t i = 0; i < ctx->cli.n; i++) {
		free(ctx->cli.items[i].key);
		free(ctx->cli.items[i].value);
	}
	free(ctx->cli.items);
	free(ctx->config_path);
}

int main(int argc, char **argv)
{
	Context ctx = {.src = {.sysfs_fd = -1, .procfs_fd = -1, .udev_fd = -1}};
	_cleanup_free_ char *err = NULL;
	Action action;
	int r;

	/* A metrics page is a megabyte or two, made once a scrape and then sent
	 * and freed: mapped on its own, its memory goes back with it. glibc's
	 * default moves the threshold up after the first free, and such pages
	 * then stay in the heap for good. */
	mallopt(M_MMAP_THRESHOLD, 512 * 1024);
	ctx.config_path = strdup(SMRD_CONFIG_PATH);
	r = parse_argv(&ctx, argc, argv, &action);
	if (r < 0 || action == ACTION_EXIT)
		goto out;
	r = context_load_config(&ctx, &ctx.config, &err);
	if (r < 0) {
		log_error_errno(r, "Bad configuration: %s", err ? err : strerror(-r));
		goto out;
	}
	if (action == ACTION_CHECK) {
		printf("# effective configuration (config file: %s)\n", ctx.config_path);
		config_print(&ctx.config, stdout);
		if (ctx.config.web_config[0]) {
			WebSetup *w = NULL;
			free(err);
			err = NULL;
			r = websetup_load(ctx.config.web_config, &w, &err);
			websetup_free(w);
			if (r < 0)
				log_error("Bad web configuration: %s", err ? err : strerror(-r));
		}
		config_done(&ctx.config);
		goto out;
	}
	/* sd-event wants these blocked before it turns them into events, and
	 * SIGCHLD blocked in every thread before it watches a child (the
	 * notifier's hooks): here, before any thread starts. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM), sigaddset(&mask, SIGINT), sigaddset(&mask, SIGHUP), sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	ctx.oneshot = action == ACTION_ONESHOT;
	r = context_init(&ctx);
	if (r >= 0)
		r = ctx.oneshot ? oneshot(&ctx) : run_loop(&ctx);
	context_done(&ctx);
out:
	free_cli(&ctx);
	return r < 0 ? 1 : 0;
}
