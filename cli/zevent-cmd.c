/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl zevent: what a zedlet execs. The environment is checked here
 * first (a refusal costs smrd nothing), then only the variables smrd reads
 * are sent, and smrd checks them again. Blocking socket calls bounded by
 * SO_SNDTIMEO/SO_RCVTIMEO (which Linux applies to a UNIX socket's connect
 * as well): smrd down or stuck means one line on stderr and a non-zero
 * exit within ZEVENT_TIMEOUT_MS per step, never a zedlet that hangs zed.
 */
#include "zevent-cmd.h"

#include <math.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "output.h"
#include "protocol.h"
#include "util.h"
#include "zevent.h"

#define EXIT_REFUSED 1
#define EXIT_NO_DAEMON 3

static int connect_bounded(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct timeval tv = {.tv_sec = ZEVENT_TIMEOUT_MS / 1000, .tv_usec = (ZEVENT_TIMEOUT_MS % 1000) * 1000};
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
		return errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
	return TAKE_FD(fd);
}

/* One request, one reply line (at most PROTO_MAX_REPLY bytes). */
static int exchange(int fd, const char *req, char **ret)
{
	size_t len = strlen(req);
	for (size_t off = 0; off < len;) {
		ssize_t k = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (k < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		off += (size_t)k;
	}
	Buf b = {0};
	for (;;) {
		char chunk[4096];
		ssize_t k = read(fd, chunk, sizeof chunk);
		if (k <= 0 || b.len + (size_t)k > PROTO_MAX_REPLY) {
			int r = k < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : k == 0 ? -ECONNRESET : -EMSGSIZE;
			buf_free(&b);
			return r;
		}
		buf_put(&b, chunk, (size_t)k);
		if (b.oom) {
			buf_free(&b);
			return -ENOMEM;
		}
		if (memchr(chunk, '\n', (size_t)k))
			break;
	}
	*ret = b.data;
	return 0;
}

/* The ZEVENT_* variables smrd reads, as {"env":{...}}. */
static json_object *event_args(char **env)
{
	json_object *a = json_object_new_object(), *e = json_object_new_object();
	for (size_t i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq || eq == env[i])
			continue;
		_cleanup_free_ char *name = strndup(env[i], (size_t)(eq - env[i]));
		if (name && zevent_var_known(name))
			json_object_object_add(e, name, json_object_new_string(eq + 1));
	}
	json_object_object_add(a, "env", e);
	return a;
}

static int say_reply(json_object *result, bool json)
{
	if (json) {
		output_json(stdout, result);
		return 0;
	}
	output_make_safe(result);
	json_object *w = output_get(result, "warning");
	printf("smrctl zevent: %s\n", output_str(result, "message"));
	if (w && !json_object_is_type(w, json_type_null))
		printf("smrctl zevent: WARNING: %s\n", output_str(w, "message"));
	return 0;
}

int zevent_main(const char *socket_path, char **env, bool json)
{
	ZfsEvent e;
	_cleanup_free_ char *why = NULL;
	if (zevent_parse(env, SIZE_MAX, &e, &why) < 0) {
		fprintf(stderr, "smrctl zevent: %s\n", why ? why : "out of memory");
		return EXIT_REFUSED;
	}
	json_object *args = event_args(env);
	_cleanup_free_ char *req = proto_encode_request("zevent", args), *line = NULL;
	json_object_put(args);
	if (!req || strlen(req) > PROTO_MAX_REQUEST) {
		fprintf(stderr, "smrctl zevent: the event does not fit a request\n");
		return EXIT_REFUSED;
	}
	_cleanup_close_ int fd = connect_bounded(socket_path);
	int r = fd < 0 ? fd : exchange(fd, req, &line);
	if (r < 0) {
		fprintf(stderr, "smrctl zevent: smrd at %s did not take ZFS event %" PRIu64 " (%s): %s\n", socket_path,
			e.eid, e.subclass, strerror(-r));
		return EXIT_NO_DAEMON;
	}
	json_object *result = NULL;
	_cleanup_free_ char *code = NULL, *msg = NULL;
	r = proto_decode_reply(line, &result, &code, &msg);
	if (r == -EREMOTE) {
		_cleanup_free_ char *safe = output_escape(msg && *msg ? msg : code ? code : "");
		fprintf(stderr, "smrctl zevent: smrd refused ZFS event %" PRIu64 ": %s\n", e.eid, safe);
		return EXIT_REFUSED;
	}
	if (r < 0) {
		fprintf(stderr, "smrctl zevent: malformed reply from smrd\n");
		return EXIT_NO_DAEMON;
	}
	say_reply(result, json);
	json_object_put(result);
	return 0;
}

/* "20 s (14 s to 26 s)", "1.2 h to 22 h", "unknown" */
static const char *span(json_object *fc, char *buf, size_t n)
{
	char e[32], lo[32], hi[32];
	double x = output_num(fc, "expected_seconds"), l = output_num(fc, "low_seconds"), h = output_num(fc, "high_seconds");
	if (isfinite(x))
		snprintf(buf, n, "%s (%s to %s)", output_seconds(x, e, sizeof e), output_seconds(l, lo, sizeof lo),
			 output_seconds(h, hi, sizeof hi));
	else if (isfinite(l))
		snprintf(buf, n, "%s to %s", output_seconds(l, lo, sizeof lo), output_seconds(h, hi, sizeof hi));
	else
		snprintf(buf, n, "unknown");
	return buf;
}

void output_rebuild_check(FILE *f, json_object *r)
{
	char sz[32], t[160], mc[32];
	double cache = output_num(r, "media_cache_bytes");
	/* a virtual disk has neither model nor serial: no empty fields */
	const char *model = output_str(r, "model"), *serial = output_str(r, "serial");
	fprintf(f, "%s: ", output_str(r, "device"));
	if (*model)
		fprintf(f, "%s, ", model);
	if (*serial)
		fprintf(f, "serial %s, ", serial);
	fprintf(f, "%s\n", output_bytes(output_num(r, "size_bytes"), sz, sizeof sz));
	fprintf(f, "class:     %s\n", output_str(r, "class"));
	fprintf(f, "evidence:  %s\n", output_str(r, "evidence"));
	fprintf(f, "qualified: %s", json_object_get_boolean(output_get(r, "qualified")) ? "yes (smrctl qualify)" : "no");
	if (isfinite(cache))
		fprintf(f, "; media cache %s", output_bytes(cache, mc, sizeof mc));
	fprintf(f, "\n");
	json_object *target = output_get(r, "target"), *fc = output_get(r, "forecast");
	if (target && !json_object_is_type(target, json_type_null))
		fprintf(f, "joins:     %s%s%s\n", output_str(target, "where"), *output_str(target, "vdev") ? ", " : "",
			output_str(target, "vdev"));
	if (json_object_get_boolean(output_get(r, "waiting")))
		fprintf(f, "           (its figures were still being read: ask again)\n");
	if (fc) {
		fprintf(f, "to write:  %s: %s\n", output_bytes(output_num(fc, "bytes"), sz, sizeof sz),
			output_str(fc, "bytes_from"));
		fprintf(f, "expected:  %s; figures %s\n", span(fc, t, sizeof t), output_str(fc, "figures_text"));
	}
	bool warn = streq(output_str(r, "verdict"), "warning");
	fprintf(f, "verdict:   %s\n", warn ? "WARNING" : "fine");
	fprintf(f, "advice:    %s\n", output_str(r, "advice"));
	if (*output_str(r, "runbook"))
		fprintf(f, "runbook:   docs/alerts.md#%s\n", output_str(r, "runbook"));
	json_object *lines = fc ? output_get(fc, "advice") : NULL;
	size_t n = lines && json_object_is_type(lines, json_type_array) ? json_object_array_length(lines) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *l = json_object_array_get_idx(lines, i);
		fprintf(f, "%s %s\n             (%s)\n", json_object_get_boolean(output_get(l, "warns")) ? "  WARNING:" : "  -",
			output_str(l, "text"), output_str(l, "measured"));
	}
	/* zed's slow I/O diagnosis where it is now: known once the disk is in a pool (docs/zfs.md) */
	json_object *s = output_get(r, "slow_io");
	const char *state = s ? output_str(s, "state") : "";
	if (!s || json_object_is_type(s, json_type_null)) {
		if (!target || json_object_is_type(target, json_type_null))
			fprintf(f, "slow I/O:  not known: not in a ZFS pool yet (name the pool it joins: smrctl "
				   "rebuild-check DEVICE POOL)\n");
		return;
	}
	if (streq(state, "can-trip"))
		fprintf(f, "slow I/O:  WARNING: %s\n", output_str(s, "message"));
	else if (streq(state, "checking"))
		fprintf(f, "slow I/O:  pool %s: being read (zpool get), ask again in a few seconds\n", output_str(s, "pool"));
	else if (streq(state, "not-known"))
		fprintf(f, "slow I/O:  pool %s: not known: %s\n", output_str(s, "pool"), output_str(s, "message"));
	else
		fprintf(f, "slow I/O:  pool %s: %s\n", output_str(s, "pool"),
			streq(state, "safe") ? "slow_io_n/slow_io_t set, but beyond what a destage storm can trip"
					     : "slow_io_n/slow_io_t not set: zed does not degrade disks for slow I/O");
}
