/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The config table: parsing, validation, all-or-nothing loads, printing. */
#include <stdlib.h>

#include "config.h"
#include "test.h"

static void test_parse(void)
{
	Config c;
	char *err = NULL;
	CHECK_INT(config_init(&c), 0);
	CHECK_NEAR(c.interval, 1.0, 1e-9);
	CHECK_STR(c.listen, ":9863");
	CHECK_INT(config_parse_text(&c, "# comment\n\n interval = 2.5 \nstate_dir=/tmp/x\ninclude = \"^sd\"\n", &err), 0);
	CHECK_NEAR(c.interval, 2.5, 1e-9);
	CHECK_STR(c.state_dir, "/tmp/x");
	CHECK_STR(c.include, "^sd");

	const char *bad[] = {"interval = 0", "interval = fast", "interval = 99999", "state-dir = relative",
			     "include = (", "nonsense = 1", "just words", "log-level = loud"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = NULL;
		CHECK(config_parse_text(&c, bad[i], &err) < 0);
		CHECK(err && strstr(err, "line 1"));
		free(err);
	}
	config_done(&c);
}

static void test_load_all_or_nothing(void)
{
	Config c;
	char *err = NULL, path[] = "/tmp/smrd-test-config-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char text[] = "interval = 5\ninclude = ^sd\nexclude = (\n";
	CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	close(fd);
	config_init(&c);
	CHECK(config_load(&c, path, false, &err) < 0);
	CHECK(err && strstr(err, "line 3"));
	free(err);
	CHECK_NEAR(c.interval, 1.0, 1e-9);	/* nothing of the bad file applied */
	CHECK_STR(c.include, "");
	unlink(path);
	CHECK_INT(config_load(&c, path, true, &err), 0);	/* missing is fine when allowed */
	CHECK(config_load(&c, path, false, &err) == -ENOENT);
	config_done(&c);
}

static void test_print_and_regex(void)
{
	Config c;
	char *text = NULL;
	size_t len = 0;
	config_init(&c);
	FILE *f = open_memstream(&text, &len);
	config_print(&c, f);
	fclose(f);
	CHECK(strstr(text, "interval = 1\n") != NULL);
	CHECK(strstr(text, "listen = \":9863\"\n") != NULL);
	/* What --check-config prints parses back to the same config. */
	Config d;
	char *err = NULL;
	config_init(&d);
	config_set(&d, "interval", "7", NULL);
	CHECK_INT(config_parse_text(&d, text, &err), 0);
	CHECK_NEAR(d.interval, 1.0, 1e-9);
	CHECK_STR(d.exclude, c.exclude);
	free(text);
	/* a pattern PCRE2 refuses is refused by the config, saying where */
	CHECK_INT(config_set(&d, "exclude", "^(sd[a-z]$", &err), -EINVAL);
	CHECK(err && strstr(err, "exclude: '^(sd[a-z]$' is refused: ") && strstr(err, "offset"));
	free(err);
	err = NULL;
	config_done(&c);
	config_done(&d);
}

static void test_detect_keys(void)
{
	Config c, d;
	char *err = NULL, *text = NULL;
	size_t len = 0;
	config_init(&c);
	CHECK(config_has_key("detect.storm-confirm"));
	CHECK(config_has_key("detect.stall-threshold.sdb"));
	CHECK(!config_has_key("detect.nope"));
	CHECK_INT(config_parse_text(&c, "detect.storm-confirm = 4\ndetect.stall-threshold.sdb = 5\n"
				       "history-days = 30\nprobe = yes\n", &err), 0);
	CHECK_NEAR(c.detect.storm_confirm, 4, 0);
	CHECK_NEAR(detect_stall_threshold(&c.detect, "sdb"), 5, 0);
	CHECK_NEAR(detect_stall_threshold(&c.detect, "sdc"), 1, 0);
	CHECK_NEAR(c.history_days, 30, 0);
	CHECK_NEAR(c.probe, 1, 0);
	CHECK(config_parse_text(&c, "detect.storm-confirm = 0\n", &err) == -EINVAL);
	CHECK_STR(err, "line 1: detect.storm-confirm: '0' is not a number from 1 to 30");
	free(err);
	err = NULL;
	CHECK(config_parse_text(&c, "probe = maybe\n", &err) == -EINVAL);
	CHECK_STR(err, "line 1: probe: 'maybe' is not yes or no");
	free(err);
	err = NULL;
	CHECK(config_parse_text(&c, "history-max-events = 12.5\n", &err) == -EINVAL);
	free(err);
	err = NULL;
	/* printed and parsed back: the same thresholds, overrides included */
	FILE *f = open_memstream(&text, &len);
	config_print(&c, f);
	fclose(f);
	CHECK(strstr(text, "detect.stall-threshold.sdb = 5\n") != NULL);
	CHECK(strstr(text, "probe = yes\n") != NULL);
	config_init(&d);
	CHECK_INT(config_parse_text(&d, text, &err), 0);
	CHECK_NEAR(d.detect.storm_confirm, 4, 0);
	CHECK_NEAR(detect_stall_threshold(&d.detect, "sdb"), 5, 0);
	CHECK_NEAR(d.probe, 1, 0);
	free(text);
	config_done(&c);
	config_done(&d);
}

/* Each number's range is a column of the table: its bounds, its word, and
 * what is not a number at all (nan, inf) refused alike. */
static void test_number_ranges(void)
{
	static const struct {
		const char *key, *value, *said;
	} bad[] = {
		{"interval", "0.05", "interval: '0.05' is not a number of seconds from 0.1 to 3600"},
		{"interval", "nan", "interval: 'nan' is not a number of seconds from 0.1 to 3600"},
		{"slow-io", "inf", "slow-io: 'inf' is not a number of seconds from 0.001 to 3600"},
		{"history-days", "36501", "history-days: '36501' is not a number of days from 1 to 36500"},
		{"history-max-events", "1000.5", "history-max-events: '1000.5' is not a whole number from 100 to 100000000"},
		{"notify-interval", "0", "notify-interval: '0' is not a number of seconds from 1 to 604800"},
	};
	Config c;
	config_init(&c);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *err = NULL;
		CHECK_INT(config_set(&c, bad[i].key, bad[i].value, &err), -EINVAL);
		CHECK_STR(err ? err : "", bad[i].said);
		free(err);
	}
	CHECK_INT(config_set(&c, "history-max-events", "100000000", NULL), 0);
	CHECK_NEAR(c.history_max_events, 1e8, 0);
	CHECK_INT(config_set(&c, "slow-io", "0.001", NULL), 0);
	CHECK_NEAR(c.slow_io, 0.001, 1e-12);
	/* seconds as systemd.time(7) writes them, as an admin types them */
	static const struct {
		const char *value;
		double seconds;
	} spans[] = {{"1s", 1}, {"500ms", 0.5}, {"2min", 120}, {"1h 30min", 5400}, {"1 sec", 1}, {"0.25s", 0.25}};
	for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
		CHECK_INT(config_set(&c, "notify-interval", "1", NULL), 0);
		CHECK_INT(config_set(&c, "notify-interval", spans[i].value, NULL), spans[i].seconds >= 1 ? 0 : -EINVAL);
		if (spans[i].seconds >= 1)
			CHECK_NEAR(c.notify_interval, spans[i].seconds, 1e-9);
	}
	CHECK_INT(config_set(&c, "interval", "500ms", NULL), 0);
	CHECK_NEAR(c.interval, 0.5, 1e-12);
	static const char *const not_spans[] = {"1x", "s", "1s2", "-1s", "1 s s", "1e999s", ""};
	for (size_t i = 0; i < sizeof not_spans / sizeof *not_spans; i++)
		CHECK_INT(config_set(&c, "interval", not_spans[i], NULL), -EINVAL);
	/* days stay days: a span is for seconds */
	CHECK_INT(config_set(&c, "history-days", "90d", NULL), -EINVAL);
	config_done(&c);
}

int main(void)
{
	test_number_ranges();
	test_detect_keys();
	test_parse();
	test_load_all_or_nothing();
	test_print_and_regex();
	return test_done("test-config");
}
