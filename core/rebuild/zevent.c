/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ZEVENT_* environment -> ZfsEvent. Every value is checked for what it is
 * before it is stored: a pool name against ZFS's own rule, a path against
 * what a /dev link can be, numbers strictly; a name given twice is refused
 * (which one would zed have meant?). Messages name the variable, never
 * echo its value: it may be hostile.
 */
#include "zevent.h"

#include <ctype.h>
#include <string.h>

#include "util.h"

static const char *const kind_names[_ZFS_EVENT_KIND_MAX] = {
	[ZFS_EVENT_VDEV_ATTACH] = "vdev_attach", [ZFS_EVENT_RESILVER_START] = "resilver_start",
	[ZFS_EVENT_RESILVER_FINISH] = "resilver_finish", [ZFS_EVENT_SCRUB_START] = "scrub_start",
	[ZFS_EVENT_SCRUB_FINISH] = "scrub_finish", [ZFS_EVENT_DELAY] = "delay", [ZFS_EVENT_DEADMAN] = "deadman",
	[ZFS_EVENT_STATECHANGE] = "statechange", [ZFS_EVENT_SITOUT] = "sitout",
};

const char *zfs_event_kind_to_string(ZfsEventKind k)
{
	return (unsigned)k < _ZFS_EVENT_KIND_MAX ? kind_names[k] : NULL;
}

ZfsEventKind zfs_event_kind_from_string(const char *s)
{
	for (int k = 0; s && k < _ZFS_EVENT_KIND_MAX; k++)
		if (streq(kind_names[k], s))
			return (ZfsEventKind)k;
	return _ZFS_EVENT_KIND_INVALID;
}

typedef enum Var {
	VAR_EID, VAR_CLASS, VAR_SUBCLASS, VAR_TIME, VAR_TIME_SECS, VAR_TIME_NSECS, VAR_POOL, VAR_POOL_GUID,
	VAR_VDEV_PATH, VAR_VDEV_GUID, VAR_ZIO_DELAY, VAR_VDEV_STATE_STR, _VAR_MAX,
} Var;

/* name, and the longest value taken (bytes) */
static const struct {
	const char *name;
	size_t max;
} vars[_VAR_MAX] = {
	[VAR_EID] = {"ZEVENT_EID", 20}, [VAR_CLASS] = {"ZEVENT_CLASS", ZEVENT_CLASS_MAX},
	[VAR_SUBCLASS] = {"ZEVENT_SUBCLASS", ZEVENT_CLASS_MAX}, [VAR_TIME] = {"ZEVENT_TIME", 41},
	[VAR_TIME_SECS] = {"ZEVENT_TIME_SECS", 20}, [VAR_TIME_NSECS] = {"ZEVENT_TIME_NSECS", 10},
	[VAR_POOL] = {"ZEVENT_POOL", ZEVENT_POOL_MAX}, [VAR_POOL_GUID] = {"ZEVENT_POOL_GUID", 20},
	[VAR_VDEV_PATH] = {"ZEVENT_VDEV_PATH", ZEVENT_PATH_MAX}, [VAR_VDEV_GUID] = {"ZEVENT_VDEV_GUID", 20},
	[VAR_ZIO_DELAY] = {"ZEVENT_ZIO_DELAY", 20}, [VAR_VDEV_STATE_STR] = {"ZEVENT_VDEV_STATE_STR", ZEVENT_STATE_MAX},
};

static int var_of(const char *entry, size_t name_len)
{
	for (int v = 0; v < _VAR_MAX; v++)
		if (strlen(vars[v].name) == name_len && strncmp(vars[v].name, entry, name_len) == 0)
			return v;
	return -1;
}

bool zevent_var_known(const char *name)
{
	return name && var_of(name, strlen(name)) >= 0;
}

/* A pool name as zpool create takes it (zfs_namecheck.c, pool_namecheck):
 * a letter first, then letters, digits and "_-:. ". */
static bool pool_ok(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-:. ", *s))
			return false;
	return true;
}

const char *zevent_path_problem(const char *p)
{
	if (strnlen(p, ZEVENT_PATH_MAX + 1) > ZEVENT_PATH_MAX)
		return "is longer than a device path can be";
	if (!startswith(p, "/dev/") || !p[5])
		return "is not a path under /dev/";
	/* udev's links escape everything else (\x20 for a space) */
	for (const char *c = p; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("/_-.:+,=@%#\\", *c))
			return "holds a character no device path has (white space, a control character or a shell "
			       "metacharacter)";
	if (strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//") || p[strlen(p) - 1] == '/' ||
	    (strlen(p) >= 3 && streq(p + strlen(p) - 3, "/..")))
		return "is not a plain path (\"..\", \".\", \"//\" or a trailing \"/\")";
	return NULL;
}

/* "0x%.16llX" (a *_guid, zed_event.c) or decimal */
static int parse_guid(const char *s, uint64_t *ret)
{
	if (!startswith(s, "0x") && !startswith(s, "0X"))
		return parse_u64(s, ret);
	size_t n = strlen(s + 2);
	if (n == 0 || n > 16 || strspn(s + 2, "0123456789abcdefABCDEF") != n)
		return -EINVAL;
	*ret = strtoull(s + 2, NULL, 16);
	return 0;
}

static bool class_chars_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.") == strlen(s);
}

/* The time as given both ways: ZEVENT_TIME_SECS/_NSECS win over ZEVENT_TIME. */
typedef struct TimeParts {
	int64_t secs, pair_secs;
	uint32_t nsecs, pair_nsecs;
} TimeParts;

/* "secs nsecs", as zed writes an int64 array */
static int parse_time_pair(const char *s, TimeParts *t)
{
	char a[24], b[24];
	const char *sp = strchr(s, ' ');
	if (!sp || (size_t)(sp - s) >= sizeof a || strlen(sp + 1) >= sizeof b)
		return -EINVAL;
	snprintf(a, sizeof a, "%.*s", (int)(sp - s), s);
	snprintf(b, sizeof b, "%s", sp + 1);
	uint64_t sec, nsec;
	if (parse_u64(a, &sec) < 0 || parse_u64(b, &nsec) < 0 || sec > INT64_MAX || nsec >= 1000000000)
		return -EINVAL;
	t->pair_secs = (int64_t)sec, t->pair_nsecs = (uint32_t)nsec;
	return 0;
}

static int store(ZfsEvent *e, Var v, const char *val, TimeParts *t)
{
	uint64_t u = 0;
	switch (v) {
	case VAR_EID:
		return parse_u64(val, &e->eid);
	case VAR_CLASS:
		if (!class_chars_ok(val))
			return -EINVAL;
		snprintf(e->class_name, sizeof e->class_name, "%s", val);
		return 0;
	case VAR_SUBCLASS:
		if (!class_chars_ok(val) || strchr(val, '.'))
			return -EINVAL;
		snprintf(e->subclass, sizeof e->subclass, "%s", val);
		return 0;
	case VAR_TIME:
		return parse_time_pair(val, t);
	case VAR_TIME_SECS:
		if (parse_u64(val, &u) < 0 || u > INT64_MAX)
			return -EINVAL;
		t->secs = (int64_t)u;
		return 0;
	case VAR_TIME_NSECS:
		if (parse_u64(val, &u) < 0 || u >= 1000000000)
			return -EINVAL;
		t->nsecs = (uint32_t)u;
		return 0;
	case VAR_POOL:
		if (!pool_ok(val))
			return -EINVAL;
		snprintf(e->pool, sizeof e->pool, "%s", val);
		return 0;
	case VAR_POOL_GUID:
		return parse_guid(val, &e->pool_guid);
	case VAR_VDEV_PATH:
		if (zevent_path_problem(val))
			return -EINVAL;
		snprintf(e->vdev_path, sizeof e->vdev_path, "%s", val);
		return 0;
	case VAR_VDEV_GUID:
		return parse_guid(val, &e->vdev_guid);
	case VAR_ZIO_DELAY:
		e->has_zio_delay = true;
		return parse_u64(val, &e->zio_delay_ns);
	case VAR_VDEV_STATE_STR:
		if (!*val || strspn(val, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != strlen(val))
			return -EINVAL;
		snprintf(e->vdev_state, sizeof e->vdev_state, "%s", val);
		return 0;
	case _VAR_MAX:
		break;
	}
	return -EINVAL;
}

/* Why a value of v is refused, for the message. */
static const char *what_is_wanted(Var v)
{
	switch (v) {
	case VAR_EID: case VAR_TIME_SECS: case VAR_ZIO_DELAY: return "a decimal number";
	case VAR_TIME_NSECS: return "a decimal number of nanoseconds below 1000000000";
	case VAR_TIME: return "\"SECONDS NANOSECONDS\"";
	case VAR_CLASS: return "an event class (lower-case letters, digits, '_' and '.')";
	case VAR_SUBCLASS: return "an event subclass (lower-case letters, digits and '_')";
	case VAR_POOL: return "a pool name (a letter, then letters, digits and \"_-:. \")";
	case VAR_POOL_GUID: case VAR_VDEV_GUID: return "a GUID (0x and up to 16 hex digits, or decimal)";
	case VAR_VDEV_STATE_STR: return "a vdev state (upper-case letters)";
	case VAR_VDEV_PATH: case _VAR_MAX: break;
	}
	return "a device path";
}

static int check_value(ZfsEvent *e, Var v, const char *val, TimeParts *t, char **ret_error)
{
	const char *name = vars[v].name;
	size_t len = strnlen(val, vars[v].max + 1);
	if (len > vars[v].max)
		return set_errorf(ret_error, -EINVAL, "%s is longer than %zu bytes: refused", name, vars[v].max);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)val[i] < 0x20 || (unsigned char)val[i] > 0x7e)
			return set_errorf(ret_error, -EINVAL, "%s holds a control character or a non-ASCII byte "
					  "(byte %zu): refused", name, i + 1);
	if (v == VAR_VDEV_PATH && zevent_path_problem(val))
		return set_errorf(ret_error, -EINVAL, "%s %s: refused", name, zevent_path_problem(val));
	if (store(e, v, val, t) < 0)
		return set_errorf(ret_error, -EINVAL, "%s is not %s: refused", name, what_is_wanted(v));
	return 0;
}

/* The subclass given, or the class's last part; it must be the class's. */
static int settle_kind(ZfsEvent *e, char **ret_error)
{
	const char *dot = strrchr(e->class_name, '.');
	const char *last = dot ? dot + 1 : e->class_name;
	if (!e->subclass[0])
		snprintf(e->subclass, sizeof e->subclass, "%s", last);
	else if (!streq(e->subclass, last))
		return set_errorf(ret_error, -EINVAL, "ZEVENT_SUBCLASS is not the last part of ZEVENT_CLASS (%s): refused",
				  e->class_name);
	e->kind = zfs_event_kind_from_string(e->subclass);
	if (e->kind < 0)
		return set_errorf(ret_error, -EINVAL, "%s is not an event smrd handles (vdev_attach, resilver_*, "
				  "scrub_start/finish, delay, deadman, statechange, sitout)", e->class_name);
	return 0;
}

int zevent_parse(char *const *env, size_t n, ZfsEvent *ret, char **ret_error)
{
	ZfsEvent e = {.kind = _ZFS_EVENT_KIND_INVALID};
	bool seen[_VAR_MAX] = {false};
	TimeParts t = {0};
	int r;
	for (size_t i = 0; env && i < n && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		int v = eq && startswith(env[i], "ZEVENT_") ? var_of(env[i], (size_t)(eq - env[i])) : -1;
		if (v < 0)
			continue;
		if (seen[v])
			return set_errorf(ret_error, -EINVAL, "%s is given twice: refused", vars[v].name);
		seen[v] = true;
		if ((r = check_value(&e, (Var)v, eq + 1, &t, ret_error)) < 0)
			return r;
	}
	static const Var required[] = {VAR_EID, VAR_CLASS, VAR_POOL};
	for (size_t i = 0; i < ELEMENTSOF(required); i++)
		if (!seen[required[i]])
			return set_errorf(ret_error, -EINVAL, "%s is not set: not an event from zed",
					  vars[required[i]].name);
	if (!seen[VAR_TIME_SECS] && !seen[VAR_TIME])
		return set_errorf(ret_error, -EINVAL, "neither ZEVENT_TIME_SECS nor ZEVENT_TIME is set: not an event from zed");
	if ((r = settle_kind(&e, ret_error)) < 0)
		return r;
	e.time_sec = seen[VAR_TIME_SECS] ? t.secs : t.pair_secs;
	e.time_nsec = seen[VAR_TIME_SECS] ? t.nsecs : t.pair_nsecs;
	*ret = e;
	return 0;
}
