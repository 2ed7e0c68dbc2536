/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket alone, with a fake handler that records what it was
 * asked and answers from a script, and clients written here, in the same
 * thread as the loop (every socket non-blocking, the loop pumped between
 * steps). It checks framing, errors, pipelining, the per-uid limit with
 * its eviction and "busy", the reply bounds and a request deadline that
 * progress does not push back.
 */
#include <poll.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "control.h"
#include "log.h"
#include "test.h"
#include "unit-tree.h"

#define TEST_REQUEST_USEC (500 * UINT64_C(1000))	/* the request deadline test_deadline waits out */

typedef struct Fake {
	unsigned calls;
	char last_command[64];
	uid_t last_uid;
	size_t reply_bytes;		/* > 0: answer with a string this long */
} Fake;

static int handler(void *userdata, const char *command, json_object *args, const struct ucred *peer,
		   json_object **ret_result, ProtoError *ret_err, char **ret_message)
{
	Fake *f = userdata;
	f->calls++;
	snprintf(f->last_command, sizeof f->last_command, "%s", command);
	f->last_uid = peer->uid;
	if (streq(command, "fail")) {
		*ret_err = PROTO_ERR_NO_SUCH_DEVICE;
		*ret_message = strdup("sdz is not a watched disk");
		return -ENODEV;
	}
	json_object *o = json_object_new_object();
	json_object *echo = NULL;
	if (args && json_object_object_get_ex(args, "n", &echo))
		json_object_object_add(o, "n", json_object_get(echo));
	if (f->reply_bytes) {
		char *big = malloc(f->reply_bytes + 1);
		memset(big, 'x', f->reply_bytes);
		big[f->reply_bytes] = 0;
		json_object_object_add(o, "big", json_object_new_string(big));
		free(big);
	}
	*ret_result = o;
	return 0;
}

typedef struct Env {
	sd_event *e;
	char path[100];
} Env;

static void pump(Env *env, int rounds)
{
	for (int i = 0; i < rounds; i++)
		sd_event_run(env->e, 1000);
}

static int client(Env *env)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", env->path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void send_text(Env *env, int fd, const char *text)
{
	size_t len = strlen(text), off = 0;
	for (int i = 0; off < len && i < 10000; i++) {
		ssize_t k = send(fd, text + off, len - off, MSG_NOSIGNAL);
		if (k > 0)
			off += (size_t)k;
		else if (k < 0 && errno != EAGAIN)
			return;
		pump(env, 1);
	}
}

/* The next reply line (up to max bytes), pumping the loop; "" when the
 * connection closed first, "(timeout)" after 5 s. Byte by byte: a
 * pipelined reply that follows stays in the socket for the next call. */
static char *reply(Env *env, int fd, size_t max)
{
	Buf b = {0};
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 5000000;
	while (now_usec(CLOCK_MONOTONIC) < end && b.len <= max) {
		char c;
		ssize_t k = recv(fd, &c, 1, MSG_DONTWAIT);
		if (k == 0 || (k < 0 && errno != EAGAIN)) {
			buf_put(&b, "", 0);
			break;
		}
		if (k < 0) {
			pump(env, 1);
			continue;
		}
		buf_put(&b, &c, 1);
		if (c == '\n')
			break;
	}
	if (!b.data && now_usec(CLOCK_MONOTONIC) >= end)
		return strdup("(timeout)");
	buf_put(&b, "", 1);
	return b.data;
}

static bool closed(Env *env, int fd)
{
	pump(env, 3);
	char c;
	ssize_t k = recv(fd, &c, 1, MSG_DONTWAIT);
	return k == 0 || (k < 0 && errno != EAGAIN);
}

static void test_basics(Env *env, Fake *fake)
{
	int fd = client(env);
	CHECK(fd >= 0);
	send_text(env, fd, "{\"version\":1,\"command\":\"hello\",\"args\":{\"n\":7}}\n");
	_cleanup_free_ char *r1 = reply(env, fd, 1 << 20);
	CHECK_STR(r1, "{\"version\":1,\"status\":\"ok\",\"result\":{\"n\":7}}\n");
	CHECK_STR(fake->last_command, "hello");
	CHECK_INT(fake->last_uid, geteuid());

	/* an error from the handler: its code and message */
	send_text(env, fd, "{\"version\":1,\"command\":\"fail\"}\n");
	_cleanup_free_ char *r2 = reply(env, fd, 1 << 20);
	CHECK(strstr(r2, "\"no-such-device\"") && strstr(r2, "sdz is not a watched disk"));

	/* garbage never reaches the handler, and the connection stays usable */
	unsigned calls = fake->calls;
	send_text(env, fd, "this is not json\n");
	_cleanup_free_ char *r3 = reply(env, fd, 1 << 20);
	CHECK(strstr(r3, "\"bad-request\"") != NULL);
	CHECK_INT(fake->calls, calls);

	/* two requests in one write: two replies, in order */
	send_text(env, fd, "{\"version\":1,\"command\":\"a\",\"args\":{\"n\":1}}\n"
			   "{\"version\":1,\"command\":\"b\",\"args\":{\"n\":2}}\n");
	_cleanup_free_ char *r4 = reply(env, fd, 1 << 20), *r5 = reply(env, fd, 1 << 20);
	CHECK_STR(r4, "{\"version\":1,\"status\":\"ok\",\"result\":{\"n\":1}}\n");
	CHECK_STR(r5, "{\"version\":1,\"status\":\"ok\",\"result\":{\"n\":2}}\n");
	close(fd);

	/* a request past PROTO_MAX_REQUEST: refused and closed */
	fd = client(env);
	char big[PROTO_MAX_REQUEST + 100];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	send_text(env, fd, big);
	_cleanup_free_ char *r6 = reply(env, fd, 1 << 20);
	CHECK(strstr(r6, "\"request-too-large\"") != NULL);
	CHECK(closed(env, fd));
	close(fd);

	/* a reply past PROTO_MAX_REPLY is not built up for the client */
	fd = client(env);
	fake->reply_bytes = PROTO_MAX_REPLY + 1;
	send_text(env, fd, "{\"version\":1,\"command\":\"big\"}\n");
	_cleanup_free_ char *r7 = reply(env, fd, 1 << 20);
	CHECK(strstr(r7, "\"request-too-large\"") && strstr(r7, "ask for less"));
	fake->reply_bytes = 0;
	CHECK(closed(env, fd));
	close(fd);
}

static void test_limits(Env *env, Control *ctl)
{
	ControlStats st0, st;
	control_stats(ctl, &st0);

	/* CONTROL_MAX_PER_UID fresh connections: the next one is told "busy" */
	int fds[CONTROL_MAX_PER_UID];
	for (int i = 0; i < CONTROL_MAX_PER_UID; i++)
		fds[i] = client(env);
	pump(env, 20);
	int extra = client(env);
	_cleanup_free_ char *r1 = reply(env, extra, 1 << 20);
	CHECK(strstr(r1, "\"busy\"") != NULL);
	close(extra);
	control_stats(ctl, &st);
	CHECK_INT(st.refused, st0.refused + 1);
	CHECK_INT(st.connections, CONTROL_MAX_PER_UID);

	/* once they have waited past the grace, the oldest silent one gives way */
	uint64_t end = now_usec(CLOCK_MONOTONIC) + CONTROL_GRACE_USEC + 100000;
	while (now_usec(CLOCK_MONOTONIC) < end)
		pump(env, 1);
	extra = client(env);
	send_text(env, extra, "{\"version\":1,\"command\":\"hello\",\"args\":{\"n\":3}}\n");
	_cleanup_free_ char *r2 = reply(env, extra, 1 << 20);
	CHECK_STR(r2, "{\"version\":1,\"status\":\"ok\",\"result\":{\"n\":3}}\n");
	control_stats(ctl, &st);
	CHECK_INT(st.evicted, st0.evicted + 1);
	CHECK(closed(env, fds[0]));		/* the oldest */
	CHECK(!closed(env, fds[CONTROL_MAX_PER_UID - 1]));
	close(extra);
	for (int i = 0; i < CONTROL_MAX_PER_UID; i++)
		close(fds[i]);
	pump(env, 20);
	control_stats(ctl, &st);
	CHECK_INT(st.connections, 0);
	CHECK_INT(st.output_bytes, 0);
}

/* A byte every tenth of the deadline does not keep a connection forever
 * (the deadline is shortened, so that the suite does not wait out 10 s). */
static void test_deadline(Env *env, Control *ctl)
{
	ControlStats st0, st;
	control_stats(ctl, &st0);
	control_set_request_deadline(ctl, TEST_REQUEST_USEC);
	int fd = client(env);
	uint64_t start = now_usec(CLOCK_MONOTONIC), last_byte = 0;
	unsigned sent = 0;
	bool gone = false;
	while (!gone && now_usec(CLOCK_MONOTONIC) - start < TEST_REQUEST_USEC + 20000000) {
		if (now_usec(CLOCK_MONOTONIC) - last_byte >= TEST_REQUEST_USEC / 10) {
			sent += send(fd, "{", 1, MSG_NOSIGNAL) == 1;
			last_byte = now_usec(CLOCK_MONOTONIC);
		}
		gone = closed(env, fd);
	}
	double took = (double)(now_usec(CLOCK_MONOTONIC) - start) / 1e6;
	printf("control: a trickling client (%u bytes) was closed after %.2f s (deadline %.2f s)\n", sent, took,
	       (double)TEST_REQUEST_USEC / 1e6);
	CHECK(gone);
	CHECK(sent >= 5);
	CHECK(took >= (double)TEST_REQUEST_USEC / 1e6 - 0.1);
	CHECK(took <= (double)TEST_REQUEST_USEC / 1e6 + 5.0);
	control_stats(ctl, &st);
	CHECK_INT(st.expired, st0.expired + 1);
	close(fd);
	control_set_request_deadline(ctl, CONTROL_REQUEST_USEC);
}

int main(void)
{
	log_set_max_level(LOG_CRIT);
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-control");
	Env env = {0};
	snprintf(env.path, sizeof env.path, "%s/c.sock", dir);
	CHECK_INT(sd_event_new(&env.e), 0);
	Fake fake = {0};
	Control *ctl = NULL;
	CHECK_INT(control_new(env.e, env.path, -1, NULL, handler, &fake, &ctl), 0);
	struct stat st;
	CHECK_INT(stat(env.path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0660);

	test_basics(&env, &fake);
	test_limits(&env, ctl);
	test_deadline(&env, ctl);

	/* the socket it bound is removed with it */
	control_free(ctl);
	CHECK(access(env.path, F_OK) < 0);
	sd_event_unref(env.e);
	return test_done("daemon-control");
}
