/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `zpool status -j` (OpenZFS 2.3 and later) read with json-c: "pools" maps
 * each pool to its record, whose "scan_stats" is scan_status_nvlist() and
 * whose "vdevs" tree is vdev_stats_nvlist(), a leaf being resilvered
 * carrying "scan_processed". With --json-int figures are JSON integers;
 * without it they are strings, decimal under -p, else as zpool prints
 * them ("62.6G", a ctime() date): every form is read.
 */
#include <json-c/json.h>
#include <math.h>

#include "zpoolstatus-private.h"

#define JSON_DEPTH 64		/* pools, pool, vdevs, root, vdevs, raidz, vdevs, replacing, vdevs, leaf... */
#define VDEV_DEPTH 16		/* vdev nesting followed: draid spare under replacing under raidz stays below */

static void json_putp(json_object **o) { json_object_put(*o); }

/* zpool's figures are uint64_t: past that, not zpool's (audit5 finding 8: 1e308) */
#define FIGURE_MAX 0x1p64

/* A figure: an integer, or a string of digits, a size or a date; NaN when
 * absent or none of these. */
static double json_figure(json_object *parent, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(parent, key, &v))
		return NAN;
	if (json_object_is_type(v, json_type_int)) {
		uint64_t u = json_object_get_uint64(v);
		return json_object_get_int64(v) < 0 ? NAN : (double)u;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		return isfinite(d) && d >= 0 && d < FIGURE_MAX ? d : NAN;
	}
	if (!json_object_is_type(v, json_type_string))
		return NAN;
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);
	double d;
	if (zpool_parse_size(s, n, &d) == 0 || zpool_parse_ctime(s, n, &d) == 0)
		return d < FIGURE_MAX ? d : NAN;
	return NAN;
}

static bool json_date_is_text(json_object *parent, const char *key)
{
	json_object *v;
	double d;
	return json_object_object_get_ex(parent, key, &v) && json_object_is_type(v, json_type_string) &&
	       zpool_parse_ctime(json_object_get_string(v), (size_t)json_object_get_string_len(v), &d) == 0;
}

static int json_enum(json_object *parent, const char *key, const char *const *names, int n, int *ret)
{
	json_object *v;
	if (!json_object_object_get_ex(parent, key, &v))
		return 0;	/* absent: the default stands */
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (strcasecmp(json_object_get_string(v), names[i]) == 0) {
			*ret = i;
			return 0;
		}
	return -EINVAL;
}

static int json_scan(ZpoolScan *p, json_object *scan, char **ret_error)
{
	/* pool_scan_func_str[] and pool_scan_state_str[]; "ERRORSCRUBBING"
	 * is an error scrub under way, which this module reads as scanning */
	static const char *const funcs[] = {"NONE", "SCRUB", "RESILVER", "ERRORSCRUB"};
	static const char *const states[] = {"NONE", "SCANNING", "FINISHED", "CANCELED", "ERRORSCRUBBING"};
	int f = ZPOOL_SCAN_NONE, st = ZPOOL_SCAN_STATE_NONE;
	if (!json_object_is_type(scan, json_type_object) || json_enum(scan, "function", funcs, 4, &f) < 0 ||
	    json_enum(scan, "state", states, 5, &st) < 0)
		return set_errorf(ret_error, -EINVAL, "pool %s: unreadable scan_stats", p->pool);
	p->func = (ZpoolScanFunc)f;
	p->state = st == 4 ? ZPOOL_SCAN_SCANNING : (ZpoolScanState)st;
	p->to_examine = json_figure(scan, "to_examine");
	p->examined = json_figure(scan, "examined");
	p->skipped = json_figure(scan, "skipped");
	p->issued = json_figure(scan, "issued");
	p->processed = json_figure(scan, "processed");
	p->pass_start = json_figure(scan, "pass_start");
	p->pass_issued = json_figure(scan, "issued_bytes_per_scan");
	p->start_time = json_figure(scan, "start_time");
	p->end_time = json_figure(scan, "end_time");
	p->times_local = json_date_is_text(scan, "start_time");
	double errors = json_figure(scan, "errors"), pause = json_figure(scan, "scrub_pause");
	p->errors = errors >= 0 && errors < 1.8e19 ? (uint64_t)errors : 0;
	p->paused = p->func == ZPOOL_SCAN_SCRUB && p->state == ZPOOL_SCAN_SCANNING && pause > 0;
	if (p->to_examine >= p->skipped)
		p->issued_total = p->to_examine - p->skipped;
	if (p->state == ZPOOL_SCAN_FINISHED && p->end_time >= p->start_time)
		p->duration = p->end_time - p->start_time;
	/* 0 is "not yet" (scan_status_nvlist prints pss_end_time as it is) */
	if (p->state == ZPOOL_SCAN_SCANNING || p->end_time == 0)
		p->end_time = NAN;
	if (p->start_time == 0)
		p->start_time = NAN;
	return 0;
}

static uint64_t json_guid(json_object *v)
{
	json_object *g;
	if (!json_object_object_get_ex(v, "guid", &g))
		return 0;
	if (json_object_is_type(g, json_type_int))
		return json_object_get_int64(g) < 0 ? 0 : json_object_get_uint64(g);
	uint64_t u;
	return json_object_is_type(g, json_type_string) && parse_u64(json_object_get_string(g), &u) == 0 ? u : 0;
}

/* The vdev tree: a leaf with scan_processed is being written by the scan. */
static void json_vdevs(ZpoolScan *p, json_object *vdevs, unsigned depth)
{
	if (!json_object_is_type(vdevs, json_type_object) || depth > VDEV_DEPTH)
		return;
	json_object_object_foreach(vdevs, name, v) {
		if (!json_object_is_type(v, json_type_object))
			continue;
		json_object *kids, *path;
		if (json_object_object_get_ex(v, "vdevs", &kids)) {
			json_vdevs(p, kids, depth + 1);
			continue;
		}
		/* as the text's "(resilvering)": the figure outlives the scan,
		 * and a faulted leaf's is frozen */
		json_object *state;
		double processed = json_figure(v, "scan_processed");
		if (!(processed > 0) || (json_object_object_get_ex(v, "state", &state) &&
					 !streq(json_object_get_string(state), "ONLINE")))
			continue;
		const char *shown = name;
		if (json_object_object_get_ex(v, "path", &path) && json_object_is_type(path, json_type_string))
			shown = json_object_get_string(path);
		size_t n = strlen(shown);
		if (n > 0 && n <= ZPOOL_PATH_MAX && zpool_printable(shown, n))
			zpool_scan_add_leaf(p, shown, n, json_guid(v), processed);
	}
}

static int json_pool(ZpoolStatus *s, const char *key, json_object *o, char **ret_error)
{
	json_object *v;
	const char *name = key;
	if (!json_object_is_type(o, json_type_object))
		return set_errorf(ret_error, -EINVAL, "pool %.64s is not an object", key);
	if (json_object_object_get_ex(o, "name", &v) && json_object_is_type(v, json_type_string))
		name = json_object_get_string(v);	/* --json-pool-key-guid keys pools by guid */
	size_t n = strlen(name);
	if (n == 0 || n > ZPOOL_NAME_MAX)
		return set_errorf(ret_error, -EINVAL, "a pool name of %zu bytes", n);
	if (!zpool_printable(name, n))
		return set_errorf(ret_error, -EINVAL, "a pool name with a control byte");
	ZpoolScan *p = zpool_status_add(s, name, n);
	if (!p)
		return 0;
	if (json_object_object_get_ex(o, "scan_stats", &v)) {
		int r = json_scan(p, v, ret_error);
		if (r < 0)
			return r;
	}
	/* the leaves a resilver under way writes: in the data vdevs, then the
	 * classes printed beside them (or all in "vdevs" under
	 * --json-flat-vdevs) */
	static const char *const trees[] = {"vdevs", "dedup", "special", "logs", "l2cache", "spares"};
	if (p->func != ZPOOL_SCAN_RESILVER || p->state != ZPOOL_SCAN_SCANNING)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(trees); i++)
		if (json_object_object_get_ex(o, trees[i], &v))
			json_vdevs(p, v, 0);
	return 0;
}

int zpool_status_parse_json(const char *text, size_t len, ZpoolStatus **ret, char **ret_error)
{
	if (!text)
		return set_errorf(ret_error, -EINVAL, "no output");
	if (len > ZPOOL_INPUT_MAX)
		return -E2BIG;
	if (memchr(text, 0, len))
		return set_errorf(ret_error, -EINVAL, "the output holds a NUL byte");
	json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	_cleanup_(json_putp) json_object *o = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* a document cut short is "continue", not success */
	if (!o || jerr != json_tokener_success)
		return set_errorf(ret_error, -EINVAL, "not JSON: %s at byte %zu", json_tokener_error_desc(jerr), used);
	for (size_t i = used; i < len; i++)
		if (!strchr(" \t\r\n", text[i]))
			return set_errorf(ret_error, -EINVAL, "not JSON: trailing data at byte %zu", i);
	json_object *pools;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "pools", &pools) ||
	    !json_object_is_type(pools, json_type_object))
		return set_errorf(ret_error, -EINVAL, "not zpool status -j output: no \"pools\" object");
	_cleanup_(zpool_status_freep) ZpoolStatus *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->json = true;
	json_object_object_foreach(pools, key, p) {
		int r = json_pool(s, key, p, ret_error);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(s);
	return 0;
}
