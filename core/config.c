/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Config by table: every key, its type and default in one place, shared by
 * the file parser, the command-line flags and --check-config's printer.
 */
#include "config.h"

#include "format.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>

#include "format.h"
#include "pattern.h"
#include "util.h"

#ifndef SMRD_MODEL_LIST_PATH
#define SMRD_MODEL_LIST_PATH "/usr/share/smrd/smr-models.tsv"
#endif

#define CONFIG_MAX_BYTES (256 * 1024)

typedef enum ConfigType {
	CONFIG_STRING,
	CONFIG_PATH,		/* absolute path */
	CONFIG_REGEX,
	CONFIG_NUMBER,		/* from lo to hi, in unit (a whole number when unit is NULL) */
	CONFIG_LOG_LEVEL,
	CONFIG_BACKEND,
	CONFIG_BOOL,		/* yes/no, stored as 1/0 */
	CONFIG_COMMAND,		/* absolute path of a program, or "" */
	CONFIG_SEVERITY,	/* crit, warning, notice or info */
} ConfigType;

typedef struct ConfigItem {
	const char *key;
	ConfigType type;
	size_t offset;
	const char *def;
	const char *help;
	double lo, hi;		/* CONFIG_NUMBER's range */
	const char *unit;	/* "seconds", "days", or NULL: a whole number */
} ConfigItem;

#define ITEM(k, t, field, d, h) {k, t, offsetof(Config, field), d, h, 0, 0, NULL}
#define NUMBER(k, field, d, lo, hi, unit, h) {k, CONFIG_NUMBER, offsetof(Config, field), d, h, lo, hi, unit}
static const ConfigItem items[] = {
	ITEM("listen", CONFIG_STRING, listen, CONFIG_DEFAULT_LISTEN, "HTTP address:port for /metrics, the status pages and /api/v1"),
	ITEM("web.config.file", CONFIG_STRING, web_config, "",
	     "node_exporter's web configuration file: TLS, client certificates, basic auth (empty: plain HTTP)"),
	ITEM("socket", CONFIG_PATH, socket_path, "/run/smrd/smrd.sock", "control socket for smrctl"),
	ITEM("socket-group", CONFIG_STRING, socket_group, "smrd",
	     "group that may use the control socket smrd binds (if it exists)"),
	ITEM("state-dir", CONFIG_PATH, state_dir, "/var/lib/smrd", "where history is kept"),
	NUMBER("interval", interval, "1", 0.1, 3600, "seconds", "seconds between diskstats samples"),
	ITEM("include", CONFIG_REGEX, include, "", "watch only devices matching (empty: all)"),
	ITEM("exclude", CONFIG_REGEX, exclude, CONFIG_DEFAULT_EXCLUDE, "never watch devices matching"),
	ITEM("watch-stacked", CONFIG_BOOL, watch_stacked, "no",
	     "watch stacked devices (dm, md, bcache, zvols) too; their member disks are watched either way"),
	ITEM("sysfs-root", CONFIG_PATH, sysfs_root, "/sys", "where sysfs is"),
	ITEM("procfs-root", CONFIG_PATH, procfs_root, "/proc", "where procfs is"),
	ITEM("udev-root", CONFIG_PATH, udev_root, "/run/udev", "where the udev database is"),
	ITEM("model-list", CONFIG_STRING, model_list, SMRD_MODEL_LIST_PATH, "DM-SMR model list, or builtin"),
	ITEM("drivedb", CONFIG_STRING, drivedb, "auto",
	     "smartmontools' drivedb.h, for its (SMR) and (CMR) families: auto, a path, or none"),
	ITEM("log-level", CONFIG_LOG_LEVEL, log_level, "info", "error, warning, notice, info or debug"),
	ITEM("trace-backend", CONFIG_BACKEND, trace_backend, "auto",
	     "per-I/O latency from: auto (bpf, else perf, else none), bpf, perf or none (diskstats averages)"),
	NUMBER("slow-io", slow_io, "0.1", 0.001, 3600, "seconds", "seconds: slower I/Os are recorded one by one"),
	NUMBER("history-days", history_days, "90", 1, 36500, "days", "days of events kept in the history database"),
	NUMBER("history-max-events", history_max_events, "100000", 100, 1e8, NULL, "events kept at most"),
	NUMBER("history-retry", history_retry, "10", 0.1, 3600, "seconds",
	       "seconds between attempts to write back the events kept in memory while the history database "
	       "cannot be written (its file system full, read-only or gone)"),
	ITEM("probe", CONFIG_BOOL, probe, "no",
	     "confirm idle-time cleaning with rate-limited 4 KiB O_DIRECT reads (never on a disk idle long enough to spin down)"),
	NUMBER("probe-interval", probe_interval, "10", 0.1, 3600, "seconds", "seconds between probe reads of one disk"),
	ITEM("notify-command", CONFIG_COMMAND, notify_command, "",
	     "program run once per incident, the event in its environment (empty: none; docs/notify.md)"),
	ITEM("notify-min-severity", CONFIG_SEVERITY, notify_min_severity, "warning",
	     "notify of events this severe or more: crit, warning, notice or info"),
	NUMBER("notify-interval", notify_interval, "3600", 1, 604800, "seconds",
	     "seconds: stalls, timeout risks and forecasts of one disk notified at most once per this, with the count"),
	NUMBER("notify-timeout", notify_timeout, "30", 0.1, 3600, "seconds",
	       "seconds a notify-command may run before it is killed"),
	ITEM("notify-mailto", CONFIG_STRING, notify_mailto, "root", "SMRD_MAILTO for the shipped mail notifier"),
	ITEM("notify-webhook-url", CONFIG_STRING, notify_webhook_url, "", "SMRD_WEBHOOK_URL for the shipped webhook notifier"),
	ITEM("notify-url", CONFIG_STRING, notify_url, "",
	     "this smrd's pages as admins reach them (http://nas.example:9184), for the links in notifications; "
	     "empty: http://HOSTNAME:PORT of listen"),
	NUMBER("notify-coalesce", notify_coalesce, "10", 0, 600, "seconds",
	       "seconds a storm's first notification waits for its disk's verdict, to send both as one (0: at once)"),
	ITEM("zpool-command", CONFIG_STRING, zpool_command, "zpool",
	     "zpool, run for a resilver's progress while a watched disk is in a pool (a name looked up in PATH, or a path)"),
	ITEM("smartctl-command", CONFIG_STRING, smartctl_command, "smartctl",
	     "smartctl (7.4 or later), run once per Seagate disk for its FARM recording type, never waking it "
	     "(a name looked up in PATH, a path, or empty: never)"),
	ITEM("zfs-annotate", CONFIG_BOOL, zfs_annotate, "no",
	     "write each classified ZFS pool member's class and SMR confidence as the vdev user properties "
	     "org.smrd:class and org.smrd:smr_confidence (zpool set, OpenZFS 2.2 or later), when they change"),
	NUMBER("rebuild-interval", rebuild_interval, "10", 1, 3600, "seconds",
	       "seconds between readings of a rebuild's progress (zpool status; btrfs's sysfs and ioctls)"),
};

static bool is_number(const ConfigItem *it)
{
	return it->type == CONFIG_NUMBER || it->type == CONFIG_BOOL;
}

static const ConfigItem *find_item(const char *key);

bool config_key_is_path(const char *key)
{
	const ConfigItem *it = find_item(key);
	/* model-list and drivedb are paths but for their words (builtin, auto, none) */
	return it && (it->type == CONFIG_PATH || streq(key, "model-list") || streq(key, "drivedb"));
}

static const ConfigItem *find_item(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		const char *k = items[i].key;
		size_t j = 0;
		/* state_dir and state-dir are the same key */
		for (; k[j] && key[j] && (k[j] == key[j] || (k[j] == '-' && key[j] == '_')); j++)
			;
		if (!k[j] && !key[j])
			return &items[i];
	}
	return NULL;
}

#define DETECT_PREFIX "detect."
#define DISK_PREFIX "disk."

void config_print_help(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		const ConfigItem *it = &items[i];
		char flag[64];
		snprintf(flag, sizeof flag, "--%s %s", it->key,
			 streq(it->key, "listen") ? "ADDR:PORT" : streq(it->key, "socket-group") ? "GROUP" :
			 it->type == CONFIG_PATH || it->type == CONFIG_COMMAND || streq(it->key, "web.config.file") ||
			 streq(it->key, "model-list") || streq(it->key, "drivedb") ? "PATH" : streq(it->key, "notify-mailto") ? "ADDRESS" :
			 streq(it->key, "notify-webhook-url") || streq(it->key, "notify-url") ? "URL" : it->type == CONFIG_REGEX ? "REGEX" : is_number(it) ?
			 (it->type == CONFIG_BOOL ? "yes|no" : !it->unit ? "N" : streq(it->unit, "days") ? "DAYS" :
			  "SECONDS") : it->type == CONFIG_LOG_LEVEL || it->type == CONFIG_BACKEND ||
			 it->type == CONFIG_SEVERITY ? "NAME" : "VALUE");
		fprintf(f, "  %-24s %s", flag, it->help);
		if (it->def[0] && it->type != CONFIG_REGEX)
			fprintf(f, " (default %s)", it->def);
		fputc('\n', f);
	}
}

bool config_has_key(const char *key)
{
	return find_item(key) || (startswith(key, DETECT_PREFIX) && detect_param_known(key + strlen(DETECT_PREFIX))) ||
	       (startswith(key, DISK_PREFIX) && disk_rule_key_known(key + strlen(DISK_PREFIX)));
}

/* A number of seconds as systemd.time(7) writes a time span: "1", "1s",
 * "500ms", "2min", "1h 30min" (the parts add up). */
static int parse_seconds(const char *s, double *ret)
{
	static const struct {
		const char *suffix;
		double seconds;
	} units[] = {
		{"usec", 1e-6}, {"us", 1e-6}, {"msec", 1e-3}, {"ms", 1e-3}, {"seconds", 1}, {"second", 1},
		{"sec", 1}, {"s", 1}, {"minutes", 60}, {"minute", 60}, {"min", 60}, {"m", 60},
		{"hours", 3600}, {"hour", 3600}, {"hr", 3600}, {"h", 3600}, {"days", 86400}, {"day", 86400},
		{"d", 86400}, {"weeks", 604800}, {"week", 604800}, {"w", 604800},
	};
	double total = 0;
	bool any = false;
	if (parse_double(s, ret) == 0)
		return 0;
	while (*s) {
		char *end;
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (!(*s >= '0' && *s <= '9') && *s != '.')
			return -EINVAL;
		double v = strtod(s, &end);
		if (end == s || !isfinite(v))
			return -EINVAL;
		s = end;
		while (*s == ' ')
			s++;
		size_t i = 0, n = 0;
		for (; i < ELEMENTSOF(units); i++) {
			n = strlen(units[i].suffix);
			if (strncmp(s, units[i].suffix, n) == 0 && !(s[n] >= 'a' && s[n] <= 'z'))
				break;
		}
		if (i == ELEMENTSOF(units))
			return -EINVAL;
		total += v * units[i].seconds;
		s += n;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*ret = total;
	return 0;
}

static int validate(const ConfigItem *it, const char *value, double *ret_num, char **ret_error)
{
	switch (it->type) {
	case CONFIG_STRING:
		return 0;
	case CONFIG_PATH:
		return value[0] == '/' ? 0 : set_errorf(ret_error, -EINVAL, "%s: '%s' is not an absolute path", it->key, value);

	case CONFIG_REGEX: {
		_cleanup_free_ char *shown = str_sanitize(value);
		Pattern *re = NULL;
		char why[PATTERN_WHY_MAX];
		if (!shown)
			return -ENOMEM;
		int r = pattern_new(value, 0, &re, why);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return set_errorf(ret_error, -EINVAL, "%s: '%.80s' is refused: %s", it->key, shown, why);
		pattern_free(re);
		return 0;
	}
	case CONFIG_NUMBER:
		if ((it->unit && streq(it->unit, "seconds") ? parse_seconds(value, ret_num)
							      : parse_double(value, ret_num)) < 0 ||
		    !(*ret_num >= it->lo && *ret_num <= it->hi) ||
		    (!it->unit && *ret_num != floor(*ret_num)))
			return set_errorf(ret_error, -EINVAL, "%s: '%s' is not a %s%s from %.15g to %.15g", it->key, value,
					 it->unit ? "number of " : "whole number", it->unit ? it->unit : "", it->lo, it->hi);
		return 0;
	case CONFIG_LOG_LEVEL:
		if (streq(value, "error") || streq(value, "warning") || streq(value, "notice") ||
		    streq(value, "info") || streq(value, "debug"))
			return 0;
		return set_errorf(ret_error, -EINVAL, "%s: '%s' is not one of error, warning, notice, info, debug",
				 it->key, value);
	case CONFIG_BACKEND:
		if (streq(value, "auto") || streq(value, "bpf") || streq(value, "perf") || streq(value, "none"))
			return 0;
		return set_errorf(ret_error, -EINVAL, "%s: '%s' is not one of auto, bpf, perf, none", it->key, value);
	case CONFIG_COMMAND:
		return !value[0] || value[0] == '/' ? 0 :
		       set_errorf(ret_error, -EINVAL, "%s: '%s' is not an absolute path (it is run directly, not by a shell)",
				  it->key, value);
	case CONFIG_SEVERITY:
		if (streq(value, "crit") || streq(value, "warning") || streq(value, "notice") || streq(value, "info"))
			return 0;
		return set_errorf(ret_error, -EINVAL, "%s: '%s' is not one of crit, warning, notice, info", it->key, value);
	case CONFIG_BOOL:
		if (streq(value, "yes") || streq(value, "true") || streq(value, "on") || streq(value, "1"))
			*ret_num = 1;
		else if (streq(value, "no") || streq(value, "false") || streq(value, "off") || streq(value, "0"))
			*ret_num = 0;
		else
			return set_errorf(ret_error, -EINVAL, "%s: '%s' is not yes or no", it->key, value);
		return 0;
	}
	return -EINVAL;
}

int config_set(Config *c, const char *key, const char *value, char **ret_error)
{
	const ConfigItem *it = find_item(key);
	double num = 0;
	if (!it && startswith(key, DETECT_PREFIX))
		return detect_param_set(&c->detect, key + strlen(DETECT_PREFIX), value, ret_error);
	if (!it && startswith(key, DISK_PREFIX))
		return disk_rule_set(&c->disks, key + strlen(DISK_PREFIX), value, ret_error);
	if (!it)
		return set_errorf(ret_error, -EINVAL, "unknown setting '%s'", key);
	int r = validate(it, value, &num, ret_error);
	if (r < 0)
		return r;
	if (is_number(it)) {
		*(double *)((char *)c + it->offset) = num;
		return 0;
	}
	char *copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	char **slot = (char **)((char *)c + it->offset);
	free(*slot);
	*slot = copy;
	return 0;
}

int config_warn(Config *c, const char *where, const char *what)
{
	char *more;
	if (asprintf(&more, "%s%s%s: %s", c->warnings ? c->warnings : "", c->warnings ? "\n" : "", where, what) < 0)
		return -ENOMEM;
	free(c->warnings);
	c->warnings = more;
	return 0;
}

int config_init(Config *c)
{
	*c = (Config){0};
	detect_params_init(&c->detect);
	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		int r = config_set(c, items[i].key, items[i].def, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

void config_done(Config *c)
{
	for (size_t i = 0; i < ELEMENTSOF(items); i++)
		if (!is_number(&items[i]))
			free(*(char **)((char *)c + items[i].offset));
	free(c->warnings);
	*c = (Config){0};
}

int config_copy(const Config *from, Config *to)
{
	Config n = *from;
	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		if (is_number(&items[i]))
			continue;
		char **slot = (char **)((char *)&n + items[i].offset);
		*slot = strdup(*slot);
	}
	n.warnings = from->warnings ? strdup(from->warnings) : NULL;
	bool oom = from->warnings && !n.warnings;
	for (size_t i = 0; i < ELEMENTSOF(items); i++)
		oom |= !is_number(&items[i]) && !*(char **)((char *)&n + items[i].offset);
	if (oom) {
		config_done(&n);
		return -ENOMEM;
	}
	*to = n;
	return 0;
}

static int parse_line(Config *c, char *line, unsigned lineno, char **ret_error)
{
	strstrip(line);
	if (!*line || line[0] == '#')
		return 0;
	char *eq = strchr(line, '=');
	if (!eq) {
		if (ret_error && asprintf(ret_error, "line %u: expected key = value", lineno) < 0)
			*ret_error = NULL;
		return -EINVAL;
	}
	*eq = 0;
	char *key = strstrip(line), *value = strstrip(eq + 1);
	size_t vl = strlen(value);
	if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
		value[vl - 1] = 0;
		value++;
	}
	_cleanup_free_ char *err = NULL;
	int r = config_set(c, key, value, &err);
	if (r < 0 && ret_error && asprintf(ret_error, "line %u: %s", lineno, err ? err : "invalid") < 0)
		*ret_error = NULL;
	if (r >= 0 && err) {
		char where[32];
		snprintf(where, sizeof where, "line %u", lineno);
		r = config_warn(c, where, err);
	}
	return r;
}

int config_parse_text(Config *c, const char *text, char **ret_error)
{
	_cleanup_free_ char *copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	unsigned lineno = 0;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		int r = parse_line(c, line, ++lineno, ret_error);
		if (r < 0)
			return r;
	}
	return 0;
}

int config_load(Config *c, const char *path, bool missing_ok, char **ret_error)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = read_file_at(AT_FDCWD, path, CONFIG_MAX_BYTES, &text, &len);
	if (r == -ENOENT && missing_ok)
		return 0;
	if (r < 0)
		return r;
	if (strlen(text) != len) {
		if (ret_error && asprintf(ret_error, "contains a NUL byte") < 0)
			*ret_error = NULL;
		return -EBADMSG;
	}
	/* All or nothing: a bad file must not leave half of it applied. */
	Config tmp;
	r = config_copy(c, &tmp);
	if (r < 0)
		return r;
	r = config_parse_text(&tmp, text, ret_error);
	if (r < 0) {
		config_done(&tmp);
		return r;
	}
	config_done(c);
	*c = tmp;
	return 0;
}

/* What only a restart can change (smrd.conf(5) marks them "(restart)"):
 * sockets bound, directories opened, a tracer attached at start. Every
 * other key takes effect on reload. All are strings. */
static const char *const restart_keys[] = {
	"listen", "socket", "socket-group", "state-dir", "sysfs-root", "procfs-root", "udev-root", "trace-backend",
};

static char **string_slot(Config *c, const char *key)
{
	const ConfigItem *it = find_item(key);
	return it && !is_number(it) ? (char **)((char *)c + it->offset) : NULL;
}

bool config_key_needs_restart(const char *key)
{
	const ConfigItem *it = find_item(key);
	for (size_t i = 0; it && i < ELEMENTSOF(restart_keys); i++)
		if (streq(it->key, restart_keys[i]))
			return true;
	return false;
}

int config_keep_restart_keys(Config *n, const Config *old, ConfigChangeFn changed, void *userdata)
{
	for (size_t i = 0; i < ELEMENTSOF(restart_keys); i++) {
		char **to = string_slot(n, restart_keys[i]);
		char *const *from = string_slot((Config *)old, restart_keys[i]);
		if (streq(*to, *from))
			continue;
		char *keep = strdup(*from);
		if (!keep)
			return -ENOMEM;
		if (changed)
			changed(restart_keys[i], *from, *to, userdata);
		free(*to);
		*to = keep;
	}
	return 0;
}

void config_print(const Config *c, FILE *f)
{
	char num[32];	/* every number as it reads back: --check-config > smrd.conf changes nothing */
	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		const ConfigItem *it = &items[i];
		fprintf(f, "# %s\n", it->help);
		if (it->type == CONFIG_BOOL)
			fprintf(f, "%s = %s\n", it->key, *(const double *)((const char *)c + it->offset) ? "yes" : "no");
		else if (is_number(it))
			fprintf(f, "%s = %s\n", it->key, format_exact(num, *(const double *)((const char *)c + it->offset)));
		else
			fprintf(f, "%s = \"%s\"\n", it->key, *(char *const *)((const char *)c + it->offset));
	}
	detect_params_print(&c->detect, f);
	disk_rules_print(&c->disks, f);
}
