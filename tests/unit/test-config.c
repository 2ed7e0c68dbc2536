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

int main(void)
{
	test_detect_keys();
	test_parse();
	test_load_all_or_nothing();
	test_print_and_regex();
	return test_done("test-config");
}
