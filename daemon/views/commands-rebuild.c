/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zevent and rebuild-check over the control socket: the arguments checked,
 * the work done by daemon/rebuild/zfsevents.c and core/rebuild/guard.c,
 * the answer formatted here. zevent's variables arrive as smrctl read them
 * from zed and are parsed again with the same parser: smrd trusts no
 * client to have done it.
 */
#include "commands-rebuild.h"

#include <math.h>

#include "advice.h"
#include "log.h"
#include "rebuildwatch.h"

static json_object *jdouble(double v) { return json_number(v, 6); }

/* The env object as NAME=VALUE strings (at most ZEVENT_ENV_MAX). */
static int env_of(json_object *args, char ***ret, size_t *ret_n, char **msg)
{
	json_object *env;
	if (!args || !json_object_object_get_ex(args, "env", &env) || !json_object_is_type(env, json_type_object))
		return set_errorf(msg, -EINVAL, "zevent needs an object \"env\" of ZEVENT_* variables");
	size_t n = (size_t)json_object_object_length(env), i = 0;
	if (n > ZEVENT_ENV_MAX)
		return set_errorf(msg, -EINVAL, "zevent takes at most %d variables", ZEVENT_ENV_MAX);
	char **v = calloc(n + 1, sizeof *v);
	if (!v)
		return -ENOMEM;
	json_object_object_foreach(env, key, val) {
		if (!json_object_is_type(val, json_type_string) || asprintf(&v[i], "%s=%s", key, json_object_get_string(val)) < 0) {
			v[i] = NULL;
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return set_errorf(msg, -EINVAL, "zevent's variables must be strings");
		}
		i++;
	}
	*ret = v, *ret_n = i;
	return 0;
}

static json_object *check_json(const RebuildCheck *c)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "risk", json_object_new_string(rebuild_risk_to_string(c->risk)));
	json_object_object_add(o, "warn", json_object_new_boolean(c->warn));
	json_object_object_add(o, "evidence", json_object_new_string(c->evidence));
	json_object_object_add(o, "expected_seconds", jdouble(c->expected_seconds));
	json_object_object_add(o, "advice", json_object_new_string(c->advice));
	return o;
}

static json_object *result_json(const ZfsEvent *e, const ZfsEventResult *res)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "eid", json_object_new_uint64(e->eid));
	json_object_object_add(o, "class", json_object_new_string(e->subclass));
	json_object_object_add(o, "pool", json_object_new_string(e->pool));
	json_object_object_add(o, "device", res->device[0] ? json_object_new_string(res->device) : NULL);
	json_object_object_add(o, "event_id", json_object_new_int64(res->event_id));
	json_object_object_add(o, "duplicate", json_object_new_boolean(res->duplicate));
	json_object_object_add(o, "message", json_object_new_string(res->message));
	json_object *w = NULL;
	if (res->warned) {
		w = check_json(&res->check);
		json_object_object_add(w, "message", json_object_new_string(res->warning));
	}
	json_object_object_add(o, "warning", w);
	return o;
}

int commands_zevent(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	char **env = NULL;
	size_t n = 0;
	int r = env_of(args, &env, &n, msg);
	if (r < 0) {
		*err = r == -ENOMEM ? PROTO_ERR_INTERNAL : PROTO_ERR_BAD_ARGUMENT;
		return r;
	}
	ZfsEvent e;
	r = zevent_parse(env, n, &e, msg);
	for (size_t i = 0; i < n; i++)
		free(env[i]);
	free(env);
	if (r < 0) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		return r;
	}
	if (!ctx->rebuild) {
		*err = PROTO_ERR_BUSY;
		return set_errorf(msg, -EAGAIN, "smrd runs without a history (--oneshot): no ZFS events");
	}
	ZfsEventResult res;
	r = zfsevents_handle(rebuildwatch_zfs(ctx->rebuild), &e, now_usec(CLOCK_REALTIME), &res, msg);
	if (r < 0) {
		*err = PROTO_ERR_NO_SUCH_DEVICE;
		return r;
	}
	*ret = result_json(&e, &res);
	return 0;
}

/* Anyone on the socket may ask: a path is mapped by kernel name and
 * udev's links only, never looked up in smrd's /dev, so that the answer
 * says nothing of a path the asker could not look at (devmap.h). */
static Disk *check_disk(Context *ctx, const char *dev, ProtoError *err, char **msg)
{
	_cleanup_free_ char *safe = str_sanitize(dev);
	Disk *d = NULL;
	int r = startswith(dev, "/") ? (ctx->rebuild ? devmap_disk(rebuildwatch_devmap(ctx->rebuild), dev, false, &d) : -ENXIO)
				     : (d = registry_get(ctx->disks, dev)) ? 0 : -ENXIO;
	if (r >= 0)
		return d;
	*err = r == -EINVAL ? PROTO_ERR_BAD_ARGUMENT : PROTO_ERR_NO_SUCH_DEVICE;
	set_errorf(msg, 0, "%.80s %s%s", safe ? safe : "?", devmap_strerror(r),
		   r == -ENXIO ? " (smrctl disks lists them)" : "");
	return NULL;
}

/* Whether zed may degrade d for slow I/O in the pool it is in: known
 * only once d is in a pool (a zpool replace not typed yet has no vdev to
 * read); null then. */
static json_object *slow_io_json(const RebuildCheckAnswer *a)
{
	if (!a->slow_io_pool)
		return NULL;
	const SlowIoResult *r = &a->slow_io;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "pool", json_object_new_string(a->slow_io_pool));
	SlowIoState s = r->state;
	bool read = s != SLOWIO_CHECKING;
	json_object_object_add(o, "state", json_object_new_string(slowio_state_to_string(s)));
	if (s == SLOWIO_UNSET || s == SLOWIO_SAFE || s == SLOWIO_CAN_TRIP) {
		const SlowIoSetting *v = &r->setting;
		json_object_object_add(o, "slow_io_n", v->n == SLOW_IO_UNSET ? NULL : json_object_new_uint64(v->n));
		json_object_object_add(o, "slow_io_t", v->t == SLOW_IO_UNSET ? NULL : json_object_new_uint64(v->t));
	}
	json_object_object_add(o, "message", read && r->text[0] ? json_object_new_string(r->text) : NULL);
	return o;
}

static json_object *forecast_json(const RebuildCheckAnswer *a)
{
	const RebuildForecast *f = &a->forecast;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "bytes", jdouble(f->bytes));
	json_object_object_add(o, "bytes_from", json_object_new_string(f->bytes_from));
	json_object_object_add(o, "expected_seconds", jdouble(f->expected));
	json_object_object_add(o, "low_seconds", jdouble(f->low));
	json_object_object_add(o, "high_seconds", jdouble(f->high));
	json_object_object_add(o, "figures", json_object_new_string(rebuild_figures_to_string(f->figures) ?: ""));
	json_object_object_add(o, "figures_text", json_object_new_string(f->figures_text));
	json_object *lines = json_object_new_array();
	for (unsigned i = 0; i < f->n_advice; i++) {
		json_object *l = json_object_new_object();
		json_object_object_add(l, "warns", json_object_new_boolean(f->advice[i].warns));
		json_object_object_add(l, "text", json_object_new_string(f->advice[i].text));
		json_object_object_add(l, "measured", json_object_new_string(f->advice[i].measured));
		json_object_array_add(lines, l);
	}
	json_object_object_add(o, "advice", lines);
	return o;
}

int commands_rebuild_check(Context *ctx, json_object *args, json_object **ret, ProtoError *err, char **msg)
{
	json_object *dev, *target = NULL;
	if (!args || !json_object_object_get_ex(args, "device", &dev) || !json_object_is_type(dev, json_type_string)) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		return set_errorf(msg, -EINVAL, "rebuild-check needs a string \"device\" argument");
	}
	if (json_object_object_get_ex(args, "target", &target) && !json_object_is_type(target, json_type_string) &&
	    !json_object_is_type(target, json_type_null)) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		return set_errorf(msg, -EINVAL, "rebuild-check's \"target\" is a pool, POOL/VDEV or a path");
	}
	Disk *d = check_disk(ctx, json_object_get_string(dev), err, msg);
	if (!d)
		return -ENOENT;
	RebuildGuard *g = rebuildwatch_guard(ctx->rebuild);
	if (!g) {
		*err = PROTO_ERR_BUSY;
		return set_errorf(msg, -EAGAIN, "smrd runs without its rebuild watch (--oneshot)");
	}
	const char *t = target && json_object_is_type(target, json_type_string) ? json_object_get_string(target) : NULL;
	_cleanup_free_ char *safe = t ? str_sanitize(t) : NULL;
	RebuildCheckAnswer a;
	_cleanup_free_ char *why = NULL;
	int r = rebuildguard_check(g, d, t, now_usec(CLOCK_REALTIME), &a, &why);
	if (r < 0) {
		*err = PROTO_ERR_BAD_ARGUMENT;
		_cleanup_free_ char *safe_why = str_sanitize(why ? why : "");
		return set_errorf(msg, r, "%s", safe_why ? safe_why : "bad target");
	}
	const RebuildFacts *f = &a.facts;
	json_object *o = check_json(&a.forecast.check);
	/* what to do now comes from the one advice module (core/advice.h), as
	 * notifications and pages give it, for a disk that takes a rebuild
	 * slowly or has one running; the guard says why not for the others
	 * (untested: smrctl qualify; no evidence) */
	RebuildRisk risk = a.forecast.check.risk;
	const RebuildState *running = disk_rebuild(d);
	AdviceFacts af = {.disk_class = f->disk_class, .storm = f->storm_now, .rebuild = running,
			  .kind = EVENT_REBUILD_WARNING, .device = d->name};
	Advice adv = {.anchor = ""};
	if (risk == REBUILD_RISK_SMR || risk == REBUILD_RISK_STORMS || advice_rebuilding(&af))
		advice_for(&af, &adv);
	if (adv.text[0])
		json_object_object_add(o, "advice", json_object_new_string(adv.text));
	json_object_object_add(o, "runbook", adv.anchor[0] ? json_object_new_string(adv.anchor) : NULL);
	json_object_object_add(o, "expected_seconds", jdouble(a.forecast.expected));
	json_object_object_add(o, "device", json_object_new_string(d->name));
	json_object_object_add(o, "serial", json_object_new_string(d->sys.serial));
	json_object_object_add(o, "model", json_object_new_string(d->sys.model));
	json_object_object_add(o, "class", json_object_new_string(disk_class_to_string(f->disk_class)));
	json_object_object_add(o, "qualified", json_object_new_boolean(f->qualified));
	json_object_object_add(o, "storms", json_object_new_int64((int64_t)f->storms));
	json_object_object_add(o, "storm_seconds", jdouble(f->storm_seconds));
	json_object_object_add(o, "media_cache_bytes", jdouble(f->model->media_cache_bytes));
	json_object_object_add(o, "slow_write_bps", jdouble(f->model->slow_write_bps));
	json_object_object_add(o, "size_bytes", jdouble(f->size_bytes));
	json_object *tj = NULL;
	if (a.where[0]) {
		tj = json_object_new_object();
		json_object_object_add(tj, "where", json_object_new_string(a.where));
		json_object_object_add(tj, "vdev", a.vdev[0] ? json_object_new_string(a.vdev) : NULL);
		json_object_object_add(tj, "asked", json_object_new_string(safe ? safe : ""));
	}
	json_object_object_add(o, "target", tj);
	json_object_object_add(o, "waiting", json_object_new_boolean(a.waiting));
	json_object_object_add(o, "forecast", forecast_json(&a));
	json_object_object_add(o, "verdict", json_object_new_string(a.forecast.warn ? "warning" : "fine"));
	json_object_object_add(o, "slow_io", slow_io_json(&a));
	*ret = o;
	return 0;
}
