/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each connection answers one request at a time: while a reply is being
 * written the connection is not read (so a client that never reads cannot
 * make us queue reply after reply, nor spin on a readable socket), and it
 * is polled for EPOLLOUT only. Every phase has a deadline that progress does
 * not push back: a request must arrive whole within CONTROL_REQUEST_USEC of
 * the connection or of the last reply, a reply must drain within
 * CONTROL_OUTPUT_USEC. Connections are limited per peer uid and in total;
 * at a limit the oldest connection that is only waiting for input gives way
 * to the new one, so that silent or slow clients cannot lock smrctl out.
 * Replies are bounded one by one and in sum. Nothing here blocks the loop.
 */
#include "control.h"

#include <assert.h>
#include <grp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "util.h"

typedef struct Conn Conn;

struct Control {
	sd_event *event;
	sd_event_source *listen_source;
	int listen_fd;
	char *path;		/* unlinked on free if we bound it */
	ControlHandler handler;
	void *userdata;
	Conn *conns;		/* newest first */
	unsigned n_conns;
	size_t out_total;	/* bytes queued on all connections */
	uint64_t request_usec;	/* CONTROL_REQUEST_USEC unless a test shortens it */
	ControlStats stats;
};

struct Conn {
	Control *ctl;
	Conn *next, *prev;
	int fd;
	struct ucred peer;
	sd_event_source *io, *timer;
	char in[PROTO_MAX_REQUEST];
	size_t in_len;
	Buf out;
	size_t out_off;
	bool closing;		/* close once the output is flushed */
	uint64_t since;		/* when the current wait began (accept or last reply) */
};

static uint64_t loop_now(Control *ctl)
{
	uint64_t now;
	sd_event_now(ctl->event, CLOCK_MONOTONIC, &now);
	return now;
}

static bool writing(const Conn *c) { return c->out_off < c->out.len; }

static void drop_output(Conn *c)
{
	c->ctl->out_total -= c->out.len - c->out_off;
	buf_free(&c->out);
	c->out_off = 0;
}

static void conn_free(Conn *c)
{
	if (!c)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->ctl->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->ctl->n_conns--;
	drop_output(c);
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->fd);
	free(c);
}

/* The deadline of the current phase, counted from its start. */
static void arm(Conn *c, uint64_t start, uint64_t span)
{
	c->since = start;
	sd_event_source_set_time(c->timer, start + span);
	sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

/* Reading and writing never overlap: the poll set says which one we do. */
static void want(Conn *c)
{
	sd_event_source_set_io_events(c->io, writing(c) ? EPOLLOUT : c->closing ? 0 : EPOLLIN);
}

static void conn_queue(Conn *c, char *line)
{
	Control *ctl = c->ctl;
	if (!line) {
		line = proto_encode_error(PROTO_ERR_INTERNAL, "out of memory");
		c->closing = true;
	}
	if (!line)
		return;
	size_t len = strlen(line);
	if (len > PROTO_MAX_REPLY || ctl->out_total + len > CONTROL_MAX_OUTPUT) {
		/* Too big to hold for a client that may never read it. */
		free(line);
		ctl->stats.refused_output++;
		line = proto_encode_error(len > PROTO_MAX_REPLY ? PROTO_ERR_TOO_LARGE : PROTO_ERR_BUSY,
					  len > PROTO_MAX_REPLY ? "the reply would be too large: ask for less (--limit)"
								: "too many replies waiting to be read, try again");
		c->closing = true;
		if (!line)
			return;
		len = strlen(line);
	}
	buf_put(&c->out, line, len);
	free(line);
	if (c->out.oom) {
		buf_free(&c->out);
		c->closing = true;
		return;
	}
	ctl->out_total += len;
	arm(c, loop_now(ctl), CONTROL_OUTPUT_USEC);
}

static void conn_handle_line(Conn *c, const char *line, size_t len)
{
	_cleanup_free_ char *cmd = NULL, *msg = NULL;
	json_object *args = NULL, *result = NULL;
	ProtoError err = PROTO_ERR_INTERNAL;

	c->ctl->stats.requests++;
	if (proto_decode_request(line, len, &cmd, &args, &err, &msg) < 0) {
		log_debug("control: bad request from pid %d: %s", (int)c->peer.pid, msg ? msg : "?");
		conn_queue(c, proto_encode_error(err, msg));
		return;
	}
	int r = c->ctl->handler(c->ctl->userdata, cmd, args, &c->peer, &result, &err, &msg);
	json_object_put(args);
	conn_queue(c, r < 0 ? proto_encode_error(err, msg) : proto_encode_ok(result));
}

/* Answers the first complete request in the buffer, if there is one. */
static void conn_next_request(Conn *c)
{
	char *nl = memchr(c->in, '\n', c->in_len);
	if (!nl) {
		if (c->in_len == sizeof c->in) {
			conn_queue(c, proto_encode_error(PROTO_ERR_TOO_LARGE, "request larger than 8192 bytes"));
			c->closing = true;
			c->in_len = 0;
		}
		return;
	}
	size_t len = (size_t)(nl - c->in) + 1;
	conn_handle_line(c, c->in, len);
	memmove(c->in, c->in + len, c->in_len - len);
	c->in_len -= len;
}

static int conn_read(Conn *c)
{
	ssize_t k = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (k == 0)
		return -ECONNRESET;	/* a half-sent request is simply dropped */
	c->in_len += (size_t)k;
	conn_next_request(c);
	return 0;
}

/* Writes what it can; <0 when the connection is finished with. */
static int conn_flush(Conn *c)
{
	if (!writing(c))
		return 0;	/* nothing was owed: the request's deadline runs on */
	while (writing(c)) {
		ssize_t k = write(c->fd, c->out.data + c->out_off, c->out.len - c->out_off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return 0;
		if (k < 0)
			return -errno;
		c->out_off += (size_t)k;
		c->ctl->out_total -= (size_t)k;
	}
	buf_free(&c->out);
	c->out_off = 0;
	if (c->closing)
		return -ECONNRESET;
	/* The reply is out: the next request (pipelined, or yet to come) gets a
	 * fresh deadline. */
	arm(c, loop_now(c->ctl), c->ctl->request_usec);
	conn_next_request(c);
	return writing(c) ? conn_flush(c) : 0;
}

static int on_conn_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Conn *c = userdata;
	(void)s, (void)fd;
	int r = 0;
	if ((revents & (EPOLLHUP | EPOLLERR)) && !(revents & EPOLLIN))
		r = -ECONNRESET;
	else if ((revents & EPOLLIN) && !writing(c) && !c->closing)
		r = conn_read(c);
	if (r >= 0)
		r = conn_flush(c);
	if (r < 0 || (c->closing && !writing(c))) {
		conn_free(c);
		return 0;
	}
	want(c);
	return 0;
}

static int on_conn_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	Conn *c = userdata;
	(void)s, (void)usec;
	c->ctl->stats.expired++;
	log_debug("control: closing the connection of pid %d: %s", (int)c->peer.pid,
		  writing(c) ? "its reply was not read in time" : "no complete request in time");
	conn_free(c);
	return 0;
}

static void refuse_busy(int fd)
{
	_cleanup_free_ char *line = proto_encode_error(PROTO_ERR_BUSY, "too many clients, try again");
	/* Best effort: the client sees the close either way. */
	if (line)
		(void)!write(fd, line, strlen(line));
	close(fd);
}

/* The connection to give way to a newcomer (among uid's, unless -1): the
 * one that has waited longest for a request, else one whose reply has
 * gone unread for CONTROL_STALLED_USEC (a client that reads takes
 * milliseconds). NULL if every one is busy for real. */
static Conn *victim(Control *ctl, uid_t uid, unsigned *ret_count)
{
	Conn *waiting = NULL, *stalled = NULL;
	/* not the loop's cached time: accepting a burst takes a while, and
	 * the newcomers' grace must end when it ends */
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	unsigned n = 0;
	for (Conn *c = ctl->conns; c; c = c->next) {
		if (uid != (uid_t)-1 && c->peer.uid != uid)
			continue;
		n++;
		/* a newcomer gets a moment to send its request before it counts as idle */
		if (!writing(c) && now - c->since >= CONTROL_GRACE_USEC && (!waiting || c->since <= waiting->since))
			waiting = c;
		if (writing(c) && now - c->since >= CONTROL_STALLED_USEC && (!stalled || c->since <= stalled->since))
			stalled = c;
	}
	*ret_count = n;
	return waiting ? waiting : stalled;
}

/* Connections whose client has already gone (asked, read its reply and
 * closed) but whose end the loop has not seen yet: they hold no one's
 * place. Only looked at when a limit is reached. */
static void reap_closed(Control *ctl)
{
	for (Conn *c = ctl->conns, *next; c; c = next) {
		next = c->next;
		char b;
		if (!writing(c) && c->in_len == 0 && recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
			conn_free(c);
	}
}

static unsigned count_uid(const Control *ctl, uid_t uid)
{
	unsigned n = 0;
	for (const Conn *c = ctl->conns; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

/* Makes room for a new connection from uid; false when none can be made. */
static bool make_room(Control *ctl, uid_t uid)
{
	unsigned n;
	if (ctl->n_conns >= CONTROL_MAX_CLIENTS || count_uid(ctl, uid) >= CONTROL_MAX_PER_UID)
		reap_closed(ctl);
	Conn *v = victim(ctl, uid, &n);
	if (n >= CONTROL_MAX_PER_UID) {
		if (!v)
			return false;
		ctl->stats.evicted++;
		conn_free(v);
	}
	if (ctl->n_conns >= CONTROL_MAX_CLIENTS) {
		v = victim(ctl, (uid_t)-1, &n);
		if (!v)
			return false;
		ctl->stats.evicted++;
		conn_free(v);
	}
	return true;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Control *ctl = userdata;
	(void)s, (void)revents;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return 0;
		struct ucred peer;
		socklen_t sl = sizeof peer;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &peer, &sl) < 0)
			peer = (struct ucred){.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
		if (!make_room(ctl, peer.uid)) {
			ctl->stats.refused++;
			refuse_busy(cfd);
			continue;
		}
		Conn *c = calloc(1, sizeof *c);
		if (!c) {
			close(cfd);
			continue;
		}
		*c = (Conn){.ctl = ctl, .fd = cfd, .peer = peer, .next = ctl->conns};
		if (ctl->conns)
			ctl->conns->prev = c;
		ctl->conns = c;
		ctl->n_conns++;
		ctl->stats.accepted++;
		if (sd_event_add_io(ctl->event, &c->io, cfd, EPOLLIN, on_conn_io, c) < 0 ||
		    sd_event_add_time(ctl->event, &c->timer, CLOCK_MONOTONIC, 0, 10000, on_conn_deadline, c) < 0) {
			conn_free(c);
			continue;
		}
		arm(c, loop_now(ctl), ctl->request_usec);
		/* smrctl sends as soon as it connects: answer what is there now,
		 * before a burst of newer connections could push this one out */
		if (conn_read(c) < 0 || conn_flush(c) < 0 || (c->closing && !writing(c)))
			conn_free(c);
		else
			want(c);
	}
}

static int bind_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	_cleanup_free_ char *dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	/* Replace a stale socket from a previous run, never any other file,
	 * and never a live one: a second smrd started with the same --socket
	 * took the socket over, and when it exited the first was unreachable.
	 * A socket that accepts a connection (or whose backlog is full) is
	 * live; one that refuses is stale. */
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		_cleanup_close_ int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (probe < 0)
			return -errno;
		if (connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EAGAIN || errno == EINPROGRESS)
			return -EADDRINUSE;
		unlink(path);
	}
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	mode_t old = umask(0117);	/* 0660: the group may read, others may not connect */
	int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (r < 0 || listen(fd, 64) < 0)
		return -errno;
	return TAKE_FD(fd);
}

Control *control_free(Control *ctl)
{
	if (!ctl)
		return NULL;
	while (ctl->conns)
		conn_free(ctl->conns);
	sd_event_source_disable_unref(ctl->listen_source);
	if (ctl->listen_fd >= 0)
		close(ctl->listen_fd);
	if (ctl->path)
		unlink(ctl->path);
	free(ctl->path);
	sd_event_unref(ctl->event);
	free(ctl);
	return NULL;
}

static void control_freep(Control **c) { control_free(*c); }

void control_set_request_deadline(Control *ctl, uint64_t usec) { ctl->request_usec = usec; }

void control_stats(const Control *ctl, ControlStats *ret)
{
	assert(ctl);
	*ret = ctl->stats;
	ret->connections = ctl->n_conns;
	ret->output_bytes = ctl->out_total;
}

int control_new(sd_event *e, const char *path, int fd, const char *group, ControlHandler handler,
		void *userdata, Control **ret)
{
	_cleanup_(control_freep) Control *ctl = calloc(1, sizeof *ctl);
	if (!ctl)
		return -ENOMEM;
	*ctl = (Control){.event = sd_event_ref(e), .listen_fd = -1, .handler = handler, .userdata = userdata,
			 .request_usec = CONTROL_REQUEST_USEC};
	if (fd < 0) {
		fd = bind_socket(path);
		if (fd < 0)
			return fd;
		ctl->path = strdup(path);
		struct group *g = group && *group ? getgrnam(group) : NULL;
		/* smrctl users are that group's members; a missing group is not an error */
		if (g && chown(path, (uid_t)-1, g->gr_gid) < 0)
			log_warning_errno(-errno, "Cannot give %s to group %s: %m", path, group);
	} else {
		/* an inherited socket: the service manager owns its path and mode */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	}
	ctl->listen_fd = fd;
	int r = sd_event_add_io(e, &ctl->listen_source, fd, EPOLLIN, on_accept, ctl);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ctl);
	return 0;
}
